//! rmp-serde: MessagePack by serde on the plain struct (its native form), structs written
//! as maps with their field names (`with_struct_map`, as `to_vec_named`), so that the bytes
//! are those of Python msgpack for the JSON value; read with `from_slice` (owned, or
//! borrowed `&str` into the input).

use serde::Serialize;

use super::plain::{self, FromBytes, Plain};
use super::records::{Case, Log};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub const VERSION: &str = env!("WB_RMP_SERDE_VERSION");

pub struct RmpSerde(Plain);

impl FromBytes for RmpSerde {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        rmp_serde::from_slice(bytes).map_err(|e| Failure(format!("rmp-serde: {e}")))
    }
}

impl Codec for RmpSerde {
    fn new(v: Variant) -> Self {
        RmpSerde(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (msg, out) = self.0.parts(case);
        msg.serialize(&mut rmp_serde::Serializer::new(&mut *out).with_struct_map())
            .map_err(|e| Failure(format!("rmp-serde: {e}")))?;
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
