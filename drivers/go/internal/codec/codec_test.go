package codec

import (
	"bytes"
	"os"
	"slices"
	"testing"

	capnppacked "capnproto.org/go/capnp/v3/packed"

	"wirebench/drivers/go/internal/codec/records"
)

// cells are every listed cell of the suite, as (library, case, variant).
func cells(t *testing.T) []struct {
	lib  *Lib
	kase string
	v    Variant
} {
	var out []struct {
		lib  *Lib
		kase string
		v    Variant
	}
	for _, c := range Suite.Cells() {
		out = append(out, struct {
			lib  *Lib
			kase string
			v    Variant
		}{findLib(c.Lib), c.Case, variant(c.Case, c.Params)})
	}
	if len(out) == 0 {
		t.Fatal("no cells")
	}
	return out
}

// Every cell's library round-trips its case: populate, serialize, deserialize (and
// access) for 2 iterations, each followed by the checks of a sample (the populated and
// deserialized records, the bytes equal to the first iteration's and read back, the
// digests).
func TestEveryCellRoundTripsAndItsDigestsPass(t *testing.T) {
	for _, c := range cells(t) {
		cl, err := newCell(c.lib.New(c.v), records.Of(c.kase))
		if err != nil {
			t.Fatalf("%s %s %+v: %v", c.lib.Name, c.kase, c.v, err)
		}
		for _, name := range operations(cl.impl, nil) {
			o := &op{cell: cl, name: name}
			o.Reset()
			if err := o.Iterate(2); err == nil {
				err = o.Done(true)
			}
			if err != nil {
				t.Errorf("%s %s %+v %s: %v", c.lib.Name, c.kase, c.v, name, err)
			}
		}
	}
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../../testdata/codec/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every JSON library writes testdata/codec/<case>.json byte for byte, in both buffer
// modes. MessagePack and null have their sizes from checks.json (Python's msgpack and
// null encoder), and every library of a format reads every other one's bytes;
// protobuf's two libraries write the same bytes.
func TestEncodingsMatchTheReference(t *testing.T) {
	sizes := map[string]map[string]int{ // checks.json
		"log":  {"json": 593, "msgpack": 499, "null": 310},
		"logs": {"json": 610252, "msgpack": 512354, "null": 325465},
	}
	if !bytes.Contains(testdata(t, "checks.json"), []byte(`"msgpack": 512354`)) {
		t.Fatal("checks.json changed: update the sizes here")
	}
	for _, kase := range records.Golden {
		recs := records.Of(kase)
		written := map[string][]byte{}
		for i := range Libs {
			l := &Libs[i]
			for _, buffer := range l.Buffers {
				v := defaultVariant(l, kase)
				v.Fresh = buffer == fresh
				c, err := newCell(l.New(v), recs)
				if err != nil {
					t.Fatalf("%s %s: %v", l.Name, kase, err)
				}
				if l.Format == "json" && !bytes.Equal(c.encoding, testdata(t, kase+".json")) {
					t.Errorf("%s %s %s: not the canonical JSON: %.200s", l.Name, kase, buffer, c.encoding)
				}
				if want, ok := sizes[kase][l.Format]; ok && len(c.encoding) != want {
					t.Errorf("%s %s: %d bytes, Python's %d", l.Name, kase, len(c.encoding), want)
				}
				written[l.Name] = c.encoding
			}
		}
		for i := range Libs {
			for j := range Libs {
				a, b := &Libs[i], &Libs[j]
				if a.Format != b.Format {
					continue
				}
				if err := decodeGolden(b, kase, written[a.Name], recs); err != nil {
					t.Errorf("%s %s: %s does not read %s's bytes: %v", a.Format, kase, b.Name, a.Name, err)
				}
			}
		}
		if !bytes.Equal(written["protobuf"], written["vtprotobuf"]) {
			t.Errorf("%s: protobuf and vtprotobuf write different bytes", kase)
		}
	}
}

// A truncated encoding is an error for every library's deserialize and access, never a
// panic or a value; flatbuffers (validation unchecked: no verifier) is left out.
func TestATruncatedEncodingIsAnError(t *testing.T) {
	for i := range Libs {
		l := &Libs[i]
		if slices.Equal(l.Validations, []string{unchecked}) {
			continue
		}
		for _, kase := range records.Golden {
			c, err := newCell(l.New(defaultVariant(l, kase)), records.Of(kase))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{len(c.encoding) - 1, len(c.encoding) / 2, 3} {
				in := bytes.Clone(c.encoding[:n])
				if _, err := c.impl.Deserialize(in); err == nil {
					t.Errorf("%s %s: deserialize of %d of %d bytes gives no error", l.Name, kase, n,
						len(c.encoding))
				}
				if a, ok := c.impl.(Accessor); ok {
					if _, err := a.Access(in); err == nil {
						t.Errorf("%s %s: access of %d of %d bytes gives no error", l.Name, kase, n,
							len(c.encoding))
					}
				}
			}
		}
	}
}

// A library's cells are its default and one cell per other value it supports of each
// parameter, and each measures what that parameter governs.
func TestCellsVaryOneParameterFromTheDefault(t *testing.T) {
	n := 0
	for i := range Libs {
		l := &Libs[i]
		n += len(l.Buffers) + len(l.Strings) + len(l.Validations) + len(l.Packings()) - 3
	}
	// The size axis's other batches have each library's default cell only.
	want := n*len(records.Golden) + len(Libs)*(len(records.Cases)-len(records.Golden))
	if got := len(Suite.Cells()); got != want {
		t.Errorf("%d cells, want %d", got, want)
	}
	null := newNull(Variant{})
	for _, c := range []struct {
		varied []string
		ops    []string
	}{
		{nil, []string{populate, serialize, deserialize, access}},
		{[]string{"buffer"}, []string{populate, serialize}},
		{[]string{"strings"}, []string{deserialize}},
		{[]string{"validation"}, []string{deserialize, access}},
		{[]string{"packing"}, []string{serialize, deserialize, access}},
	} {
		if got := operations(null, c.varied); !slices.Equal(got, c.ops) {
			t.Errorf("%v: %v, want %v", c.varied, got, c.ops)
		}
	}
	if got := operations(newProtobuf(Variant{}), nil); !slices.Equal(got, []string{populate, serialize,
		deserialize}) {
		t.Errorf("protobuf: %v", got)
	}
}

// A packed capnp cell measures the same message as the default cell: its bytes are the
// default cell's packed (go-capnp's own unpacking gives them back), fewer of them, and a
// truncated packed encoding is an error.
func TestCapnpPackedIsTheDefaultMessagePacked(t *testing.T) {
	l := findLib("capnp")
	for _, kase := range records.Golden {
		plain, err := newCell(l.New(defaultVariant(l, kase)), records.Of(kase))
		if err != nil {
			t.Fatal(err)
		}
		v := defaultVariant(l, kase)
		v.Packed = true
		c, err := newCell(l.New(v), records.Of(kase))
		if err != nil {
			t.Fatal(err)
		}
		unpacked, err := capnppacked.Unpack(nil, c.encoding)
		if err != nil || !bytes.Equal(unpacked, plain.encoding) {
			t.Errorf("%s: the packed encoding does not unpack to the default's (%v)", kase, err)
		}
		if len(c.encoding) >= len(plain.encoding) {
			t.Errorf("%s: packed %d bytes, unpacked %d", kase, len(c.encoding), len(plain.encoding))
		}
		for _, n := range []int{len(c.encoding) - 1, len(c.encoding) / 2, 3} {
			in := bytes.Clone(c.encoding[:n])
			if _, err := c.impl.Deserialize(in); err == nil {
				t.Errorf("%s: deserialize of %d of %d packed bytes gives no error", kase, n, len(c.encoding))
			}
			if _, err := c.impl.(Accessor).Access(in); err == nil {
				t.Errorf("%s: access of %d of %d packed bytes gives no error", kase, n, len(c.encoding))
			}
		}
	}
}
