//! simd-json: serde on the plain struct (its native form). It parses in place, so it needs
//! its input mutable: every deserialize first copies the input into a kept scratch buffer,
//! and that copy is part of its deserialize cost (it is what a caller holding immutable
//! bytes pays). Borrowed strings point into that copy of the input (simd-json unescapes in
//! place). Its tape buffers are kept between iterations (`from_slice_with_buffers`).
//! Writes exactly testdata/codec/*.json.

use serde::Deserialize;

use super::plain::{fold_refs, to_logs, Plain};
use super::records::{self, Case, Log, LogRef, Logs, LogsRef};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub struct SimdJson {
    p: Plain,
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
}

fn err(e: impl std::fmt::Display) -> Failure {
    Failure(format!("simd-json: {e}"))
}

impl SimdJson {
    /// The input copied into the scratch buffer, and the parser's kept buffers.
    fn input(&mut self, bytes: &[u8]) -> (&mut [u8], &mut simd_json::Buffers) {
        self.scratch.clear();
        self.scratch.extend_from_slice(bytes);
        (&mut self.scratch, &mut self.buffers)
    }
}

fn from<'a, T: Deserialize<'a>>(
    (input, buffers): (&'a mut [u8], &mut simd_json::Buffers),
) -> Res<T> {
    simd_json::serde::from_slice_with_buffers(input, buffers).map_err(err)
}

impl Codec for SimdJson {
    fn new(v: Variant) -> Self {
        SimdJson {
            p: Plain::new(v),
            scratch: Vec::new(),
            buffers: simd_json::Buffers::default(),
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.p.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (msg, out) = self.p.parts(case);
        simd_json::serde::to_writer(&mut *out, &msg).map_err(err)?;
        Ok(out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        let borrowed = self.p.v.borrowed;
        let input = self.input(bytes);
        Ok(match (case.batch, borrowed) {
            (false, false) => from::<Log>(input)?.fold(),
            (false, true) => from::<LogRef>(input)?.fold(),
            (true, false) => records::fold(&from::<Logs>(input)?.logs),
            (true, true) => fold_refs(&from::<LogsRef>(input)?.logs),
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.p.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        let borrowed = self.p.v.borrowed;
        let input = self.input(bytes);
        Ok(match (case.batch, borrowed) {
            (false, false) => vec![from::<Log>(input)?],
            (false, true) => vec![from::<LogRef>(input)?.to_log()],
            (true, false) => from::<Logs>(input)?.logs,
            (true, true) => to_logs(&from::<LogsRef>(input)?.logs),
        })
    }
}
