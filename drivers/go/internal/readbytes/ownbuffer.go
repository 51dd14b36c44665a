package readbytes

import (
	"io"
	"os"
)

// BufferSize is own_buffer's buffer, as every language's own buffer.
const BufferSize = 64 << 10

// ownBuffer is the strategy `own_buffer`: each pass opens the file (os.Open) and reads it
// with os.File.Read into an own 64 KiB buffer (made once per process, before timing),
// refilled when the source runs dry.
type ownBuffer struct {
	path string
	buf  []byte
	f    *os.File
	err  error // the pass's read error, if any
}

func newOwnBuffer(path string) (strategy, error) {
	return &ownBuffer{path: path, buf: make([]byte, BufferSize)}, nil
}

func (l *ownBuffer) pass(c kase) (tally, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return tally{}, err
	}
	l.f, l.err = f, nil
	t, err := ownSource{lib: l}.consume(c)
	l.f = nil
	return finish(t, err, l.err, f.Close())
}

// ownSource: the unread bytes of the last read. Four words at most, like every source
// (TestSourcesFitInRegisters), so that the compiler keeps it in registers: a larger struct
// lives in memory and is copied through it at every call (a window, a position and the
// strategy, five words, made own_buffer eight times slower in a sanity run).
//
// Its next is a direct call per byte, not inlined: the call to refill alone costs 57 of
// the gc inliner's budget of 80, and next costs 96 or more however it is written (go
// build -gcflags=-m=2; eleven shapes tried: a window and a position, the unread bytes
// alone, positions over the kept buffer, refill as a function or a method, returning the
// source or a slice). Go has no way to force it (no //go:inline); a profile-guided build
// (the tuned driver) inlines hot calls up to a budget of 2000. The alternative, a source
// that answers "dry" and leaves the refill to the consumer, would show the consumer the
// buffering, which docs/protocol.md rules out. bufio's ReadByte is the same: a call per
// byte.
type ownSource struct {
	unread []byte
	lib    *ownBuffer
}

func (s ownSource) next() (ownSource, byte, bool) {
	if len(s.unread) > 0 {
		b := s.unread[0]
		s.unread = s.unread[1:]
		return s, b, true
	}
	return s.refill()
}

// refill reads the next buffer and returns its first byte, or false at the end of the
// file or at a read error (kept in the strategy).
func (s ownSource) refill() (ownSource, byte, bool) {
	for {
		n, err := s.lib.f.Read(s.lib.buf)
		if n > 0 {
			s.unread = s.lib.buf[1:n]
			return s, s.lib.buf[0], true
		}
		if err != nil {
			if err != io.EOF {
				s.lib.err = err
			}
			s.unread = nil
			return s, 0, false
		}
	}
}

// ---- the consumers: consume.go's, on ownSource ------------------------------------------

// consume runs consumer c over every byte of s.
func (s ownSource) consume(c kase) (tally, error) {
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
func (s ownSource) count() (tally, error) {
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
func (s ownSource) sum() (tally, error) {
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
func (s ownSource) varint() (tally, error) {
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
