package readbytes

import (
	"bufio"
	"io"
	"os"
)

// bufioLib is the strategy `bufio`: each pass opens the file (os.Open) and reads it with
// bufio.NewReader(f).ReadByte(), one call per byte, through bufio's default 4 KiB buffer.
// bufio reads the *os.File through bufioLib.Read, which is f.Read keeping a read error:
// bufio hands an error out once and forgets it, and keeping it in next would cost either
// a store per byte or next's inlining (a branch and a store: go build -gcflags=-m=2 gives
// 84 of the inliner's budget of 80; next costs 73 as it is). One more indirect call per
// 4 KiB, none per byte.
type bufioLib struct {
	path string
	f    *os.File
	err  error // the pass's read error, if any
}

func newBufio(path string) (strategy, error) { return &bufioLib{path: path}, nil }

func (l *bufioLib) pass(c kase) (tally, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return tally{}, err
	}
	l.f, l.err = f, nil
	t, err := bufioSource{bufio.NewReader(l)}.consume(c)
	l.f = nil
	return finish(t, err, l.err, f.Close())
}

// Read is the file's Read, keeping its error other than the end of the file.
func (l *bufioLib) Read(p []byte) (int, error) {
	n, err := l.f.Read(p)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

// bufioSource: one bufio.Reader.ReadByte per byte; false at the end of the file or at a
// read error (bufioLib keeps it).
type bufioSource struct{ r *bufio.Reader }

func (s bufioSource) next() (bufioSource, byte, bool) {
	b, err := s.r.ReadByte()
	return s, b, err == nil
}

// ---- the consumers: consume.go's, on bufioSource ----------------------------------------

// consume runs consumer c over every byte of s.
func (s bufioSource) consume(c kase) (tally, error) {
	switch c {
	case countCase:
		return s.count()
	case sumCase:
		return s.sum()
	}
	return s.varint()
}

// count: the number of bytes. Each byte is folded into taken, kept after the pass:
// without it the compiler drops the loads of bytes nothing uses (see takenSink).
func (s bufioSource) count() (tally, error) {
	var n uint64
	var b, taken byte
	var ok bool
	for {
		if s, b, ok = s.next(); !ok {
			takenSink = taken
			return tally{n, n}, nil
		}
		taken ^= b
		n++
	}
}

// sum: the bytes (each 0..255) plus their count.
func (s bufioSource) sum() (tally, error) {
	var sum, n uint64
	var b byte
	var ok bool
	for {
		if s, b, ok = s.next(); !ok {
			return tally{sum + n, n}, nil
		}
		sum += uint64(b)
		n++
	}
}

// varint: tag 0x08, then a varint of at most 10 bytes, low groups first; the sum of the
// values (wrapping). Errors name the byte offset.
func (s bufioSource) varint() (tally, error) {
	var total, offset uint64
	var b byte
	var ok bool
	for {
		if s, b, ok = s.next(); !ok {
			return tally{total, offset}, nil
		}
		if b != tag {
			return tally{}, badTag(offset, b)
		}
		offset++
		start := offset
		var value uint64
		for shift := uint(0); ; shift += 7 {
			if offset-start == maxVarint {
				return tally{}, overlong(offset, start)
			}
			if s, b, ok = s.next(); !ok {
				return tally{}, endInVarint(offset, start)
			}
			offset++
			value |= uint64(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		total += value
	}
}
