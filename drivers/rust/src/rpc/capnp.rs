//! The rpc suite on Cap'n Proto (capnp crate), doing per iteration the work of the C++
//! driver (drivers/cpp/src/rpc/capnp.cpp), itself after the reference programs:
//!  - reuse: builders use a ScratchSpaceHeapAllocator over a kept, zeroed 128 Ki-word first
//!    segment (it re-zeroes what a message used when the builder is dropped; its second
//!    segment is 128 Ki words, like MallocMessageBuilder's nextSize after a scratch
//!    segment); readers of streams and of packed bytes use a kept 128 Ki-word buffer
//!    (`*_no_alloc` readers). no-reuse: a fresh heap allocator per message that sizes its
//!    segments like C++'s default MallocMessageBuilder (`MallocLike`, below), and
//!    allocating readers.
//!  - bytes: messages go through a kept 1 MiB word-aligned byte buffer (in both reuse
//!    modes, as in the C++ driver), read back with read_message_from_flat_slice (unpacked)
//!    or serialize_packed::read_message(_no_alloc).
//!  - pipe: std's BufWriter over the fd (8 KiB, flushed after every message: a message is
//!    written in pieces) and BufReader over the fd (8 KiB); bytes are counted at the fd.
//!  - catrank text: `text::Reader::to_str()` (UTF-8 validation, fast on ASCII) then
//!    `str::contains`; a foreign peer's non-UTF-8 snippet is a corrupt message.

use std::io::{BufRead, Write};
use std::marker::PhantomData;

use capnp::message::{self, Allocator, ScratchSpaceHeapAllocator};
use capnp::traits::Owned;
use capnp::{serialize, serialize_packed, Word};

use super::{cases, Cell, Library, Term};
use crate::carsales_capnp as cs;
use crate::catrank_capnp as cr;
use crate::error::{Failure, Res};
use crate::eval_capnp as ev;
use crate::limits;
use crate::rng::Rng;

impl From<capnp::Error> for Failure {
    fn from(e: capnp::Error) -> Self {
        match e.kind {
            // A segment table announcing more than the traversal limit (limits.rs).
            capnp::ErrorKind::MessageTooLarge(words) => {
                limits::frame_too_long("Cap'n Proto", (words as u64).saturating_mul(8))
            }
            _ => Failure(format!("Cap'n Proto: {e}")),
        }
    }
}
impl From<capnp::NotInSchema> for Failure {
    fn from(e: capnp::NotInSchema) -> Self {
        Failure(format!("Cap'n Proto: {e}"))
    }
}
impl From<std::str::Utf8Error> for Failure {
    fn from(e: std::str::Utf8Error) -> Self {
        Failure(format!("text is not UTF-8: {e}"))
    }
}

// ---- cases ------------------------------------------------------------------------------

pub trait Case: 'static {
    type Req: Owned;
    type Resp: Owned;
    type E: Term;
    fn setup(
        rng: &mut Rng,
        snippet: &mut String,
        b: <Self::Req as Owned>::Builder<'_>,
    ) -> Res<Self::E>;
    fn handle(
        r: <Self::Req as Owned>::Reader<'_>,
        b: <Self::Resp as Owned>::Builder<'_>,
    ) -> Res<()>;
    fn answer(r: <Self::Resp as Owned>::Reader<'_>) -> Res<Self::E>;
}

/// A car's value, read from a Reader (the server) or from the Builder that made it (the
/// client's expectation, as both reference programs and the C++ driver do: reading it back
/// through a Reader would validate every pointer again, work the references do not do).
macro_rules! car_value_fn {
    ($name:ident, $car:ident) => {
        #[allow(unused_mut)]
        fn $name(mut car: cs::car::$car<'_>) -> Res<u64> {
            let mut wheel_sum = 0u32;
            {
                let mut wheels = car.reborrow().get_wheels()?;
                for i in 0..wheels.len() {
                    let mut w = wheels.reborrow().get(i);
                    wheel_sum = wheel_sum.wrapping_add(cases::wheel_value(
                        u32::from(w.reborrow().get_diameter()),
                        w.reborrow().get_snow_tires(),
                    ));
                }
            }
            let (horsepower, uses_gas, uses_electric) = {
                let mut e = car.reborrow().get_engine()?;
                (
                    u32::from(e.reborrow().get_horsepower()),
                    e.reborrow().get_uses_gas(),
                    e.reborrow().get_uses_electric(),
                )
            };
            Ok(cases::car_value(&cases::CarFacts {
                seats: u32::from(car.reborrow().get_seats()),
                doors: u32::from(car.reborrow().get_doors()),
                wheel_sum,
                length: u32::from(car.reborrow().get_length()),
                width: u32::from(car.reborrow().get_width()),
                height: u32::from(car.reborrow().get_height()),
                horsepower,
                uses_gas,
                uses_electric,
                power_windows: car.reborrow().get_has_power_windows(),
                power_steering: car.reborrow().get_has_power_steering(),
                cruise_control: car.reborrow().get_has_cruise_control(),
                nav_system: car.reborrow().get_has_nav_system(),
                cup_holders: u32::from(car.reborrow().get_cup_holders()),
            }))
        }
    };
}
car_value_fn!(car_value, Reader);
car_value_fn!(built_car_value, Builder);

const COLORS: [cs::Color; 9] = [
    cs::Color::Black,
    cs::Color::White,
    cs::Color::Red,
    cs::Color::Green,
    cs::Color::Blue,
    cs::Color::Cyan,
    cs::Color::Magenta,
    cs::Color::Yellow,
    cs::Color::Silver,
];

pub struct CarSales;

impl CarSales {
    #[inline(always)]
    fn random_car(rng: &mut Rng, mut car: cs::car::Builder<'_>) {
        car.set_make(cases::MAKES[rng.rand(5) as usize]);
        car.set_model(cases::MODELS[rng.rand(6) as usize]);
        car.set_color(COLORS[rng.rand(cases::COLORS) as usize]);
        car.set_seats((2 + rng.rand(6)) as u8);
        car.set_doors((2 + rng.rand(3)) as u8);
        {
            let mut wheels = car.reborrow().init_wheels(4);
            for i in 0..4 {
                let mut w = wheels.reborrow().get(i);
                w.set_diameter((25 + rng.rand(15)) as u16);
                w.set_air_pressure((30.0 + rng.rand_double(20.0)) as f32);
                w.set_snow_tires(rng.rand(16) == 0);
            }
        }
        let length = 170 + rng.rand(150);
        let width = 48 + rng.rand(36);
        let height = 54 + rng.rand(48);
        car.set_length(length as u16);
        car.set_width(width as u16);
        car.set_height(height as u16);
        car.set_weight(length.wrapping_mul(width).wrapping_mul(height) / 200);
        {
            let mut e = car.reborrow().init_engine();
            e.set_horsepower((100 * rng.rand(400)) as u16);
            e.set_cylinders((4 + 2 * rng.rand(3)) as u8);
            e.set_cc(800 + rng.rand(10000));
            e.set_uses_gas(true);
            e.set_uses_electric(rng.rand(2) != 0);
        }
        let capacity = (10.0 + rng.rand_double(30.0)) as f32;
        car.set_fuel_capacity(capacity);
        car.set_fuel_level(rng.rand_double(f64::from(capacity)) as f32);
        car.set_has_power_windows(rng.rand(2) != 0);
        car.set_has_power_steering(rng.rand(2) != 0);
        car.set_has_cruise_control(rng.rand(2) != 0);
        car.set_cup_holders(rng.rand(12) as u8);
        car.set_has_nav_system(rng.rand(2) != 0);
    }
}

impl Case for CarSales {
    type Req = cs::parking_lot::Owned;
    type Resp = cs::total_value::Owned;
    type E = u64;

    fn setup(rng: &mut Rng, _: &mut String, b: cs::parking_lot::Builder<'_>) -> Res<u64> {
        let mut local = rng.local();
        let rng = &mut local.g;
        let mut cars = b.init_cars(rng.rand(200));
        let mut total = 0u64;
        for i in 0..cars.len() {
            let mut car = cars.reborrow().get(i);
            Self::random_car(rng, car.reborrow());
            total = total.wrapping_add(built_car_value(car)?);
        }
        Ok(total)
    }

    fn handle(r: cs::parking_lot::Reader<'_>, mut b: cs::total_value::Builder<'_>) -> Res<()> {
        let mut total = 0u64;
        for car in r.get_cars()?.iter() {
            total = total.wrapping_add(car_value(car)?);
        }
        b.set_amount(total);
        Ok(())
    }

    fn answer(r: cs::total_value::Reader<'_>) -> Res<u64> {
        Ok(r.get_amount())
    }
}

pub struct CatRank;

impl Case for CatRank {
    type Req = cr::search_result_list::Owned;
    type Resp = cr::search_result_list::Owned;
    type E = i64;

    fn setup(
        rng: &mut Rng,
        snippet: &mut String,
        b: cr::search_result_list::Builder<'_>,
    ) -> Res<i64> {
        let mut local = rng.local();
        let rng = &mut local.g;
        let count = rng.rand(1000);
        let mut list = b.init_results(count);
        let mut good = 0i64;
        for i in 0..count {
            let mut r = list.reborrow().get(i);
            r.set_score(f64::from(1000 - i as i32));
            let letters = rng.rand(100);
            {
                let mut url = r
                    .reborrow()
                    .init_url(cases::URL_PREFIX.len() as u32 + letters);
                url.push_str(cases::URL_PREFIX);
                for _ in 0..letters {
                    url.push_ascii(b'a' + rng.rand(26) as u8);
                }
            }
            snippet.clear();
            good += i64::from(cases::append_snippet(rng, snippet));
            r.set_snippet(snippet.as_str());
        }
        Ok(good)
    }

    fn handle(
        r: cr::search_result_list::Reader<'_>,
        b: cr::search_result_list::Builder<'_>,
    ) -> Res<()> {
        let results = r.get_results()?;
        let mut scored: Vec<(f64, cr::search_result::Reader<'_>)> =
            Vec::with_capacity(results.len() as usize);
        for r in results.iter() {
            let s = cases::rescore(r.get_score(), r.get_snippet()?.to_str()?);
            scored.push((s, r));
        }
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let mut list = b.init_results(scored.len() as u32);
        for (i, (s, r)) in scored.iter().enumerate() {
            let mut o = list.reborrow().get(i as u32);
            o.set_score(*s);
            o.set_url(r.get_url()?);
            o.set_snippet(r.get_snippet()?);
        }
        Ok(())
    }

    fn answer(r: cr::search_result_list::Reader<'_>) -> Res<i64> {
        Ok(cases::leading_good(
            r.get_results()?.iter().map(|r| r.get_score()),
        ))
    }
}

const OPERATIONS: [ev::Operation; 5] = [
    ev::Operation::Add,
    ev::Operation::Subtract,
    ev::Operation::Multiply,
    ev::Operation::Divide,
    ev::Operation::Modulus,
];

pub struct Eval;

impl Eval {
    fn make(rng: &mut Rng, mut e: ev::expression::Builder<'_>, depth: u32) -> i32 {
        let op = rng.rand(cases::OPS);
        e.set_op(OPERATIONS[op as usize]);
        let left = if rng.rand(8) < depth {
            let v = rng.rand(128) as i32 + 1;
            e.reborrow().get_left().set_value(v);
            v
        } else {
            Self::make(rng, e.reborrow().get_left().init_expression(), depth + 1)
        };
        let right = if rng.rand(8) < depth {
            let v = rng.rand(128) as i32 + 1;
            e.reborrow().get_right().set_value(v);
            v
        } else {
            Self::make(rng, e.reborrow().get_right().init_expression(), depth + 1)
        };
        cases::apply(op, left, right)
    }

    fn evaluate(e: ev::expression::Reader<'_>) -> Res<i32> {
        use ev::expression::{left, right};
        let l = match e.get_left().which()? {
            left::Value(v) => v,
            left::Expression(x) => Self::evaluate(x?)?,
        };
        let r = match e.get_right().which()? {
            right::Value(v) => v,
            right::Expression(x) => Self::evaluate(x?)?,
        };
        Ok(cases::apply(e.get_op()? as u32, l, r))
    }
}

impl Case for Eval {
    type Req = ev::expression::Owned;
    type Resp = ev::evaluation_result::Owned;
    type E = i32;

    fn setup(rng: &mut Rng, _: &mut String, b: ev::expression::Builder<'_>) -> Res<i32> {
        Ok(Self::make(rng, b, 0))
    }
    fn handle(r: ev::expression::Reader<'_>, mut b: ev::evaluation_result::Builder<'_>) -> Res<()> {
        b.set_value(Self::evaluate(r)?);
        Ok(())
    }
    fn answer(r: ev::evaluation_result::Reader<'_>) -> Res<i32> {
        Ok(r.get_value())
    }
}

// ---- resources --------------------------------------------------------------------------

const SCRATCH_WORDS: usize = 128 * 1024;

/// A zeroed, word-aligned 128 Ki-word buffer that lives as long as the process (cells are
/// made once per run). Pages untouched stay unmapped, as with the C++ driver's calloc.
fn scratch_bytes() -> &'static mut [u8] {
    let words: &'static mut [Word] =
        Box::leak(Word::allocate_zeroed_vec(SCRATCH_WORDS).into_boxed_slice());
    Word::words_to_bytes_mut(words)
}

/// Builder memory: kept scratch (reuse) or a fresh heap allocator (no-reuse).
pub trait Mem: Send + 'static {
    type A<'a>: Allocator
    where
        Self: 'a;
    const REUSE: bool;
    fn new() -> Self;
    fn alloc(&mut self) -> Self::A<'_>;
}

pub struct Reuse(ScratchSpaceHeapAllocator<'static>);
impl Mem for Reuse {
    type A<'a> = &'a mut ScratchSpaceHeapAllocator<'static>;
    const REUSE: bool = true;
    fn new() -> Self {
        Reuse(
            ScratchSpaceHeapAllocator::new(scratch_bytes())
                .second_segment_words(SCRATCH_WORDS as u32),
        )
    }
    fn alloc(&mut self) -> Self::A<'_> {
        &mut self.0
    }
}

/// A fresh heap allocator per message that sizes segments like C++'s default
/// MallocMessageBuilder (first 1024 words; then, GROW_HEURISTICALLY, the total allocated so
/// far: 1024, 1024, 2048, 4096, ...). capnp-rust's HeapAllocator grows one step earlier
/// (1024, 2048, 4096, ...), which gives other segment tables and other byte counts than
/// the C++ driver for multi-segment messages; this keeps them equal.
pub struct MallocLike {
    next_size: u32,
    first: bool,
}

const MAX_SEGMENT_WORDS: u32 = (1 << 29) - 1;

impl MallocLike {
    fn layout(words: u32) -> std::alloc::Layout {
        std::alloc::Layout::from_size_align(words as usize * 8, 8).expect("segment layout")
    }
}

// SAFETY: segments are zeroed (alloc_zeroed), 8-byte aligned, `size` words long, and freed
// with the layout they were allocated with.
unsafe impl Allocator for MallocLike {
    fn allocate_segment(&mut self, minimum_size: u32) -> (std::ptr::NonNull<u8>, u32) {
        let size = minimum_size.max(self.next_size);
        let layout = Self::layout(size);
        // SAFETY: size >= 1024 words, so the layout is not zero-sized.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = std::ptr::NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout);
        };
        if self.first {
            self.first = false;
            self.next_size = size;
        } else {
            self.next_size = self.next_size.saturating_add(size).min(MAX_SEGMENT_WORDS);
        }
        (ptr, size)
    }

    unsafe fn deallocate_segment(&mut self, ptr: std::ptr::NonNull<u8>, word_size: u32, _: u32) {
        // SAFETY: allocated above with this size.
        unsafe { std::alloc::dealloc(ptr.as_ptr(), Self::layout(word_size)) }
    }
}

pub struct Fresh;
impl Mem for Fresh {
    type A<'a> = MallocLike;
    const REUSE: bool = false;
    fn new() -> Self {
        Fresh
    }
    fn alloc(&mut self) -> MallocLike {
        MallocLike {
            next_size: 1024,
            first: true,
        }
    }
}

fn write_to<W: Write, A: Allocator>(packed: bool, w: W, m: &message::Builder<A>) -> Res<()> {
    if packed {
        serialize_packed::write_message(w, m)?;
    } else {
        serialize::write_message(w, m)?;
    }
    Ok(())
}

/// Serializes into `buf`; returns the bytes written.
fn write_bytes<A: Allocator>(packed: bool, buf: &mut [u8], m: &message::Builder<A>) -> Res<usize> {
    let total = buf.len();
    let mut cur: &mut [u8] = buf;
    write_to(packed, &mut cur, m)?;
    Ok(total - cur.len())
}

/// Calls `f` with the root of the message serialized in `bytes`.
// The `let x = ...; x` bindings end the borrow of `m` before it is dropped (a tail
// expression's temporaries outlive the block's locals in edition 2021).
#[allow(clippy::let_and_return)]
fn read_bytes<T: Owned, X>(
    packed: bool,
    bytes: &[u8],
    scratch: Option<&mut [u8]>,
    f: impl for<'a> FnOnce(T::Reader<'a>) -> Res<X>,
) -> Res<X> {
    let opts = limits::CAPNP_OPTIONS;
    if packed {
        match scratch {
            Some(s) => {
                let m = serialize_packed::read_message_no_alloc(bytes, s, opts)?;
                let x = f(m.get_root()?);
                x
            }
            None => {
                let m = serialize_packed::read_message(bytes, opts)?;
                let x = f(m.get_root()?);
                x
            }
        }
    } else {
        let mut sl = bytes;
        let m = serialize::read_message_from_flat_slice(&mut sl, opts)?;
        let x = f(m.get_root()?);
        x
    }
}

/// Calls `f` with the root of the next message on a stream; None at a clean end of file.
fn read_stream<T: Owned, X, R: std::io::BufRead>(
    packed: bool,
    r: &mut R,
    scratch: Option<&mut [u8]>,
    f: impl for<'a> FnOnce(T::Reader<'a>) -> Res<X>,
) -> Res<Option<X>> {
    let opts = limits::CAPNP_OPTIONS;
    Ok(match (packed, scratch) {
        (true, Some(s)) => match serialize_packed::try_read_message_no_alloc(r, s, opts)? {
            Some(m) => Some(f(m.get_root()?)?),
            None => None,
        },
        (true, None) => match serialize_packed::try_read_message(r, opts)? {
            Some(m) => Some(f(m.get_root()?)?),
            None => None,
        },
        (false, Some(s)) => match serialize::try_read_message_no_alloc(r, s, opts)? {
            Some(m) => Some(f(m.get_root()?)?),
            None => None,
        },
        (false, None) => match serialize::try_read_message(r, opts)? {
            Some(m) => Some(f(m.get_root()?)?),
            None => None,
        },
    })
}

// ---- the library ------------------------------------------------------------------------

pub struct Capnp<C: Case, M: Mem, const PACKED: bool> {
    // s1..s6 play the C++ driver's six scratch spaces: client request builder, request
    // bytes, server request reader, server response builder, response bytes, client
    // response reader (pipe: r2 is the reader's scratch, of responses on the client and of
    // requests on the server, whose response builder is s1).
    s1: M,
    s4: M,
    s2: &'static mut [u8],
    s5: &'static mut [u8],
    r3: &'static mut [u8],
    r6: &'static mut [u8],
    r2: &'static mut [u8],
    snippet: String,
    _case: PhantomData<fn() -> C>,
}

impl<C: Case, M: Mem, const PACKED: bool> Default for Capnp<C, M, PACKED> {
    fn default() -> Self {
        Capnp {
            s1: M::new(),
            s4: M::new(),
            s2: scratch_bytes(),
            s5: scratch_bytes(),
            r3: scratch_bytes(),
            r6: scratch_bytes(),
            r2: scratch_bytes(),
            snippet: String::with_capacity(512),
            _case: PhantomData,
        }
    }
}

fn reader_scratch<M: Mem>(s: &mut [u8]) -> Option<&mut [u8]> {
    if M::REUSE {
        Some(s)
    } else {
        None
    }
}

impl<C: Case, M: Mem, const PACKED: bool> Library for Capnp<C, M, PACKED> {
    type E = C::E;

    fn object(&mut self, rng: &mut Rng) -> Res<(C::E, C::E)> {
        let mut rq = message::Builder::new(self.s1.alloc());
        let expected = C::setup(rng, &mut self.snippet, rq.init_root())?;
        let mut rs = message::Builder::new(self.s4.alloc());
        C::handle(rq.get_root_as_reader()?, rs.init_root())?;
        let answer = C::answer(rs.get_root_as_reader()?)?;
        Ok((expected, answer))
    }

    fn bytes(&mut self, rng: &mut Rng) -> Res<(C::E, C::E, u64)> {
        let Self {
            s1,
            s4,
            s2,
            s5,
            r3,
            r6,
            snippet,
            ..
        } = self;
        let mut rq = message::Builder::new(s1.alloc());
        let expected = C::setup(rng, snippet, rq.init_root())?;
        let n = write_bytes(PACKED, s2, &rq)?;
        let (answer, m) =
            read_bytes::<C::Req, _>(PACKED, &s2[..n], reader_scratch::<M>(r3), |req| {
                let mut rs = message::Builder::new(s4.alloc());
                C::handle(req, rs.init_root())?;
                let m = write_bytes(PACKED, s5, &rs)?;
                let answer =
                    read_bytes::<C::Resp, _>(PACKED, &s5[..m], reader_scratch::<M>(r6), C::answer)?;
                Ok((answer, m))
            })?;
        Ok((expected, answer, (n + m) as u64))
    }

    fn send(&mut self, rng: &mut Rng, output: &mut impl Write) -> Res<C::E> {
        let mut rq = message::Builder::new(self.s1.alloc());
        let expected = C::setup(rng, &mut self.snippet, rq.init_root())?;
        write_to(PACKED, &mut *output, &rq)?;
        output.flush()?;
        Ok(expected)
    }

    fn receive(&mut self, input: &mut impl BufRead) -> Res<Option<C::E>> {
        read_stream::<C::Resp, _, _>(PACKED, input, reader_scratch::<M>(self.r2), C::answer)
    }

    fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> Res<bool> {
        let Self { s1, r2, .. } = self;
        let served = read_stream::<C::Req, (), _>(PACKED, input, reader_scratch::<M>(r2), |req| {
            let mut rs = message::Builder::new(s1.alloc());
            C::handle(req, rs.init_root())?;
            write_to(PACKED, &mut *output, &rs)?;
            output.flush()?;
            Ok(())
        })?;
        Ok(served.is_some())
    }
}

fn make_for<C: Case>(packed: bool, reuse: bool) -> Box<dyn Cell> {
    match (packed, reuse) {
        (true, true) => super::cell::<Capnp<C, Reuse, true>>(),
        (true, false) => super::cell::<Capnp<C, Fresh, true>>(),
        (false, true) => super::cell::<Capnp<C, Reuse, false>>(),
        (false, false) => super::cell::<Capnp<C, Fresh, false>>(),
    }
}

/// The library's factory (the rpc suite's registry, src/rpc/mod.rs).
pub fn make(case: &str, compression: &str, reuse: bool) -> Option<Box<dyn Cell>> {
    let packed = match compression {
        "none" => false,
        "packed" => true,
        _ => return None,
    };
    Some(match case {
        "carsales" => make_for::<CarSales>(packed, reuse),
        "catrank" => make_for::<CatRank>(packed, reuse),
        "eval" => make_for::<Eval>(packed, reuse),
        _ => return None,
    })
}
