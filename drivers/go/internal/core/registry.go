// Package core is what every suite of this driver shares and no suite owns: the types of
// the registry (a suite with its cases, parameters, libraries and fixtures; a validated
// run of one cell), the timing loop, the results and their JSON, and the usage error.
// It knows no suite: internal/suite lists them; internal/rpc and internal/limit are two.
package core

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
)

// Identity of this driver (docs/protocol.md, `info`).
const (
	Protocol  = 2
	Lang      = "go"
	Toolchain = "gc"
	Driver    = "wirebench-go"
)

// UsageError is a bad command line: exit status 2. Every other error is a failed run:
// exit status 1.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usage returns a UsageError.
func Usage(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// Param is a cell parameter of a suite, passed as --NAME VALUE, with its legal values in
// the order of `list`.
type Param struct {
	Name   string
	Values []string
	// Cases are the cases it applies to (queue's rate: paced only); nil: every case.
	Cases []string
}

// AppliesTo reports whether p is a parameter of the suite's case kase.
func (p *Param) AppliesTo(kase string) bool { return p.Cases == nil || slices.Contains(p.Cases, kase) }

// Params are a cell's parameter values, in the order of its suite's Params.
type Params [][2]string

// Get returns the value of the parameter called name, or "".
func (p Params) Get(name string) string {
	for _, kv := range p {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}

// Lib is a library of a suite as the command line and `list` see it. The suite's own
// library registry has its factory.
type Lib struct {
	Name string
	// Format is the encoding a codec library writes (json, msgpack, ...): the key
	// `list` gives after "lib"; "" in the suites that have none.
	Format string
	// Supports narrows parameters' legal values for this library (capnp's compressions),
	// in the order of `list`; a parameter not named takes all of its suite's values.
	Supports map[string][]string
	// Versions is the extra provenance of this library's results: (key, version) pairs.
	Versions [][2]string
}

// Values are the values of p that l supports.
func (l *Lib) Values(p Param) []string {
	if v, ok := l.Supports[p.Name]; ok {
		return v
	}
	return p.Values
}

// Fixtures are the fixture flags the command line knows (docs/protocol.md); a suite
// declares the ones it takes and refuses the others.
var Fixtures = []string{"input", "work-dir", "out-dir"}

// Roles are the values of --role. A run without --role has the role its suite gives it
// (Suite.Prepare), or "" (an rpc pipe cell with a server of its own).
var Roles = []string{"local", "client", "server"}

// Suite is one suite of the registry.
type Suite struct {
	Name   string
	Cases  []string
	Params []Param
	Libs   []Lib
	// Fixtures are the fixture flags this suite takes (rpc and limit take none).
	Fixtures []string
	// Refuse says why a combination of parameter values that the library supports is
	// not a cell (`list` leaves it out, `run` refuses it), or returns nil. Optional.
	Refuse func(l *Lib, kase string, p Params) error
	// Prepare checks the run's role against its parameters and gives a run without
	// --role its default role.
	Prepare func(r *Run) error
	// Run runs one validated cell and prints its result.
	Run func(r *Run) error
	// Golden is the suite's `golden write|check DIR`, if it has golden files.
	Golden *Golden
	// Command is the suite's own commands, `DRIVER <suite> ARGS...` (queue append|tail),
	// given ARGS; a bad command line is a UsageError. Optional. CommandUsage is its lines
	// of the usage text, each ending in a newline.
	Command      func(args []string) error
	CommandUsage string
}

// Lib returns the suite's library called name, or nil.
func (s *Suite) Lib(name string) *Lib {
	for i := range s.Libs {
		if s.Libs[i].Name == name {
			return &s.Libs[i]
		}
	}
	return nil
}

// LibNames are the names of the suite's libraries, in the order of `list`.
func (s *Suite) LibNames() []string {
	names := make([]string, len(s.Libs))
	for i, l := range s.Libs {
		names[i] = l.Name
	}
	return names
}

// ParamNames are the names of the suite's parameters, in their order.
func (s *Suite) ParamNames() []string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return names
}

// Param returns the suite's parameter called name, or nil.
func (s *Suite) Param(name string) *Param {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	return nil
}

// CaseParams are the suite's parameters of case kase, in their order.
func (s *Suite) CaseParams(kase string) []Param {
	var params []Param
	for _, p := range s.Params {
		if p.AppliesTo(kase) {
			params = append(params, p)
		}
	}
	return params
}

// Cell is one line of `list`.
type Cell struct {
	Suite, Case, Lib string
	// Format is the library's Format.
	Format string
	Params Params
}

// Cells are the suite's cells in the order of `list`: case, library, then every
// parameter of the case in its order with the values the library supports, less what
// Refuse refuses.
func (s *Suite) Cells() []Cell {
	var cells []Cell
	for _, kase := range s.Cases {
		params := s.CaseParams(kase)
		for i := range s.Libs {
			lib := &s.Libs[i]
			var product func(p Params)
			product = func(p Params) {
				if len(p) == len(params) {
					if s.Refuse == nil || s.Refuse(lib, kase, p) == nil {
						cells = append(cells, Cell{s.Name, kase, lib.Name, lib.Format, slices.Clone(p)})
					}
					return
				}
				param := params[len(p)]
				for _, v := range lib.Values(param) {
					product(append(p, [2]string{param.Name, v}))
				}
			}
			product(make(Params, 0, len(params)))
		}
	}
	return cells
}

// Run is one validated `run`: the cell, its role and counts.
type Run struct {
	Suite  *Suite
	Case   string
	Lib    *Lib
	Params Params
	// Role is local, client or server, or "" (see Roles).
	Role string
	// InFd and OutFd are the pipe ends of a client or a server, else -1.
	InFd, OutFd int
	// Iters per sample, Samples, Warmup iterations (a server ignores them).
	Iters, Samples, Warmup uint64
	// Fixtures are the fixture flags given (only ones the suite takes), by name.
	Fixtures map[string]string
}

// Versions is a result's provenance: the compiler and the library's versions.
func (r *Run) Versions() [][2]string {
	return append([][2]string{{"compiler", runtime.Version()}}, r.Lib.Versions...)
}

// LibVersion is a library's provenance: its key and the version of its Go module.
func LibVersion(key, module string) [][2]string {
	Packages[key] = module
	return [][2]string{{key, ModuleVersion(module)}}
}

// Packages is the module behind each name of `info`'s versions, which the harness
// substitutes for a library variant (`wirebench run --with go:NAME=SOURCE`).
var Packages = map[string]string{}

// ModuleVersion is the version of a module the binary was built with, without Go's "v"
// prefix (like the versions the other drivers report), or "unknown".
func ModuleVersion(path string) string {
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

// GoldenFile is one golden file written, checked or skipped: a stream of Messages (rpc),
// or an encoding of Records (codec), which check decodes with Libs and compares with the
// driver's own encoding (SameBytes).
type GoldenFile struct {
	Name      string // the file name inside the directory
	Messages  uint64
	Records   uint64
	Bytes     uint64
	Libs      []string
	SameBytes bool
	Skipped   bool
}

// Golden is a suite's `golden write DIR` and `golden check DIR`; each reports every file
// as it goes.
type Golden struct {
	Write func(dir string, report func(GoldenFile)) error
	Check func(dir string, report func(GoldenFile)) error
}
