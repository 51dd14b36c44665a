// protobuf: google.golang.org/protobuf on the messages protoc-gen-go generates from
// schemas/{log,logs}.proto (the open struct API, shared with vtprotobuf; see
// tools/gencode). populate fills the messages: buffer reused refills the kept ones in
// place (every field is set again), fresh allocates new ones. serialize: reused
// MarshalAppend into the kept buffer, fresh proto.Marshal. deserialize: proto.Unmarshal
// (with the driver's recursion limit, core/limits.go) into new messages (strings copied: owned; the whole input parsed: validated), then the
// fold through the getters.
package codec

import (
	"google.golang.org/protobuf/proto"

	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/core"
	pb "wirebench/drivers/go/internal/gen/pb/codec"
)

// pbForm is the messages of a case, as populate builds them and deserialize reads them.
type pbForm struct {
	batch, fresh bool
	one          *pb.Log
	all          *pb.Logs
	// decoded is the last deserialized message (a *pb.Log or *pb.Logs).
	decoded proto.Message
}

func pbFill(m *pb.Log, r *records.Log) {
	if m.Http == nil {
		m.Http, m.Origin = new(pb.Http), new(pb.Origin)
	}
	h, o := m.Http, m.Origin
	m.Timestamp, m.ZoneId, m.ZonePlan = r.Timestamp, r.ZoneID, pb.ZonePlan(r.ZonePlan)
	h.Protocol, h.Status, h.HostStatus = pb.HttpProtocol(r.HTTP.Protocol), uint32(r.HTTP.Status),
		uint32(r.HTTP.HostStatus)
	h.UpStatus, h.Method = uint32(r.HTTP.UpStatus), pb.Method(r.HTTP.Method)
	h.ContentType, h.UserAgent, h.Referer, h.RequestUri = r.HTTP.ContentType, r.HTTP.UserAgent,
		r.HTTP.Referer, r.HTTP.RequestURI
	o.Ip, o.Port, o.Hostname, o.Protocol = r.Origin.IP, uint32(r.Origin.Port), r.Origin.Hostname,
		pb.OriginProtocol(r.Origin.Protocol)
	m.Country, m.CacheStatus = pb.Country(r.Country), pb.CacheStatus(r.CacheStatus)
	m.ServerIp, m.ServerName, m.RemoteIp = r.ServerIP, r.ServerName, r.RemoteIP
	m.BytesDlv, m.RayId = r.BytesDlv, r.RayID
}

func (f *pbForm) Populate(recs []records.Log) error {
	if !f.batch {
		if f.fresh || f.one == nil {
			f.one = new(pb.Log)
		}
		pbFill(f.one, &recs[0])
		return nil
	}
	if f.fresh || f.all == nil {
		f.all = &pb.Logs{Logs: make([]*pb.Log, 0, len(recs))}
	}
	logs := f.all.Logs[:0]
	for i := range recs {
		var m *pb.Log
		if i < cap(logs) {
			m = logs[:i+1][i] // a kept message, or nil
		}
		if m == nil {
			m = new(pb.Log)
		}
		pbFill(m, &recs[i])
		logs = append(logs, m)
	}
	f.all.Logs = logs
	return nil
}

// message is the populated message.
func (f *pbForm) message() proto.Message {
	if f.batch {
		return f.all
	}
	return f.one
}

// newMessage is an empty message of the case, to deserialize into.
func (f *pbForm) newMessage() proto.Message {
	if f.batch {
		return new(pb.Logs)
	}
	return new(pb.Log)
}

func pbRecord(m *pb.Log) records.Log {
	h, o := m.GetHttp(), m.GetOrigin()
	return records.Log{
		Timestamp: m.GetTimestamp(), ZoneID: m.GetZoneId(), ZonePlan: uint8(m.GetZonePlan()),
		HTTP: records.HTTP{Protocol: uint8(h.GetProtocol()), Status: uint16(h.GetStatus()),
			HostStatus: uint16(h.GetHostStatus()), UpStatus: uint16(h.GetUpStatus()),
			Method: uint8(h.GetMethod()), ContentType: h.GetContentType(), UserAgent: h.GetUserAgent(),
			Referer: h.GetReferer(), RequestURI: h.GetRequestUri()},
		Origin: records.Origin{IP: o.GetIp(), Port: uint16(o.GetPort()), Hostname: o.GetHostname(),
			Protocol: uint8(o.GetProtocol())},
		Country: uint8(m.GetCountry()), CacheStatus: uint8(m.GetCacheStatus()),
		ServerIP: m.GetServerIp(), ServerName: m.GetServerName(), RemoteIP: m.GetRemoteIp(),
		BytesDlv: m.GetBytesDlv(), RayID: m.GetRayId(),
	}
}

func pbRecords(m proto.Message) []records.Log {
	if logs, ok := m.(*pb.Logs); ok {
		recs := make([]records.Log, len(logs.GetLogs()))
		for i, l := range logs.GetLogs() {
			recs[i] = pbRecord(l)
		}
		return recs
	}
	return []records.Log{pbRecord(m.(*pb.Log))}
}

func pbLogFold(m *pb.Log) uint64 {
	h, o := m.GetHttp(), m.GetOrigin()
	return uint64(m.GetTimestamp()) + uint64(m.GetZoneId()) + uint64(m.GetZonePlan()) +
		uint64(h.GetProtocol()) + uint64(h.GetStatus()) + uint64(h.GetHostStatus()) +
		uint64(h.GetUpStatus()) + uint64(h.GetMethod()) + uint64(o.GetPort()) + uint64(o.GetProtocol()) +
		uint64(m.GetCountry()) + uint64(m.GetCacheStatus()) + m.GetBytesDlv() +
		records.Str(h.GetContentType()) + records.Str(h.GetUserAgent()) + records.Str(h.GetReferer()) +
		records.Str(h.GetRequestUri()) + records.Str(o.GetIp()) + records.Str(o.GetHostname()) +
		records.Str(m.GetServerIp()) + records.Str(m.GetServerName()) + records.Str(m.GetRemoteIp()) +
		records.Str(m.GetRayId())
}

// fold is the fold of a deserialized message.
func pbFold(m proto.Message) uint64 {
	logs, ok := m.(*pb.Logs)
	if !ok {
		return pbLogFold(m.(*pb.Log))
	}
	var sum uint64
	for _, l := range logs.GetLogs() {
		sum += pbLogFold(l)
	}
	return sum
}

func (f *pbForm) Populated() ([]records.Log, error)    { return pbRecords(f.message()), nil }
func (f *pbForm) Deserialized() ([]records.Log, error) { return pbRecords(f.decoded), nil }

type protobufLib struct {
	pbForm
	out []byte
}

func newProtobuf(v Variant) Impl {
	return &protobufLib{pbForm: pbForm{batch: v.Batch, fresh: v.Fresh}}
}

func (p *protobufLib) Serialize() ([]byte, error) {
	if p.fresh {
		return proto.Marshal(p.message())
	}
	var err error
	p.out, err = proto.MarshalOptions{}.MarshalAppend(p.out[:0], p.message())
	return p.out, err
}

// unmarshalOptions is proto.Unmarshal's default with the driver's nesting limit
// (core/limits.go) set explicitly.
var unmarshalOptions = proto.UnmarshalOptions{RecursionLimit: core.ProtobufRecursionLimit}

func (p *protobufLib) Deserialize(in []byte) (uint64, error) {
	m := p.newMessage()
	if err := unmarshalOptions.Unmarshal(in, m); err != nil {
		return 0, err
	}
	p.decoded = m
	return pbFold(m), nil
}
