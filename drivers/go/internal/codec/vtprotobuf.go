// vtprotobuf: github.com/planetscale/vtprotobuf's generated methods on the protobuf
// library's messages (protobuf.go: the same populate). serialize: reused
// MarshalToSizedBufferVT into the kept buffer, grown to SizeVT; fresh MarshalVT.
// deserialize: UnmarshalVT into new messages (strings copied: owned), or
// UnmarshalVTUnsafe (strings borrowed: views of the input); both parse the whole input
// (validated).
package codec

import (
	"google.golang.org/protobuf/proto"
)

// vtMessage is what vtprotobuf generates for a message (features marshal, unmarshal,
// unmarshal_unsafe, size).
type vtMessage interface {
	proto.Message
	SizeVT() int
	MarshalVT() ([]byte, error)
	MarshalToSizedBufferVT([]byte) (int, error)
	UnmarshalVT([]byte) error
	UnmarshalVTUnsafe([]byte) error
}

type vtprotobufLib struct {
	pbForm
	borrowed bool
	out      []byte
}

func newVtprotobuf(v Variant) Impl {
	return &vtprotobufLib{pbForm: pbForm{batch: v.Batch, fresh: v.Fresh}, borrowed: v.Borrowed}
}

func (p *vtprotobufLib) Serialize() ([]byte, error) {
	m := p.message().(vtMessage)
	if p.fresh {
		return m.MarshalVT()
	}
	size := m.SizeVT()
	if cap(p.out) < size {
		p.out = make([]byte, size)
	}
	p.out = p.out[:size]
	n, err := m.MarshalToSizedBufferVT(p.out)
	return p.out[size-n:], err
}

func (p *vtprotobufLib) Deserialize(in []byte) (uint64, error) {
	m := p.newMessage().(vtMessage)
	unmarshal := m.UnmarshalVT
	if p.borrowed {
		unmarshal = m.UnmarshalVTUnsafe
	}
	if err := unmarshal(in); err != nil {
		return 0, err
	}
	p.decoded = m
	return pbFold(m), nil
}
