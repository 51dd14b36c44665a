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

	"wirebench/drivers/go/internal/cases"
	cs "wirebench/drivers/go/internal/gen/pb/carsales"
	cr "wirebench/drivers/go/internal/gen/pb/catrank"
	ev "wirebench/drivers/go/internal/gen/pb/eval"
	"wirebench/drivers/go/internal/rng"
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
		// A Go string; strings.Contains takes the same vectorised path as bytes.Contains.
		s := r.GetScore()
		snippet := r.GetSnippet()
		if strings.Contains(snippet, " cat ") {
			s *= 10000
		}
		if strings.Contains(snippet, " dog ") {
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

// pbMaxDepth bounds the recursion on a foreign message (the generator nests about 10 deep).
const pbMaxDepth = 64

func pbEvaluate(e *ev.Expression, depth int) (int32, error) {
	if depth > pbMaxDepth {
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
	marshalOptions   = proto.MarshalOptions{AllowPartial: true}
	cachedSize       = proto.MarshalOptions{AllowPartial: true, UseCachedSize: true}
	unmarshalOptions = proto.UnmarshalOptions{AllowPartial: true}
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
	if size > maxMessageBytes {
		return buf, fmt.Errorf("corrupt protobuf stream: message size %d is over the limit", size)
	}
	buf = grow(buf, int(size))
	if _, err := io.ReadFull(r, buf); err != nil {
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

type pbCell struct {
	kase  pbCase
	reuse bool
	// The kept messages of each role and the kept byte buffers (reuse only): writeBuf
	// holds what this side serializes (bytes mode: the request), readBuf what it reads
	// (bytes mode: the response).
	clientRequest, serverRequest, serverResponse, clientResponse proto.Message
	writeBuf, readBuf                                            []byte
	conn                                                         *conn
}

// message returns the kept message (reset) with reuse, else a fresh one from make.
func (c *pbCell) message(kept proto.Message, make func() proto.Message) proto.Message {
	if !c.reuse {
		return make()
	}
	proto.Reset(kept)
	return kept
}

// buffer returns the kept buffer, emptied, with reuse; else nil (a fresh one is made).
func (c *pbCell) buffer(kept []byte) []byte {
	if !c.reuse {
		return nil
	}
	return kept[:0]
}

// keep stores a buffer back with reuse (it may have grown).
func (c *pbCell) keep(kept *[]byte, b []byte) {
	if c.reuse {
		*kept = b
	}
}

func (c *pbCell) Object(g *rng.Rng, iters uint64, t *cases.Tally) error {
	for ; iters > 0; iters-- {
		req := c.message(c.clientRequest, c.kase.newRequest)
		var expected uint64
		*g, expected = c.kase.setup(*g, req)
		resp := c.message(c.serverResponse, c.kase.newResponse)
		if err := c.kase.handle(req, resp); err != nil {
			return err
		}
		got, err := c.kase.answer(resp)
		if err != nil {
			return err
		}
		if err := cases.Expect(got, expected); err != nil {
			return err
		}
		t.Add(expected)
	}
	return nil
}

func (c *pbCell) Bytes(g *rng.Rng, iters uint64, t *cases.Tally) error {
	for ; iters > 0; iters-- {
		req := c.message(c.clientRequest, c.kase.newRequest)
		var expected uint64
		*g, expected = c.kase.setup(*g, req)
		rq, err := marshalOptions.MarshalAppend(c.buffer(c.writeBuf), req)
		if err != nil {
			return err
		}
		c.keep(&c.writeBuf, rq)
		t.Bytes += uint64(len(rq))

		sreq := c.message(c.serverRequest, c.kase.newRequest)
		if err := parse(rq, sreq); err != nil {
			return err
		}
		sresp := c.message(c.serverResponse, c.kase.newResponse)
		if err := c.kase.handle(sreq, sresp); err != nil {
			return err
		}
		rs, err := marshalOptions.MarshalAppend(c.buffer(c.readBuf), sresp)
		if err != nil {
			return err
		}
		c.keep(&c.readBuf, rs)
		t.Bytes += uint64(len(rs))

		resp := c.message(c.clientResponse, c.kase.newResponse)
		if err := parse(rs, resp); err != nil {
			return err
		}
		got, err := c.kase.answer(resp)
		if err != nil {
			return err
		}
		if err := cases.Expect(got, expected); err != nil {
			return err
		}
		t.Add(expected)
	}
	return nil
}

func (c *pbCell) OpenClient(in io.Reader, out io.Writer) { c.conn = newConn(in, out) }

// send builds a request and writes it with one write; it returns its expectation.
func (c *pbCell) send(g *rng.Rng, w io.Writer) (uint64, error) {
	req := c.message(c.clientRequest, c.kase.newRequest)
	var expected uint64
	*g, expected = c.kase.setup(*g, req)
	b, err := appendDelimited(c.buffer(c.writeBuf), req)
	if err != nil {
		return 0, err
	}
	c.keep(&c.writeBuf, b)
	_, err = w.Write(b)
	return expected, err
}

// next reads the next message of a stream into a kept or fresh message; io.EOF at a
// clean end of file.
func (c *pbCell) next(r *bufio.Reader, kept proto.Message, make func() proto.Message) (proto.Message, error) {
	b, err := readDelimited(r, c.buffer(c.readBuf))
	c.keep(&c.readBuf, b)
	if err != nil {
		return nil, err
	}
	m := c.message(kept, make)
	return m, parse(b, m)
}

func (c *pbCell) receive(expected uint64, t *cases.Tally) error {
	resp, err := c.next(c.conn.r, c.clientResponse, c.kase.newResponse)
	if err == io.EOF {
		return errNoResponse
	}
	if err != nil {
		return err
	}
	got, err := c.kase.answer(resp)
	if err != nil {
		return err
	}
	if err := cases.Expect(got, expected); err != nil {
		return err
	}
	t.Add(expected)
	return nil
}

func (c *pbCell) Pipe(g *rng.Rng, iters uint64, t *cases.Tally) error {
	return pipeLoop(c.conn, iters, t,
		func() (uint64, error) { return c.send(g, c.conn.out) },
		func(expected uint64) error { return c.receive(expected, t) })
}

func (c *pbCell) PipeAsync(g *rng.Rng, iters uint64, t *cases.Tally) error {
	return pipeAsyncLoop(c.conn, iters, t,
		func() (uint64, error) { return c.send(g, c.conn.out) },
		func(expected uint64) error { return c.receive(expected, t) })
}

func (c *pbCell) CloseClient() error { return nil }

func (c *pbCell) Serve(in io.Reader, out io.Writer, stats *cases.ServerStats) error {
	r := bufio.NewReaderSize(in, bufSize)
	for {
		req, err := c.next(r, c.serverRequest, c.kase.newRequest)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		resp := c.message(c.serverResponse, c.kase.newResponse)
		if err := c.kase.handle(req, resp); err != nil {
			return err
		}
		b, err := appendDelimited(c.buffer(c.writeBuf), resp)
		if err != nil {
			return err
		}
		c.keep(&c.writeBuf, b)
		if _, err := out.Write(b); err != nil {
			return err
		}
		stats.Requests++
	}
}

func (c *pbCell) WriteRequests(g *rng.Rng, n uint64, out io.Writer) ([]uint64, error) {
	w := bufio.NewWriterSize(out, bufSize)
	var expectations []uint64
	for ; n > 0; n-- {
		expected, err := c.send(g, w)
		if err != nil {
			return nil, err
		}
		expectations = append(expectations, expected)
	}
	return expectations, w.Flush()
}

func (c *pbCell) ReadResponses(in io.Reader, answers *[]uint64) error {
	r := bufio.NewReaderSize(in, bufSize)
	for {
		resp, err := c.next(r, c.clientResponse, c.kase.newResponse)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		a, err := c.kase.answer(resp)
		if err != nil {
			return err
		}
		*answers = append(*answers, a)
	}
}

func newPbCell(kase pbCase, reuse bool) *pbCell {
	return &pbCell{
		kase:           kase,
		reuse:          reuse,
		clientRequest:  kase.newRequest(),
		serverRequest:  kase.newRequest(),
		serverResponse: kase.newResponse(),
		clientResponse: kase.newResponse(),
	}
}

func makeProtobufCell(kase, compression string, reuse bool) cases.Cell {
	if compression != "none" {
		return nil
	}
	switch kase {
	case "carsales":
		return newPbCell(&pbCarSales{cars: pool[cs.Car]{reuse: reuse}}, reuse)
	case "catrank":
		return newPbCell(&pbCatRank{
			requestResults:  pool[cr.SearchResult]{reuse: reuse},
			responseResults: pool[cr.SearchResult]{reuse: reuse},
		}, reuse)
	case "eval":
		return newPbCell(&pbEval{nodes: pool[ev.Expression]{reuse: reuse}}, reuse)
	}
	return nil
}
