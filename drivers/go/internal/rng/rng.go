// Package rng is the deterministic generator every rpc client draws from
// (docs/workloads.md): the 128-bit xorshift of the Cap'n Proto benchmarks.
//
// The state is an explicit value (not a global), as in the Rust driver: in pipe-async the
// sending goroutine draws while the timing loop owns the reset. Draws take the state by
// value and return the next one (g, v = g.Rand(n)) instead of updating it through a
// pointer: Go keeps a struct in registers only while its address is never taken, and
// through a pointer every draw loads and stores the four words (after every store to a
// message between draws, too). Measured: 2.5x faster draws, about 2x on the null
// carsales and catrank cells (the Rust driver's Rng::local does the same for the same
// reason). Whoever owns a *Rng copies it in, draws, and stores it back.
package rng

// Rng is the generator's state: four unsigned 32-bit words.
type Rng struct {
	x, y, z, w uint32
}

// New returns a generator in its initial state.
func New() Rng {
	return Rng{x: 0x1d2acd47, y: 0x58ca3e14, z: 0xf563f232, w: 0x0bc76199}
}

// Next returns the next state and its output: t = x ^ (x << 11); x, y, z = y, z, w;
// w = w ^ (w >> 19) ^ t ^ (t >> 8).
func (r Rng) Next() (Rng, uint32) {
	t := r.x ^ (r.x << 11)
	w := r.w ^ (r.w >> 19) ^ t ^ (t >> 8)
	return Rng{r.y, r.z, r.w, w}, w
}

// Rand draws Next() % n.
func (r Rng) Rand(n uint32) (Rng, uint32) {
	r, v := r.Next()
	return r, v % n
}

// RandDouble draws float64(Next()) * rng / 4294967295.0.
func (r Rng) RandDouble(rng float64) (Rng, float64) {
	r, v := r.Next()
	return r, float64(v) * rng / 4294967295.0
}
