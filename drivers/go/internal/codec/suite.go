package codec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/core"
)

// params are the suite's cell parameters, legal values in the order of `list`.
var params = []core.Param{
	{Name: "buffer", Values: []string{reused, fresh}},
	{Name: "strings", Values: []string{owned, borrowed}},
	{Name: "validation", Values: []string{validated, lazy, unchecked}},
	{Name: "packing", Values: []string{unpacked, packed, compact}},
}

// Suite is the codec suite in the registry (internal/suite).
var Suite = &core.Suite{
	Name:     "codec",
	Cases:    records.Cases,
	Params:   params,
	Libs:     coreLibs(),
	Fixtures: []string{"out-dir"},
	Refuse:   refuse,
	Prepare:  prepare,
	Run:      run,
	Golden:   &core.Golden{Write: goldenWrite, Check: goldenCheck},
}

// The operations (docs/protocol.md, suite codec), in the order of a result.
const (
	populate    = "populate"
	serialize   = "serialize"
	deserialize = "deserialize"
	access      = "access"
)

// governs are the operations each parameter governs: a cell that differs from its
// library's default in that parameter measures only these.
var governs = map[string][]string{
	"buffer":     {populate, serialize},
	"strings":    {deserialize},
	"validation": {deserialize, access},
	"packing":    {serialize, deserialize, access},
}

// varied are the parameters in which p differs from l's default cell (the first value l
// supports of each).
func varied(l *core.Lib, p core.Params) []string {
	var names []string
	for _, param := range params {
		if p.Get(param.Name) != l.Values(param)[0] {
			names = append(names, param.Name)
		}
	}
	return names
}

// refuse: a library's cells are its default and the variants that differ from it in one
// parameter, so that each variant is read against the default alone.
func refuse(l *core.Lib, kase string, p core.Params) error {
	v := varied(l, p)
	if kase != "log" && kase != "logs" && len(v) > 0 {
		return core.Usage("case %s is on the size axis, which has each library's default cell only; "+
			"this cell varies %s", kase, strings.Join(v, " and "))
	}
	if len(v) > 1 {
		var def []string
		for _, param := range params {
			def = append(def, "--"+param.Name+" "+l.Values(param)[0])
		}
		return core.Usage("lib %s varies one parameter at a time from its default (%s); this cell "+
			"varies %s", l.Name, strings.Join(def, " "), strings.Join(v, " and "))
	}
	return nil
}

// prepare: a codec cell runs in one process, with no peer.
func prepare(r *core.Run) error {
	if r.Role == "" {
		r.Role = "local"
	}
	if r.Role != "local" {
		return core.Usage("--role %s is not possible in suite codec (its cells are local)", r.Role)
	}
	return nil
}

// variant is what a cell asks of its library.
func variant(kase string, p core.Params) Variant {
	return Variant{Batch: records.IsBatch(kase), Fresh: p.Get("buffer") == fresh,
		Borrowed: p.Get("strings") == borrowed, Validation: p.Get("validation"),
		Packed: p.Get("packing") == packed, Compact: p.Get("packing") == compact}
}

// operations are the operations impl has (access only with a view), of those a cell
// measures: all of them in the default cell, else those its one varied parameter governs.
func operations(impl Impl, variedParams []string) []string {
	ops := []string{populate, serialize, deserialize}
	if _, ok := impl.(Accessor); ok {
		ops = append(ops, access)
	}
	if len(variedParams) == 0 {
		return ops
	}
	return slices.DeleteFunc(ops, func(op string) bool {
		return !slices.Contains(governs[variedParams[0]], op)
	})
}

// cell is a library's Impl on a case, with what the checks compare against: the records,
// their fold, and the first encoding (also the input of deserialize and access).
type cell struct {
	impl     Impl
	recs     []records.Log
	fold     uint64
	encoding []byte
}

// newCell populates and serializes once, untimed, and checks that the encoding reads
// back; the bytes are the first iteration's, which every later one must equal.
func newCell(impl Impl, recs []records.Log) (*cell, error) {
	c := &cell{impl: impl, recs: recs, fold: records.Fold(recs)}
	if err := impl.Populate(recs); err != nil {
		return nil, fmt.Errorf("populate: %w", err)
	}
	b, err := impl.Serialize()
	if err != nil {
		return nil, fmt.Errorf("serialize: %w", err)
	}
	c.encoding = bytes.Clone(b)
	if err := c.readsBack(c.encoding); err != nil {
		return nil, err
	}
	return c, nil
}

// readsBack decodes b with the library itself and compares its fold and its records.
func (c *cell) readsBack(b []byte) error {
	fold, err := c.impl.Deserialize(b)
	if err != nil {
		return fmt.Errorf("deserialize: %w", err)
	}
	return c.checkDeserialized(fold)
}

func (c *cell) checkDeserialized(fold uint64) error {
	if fold != c.fold {
		return fmt.Errorf("deserialize: fold %d, expected %d", int64(fold), int64(c.fold))
	}
	got, err := c.impl.Deserialized()
	if err == nil {
		err = records.Compare(got, c.recs)
	}
	if err != nil {
		return fmt.Errorf("deserialize: the records read differ: %w", err)
	}
	return nil
}

// op is the timing loop of one operation (a core.Sampler): one call through Impl per
// iteration, whose result goes into the digest.
type op struct {
	*cell
	name    string
	iters   uint64 // iterations since Reset
	digest  uint64 // their sizes (serialize) or folds (deserialize, access)
	last    []byte // the last serialized bytes
	digests []int64
}

func (o *op) Reset() { o.iters, o.digest, o.last = 0, 0, nil }

func (o *op) Iterate(n uint64) error {
	o.iters += n
	switch o.name {
	case populate:
		return populateLoop(o.impl, o.recs, n)
	case serialize:
		var err error
		o.last, err = serializeLoop(o.impl, n, &o.digest)
		return err
	case deserialize:
		return deserializeLoop(o.impl, o.encoding, n, &o.digest)
	}
	return accessLoop(o.impl.(Accessor), o.encoding, n, &o.digest)
}

func populateLoop(impl Impl, recs []records.Log, n uint64) error {
	for ; n > 0; n-- {
		if err := impl.Populate(recs); err != nil {
			return err
		}
	}
	return nil
}

func serializeLoop(impl Impl, n uint64, sizes *uint64) ([]byte, error) {
	var b []byte
	for ; n > 0; n-- {
		var err error
		if b, err = impl.Serialize(); err != nil {
			return nil, err
		}
		*sizes += uint64(len(b))
	}
	return b, nil
}

func deserializeLoop(impl Impl, in []byte, n uint64, folds *uint64) error {
	for ; n > 0; n-- {
		fold, err := impl.Deserialize(in)
		if err != nil {
			return err
		}
		*folds += fold
	}
	return nil
}

func accessLoop(a Accessor, in []byte, n uint64, folds *uint64) error {
	for ; n > 0; n-- {
		fold, err := a.Access(in)
		if err != nil {
			return err
		}
		*folds += fold
	}
	return nil
}

// Done checks, untimed, what the iterations made (docs/protocol.md, suite codec): the
// last populated form, the last serialized bytes (equal to the first iteration's, and
// read back by the library), the last deserialized form, and the digest.
func (o *op) Done(sample bool) error {
	if err := o.check(); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	if sample && o.name != populate {
		o.digests = append(o.digests, int64(o.digest))
	}
	return nil
}

func (o *op) check() error {
	per := o.fold
	switch o.name {
	case populate:
		got, err := o.impl.Populated()
		if err == nil {
			err = records.Compare(got, o.recs)
		}
		return err
	case serialize:
		if !bytes.Equal(o.last, o.encoding) {
			return fmt.Errorf("the bytes (%d) differ from the first iteration's (%d)", len(o.last),
				len(o.encoding))
		}
		if err := o.readsBack(o.last); err != nil {
			return fmt.Errorf("the bytes do not read back: %w", err)
		}
		per = uint64(len(o.encoding))
	case deserialize:
		if err := o.checkDeserialized(o.fold); err != nil {
			return err
		}
	}
	if o.digest != o.iters*per {
		return fmt.Errorf("digest %d over %d iterations, expected %d each", int64(o.digest), o.iters,
			int64(per))
	}
	return nil
}

// allocs counts the allocations of n iterations of the operation, untimed, from the
// runtime's totals (as testing.AllocsPerRun does); it returns them per iteration.
func (o *op) allocs(n uint64) (count, bytes float64, err error) {
	o.Reset()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = o.Iterate(n)
	runtime.ReadMemStats(&after)
	if err == nil {
		err = o.Done(false)
	}
	return float64(after.Mallocs-before.Mallocs) / float64(n),
		float64(after.TotalAlloc-before.TotalAlloc) / float64(n), err
}

func run(r *core.Run) error {
	lib := findLib(r.Lib.Name)
	c, err := newCell(lib.New(variant(r.Case, r.Params)), records.Of(r.Case))
	if err != nil {
		return err
	}
	if dir, ok := r.Fixtures["out-dir"]; ok {
		path := filepath.Join(dir, r.Case+"."+lib.Name)
		if err := os.WriteFile(path, c.encoding, 0o644); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
	}
	var ops []*op
	metrics := []core.Metric{}
	for _, name := range operations(c.impl, varied(r.Lib, r.Params)) {
		o := &op{cell: c, name: name}
		ns, err := core.Measure(r, o)
		if err != nil {
			return err
		}
		ops = append(ops, o)
		metrics = append(metrics, core.Metric{Name: name, Unit: "ns", Iters: r.Iters, Samples: ns})
	}
	metrics = append(metrics, core.ScalarMetric("size", "B", float64(len(c.encoding))))
	// After every timed pass: the process's peak resident memory so far.
	metrics = append(metrics, core.ScalarMetric("peak_rss", "B", float64(peakRSS())))
	var check core.Object
	for _, o := range ops {
		count, bytes, err := o.allocs(r.Iters)
		if err != nil {
			return err
		}
		metrics = append(metrics, core.ScalarMetric(o.name+"_allocs", "allocs", count),
			core.ScalarMetric(o.name+"_alloc_bytes", "B", bytes))
		if o.name != populate {
			check.Raw(o.name, core.List(o.digests))
		}
	}
	var evidence core.Object
	evidence.Raw("check", check.Text())
	core.PrintResult(r, "local", metrics, &evidence)
	return nil
}

// peakRSS is the peak resident set of this process's own memory (/proc/self/status
// VmHWM), in bytes. Not getrusage's ru_maxrss: that keeps the peak of the process it was
// forked from, before exec (the harness's Python, tens of MB).
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
