//! The rpc suite on Protocol Buffers (prost), doing per iteration the work of the C++
//! driver (drivers/cpp/src/rpc/protobuf.cpp):
//!  - reuse: one message struct per role, kept and `clear()`ed after each use, and kept
//!    `Vec<u8>` buffers; no-reuse: fresh structs and buffers for every use. (prost's clear
//!    drops the elements of repeated fields and sub-messages, so reuse keeps only the
//!    outer containers' capacity; protobuf-C++ keeps cleared elements too.)
//!  - pipe: each message preceded by its size as a varint (the delimited framing), written
//!    with one write per message to the fd (no write buffer) and read through an 8 KiB
//!    BufReader. Bytes are counted at the fd: varint + message, as in the C++ driver.
//!  - compression: none only.

use std::io::{BufRead, Write};
use std::marker::PhantomData;

use prost::Message;

use super::{cases, Cell, Library, Term};
use crate::error::{Failure, Res};
use crate::limits;
use crate::pb::carsales as cs;
use crate::pb::catrank as cr;
use crate::pb::eval as ev;
use crate::rng::Rng;

impl From<prost::DecodeError> for Failure {
    fn from(e: prost::DecodeError) -> Self {
        Failure(format!("protobuf: {e}"))
    }
}

pub trait Case: 'static {
    type Req: Message + Default + Send;
    type Resp: Message + Default + Send;
    type E: Term;
    fn setup(rng: &mut Rng, req: &mut Self::Req) -> Self::E;
    fn handle(req: &Self::Req, resp: &mut Self::Resp) -> Res<()>;
    fn answer(resp: &Self::Resp) -> Res<Self::E>;
}

// ---- cases ------------------------------------------------------------------------------

fn car_value(car: &cs::Car) -> u64 {
    let mut wheel_sum = 0u32;
    for w in &car.wheel {
        wheel_sum = wheel_sum.wrapping_add(cases::wheel_value(w.diameter(), w.snow_tires()));
    }
    let engine = car.engine.unwrap_or_default();
    cases::car_value(&cases::CarFacts {
        seats: car.seats(),
        doors: car.doors(),
        wheel_sum,
        length: car.length(),
        width: car.width(),
        height: car.height(),
        horsepower: engine.horsepower(),
        uses_gas: engine.uses_gas(),
        uses_electric: engine.uses_electric(),
        power_windows: car.has_power_windows(),
        power_steering: car.has_power_steering(),
        cruise_control: car.has_cruise_control(),
        nav_system: car.has_nav_system(),
        cup_holders: car.cup_holders(),
    })
}

pub struct CarSales;

impl CarSales {
    #[inline(always)]
    fn random_car(rng: &mut Rng) -> cs::Car {
        let make = cases::MAKES[rng.rand(5) as usize];
        let model = cases::MODELS[rng.rand(6) as usize];
        let color = rng.rand(cases::COLORS) as i32;
        let seats = 2 + rng.rand(6);
        let doors = 2 + rng.rand(3);
        let mut wheel = Vec::with_capacity(4);
        for _ in 0..4 {
            let diameter = 25 + rng.rand(15);
            let air_pressure = (30.0 + rng.rand_double(20.0)) as f32;
            let snow_tires = rng.rand(16) == 0;
            wheel.push(cs::Wheel {
                diameter: Some(diameter),
                air_pressure: Some(air_pressure),
                snow_tires: Some(snow_tires),
            });
        }
        let length = 170 + rng.rand(150);
        let width = 48 + rng.rand(36);
        let height = 54 + rng.rand(48);
        let horsepower = 100 * rng.rand(400);
        let cylinders = 4 + 2 * rng.rand(3);
        let cc = 800 + rng.rand(10000);
        let uses_electric = rng.rand(2) != 0;
        let capacity = (10.0 + rng.rand_double(30.0)) as f32;
        let level = rng.rand_double(f64::from(capacity)) as f32;
        let windows = rng.rand(2) != 0;
        let steering = rng.rand(2) != 0;
        let cruise = rng.rand(2) != 0;
        let cup_holders = rng.rand(12);
        let nav = rng.rand(2) != 0;
        cs::Car {
            make: Some(make.to_owned()),
            model: Some(model.to_owned()),
            color: Some(color),
            seats: Some(seats),
            doors: Some(doors),
            wheel,
            length: Some(length),
            width: Some(width),
            height: Some(height),
            weight: Some(length.wrapping_mul(width).wrapping_mul(height) / 200),
            engine: Some(cs::Engine {
                horsepower: Some(horsepower),
                cylinders: Some(cylinders),
                cc: Some(cc),
                uses_gas: Some(true),
                uses_electric: Some(uses_electric),
            }),
            fuel_capacity: Some(capacity),
            fuel_level: Some(level),
            has_power_windows: Some(windows),
            has_power_steering: Some(steering),
            has_cruise_control: Some(cruise),
            cup_holders: Some(cup_holders),
            has_nav_system: Some(nav),
        }
    }
}

impl Case for CarSales {
    type Req = cs::ParkingLot;
    type Resp = cs::TotalValue;
    type E = u64;

    fn setup(rng: &mut Rng, req: &mut cs::ParkingLot) -> u64 {
        let mut local = rng.local();
        let rng = &mut local.g;
        let mut total = 0u64;
        for _ in 0..rng.rand(200) {
            let car = Self::random_car(rng);
            total = total.wrapping_add(car_value(&car));
            req.car.push(car);
        }
        total
    }
    fn handle(req: &cs::ParkingLot, resp: &mut cs::TotalValue) -> Res<()> {
        let mut total = 0u64;
        for car in &req.car {
            total = total.wrapping_add(car_value(car));
        }
        resp.amount = total;
        Ok(())
    }
    fn answer(resp: &cs::TotalValue) -> Res<u64> {
        Ok(resp.amount)
    }
}

pub struct CatRank;

impl Case for CatRank {
    type Req = cr::SearchResultList;
    type Resp = cr::SearchResultList;
    type E = i64;

    fn setup(rng: &mut Rng, req: &mut cr::SearchResultList) -> i64 {
        let mut local = rng.local();
        let rng = &mut local.g;
        let count = rng.rand(1000);
        let mut good = 0i64;
        req.result.reserve(count as usize);
        for i in 0..count {
            let mut url = String::with_capacity(cases::URL_PREFIX.len() + 100);
            cases::append_url(rng, &mut url);
            let mut snippet = String::with_capacity(7 * 22);
            good += i64::from(cases::append_snippet(rng, &mut snippet));
            req.result.push(cr::SearchResult {
                url: Some(url),
                score: Some(f64::from(1000 - i as i32)),
                snippet: Some(snippet),
            });
        }
        good
    }
    fn handle(req: &cr::SearchResultList, resp: &mut cr::SearchResultList) -> Res<()> {
        let mut scored: Vec<(f64, &cr::SearchResult)> = req
            .result
            .iter()
            .map(|r| (cases::rescore(r.score(), r.snippet()), r))
            .collect();
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        resp.result.reserve(scored.len());
        for (s, r) in scored {
            resp.result.push(cr::SearchResult {
                url: r.url.clone(),
                score: Some(s),
                snippet: r.snippet.clone(),
            });
        }
        Ok(())
    }
    fn answer(resp: &cr::SearchResultList) -> Res<i64> {
        Ok(cases::leading_good(resp.result.iter().map(|r| r.score())))
    }
}

pub struct Eval;

impl Eval {
    fn make(rng: &mut Rng, e: &mut ev::Expression, depth: u32) -> i32 {
        let op = rng.rand(cases::OPS);
        e.op = op as i32;
        let left = if rng.rand(8) < depth {
            let v = rng.rand(128) as i32 + 1;
            e.left_value = Some(v);
            v
        } else {
            Self::make(
                rng,
                e.left_expression.get_or_insert_with(Default::default),
                depth + 1,
            )
        };
        let right = if rng.rand(8) < depth {
            let v = rng.rand(128) as i32 + 1;
            e.right_value = Some(v);
            v
        } else {
            Self::make(
                rng,
                e.right_expression.get_or_insert_with(Default::default),
                depth + 1,
            )
        };
        cases::apply(op, left, right)
    }

    fn evaluate(e: &ev::Expression, depth: u32) -> Res<i32> {
        if depth > 64 {
            return Err(Failure::new("eval: expression nested too deeply"));
        }
        let l = match (&e.left_value, &e.left_expression) {
            (Some(v), _) => *v,
            (None, Some(x)) => Self::evaluate(x, depth + 1)?,
            _ => return Err(Failure::new("eval: expression without a left operand")),
        };
        let r = match (&e.right_value, &e.right_expression) {
            (Some(v), _) => *v,
            (None, Some(x)) => Self::evaluate(x, depth + 1)?,
            _ => return Err(Failure::new("eval: expression without a right operand")),
        };
        if !(0..cases::OPS as i32).contains(&e.op) {
            return Err(Failure(format!("eval: unknown operation {}", e.op)));
        }
        Ok(cases::apply(e.op as u32, l, r))
    }
}

impl Case for Eval {
    type Req = ev::Expression;
    type Resp = ev::EvaluationResult;
    type E = i32;

    fn setup(rng: &mut Rng, req: &mut ev::Expression) -> i32 {
        Self::make(rng, req, 0)
    }
    fn handle(req: &ev::Expression, resp: &mut ev::EvaluationResult) -> Res<()> {
        resp.value = Self::evaluate(req, 0)?;
        Ok(())
    }
    fn answer(resp: &ev::EvaluationResult) -> Res<i32> {
        Ok(resp.value)
    }
}

// ---- framing ----------------------------------------------------------------------------

/// Writes one delimited message (one write, then flush).
fn write_delimited<M: Message, W: Write>(m: &M, buf: &mut Vec<u8>, w: &mut W) -> Res<()> {
    buf.clear();
    m.encode_length_delimited(buf)
        .map_err(|e| Failure(format!("protobuf encode: {e}")))?;
    w.write_all(buf)?;
    w.flush()?;
    Ok(())
}

/// Reads one delimited message's bytes into `buf`; false at a clean end of file (before
/// the first byte of the size prefix).
fn read_delimited<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> Res<bool> {
    let mut size: u64 = 0;
    let mut shift = 0;
    let mut prefix = 0u64;
    loop {
        let mut b = [0u8; 1];
        let n = r.read(&mut b)?;
        if n == 0 {
            if prefix == 0 {
                return Ok(false);
            }
            return Err(Failure::new(
                "corrupt or truncated protobuf stream: no whole size prefix",
            ));
        }
        prefix += 1;
        size |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            break;
        }
        shift += 7;
        if prefix == 10 {
            return Err(Failure::new("corrupt protobuf stream: bad size prefix"));
        }
    }
    if size > limits::MAX_FRAME_BYTES {
        return Err(limits::frame_too_long("protobuf", size));
    }
    buf.clear();
    buf.resize(size as usize, 0);
    r.read_exact(buf)
        .map_err(|e| Failure(format!("truncated protobuf message of {size} bytes: {e}")))?;
    Ok(true)
}

// ---- the library ------------------------------------------------------------------------

pub struct Protobuf<C: Case, const REUSE: bool> {
    client_request: C::Req,
    server_request: C::Req,
    server_response: C::Resp,
    client_response: C::Resp,
    request_bytes: Vec<u8>,
    response_bytes: Vec<u8>,
    _case: PhantomData<fn() -> C>,
}

/// The message for one use: the kept one (reuse) or a fresh one placed in `fresh`.
#[inline(always)]
fn use_msg<'a, M: Default, const REUSE: bool>(
    kept: &'a mut M,
    fresh: &'a mut Option<M>,
) -> &'a mut M {
    if REUSE {
        kept
    } else {
        fresh.insert(M::default())
    }
}

#[inline(always)]
fn done<M: Message, const REUSE: bool>(m: &mut M) {
    if REUSE {
        m.clear();
    }
}

#[inline(always)]
fn use_buf<'a, const REUSE: bool>(
    kept: &'a mut Vec<u8>,
    fresh: &'a mut Vec<u8>,
) -> &'a mut Vec<u8> {
    if REUSE {
        kept
    } else {
        fresh
    }
}

impl<C: Case, const REUSE: bool> Default for Protobuf<C, REUSE> {
    fn default() -> Self {
        Protobuf {
            client_request: C::Req::default(),
            server_request: C::Req::default(),
            server_response: C::Resp::default(),
            client_response: C::Resp::default(),
            request_bytes: Vec::new(),
            response_bytes: Vec::new(),
            _case: PhantomData,
        }
    }
}

/// Decodes `bytes` into the kept message (reuse: cleared, merged into) or a fresh one.
fn decode_into<M: Message + Default>(m: &mut M, bytes: &[u8]) -> Res<()> {
    m.merge(bytes)?;
    Ok(())
}

impl<C: Case, const REUSE: bool> Library for Protobuf<C, REUSE> {
    type E = C::E;
    /// One write per message, straight to the fd.
    const WRITE_BUFFER: usize = 0;

    fn object(&mut self, rng: &mut Rng) -> Res<(C::E, C::E)> {
        let (mut f1, mut f2) = (None, None);
        let request = use_msg::<_, REUSE>(&mut self.client_request, &mut f1);
        let expected = C::setup(rng, request);
        let response = use_msg::<_, REUSE>(&mut self.server_response, &mut f2);
        C::handle(request, response)?;
        done::<_, REUSE>(request);
        let answer = C::answer(response)?;
        done::<_, REUSE>(response);
        Ok((expected, answer))
    }

    fn bytes(&mut self, rng: &mut Rng) -> Res<(C::E, C::E, u64)> {
        let (mut f1, mut f2, mut f3, mut f4) = (None, None, None, None);
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        let client_request = use_msg::<_, REUSE>(&mut self.client_request, &mut f1);
        let expected = C::setup(rng, client_request);
        let request_bytes = use_buf::<REUSE>(&mut self.request_bytes, &mut b1);
        request_bytes.clear();
        client_request
            .encode(request_bytes)
            .map_err(|e| Failure(format!("protobuf encode: {e}")))?;
        let mut moved = request_bytes.len() as u64;
        done::<_, REUSE>(client_request);

        let server_request = use_msg::<_, REUSE>(&mut self.server_request, &mut f2);
        decode_into(server_request, request_bytes)?;
        let server_response = use_msg::<_, REUSE>(&mut self.server_response, &mut f3);
        C::handle(server_request, server_response)?;
        done::<_, REUSE>(server_request);

        let response_bytes = use_buf::<REUSE>(&mut self.response_bytes, &mut b2);
        response_bytes.clear();
        server_response
            .encode(response_bytes)
            .map_err(|e| Failure(format!("protobuf encode: {e}")))?;
        moved += response_bytes.len() as u64;
        done::<_, REUSE>(server_response);

        let client_response = use_msg::<_, REUSE>(&mut self.client_response, &mut f4);
        decode_into(client_response, response_bytes)?;
        let answer = C::answer(client_response)?;
        done::<_, REUSE>(client_response);
        Ok((expected, answer, moved))
    }

    fn send(&mut self, rng: &mut Rng, output: &mut impl Write) -> Res<C::E> {
        let mut f1 = None;
        let mut b1 = Vec::new();
        let request = use_msg::<_, REUSE>(&mut self.client_request, &mut f1);
        let expected = C::setup(rng, request);
        let out = use_buf::<REUSE>(&mut self.request_bytes, &mut b1);
        write_delimited(request, out, output)?;
        done::<_, REUSE>(request);
        Ok(expected)
    }

    fn receive(&mut self, input: &mut impl BufRead) -> Res<Option<C::E>> {
        let mut f2 = None;
        let mut b2 = Vec::new();
        let inb = use_buf::<REUSE>(&mut self.response_bytes, &mut b2);
        if !read_delimited(input, inb)? {
            return Ok(None);
        }
        let response = use_msg::<_, REUSE>(&mut self.client_response, &mut f2);
        decode_into(response, inb)?;
        let answer = C::answer(response)?;
        done::<_, REUSE>(response);
        Ok(Some(answer))
    }

    fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> Res<bool> {
        let (mut f1, mut f2) = (None, None);
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        let inb = use_buf::<REUSE>(&mut self.request_bytes, &mut b1);
        if !read_delimited(input, inb)? {
            return Ok(false);
        }
        let request = use_msg::<_, REUSE>(&mut self.server_request, &mut f1);
        decode_into(request, inb)?;
        let response = use_msg::<_, REUSE>(&mut self.server_response, &mut f2);
        C::handle(request, response)?;
        done::<_, REUSE>(request);
        let out = use_buf::<REUSE>(&mut self.response_bytes, &mut b2);
        write_delimited(response, out, output)?;
        done::<_, REUSE>(response);
        Ok(true)
    }
}

fn make_for<C: Case>(reuse: bool) -> Box<dyn Cell> {
    if reuse {
        super::cell::<Protobuf<C, true>>()
    } else {
        super::cell::<Protobuf<C, false>>()
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
