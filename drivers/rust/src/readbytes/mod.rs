//! Suite `readbytes` (docs/protocol.md, after seed 003): a file consumed one byte at a
//! time. A strategy (the cell's library) is a byte source; a case is a consumer that takes
//! one byte per step from it and never sees a buffer.
//!
//! - mod.rs (this file): the suite in the registry with its library registry; `ByteSource`
//!   and `Strategy`, what a strategy implements; the three consumers (`Count`, `Sum`,
//!   `Varint`), written once and generic over the source, so that every strategy runs the
//!   same loop with its source inlined (no dynamic call per byte); the pass (open, consume,
//!   close, timed alone), the per-pass checks, `cache cold` and the result.
//! - One file per strategy: null.rs, bufreader_bytes.rs, own_buffer.rs, memmap2.rs.

pub mod bufreader_bytes;
pub mod memmap2;
pub mod null;
pub mod own_buffer;
#[cfg(test)]
mod tests;

use std::fmt;
use std::fs::File;
use std::marker::PhantomData;
use std::ops::Deref;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::Instant;

use crate::error::{usage, Error, Failure, Res};
use crate::json::Json;
use crate::registry::{Lib, Listed, Param, Role, Run, Suite};
use crate::result::{self, Metric};

// ---- the data -------------------------------------------------------------------------------

/// The data of docs/workloads.md §8 (Shop, ids 0 .. 2,999,999, not packed) and each case's
/// value per pass.
pub const FILE_SIZE: u64 = 12_886_336;
pub const COUNT_VALUE: u64 = FILE_SIZE;
pub const SUM_VALUE: u64 = 1_457_733_664;
pub const VARINT_VALUE: u64 = 4_499_998_500_000;

/// Every own buffer (own_buffer).
pub const BUFFER_SIZE: usize = 64 << 10;

// ---- the suite and its library registry --------------------------------------------------

/// A library's factory: the cell of a case on the file at `path`, made once per process
/// before timing (null reads the file here).
pub type Factory = fn(case: Case, path: &Path) -> Res<Box<dyn Cell>>;

impl Listed for Factory {}

const WARM: &[&str] = &["warm"];

/// The readbytes suite in the registry (src/registry.rs). `libs` is its library registry,
/// in the order of `list`; null reads no file while timed, so it has no cold cell.
pub static SUITE: Suite<Factory> = Suite {
    name: "readbytes",
    cases: &["count", "sum", "varint"],
    params: &[Param {
        name: "cache",
        values: &["warm", "cold"],
        cases: &[],
    }],
    libs: &[
        Lib {
            name: "null",
            supports: &[("cache", WARM)],
            crates: &[],
            make: null::make,
        },
        Lib {
            name: "bufreader_bytes",
            supports: &[],
            crates: &[],
            make: bufreader_bytes::make,
        },
        Lib {
            name: "own_buffer",
            supports: &[],
            crates: &[],
            make: own_buffer::make,
        },
        Lib {
            name: "memmap2",
            supports: &[],
            crates: &["memmap2"],
            make: memmap2::make,
        },
    ],
    fixtures: &["input"],
    refuse: |_, _| Ok(()),
    prepare,
    run,
    golden: None,
    command: None,
};

/// A readbytes cell runs in one process and reads the file --input names.
fn prepare(run: &mut Run) -> Result<(), Error> {
    match run.role {
        None | Some(Role::Local) => run.role = Some(Role::Local),
        Some(role) => {
            return Err(usage(format!(
                "--role {} is not possible in suite readbytes (its cells are local)",
                role.name()
            )))
        }
    }
    if input(run).is_empty() {
        return Err(usage(
            "missing --input FILE (suite readbytes reads the data file of docs/workloads.md §8)",
        ));
    }
    Ok(())
}

fn input(run: &Run) -> &str {
    run.fixtures
        .iter()
        .find(|(f, _)| *f == "input")
        .map_or("", |(_, v)| v.as_str())
}

// ---- byte sources -------------------------------------------------------------------------

/// What a consumer reads: one byte per step. A buffered source refills its buffer when it
/// runs dry; the consumer never sees it.
pub trait ByteSource {
    /// The next byte, or None at the end (or at a read error, which `close` reports).
    fn next(&mut self) -> Option<u8>;
    /// Closes the file (unmaps it); a read error met by `next` is reported here.
    fn close(self) -> Res<()>
    where
        Self: Sized;
}

/// A strategy: made once per process, before timing; each pass opens a source on it.
pub trait Strategy: Sized + 'static {
    type Source<'a>: ByteSource;
    fn new(path: &Path) -> Res<Self>;
    /// Opens the file: the pass's source.
    fn open(&self) -> Res<Self::Source<'_>>;
}

/// The bytes of memory already holding the whole file (null: a `&[u8]`; memmap2: the
/// `Mmap`), one at a time.
pub struct SliceSource<D> {
    data: D,
    pos: usize,
}

impl<D: Deref<Target = [u8]>> SliceSource<D> {
    pub fn new(data: D) -> Self {
        SliceSource { data, pos: 0 }
    }
}

impl<D: Deref<Target = [u8]>> ByteSource for SliceSource<D> {
    #[inline]
    fn next(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// Drops the memory (memmap2: unmaps it).
    fn close(self) -> Res<()> {
        Ok(())
    }
}

// ---- consumers -------------------------------------------------------------------------------

/// What a consumer got from one pass: the case's value and the bytes it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    pub value: u64,
    pub bytes: u64,
}

/// A stream that is not the protobuf of §8 (varint), at a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corrupt {
    /// The byte at `offset` is `tag`, not 0x08.
    Tag { offset: u64, tag: u8 },
    /// The varint starting at `start` has no last byte in its first 10: `offset` is its
    /// eleventh byte's.
    Overlong { offset: u64, start: u64 },
    /// The file ends at `offset`, inside the varint starting at `start`.
    End { offset: u64, start: u64 },
}

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Corrupt::Tag { offset, tag } => {
                write!(f, "byte offset {offset}: tag {tag:#04x}, expected 0x08")
            }
            Corrupt::Overlong { offset, start } => write!(
                f,
                "byte offset {offset}: the varint at offset {start} is longer than 10 bytes"
            ),
            Corrupt::End { offset, start } => write!(
                f,
                "byte offset {offset}: end of file inside the varint at offset {start}"
            ),
        }
    }
}

/// A case: takes every byte of a source, one per step.
pub trait Consumer: 'static {
    fn consume<S: ByteSource>(s: &mut S) -> Result<Tally, Corrupt>;
}

/// Makes a byte count as used without using it: the byte is loaded (into a register) and
/// nothing else is emitted. Without it, `count` over memory (null, memmap2) compiles to the
/// length of the slice: no byte read, no page of the mapping touched.
#[inline(always)]
fn observe(b: u8) {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an empty template (a comment): reads one register, touches nothing.
    unsafe {
        std::arch::asm!("/* {0} */", in(reg) u64::from(b), options(nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    std::hint::black_box(b);
}

/// `count`: the number of bytes.
pub struct Count;

impl Consumer for Count {
    #[inline]
    fn consume<S: ByteSource>(s: &mut S) -> Result<Tally, Corrupt> {
        let mut n = 0u64;
        while let Some(b) = s.next() {
            observe(b);
            n += 1;
        }
        Ok(Tally { value: n, bytes: n })
    }
}

/// `sum`: the bytes (each 0..255) plus their count.
pub struct Sum;

impl Consumer for Sum {
    #[inline]
    fn consume<S: ByteSource>(s: &mut S) -> Result<Tally, Corrupt> {
        let (mut sum, mut n) = (0u64, 0u64);
        while let Some(b) = s.next() {
            sum += u64::from(b);
            n += 1;
        }
        Ok(Tally {
            value: sum.wrapping_add(n),
            bytes: n,
        })
    }
}

/// `varint`: protobuf's `repeated int32 id = 1`, not packed: a tag byte 0x08 (field 1,
/// wire type varint), then a varint of at most 10 bytes, low groups first; the wrapping sum
/// of the ids. A corrupt stream is an error naming the byte offset.
pub struct Varint;

pub const TAG: u8 = 0x08;
pub const MAX_VARINT: u64 = 10;

impl Consumer for Varint {
    #[inline]
    fn consume<S: ByteSource>(s: &mut S) -> Result<Tally, Corrupt> {
        let (mut total, mut offset) = (0u64, 0u64);
        while let Some(tag) = s.next() {
            if tag != TAG {
                return Err(Corrupt::Tag { offset, tag });
            }
            offset += 1;
            let start = offset;
            let mut value = 0u64;
            let mut shift = 0;
            loop {
                if offset - start == MAX_VARINT {
                    return Err(Corrupt::Overlong { offset, start });
                }
                let Some(b) = s.next() else {
                    return Err(Corrupt::End { offset, start });
                };
                offset += 1;
                // shift is at most 63 (the tenth byte).
                value |= u64::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    break;
                }
                shift += 7;
            }
            total = total.wrapping_add(value);
        }
        Ok(Tally {
            value: total,
            bytes: offset,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Count,
    Sum,
    Varint,
}

impl Case {
    fn from_name(name: &str) -> Case {
        match name {
            "count" => Case::Count,
            "sum" => Case::Sum,
            _ => Case::Varint,
        }
    }

    /// What every pass over the data of §8 must produce.
    pub fn expected(self) -> u64 {
        match self {
            Case::Count => COUNT_VALUE,
            Case::Sum => SUM_VALUE,
            Case::Varint => VARINT_VALUE,
        }
    }
}

// ---- the pass ----------------------------------------------------------------------------

/// One pass: its value, the bytes read and its time, from just before the open to just
/// after the close.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    pub value: u64,
    pub bytes: u64,
    pub ns: u64,
}

/// A cell, type-erased once: each dynamic call runs a whole pass, the source inlined into
/// the consumer.
pub trait Cell {
    fn pass(&mut self) -> Res<Pass>;
}

struct CellOf<L, C> {
    lib: L,
    consumer: PhantomData<C>,
}

impl<L: Strategy, C: Consumer> Cell for CellOf<L, C> {
    fn pass(&mut self) -> Res<Pass> {
        let t0 = Instant::now();
        let mut source = self.lib.open()?;
        let tally = C::consume(&mut source);
        let closed = source.close();
        let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        // A read error first: the consumer saw it as the end of the file.
        closed?;
        let tally = tally.map_err(|c| Failure::new(c.to_string()))?;
        Ok(Pass {
            value: tally.value,
            bytes: tally.bytes,
            ns,
        })
    }
}

/// The cell of strategy `L` for `case` (each strategy's factory).
pub fn cell<L: Strategy>(case: Case, path: &Path) -> Res<Box<dyn Cell>> {
    let lib = L::new(path)?;
    Ok(match case {
        Case::Count => Box::new(CellOf::<L, Count> {
            lib,
            consumer: PhantomData,
        }),
        Case::Sum => Box::new(CellOf::<L, Sum> {
            lib,
            consumer: PhantomData,
        }),
        Case::Varint => Box::new(CellOf::<L, Varint> {
            lib,
            consumer: PhantomData,
        }),
    })
}

/// The strategies' common failures, naming the file.
pub fn cannot_open(path: &Path, e: &std::io::Error) -> Failure {
    Failure::new(format!("cannot open {}: {e}", path.display()))
}

pub fn read_error(path: &Path, what: &str, e: &std::io::Error) -> Failure {
    Failure::new(format!("{what} {}: {e}", path.display()))
}

/// `cache cold`: the file's pages dropped from the page cache, before a pass, untimed.
pub fn drop_cache(path: &Path) -> Res<()> {
    let file = File::open(path).map_err(|e| cannot_open(path, &e))?;
    // SAFETY: a valid descriptor, open until `file` is dropped below.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    drop(file);
    if rc != 0 {
        return Err(Failure::new(format!(
            "posix_fadvise({}, POSIX_FADV_DONTNEED): {}",
            path.display(),
            std::io::Error::from_raw_os_error(rc)
        )));
    }
    Ok(())
}

// ---- the run -------------------------------------------------------------------------------

/// What a cell's passes measured and checked: per sample, the sum of its passes' times,
/// bytes and values; and the passes checked, warm-up included.
#[derive(Debug)]
pub struct Samples {
    pub time: Vec<u64>,
    pub bytes: Vec<u64>,
    pub check: Vec<u64>,
    pub passes_checked: u64,
}

/// Runs the passes of a cell: `warmup` untimed ones, then `samples` of `iters`, each pass
/// timed alone and checked (its value and its bytes), the warm-up's too; `cold` drops the
/// file from the page cache before each.
pub fn passes(run: &Run, cell: &mut dyn Cell, case: Case, path: &Path, cold: bool) -> Res<Samples> {
    let expected = case.expected();
    let mut checked = 0u64;
    let mut one = |place: &str| -> Res<Pass> {
        if cold {
            drop_cache(path)?;
        }
        checked += 1;
        let at = || {
            format!(
                "readbytes {} {}, pass {checked} ({place}), {}",
                run.case,
                run.lib,
                path.display()
            )
        };
        let p = cell
            .pass()
            .map_err(|e| Failure::new(format!("{}: {}", at(), e.0)))?;
        if p.value != expected {
            return Err(Failure::new(format!(
                "{}: value {}, expected {expected}",
                at(),
                p.value
            )));
        }
        if p.bytes != FILE_SIZE {
            return Err(Failure::new(format!(
                "{}: read {} bytes, expected {FILE_SIZE}",
                at(),
                p.bytes
            )));
        }
        Ok(p)
    };
    for _ in 0..run.warmup {
        one("warm-up")?;
    }
    let mut out = Samples {
        time: Vec::new(),
        bytes: Vec::new(),
        check: Vec::new(),
        passes_checked: 0,
    };
    for s in 0..run.samples {
        let place = format!("sample {}", s + 1);
        let (mut ns, mut read, mut check) = (0u64, 0u64, 0u64);
        for _ in 0..run.iters {
            let p = one(&place)?;
            ns = ns.saturating_add(p.ns);
            read = read.wrapping_add(p.bytes);
            check = check.wrapping_add(p.value);
        }
        out.time.push(ns);
        out.bytes.push(read);
        out.check.push(check);
    }
    out.passes_checked = checked;
    Ok(out)
}

fn run(run: &Run, make: &Factory) -> Result<(), Error> {
    let path = Path::new(input(run));
    // Before anything else, so that a missing file is named as such.
    File::open(path).map_err(|e| cannot_open(path, &e))?;
    let case = Case::from_name(run.case);
    let mut cell = make(case, path)?;
    let cold = run.param("cache") == "cold";
    let out = passes(run, cell.as_mut(), case, path, cold)?;

    let mut evidence = Json::default();
    evidence
        .list("check", &out.check)
        .num("passes_checked", out.passes_checked);
    result::print_result(
        run,
        "local",
        &[
            Metric {
                name: "time",
                unit: "ns",
                iters: run.iters,
                samples: &out.time,
            },
            Metric {
                name: "bytes",
                unit: "B",
                iters: run.iters,
                samples: &out.bytes,
            },
        ],
        &evidence,
    );
    Ok(())
}
