// encoding-json: the standard library's encoding/json on the plain structs (their json
// tags). buffer reused: a kept json.Encoder writing into a kept bytes.Buffer, reset for
// every iteration (Marshal has no way to write into a caller's buffer, and always
// allocates its result); fresh: json.Marshal. The Encoder ends every value with a
// newline, which is no part of the encoding: Serialize returns the bytes before it.
// Unmarshal into new structs copies every string (owned) and checks the whole input
// (validated).
package codec

import (
	"bytes"
	"encoding/json"
	"io"
)

// jsonAPI is a JSON library with encoding/json's API.
type jsonAPI struct {
	marshal    func(any) ([]byte, error)
	newEncoder func(io.Writer) func(any) error
	unmarshal  func([]byte, any) error
}

// jsonLib is the plain structs through a jsonAPI.
type jsonLib struct {
	plain
	api    *jsonAPI
	out    bytes.Buffer
	encode func(any) error // the kept Encoder's, into out
}

func newJSONLib(api *jsonAPI, v Variant) *jsonLib {
	j := &jsonLib{plain: plain{batch: v.Batch, fresh: v.Fresh}, api: api}
	j.encode = api.newEncoder(&j.out)
	return j
}

func (j *jsonLib) Serialize() ([]byte, error) {
	if j.fresh {
		return j.api.marshal(j.value())
	}
	j.out.Reset()
	if err := j.encode(j.value()); err != nil {
		return nil, err
	}
	b := j.out.Bytes()
	return b[:len(b)-1], nil // without the Encoder's newline
}

func (j *jsonLib) Deserialize(in []byte) (uint64, error) { return j.deserialize(in, j.api.unmarshal) }

var encodingJSON = jsonAPI{
	marshal:    json.Marshal,
	newEncoder: func(w io.Writer) func(any) error { return json.NewEncoder(w).Encode },
	unmarshal:  json.Unmarshal,
}

func newEncodingJSON(v Variant) Impl { return newJSONLib(&encodingJSON, v) }
