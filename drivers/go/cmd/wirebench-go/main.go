// Command wirebench-go is the Go driver of wirebench. It implements docs/protocol.md:
// the commands info, list, run and golden, and a suite's own commands (queue append|tail),
// on the registry of suites (internal/suite).
// The command line knows no suite: it looks the suite up, validates the cell against the
// suite's registry entry (cases, libraries, parameters and their legal values, fixtures)
// and hands the validated run to the suite.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"

	"wirebench/drivers/go/internal/core"
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

// parseRunFlags reads --NAME VALUE and --NAME=VALUE pairs: the common flags, the
// fixtures and every suite's parameters are known, any other name is a usage error.
func parseRunFlags(argv []string) (core.Flags, []string, error) {
	flags := core.Flags{}
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
		if flags.Has(name) {
			return nil, nil, core.Usage("flag --%s given twice", name)
		}
		flags[name] = value
		order = append(order, name)
	}
	return flags, order, nil
}

// validate checks a run's flags against the registry and returns the run for its suite.
func validate(a core.Flags, order []string) (*core.Run, error) {
	if !a.Has("suite") {
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
		if !a.Has("case") {
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
		if !a.Has("lib") {
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
		v, err := a.OneOf(p.Name, r.Lib.Values(p), context)
		if err != nil {
			return nil, err
		}
		r.Params = append(r.Params, [2]string{p.Name, v})
	}
	if s.Refuse != nil {
		if err := s.Refuse(r.Lib, r.Case, r.Params); err != nil {
			return nil, err
		}
	}
	for _, f := range s.Fixtures {
		if a.Has(f) {
			r.Fixtures[f] = a[f]
		}
	}

	if a.Has("role") {
		if r.Role, err = a.OneOf("role", core.Roles, ""); err != nil {
			return nil, err
		}
	}
	if err := s.Prepare(r); err != nil {
		return nil, err
	}
	if r.Role == "client" || r.Role == "server" {
		if !a.Has("in-fd") || !a.Has("out-fd") {
			return nil, core.Usage("--role %s needs --in-fd and --out-fd", r.Role)
		}
		in, err := a.Count("in-fd", 0)
		if err != nil {
			return nil, err
		}
		out, err := a.Count("out-fd", 0)
		if err != nil {
			return nil, err
		}
		if in > 1<<31-1 || out > 1<<31-1 {
			return nil, core.Usage("bad value for --in-fd or --out-fd")
		}
		r.InFd, r.OutFd = int(in), int(out)
	} else if a.Has("in-fd") || a.Has("out-fd") {
		return nil, core.Usage("--in-fd and --out-fd need --role client or --role server")
	}

	if r.Role != "server" {
		if !a.Has("iters") {
			return nil, core.Usage("missing --iters")
		}
		if r.Iters, err = a.Count("iters", 1); err != nil {
			return nil, err
		}
		if a.Has("samples") {
			if r.Samples, err = a.Count("samples", 1); err != nil {
				return nil, err
			}
		}
		if a.Has("warmup") {
			if r.Warmup, err = a.Count("warmup", 0); err != nil {
				return nil, err
			}
		}
	} else {
		// A server answers until end of file; it accepts the client's counts and ignores them.
		for _, n := range []string{"iters", "samples", "warmup"} {
			if a.Has(n) {
				if _, err := a.Count(n, 0); err != nil {
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
	var packages core.Object
	keys := make([]string, 0, len(core.Packages))
	for k := range core.Packages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		packages.Str(k, core.Packages[k])
	}
	names := make([]string, len(suite.All))
	for i, s := range suite.All {
		names[i] = core.Quote(s.Name)
	}
	var j core.Object
	j.Num("protocol", core.Protocol).Str("lang", core.Lang).Str("toolchain", core.Toolchain).
		Str("driver", core.Driver).Raw("suites", "["+strings.Join(names, ", ")+"]").
		Raw("versions", versions.Text()).Raw("packages", packages.Text()).
		Raw("build", buildSettings())
	core.PrintLine(j.Text())
}

// list prints one line per cell of every suite.
func list() {
	var lines []string
	for _, s := range suite.All {
		for _, c := range s.Cells() {
			var j core.Object
			j.Str("suite", c.Suite).Str("case", c.Case).Str("lib", c.Lib)
			if c.Format != "" {
				j.Str("format", c.Format)
			}
			j.Raw("params", core.Pairs(c.Params))
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

// usageText is the usage, from the registry.
func usageText() string {
	var b strings.Builder
	b.WriteString(`usage: wirebench-go info | list
       wirebench-go run --suite S --case C --lib L [cell parameters] --iters N
         [--samples S] [--warmup W] [--role local|client|server] [--in-fd R --out-fd W]
         [--input FILE] [--work-dir DIR] [--out-dir DIR] (fixtures, for suites that take them)
       wirebench-go golden write|check DIR
`)
	for _, s := range suite.All {
		b.WriteString(s.CommandUsage)
	}
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
	}
	// A suite's own commands: `queue append DIR ...`.
	if s := suite.Find(argv[0]); s != nil && s.Command != nil {
		return s.Command(argv[1:])
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
