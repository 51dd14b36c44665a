//! bincode 2, standard configuration, with its own derive on the plain struct (its native
//! form): `encode_into_std_write` into the kept buffer (`reused`) or `encode_to_vec`
//! (`fresh`); `decode_from_slice` (owned) or `borrow_decode_from_slice` into the `&str`
//! twin (borrowed). A message must be consumed exactly.

use bincode::config::{self, Configuration, Limit, LittleEndian, Varint};

use super::plain::{fold_refs, to_logs, Plain};
use super::records::{self, Case, Log, LogRef, Logs, LogsRef};
use super::{Codec, Variant};
use crate::error::{Failure, Res};
use crate::limits;

const CONFIG: Configuration = config::standard();

/// The same for decoding, with a limit on the bytes a message's lengths may claim: the
/// standard configuration has none, and a string's length prefix alone sized an allocation
/// (up to terabytes: found by fuzzing). The frame limit (limits.rs) is the policy.
const DECODE: Configuration<LittleEndian, Varint, Limit<{ limits::MAX_FRAME_BYTES as usize }>> =
    config::standard().with_limit();

pub struct Bincode(Plain);

fn err(e: impl std::fmt::Display) -> Failure {
    Failure(format!("bincode: {e}"))
}

fn exact<T>((value, used): (T, usize), bytes: &[u8]) -> Res<T> {
    if used != bytes.len() {
        return Err(err(format!(
            "{} bytes after the message",
            bytes.len() - used
        )));
    }
    Ok(value)
}

fn owned<T: bincode::Decode<()>>(bytes: &[u8]) -> Res<T> {
    exact(
        bincode::decode_from_slice(bytes, DECODE).map_err(err)?,
        bytes,
    )
}

fn borrowed<'a, T: bincode::BorrowDecode<'a, ()>>(bytes: &'a [u8]) -> Res<T> {
    exact(
        bincode::borrow_decode_from_slice(bytes, DECODE).map_err(err)?,
        bytes,
    )
}

impl Codec for Bincode {
    fn new(v: Variant) -> Self {
        Bincode(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let p = &mut self.0;
        let (native, reused) = (&p.native, p.v.reused);
        let one = &native.logs[0];
        if reused {
            p.out.clear();
            let out = &mut p.out;
            if case.batch {
                bincode::encode_into_std_write(native, out, CONFIG)
            } else {
                bincode::encode_into_std_write(one, out, CONFIG)
            }
            .map_err(err)?;
        } else {
            p.out = if case.batch {
                bincode::encode_to_vec(native, CONFIG)
            } else {
                bincode::encode_to_vec(one, CONFIG)
            }
            .map_err(err)?;
        }
        Ok(&p.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(match (case.batch, self.0.v.borrowed) {
            (false, false) => owned::<Log>(bytes)?.fold(),
            (false, true) => borrowed::<LogRef>(bytes)?.fold(),
            (true, false) => records::fold(&owned::<Logs>(bytes)?.logs),
            (true, true) => fold_refs(&borrowed::<LogsRef>(bytes)?.logs),
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.0.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        Ok(match (case.batch, self.0.v.borrowed) {
            (false, false) => vec![owned::<Log>(bytes)?],
            (false, true) => vec![borrowed::<LogRef>(bytes)?.to_log()],
            (true, false) => owned::<Logs>(bytes)?.logs,
            (true, true) => to_logs(&borrowed::<LogsRef>(bytes)?.logs),
        })
    }
}
