package queue

// HaveTSC: amd64 reads the time stamp counter with one instruction (tsc_amd64.s).
const HaveTSC = true

// rdtsc is the time stamp counter (RDTSC, unserialized, as the C++ and Rust drivers'
// _rdtsc()). An assembly function is never inlined: the call costs about a nanosecond.
//
//go:noescape
func rdtsc() int64
