// The rpc suite on Protocol Buffers (google.golang.org/protobuf), doing per iteration the
// work of the C++ driver (drivers/cpp/src/rpc/protobuf.cpp):
//   - generated code: the Opaque API (protoc-gen-go's default_api_level=API_OPAQUE, set by
//     tools/gencode), which keeps proto2 optional scalars in place with presence bits; the
//     older open-struct API would allocate one pointer per scalar field set or parsed.
//   - reuse: one top-level message per role (client request, server request, server
//     response, client response), reset and refilled; the sub-messages the client and the
//     server build (cars with their wheels and engine, search results, expression nodes)
//     come from kept pools and are refilled in place, as protobuf-C++'s Clear() keeps
//     cleared elements. Serialized bytes go into kept buffers (MarshalAppend). Parsing
//     resets the kept message and allocates its sub-messages and strings anew: the Go
//     runtime has no way to parse into kept sub-messages. Strings are Go strings, so
//     every text set or parsed allocates in both modes.
//   - no-reuse: fresh messages, sub-messages and buffers for every use.
//   - Partial messages are allowed when serializing and parsing (no required-field check),
//     as the C++ driver's SerializePartial / ParsePartial do.
//   - pipe: each message preceded by its size as a varint (the delimited framing), written
//     with one write per message and read through a buffered reader. Bytes are counted at
//     the fd: varint + message, as in the C++ driver.
//   - compression: none only.
package rpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"wirebench/drivers/go/internal/core"
	cs "wirebench/drivers/go/internal/gen/pb/carsales"
	cr "wirebench/drivers/go/internal/gen/pb/catrank"
	ev "wirebench/drivers/go/internal/gen/pb/eval"
	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
)

// pbCase is one case on protobuf messages; values are digest terms. setup and handle fill
// a message that is empty (fresh or reset).
type pbCase interface {
	newRequest() proto.Message
	newResponse() proto.Message
	setup(g rng.Rng, req proto.Message) (rng.Rng, uint64)
	handle(req, resp proto.Message) error
	answer(resp proto.Message) (uint64, error)
}

// pool hands out the sub-messages a builder fills: with reuse, the kept ones of the
// previous message (in the same order), else fresh ones.
type pool[T any] struct {
	reuse bool
	items []*T
	n     int
}

func (p *pool[T]) rewind() { p.n = 0 }

// get returns a kept element (its old contents are the caller's to overwrite or reset)
// and whether it is new.
func (p *pool[T]) get() (*T, bool) {
	if !p.reuse {
		return new(T), true
	}
	isNew := p.n == len(p.items)
	if isNew {
		p.items = append(p.items, new(T))
	}
	x := p.items[p.n]
	p.n++
	return x, isNew
}

// list returns the elements handed out since the last rewind (with reuse, the pool's own
// slice: valid until the next rewind).
func (p *pool[T]) list(fresh []*T) []*T {
	if p.reuse {
		return p.items[:p.n]
	}
	return fresh
}

// ---- carsales -----------------------------------------------------------------------------

type pbCarSales struct {
	cars pool[cs.Car]
}

func pbCarValue(car *cs.Car) uint64 {
	e := car.GetEngine()
	f := cases.CarFacts{
		Seats:         car.GetSeats(),
		Doors:         car.GetDoors(),
		Length:        car.GetLength(),
		Width:         car.GetWidth(),
		Height:        car.GetHeight(),
		Horsepower:    e.GetHorsepower(),
		UsesGas:       e.GetUsesGas(),
		UsesElectric:  e.GetUsesElectric(),
		PowerWindows:  car.GetHasPowerWindows(),
		PowerSteering: car.GetHasPowerSteering(),
		CruiseControl: car.GetHasCruiseControl(),
		NavSystem:     car.GetHasNavSystem(),
		CupHolders:    car.GetCupHolders(),
	}
	for _, w := range car.GetWheel() {
		f.WheelSum += cases.WheelValue(w.GetDiameter(), w.GetSnowTires())
	}
	return cases.CarValue(&f)
}

// pbRandomCar fills car, which is new or a kept car whose every field is set again
// here; a new car gets its four wheels and its engine, a kept one refills its own.
func pbRandomCar(g rng.Rng, car *cs.Car, isNew bool) rng.Rng {
	if isNew {
		car.SetWheel([]*cs.Wheel{new(cs.Wheel), new(cs.Wheel), new(cs.Wheel), new(cs.Wheel)})
		car.SetEngine(new(cs.Engine))
	}
	var v uint32
	var d float64
	g, v = g.Rand(5)
	car.SetMake(cases.Makes[v])
	g, v = g.Rand(6)
	car.SetModel(cases.Models[v])
	g, v = g.Rand(cases.Colors)
	car.SetColor(cs.Color(v))
	g, v = g.Rand(6)
	car.SetSeats(2 + v)
	g, v = g.Rand(3)
	car.SetDoors(2 + v)
	for _, w := range car.GetWheel() {
		g, v = g.Rand(15)
		w.SetDiameter(25 + v)
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
	car.SetLength(length)
	car.SetWidth(width)
	car.SetHeight(height)
	car.SetWeight(length * width * height / 200)
	e := car.GetEngine()
	g, v = g.Rand(400)
	e.SetHorsepower(100 * v)
	g, v = g.Rand(3)
	e.SetCylinders(4 + 2*v)
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
	car.SetCupHolders(v)
	g, v = g.Rand(2)
	car.SetHasNavSystem(v != 0)
	return g
}

func (*pbCarSales) newRequest() proto.Message  { return new(cs.ParkingLot) }
func (*pbCarSales) newResponse() proto.Message { return new(cs.TotalValue) }

func (c *pbCarSales) setup(g rng.Rng, m proto.Message) (rng.Rng, uint64) {
	c.cars.rewind()
	var n uint32
	g, n = g.Rand(200)
	var fresh []*cs.Car
	if !c.cars.reuse {
		fresh = make([]*cs.Car, 0, n)
	}
	var total uint64
	for ; n > 0; n-- {
		car, isNew := c.cars.get()
		g = pbRandomCar(g, car, isNew)
		total += pbCarValue(car)
		fresh = append(fresh, car)
	}
	m.(*cs.ParkingLot).SetCar(c.cars.list(fresh))
	return g, total
}

func (*pbCarSales) handle(req, resp proto.Message) error {
	var total uint64
	for _, car := range req.(*cs.ParkingLot).GetCar() {
		total += pbCarValue(car)
	}
	resp.(*cs.TotalValue).SetAmount(total)
	return nil
}

func (*pbCarSales) answer(resp proto.Message) (uint64, error) {
	return resp.(*cs.TotalValue).GetAmount(), nil
}

// ---- catrank ------------------------------------------------------------------------------

type pbCatRank struct {
	requestResults, responseResults pool[cr.SearchResult]
	url, snippet                    []byte
	scored                          []scored
}

func (*pbCatRank) newRequest() proto.Message  { return new(cr.SearchResultList) }
func (*pbCatRank) newResponse() proto.Message { return new(cr.SearchResultList) }

func (c *pbCatRank) setup(g rng.Rng, m proto.Message) (rng.Rng, uint64) {
	c.requestResults.rewind()
	g, n := g.Rand(1000)
	count := int(n)
	var fresh []*cr.SearchResult
	if !c.requestResults.reuse {
		fresh = make([]*cr.SearchResult, 0, count)
	}
	var good uint64
	for i := 0; i < count; i++ {
		r, _ := c.requestResults.get() // every field is set again
		r.SetScore(float64(1000 - i))
		g, c.url = cases.AppendURL(g, c.url[:0])
		r.SetUrl(string(c.url))
		var ok bool
		g, c.snippet, ok = cases.AppendSnippet(g, c.snippet[:0])
		r.SetSnippet(string(c.snippet))
		if ok {
			good++
		}
		fresh = append(fresh, r)
	}
	m.(*cr.SearchResultList).SetResult(c.requestResults.list(fresh))
	return g, good
}

func (c *pbCatRank) handle(req, resp proto.Message) error {
	results := req.(*cr.SearchResultList).GetResult()
	c.scored = c.scored[:0]
	for i, r := range results {
		// A Go string; strings.Contains takes the same vectorised path as bytes.Contains
		// (see cases.CatWord).
		s := r.GetScore()
		snippet := r.GetSnippet()
		if strings.Contains(snippet, cases.CatWord) {
			s *= 10000
		}
		if strings.Contains(snippet, cases.DogWord) {
			s /= 10000
		}
		c.scored = append(c.scored, scored{s, int32(i)})
	}
	slices.SortFunc(c.scored, byScoreDescending)
	c.responseResults.rewind()
	var fresh []*cr.SearchResult
	if !c.responseResults.reuse {
		fresh = make([]*cr.SearchResult, 0, len(results))
	}
	for _, s := range c.scored {
		r := results[s.index]
		out, _ := c.responseResults.get() // every field is set again
		out.SetScore(s.score)
		out.SetUrl(r.GetUrl())
		out.SetSnippet(r.GetSnippet())
		fresh = append(fresh, out)
	}
	resp.(*cr.SearchResultList).SetResult(c.responseResults.list(fresh))
	return nil
}

func (*pbCatRank) answer(resp proto.Message) (uint64, error) {
	var good uint64
	for _, r := range resp.(*cr.SearchResultList).GetResult() {
		if !cases.Good(r.GetScore()) {
			break
		}
		good++
	}
	return good, nil
}

// ---- eval ---------------------------------------------------------------------------------

type pbEval struct {
	nodes pool[ev.Expression]
}

func (*pbEval) newRequest() proto.Message  { return new(ev.Expression) }
func (*pbEval) newResponse() proto.Message { return new(ev.EvaluationResult) }

// node returns an empty sub-expression: a kept one reset (which operand is a value
// changes from message to message), or a fresh one.
func (c *pbEval) node() *ev.Expression {
	e, isNew := c.nodes.get()
	if !isNew {
		e.Reset()
	}
	return e
}

func (c *pbEval) make(g rng.Rng, e *ev.Expression, depth uint32) (rng.Rng, int32) {
	var op, v uint32
	var left, right int32
	g, op = g.Rand(cases.Ops)
	e.SetOp(ev.Operation(op))
	if g, v = g.Rand(8); v < depth {
		g, v = g.Rand(128)
		left = int32(v + 1)
		e.SetLeftValue(left)
	} else {
		sub := c.node()
		g, left = c.make(g, sub, depth+1)
		e.SetLeftExpression(sub)
	}
	if g, v = g.Rand(8); v < depth {
		g, v = g.Rand(128)
		right = int32(v + 1)
		e.SetRightValue(right)
	} else {
		sub := c.node()
		g, right = c.make(g, sub, depth+1)
		e.SetRightExpression(sub)
	}
	return g, cases.Apply(op, left, right)
}

// pbEvaluate recurses no deeper than the parser nests (core.ProtobufRecursionLimit), so
// the limit never cuts a message that parsed; it holds for a message built in memory too.
func pbEvaluate(e *ev.Expression, depth int) (int32, error) {
	if depth > core.ProtobufRecursionLimit {
		return 0, errors.New("eval: expression nested too deeply")
	}
	var left, right int32
	switch {
	case e.HasLeftValue():
		left = e.GetLeftValue()
	case e.HasLeftExpression():
		var err error
		if left, err = pbEvaluate(e.GetLeftExpression(), depth+1); err != nil {
			return 0, err
		}
	default:
		return 0, errors.New("eval: expression without a left operand")
	}
	switch {
	case e.HasRightValue():
		right = e.GetRightValue()
	case e.HasRightExpression():
		var err error
		if right, err = pbEvaluate(e.GetRightExpression(), depth+1); err != nil {
			return 0, err
		}
	default:
		return 0, errors.New("eval: expression without a right operand")
	}
	op := uint32(e.GetOp())
	if op >= cases.Ops {
		return 0, fmt.Errorf("eval: unknown operation %d", op)
	}
	return cases.Apply(op, left, right), nil
}

func (c *pbEval) setup(g rng.Rng, m proto.Message) (rng.Rng, uint64) {
	c.nodes.rewind()
	g, v := c.make(g, m.(*ev.Expression), 0)
	return g, cases.EvalTerm(v)
}

func (*pbEval) handle(req, resp proto.Message) error {
	v, err := pbEvaluate(req.(*ev.Expression), 0)
	if err != nil {
		return err
	}
	resp.(*ev.EvaluationResult).SetValue(v)
	return nil
}

func (*pbEval) answer(resp proto.Message) (uint64, error) {
	return cases.EvalTerm(resp.(*ev.EvaluationResult).GetValue()), nil
}

// ---- framing ------------------------------------------------------------------------------

var (
	marshalOptions = proto.MarshalOptions{AllowPartial: true}
	cachedSize     = proto.MarshalOptions{AllowPartial: true, UseCachedSize: true}
	// The parser's nesting limit is the driver's (core/limits.go), not the library default.
	unmarshalOptions = proto.UnmarshalOptions{AllowPartial: true, RecursionLimit: core.ProtobufRecursionLimit}
)

// appendDelimited appends m's size as a varint and m to b. The size is computed once
// (and cached in the messages) as C++'s ByteSizeLong + SerializeWithCachedSizes do.
func appendDelimited(b []byte, m proto.Message) ([]byte, error) {
	b = protowire.AppendVarint(b, uint64(marshalOptions.Size(m)))
	return cachedSize.MarshalAppend(b, m)
}

// readDelimited reads one delimited message's bytes into buf (grown if needed); io.EOF at
// a clean end of file before the first byte of the size prefix.
func readDelimited(r *bufio.Reader, buf []byte) ([]byte, error) {
	var size uint64
	for i := 0; ; i++ {
		b, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && i == 0 {
				return buf, io.EOF
			}
			if err == io.EOF {
				return buf, errors.New("corrupt or truncated protobuf stream: no whole size prefix")
			}
			return buf, err
		}
		size |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			break
		}
		if i == 9 {
			return buf, errors.New("corrupt protobuf stream: bad size prefix")
		}
	}
	if size > core.MaxMessageBytes {
		return buf, core.TooLong("corrupt protobuf stream", size)
	}
	buf, err := readBody(r, buf[:0], int(size))
	if err != nil {
		return buf, fmt.Errorf("truncated protobuf message of %d bytes: %w", size, noEOF(err))
	}
	return buf, nil
}

func parse(b []byte, m proto.Message) error {
	if err := unmarshalOptions.Unmarshal(b, m); err != nil {
		return fmt.Errorf("corrupt protobuf message of %d bytes: %w", len(b), err)
	}
	return nil
}

// ---- the cell -----------------------------------------------------------------------------

type pbImpl struct {
	kase pbCase
	buffers
	// The kept messages of each role (reuse only).
	clientRequest, serverRequest, serverResponse, clientResponse proto.Message
}

func newProtobuf(kase, compression string, reuse bool) Impl {
	var k pbCase
	switch kase {
	case "carsales":
		k = &pbCarSales{cars: pool[cs.Car]{reuse: reuse}}
	case "catrank":
		k = &pbCatRank{
			requestResults:  pool[cr.SearchResult]{reuse: reuse},
			responseResults: pool[cr.SearchResult]{reuse: reuse},
		}
	case "eval":
		k = &pbEval{nodes: pool[ev.Expression]{reuse: reuse}}
	default:
		return nil
	}
	return &pbImpl{
		kase:           k,
		buffers:        buffers{reuse: reuse},
		clientRequest:  k.newRequest(),
		serverRequest:  k.newRequest(),
		serverResponse: k.newResponse(),
		clientResponse: k.newResponse(),
	}
}

// message returns the kept message (reset) with reuse, else a fresh one from make.
func (c *pbImpl) message(kept proto.Message, make func() proto.Message) proto.Message {
	if !c.reuse {
		return make()
	}
	proto.Reset(kept)
	return kept
}

// request builds the client's request from g; it returns it with its expectation.
func (c *pbImpl) request(g *rng.Rng) (proto.Message, uint64) {
	req := c.message(c.clientRequest, c.kase.newRequest)
	var expected uint64
	*g, expected = c.kase.setup(*g, req)
	return req, expected
}

// respond handles req into the server's response.
func (c *pbImpl) respond(req proto.Message) (proto.Message, error) {
	resp := c.message(c.serverResponse, c.kase.newResponse)
	return resp, c.kase.handle(req, resp)
}

func (c *pbImpl) Object(g *rng.Rng) (uint64, uint64, error) {
	req, expected := c.request(g)
	resp, err := c.respond(req)
	if err != nil {
		return 0, 0, err
	}
	answer, err := c.kase.answer(resp)
	return expected, answer, err
}

func (c *pbImpl) Bytes(g *rng.Rng) (uint64, uint64, uint64, error) {
	req, expected := c.request(g)
	rq, err := marshalOptions.MarshalAppend(c.buffer(c.writeBuf), req)
	if err != nil {
		return 0, 0, 0, err
	}
	c.keep(&c.writeBuf, rq)

	sreq := c.message(c.serverRequest, c.kase.newRequest)
	if err := parse(rq, sreq); err != nil {
		return 0, 0, 0, err
	}
	sresp, err := c.respond(sreq)
	if err != nil {
		return 0, 0, 0, err
	}
	rs, err := marshalOptions.MarshalAppend(c.buffer(c.readBuf), sresp)
	if err != nil {
		return 0, 0, 0, err
	}
	c.keep(&c.readBuf, rs)

	resp := c.message(c.clientResponse, c.kase.newResponse)
	if err := parse(rs, resp); err != nil {
		return 0, 0, 0, err
	}
	answer, err := c.kase.answer(resp)
	return expected, answer, uint64(len(rq) + len(rs)), err
}

// write writes m, delimited, to c with one write.
func (c *pbImpl) write(to *conn, m proto.Message) error {
	b, err := appendDelimited(c.buffer(c.writeBuf), m)
	if err != nil {
		return err
	}
	c.keep(&c.writeBuf, b)
	_, err = to.out.Write(b)
	return err
}

// read reads the next message of c's stream into a kept or fresh message; io.EOF at a
// clean end of file.
func (c *pbImpl) read(from *conn, kept proto.Message, make func() proto.Message) (proto.Message, error) {
	b, err := readDelimited(from.r, c.buffer(c.readBuf))
	c.keep(&c.readBuf, b)
	if err != nil {
		return nil, err
	}
	m := c.message(kept, make)
	return m, parse(b, m)
}

func (c *pbImpl) Send(g *rng.Rng, to *conn) (uint64, error) {
	req, expected := c.request(g)
	return expected, c.write(to, req)
}

func (c *pbImpl) Receive(from *conn) (uint64, error) {
	resp, err := c.read(from, c.clientResponse, c.kase.newResponse)
	if err != nil {
		return 0, err
	}
	return c.kase.answer(resp)
}

func (c *pbImpl) Serve(on *conn) error {
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
