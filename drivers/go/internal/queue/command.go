package queue

// The suite's own commands (core.Suite.Command), `DRIVER queue append|tail DIR ...`
// (docs/protocol.md): the wbq queue written and read by a process of its own, for the
// interoperability and crash tests.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"wirebench/drivers/go/internal/core"
)

// commandUsage is the commands' lines of the driver's usage text.
var commandUsage = "       " + core.Driver + ` queue append DIR --entries N [--longs K] [--first V] [--ordering O]
         [--clock C] [--cycle-size B] [--pause-us U] [--die-mid-entry]
       ` + core.Driver + ` queue tail DIR [--follow --expect N] [--timeout S]
`

// parseFlags reads the flags of `queue append|tail DIR`: --NAME VALUE, --NAME=VALUE, and
// the switches (no value) named in switches; any name not in known is a usage error.
func parseFlags(argv []string, known, switches []string) (core.Flags, error) {
	flags := core.Flags{}
	for i := 0; i < len(argv); i++ {
		name, ok := strings.CutPrefix(argv[i], "--")
		if !ok {
			return nil, core.Usage("unexpected argument '%s'", argv[i])
		}
		name, value, inline := strings.Cut(name, "=")
		switch {
		case slices.Contains(switches, name):
			if inline {
				return nil, core.Usage("flag --%s takes no value", name)
			}
		case !slices.Contains(known, name):
			return nil, core.Usage("unknown flag --%s (flags: --%s)", name,
				strings.Join(append(slices.Clone(known), switches...), ", --"))
		case !inline:
			i++
			if i == len(argv) {
				return nil, core.Usage("flag --%s needs a value", name)
			}
			value = argv[i]
		}
		if flags.Has(name) {
			return nil, core.Usage("flag --%s given twice", name)
		}
		flags[name] = value
	}
	return flags, nil
}

// command is `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md), given
// the arguments after `queue`: the wbq queue for interoperability and crash tests.
func command(argv []string) error {
	if len(argv) < 1 || (argv[0] != "append" && argv[0] != "tail") {
		return core.Usage("queue: missing or unknown subcommand (append or tail)")
	}
	if len(argv) < 2 || argv[1] == "" || strings.HasPrefix(argv[1], "--") {
		return core.Usage("queue %s: missing DIR", argv[0])
	}
	if argv[0] == "append" {
		return appendCommand(argv[1], argv[2:])
	}
	return tailCommand(argv[1], argv[2:])
}

func appendCommand(dir string, argv []string) error {
	a, err := parseFlags(argv, []string{"entries", "longs", "first", "ordering", "clock", "cycle-size",
		"pause-us"}, []string{"die-mid-entry"})
	if err != nil {
		return err
	}
	wbq := FindLib("wbq")
	if !a.Has("entries") {
		return core.Usage("queue append: missing --entries N")
	}
	entries, err := a.Count("entries", 0)
	if err != nil {
		return err
	}
	longs, err := a.CountOr("longs", 1, 1)
	if err != nil {
		return err
	}
	var first int64
	if a.Has("first") {
		if first, err = strconv.ParseInt(a["first"], 10, 64); err != nil {
			return core.Usage("bad value for --first: '%s' (want a signed 64-bit integer)", a["first"])
		}
	}
	if a.Has("ordering") { // Go's wbq publishes with seqcst only (internal/queue/wbq.go)
		if _, err := a.OneOf("ordering", wbq.Orderings, " for lib wbq"); err != nil {
			return err
		}
	}
	o := Options{Clock: Mono, CycleSize: DefaultCycleSize}
	if a.Has("clock") {
		c, err := a.OneOf("clock", wbq.Clocks, " for lib wbq")
		if err != nil {
			return err
		}
		if c == "tsc" {
			o.Clock = TSC
		}
	}
	size, err := a.CountOr("cycle-size", DefaultCycleSize, MinCycleSize)
	if err != nil {
		return err
	}
	if size%4096 != 0 || size > 1<<40 {
		return core.Usage("bad value for --cycle-size: %d (a multiple of 4096, at least %d)", size,
			MinCycleSize)
	}
	o.CycleSize = int64(size)
	pause, err := a.CountOr("pause-us", 0, 0)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	q, err := Open(dir, o)
	if err != nil {
		return err
	}
	defer q.Close()
	v, sum := first, int64(0)
	for range entries {
		if err := q.Start(int(longs)); err != nil {
			return err
		}
		for range longs {
			q.WriteLong(uint64(v))
			sum += v
			v++
		}
		q.End()
		if pause > 0 {
			time.Sleep(time.Duration(pause) * time.Microsecond)
		}
	}
	if a.Has("die-mid-entry") {
		// As a process killed in the middle of a write: the entry stays WORKING.
		if err := q.Start(int(longs)); err != nil {
			return err
		}
		for range longs / 2 {
			q.WriteLong(uint64(v))
			v++
		}
		os.Exit(3)
	}
	var j core.Object
	j.Num("entries", entries).Num("longs", entries*longs).Raw("first", strconv.FormatInt(first, 10)).
		Raw("sum", strconv.FormatInt(sum, 10))
	core.PrintLine(j.Text())
	return nil
}

func tailCommand(dir string, argv []string) error {
	a, err := parseFlags(argv, []string{"expect", "timeout"}, []string{"follow"})
	if err != nil {
		return err
	}
	follow := a.Has("follow")
	if follow != a.Has("expect") {
		return core.Usage("queue tail: --follow and --expect N go together")
	}
	expect, err := a.CountOr("expect", 0, 0)
	if err != nil {
		return err
	}
	timeout := 30.0
	if a.Has("timeout") {
		if timeout, err = strconv.ParseFloat(a["timeout"], 64); err != nil || timeout <= 0 {
			return core.Usage("bad value for --timeout: '%s' (seconds, more than 0)", a["timeout"])
		}
	}
	if !follow { // a follower waits for the directory too
		if _, err := os.Stat(dir); err != nil {
			return err
		}
	}
	t, err := OpenTailer(dir)
	if err != nil {
		return err
	}
	defer t.Close()
	deadline := time.Now().Add(time.Duration(timeout * float64(time.Second)))
	var n, longs uint64
	var firstV, lastV, sum, lastTs int64
	consecutive, monotonic := true, true
	stopped := AtEnd
	for !follow || n < expect {
		e, st, err := t.Next()
		if err != nil {
			return err
		}
		if st != Read {
			if !follow {
				stopped = st
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("queue tail %s: %d of %d entries after %g s", dir, n, expect, timeout)
			}
			time.Sleep(50 * time.Microsecond)
			continue
		}
		if e.Length%8 != 0 {
			return fmt.Errorf("%s offset %d: an entry of %d bytes is not a whole number of longs",
				filepath.Join(dir, e.File), e.Offset, e.Length)
		}
		if n > 0 && e.Timestamp < lastTs {
			monotonic = false
		}
		lastTs = e.Timestamp
		for _, x := range e.Longs {
			v := int64(x)
			if longs == 0 {
				firstV = v
			} else if v != lastV+1 {
				consecutive = false
			}
			lastV = v
			sum += v
			longs++
		}
		n++
	}
	if follow {
		if stopped, err = t.Peek(); err != nil {
			return err
		}
	}
	var j core.Object
	j.Num("entries", n).Num("longs", longs)
	if longs > 0 {
		j.Raw("first", strconv.FormatInt(firstV, 10)).Raw("last", strconv.FormatInt(lastV, 10))
	} else {
		j.Raw("first", "null").Raw("last", "null")
	}
	j.Raw("sum", strconv.FormatInt(sum, 10)).Bool("consecutive", consecutive).Bool("monotonic", monotonic).
		Num("abandoned", t.Abandoned())
	if stopped == Incomplete {
		j.Str("stopped", "incomplete")
	} else {
		j.Str("stopped", "end")
	}
	if file, off := t.Where(); file != "" {
		j.Str("file", file).Num("offset", uint64(off))
	} else {
		j.Raw("file", "null").Raw("offset", "null")
	}
	core.PrintLine(j.Text())
	return nil
}
