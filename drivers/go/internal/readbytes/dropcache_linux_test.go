//go:build linux

package readbytes

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident is how many of path's pages are in the page cache (mincore over a mapping).
func resident(t *testing.T, path string, size int) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(data)
	pages := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
	// x/sys v0.22.0 has no Mincore: the system call itself.
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)),
		uintptr(unsafe.Pointer(&pages[0])))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, p := range pages {
		n += int(p & 1)
	}
	return n
}

// cache cold: dropCache leaves none of a clean file's pages cached, where the file
// system lets it (not tmpfs, whose pages are the file).
func TestDropCacheEmptiesThePageCache(t *testing.T) {
	dir := t.TempDir()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Type == unix.TMPFS_MAGIC {
		t.Skipf("%s is on tmpfs: no page cache to drop", dir)
	}
	path := filepath.Join(dir, "shop.pb")
	data := shop(300_000) // 1.2 MB
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil { // dirty pages are not dropped
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if n := resident(t, path, len(data)); n == 0 {
		t.Fatalf("no page cached after reading the file")
	}
	if err := dropCache(path); err != nil {
		t.Fatal(err)
	}
	if n := resident(t, path, len(data)); n != 0 {
		t.Errorf("%d pages still cached after dropCache", n)
	}
	if err := dropCache(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("dropCache of a missing file: %v", err)
	}
}
