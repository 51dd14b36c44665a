package codec

import (
	"unsafe"

	"wirebench/drivers/go/internal/codec/records"
)

// plain is the native form of the libraries that serialize the plain structs (null,
// the JSON and MessagePack libraries): the record of case log, or the batch of case
// logs. Populate copies the records into it: with buffer reused into the kept slice,
// with fresh into a new one (Go strings are immutable, so a record's copy shares its
// strings, as any Go program's copy would).
type plain struct {
	batch, fresh bool
	one          records.Log
	all          records.Logs
	// decoded is the last deserialized form, as records.
	decoded []records.Log
}

func (p *plain) Populate(recs []records.Log) error {
	if !p.batch {
		p.one = recs[0]
		return nil
	}
	if p.fresh {
		p.all.Logs = make([]records.Log, 0, len(recs))
	}
	p.all.Logs = append(p.all.Logs[:0], recs...)
	return nil
}

// value is the native form, for the libraries that take any value.
func (p *plain) value() any {
	if p.batch {
		return &p.all
	}
	return &p.one
}

// populated is the native form's records.
func (p *plain) populated() []records.Log {
	if p.batch {
		return p.all.Logs
	}
	return []records.Log{p.one}
}

func (p *plain) Populated() ([]records.Log, error)    { return p.populated(), nil }
func (p *plain) Deserialized() ([]records.Log, error) { return p.decoded, nil }

// deserialize decodes in with unmarshal into a new record or batch, keeps it as decoded,
// and returns its fold.
func (p *plain) deserialize(in []byte, unmarshal func([]byte, any) error) (uint64, error) {
	if p.batch {
		var v records.Logs
		if err := unmarshal(in, &v); err != nil {
			return 0, err
		}
		p.decoded = v.Logs
		return records.Fold(v.Logs), nil
	}
	v := new(records.Log)
	if err := unmarshal(in, v); err != nil {
		return 0, err
	}
	p.decoded = unsafe.Slice(v, 1) // the record as a slice, without a second allocation
	return v.Fold(), nil
}
