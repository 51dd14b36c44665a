package records

// The plain structs of the codec records (docs/workloads.md, codec / log). They are the
// driver's own form of the workload and the native form of the libraries that serialize
// Go structs: the tags give the JSON and MessagePack key names (encoding/json, go-json,
// sonic: json; vmihailenco/msgpack: msgpack; tinylib/msgp: msg), fields are in encoding
// order, and enums are their numbers. tools/gencode runs msgp on this file (only on it:
// msgp generates methods for every type of the file) into types_msgp.go.

// MaxBatch bounds the records of a batch that msgp's and msgpack's decoders accept: both
// allocate the slice an array header claims before reading one element, so a few bytes
// claiming 4 Gi records would ask for ~900 GB. 64 Ki is 65 times the logs case (13 MiB of
// records at most). The directive below must say the same number (it takes no constant;
// TestMsgpBatchLimit checks that it does).
const MaxBatch = 1 << 16

//msgp:limit arrays:65536

// Log is one HTTP log record.
type Log struct {
	Timestamp   int64  `json:"timestamp" msgpack:"timestamp" msg:"timestamp"`
	ZoneID      uint32 `json:"zoneId" msgpack:"zoneId" msg:"zoneId"`
	ZonePlan    uint8  `json:"zonePlan" msgpack:"zonePlan" msg:"zonePlan"`
	HTTP        HTTP   `json:"http" msgpack:"http" msg:"http"`
	Origin      Origin `json:"origin" msgpack:"origin" msg:"origin"`
	Country     uint8  `json:"country" msgpack:"country" msg:"country"`
	CacheStatus uint8  `json:"cacheStatus" msgpack:"cacheStatus" msg:"cacheStatus"`
	ServerIP    string `json:"serverIp" msgpack:"serverIp" msg:"serverIp"`
	ServerName  string `json:"serverName" msgpack:"serverName" msg:"serverName"`
	RemoteIP    string `json:"remoteIp" msgpack:"remoteIp" msg:"remoteIp"`
	BytesDlv    uint64 `json:"bytesDlv" msgpack:"bytesDlv" msg:"bytesDlv"`
	RayID       string `json:"rayId" msgpack:"rayId" msg:"rayId"`
}

// HTTP is a record's request.
type HTTP struct {
	Protocol    uint8  `json:"protocol" msgpack:"protocol" msg:"protocol"`
	Status      uint16 `json:"status" msgpack:"status" msg:"status"`
	HostStatus  uint16 `json:"hostStatus" msgpack:"hostStatus" msg:"hostStatus"`
	UpStatus    uint16 `json:"upStatus" msgpack:"upStatus" msg:"upStatus"`
	Method      uint8  `json:"method" msgpack:"method" msg:"method"`
	ContentType string `json:"contentType" msgpack:"contentType" msg:"contentType"`
	UserAgent   string `json:"userAgent" msgpack:"userAgent" msg:"userAgent"`
	Referer     string `json:"referer" msgpack:"referer" msg:"referer"`
	RequestURI  string `json:"requestUri" msgpack:"requestUri" msg:"requestUri"`
}

// Origin is a record's origin server.
type Origin struct {
	IP       string `json:"ip" msgpack:"ip" msg:"ip"`
	Port     uint16 `json:"port" msgpack:"port" msg:"port"`
	Hostname string `json:"hostname" msgpack:"hostname" msg:"hostname"`
	Protocol uint8  `json:"protocol" msgpack:"protocol" msg:"protocol"`
}

// Logs is the batch of case logs.
type Logs struct {
	Logs []Log `json:"logs" msgpack:"logs" msg:"logs"`
}
