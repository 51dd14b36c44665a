// msgpack: github.com/vmihailenco/msgpack/v5 on the plain structs (their msgpack tags),
// encoded as maps (its default for structs) with integers in their shortest form
// (UseCompactInts; by default it writes each Go type's full width), as Python's msgpack
// does. buffer reused: a kept Encoder into a kept bytes.Buffer; fresh: a new Encoder and
// buffer (what Marshal does, with the compact option). Unmarshal into new structs copies
// the strings (owned) and checks the input as it decodes (validated).
package codec

import (
	"bytes"

	"github.com/vmihailenco/msgpack/v5"
)

type msgpackLib struct {
	plain
	out bytes.Buffer
	enc *msgpack.Encoder
}

func newMsgpackEncoder(out *bytes.Buffer) *msgpack.Encoder {
	enc := msgpack.NewEncoder(out)
	enc.UseCompactInts(true)
	return enc
}

func newMsgpack(v Variant) Impl {
	m := &msgpackLib{plain: plain{batch: v.Batch, fresh: v.Fresh}}
	m.enc = newMsgpackEncoder(&m.out)
	return m
}

func (m *msgpackLib) Serialize() ([]byte, error) {
	if m.fresh {
		var out bytes.Buffer
		err := newMsgpackEncoder(&out).Encode(m.value())
		return out.Bytes(), err
	}
	m.out.Reset()
	err := m.enc.Encode(m.value())
	return m.out.Bytes(), err
}

func (m *msgpackLib) Deserialize(in []byte) (uint64, error) {
	return m.deserialize(in, msgpack.Unmarshal)
}
