// thrift: Apache Thrift's Go library (github.com/apache/thrift v0.17.0, the version of
// Debian's compiler) on the code `thrift --gen go` 0.17.0 generates from
// schemas/log.thrift (tools/gencode): the structs Log and Logs, written and read by their
// generated Write and Read through a protocol over a TMemoryBuffer. packing unpacked is
// the binary protocol (TBinaryProtocol, the default cell), compact the compact protocol
// (TCompactProtocol). populate fills the generated structs: buffer reused refills the kept
// ones in place, fresh allocates new ones. serialize: reused, the kept protocol over a kept
// TMemoryBuffer, reset; fresh, a new buffer and protocol. deserialize: a kept protocol
// over a kept TMemoryBuffer holding the input (read in place, not copied) into new
// structs, every required field checked (validated); strings are copied (owned: the
// protocols read every string into a new Go string). The configuration's MaxMessageSize
// is the input's length: the protocols refuse a list or a string claiming more elements
// or bytes than that before allocating (by default up to 100 MB, and a list's claim is
// in elements: 800 MB of pointers).
package codec

import (
	"bytes"
	"context"
	"math"

	"github.com/apache/thrift/lib/go/thrift"

	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/gen/thrift/wbthrift"
)

type thriftLib struct {
	batch, fresh, compact bool
	one                   *wbthrift.Log
	all                   *wbthrift.Logs
	// The output: its buffer and protocol (reused).
	out      *thrift.TMemoryBuffer
	outProto thrift.TProtocol
	// The input: the buffer over it, its configuration, and their protocol.
	in      thrift.TMemoryBuffer
	inBuf   bytes.Buffer
	inConf  thrift.TConfiguration
	inProto thrift.TProtocol
	// decoded is the last deserialized struct (a *wbthrift.Log or *wbthrift.Logs).
	decoded thrift.TStruct
}

// protocol is the variant's protocol over t.
func (l *thriftLib) protocol(t thrift.TTransport, conf *thrift.TConfiguration) thrift.TProtocol {
	if l.compact {
		return thrift.NewTCompactProtocolConf(t, conf)
	}
	return thrift.NewTBinaryProtocolConf(t, conf)
}

func newThrift(v Variant) Impl {
	l := &thriftLib{batch: v.Batch, fresh: v.Fresh, compact: v.Compact}
	l.out = thrift.NewTMemoryBuffer()
	l.outProto = l.protocol(l.out, &thrift.TConfiguration{})
	l.in.Buffer = &l.inBuf
	l.inProto = l.protocol(&l.in, &l.inConf)
	return l
}

func thriftFill(m *wbthrift.Log, r *records.Log) {
	if m.HTTP == nil {
		m.HTTP, m.Origin = new(wbthrift.HTTP), new(wbthrift.Origin)
	}
	h, o := m.HTTP, m.Origin
	m.Timestamp, m.ZoneId, m.ZonePlan = r.Timestamp, int32(r.ZoneID), int8(r.ZonePlan)
	h.Protocol, h.Status, h.HostStatus = int8(r.HTTP.Protocol), int16(r.HTTP.Status), int16(r.HTTP.HostStatus)
	h.UpStatus, h.Method = int16(r.HTTP.UpStatus), int8(r.HTTP.Method)
	h.ContentType, h.UserAgent, h.Referer, h.RequestUri = r.HTTP.ContentType, r.HTTP.UserAgent,
		r.HTTP.Referer, r.HTTP.RequestURI
	o.IP, o.Port, o.Hostname, o.Protocol = r.Origin.IP, int32(r.Origin.Port), r.Origin.Hostname,
		int8(r.Origin.Protocol)
	m.Country, m.CacheStatus = int16(r.Country), int8(r.CacheStatus)
	m.ServerIp, m.ServerName, m.RemoteIp = r.ServerIP, r.ServerName, r.RemoteIP
	m.BytesDlv, m.RayId = int64(r.BytesDlv), r.RayID
}

func (l *thriftLib) Populate(recs []records.Log) error {
	if !l.batch {
		if l.fresh || l.one == nil {
			l.one = new(wbthrift.Log)
		}
		thriftFill(l.one, &recs[0])
		return nil
	}
	if l.fresh || l.all == nil {
		l.all = &wbthrift.Logs{Logs: make([]*wbthrift.Log, 0, len(recs))}
	}
	logs := l.all.Logs[:0]
	for i := range recs {
		var m *wbthrift.Log
		if i < cap(logs) {
			m = logs[:i+1][i] // a kept struct, or nil
		}
		if m == nil {
			m = new(wbthrift.Log)
		}
		thriftFill(m, &recs[i])
		logs = append(logs, m)
	}
	l.all.Logs = logs
	return nil
}

// message is the populated struct.
func (l *thriftLib) message() thrift.TStruct {
	if l.batch {
		return l.all
	}
	return l.one
}

func (l *thriftLib) Serialize() ([]byte, error) {
	ctx := context.Background()
	out, proto := l.out, l.outProto
	if l.fresh {
		out = thrift.NewTMemoryBuffer()
		proto = l.protocol(out, &thrift.TConfiguration{})
	} else {
		out.Reset()
	}
	if err := l.message().Write(ctx, proto); err != nil {
		return nil, err
	}
	if err := proto.Flush(ctx); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (l *thriftLib) Deserialize(in []byte) (uint64, error) {
	l.inBuf = *bytes.NewBuffer(in)
	l.inConf.MaxMessageSize = int32(min(len(in), math.MaxInt32))
	ctx := context.Background()
	if l.batch {
		m := new(wbthrift.Logs)
		if err := m.Read(ctx, l.inProto); err != nil {
			return 0, err
		}
		l.decoded = m
		var sum uint64
		for _, r := range m.Logs {
			sum += thriftFold(r)
		}
		return sum, nil
	}
	m := new(wbthrift.Log)
	if err := m.Read(ctx, l.inProto); err != nil {
		return 0, err
	}
	l.decoded = m
	return thriftFold(m), nil
}

// thriftFold is a record's fold, read through the generated getters.
func thriftFold(m *wbthrift.Log) uint64 {
	h, o := m.GetHTTP(), m.GetOrigin()
	return uint64(m.GetTimestamp()) + uint64(m.GetZoneId()) + uint64(m.GetZonePlan()) +
		uint64(h.GetProtocol()) + uint64(h.GetStatus()) + uint64(h.GetHostStatus()) + uint64(h.GetUpStatus()) +
		uint64(h.GetMethod()) + uint64(o.GetPort()) + uint64(o.GetProtocol()) + uint64(m.GetCountry()) +
		uint64(m.GetCacheStatus()) + uint64(m.GetBytesDlv()) + records.Str(h.GetContentType()) +
		records.Str(h.GetUserAgent()) + records.Str(h.GetReferer()) + records.Str(h.GetRequestUri()) +
		records.Str(o.GetIP()) + records.Str(o.GetHostname()) + records.Str(m.GetServerIp()) +
		records.Str(m.GetServerName()) + records.Str(m.GetRemoteIp()) + records.Str(m.GetRayId())
}

// thriftPlain is a generated struct as a plain record.
func thriftPlain(m *wbthrift.Log) records.Log {
	h, o := m.GetHTTP(), m.GetOrigin()
	return records.Log{
		Timestamp: m.GetTimestamp(), ZoneID: uint32(m.GetZoneId()), ZonePlan: uint8(m.GetZonePlan()),
		HTTP: records.HTTP{Protocol: uint8(h.GetProtocol()), Status: uint16(h.GetStatus()),
			HostStatus: uint16(h.GetHostStatus()), UpStatus: uint16(h.GetUpStatus()), Method: uint8(h.GetMethod()),
			ContentType: h.GetContentType(), UserAgent: h.GetUserAgent(), Referer: h.GetReferer(),
			RequestURI: h.GetRequestUri()},
		Origin: records.Origin{IP: o.GetIP(), Port: uint16(o.GetPort()), Hostname: o.GetHostname(),
			Protocol: uint8(o.GetProtocol())},
		Country: uint8(m.GetCountry()), CacheStatus: uint8(m.GetCacheStatus()), ServerIP: m.GetServerIp(),
		ServerName: m.GetServerName(), RemoteIP: m.GetRemoteIp(), BytesDlv: uint64(m.GetBytesDlv()),
		RayID: m.GetRayId(),
	}
}

func thriftRecords(m thrift.TStruct) []records.Log {
	switch m := m.(type) {
	case *wbthrift.Log:
		return []records.Log{thriftPlain(m)}
	case *wbthrift.Logs:
		return thriftBatch(m.Logs)
	}
	return nil
}

func thriftBatch(logs []*wbthrift.Log) []records.Log {
	out := make([]records.Log, len(logs))
	for i, r := range logs {
		out[i] = thriftPlain(r)
	}
	return out
}

func (l *thriftLib) Populated() ([]records.Log, error)    { return thriftRecords(l.message()), nil }
func (l *thriftLib) Deserialized() ([]records.Log, error) { return thriftRecords(l.decoded), nil }
