// Command wirebench-go is the Go driver of wirebench. It implements docs/protocol.md
// (commands info, list, run, golden), the timing loop, the roles of pipe cells and the
// JSON results, like the C++ (drivers/cpp/src/main.cpp) and Rust (drivers/rust/src/main.rs)
// drivers.
//
// A pipe cell without --role runs its own server: not a forked process but a goroutine of
// this one, joined to the client by two OS pipes, running exactly the code of
// --role server (as the Rust driver does with a thread).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"wirebench/drivers/go/internal/cases"
	"wirebench/drivers/go/internal/golden"
	"wirebench/drivers/go/internal/limit"
	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc"
)

const protocol = 1

// usageError is a bad command line: exit status 2. Every other error is a failed run:
// exit status 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usage(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// ---- JSON -------------------------------------------------------------------------------

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonObject is an object built field by field, printed on one line.
type jsonObject struct{ body strings.Builder }

func (j *jsonObject) raw(key, value string) *jsonObject {
	if j.body.Len() > 0 {
		j.body.WriteString(", ")
	}
	j.body.WriteString(quote(key))
	j.body.WriteString(": ")
	j.body.WriteString(value)
	return j
}

func (j *jsonObject) str(key, v string) *jsonObject { return j.raw(key, quote(v)) }
func (j *jsonObject) num(key string, v uint64) *jsonObject {
	return j.raw(key, strconv.FormatUint(v, 10))
}
func (j *jsonObject) boolean(key string, v bool) *jsonObject {
	return j.raw(key, strconv.FormatBool(v))
}

func list[T uint64 | int64](values []T) string {
	items := make([]string, len(values))
	for i, v := range values {
		items[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

func (j *jsonObject) text() string { return "{" + j.body.String() + "}" }

func pairs(p [][2]string) string {
	var j jsonObject
	for _, kv := range p {
		j.str(kv[0], kv[1])
	}
	return j.text()
}

// printLine writes one line to stdout; a closed stdout leaves nothing to report to, and
// the exit status still tells.
func printLine(s string) { _, _ = os.Stdout.WriteString(s + "\n") }

// ---- command line -----------------------------------------------------------------------

var runFlags = []string{"suite", "case", "lib", "mode", "compression", "reuse", "block",
	"iters", "samples", "warmup", "role", "in-fd", "out-fd"}

type args map[string]string

func (a args) has(k string) bool { _, ok := a[k]; return ok }

func parseRunFlags(argv []string) (args, error) {
	flags := args{}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			return nil, usage("unexpected argument '%s'", a)
		}
		name, value, inline := strings.Cut(name, "=")
		if !slices.Contains(runFlags, name) {
			return nil, usage("unknown flag --%s", name)
		}
		if !inline {
			i++
			if i == len(argv) {
				return nil, usage("flag --%s needs a value", name)
			}
			value = argv[i]
		}
		if flags.has(name) {
			return nil, usage("flag --%s given twice", name)
		}
		flags[name] = value
	}
	return flags, nil
}

func parseCount(a args, name string, min uint64) (uint64, error) {
	s := a[name]
	if s == "" || len(s) > 19 || strings.Trim(s, "0123456789") != "" {
		return 0, usage("bad value for --%s: '%s' (want a decimal integer)", name, s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usage("bad value for --%s: '%s'", name, s)
	}
	if v < min {
		return 0, usage("bad value for --%s: %s (at least %d)", name, s, min)
	}
	return v, nil
}

func oneOf(a args, name string, allowed []string, context string) (string, error) {
	if !a.has(name) {
		return "", usage("missing --%s", name)
	}
	v := a[name]
	if slices.Contains(allowed, v) {
		return v, nil
	}
	return "", usage("unknown value for --%s: '%s'%s (one of: %s)", name, v, context,
		strings.Join(allowed, ", "))
}

// runSpec is everything `run` needs, validated.
type runSpec struct {
	suite, kase, lib  string
	params            [][2]string
	mode, compression string
	block             int
	reuse             bool
	role              string // local, client, server, or "" (pipe without a role)
	inFd, outFd       int
	iters, samples    uint64
	warmup            uint64
	versions          [][2]string
	blockName         string
}

func validate(a args) (*runSpec, error) {
	spec := &runSpec{samples: 1, inFd: -1, outFd: -1}
	if !a.has("case") {
		return nil, usage("missing --case")
	}
	spec.kase = a["case"]
	var suite string
	switch {
	case slices.Contains(rpc.Cases, spec.kase):
		suite = "rpc"
	case spec.kase == "memcpy":
		suite = "limit"
	default:
		return nil, usage("unknown case '%s'", spec.kase)
	}
	if s, ok := a["suite"]; ok && s != suite {
		if s != "rpc" && s != "limit" {
			return nil, usage("unknown suite '%s'", s)
		}
		return nil, usage("case '%s' is not in suite '%s'", spec.kase, s)
	}
	spec.suite = suite
	if !a.has("lib") {
		return nil, usage("missing --lib")
	}
	spec.lib = a["lib"]
	spec.versions = append(spec.versions, [2]string{"compiler", runtime.Version()})
	reject := func(names ...string) error {
		for _, n := range names {
			if a.has(n) {
				return usage("flag --%s is not a parameter of suite %s", n, suite)
			}
		}
		return nil
	}

	var err error
	if suite == "rpc" {
		if err := reject("block"); err != nil {
			return nil, err
		}
		lib := rpc.FindLib(spec.lib)
		if lib == nil {
			return nil, usage("unknown lib '%s' for suite rpc (one of: capnp, protobuf, null)", spec.lib)
		}
		if spec.mode, err = oneOf(a, "mode", rpc.Modes, ""); err != nil {
			return nil, err
		}
		if spec.compression, err = oneOf(a, "compression", lib.Compressions, " for lib "+lib.Name); err != nil {
			return nil, err
		}
		if spec.mode == "object" && spec.compression != "none" {
			return nil, usage("compression %s does not apply to mode object", spec.compression)
		}
		reuse, err := oneOf(a, "reuse", rpc.ReuseModes, "")
		if err != nil {
			return nil, err
		}
		spec.reuse = reuse == "reuse"
		spec.params = [][2]string{{"mode", spec.mode}, {"compression", spec.compression}, {"reuse", reuse}}
		spec.versions = append(spec.versions, lib.Versions...)
	} else {
		if err := reject("mode", "compression", "reuse"); err != nil {
			return nil, err
		}
		if spec.lib != "memcpy" {
			return nil, usage("unknown lib '%s' for suite limit (one of: memcpy)", spec.lib)
		}
		var names []string
		for _, b := range rpc.MemcpyBlocks {
			names = append(names, b.Name)
		}
		if spec.blockName, err = oneOf(a, "block", names, ""); err != nil {
			return nil, err
		}
		spec.block = rpc.MemcpyBlocks[slices.Index(names, spec.blockName)].Bytes
		spec.params = [][2]string{{"block", spec.blockName}}
	}

	pipeMode := spec.mode == "pipe" || spec.mode == "pipe-async"
	if a.has("role") {
		if spec.role, err = oneOf(a, "role", []string{"local", "client", "server"}, ""); err != nil {
			return nil, err
		}
		if pipeMode && spec.role == "local" {
			return nil, usage("--role local is not possible with --mode %s (use client or server, "+
				"or no --role to run a server of its own)", spec.mode)
		}
		if !pipeMode && spec.role != "local" {
			return nil, usage("--role %s needs a pipe mode (pipe or pipe-async)", spec.role)
		}
	} else if !pipeMode {
		spec.role = "local"
	}
	if spec.role == "client" || spec.role == "server" {
		if !a.has("in-fd") || !a.has("out-fd") {
			return nil, usage("--role %s needs --in-fd and --out-fd", spec.role)
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
			return nil, usage("bad value for --in-fd or --out-fd")
		}
		spec.inFd, spec.outFd = int(in), int(out)
	} else if a.has("in-fd") || a.has("out-fd") {
		return nil, usage("--in-fd and --out-fd need --role client or --role server")
	}

	if spec.role != "server" {
		if !a.has("iters") {
			return nil, usage("missing --iters")
		}
		if spec.iters, err = parseCount(a, "iters", 1); err != nil {
			return nil, err
		}
		if a.has("samples") {
			if spec.samples, err = parseCount(a, "samples", 1); err != nil {
				return nil, err
			}
		}
		if a.has("warmup") {
			if spec.warmup, err = parseCount(a, "warmup", 0); err != nil {
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
	return spec, nil
}

// ---- results ----------------------------------------------------------------------------

type samples struct {
	ns, bytes []uint64
	check     []int64
	responses uint64
}

func header(spec *runSpec, role string) *jsonObject {
	j := &jsonObject{}
	j.num("protocol", protocol).str("lang", "go").str("driver", "wirebench-go").
		str("suite", spec.suite).str("case", spec.kase).str("lib", spec.lib).
		raw("params", pairs(spec.params)).str("role", role)
	return j
}

func printResult(spec *runSpec, role string, s *samples) {
	j := header(spec, role)
	j.num("iters", spec.iters).num("warmup", spec.warmup).num("samples", spec.samples).
		raw("samples_ns", list(s.ns)).raw("bytes", list(s.bytes)).raw("check", list(s.check)).
		boolean("verified", true).num("responses_checked", s.responses).
		raw("versions", pairs(spec.versions))
	printLine(j.text())
}

// ---- running ----------------------------------------------------------------------------

// timeRPC is the timing loop shared by every rpc mode on the client side: the generator
// is reset at the start of the warm-up and of every sample, and only the sample's
// iterations are timed (time.Now is monotonic).
func timeRPC(spec *runSpec, step func(g *rng.Rng, iters uint64, t *cases.Tally) error) (*samples, error) {
	s := &samples{}
	g := rng.New()
	if spec.warmup > 0 {
		var warm cases.Tally
		g = rng.New()
		if err := step(&g, spec.warmup, &warm); err != nil {
			return nil, err
		}
		s.responses += warm.Responses
	}
	for i := uint64(0); i < spec.samples; i++ {
		var t cases.Tally
		g = rng.New()
		t0 := time.Now()
		err := step(&g, spec.iters, &t)
		elapsed := time.Since(t0)
		if err != nil {
			return nil, err
		}
		s.ns = append(s.ns, uint64(elapsed.Nanoseconds()))
		s.bytes = append(s.bytes, t.Bytes)
		s.check = append(s.check, int64(t.Check))
		s.responses += t.Responses
	}
	return s, nil
}

func makeCell(spec *runSpec) (cases.Cell, error) {
	c := rpc.FindLib(spec.lib).Make(spec.kase, spec.compression, spec.reuse)
	if c == nil {
		return nil, usage("combination not supported: %s %s", spec.lib, spec.kase)
	}
	return c, nil
}

// runClient runs the client's samples on in and out, then flushes and closes out (so
// that the server sees the end of file) and in.
func runClient(spec *runSpec, c cases.Cell, in, out *os.File) (*samples, error) {
	c.OpenClient(in, out)
	step := c.Pipe
	if spec.mode == "pipe-async" {
		step = c.PipeAsync
	}
	s, err := timeRPC(spec, step)
	if err == nil {
		err = c.CloseClient()
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	in.Close()
	return s, err
}

// openFd wraps a --in-fd or --out-fd, which must be open.
func openFd(fd int, flag string) (*os.File, error) {
	if _, err := os.Stat(fmt.Sprintf("/proc/self/fd/%d", fd)); err != nil {
		return nil, usage("%s %d is not an open fd", flag, fd)
	}
	return os.NewFile(uintptr(fd), flag), nil
}

// counted counts the bytes that pass through it (the server's bytes_in and bytes_out).
type counted struct {
	r io.Reader
	w io.Writer
	n uint64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

func (c *counted) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// serve runs the server on in and out (left open: they may be stdin and stdout).
func serve(c cases.Cell, in, out *os.File) (cases.ServerStats, error) {
	var stats cases.ServerStats
	cin, cout := &counted{r: in}, &counted{w: out}
	err := c.Serve(cin, cout, &stats)
	stats.BytesIn, stats.BytesOut = cin.n, cout.n
	if err != nil {
		err = fmt.Errorf("request %d: %w", stats.Requests, err)
	}
	return stats, err
}

func runServer(spec *runSpec, in, out *os.File) error {
	c, err := makeCell(spec)
	if err != nil {
		return err
	}
	stats, err := serve(c, in, out)
	if err != nil {
		return err
	}
	j := header(spec, "server")
	j.num("requests", stats.Requests).num("bytes_in", stats.BytesIn).num("bytes_out", stats.BytesOut).
		boolean("verified", true).raw("versions", pairs(spec.versions))
	printLine(j.text())
	return nil
}

// runWithServer runs a pipe cell without --role: a server goroutine on two pipes, the
// client here (see the top of this file).
func runWithServer(spec *runSpec) error {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pipe() failed: %w", err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pipe() failed: %w", err)
	}
	server, err := makeCell(spec)
	if err != nil {
		return err
	}
	client, err := makeCell(spec)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := serve(server, toServerR, toClientW); err != nil {
			fmt.Fprintf(os.Stderr, "wirebench-go: server: %v\n", err)
			os.Exit(1)
		}
		toServerR.Close()
		toClientW.Close()
	}()
	s, err := runClient(spec, client, toClientR, toServerW)
	if err != nil {
		return err
	}
	<-done
	printResult(spec, "local", s)
	return nil
}

func runMemcpy(spec *runSpec) error {
	m := limit.NewMemcpy(spec.block)
	s := &samples{}
	if spec.warmup > 0 {
		m.Scramble()
		m.Copy(spec.warmup)
		if !m.Verify() {
			return errors.New("memcpy: the copy differs from the source after the warm-up")
		}
	}
	for i := uint64(0); i < spec.samples; i++ {
		m.Scramble()
		t0 := time.Now()
		m.Copy(spec.iters)
		elapsed := time.Since(t0)
		if !m.Verify() {
			return errors.New("memcpy: the copy differs from the source")
		}
		s.ns = append(s.ns, uint64(elapsed.Nanoseconds()))
		s.bytes = append(s.bytes, spec.iters*uint64(spec.block))
		s.check = append(s.check, int64(spec.block))
		s.responses++ // one comparison per sample
	}
	printResult(spec, "local", s)
	return nil
}

// pipeProcs is the least GOMAXPROCS of a pipe cell. A goroutine blocked in read(2) on a
// pipe keeps its P in a system call; when it is the only P (GOMAXPROCS=1, as when the
// harness pins the process to one CPU), the runtime's monitor thread takes it back after
// 20 us every time, since no idle P exists, and keeps waking up every 20 us: one more
// context switch per message on the CPU that the peer also runs on. With a second
// (idle) P it leaves the blocked P alone and sleeps. Measured with the client pinned on
// the C++ server's CPU: null eval pipe 1.5x faster, as fast as the C++ client. The
// process still runs on the CPUs it is given; object and bytes cells keep the default.
const pipeProcs = 2

func runCommand(spec *runSpec) error {
	if spec.suite == "limit" {
		return runMemcpy(spec)
	}
	if spec.mode == "pipe" || spec.mode == "pipe-async" {
		if runtime.GOMAXPROCS(0) < pipeProcs {
			runtime.GOMAXPROCS(pipeProcs)
		}
	}
	switch spec.role {
	case "server", "client":
		in, err := openFd(spec.inFd, "--in-fd")
		if err != nil {
			return err
		}
		out, err := openFd(spec.outFd, "--out-fd")
		if err != nil {
			return err
		}
		if spec.role == "server" {
			return runServer(spec, in, out)
		}
		c, err := makeCell(spec)
		if err != nil {
			return err
		}
		s, err := runClient(spec, c, in, out)
		if err != nil {
			return err
		}
		printResult(spec, "client", s)
		return nil
	case "":
		return runWithServer(spec)
	}
	c, err := makeCell(spec)
	if err != nil {
		return err
	}
	step := c.Bytes
	if spec.mode == "object" {
		step = c.Object
	}
	s, err := timeRPC(spec, step)
	if err != nil {
		return err
	}
	printResult(spec, "local", s)
	return nil
}

// buildSettings are the build settings a result's provenance needs, from the binary.
func buildSettings() string {
	var j jsonObject
	info, ok := debug.ReadBuildInfo()
	j.str("goos", runtime.GOOS).str("goarch", runtime.GOARCH)
	if ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "GOAMD64", "CGO_ENABLED", "-gcflags", "-ldflags", "-trimpath", "-pgo":
				j.str(s.Key, s.Value)
			}
		}
	}
	return j.text()
}

func info() {
	var versions jsonObject
	versions.str("compiler", runtime.Version()).str("capnp", rpc.CapnpVersion).
		str("protobuf", rpc.ProtobufVersion)
	var j jsonObject
	j.num("protocol", protocol).str("lang", "go").str("driver", "wirebench-go").
		raw("versions", versions.text()).raw("build", buildSettings())
	printLine(j.text())
}

// goldenCommand is `golden write DIR` and `golden check DIR`: one JSON line per file.
func goldenCommand(argv []string) error {
	if len(argv) < 2 {
		return usage("golden: missing subcommand (write or check)")
	}
	sub := argv[1]
	if sub != "write" && sub != "check" {
		return usage("golden: unknown subcommand '%s' (write or check)", sub)
	}
	if len(argv) < 3 {
		return usage("golden %s: missing DIR", sub)
	}
	if len(argv) > 3 {
		return usage("unexpected argument '%s'", argv[3])
	}
	dir := argv[2]
	if dir == "" {
		return usage("golden %s: DIR is empty", sub)
	}
	if sub == "write" {
		return golden.Write(dir, func(f golden.File) {
			var j jsonObject
			j.str("file", f.Name).num("messages", f.Messages).num("bytes", f.Bytes)
			printLine(j.text())
		})
	}
	return golden.Check(dir, func(f golden.File) {
		var j jsonObject
		j.str("file", f.Name)
		if f.Skipped {
			j.boolean("skipped", true)
		} else {
			j.num("messages", f.Messages).boolean("ok", true)
		}
		printLine(j.text())
	})
}

const usageText = `usage: wirebench-go info | list | run --case C --lib L [cell parameters] --iters N
         [--samples S] [--warmup W] [--suite S] [--role local|client|server]
         [--in-fd R --out-fd W]
       wirebench-go golden write|check DIR
  rpc parameters: --mode object|bytes|pipe|pipe-async --compression none|packed
                  --reuse reuse|no-reuse
  limit parameters: --block 16KiB|1MiB|64MiB
`

func realMain(argv []string) error {
	if len(argv) == 0 {
		return usage("missing command")
	}
	switch argv[0] {
	case "info", "list":
		if len(argv) > 1 {
			return usage("unexpected argument '%s'", argv[1])
		}
		if argv[0] == "info" {
			info()
		} else {
			printLine(strings.Join(rpc.ListCells(), "\n"))
		}
		return nil
	case "run":
		a, err := parseRunFlags(argv[1:])
		if err != nil {
			return err
		}
		spec, err := validate(a)
		if err != nil {
			return err
		}
		return runCommand(spec)
	case "golden":
		return goldenCommand(argv)
	}
	return usage("unknown command '%s'", argv[0])
}

// run is the whole driver; it returns the exit status.
func run(argv []string) int {
	err := realMain(argv)
	var u *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		fmt.Fprintf(os.Stderr, "wirebench-go: usage error: %s\n%s", u.msg, usageText)
		return 2
	default:
		fmt.Fprintf(os.Stderr, "wirebench-go: error: %v\n", err)
		return 1
	}
}

func main() { os.Exit(run(os.Args[1:])) }
