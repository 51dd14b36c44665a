// flatbuffers: FlatBuffers (github.com/google/flatbuffers/go) on the code flatc 2.0.8
// generates from schemas/{log,logs}.fbs. populate builds the buffer: buffer reused
// Resets a kept Builder (and keeps the list of record offsets), fresh makes a new one;
// serialize copies the finished bytes into the output buffer (reused: the kept one).
// deserialize reads every field into new plain structs, strings copied (owned) or the
// accessors' []byte views of the input as strings (borrowed); access folds the fields
// through the accessors, building nothing.
//
// Validation is unchecked only: the Go runtime has no verifier (flatc 2.0.8 generates
// none for Go, and the module has no Verifier type), and the accessors trust the
// offsets they read. A corrupt buffer cannot read outside the input in Go (every slice
// index is bounds-checked by the language), but it panics instead of returning an error.
package codec

import (
	"bytes"
	"errors"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"wirebench/drivers/go/internal/codec/records"
	fb "wirebench/drivers/go/internal/gen/fb/codecfb"
)

type flatbuffersLib struct {
	batch, fresh, borrowed bool
	b                      *flatbuffers.Builder
	offsets                []flatbuffers.UOffsetT // of the records of case logs
	out                    []byte
	decoded                []records.Log
}

func newFlatbuffers(v Variant) Impl {
	return &flatbuffersLib{batch: v.Batch, fresh: v.Fresh, borrowed: v.Borrowed, b: flatbuffers.NewBuilder(1024)}
}

// flatbuffersLog builds one record and returns its offset. The order is the C++ driver's
// (drivers/cpp/src/codec/flatbuffers.cpp), so that the bytes are the same: each table
// after the strings it points to (Http, Origin, then Log), and each table's fields added
// as flatc's C++ CreateX helpers add them (largest first, to save padding; within a size
// the last field first), which Go's generated code has no helper for.
func flatbuffersLog(b *flatbuffers.Builder, r *records.Log) flatbuffers.UOffsetT {
	h, o := &r.HTTP, &r.Origin
	contentType, userAgent := b.CreateString(h.ContentType), b.CreateString(h.UserAgent)
	referer, requestURI := b.CreateString(h.Referer), b.CreateString(h.RequestURI)
	fb.HttpStart(b)
	fb.HttpAddRequestUri(b, requestURI)
	fb.HttpAddReferer(b, referer)
	fb.HttpAddUserAgent(b, userAgent)
	fb.HttpAddContentType(b, contentType)
	fb.HttpAddUpStatus(b, h.UpStatus)
	fb.HttpAddHostStatus(b, h.HostStatus)
	fb.HttpAddStatus(b, h.Status)
	fb.HttpAddMethod(b, fb.Method(h.Method))
	fb.HttpAddProtocol(b, fb.HttpProtocol(h.Protocol))
	http := fb.HttpEnd(b)

	ip, hostname := b.CreateString(o.IP), b.CreateString(o.Hostname)
	fb.OriginStart(b)
	fb.OriginAddHostname(b, hostname)
	fb.OriginAddIp(b, ip)
	fb.OriginAddPort(b, o.Port)
	fb.OriginAddProtocol(b, fb.OriginProtocol(o.Protocol))
	origin := fb.OriginEnd(b)

	serverIP, serverName := b.CreateString(r.ServerIP), b.CreateString(r.ServerName)
	remoteIP, rayID := b.CreateString(r.RemoteIP), b.CreateString(r.RayID)
	fb.LogStart(b)
	fb.LogAddBytesDlv(b, r.BytesDlv)
	fb.LogAddTimestamp(b, r.Timestamp)
	fb.LogAddRayId(b, rayID)
	fb.LogAddRemoteIp(b, remoteIP)
	fb.LogAddServerName(b, serverName)
	fb.LogAddServerIp(b, serverIP)
	fb.LogAddOrigin(b, origin)
	fb.LogAddHttp(b, http)
	fb.LogAddZoneId(b, r.ZoneID)
	fb.LogAddCacheStatus(b, fb.CacheStatus(r.CacheStatus))
	fb.LogAddCountry(b, fb.Country(r.Country))
	fb.LogAddZonePlan(b, fb.ZonePlan(r.ZonePlan))
	return fb.LogEnd(b)
}

func (f *flatbuffersLib) Populate(recs []records.Log) error {
	b := f.b
	if f.fresh {
		b = flatbuffers.NewBuilder(1024)
		f.b = b
		f.offsets = nil
	} else {
		b.Reset()
	}
	if !f.batch {
		b.Finish(flatbuffersLog(b, &recs[0]))
		return nil
	}
	f.offsets = f.offsets[:0]
	for i := range recs {
		f.offsets = append(f.offsets, flatbuffersLog(b, &recs[i]))
	}
	fb.LogsStartLogsVector(b, len(recs))
	for i := len(recs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(f.offsets[i])
	}
	logs := b.EndVector(len(recs))
	fb.LogsStart(b)
	fb.LogsAddLogs(b, logs)
	b.Finish(fb.LogsEnd(b))
	return nil
}

func (f *flatbuffersLib) Serialize() ([]byte, error) {
	if f.fresh {
		return bytes.Clone(f.b.FinishedBytes()), nil
	}
	f.out = append(f.out[:0], f.b.FinishedBytes()...)
	return f.out, nil
}

var errFlatbuffersTable = errors.New("flatbuffers: a record lacks its http or origin table")

// flatbuffersLogs calls each with every Log of a buffer: its root (case log), or the
// root's vector; n is called first with the count. The Log and its tables are reused.
func flatbuffersLogs(in []byte, batch bool, n func(int), each func(int, *fb.Log, *fb.Http, *fb.Origin) error) error {
	var m fb.Log
	var h fb.Http
	var o fb.Origin
	visit := func(i int) error {
		if m.Http(&h) == nil || m.Origin(&o) == nil {
			return errFlatbuffersTable
		}
		return each(i, &m, &h, &o)
	}
	if !batch {
		n(1)
		m = *fb.GetRootAsLog(in, 0)
		return visit(0)
	}
	root := fb.GetRootAsLogs(in, 0)
	count := root.LogsLength()
	if count > len(in)/4 { // each element is a 4-byte offset in the buffer
		return fmt.Errorf("flatbuffers: a vector of %d records in %d bytes", count, len(in))
	}
	n(count)
	for i := 0; i < count; i++ {
		root.Logs(&m, i)
		if err := visit(i); err != nil {
			return err
		}
	}
	return nil
}

func (f *flatbuffersLib) Deserialize(in []byte) (uint64, error) {
	str := ownedString
	if f.borrowed {
		str = viewString
	}
	var recs []records.Log
	err := flatbuffersLogs(in, f.batch, func(n int) { recs = make([]records.Log, n) },
		func(i int, m *fb.Log, h *fb.Http, o *fb.Origin) error {
			recs[i] = records.Log{
				Timestamp: m.Timestamp(), ZoneID: m.ZoneId(), ZonePlan: uint8(m.ZonePlan()),
				HTTP: records.HTTP{Protocol: uint8(h.Protocol()), Status: h.Status(), HostStatus: h.HostStatus(),
					UpStatus: h.UpStatus(), Method: uint8(h.Method()), ContentType: str(h.ContentType()),
					UserAgent: str(h.UserAgent()), Referer: str(h.Referer()), RequestURI: str(h.RequestUri())},
				Origin: records.Origin{IP: str(o.Ip()), Port: o.Port(), Hostname: str(o.Hostname()),
					Protocol: uint8(o.Protocol())},
				Country: uint8(m.Country()), CacheStatus: uint8(m.CacheStatus()),
				ServerIP: str(m.ServerIp()), ServerName: str(m.ServerName()), RemoteIP: str(m.RemoteIp()),
				BytesDlv: m.BytesDlv(), RayID: str(m.RayId()),
			}
			return nil
		})
	if err != nil {
		return 0, err
	}
	f.decoded = recs
	return records.Fold(recs), nil
}

func (f *flatbuffersLib) Access(in []byte) (uint64, error) {
	var sum uint64
	err := flatbuffersLogs(in, f.batch, func(int) {}, func(_ int, m *fb.Log, h *fb.Http, o *fb.Origin) error {
		sum += uint64(m.Timestamp()) + uint64(m.ZoneId()) + uint64(m.ZonePlan()) + uint64(h.Protocol()) +
			uint64(h.Status()) + uint64(h.HostStatus()) + uint64(h.UpStatus()) + uint64(h.Method()) +
			uint64(o.Port()) + uint64(o.Protocol()) + uint64(m.Country()) + uint64(m.CacheStatus()) +
			m.BytesDlv() + records.Str(h.ContentType()) + records.Str(h.UserAgent()) +
			records.Str(h.Referer()) + records.Str(h.RequestUri()) + records.Str(o.Ip()) +
			records.Str(o.Hostname()) + records.Str(m.ServerIp()) + records.Str(m.ServerName()) +
			records.Str(m.RemoteIp()) + records.Str(m.RayId())
		return nil
	})
	return sum, err
}

func (f *flatbuffersLib) Populated() ([]records.Log, error) {
	reader := &flatbuffersLib{batch: f.batch}
	if _, err := reader.Deserialize(f.b.FinishedBytes()); err != nil {
		return nil, err
	}
	return reader.decoded, nil
}

func (f *flatbuffersLib) Deserialized() ([]records.Log, error) { return f.decoded, nil }
