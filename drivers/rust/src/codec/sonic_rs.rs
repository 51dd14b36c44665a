//! sonic-rs: serde on the plain struct (its native form), written with `to_writer` into the
//! output buffer and read with `from_slice` (owned, or borrowed `&str` into the input).
//! Writes exactly testdata/codec/*.json.

use super::plain::{self, FromBytes, Plain};
use super::records::{Case, Log};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub const VERSION: &str = env!("WB_SONIC_RS_VERSION");

pub struct SonicRs(Plain);

impl FromBytes for SonicRs {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        sonic_rs::from_slice(bytes).map_err(|e| Failure(format!("sonic-rs: {e}")))
    }
}

impl Codec for SonicRs {
    fn new(v: Variant) -> Self {
        SonicRs(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (msg, out) = self.0.parts(case);
        sonic_rs::to_writer(&mut *out, &msg).map_err(|e| Failure(format!("sonic-rs: {e}")))?;
        Ok(out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        plain::deserialize::<Self>(case, self.0.v, bytes)
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.0.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        plain::decode::<Self>(case, self.0.v, bytes)
    }
}
