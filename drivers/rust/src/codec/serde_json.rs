//! serde_json: serde's derive on the plain struct (its native form), written with
//! `to_writer` into the output buffer and read with `from_slice` (owned, or borrowed into
//! the twin struct of `&str`). Writes exactly testdata/codec/*.json.

use super::plain::{self, FromBytes, Plain};
use super::records::{Case, Log};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub const VERSION: &str = env!("WB_SERDE_JSON_VERSION");

pub struct SerdeJson(Plain);

impl FromBytes for SerdeJson {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        serde_json::from_slice(bytes).map_err(|e| Failure(format!("serde_json: {e}")))
    }
}

impl Codec for SerdeJson {
    fn new(v: Variant) -> Self {
        SerdeJson(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (msg, out) = self.0.parts(case);
        serde_json::to_writer(&mut *out, &msg).map_err(|e| Failure(format!("serde_json: {e}")))?;
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
