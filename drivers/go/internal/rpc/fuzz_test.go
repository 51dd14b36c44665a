package rpc

// The fuzz target of the server side (drivers/go/fuzz/README.md), one for every library
// of the registry: the input is the stream a server reads on its pipe, fed to serve, the
// loop `--role server` runs. The library is the environment's WIREBENCH_FUZZ_TARGET,
// rpc_<lib> (scripts/fuzz.sh sets it); without it, `go test` serves every seed of every
// library, and every named regression in testdata/fuzz/FuzzRPC, with every library.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/rng"
)

// goldenRoot holds every language's golden files (testdata/golden/<lang>).
const goldenRoot = "../../../../testdata/golden"

// The first byte of an input chooses the cell: bits 0-1 the case (mod 3: carsales,
// catrank, eval), bit 2 the compression (capnp: none or packed), bit 3 no-reuse.
func selector(kase, compression int, reuse bool) byte {
	sel := byte(kase) | byte(compression)<<2
	if !reuse {
		sel |= 8
	}
	return sel
}

// fuzzCell is the cell an input's first byte chooses for lib.
func fuzzCell(lib *Lib, sel byte) (kase, compression string, reuse bool) {
	return Cases[int(sel&3)%len(Cases)], lib.Compressions[int(sel>>2&1)%len(lib.Compressions)], sel&8 == 0
}

// requests are the first n requests of lib's generator in a cell, each framed (and
// packed) as on the pipe: Send writes one and flushes it.
func requests(t testing.TB, lib *Lib, kase, compression string, n int) [][]byte {
	var out bytes.Buffer
	c, g := newConn(eof{}, &out), rng.New()
	impl := lib.New(kase, compression, true)
	var messages [][]byte
	for range n {
		start := out.Len()
		if _, err := impl.Send(&g, c); err != nil {
			t.Fatalf("%s %s %s: %v", lib.Name, kase, compression, err)
		}
		messages = append(messages, bytes.Clone(out.Bytes()[start:]))
	}
	return messages
}

// serverSeeds are the seeds of lib's target: every language's golden request streams
// where small (no-reuse); of 100 requests of the generator in every cell, the first two
// (the golden files' first messages) and the two smallest (the golden catrank messages
// are large), each alone; then framing edge cases: a clean end, a size prefix over the
// limit.
func serverSeeds(t testing.TB, lib *Lib) [][]byte {
	langs, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	var seeds [][]byte
	seen := map[string]bool{}
	add := func(sel byte, b []byte) {
		s := append([]byte{sel}, b...)
		if !seen[string(s)] {
			seen[string(s)] = true
			seeds = append(seeds, s)
		}
	}
	for _, lang := range langs {
		for k, kase := range Cases {
			for c, compression := range lib.Compressions {
				name := fmt.Sprintf("%s.%s.%s.requests", kase, lib.Name, compression)
				stream, err := os.ReadFile(filepath.Join(goldenRoot, lang.Name(), name))
				if err == nil && len(stream) <= 64<<10 {
					add(selector(k, c, false), stream)
				}
			}
		}
	}
	for k, kase := range Cases {
		for c, compression := range lib.Compressions {
			messages := requests(t, lib, kase, compression, 100)
			first := slices.Clone(messages[:2])
			slices.SortStableFunc(messages, func(a, b []byte) int { return len(a) - len(b) })
			for _, m := range append(first, messages[:2]...) {
				add(selector(k, c, true), m)
				add(selector(k, c, false), m)
			}
		}
	}
	add(0, nil)
	add(0, overLimit(lib.Name))
	return seeds
}

// fuzzServe runs the server of the cell data[0] chooses on the stream data[1:]. Any error
// is a clean refusal; a stream it accepts must have a response per request, each of which
// reads back with the client's side.
func fuzzServe(t *testing.T, lib *Lib, data []byte) {
	if len(data) == 0 {
		return
	}
	kase, compression, reuse := fuzzCell(lib, data[0])
	var out bytes.Buffer
	requests, err := serve(lib.New(kase, compression, reuse), newConn(bytes.NewReader(data[1:]), &out))
	if err != nil {
		return
	}
	var answers []uint64
	if err := readAnswers(lib.New(kase, compression, reuse), &out, &answers); err != nil {
		t.Fatalf("%s %s %s reuse=%v: response %d of an accepted stream does not read back: %v",
			lib.Name, kase, compression, reuse, len(answers), err)
	}
	if uint64(len(answers)) != requests {
		t.Fatalf("%s %s %s reuse=%v: %d responses to %d requests", lib.Name, kase, compression, reuse,
			len(answers), requests)
	}
}

// maxSeed leaves the large golden messages (catrank: up to 110 KiB) out of the fuzzers'
// seeds: the engine minimizes each new input found from them for long, and the small
// requests of every case cover the same code. TestServerSeedsAreAnswered still serves them.
const maxSeed = 16 << 10

// fuzzLibs are the libraries FuzzRPC serves with: the one WIREBENCH_FUZZ_TARGET names
// (rpc_<lib>, a "-" in its name as "_"), or every library.
func fuzzLibs(f *testing.F) []*Lib {
	names := make([]string, len(Libs))
	for i := range Libs {
		names[i] = Libs[i].Name
	}
	chosen, err := core.FuzzTarget("rpc", names)
	if err != nil {
		f.Fatal(err)
	}
	libs := make([]*Lib, len(chosen))
	for i, k := range chosen {
		libs[i] = &Libs[k]
	}
	return libs
}

func FuzzRPC(f *testing.F) {
	libs := fuzzLibs(f)
	for _, lib := range libs {
		for _, s := range serverSeeds(f, lib) {
			if len(s) <= maxSeed {
				f.Add(s)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lib := range libs {
			fuzzServe(t, lib, data)
		}
	})
}

// The seeds are answered: they are the real thing, not refusals.
func TestServerSeedsAreAnswered(t *testing.T) {
	for i := range Libs {
		lib := &Libs[i]
		answered := 0
		for _, s := range serverSeeds(t, lib) {
			if len(s) < 2 {
				continue
			}
			kase, compression, reuse := fuzzCell(lib, s[0])
			requests, err := serve(lib.New(kase, compression, reuse), newConn(bytes.NewReader(s[1:]), &bytes.Buffer{}))
			if err == nil && requests > 0 {
				answered++
			}
		}
		if answered < 2*len(Cases) {
			t.Errorf("%s: only %d seeds answered", lib.Name, answered)
		}
	}
}

// overLimit is a stream whose first size prefix is one unit over core.MaxMessageBytes,
// followed by a few bytes.
func overLimit(lib string) []byte {
	var prefix []byte
	switch lib {
	case "capnp":
		prefix = binary.LittleEndian.AppendUint32([]byte{0, 0, 0, 0}, core.MaxMessageBytes/8+1)
	case "protobuf":
		prefix = protowire.AppendVarint(nil, core.MaxMessageBytes+1)
	default:
		prefix = binary.LittleEndian.AppendUint32(nil, core.MaxMessageBytes+1)
	}
	return append(prefix, 1, 2, 3)
}

// A size prefix over the limit is refused before anything is allocated for it, with an
// error naming the size and the limit; a prefix under the limit that lies (a few bytes
// follow) costs at most readChunk.
func TestFramesOverTheLimitAreRefusedBeforeAllocating(t *testing.T) {
	limit := fmt.Sprint(core.MaxMessageBytes)
	for i := range Libs {
		lib := &Libs[i]
		for _, reuse := range []bool{true, false} {
			over := overLimit(lib.Name)
			var before, after runtime.MemStats
			impl, c := lib.New("eval", "none", reuse), newConn(bytes.NewReader(over), io.Discard)
			runtime.ReadMemStats(&before)
			_, err := serve(impl, c)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), limit) || !strings.Contains(err.Error(), "over the limit") {
				t.Errorf("%s reuse=%v: %v, want the size refused naming the limit %s", lib.Name, reuse, err, limit)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > readChunk {
				t.Errorf("%s reuse=%v: %d bytes allocated to refuse a frame", lib.Name, reuse, grew)
			}
			lie := over[:len(over)-3]
			switch lib.Name {
			case "capnp":
				binary.LittleEndian.PutUint32(lie[4:], core.MaxMessageBytes/8-1)
			case "protobuf":
				lie = protowire.AppendVarint(nil, core.MaxMessageBytes-8)
			default:
				binary.LittleEndian.PutUint32(lie, core.MaxMessageBytes-8)
			}
			impl, c = lib.New("eval", "none", reuse), newConn(bytes.NewReader(append(lie, 1, 2, 3)), io.Discard)
			runtime.ReadMemStats(&before)
			_, err = serve(impl, c)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "truncated") {
				t.Errorf("%s reuse=%v: %v, want a truncated message", lib.Name, reuse, err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*readChunk {
				t.Errorf("%s reuse=%v: %d bytes allocated for 3 bytes of a message", lib.Name, reuse, grew)
			}
		}
	}
}
