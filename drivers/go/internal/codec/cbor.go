// fxamacker-cbor: github.com/fxamacker/cbor/v2 on the plain structs (their json tags name
// the keys: the library reads the json tag where a field has no cbor tag), in the core
// deterministic encoding (CoreDetEncOptions: definite lengths, shortest integers, map keys
// sorted by their encoded bytes, which sorts the struct fields into the order of
// docs/workloads.md). buffer reused: MarshalToBuffer into a kept bytes.Buffer (the
// library's UserBufferEncMode); fresh: Marshal, a new slice. deserialize: a DecMode's
// Unmarshal into new structs; the library checks the whole input is well-formed before
// it decodes (validated). Strings are owned only: the library copies every text string
// into a new Go string (a []byte field takes only CBOR byte strings, not the text strings
// this format has, and its Unmarshaler and TextUnmarshaler contracts forbid keeping the
// input), so there is no borrowed decoding to offer.
package codec

import (
	"bytes"

	"github.com/fxamacker/cbor/v2"
)

// The library's modes, made once (they are immutable and safe to share).
var cborEnc, cborBufEnc, cborDec = func() (cbor.EncMode, cbor.UserBufferEncMode, cbor.DecMode) {
	opts := cbor.CoreDetEncOptions()
	enc, err := opts.EncMode()
	if err != nil {
		panic(err)
	}
	bufEnc, err := opts.UserBufferEncMode()
	if err != nil {
		panic(err)
	}
	dec, err := cbor.DecOptions{}.DecMode()
	if err != nil {
		panic(err)
	}
	return enc, bufEnc, dec
}()

type cborLib struct {
	plain
	out bytes.Buffer
}

func newCBOR(v Variant) Impl { return &cborLib{plain: plain{batch: v.Batch, fresh: v.Fresh}} }

func (c *cborLib) Serialize() ([]byte, error) {
	if c.fresh {
		return cborEnc.Marshal(c.value())
	}
	c.out.Reset()
	err := cborBufEnc.MarshalToBuffer(c.value(), &c.out)
	return c.out.Bytes(), err
}

func (c *cborLib) Deserialize(in []byte) (uint64, error) {
	return c.deserialize(in, cborDec.Unmarshal)
}
