//! What the libraries whose native form is the plain struct share (serde_json, simd-json,
//! sonic-rs, rmp-serde, postcard, bincode, bitcode, rkyv): the native form and its populate
//! (records::assign), the output buffer of the variant, and, for serde's formats, the
//! message to serialize and the four ways to deserialize it (one record or the batch,
//! owned or borrowed strings), folded or converted to plain records. A serde format that
//! writes into the output Vec and reads a whole slice (serde_json, sonic-rs, rmp-serde)
//! is only its `SerdeFormat`: `Serde<F>` is its library.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize, Serializer};

use super::records::{self, Case, Log, LogRef, Logs, LogsRef};
use super::{Codec, Variant};
use crate::error::Res;

pub struct Plain {
    pub v: Variant,
    pub native: Logs,
    pub out: Vec<u8>,
}

impl Plain {
    pub fn new(v: Variant) -> Plain {
        Plain {
            v,
            native: Logs::default(),
            out: Vec::new(),
        }
    }

    pub fn populate(&mut self, case: &Case) {
        records::assign(&mut self.native.logs, &case.records, self.v.reused);
    }

    /// The message to serialize and the output buffer: kept and cleared (`reused`), or a
    /// new one (`fresh`; the previous one is freed here).
    pub fn parts(&mut self, case: &Case) -> (Msg<'_>, &mut Vec<u8>) {
        if self.v.reused {
            self.out.clear();
        } else {
            self.out = Vec::new();
        }
        let msg = msg(&self.native, case);
        (msg, &mut self.out)
    }

    pub fn populated(&self) -> Vec<Log> {
        self.native.logs.clone()
    }
}

/// A case's message: the record itself (`log`) or the batch (`logs`).
pub enum Msg<'a> {
    One(&'a Log),
    Batch(&'a Logs),
}

impl Serialize for Msg<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Msg::One(r) => r.serialize(s),
            Msg::Batch(b) => b.serialize(s),
        }
    }
}

pub fn msg<'a>(native: &'a Logs, case: &Case) -> Msg<'a> {
    if case.batch {
        Msg::Batch(native)
    } else {
        Msg::One(&native.logs[0])
    }
}

/// A serde format's reader of a whole input.
pub trait FromBytes {
    fn from<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Res<T>;
}

/// A serde format whose writer appends to the output buffer.
pub trait SerdeFormat: FromBytes + 'static {
    fn write(msg: &Msg<'_>, out: &mut Vec<u8>) -> Res<()>;
}

/// The library of a `SerdeFormat`.
pub struct Serde<F>(Plain, PhantomData<fn() -> F>);

impl<F: SerdeFormat> Codec for Serde<F> {
    fn new(v: Variant) -> Self {
        Serde(Plain::new(v), PhantomData)
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (msg, out) = self.0.parts(case);
        F::write(&msg, out)?;
        Ok(out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        deserialize::<F>(case, self.0.v, bytes)
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.0.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        decode::<F>(case, self.0.v, bytes)
    }
}

/// deserialize of a serde format: the complete native form (owned or borrowed strings),
/// folded.
#[inline(always)]
pub fn deserialize<F: FromBytes>(case: &Case, v: Variant, bytes: &[u8]) -> Res<u64> {
    Ok(match (case.batch, v.borrowed) {
        (false, false) => F::from::<Log>(bytes)?.fold(),
        (false, true) => F::from::<LogRef>(bytes)?.fold(),
        (true, false) => records::fold(&F::from::<Logs>(bytes)?.logs),
        (true, true) => fold_refs(&F::from::<LogsRef>(bytes)?.logs),
    })
}

/// The same decoding, as plain records.
pub fn decode<F: FromBytes>(case: &Case, v: Variant, bytes: &[u8]) -> Res<Vec<Log>> {
    Ok(match (case.batch, v.borrowed) {
        (false, false) => vec![F::from::<Log>(bytes)?],
        (false, true) => vec![F::from::<LogRef>(bytes)?.to_log()],
        (true, false) => F::from::<Logs>(bytes)?.logs,
        (true, true) => to_logs(&F::from::<LogsRef>(bytes)?.logs),
    })
}

pub fn fold_refs(logs: &[LogRef<'_>]) -> u64 {
    logs.iter().fold(0u64, |s, r| s.wrapping_add(r.fold()))
}

pub fn to_logs(logs: &[LogRef<'_>]) -> Vec<Log> {
    logs.iter().map(LogRef::to_log).collect()
}
