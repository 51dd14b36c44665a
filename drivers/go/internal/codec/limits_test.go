package codec

import (
	"encoding/binary"
	"strings"
	"testing"

	"wirebench/drivers/go/internal/codec/records"
)

// hamba-avro reads a datum with its own Reader, not Unmarshal (which takes running out of
// input for success): every truncation of the log case is an error.
func TestAvroRefusesATruncatedDatum(t *testing.T) {
	l := findLib("hamba-avro")
	c, err := newCell(l.New(defaultVariant(l, "log")), records.Of("log"))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(c.encoding) {
		if _, err := l.New(defaultVariant(l, "log")).Deserialize(c.encoding[:n]); err == nil {
			t.Errorf("the first %d of %d bytes decode", n, len(c.encoding))
		}
	}
}

// hamba-avro refuses an array block of more than records.MaxBatch items before
// allocating them (by default it allows the largest heap allocation), whether the count
// is written positive or negative (with a byte size).
func TestAvroBatchLimit(t *testing.T) {
	l := findLib("hamba-avro")
	for _, n := range []int64{records.MaxBatch + 1, -(records.MaxBatch + 1), 1 << 40} {
		in := binary.AppendVarint(nil, n) // Avro's long: a zigzag varint
		in = binary.AppendVarint(in, 100)
		_, err := l.New(Variant{Batch: true}).Deserialize(in)
		if err == nil || !strings.Contains(err.Error(), "MaxSliceAllocSize") {
			t.Errorf("a block of %d records: %v", n, err)
		}
	}
}

// thrift refuses a list longer than its input before allocating it: with the library's
// default limit (100 MB) a 9-byte input could claim 100 M records, 800 MB of pointers.
func TestThriftListLimit(t *testing.T) {
	l := findLib("thrift")
	// Logs: field 1, a list (type 15) of structs (12) of 50 M elements, binary protocol.
	in := binary.BigEndian.AppendUint32([]byte{15, 0, 1, 12}, 50_000_000)
	_, err := l.New(Variant{Batch: true}).Deserialize(in)
	if err == nil || !strings.Contains(err.Error(), "size exceeded") {
		t.Errorf("a list of 50 M records in %d bytes: %v", len(in), err)
	}
}

// sbe refuses a group of more records than its bytes can hold (each takes at least 54)
// before the generated Decode allocates the group.
func TestSBEGroupLimit(t *testing.T) {
	l := findLib("sbe")
	c, err := newCell(l.New(defaultVariant(l, "logs")), records.Of("logs")[:2])
	if err != nil {
		t.Fatal(err)
	}
	in := append([]byte(nil), c.encoding...)
	binary.LittleEndian.PutUint16(in[8+2:], 1000) // the group's count, after the 8-byte header
	_, err = l.New(Variant{Batch: true}).Deserialize(in)
	if err == nil || !strings.Contains(err.Error(), "a group of 1000 records") {
		t.Errorf("1000 records in the bytes of 2: %v", err)
	}
}
