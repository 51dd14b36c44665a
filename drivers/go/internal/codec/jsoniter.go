// json-iterator: github.com/json-iterator/go in its ConfigCompatibleWithStandardLibrary,
// a drop-in of encoding/json used the same way (encodingjson.go): a kept Encoder into a
// kept buffer (reused) or Marshal (fresh); Unmarshal into new structs, strings owned,
// validated (the whole input, skipped values too). Not ConfigFastest: it writes floats
// with 6 digits, leaves <, > and & unescaped, and reads object keys without unescaping
// them, so a key written with an escape by another library would not be its field; the
// compatible configuration writes encoding/json's bytes and reads what it reads.
package codec

import (
	"io"

	jsoniter "github.com/json-iterator/go"
)

var jsonIterator = jsonAPI{
	marshal: jsoniter.ConfigCompatibleWithStandardLibrary.Marshal,
	newEncoder: func(w io.Writer) func(any) error {
		return jsoniter.ConfigCompatibleWithStandardLibrary.NewEncoder(w).Encode
	},
	unmarshal: jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal,
}

func newJSONIterator(v Variant) Impl { return newJSONLib(&jsonIterator, v) }
