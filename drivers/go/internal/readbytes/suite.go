package readbytes

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"wirebench/drivers/go/internal/core"
)

// The values of --cache.
const (
	warm = "warm"
	cold = "cold"
)

// strategy is one library in one process, made before timing (null reads the file then).
type strategy interface {
	// pass opens the file, runs consumer c over every byte through the strategy's source
	// and closes (unmaps) the file: the timed code, one call through this interface per
	// pass. Its error names the file or the byte offset.
	pass(c kase) (tally, error)
}

// Lib is one library (strategy) of the readbytes suite.
type Lib struct {
	Name string
	// Caches are the values of --cache it supports (null: warm only).
	Caches []string
	New    func(path string) (strategy, error)
}

// Libs is the suite's library registry, in the order of `list` (the floor first).
var Libs = []Lib{
	{"null", []string{warm}, newNull},
	{"bufio", caches(), newBufio},
	{"own_buffer", caches(), newOwnBuffer},
	{"mmap", caches(), newMmap},
}

// caches: cold where this driver can drop the file's pages.
func caches() []string {
	if canDropCache {
		return []string{warm, cold}
	}
	return []string{warm}
}

// Suite is the readbytes suite in the registry (internal/suite).
var Suite = &core.Suite{
	Name:     "readbytes",
	Cases:    caseNames(),
	Params:   []core.Param{{Name: "cache", Values: []string{warm, cold}}},
	Libs:     coreLibs(),
	Fixtures: []string{"input"},
	Prepare:  prepare,
	Run:      run,
}

func caseNames() []string {
	var names []string
	for _, c := range Cases {
		names = append(names, c.Name)
	}
	return names
}

func coreLibs() []core.Lib {
	libs := make([]core.Lib, len(Libs))
	for i, l := range Libs {
		libs[i] = core.Lib{Name: l.Name, Supports: map[string][]string{"cache": l.Caches}}
	}
	return libs
}

// prepare: a readbytes cell runs in one process, on the file --input names.
func prepare(r *core.Run) error {
	if r.Role == "" {
		r.Role = "local"
	}
	if r.Role != "local" {
		return core.Usage("--role %s is not possible in suite readbytes (its cells are local)", r.Role)
	}
	if r.Fixtures["input"] == "" {
		return core.Usage("missing --input FILE (suite readbytes reads the data file of docs/workloads.md §8)")
	}
	return nil
}

func run(r *core.Run) error {
	path := r.Fixtures["input"]
	// First, so that a file that cannot be opened is named as such whatever the strategy.
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	f.Close()
	var lib *Lib
	for i := range Libs {
		if Libs[i].Name == r.Lib.Name {
			lib = &Libs[i]
		}
	}
	var c kase
	for i := range Cases {
		if Cases[i].Name == r.Case {
			c = kase(i)
		}
	}
	want := Cases[c].Value
	s, err := lib.New(path)
	if err != nil {
		return err
	}
	dropping := r.Params.Get("cache") == cold

	var passes uint64 // passes run and checked, warm-up included
	// onePass runs and checks one pass and returns its time in nanoseconds.
	onePass := func(where string) (uint64, tally, error) {
		if dropping {
			if err := dropCache(path); err != nil {
				return 0, tally{}, err
			}
		}
		passes++
		fail := func(format string, args ...any) error {
			return fmt.Errorf("readbytes %s %s, pass %d (%s), %s: %s", r.Case, r.Lib.Name, passes, where, path,
				fmt.Sprintf(format, args...))
		}
		t0 := time.Now()
		t, err := s.pass(c)
		ns := time.Since(t0)
		switch {
		case err != nil:
			return 0, t, fail("%v", err)
		case t.value != want:
			return 0, t, fail("value %d, expected %d", t.value, want)
		case t.bytes != FileSize:
			return 0, t, fail("read %d bytes, expected %d", t.bytes, uint64(FileSize))
		}
		return uint64(ns.Nanoseconds()), t, nil
	}

	for range r.Warmup {
		if _, _, err := onePass("warm-up"); err != nil {
			return err
		}
	}
	times := make([]uint64, 0, r.Samples)
	read := make([]uint64, 0, r.Samples)
	checks := make([]uint64, 0, r.Samples)
	for k := range r.Samples {
		where := fmt.Sprintf("sample %d", k+1)
		// As core.Measure: no collection begun outside the sample marks inside it.
		runtime.GC()
		var ns, bytes, check uint64
		for range r.Iters {
			n, t, err := onePass(where)
			if err != nil {
				return err
			}
			ns += n
			bytes += t.bytes
			check += t.value
		}
		times = append(times, ns)
		read = append(read, bytes)
		checks = append(checks, check)
	}
	var evidence core.Object
	evidence.Raw("check", core.List(checks)).Num("passes_checked", passes)
	core.PrintResult(r, "local", []core.Metric{
		{Name: "time", Unit: "ns", Iters: r.Iters, Samples: times},
		{Name: "bytes", Unit: "B", Iters: r.Iters, Samples: read},
	}, &evidence)
	return nil
}

// finish is a pass's outcome: a read error first (a consumer cut short by one would
// misname it), then the consumer's, then the close's.
func finish(t tally, consumerErr, readErr, closeErr error) (tally, error) {
	switch {
	case readErr != nil:
		return tally{}, readErr
	case consumerErr != nil:
		return tally{}, consumerErr
	case closeErr != nil:
		return tally{}, closeErr
	}
	return t, nil
}
