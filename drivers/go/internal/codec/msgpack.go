// msgpack: github.com/vmihailenco/msgpack/v5 on the plain structs (their msgpack tags),
// encoded as maps (its default for structs) with integers in their shortest form
// (UseCompactInts; by default it writes each Go type's full width), as Python's msgpack
// does. buffer reused: a kept Encoder into a kept bytes.Buffer; fresh: a new Encoder and
// buffer (what Marshal does, with the compact option). Unmarshal into new structs copies
// the strings (owned) and checks the input as it decodes (validated).
package codec

import (
	"bytes"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"wirebench/drivers/go/internal/codec/records"
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
	return m.deserialize(in, unmarshalMsgpack)
}

// msgpackLogs is a batch's records with a decoder of their own. msgpack v5.4.1 sizes a
// decoded slice by the count its array header claims, however large: its allocation limit
// is never applied (decode_slice.go tests the flag with `!= 1`), so a few bytes could ask
// for ~900 GB (found by fuzzing, codec_msgpack). This refuses a count over records.MaxBatch
// first, then decodes each record as the library would.
type msgpackLogs []records.Log

func (l *msgpackLogs) DecodeMsgpack(d *msgpack.Decoder) error {
	n, err := d.DecodeArrayLen()
	if err != nil || n < 0 { // n is -1 for nil
		*l = nil
		return err
	}
	if n > records.MaxBatch {
		return fmt.Errorf("msgpack: a batch of %d records, over the limit of %d", n, records.MaxBatch)
	}
	recs := make([]records.Log, n)
	for i := range recs {
		if err := d.Decode(&recs[i]); err != nil {
			return err
		}
	}
	*l = recs
	return nil
}

// msgpackBatch is records.Logs with msgpackLogs for its list.
type msgpackBatch struct {
	Logs msgpackLogs `msgpack:"logs"`
}

// unmarshalMsgpack is msgpack.Unmarshal, a batch through msgpackBatch.
func unmarshalMsgpack(in []byte, v any) error {
	if logs, ok := v.(*records.Logs); ok {
		var b msgpackBatch
		err := decodeMsgpack(in, &b)
		logs.Logs = b.Logs
		return err
	}
	return decodeMsgpack(in, v)
}

// decodeMsgpack is msgpack.Unmarshal (its pooled Decoder, the same options), except that
// a Decoder that failed is dropped, not pooled. msgpack v5.4.1 reads a string or binary
// value (skipped ones too) into the Decoder's kept buffer, growing it 1 MiB past its
// capacity while the claimed length is larger, and keeps the grown buffer when the
// input ends first: every failed decode with a lying length prefix grew a pooled buffer
// by a quarter, up to the 4 GiB a length can claim. The fuzzing worker, which decodes
// thousands of such inputs, grew to 14 GB and copied gigabytes per decode until one took
// over its 10 s limit (codec_msgpack's "hung or terminated unexpectedly"). A decode
// that succeeds read every byte its buffer holds, so the pooled buffer stays within the
// inputs' size.
func decodeMsgpack(in []byte, v any) error {
	d := msgpack.GetDecoder()
	d.UsePreallocateValues(true)
	d.Reset(bytes.NewReader(in))
	if err := d.Decode(v); err != nil {
		return err
	}
	msgpack.PutDecoder(d)
	return nil
}
