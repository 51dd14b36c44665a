package codec

import (
	"unsafe"

	"wirebench/drivers/go/internal/codec/records"
)

// signedLog is a record with the signed integer types of the formats whose schemas say
// int and long (Avro: schemas/log.avsc) or whose values are int32 and int64 (BSON:
// docs/workloads.md, codec: encodings): timestamp and bytesDlv int64, every other integer
// int32. It is the native form of hamba-avro and bson (their tags), which map a Go
// field's type to the wire's, in the JSON's field order. Every value of the workload
// fits: zoneId is below 2^31, bytesDlv below 2^48.
type signedLog struct {
	Timestamp   int64        `avro:"timestamp" bson:"timestamp"`
	ZoneID      int32        `avro:"zoneId" bson:"zoneId"`
	ZonePlan    int32        `avro:"zonePlan" bson:"zonePlan"`
	HTTP        signedHTTP   `avro:"http" bson:"http"`
	Origin      signedOrigin `avro:"origin" bson:"origin"`
	Country     int32        `avro:"country" bson:"country"`
	CacheStatus int32        `avro:"cacheStatus" bson:"cacheStatus"`
	ServerIP    string       `avro:"serverIp" bson:"serverIp"`
	ServerName  string       `avro:"serverName" bson:"serverName"`
	RemoteIP    string       `avro:"remoteIp" bson:"remoteIp"`
	BytesDlv    int64        `avro:"bytesDlv" bson:"bytesDlv"`
	RayID       string       `avro:"rayId" bson:"rayId"`
}

type signedHTTP struct {
	Protocol    int32  `avro:"protocol" bson:"protocol"`
	Status      int32  `avro:"status" bson:"status"`
	HostStatus  int32  `avro:"hostStatus" bson:"hostStatus"`
	UpStatus    int32  `avro:"upStatus" bson:"upStatus"`
	Method      int32  `avro:"method" bson:"method"`
	ContentType string `avro:"contentType" bson:"contentType"`
	UserAgent   string `avro:"userAgent" bson:"userAgent"`
	Referer     string `avro:"referer" bson:"referer"`
	RequestURI  string `avro:"requestUri" bson:"requestUri"`
}

type signedOrigin struct {
	IP       string `avro:"ip" bson:"ip"`
	Port     int32  `avro:"port" bson:"port"`
	Hostname string `avro:"hostname" bson:"hostname"`
	Protocol int32  `avro:"protocol" bson:"protocol"`
}

// signedLogs is the batch of case logs.
type signedLogs struct {
	Logs []signedLog `avro:"logs" bson:"logs"`
}

func toSigned(r *records.Log) signedLog {
	h, o := &r.HTTP, &r.Origin
	return signedLog{
		Timestamp: r.Timestamp, ZoneID: int32(r.ZoneID), ZonePlan: int32(r.ZonePlan),
		HTTP: signedHTTP{Protocol: int32(h.Protocol), Status: int32(h.Status), HostStatus: int32(h.HostStatus),
			UpStatus: int32(h.UpStatus), Method: int32(h.Method), ContentType: h.ContentType,
			UserAgent: h.UserAgent, Referer: h.Referer, RequestURI: h.RequestURI},
		Origin:  signedOrigin{IP: o.IP, Port: int32(o.Port), Hostname: o.Hostname, Protocol: int32(o.Protocol)},
		Country: int32(r.Country), CacheStatus: int32(r.CacheStatus),
		ServerIP: r.ServerIP, ServerName: r.ServerName, RemoteIP: r.RemoteIP,
		BytesDlv: int64(r.BytesDlv), RayID: r.RayID,
	}
}

// plain is the record as the driver's plain struct; each integer is converted back to
// its plain type as it is (a decoded value out of the workload's range shows in the
// checks as a different value).
func (s *signedLog) plain() records.Log {
	h, o := &s.HTTP, &s.Origin
	return records.Log{
		Timestamp: s.Timestamp, ZoneID: uint32(s.ZoneID), ZonePlan: uint8(s.ZonePlan),
		HTTP: records.HTTP{Protocol: uint8(h.Protocol), Status: uint16(h.Status), HostStatus: uint16(h.HostStatus),
			UpStatus: uint16(h.UpStatus), Method: uint8(h.Method), ContentType: h.ContentType,
			UserAgent: h.UserAgent, Referer: h.Referer, RequestURI: h.RequestURI},
		Origin:  records.Origin{IP: o.IP, Port: uint16(o.Port), Hostname: o.Hostname, Protocol: uint8(o.Protocol)},
		Country: uint8(s.Country), CacheStatus: uint8(s.CacheStatus),
		ServerIP: s.ServerIP, ServerName: s.ServerName, RemoteIP: s.RemoteIP,
		BytesDlv: uint64(s.BytesDlv), RayID: s.RayID,
	}
}

// fold is the record's fold (records.Log.Fold) read from the signed fields: every integer
// is summed as the value it holds, sign-extended as the fold's wrapping sum does.
func (s *signedLog) fold() uint64 {
	h, o := &s.HTTP, &s.Origin
	return uint64(s.Timestamp) + uint64(s.ZoneID) + uint64(s.ZonePlan) + uint64(h.Protocol) +
		uint64(h.Status) + uint64(h.HostStatus) + uint64(h.UpStatus) + uint64(h.Method) +
		uint64(o.Port) + uint64(o.Protocol) + uint64(s.Country) + uint64(s.CacheStatus) + uint64(s.BytesDlv) +
		records.Str(h.ContentType) + records.Str(h.UserAgent) + records.Str(h.Referer) +
		records.Str(h.RequestURI) + records.Str(o.IP) + records.Str(o.Hostname) + records.Str(s.ServerIP) +
		records.Str(s.ServerName) + records.Str(s.RemoteIP) + records.Str(s.RayID)
}

// signedForm is the native form of the libraries on signedLog: populate converts the
// records into it, into the kept slice with buffer reused or a new one with fresh (the
// strings are shared, as a Go copy of a record shares them).
type signedForm struct {
	batch, fresh bool
	one          signedLog
	all          signedLogs
	// decoded is the last deserialized form: a *signedLog or a *signedLogs.
	decoded any
}

func (f *signedForm) Populate(recs []records.Log) error {
	if !f.batch {
		f.one = toSigned(&recs[0])
		return nil
	}
	if f.fresh {
		f.all.Logs = make([]signedLog, 0, len(recs))
	}
	f.all.Logs = f.all.Logs[:0]
	for i := range recs {
		f.all.Logs = append(f.all.Logs, toSigned(&recs[i]))
	}
	return nil
}

// value is the native form, for the libraries that take any value.
func (f *signedForm) value() any {
	if f.batch {
		return &f.all
	}
	return &f.one
}

func signedPlain(logs []signedLog) []records.Log {
	out := make([]records.Log, len(logs))
	for i := range logs {
		out[i] = logs[i].plain()
	}
	return out
}

func (f *signedForm) Populated() ([]records.Log, error) {
	if f.batch {
		return signedPlain(f.all.Logs), nil
	}
	return signedPlain(unsafe.Slice(&f.one, 1)), nil
}

func (f *signedForm) Deserialized() ([]records.Log, error) {
	switch v := f.decoded.(type) {
	case *signedLogs:
		return signedPlain(v.Logs), nil
	case *signedLog:
		return signedPlain(unsafe.Slice(v, 1)), nil
	}
	return nil, nil
}

// deserialize decodes in with unmarshal into a new record or batch, keeps it as decoded,
// and returns its fold.
func (f *signedForm) deserialize(in []byte, unmarshal func([]byte, any) error) (uint64, error) {
	if f.batch {
		v := new(signedLogs)
		if err := unmarshal(in, v); err != nil {
			return 0, err
		}
		f.decoded = v
		var sum uint64
		for i := range v.Logs {
			sum += v.Logs[i].fold()
		}
		return sum, nil
	}
	v := new(signedLog)
	if err := unmarshal(in, v); err != nil {
		return 0, err
	}
	f.decoded = v
	return v.fold(), nil
}
