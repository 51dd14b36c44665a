package rpc

import (
	"testing"

	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
)

// Benchmarks of the local modes, for profiling (go test -bench . -cpuprofile cpu.out
// ./internal/rpc): one iteration is one request and its response.
func BenchmarkLocal(b *testing.B) {
	for _, lib := range Libs {
		for _, kase := range Cases {
			for _, mode := range []string{"object", "bytes"} {
				for _, reuse := range []bool{true, false} {
					name := lib.Name + "/" + kase + "/" + mode + "/reuse"
					if !reuse {
						name += "=no"
					}
					b.Run(name, func(b *testing.B) {
						impl := lib.New(kase, "none", reuse)
						step := bytesLoop
						if mode == "object" {
							step = objectLoop
						}
						g := rng.New()
						var t cases.Tally
						for b.Loop() {
							if err := step(impl, &g, 1, &t); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}
