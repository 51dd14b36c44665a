package codec

// The fuzz target of the codec decoders (drivers/go/fuzz/README.md), one for every
// library of the registry: the input goes to the path `golden check` runs on a foreign
// file (Deserialize, then the check of the fold and the records), and for the zero-copy
// formats to Access too. The library is the environment's WIREBENCH_FUZZ_TARGET,
// codec_<lib> (scripts/fuzz.sh sets it); without it, `go test` decodes every seed of
// every library, and every named regression in testdata/fuzz/FuzzCodec, with every
// library.

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tinylib/msgp/msgp"

	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/core"
)

// goldenRoot holds every language's golden files (testdata/golden/<lang>).
const goldenRoot = "../../../../testdata/golden"

// The first byte of an input chooses the variant: bit 0 the case (log, logs), bit 1 the
// strings (the library's second value, borrowed, where it has one), bit 2 the packing
// (the library's second value, where it has one: capnp's packed, thrift's compact).
func fuzzVariant(l *Lib, sel byte) Variant {
	v := defaultVariant(l, records.Golden[sel&1])
	v.Borrowed = l.Strings[int(sel>>1&1)%len(l.Strings)] == borrowed
	packing := l.Packings()[int(sel>>2&1)%len(l.Packings())]
	v.Packed, v.Compact = packing == packed, packing == compact
	return v
}

// expectations are the records and fold of each case (keyed by batch), made once.
var expectations = sync.OnceValue(func() map[bool]*cell {
	m := map[bool]*cell{}
	for _, kase := range records.Golden {
		recs := records.Of(kase)
		m[kase == "logs"] = &cell{recs: recs, fold: records.Fold(recs)}
	}
	return m
})

func expected(batch bool) *cell { return expectations()[batch] }

// codecSeeds are the seeds of l's target: every language's golden files of its format,
// with each strings value, and small batches (the first 2 and 3 records of logs) in l's
// own encoding, which are well formed but not the case's batch, in each packing it has
// (with the case log in its second packing, which no golden file holds).
func codecSeeds(t testing.TB, l *Lib) [][]byte {
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
		for k, kase := range records.Golden {
			b, err := os.ReadFile(filepath.Join(goldenRoot, lang.Name(), kase+"."+l.Format))
			if err != nil {
				continue // this language does not write the format
			}
			for s := range l.Strings {
				add(byte(k)|byte(s)<<1, b)
			}
		}
	}
	if len(seeds) == 0 {
		t.Fatalf("no golden file of %s in %s", l.Format, goldenRoot)
	}
	for p := range l.Packings() {
		for _, n := range []int{2, 3} {
			v := fuzzVariant(l, 1|byte(p)<<2)
			c, err := newCell(l.New(v), records.Of("logs")[:n])
			if err != nil {
				t.Fatalf("%s: %d records: %v", l.Name, n, err)
			}
			add(1|byte(p)<<2, c.encoding)
		}
		if p > 0 { // the other packing's encoding of the case log, which no golden file holds
			c, err := newCell(l.New(fuzzVariant(l, byte(p)<<2)), records.Of("log"))
			if err != nil {
				t.Fatalf("%s: %v", l.Name, err)
			}
			add(byte(p)<<2, c.encoding)
		}
	}
	add(0, nil)
	add(1, nil)
	return seeds
}

// fuzzDecode decodes data[1:] in the variant data[0] chooses. Any error is a clean
// refusal. Flatbuffers has no verifier in Go (validation unchecked): its target runs
// decodeGolden, which turns the panic of an out-of-range read into an error, as `golden
// check` does; every other library must not panic at all.
func fuzzDecode(t *testing.T, l *Lib, data []byte) {
	if len(data) == 0 {
		return
	}
	v := fuzzVariant(l, data[0])
	in := data[1:]
	if l.Validations[0] == unchecked {
		_ = decodeGolden(l, records.Golden[data[0]&1], in, expected(v.Batch).recs)
		return
	}
	want := expected(v.Batch)
	c := &cell{impl: l.New(v), recs: want.recs, fold: want.fold}
	_ = c.readsBack(in)
	if a, ok := c.impl.(Accessor); ok {
		_, _ = a.Access(in)
	}
}

// maxSeed leaves the golden logs files (300 to 600 KiB) out of the fuzzers' seeds: the
// engine mutates and minimizes such inputs slowly, and the small batches cover the same
// code. TestCodecSeedsDecode still decodes them.
const maxSeed = 16 << 10

// fuzzLibs are the libraries FuzzCodec decodes with: the one WIREBENCH_FUZZ_TARGET names
// (codec_<lib>, a "-" in its name as "_"), or every library.
func fuzzLibs(f *testing.F) []*Lib {
	names := make([]string, len(Libs))
	for i := range Libs {
		names[i] = Libs[i].Name
	}
	chosen, err := core.FuzzTarget("codec", names)
	if err != nil {
		f.Fatal(err)
	}
	libs := make([]*Lib, len(chosen))
	for i, k := range chosen {
		libs[i] = &Libs[k]
	}
	return libs
}

func FuzzCodec(f *testing.F) {
	libs := fuzzLibs(f)
	for _, l := range libs {
		for _, s := range codecSeeds(f, l) {
			if len(s) <= maxSeed {
				f.Add(s)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range libs {
			fuzzDecode(t, l, data)
		}
	})
}

// The golden seeds decode and pass the check: the seeds are the real thing.
func TestCodecSeedsDecode(t *testing.T) {
	for i := range Libs {
		l := &Libs[i]
		ok := 0
		for _, s := range codecSeeds(t, l) {
			if len(s) < 2 {
				continue
			}
			v := fuzzVariant(l, s[0])
			want := expected(v.Batch)
			if decodeGolden(l, records.Golden[s[0]&1], s[1:], want.recs) == nil {
				ok++
			}
		}
		if ok < len(records.Golden) {
			t.Errorf("%s: only %d golden seeds decode", l.Name, ok)
		}
	}
}

// msgp refuses an array header over records.MaxBatch before allocating the records (the
// limit directive in records/types.go says the same number); at the limit, the count is
// accepted and the missing records are an error of their own.
func TestMsgpBatchLimit(t *testing.T) {
	logs := func(n uint32) []byte {
		b := append([]byte{0x81, 0xa4}, "logs"...)
		return binary.BigEndian.AppendUint32(append(b, 0xdd), n)
	}
	l := findLib("msgp")
	_, err := l.New(Variant{Batch: true}).Deserialize(logs(records.MaxBatch + 1))
	if !errors.Is(err, msgp.ErrLimitExceeded) {
		t.Errorf("%d records: %v, want %v", records.MaxBatch+1, err, msgp.ErrLimitExceeded)
	}
	_, err = l.New(Variant{Batch: true}).Deserialize(logs(records.MaxBatch))
	if err == nil || errors.Is(err, msgp.ErrLimitExceeded) {
		t.Errorf("%d records: %v, want a short input", records.MaxBatch, err)
	}
}

// msgpack (vmihailenco) refuses a batch over records.MaxBatch before allocating it: the
// library's own limit is never applied (the msgpack fuzzer ran out of memory on such a
// count; testdata/fuzz/FuzzCodec/msgpack-logs-array32-count-4Gi).
func TestMsgpackBatchLimit(t *testing.T) {
	logs := func(n uint32) []byte {
		b := append([]byte{0x81, 0xa4}, "logs"...)
		return binary.BigEndian.AppendUint32(append(b, 0xdd), n)
	}
	l := findLib("msgpack")
	for _, n := range []uint32{records.MaxBatch + 1, 0xffffffff} {
		_, err := l.New(Variant{Batch: true}).Deserialize(logs(n))
		if err == nil || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("%d records: %v, want the count refused", n, err)
		}
	}
}

// A failed msgpack decode keeps no buffer: a lying string length, skipped in an unknown
// field, used to grow the pooled Decoder's buffer by a quarter at every failed decode, up
// to the claimed length (decodeMsgpack; the msgpack fuzzer's worker grew to 14 GB and
// hung; testdata/fuzz/FuzzCodec/msgpack-str32-length-grows-pooled-buffer). 40 decodes
// claiming 256 MiB each allocate about 1 MiB each now, 1.2 GB in all before.
func TestMsgpackFailedDecodeKeepsNoBuffer(t *testing.T) {
	in := []byte{0x81, 0xa1, 'x', 0xdb, 0x10, 0, 0, 0, 1, 2, 3} // {"x": a str32 of 256 MiB, 3 bytes given}
	l := findLib("msgpack")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 40 {
		if _, err := l.New(Variant{}).Deserialize(in); err == nil {
			t.Fatal("a truncated string decoded")
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 200<<20 {
		t.Errorf("40 failed decodes allocated %d MiB", grew>>20)
	}
}
