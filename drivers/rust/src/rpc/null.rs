//! The rpc suite with no serialization library: plain Rust structs, the floor the
//! libraries are measured against. The byte format is the C++ driver's, documented at the
//! top of drivers/cpp/src/rpc/null.cpp (little-endian, no padding; str = u32 count + bytes;
//! list = u32 count + elements; bool = u8 0/1; eval: op u8, kinds u8 (bit 0 left is an
//! Expression, bit 1 right), operands pre-order; a reader accepts a message only if it is
//! exactly consumed and every value is in range). On a pipe each message is a u32 LE byte
//! count followed by the message, written with one write and read with unbuffered reads
//! (prefix, then body); `bytes` counts the messages only, pipes the prefixes too.
//!
//! Memory: reuse keeps every message's structs, lists and strings (a `Slots` list keeps
//! its elements, and their `String`s and `Vec`s keep their capacity, so after warm-up a
//! message allocates nothing), like the C++ arena; no-reuse builds every message afresh
//! (every list and string its own heap allocation, freed when the message is done), like
//! the C++ per-object mallocs. Buffers follow the same rule.

use std::io::{BufRead, Read, Write};
use std::marker::PhantomData;

use super::{cases, Cell, Library, Term};
use crate::error::{Failure, Res};
use crate::limits;
use crate::rng::Rng;

// ---- memory -----------------------------------------------------------------------------

/// A list whose cleared elements are kept for reuse.
#[derive(Default)]
pub struct Slots<T> {
    items: Vec<T>,
    len: usize,
}

impl<T: Default> Slots<T> {
    #[inline(always)]
    fn clear(&mut self) {
        self.len = 0;
    }
    #[inline(always)]
    fn next(&mut self) -> &mut T {
        if self.len == self.items.len() {
            self.items.push(T::default());
        }
        self.len += 1;
        &mut self.items[self.len - 1]
    }
    #[inline(always)]
    fn reserve(&mut self, n: usize) {
        if self.items.len() < n {
            self.items.reserve(n - self.items.len());
        }
    }
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }
    #[inline(always)]
    fn get(&self, i: usize) -> &T {
        &self.as_slice()[i]
    }
    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> &mut T {
        &mut self.items[..self.len][i]
    }
}

// ---- the byte format --------------------------------------------------------------------

pub struct W<'a>(&'a mut Vec<u8>);
impl W<'_> {
    #[inline(always)]
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    #[inline(always)]
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn bool(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }
    #[inline(always)]
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

pub struct R<'a> {
    p: &'a [u8],
}
impl<'a> R<'a> {
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Res<[u8; N]> {
        if self.p.len() < N {
            return Err(Failure::new("null: truncated message"));
        }
        let (a, b) = self.p.split_at(N);
        self.p = b;
        Ok(a.try_into().expect("length checked"))
    }
    #[inline(always)]
    fn u8(&mut self) -> Res<u8> {
        Ok(self.take::<1>()?[0])
    }
    #[inline(always)]
    fn u16(&mut self) -> Res<u16> {
        Ok(u16::from_le_bytes(self.take()?))
    }
    #[inline(always)]
    fn u32(&mut self) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    #[inline(always)]
    fn u64(&mut self) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take()?))
    }
    #[inline(always)]
    fn i32(&mut self) -> Res<i32> {
        Ok(i32::from_le_bytes(self.take()?))
    }
    #[inline(always)]
    fn f32(&mut self) -> Res<f32> {
        Ok(f32::from_le_bytes(self.take()?))
    }
    #[inline(always)]
    fn f64(&mut self) -> Res<f64> {
        Ok(f64::from_le_bytes(self.take()?))
    }
    #[inline(always)]
    fn bool(&mut self) -> Res<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Failure(format!("null: corrupt message: bool byte {b}"))),
        }
    }
    #[inline(always)]
    fn below(&mut self, limit: u8, what: &str) -> Res<u8> {
        let v = self.u8()?;
        if v >= limit {
            return Err(Failure(format!("null: corrupt message: {what} {v}")));
        }
        Ok(v)
    }
    /// Reads a str into `out` (cleared first, capacity kept).
    #[inline(always)]
    fn str_into(&mut self, out: &mut String) -> Res<()> {
        let n = self.u32()? as usize;
        if self.p.len() < n {
            return Err(Failure::new("null: truncated message"));
        }
        let (a, b) = self.p.split_at(n);
        self.p = b;
        out.clear();
        out.push_str(
            std::str::from_utf8(a).map_err(|_| Failure::new("null: corrupt message: text"))?,
        );
        Ok(())
    }
    /// An element count, refused if the rest cannot hold that many elements.
    fn count(&mut self, min_element_bytes: usize) -> Res<u32> {
        let n = self.u32()?;
        if n as usize > self.p.len() / min_element_bytes {
            return Err(Failure(format!(
                "null: corrupt message: list of {n} elements in {} bytes",
                self.p.len()
            )));
        }
        Ok(n)
    }
    fn finish(&self) -> Res<()> {
        if !self.p.is_empty() {
            return Err(Failure(format!(
                "null: corrupt message: {} bytes after the end",
                self.p.len()
            )));
        }
        Ok(())
    }
}

pub trait Msg: Default + Send {
    fn encode(&self, w: &mut W<'_>);
    fn decode(&mut self, r: &mut R<'_>) -> Res<()>;
}

pub trait Case: 'static {
    type Req: Msg;
    type Resp: Msg;
    type E: Term;
    fn setup(rng: &mut Rng, req: &mut Self::Req) -> Self::E;
    fn handle(req: &Self::Req, resp: &mut Self::Resp) -> Res<()>;
    fn answer(resp: &Self::Resp) -> Self::E;
}

// ---- carsales ---------------------------------------------------------------------------

#[derive(Default, Clone, Copy)]
pub struct Wheel {
    diameter: u16,
    air_pressure: f32,
    snow_tires: bool,
}
#[derive(Default, Clone, Copy)]
pub struct Engine {
    horsepower: u16,
    cylinders: u8,
    cc: u32,
    uses_gas: bool,
    uses_electric: bool,
}
#[derive(Default)]
pub struct Car {
    make: String,
    model: String,
    color: u8,
    seats: u8,
    doors: u8,
    wheels: Vec<Wheel>,
    length: u16,
    width: u16,
    height: u16,
    weight: u32,
    engine: Engine,
    fuel_capacity: f32,
    fuel_level: f32,
    has_power_windows: bool,
    has_power_steering: bool,
    has_cruise_control: bool,
    cup_holders: u8,
    has_nav_system: bool,
}
#[derive(Default)]
pub struct ParkingLot {
    cars: Slots<Car>,
}
#[derive(Default)]
pub struct TotalValue {
    amount: u64,
}

const WHEEL_BYTES: usize = 2 + 4 + 1;
const ENGINE_BYTES: usize = 2 + 1 + 4 + 1 + 1;
const CAR_FIXED_BYTES: usize = 4 + 4 + 3 + 4 + 6 + 4 + ENGINE_BYTES + 8 + 5;

fn car_value(car: &Car) -> u64 {
    let mut wheel_sum = 0u32;
    for w in &car.wheels {
        wheel_sum = wheel_sum.wrapping_add(cases::wheel_value(u32::from(w.diameter), w.snow_tires));
    }
    cases::car_value(&cases::CarFacts {
        seats: u32::from(car.seats),
        doors: u32::from(car.doors),
        wheel_sum,
        length: u32::from(car.length),
        width: u32::from(car.width),
        height: u32::from(car.height),
        horsepower: u32::from(car.engine.horsepower),
        uses_gas: car.engine.uses_gas,
        uses_electric: car.engine.uses_electric,
        power_windows: car.has_power_windows,
        power_steering: car.has_power_steering,
        cruise_control: car.has_cruise_control,
        nav_system: car.has_nav_system,
        cup_holders: u32::from(car.cup_holders),
    })
}

impl Msg for ParkingLot {
    fn encode(&self, w: &mut W<'_>) {
        let cars = self.cars.as_slice();
        w.u32(cars.len() as u32);
        for car in cars {
            w.str(&car.make);
            w.str(&car.model);
            w.u8(car.color);
            w.u8(car.seats);
            w.u8(car.doors);
            w.u32(car.wheels.len() as u32);
            for wh in &car.wheels {
                w.u16(wh.diameter);
                w.f32(wh.air_pressure);
                w.bool(wh.snow_tires);
            }
            w.u16(car.length);
            w.u16(car.width);
            w.u16(car.height);
            w.u32(car.weight);
            w.u16(car.engine.horsepower);
            w.u8(car.engine.cylinders);
            w.u32(car.engine.cc);
            w.bool(car.engine.uses_gas);
            w.bool(car.engine.uses_electric);
            w.f32(car.fuel_capacity);
            w.f32(car.fuel_level);
            w.bool(car.has_power_windows);
            w.bool(car.has_power_steering);
            w.bool(car.has_cruise_control);
            w.u8(car.cup_holders);
            w.bool(car.has_nav_system);
        }
    }
    fn decode(&mut self, r: &mut R<'_>) -> Res<()> {
        let n = r.count(CAR_FIXED_BYTES)?;
        self.cars.clear();
        self.cars.reserve(n as usize);
        for _ in 0..n {
            let car = self.cars.next();
            r.str_into(&mut car.make)?;
            r.str_into(&mut car.model)?;
            car.color = r.below(cases::COLORS as u8, "color")?;
            car.seats = r.u8()?;
            car.doors = r.u8()?;
            let wheels = r.count(WHEEL_BYTES)?;
            car.wheels.clear();
            for _ in 0..wheels {
                car.wheels.push(Wheel {
                    diameter: r.u16()?,
                    air_pressure: r.f32()?,
                    snow_tires: r.bool()?,
                });
            }
            car.length = r.u16()?;
            car.width = r.u16()?;
            car.height = r.u16()?;
            car.weight = r.u32()?;
            car.engine.horsepower = r.u16()?;
            car.engine.cylinders = r.u8()?;
            car.engine.cc = r.u32()?;
            car.engine.uses_gas = r.bool()?;
            car.engine.uses_electric = r.bool()?;
            car.fuel_capacity = r.f32()?;
            car.fuel_level = r.f32()?;
            car.has_power_windows = r.bool()?;
            car.has_power_steering = r.bool()?;
            car.has_cruise_control = r.bool()?;
            car.cup_holders = r.u8()?;
            car.has_nav_system = r.bool()?;
        }
        Ok(())
    }
}

impl Msg for TotalValue {
    fn encode(&self, w: &mut W<'_>) {
        w.u64(self.amount);
    }
    fn decode(&mut self, r: &mut R<'_>) -> Res<()> {
        self.amount = r.u64()?;
        Ok(())
    }
}

pub struct CarSales;

impl Case for CarSales {
    type Req = ParkingLot;
    type Resp = TotalValue;
    type E = u64;

    fn setup(rng: &mut Rng, req: &mut ParkingLot) -> u64 {
        let mut local = rng.local();
        let rng = &mut local.g;
        let count = rng.rand(200);
        req.cars.clear();
        req.cars.reserve(count as usize);
        let mut total = 0u64;
        for _ in 0..count {
            // Draw into locals first, then store: stores through `car` between draws make
            // the compiler reload the generator state from memory after each of them.
            let make = cases::MAKES[rng.rand(5) as usize];
            let model = cases::MODELS[rng.rand(6) as usize];
            let color = rng.rand(cases::COLORS) as u8;
            let seats = (2 + rng.rand(6)) as u8;
            let doors = (2 + rng.rand(3)) as u8;
            let mut wheels = [Wheel::default(); 4];
            for w in &mut wheels {
                let diameter = (25 + rng.rand(15)) as u16;
                let air_pressure = (30.0 + rng.rand_double(20.0)) as f32;
                let snow_tires = rng.rand(16) == 0;
                *w = Wheel {
                    diameter,
                    air_pressure,
                    snow_tires,
                };
            }
            let length = 170 + rng.rand(150);
            let width = 48 + rng.rand(36);
            let height = 54 + rng.rand(48);
            let engine = Engine {
                horsepower: (100 * rng.rand(400)) as u16,
                cylinders: (4 + 2 * rng.rand(3)) as u8,
                cc: 800 + rng.rand(10000),
                uses_gas: true,
                uses_electric: rng.rand(2) != 0,
            };
            let fuel_capacity = (10.0 + rng.rand_double(30.0)) as f32;
            let fuel_level = rng.rand_double(f64::from(fuel_capacity)) as f32;
            let has_power_windows = rng.rand(2) != 0;
            let has_power_steering = rng.rand(2) != 0;
            let has_cruise_control = rng.rand(2) != 0;
            let cup_holders = rng.rand(12) as u8;
            let has_nav_system = rng.rand(2) != 0;

            let car = req.cars.next();
            car.make.clear();
            car.make.push_str(make);
            car.model.clear();
            car.model.push_str(model);
            car.color = color;
            car.seats = seats;
            car.doors = doors;
            car.wheels.clear();
            car.wheels.extend_from_slice(&wheels);
            car.length = length as u16;
            car.width = width as u16;
            car.height = height as u16;
            car.weight = length.wrapping_mul(width).wrapping_mul(height) / 200;
            car.engine = engine;
            car.fuel_capacity = fuel_capacity;
            car.fuel_level = fuel_level;
            car.has_power_windows = has_power_windows;
            car.has_power_steering = has_power_steering;
            car.has_cruise_control = has_cruise_control;
            car.cup_holders = cup_holders;
            car.has_nav_system = has_nav_system;
            total = total.wrapping_add(car_value(car));
        }
        total
    }
    fn handle(req: &ParkingLot, resp: &mut TotalValue) -> Res<()> {
        let mut total = 0u64;
        for car in req.cars.as_slice() {
            total = total.wrapping_add(car_value(car));
        }
        resp.amount = total;
        Ok(())
    }
    fn answer(resp: &TotalValue) -> u64 {
        resp.amount
    }
}

// ---- catrank ----------------------------------------------------------------------------

#[derive(Default)]
pub struct SearchResult {
    url: String,
    score: f64,
    snippet: String,
}
#[derive(Default)]
pub struct SearchResultList {
    results: Slots<SearchResult>,
}

const RESULT_FIXED_BYTES: usize = 4 + 8 + 4;

impl Msg for SearchResultList {
    fn encode(&self, w: &mut W<'_>) {
        let rs = self.results.as_slice();
        w.u32(rs.len() as u32);
        for r in rs {
            w.str(&r.url);
            w.f64(r.score);
            w.str(&r.snippet);
        }
    }
    fn decode(&mut self, r: &mut R<'_>) -> Res<()> {
        let n = r.count(RESULT_FIXED_BYTES)?;
        self.results.clear();
        self.results.reserve(n as usize);
        for _ in 0..n {
            let out = self.results.next();
            r.str_into(&mut out.url)?;
            out.score = r.f64()?;
            r.str_into(&mut out.snippet)?;
        }
        Ok(())
    }
}

pub struct CatRank;

impl Case for CatRank {
    type Req = SearchResultList;
    type Resp = SearchResultList;
    type E = i64;

    fn setup(rng: &mut Rng, req: &mut SearchResultList) -> i64 {
        let mut local = rng.local();
        let rng = &mut local.g;
        let count = rng.rand(1000);
        req.results.clear();
        req.results.reserve(count as usize);
        let mut good = 0i64;
        for i in 0..count {
            let r = req.results.next();
            r.score = f64::from(1000 - i as i32);
            r.url.clear();
            cases::append_url(rng, &mut r.url);
            r.snippet.clear();
            good += i64::from(cases::append_snippet(rng, &mut r.snippet));
        }
        good
    }
    fn handle(req: &SearchResultList, resp: &mut SearchResultList) -> Res<()> {
        let mut scored: Vec<(f64, &SearchResult)> = req
            .results
            .as_slice()
            .iter()
            .map(|r| (cases::rescore(r.score, &r.snippet), r))
            .collect();
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        resp.results.clear();
        resp.results.reserve(scored.len());
        for (s, r) in scored {
            let out = resp.results.next();
            out.url.clear();
            out.url.push_str(&r.url);
            out.score = s;
            out.snippet.clear();
            out.snippet.push_str(&r.snippet);
        }
        Ok(())
    }
    fn answer(resp: &SearchResultList) -> i64 {
        cases::leading_good(resp.results.as_slice().iter().map(|r| r.score))
    }
}

// ---- eval -------------------------------------------------------------------------------

#[derive(Default, Clone, Copy)]
pub enum Operand {
    #[default]
    None,
    Value(i32),
    /// Index of the sub-expression in the tree's node list.
    Expr(u32),
}

#[derive(Default, Clone, Copy)]
pub struct Node {
    op: u8,
    left: Operand,
    right: Operand,
}

/// An expression tree: nodes in pre-order, the root at index 0.
#[derive(Default)]
pub struct Expression {
    nodes: Slots<Node>,
}
#[derive(Default)]
pub struct EvaluationResult {
    value: i32,
}

impl Expression {
    fn build(&mut self, rng: &mut Rng, depth: u32) -> (u32, i32) {
        let at = self.nodes.len as u32;
        self.nodes.next();
        let op = rng.rand(cases::OPS);
        let (left, lv) = if rng.rand(8) < depth {
            let v = rng.rand(128) as i32 + 1;
            (Operand::Value(v), v)
        } else {
            let (i, v) = self.build(rng, depth + 1);
            (Operand::Expr(i), v)
        };
        let (right, rv) = if rng.rand(8) < depth {
            let v = rng.rand(128) as i32 + 1;
            (Operand::Value(v), v)
        } else {
            let (i, v) = self.build(rng, depth + 1);
            (Operand::Expr(i), v)
        };
        *self.nodes.get_mut(at as usize) = Node {
            op: op as u8,
            left,
            right,
        };
        (at, cases::apply(op, lv, rv))
    }

    fn evaluate(&self, at: u32) -> i32 {
        let n = self.nodes.get(at as usize);
        let operand = |o: Operand| match o {
            Operand::Value(v) => v,
            Operand::Expr(i) => self.evaluate(i),
            Operand::None => 0,
        };
        cases::apply(u32::from(n.op), operand(n.left), operand(n.right))
    }

    fn encode_at(&self, w: &mut W<'_>, at: u32) {
        let n = *self.nodes.get(at as usize);
        w.u8(n.op);
        let kinds = u8::from(matches!(n.left, Operand::Expr(_)))
            | (u8::from(matches!(n.right, Operand::Expr(_))) << 1);
        w.u8(kinds);
        for o in [n.left, n.right] {
            match o {
                Operand::Expr(i) => self.encode_at(w, i),
                Operand::Value(v) => w.0.extend_from_slice(&v.to_le_bytes()),
                Operand::None => w.0.extend_from_slice(&0i32.to_le_bytes()),
            }
        }
    }

    fn decode_at(&mut self, r: &mut R<'_>, depth: u32) -> Res<u32> {
        // The generator never nests deeper than 9.
        if depth > limits::NULL_NESTING_LIMIT {
            return Err(Failure::new(
                "null: corrupt message: expression nested too deeply",
            ));
        }
        let at = self.nodes.len as u32;
        self.nodes.next();
        let op = r.below(cases::OPS as u8, "operation")?;
        let kinds = r.below(4, "operand kinds")?;
        let left = if kinds & 1 != 0 {
            Operand::Expr(self.decode_at(r, depth + 1)?)
        } else {
            Operand::Value(r.i32()?)
        };
        let right = if kinds & 2 != 0 {
            Operand::Expr(self.decode_at(r, depth + 1)?)
        } else {
            Operand::Value(r.i32()?)
        };
        *self.nodes.get_mut(at as usize) = Node { op, left, right };
        Ok(at)
    }
}

impl Msg for Expression {
    fn encode(&self, w: &mut W<'_>) {
        self.encode_at(w, 0);
    }
    fn decode(&mut self, r: &mut R<'_>) -> Res<()> {
        self.nodes.clear();
        self.decode_at(r, 0)?;
        Ok(())
    }
}

impl Msg for EvaluationResult {
    fn encode(&self, w: &mut W<'_>) {
        w.0.extend_from_slice(&self.value.to_le_bytes());
    }
    fn decode(&mut self, r: &mut R<'_>) -> Res<()> {
        self.value = r.i32()?;
        Ok(())
    }
}

pub struct Eval;

impl Case for Eval {
    type Req = Expression;
    type Resp = EvaluationResult;
    type E = i32;

    fn setup(rng: &mut Rng, req: &mut Expression) -> i32 {
        req.nodes.clear();
        req.build(rng, 0).1
    }
    fn handle(req: &Expression, resp: &mut EvaluationResult) -> Res<()> {
        resp.value = req.evaluate(0);
        Ok(())
    }
    fn answer(resp: &EvaluationResult) -> i32 {
        resp.value
    }
}

// ---- framing ----------------------------------------------------------------------------

/// Encodes a message into `buf` (cleared) and returns its size.
fn encode<M: Msg>(m: &M, buf: &mut Vec<u8>) -> usize {
    buf.clear();
    m.encode(&mut W(buf));
    buf.len()
}

fn decode<M: Msg>(m: &mut M, bytes: &[u8]) -> Res<()> {
    let mut r = R { p: bytes };
    m.decode(&mut r)?;
    r.finish()
}

/// Writes the u32 size prefix and the message with one write.
fn write_framed<M: Msg, Wr: Write>(w: &mut Wr, m: &M, buf: &mut Vec<u8>) -> Res<()> {
    buf.clear();
    buf.extend_from_slice(&[0; 4]);
    m.encode(&mut W(buf));
    let size = (buf.len() - 4) as u32;
    buf[..4].copy_from_slice(&size.to_le_bytes());
    w.write_all(buf)?;
    w.flush()?;
    Ok(())
}

/// Reads the next framed message into `m`; false at a clean end of file before the size
/// prefix.
fn read_framed<M: Msg, Rd: Read>(r: &mut Rd, m: &mut M, buf: &mut Vec<u8>) -> Res<bool> {
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        let n = match r.read(&mut prefix[got..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if n == 0 {
            if got == 0 {
                return Ok(false);
            }
            return Err(Failure(format!(
                "truncated null message size prefix: end of file after {got} of 4 bytes"
            )));
        }
        got += n;
    }
    let size = u32::from_le_bytes(prefix);
    if u64::from(size) > limits::MAX_FRAME_BYTES {
        return Err(limits::frame_too_long("null", u64::from(size)));
    }
    buf.clear();
    buf.resize(size as usize, 0);
    r.read_exact(buf)
        .map_err(|e| Failure(format!("null: truncated message of {size} bytes: {e}")))?;
    decode(m, buf)?;
    Ok(true)
}

// ---- the library ------------------------------------------------------------------------

pub struct Null<C: Case, const REUSE: bool> {
    m1: C::Req,
    m2: C::Req,
    r1: C::Resp,
    r2: C::Resp,
    b1: Vec<u8>,
    b2: Vec<u8>,
    _case: PhantomData<fn() -> C>,
}

#[inline(always)]
fn pick<'a, M: Default, const REUSE: bool>(kept: &'a mut M, fresh: &'a mut Option<M>) -> &'a mut M {
    if REUSE {
        kept
    } else {
        fresh.insert(M::default())
    }
}

#[inline(always)]
fn pick_buf<'a, const REUSE: bool>(
    kept: &'a mut Vec<u8>,
    fresh: &'a mut Vec<u8>,
) -> &'a mut Vec<u8> {
    if REUSE {
        kept
    } else {
        fresh
    }
}

impl<C: Case, const REUSE: bool> Default for Null<C, REUSE> {
    fn default() -> Self {
        Null {
            m1: Default::default(),
            m2: Default::default(),
            r1: Default::default(),
            r2: Default::default(),
            b1: Vec::new(),
            b2: Vec::new(),
            _case: PhantomData,
        }
    }
}

impl<C: Case, const REUSE: bool> Library for Null<C, REUSE> {
    type E = C::E;
    /// Unbuffered, as the C++ driver: one write per message; reads of the prefix, then of
    /// the body.
    const READ_BUFFER: usize = 0;
    const WRITE_BUFFER: usize = 0;

    fn object(&mut self, rng: &mut Rng) -> Res<(C::E, C::E)> {
        let (mut f1, mut f2) = (None, None);
        let request = pick::<_, REUSE>(&mut self.m1, &mut f1);
        let expected = C::setup(rng, request);
        let response = pick::<_, REUSE>(&mut self.r1, &mut f2);
        C::handle(request, response)?;
        Ok((expected, C::answer(response)))
    }

    fn bytes(&mut self, rng: &mut Rng) -> Res<(C::E, C::E, u64)> {
        let (mut f1, mut f2, mut f3, mut f4) = (None, None, None, None);
        let (mut fb1, mut fb2) = (Vec::new(), Vec::new());
        let request = pick::<_, REUSE>(&mut self.m1, &mut f1);
        let expected = C::setup(rng, request);
        let rq = pick_buf::<REUSE>(&mut self.b1, &mut fb1);
        let mut moved = encode(request, rq) as u64;

        let server_request = pick::<_, REUSE>(&mut self.m2, &mut f2);
        decode(server_request, rq)?;
        let server_response = pick::<_, REUSE>(&mut self.r1, &mut f3);
        C::handle(server_request, server_response)?;
        let rs = pick_buf::<REUSE>(&mut self.b2, &mut fb2);
        moved += encode(server_response, rs) as u64;

        let response = pick::<_, REUSE>(&mut self.r2, &mut f4);
        decode(response, rs)?;
        Ok((expected, C::answer(response), moved))
    }

    fn send(&mut self, rng: &mut Rng, output: &mut impl Write) -> Res<C::E> {
        let mut f1 = None;
        let mut fb1 = Vec::new();
        let request = pick::<_, REUSE>(&mut self.m1, &mut f1);
        let expected = C::setup(rng, request);
        write_framed(output, request, pick_buf::<REUSE>(&mut self.b1, &mut fb1))?;
        Ok(expected)
    }

    fn receive(&mut self, input: &mut impl BufRead) -> Res<Option<C::E>> {
        let mut f2 = None;
        let mut fb2 = Vec::new();
        let response = pick::<_, REUSE>(&mut self.r2, &mut f2);
        let buf = pick_buf::<REUSE>(&mut self.b2, &mut fb2);
        if !read_framed(input, response, buf)? {
            return Ok(None);
        }
        Ok(Some(C::answer(response)))
    }

    fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> Res<bool> {
        let (mut f1, mut f2) = (None, None);
        let (mut fb1, mut fb2) = (Vec::new(), Vec::new());
        let request = pick::<_, REUSE>(&mut self.m1, &mut f1);
        if !read_framed(input, request, pick_buf::<REUSE>(&mut self.b1, &mut fb1))? {
            return Ok(false);
        }
        let response = pick::<_, REUSE>(&mut self.r1, &mut f2);
        C::handle(request, response)?;
        write_framed(output, response, pick_buf::<REUSE>(&mut self.b2, &mut fb2))?;
        Ok(true)
    }
}

fn make_for<C: Case>(reuse: bool) -> Box<dyn Cell> {
    if reuse {
        super::cell::<Null<C, true>>()
    } else {
        super::cell::<Null<C, false>>()
    }
}

/// The library's factory (the rpc suite's registry, src/rpc/mod.rs).
pub fn make(case: &str, compression: &str, reuse: bool) -> Option<Box<dyn Cell>> {
    if compression != "none" {
        return None;
    }
    Some(match case {
        "carsales" => make_for::<CarSales>(reuse),
        "catrank" => make_for::<CatRank>(reuse),
        "eval" => make_for::<Eval>(reuse),
        _ => return None,
    })
}
