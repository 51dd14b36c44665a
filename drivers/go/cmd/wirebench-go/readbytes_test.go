package main

// The readbytes suite as a process: a longer run of a cell on a data file the tests make
// (every pass's value counted), the cells `list` gives, damaged files (cut inside a
// varint, a wrong tag) and an input that cannot be opened: exit 1 naming the pass, the
// file, the value or the byte offset.

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"wirebench/drivers/go/internal/readbytes"
)

// shop is the data of docs/workloads.md §8 for ids 0 .. n-1: per id the tag 0x08, then the
// id as a base-128 varint, low groups first.
func shop(n int) []byte {
	out := make([]byte, 0, 5*n)
	for i := 0; i < n; i++ {
		out = append(out, 0x08)
		v := uint64(i)
		for ; v >= 0x80; v >>= 7 {
			out = append(out, byte(v)|0x80)
		}
		out = append(out, byte(v))
	}
	return out
}

var shopOnce = sync.OnceValue(func() []byte { return shop(3_000_000) })

// shopData is the whole file: 3,000,000 ids, 12,886,336 bytes.
func shopData(t *testing.T) []byte {
	t.Helper()
	data := shopOnce()
	if len(data) != readbytes.FileSize {
		t.Fatalf("shop: %d bytes, want %d", len(data), readbytes.FileSize)
	}
	return data
}

// writeShop writes data as a file of the test's and returns its path.
func writeShop(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.pb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// shopFile is the whole data file, made for the test.
func shopFile(t *testing.T) string { return writeShop(t, shopData(t)) }

// readbytesCell is a readbytes cell with --iters 1 and --input f, plus extra flags.
func readbytesCell(kase, lib, cache string, extra ...string) []string {
	return append([]string{"run", "--suite", "readbytes", "--case", kase, "--lib", lib, "--cache", cache,
		"--iters", "1", "--input", "f"}, extra...)
}

// perPass is a case's value per pass.
func perPass(t *testing.T, kase string) uint64 {
	for _, c := range readbytes.Cases {
		if c.Name == kase {
			return c.Value
		}
	}
	t.Fatalf("no case %s", kase)
	return 0
}

// checkReadbytesResult checks a readbytes result of --iters iters --samples samples
// --warmup warmup: time and bytes per sample, the check (iters times the case's value),
// the passes checked.
func checkReadbytesResult(t *testing.T, args []string, res map[string]any, iters, samples, warmup uint64) {
	t.Helper()
	metrics, _ := res["metrics"].(map[string]any)
	timeM, _ := metrics["time"].(map[string]any)
	bytesM, _ := metrics["bytes"].(map[string]any)
	n := strconv.FormatUint(iters, 10)
	if len(metrics) != 2 || timeM["unit"] != "ns" || bytesM["unit"] != "B" || text(timeM["iters"]) != n ||
		text(bytesM["iters"]) != n || len(timeM["samples"].([]any)) != int(samples) {
		t.Fatalf("%v: metrics %s", args, text(metrics))
	}
	for _, v := range timeM["samples"].([]any) {
		if ns, err := strconv.ParseUint(text(v), 10, 64); err != nil || ns == 0 {
			t.Errorf("%v: time %s", args, text(timeM))
		}
	}
	var wantBytes, wantCheck []string
	for range samples {
		wantBytes = append(wantBytes, strconv.FormatUint(iters*readbytes.FileSize, 10))
		wantCheck = append(wantCheck, strconv.FormatUint(iters*perPass(t, res["case"].(string)), 10))
	}
	if got := text(bytesM["samples"]); got != "["+strings.Join(wantBytes, ",")+"]" {
		t.Errorf("%v: bytes %s, want %v", args, got, wantBytes)
	}
	if got := text(res["check"]); got != "["+strings.Join(wantCheck, ",")+"]" {
		t.Errorf("%v: check %s, want %v", args, got, wantCheck)
	}
	if got := text(res["passes_checked"]); got != strconv.FormatUint(warmup+iters*samples, 10) {
		t.Errorf("%v: passes_checked %s, want %d", args, got, warmup+iters*samples)
	}
}

// list: per case, null warm, then every other strategy warm and cold.
func TestReadbytesListsItsCells(t *testing.T) {
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(driver(t, nil, "list").stdout), "\n") {
		c := object(t, line)
		if c["suite"] == "readbytes" {
			got = append(got, c["case"].(string)+" "+c["lib"].(string)+" "+text(c["params"]))
		}
	}
	var want []string
	for _, kase := range []string{"count", "sum", "varint"} {
		want = append(want, kase+` null {"cache":"warm"}`)
		for _, lib := range []string{"bufio", "own_buffer", "mmap"} {
			want = append(want, kase+" "+lib+` {"cache":"warm"}`, kase+" "+lib+` {"cache":"cold"}`)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A longer run of one cell: every sample's check and the passes counted.
func TestReadbytesCountsEveryPass(t *testing.T) {
	path := shopFile(t)
	args := []string{"run", "--suite", "readbytes", "--case", "varint", "--lib", "own_buffer", "--cache", "cold",
		"--iters", "2", "--samples", "3", "--warmup", "2", "--input", path}
	r := driver(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
	}
	res := object(t, r.stdout)
	checkIdentity(t, args, res)
	checkReadbytesResult(t, args, res, 2, 3, 2)
}

// A damaged file fails at the first pass, warm-up or timed, naming the cell, the pass, the
// file and what differs.
func TestReadbytesDamagedFilesExit1(t *testing.T) {
	data := shopData(t)
	// Cut inside the last varint: id 2,999,999 is 4 bytes after its tag at size-5.
	cut := writeShop(t, data[:len(data)-2])
	// A wrong tag: id 1000's, at the offset where shop(1000) ends.
	at := len(shop(1000))
	bad := slices.Clone(data)
	bad[at] = 0x10
	wrongTag := writeShop(t, bad)

	for _, c := range []struct {
		kase, lib, path, warmup, msg string
	}{
		{"varint", "null", cut, "1", "pass 1 (warm-up), " + cut +
			": byte offset 12886334: end of file inside the varint at offset 12886332"},
		{"varint", "bufio", cut, "0", "pass 1 (sample 1), " + cut +
			": byte offset 12886334: end of file inside the varint at offset 12886332"},
		{"varint", "own_buffer", cut, "2", "pass 1 (warm-up), " + cut +
			": byte offset 12886334: end of file inside the varint at offset 12886332"},
		{"varint", "mmap", cut, "1", "pass 1 (warm-up), " + cut +
			": byte offset 12886334: end of file inside the varint at offset 12886332"},
		{"count", "mmap", cut, "0", "pass 1 (sample 1), " + cut + ": value 12886334, expected 12886336"},
		{"sum", "own_buffer", cut, "1", "pass 1 (warm-up), " + cut + ": value "},
		{"varint", "null", wrongTag, "1", "pass 1 (warm-up), " + wrongTag + ": byte offset " +
			strconv.Itoa(at) + ": tag 0x10, expected 0x08"},
		{"varint", "bufio", wrongTag, "0", "byte offset " + strconv.Itoa(at) + ": tag 0x10, expected 0x08"},
		{"varint", "own_buffer", wrongTag, "0", "byte offset " + strconv.Itoa(at) + ": tag 0x10, expected 0x08"},
		{"varint", "mmap", wrongTag, "0", "byte offset " + strconv.Itoa(at) + ": tag 0x10, expected 0x08"},
		// A byte changed where count does not look: count passes; sum sees it.
		{"sum", "mmap", wrongTag, "0", "value 1457733672, expected 1457733664"},
	} {
		args := []string{"run", "--suite", "readbytes", "--case", c.kase, "--lib", c.lib, "--cache", "warm",
			"--iters", "2", "--samples", "2", "--warmup", c.warmup, "--input", c.path}
		r := driver(t, nil, args...)
		prefix := "wirebench-go: error: readbytes " + c.kase + " " + c.lib + ", pass 1 ("
		if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, prefix) || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: exit %d, want 1 and %q: %s", args, r.code, c.msg, r.stderr)
		}
	}
	args := []string{"run", "--suite", "readbytes", "--case", "count", "--lib", "bufio", "--cache", "warm",
		"--iters", "1", "--input", wrongTag}
	if r := driver(t, nil, args...); r.code != 0 {
		t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
	}
}

// An input that cannot be opened is exit 1 naming it, in every strategy.
func TestReadbytesUnopenableInputExit1(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such.pb")
	for _, lib := range readbytes.Suite.LibNames() {
		r := driver(t, nil, "run", "--suite", "readbytes", "--case", "sum", "--lib", lib, "--cache", "warm",
			"--iters", "1", "--input", missing)
		if r.code != 1 || !strings.Contains(r.stderr, "open "+missing+": no such file or directory") {
			t.Errorf("%s: exit %d: %s", lib, r.code, r.stderr)
		}
	}
}
