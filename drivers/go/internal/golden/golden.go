// Package golden is `golden write DIR` and `golden check DIR` (docs/protocol.md), as in
// the C++ (src/golden.cpp) and Rust (src/golden.rs) drivers: the pipe client and server of
// each cell, run against files instead of pipes. write runs the client's writing side into
// DIR/X.requests (a fresh generator, reuse builders, so the bytes are deterministic:
// single-segment capnp messages) and the server on X.requests into X.responses. check runs
// the server on X.requests (whoever wrote it) and the client's reading side on
// X.responses, and compares every answer with the expectation of the same request from a
// fresh generator.
package golden

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"wirebench/drivers/go/internal/cases"
	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc"
)

// Messages is the number of requests (and so responses) per golden file: the first ones
// from a fresh generator.
const Messages = 5

const (
	requestsExt  = ".requests"
	responsesExt = ".responses"
)

// File is one file written, checked or skipped.
type File struct {
	Name     string // the file name inside the directory
	Messages uint64
	Bytes    uint64
	Skipped  bool
}

func fileSize(path string) (uint64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return uint64(st.Size()), nil
}

// cell is the cell whose wire format a golden file of (case, lib, compression) is in, or
// nil if this driver does not support it. Builders are the reuse variant.
func cell(kase, lib, compression string) cases.Cell {
	if !slices.Contains(rpc.Cases, kase) {
		return nil
	}
	l := rpc.FindLib(lib)
	if l == nil || !slices.Contains(l.Compressions, compression) {
		return nil
	}
	return l.Make(kase, compression, true)
}

// atMessage turns a failure into one naming the file and the message index.
func atMessage(path string, index uint64, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: message %d: %w", path, index, err)
}

// freshExpectations are the expectations of the first Messages requests of a fresh
// generator.
func freshExpectations(c cases.Cell) ([]uint64, error) {
	g := rng.New()
	return c.WriteRequests(&g, Messages, io.Discard)
}

func expectAnswers(path, whose string, answers, expectations []uint64) error {
	for i := 0; i < len(answers) && i < len(expectations); i++ {
		if answers[i] != expectations[i] {
			// Every case's answer is signed 64-bit.
			return fmt.Errorf("%s: message %d: %s answer is %d, but request %d of a fresh generator expects %d",
				path, i, whose, int64(answers[i]), i, int64(expectations[i]))
		}
	}
	if len(answers) != len(expectations) {
		return fmt.Errorf("%s: %d messages, expected %d", path, len(answers), len(expectations))
	}
	return nil
}

// checkRequests is the server side: it decodes the requests and answers them, and the
// answers (read back from the responses it wrote) must be the expectations.
func checkRequests(c cases.Cell, path string, expectations []uint64) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: cannot open: %w", path, err)
	}
	defer in.Close()
	var computed bytes.Buffer
	var stats cases.ServerStats
	err = c.Serve(in, &computed, &stats)
	if err := atMessage(path, stats.Requests, err); err != nil {
		return err
	}
	var answers []uint64
	if err := c.ReadResponses(&computed, &answers); err != nil {
		err = fmt.Errorf("the server's own response does not read back: %w", err)
		return atMessage(path, uint64(len(answers)), err)
	}
	return expectAnswers(path, "the server's", answers, expectations)
}

// checkResponses is the client side: it decodes the responses, whose answers must be the
// expectations.
func checkResponses(c cases.Cell, path string, expectations []uint64) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: cannot open: %w", path, err)
	}
	defer in.Close()
	var answers []uint64
	err = c.ReadResponses(in, &answers)
	if err := atMessage(path, uint64(len(answers)), err); err != nil {
		return err
	}
	return expectAnswers(path, "the response's", answers, expectations)
}

// writeFile creates path and runs write on it; a failed write, sync or close fails.
func writeFile(path string, write func(io.Writer) error) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s: cannot open: %w", path, err)
	}
	err = write(out)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: close failed: %w", path, cerr)
	}
	return err
}

// Write writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc case,
// library and compression this driver supports, creating DIR if needed; it reports each
// file as it is written.
func Write(dir string, report func(File)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create directory: %w", dir, err)
	}
	for _, kase := range rpc.Cases {
		for _, lib := range rpc.Libs {
			for _, compression := range lib.Compressions {
				c := cell(kase, lib.Name, compression)
				if c == nil {
					continue
				}
				stem := kase + "." + lib.Name + "." + compression
				requests := filepath.Join(dir, stem+requestsExt)
				responses := filepath.Join(dir, stem+responsesExt)

				var written int
				err := writeFile(requests, func(w io.Writer) error {
					g := rng.New()
					e, err := c.WriteRequests(&g, Messages, w)
					written = len(e)
					return err
				})
				if err != nil {
					return fmt.Errorf("%s: %w", requests, err)
				}
				size, err := fileSize(requests)
				if err != nil {
					return err
				}
				report(File{Name: stem + requestsExt, Messages: uint64(written), Bytes: size})

				var stats cases.ServerStats
				in, err := os.Open(requests)
				if err != nil {
					return fmt.Errorf("%s: cannot open: %w", requests, err)
				}
				err = writeFile(responses, func(w io.Writer) error { return c.Serve(in, w, &stats) })
				in.Close()
				if err := atMessage(requests, stats.Requests, err); err != nil {
					return err
				}
				if stats.Requests != Messages {
					return fmt.Errorf("%s: the server answered %d requests, expected %d",
						requests, stats.Requests, Messages)
				}
				if size, err = fileSize(responses); err != nil {
					return err
				}
				report(File{Name: stem + responsesExt, Messages: stats.Requests, Bytes: size})
			}
		}
	}
	return nil
}

// Check checks every DIR/<case>.<lib>.<compression>.requests file and its .responses file
// (in name order), reporting each file checked or skipped (unsupported case, library or
// compression). It fails naming the file and the message at the first corrupt message,
// wrong answer or wrong message count, or if no file could be checked.
func Check(dir string, report func(File)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s: cannot read directory: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), requestsExt) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)

	checked := 0
	for _, name := range names {
		stem := strings.TrimSuffix(name, requestsExt)
		responsesName := stem + responsesExt
		requests, responses := filepath.Join(dir, name), filepath.Join(dir, responsesName)
		var c cases.Cell
		if parts := strings.Split(stem, "."); len(parts) == 3 {
			c = cell(parts[0], parts[1], parts[2])
		}
		if c == nil {
			report(File{Name: name, Skipped: true})
			if _, err := os.Stat(responses); err == nil {
				report(File{Name: responsesName, Skipped: true})
			}
			continue
		}
		expectations, err := freshExpectations(c)
		if err != nil {
			return err
		}
		if err := checkRequests(c, requests, expectations); err != nil {
			return err
		}
		size, err := fileSize(requests)
		if err != nil {
			return err
		}
		report(File{Name: name, Messages: uint64(len(expectations)), Bytes: size})
		if err := checkResponses(c, responses, expectations); err != nil {
			return err
		}
		if size, err = fileSize(responses); err != nil {
			return err
		}
		report(File{Name: responsesName, Messages: uint64(len(expectations)), Bytes: size})
		checked += 2
	}
	if checked == 0 {
		return fmt.Errorf("%s: no golden files that this driver supports "+
			"(<case>.<lib>.<compression>.requests and .responses)", dir)
	}
	return nil
}
