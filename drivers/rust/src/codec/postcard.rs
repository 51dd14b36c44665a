//! postcard: serde on the plain struct (its native form). `reused` serializes with
//! `to_slice` into a kept buffer (grown when the message does not fit), `fresh` with
//! `to_allocvec`; read with `from_bytes` (owned, or borrowed `&str` into the input).

use super::plain::{self, FromBytes, Plain};
use super::records::{Case, Log};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub struct Postcard {
    p: Plain,
    /// `reused`: the kept buffer.
    buf: Vec<u8>,
}

fn err(e: postcard::Error) -> Failure {
    Failure(format!("postcard: {e}"))
}

impl FromBytes for Postcard {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        postcard::from_bytes(bytes).map_err(err)
    }
}

impl Codec for Postcard {
    fn new(v: Variant) -> Self {
        Postcard {
            p: Plain::new(v),
            buf: vec![0; 4096],
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.p.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let msg = plain::msg(&self.p.native, case);
        if !self.p.v.reused {
            self.p.out = postcard::to_allocvec(&msg).map_err(err)?;
            return Ok(&self.p.out);
        }
        loop {
            let n = match postcard::to_slice(&msg, &mut self.buf) {
                Ok(written) => written.len(),
                Err(postcard::Error::SerializeBufferFull) => {
                    self.buf.resize(self.buf.len() * 2, 0);
                    continue;
                }
                Err(e) => return Err(err(e)),
            };
            return Ok(&self.buf[..n]);
        }
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        plain::deserialize::<Self>(case, self.p.v, bytes)
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.p.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        plain::decode::<Self>(case, self.p.v, bytes)
    }
}
