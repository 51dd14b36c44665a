// Package limit is the suite `limit`, case `memcpy`: how fast this machine copies a
// block. The buffers are allocated and touched before timing; each iteration copies one
// block from src to dst with copy() (the runtime's memmove); the copy is verified after
// each sample, outside the timing.
package limit

import "bytes"

// Memcpy is one memcpy cell.
type Memcpy struct {
	src, dst []byte
}

// NewMemcpy allocates and fills the two blocks.
func NewMemcpy(block int) *Memcpy {
	m := &Memcpy{src: make([]byte, block), dst: make([]byte, block)}
	for i := range m.src {
		m.src[i] = byte(i*131 + i>>12)
	}
	return m
}

// Scramble makes dst differ from src, so that Verify proves the copies ran.
func (m *Memcpy) Scramble() {
	for i := range m.dst {
		m.dst[i] = 0xa5
	}
}

// sink keeps the compiler from proving the copies useless (it does not today: copy() is
// a call to memmove with side effects on a heap slice, but the store documents intent).
var sink byte

// Copy copies the block iters times.
func (m *Memcpy) Copy(iters uint64) {
	for ; iters > 0; iters-- {
		copy(m.dst, m.src)
	}
	sink = m.dst[len(m.dst)-1]
}

// Verify reports whether dst equals src.
func (m *Memcpy) Verify() bool { return bytes.Equal(m.src, m.dst) }
