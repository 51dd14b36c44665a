// Package cases holds the library-independent parts of the rpc cases (docs/workloads.md):
// the tables the generator indexes, the car valuation, the eval arithmetic, the catrank
// scoring, and the tally of a client's answers. Each library reads its own message types
// and calls these, as in the C++ (rpc/cases.h) and Rust (cases.rs) drivers.
package cases

import (
	"bytes"
	"fmt"
	"math"
	"unsafe"

	"wirebench/drivers/go/internal/rng"
)

// ---- carsales -------------------------------------------------------------------------

var (
	Makes  = [5]string{"Toyota", "GM", "Ford", "Honda", "Tesla"}
	Models = [6]string{"Camry", "Prius", "Volt", "Accord", "Leaf", "Model S"}
)

// Colors is the number of colors (the enum's size).
const Colors = 9

// CarFacts is everything a car's value depends on; each library fills it from its own
// accessors.
type CarFacts struct {
	Seats, Doors uint32
	// WheelSum is, over the wheels, diameter^2 + (100 if snow tires).
	WheelSum                                              uint32
	Length, Width, Height                                 uint32
	Horsepower                                            uint32
	UsesGas, UsesElectric                                 bool
	PowerWindows, PowerSteering, CruiseControl, NavSystem bool
	CupHolders                                            uint32
}

// WheelValue is one wheel's part of a car's value.
func WheelValue(diameter uint32, snowTires bool) uint32 {
	v := diameter * diameter
	if snowTires {
		v += 100
	}
	return v
}

// CarValue is the car's value, with the C++ driver's 32-bit intermediate arithmetic.
func CarValue(c *CarFacts) uint64 {
	v := uint64(c.Seats * 200)
	v += uint64(c.Doors * 350)
	v += uint64(c.WheelSum)
	v += uint64(c.Length * c.Width * c.Height / 50)
	v += uint64(c.Horsepower * 40)
	if c.UsesElectric {
		if c.UsesGas {
			v += 5000
		} else {
			v += 3000
		}
	}
	if c.PowerWindows {
		v += 100
	}
	if c.PowerSteering {
		v += 200
	}
	if c.CruiseControl {
		v += 400
	}
	if c.NavSystem {
		v += 2000
	}
	v += uint64(c.CupHolders * 25)
	return v
}

// ---- catrank --------------------------------------------------------------------------

// URLPrefix starts every url.
const URLPrefix = "http://example.com/"

// Words are the snippet's words, each with its trailing space.
var Words = [13]string{"foo ", "bar ", "baz ", "qux ", "quux ", "corge ", "grault ",
	"garply ", "waldo ", "fred ", "plugh ", "xyzzy ", "thud "}

// AppendURL appends a url: the prefix, then rand(100) letters 'a' + rand(26).
func AppendURL(g rng.Rng, out []byte) (rng.Rng, []byte) {
	out = append(out, URLPrefix...)
	var n, c uint32
	for g, n = g.Rand(100); n > 0; n-- {
		g, c = g.Rand(26)
		out = append(out, byte('a'+c))
	}
	return g, out
}

// AppendSnippet appends a snippet, drawing in the documented order; it also returns
// whether the result is "good" (a cat and no dog).
func AppendSnippet(g rng.Rng, out []byte) (rng.Rng, []byte, bool) {
	var cat, dog, n, w uint32
	g, cat = g.Rand(8)
	g, dog = g.Rand(8)
	out = append(out, ' ')
	for g, n = g.Rand(20); n > 0; n-- {
		g, w = g.Rand(13)
		out = append(out, Words[w]...)
	}
	if cat == 0 {
		out = append(out, "cat "...)
	}
	if dog == 0 {
		out = append(out, "dog "...)
	}
	for g, n = g.Rand(20); n > 0; n-- {
		g, w = g.Rand(13)
		out = append(out, Words[w]...)
	}
	return g, out, cat == 0 && dog != 0
}

// The words Rescore looks for, as byte slices and as strings (protobuf's text is a Go
// string). internal/bytealg's indexbody, under bytes.Index and strings.Index, takes its
// SSE4.2 path only if it may read 16 bytes from the needle: not if the needle lies in the
// last 16 bytes of a 4 KiB page. Where a literal or a small allocation lands is luck of
// the binary's layout (a change elsewhere once put protobuf's " cat " literal there: 3%
// more instructions in its catrank server, the byte-by-byte loop), so the needles are
// placed where the vectorised path always holds.
var (
	cat, CatWord = pageSafe(" cat ")
	dog, DogWord = pageSafe(" dog ")
)

// pageSafe returns s in memory from which 16 bytes can be read within one page.
func pageSafe(s string) ([]byte, string) {
	b := make([]byte, 32)
	at := 0
	if (uintptr(unsafe.Pointer(&b[0]))+16)&0xff0 == 0 { // b is in a page's last 16 bytes
		at = 16
	}
	b = append(b[at:at], s...)
	return b, unsafe.String(&b[0], len(b))
}

// Rescore is the server's rescoring of one result. bytes.Contains (bytes.Index) takes
// the runtime's vectorised path for short needles, like glibc's strstr in the C++ driver.
func Rescore(score float64, snippet []byte) float64 {
	if bytes.Contains(snippet, cat) {
		score *= 10000
	}
	if bytes.Contains(snippet, dog) {
		score /= 10000
	}
	return score
}

// Good reports whether a response's result counts as good: a score above 1001. A
// response's answer is the number of leading good results.
func Good(score float64) bool { return score > 1001 }

// ---- eval -----------------------------------------------------------------------------

// Ops is the number of operations: add, subtract, multiply, divide, modulus.
const Ops = 5

// Apply is 32-bit two's complement with wrapping; x/0, x%0, INT_MIN/-1 and INT_MIN%-1
// give INT_MAX.
func Apply(op uint32, left, right int32) int32 {
	switch op {
	case 0:
		return left + right
	case 1:
		return left - right
	case 2:
		return left * right
	case 3:
		if right == 0 || (left == math.MinInt32 && right == -1) {
			return math.MaxInt32
		}
		return left / right
	default:
		if right == 0 || (left == math.MinInt32 && right == -1) {
			return math.MaxInt32
		}
		return left % right
	}
}

// EvalTerm is the digest term of an eval answer: the i32 sign-extended to 64 bits.
func EvalTerm(v int32) uint64 { return uint64(int64(v)) }

// ---- the client's tally ------------------------------------------------------------------

// Tally is what the client side accumulates over a run of iterations.
type Tally struct {
	Bytes uint64 // request + response bytes that crossed the wire
	Check uint64 // wrapping sum of the answers (docs/protocol.md, check digests)
	// Responses is the number of responses checked against their expectation.
	Responses uint64
}

// Add counts one checked response with its digest term.
func (t *Tally) Add(term uint64) {
	t.Check += term
	t.Responses++
}

// Expect fails unless the response's answer equals the expectation; both are digest
// terms, shown as signed 64-bit numbers (every case's answer fits).
func Expect(got, expected uint64) error {
	if got != expected {
		return fmt.Errorf("incorrect response: expected %d, got %d", int64(expected), int64(got))
	}
	return nil
}
