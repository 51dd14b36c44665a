// Package codec is the codec suite (docs/protocol.md, suite codec): one library encoding
// the HTTP log records of docs/workloads.md (codec), operation by operation.
//
//   - registry.go: the suite's library registry (one line per library) and Impl, the
//     narrow interface a library implements for one cell.
//   - suite.go: the suite as the registry sees it (cases, parameters, each library's
//     default cell and its one-parameter variants) and its run: the timing loops of the
//     four operations, written once, their checks, the allocation counts, the result.
//   - golden.go: the codec part of `golden write|check DIR`.
//   - records/: the plain structs, the records of each case, the fold.
//   - plain.go: what the libraries that serialize the plain structs share.
//   - one file per library, the library's work only.
package codec

import (
	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/core"
)

// Impl is one library's work on one case in one variant (the library's factory makes
// it), with what the variant keeps between iterations (native form, builders, output
// buffer). The suite's loops call it once per iteration and do everything else. Every
// error is a failed run (exit status 1).
type Impl interface {
	// Populate builds the library's native form from the case's records (the driver's
	// plain structs): into kept memory with buffer reused, into new memory with fresh.
	Populate(recs []records.Log) error
	// Serialize encodes the native form last populated. The bytes stay valid until the
	// next call; with buffer reused they are the library's kept output buffer.
	Serialize() ([]byte, error)
	// Deserialize decodes in into the complete native form (with strings owned or
	// borrowed as the variant says) and returns its fold.
	Deserialize(in []byte) (uint64, error)
	// Populated and Deserialized are the native forms last populated and deserialized,
	// as plain records, for the checks outside timing.
	Populated() ([]records.Log, error)
	Deserialized() ([]records.Log, error)
}

// Accessor is an Impl of a zero-copy format, whose view of the bytes can be read
// without building a native form.
type Accessor interface {
	// Access returns the fold of in, read through the library's view.
	Access(in []byte) (uint64, error)
}

// Variant is what a cell asks of a library's factory.
type Variant struct {
	Batch      bool   // case logs (a Logs message), else case log (one Log)
	Fresh      bool   // --buffer fresh
	Borrowed   bool   // --strings borrowed
	Validation string // --validation
	Packed     bool   // --packing packed (Cap'n Proto's packed encoding)
	Compact    bool   // --packing compact (Thrift's compact protocol)
}

// The parameters' values.
const (
	reused    = "reused"
	fresh     = "fresh"
	owned     = "owned"
	borrowed  = "borrowed"
	validated = "validated"
	lazy      = "lazy"
	unchecked = "unchecked"
	unpacked  = "unpacked"
	packed    = "packed"
	compact   = "compact"
)

// Lib is one library of the codec suite.
type Lib struct {
	Name string
	// Format is the encoding it writes (json, msgpack, protobuf, capnp, flatbuffers, cbor,
	// bson, avro, thrift, sbe, null): the harness's key and the golden files' extension.
	Format string
	// The values of --buffer, --strings and --validation it supports, its default first.
	Buffers, Strings, Validations []string
	// Versions is the extra provenance of its results: (key, version) pairs.
	Versions [][2]string
	// New returns its Impl of a variant.
	New func(v Variant) Impl
}

// Libs is the codec suite's library registry, in the order of `list` (the floor first).
// Adding a library is one file (its Impl and factory) and one line here.
var Libs = []Lib{
	{"null", "null", both, ownedOrBorrowed, []string{lazy}, nil, newNull},
	{"encoding-json", "json", both, ownedOnly, parsed, nil, newEncodingJSON},
	{"go-json", "json", both, ownedOnly, parsed, core.LibVersion("go-json", "github.com/goccy/go-json"), newGoJSON},
	{"sonic", "json", both, ownedOrBorrowed, parsed, core.LibVersion("sonic", "github.com/bytedance/sonic"), newSonic},
	{"json-iterator", "json", both, ownedOnly, parsed,
		core.LibVersion("json-iterator", "github.com/json-iterator/go"), newJSONIterator},
	{"protobuf", "protobuf", both, ownedOnly, parsed, core.LibVersion("protobuf", "google.golang.org/protobuf"),
		newProtobuf},
	{"vtprotobuf", "protobuf", both, ownedOrBorrowed, parsed,
		core.LibVersion("vtprotobuf", "github.com/planetscale/vtprotobuf"), newVtprotobuf},
	{"capnp", "capnp", both, ownedOrBorrowed, []string{lazy}, core.LibVersion("capnp", "capnproto.org/go/capnp/v3"),
		newCapnp},
	{"flatbuffers", "flatbuffers", both, ownedOrBorrowed, []string{unchecked},
		core.LibVersion("flatbuffers", "github.com/google/flatbuffers"), newFlatbuffers},
	{"msgpack", "msgpack", both, ownedOnly, parsed, core.LibVersion("msgpack", "github.com/vmihailenco/msgpack/v5"),
		newMsgpack},
	{"msgp", "msgpack", both, ownedOnly, parsed, core.LibVersion("msgp", "github.com/tinylib/msgp"), newMsgp},
	{"fxamacker-cbor", "cbor", both, ownedOnly, parsed,
		core.LibVersion("fxamacker-cbor", "github.com/fxamacker/cbor/v2"), newCBOR},
	{"bson", "bson", both, ownedOnly, parsed, core.LibVersion("bson", "go.mongodb.org/mongo-driver/v2"), newBSON},
	{"hamba-avro", "avro", both, ownedOnly, parsed, core.LibVersion("hamba-avro", "github.com/hamba/avro/v2"),
		newAvro},
	{"thrift", "thrift", both, ownedOnly, parsed, core.LibVersion("thrift", "github.com/apache/thrift"), newThrift},
	{"sbe", "sbe", both, ownedOnly, parsed, sbeVersions, newSBE},
}

// Common sets of supported values.
var (
	both            = []string{reused, fresh}
	ownedOnly       = []string{owned}
	ownedOrBorrowed = []string{owned, borrowed}
	parsed          = []string{validated}
)

// Packings are the values of --packing l supports: packing is the Cap'n Proto format's
// (packed) and Thrift's (compact: its compact protocol, unpacked its binary protocol), so
// every capnp and thrift library has its two and every other format only its one
// encoding.
func (l *Lib) Packings() []string {
	switch l.Format {
	case "capnp":
		return []string{unpacked, packed}
	case "thrift":
		return []string{unpacked, compact}
	}
	return []string{unpacked}
}

// findLib returns the library called name, or nil.
func findLib(name string) *Lib {
	for i := range Libs {
		if Libs[i].Name == name {
			return &Libs[i]
		}
	}
	return nil
}

// coreLibs are the libraries as the registry's command line and `list` see them.
func coreLibs() []core.Lib {
	libs := make([]core.Lib, len(Libs))
	for i, l := range Libs {
		libs[i] = core.Lib{Name: l.Name, Format: l.Format, Versions: l.Versions, Supports: map[string][]string{
			"buffer": l.Buffers, "strings": l.Strings, "validation": l.Validations,
			"packing": Libs[i].Packings()}}
	}
	return libs
}
