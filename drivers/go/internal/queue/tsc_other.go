//go:build !amd64

package queue

// HaveTSC: elsewhere Go has no time stamp counter; the suite lists no tsc cells.
const HaveTSC = false

func rdtsc() int64 { panic("queue: no TSC on this architecture") }
