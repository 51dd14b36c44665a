package queue

// The wbq format (docs/queue-format.md): round trips, roll-over, the room rule, recovery,
// the tailer's stops and errors, the lock, and what an appender refuses.

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const small = 64 << 10 // the smallest cycle file

var smallMono = Options{Clock: Mono, CycleSize: small}

// queueDir is an empty directory for a queue: on tmpfs where there is one, so that the
// tests' files (64 MiB, pretouched) cost memory, not disk writes.
func queueDir(t testing.TB) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "wbq-test-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

func open(t *testing.T, dir string, o Options) *Appender {
	t.Helper()
	a, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// appendN appends entries of longs values each, from value v on; it returns the next v.
func appendN(t *testing.T, a *Appender, entries, longs int, v uint64) uint64 {
	t.Helper()
	for range entries {
		if err := a.Start(longs); err != nil {
			t.Fatal(err)
		}
		for range longs {
			a.WriteLong(v)
			v++
		}
		a.End()
	}
	return v
}

// tailed is what a tailer read from a queue until it stopped.
type tailed struct {
	entries, abandoned uint64
	values             []uint64
	lengths            []int
	files              map[string]bool
	stopped            Status
	file               string
	offset             int64
}

func tailAll(t *testing.T, dir string) tailed {
	t.Helper()
	tl, err := OpenTailer(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	r := tailed{files: map[string]bool{}}
	last := int64(-1 << 63)
	for {
		e, st, err := tl.Next()
		if err != nil {
			t.Fatal(err)
		}
		if st != Read {
			r.stopped = st
			break
		}
		if e.Timestamp < last {
			t.Fatalf("timestamp %d after %d", e.Timestamp, last)
		}
		last = e.Timestamp
		r.entries++
		r.values = append(r.values, e.Longs...)
		r.lengths = append(r.lengths, e.Length)
		r.files[e.File] = true
	}
	r.abandoned = tl.Abandoned()
	r.file, r.offset = tl.Where()
	return r
}

func checkValues(t *testing.T, values []uint64, first, n uint64) {
	t.Helper()
	if uint64(len(values)) != n {
		t.Fatalf("%d values, want %d", len(values), n)
	}
	for i, v := range values {
		if v != first+uint64(i) {
			t.Fatalf("value %d is %d, want %d", i, v, first+uint64(i))
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, clock := range []Clock{Mono, TSC} {
		if clock == TSC && !HaveTSC {
			continue
		}
		dir := queueDir(t)
		a := open(t, dir, Options{Clock: clock, CycleSize: DefaultCycleSize})
		v := appendN(t, a, 5, 1, 0)
		v = appendN(t, a, 3, 7, v)
		// An entry may hold less than it asked for: the next one follows what it holds.
		if err := a.Start(10); err != nil {
			t.Fatal(err)
		}
		a.WriteLong(v)
		a.WriteLong(v + 1)
		a.End()
		v = appendN(t, a, 1, 1, v+2)
		a.Close()
		r := tailAll(t, dir)
		checkValues(t, r.values, 0, v)
		if want := []int{8, 8, 8, 8, 8, 56, 56, 56, 16, 8}; r.entries != 10 || !slices.Equal(r.lengths, want) {
			t.Fatalf("%d entries, lengths %v, want %v", r.entries, r.lengths, want)
		}
		if r.stopped != AtEnd || r.file != "00000000.wbq" || r.offset != 64+5*24+3*72+32+24 {
			t.Errorf("stopped %v at %s offset %d", r.stopped, r.file, r.offset)
		}
		h, _ := os.ReadFile(filepath.Join(dir, "00000000.wbq"))
		if string(h[:8]) != "wbqueue1" || binary.LittleEndian.Uint32(h[32:]) != uint32(clock) ||
			binary.LittleEndian.Uint64(h[16:]) != DefaultCycleSize || len(h) != DefaultCycleSize {
			t.Errorf("header % x", h[:64])
		}
	}
}

// Entries roll over to the next cycle file when the room rule says so: an entry that
// leaves exactly 8 bytes for END fits, one more long does not.
func TestRollOverAndRoomRule(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, smallMono)
	v := appendN(t, a, 10, 100, 0) // 10 x 816 bytes
	p := 64 + 10*816
	exact := (small - p - 16 - 8) / 8
	v = appendN(t, a, 1, exact, v)
	if a.cur.n != 0 || a.pos*8 != small-8 {
		t.Fatalf("cycle %d pos %d", a.cur.n, a.pos*8)
	}
	v = appendN(t, a, 1, 1, v) // rolls over
	if a.cur.n != 1 || a.pos != firstWord+3 {
		t.Fatalf("cycle %d pos %d", a.cur.n, a.pos*8)
	}
	// The largest entry fits in an empty file only; one more long is refused.
	largest := (small - 64 - 16 - 8) / 8
	v = appendN(t, a, 1, largest, v)
	err := a.Start(largest + 1)
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa((largest+1)*8)+" bytes") ||
		!strings.Contains(err.Error(), "capacity "+strconv.Itoa(largest*8)) {
		t.Fatalf("too large an entry: %v", err)
	}
	v = appendN(t, a, 200, 50, v) // several more files
	created := a.Created()
	a.Close()
	f0, _ := os.ReadFile(filepath.Join(dir, "00000000.wbq"))
	if w := binary.LittleEndian.Uint64(f0[small-8:]); w != endOfFile {
		t.Errorf("file 0 ends with %#x", w)
	}
	r := tailAll(t, dir)
	checkValues(t, r.values, 0, v)
	if r.entries != 10+1+1+1+200 || len(r.files) != created || created < 5 {
		t.Errorf("%d entries in files %v, %d created", r.entries, r.files, created)
	}
}

// A tailer deletes the files it has finished with; the appender keeps going.
func TestTailerDeletesFinishedFiles(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, smallMono)
	defer a.Close()
	tl, _ := OpenTailer(dir)
	defer tl.Close()
	v, read := uint64(0), uint64(0)
	for range 40 {
		v = appendN(t, a, 100, 10, v)
		for {
			e, st, err := tl.Next()
			if err != nil {
				t.Fatal(err)
			}
			if st != Read {
				break
			}
			for _, x := range e.Longs {
				if x != read {
					t.Fatalf("read %d, want %d", x, read)
				}
				read++
			}
		}
		if err := tl.DeleteFinished(); err != nil {
			t.Fatal(err)
		}
		if err := a.Pretouch(); err != nil {
			t.Fatal(err)
		}
		if ns, _ := cycles(dir); len(ns) > 3 {
			t.Fatalf("%d cycle files left", len(ns))
		}
	}
	if read != v || a.Created() < 5 {
		t.Errorf("read %d of %d, %d files", read, v, a.Created())
	}
}

// Pretouch makes the next file ahead, and the roll-over uses it instead of creating one.
func TestPretouchMakesTheNextFile(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, smallMono)
	if err := a.Pretouch(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "00000001.wbq")); err != nil || a.Created() != 2 {
		t.Fatalf("after Pretouch: %v, %d created", err, a.Created())
	}
	v := appendN(t, a, 90, 100, 0) // fills file 0: the roll uses file 1
	if a.cur.n != 1 || a.Created() != 2 {
		t.Fatalf("in file %d, %d created", a.cur.n, a.Created())
	}
	v = appendN(t, a, 1000, 100, v)
	last := a.cur.n
	a.Close()
	// An empty pretouched file after the last one that holds entries: appending resumes
	// in the last one that holds entries.
	a = open(t, dir, smallMono)
	if err := a.Pretouch(); err != nil {
		t.Fatal(err)
	}
	a.Close()
	a = open(t, dir, smallMono)
	v = appendN(t, a, 1, 1, v)
	a.Close()
	r := tailAll(t, dir)
	checkValues(t, r.values, 0, v)
	if ns, _ := cycles(dir); uint64(len(ns)) != last+2 || r.file != cycleName(last) {
		t.Errorf("files %v, tailer ends in %s, the appender was in %d", ns, r.file, last)
	}
}

// A writer that died mid-entry leaves WORKING: tailers stop there; the next appender
// marks it ABANDONED and appends after it; tailers skip and count it.
func TestRecoveryOfAWorkingEntry(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, smallMono)
	v := appendN(t, a, 3, 2, 0)
	if err := a.Start(4); err != nil {
		t.Fatal(err)
	}
	a.WriteLong(1000)
	a.WriteLong(1001)
	a.Close() // as if killed: the entry stays WORKING
	r := tailAll(t, dir)
	if r.entries != 3 || r.stopped != Incomplete || r.file != "00000000.wbq" || r.offset != 64+3*32 {
		t.Fatalf("%d entries, stopped %v at %s offset %d", r.entries, r.stopped, r.file, r.offset)
	}
	// A tailer waiting at the WORKING entry moves on once it is recovered.
	tl, _ := OpenTailer(dir)
	defer tl.Close()
	for range 3 {
		if _, st, err := tl.Next(); st != Read || err != nil {
			t.Fatal(st, err)
		}
	}
	if _, st, _ := tl.Next(); st != Incomplete {
		t.Fatal(st)
	}
	a = open(t, dir, smallMono)
	v = appendN(t, a, 2, 2, v)
	a.Close()
	e, st, err := tl.Next()
	if err != nil || st != Read || e.Longs[0] != 6 || tl.Abandoned() != 1 {
		t.Fatalf("after recovery: %v %v %v, %d abandoned", e, st, err, tl.Abandoned())
	}
	r = tailAll(t, dir)
	checkValues(t, r.values, 0, v)
	if r.entries != 5 || r.abandoned != 1 || r.stopped != AtEnd {
		t.Errorf("%d entries, %d abandoned, stopped %v", r.entries, r.abandoned, r.stopped)
	}
	f0, _ := os.ReadFile(filepath.Join(dir, "00000000.wbq"))
	if w := binary.LittleEndian.Uint64(f0[64+3*32:]); w != abandoned|32 {
		t.Errorf("the dead entry's header is %#x", w)
	}
}

// Recovery deletes a half-made file and continues after a last file that ends in END.
func TestRecoveryAfterEndAndTmp(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, smallMono)
	v := appendN(t, a, 2, 1, 0)
	a.Close()
	f, _ := os.OpenFile(filepath.Join(dir, "00000000.wbq"), os.O_RDWR, 0)
	word := make([]byte, 8)
	binary.LittleEndian.PutUint64(word, endOfFile)
	f.WriteAt(word, 64+2*24)
	f.Close()
	os.WriteFile(filepath.Join(dir, "00000001.wbq.tmp"), []byte("half"), 0o644)
	a = open(t, dir, smallMono)
	v = appendN(t, a, 1, 1, v)
	a.Close()
	if _, err := os.Stat(filepath.Join(dir, "00000001.wbq.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the .tmp file is still there: %v", err)
	}
	r := tailAll(t, dir)
	checkValues(t, r.values, 0, v)
	if !r.files["00000001.wbq"] || r.entries != 3 {
		t.Errorf("%d entries in %v", r.entries, r.files)
	}
}

// Damage is an error naming the file and the offset, never a crash or a skipped entry.
func TestCorruptionNamesFileAndOffset(t *testing.T) {
	le := func(n int, v uint64) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b
	}
	for _, c := range []struct {
		name   string
		damage func(path string)
		offset string
		needle string
	}{
		{"truncated", func(p string) { os.Truncate(p, 1000) }, "offset 16", "truncated"},
		{"shorter than a header", func(p string) { os.Truncate(p, 10) }, "offset 0", "shorter than its header"},
		{"bad magic", func(p string) { patch(p, 0, []byte("wbqueue2")) }, "offset 0", "magic"},
		{"version", func(p string) { patch(p, 8, le(4, 2)) }, "offset 8", "version 2"},
		{"header size", func(p string) { patch(p, 12, le(4, 128)) }, "offset 12", "header size 128"},
		{"cycle number", func(p string) { patch(p, 24, le(8, 7)) }, "offset 24", "cycle number 7"},
		{"clock", func(p string) { patch(p, 32, le(4, 9)) }, "offset 32", "unknown clock 9"},
		{"bits 32-60", func(p string) { patch(p, 64+24, le(8, 1<<40|8)) }, "offset 88", "bits 32-60"},
		{"two flags", func(p string) { patch(p, 64+24, le(8, working|abandoned|8)) }, "offset 88", "two flags"},
		{"END with a length", func(p string) { patch(p, 64+24, le(8, endOfFile|8)) }, "offset 88", "END with length 8"},
		{"past the room", func(p string) { patch(p, 64+24, le(8, small-64-24-16)) }, "offset 88", "runs past"},
	} {
		dir := queueDir(t)
		a := open(t, dir, smallMono)
		appendN(t, a, 1, 1, 0)
		a.Close()
		path := filepath.Join(dir, "00000000.wbq")
		c.damage(path)
		tl, _ := OpenTailer(dir)
		var err error
		for range 3 {
			var st Status
			if _, st, err = tl.Next(); err != nil || st != Read {
				break
			}
		}
		tl.Close()
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), path+" "+c.offset+":") ||
			!strings.Contains(err.Error(), c.needle) {
			t.Errorf("%s: %v", c.name, err)
		}
		// The appender's recovery refuses it too.
		if a, err := Open(dir, smallMono); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: appender: %v", c.name, err)
			if a != nil {
				a.Close()
			}
		}
	}
}

func patch(path string, off int64, b []byte) {
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	f.WriteAt(b, off)
	f.Close()
}

// A second appender is refused, naming the directory and the holder's pid; once the
// first closes, the next one may open.
func TestSecondAppenderIsRefused(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, smallMono)
	_, err := Open(dir, smallMono)
	if err == nil || !strings.Contains(err.Error(), dir) ||
		!strings.Contains(err.Error(), "(pid "+strconv.Itoa(os.Getpid())+")") {
		t.Fatalf("second appender: %v", err)
	}
	a.Close()
	open(t, dir, smallMono).Close()
}

// An appender that asks for another clock or cycle size is refused, naming both.
func TestClockOrCycleSizeMismatchIsRefused(t *testing.T) {
	dir := queueDir(t)
	open(t, dir, smallMono).Close()
	for _, o := range []Options{{Clock: Mono, CycleSize: 2 * small}, {Clock: TSC, CycleSize: small}} {
		if o.Clock == TSC && !HaveTSC {
			continue
		}
		_, err := Open(dir, o)
		if err == nil || !strings.Contains(err.Error(), "clock mono and cycle size 65536") ||
			!strings.Contains(err.Error(), "asks for clock "+o.Clock.String()+" and cycle size "+
				strconv.FormatInt(o.CycleSize, 10)) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	for _, size := range []int64{small - pageSize, small + 100} {
		if _, err := Open(queueDir(t), Options{Clock: Mono, CycleSize: size}); err == nil {
			t.Errorf("cycle size %d accepted", size)
		}
	}
}

// A tailer holds every file to the first one's clock and size.
func TestTailerRefusesAFileOfAnotherQueue(t *testing.T) {
	dir, other := queueDir(t), queueDir(t)
	a := open(t, dir, smallMono)
	appendN(t, a, 1, 1, 0)
	a.Close()
	b := open(t, other, Options{Clock: Mono, CycleSize: 2 * small})
	b.Close()
	// An END in file 0 and a file 1 of another size.
	patch(filepath.Join(dir, "00000000.wbq"), 64+24, []byte{0, 0, 0, 0, 0, 0, 0, 0x20})
	f1, _ := os.ReadFile(filepath.Join(other, "00000000.wbq"))
	binary.LittleEndian.PutUint64(f1[24:], 1)
	os.WriteFile(filepath.Join(dir, "00000001.wbq"), f1, 0o644)
	tl, _ := OpenTailer(dir)
	defer tl.Close()
	tl.Next()
	_, _, err := tl.Next()
	if err == nil || !strings.Contains(err.Error(), "00000001.wbq offset 16: cycle size 131072, the queue's is 65536") {
		t.Errorf("%v", err)
	}
}

// A tailer of an empty directory, or one not made yet, is at the end.
func TestTailerOfNothing(t *testing.T) {
	for _, dir := range []string{queueDir(t), filepath.Join(queueDir(t), "later")} {
		tl, _ := OpenTailer(dir)
		if _, st, err := tl.Next(); st != AtEnd || err != nil {
			t.Errorf("%s: %v %v", dir, st, err)
		}
		if f, _ := tl.Where(); f != "" {
			t.Errorf("where %s", f)
		}
	}
}
