// The rpc suite on Cap'n Proto (capnproto.org/go/capnp/v3), doing per iteration the work
// of the C++ driver (drivers/cpp/src/rpc/capnp.cpp), itself after the reference programs:
//   - reuse: each builder keeps one Message and one 1 MiB single-segment arena (128 Ki
//     words, the size of the C++ driver's scratch first segment) and resets both for every
//     message; go-capnp zeroes what each object allocates, so the stale bytes of the
//     previous message are never seen. Readers keep a Message, a read-only arena and a
//     frame buffer, and read single-segment messages in place.
//   - no-reuse: a fresh Message over a fresh MultiSegment arena for every message, never
//     released (so go-capnp's pools stay empty and every segment is a new allocation), and
//     go-capnp's own Unmarshal for reading (of a fresh frame buffer, read by readFrame so
//     that the limits are the driver's own; a fresh Message each).
//   - limits (core/limits.go): a frame over core.MaxMessageBytes is refused before it is
//     allocated, and every Message read has its traversal and nesting limits set.
//   - bytes: messages go through a kept byte buffer (in both reuse modes, as in the C++
//     driver), framed with the standard segment table and packed piece by piece with
//     packed.Pack (the segment table, then each segment: what the C++ packed stream does).
//   - pipe: go-capnp's Encoder (or packed Encoder) into a buffered writer flushed after
//     every message; bytes are counted at the fd (every byte written plus every byte read).
//   - catrank text is read with the *Bytes accessors (no copy) and written from byte
//     slices viewed as strings (the setters copy them into the segment at once).
package rpc

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unsafe"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/packed"

	"wirebench/drivers/go/internal/core"
	cs "wirebench/drivers/go/internal/gen/capnp/carsales"
	cr "wirebench/drivers/go/internal/gen/capnp/catrank"
	ev "wirebench/drivers/go/internal/gen/capnp/eval"
	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
)

// ---- cases ------------------------------------------------------------------------------

// capnpCase is one case on Cap'n Proto messages; values are digest terms.
type capnpCase interface {
	// setup builds a request as the root of seg's message, drawing from g; it returns the
	// generator's next state and the request's expectation.
	setup(g rng.Rng, seg *capnp.Segment) (rng.Rng, uint64, error)
	// handle reads the request and builds the response as the root of seg's message.
	handle(req *capnp.Message, seg *capnp.Segment) error
	// answer reads a response's answer.
	answer(resp *capnp.Message) (uint64, error)
}

// str views b as a string without copying, for setters that copy it into the message
// before b changes.
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

type capnpCarSales struct{}

func capnpCarValue(car cs.Car) (uint64, error) {
	wheels, err := car.Wheels()
	if err != nil {
		return 0, err
	}
	engine, err := car.Engine()
	if err != nil {
		return 0, err
	}
	f := cases.CarFacts{
		Seats:         uint32(car.Seats()),
		Doors:         uint32(car.Doors()),
		Length:        uint32(car.Length()),
		Width:         uint32(car.Width()),
		Height:        uint32(car.Height()),
		Horsepower:    uint32(engine.Horsepower()),
		UsesGas:       engine.UsesGas(),
		UsesElectric:  engine.UsesElectric(),
		PowerWindows:  car.HasPowerWindows(),
		PowerSteering: car.HasPowerSteering(),
		CruiseControl: car.HasCruiseControl(),
		NavSystem:     car.HasNavSystem(),
		CupHolders:    uint32(car.CupHolders()),
	}
	for i := 0; i < wheels.Len(); i++ {
		w := wheels.At(i)
		f.WheelSum += cases.WheelValue(uint32(w.Diameter()), w.SnowTires())
	}
	return cases.CarValue(&f), nil
}

func capnpRandomCar(g rng.Rng, car cs.Car) (rng.Rng, error) {
	var make, model, v uint32
	var d float64
	g, make = g.Rand(5)
	if err := car.SetMake(cases.Makes[make]); err != nil {
		return g, err
	}
	g, model = g.Rand(6)
	if err := car.SetModel(cases.Models[model]); err != nil {
		return g, err
	}
	g, v = g.Rand(cases.Colors)
	car.SetColor(cs.Color(v))
	g, v = g.Rand(6)
	car.SetSeats(uint8(2 + v))
	g, v = g.Rand(3)
	car.SetDoors(uint8(2 + v))
	wheels, err := car.NewWheels(4)
	if err != nil {
		return g, err
	}
	for i := 0; i < 4; i++ {
		w := wheels.At(i)
		g, v = g.Rand(15)
		w.SetDiameter(uint16(25 + v))
		g, d = g.RandDouble(20)
		w.SetAirPressure(float32(30 + d))
		g, v = g.Rand(16)
		w.SetSnowTires(v == 0)
	}
	var length, width, height uint32
	g, length = g.Rand(150)
	g, width = g.Rand(36)
	g, height = g.Rand(48)
	length, width, height = 170+length, 48+width, 54+height
	car.SetLength(uint16(length))
	car.SetWidth(uint16(width))
	car.SetHeight(uint16(height))
	car.SetWeight(length * width * height / 200)
	e, err := car.NewEngine()
	if err != nil {
		return g, err
	}
	g, v = g.Rand(400)
	e.SetHorsepower(uint16(100 * v))
	g, v = g.Rand(3)
	e.SetCylinders(uint8(4 + 2*v))
	g, v = g.Rand(10000)
	e.SetCc(800 + v)
	e.SetUsesGas(true)
	g, v = g.Rand(2)
	e.SetUsesElectric(v != 0)
	g, d = g.RandDouble(30)
	capacity := float32(10 + d)
	car.SetFuelCapacity(capacity)
	g, d = g.RandDouble(float64(capacity))
	car.SetFuelLevel(float32(d))
	g, v = g.Rand(2)
	car.SetHasPowerWindows(v != 0)
	g, v = g.Rand(2)
	car.SetHasPowerSteering(v != 0)
	g, v = g.Rand(2)
	car.SetHasCruiseControl(v != 0)
	g, v = g.Rand(12)
	car.SetCupHolders(uint8(v))
	g, v = g.Rand(2)
	car.SetHasNavSystem(v != 0)
	return g, nil
}

func (capnpCarSales) setup(g rng.Rng, seg *capnp.Segment) (rng.Rng, uint64, error) {
	lot, err := cs.NewRootParkingLot(seg)
	if err != nil {
		return g, 0, err
	}
	var n uint32
	g, n = g.Rand(200)
	cars, err := lot.NewCars(int32(n))
	if err != nil {
		return g, 0, err
	}
	var total uint64
	for i := 0; i < cars.Len(); i++ {
		car := cars.At(i)
		if g, err = capnpRandomCar(g, car); err != nil {
			return g, 0, err
		}
		v, err := capnpCarValue(car)
		if err != nil {
			return g, 0, err
		}
		total += v
	}
	return g, total, nil
}

func (capnpCarSales) handle(req *capnp.Message, seg *capnp.Segment) error {
	out, err := cs.NewRootTotalValue(seg)
	if err != nil {
		return err
	}
	lot, err := cs.ReadRootParkingLot(req)
	if err != nil {
		return err
	}
	cars, err := lot.Cars()
	if err != nil {
		return err
	}
	var total uint64
	for i := 0; i < cars.Len(); i++ {
		v, err := capnpCarValue(cars.At(i))
		if err != nil {
			return err
		}
		total += v
	}
	out.SetAmount(total)
	return nil
}

func (capnpCarSales) answer(resp *capnp.Message) (uint64, error) {
	tv, err := cs.ReadRootTotalValue(resp)
	if err != nil {
		return 0, err
	}
	return tv.Amount(), nil
}

// scored is a result's new score and its index in the request, sorted by the server.
type scored struct {
	score float64
	index int32
}

// byScoreDescending orders results highest score first (scores are distinct here).
func byScoreDescending(a, b scored) int { return cmp.Compare(b.score, a.score) }

// capnpCatRank keeps scratch space of the driver's own (not message memory): the url
// and snippet being drawn, and the server's sort index.
type capnpCatRank struct {
	url, snippet []byte
	scored       []scored
}

func (c *capnpCatRank) setup(g rng.Rng, seg *capnp.Segment) (rng.Rng, uint64, error) {
	list, err := cr.NewRootSearchResultList(seg)
	if err != nil {
		return g, 0, err
	}
	var count uint32
	g, count = g.Rand(1000)
	results, err := list.NewResults(int32(count))
	if err != nil {
		return g, 0, err
	}
	var good uint64
	for i := 0; i < int(count); i++ {
		r := results.At(i)
		r.SetScore(float64(1000 - i))
		g, c.url = cases.AppendURL(g, c.url[:0])
		if err := r.SetUrl(str(c.url)); err != nil {
			return g, 0, err
		}
		var ok bool
		g, c.snippet, ok = cases.AppendSnippet(g, c.snippet[:0])
		if err := r.SetSnippet(str(c.snippet)); err != nil {
			return g, 0, err
		}
		if ok {
			good++
		}
	}
	return g, good, nil
}

func (c *capnpCatRank) handle(req *capnp.Message, seg *capnp.Segment) error {
	out, err := cr.NewRootSearchResultList(seg)
	if err != nil {
		return err
	}
	in, err := cr.ReadRootSearchResultList(req)
	if err != nil {
		return err
	}
	results, err := in.Results()
	if err != nil {
		return err
	}
	n := results.Len()
	c.scored = c.scored[:0]
	for i := 0; i < n; i++ {
		r := results.At(i)
		snippet, err := r.SnippetBytes()
		if err != nil {
			return err
		}
		c.scored = append(c.scored, scored{cases.Rescore(r.Score(), snippet), int32(i)})
	}
	slices.SortFunc(c.scored, byScoreDescending)
	list, err := out.NewResults(int32(n))
	if err != nil {
		return err
	}
	for i, s := range c.scored {
		o, r := list.At(i), results.At(int(s.index))
		o.SetScore(s.score)
		url, err := r.UrlBytes()
		if err != nil {
			return err
		}
		if err := o.SetUrl(str(url)); err != nil {
			return err
		}
		snippet, err := r.SnippetBytes()
		if err != nil {
			return err
		}
		if err := o.SetSnippet(str(snippet)); err != nil {
			return err
		}
	}
	return nil
}

func (*capnpCatRank) answer(resp *capnp.Message) (uint64, error) {
	list, err := cr.ReadRootSearchResultList(resp)
	if err != nil {
		return 0, err
	}
	results, err := list.Results()
	if err != nil {
		return 0, err
	}
	var good uint64
	for i := 0; i < results.Len() && cases.Good(results.At(i).Score()); i++ {
		good++
	}
	return good, nil
}

type capnpEval struct{}

func capnpMake(g rng.Rng, e ev.Expression, depth uint32) (rng.Rng, int32, error) {
	var op, v uint32
	var left, right int32
	g, op = g.Rand(cases.Ops)
	e.SetOp(ev.Operation(op))
	if g, v = g.Rand(8); v < depth {
		g, v = g.Rand(128)
		left = int32(v + 1)
		e.Left().SetValue(left)
	} else {
		sub, err := e.Left().NewExpression()
		if err != nil {
			return g, 0, err
		}
		if g, left, err = capnpMake(g, sub, depth+1); err != nil {
			return g, 0, err
		}
	}
	if g, v = g.Rand(8); v < depth {
		g, v = g.Rand(128)
		right = int32(v + 1)
		e.Right().SetValue(right)
	} else {
		sub, err := e.Right().NewExpression()
		if err != nil {
			return g, 0, err
		}
		if g, right, err = capnpMake(g, sub, depth+1); err != nil {
			return g, 0, err
		}
	}
	return g, cases.Apply(op, left, right), nil
}

func capnpEvaluate(e ev.Expression) (int32, error) {
	var left, right int32
	switch l := e.Left(); l.Which() {
	case ev.Expression_left_Which_value:
		left = l.Value()
	case ev.Expression_left_Which_expression:
		sub, err := l.Expression()
		if err != nil {
			return 0, err
		}
		if left, err = capnpEvaluate(sub); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("eval: unknown left operand %d", l.Which())
	}
	switch r := e.Right(); r.Which() {
	case ev.Expression_right_Which_value:
		right = r.Value()
	case ev.Expression_right_Which_expression:
		sub, err := r.Expression()
		if err != nil {
			return 0, err
		}
		if right, err = capnpEvaluate(sub); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("eval: unknown right operand %d", r.Which())
	}
	op := uint32(e.Op())
	if op >= cases.Ops {
		return 0, fmt.Errorf("eval: unknown operation %d", op)
	}
	return cases.Apply(op, left, right), nil
}

func (capnpEval) setup(g rng.Rng, seg *capnp.Segment) (rng.Rng, uint64, error) {
	e, err := ev.NewRootExpression(seg)
	if err != nil {
		return g, 0, err
	}
	g, v, err := capnpMake(g, e, 0)
	return g, cases.EvalTerm(v), err
}

func (capnpEval) handle(req *capnp.Message, seg *capnp.Segment) error {
	out, err := ev.NewRootEvaluationResult(seg)
	if err != nil {
		return err
	}
	e, err := ev.ReadRootExpression(req)
	if err != nil {
		return err
	}
	v, err := capnpEvaluate(e)
	if err != nil {
		return err
	}
	out.SetValue(v)
	return nil
}

func (capnpEval) answer(resp *capnp.Message) (uint64, error) {
	r, err := ev.ReadRootEvaluationResult(resp)
	if err != nil {
		return 0, err
	}
	return cases.EvalTerm(r.Value()), nil
}

// ---- memory -----------------------------------------------------------------------------

// scratchBytes is the kept first segment of a reuse builder: 128 Ki words, as in the C++
// driver, more than the largest message of any case needs (catrank, about 55 Ki words).
const scratchBytes = 128 << 10 * 8

// capnpBuilder gives the message each request or response is built in.
type capnpBuilder struct {
	reuse bool
	msg   *capnp.Message
	arena *capnp.SingleSegmentArena
	empty capnp.SingleSegmentArena // the kept arena as new: its buffer, length 0
	// enc writes this builder's messages to the stream of to (pipe modes).
	enc *capnp.Encoder
	to  *conn
}

func newCapnpBuilder(reuse bool) *capnpBuilder {
	b := &capnpBuilder{reuse: reuse}
	if reuse {
		// An arena over a caller's buffer never reallocates it (it has no buffer pool):
		// a message that outgrew it would fail, not silently copy.
		b.arena = capnp.SingleSegment(make([]byte, 0, scratchBytes)).(*capnp.SingleSegmentArena)
		b.empty = *b.arena
		b.msg = new(capnp.Message)
	}
	return b
}

// message returns an empty message and its first segment.
func (b *capnpBuilder) message() (*capnp.Message, *capnp.Segment, error) {
	if !b.reuse {
		return capnp.NewMessage(capnp.MultiSegment(nil))
	}
	// Reset releases the message's arena, which empties it for good; detach it first and
	// rewind it by hand instead.
	b.msg.Arena = nil
	*b.arena = b.empty
	seg, err := b.msg.Reset(b.arena)
	return b.msg, seg, err
}

// write writes m to c's buffered stream with go-capnp's Encoder (or packed Encoder),
// kept while the stream is the same, and flushes it.
func (b *capnpBuilder) write(c *conn, m *capnp.Message, isPacked bool) error {
	if b.to != c {
		if isPacked {
			b.enc = capnp.NewPackedEncoder(c.w)
		} else {
			b.enc = capnp.NewEncoder(c.w)
		}
		b.to = c
	}
	if err := b.enc.Encode(m); err != nil {
		return err
	}
	return c.w.Flush()
}

// capnpReader reads the messages of one role (server request or client response).
type capnpReader struct {
	reuse bool
	// reuse: the kept message, its read-only single-segment arena, and the buffer that
	// holds the current frame (stream) or unpacked bytes (bytes mode, packed).
	msg   *capnp.Message
	arena *capnp.ReadOnlySingleSegment
	buf   []byte
	// the stream being read (pipe modes): from's buffered reader, or its unpacking.
	from *conn
	src  io.Reader
}

func newCapnpReader(reuse bool) *capnpReader {
	r := &capnpReader{reuse: reuse}
	if reuse {
		r.msg = capnpLimits(new(capnp.Message))
		r.arena = capnp.NewReadOnlySingleSegment(nil)
	}
	return r
}

// capnpLimits sets m's reading limits to the driver's (core/limits.go) rather than
// go-capnp's defaults, and returns m. Message.Reset keeps them.
func capnpLimits(m *capnp.Message) *capnp.Message {
	m.TraverseLimit = core.CapnpTraverseLimitBytes
	m.DepthLimit = core.CapnpNestingLimit
	return m
}

// capnpUnmarshal is go-capnp's Unmarshal (the message reads data in place) with the
// driver's limits.
func capnpUnmarshal(data []byte) (*capnp.Message, error) {
	m, err := capnp.Unmarshal(data)
	if err != nil {
		return nil, err
	}
	return capnpLimits(m), nil
}

// read reads the next message of c's stream; io.EOF at a clean end of file. The stream
// (its unpacking) is kept while c is the same.
func (r *capnpReader) read(c *conn, isPacked bool) (*capnp.Message, error) {
	if r.from != c {
		r.from, r.src = c, c.r
		if isPacked {
			r.src = packed.NewReader(c.r)
		}
	}
	if !r.reuse {
		frame, err := readFrame(r.src, nil)
		if err != nil {
			return nil, err
		}
		return capnpUnmarshal(frame)
	}
	frame, err := readFrame(r.src, r.buf)
	r.buf = frame
	if err != nil {
		return nil, err
	}
	return r.fromFrame(frame)
}

// fromBytes reads the message serialized (and maybe packed) in data.
func (r *capnpReader) fromBytes(data []byte, isPacked bool) (*capnp.Message, error) {
	if !r.reuse {
		if isPacked {
			unpacked, err := packed.Unpack(nil, data)
			if err != nil {
				return nil, fmt.Errorf("corrupt packed message: %w", err)
			}
			data = unpacked
		}
		return capnpUnmarshal(data)
	}
	if isPacked {
		var err error
		if r.buf, err = packed.Unpack(r.buf[:0], data); err != nil {
			return nil, fmt.Errorf("corrupt packed message: %w", err)
		}
		data = r.buf
	}
	return r.fromFrame(data)
}

// fromFrame reads a single-segment frame in place with the kept message and arena. A
// multi-segment frame (only a foreign no-reuse peer sends one) goes to Unmarshal.
func (r *capnpReader) fromFrame(frame []byte) (*capnp.Message, error) {
	if len(frame) < 8 {
		return nil, errors.New("corrupt message: short segment table")
	}
	if binary.LittleEndian.Uint32(frame) != 0 {
		return capnpUnmarshal(frame)
	}
	size := uint64(binary.LittleEndian.Uint32(frame[4:])) * 8
	if size > uint64(len(frame)-8) {
		return nil, errors.New("corrupt message: short segment")
	}
	r.msg.Arena = nil // as in capnpBuilder.message: Reset must not release the kept arena
	r.arena.Release()
	r.arena.ReplaceData(frame[8 : 8+size])
	if _, err := r.msg.Reset(r.arena); err != nil {
		return nil, err
	}
	return r.msg, nil
}

// maxSegments bounds a frame's segment table (2 KiB), as go-capnp's Decoder does: the
// driver's messages have one segment (reuse) or a few (no-reuse); more is a corrupt frame.
const maxSegments = 512

// readFrame reads one message's segment table and segments from src into buf (grown if
// needed) and returns them; io.EOF at a clean end of file before the first byte. A frame
// over core.MaxMessageBytes is refused before its segments are allocated or read.
func readFrame(src io.Reader, buf []byte) ([]byte, error) {
	var first [8]byte
	if _, err := io.ReadFull(src, first[:]); err != nil {
		if err == io.EOF {
			return buf, io.EOF
		}
		return buf, fmt.Errorf("truncated Cap'n Proto segment table: %w", err)
	}
	segments := uint64(binary.LittleEndian.Uint32(first[:])) + 1
	if segments > maxSegments {
		return buf, fmt.Errorf("corrupt Cap'n Proto stream: %d segments, over the limit of %d", segments,
			maxSegments)
	}
	table := int((segments+1)*4+7) &^ 7
	buf = buf[:0]
	if first1 := uint64(binary.LittleEndian.Uint32(first[4:])) * 8; segments == 1 &&
		uint64(cap(buf)) < 8+first1 && first1 <= readChunk {
		buf = make([]byte, 0, 8+first1) // one allocation for a fresh buffer
	}
	buf = append(buf, first[:]...)
	var err error
	if buf, err = readBody(src, buf, table-8); err != nil {
		return buf, fmt.Errorf("truncated Cap'n Proto segment table: %w", noEOF(err))
	}
	var total uint64
	for i := uint64(0); i < segments; i++ {
		total += uint64(binary.LittleEndian.Uint32(buf[4+4*i:])) * 8
	}
	if uint64(table)+total > core.MaxMessageBytes {
		return buf, core.TooLong("corrupt Cap'n Proto stream", uint64(table)+total)
	}
	if buf, err = readBody(src, buf, int(total)); err != nil {
		return buf, fmt.Errorf("truncated Cap'n Proto message of %d bytes: %w", total, noEOF(err))
	}
	return buf, nil
}

// ---- the cell ---------------------------------------------------------------------------

type capnpImpl struct {
	kase   capnpCase
	packed bool
	// b1, b4 build the client's request and the server's response; r3, r6 read the
	// server's request and the client's response (the C++ driver's six scratch spaces,
	// with s2 and s5, the bytes buffers, below).
	b1, b4 *capnpBuilder
	r3, r6 *capnpReader
	s2, s5 []byte
	table  []byte
}

func newCapnp(kase, compression string, reuse bool) Impl {
	var k capnpCase
	switch kase {
	case "carsales":
		k = capnpCarSales{}
	case "catrank":
		k = &capnpCatRank{}
	case "eval":
		k = capnpEval{}
	default:
		return nil
	}
	return &capnpImpl{
		kase:   k,
		packed: compression == "packed",
		b1:     newCapnpBuilder(reuse),
		b4:     newCapnpBuilder(reuse),
		r3:     newCapnpReader(reuse),
		r6:     newCapnpReader(reuse),
		s2:     make([]byte, 0, scratchBytes),
		s5:     make([]byte, 0, scratchBytes),
	}
}

// request builds a request from g with b1; it returns the message and its expectation.
func (c *capnpImpl) request(g *rng.Rng) (*capnp.Message, uint64, error) {
	rq, seg, err := c.b1.message()
	if err != nil {
		return nil, 0, err
	}
	var expected uint64
	*g, expected, err = c.kase.setup(*g, seg)
	return rq, expected, err
}

// respond handles req into a response built with b4.
func (c *capnpImpl) respond(req *capnp.Message) (*capnp.Message, error) {
	rs, seg, err := c.b4.message()
	if err != nil {
		return nil, err
	}
	return rs, c.kase.handle(req, seg)
}

// serialize appends m in the standard framing to dst, packed piece by piece (segment
// table, then each segment) if the cell is packed, as C++'s writePackedMessage does.
func (c *capnpImpl) serialize(dst []byte, m *capnp.Message) ([]byte, error) {
	n := m.NumSegments()
	c.table = binary.LittleEndian.AppendUint32(c.table[:0], uint32(n-1))
	for i := int64(0); i < n; i++ {
		s, err := m.Segment(capnp.SegmentID(i))
		if err != nil {
			return dst, err
		}
		c.table = binary.LittleEndian.AppendUint32(c.table, uint32(len(s.Data())/8))
	}
	if len(c.table)%8 != 0 {
		c.table = binary.LittleEndian.AppendUint32(c.table, 0)
	}
	dst = c.appendPiece(dst, c.table)
	for i := int64(0); i < n; i++ {
		s, _ := m.Segment(capnp.SegmentID(i))
		dst = c.appendPiece(dst, s.Data())
	}
	return dst, nil
}

func (c *capnpImpl) appendPiece(dst, piece []byte) []byte {
	if c.packed {
		return packed.Pack(dst, piece)
	}
	return append(dst, piece...)
}

func (c *capnpImpl) Object(g *rng.Rng) (uint64, uint64, error) {
	req, expected, err := c.request(g)
	if err != nil {
		return 0, 0, err
	}
	resp, err := c.respond(req)
	if err != nil {
		return 0, 0, err
	}
	answer, err := c.kase.answer(resp)
	return expected, answer, err
}

func (c *capnpImpl) Bytes(g *rng.Rng) (uint64, uint64, uint64, error) {
	rq, expected, err := c.request(g)
	if err != nil {
		return 0, 0, 0, err
	}
	if c.s2, err = c.serialize(c.s2[:0], rq); err != nil {
		return 0, 0, 0, err
	}
	req, err := c.r3.fromBytes(c.s2, c.packed)
	if err != nil {
		return 0, 0, 0, err
	}
	rs, err := c.respond(req)
	if err != nil {
		return 0, 0, 0, err
	}
	if c.s5, err = c.serialize(c.s5[:0], rs); err != nil {
		return 0, 0, 0, err
	}
	resp, err := c.r6.fromBytes(c.s5, c.packed)
	if err != nil {
		return 0, 0, 0, err
	}
	answer, err := c.kase.answer(resp)
	return expected, answer, uint64(len(c.s2) + len(c.s5)), err
}

func (c *capnpImpl) Send(g *rng.Rng, to *conn) (uint64, error) {
	rq, expected, err := c.request(g)
	if err != nil {
		return 0, err
	}
	return expected, c.b1.write(to, rq, c.packed)
}

func (c *capnpImpl) Receive(from *conn) (uint64, error) {
	resp, err := c.r6.read(from, c.packed)
	if err != nil {
		return 0, err
	}
	return c.kase.answer(resp)
}

func (c *capnpImpl) Serve(on *conn) error {
	req, err := c.r3.read(on, c.packed)
	if err != nil {
		return err
	}
	rs, err := c.respond(req)
	if err != nil {
		return err
	}
	return c.b4.write(on, rs, c.packed)
}
