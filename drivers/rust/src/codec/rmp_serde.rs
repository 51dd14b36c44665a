//! rmp-serde: MessagePack by serde on the plain struct (its native form), structs written
//! as maps with their field names (`with_struct_map`, as `to_vec_named`), so that the bytes
//! are those of Python msgpack for the JSON value; read with `from_slice` (owned, or
//! borrowed `&str` into the input).

use serde::Serialize;

use super::plain::{FromBytes, Msg, SerdeFormat};
use crate::error::{Failure, Res};

pub struct RmpSerde;

impl FromBytes for RmpSerde {
    fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
        rmp_serde::from_slice(bytes).map_err(|e| Failure(format!("rmp-serde: {e}")))
    }
}

impl SerdeFormat for RmpSerde {
    fn write(msg: &Msg<'_>, out: &mut Vec<u8>) -> Res<()> {
        msg.serialize(&mut rmp_serde::Serializer::new(out).with_struct_map())
            .map_err(|e| Failure(format!("rmp-serde: {e}")))
    }
}
