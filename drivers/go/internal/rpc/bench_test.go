package rpc

import (
	"testing"

	"wirebench/drivers/go/internal/cases"
	"wirebench/drivers/go/internal/rng"
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
						c := lib.Make(kase, "none", reuse)
						step := c.Bytes
						if mode == "object" {
							step = c.Object
						}
						g := rng.New()
						var t cases.Tally
						for b.Loop() {
							if err := step(&g, 1, &t); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}
