package core

import (
	"runtime"
	"time"
)

// Sampler is a suite's side of the timing loop.
type Sampler interface {
	// Reset is untimed, before the warm-up and before every sample: the rpc generator
	// back to its initial state, memcpy's destination scrambled.
	Reset()
	// Iterate runs n iterations: the only timed code.
	Iterate(n uint64) error
	// Done is untimed, after the warm-up (sample false) and after every sample: the
	// sample's checks and totals.
	Done(sample bool) error
}

// Measure runs the warm-up (if any) and the timed samples of r, and returns each sample's
// wall time in nanoseconds: a monotonic clock (time.Now) around Iterate, nothing else.
// Each sample starts after a full collection (as testing.B's runs do), so that no cycle
// begun outside it is still marking inside it (docs/methodology.md).
func Measure(r *Run, s Sampler) ([]uint64, error) {
	if r.Warmup > 0 {
		s.Reset()
		if err := s.Iterate(r.Warmup); err != nil {
			return nil, err
		}
		if err := s.Done(false); err != nil {
			return nil, err
		}
	}
	ns := make([]uint64, 0, r.Samples)
	for i := uint64(0); i < r.Samples; i++ {
		s.Reset()
		runtime.GC()
		t0 := time.Now()
		err := s.Iterate(r.Iters)
		elapsed := time.Since(t0)
		if err != nil {
			return nil, err
		}
		ns = append(ns, uint64(elapsed.Nanoseconds()))
		if err := s.Done(true); err != nil {
			return nil, err
		}
	}
	return ns, nil
}
