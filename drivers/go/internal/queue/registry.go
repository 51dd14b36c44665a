// Package queue is the queue suite (docs/protocol.md, suite queue): the append latency of
// a memory-mapped append-only queue, after ../shared/seeds/002.
//
//   - wbq.go: the wbq queue (docs/queue-format.md): cycle files, the appender (lock,
//     recovery, pretouch), the tailer; and the suite's wbq library over them.
//   - null.go: the floor, the same loop into a heap array.
//   - registry.go: the suite's library registry (one line per library) and impl, what a
//     library does for the suite's loops.
//   - suite.go: the suite as the registry sees it and its run: the timed loops of single,
//     bulk and paced, written once, the read-back after every run, the histograms.
//   - clock.go, tsc_*.go: the clocks an entry's timestamp can carry.
package queue

import "wirebench/drivers/go/internal/core"

// impl is one library in one cell: the appender the loops time and the tailer that
// reads every run back. Every error is a failed run (exit status 1).
type impl interface {
	// Start begins an entry of maxLongs values: the timestamp, and the header if any.
	Start(maxLongs int) error
	// End completes the entry, publishing it if the library publishes.
	End()
	// writer is the entry's payload, written through the concrete *Writer so that the
	// compiler inlines WriteLong in the loops (Go calls a type parameter's methods
	// through a dictionary, never inlined, so the loops take an interface for Start and
	// End, whose calls cost about a nanosecond, and this for the values).
	writer() *Writer
	// Pretouch prepares the memory the next run writes, outside the timed region.
	Pretouch() error
	// ReadBack is the run's next entry, which must hold longs values: its timestamp and
	// its values.
	ReadBack(longs int) (int64, []uint64, error)
	// Finish, after a run's entries were read back: nothing may follow them; it releases
	// what the tailer has finished with (wbq deletes those cycle files).
	Finish() error
	// Cycles are the cycle file size and how many files the process created (0, 0
	// without files).
	Cycles() (size int64, created int)
	Close() error
}

// Lib is one library of the queue suite.
type Lib struct {
	Name string
	// The values of --ordering, --clock and --pretouch it supports, its default first.
	Orderings, Clocks, Pretouches []string
	// Versions is the extra provenance of its results: (key, version) pairs.
	Versions [][2]string
	// New opens the library's queue: wbq in dir; null an array of capacity words (one
	// run's timestamps and values).
	New func(dir string, o Options, capacity int) (impl, error)
}

// Libs is the queue suite's library registry, in the order of `list` (the floor first).
// Go's wbq is seqcst only: sync/atomic has no release store (wbq.go).
var Libs = []Lib{
	{"null", []string{none}, clocks(), []string{on}, nil, newNull},
	{"wbq", []string{seqcst}, clocks(), []string{on, off}, nil, newWbq},
}

// clocks: tsc where this architecture can read it.
func clocks() []string {
	if HaveTSC {
		return []string{mono, tsc}
	}
	return []string{mono}
}

// FindLib returns the library called name, or nil.
func FindLib(name string) *Lib {
	for i := range Libs {
		if Libs[i].Name == name {
			return &Libs[i]
		}
	}
	return nil
}

// coreLibs are the libraries as the registry's command line and `list` see them.
func coreLibs() []core.Lib {
	libs := make([]core.Lib, len(Libs))
	for i, l := range Libs {
		libs[i] = core.Lib{Name: l.Name, Versions: l.Versions, Supports: map[string][]string{
			"ordering": l.Orderings, "clock": l.Clocks, "pretouch": l.Pretouches}}
	}
	return libs
}
