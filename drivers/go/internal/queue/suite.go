package queue

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"wirebench/drivers/go/internal/core"
)

// The cases and the parameters' values.
const (
	single = "single"
	bulk   = "bulk"
	paced  = "paced"

	release     = "release"
	seqcst      = "seqcst"
	none        = "none"
	libOrdering = "lib"
	mono        = "mono"
	tsc         = "tsc"
	on          = "on"
	off         = "off"
)

// Rates are paced's schedules, in the order of `list`.
var Rates = []struct {
	Name      string
	PerSecond int64
}{{"100k", 100_000}, {"500k", 500_000}, {"1M", 1_000_000}}

// Suite is the queue suite in the registry (internal/suite).
var Suite = &core.Suite{
	Name:  "queue",
	Cases: []string{single, bulk, paced},
	Params: []core.Param{
		{Name: "ordering", Values: []string{release, seqcst, none, libOrdering}},
		{Name: "clock", Values: []string{mono, tsc}},
		{Name: "pretouch", Values: []string{on, off}},
		{Name: "rate", Values: rateNames(), Cases: []string{paced}},
	},
	Libs:         coreLibs(),
	Fixtures:     []string{"work-dir", "out-dir"},
	Refuse:       refuse,
	Prepare:      prepare,
	Run:          run,
	Command:      command,
	CommandUsage: commandUsage,
}

func rateNames() []string {
	var names []string
	for _, r := range Rates {
		names = append(names, r.Name)
	}
	return names
}

// refuse: paced (the cells with a rate) runs each library's default variant only.
func refuse(l *core.Lib, _ string, p core.Params) error {
	if p.Get("rate") == "" {
		return nil
	}
	ordering := l.Supports["ordering"][0]
	if p.Get("ordering") != ordering || p.Get("clock") != mono || p.Get("pretouch") != on {
		return core.Usage("case paced runs lib %s in its default variant only (--ordering %s --clock mono "+
			"--pretouch on)", l.Name, ordering)
	}
	return nil
}

// prepare: a queue cell runs in one process; wbq's queue goes in --work-dir.
func prepare(r *core.Run) error {
	if r.Role == "" {
		r.Role = "local"
	}
	if r.Role != "local" {
		return core.Usage("--role %s is not possible in suite queue (its cells are local)", r.Role)
	}
	if _, ok := r.Fixtures["work-dir"]; !ok && r.Lib.Name != "null" {
		return core.Usage("lib %s needs --work-dir DIR (the queue's directory)", r.Lib.Name)
	}
	if r.Iters > 1<<36 || r.Warmup+r.Samples > 1<<36 {
		return core.Usage("--iters, --samples and --warmup: at most %d", uint64(1)<<36)
	}
	return nil
}

// ---- the timed loops --------------------------------------------------------------------

// cell is one cell's state across its runs.
type cell struct {
	impl   impl
	w      *Writer
	kase   string
	iters  int
	period int64  // paced: nanoseconds between scheduled starts
	next   uint64 // the next value to write: 0, 1, 2, ... across the process
	// The histograms, per second since the first timed run (latency; service in paced).
	lat, svc series
	lastTs   int64 // the last timestamp read back
	checked  uint64
}

// runLoop runs one run and returns its time: whole (single only), from before its first
// write to after its last, else the sum of its writes' service times, each recorded after
// its t1 when the run is timed. Nothing here allocates (TestRunsDoNotAllocate).
func (c *cell) runLoop(timed, whole bool) (int64, error) {
	switch c.kase {
	case single:
		if whole {
			return c.singleWhole()
		}
		return c.single(timed)
	case bulk:
		return c.bulk(timed)
	}
	return c.paced(timed)
}

// singleWhole: iters writes of one value each, timed whole: no timer read among them (a
// clock read costs about what a write does).
func (c *cell) singleWhole() (int64, error) {
	a, w, v, n := c.impl, c.w, c.next, c.iters
	t0 := Nanotime()
	for i := 0; i < n; i++ {
		if err := a.Start(1); err != nil {
			return 0, err
		}
		w.WriteLong(v)
		a.End()
		v++
	}
	t1 := Nanotime()
	c.next = v
	return t1 - t0, nil
}

// single: iters writes of one value each, each timed on its own.
func (c *cell) single(timed bool) (int64, error) {
	a, w, v, n := c.impl, c.w, c.next, c.iters
	var sum int64
	for i := 0; i < n; i++ {
		t0 := Nanotime()
		if err := a.Start(1); err != nil {
			return 0, err
		}
		w.WriteLong(v)
		a.End()
		t1 := Nanotime()
		v++
		sum += t1 - t0
		if timed {
			if err := c.lat.record(t1, t1-t0); err != nil {
				return 0, err
			}
		}
	}
	c.next = v
	return sum, nil
}

// bulk: one write of iters values.
func (c *cell) bulk(timed bool) (int64, error) {
	a, w, v, n := c.impl, c.w, c.next, c.iters
	t0 := Nanotime()
	if err := a.Start(n); err != nil {
		return 0, err
	}
	for i := 0; i < n; i++ {
		w.WriteLong(v)
		v++
	}
	a.End()
	t1 := Nanotime()
	c.next = v
	if timed {
		if err := c.lat.record(t1, t1-t0); err != nil {
			return 0, err
		}
	}
	return t1 - t0, nil
}

// paced: iters writes of one value, write i scheduled at T + i*period. It spins until
// then, or starts at once if late; latency is t1 - scheduled, so a stall delays the writes
// behind it in the figures too (no coordinated omission).
func (c *cell) paced(timed bool) (int64, error) {
	a, w, v, n, period := c.impl, c.w, c.next, c.iters, c.period
	var sum int64
	start := Nanotime()
	for i := 0; i < n; i++ {
		scheduled := start + int64(i)*period
		t0 := Nanotime()
		for t0 < scheduled {
			t0 = Nanotime()
		}
		if err := a.Start(1); err != nil {
			return 0, err
		}
		w.WriteLong(v)
		a.End()
		t1 := Nanotime()
		v++
		sum += t1 - t0
		if timed {
			if err := c.lat.record(t1, t1-scheduled); err != nil {
				return 0, err
			}
			if err := c.svc.record(t1, t1-t0); err != nil {
				return 0, err
			}
		}
	}
	c.next = v
	return sum, nil
}

// shape is a run's entries and the values in each.
func (c *cell) shape() (entries, longs int) {
	if c.kase == bulk {
		return 1, c.iters
	}
	return c.iters, 1
}

// verify reads the run back, outside the timed region: the count, every value (from
// first on) and that timestamps never decrease; it returns the wrapping sum of the
// values read.
func (c *cell) verify(run uint64, first uint64) (int64, error) {
	entries, longs := c.shape()
	v, sum := first, uint64(0)
	for e := 0; e < entries; e++ {
		ts, values, err := c.impl.ReadBack(longs)
		if err != nil {
			return 0, fmt.Errorf("run %d, entry %d: %w", run, e, err)
		}
		if ts < c.lastTs {
			return 0, fmt.Errorf("run %d, entry %d: timestamp %d before the previous entry's %d", run, e, ts,
				c.lastTs)
		}
		c.lastTs = ts
		for _, x := range values {
			if x != v {
				return 0, fmt.Errorf("run %d, entry %d: value %d read back, %d written", run, e, int64(x), int64(v))
			}
			sum += x
			v++
		}
	}
	if err := c.impl.Finish(); err != nil {
		return 0, fmt.Errorf("run %d: %w", run, err)
	}
	c.checked += uint64(entries)
	return int64(sum), nil
}

// newCell opens lib's queue for a case of iters per run (wbq in dir, with o).
func newCell(lib *Lib, kase string, iters int, dir string, o Options) (*cell, error) {
	c := &cell{kase: kase, iters: iters, lastTs: math.MinInt64}
	entries, longs := c.shape()
	impl, err := lib.New(dir, o, entries*(1+longs))
	if err != nil {
		return nil, err
	}
	c.impl, c.w = impl, impl.writer()
	return c, nil
}

// run is run number k: pretouched before if pretouch, timed or not (whole: single's run
// timed as a whole), then read back. It returns the run's time and its check.
func (c *cell) run(k uint64, timed, whole, pretouch bool) (int64, int64, error) {
	if pretouch {
		if err := c.impl.Pretouch(); err != nil {
			return 0, 0, err
		}
	}
	if timed {
		// Paced knows how long a run lasts; a single or bulk run lasts far less than a
		// second at any count the harness asks for.
		seconds := 2 + int(int64(c.iters)*c.period/second)
		if err := c.lat.refill(seconds); err != nil {
			return 0, 0, err
		}
		if err := c.svc.refill(seconds); err != nil {
			return 0, 0, err
		}
		// As core.Measure: no collection begun outside a run marks inside it (the runs
		// allocate nothing, so none begins inside one either).
		runtime.GC()
		if c.lat.cur == nil {
			origin := Nanotime()
			c.lat.begin(origin)
			c.svc.begin(origin)
		}
	}
	first := c.next
	ns, err := c.runLoop(timed, whole)
	if err != nil {
		return 0, 0, err
	}
	check, err := c.verify(k, first)
	return ns, check, err
}

func run(r *core.Run) error {
	o := Options{Clock: Mono, CycleSize: DefaultCycleSize}
	if r.Params.Get("clock") == tsc {
		o.Clock = TSC
	}
	c, err := newCell(FindLib(r.Lib.Name), r.Case, int(r.Iters), r.Fixtures["work-dir"], o)
	if err != nil {
		return err
	}
	defer c.impl.Close()
	for _, rate := range Rates {
		if rate.Name == r.Params.Get("rate") {
			c.period = 1_000_000_000 / rate.PerSecond
		}
	}
	// single: a sample is two runs, one timed whole (its time: no timer read among the
	// writes) and then one timed write by write (its latencies); bulk and paced: one run
	// gives both. The warm-up alternates the same way. Every run is read back.
	twoRuns, runs := r.Case == single, r.Samples
	if twoRuns {
		runs *= 2
	}
	times := make([]uint64, 0, r.Samples)
	checks := make([]int64, 0, runs)
	for k := uint64(0); k < r.Warmup+runs; k++ {
		timed := k >= r.Warmup
		j := k
		if timed {
			j -= r.Warmup
		}
		whole := twoRuns && j%2 == 0
		ns, check, err := c.run(k, timed, whole, r.Params.Get("pretouch") == on)
		if err != nil {
			return err
		}
		if timed {
			if whole || !twoRuns {
				times = append(times, uint64(ns))
			}
			checks = append(checks, check)
		}
	}
	return c.print(r, times, checks)
}

func (c *cell) print(r *core.Run, times []uint64, checks []int64) error {
	metrics := []core.Metric{{Name: "time", Unit: "ns", Iters: r.Iters, Samples: times}}
	intervals := core.Object{}
	for _, s := range []struct {
		name string
		s    *series
	}{{"latency", &c.lat}, {"service", &c.svc}} {
		if s.name == "service" && c.kase != paced {
			continue
		}
		total, list, err := s.s.encode()
		if err != nil {
			return err
		}
		metrics = append(metrics, core.Metric{Name: s.name, Unit: "ns", Histogram: total})
		intervals.Raw(s.name, list)
	}
	size, created := c.impl.Cycles()
	var queue core.Object
	queue.Num("cycle_size", uint64(size)).Num("cycles", uint64(created))
	var evidence core.Object
	evidence.Raw("check", core.List(checks)).Num("entries_checked", c.checked).
		Raw("intervals", intervals.Text()).Raw("queue", queue.Text())
	core.PrintResult(r, "local", metrics, &evidence)
	return nil
}

// ---- histograms per second --------------------------------------------------------------

const second = int64(1_000_000_000)

// newHistogram is the protocol's: 3 significant digits, 1 ns to an hour.
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 3_600_000_000_000, 3) }

// series records one histogram per second of wall time since origin, by each write's
// t1. A run records into histograms made ahead (refill, between runs), so that it
// allocates nothing; between runs the finished seconds are encoded, merged into the
// total and their histograms reused, so that memory stays flat however long the cell.
type series struct {
	origin, end int64 // the current interval ends at end
	index       int64 // the current interval's number
	cur         *hdrhistogram.Histogram
	spare       []*hdrhistogram.Histogram
	done        []interval // finished, not yet encoded
	total       *hdrhistogram.Histogram
	encoded     []encoded
}

type interval struct {
	index int64
	h     *hdrhistogram.Histogram
}

type encoded struct {
	index int64
	text  string // V2 compressed, base64
}

func (s *series) begin(origin int64) {
	s.origin, s.index, s.end = origin, 0, origin+second
	s.cur = s.take()
}

func (s *series) record(t1, v int64) error {
	if t1 >= s.end {
		s.rotate(t1)
	}
	return s.cur.RecordValue(v)
}

// rotate moves to the interval holding t1.
func (s *series) rotate(t1 int64) {
	if s.cur.TotalCount() > 0 {
		s.done = append(s.done, interval{s.index, s.cur})
		s.cur = s.take()
	}
	s.index = (t1 - s.origin) / second
	s.end = s.origin + (s.index+1)*second
}

func (s *series) take() *hdrhistogram.Histogram {
	if n := len(s.spare); n > 0 {
		h := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return h
	}
	return newHistogram() // a run longer than refill expected
}

// refill, between runs, encodes the finished intervals and makes ready the histograms
// of a run that spans up to seconds-1 boundaries.
func (s *series) refill(seconds int) error {
	if err := s.flush(); err != nil {
		return err
	}
	for len(s.spare) < seconds {
		s.spare = append(s.spare, newHistogram())
	}
	s.done = slices.Grow(s.done, seconds)
	return nil
}

func (s *series) flush() error {
	if s.total == nil {
		s.total = newHistogram()
	}
	for _, iv := range s.done {
		s.total.Merge(iv.h)
		b, err := iv.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return err
		}
		s.encoded = append(s.encoded, encoded{iv.index, string(b)})
		iv.h.Reset()
		s.spare = append(s.spare, iv.h)
	}
	s.done = s.done[:0]
	return nil
}

// encode returns the histogram of every recorded value and the JSON list of the
// intervals, every second from the first to the last that has a value (empty ones
// included).
func (s *series) encode() (string, string, error) {
	if s.cur != nil && s.cur.TotalCount() > 0 {
		s.done = append(s.done, interval{s.index, s.cur})
		s.cur = nil
	}
	if err := s.flush(); err != nil {
		return "", "", err
	}
	empty, err := newHistogram().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", "", err
	}
	var items []string
	next := int64(0)
	for _, e := range s.encoded {
		for ; next <= e.index; next++ {
			text := string(empty)
			if next == e.index {
				text = e.text
			}
			var j core.Object
			j.Num("start_ms", uint64(next*1000)).Num("length_ms", 1000).Str("histogram", text)
			items = append(items, j.Text())
		}
	}
	b, err := s.total.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", "", err
	}
	return string(b), "[" + strings.Join(items, ", ") + "]", nil
}
