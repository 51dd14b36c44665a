//! sonic-rs: serde on the plain struct (its native form), written with `to_writer` into the
//! output buffer and read with `from_slice` (owned, or borrowed `&str` into the input).
//! Writes exactly testdata/codec/*.json.

use super::plain::{FromBytes, Msg, SerdeFormat};
use crate::error::{Failure, Res};

pub struct SonicRs;

impl FromBytes for SonicRs {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        sonic_rs::from_slice(bytes).map_err(|e| Failure(format!("sonic-rs: {e}")))
    }
}

impl SerdeFormat for SonicRs {
    fn write(msg: &Msg<'_>, out: &mut Vec<u8>) -> Res<()> {
        sonic_rs::to_writer(out, msg).map_err(|e| Failure(format!("sonic-rs: {e}")))
    }
}
