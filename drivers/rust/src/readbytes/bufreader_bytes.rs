//! Strategy `bufreader_bytes` of the readbytes suite: `BufReader::new(File).bytes()`, what
//! the standard library offers for reading a file byte by byte: BufReader's default 8 KiB
//! buffer, each item an `io::Result<u8>`. An error ends the bytes and fails the pass
//! (reported when the source is closed).

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use super::{cannot_open, cell, read_error, ByteSource, Case, Cell, Strategy};
use crate::error::Res;

pub struct BufReaderBytes {
    path: PathBuf,
}

/// The strategy's factory (src/readbytes/mod.rs).
pub fn make(case: Case, path: &Path) -> Res<Box<dyn Cell>> {
    cell::<BufReaderBytes>(case, path)
}

pub struct Source<'a> {
    bytes: io::Bytes<BufReader<File>>,
    error: Option<io::Error>,
    path: &'a Path,
}

impl Strategy for BufReaderBytes {
    type Source<'a> = Source<'a>;

    fn new(path: &Path) -> Res<Self> {
        Ok(BufReaderBytes {
            path: path.to_path_buf(),
        })
    }

    fn open(&self) -> Res<Source<'_>> {
        let file = File::open(&self.path).map_err(|e| cannot_open(&self.path, &e))?;
        Ok(Source {
            bytes: BufReader::new(file).bytes(),
            error: None,
            path: &self.path,
        })
    }
}

impl ByteSource for Source<'_> {
    #[inline]
    fn next(&mut self) -> Option<u8> {
        match self.bytes.next()? {
            Ok(b) => Some(b),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    /// Drops the reader (closes the file); a read error is the pass's failure.
    fn close(self) -> Res<()> {
        drop(self.bytes);
        match self.error {
            Some(e) => Err(read_error(self.path, "read", &e)),
            None => Ok(()),
        }
    }
}
