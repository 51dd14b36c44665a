// Package limit is the suite `limit` (docs/protocol.md): how fast this machine does what
// every library's work is bounded by. Its one case is memcpy: how fast it copies a block.
package limit

import (
	"wirebench/drivers/go/internal/core"
)

// Blocks are the block sizes, in the order of `list`.
var Blocks = []struct {
	Name  string
	Bytes int
}{{"16KiB", 16 << 10}, {"1MiB", 1 << 20}, {"64MiB", 64 << 20}}

// Lib is one library of the limit suite: its name and its factory, a sampler that copies
// blocks of the given size.
type Lib struct {
	Name string
	New  func(block int) core.Sampler
}

// Libs is the limit suite's library registry, in the order of `list`.
var Libs = []Lib{
	{"memcpy", func(block int) core.Sampler { return NewMemcpy(block) }},
}

// Suite is the limit suite in the registry (internal/suite).
var Suite = &core.Suite{
	Name:    "limit",
	Cases:   []string{"memcpy"},
	Params:  []core.Param{{Name: "block", Values: blockNames()}},
	Libs:    coreLibs(),
	Prepare: prepare,
	Run:     run,
}

func blockNames() []string {
	var names []string
	for _, b := range Blocks {
		names = append(names, b.Name)
	}
	return names
}

func coreLibs() []core.Lib {
	var libs []core.Lib
	for _, l := range Libs {
		libs = append(libs, core.Lib{Name: l.Name})
	}
	return libs
}

// prepare: a limit cell runs in one process, with no peer.
func prepare(r *core.Run) error {
	if r.Role == "" {
		r.Role = "local"
	}
	if r.Role != "local" {
		return core.Usage("--role %s is not possible in suite limit (its cells are local)", r.Role)
	}
	return nil
}

func run(r *core.Run) error {
	var block int
	for _, b := range Blocks {
		if b.Name == r.Params.Get("block") {
			block = b.Bytes
		}
	}
	var lib *Lib
	for i := range Libs {
		if Libs[i].Name == r.Lib.Name {
			lib = &Libs[i]
		}
	}
	ns, err := core.Measure(r, lib.New(block))
	if err != nil {
		return err
	}
	bytes := make([]uint64, r.Samples)
	check := make([]int64, r.Samples)
	for i := range bytes {
		bytes[i] = r.Iters * uint64(block)
		check[i] = int64(block)
	}
	var evidence core.Object
	// One comparison of the copy with its source per sample.
	evidence.Raw("check", core.List(check)).Num("responses_checked", r.Samples)
	core.PrintResult(r, "local", []core.Metric{
		{Name: "time", Unit: "ns", Iters: r.Iters, Samples: ns},
		{Name: "bytes", Unit: "B", Iters: r.Iters, Samples: bytes},
	}, &evidence)
	return nil
}
