package limit

import (
	"bytes"
	"errors"
)

// Memcpy is the memcpy library: each iteration copies one block from src to dst with
// copy() (the runtime's memmove). The buffers are allocated and touched before timing;
// the copy is verified after the warm-up and after each sample, outside the timing.
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

// Reset makes dst differ from src, so that Done proves the copies ran.
func (m *Memcpy) Reset() {
	for i := range m.dst {
		m.dst[i] = 0xa5
	}
}

// sink keeps the compiler from proving the copies useless (it does not today: copy() is
// a call to memmove with side effects on a heap slice, but the store documents intent).
var sink byte

// Iterate copies the block n times.
func (m *Memcpy) Iterate(n uint64) error {
	for ; n > 0; n-- {
		copy(m.dst, m.src)
	}
	sink = m.dst[len(m.dst)-1]
	return nil
}

// Done fails unless dst equals src.
func (m *Memcpy) Done(sample bool) error {
	if bytes.Equal(m.src, m.dst) {
		return nil
	}
	if !sample {
		return errors.New("memcpy: the copy differs from the source after the warm-up")
	}
	return errors.New("memcpy: the copy differs from the source")
}
