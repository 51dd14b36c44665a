package queue

// The wbq queue (docs/queue-format.md, version 1): cycle files, the appender with its
// lock, recovery and pretouching, and the tailer. This file is the format; the suite's
// loops (suite.go) and the `queue append|tail` commands use it through Appender and
// Tailer.
//
// Publication: Go's sync/atomic is sequentially consistent only (atomic.StoreUint64 is
// XCHG on amd64, a full fence), so a Go appender ends every entry with a seqcst store and
// the suite lists ordering seqcst only: Go cannot express a release store.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"
)

const (
	magic      = "wbqueue1"
	version    = 1
	headerSize = 64
	// DefaultCycleSize is a cycle file's size unless the queue says otherwise.
	DefaultCycleSize = 64 << 20
	// MinCycleSize is the smallest cycle file; sizes are multiples of pageSize.
	MinCycleSize = 64 << 10
	pageSize     = 4096

	// The header word: bit 63 WORKING, 62 ABANDONED, 61 END; the length in bits 0-31.
	working    = 1 << 63
	abandoned  = 1 << 62
	endOfFile  = 1 << 61
	flagBits   = working | abandoned | endOfFile
	lengthBits = 1<<32 - 1

	firstWord = headerSize / 8 // the first entry's header, as a word index
	maxLength = lengthBits &^ 7
)

// tso: on amd64 (and 386) the hardware never reorders a store with an earlier store and
// the gc compiler keeps stores in program order (its SSA threads every store through one
// memory chain, and a clock call separates the WORKING store from the payload), so the
// release fence after WORKING is free, as on x86 in C++. Elsewhere Go's only ordered
// store that keeps later stores after it is a sequentially consistent read-modify-write.
const tso = runtime.GOARCH == "amd64" || runtime.GOARCH == "386"

// littleEndian: the format is little-endian and this file stores native words.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// Options are what a queue is created with; an appender that opens an existing queue
// must ask for the same.
type Options struct {
	Clock     Clock
	CycleSize int64
}

func (o Options) check() error {
	if !littleEndian {
		return errors.New("wbq: this implementation stores native words and needs a little-endian machine")
	}
	if o.Clock != Mono && !(o.Clock == TSC && HaveTSC) {
		return fmt.Errorf("wbq: clock %v is not available here", o.Clock)
	}
	if o.CycleSize < MinCycleSize || o.CycleSize%pageSize != 0 || o.CycleSize > 1<<40 {
		return fmt.Errorf("wbq: cycle size %d: at least %d and a multiple of %d", o.CycleSize, MinCycleSize, pageSize)
	}
	return nil
}

// FormatError is a corrupt or truncated queue: it names the file and the offset.
type FormatError struct {
	File   string
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string { return fmt.Sprintf("%s offset %d: %s", e.File, e.Offset, e.Msg) }

// ---- cycle files ------------------------------------------------------------------------

func cycleName(n uint64) string { return fmt.Sprintf("%08d.wbq", n) }

// cycles are the numbers of the cycle files in dir, ascending.
func cycles(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ns []uint64
	for _, e := range ents {
		digits, ok := strings.CutSuffix(e.Name(), ".wbq")
		if !ok || len(digits) != 8 || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		n, _ := strconv.ParseUint(digits, 10, 64)
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns, nil
}

// cycleFile is one mapped cycle file.
type cycleFile struct {
	n       uint64
	path    string
	data    []byte
	words   []uint64 // data as little-endian words
	touched int      // pretouch: every page below this word index is touched
}

// header is a cycle file's header.
func header(n uint64, o Options) []byte {
	h := make([]byte, headerSize)
	copy(h, magic)
	binary.LittleEndian.PutUint32(h[8:], version)
	binary.LittleEndian.PutUint32(h[12:], headerSize)
	binary.LittleEndian.PutUint64(h[16:], uint64(o.CycleSize))
	binary.LittleEndian.PutUint64(h[24:], n)
	binary.LittleEndian.PutUint32(h[32:], uint32(o.Clock))
	return h
}

// checkHeader checks the header of cycle file n (path, of fileSize bytes on disk) and
// returns the options it was created with; want, where non-zero, must match them.
func checkHeader(path string, h []byte, fileSize int64, n uint64, want Options) (Options, error) {
	bad := func(off int64, format string, args ...any) (Options, error) {
		return Options{}, &FormatError{path, off, fmt.Sprintf(format, args...)}
	}
	if fileSize < headerSize || len(h) < headerSize {
		return bad(0, "a file of %d bytes is shorter than its header (%d bytes)", fileSize, headerSize)
	}
	if string(h[:8]) != magic {
		return bad(0, "bad magic %q (want %q)", h[:8], magic)
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v != version {
		return bad(8, "format version %d (this reader knows %d)", v, version)
	}
	if s := binary.LittleEndian.Uint32(h[12:]); s != headerSize {
		return bad(12, "header size %d (want %d)", s, headerSize)
	}
	got := Options{CycleSize: int64(binary.LittleEndian.Uint64(h[16:])), Clock: Clock(binary.LittleEndian.Uint32(h[32:]))}
	switch {
	case got.CycleSize < MinCycleSize || got.CycleSize%pageSize != 0 || got.CycleSize > 1<<40:
		return bad(16, "file size %d is not a cycle size (at least %d, a multiple of %d)", got.CycleSize,
			MinCycleSize, pageSize)
	case fileSize < got.CycleSize:
		return bad(16, "the file has %d bytes, shorter than its header's size %d (truncated)", fileSize, got.CycleSize)
	case fileSize != got.CycleSize:
		return bad(16, "the file has %d bytes, its header says %d", fileSize, got.CycleSize)
	case want.CycleSize != 0 && got.CycleSize != want.CycleSize:
		return bad(16, "cycle size %d, the queue's is %d", got.CycleSize, want.CycleSize)
	}
	if c := binary.LittleEndian.Uint64(h[24:]); c != n {
		return bad(24, "cycle number %d in file %s", c, cycleName(n))
	}
	switch {
	case got.Clock != Mono && got.Clock != TSC:
		return bad(32, "unknown clock %d", uint32(got.Clock))
	case want.Clock != 0 && got.Clock != want.Clock:
		return bad(32, "clock %v, the queue's is %v", got.Clock, want.Clock)
	}
	return got, nil
}

// readHeader reads and checks the header of the open cycle file n.
func readHeader(f *os.File, n uint64, want Options) (Options, int64, error) {
	st, err := f.Stat()
	if err != nil {
		return Options{}, 0, err
	}
	h := make([]byte, headerSize)
	if st.Size() >= headerSize {
		if _, err := f.ReadAt(h, 0); err != nil {
			return Options{}, 0, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	o, err := checkHeader(f.Name(), h, st.Size(), n, want)
	return o, st.Size(), err
}

// mapCycle opens cycle file n of dir, checks its header against want (zero fields: any)
// and maps it, writable or not.
func mapCycle(dir string, n uint64, want Options, writable bool) (*cycleFile, Options, error) {
	path := filepath.Join(dir, cycleName(n))
	flag, prot := os.O_RDONLY, syscall.PROT_READ
	if writable {
		flag, prot = os.O_RDWR, syscall.PROT_READ|syscall.PROT_WRITE
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, Options{}, err
	}
	defer f.Close() // the mapping outlives the descriptor
	o, size, err := readHeader(f, n, want)
	if err != nil {
		return nil, o, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), prot, syscall.MAP_SHARED)
	if err != nil {
		return nil, o, fmt.Errorf("%s: mmap: %w", path, err)
	}
	return &cycleFile{n: n, path: path, data: data,
		words: unsafe.Slice((*uint64)(unsafe.Pointer(&data[0])), len(data)/8)}, o, nil
}

// createCycle makes cycle file n: created exclusively as .tmp, sized, its header
// written, renamed into place; so no reader ever sees a half-made header.
func createCycle(dir string, n uint64, o Options) error {
	path := filepath.Join(dir, cycleName(n))
	f, err := os.OpenFile(path+".tmp", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = f.Truncate(o.CycleSize)
	if err == nil {
		_, err = f.WriteAt(header(n, o), 0)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		os.Remove(path + ".tmp")
		return fmt.Errorf("creating %s: %w", path, err)
	}
	return nil
}

func (c *cycleFile) unmap() error {
	if c == nil || c.data == nil {
		return nil
	}
	err := syscall.Munmap(c.data)
	c.data, c.words = nil, nil
	return err
}

// ---- header words -----------------------------------------------------------------------

type kind int

const (
	kEmpty kind = iota
	kComplete
	kWorking
	kAbandoned
	kEnd
)

// word decodes the header word at word index p of c, checking it and its room rule:
// the kind, the length and the index of the next entry.
func (c *cycleFile) word(p int) (kind, int, int, error) {
	bad := func(format string, args ...any) (kind, int, int, error) {
		return 0, 0, 0, &FormatError{c.path, int64(p) * 8, fmt.Sprintf(format, args...)}
	}
	if p >= len(c.words) {
		return bad("no room for a header word in a file of %d bytes", len(c.data))
	}
	w := atomic.LoadUint64(&c.words[p]) // acquire (a plain MOV on amd64)
	if w == 0 {
		return kEmpty, 0, p, nil
	}
	l := int(w & lengthBits)
	var k kind
	switch w & flagBits {
	case 0:
		k = kComplete
	case working:
		k = kWorking
	case abandoned:
		k = kAbandoned
	case endOfFile:
		if l != 0 {
			return bad("corrupt header word %#016x (END with length %d)", w, l)
		}
		return kEnd, 0, p, nil
	default:
		return bad("corrupt header word %#016x (two flags)", w)
	}
	if w&^(flagBits|lengthBits) != 0 {
		return bad("corrupt header word %#016x (bits 32-60 set)", w)
	}
	next := p + 2 + (l+7)/8
	if next+1 > len(c.words) {
		return bad("an entry of %d bytes runs past the room of a file of %d bytes", l, len(c.data))
	}
	return k, l, next, nil
}

// ---- the appender -----------------------------------------------------------------------

// Writer is the payload of the entry being written. The suite's loops call WriteLong on
// this concrete type (not through an interface) so that the compiler inlines it.
type Writer struct {
	payload []uint64
	n       int
}

// WriteLong stores the entry's next value (plain store). Writing past the length given
// to Start is a programming error, and Go's bounds check panics.
func (w *Writer) WriteLong(v uint64) {
	w.payload[w.n] = v
	w.n++
}

// Appender appends to a queue; it holds the queue's lock until Close. It belongs to one
// goroutine.
type Appender struct {
	Writer
	words    []uint64 // the current cycle file's words
	pos      int      // word index of the next entry's header
	open     bool     // between Start and End
	clock    Clock
	maxLongs int // the most longs an entry can hold (an empty file's room)

	dir     string
	opts    Options
	lock    *os.File
	cur     *cycleFile
	next    *cycleFile // made ahead by Pretouch
	retired *cycleFile // left at a roll-over; unmapped later, outside the write
	created int
}

// Open opens the queue in dir for appending, creating it or recovering it (docs/
// queue-format.md, Recovery). It takes the queue's lock: a queue another process is
// appending to is refused, naming that process.
func Open(dir string, o Options) (*Appender, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	a := &Appender{dir: dir, opts: o, clock: o.Clock,
		maxLongs: min(int(o.CycleSize-headerSize-16-8), maxLength) / 8}
	if err := a.takeLock(); err != nil {
		return nil, err
	}
	if err := a.recover(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *Appender) takeLock() error {
	path := filepath.Join(a.dir, "queue.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	// flock(2): held by the open file description, so a second appender conflicts even
	// within this process, and released by the kernel however the holder dies.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("queue %s already has an appender (pid %s): one appender at a time",
				a.dir, strings.TrimSpace(string(holder)))
		}
		return fmt.Errorf("%s: flock: %w", path, err)
	}
	// The holder's pid, for the message of the appender it refuses.
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	a.lock = f
	return nil
}

// recover finds the append position: the last cycle file that holds an entry, scanned
// header by header; a WORKING entry on the way becomes ABANDONED.
func (a *Appender) recover() error {
	tmps, _ := filepath.Glob(filepath.Join(a.dir, "*.wbq.tmp"))
	for _, t := range tmps {
		if err := os.Remove(t); err != nil {
			return err
		}
	}
	ns, err := cycles(a.dir)
	if err != nil {
		return err
	}
	if len(ns) == 0 {
		if err := createCycle(a.dir, 0, a.opts); err != nil {
			return err
		}
		a.created++
		ns = []uint64{0}
	}
	last := ns[0]
	for i := len(ns) - 1; i >= 0; i-- {
		if holds, err := a.holdsEntry(ns[i]); err != nil {
			return err
		} else if holds {
			last = ns[i]
			break
		}
	}
	c, err := a.mapCycle(last)
	if err != nil {
		return err
	}
	a.setCurrent(c)
	for p := firstWord; ; {
		k, l, next, err := c.word(p)
		switch {
		case err != nil:
			return err
		case k == kEmpty:
			a.pos = p
			return nil
		case k == kEnd:
			a.pos = p
			return a.roll()
		case k == kWorking:
			atomic.StoreUint64(&c.words[p], abandoned|uint64(l))
		}
		p = next
	}
}

// holdsEntry checks cycle file n's header against the queue's options (refusing another
// clock or size, naming both) and reports whether it holds an entry.
func (a *Appender) holdsEntry(n uint64) (bool, error) {
	f, err := os.Open(filepath.Join(a.dir, cycleName(n)))
	if err != nil {
		return false, err
	}
	defer f.Close()
	got, size, err := readHeader(f, n, Options{})
	if err != nil {
		return false, err
	}
	if got != a.opts {
		return false, fmt.Errorf("queue %s was created with clock %v and cycle size %d (%s); this appender "+
			"asks for clock %v and cycle size %d", a.dir, got.Clock, got.CycleSize, cycleName(n), a.opts.Clock,
			a.opts.CycleSize)
	}
	w := make([]byte, 8)
	if size >= headerSize+8 {
		if _, err := f.ReadAt(w, headerSize); err != nil {
			return false, err
		}
	}
	return binary.LittleEndian.Uint64(w) != 0, nil
}

// mapCycle maps cycle file n writable, creating it if it does not exist yet.
func (a *Appender) mapCycle(n uint64) (*cycleFile, error) {
	if n > 99999999 {
		return nil, fmt.Errorf("queue %s: no cycle number after %d", a.dir, n-1)
	}
	if _, err := os.Stat(filepath.Join(a.dir, cycleName(n))); errors.Is(err, fs.ErrNotExist) {
		if err := createCycle(a.dir, n, a.opts); err != nil {
			return nil, err
		}
		a.created++
	}
	c, _, err := mapCycle(a.dir, n, a.opts, true)
	return c, err
}

func (a *Appender) setCurrent(c *cycleFile) {
	a.cur, a.words, a.pos = c, c.words, firstWord
}

// Start begins an entry of at most maxLongs values: WORKING and the timestamp. The fast
// path is one room check, two stores and the clock.
func (a *Appender) Start(maxLongs int) error {
	if a.open || uint(maxLongs-1) >= uint(a.maxLongs) || a.pos+3+maxLongs > len(a.words) {
		if err := a.makeRoom(maxLongs); err != nil {
			return err
		}
	}
	e := a.words[a.pos : a.pos+2+maxLongs]
	if tso {
		e[0] = working | uint64(maxLongs)*8
	} else {
		atomic.SwapUint64(&e[0], working|uint64(maxLongs)*8)
	}
	var ts int64 // the clock read here, not through a function that could not be inlined
	if a.clock == TSC {
		ts = rdtsc()
	} else {
		ts = Nanotime()
	}
	e[1] = uint64(ts)
	a.Writer = Writer{payload: e[2:]}
	a.open = true
	return nil
}

// makeRoom refuses what Start cannot do, or rolls over to the next cycle file.
func (a *Appender) makeRoom(maxLongs int) error {
	switch {
	case a.open:
		return errors.New("wbq: Start while an entry is being written")
	case maxLongs < 1:
		// A complete entry of 0 bytes would have header word 0: the end of the queue.
		return fmt.Errorf("wbq: an entry holds at least one long (asked for %d)", maxLongs)
	case maxLongs > a.maxLongs:
		return fmt.Errorf("wbq: an entry of %d bytes does not fit in a cycle file of %d bytes (capacity %d bytes)",
			int64(maxLongs)*8, a.opts.CycleSize, a.maxLongs*8)
	}
	return a.roll()
}

// roll ends the current file with END and continues at the next one: the one Pretouch
// made, or a new one. The file left is unmapped later (Pretouch, the next roll, Close),
// not inside this write.
func (a *Appender) roll() error {
	atomic.StoreUint64(&a.words[a.pos], endOfFile)
	next := a.next
	if next == nil {
		var err error
		if next, err = a.mapCycle(a.cur.n + 1); err != nil {
			return err
		}
	}
	a.next = nil
	err := a.retired.unmap()
	a.retired = a.cur
	a.setCurrent(next)
	return err
}

// End publishes the entry: its length, with a sequentially consistent store (the only
// ordered store Go has; XCHG on amd64).
func (a *Appender) End() {
	n := a.Writer.n
	if !a.open || n == 0 {
		panic("wbq: End without Start, or of an entry of no values")
	}
	atomic.StoreUint64(&a.words[a.pos], uint64(n)*8)
	a.pos += 2 + n
	a.open = false
}

// Pretouch makes the next cycle file ahead of time and touches every page of it and of
// the rest of the current one, so that the writes that follow take no page fault and
// create no file. Between writes only.
func (a *Appender) Pretouch() error {
	if a.open {
		return errors.New("wbq: Pretouch while an entry is being written")
	}
	if err := a.retired.unmap(); err != nil {
		return err
	}
	a.retired = nil
	if a.next == nil {
		next, err := a.mapCycle(a.cur.n + 1)
		if err != nil {
			return err
		}
		a.next = next
	}
	touch(a.cur, a.pos)
	touch(a.next, 0)
	return nil
}

// touch write-faults every page of c from the one holding word index from: a
// compare-and-swap of 0 with 0 at offset 64 of each page, which stores the zero already
// there and alters nothing else (a read fault may map a shared file page read-only).
func touch(c *cycleFile, from int) {
	const pageWords = pageSize / 8
	for p := max(from, c.touched) &^ (pageWords - 1); p < len(c.words); p += pageWords {
		atomic.CompareAndSwapUint64(&c.words[p+firstWord], 0, 0)
	}
	c.touched = len(c.words)
}

// Created is how many cycle files this appender created (pretouching included).
func (a *Appender) Created() int { return a.created }

// Close unmaps the files and releases the lock. An entry still being written stays
// WORKING, for the next appender to recover.
func (a *Appender) Close() error {
	err := errors.Join(a.cur.unmap(), a.next.unmap(), a.retired.unmap())
	if a.lock != nil {
		err = errors.Join(err, a.lock.Close()) // closing the descriptor releases the lock
	}
	a.lock, a.words, a.cur, a.next, a.retired = nil, nil, nil, nil, nil
	return err
}

// ---- the tailer -------------------------------------------------------------------------

// Status is where Next stopped.
type Status int

const (
	// Read: an entry.
	Read Status = iota
	// AtEnd: nothing more yet (a 0 header word, or END before the next file exists).
	AtEnd
	// Incomplete: a WORKING entry; a tailer never returns a partial one.
	Incomplete
)

// Entry is a complete entry. Longs views the mapping: valid until the tailer leaves
// the file.
type Entry struct {
	Timestamp int64
	Length    int      // bytes
	Longs     []uint64 // the payload's whole longs
	File      string   // the cycle file's name
	Offset    int64    // the entry's offset in it
}

// Tailer reads a queue from its lowest cycle file. It takes the queue's clock and cycle
// size from the first file it opens and holds every later file to them.
type Tailer struct {
	dir       string
	opts      Options
	cur       *cycleFile
	pos       int
	abandoned uint64
	finished  []string // files it has left (unmapped), for DeleteFinished
}

// OpenTailer opens a tailer on the queue in dir, which may have no cycle file yet, or not
// exist yet (a follower waits for it).
func OpenTailer(dir string) (*Tailer, error) {
	if !littleEndian {
		return nil, Options{}.check()
	}
	return &Tailer{dir: dir}, nil
}

// Next returns the next complete entry, skipping (and counting) ABANDONED ones, or says
// why there is none.
func (t *Tailer) Next() (Entry, Status, error) {
	if t.cur == nil {
		ns, err := cycles(t.dir)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		if err != nil || len(ns) == 0 {
			return Entry{}, AtEnd, err
		}
		if err := t.enter(ns[0]); err != nil {
			return Entry{}, AtEnd, err
		}
	}
	for {
		k, l, next, err := t.cur.word(t.pos)
		if err != nil {
			return Entry{}, AtEnd, err
		}
		switch k {
		case kEmpty:
			return Entry{}, AtEnd, nil
		case kWorking:
			return Entry{}, Incomplete, nil
		case kAbandoned:
			t.abandoned++
			t.pos = next
		case kComplete:
			w := t.cur.words
			e := Entry{Timestamp: int64(w[t.pos+1]), Length: l, Longs: w[t.pos+2 : t.pos+2+l/8],
				File: filepath.Base(t.cur.path), Offset: int64(t.pos) * 8}
			t.pos = next
			return e, Read, nil
		case kEnd:
			path := filepath.Join(t.dir, cycleName(t.cur.n+1))
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return Entry{}, AtEnd, nil
			}
			left := t.cur
			if err := t.enter(left.n + 1); err != nil {
				return Entry{}, AtEnd, err
			}
			if err := left.unmap(); err != nil {
				return Entry{}, AtEnd, err
			}
			t.finished = append(t.finished, left.path)
		}
	}
}

// enter maps cycle file n and moves to its first entry.
func (t *Tailer) enter(n uint64) error {
	c, o, err := mapCycle(t.dir, n, t.opts, false)
	if err != nil {
		return err
	}
	t.opts, t.cur, t.pos = o, c, firstWord
	return nil
}

// Peek is where the tailer stands without moving: AtEnd, Incomplete, or Read (an entry
// or END follows).
func (t *Tailer) Peek() (Status, error) {
	if t.cur == nil {
		return AtEnd, nil
	}
	k, _, _, err := t.cur.word(t.pos)
	switch {
	case err != nil || k == kEmpty:
		return AtEnd, err
	case k == kWorking:
		return Incomplete, nil
	}
	return Read, nil
}

// Where is the file and offset the tailer stands at ("" before the first file).
func (t *Tailer) Where() (string, int64) {
	if t.cur == nil {
		return "", 0
	}
	return filepath.Base(t.cur.path), int64(t.pos) * 8
}

// Abandoned is how many ABANDONED entries the tailer skipped.
func (t *Tailer) Abandoned() uint64 { return t.abandoned }

// Clock is the queue's clock (zero before the first file).
func (t *Tailer) Clock() Clock { return t.opts.Clock }

// DeleteFinished deletes the cycle files the tailer has left (already unmapped).
func (t *Tailer) DeleteFinished() error {
	for _, path := range t.finished {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	t.finished = t.finished[:0]
	return nil
}

// Close unmaps the tailer's file.
func (t *Tailer) Close() error {
	err := t.cur.unmap()
	t.cur = nil
	return err
}

// ---- the suite's wbq library ------------------------------------------------------------

// wbqLib is the queue suite's wbq: an appender on the queue in the work directory and a
// tailer on the same queue that reads every run back and deletes the files it leaves.
type wbqLib struct {
	*Appender
	t *Tailer
}

func newWbq(dir string, o Options, _ int) (impl, error) {
	// The tailer reads from the lowest file: an old queue's entries are not the run's.
	if ns, err := cycles(dir); err != nil || len(ns) > 0 {
		return nil, errors.Join(err, fmt.Errorf("--work-dir %s already holds a queue (the suite needs an "+
			"empty directory)", dir))
	}
	a, err := Open(dir, o)
	if err != nil {
		return nil, err
	}
	t, err := OpenTailer(dir)
	if err != nil {
		a.Close()
		return nil, err
	}
	return &wbqLib{a, t}, nil
}

func (q *wbqLib) writer() *Writer { return &q.Appender.Writer }

func (q *wbqLib) ReadBack(longs int) (int64, []uint64, error) {
	e, st, err := q.t.Next()
	file, off := q.t.Where()
	switch {
	case err != nil:
		return 0, nil, err
	case st == AtEnd:
		return 0, nil, fmt.Errorf("the queue ends at %s offset %d: fewer entries than written", file, off)
	case st == Incomplete:
		return 0, nil, fmt.Errorf("incomplete entry at %s offset %d", file, off)
	case e.Length != longs*8:
		return 0, nil, fmt.Errorf("an entry of %d bytes at %s offset %d, written %d", e.Length, e.File, e.Offset,
			longs*8)
	}
	return e.Timestamp, e.Longs, nil
}

func (q *wbqLib) Finish() error {
	_, st, err := q.t.Next()
	file, off := q.t.Where()
	switch {
	case err != nil:
		return err
	case st != AtEnd:
		return fmt.Errorf("more entries than written, at %s offset %d", file, off)
	case q.t.Abandoned() != 0:
		return fmt.Errorf("%d abandoned entries before %s offset %d", q.t.Abandoned(), file, off)
	}
	return q.t.DeleteFinished()
}

func (q *wbqLib) Cycles() (int64, int) { return q.opts.CycleSize, q.created }

func (q *wbqLib) Close() error { return errors.Join(q.t.Close(), q.Appender.Close()) }
