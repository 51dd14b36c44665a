//! Strategy `own_buffer` of the readbytes suite: `File::read` into an own 64 KiB buffer,
//! refilled when it runs dry (the seed's "straight forward implementation using fread with
//! buffering", in Rust). The buffer is allocated with the source (a pass), the refill is out
//! of line.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::{cannot_open, cell, read_error, ByteSource, Case, Cell, Strategy, BUFFER_SIZE};
use crate::error::Res;

pub struct OwnBuffer {
    path: PathBuf,
}

/// The strategy's factory (src/readbytes/mod.rs).
pub fn make(case: Case, path: &Path) -> Res<Box<dyn Cell>> {
    cell::<OwnBuffer>(case, path)
}

pub struct Source<'a> {
    file: File,
    buf: Box<[u8; BUFFER_SIZE]>,
    /// The next byte, and the end of the bytes of the last read.
    pos: usize,
    end: usize,
    error: Option<io::Error>,
    path: &'a Path,
}

impl Strategy for OwnBuffer {
    type Source<'a> = Source<'a>;

    fn new(path: &Path) -> Res<Self> {
        Ok(OwnBuffer {
            path: path.to_path_buf(),
        })
    }

    fn open(&self) -> Res<Source<'_>> {
        let file = File::open(&self.path).map_err(|e| cannot_open(&self.path, &e))?;
        Ok(Source {
            file,
            buf: Box::new([0; BUFFER_SIZE]),
            pos: 0,
            end: 0,
            error: None,
            path: &self.path,
        })
    }
}

/// The refill: the next (up to) 64 KiB of the file. Out of line, and given the file and
/// the buffer only, so that the source's positions stay in registers in the consumer.
#[cold]
#[inline(never)]
fn fill(file: &mut File, buf: &mut [u8; BUFFER_SIZE]) -> io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // Read promises n <= buf.len(); min makes `end` a bound of `buf` regardless.
            r => return r.map(|n| n.min(BUFFER_SIZE)),
        }
    }
}

impl ByteSource for Source<'_> {
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.pos == self.end {
            // The buffer ran dry: refill it, or end (at the end of the file, or at an
            // error, kept for `close`).
            if self.error.is_some() {
                return None;
            }
            match fill(&mut self.file, &mut self.buf) {
                Ok(0) => return None,
                Ok(n) => {
                    self.pos = 0;
                    self.end = n;
                }
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Some(b)
    }

    /// Drops the file (closes it); a read error is the pass's failure.
    fn close(self) -> Res<()> {
        drop(self.file);
        match self.error {
            Some(e) => Err(read_error(self.path, "read", &e)),
            None => Ok(()),
        }
    }
}
