// The null library: the hand-written null format of docs/workloads.md (codec:
// encodings), the floor every library is read against. Its native form is the plain
// structs: populate copies the records (reused: into the kept slice), serialize appends
// the format to the output buffer (reused: the kept one, from its start), deserialize
// parses into new plain structs, and access folds straight from the bytes. Every read is
// bounds-checked as it happens (validation lazy). strings borrowed makes the parsed
// strings views of the input (unsafe.String) instead of copies.
package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"wirebench/drivers/go/internal/codec/records"
)

// nullFixed is the size of a record's fixed part: the integers.
const nullFixed = 34

type null struct {
	plain
	borrowed bool
	out      []byte
}

func newNull(v Variant) Impl {
	return &null{plain: plain{batch: v.Batch, fresh: v.Fresh}, borrowed: v.Borrowed}
}

func appendNullStr(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendNullRecord(b []byte, r *records.Log) []byte {
	h, o := &r.HTTP, &r.Origin
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(r.Timestamp))
	b = le.AppendUint32(b, r.ZoneID)
	b = append(b, r.ZonePlan, h.Protocol)
	b = le.AppendUint16(b, h.Status)
	b = le.AppendUint16(b, h.HostStatus)
	b = le.AppendUint16(b, h.UpStatus)
	b = append(b, h.Method)
	b = le.AppendUint16(b, o.Port)
	b = append(b, o.Protocol, r.Country, r.CacheStatus)
	b = le.AppendUint64(b, r.BytesDlv)
	for _, s := range [10]string{h.ContentType, h.UserAgent, h.Referer, h.RequestURI, o.IP, o.Hostname,
		r.ServerIP, r.ServerName, r.RemoteIP, r.RayID} {
		b = appendNullStr(b, s)
	}
	return b
}

func (n *null) Serialize() ([]byte, error) {
	b := n.out[:0]
	if n.fresh {
		b = nil
	}
	recs := n.populated()
	if n.batch {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(recs)))
	}
	for i := range recs {
		b = appendNullRecord(b, &recs[i])
	}
	if !n.fresh {
		n.out = b
	}
	return b, nil
}

var errNullTruncated = errors.New("null: the encoding is truncated")

// nullReader reads the null format; every read checks the bounds first.
type nullReader struct {
	b   []byte
	pos int
}

func (r *nullReader) take(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.pos {
		return nil, errNullTruncated
	}
	r.pos += n
	return r.b[r.pos-n : r.pos], nil
}

func (r *nullReader) bytes() ([]byte, error) {
	size, err := r.take(4)
	if err != nil {
		return nil, err
	}
	return r.take(int(binary.LittleEndian.Uint32(size)))
}

// count is the record count: 1 for case log, else the u32 prefix, which must leave room
// for that many fixed parts.
func (r *nullReader) count(batch bool) (int, error) {
	if !batch {
		return 1, nil
	}
	b, err := r.take(4)
	if err != nil {
		return 0, err
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > (len(r.b)-r.pos)/nullFixed {
		return 0, errNullTruncated
	}
	return n, nil
}

func (r *nullReader) finish() error {
	if r.pos != len(r.b) {
		return fmt.Errorf("null: %d bytes after the last record", len(r.b)-r.pos)
	}
	return nil
}

// record reads one record into out, with each string made by str (a copy or a view).
func (r *nullReader) record(out *records.Log, str func([]byte) string) error {
	f, err := r.take(nullFixed)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	h, o := &out.HTTP, &out.Origin
	out.Timestamp = int64(le.Uint64(f))
	out.ZoneID = le.Uint32(f[8:])
	out.ZonePlan, h.Protocol = f[12], f[13]
	h.Status, h.HostStatus, h.UpStatus = le.Uint16(f[14:]), le.Uint16(f[16:]), le.Uint16(f[18:])
	h.Method = f[20]
	o.Port = le.Uint16(f[21:])
	o.Protocol, out.Country, out.CacheStatus = f[23], f[24], f[25]
	out.BytesDlv = le.Uint64(f[26:])
	for _, s := range [10]*string{&h.ContentType, &h.UserAgent, &h.Referer, &h.RequestURI, &o.IP,
		&o.Hostname, &out.ServerIP, &out.ServerName, &out.RemoteIP, &out.RayID} {
		b, err := r.bytes()
		if err != nil {
			return err
		}
		*s = str(b)
	}
	return nil
}

func ownedString(b []byte) string { return string(b) }

// viewString is b as a string without a copy: valid while the input is untouched.
func viewString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func (n *null) Deserialize(in []byte) (uint64, error) {
	str := ownedString
	if n.borrowed {
		str = viewString
	}
	r := nullReader{b: in}
	count, err := r.count(n.batch)
	if err != nil {
		return 0, err
	}
	recs := make([]records.Log, count)
	for i := range recs {
		if err := r.record(&recs[i], str); err != nil {
			return 0, err
		}
	}
	if err := r.finish(); err != nil {
		return 0, err
	}
	n.decoded = recs
	return records.Fold(recs), nil
}

// Access folds every field as it reads it, building nothing.
func (n *null) Access(in []byte) (uint64, error) {
	r := nullReader{b: in}
	count, err := r.count(n.batch)
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	var sum uint64
	for ; count > 0; count-- {
		f, err := r.take(nullFixed)
		if err != nil {
			return 0, err
		}
		sum += le.Uint64(f) + uint64(le.Uint32(f[8:])) + uint64(f[12]) + uint64(f[13]) +
			uint64(le.Uint16(f[14:])) + uint64(le.Uint16(f[16:])) + uint64(le.Uint16(f[18:])) +
			uint64(f[20]) + uint64(le.Uint16(f[21:])) + uint64(f[23]) + uint64(f[24]) + uint64(f[25]) +
			le.Uint64(f[26:])
		for s := 0; s < 10; s++ {
			b, err := r.bytes()
			if err != nil {
				return 0, err
			}
			sum += records.Str(b)
		}
	}
	return sum, r.finish()
}
