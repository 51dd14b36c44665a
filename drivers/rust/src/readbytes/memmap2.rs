//! Strategy `memmap2` of the readbytes suite: each pass opens the file, maps it whole with
//! `memmap2::Mmap::map` (read-only, shared), closes the descriptor (the mapping keeps the
//! file) and walks the mapping's slice one byte per step; the mapping is dropped (unmapped)
//! when the pass closes its source.

use std::fs::File;
use std::path::{Path, PathBuf};

use ::memmap2::Mmap;

use super::{cannot_open, cell, read_error, Case, Cell, SliceSource, Strategy};
use crate::error::Res;

pub struct Memmap2 {
    path: PathBuf,
}

/// The strategy's factory (src/readbytes/mod.rs).
pub fn make(case: Case, path: &Path) -> Res<Box<dyn Cell>> {
    cell::<Memmap2>(case, path)
}

impl Strategy for Memmap2 {
    type Source<'a> = SliceSource<Mmap>;

    fn new(path: &Path) -> Res<Self> {
        Ok(Memmap2 {
            path: path.to_path_buf(),
        })
    }

    fn open(&self) -> Res<Self::Source<'_>> {
        let file = File::open(&self.path).map_err(|e| cannot_open(&self.path, &e))?;
        // SAFETY: the mapping is read only, and nothing in this process writes or
        // truncates the file while it is mapped (the harness made it before the run).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| read_error(&self.path, "mmap", &e))?;
        drop(file);
        Ok(SliceSource::new(map))
    }
}
