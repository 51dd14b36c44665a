// The rpc suite with no serialization library: plain Go structs, the floor the libraries
// are measured against. The byte format is the C++ driver's, documented at the top of
// drivers/cpp/src/rpc/null.cpp (little-endian, no padding; str = u32 count + bytes; list =
// u32 count + elements; bool = u8 0/1; eval: op u8, kinds u8 (bit 0 left is an
// Expression, bit 1 right), operands pre-order; a reader accepts a message only if it is
// exactly consumed and every value is in range). On a pipe each message is a u32 LE byte
// count followed by the message; `bytes` counts the messages only, pipes the prefixes too.
//
// Memory: reuse keeps every message's structs, lists and texts (a list re-slices its kept
// elements, whose byte slices keep their capacity, so after warm-up a message allocates
// nothing), like the C++ arena and the Rust driver's Slots; no-reuse builds every message
// afresh (every list and text its own allocation, left to the garbage collector). Byte
// buffers follow the same rule.
package rpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"wirebench/drivers/go/internal/core"
	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
)

// ---- the byte format ----------------------------------------------------------------------

type nullWriter struct{ b []byte }

func (w *nullWriter) u8(v uint8)   { w.b = append(w.b, v) }
func (w *nullWriter) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *nullWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *nullWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *nullWriter) f32(v float32) {
	w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(v))
}
func (w *nullWriter) f64(v float64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
}
func (w *nullWriter) boolean(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *nullWriter) str(s []byte) {
	w.u32(uint32(len(s)))
	w.b = append(w.b, s...)
}

// nullReader reads the format with a sticky error: after the first problem every read
// gives zero and the message is refused (loops are bounded by count, below).
type nullReader struct {
	p   []byte
	err error
}

var errNullTruncated = errors.New("null: truncated message")

func (r *nullReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.p) < n {
		r.err = errNullTruncated
		return nil
	}
	b := r.p[:n]
	r.p = r.p[n:]
	return b
}

func (r *nullReader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}
func (r *nullReader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}
func (r *nullReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
func (r *nullReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
func (r *nullReader) i32() int32   { return int32(r.u32()) }
func (r *nullReader) f32() float32 { return math.Float32frombits(r.u32()) }
func (r *nullReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *nullReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("null: corrupt message: "+format, args...)
	}
}

func (r *nullReader) boolean() bool {
	switch b := r.u8(); b {
	case 0:
		return false
	case 1:
		return true
	default:
		r.fail("bool byte %d", b)
		return false
	}
}

// below reads a u8 that must be less than limit.
func (r *nullReader) below(limit uint8, what string) uint8 {
	v := r.u8()
	if v >= limit {
		r.fail("%s %d", what, v)
		return 0
	}
	return v
}

// strInto reads a str into out (emptied first, capacity kept).
func (r *nullReader) strInto(out []byte) []byte {
	n := r.u32()
	return append(out[:0], r.take(int(n))...)
}

// count reads an element count, refused if the rest cannot hold that many elements.
func (r *nullReader) count(minElementBytes int) int {
	n := r.u32()
	if r.err == nil && int(n) > len(r.p)/minElementBytes {
		r.fail("list of %d elements in %d bytes", n, len(r.p))
		return 0
	}
	return int(n)
}

func (r *nullReader) finish() error {
	if r.err == nil && len(r.p) != 0 {
		r.fail("%d bytes after the end", len(r.p))
	}
	return r.err
}

// nullMsg is a message of the null format.
type nullMsg interface {
	encode(w *nullWriter)
	decode(r *nullReader)
}

// nullCase is one case on null messages; values are digest terms. setup and handle fill
// a fresh or a kept message (overwriting everything).
type nullCase interface {
	newRequest() nullMsg
	newResponse() nullMsg
	setup(g rng.Rng, req nullMsg) (rng.Rng, uint64)
	handle(req, resp nullMsg) error
	answer(resp nullMsg) uint64
}

// extend returns s one element longer; the new element is a kept one (its slices keep
// their capacity) while s has capacity, else a zero one.
func extend[T any](s []T) ([]T, *T) {
	if len(s) < cap(s) {
		s = s[:len(s)+1]
	} else {
		var zero T
		s = append(s, zero)
	}
	return s, &s[len(s)-1]
}

// ---- carsales -----------------------------------------------------------------------------

type nullWheel struct {
	diameter    uint16
	airPressure float32
	snowTires   bool
}

type nullEngine struct {
	horsepower            uint16
	cylinders             uint8
	cc                    uint32
	usesGas, usesElectric bool
}

type nullCar struct {
	make, model                                         []byte
	color, seats, doors                                 uint8
	wheels                                              []nullWheel
	length, width, height                               uint16
	weight                                              uint32
	engine                                              nullEngine
	fuelCapacity, fuelLevel                             float32
	hasPowerWindows, hasPowerSteering, hasCruiseControl bool
	cupHolders                                          uint8
	hasNavSystem                                        bool
}

type nullParkingLot struct{ cars []nullCar }
type nullTotalValue struct{ amount uint64 }

const (
	nullWheelBytes    = 2 + 4 + 1
	nullEngineBytes   = 2 + 1 + 4 + 1 + 1
	nullCarFixedBytes = 4 + 4 + 3 + 4 + 6 + 4 + nullEngineBytes + 8 + 5
)

func nullCarValue(car *nullCar) uint64 {
	f := cases.CarFacts{
		Seats:         uint32(car.seats),
		Doors:         uint32(car.doors),
		Length:        uint32(car.length),
		Width:         uint32(car.width),
		Height:        uint32(car.height),
		Horsepower:    uint32(car.engine.horsepower),
		UsesGas:       car.engine.usesGas,
		UsesElectric:  car.engine.usesElectric,
		PowerWindows:  car.hasPowerWindows,
		PowerSteering: car.hasPowerSteering,
		CruiseControl: car.hasCruiseControl,
		NavSystem:     car.hasNavSystem,
		CupHolders:    uint32(car.cupHolders),
	}
	for _, w := range car.wheels {
		f.WheelSum += cases.WheelValue(uint32(w.diameter), w.snowTires)
	}
	return cases.CarValue(&f)
}

// A car after its make and model: color, seats, doors, the wheel count, the wheels, then
// the fixed tail (length .. hasNavSystem). Encoded and decoded as one block each, so that
// bounds are checked once per car, not once per field.
const (
	nullCarHeadBytes = 3 + 4
	nullCarTailBytes = 3*2 + 4 + nullEngineBytes + 2*4 + 5
)

func b2u(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (m *nullParkingLot) encode(w *nullWriter) {
	le := binary.LittleEndian
	w.u32(uint32(len(m.cars)))
	for i := range m.cars {
		car := &m.cars[i]
		w.str(car.make)
		w.str(car.model)
		start := len(w.b)
		n := nullCarHeadBytes + len(car.wheels)*nullWheelBytes + nullCarTailBytes
		w.b = slices.Grow(w.b, n)[:start+n]
		b := w.b[start:]
		b[0], b[1], b[2] = car.color, car.seats, car.doors
		le.PutUint32(b[3:], uint32(len(car.wheels)))
		b = b[nullCarHeadBytes:]
		for _, wh := range car.wheels {
			le.PutUint16(b, wh.diameter)
			le.PutUint32(b[2:], math.Float32bits(wh.airPressure))
			b[6] = b2u(wh.snowTires)
			b = b[nullWheelBytes:]
		}
		_ = b[nullCarTailBytes-1]
		le.PutUint16(b[0:], car.length)
		le.PutUint16(b[2:], car.width)
		le.PutUint16(b[4:], car.height)
		le.PutUint32(b[6:], car.weight)
		le.PutUint16(b[10:], car.engine.horsepower)
		b[12] = car.engine.cylinders
		le.PutUint32(b[13:], car.engine.cc)
		b[17] = b2u(car.engine.usesGas)
		b[18] = b2u(car.engine.usesElectric)
		le.PutUint32(b[19:], math.Float32bits(car.fuelCapacity))
		le.PutUint32(b[23:], math.Float32bits(car.fuelLevel))
		b[27] = b2u(car.hasPowerWindows)
		b[28] = b2u(car.hasPowerSteering)
		b[29] = b2u(car.hasCruiseControl)
		b[30] = car.cupHolders
		b[31] = b2u(car.hasNavSystem)
	}
}

func (m *nullParkingLot) decode(r *nullReader) {
	le := binary.LittleEndian
	n := r.count(nullCarFixedBytes)
	m.cars = m.cars[:0]
	for i := 0; i < n && r.err == nil; i++ {
		var car *nullCar
		m.cars, car = extend(m.cars)
		car.make = r.strInto(car.make)
		car.model = r.strInto(car.model)
		head := r.take(nullCarHeadBytes)
		if head == nil {
			return
		}
		car.color, car.seats, car.doors = head[0], head[1], head[2]
		if car.color >= cases.Colors {
			r.fail("color %d", car.color)
			return
		}
		wheels := le.Uint32(head[3:])
		if uint64(wheels) > uint64(len(r.p)/nullWheelBytes) {
			r.fail("list of %d wheels in %d bytes", wheels, len(r.p))
			return
		}
		b := r.take(int(wheels)*nullWheelBytes + nullCarTailBytes)
		if b == nil {
			return
		}
		var bools byte // every bool byte ORed: above 1 if any is not 0 or 1
		car.wheels = car.wheels[:0]
		for ; wheels > 0; wheels-- {
			car.wheels = append(car.wheels, nullWheel{le.Uint16(b), math.Float32frombits(le.Uint32(b[2:])), b[6] == 1})
			bools |= b[6]
			b = b[nullWheelBytes:]
		}
		_ = b[nullCarTailBytes-1]
		car.length = le.Uint16(b[0:])
		car.width = le.Uint16(b[2:])
		car.height = le.Uint16(b[4:])
		car.weight = le.Uint32(b[6:])
		car.engine = nullEngine{le.Uint16(b[10:]), b[12], le.Uint32(b[13:]), b[17] == 1, b[18] == 1}
		car.fuelCapacity = math.Float32frombits(le.Uint32(b[19:]))
		car.fuelLevel = math.Float32frombits(le.Uint32(b[23:]))
		car.hasPowerWindows, car.hasPowerSteering, car.hasCruiseControl = b[27] == 1, b[28] == 1, b[29] == 1
		car.cupHolders = b[30]
		car.hasNavSystem = b[31] == 1
		if bools|b[17]|b[18]|b[27]|b[28]|b[29]|b[31] > 1 {
			r.fail("bool byte out of range")
			return
		}
	}
}

func (m *nullTotalValue) encode(w *nullWriter) { w.u64(m.amount) }
func (m *nullTotalValue) decode(r *nullReader) { m.amount = r.u64() }

type nullCarSales struct{}

func (nullCarSales) newRequest() nullMsg  { return new(nullParkingLot) }
func (nullCarSales) newResponse() nullMsg { return new(nullTotalValue) }

func (nullCarSales) setup(g rng.Rng, m nullMsg) (rng.Rng, uint64) {
	lot := m.(*nullParkingLot)
	g, n := g.Rand(200)
	lot.cars = slices.Grow(lot.cars[:0], int(n))
	var total uint64
	var v uint32
	var d float64
	for ; n > 0; n-- {
		var car *nullCar
		lot.cars, car = extend(lot.cars)
		g, v = g.Rand(5)
		car.make = append(car.make[:0], cases.Makes[v]...)
		g, v = g.Rand(6)
		car.model = append(car.model[:0], cases.Models[v]...)
		g, v = g.Rand(cases.Colors)
		car.color = uint8(v)
		g, v = g.Rand(6)
		car.seats = uint8(2 + v)
		g, v = g.Rand(3)
		car.doors = uint8(2 + v)
		car.wheels = car.wheels[:0]
		for i := 0; i < 4; i++ {
			var w nullWheel
			g, v = g.Rand(15)
			w.diameter = uint16(25 + v)
			g, d = g.RandDouble(20)
			w.airPressure = float32(30 + d)
			g, v = g.Rand(16)
			w.snowTires = v == 0
			car.wheels = append(car.wheels, w)
		}
		var length, width, height uint32
		g, length = g.Rand(150)
		g, width = g.Rand(36)
		g, height = g.Rand(48)
		length, width, height = 170+length, 48+width, 54+height
		car.length, car.width, car.height = uint16(length), uint16(width), uint16(height)
		car.weight = length * width * height / 200
		g, v = g.Rand(400)
		car.engine.horsepower = uint16(100 * v)
		g, v = g.Rand(3)
		car.engine.cylinders = uint8(4 + 2*v)
		g, v = g.Rand(10000)
		car.engine.cc = 800 + v
		car.engine.usesGas = true
		g, v = g.Rand(2)
		car.engine.usesElectric = v != 0
		g, d = g.RandDouble(30)
		car.fuelCapacity = float32(10 + d)
		g, d = g.RandDouble(float64(car.fuelCapacity))
		car.fuelLevel = float32(d)
		g, v = g.Rand(2)
		car.hasPowerWindows = v != 0
		g, v = g.Rand(2)
		car.hasPowerSteering = v != 0
		g, v = g.Rand(2)
		car.hasCruiseControl = v != 0
		g, v = g.Rand(12)
		car.cupHolders = uint8(v)
		g, v = g.Rand(2)
		car.hasNavSystem = v != 0
		total += nullCarValue(car)
	}
	return g, total
}

func (nullCarSales) handle(req, resp nullMsg) error {
	var total uint64
	cars := req.(*nullParkingLot).cars
	for i := range cars {
		total += nullCarValue(&cars[i])
	}
	resp.(*nullTotalValue).amount = total
	return nil
}

func (nullCarSales) answer(resp nullMsg) uint64 { return resp.(*nullTotalValue).amount }

// ---- catrank ------------------------------------------------------------------------------

type nullSearchResult struct {
	url     []byte
	score   float64
	snippet []byte
}

type nullSearchResultList struct{ results []nullSearchResult }

const nullResultFixedBytes = 4 + 8 + 4

func (m *nullSearchResultList) encode(w *nullWriter) {
	w.u32(uint32(len(m.results)))
	for i := range m.results {
		r := &m.results[i]
		w.str(r.url)
		w.f64(r.score)
		w.str(r.snippet)
	}
}

func (m *nullSearchResultList) decode(r *nullReader) {
	n := r.count(nullResultFixedBytes)
	m.results = m.results[:0]
	for i := 0; i < n && r.err == nil; i++ {
		var out *nullSearchResult
		m.results, out = extend(m.results)
		out.url = r.strInto(out.url)
		out.score = r.f64()
		out.snippet = r.strInto(out.snippet)
	}
}

type nullCatRank struct{ scored []scored }

func (*nullCatRank) newRequest() nullMsg  { return new(nullSearchResultList) }
func (*nullCatRank) newResponse() nullMsg { return new(nullSearchResultList) }

func (*nullCatRank) setup(g rng.Rng, m nullMsg) (rng.Rng, uint64) {
	list := m.(*nullSearchResultList)
	g, n := g.Rand(1000)
	count := int(n)
	list.results = slices.Grow(list.results[:0], count)
	var good uint64
	for i := 0; i < count; i++ {
		var r *nullSearchResult
		list.results, r = extend(list.results)
		r.score = float64(1000 - i)
		g, r.url = cases.AppendURL(g, r.url[:0])
		var ok bool
		g, r.snippet, ok = cases.AppendSnippet(g, r.snippet[:0])
		if ok {
			good++
		}
	}
	return g, good
}

func (c *nullCatRank) handle(req, resp nullMsg) error {
	in := req.(*nullSearchResultList).results
	c.scored = c.scored[:0]
	for i := range in {
		c.scored = append(c.scored, scored{cases.Rescore(in[i].score, in[i].snippet), int32(i)})
	}
	slices.SortFunc(c.scored, byScoreDescending)
	out := resp.(*nullSearchResultList)
	out.results = slices.Grow(out.results[:0], len(in))
	for _, s := range c.scored {
		var o *nullSearchResult
		out.results, o = extend(out.results)
		r := &in[s.index]
		o.url = append(o.url[:0], r.url...)
		o.score = s.score
		o.snippet = append(o.snippet[:0], r.snippet...)
	}
	return nil
}

func (*nullCatRank) answer(resp nullMsg) uint64 {
	var good uint64
	for _, r := range resp.(*nullSearchResultList).results {
		if !cases.Good(r.score) {
			break
		}
		good++
	}
	return good
}

// ---- eval ---------------------------------------------------------------------------------

// An operand is a value or the index of a sub-expression in the tree's node list.
type nullOperand struct {
	isExpr bool
	value  int32
	index  uint32
}

type nullNode struct {
	op          uint8
	left, right nullOperand
}

// nullExpression is an expression tree: nodes in pre-order, the root at index 0.
type nullExpression struct{ nodes []nullNode }
type nullEvaluationResult struct{ value int32 }

func (m *nullExpression) build(g rng.Rng, depth uint32) (rng.Rng, uint32, int32) {
	at := uint32(len(m.nodes))
	m.nodes, _ = extend(m.nodes)
	g, op := g.Rand(cases.Ops)
	g, left, lv := m.operand(g, depth)
	g, right, rv := m.operand(g, depth)
	m.nodes[at] = nullNode{op: uint8(op), left: left, right: right}
	return g, at, cases.Apply(op, lv, rv)
}

func (m *nullExpression) operand(g rng.Rng, depth uint32) (rng.Rng, nullOperand, int32) {
	g, v := g.Rand(8)
	if v < depth {
		g, v = g.Rand(128)
		return g, nullOperand{value: int32(v + 1)}, int32(v + 1)
	}
	g, i, value := m.build(g, depth+1)
	return g, nullOperand{isExpr: true, index: i}, value
}

func (m *nullExpression) evaluate(at uint32) int32 {
	n := &m.nodes[at]
	return cases.Apply(uint32(n.op), m.value(n.left), m.value(n.right))
}

func (m *nullExpression) value(o nullOperand) int32 {
	if o.isExpr {
		return m.evaluate(o.index)
	}
	return o.value
}

func (m *nullExpression) encodeAt(w *nullWriter, at uint32) {
	n := m.nodes[at]
	w.u8(n.op)
	var kinds uint8
	if n.left.isExpr {
		kinds |= 1
	}
	if n.right.isExpr {
		kinds |= 2
	}
	w.u8(kinds)
	for _, o := range [2]nullOperand{n.left, n.right} {
		if o.isExpr {
			m.encodeAt(w, o.index)
		} else {
			w.u32(uint32(o.value))
		}
	}
}

func (m *nullExpression) decodeAt(r *nullReader, depth int) uint32 {
	if depth > core.NullMaxDepth {
		r.fail("expression nested too deeply")
		return 0
	}
	at := uint32(len(m.nodes))
	m.nodes, _ = extend(m.nodes)
	op := r.below(cases.Ops, "operation")
	kinds := r.below(4, "operand kinds")
	var n nullNode
	n.op = op
	for i, o := range [2]*nullOperand{&n.left, &n.right} {
		if r.err != nil {
			break
		}
		if kinds&(1<<i) != 0 {
			*o = nullOperand{isExpr: true, index: m.decodeAt(r, depth+1)}
		} else {
			*o = nullOperand{value: r.i32()}
		}
	}
	m.nodes[at] = n
	return at
}

func (m *nullExpression) encode(w *nullWriter) { m.encodeAt(w, 0) }
func (m *nullExpression) decode(r *nullReader) {
	m.nodes = m.nodes[:0]
	m.decodeAt(r, 0)
}

func (m *nullEvaluationResult) encode(w *nullWriter) { w.u32(uint32(m.value)) }
func (m *nullEvaluationResult) decode(r *nullReader) { m.value = r.i32() }

type nullEval struct{}

func (nullEval) newRequest() nullMsg  { return new(nullExpression) }
func (nullEval) newResponse() nullMsg { return new(nullEvaluationResult) }

func (nullEval) setup(g rng.Rng, m nullMsg) (rng.Rng, uint64) {
	e := m.(*nullExpression)
	e.nodes = e.nodes[:0]
	g, _, v := e.build(g, 0)
	return g, cases.EvalTerm(v)
}

func (nullEval) handle(req, resp nullMsg) error {
	resp.(*nullEvaluationResult).value = req.(*nullExpression).evaluate(0)
	return nil
}

func (nullEval) answer(resp nullMsg) uint64 {
	return cases.EvalTerm(resp.(*nullEvaluationResult).value)
}

// ---- the cell -----------------------------------------------------------------------------

type nullImpl struct {
	kase nullCase
	buffers
	// The kept messages of each role (reuse only).
	clientRequest, serverRequest, serverResponse, clientResponse nullMsg
	// w is used by the side that writes (the pipe-async sender), r by the side that reads.
	w nullWriter
	r nullReader
}

func newNull(kase, compression string, reuse bool) Impl {
	var k nullCase
	switch kase {
	case "carsales":
		k = nullCarSales{}
	case "catrank":
		k = &nullCatRank{}
	case "eval":
		k = nullEval{}
	default:
		return nil
	}
	return &nullImpl{
		kase:           k,
		buffers:        buffers{reuse: reuse},
		clientRequest:  k.newRequest(),
		serverRequest:  k.newRequest(),
		serverResponse: k.newResponse(),
		clientResponse: k.newResponse(),
	}
}

func (c *nullImpl) message(kept nullMsg, make func() nullMsg) nullMsg {
	if c.reuse {
		return kept
	}
	return make()
}

// decode reads a whole message from b into m. (The cell's reader and writer are kept
// because a local one would escape to the heap through the interface call.)
func (c *nullImpl) decode(m nullMsg, b []byte) error {
	c.r = nullReader{p: b}
	m.decode(&c.r)
	err := c.r.finish()
	c.r.p = nil
	return err
}

// encode appends m's encoding to b.
func (c *nullImpl) encode(b []byte, m nullMsg) []byte {
	c.w.b = b
	m.encode(&c.w)
	b, c.w.b = c.w.b, nil
	return b
}

// request builds the client's request from g; it returns it with its expectation.
func (c *nullImpl) request(g *rng.Rng) (nullMsg, uint64) {
	req := c.message(c.clientRequest, c.kase.newRequest)
	var expected uint64
	*g, expected = c.kase.setup(*g, req)
	return req, expected
}

// respond handles req into the server's response.
func (c *nullImpl) respond(req nullMsg) (nullMsg, error) {
	resp := c.message(c.serverResponse, c.kase.newResponse)
	return resp, c.kase.handle(req, resp)
}

func (c *nullImpl) Object(g *rng.Rng) (uint64, uint64, error) {
	req, expected := c.request(g)
	resp, err := c.respond(req)
	if err != nil {
		return 0, 0, err
	}
	return expected, c.kase.answer(resp), nil
}

func (c *nullImpl) Bytes(g *rng.Rng) (uint64, uint64, uint64, error) {
	req, expected := c.request(g)
	rq := c.encode(c.buffer(c.writeBuf), req)
	c.keep(&c.writeBuf, rq)

	sreq := c.message(c.serverRequest, c.kase.newRequest)
	if err := c.decode(sreq, rq); err != nil {
		return 0, 0, 0, err
	}
	sresp, err := c.respond(sreq)
	if err != nil {
		return 0, 0, 0, err
	}
	rs := c.encode(c.buffer(c.readBuf), sresp)
	c.keep(&c.readBuf, rs)

	resp := c.message(c.clientResponse, c.kase.newResponse)
	if err := c.decode(resp, rs); err != nil {
		return 0, 0, 0, err
	}
	return expected, c.kase.answer(resp), uint64(len(rq) + len(rs)), nil
}

// frame appends the u32 size prefix and m's encoding to b.
func (c *nullImpl) frame(b []byte, m nullMsg) []byte {
	start := len(b)
	b = c.encode(append(b, 0, 0, 0, 0), m)
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// nullReceive reads one framed message's bytes into buf (grown if needed); io.EOF at a
// clean end of file before the size prefix.
func nullReceive(r io.Reader, buf []byte) ([]byte, error) {
	var prefix [4]byte
	if n, err := io.ReadFull(r, prefix[:]); err != nil {
		if err == io.EOF {
			return buf, io.EOF
		}
		return buf, fmt.Errorf("truncated null message size prefix: end of file after %d of 4 bytes", n)
	}
	size := binary.LittleEndian.Uint32(prefix[:])
	if size > core.MaxMessageBytes {
		return buf, core.TooLong("null: corrupt stream", uint64(size))
	}
	buf, err := readBody(r, buf[:0], int(size))
	if err != nil {
		return buf, fmt.Errorf("null: truncated message of %d bytes: %w", size, noEOF(err))
	}
	return buf, nil
}

// write writes m, framed, to c with one write.
func (c *nullImpl) write(to *conn, m nullMsg) error {
	b := c.frame(c.buffer(c.writeBuf), m)
	c.keep(&c.writeBuf, b)
	_, err := to.out.Write(b)
	return err
}

// read reads the next message of c's stream into a kept or fresh message; io.EOF at a
// clean end of file.
func (c *nullImpl) read(from *conn, kept nullMsg, make func() nullMsg) (nullMsg, error) {
	b, err := nullReceive(from.r, c.buffer(c.readBuf))
	c.keep(&c.readBuf, b)
	if err != nil {
		return nil, err
	}
	m := c.message(kept, make)
	return m, c.decode(m, b)
}

func (c *nullImpl) Send(g *rng.Rng, to *conn) (uint64, error) {
	req, expected := c.request(g)
	return expected, c.write(to, req)
}

func (c *nullImpl) Receive(from *conn) (uint64, error) {
	resp, err := c.read(from, c.clientResponse, c.kase.newResponse)
	if err != nil {
		return 0, err
	}
	return c.kase.answer(resp), nil
}

func (c *nullImpl) Serve(on *conn) error {
	req, err := c.read(on, c.serverRequest, c.kase.newRequest)
	if err != nil {
		return err
	}
	resp, err := c.respond(req)
	if err != nil {
		return err
	}
	return c.write(on, resp)
}
