// Package readbytes is the suite readbytes (docs/protocol.md, suite readbytes; after
// ../shared/seeds/003): a file consumed one byte at a time. A strategy (the cell's
// library) is a byte source; a case is a consumer that takes one byte per step from it
// and never sees a buffer.
//
//   - suite.go: the suite as the registry sees it, the library registry, and the run: the
//     passes, each timed alone and its value checked; cache cold.
//   - consume.go: the byte-source contract, the consumers (count, sum, varint) and their
//     errors, and memSource, the source over memory that null and mmap share.
//   - null.go, bufio.go, ownbuffer.go, mmap.go: one file per strategy.
//   - dropcache_linux.go, dropcache_other.go: posix_fadvise(POSIX_FADV_DONTNEED).
//
// No dynamic dispatch per byte. Go compiles a generic function once per GC shape and calls
// a type parameter's methods through the shape's dictionary, an indirect call that is never
// inlined, even for a non-pointer struct type alone in its shape (go1.26, go build
// -gcflags=-S: Count[go.shape.struct{...}] calls next through a register); through an
// interface it is the same indirect call. So each source type has its own copy of the
// three consumers, as docs/protocol.md allows ("one loop per strategy where the language
// would otherwise dispatch dynamically per byte"): the same text with the source's type
// name, which TestConsumersAreTheSameCode holds token for token to memSource's below.
// TestNoDynamicCallPerByte checks the compiler's output for this package: go build
// -gcflags=-m reports "inlining call to memSource.next" and "bufioSource.next" at every
// next() of their consumers, and go build -gcflags=-S shows no indirect call in any
// consumer. ownSource.next is the one source call that stays a call (a direct one): with
// its refill call it is beyond the inliner's budget (see ownbuffer.go). The only dynamic
// call is strategy.pass, once per pass.
package readbytes

import "fmt"

// The data of docs/workloads.md §8 (Shop, ids 0 .. 2,999,999, not packed) and each case's
// value per pass.
const (
	FileSize    = 12_886_336
	SumValue    = 1_457_733_664     // the bytes (0..255) plus their count
	VarintValue = 4_499_998_500_000 // the sum of the ids
)

// kase is a consumer.
type kase int

const (
	countCase kase = iota
	sumCase
	varintCase
)

// Cases are the suite's cases in the order of `list`, each with its value per pass.
var Cases = []struct {
	Name  string
	Value uint64
}{{"count", FileSize}, {"sum", SumValue}, {"varint", VarintValue}}

// tally is what a consumer got from one pass: the case's value and the bytes it read.
type tally struct{ value, bytes uint64 }

// The varint case: protobuf's `repeated int32 id = 1`, not packed.
const (
	tag       = 0x08 // field 1, wire type 0 (varint)
	maxVarint = 10   // bytes of the longest varint (64 bits)
)

func badTag(offset uint64, b byte) error {
	return fmt.Errorf("byte offset %d: tag 0x%02x, expected 0x08", offset, b)
}

func overlong(offset, start uint64) error {
	return fmt.Errorf("byte offset %d: the varint at offset %d is longer than %d bytes", offset, start,
		maxVarint)
}

func endInVarint(offset, start uint64) error {
	return fmt.Errorf("byte offset %d: end of file inside the varint at offset %d", offset, start)
}

// A byte source S is a small struct passed by value, with
//
//	func (s S) next() (S, byte, bool)
//
// the next byte and the source advanced past it, or false at the end of the file (or at a
// read error, which the strategy keeps and its pass reports once the consumer returns).
// By value, as internal/rng's generator is drawn: the source's position lives in registers
// through the consumer's loop (go build -gcflags=-S: memSource's sum loop is a load, three
// register adds, a compare and a branch per byte), where a pointer receiver stores it to
// memory after every byte. Its consumers are its methods count, sum and varint, called
// through consume.

// memSource is the source over bytes in memory: null's copy of the file, mmap's mapping.
type memSource struct {
	data []byte
	pos  int
}

func (s memSource) next() (memSource, byte, bool) {
	if s.pos < len(s.data) {
		b := s.data[s.pos]
		s.pos++
		return s, b, true
	}
	return s, 0, false
}

// ---- the consumers: the reference copy, the same in every source's file ----------------

// takenSink keeps what count folds its bytes into. Go has no empty asm statement to take
// a byte into a register (C++, D and Rust count with one), and gc removes a load whose
// value is never used: over a mapping, count read no page at all. One xor per byte keeps
// the loads.
var takenSink byte

// consume runs consumer c over every byte of s.
func (s memSource) consume(c kase) (tally, error) {
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
func (s memSource) count() (tally, error) {
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
func (s memSource) sum() (tally, error) {
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
func (s memSource) varint() (tally, error) {
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
