package rpc

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
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

// conn is one side of a pipe (a client's, a server's, or a golden file's): counted
// streams, read through a buffer. Writes go to w (buffered, flushed after every message:
// capnp writes a message in pieces) or straight to out (protobuf and null form each
// message in one buffer and write it once, as the other drivers do). In pipe-async the
// sending goroutine uses only out and w, the receiving one only in and r.
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

func (c *conn) flush() error { return c.w.Flush() }

// objectLoop is mode object for every library.
func objectLoop(impl Impl, g *rng.Rng, iters uint64, t *cases.Tally) error {
	for ; iters > 0; iters-- {
		expected, answer, err := impl.Object(g)
		if err != nil {
			return err
		}
		if err := cases.Expect(answer, expected); err != nil {
			return err
		}
		t.Add(expected)
	}
	return nil
}

// bytesLoop is mode bytes for every library: t.Bytes gets both messages' sizes.
func bytesLoop(impl Impl, g *rng.Rng, iters uint64, t *cases.Tally) error {
	for ; iters > 0; iters-- {
		expected, answer, moved, err := impl.Bytes(g)
		if err != nil {
			return err
		}
		t.Bytes += moved
		if err := cases.Expect(answer, expected); err != nil {
			return err
		}
		t.Add(expected)
	}
	return nil
}

// receive reads a response from c and checks it against expected.
func receive(impl Impl, c *conn, expected uint64, t *cases.Tally) error {
	answer, err := impl.Receive(c)
	if err == io.EOF {
		return errNoResponse
	}
	if err != nil {
		return err
	}
	if err := cases.Expect(answer, expected); err != nil {
		return err
	}
	t.Add(expected)
	return nil
}

// pipeLoop is mode pipe for every library: send one request, then receive and check its
// response. t.Bytes gets every byte that crossed the pipe.
func pipeLoop(impl Impl, c *conn, g *rng.Rng, iters uint64, t *cases.Tally) error {
	before := c.count()
	for ; iters > 0; iters-- {
		expected, err := impl.Send(g, c)
		if err != nil {
			return err
		}
		if err := receive(impl, c, expected, t); err != nil {
			return err
		}
	}
	t.Bytes += c.count() - before
	return nil
}

// pipeAsyncLoop is mode pipe-async for every library: the calling goroutine sends every
// request while a second one receives and checks the responses, in order. The
// expectations go from one to the other through a channel; its bound only slows a sender
// that is far ahead. An error on either side ends the process, as the other side would
// otherwise wait forever.
func pipeAsyncLoop(impl Impl, c *conn, g *rng.Rng, iters uint64, t *cases.Tally) error {
	before := c.count()
	expectations := make(chan uint64, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := iters; i > 0; i-- {
			if err := receive(impl, c, <-expectations, t); err != nil {
				fmt.Fprintf(os.Stderr, "wirebench-go: pipe-async receiver: %v\n", err)
				os.Exit(1)
			}
		}
	}()
	for i := iters; i > 0; i-- {
		expected, err := impl.Send(g, c)
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

// serve is the server for every library: it answers requests from c until a clean end of
// file at a message boundary, and returns how many it answered (so that a failure can
// name the message).
func serve(impl Impl, c *conn) (uint64, error) {
	var requests uint64
	for {
		err := impl.Serve(c)
		if err == io.EOF {
			return requests, c.flush()
		}
		if err != nil {
			return requests, err
		}
		requests++
	}
}

// errNoResponse is the client's error for an end of file where a response should be.
var errNoResponse = fmt.Errorf("unexpected end of file before a response")

// buffers are the byte buffers of a library that serializes each message into one
// buffer (protobuf, null): with reuse, writeBuf holds what this side serializes (bytes
// mode: the request) and readBuf what it reads (bytes mode: the response), each keeping
// its capacity; without, every message gets a fresh buffer.
type buffers struct {
	reuse             bool
	writeBuf, readBuf []byte
}

// buffer returns the kept buffer, emptied, with reuse; else nil (a fresh one is made).
func (b *buffers) buffer(kept []byte) []byte {
	if !b.reuse {
		return nil
	}
	return kept[:0]
}

// keep stores a buffer back with reuse (it may have grown).
func (b *buffers) keep(kept *[]byte, buf []byte) {
	if b.reuse {
		*kept = buf
	}
}

// grow returns b resized to n bytes, reallocating only if its capacity is too small.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	nb := make([]byte, n, n+n/4)
	copy(nb, b)
	return nb
}

// readChunk bounds the memory a read allocates ahead of the bytes that have arrived: a
// length prefix that lies (up to core.MaxMessageBytes) costs at most this much more than
// the bytes actually sent. Every message of the cases is smaller, so they are read with
// one allocation (or none, into a kept buffer), as before.
const readChunk = 1 << 20

// readBody reads n more bytes from r onto the end of buf (grown as they arrive, by at most
// readChunk at a time beyond its capacity) and returns buf. An error comes as io.ReadFull
// gives it, with buf holding what arrived.
func readBody(r io.Reader, buf []byte, n int) ([]byte, error) {
	start := len(buf)
	if n <= readChunk || cap(buf)-start >= n {
		buf = grow(buf, start+n)
		_, err := io.ReadFull(r, buf[start:])
		return buf, err
	}
	for got := 0; got < n; {
		end := start + got + min(n-got, readChunk)
		buf = grow(buf, end)
		m, err := io.ReadFull(r, buf[start+got:end])
		got += m
		if err != nil {
			return buf[:start+got], err
		}
	}
	return buf, nil
}

// noEOF turns an end of file inside a message into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
