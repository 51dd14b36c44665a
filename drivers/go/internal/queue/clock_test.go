package queue

import (
	"testing"
	"time"
)

var sink int64

// The clocks' costs, which chose Nanotime over time.Since(start) (clock.go).
func BenchmarkNanotime(b *testing.B) {
	for b.Loop() {
		sink += Nanotime()
	}
}

func BenchmarkTimeSince(b *testing.B) {
	start := time.Now()
	for b.Loop() {
		sink += int64(time.Since(start))
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for b.Loop() {
		sink += time.Now().UnixNano()
	}
}

func BenchmarkRdtsc(b *testing.B) {
	if !HaveTSC {
		b.Skip("no TSC")
	}
	for b.Loop() {
		sink += rdtsc()
	}
}
