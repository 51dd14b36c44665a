// `golden write DIR` and `golden check DIR` (docs/protocol.md), as in the C++
// (src/golden.cpp) and Rust (src/golden.rs) drivers: the pipe client and server of each
// cell (Impl.Send, Impl.Receive and the serve loop), run against files instead of pipes.
// write runs the client's writing side into DIR/X.requests (a fresh generator, reuse
// builders, so the bytes are deterministic: single-segment capnp messages) and the server
// on X.requests into X.responses. check runs the server on X.requests (whoever wrote it)
// and the client's reading side on X.responses, and compares every answer with the
// expectation of the same request from a fresh generator.
package rpc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/rng"
)

// goldenMessages is the number of requests (and so responses) per golden file: the first
// ones from a fresh generator.
const goldenMessages = 5

const (
	requestsExt  = ".requests"
	responsesExt = ".responses"
)

func fileSize(path string) (uint64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return uint64(st.Size()), nil
}

// goldenImpl is the Impl whose wire format a golden file of (case, lib, compression) is
// in, or nil if this driver does not support it. Builders are the reuse variant.
func goldenImpl(kase, lib, compression string) Impl {
	if !slices.Contains(Cases, kase) {
		return nil
	}
	l := findLib(lib)
	if l == nil || !slices.Contains(l.Compressions, compression) {
		return nil
	}
	return l.New(kase, compression, true)
}

// writeRequests is the client's writing side alone: n requests from a fresh generator
// into out; it returns each request's expectation.
func writeRequests(impl Impl, n uint64, out io.Writer) ([]uint64, error) {
	c := newConn(eof{}, out)
	g := rng.New()
	var expectations []uint64
	for ; n > 0; n-- {
		expected, err := impl.Send(&g, c)
		if err != nil {
			return nil, err
		}
		expectations = append(expectations, expected)
	}
	return expectations, c.flush()
}

// readAnswers is the client's reading side alone: it reads responses until a clean end
// of file, appending each one's answer to answers as it goes.
func readAnswers(impl Impl, in io.Reader, answers *[]uint64) error {
	c := newConn(in, io.Discard)
	for {
		answer, err := impl.Receive(c)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		*answers = append(*answers, answer)
	}
}

// eof is the input of a side that only writes.
type eof struct{}

func (eof) Read([]byte) (int, error) { return 0, io.EOF }

// atMessage turns a failure into one naming the file and the message index.
func atMessage(path string, index uint64, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: message %d: %w", path, index, err)
}

// freshExpectations are the expectations of the first goldenMessages requests of a fresh
// generator.
func freshExpectations(impl Impl) ([]uint64, error) {
	return writeRequests(impl, goldenMessages, io.Discard)
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
func checkRequests(impl Impl, path string, expectations []uint64) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: cannot open: %w", path, err)
	}
	defer in.Close()
	var computed bytes.Buffer
	requests, err := serve(impl, newConn(in, &computed))
	if err := atMessage(path, requests, err); err != nil {
		return err
	}
	var answers []uint64
	if err := readAnswers(impl, &computed, &answers); err != nil {
		err = fmt.Errorf("the server's own response does not read back: %w", err)
		return atMessage(path, uint64(len(answers)), err)
	}
	return expectAnswers(path, "the server's", answers, expectations)
}

// checkResponses is the client side: it decodes the responses, whose answers must be the
// expectations.
func checkResponses(impl Impl, path string, expectations []uint64) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: cannot open: %w", path, err)
	}
	defer in.Close()
	var answers []uint64
	err = readAnswers(impl, in, &answers)
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

// goldenWrite writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc
// case, library and compression this driver supports, creating DIR if needed; it reports
// each file as it is written.
func goldenWrite(dir string, report func(core.GoldenFile)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create directory: %w", dir, err)
	}
	for _, kase := range Cases {
		for _, lib := range Libs {
			for _, compression := range lib.Compressions {
				impl := goldenImpl(kase, lib.Name, compression)
				if impl == nil {
					continue
				}
				stem := kase + "." + lib.Name + "." + compression
				requests := filepath.Join(dir, stem+requestsExt)
				responses := filepath.Join(dir, stem+responsesExt)

				var written int
				err := writeFile(requests, func(w io.Writer) error {
					e, err := writeRequests(impl, goldenMessages, w)
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
				report(core.GoldenFile{Name: stem + requestsExt, Messages: uint64(written), Bytes: size})

				var answered uint64
				in, err := os.Open(requests)
				if err != nil {
					return fmt.Errorf("%s: cannot open: %w", requests, err)
				}
				err = writeFile(responses, func(w io.Writer) error {
					var err error
					answered, err = serve(impl, newConn(in, w))
					return err
				})
				in.Close()
				if err := atMessage(requests, answered, err); err != nil {
					return err
				}
				if answered != goldenMessages {
					return fmt.Errorf("%s: the server answered %d requests, expected %d",
						requests, answered, goldenMessages)
				}
				if size, err = fileSize(responses); err != nil {
					return err
				}
				report(core.GoldenFile{Name: stem + responsesExt, Messages: answered, Bytes: size})
			}
		}
	}
	return nil
}

// goldenCheck checks every DIR/<case>.<lib>.<compression>.requests file and its
// .responses file (in name order), reporting each file checked or skipped (unsupported
// case, library or compression). It fails naming the file and the message at the first
// corrupt message, wrong answer or wrong message count.
func goldenCheck(dir string, report func(core.GoldenFile)) error {
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

	for _, name := range names {
		stem := strings.TrimSuffix(name, requestsExt)
		responsesName := stem + responsesExt
		requests, responses := filepath.Join(dir, name), filepath.Join(dir, responsesName)
		var impl Impl
		if parts := strings.Split(stem, "."); len(parts) == 3 {
			impl = goldenImpl(parts[0], parts[1], parts[2])
		}
		if impl == nil {
			report(core.GoldenFile{Name: name, Skipped: true})
			if _, err := os.Stat(responses); err == nil {
				report(core.GoldenFile{Name: responsesName, Skipped: true})
			}
			continue
		}
		expectations, err := freshExpectations(impl)
		if err != nil {
			return err
		}
		if err := checkRequests(impl, requests, expectations); err != nil {
			return err
		}
		size, err := fileSize(requests)
		if err != nil {
			return err
		}
		report(core.GoldenFile{Name: name, Messages: uint64(len(expectations)), Bytes: size})
		if err := checkResponses(impl, responses, expectations); err != nil {
			return err
		}
		if size, err = fileSize(responses); err != nil {
			return err
		}
		report(core.GoldenFile{Name: responsesName, Messages: uint64(len(expectations)), Bytes: size})
	}
	return nil
}
