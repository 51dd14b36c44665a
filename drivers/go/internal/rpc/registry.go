// Package rpc is the rpc suite, one file per library (capnp.go, protobuf.go, null.go),
// and registry.go, the one list of what this driver can run: suites, cases, libraries and
// parameters. `list` prints the same 93 cells, in the same order, as the C++ and Rust
// drivers.
package rpc

import (
	"fmt"
	"runtime/debug"
	"strings"

	"wirebench/drivers/go/internal/cases"
)

var (
	Cases      = []string{"carsales", "catrank", "eval"}
	Modes      = []string{"object", "bytes", "pipe", "pipe-async"}
	ReuseModes = []string{"reuse", "no-reuse"}
)

// Lib is one rpc library.
type Lib struct {
	Name         string
	Compressions []string
	// Make returns the cell, or nil for a combination the library does not support.
	Make func(kase, compression string, reuse bool) cases.Cell
	// Versions is the extra provenance of this library's results: (key, version) pairs.
	Versions [][2]string
}

// Module versions of the libraries, from the build information of the binary.
var (
	CapnpVersion    = moduleVersion("capnproto.org/go/capnp/v3")
	ProtobufVersion = moduleVersion("google.golang.org/protobuf")
)

// moduleVersion is the version of a module the binary was built with, without Go's "v"
// prefix (like the versions the other drivers report), or "unknown".
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range info.Deps {
		if m.Path == path {
			if m.Replace != nil {
				m = m.Replace
			}
			return strings.TrimPrefix(m.Version, "v")
		}
	}
	return "unknown"
}

// Libs lists the rpc libraries in the order of `list`.
var Libs = []Lib{
	{"capnp", []string{"none", "packed"}, makeCapnpCell, [][2]string{{"capnp", CapnpVersion}}},
	{"protobuf", []string{"none"}, makeProtobufCell, [][2]string{{"protobuf", ProtobufVersion}}},
	{"null", []string{"none"}, makeNullCell, nil},
}

// FindLib returns the library called name, or nil.
func FindLib(name string) *Lib {
	for i := range Libs {
		if Libs[i].Name == name {
			return &Libs[i]
		}
	}
	return nil
}

// MemcpyBlocks are the limit suite's block sizes, in the order of `list`.
var MemcpyBlocks = []struct {
	Name  string
	Bytes int
}{{"16KiB", 16 << 10}, {"1MiB", 1 << 20}, {"64MiB", 64 << 20}}

// ListCells returns one line of `list` per cell, in a stable order.
func ListCells() []string {
	var lines []string
	for _, kase := range Cases {
		for _, lib := range Libs {
			for _, mode := range Modes {
				for _, compression := range lib.Compressions {
					if mode == "object" && compression != "none" {
						continue // nothing to compress
					}
					for _, reuse := range ReuseModes {
						lines = append(lines, fmt.Sprintf(
							`{"suite": "rpc", "case": "%s", "lib": "%s", "params": {"mode": "%s", "compression": "%s", "reuse": "%s"}}`,
							kase, lib.Name, mode, compression, reuse))
					}
				}
			}
		}
	}
	for _, b := range MemcpyBlocks {
		lines = append(lines, fmt.Sprintf(
			`{"suite": "limit", "case": "memcpy", "lib": "memcpy", "params": {"block": "%s"}}`, b.Name))
	}
	return lines
}
