//! bson (MongoDB's crate) by serde: the native form is the records with signed integers
//! (signed.rs), so that `timestamp` and `bytesDlv` are int64 and every other integer int32
//! (the crate writes a u32 as int64), keys in the JSON's order. `serialize_to_buffer` into
//! the kept buffer (`reused`) or `serialize_to_vec` (`fresh`); `deserialize_from_slice`
//! (its raw deserializer, which checks the document's length and terminator) into owned
//! strings, or into `&str` borrowed from the input (`strings borrowed`: BSON strings are
//! UTF-8 in place).

use super::records::{Case, Log};
use super::signed::{self, SLog, SLogRef, SLogs, SLogsRef};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub struct Bson {
    v: Variant,
    native: SLogs,
    out: Vec<u8>,
}

fn err(e: ::bson::error::Error) -> Failure {
    Failure(format!("bson: {e}"))
}

fn from<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Res<T> {
    ::bson::deserialize_from_slice(bytes).map_err(err)
}

impl Codec for Bson {
    fn new(v: Variant) -> Self {
        Bson {
            v,
            native: SLogs::default(),
            out: Vec::new(),
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        signed::assign(&mut self.native.logs, &case.records, self.v.reused)
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let msg = signed::msg(&self.native, case);
        if self.v.reused {
            self.out.clear();
            ::bson::serialize_to_buffer(&msg, &mut self.out).map_err(err)?;
        } else {
            self.out = ::bson::serialize_to_vec(&msg).map_err(err)?;
        }
        Ok(&self.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(match (case.batch, self.v.borrowed) {
            (false, false) => from::<SLog>(bytes)?.fold(),
            (false, true) => from::<SLogRef>(bytes)?.fold(),
            (true, false) => signed::fold(&from::<SLogs>(bytes)?.logs),
            (true, true) => signed::fold_refs(&from::<SLogsRef>(bytes)?.logs),
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        signed::to_logs(&self.native.logs)
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        match (case.batch, self.v.borrowed) {
            (false, false) => Ok(vec![from::<SLog>(bytes)?.to_log()?]),
            (false, true) => Ok(vec![from::<SLogRef>(bytes)?.to_log()?]),
            (true, false) => signed::to_logs(&from::<SLogs>(bytes)?.logs),
            (true, true) => signed::refs_to_logs(&from::<SLogsRef>(bytes)?.logs),
        }
    }
}
