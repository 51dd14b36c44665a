// go-json: github.com/goccy/go-json, a drop-in replacement of encoding/json, used the
// same way (encodingjson.go): a kept Encoder into a kept buffer (reused) or Marshal
// (fresh); Unmarshal into new structs, strings owned (it parses a private copy of the
// input), validated.
package codec

import (
	"io"

	gojson "github.com/goccy/go-json"
)

var goJSON = jsonAPI{
	marshal:    gojson.Marshal,
	newEncoder: func(w io.Writer) func(any) error { return gojson.NewEncoder(w).Encode },
	unmarshal:  gojson.Unmarshal,
}

func newGoJSON(v Variant) Impl { return newJSONLib(&goJSON, v) }
