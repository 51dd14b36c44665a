// sbe: Simple Binary Encoding, on the Go code SBE's own generator (sbe-all 1.30.0,
// scripts/sbe-generate.sh Golang, run by tools/gencode) writes from schemas/log.sbe.xml:
// the structs Log and Logs (its group of LogsRecords) with their Encode and Decode, and
// MessageHeader. The message is the generated header, then the generated Encode's block,
// group and var data. populate fills the generated structs: buffer reused refills the
// kept ones, their var data appended into the kept byte slices; fresh makes new ones.
// serialize: the generated Encode into a kept bytes.Buffer (reused) or a new one (fresh).
// deserialize: the generated Decode into new structs, which copies every var data field
// (owned) and reads the whole message with every read checked against the input's end
// (validated: a short input is an error), after the header, whose template and schema
// must be the case's.
//
// No access: sbe-all 1.30.0's Go generator writes these struct codecs only, whose Decode
// copies the message out of an io.Reader; it has no flyweight that reads fields in place
// (C++, Java and Rust have one), so Go's SBE is deserialize only, as the generator allows.
//
// Both Encode and Decode run without the generated range check (doRangeCheck false): it
// refuses each integer field's null value (SBE's default for an unsigned field is its
// largest value), and the workload's countries include 255, a uint8's null. The group
// count is checked against the bytes left before Decode allocates the group (each record
// takes at least its 34-byte block and ten 2-byte lengths), since Decode makes a slice of
// the claimed count first (up to 65535 records of 300 bytes from a 12-byte input).
package codec

import (
	"bytes"
	"fmt"

	"wirebench/drivers/go/internal/codec/records"
	sbe "wirebench/drivers/go/internal/gen/sbe/wirebench_codec_sbe"
)

// sbeVersions is the library's version for `info`: the generator's.
var sbeVersions = [][2]string{{"sbe", sbe.GeneratorVersion}}

type sbeLib struct {
	batch, fresh bool
	m            *sbe.SbeGoMarshaller
	one          *sbe.Log
	all          *sbe.Logs
	out          bytes.Buffer
	in           bytes.Reader
	// decoded is the last deserialized message (a *sbe.Log or *sbe.Logs).
	decoded any
}

func newSBE(v Variant) Impl {
	return &sbeLib{batch: v.Batch, fresh: v.Fresh, m: sbe.NewSbeGoMarshaller()}
}

// sbeFill sets m to r: var data appended into m's slices (kept with buffer reused).
func sbeFill(m *sbe.Log, r *records.Log) {
	h, o := &r.HTTP, &r.Origin
	m.Timestamp, m.ZoneId, m.ZonePlan = r.Timestamp, r.ZoneID, r.ZonePlan
	m.HttpProtocol, m.HttpStatus, m.HttpHostStatus, m.HttpUpStatus, m.HttpMethod = h.Protocol, h.Status,
		h.HostStatus, h.UpStatus, h.Method
	m.OriginPort, m.OriginProtocol, m.Country, m.CacheStatus, m.BytesDlv = o.Port, o.Protocol, r.Country,
		r.CacheStatus, r.BytesDlv
	m.HttpContentType = append(m.HttpContentType[:0], h.ContentType...)
	m.HttpUserAgent = append(m.HttpUserAgent[:0], h.UserAgent...)
	m.HttpReferer = append(m.HttpReferer[:0], h.Referer...)
	m.HttpRequestUri = append(m.HttpRequestUri[:0], h.RequestURI...)
	m.OriginIp = append(m.OriginIp[:0], o.IP...)
	m.OriginHostname = append(m.OriginHostname[:0], o.Hostname...)
	m.ServerIp = append(m.ServerIp[:0], r.ServerIP...)
	m.ServerName = append(m.ServerName[:0], r.ServerName...)
	m.RemoteIp = append(m.RemoteIp[:0], r.RemoteIP...)
	m.RayId = append(m.RayId[:0], r.RayID...)
}

// sbeRecord is a group element as a Log: the generator writes the same fields for both.
func sbeRecord(e *sbe.LogsRecords) *sbe.Log { return (*sbe.Log)(e) }

func (s *sbeLib) Populate(recs []records.Log) error {
	if !s.batch {
		if s.fresh || s.one == nil {
			s.one = new(sbe.Log)
		}
		sbeFill(s.one, &recs[0])
		return nil
	}
	if s.fresh || s.all == nil {
		s.all = new(sbe.Logs)
	}
	if cap(s.all.Records) < len(recs) {
		s.all.Records = append(s.all.Records[:cap(s.all.Records)], make([]sbe.LogsRecords, len(recs)-cap(s.all.Records))...)
	}
	s.all.Records = s.all.Records[:len(recs)]
	for i := range recs {
		sbeFill(sbeRecord(&s.all.Records[i]), &recs[i])
	}
	return nil
}

// sbeMessage is a message's generated codec and its header's values.
type sbeMessage interface {
	SbeBlockLength() uint16
	SbeTemplateId() uint16
	SbeSchemaId() uint16
	SbeSchemaVersion() uint16
}

func (s *sbeLib) Serialize() ([]byte, error) {
	out := &s.out
	if s.fresh {
		out = new(bytes.Buffer)
	} else {
		out.Reset()
	}
	var msg sbeMessage = s.one
	if s.batch {
		msg = s.all
	}
	h := sbe.MessageHeader{BlockLength: msg.SbeBlockLength(), TemplateId: msg.SbeTemplateId(),
		SchemaId: msg.SbeSchemaId(), Version: msg.SbeSchemaVersion()}
	if err := h.Encode(s.m, out); err != nil {
		return nil, err
	}
	var err error
	if s.batch {
		err = s.all.Encode(s.m, out, false)
	} else {
		err = s.one.Encode(s.m, out, false)
	}
	return out.Bytes(), err
}

// sbeGroupRecordMin is the fewest bytes a group record takes: its block and the ten
// var data lengths.
const sbeGroupRecordMin = 34 + 10*2

func (s *sbeLib) Deserialize(in []byte) (uint64, error) {
	s.in.Reset(in)
	var h sbe.MessageHeader
	if err := h.Decode(s.m, &s.in, 0); err != nil {
		return 0, err
	}
	var msg sbeMessage = (*sbe.Log)(nil)
	if s.batch {
		msg = (*sbe.Logs)(nil)
	}
	if h.TemplateId != msg.SbeTemplateId() || h.SchemaId != msg.SbeSchemaId() {
		return 0, fmt.Errorf("sbe: template %d of schema %d, expected %d of %d", h.TemplateId, h.SchemaId,
			msg.SbeTemplateId(), msg.SbeSchemaId())
	}
	if !s.batch {
		m := new(sbe.Log)
		if err := m.Decode(s.m, &s.in, h.Version, h.BlockLength, false); err != nil {
			return 0, err
		}
		s.decoded = m
		return sbeFold(m), nil
	}
	// The group's count, at offset 2 of the group header, which follows the block (empty in
	// version 0; Decode skips a longer block of a later version only).
	off := 8
	if h.Version > msg.SbeSchemaVersion() && h.BlockLength > msg.SbeBlockLength() {
		off += int(h.BlockLength - msg.SbeBlockLength())
	}
	if rest := in[min(len(in), off):]; len(rest) >= 4 {
		if n := int(rest[2]) | int(rest[3])<<8; n*sbeGroupRecordMin > len(rest)-4 {
			return 0, fmt.Errorf("sbe: a group of %d records in %d bytes", n, len(rest)-4)
		}
	}
	m := new(sbe.Logs)
	if err := m.Decode(s.m, &s.in, h.Version, h.BlockLength, false); err != nil {
		return 0, err
	}
	s.decoded = m
	var sum uint64
	for i := range m.Records {
		sum += sbeFold(sbeRecord(&m.Records[i]))
	}
	return sum, nil
}

// sbeFold is a record's fold, read from the generated struct.
func sbeFold(m *sbe.Log) uint64 {
	return uint64(m.Timestamp) + uint64(m.ZoneId) + uint64(m.ZonePlan) + uint64(m.HttpProtocol) +
		uint64(m.HttpStatus) + uint64(m.HttpHostStatus) + uint64(m.HttpUpStatus) + uint64(m.HttpMethod) +
		uint64(m.OriginPort) + uint64(m.OriginProtocol) + uint64(m.Country) + uint64(m.CacheStatus) +
		m.BytesDlv + records.Str(m.HttpContentType) + records.Str(m.HttpUserAgent) + records.Str(m.HttpReferer) +
		records.Str(m.HttpRequestUri) + records.Str(m.OriginIp) + records.Str(m.OriginHostname) +
		records.Str(m.ServerIp) + records.Str(m.ServerName) + records.Str(m.RemoteIp) + records.Str(m.RayId)
}

// sbePlain is a generated struct as a plain record.
func sbePlain(m *sbe.Log) records.Log {
	return records.Log{
		Timestamp: m.Timestamp, ZoneID: m.ZoneId, ZonePlan: m.ZonePlan,
		HTTP: records.HTTP{Protocol: m.HttpProtocol, Status: m.HttpStatus, HostStatus: m.HttpHostStatus,
			UpStatus: m.HttpUpStatus, Method: m.HttpMethod, ContentType: string(m.HttpContentType),
			UserAgent: string(m.HttpUserAgent), Referer: string(m.HttpReferer), RequestURI: string(m.HttpRequestUri)},
		Origin: records.Origin{IP: string(m.OriginIp), Port: m.OriginPort, Hostname: string(m.OriginHostname),
			Protocol: m.OriginProtocol},
		Country: m.Country, CacheStatus: m.CacheStatus, ServerIP: string(m.ServerIp),
		ServerName: string(m.ServerName), RemoteIP: string(m.RemoteIp), BytesDlv: m.BytesDlv, RayID: string(m.RayId),
	}
}

func sbeRecords(msg any) []records.Log {
	switch m := msg.(type) {
	case *sbe.Log:
		return []records.Log{sbePlain(m)}
	case *sbe.Logs:
		out := make([]records.Log, len(m.Records))
		for i := range m.Records {
			out[i] = sbePlain(sbeRecord(&m.Records[i]))
		}
		return out
	}
	return nil
}

func (s *sbeLib) Populated() ([]records.Log, error) {
	if s.batch {
		return sbeRecords(s.all), nil
	}
	return sbeRecords(s.one), nil
}

func (s *sbeLib) Deserialized() ([]records.Log, error) { return sbeRecords(s.decoded), nil }
