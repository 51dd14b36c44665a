// sonic: github.com/bytedance/sonic (JIT and SIMD, amd64 and arm64) on the plain structs.
// buffer reused: encoder.EncodeInto appends to a kept buffer; fresh: Marshal. Both with
// the default options (no HTML escaping, struct fields in order). strings owned: the
// CopyString option; borrowed: sonic's default, which leaves strings without escapes
// pointing into the input. Either way the whole input is parsed (validated).
package codec

import (
	"github.com/bytedance/sonic"
	"github.com/bytedance/sonic/encoder"
)

var (
	sonicOwned    = sonic.Config{CopyString: true}.Froze()
	sonicBorrowed = sonic.ConfigDefault
)

type sonicLib struct {
	plain
	api sonic.API
	out []byte
}

func newSonic(v Variant) Impl {
	s := &sonicLib{plain: plain{batch: v.Batch, fresh: v.Fresh}, api: sonicOwned}
	if v.Borrowed {
		s.api = sonicBorrowed
	}
	return s
}

func (s *sonicLib) Serialize() ([]byte, error) {
	if s.fresh {
		return s.api.Marshal(s.value())
	}
	s.out = s.out[:0]
	err := encoder.EncodeInto(&s.out, s.value(), 0)
	return s.out, err
}

func (s *sonicLib) Deserialize(in []byte) (uint64, error) { return s.deserialize(in, s.api.Unmarshal) }
