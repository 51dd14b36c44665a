// Command gencode generates the Go code of the shared schemas (../../schemas) into
// internal/gen, and tinylib/msgp's methods of the codec suite's plain structs; `go
// generate ./...` runs it (see the directive below). Nothing it writes is committed.
//
// The schemas are shared with the other drivers and stay untouched: capnpc-go needs
// $Go.package and $Go.import annotations, so each .capnp file is copied into a temporary
// directory with them added after its file id line, and compiled from there (log.capnp
// and logs.capnp, which imports it, into one package). The .proto files have no
// go_package; the import paths are given with --go_opt=M... instead. flatc writes the
// .fbs files' Go code into the package --go-namespace names. Thrift's compiler writes
// schemas/log.thrift (both codec cases) into package wbthrift (its `namespace go`), and
// SBE's own generator (scripts/sbe-generate.sh Golang, sbe-all 1.30.0) writes
// schemas/log.sbe.xml into package wirebench_codec_sbe (its schema's package); neither
// writes gofmt's layout, so both outputs are formatted after generation. Avro has no Go
// code to generate here (hamba/avro reads tagged structs): the .avsc files are copied
// into package codecavro, which embeds them, since go:embed cannot reach ../../schemas.
//
// The Go generators are pinned by the tool directives of go.mod (capnpc-go v3.1.0-alpha.2,
// protoc-gen-go v1.36.x, protoc-gen-go-vtproto, msgp) and found with `go tool -n`; the
// compilers are Debian's capnp, protoc, flatc (2.0.8) and thrift (0.17.0, whose runtime
// github.com/apache/thrift v0.17.0 go.mod pins), as for the other drivers.
package main

//go:generate go run .

import (
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// rpcCases are the rpc suite's schemas, one package each.
var rpcCases = []string{"carsales", "catrank", "eval"}

// codecSchemas are the codec suite's schemas: logs imports log, so both go into one
// package per IDL (internal/gen/{capnp,pb,fb}/codec).
var codecSchemas = []string{"log", "logs"}

// msgpSource is the file of the codec suite's plain structs; msgp writes their
// MarshalMsg and UnmarshalMsg methods beside it (msgpOutput, ignored by git).
const (
	msgpSource = "internal/codec/records/types.go"
	msgpOutput = "internal/codec/records/types_msgp.go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "gencode: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	modPath, err := output(root, "go", "list", "-m", "-f", "{{.Path}}")
	if err != nil {
		return err
	}
	schemas := filepath.Join(root, "..", "..", "schemas")
	gen := filepath.Join(root, "internal", "gen")
	if err := os.RemoveAll(gen); err != nil {
		return err
	}
	if err := genCapnp(root, modPath, schemas, gen); err != nil {
		return err
	}
	if err := genProto(root, modPath, schemas); err != nil {
		return err
	}
	if err := genCodecProto(root, modPath, schemas); err != nil {
		return err
	}
	if err := genFlatbuffers(schemas, gen); err != nil {
		return err
	}
	if err := genThrift(schemas, gen); err != nil {
		return err
	}
	if err := genSBE(schemas, gen); err != nil {
		return err
	}
	if err := genAvro(schemas, gen); err != nil {
		return err
	}
	return genMsgp(root)
}

// moduleRoot walks up from the working directory to the go.mod of this module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func output(dir string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func runIn(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// capnpUnit is one Go package of capnp code: its schemas and its package name.
type capnpUnit struct {
	dir, pkg string
	schemas  []string
}

func capnpUnits() []capnpUnit {
	var units []capnpUnit
	for _, c := range rpcCases {
		units = append(units, capnpUnit{c, c, []string{c}})
	}
	return append(units, capnpUnit{"codec", "codeccapnp", codecSchemas})
}

func genCapnp(root, modPath, schemas, gen string) error {
	plugin, err := output(root, "go", "tool", "-n", "capnpc-go")
	if err != nil {
		return err
	}
	capnpDir, err := output(root, "go", "list", "-m", "-f", "{{.Dir}}", "capnproto.org/go/capnp/v3")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "wirebench-go-capnp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, u := range capnpUnits() {
		var files []string
		for _, c := range u.schemas {
			src, err := os.ReadFile(filepath.Join(schemas, c+".capnp"))
			if err != nil {
				return err
			}
			annotated, err := annotate(src, u.pkg, modPath+"/internal/gen/capnp/"+u.dir)
			if err != nil {
				return fmt.Errorf("%s.capnp: %w", c, err)
			}
			if err := os.WriteFile(filepath.Join(tmp, c+".capnp"), annotated, 0o644); err != nil {
				return err
			}
			files = append(files, filepath.Join(tmp, c+".capnp"))
		}
		out := filepath.Join(gen, "capnp", u.dir)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		// capnpc-go writes next to the source's path relative to --src-prefix; run it in
		// the output directory with the temp dir as the prefix.
		args := []string{"compile", "-I" + filepath.Join(capnpDir, "std"), "-I" + tmp,
			"--src-prefix=" + tmp, "-o" + plugin}
		if err := runIn(out, "capnp", append(args, files...)...); err != nil {
			return err
		}
	}
	return nil
}

// annotate adds the Go annotations after the file id line (`@0x...;`).
func annotate(src []byte, pkg, importPath string) ([]byte, error) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, l := range lines {
		t := strings.TrimSpace(string(l))
		if strings.HasPrefix(t, "@0x") && strings.HasSuffix(t, ";") {
			extra := fmt.Sprintf("using Go = import \"/go.capnp\";\n$Go.package(%q);\n$Go.import(%q);\n",
				pkg, importPath)
			out := bytes.Join(lines[:i+1], nil)
			out = append(out, extra...)
			return append(out, bytes.Join(lines[i+1:], nil)...), nil
		}
	}
	return nil, fmt.Errorf("no file id line")
}

func genProto(root, modPath, schemas string) error {
	plugin, err := output(root, "go", "tool", "-n", "protoc-gen-go")
	if err != nil {
		return err
	}
	args := []string{"--plugin=protoc-gen-go=" + plugin, "-I" + schemas,
		// Output paths follow the import paths below, relative to the module root.
		"--go_out=" + root, "--go_opt=module=" + modPath,
		// The Opaque API: proto2 optional scalars are stored in place with presence bits
		// instead of one heap pointer per field (see internal/rpc/protobuf.go).
		"--go_opt=default_api_level=API_OPAQUE"}
	for _, c := range rpcCases {
		// carsales.proto -> package carsalespb at internal/gen/pb/carsales.
		args = append(args, fmt.Sprintf("--go_opt=M%s.proto=%s/internal/gen/pb/%s;%spb", c, modPath, c, c))
	}
	for _, c := range rpcCases {
		args = append(args, filepath.Join(schemas, c+".proto"))
	}
	return runIn(root, "protoc", args...)
}

// genCodecProto generates the codec schemas with protoc-gen-go's default (open) API, into
// package codecpb: protoc-gen-go-vtproto's methods read and write the fields directly,
// which the Opaque API hides; proto3 scalars have no presence pointers to save anyway.
func genCodecProto(root, modPath, schemas string) error {
	goPlugin, err := output(root, "go", "tool", "-n", "protoc-gen-go")
	if err != nil {
		return err
	}
	vtPlugin, err := output(root, "go", "tool", "-n", "protoc-gen-go-vtproto")
	if err != nil {
		return err
	}
	args := []string{"--plugin=protoc-gen-go=" + goPlugin, "--plugin=protoc-gen-go-vtproto=" + vtPlugin,
		"-I" + schemas, "--go_out=" + root, "--go_opt=module=" + modPath,
		"--go-vtproto_out=" + root, "--go-vtproto_opt=module=" + modPath,
		"--go-vtproto_opt=features=marshal+unmarshal+unmarshal_unsafe+size"}
	for _, c := range codecSchemas {
		m := fmt.Sprintf("M%s.proto=%s/internal/gen/pb/codec;codecpb", c, modPath)
		args = append(args, "--go_opt="+m, "--go-vtproto_opt="+m)
	}
	for _, c := range codecSchemas {
		args = append(args, filepath.Join(schemas, c+".proto"))
	}
	return runIn(root, "protoc", args...)
}

// genFlatbuffers writes the codec schemas' FlatBuffers code into package codecfb.
func genFlatbuffers(schemas, gen string) error {
	args := []string{"--go", "--go-namespace", "codecfb", "-o", filepath.Join(gen, "fb")}
	for _, c := range codecSchemas {
		args = append(args, filepath.Join(schemas, c+".fbs"))
	}
	return runIn(gen, "flatc", args...)
}

// genMsgp writes msgp's MarshalMsg, UnmarshalMsg and Msgsize methods of the plain structs
// (no streaming methods, no tests).
func genMsgp(root string) error {
	return runIn(root, "go", "tool", "msgp", "-file", msgpSource, "-o", msgpOutput,
		"-io=false", "-tests=false")
}

// genThrift writes the codec schemas' Thrift code (log.thrift holds both cases) into
// internal/gen/thrift/wbthrift.
func genThrift(schemas, gen string) error {
	out := filepath.Join(gen, "thrift")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := runIn(gen, "thrift", "--gen", "go", "-out", out, filepath.Join(schemas, "log.thrift")); err != nil {
		return err
	}
	return gofmtTree(out)
}

// genSBE writes the codec schemas' SBE code (log.sbe.xml holds both messages) into
// internal/gen/sbe/wirebench_codec_sbe, with SBE's own generator as every driver runs it.
func genSBE(schemas, gen string) error {
	out := filepath.Join(gen, "sbe")
	script := filepath.Join(schemas, "..", "scripts", "sbe-generate.sh")
	if err := runIn(gen, script, "Golang", out); err != nil {
		return err
	}
	// The generator's version, which the script pins, for `info`: the generated code is
	// the library (it has no Go module to report).
	src, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`(?m)^SBE_VERSION=([0-9.]+)`).FindSubmatch(src)
	if m == nil {
		return fmt.Errorf("%s: no SBE_VERSION=", script)
	}
	version := fmt.Sprintf("// Code generated by tools/gencode. DO NOT EDIT.\n\npackage wirebench_codec_sbe\n\n"+
		"// GeneratorVersion is the version of sbe-all that generated this package.\n"+
		"const GeneratorVersion = %q\n", m[1])
	if err := os.WriteFile(filepath.Join(out, "wirebench_codec_sbe", "GeneratorVersion.go"), []byte(version),
		0o644); err != nil {
		return err
	}
	return gofmtTree(out)
}

// gofmtTree formats every .go file under dir in place, as gofmt would.
func gofmtTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		formatted, err := format.Source(src)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return os.WriteFile(path, formatted, 0o644)
	})
}

// avroSource is package codecavro: the codec schemas' Avro JSON, embedded.
const avroSource = `// Code generated by tools/gencode. DO NOT EDIT.

// Package codecavro holds schemas/log.avsc and schemas/logs.avsc, copied here to be
// embedded.
package codecavro

import _ "embed"

// Log is schemas/log.avsc.
//
//go:embed log.avsc
var Log string

// Logs is schemas/logs.avsc.
//
//go:embed logs.avsc
var Logs string
`

// genAvro copies the codec schemas' .avsc files into internal/gen/avro with the Go file
// that embeds them.
func genAvro(schemas, gen string) error {
	out := filepath.Join(gen, "avro")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, c := range codecSchemas {
		src, err := os.ReadFile(filepath.Join(schemas, c+".avsc"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, c+".avsc"), src, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(out, "schemas.go"), []byte(avroSource), 0o644)
}
