package readbytes

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// shop is the protobuf encoding of Shop { repeated int32 id = 1; } with ids 0 .. n-1, not
// packed: per id the tag 0x08, then the id as a varint (docs/workloads.md §8 for n =
// 3,000,000).
func shop(n int) []byte {
	out := make([]byte, 0, 5*n)
	for i := 0; i < n; i++ {
		out = append(out, tag)
		for v := uint64(i); ; v >>= 7 {
			if v < 0x80 {
				out = append(out, byte(v))
				break
			}
			out = append(out, byte(v)|0x80)
		}
	}
	return out
}

func write(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.pb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// passOf runs one pass of every strategy over path for case c.
func passOf(t *testing.T, path string, c kase) map[string]struct {
	t   tally
	err error
} {
	t.Helper()
	out := map[string]struct {
		t   tally
		err error
	}{}
	for _, l := range Libs {
		s, err := l.New(path)
		if err != nil {
			t.Fatalf("%s: %v", l.Name, err)
		}
		got, err := s.pass(c)
		out[l.Name] = struct {
			t   tally
			err error
		}{got, err}
	}
	return out
}

// The generator gives the file of docs/workloads.md §8, and every strategy gives every
// case's published value on it, reading every byte.
func TestEveryStrategyGivesTheValuesOnTheShopFile(t *testing.T) {
	data := shop(3_000_000)
	if len(data) != FileSize {
		t.Fatalf("shop: %d bytes, want %d", len(data), FileSize)
	}
	path := write(t, data)
	for c, kc := range Cases {
		for lib, r := range passOf(t, path, kase(c)) {
			if r.err != nil || r.t != (tally{kc.Value, FileSize}) {
				t.Errorf("%s %s: %+v, %v; want %d", kc.Name, lib, r.t, r.err, kc.Value)
			}
		}
	}
}

// reference is each case's value computed plainly from the bytes (varint: from ids).
func reference(data []byte, ids []uint64) [3]tally {
	var sum, total uint64
	for _, b := range data {
		sum += uint64(b)
	}
	for _, id := range ids {
		total += id
	}
	n := uint64(len(data))
	return [3]tally{{n, n}, {sum + n, n}, {total, n}}
}

// Small inputs: none at all; 100,000 ids (390 KB: many bufio refills, several of the own
// buffer, varints cut by both); the longest varint (10 bytes, all 64 bits set).
func TestConsumersOnSmallInputs(t *testing.T) {
	ids := make([]uint64, 100_000)
	for i := range ids {
		ids[i] = uint64(i)
	}
	longest := []byte{tag, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, tag, 0x02}
	for _, in := range []struct {
		name string
		data []byte
		ids  []uint64
	}{
		{"empty", nil, nil},
		{"100000 ids", shop(100_000), ids},
		{"longest varint", longest, []uint64{math.MaxUint64, 2}}, // the sum wraps to 1
	} {
		path := write(t, in.data)
		want := reference(in.data, in.ids)
		for c, kc := range Cases {
			for lib, r := range passOf(t, path, kase(c)) {
				if r.err != nil || r.t != want[c] {
					t.Errorf("%s, %s %s: %+v, %v; want %+v", in.name, kc.Name, lib, r.t, r.err, want[c])
				}
			}
		}
	}
}

// Every varint error names its byte offset, in every strategy; count and sum take any
// bytes.
func TestVarintErrorsNameTheOffset(t *testing.T) {
	ten := bytes.Repeat([]byte{0x80}, 10)
	for _, e := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"bad first tag", []byte{0x0a, 0x01}, "byte offset 0: tag 0x0a, expected 0x08"},
		{"bad tag", []byte{tag, 0x01, tag, 0x81, 0x01, 0x10, 0x01}, "byte offset 5: tag 0x10, expected 0x08"},
		{"overlong", append(append([]byte{tag, 0x05, tag}, ten...), 0x01),
			"byte offset 13: the varint at offset 3 is longer than 10 bytes"},
		{"overlong at the end", append([]byte{tag}, ten...),
			"byte offset 11: the varint at offset 1 is longer than 10 bytes"},
		{"end after a tag", []byte{tag, 0x01, tag}, "byte offset 3: end of file inside the varint at offset 3"},
		{"end inside a varint", []byte{tag, 0x01, tag, 0x80, 0x80},
			"byte offset 5: end of file inside the varint at offset 3"},
		// Id 999 is 0x08 0xe7 0x07 at offset 2869 (len(shop(999))): cut after 0xe7.
		{"cut shop file", shop(2000)[:2871], "byte offset 2871: end of file inside the varint at offset 2870"},
	} {
		path := write(t, e.data)
		for lib, r := range passOf(t, path, varintCase) {
			if r.err == nil || r.err.Error() != e.msg {
				t.Errorf("%s, %s: %+v, %v; want %q", e.name, lib, r.t, r.err, e.msg)
			}
		}
		n := uint64(len(e.data))
		for _, c := range []kase{countCase, sumCase} {
			for lib, r := range passOf(t, path, c) {
				if r.err != nil || r.t.bytes != n {
					t.Errorf("%s, %s %s: %+v, %v", e.name, Cases[c].Name, lib, r.t, r.err)
				}
			}
		}
	}
}

// A file that opens but cannot be read (a directory) fails every strategy, naming it.
func TestReadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	for _, l := range Libs {
		s, err := l.New(dir)
		if err == nil {
			_, err = s.pass(sumCase)
		}
		if err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s on a directory: %v", l.Name, err)
		}
	}
	missing := filepath.Join(dir, "missing")
	for _, l := range Libs {
		s, err := l.New(missing)
		if err == nil {
			_, err = s.pass(countCase)
		}
		if !os.IsNotExist(err) || !strings.Contains(err.Error(), missing) {
			t.Errorf("%s on a missing file: %v", l.Name, err)
		}
	}
}

// Every source is at most four words, which the compiler keeps in registers (a larger
// struct goes through memory at every step; see ownbuffer.go).
func TestSourcesFitInRegisters(t *testing.T) {
	word := unsafe.Sizeof(uintptr(0))
	for name, size := range map[string]uintptr{"memSource": unsafe.Sizeof(memSource{}),
		"bufioSource": unsafe.Sizeof(bufioSource{}), "ownSource": unsafe.Sizeof(ownSource{})} {
		if size > 4*word {
			t.Errorf("%s: %d bytes", name, size)
		}
	}
}

// consumerNames are the methods every source has: the consumers and consume.
var consumerNames = []string{"consume", "count", "sum", "varint"}

// sourceFiles are the files declaring a byte source, its type and its consumers.
var sourceFiles = map[string]string{"consume.go": "memSource", "bufio.go": "bufioSource",
	"ownbuffer.go": "ownSource"}

// The consumers of every source are memSource's, token for token, but for the type name.
func TestConsumersAreTheSameCode(t *testing.T) {
	text := map[string]map[string]string{} // source type -> method -> normalized text
	fset := token.NewFileSet()
	for file, source := range sourceFiles {
		f, err := parser.ParseFile(fset, file, nil, 0) // no comments
		if err != nil {
			t.Fatal(err)
		}
		text[source] = map[string]string{}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || receiver(fn) != source {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name == source {
					id.Name = "S"
				}
				return true
			})
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fn); err != nil {
				t.Fatal(err)
			}
			text[source][fn.Name.Name] = b.String()
		}
	}
	for source, methods := range text {
		for _, name := range consumerNames {
			got, ok := methods[name]
			if !ok {
				t.Errorf("%s has no %s", source, name)
			} else if want := text["memSource"][name]; got != want {
				t.Errorf("%s.%s differs from memSource's:\n%s\nmemSource's:\n%s", source, name, got, want)
			}
		}
	}
}

// nextCalls are the lines of the next() calls in each source's consumers.
func nextCalls(t *testing.T) map[string][]int {
	t.Helper()
	fset := token.NewFileSet()
	calls := map[string][]int{}
	for file, source := range sourceFiles {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || receiver(fn) != source {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "next" {
						calls[source] = append(calls[source], fset.Position(c.Lparen).Line)
					}
				}
				return true
			})
		}
	}
	return calls
}

// compile builds this package with gcflags and returns the compiler's output.
func compile(t *testing.T, gcflags string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to ask the compiler")
	}
	cmd := exec.Command(goTool, "build", "-gcflags="+gcflags, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=%s: %v\n%s", gcflags, err, out)
	}
	return string(out)
}

// No dynamic call per byte: the compiler inlines memSource's and bufioSource's next at
// every call in their consumers, calls ownSource's directly (too costly to inline, see
// ownbuffer.go), and no consumer makes an indirect call.
func TestNoDynamicCallPerByte(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package twice")
	}
	inlined := compile(t, "-m")
	calls := nextCalls(t)
	for file, source := range sourceFiles {
		if len(calls[source]) != 4 { // count 1, sum 1, varint 2
			t.Errorf("%s: next() on lines %v, want 4", source, calls[source])
		}
		for _, line := range calls[source] {
			pat := regexp.MustCompile(`(?m)^\./` + regexp.QuoteMeta(file) + `:` + strconv.Itoa(line) +
				`:\d+: inlining call to ` + source + `\.next$`)
			if found := pat.MatchString(inlined); found != (source != "ownSource") {
				t.Errorf("%s:%d: next inlined: %v", file, line, found)
			}
		}
	}

	// The assembly of each consumer: no indirect call; ownSource's call next by name.
	asm := compile(t, "-S")
	const pkg = "wirebench/drivers/go/internal/readbytes."
	blocks := regexp.MustCompile(`(?m)^\S+ STEXT`).FindAllStringIndex(asm, -1)
	seen := 0
	for i, b := range blocks {
		end := len(asm)
		if i+1 < len(blocks) {
			end = blocks[i+1][0]
		}
		name := strings.TrimPrefix(strings.Fields(asm[b[0]:b[1]])[0], pkg)
		source, method, _ := strings.Cut(name, ".")
		if !strings.HasSuffix(source, "Source") || !slices.Contains(consumerNames, method) {
			continue
		}
		seen++
		body := asm[b[0]:end]
		if strings.Contains(body, "R_CALLIND") {
			t.Errorf("%s makes an indirect call", name)
		}
		if source == "ownSource" && method != "consume" &&
			!strings.Contains(body, "CALL\t"+pkg+"ownSource.next(SB)") {
			t.Errorf("%s does not call ownSource.next by name", name)
		}
	}
	if seen != len(sourceFiles)*len(consumerNames) {
		t.Errorf("found %d consumers in the assembly, want %d", seen, len(sourceFiles)*len(consumerNames))
	}
}

// receiver is the name of fn's receiver type if it is a value receiver, else "".
func receiver(fn *ast.FuncDecl) string {
	if fn.Recv == nil {
		return ""
	}
	if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
