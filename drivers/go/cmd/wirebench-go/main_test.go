package main

// End-to-end tests of the driver as a process: `list` against the registry, the server
// role on stdin/stdout (clean end of file, corrupt and truncated messages), a client and
// a server process on pipes, usage errors, and the golden files
// (testdata/golden: this driver's own written byte for byte, every language's checked,
// damaged files refused naming the file). The test binary is the driver: run with
// WIREBENCH_GO_DRIVER=1 it runs main instead of the tests.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"wirebench/drivers/go/internal/suite"
)

func TestMain(m *testing.M) {
	if os.Getenv("WIREBENCH_GO_DRIVER") == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// result is what one run of the driver gave.
type result struct {
	code           int
	stdout, stderr string
}

func driver(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "WIREBENCH_GO_DRIVER=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// field pulls `"key": "value"` or `"key": value` out of one flat JSON line.
func field(t *testing.T, line, key string) string {
	t.Helper()
	pat := `"` + key + `": `
	i := strings.Index(line, pat)
	if i < 0 {
		t.Fatalf("no %s in %s", key, line)
	}
	rest := line[i+len(pat):]
	if strings.HasPrefix(rest, `"`) {
		return rest[1 : 1+strings.Index(rest[1:], `"`)]
	}
	return rest[:strings.IndexAny(rest, ",}")]
}

// object parses one JSON line; numbers stay json.Number.
func object(t *testing.T, line string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return m
}

// text is v as compact JSON, to compare values whatever their Go types.
func text(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const testdata = "../../../../testdata"

// cellArgs are the `run` flags of a cell; param gives each parameter's value.
func cellArgs(t *testing.T, suiteName, kase, lib string, param func(string) string) []string {
	s := suite.Find(suiteName)
	if s == nil {
		t.Fatalf("unknown suite %s", suiteName)
	}
	args := []string{"run", "--suite", suiteName, "--case", kase, "--lib", lib}
	for _, p := range s.CaseParams(kase) {
		args = append(args, "--"+p.Name, param(p.Name))
	}
	return args
}

// checkIdentity fails unless a result is protocol 2 and this driver's.
func checkIdentity(t *testing.T, what any, res map[string]any) {
	t.Helper()
	if text(res["protocol"]) != "2" || res["lang"] != "go" || res["toolchain"] != "gc" ||
		res["driver"] != "wirebench-go" || res["verified"] != true {
		t.Errorf("%v: %s", what, text(res))
	}
}

// `list` is every suite's cells from the registry, each once, in its order, with the
// library's format after "lib" where the library has one (codec). Running every listed
// cell and judging its result is the harness's conformance test (tests/), for every
// driver alike.
func TestListIsTheRegistrysCells(t *testing.T) {
	out := driver(t, nil, "list")
	lines := strings.Split(strings.TrimSuffix(out.stdout, "\n"), "\n")
	if out.code != 0 {
		t.Fatalf("list: exit %d: %s", out.code, out.stderr)
	}
	var want []string
	for _, s := range suite.All {
		for _, c := range s.Cells() {
			want = append(want, strings.Join(cellArgs(t, c.Suite, c.Case, c.Lib, c.Params.Get), " "))
		}
	}
	var got []string
	suites := map[string]bool{}
	for _, line := range lines {
		c := object(t, line)
		s := suite.Find(c["suite"].(string))
		suites[s.Name] = true
		params := c["params"].(map[string]any)
		if len(params) != len(s.CaseParams(c["case"].(string))) {
			t.Errorf("%s: parameters other than its suite's", line)
		}
		get := func(p string) string { v, _ := params[p].(string); return v }
		args := cellArgs(t, s.Name, c["case"].(string), c["lib"].(string), get)
		got = append(got, strings.Join(args, " "))
		keys := []string{"suite", "case", "lib", "params"}
		if lib := s.Lib(c["lib"].(string)); lib != nil && lib.Format != "" {
			keys = []string{"suite", "case", "lib", "format", "params"}
			if c["format"] != lib.Format {
				t.Errorf("%s: format, want %q", line, lib.Format)
			}
		}
		at := -1
		for _, k := range keys {
			i := strings.Index(line, `"`+k+`": `)
			if i < at {
				t.Errorf("%s: want the keys %v in that order", line, keys)
			}
			at = i
		}
		if len(c) != len(keys) {
			t.Errorf("%s: want the keys %v", line, keys)
		}
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("list:\n%s\nthe registry's cells:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	slices.Sort(got)
	if len(slices.Compact(got)) != len(want) {
		t.Errorf("a cell is listed twice")
	}
	for _, s := range suite.All {
		if !suites[s.Name] {
			t.Errorf("no cell of suite %s listed", s.Name)
		}
	}
}

// serveStdin runs a server on stdin/stdout with input as the whole request stream.
func serveStdin(t *testing.T, lib, compression string, input []byte) result {
	return driver(t, input, "run", "--suite", "rpc", "--case", "eval", "--lib", lib, "--mode", "pipe",
		"--compression", compression, "--reuse", "reuse", "--role", "server",
		"--in-fd", "0", "--out-fd", "1")
}

func TestServerStopsCleanlyAtEndOfFile(t *testing.T) {
	for _, lc := range [][2]string{{"capnp", "none"}, {"capnp", "packed"}, {"protobuf", "none"},
		{"null", "none"}} {
		r := serveStdin(t, lc[0], lc[1], []byte{})
		if r.code != 0 || field(t, r.stdout, "role") != "server" || field(t, r.stdout, "requests") != "0" {
			t.Errorf("%v: exit %d: %s %s", lc, r.code, r.stdout, r.stderr)
		}
		checkIdentity(t, lc, object(t, r.stdout))
	}
}

func TestCorruptOrTruncatedMessageToServerExits1(t *testing.T) {
	for _, c := range []struct {
		lib, compression string
		input            []byte
	}{
		// capnp: a segment table promising 16 words, then 3 bytes.
		{"capnp", "none", []byte{0, 0, 0, 0, 16, 0, 0, 0, 1, 2, 3}},
		// capnp: half a segment table.
		{"capnp", "none", []byte{0, 0, 0}},
		{"capnp", "packed", []byte{0x11, 0, 0x04, 0xff}},
		// protobuf: a size of 100 bytes, then 5.
		{"protobuf", "none", []byte{100, 1, 2, 3, 4, 5}},
		// protobuf: garbage that is not an Expression (wire type 7).
		{"protobuf", "none", []byte{2, 0x0f, 0x00}},
		// null: a size of 10 bytes, then 3.
		{"null", "none", []byte{10, 0, 0, 0, 1, 2, 3}},
		// null: an operation byte out of range.
		{"null", "none", []byte{10, 0, 0, 0, 9, 0, 1, 0, 0, 0, 1, 0, 0, 0}},
	} {
		r := serveStdin(t, c.lib, c.compression, c.input)
		if r.code != 1 || !strings.Contains(r.stderr, "request 0:") {
			t.Errorf("%s %s %v: exit %d: %s", c.lib, c.compression, c.input, r.code, r.stderr)
		}
	}
}

// A client and a server process of every library, joined by two pipes on fds 3 and 4
// (as the harness runs a pipe cell): both verify, the server answers every request of
// the warm-up and the samples, and the client counts every byte the server counted (the
// warm-up is as long as a sample, so it replays the sample's requests).
func TestClientAndServerProcessesOnPipes(t *testing.T) {
	for _, lc := range [][3]string{{"capnp", "packed", "pipe"}, {"capnp", "none", "pipe-async"},
		{"protobuf", "none", "pipe"}, {"null", "none", "pipe-async"}} {
		toServerR, toServerW, _ := os.Pipe()
		toClientR, toClientW, _ := os.Pipe()
		cell := []string{"run", "--suite", "rpc", "--case", "catrank", "--lib", lc[0], "--mode", lc[2],
			"--compression", lc[1], "--reuse", "no-reuse", "--in-fd", "3", "--out-fd", "4"}
		start := func(role string, in, out *os.File) (*exec.Cmd, *bytes.Buffer) {
			counts := []string{"--role", role, "--iters", "4", "--samples", "2", "--warmup", "4"}
			cmd := exec.Command(os.Args[0], append(cell, counts...)...)
			cmd.Env = append(os.Environ(), "WIREBENCH_GO_DRIVER=1")
			cmd.ExtraFiles = []*os.File{in, out}
			var stdout bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			return cmd, &stdout
		}
		server, serverOut := start("server", toServerR, toClientW)
		client, clientOut := start("client", toClientR, toServerW)
		for _, f := range []*os.File{toServerR, toServerW, toClientR, toClientW} {
			f.Close()
		}
		if err := client.Wait(); err != nil {
			t.Fatalf("%v client: %v", lc, err)
		}
		if err := server.Wait(); err != nil {
			t.Fatalf("%v server: %v", lc, err)
		}
		c, s := object(t, clientOut.String()), object(t, serverOut.String())
		checkIdentity(t, lc, c)
		checkIdentity(t, lc, s)
		bytesM := c["metrics"].(map[string]any)["bytes"].(map[string]any)["samples"].([]any)
		in, _ := strconv.ParseUint(text(s["bytes_in"]), 10, 64)
		out, _ := strconv.ParseUint(text(s["bytes_out"]), 10, 64)
		perSample, _ := strconv.ParseUint(text(bytesM[0]), 10, 64)
		if c["role"] != "client" || s["role"] != "server" || text(s["requests"]) != "12" ||
			text(c["responses_checked"]) != "12" || in+out != 3*perSample || in == 0 || out == 0 {
			t.Errorf("%v: client %s, server %s", lc, clientOut, serverOut)
		}
	}
}

// usageMessage is the first line of a usage error's stderr: the message, without the
// usage text that follows it.
func usageMessage(r result) string {
	first, _, _ := strings.Cut(r.stderr, "\n")
	return first
}

var rpcCell = []string{"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes",
	"--compression", "none", "--reuse", "reuse", "--iters", "1"}

// codecCell is a codec cell of protobuf with the given --buffer, --strings, --validation.
func codecCell(buffer, strs, validation string) []string {
	return []string{"run", "--suite", "codec", "--case", "logs", "--lib", "protobuf", "--buffer", buffer,
		"--strings", strs, "--validation", validation, "--packing", "unpacked", "--iters", "1"}
}

var codecDefault = codecCell("reused", "owned", "validated")

var limitCell = []string{"run", "--suite", "limit", "--case", "memcpy", "--lib", "memcpy",
	"--block", "16KiB", "--iters", "1"}

func TestUsageErrorsExit2AndNameTheProblem(t *testing.T) {
	with := func(cell []string, extra ...string) []string { return append(slices.Clone(cell), extra...) }
	for _, c := range []struct {
		args   []string
		needle string
	}{
		{[]string{"frobnicate"}, "'frobnicate'"},
		{with(rpcCell, "--bogus", "1"), "unknown flag --bogus"},
		{[]string{"run", "--case", "eval", "--lib", "capnp", "--mode", "bytes", "--compression", "none",
			"--reuse", "reuse", "--iters", "1"}, "missing --suite (one of: rpc, limit, codec, queue, readbytes)"},
		{with(rpcCell[:2], "nope"), "unknown suite 'nope' (one of: rpc, limit, codec, queue, readbytes)"},
		{[]string{"run", "--suite", "rpc", "--case", "memcpy", "--lib", "memcpy"},
			"case 'memcpy' is not in suite rpc (one of: carsales, catrank, eval)"},
		{[]string{"run", "--suite", "rpc", "--case", "eval", "--lib", "protobuf", "--mode", "bytes",
			"--compression", "packed", "--reuse", "reuse", "--iters", "1"},
			"unknown value for --compression: 'packed' for lib protobuf (one of: none)"},
		{[]string{"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes",
			"--compression", "zstd", "--reuse", "reuse", "--iters", "1"},
			"unknown value for --compression: 'zstd' (one of: none, packed)"},
		{[]string{"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--compression", "none",
			"--reuse", "reuse", "--iters", "1"}, "missing --mode (one of: object, bytes, pipe, pipe-async)"},
		{[]string{"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "object",
			"--compression", "packed", "--reuse", "reuse", "--iters", "1"},
			"compression packed does not apply to mode object"},
		{with(rpcCell[:len(rpcCell)-1], "x"), "bad value for --iters: 'x'"},
		{with(limitCell[:len(limitCell)-3], "3KiB", "--iters", "1"),
			"unknown value for --block: '3KiB' (one of: 16KiB, 1MiB, 64MiB)"},
		{with(rpcCell, "--role", "client", "--in-fd", "97", "--out-fd", "1"), "--role client needs a pipe mode"},
		{[]string{"run", "--suite", "rpc", "--case", "eval", "--lib", "null", "--mode", "pipe",
			"--compression", "none", "--reuse", "reuse", "--iters", "1", "--role", "client",
			"--in-fd", "97", "--out-fd", "1"}, "--in-fd 97 is not an open fd"},
		{with(limitCell, "--role", "server"), "--role server is not possible in suite limit"},
		// A parameter of the other suite, both ways.
		{with(rpcCell, "--block", "1MiB"),
			"flag --block is not a parameter of suite rpc (its parameters: mode, compression, reuse)"},
		{with(limitCell, "--mode", "bytes"),
			"flag --mode is not a parameter of suite limit (its parameters: block)"},
		// Fixtures: known flags, but neither suite takes one.
		{with(rpcCell, "--input", "f"), "flag --input is a fixture that suite rpc does not take"},
		{with(rpcCell, "--work-dir", "d"), "flag --work-dir is a fixture that suite rpc does not take"},
		{with(limitCell, "--out-dir", "d"), "flag --out-dir is a fixture that suite limit does not take"},
		{codecCell("kept", "owned", "validated"), "unknown value for --buffer: 'kept' (one of: reused, fresh)"},
		{codecCell("reused", "owned", "lazy"),
			"unknown value for --validation: 'lazy' for lib protobuf (one of: validated)"},
		{codecCell("reused", "borrowed", "validated"),
			"unknown value for --strings: 'borrowed' for lib protobuf (one of: owned)"},
		{codecCell("reused", "owned", "none"),
			"unknown value for --validation: 'none' (one of: validated)"},
		{codecDefault[:len(codecDefault)-6], "missing --validation (one of: validated)"},
		{codecDefault[:len(codecDefault)-4], "missing --packing (one of: unpacked)"},
		{with(codecDefault[:len(codecDefault)-3], "packed", "--iters", "1"),
			"unknown value for --packing: 'packed' for lib protobuf (one of: unpacked)"},
		{[]string{"run", "--suite", "codec", "--case", "log", "--lib", "null", "--buffer", "fresh",
			"--strings", "borrowed", "--validation", "lazy", "--packing", "unpacked", "--iters", "1"},
			"lib null varies one parameter at a time from its default (--buffer reused --strings owned " +
				"--validation lazy --packing unpacked); this cell varies buffer and strings"},
		{[]string{"run", "--suite", "codec", "--case", "carsales"}, "case 'carsales' is not in suite codec (one of: log, logs1, logs10, logs100, logs, logs10000)"},
		{with(codecDefault, "--mode", "bytes"),
			"flag --mode is not a parameter of suite codec (its parameters: buffer, strings, validation, packing)"},
		{with(codecDefault, "--input", "f"), "flag --input is a fixture that suite codec does not take"},
		{with(codecDefault, "--role", "client"), "--role client is not possible in suite codec"},
		{queueCell("single", "wbq", "seqcst", "mono", "on", "--rate", "1M"),
			"flag --rate is not a parameter of case single (only of: paced)"},
		{queueCell("single", "wbq", "release", "mono", "on"),
			"unknown value for --ordering: 'release' for lib wbq (one of: seqcst)"},
		{queueCell("bulk", "null", "none", "mono", "off"),
			"unknown value for --pretouch: 'off' for lib null (one of: on)"},
		{queueCell("paced", "wbq", "seqcst", "mono", "on"), "missing --rate (one of: 100k, 500k, 1M)"},
		{queueCell("paced", "wbq", "seqcst", "mono", "off", "--rate", "1M"),
			"case paced runs lib wbq in its default variant only (--ordering seqcst --clock mono --pretouch on)"},
		{queueCell("single", "wbq", "seqcst", "sundial", "on"), "unknown value for --clock: 'sundial' (one of: "},
		{queueCell("single", "wbq", "seqcst", "mono", "on")[:15], "lib wbq needs --work-dir DIR"},
		{queueCell("single", "null", "none", "mono", "on", "--input", "f"),
			"flag --input is a fixture that suite queue does not take (its fixtures: work-dir, out-dir)"},
		{[]string{"run", "--suite", "readbytes", "--case", "sum", "--lib", "bufio", "--cache", "warm", "--iters", "1"},
			"missing --input FILE"},
		{readbytesCell("sum", "null", "cold"), "unknown value for --cache: 'cold' for lib null (one of: warm)"},
		{readbytesCell("sum", "mmap", "tepid"), "unknown value for --cache: 'tepid' (one of: warm, cold)"},
		{readbytesCell("sum", "fgetc", "warm"),
			"unknown lib 'fgetc' for suite readbytes (one of: null, bufio, own_buffer, mmap)"},
		{readbytesCell("crc", "mmap", "warm"), "case 'crc' is not in suite readbytes (one of: count, sum, varint)"},
		{readbytesCell("sum", "mmap", "warm", "--role", "server"),
			"--role server is not possible in suite readbytes (its cells are local)"},
		{readbytesCell("sum", "mmap", "warm", "--work-dir", "d"),
			"flag --work-dir is a fixture that suite readbytes does not take (its fixtures: input)"},
		{readbytesCell("sum", "mmap", "warm", "--block", "1MiB"),
			"flag --block is not a parameter of suite readbytes (its parameters: cache)"},
		{[]string{"run", "--suite", "readbytes", "--case", "sum", "--lib", "mmap", "--iters", "1", "--input", "f"},
			"missing --cache (one of: warm, cold)"},
		{[]string{"queue"}, "queue: missing or unknown subcommand (append or tail)"},
		{[]string{"queue", "append"}, "queue append: missing DIR"},
		{[]string{"queue", "append", "d"}, "queue append: missing --entries N"},
		{[]string{"queue", "append", "d", "--entries", "1", "--ordering", "release"},
			"unknown value for --ordering: 'release' for lib wbq (one of: seqcst)"},
		{[]string{"queue", "append", "d", "--entries", "1", "--cycle-size", "70000"}, "bad value for --cycle-size"},
		{[]string{"queue", "append", "d", "--entries", "1", "--longs", "0"}, "bad value for --longs: 0"},
		{[]string{"queue", "append", "d", "--entries", "1", "--bogus", "1"}, "unknown flag --bogus"},
		{[]string{"queue", "tail", "d", "--follow"}, "--follow and --expect N go together"},
		{[]string{"queue", "tail", "d", "--timeout", "x"}, "bad value for --timeout: 'x'"},
		{[]string{"golden"}, "golden: missing subcommand"},
		{[]string{"golden", "read", "x"}, "'read'"},
		{[]string{"golden", "check"}, "missing DIR"},
		{[]string{"golden", "write", ""}, "DIR is empty"},
		{[]string{"golden", "check", "x", "y"}, "'y'"},
	} {
		r := driver(t, nil, c.args...)
		if msg := usageMessage(r); r.code != 2 || !strings.HasPrefix(msg, "wirebench-go: usage error: ") ||
			!strings.Contains(msg, c.needle) {
			t.Errorf("%v: exit %d, want 2 and %q in the message: %s", c.args, r.code, c.needle, r.stderr)
		}
	}
}

// queueCell is a queue cell with --iters 1 and a work directory, plus extra flags.
func queueCell(kase, lib, ordering, clock, pretouch string, extra ...string) []string {
	return append([]string{"run", "--suite", "queue", "--case", kase, "--lib", lib, "--ordering", ordering,
		"--clock", clock, "--pretouch", pretouch, "--iters", "1", "--work-dir", os.TempDir()}, extra...)
}

// An unknown library's message lists exactly the suite's libraries of the registry.
func TestUnknownLibListsTheRegistrysLibraries(t *testing.T) {
	for _, s := range suite.All {
		r := driver(t, nil, "run", "--suite", s.Name, "--case", s.Cases[0], "--lib", "nope")
		want := "unknown lib 'nope' for suite " + s.Name + " (one of: " +
			strings.Join(s.LibNames(), ", ") + ")"
		if r.code != 2 || !strings.HasSuffix(usageMessage(r), want) {
			t.Errorf("exit %d, want 2 and %q: %s", r.code, want, r.stderr)
		}
		var listed []string
		for _, line := range strings.Split(strings.TrimSpace(driver(t, nil, "list").stdout), "\n") {
			c := object(t, line)
			if c["suite"] == s.Name && !slices.Contains(listed, c["lib"].(string)) {
				listed = append(listed, c["lib"].(string))
			}
		}
		if !slices.Equal(listed, s.LibNames()) {
			t.Errorf("suite %s: list has libs %v, the registry %v", s.Name, listed, s.LibNames())
		}
	}
}

func TestInfo(t *testing.T) {
	r := driver(t, nil, "info")
	info := object(t, r.stdout)
	if r.code != 0 || text(info["protocol"]) != "2" || info["lang"] != "go" || info["toolchain"] != "gc" ||
		text(info["suites"]) != text(suite.Names()) {
		t.Errorf("exit %d: %s", r.code, r.stdout)
	}
}

// ---- golden files ----------------------------------------------------------------------

func goldenDir(lang string) string { return filepath.Join(testdata, "golden", lang) }

func files(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkAll: `golden check DIR` succeeds and checks every file of DIR once: rpc streams
// their 5 messages; codec encodings their records with at least one library (or are
// skipped, in a format this driver lacks), and this driver's own encode to the same bytes.
func checkAll(t *testing.T, dir string) {
	r := driver(t, nil, "golden", "check", dir)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	names := files(t, dir)
	if r.code != 0 || len(names) == 0 || len(lines) != len(names) {
		t.Fatalf("golden check %s: exit %d, %d lines for %d files: %s", dir, r.code, len(lines),
			len(names), r.stderr)
	}
	got := map[string]map[string]any{}
	for _, l := range lines {
		o := object(t, l)
		got[o["file"].(string)] = o
	}
	for _, name := range names {
		o := got[name]
		switch kase, _, _ := strings.Cut(name, "."); {
		case o == nil:
			t.Errorf("%s: %s not checked", dir, name)
		case strings.HasSuffix(name, ".requests") || strings.HasSuffix(name, ".responses"):
			if want := `{"file":"` + name + `","messages":5,"ok":true}`; text(o) != want {
				t.Errorf("%s: %s, want %s", dir, text(o), want)
			}
		case o["skipped"] == true:
		default:
			records := map[string]string{"log": "1", "logs": "1000"}[kase]
			libs, _ := o["libs"].([]any)
			if o["ok"] != true || text(o["records"]) != records || len(libs) == 0 ||
				(filepath.Base(dir) == "go" && o["same_bytes"] != true) {
				t.Errorf("%s: %s", dir, text(o))
			}
		}
	}
}

// Every language's golden files read back (the harness's tests/test_golden.py does the
// same for every built driver).
func TestChecksEveryLanguagesGoldenFiles(t *testing.T) {
	langs := files(t, filepath.Join(testdata, "golden"))
	if !slices.Contains(langs, "go") || !slices.Contains(langs, "cpp") {
		t.Fatalf("testdata/golden has %v", langs)
	}
	for _, lang := range langs {
		checkAll(t, goldenDir(lang))
	}
}

// A library upgrade that changes the wire format, or a change to the generator or to a
// case, fails here: the files written now must equal the committed ones byte for byte.
// If the change is intended, rewrite testdata/golden/go with
// `wirebench-go golden write testdata/golden/go` and check that every other language
// still reads them (tests/test_golden.py).
func TestWritesItsGoldenFilesByteForByte(t *testing.T) {
	tmp := t.TempDir()
	r := driver(t, nil, "golden", "write", tmp)
	names := files(t, goldenDir("go"))
	if r.code != 0 || len(names) == 0 || strings.Count(r.stdout, "\n") != len(names) {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if strings.Join(files(t, tmp), " ") != strings.Join(names, " ") {
		t.Fatalf("written %v, committed %v", files(t, tmp), names)
	}
	for _, name := range names {
		want, _ := os.ReadFile(filepath.Join(goldenDir("go"), name))
		got, _ := os.ReadFile(filepath.Join(tmp, name))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: golden write differs from testdata/golden/go/%s (%d bytes, committed %d): "+
				"has the wire format changed?", name, name, len(got), len(want))
		}
	}
}

// damaged copies one case's pair of files into a fresh directory and applies damage to
// one of them.
func damaged(t *testing.T, stem, which string, damage func([]byte) []byte) string {
	tmp := t.TempDir()
	for _, ext := range []string{"requests", "responses"} {
		b, err := os.ReadFile(filepath.Join(goldenDir("go"), stem+"."+ext))
		if err != nil {
			t.Fatal(err)
		}
		if ext == which {
			b = damage(b)
		}
		if err := os.WriteFile(filepath.Join(tmp, stem+"."+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

func assertFailsNaming(t *testing.T, dir, file string, message int) {
	t.Helper()
	r := driver(t, nil, "golden", "check", dir)
	want := file + ": message " + string(rune('0'+message)) + ":"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, want 1 and %q in: %s", r.code, want, r.stderr)
	}
}

func TestAFlippedByteFailsNamingTheFile(t *testing.T) {
	// eval.capnp.none: 24 bytes a message (segment table, root pointer, value); byte 16
	// is the low byte of the first response's value.
	dir := damaged(t, "eval.capnp.none", "responses", func(b []byte) []byte { b[16] ^= 1; return b })
	assertFailsNaming(t, dir, "eval.capnp.none.responses", 0)
	// eval.null.none: the u32 size prefix of the first request, made far too large.
	dir = damaged(t, "eval.null.none", "requests", func(b []byte) []byte { b[3] ^= 0x80; return b })
	assertFailsNaming(t, dir, "eval.null.none.requests", 0)
	// carsales.protobuf.none: the first request's first byte after its size prefix (the
	// tag of the first car) made an invalid wire type.
	dir = damaged(t, "carsales.protobuf.none", "requests", func(b []byte) []byte {
		i := 0
		for b[i]&0x80 != 0 {
			i++
		}
		b[i+1] = 0x0f
		return b
	})
	assertFailsNaming(t, dir, "carsales.protobuf.none.requests", 0)
}

func TestATruncatedFileFailsNamingTheFile(t *testing.T) {
	dir := damaged(t, "carsales.capnp.packed", "requests", func(b []byte) []byte { return b[:len(b)-100] })
	assertFailsNaming(t, dir, "carsales.capnp.packed.requests", 4)
	dir = damaged(t, "eval.protobuf.none", "responses", func(b []byte) []byte { return b[:len(b)-1] })
	assertFailsNaming(t, dir, "eval.protobuf.none.responses", 4)
	dir = damaged(t, "catrank.null.none", "responses", func(b []byte) []byte { return b[:len(b)-3] })
	assertFailsNaming(t, dir, "catrank.null.none.responses", 4)
}

func TestUnsupportedNamesAreSkippedAndAnEmptyDirectoryFails(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{"a.b.c.requests", "a.b.c.responses", "x.requests"} {
		if err := os.WriteFile(filepath.Join(tmp, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := driver(t, nil, "golden", "check", tmp)
	if r.code != 1 || !strings.Contains(r.stderr, "no golden files that this driver supports") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	want := `{"file": "a.b.c.requests", "skipped": true}` + "\n" +
		`{"file": "a.b.c.responses", "skipped": true}` + "\n" +
		`{"file": "x.requests", "skipped": true}` + "\n"
	if r.stdout != want {
		t.Errorf("stdout %q", r.stdout)
	}
}
