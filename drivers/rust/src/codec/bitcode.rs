//! bitcode 0.6 with its own derive on the plain struct (its native form): `reused`
//! encodes with a kept `bitcode::Buffer` (the bytes live in it), `fresh` with
//! `bitcode::encode`. Decoding (owned strings only) uses a kept decode `Buffer`, the
//! library's scratch.

use super::plain::Plain;
use super::records::{self, Case, Log, Logs};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub struct Bitcode {
    p: Plain,
    encoder: bitcode::Buffer,
    decoder: bitcode::Buffer,
}

fn err(e: bitcode::Error) -> Failure {
    Failure(format!("bitcode: {e}"))
}

impl Codec for Bitcode {
    fn new(v: Variant) -> Self {
        Bitcode {
            p: Plain::new(v),
            encoder: bitcode::Buffer::new(),
            decoder: bitcode::Buffer::new(),
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.p.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (native, one) = (&self.p.native, &self.p.native.logs[0]);
        if self.p.v.reused {
            return Ok(if case.batch {
                self.encoder.encode(native)
            } else {
                self.encoder.encode(one)
            });
        }
        self.p.out = if case.batch {
            bitcode::encode(native)
        } else {
            bitcode::encode(one)
        };
        Ok(&self.p.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if case.batch {
            records::fold(&self.decoder.decode::<Logs>(bytes).map_err(err)?.logs)
        } else {
            self.decoder.decode::<Log>(bytes).map_err(err)?.fold()
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.p.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        Ok(if case.batch {
            self.decoder.decode::<Logs>(bytes).map_err(err)?.logs
        } else {
            vec![self.decoder.decode::<Log>(bytes).map_err(err)?]
        })
    }
}
