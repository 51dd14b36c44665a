package rpc

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"wirebench/drivers/go/internal/cases"
)

// Buffer size of the pipe streams: the capacity of a Linux pipe, so that one flush of a
// small message is one write and a reader drains what one write put in the pipe.
const bufSize = 64 << 10

// countingReader counts every byte read from the stream below the buffering: the bytes
// that crossed the pipe.
type countingReader struct {
	r io.Reader
	n uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

// countingWriter counts every byte written to the stream below the buffering.
type countingWriter struct {
	w io.Writer
	n uint64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// conn is the client's side of a pipe: counted streams, read through a buffer. Writes
// go to w (buffered, flushed after every message: capnp writes a message in pieces) or
// straight to out (protobuf and null form each message in one buffer and write it once,
// as the other drivers do).
type conn struct {
	in  *countingReader
	out *countingWriter
	r   *bufio.Reader
	w   *bufio.Writer
}

func newConn(in io.Reader, out io.Writer) *conn {
	c := &conn{in: &countingReader{r: in}, out: &countingWriter{w: out}}
	c.r = bufio.NewReaderSize(c.in, bufSize)
	c.w = bufio.NewWriterSize(c.out, bufSize)
	return c
}

// count is every byte written plus every byte read so far.
func (c *conn) count() uint64 { return c.in.n + c.out.n }

func (c *conn) flush() error {
	if c.w == nil {
		return nil
	}
	return c.w.Flush()
}

// pipeLoop is `pipe` mode for every library: send one request, then receive and check
// its response. send returns the expectation for the response; t.Bytes gets every byte
// that crossed the pipe.
func pipeLoop(c *conn, iters uint64, t *cases.Tally, send func() (uint64, error),
	receive func(expected uint64) error) error {
	before := c.count()
	for ; iters > 0; iters-- {
		expected, err := send()
		if err != nil {
			return err
		}
		if err := receive(expected); err != nil {
			return err
		}
	}
	t.Bytes += c.count() - before
	return nil
}

// pipeAsyncLoop is `pipe-async` mode for every library: the calling goroutine sends every
// request while a second one receives and checks the responses, in order. The
// expectations go from one to the other through a channel; its bound only slows a sender
// that is far ahead. An error on either side ends the process, as the other side would
// otherwise wait forever.
func pipeAsyncLoop(c *conn, iters uint64, t *cases.Tally, send func() (uint64, error),
	receive func(expected uint64) error) error {
	before := c.count()
	expectations := make(chan uint64, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := iters; i > 0; i-- {
			if err := receive(<-expectations); err != nil {
				fmt.Fprintf(os.Stderr, "wirebench-go: pipe-async receiver: %v\n", err)
				os.Exit(1)
			}
		}
	}()
	for i := iters; i > 0; i-- {
		expected, err := send()
		if err != nil {
			fmt.Fprintf(os.Stderr, "wirebench-go: pipe-async sender: %v\n", err)
			os.Exit(1)
		}
		expectations <- expected
	}
	<-done
	t.Bytes += c.count() - before
	return nil
}

// errNoResponse is the client's error for an end of file where a response should be.
var errNoResponse = fmt.Errorf("unexpected end of file before a response")

// grow returns b resized to n bytes, reallocating only if its capacity is too small.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	nb := make([]byte, n, n+n/4)
	copy(nb, b)
	return nb
}
