//go:build linux

package readbytes

import (
	"os"

	"golang.org/x/sys/unix"
)

// canDropCache: cache cold is listed (posix_fadvise is Linux's here).
const canDropCache = true

// dropCache is cache cold's step before a pass, outside the timed region: open the file,
// posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) (advice 4 on Linux), close. Through
// golang.org/x/sys/unix, already a requirement of this module.
func dropCache(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	err = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	unix.Close(fd)
	if err != nil {
		return &os.PathError{Op: "posix_fadvise(POSIX_FADV_DONTNEED)", Path: path, Err: err}
	}
	return nil
}
