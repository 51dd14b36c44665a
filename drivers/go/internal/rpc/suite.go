package rpc

import (
	"fmt"
	"os"
	"runtime"

	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
)

// Cases are the rpc cases, in the order of `list`.
var Cases = []string{"carsales", "catrank", "eval"}

// Suite is the rpc suite in the registry (internal/suite).
var Suite = &core.Suite{
	Name:  "rpc",
	Cases: Cases,
	Params: []core.Param{
		{Name: "mode", Values: []string{"object", "bytes", "pipe", "pipe-async"}},
		{Name: "compression", Values: []string{"none", "packed"}},
		{Name: "reuse", Values: []string{"reuse", "no-reuse"}},
	},
	Libs:    coreLibs(),
	Refuse:  refuse,
	Prepare: prepare,
	Run:     run,
	Golden:  &core.Golden{Write: goldenWrite, Check: goldenCheck},
}

func isPipe(mode string) bool { return mode == "pipe" || mode == "pipe-async" }

// refuse leaves compression out of mode object: nothing is serialized.
func refuse(_ *core.Lib, _ string, p core.Params) error {
	if p.Get("mode") == "object" && p.Get("compression") != "none" {
		return core.Usage("compression %s does not apply to mode object", p.Get("compression"))
	}
	return nil
}

// prepare: a pipe cell runs as client, as server, or (no --role) with a server of its
// own; the other modes are local.
func prepare(r *core.Run) error {
	mode := r.Params.Get("mode")
	switch {
	case r.Role == "" && !isPipe(mode):
		r.Role = "local"
	case r.Role == "local" && isPipe(mode):
		return core.Usage("--role local is not possible with --mode %s (use client or server, "+
			"or no --role to run a server of its own)", mode)
	case r.Role != "" && r.Role != "local" && !isPipe(mode):
		return core.Usage("--role %s needs a pipe mode (pipe or pipe-async)", r.Role)
	}
	return nil
}

// newImpl is the run's Impl: its library's work on its case.
func newImpl(r *core.Run) (Impl, error) {
	reuse := r.Params.Get("reuse") == "reuse"
	impl := findLib(r.Lib.Name).New(r.Case, r.Params.Get("compression"), reuse)
	if impl == nil {
		return nil, fmt.Errorf("lib %s has no case %s", r.Lib.Name, r.Case)
	}
	return impl, nil
}

// pipeProcs is the least GOMAXPROCS of a pipe cell. A goroutine blocked in read(2) on a
// pipe keeps its P in a system call; when it is the only P (GOMAXPROCS=1, as when the
// harness pins the process to one CPU), the runtime's monitor thread takes it back after
// 20 us every time, since no idle P exists, and keeps waking up every 20 us: one more
// context switch per message on the CPU that the peer also runs on. With a second
// (idle) P it leaves the blocked P alone and sleeps. Measured with the client pinned on
// the C++ server's CPU: null eval pipe 1.5x faster, as fast as the C++ client. The
// process still runs on the CPUs it is given; object and bytes cells keep the default.
const pipeProcs = 2

func run(r *core.Run) error {
	mode := r.Params.Get("mode")
	if isPipe(mode) && runtime.GOMAXPROCS(0) < pipeProcs {
		runtime.GOMAXPROCS(pipeProcs)
	}
	if r.Role == "" {
		return runWithServer(r)
	}
	var in, out *os.File
	if r.Role != "local" {
		var err error
		if in, err = openFd(r.InFd, "--in-fd"); err != nil {
			return err
		}
		if out, err = openFd(r.OutFd, "--out-fd"); err != nil {
			return err
		}
	}
	impl, err := newImpl(r)
	if err != nil {
		return err
	}
	switch r.Role {
	case "server":
		return runServer(r, impl, in, out)
	case "client":
		c, ns, err := runClient(r, impl, in, out)
		if err != nil {
			return err
		}
		c.print(r, "client", ns)
		return nil
	}
	c := &client{impl: impl, mode: mode}
	ns, err := c.measure(r)
	if err != nil {
		return err
	}
	c.print(r, "local", ns)
	return nil
}

// client is the timed side of a cell: the generator and tally of the sample under way,
// the connection of a pipe cell, and the samples so far.
type client struct {
	impl      Impl
	mode      string
	conn      *conn
	g         rng.Rng
	t         cases.Tally
	bytes     []uint64
	check     []int64
	responses uint64
}

// Reset: the generator is reset at the start of the warm-up and of every sample.
func (c *client) Reset() {
	c.g = rng.New()
	c.t = cases.Tally{}
}

func (c *client) Iterate(n uint64) error {
	switch c.mode {
	case "object":
		return objectLoop(c.impl, &c.g, n, &c.t)
	case "bytes":
		return bytesLoop(c.impl, &c.g, n, &c.t)
	case "pipe":
		return pipeLoop(c.impl, c.conn, &c.g, n, &c.t)
	}
	return pipeAsyncLoop(c.impl, c.conn, &c.g, n, &c.t)
}

func (c *client) Done(sample bool) error {
	c.responses += c.t.Responses
	if sample {
		c.bytes = append(c.bytes, c.t.Bytes)
		c.check = append(c.check, int64(c.t.Check))
	}
	return nil
}

// measure times the cell, then flushes what a pipe client wrote.
func (c *client) measure(r *core.Run) ([]uint64, error) {
	ns, err := core.Measure(r, c)
	if err == nil && c.conn != nil {
		err = c.conn.flush()
	}
	return ns, err
}

// print prints the result of the samples measured.
func (c *client) print(r *core.Run, role string, ns []uint64) {
	var evidence core.Object
	evidence.Raw("check", core.List(c.check)).Num("responses_checked", c.responses)
	core.PrintResult(r, role, []core.Metric{
		{Name: "time", Unit: "ns", Iters: r.Iters, Samples: ns},
		{Name: "bytes", Unit: "B", Iters: r.Iters, Samples: c.bytes},
	}, &evidence)
}

// runClient runs the client's samples on in and out, then closes out (so that the
// server sees the end of file) and in.
func runClient(r *core.Run, impl Impl, in, out *os.File) (*client, []uint64, error) {
	c := &client{impl: impl, mode: r.Params.Get("mode"), conn: newConn(in, out)}
	ns, err := c.measure(r)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	in.Close()
	return c, ns, err
}

// openFd wraps a --in-fd or --out-fd, which must be open.
func openFd(fd int, flag string) (*os.File, error) {
	if _, err := os.Stat(fmt.Sprintf("/proc/self/fd/%d", fd)); err != nil {
		return nil, core.Usage("%s %d is not an open fd", flag, fd)
	}
	return os.NewFile(uintptr(fd), flag), nil
}

// serveFiles answers requests from in on out (both left open) until a clean end of file.
func serveFiles(impl Impl, in, out *os.File) (*conn, uint64, error) {
	c := newConn(in, out)
	requests, err := serve(impl, c)
	if err != nil {
		err = fmt.Errorf("request %d: %w", requests, err)
	}
	return c, requests, err
}

func runServer(r *core.Run, impl Impl, in, out *os.File) error {
	c, requests, err := serveFiles(impl, in, out)
	if err != nil {
		return err
	}
	var counts core.Object
	counts.Num("requests", requests).Num("bytes_in", c.in.n).Num("bytes_out", c.out.n)
	core.PrintServer(r, &counts)
	return nil
}

// runWithServer runs a pipe cell without --role: its server not in a forked process but
// in a goroutine of this one, joined to the client by two OS pipes, running exactly the
// code of --role server (as the Rust driver does with a thread).
func runWithServer(r *core.Run) error {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pipe() failed: %w", err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pipe() failed: %w", err)
	}
	server, err := newImpl(r)
	if err != nil {
		return err
	}
	client, err := newImpl(r)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, _, err := serveFiles(server, toServerR, toClientW); err != nil {
			fmt.Fprintf(os.Stderr, "wirebench-go: server: %v\n", err)
			os.Exit(1)
		}
		toServerR.Close()
		toClientW.Close()
	}()
	c, ns, err := runClient(r, client, toClientR, toServerW)
	if err != nil {
		return err
	}
	<-done
	c.print(r, "local", ns)
	return nil
}
