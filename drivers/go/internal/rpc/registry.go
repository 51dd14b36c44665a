// Package rpc is the rpc suite (docs/protocol.md, suite rpc): the Cap'n Proto benchmark
// cases, request and response with computation at both ends.
//
//   - registry.go: the suite's library registry (one line per library) and Impl, the
//     narrow interface a library implements for one case.
//   - suite.go: the suite as the registry sees it (cases, parameters, the rule that
//     object mode has no compression, roles) and its run: local, client, server, or a pipe
//     cell with a server of its own.
//   - io.go: the loops every library shares: object, bytes, pipe, pipe-async and serve,
//     over the counted, buffered pipe streams (conn).
//   - golden.go: `golden write|check DIR`.
//   - capnp.go, protobuf.go, null.go: one file per library, the library's work only.
//   - cases/: the library-independent rules of the cases.
package rpc

import (
	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/rng"
)

// Impl is one library's work on one case, with one compression and reuse mode (the
// library's factory makes it). It holds what the library keeps between messages
// (builders, scratch, buffers, the readers and writers bound to a stream); io.go's loops
// do the rest, with one call through this interface per iteration (per side, in pipe
// modes).
//
// Expectations and answers are digest terms (docs/protocol.md): u64 for carsales, the
// i64 count for catrank, the sign-extended i32 for eval. The loops compare them. Every
// error is a failed run (exit status 1).
type Impl interface {
	// Object is one iteration of mode object: a request built from g, handled into a
	// response, and its answer read, without serializing.
	Object(g *rng.Rng) (expected, answer uint64, err error)
	// Bytes is one iteration of mode bytes: the request built from g, serialized, parsed
	// by the server, handled, the response serialized and parsed by the client (in the
	// library's own form, packed if the cell is); moved is both messages' byte counts.
	Bytes(g *rng.Rng) (expected, answer, moved uint64, err error)
	// Send builds a request from g and writes it to c in the pipe wire format, flushed;
	// it returns the request's expectation.
	Send(g *rng.Rng, c *conn) (expected uint64, err error)
	// Receive reads one response from c and returns its answer; io.EOF at a clean end of
	// file before a message.
	Receive(c *conn) (answer uint64, err error)
	// Serve reads one request from c and writes its response to c, flushed; io.EOF at a
	// clean end of file at a message boundary.
	Serve(c *conn) error
}

// Lib is one library of the rpc suite.
type Lib struct {
	Name string
	// Compressions are the compressions it supports, in the order of `list`.
	Compressions []string
	// Versions is the extra provenance of its results: (key, version) pairs.
	Versions [][2]string
	// New returns its Impl of a case, or nil if it has no such case.
	New func(kase, compression string, reuse bool) Impl
}

// Libs is the rpc suite's library registry, in the order of `list`. Adding a library is
// one file (its Impl and factory) and one line here.
var Libs = []Lib{
	{"capnp", []string{"none", "packed"}, core.LibVersion("capnp", "capnproto.org/go/capnp/v3"), newCapnp},
	{"protobuf", []string{"none"}, core.LibVersion("protobuf", "google.golang.org/protobuf"), newProtobuf},
	{"null", []string{"none"}, nil, newNull},
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
		libs[i] = core.Lib{Name: l.Name, Supports: map[string][]string{"compression": l.Compressions},
			Versions: l.Versions}
	}
	return libs
}
