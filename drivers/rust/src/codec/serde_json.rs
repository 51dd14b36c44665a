//! serde_json: serde's derive on the plain struct (its native form), written with
//! `to_writer` into the output buffer and read with `from_slice` (owned, or borrowed into
//! the twin struct of `&str`). Writes exactly testdata/codec/*.json.

use super::plain::{FromBytes, Msg, SerdeFormat};
use crate::error::{Failure, Res};

pub struct SerdeJson;

impl FromBytes for SerdeJson {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        serde_json::from_slice(bytes).map_err(|e| Failure(format!("serde_json: {e}")))
    }
}

impl SerdeFormat for SerdeJson {
    fn write(msg: &Msg<'_>, out: &mut Vec<u8>) -> Res<()> {
        serde_json::to_writer(out, msg).map_err(|e| Failure(format!("serde_json: {e}")))
    }
}
