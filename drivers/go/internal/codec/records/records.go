// Package records is the codec suite's workload (docs/workloads.md, codec): the plain
// structs, the one record of case log, the generator of case logs, and the fold every
// timed read computes. wirebench/codec_records.py is the reference; testdata/codec holds
// what it produces.
package records

import (
	"fmt"
	"reflect"
	"strconv"

	"wirebench/drivers/go/internal/rng"
)

// Cases are the codec cases, in the order of `list`: the record, then the size axis.
var Cases = []string{"log", "logs1", "logs10", "logs100", "logs", "logs10000"}

// Golden are the cases of the golden files: the record and the batch.
var Golden = []string{"log", "logs"}

// Batch is the number of records of case logs.
const Batch = 1000

// Sizes are the batches of the size axis (docs/workloads.md): the first N records of the
// logs generator, logs itself the first Batch.
var Sizes = map[string]int{"logs1": 1, "logs10": 10, "logs100": 100, "logs": Batch, "logs10000": 10000}

// IsBatch says whether a case is a Logs message (every case but log).
func IsBatch(kase string) bool { return kase != "log" }

// The reference record (case log).
var log = Log{
	Timestamp: 25469139677502,
	ZoneID:    123456,
	ZonePlan:  1,
	HTTP: HTTP{
		Protocol:    2,
		Status:      200,
		HostStatus:  503,
		UpStatus:    520,
		Method:      1,
		ContentType: "text/html",
		UserAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML,like Gecko) " +
			"Chrome/33.0.1750.146 Safari/537.36",
		Referer:    "https: //www.cloudflare.com/",
		RequestURI: "/cdn-cgi/trace",
	},
	Origin:      Origin{IP: "1.2.3.4", Port: 8000, Hostname: "www.example.com", Protocol: 2},
	Country:     238,
	CacheStatus: 3,
	ServerIP:    "192.168.1.1",
	ServerName:  "metal.cloudflare.com",
	RemoteIP:    "10.1.2.3",
	BytesDlv:    123456,
	RayID:       "10c73629cce30078-LAX",
}

// The tables the logs generator draws from.
var (
	status       = [16]uint16{200, 200, 200, 200, 200, 200, 200, 200, 204, 206, 301, 304, 400, 404, 500, 503}
	contentTypes = [8]string{"text/html", "text/html; charset=utf-8", "application/json", "text/css",
		"application/javascript", "image/png", "image/jpeg", "text/plain"}
	userAgents = [8]string{
		log.HTTP.UserAgent,
		"curl/7.88.1",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) " +
			"Chrome/120.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 " +
			"(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
		"Googlebot/2.1 (+http://www.google.com/bot.html)",
		"python-requests/2.31.0",
		"Go-http-client/1.1",
		"",
	}
	colos = [8]string{"LAX", "SJC", "AMS", "FRA", "LHR", "NRT", "SIN", "GRU"}
)

// gen draws through a pointer: the records are made once, before timing.
type gen struct{ g rng.Rng }

func (d *gen) next() uint32 {
	var v uint32
	d.g, v = d.g.Next()
	return v
}

func (d *gen) rand(n uint32) uint32 { return d.next() % n }

func (d *gen) letters(n uint32) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + d.rand(26))
	}
	return string(b)
}

func (d *gen) ip() string {
	a, b, c, e := d.rand(256), d.rand(256), d.rand(256), d.rand(256)
	return fmt.Sprintf("%d.%d.%d.%d", a, b, c, e)
}

func (d *gen) u64() uint64 {
	hi := uint64(d.next())
	return hi<<32 | uint64(d.next())
}

// record is record i of the batch; every statement draws in the order of
// docs/workloads.md (codec / logs), each count before what it counts.
func (d *gen) record(i int) Log {
	var r Log
	r.Timestamp = 25469139677502 + 1000*int64(i) + int64(d.rand(1000))
	shift := 1 + d.rand(31)
	r.ZoneID = d.next() >> shift
	r.ZonePlan = uint8(d.rand(5))
	r.HTTP.Protocol = uint8(d.rand(3))
	r.HTTP.Status = status[d.rand(16)]
	r.HTTP.HostStatus = status[d.rand(16)]
	r.HTTP.UpStatus = status[d.rand(16)]
	r.HTTP.Method = uint8(d.rand(11))
	r.HTTP.ContentType = contentTypes[d.rand(8)]
	r.HTTP.UserAgent = userAgents[d.rand(8)]
	r.HTTP.Referer = "https://" + d.letters(1+d.rand(12)) + ".com/"
	r.HTTP.Referer += d.letters(d.rand(40))
	r.HTTP.RequestURI = "/" + d.letters(d.rand(80))
	r.Origin.IP = d.ip()
	r.Origin.Port = uint16(d.rand(65536))
	r.Origin.Hostname = d.letters(1+d.rand(16)) + ".example.com"
	r.Origin.Protocol = uint8(d.rand(3))
	r.Country = uint8(d.rand(256))
	r.CacheStatus = uint8(d.rand(4))
	r.ServerIP = d.ip()
	r.ServerName = "metal" + strconv.FormatUint(uint64(d.rand(1000)), 10) + ".cloudflare.com"
	r.RemoteIP = d.ip()
	shift = 16 + d.rand(48)
	r.BytesDlv = d.u64() >> shift
	ray := d.u64()
	r.RayID = fmt.Sprintf("%016x-%s", ray, colos[d.rand(8)])
	return r
}

// Of returns the records of a case: the one record of log, or the first records of a
// fresh generator (Sizes). Every call returns new slices of equal records.
func Of(kase string) []Log {
	if kase == "log" {
		return []Log{log}
	}
	d := gen{rng.New()}
	recs := make([]Log, Sizes[kase])
	for i := range recs {
		recs[i] = d.record(i)
	}
	return recs
}

// Str is a string's term of the fold: its length plus its first and last byte (0 for an
// empty string). It takes the views of zero-copy readers as well as strings.
func Str[T string | []byte](s T) uint64 {
	if len(s) == 0 {
		return 0
	}
	return uint64(len(s)) + uint64(s[0]) + uint64(s[len(s)-1])
}

// Fold is a record's checksum (docs/workloads.md, codec: the fold): the wrapping sum of
// every integer field (enums as their numbers, timestamp as a signed i64) and of the ten
// strings' terms.
func (r *Log) Fold() uint64 {
	h, o := &r.HTTP, &r.Origin
	return uint64(r.Timestamp) + uint64(r.ZoneID) + uint64(r.ZonePlan) + uint64(h.Protocol) +
		uint64(h.Status) + uint64(h.HostStatus) + uint64(h.UpStatus) + uint64(h.Method) +
		uint64(o.Port) + uint64(o.Protocol) + uint64(r.Country) + uint64(r.CacheStatus) + r.BytesDlv +
		Str(h.ContentType) + Str(h.UserAgent) + Str(h.Referer) + Str(h.RequestURI) + Str(o.IP) +
		Str(o.Hostname) + Str(r.ServerIP) + Str(r.ServerName) + Str(r.RemoteIP) + Str(r.RayID)
}

// Fold is the sum of the records' folds.
func Fold(recs []Log) uint64 {
	var sum uint64
	for i := range recs {
		sum += recs[i].Fold()
	}
	return sum
}

// Compare returns nil if got equals want record by record, else an error naming the
// first record and field that differ.
func Compare(got, want []Log) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d records, expected %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("record %d: %s", i, diff(reflect.ValueOf(got[i]), reflect.ValueOf(want[i]), ""))
		}
	}
	return nil
}

// diff names the first field of two unequal structs that differs, with both values.
func diff(got, want reflect.Value, path string) string {
	for i := 0; i < got.NumField(); i++ {
		name := path + got.Type().Field(i).Name
		g, w := got.Field(i), want.Field(i)
		if g.Interface() == w.Interface() {
			continue
		}
		if g.Kind() == reflect.Struct {
			return diff(g, w, name+".")
		}
		return fmt.Sprintf("%s is %#v, expected %#v", name, g.Interface(), w.Interface())
	}
	return "equal"
}
