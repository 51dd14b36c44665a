//! `wbq`, wirebench's memory-mapped append-only queue (docs/queue-format.md, version 1):
//! cycle files of a fixed size, each a 64-byte header then entries of a header word, a
//! timestamp and a payload; one appender per queue (an `flock` on `queue.lock`), any
//! number of tailers, in any process and any language.
//!
//! The appender maps its cycle file with `memmap2::MmapMut` and publishes an entry by
//! storing its header word through an `AtomicU64` over the mapping, with `Release` or
//! `SeqCst` (`Publish`); tailers read header words with `Acquire`. The clock of the
//! timestamps (`Clock`) and the publication are type parameters, so that each
//! combination compiles to its own straight-line write with no dispatch.
//!
//! The tail of this file binds the appender and the tailer to the queue suite's library
//! interface (`super::Queue`).

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{fence, AtomicU64, Ordering};

use memmap2::{Mmap, MmapMut};

use super::{measure, Check, Outcome, Queue, Shape};
use crate::error::{Failure, Res};
use crate::registry::Run;

pub const MAGIC: &[u8; 8] = b"wbqueue1";
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 64;
/// The cycle file size of the benchmark, and of `queue append` without --cycle-size.
pub const DEFAULT_CYCLE_SIZE: u64 = 64 << 20;
pub const MIN_CYCLE_SIZE: u64 = 64 << 10;

pub const WORKING: u64 = 1 << 63;
pub const ABANDONED: u64 = 1 << 62;
pub const END: u64 = 1 << 61;
const LENGTH: u64 = 0xffff_ffff;
/// Bits 32-60: set in no valid header word.
const RESERVED: u64 = ((1 << 61) - 1) & !LENGTH;

// ---- clocks and publication -------------------------------------------------------------

/// The clock of a queue's timestamps, as its file headers say.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClockId {
    Mono = 1,
    Tsc = 2,
}

impl ClockId {
    pub fn name(self) -> &'static str {
        match self {
            ClockId::Mono => "mono",
            ClockId::Tsc => "tsc",
        }
    }
    fn from_code(code: u32) -> Option<ClockId> {
        match code {
            1 => Some(ClockId::Mono),
            2 => Some(ClockId::Tsc),
            _ => None,
        }
    }
}

/// The monotonic clock in nanoseconds: `clock_gettime(CLOCK_MONOTONIC)` (the vDSO call;
/// `std::time::Instant` reads the same clock but does not expose its nanoseconds).
#[inline]
pub fn mono_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid pointer; CLOCK_MONOTONIC cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// What stamps an entry when its write starts.
pub trait Clock: 'static {
    const ID: ClockId;
    fn now() -> i64;
}

pub struct Mono;

impl Clock for Mono {
    const ID: ClockId = ClockId::Mono;
    #[inline]
    fn now() -> i64 {
        mono_ns()
    }
}

/// TSC ticks from `rdtsc` (x86-64 only: other targets list no `tsc` cells).
#[cfg(target_arch = "x86_64")]
pub struct Tsc;

#[cfg(target_arch = "x86_64")]
impl Clock for Tsc {
    const ID: ClockId = ClockId::Tsc;
    #[inline]
    fn now() -> i64 {
        // SAFETY: rdtsc exists on every x86-64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() as i64 }
    }
}

/// How `end()` publishes the final header word.
pub trait Publish: 'static {
    fn publish(word: &AtomicU64, value: u64);
}

/// A release store: a plain `mov` on x86, all a tailer's acquire load needs.
pub struct Release;

impl Publish for Release {
    #[inline]
    fn publish(word: &AtomicU64, value: u64) {
        word.store(value, Ordering::Release);
    }
}

/// A sequentially consistent store: `xchg` on x86, a full fence (what Java's volatile
/// store pays, seed 002).
pub struct SeqCst;

impl Publish for SeqCst {
    #[inline]
    fn publish(word: &AtomicU64, value: u64) {
        word.store(value, Ordering::SeqCst);
    }
}

// ---- the format ---------------------------------------------------------------------------

/// A header word, decoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Word {
    /// 0: nothing here yet.
    Empty,
    /// An entry being written, of at most this many bytes.
    Working(u32),
    /// A complete entry of this many bytes.
    Complete(u32),
    /// An entry whose writer died, of at most this many bytes: skipped.
    Abandoned(u32),
    /// No more entries in this file.
    End,
}

/// The header word `w`, or None if it is corrupt (a bit of 32-60 set, two of 61-63 set,
/// an END with a length).
pub fn decode(w: u64) -> Option<Word> {
    if w == 0 {
        return Some(Word::Empty);
    }
    if w & RESERVED != 0 {
        return None;
    }
    let len = (w & LENGTH) as u32;
    match w >> 61 {
        0 => Some(Word::Complete(len)),
        0b100 => Some(Word::Working(len)),
        0b010 => Some(Word::Abandoned(len)),
        0b001 if len == 0 => Some(Word::End),
        _ => None,
    }
}

/// The bytes an entry of `len` payload bytes takes: header word, timestamp, payload
/// rounded up to 8.
#[inline]
pub fn span(len: u32) -> usize {
    16 + (len as usize).next_multiple_of(8)
}

/// The room rule: an entry of `len` bytes at `p` leaves room for an END word after it.
#[inline]
fn fits(p: usize, len: u32, size: usize) -> bool {
    p + span(len) + 8 <= size
}

pub fn file_name(cycle: u64) -> String {
    format!("{cycle:08}.wbq")
}

/// The cycle number of a file called `<8 digits>.wbq`.
fn cycle_of(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".wbq")?;
    if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The cycle files present in `dir`, in number order (none if `dir` does not exist).
pub fn cycles(dir: &Path) -> Res<Vec<u64>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Failure::new(format!("{}: {e}", dir.display()))),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        if let Some(c) = entry.file_name().to_str().and_then(cycle_of) {
            found.push(c);
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// An error naming the file and the offset of what is wrong.
fn corrupt(path: &Path, offset: u64, what: impl std::fmt::Display) -> Failure {
    Failure::new(format!("{} offset {offset}: {what}", path.display()))
}

/// The 64-byte header of a cycle file.
pub fn header(cycle: u64, size: u64, clock: ClockId) -> [u8; HEADER_SIZE] {
    let mut h = [0u8; HEADER_SIZE];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
    h[16..24].copy_from_slice(&size.to_le_bytes());
    h[24..32].copy_from_slice(&cycle.to_le_bytes());
    h[32..36].copy_from_slice(&(clock as u32).to_le_bytes());
    h
}

/// Opens cycle file `cycle` and checks its header before anything is read from it:
/// returns the file, its size (the header's) and its clock.
fn open_checked(path: &Path, cycle: u64, write: bool) -> Res<(File, usize, ClockId)> {
    let file = OpenOptions::new()
        .read(true)
        .write(write)
        .open(path)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    let len = file.metadata()?.len();
    if len < HEADER_SIZE as u64 {
        return Err(corrupt(
            path,
            len,
            format!("the file ends inside its {HEADER_SIZE}-byte header (truncated)"),
        ));
    }
    let mut h = [0u8; HEADER_SIZE];
    file.read_exact_at(&mut h, 0)?;
    let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(h[o..o + 8].try_into().unwrap());
    if &h[0..8] != MAGIC {
        return Err(corrupt(
            path,
            0,
            format!(
                "bad magic {:?}, not \"wbqueue1\"",
                String::from_utf8_lossy(&h[0..8])
            ),
        ));
    }
    if u32_at(8) != VERSION {
        return Err(corrupt(
            path,
            8,
            format!("format version {}, not 1", u32_at(8)),
        ));
    }
    if u32_at(12) != HEADER_SIZE as u32 {
        return Err(corrupt(
            path,
            12,
            format!("header size {}, not 64", u32_at(12)),
        ));
    }
    let size = u64_at(16);
    if size < (HEADER_SIZE + 8) as u64 || !size.is_multiple_of(8) || size > isize::MAX as u64 {
        return Err(corrupt(path, 16, format!("impossible file size {size}")));
    }
    if len < size {
        return Err(corrupt(
            path,
            len,
            format!("the file has {len} bytes, its header says {size} (truncated)"),
        ));
    }
    if u64_at(24) != cycle {
        return Err(corrupt(
            path,
            24,
            format!(
                "cycle number {}, where the file's name says {cycle}",
                u64_at(24)
            ),
        ));
    }
    let Some(clock) = ClockId::from_code(u32_at(32)) else {
        return Err(corrupt(path, 32, format!("unknown clock {}", u32_at(32))));
    };
    Ok((file, size as usize, clock))
}

/// The header word at `p` of a mapping, for atomic access. `p` is a multiple of 8 within
/// the mapping (the mapping is page-aligned, so the word is aligned).
#[inline]
fn word_at(base: *const u8, p: usize) -> &'static AtomicU64 {
    // SAFETY: the callers keep `p + 8` within a live mapping and use the reference only
    // while the mapping lives; another process may store to the word, hence atomics.
    unsafe { &*(base.add(p) as *const AtomicU64) }
}

/// The size of a page, the unit that pretouching touches.
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

/// Touches one word of every page of `map` in `from..to` (`from` itself first), storing
/// the zero that is there: a compare-exchange of 0 for 0, a locked write on x86, takes
/// the page's write fault now and alters nothing, whatever the word holds. (An atomic
/// `or` of 0 would not do: LLVM sees an idempotent relaxed RMW whose result is unused and
/// emits no instruction at all.)
fn touch(map: &mut MmapMut, from: usize, to: usize) {
    let page = page_size();
    let base = map.as_mut_ptr();
    let mut p = from & !7;
    while p < to {
        let _ = word_at(base, p).compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
        p = (p / page + 1) * page;
    }
}

/// The room rule, checked before an entry of `len` bytes at `p` is read or skipped.
fn check_room(path: &Path, p: usize, len: u32, size: usize) -> Res<()> {
    if fits(p, len, size) {
        return Ok(());
    }
    Err(corrupt(
        path,
        p as u64,
        format!("an entry of {len} bytes runs past the room of a file of {size} bytes"),
    ))
}

/// Takes the queue's appender lock without waiting: an exclusive flock(2) on
/// `DIR/queue.lock`, which the kernel releases when the process dies. The file holds the
/// holder's pid, for the message of the appender it refuses.
fn lock(dir: &Path) -> Res<File> {
    use std::os::fd::AsRawFd;
    let path = dir.join("queue.lock");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    // SAFETY: a valid open file descriptor.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let err = std::io::Error::last_os_error();
        if err.kind() != ErrorKind::WouldBlock {
            return Err(Failure::new(format!("flock {}: {err}", path.display())));
        }
        let holder = fs::read_to_string(&path).unwrap_or_default();
        let holder = holder.trim();
        return Err(Failure::new(format!(
            "queue {} already has an appender (pid {}, holding {}): one appender at a time",
            dir.display(),
            if holder.is_empty() { "unknown" } else { holder },
            path.display()
        )));
    }
    let pid = std::process::id().to_string();
    file.write_all_at(pid.as_bytes(), 0)?;
    file.set_len(pid.len() as u64)?;
    Ok(file)
}

/// Creates cycle file `cycle`: made complete under a temporary name, then renamed, so
/// that no reader ever sees a half-made header.
fn create_cycle(dir: &Path, cycle: u64, size: u64, clock: ClockId) -> Res<File> {
    let path = dir.join(file_name(cycle));
    let tmp = dir.join(format!("{}.tmp", file_name(cycle)));
    let made = (|| -> std::io::Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.set_len(size)?;
        file.write_all_at(&header(cycle, size, clock), 0)?;
        fs::rename(&tmp, &path)?;
        Ok(file)
    })();
    made.map_err(|e| Failure::new(format!("creating {}: {e}", path.display())))
}

// ---- appending ----------------------------------------------------------------------------

/// The one appender of a queue: holds the lock and its current cycle file mapped.
/// A write is `start(max)`, `write_long(v)`..., `end()`, in that order.
pub struct Appender<C: Clock, P: Publish> {
    dir: PathBuf,
    size: usize,
    /// The open lock file: its flock is the appender's, released when it is closed.
    _lock: File,
    cycle: u64,
    map: MmapMut,
    /// Where the next entry goes; during a write, where the entry being written is.
    pos: usize,
    /// During a write: where its next long goes, and the end of the room it reserved.
    cursor: usize,
    limit: usize,
    /// Whether every page of the current file after `pos` has been touched.
    touched: bool,
    /// The next cycle file, created and touched by `pretouch`.
    next: Option<MmapMut>,
    /// The file the appender left at its last roll, unmapped later (by `pretouch`, or at
    /// the next roll), so that a pretouched roll pays no munmap of a whole file.
    retired: Option<MmapMut>,
    /// Cycle files this appender created.
    created: u64,
    _types: PhantomData<(C, P)>,
}

impl<C: Clock, P: Publish> Appender<C, P> {
    /// Opens the queue in `dir` for appending, creating it or recovering it after an
    /// appender died: takes the lock, deletes half-made cycle files, checks that the
    /// queue's clock and cycle size are these, finds the append position and marks a dead
    /// writer's entry ABANDONED.
    pub fn open(dir: &Path, cycle_size: u64) -> Res<Self> {
        if cycle_size < MIN_CYCLE_SIZE || !cycle_size.is_multiple_of(4096) || cycle_size > 1 << 40 {
            return Err(Failure::new(format!(
                "cycle size {cycle_size}: a cycle file is a multiple of 4096 bytes, at least \
                 {MIN_CYCLE_SIZE}"
            )));
        }
        fs::create_dir_all(dir).map_err(|e| Failure::new(format!("{}: {e}", dir.display())))?;
        let lock = lock(dir)?;
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().ends_with(".wbq.tmp") {
                fs::remove_file(entry.path())?;
            }
        }
        let mut appender = Appender {
            dir: dir.to_path_buf(),
            size: cycle_size as usize,
            _lock: lock,
            cycle: 0,
            map: MmapMut::map_anon(1)?,
            pos: HEADER_SIZE,
            cursor: 0,
            limit: 0,
            touched: false,
            next: None,
            retired: None,
            created: 0,
            _types: PhantomData,
        };
        let present = cycles(dir)?;
        for &c in &present {
            appender.check_file(c)?;
        }
        // The last file that holds an entry; any after it are empty, made ahead by a
        // pretoucher. With no file, the queue starts at cycle 0.
        let mut last = present.first().copied().unwrap_or(0);
        for &c in present.iter().rev() {
            let mut first = [0u8; 8];
            File::open(dir.join(file_name(c)))?.read_exact_at(&mut first, HEADER_SIZE as u64)?;
            if first != [0; 8] {
                last = c;
                break;
            }
        }
        appender.cycle = last;
        appender.map = appender.map_cycle(last)?;
        appender.recover()?;
        Ok(appender)
    }

    /// Checks that existing cycle file `cycle` is sound and of this queue's clock and
    /// size; returns it open for writing.
    fn check_file(&self, cycle: u64) -> Res<File> {
        let path = self.dir.join(file_name(cycle));
        let (file, size, clock) = open_checked(&path, cycle, true)?;
        if clock != C::ID {
            return Err(Failure::new(format!(
                "queue {} has clock {} ({}), not {}: a queue has one clock",
                self.dir.display(),
                clock.name(),
                path.display(),
                C::ID.name()
            )));
        }
        if size != self.size {
            return Err(Failure::new(format!(
                "queue {} has cycle files of {size} bytes ({}), not {}: a queue has one cycle \
                 size",
                self.dir.display(),
                path.display(),
                self.size
            )));
        }
        Ok(file)
    }

    /// Maps cycle file `cycle` for writing, creating it if it does not exist.
    fn map_cycle(&mut self, cycle: u64) -> Res<MmapMut> {
        let path = self.dir.join(file_name(cycle));
        let file = if path.exists() {
            self.check_file(cycle)?
        } else {
            self.created += 1;
            create_cycle(&self.dir, cycle, self.size as u64, C::ID)?
        };
        // SAFETY: the mapping is shared with tailers by design; this process reaches it
        // through raw pointers and atomics only, and no one truncates a cycle file.
        unsafe { memmap2::MmapOptions::new().len(self.size).map_mut(&file) }
            .map_err(|e| Failure::new(format!("mapping {}: {e}", path.display())))
    }

    /// Scans the current file from offset 64 to the first empty word, replacing a dead
    /// writer's WORKING header with ABANDONED, and following an END into the next file.
    fn recover(&mut self) -> Res<()> {
        let mut p = HEADER_SIZE;
        loop {
            let path = self.dir.join(file_name(self.cycle));
            let word = word_at(self.map.as_mut_ptr(), p);
            let w = word.load(Ordering::Acquire);
            let len = match decode(w) {
                None => {
                    return Err(corrupt(
                        &path,
                        p as u64,
                        format!("corrupt header word {w:#018x}"),
                    ))
                }
                Some(Word::Empty) => break,
                Some(Word::End) => {
                    self.map = self.map_cycle(self.cycle + 1)?;
                    self.cycle += 1;
                    p = HEADER_SIZE;
                    continue;
                }
                Some(Word::Working(len) | Word::Complete(len) | Word::Abandoned(len)) => len,
            };
            check_room(&path, p, len, self.size)?;
            if matches!(decode(w), Some(Word::Working(_))) {
                word.store(ABANDONED | len as u64, Ordering::Release);
            }
            p += span(len);
        }
        self.pos = p;
        Ok(())
    }

    /// Starts a write of at most `max_len` bytes: moves to the next cycle file if it does
    /// not fit here, marks the entry WORKING and stamps it.
    #[inline]
    pub fn start(&mut self, max_len: u32) -> Res<()> {
        if !fits(self.pos, max_len, self.size) {
            self.roll(max_len)?;
        }
        let p = self.pos;
        let base = self.map.as_mut_ptr();
        word_at(base, p).store(WORKING | max_len as u64, Ordering::Relaxed);
        // Store-store order: no payload byte becomes visible before the WORKING mark.
        fence(Ordering::Release);
        // SAFETY: `fits` keeps p + 16 within the mapping; the offset is 8-aligned.
        unsafe { (base.add(p + 8) as *mut i64).write(C::now().to_le()) };
        self.cursor = p + 16;
        self.limit = p + span(max_len);
        Ok(())
    }

    /// Appends one long to the entry being written: a plain store.
    #[inline]
    pub fn write_long(&mut self, v: i64) {
        assert!(
            self.cursor + 8 <= self.limit,
            "write_long beyond the length given to start"
        );
        // SAFETY: cursor + 8 <= limit, which `start` kept within the mapping.
        unsafe { (self.map.as_mut_ptr().add(self.cursor) as *mut i64).write(v.to_le()) };
        self.cursor += 8;
    }

    /// Ends the write: publishes its header word, the length written, with the
    /// appender's ordering.
    #[inline]
    pub fn end(&mut self) {
        let len = (self.cursor - self.pos - 16) as u64;
        // A header word of 0 would read as the end of the queue.
        assert!(len > 0, "an entry holds at least one byte");
        P::publish(word_at(self.map.as_mut_ptr(), self.pos), len);
        self.pos = self.cursor;
    }

    /// Ends the current file with END and continues at offset 64 of the next one.
    #[cold]
    #[inline(never)]
    fn roll(&mut self, max_len: u32) -> Res<()> {
        if !fits(HEADER_SIZE, max_len, self.size) {
            return Err(Failure::new(format!(
                "an entry of {max_len} bytes does not fit in a cycle file of {} bytes (at most \
                 {} bytes an entry)",
                self.size,
                self.size - HEADER_SIZE - 24
            )));
        }
        let (next, touched) = match self.next.take() {
            Some(map) => (map, true),
            None => (self.map_cycle(self.cycle + 1)?, false),
        };
        word_at(self.map.as_mut_ptr(), self.pos).store(END, Ordering::Release);
        self.retired = Some(std::mem::replace(&mut self.map, next));
        self.cycle += 1;
        self.pos = HEADER_SIZE;
        self.touched = touched;
        Ok(())
    }

    /// Prepares the writes that follow (outside any timed region): unmaps the file left
    /// behind, touches every page of the rest of this file and creates and touches the
    /// next one, so that they take no page fault and no file creation.
    pub fn pretouch(&mut self) -> Res<()> {
        self.retired = None;
        if !self.touched {
            touch(&mut self.map, self.pos, self.size);
            self.touched = true;
        }
        if self.next.is_none() {
            let mut next = self.map_cycle(self.cycle + 1)?;
            touch(&mut next, 0, self.size);
            self.next = Some(next);
        }
        Ok(())
    }

    /// Cycle files this appender created.
    pub fn created(&self) -> u64 {
        self.created
    }
}

// ---- tailing ------------------------------------------------------------------------------

/// What a tailer's `read` found.
pub enum Read<'a> {
    /// A complete entry: its timestamp and payload.
    Entry { timestamp: i64, payload: &'a [u8] },
    /// Nothing more yet: an empty word, or an END with no next file yet.
    End,
    /// An entry being written (`position` says where): a tailer never returns a partial
    /// entry.
    Incomplete,
}

/// A reader of a queue, from offset 64 of its lowest cycle file on. Follows no one by
/// itself: a follower calls `read` again after `End` or `Incomplete`.
pub struct Tailer {
    dir: PathBuf,
    /// The queue's clock: given, or learnt from the first file; every file must have it.
    clock: Option<ClockId>,
    /// Whether to delete each cycle file it has finished with (the benchmark's retention).
    delete_finished: bool,
    cycle: u64,
    map: Option<Mmap>,
    size: usize,
    pos: usize,
    abandoned: u64,
}

impl Tailer {
    pub fn new(dir: &Path, clock: Option<ClockId>, delete_finished: bool) -> Tailer {
        Tailer {
            dir: dir.to_path_buf(),
            clock,
            delete_finished,
            cycle: 0,
            map: None,
            size: 0,
            pos: HEADER_SIZE,
            abandoned: 0,
        }
    }

    /// ABANDONED entries skipped so far.
    pub fn abandoned(&self) -> u64 {
        self.abandoned
    }

    /// The file it is in and the offset of the next word it reads (None before the queue
    /// has a file).
    pub fn position(&self) -> Option<(String, u64)> {
        self.map
            .as_ref()
            .map(|_| (file_name(self.cycle), self.pos as u64))
    }

    fn path(&self) -> PathBuf {
        self.dir.join(file_name(self.cycle))
    }

    /// Maps cycle file `cycle` (checked) and moves to its offset 64.
    fn enter(&mut self, cycle: u64) -> Res<()> {
        let path = self.dir.join(file_name(cycle));
        let (file, size, clock) = open_checked(&path, cycle, false)?;
        match self.clock {
            Some(c) if c != clock => {
                return Err(corrupt(
                    &path,
                    32,
                    format!("clock {}, where the queue's is {}", clock.name(), c.name()),
                ))
            }
            _ => self.clock = Some(clock),
        }
        // SAFETY: see Appender::map_cycle; read-only here.
        let map = unsafe { memmap2::MmapOptions::new().len(size).map(&file) }
            .map_err(|e| Failure::new(format!("mapping {}: {e}", path.display())))?;
        let finished = self.map.is_some().then(|| self.path());
        // The finished file is unmapped (here) before it is deleted.
        self.map = Some(map);
        if let (Some(old), true) = (finished, self.delete_finished) {
            fs::remove_file(&old).map_err(|e| Failure::new(format!("{}: {e}", old.display())))?;
        }
        self.cycle = cycle;
        self.size = size;
        self.pos = HEADER_SIZE;
        Ok(())
    }

    /// The next complete entry, skipping (and counting) ABANDONED ones and moving on at
    /// END; or where it had to stop. Every bound is checked before anything is read.
    pub fn read(&mut self) -> Res<Read<'_>> {
        loop {
            if self.map.is_none() {
                let Some(&lowest) = cycles(&self.dir)?.first() else {
                    return Ok(Read::End);
                };
                self.enter(lowest)?;
            }
            let p = self.pos;
            let base = self.map.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
            // The room rule of the entry before keeps p + 8 within the file.
            let w = word_at(base, p).load(Ordering::Acquire);
            let len = match decode(w) {
                None => {
                    let what = format!("corrupt header word {w:#018x}");
                    return Err(corrupt(&self.path(), p as u64, what));
                }
                Some(Word::Empty) => return Ok(Read::End),
                Some(Word::End) => {
                    let next = self.cycle + 1;
                    if !self.dir.join(file_name(next)).exists() {
                        return Ok(Read::End);
                    }
                    self.enter(next)?;
                    continue;
                }
                Some(Word::Working(len) | Word::Complete(len) | Word::Abandoned(len)) => len,
            };
            check_room(&self.path(), p, len, self.size)?;
            match decode(w) {
                Some(Word::Working(_)) => return Ok(Read::Incomplete),
                Some(Word::Abandoned(_)) => {
                    self.abandoned += 1;
                    self.pos = p + span(len);
                }
                _ => {
                    self.pos = p + span(len);
                    let map = self.map.as_ref().expect("a mapped file");
                    let timestamp = i64::from_le_bytes(map[p + 8..p + 16].try_into().unwrap());
                    let payload = &map[p + 16..p + 16 + len as usize];
                    return Ok(Read::Entry { timestamp, payload });
                }
            }
        }
    }
}

// ---- the queue suite's library ------------------------------------------------------------

/// Library `wbq` of the queue suite: the appender, with the benchmark's cycle size, and a
/// tailer that reads each run back and deletes the files it has finished with.
pub struct Wbq<C: Clock, P: Publish> {
    appender: Appender<C, P>,
    tailer: Tailer,
}

/// The library's factory (src/queue/mod.rs): the cell's clock and ordering as types.
pub fn make(run: &Run, dir: &Path) -> Res<Outcome> {
    match (run.param("clock"), run.param("ordering")) {
        #[cfg(target_arch = "x86_64")]
        ("tsc", "seqcst") => measure::<Wbq<Tsc, SeqCst>>(run, dir),
        #[cfg(target_arch = "x86_64")]
        ("tsc", _) => measure::<Wbq<Tsc, Release>>(run, dir),
        (_, "seqcst") => measure::<Wbq<Mono, SeqCst>>(run, dir),
        _ => measure::<Wbq<Mono, Release>>(run, dir),
    }
}

impl<C: Clock, P: Publish> Queue for Wbq<C, P> {
    fn open(dir: &Path, _shape: Shape) -> Res<Self> {
        Ok(Wbq {
            appender: Appender::open(dir, DEFAULT_CYCLE_SIZE)?,
            tailer: Tailer::new(dir, Some(C::ID), true),
        })
    }

    #[inline]
    fn start(&mut self, max_len: u32) -> Res<()> {
        self.appender.start(max_len)
    }

    #[inline]
    fn write_long(&mut self, v: i64) {
        self.appender.write_long(v);
    }

    #[inline]
    fn end(&mut self) {
        self.appender.end();
    }

    fn pretouch(&mut self) -> Res<()> {
        self.appender.pretouch()
    }

    fn read_back(&mut self, check: &mut Check) -> Res<()> {
        loop {
            match self.tailer.read()? {
                Read::Entry { timestamp, payload } => {
                    check.entry(timestamp, payload.len())?;
                    for long in payload.chunks_exact(8) {
                        check.value(i64::from_le_bytes(long.try_into().unwrap()))?;
                    }
                }
                Read::End => break,
                Read::Incomplete => {
                    let (file, offset) = self.tailer.position().unwrap_or_default();
                    return Err(Failure::new(format!(
                        "the tailer stopped at an incomplete entry at {file} offset {offset}"
                    )));
                }
            }
        }
        match self.tailer.abandoned() {
            0 => Ok(()),
            n => Err(Failure::new(format!(
                "the tailer skipped {n} abandoned entries"
            ))),
        }
    }

    fn files(&self) -> (u64, u64) {
        (DEFAULT_CYCLE_SIZE, self.appender.created())
    }
}
