// msgp: github.com/tinylib/msgp, code generated for the plain structs (their msg tags;
// records/types_msgp.go, by tools/gencode): maps, integers in their shortest form except
// that msgp writes a non-negative int64 (timestamp) as a signed int, where Python writes
// an unsigned one of the same width. buffer reused: MarshalMsg appends to the kept
// buffer from its start; fresh: MarshalMsg(nil). UnmarshalMsg into new structs copies the
// strings (owned) and checks the input as it decodes (validated).
package codec

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

type msgpLib struct {
	plain
	out []byte
}

func newMsgp(v Variant) Impl { return &msgpLib{plain: plain{batch: v.Batch, fresh: v.Fresh}} }

func (m *msgpLib) Serialize() ([]byte, error) {
	var out []byte
	if !m.fresh {
		out = m.out[:0]
	}
	out, err := m.value().(msgp.Marshaler).MarshalMsg(out)
	if !m.fresh {
		m.out = out
	}
	return out, err
}

func unmarshalMsgp(in []byte, v any) error {
	rest, err := v.(msgp.Unmarshaler).UnmarshalMsg(in)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("msgp: %d bytes after the message", len(rest))
	}
	return err
}

func (m *msgpLib) Deserialize(in []byte) (uint64, error) { return m.deserialize(in, unmarshalMsgp) }
