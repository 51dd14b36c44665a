package queue

import (
	"fmt"
	_ "unsafe" // go:linkname
)

// Clock is what an entry's timestamp counts (the file header's clock field).
type Clock uint32

const (
	// Mono is CLOCK_MONOTONIC in nanoseconds: the runtime's nanotime.
	Mono Clock = 1
	// TSC is the time stamp counter (rdtsc), only where HaveTSC.
	TSC Clock = 2
)

func (c Clock) String() string {
	switch c {
	case Mono:
		return "mono"
	case TSC:
		return "tsc"
	}
	return fmt.Sprintf("clock %d", uint32(c))
}

// Nanotime is the runtime's monotonic clock: CLOCK_MONOTONIC through the vDSO, in
// nanoseconds, as an absolute reading (so that a queue's timestamps mean the same to
// every process and language). It is what time.Now's monotonic part and time.Since read,
// without time.Now's second (wall clock) reading; the runtime keeps this linkname for
// the many packages that pull it (go.dev/issue/67401). time.Since(a fixed start) costs
// the same (benchmarks in clock_test.go) but counts from that start, not as
// CLOCK_MONOTONIC does, so other processes could not compare its readings.
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64
