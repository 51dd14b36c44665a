// Package suite is the registry of this driver's suites, in the order of `list` and
// `info`. Adding a suite is one folder (a package that declares its core.Suite) and one
// line here.
package suite

import (
	"wirebench/drivers/go/internal/codec"
	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/limit"
	"wirebench/drivers/go/internal/queue"
	"wirebench/drivers/go/internal/readbytes"
	"wirebench/drivers/go/internal/rpc"
)

// All are the suites.
var All = []*core.Suite{
	rpc.Suite,
	limit.Suite,
	codec.Suite,
	queue.Suite,
	readbytes.Suite,
}

// Find returns the suite called name, or nil.
func Find(name string) *core.Suite {
	for _, s := range All {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Names are the suites' names.
func Names() []string {
	names := make([]string, len(All))
	for i, s := range All {
		names[i] = s.Name
	}
	return names
}
