// Command wirebench-go is the Go driver of wirebench. It implements docs/protocol.md:
// the commands info, list, run, golden and queue, on the registry of suites (internal/suite).
// The command line knows no suite: it looks the suite up, validates the cell against the
// suite's registry entry (cases, libraries, parameters and their legal values, fixtures)
// and hands the validated run to the suite.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/queue"
	"wirebench/drivers/go/internal/suite"
)

// ---- command line -----------------------------------------------------------------------

// commonFlags are the flags of `run` that every suite takes.
var commonFlags = []string{"suite", "case", "lib", "iters", "samples", "warmup", "role",
	"in-fd", "out-fd"}

// isParam reports whether name is a parameter of some suite.
func isParam(name string) bool {
	for _, s := range suite.All {
		if s.Param(name) != nil {
			return true
		}
	}
	return false
}

type args map[string]string

func (a args) has(k string) bool { _, ok := a[k]; return ok }

// parseRunFlags reads --NAME VALUE and --NAME=VALUE pairs: the common flags, the
// fixtures and every suite's parameters are known, any other name is a usage error.
func parseRunFlags(argv []string) (args, []string, error) {
	flags := args{}
	var order []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			return nil, nil, core.Usage("unexpected argument '%s'", a)
		}
		name, value, inline := strings.Cut(name, "=")
		known := slices.Contains(commonFlags, name) || slices.Contains(core.Fixtures, name) || isParam(name)
		if !known {
			return nil, nil, core.Usage("unknown flag --%s", name)
		}
		if !inline {
			i++
			if i == len(argv) {
				return nil, nil, core.Usage("flag --%s needs a value", name)
			}
			value = argv[i]
		}
		if flags.has(name) {
			return nil, nil, core.Usage("flag --%s given twice", name)
		}
		flags[name] = value
		order = append(order, name)
	}
	return flags, order, nil
}

func parseCount(a args, name string, min uint64) (uint64, error) {
	s := a[name]
	if s == "" || len(s) > 19 || strings.Trim(s, "0123456789") != "" {
		return 0, core.Usage("bad value for --%s: '%s' (want a decimal integer)", name, s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, core.Usage("bad value for --%s: '%s'", name, s)
	}
	if v < min {
		return 0, core.Usage("bad value for --%s: %s (at least %d)", name, s, min)
	}
	return v, nil
}

// oneOf is the value of --name, which must be one of allowed.
func oneOf(a args, name string, allowed []string, context string) (string, error) {
	if !a.has(name) {
		return "", core.Usage("missing --%s (one of: %s)", name, strings.Join(allowed, ", "))
	}
	v := a[name]
	if slices.Contains(allowed, v) {
		return v, nil
	}
	return "", core.Usage("unknown value for --%s: '%s'%s (one of: %s)", name, v, context,
		strings.Join(allowed, ", "))
}

// validate checks a run's flags against the registry and returns the run for its suite.
func validate(a args, order []string) (*core.Run, error) {
	if !a.has("suite") {
		return nil, core.Usage("missing --suite (one of: %s)", strings.Join(suite.Names(), ", "))
	}
	s := suite.Find(a["suite"])
	if s == nil {
		return nil, core.Usage("unknown suite '%s' (one of: %s)", a["suite"],
			strings.Join(suite.Names(), ", "))
	}
	for _, name := range order {
		switch {
		case slices.Contains(core.Fixtures, name) && !slices.Contains(s.Fixtures, name):
			return nil, core.Usage("flag --%s is a fixture that suite %s does not take (its fixtures: %s)",
				name, s.Name, orNone(s.Fixtures))
		case isParam(name) && s.Param(name) == nil:
			return nil, core.Usage("flag --%s is not a parameter of suite %s (its parameters: %s)",
				name, s.Name, orNone(s.ParamNames()))
		}
	}
	r := &core.Run{Suite: s, InFd: -1, OutFd: -1, Samples: 1, Fixtures: map[string]string{}}
	r.Case = a["case"]
	if !slices.Contains(s.Cases, r.Case) {
		if !a.has("case") {
			return nil, core.Usage("missing --case (one of: %s)", strings.Join(s.Cases, ", "))
		}
		return nil, core.Usage("case '%s' is not in suite %s (one of: %s)", r.Case, s.Name,
			strings.Join(s.Cases, ", "))
	}
	for _, name := range order {
		if p := s.Param(name); p != nil && !p.AppliesTo(r.Case) {
			return nil, core.Usage("flag --%s is not a parameter of case %s (only of: %s)", name, r.Case,
				strings.Join(p.Cases, ", "))
		}
	}
	lib := a["lib"]
	if r.Lib = s.Lib(lib); r.Lib == nil {
		if !a.has("lib") {
			return nil, core.Usage("missing --lib (one of: %s)", strings.Join(s.LibNames(), ", "))
		}
		return nil, core.Usage("unknown lib '%s' for suite %s (one of: %s)", lib, s.Name,
			strings.Join(s.LibNames(), ", "))
	}
	var err error
	for _, p := range s.CaseParams(r.Case) {
		context := ""
		if slices.Contains(p.Values, a[p.Name]) {
			context = " for lib " + lib // a legal value that this library does not support
		}
		v, err := oneOf(a, p.Name, r.Lib.Values(p), context)
		if err != nil {
			return nil, err
		}
		r.Params = append(r.Params, [2]string{p.Name, v})
	}
	if s.Refuse != nil {
		if err := s.Refuse(r.Lib, r.Params); err != nil {
			return nil, err
		}
	}
	for _, f := range s.Fixtures {
		if a.has(f) {
			r.Fixtures[f] = a[f]
		}
	}

	if a.has("role") {
		if r.Role, err = oneOf(a, "role", core.Roles, ""); err != nil {
			return nil, err
		}
	}
	if err := s.Prepare(r); err != nil {
		return nil, err
	}
	if r.Role == "client" || r.Role == "server" {
		if !a.has("in-fd") || !a.has("out-fd") {
			return nil, core.Usage("--role %s needs --in-fd and --out-fd", r.Role)
		}
		in, err := parseCount(a, "in-fd", 0)
		if err != nil {
			return nil, err
		}
		out, err := parseCount(a, "out-fd", 0)
		if err != nil {
			return nil, err
		}
		if in > 1<<31-1 || out > 1<<31-1 {
			return nil, core.Usage("bad value for --in-fd or --out-fd")
		}
		r.InFd, r.OutFd = int(in), int(out)
	} else if a.has("in-fd") || a.has("out-fd") {
		return nil, core.Usage("--in-fd and --out-fd need --role client or --role server")
	}

	if r.Role != "server" {
		if !a.has("iters") {
			return nil, core.Usage("missing --iters")
		}
		if r.Iters, err = parseCount(a, "iters", 1); err != nil {
			return nil, err
		}
		if a.has("samples") {
			if r.Samples, err = parseCount(a, "samples", 1); err != nil {
				return nil, err
			}
		}
		if a.has("warmup") {
			if r.Warmup, err = parseCount(a, "warmup", 0); err != nil {
				return nil, err
			}
		}
	} else {
		// A server answers until end of file; it accepts the client's counts and ignores them.
		for _, n := range []string{"iters", "samples", "warmup"} {
			if a.has(n) {
				if _, err := parseCount(a, n, 0); err != nil {
					return nil, err
				}
			}
		}
	}
	return r, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ---- commands ---------------------------------------------------------------------------

// buildSettings are the build settings a result's provenance needs, from the binary.
func buildSettings() string {
	var j core.Object
	info, ok := debug.ReadBuildInfo()
	j.Str("goos", runtime.GOOS).Str("goarch", runtime.GOARCH)
	if ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "GOAMD64", "CGO_ENABLED", "-gcflags", "-ldflags", "-trimpath", "-pgo":
				j.Str(s.Key, s.Value)
			}
		}
	}
	return j.Text()
}

func info() {
	var versions core.Object
	versions.Str("compiler", runtime.Version())
	seen := map[string]bool{}
	for _, s := range suite.All {
		for _, l := range s.Libs {
			for _, kv := range l.Versions {
				if !seen[kv[0]] {
					seen[kv[0]] = true
					versions.Str(kv[0], kv[1])
				}
			}
		}
	}
	names := make([]string, len(suite.All))
	for i, s := range suite.All {
		names[i] = core.Quote(s.Name)
	}
	var j core.Object
	j.Num("protocol", core.Protocol).Str("lang", core.Lang).Str("toolchain", core.Toolchain).
		Str("driver", core.Driver).Raw("suites", "["+strings.Join(names, ", ")+"]").
		Raw("versions", versions.Text()).Raw("build", buildSettings())
	core.PrintLine(j.Text())
}

// list prints one line per cell of every suite.
func list() {
	var lines []string
	for _, s := range suite.All {
		for _, c := range s.Cells() {
			var j core.Object
			j.Str("suite", c.Suite).Str("case", c.Case).Str("lib", c.Lib).Raw("params", core.Pairs(c.Params))
			lines = append(lines, j.Text())
		}
	}
	core.PrintLine(strings.Join(lines, "\n"))
}

// goldenCommand is `golden write DIR` and `golden check DIR` for the suites that have
// golden files: one JSON line per file. check fails if no suite checked a file.
func goldenCommand(argv []string) error {
	if len(argv) < 2 {
		return core.Usage("golden: missing subcommand (write or check)")
	}
	sub := argv[1]
	if sub != "write" && sub != "check" {
		return core.Usage("golden: unknown subcommand '%s' (write or check)", sub)
	}
	if len(argv) < 3 {
		return core.Usage("golden %s: missing DIR", sub)
	}
	if len(argv) > 3 {
		return core.Usage("unexpected argument '%s'", argv[3])
	}
	dir := argv[2]
	if dir == "" {
		return core.Usage("golden %s: DIR is empty", sub)
	}
	checked := 0
	for _, s := range suite.All {
		if s.Golden == nil {
			continue
		}
		var err error
		if sub == "write" {
			err = s.Golden.Write(dir, func(f core.GoldenFile) {
				var j core.Object
				j.Str("file", f.Name)
				if f.Records > 0 {
					j.Num("records", f.Records)
				} else {
					j.Num("messages", f.Messages)
				}
				j.Num("bytes", f.Bytes)
				core.PrintLine(j.Text())
			})
		} else {
			err = s.Golden.Check(dir, func(f core.GoldenFile) {
				var j core.Object
				j.Str("file", f.Name)
				switch {
				case f.Skipped:
					j.Bool("skipped", true)
				case f.Libs != nil:
					libs := make([]string, len(f.Libs))
					for i, l := range f.Libs {
						libs[i] = core.Quote(l)
					}
					j.Raw("libs", "["+strings.Join(libs, ", ")+"]").Num("records", f.Records).
						Bool("same_bytes", f.SameBytes).Bool("ok", true)
				default:
					j.Num("messages", f.Messages).Bool("ok", true)
				}
				if !f.Skipped {
					checked++
				}
				core.PrintLine(j.Text())
			})
		}
		if err != nil {
			return err
		}
	}
	if sub == "check" && checked == 0 {
		return fmt.Errorf("%s: no golden files that this driver supports", dir)
	}
	return nil
}

// ---- queue append|tail ------------------------------------------------------------------

// queueFlags reads the flags of `queue append|tail DIR`: --NAME VALUE, --NAME=VALUE, and
// the switches (no value) named in switches; any name not in known is a usage error.
func queueFlags(argv []string, known, switches []string) (args, error) {
	flags := args{}
	for i := 0; i < len(argv); i++ {
		name, ok := strings.CutPrefix(argv[i], "--")
		if !ok {
			return nil, core.Usage("unexpected argument '%s'", argv[i])
		}
		name, value, inline := strings.Cut(name, "=")
		switch {
		case slices.Contains(switches, name):
			if inline {
				return nil, core.Usage("flag --%s takes no value", name)
			}
		case !slices.Contains(known, name):
			return nil, core.Usage("unknown flag --%s (flags: --%s)", name,
				strings.Join(append(slices.Clone(known), switches...), ", --"))
		case !inline:
			i++
			if i == len(argv) {
				return nil, core.Usage("flag --%s needs a value", name)
			}
			value = argv[i]
		}
		if flags.has(name) {
			return nil, core.Usage("flag --%s given twice", name)
		}
		flags[name] = value
	}
	return flags, nil
}

// countOr is the count --name, or def without it.
func countOr(a args, name string, def, min uint64) (uint64, error) {
	if !a.has(name) {
		return def, nil
	}
	return parseCount(a, name, min)
}

// queueCommand is `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md): the
// wbq queue for interoperability and crash tests.
func queueCommand(argv []string) error {
	if len(argv) < 2 || (argv[1] != "append" && argv[1] != "tail") {
		return core.Usage("queue: missing or unknown subcommand (append or tail)")
	}
	if len(argv) < 3 || argv[2] == "" || strings.HasPrefix(argv[2], "--") {
		return core.Usage("queue %s: missing DIR", argv[1])
	}
	if argv[1] == "append" {
		return queueAppend(argv[2], argv[3:])
	}
	return queueTail(argv[2], argv[3:])
}

func queueAppend(dir string, argv []string) error {
	a, err := queueFlags(argv, []string{"entries", "longs", "first", "ordering", "clock", "cycle-size",
		"pause-us"}, []string{"die-mid-entry"})
	if err != nil {
		return err
	}
	wbq := queue.FindLib("wbq")
	if !a.has("entries") {
		return core.Usage("queue append: missing --entries N")
	}
	entries, err := parseCount(a, "entries", 0)
	if err != nil {
		return err
	}
	longs, err := countOr(a, "longs", 1, 1)
	if err != nil {
		return err
	}
	var first int64
	if a.has("first") {
		if first, err = strconv.ParseInt(a["first"], 10, 64); err != nil {
			return core.Usage("bad value for --first: '%s' (want a signed 64-bit integer)", a["first"])
		}
	}
	if a.has("ordering") { // Go's wbq publishes with seqcst only (internal/queue/wbq.go)
		if _, err := oneOf(a, "ordering", wbq.Orderings, " for lib wbq"); err != nil {
			return err
		}
	}
	o := queue.Options{Clock: queue.Mono, CycleSize: queue.DefaultCycleSize}
	if a.has("clock") {
		c, err := oneOf(a, "clock", wbq.Clocks, " for lib wbq")
		if err != nil {
			return err
		}
		if c == "tsc" {
			o.Clock = queue.TSC
		}
	}
	size, err := countOr(a, "cycle-size", queue.DefaultCycleSize, queue.MinCycleSize)
	if err != nil {
		return err
	}
	if size%4096 != 0 || size > 1<<40 {
		return core.Usage("bad value for --cycle-size: %d (a multiple of 4096, at least %d)", size,
			queue.MinCycleSize)
	}
	o.CycleSize = int64(size)
	pause, err := countOr(a, "pause-us", 0, 0)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	q, err := queue.Open(dir, o)
	if err != nil {
		return err
	}
	defer q.Close()
	v, sum := first, int64(0)
	for range entries {
		if err := q.Start(int(longs)); err != nil {
			return err
		}
		for range longs {
			q.WriteLong(uint64(v))
			sum += v
			v++
		}
		q.End()
		if pause > 0 {
			time.Sleep(time.Duration(pause) * time.Microsecond)
		}
	}
	if a.has("die-mid-entry") {
		// As a process killed in the middle of a write: the entry stays WORKING.
		if err := q.Start(int(longs)); err != nil {
			return err
		}
		for range longs / 2 {
			q.WriteLong(uint64(v))
			v++
		}
		os.Exit(3)
	}
	var j core.Object
	j.Num("entries", entries).Num("longs", entries*longs).Raw("first", strconv.FormatInt(first, 10)).
		Raw("sum", strconv.FormatInt(sum, 10))
	core.PrintLine(j.Text())
	return nil
}

func queueTail(dir string, argv []string) error {
	a, err := queueFlags(argv, []string{"expect", "timeout"}, []string{"follow"})
	if err != nil {
		return err
	}
	follow := a.has("follow")
	if follow != a.has("expect") {
		return core.Usage("queue tail: --follow and --expect N go together")
	}
	expect, err := countOr(a, "expect", 0, 0)
	if err != nil {
		return err
	}
	timeout := 30.0
	if a.has("timeout") {
		if timeout, err = strconv.ParseFloat(a["timeout"], 64); err != nil || timeout <= 0 {
			return core.Usage("bad value for --timeout: '%s' (seconds, more than 0)", a["timeout"])
		}
	}
	if !follow { // a follower waits for the directory too
		if _, err := os.Stat(dir); err != nil {
			return err
		}
	}
	t, err := queue.OpenTailer(dir)
	if err != nil {
		return err
	}
	defer t.Close()
	deadline := time.Now().Add(time.Duration(timeout * float64(time.Second)))
	var n, longs uint64
	var firstV, lastV, sum, lastTs int64
	consecutive, monotonic := true, true
	stopped := queue.AtEnd
	for !follow || n < expect {
		e, st, err := t.Next()
		if err != nil {
			return err
		}
		if st != queue.Read {
			if !follow {
				stopped = st
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("queue tail %s: %d of %d entries after %g s", dir, n, expect, timeout)
			}
			time.Sleep(50 * time.Microsecond)
			continue
		}
		if e.Length%8 != 0 {
			return fmt.Errorf("%s offset %d: an entry of %d bytes is not a whole number of longs",
				filepath.Join(dir, e.File), e.Offset, e.Length)
		}
		if n > 0 && e.Timestamp < lastTs {
			monotonic = false
		}
		lastTs = e.Timestamp
		for _, x := range e.Longs {
			v := int64(x)
			if longs == 0 {
				firstV = v
			} else if v != lastV+1 {
				consecutive = false
			}
			lastV = v
			sum += v
			longs++
		}
		n++
	}
	if follow {
		if stopped, err = t.Peek(); err != nil {
			return err
		}
	}
	var j core.Object
	j.Num("entries", n).Num("longs", longs)
	if longs > 0 {
		j.Raw("first", strconv.FormatInt(firstV, 10)).Raw("last", strconv.FormatInt(lastV, 10))
	} else {
		j.Raw("first", "null").Raw("last", "null")
	}
	j.Raw("sum", strconv.FormatInt(sum, 10)).Bool("consecutive", consecutive).Bool("monotonic", monotonic).
		Num("abandoned", t.Abandoned())
	if stopped == queue.Incomplete {
		j.Str("stopped", "incomplete")
	} else {
		j.Str("stopped", "end")
	}
	if file, off := t.Where(); file != "" {
		j.Str("file", file).Num("offset", uint64(off))
	} else {
		j.Raw("file", "null").Raw("offset", "null")
	}
	core.PrintLine(j.Text())
	return nil
}

// usageText is the usage, from the registry.
func usageText() string {
	var b strings.Builder
	b.WriteString(`usage: wirebench-go info | list
       wirebench-go run --suite S --case C --lib L [cell parameters] --iters N
         [--samples S] [--warmup W] [--role local|client|server] [--in-fd R --out-fd W]
         [--input FILE] [--work-dir DIR] [--out-dir DIR] (fixtures, for suites that take them)
       wirebench-go golden write|check DIR
       wirebench-go queue append DIR --entries N [--longs K] [--first V] [--ordering O]
         [--clock C] [--cycle-size B] [--pause-us U] [--die-mid-entry]
       wirebench-go queue tail DIR [--follow --expect N] [--timeout S]
`)
	for _, s := range suite.All {
		fmt.Fprintf(&b, "  suite %s: --case %s --lib %s\n   ", s.Name, strings.Join(s.Cases, "|"),
			strings.Join(s.LibNames(), "|"))
		for _, p := range s.Params {
			fmt.Fprintf(&b, " --%s %s", p.Name, strings.Join(p.Values, "|"))
			if p.Cases != nil {
				fmt.Fprintf(&b, " (%s)", strings.Join(p.Cases, ", "))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func realMain(argv []string) error {
	if len(argv) == 0 {
		return core.Usage("missing command")
	}
	switch argv[0] {
	case "info", "list":
		if len(argv) > 1 {
			return core.Usage("unexpected argument '%s'", argv[1])
		}
		if argv[0] == "info" {
			info()
		} else {
			list()
		}
		return nil
	case "run":
		a, order, err := parseRunFlags(argv[1:])
		if err != nil {
			return err
		}
		r, err := validate(a, order)
		if err != nil {
			return err
		}
		if path := os.Getenv("WIREBENCH_CPUPROFILE"); path != "" {
			return profiled(path, func() error { return r.Suite.Run(r) })
		}
		return r.Suite.Run(r)
	case "golden":
		return goldenCommand(argv)
	case "queue":
		return queueCommand(argv)
	}
	return core.Usage("unknown command '%s'", argv[0])
}

// profiled runs f under the CPU profiler, writing the profile to path: the tuned build's
// profile-guided optimisation learns from the driver's own cells (wirebench/pgo.py).
func profiled(path string, f func() error) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return f()
}

// run is the whole driver; it returns the exit status.
func run(argv []string) int {
	err := realMain(argv)
	var u *core.UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		fmt.Fprintf(os.Stderr, "wirebench-go: usage error: %s\n%s", u.Msg, usageText())
		return 2
	default:
		fmt.Fprintf(os.Stderr, "wirebench-go: error: %v\n", err)
		return 1
	}
}

func main() { os.Exit(run(os.Args[1:])) }
