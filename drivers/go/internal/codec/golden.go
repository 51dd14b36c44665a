// The codec part of `golden write DIR` and `golden check DIR` (docs/protocol.md): the
// files <case>.<format>, each the encoding of a case's message by this driver's first
// library of the format (its default cell). check decodes every such file whose format
// it knows with every library of the format, compares the records with its own, and
// says whether the bytes equal its own encoding.
package codec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/core"
)

// defaultVariant is a library's default cell on a case.
func defaultVariant(l *Lib, kase string) Variant {
	return Variant{Batch: records.IsBatch(kase), Fresh: l.Buffers[0] == fresh, Borrowed: l.Strings[0] == borrowed,
		Validation: l.Validations[0]}
}

// formats are the formats of the libraries, in the order of their first library.
func formats() []string {
	var out []string
	for _, l := range Libs {
		if !slices.Contains(out, l.Format) {
			out = append(out, l.Format)
		}
	}
	return out
}

// encode is the encoding of a case by the first library of a format.
func encode(kase, format string) ([]byte, error) {
	for i := range Libs {
		if l := &Libs[i]; l.Format == format {
			c, err := newCell(l.New(defaultVariant(l, kase)), records.Of(kase))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l.Name, err)
			}
			return c.encoding, nil
		}
	}
	return nil, fmt.Errorf("no library writes %s", format)
}

func goldenWrite(dir string, report func(core.GoldenFile)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create directory: %w", dir, err)
	}
	for _, kase := range records.Golden {
		for _, format := range formats() {
			name := kase + "." + format
			b, err := encode(kase, format)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			report(core.GoldenFile{Name: name, Records: uint64(len(records.Of(kase))), Bytes: uint64(len(b))})
		}
	}
	return nil
}

// decodeGolden decodes b with l and compares it with the case's records; a library
// without a verifier that panics on a bad file fails like the others.
func decodeGolden(l *Lib, kase string, b []byte, want []records.Log) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt input: %v", p)
		}
	}()
	c := &cell{impl: l.New(defaultVariant(l, kase)), recs: want, fold: records.Fold(want)}
	return c.readsBack(b)
}

func goldenCheck(dir string, report func(core.GoldenFile)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s: cannot read directory: %w", dir, err)
	}
	for _, e := range entries { // in name order
		kase, format, ok := strings.Cut(e.Name(), ".")
		if !ok || !slices.Contains(records.Golden, kase) || strings.Contains(format, ".") {
			continue // not a codec file
		}
		var libs []string
		for _, l := range Libs {
			if l.Format == format {
				libs = append(libs, l.Name)
			}
		}
		if libs == nil {
			report(core.GoldenFile{Name: e.Name(), Skipped: true})
			continue
		}
		path := filepath.Join(dir, e.Name())
		if info, err := e.Info(); err == nil && info.Size() > core.MaxMessageBytes {
			return core.TooLong(path, uint64(info.Size())) // before reading it into memory
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		want := records.Of(kase)
		for _, name := range libs {
			if err := decodeGolden(findLib(name), kase, b, want); err != nil {
				return fmt.Errorf("%s: lib %s: %w", path, name, err)
			}
		}
		own, err := encode(kase, format)
		if err != nil {
			return err
		}
		report(core.GoldenFile{Name: e.Name(), Libs: libs, Records: uint64(len(want)), Bytes: uint64(len(b)),
			SameBytes: bytes.Equal(own, b)})
	}
	return nil
}
