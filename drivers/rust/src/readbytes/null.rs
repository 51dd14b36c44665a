//! Strategy `null` of the readbytes suite, the floor: the file is read whole into memory
//! once per process, before timing; a pass consumes that memory through the same byte
//! source (a slice, one byte per step), with no I/O at all.

use std::path::Path;

use super::{cell, read_error, Case, Cell, SliceSource, Strategy};
use crate::error::Res;

pub struct Null {
    data: Vec<u8>,
}

/// The strategy's factory (src/readbytes/mod.rs).
pub fn make(case: Case, path: &Path) -> Res<Box<dyn Cell>> {
    cell::<Null>(case, path)
}

impl Strategy for Null {
    type Source<'a> = SliceSource<&'a [u8]>;

    fn new(path: &Path) -> Res<Self> {
        let data = std::fs::read(path).map_err(|e| read_error(path, "read", &e))?;
        Ok(Null { data })
    }

    fn open(&self) -> Res<Self::Source<'_>> {
        Ok(SliceSource::new(&self.data))
    }
}
