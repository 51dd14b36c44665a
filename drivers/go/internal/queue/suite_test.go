package queue

// The suite's runs: the timed loops allocate nothing, and the files a run leaves are
// deleted, so that the disk holds a few files however many runs there are. Every listed
// cell runs as a process in cmd/wirebench-go's tests.

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// cells are every case of every library, with pretouch on and off where it has both.
func forEachCell(t testing.TB, f func(name string, lib *Lib, kase string, pretouch bool)) {
	for i := range Libs {
		for _, kase := range Suite.Cases {
			for _, p := range Libs[i].Pretouches {
				f(Libs[i].Name+"/"+kase+"/pretouch-"+p, &Libs[i], kase, p == on)
			}
		}
	}
}

func testCell(t testing.TB, lib *Lib, kase string, iters int, o Options) *cell {
	c, err := newCell(lib, kase, iters, queueDir(t), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.impl.Close() })
	c.period = 1000
	return c
}

// The timed loops allocate nothing. The runtime's counter is the process's: a goroutine
// of the runtime's may allocate a few objects after a collection, inside the window; a
// loop that allocated would do so in every run (per run) or a thousand times (per write).
func TestRunsDoNotAllocate(t *testing.T) {
	forEachCell(t, func(name string, lib *Lib, kase string, pretouch bool) {
		if !pretouch && lib.Name == "wbq" {
			return // a roll-over without pretouch creates a file, which allocates
		}
		c := testCell(t, lib, kase, 1000, Options{Clock: Mono, CycleSize: DefaultCycleSize})
		for k := range uint64(4) {
			if _, _, err := c.run(k, k > 0, k%2 == 0, true); err != nil {
				t.Fatal(err)
			}
		}
		least, most := uint64(1<<63), uint64(0)
		for k := uint64(4); k < 10; k++ {
			c.impl.Pretouch()
			c.lat.refill(2)
			c.svc.refill(2)
			runtime.GC() // as run does
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := c.runLoop(true, k%2 == 0) // single: whole and per write in turn
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			n := after.Mallocs - before.Mallocs
			least, most = min(least, n), max(most, n)
			if _, err := c.verify(k, c.next-1000); err != nil {
				t.Fatal(err)
			}
		}
		if least != 0 || most >= 100 {
			t.Errorf("%s: runs allocated from %d to %d times", name, least, most)
		}
	})
}

// With small cycle files every few runs roll over; the tailer deletes what it has read,
// so no more than the current file, the next (pretouched) and one left are on disk.
func TestFilesStayBounded(t *testing.T) {
	forEachCell(t, func(name string, lib *Lib, kase string, pretouch bool) {
		if lib.Name != "wbq" || kase == paced {
			return
		}
		iters := 1000 // 24 KB per single run; bulk: one 8 KB entry
		c := testCell(t, lib, kase, iters, Options{Clock: Mono, CycleSize: small})
		dir := c.impl.(*wbqLib).dir
		var want uint64
		for k := range uint64(60) {
			_, check, err := c.run(k, true, k%2 == 0, pretouch)
			if err != nil {
				t.Fatal(err)
			}
			first := k * uint64(iters)
			if want = (first + first + uint64(iters) - 1) * uint64(iters) / 2; uint64(check) != want {
				t.Fatalf("%s: run %d: check %d, want %d", name, k, check, want)
			}
			files, _ := os.ReadDir(dir)
			if len(files) > 4 { // queue.lock and three cycle files
				t.Fatalf("%s: run %d: %d files", name, k, len(files))
			}
		}
		entries := uint64(60)
		if kase == single {
			entries *= uint64(iters)
		}
		if _, created := c.impl.Cycles(); created < 4 || c.checked != entries {
			t.Errorf("%s: %d files created, %d entries checked", name, created, c.checked)
		}
	})
}

// The loops, for profiling: go test -bench . ./internal/queue
func BenchmarkRuns(b *testing.B) {
	forEachCell(b, func(name string, lib *Lib, kase string, pretouch bool) {
		if kase == paced {
			return
		}
		b.Run(name, func(b *testing.B) {
			iters := 10000
			if kase == bulk {
				iters = 100000
			}
			c := testCell(b, lib, kase, iters, Options{Clock: Mono, CycleSize: DefaultCycleSize})
			var ns int64
			for k := uint64(0); b.Loop(); k++ {
				n, _, err := c.run(k, false, true, pretouch)
				if err != nil {
					b.Fatal(err)
				}
				ns += n
			}
			b.ReportMetric(float64(ns)/float64(b.N*iters), "ns/value")
		})
	})
}

// A series has one histogram per second since its origin, by t1, empty seconds included,
// and their total; a run that crosses seconds records into histograms made ahead.
func TestSeriesPerSecond(t *testing.T) {
	var s series
	if err := s.refill(2); err != nil {
		t.Fatal(err)
	}
	s.begin(1000)
	for _, tv := range [][2]int64{{1000, 5}, {2000, 6}, {1000 + second, 7}} {
		if err := s.record(tv[0], tv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.refill(2); err != nil {
		t.Fatal(err)
	}
	s.record(1000+3*second+5, 9) // second 2 has nothing
	total, list, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	h, err := hdrhistogram.Decode([]byte(total))
	if err != nil || h.TotalCount() != 4 || h.Max() != 9 {
		t.Fatalf("total: %v, %v", h, err)
	}
	var items []struct {
		StartMs   int64  `json:"start_ms"`
		LengthMs  int64  `json:"length_ms"`
		Histogram string `json:"histogram"`
	}
	if err := json.Unmarshal([]byte(list), &items); err != nil || len(items) != 4 {
		t.Fatalf("%v: %s", err, list)
	}
	for i, want := range []int64{2, 1, 0, 1} {
		h, err := hdrhistogram.Decode([]byte(items[i].Histogram))
		if err != nil || h.TotalCount() != want || items[i].StartMs != int64(i)*1000 || items[i].LengthMs != 1000 {
			t.Errorf("interval %d: %+v %v", i, items[i], err)
		}
	}
}

// The suite's queue directory must be empty: an old queue's entries are not the run's.
func TestWorkDirMustBeEmpty(t *testing.T) {
	dir := queueDir(t)
	a := open(t, dir, Options{Clock: Mono, CycleSize: small})
	a.Close()
	if _, err := newCell(FindLib("wbq"), single, 10, dir, Options{Clock: Mono, CycleSize: small}); err == nil ||
		!strings.Contains(err.Error(), "already holds a queue") {
		t.Errorf("%v", err)
	}
}
