// capnp: Cap'n Proto (capnproto.org/go/capnp/v3) on the code capnpc-go generates from
// schemas/{log,logs}.capnp. populate builds the message: buffer reused keeps one Message
// over one 1 MiB single-segment arena and rewinds both for every message (as the rpc
// suite's reuse builders do: internal/rpc/capnp.go), fresh builds a new Message over a
// new MultiSegment arena. serialize writes the standard framing: reused with a kept
// Encoder into a kept buffer, fresh with Message.Marshal (a new buffer). deserialize:
// Unmarshal (the message reads the input in place), then a copy of every field into new
// plain structs, strings copied (owned) or viewed in the input (borrowed: the Text
// accessors' []byte views as strings); access folds the fields through the readers,
// building nothing. Every read is bounds-checked when it happens (validation lazy), within
// the driver's traversal and nesting limits (core/limits.go). packing packed: serialize
// writes the packed framing (reused: a kept packed Encoder, capnp.NewPackedEncoder, into
// the kept buffer; fresh: Message.MarshalPacked); deserialize and access unpack the input
// into a kept buffer (packed.Unpack, which capnp.UnmarshalPacked calls with a new one) and
// read the message there.
package codec

import (
	"bytes"

	capnp "capnproto.org/go/capnp/v3"
	capnppacked "capnproto.org/go/capnp/v3/packed"

	"wirebench/drivers/go/internal/codec/records"
	"wirebench/drivers/go/internal/core"
	cc "wirebench/drivers/go/internal/gen/capnp/codec"
)

// capnpArenaBytes is the kept arena of buffer reused: more than case logs10000 needs
// (about 4.5 MiB); a message that outgrew it would fail, not silently reallocate.
const capnpArenaBytes = 8 << 20

type capnpLib struct {
	batch, fresh, borrowed bool
	packed                 bool
	msg                    *capnp.Message // the populated message
	arena                  *capnp.SingleSegmentArena
	empty                  capnp.SingleSegmentArena // the kept arena as new: its buffer, length 0
	out                    bytes.Buffer
	enc                    *capnp.Encoder // into out
	unpacked               []byte         // packed: where reads unpack the input
	decoded                []records.Log
}

func newCapnp(v Variant) Impl {
	c := &capnpLib{batch: v.Batch, fresh: v.Fresh, borrowed: v.Borrowed, packed: v.Packed}
	if !v.Fresh {
		c.arena = capnp.SingleSegment(make([]byte, 0, capnpArenaBytes)).(*capnp.SingleSegmentArena)
		c.empty = *c.arena
		c.msg = new(capnp.Message)
		if v.Packed {
			c.enc = capnp.NewPackedEncoder(&c.out)
		} else {
			c.enc = capnp.NewEncoder(&c.out)
		}
	}
	if v.Packed {
		c.unpacked = make([]byte, 0, capnpArenaBytes)
	}
	return c
}

// unmarshal reads the message in in: in place, or (packed) unpacked into the kept buffer.
func (c *capnpLib) unmarshal(in []byte) (*capnp.Message, error) {
	if !c.packed {
		return capnp.Unmarshal(in)
	}
	b, err := capnppacked.Unpack(c.unpacked[:0], in)
	if err != nil {
		return nil, err
	}
	c.unpacked = b
	return capnp.Unmarshal(b)
}

// message returns an empty message and its first segment.
func (c *capnpLib) message() (*capnp.Message, *capnp.Segment, error) {
	if c.fresh {
		return capnp.NewMessage(capnp.MultiSegment(nil))
	}
	// Reset releases the message's arena, which empties it for good; detach it first and
	// rewind it by hand instead.
	c.msg.Arena = nil
	*c.arena = c.empty
	seg, err := c.msg.Reset(c.arena)
	return c.msg, seg, err
}

// capnpLimits sets the reading limits of a message to the driver's (core/limits.go)
// rather than go-capnp's defaults.
func capnpLimits(m *capnp.Message) {
	m.TraverseLimit = core.CapnpTraverseLimitBytes
	m.DepthLimit = core.CapnpNestingLimit
}

// errs keeps the first error of a sequence of calls.
type errs struct{ err error }

func (e *errs) add(err error) {
	if e.err == nil {
		e.err = err
	}
}

func capnpFill(m cc.Log, r *records.Log) error {
	var e errs
	m.SetTimestamp(r.Timestamp)
	m.SetZoneId(r.ZoneID)
	m.SetZonePlan(cc.ZonePlan(r.ZonePlan))
	h, err := m.NewHttp()
	if err != nil {
		return err
	}
	h.SetProtocol(cc.HttpProtocol(r.HTTP.Protocol))
	h.SetStatus(r.HTTP.Status)
	h.SetHostStatus(r.HTTP.HostStatus)
	h.SetUpStatus(r.HTTP.UpStatus)
	h.SetMethod(cc.Method(r.HTTP.Method))
	e.add(h.SetContentType(r.HTTP.ContentType))
	e.add(h.SetUserAgent(r.HTTP.UserAgent))
	e.add(h.SetReferer(r.HTTP.Referer))
	e.add(h.SetRequestUri(r.HTTP.RequestURI))
	o, err := m.NewOrigin()
	if err != nil {
		return err
	}
	e.add(o.SetIp(r.Origin.IP))
	o.SetPort(r.Origin.Port)
	e.add(o.SetHostname(r.Origin.Hostname))
	o.SetProtocol(cc.OriginProtocol(r.Origin.Protocol))
	m.SetCountry(cc.Country(r.Country))
	m.SetCacheStatus(cc.CacheStatus(r.CacheStatus))
	e.add(m.SetServerIp(r.ServerIP))
	e.add(m.SetServerName(r.ServerName))
	e.add(m.SetRemoteIp(r.RemoteIP))
	m.SetBytesDlv(r.BytesDlv)
	e.add(m.SetRayId(r.RayID))
	return e.err
}

func (c *capnpLib) Populate(recs []records.Log) error {
	msg, seg, err := c.message()
	if err != nil {
		return err
	}
	c.msg = msg
	if !c.batch {
		root, err := cc.NewRootLog(seg)
		if err != nil {
			return err
		}
		return capnpFill(root, &recs[0])
	}
	root, err := cc.NewRootLogs(seg)
	if err != nil {
		return err
	}
	list, err := root.NewLogs(int32(len(recs)))
	if err != nil {
		return err
	}
	for i := range recs {
		if err := capnpFill(list.At(i), &recs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (c *capnpLib) Serialize() ([]byte, error) {
	if c.fresh && c.packed {
		return c.msg.MarshalPacked()
	}
	if c.fresh {
		return c.msg.Marshal()
	}
	c.out.Reset()
	err := c.enc.Encode(c.msg)
	return c.out.Bytes(), err
}

// capnpLogs calls each with every Log of a message: its root (case log), or the root's
// list; n is called first with the count.
func capnpLogs(msg *capnp.Message, batch bool, n func(int), each func(int, cc.Log) error) error {
	if !batch {
		root, err := cc.ReadRootLog(msg)
		if err != nil {
			return err
		}
		n(1)
		return each(0, root)
	}
	root, err := cc.ReadRootLogs(msg)
	if err != nil {
		return err
	}
	list, err := root.Logs()
	if err != nil {
		return err
	}
	n(list.Len())
	for i := 0; i < list.Len(); i++ {
		if err := each(i, list.At(i)); err != nil {
			return err
		}
	}
	return nil
}

// capnpText reads the texts of a record as []byte views, keeping the first error.
type capnpText struct{ errs }

func (t *capnpText) get(b []byte, err error) []byte {
	t.add(err)
	return b
}

func (c *capnpLib) record(m cc.Log, out *records.Log) error {
	str := ownedString
	if c.borrowed {
		str = viewString
	}
	var t capnpText
	h, err := m.Http()
	if err != nil {
		return err
	}
	o, err := m.Origin()
	if err != nil {
		return err
	}
	*out = records.Log{
		Timestamp: m.Timestamp(), ZoneID: m.ZoneId(), ZonePlan: uint8(m.ZonePlan()),
		HTTP: records.HTTP{Protocol: uint8(h.Protocol()), Status: h.Status(), HostStatus: h.HostStatus(),
			UpStatus: h.UpStatus(), Method: uint8(h.Method()),
			ContentType: str(t.get(h.ContentTypeBytes())), UserAgent: str(t.get(h.UserAgentBytes())),
			Referer: str(t.get(h.RefererBytes())), RequestURI: str(t.get(h.RequestUriBytes()))},
		Origin: records.Origin{IP: str(t.get(o.IpBytes())), Port: o.Port(),
			Hostname: str(t.get(o.HostnameBytes())), Protocol: uint8(o.Protocol())},
		Country: uint8(m.Country()), CacheStatus: uint8(m.CacheStatus()),
		ServerIP: str(t.get(m.ServerIpBytes())), ServerName: str(t.get(m.ServerNameBytes())),
		RemoteIP: str(t.get(m.RemoteIpBytes())), BytesDlv: m.BytesDlv(), RayID: str(t.get(m.RayIdBytes())),
	}
	return t.err
}

func (c *capnpLib) Deserialize(in []byte) (uint64, error) {
	msg, err := c.unmarshal(in)
	if err != nil {
		return 0, err
	}
	capnpLimits(msg)
	var recs []records.Log
	err = capnpLogs(msg, c.batch, func(n int) { recs = make([]records.Log, n) },
		func(i int, m cc.Log) error { return c.record(m, &recs[i]) })
	if err != nil {
		return 0, err
	}
	c.decoded = recs
	return records.Fold(recs), nil
}

func capnpFold(m cc.Log) (uint64, error) {
	var t capnpText
	h, err := m.Http()
	if err != nil {
		return 0, err
	}
	o, err := m.Origin()
	if err != nil {
		return 0, err
	}
	sum := uint64(m.Timestamp()) + uint64(m.ZoneId()) + uint64(m.ZonePlan()) + uint64(h.Protocol()) +
		uint64(h.Status()) + uint64(h.HostStatus()) + uint64(h.UpStatus()) + uint64(h.Method()) +
		uint64(o.Port()) + uint64(o.Protocol()) + uint64(m.Country()) + uint64(m.CacheStatus()) + m.BytesDlv() +
		records.Str(t.get(h.ContentTypeBytes())) + records.Str(t.get(h.UserAgentBytes())) +
		records.Str(t.get(h.RefererBytes())) + records.Str(t.get(h.RequestUriBytes())) +
		records.Str(t.get(o.IpBytes())) + records.Str(t.get(o.HostnameBytes())) +
		records.Str(t.get(m.ServerIpBytes())) + records.Str(t.get(m.ServerNameBytes())) +
		records.Str(t.get(m.RemoteIpBytes())) + records.Str(t.get(m.RayIdBytes()))
	return sum, t.err
}

func (c *capnpLib) Access(in []byte) (uint64, error) {
	msg, err := c.unmarshal(in)
	if err != nil {
		return 0, err
	}
	capnpLimits(msg)
	var sum uint64
	err = capnpLogs(msg, c.batch, func(int) {}, func(_ int, m cc.Log) error {
		f, err := capnpFold(m)
		sum += f
		return err
	})
	return sum, err
}

func (c *capnpLib) Populated() ([]records.Log, error) {
	b, err := c.msg.Marshal()
	if err != nil {
		return nil, err
	}
	reader := &capnpLib{batch: c.batch}
	if _, err := reader.Deserialize(b); err != nil {
		return nil, err
	}
	return reader.decoded, nil
}

func (c *capnpLib) Deserialized() ([]records.Log, error) { return c.decoded, nil }
