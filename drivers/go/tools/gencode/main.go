// Command gencode generates the Go code of the shared schemas (../../schemas) into
// internal/gen, and tinylib/msgp's methods of the codec suite's plain structs; `go
// generate ./...` runs it (see the directive below). Nothing it writes is committed.
//
// The schemas are shared with the other drivers and stay untouched: capnpc-go needs
// $Go.package and $Go.import annotations, so each .capnp file is copied into a temporary
// directory with them added after its file id line, and compiled from there (log.capnp
// and logs.capnp, which imports it, into one package). The .proto files have no
// go_package; the import paths are given with --go_opt=M... instead. flatc writes the
// .fbs files' Go code into the package --go-namespace names.
//
// The Go generators are pinned by the tool directives of go.mod (capnpc-go v3.1.0-alpha.2,
// protoc-gen-go v1.36.x, protoc-gen-go-vtproto, msgp) and found with `go tool -n`; the
// compilers are Debian's capnp, protoc and flatc (2.0.8), as for the other drivers.
package main

//go:generate go run .

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
