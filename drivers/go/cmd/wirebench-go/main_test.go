package main

// End-to-end tests of the driver as a process: `list`, every listed cell briefly (with its
// digest checked against testdata/rpc/checks.json), the server role on stdin/stdout (clean
// end of file, corrupt and truncated messages), usage errors, and the golden files
// (testdata/golden: this driver's own written byte for byte, every language's checked,
// damaged files refused naming the file). The test binary is the driver: run with
// WIREBENCH_GO_DRIVER=1 it runs main instead of the tests.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if strings.HasPrefix(rest, "[") {
		return rest[:strings.Index(rest, "]")+1]
	}
	return rest[:strings.IndexAny(rest, ",}")]
}

const testdata = "../../../../testdata"

// digest3 is the digest of the first 3 answers of a case, from checks.json.
func digest3(t *testing.T, kase string) string {
	b, err := os.ReadFile(filepath.Join(testdata, "rpc", "checks.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	body := text[strings.Index(text, `"`+kase+`"`):]
	body = body[:strings.Index(body, "}")]
	return field(t, body+"}", "3")
}

func TestListHas93CellsAndEveryCellRuns(t *testing.T) {
	out := driver(t, nil, "list")
	lines := strings.Split(strings.TrimSuffix(out.stdout, "\n"), "\n")
	if out.code != 0 || len(lines) != 93 {
		t.Fatalf("list: exit %d, %d lines", out.code, len(lines))
	}
	for _, line := range lines {
		args := []string{"run", "--suite", field(t, line, "suite"), "--case", field(t, line, "case"),
			"--lib", field(t, line, "lib")}
		rpcCell := field(t, line, "suite") == "rpc"
		if rpcCell {
			for _, p := range []string{"mode", "compression", "reuse"} {
				args = append(args, "--"+p, field(t, line, p))
			}
		} else {
			args = append(args, "--block", field(t, line, "block"))
		}
		args = append(args, "--iters", "3", "--samples", "2", "--warmup", "1")
		r := driver(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		res := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(res) != 1 || field(t, res[0], "verified") != "true" || field(t, res[0], "lang") != "go" {
			t.Fatalf("%v: %s", args, r.stdout)
		}
		if rpcCell {
			if got := field(t, res[0], "responses_checked"); got != "7" {
				t.Errorf("%v: responses_checked %s", args, got)
			}
			d := digest3(t, field(t, line, "case"))
			if got := field(t, res[0], "check"); got != "["+d+", "+d+"]" {
				t.Errorf("%v: check %s, want %s twice", args, got, d)
			}
		}
	}
}

// serveStdin runs a server on stdin/stdout with input as the whole request stream.
func serveStdin(t *testing.T, lib, compression string, input []byte) result {
	return driver(t, input, "run", "--case", "eval", "--lib", lib, "--mode", "pipe",
		"--compression", compression, "--reuse", "reuse", "--role", "server",
		"--in-fd", "0", "--out-fd", "1")
}

func TestServerStopsCleanlyAtEndOfFile(t *testing.T) {
	for _, lc := range [][2]string{{"capnp", "none"}, {"capnp", "packed"}, {"protobuf", "none"}, {"null", "none"}} {
		r := serveStdin(t, lc[0], lc[1], []byte{})
		if r.code != 0 || field(t, r.stdout, "role") != "server" || field(t, r.stdout, "requests") != "0" {
			t.Errorf("%v: exit %d: %s %s", lc, r.code, r.stdout, r.stderr)
		}
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
		if r.code != 1 || r.stderr == "" {
			t.Errorf("%s %s %v: exit %d: %s", c.lib, c.compression, c.input, r.code, r.stderr)
		}
	}
}

func TestUsageErrorsExit2AndNameTheProblem(t *testing.T) {
	for _, c := range []struct {
		args   []string
		needle string
	}{
		{[]string{"frobnicate"}, "frobnicate"},
		{[]string{"run", "--case", "eval", "--lib", "capnp", "--bogus", "1"}, "--bogus"},
		{[]string{"run", "--case", "eval", "--lib", "nope", "--mode", "bytes"}, "nope"},
		{[]string{"run", "--case", "eval", "--lib", "protobuf", "--mode", "bytes", "--compression",
			"packed", "--reuse", "reuse", "--iters", "1"}, "packed"},
		{[]string{"run", "--case", "eval", "--lib", "capnp", "--mode", "bytes", "--compression",
			"none", "--reuse", "reuse", "--iters", "x"}, "--iters"},
		{[]string{"run", "--case", "memcpy", "--lib", "memcpy", "--block", "3KiB", "--iters", "1"}, "3KiB"},
		{[]string{"run", "--case", "eval", "--lib", "null", "--mode", "pipe", "--compression", "none",
			"--reuse", "reuse", "--iters", "1", "--role", "client", "--in-fd", "97", "--out-fd", "1"}, "--in-fd 97"},
		{[]string{"run", "--case", "nope", "--lib", "null"}, "nope"},
		{[]string{"golden"}, "golden"},
		{[]string{"golden", "read", "x"}, "read"},
		{[]string{"golden", "check"}, "DIR"},
		{[]string{"golden", "write", ""}, "DIR"},
		{[]string{"golden", "check", "x", "y"}, "'y'"},
	} {
		r := driver(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.needle) || !strings.Contains(r.stderr, "usage error") {
			t.Errorf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
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

// checkAll: `golden check DIR` succeeds and checks every one of the 24 files.
func checkAll(t *testing.T, dir string) {
	r := driver(t, nil, "golden", "check", dir)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 24 {
		t.Fatalf("golden check %s: exit %d, %d lines: %s", dir, r.code, len(lines), r.stderr)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, `"messages": 5, "ok": true}`) {
			t.Errorf("%s in %s", l, dir)
		}
	}
}

// Every language's golden files read back (the harness's tests/test_golden.py does the
// same for every built driver).
func TestChecksEveryLanguagesGoldenFiles(t *testing.T) {
	for _, lang := range []string{"go", "cpp", "rust"} {
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
	if r.code != 0 || strings.Count(r.stdout, "\n") != 24 {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	names := files(t, goldenDir("go"))
	if len(names) != 24 || strings.Join(files(t, tmp), " ") != strings.Join(names, " ") {
		t.Fatalf("written %v, committed %v", files(t, tmp), names)
	}
	for _, name := range names {
		want, _ := os.ReadFile(filepath.Join(goldenDir("go"), name))
		got, _ := os.ReadFile(filepath.Join(tmp, name))
		if !bytes.Equal(got, want) {
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
