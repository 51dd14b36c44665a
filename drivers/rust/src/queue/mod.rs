//! Suite `queue` (docs/protocol.md): the append latency of a memory-mapped queue, after
//! seed 002. A sample is a run: `single` `iters` writes of one long (two runs: one timed
//! whole, one timed write by write), `bulk` one write of `iters` longs, `paced` `iters`
//! writes of one long on a fixed schedule.
//!
//! - mod.rs (this file): the suite in the registry with its library registry; `Queue`, the
//!   interface a library implements (start, write_long, end, pretouch, and reading a run
//!   back); and what is written once on top of it: the three timed loops, the latency
//!   recorders (HdrHistogram, per second too), the read-back check after every run, the
//!   result.
//! - wbq.rs: the queue format (docs/queue-format.md): appender, tailer, recovery; and
//!   library `wbq`. null.rs: library `null`, the floor.
//! - command.rs: the suite's own commands `queue append DIR` and `queue tail DIR`, the
//!   queue itself for the interoperability and crash tests.

mod command;
pub mod null;
#[cfg(test)]
mod tests;
pub mod wbq;

use std::path::Path;

use base64::Engine;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

use crate::error::{usage, Error, Failure, Res};
use crate::json::{self, Json};
use crate::registry::{Command, Lib, Listed, Pair, Param, Role, Run, Suite};
use crate::result;
use wbq::mono_ns;

// ---- the suite and its library registry --------------------------------------------------

/// A library's factory: runs a cell in the queue directory `dir` (with its parameters as
/// types, through `measure`) and returns what the result reports.
pub type Factory = fn(run: &Run, dir: &Path) -> Res<Outcome>;

impl Listed for Factory {}

/// rdtsc is an x86-64 instruction: elsewhere no cell has clock tsc.
const CLOCKS: &[&str] = if cfg!(target_arch = "x86_64") {
    &["mono", "tsc"]
} else {
    &["mono"]
};

/// The queue suite in the registry (src/registry.rs). `libs` is its library registry, in
/// the order of `list`; a library's first value of each parameter is its default
/// variant's.
pub static SUITE: Suite<Factory> = Suite {
    name: "queue",
    cases: &["single", "bulk", "paced"],
    params: &[
        Param {
            name: "ordering",
            values: &["release", "seqcst", "none"],
            cases: &[],
        },
        Param {
            name: "clock",
            values: CLOCKS,
            cases: &[],
        },
        Param {
            name: "pretouch",
            values: &["on", "off"],
            cases: &[],
        },
        Param {
            name: "rate",
            values: &["100k", "500k", "1M"],
            cases: &["paced"],
        },
    ],
    libs: &[
        Lib {
            name: "null",
            supports: &[("ordering", &["none"]), ("pretouch", &["on"])],
            crates: &["hdrhistogram"],
            make: null::make,
        },
        Lib {
            name: "wbq",
            supports: &[("ordering", &["release", "seqcst"])],
            crates: &["hdrhistogram", "memmap2"],
            make: wbq::make,
        },
    ],
    // --out-dir is taken and unused today (docs/protocol.md).
    fixtures: &["work-dir", "out-dir"],
    refuse,
    prepare,
    run,
    golden: None,
    command: Some(Command {
        run: command::run,
        usage: command::USAGE,
    }),
};

/// The orderings and clocks of `queue append` (wbq's, from the registry).
fn orderings() -> &'static [&'static str] {
    let wbq = SUITE.lib("wbq").expect("wbq in the registry");
    wbq.values(&SUITE.params[0])
}

fn clocks() -> &'static [&'static str] {
    SUITE.params[1].values
}

fn param<'a>(params: &[(&str, &'a str)], name: &str) -> &'a str {
    params.iter().find(|(n, _)| *n == name).map_or("", |p| p.1)
}

/// `paced` runs each library's default variant only (its first ordering, which is never
/// seqcst; the monotonic clock; pretouched), at each rate.
fn refuse(case: &str, params: &[Pair]) -> Result<(), String> {
    let (ordering, clock, pretouch) = (
        param(params, "ordering"),
        param(params, "clock"),
        param(params, "pretouch"),
    );
    if case == "paced" && (ordering == "seqcst" || clock != "mono" || pretouch != "on") {
        return Err(format!(
            "case paced runs each library's default variant (clock mono, pretouch on, its \
             first ordering), not ordering {ordering}, clock {clock}, pretouch {pretouch}"
        ));
    }
    Ok(())
}

/// A queue cell runs in one process, in the directory --work-dir names.
fn prepare(run: &mut Run) -> Result<(), Error> {
    match run.role {
        None | Some(Role::Local) => run.role = Some(Role::Local),
        Some(role) => {
            return Err(usage(format!(
                "--role {} is not possible in suite queue (its cells are local)",
                role.name()
            )))
        }
    }
    if !run.fixtures.iter().any(|(f, _)| *f == "work-dir") {
        return Err(usage(
            "suite queue needs --work-dir DIR (an empty directory for the queue)",
        ));
    }
    Ok(())
}

// ---- the library interface ---------------------------------------------------------------

/// The writes of a run: `entries` entries of `longs` values each.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub entries: u64,
    pub longs: u64,
}

/// One library's queue: an appender and, for checking, a tailer of the same
/// implementation. The loops call it through generics (one copy per library, clock and
/// ordering), so a write is straight-line code.
pub trait Queue: Sized {
    /// Opens the queue (wbq: in `dir`, with 64 MiB cycle files) for runs of `shape`.
    fn open(dir: &Path, shape: Shape) -> Res<Self>;
    /// Starts a write of at most `max_len` bytes and stamps it with the clock.
    fn start(&mut self, max_len: u32) -> Res<()>;
    fn write_long(&mut self, v: i64);
    /// Ends (publishes) the write.
    fn end(&mut self);
    /// Between runs, untimed: prepares the writes that follow (docs/queue-format.md).
    fn pretouch(&mut self) -> Res<()>;
    /// After each run, untimed: reads back every entry written since the last call, in
    /// order, handing each to `check`; frees what it has finished with.
    fn read_back(&mut self, check: &mut Check) -> Res<()>;
    /// The cycle file size and the cycle files created (none for null).
    fn files(&self) -> (u64, u64);
}

/// The read-back check (docs/protocol.md, suite queue): per run, the count of entries,
/// every value (the process writes 0, 1, 2, ...) and timestamps that never decrease;
/// the first difference fails the run.
pub struct Check {
    shape: Shape,
    run: u64,
    /// The value the next long read back must be.
    next: i64,
    last_timestamp: i64,
    entries: u64,
    sum: i64,
    /// Entries read back and checked, every run.
    checked: u64,
}

impl Check {
    fn new(shape: Shape) -> Check {
        Check {
            shape,
            run: 0,
            next: 0,
            last_timestamp: i64::MIN,
            entries: 0,
            sum: 0,
            checked: 0,
        }
    }

    /// An entry read back: its timestamp and payload length.
    #[inline]
    pub fn entry(&mut self, timestamp: i64, len: usize) -> Res<()> {
        let (run, entry) = (self.run, self.entries);
        if entry == self.shape.entries {
            return Err(Failure::new(format!(
                "run {run}: the tailer read back more than the {entry} entries written"
            )));
        }
        if len as u64 != self.shape.longs * 8 {
            return Err(Failure::new(format!(
                "run {run}, entry {entry}: {len} bytes read back, {} written",
                self.shape.longs * 8
            )));
        }
        if timestamp < self.last_timestamp {
            return Err(Failure::new(format!(
                "run {run}, entry {entry}: timestamp {timestamp} after {}",
                self.last_timestamp
            )));
        }
        self.last_timestamp = timestamp;
        self.entries += 1;
        Ok(())
    }

    /// The next long of the entry.
    #[inline]
    pub fn value(&mut self, v: i64) -> Res<()> {
        if v != self.next {
            return Err(Failure::new(format!(
                "run {}, entry {}: value {v} read back where {} was written",
                self.run,
                self.entries - 1,
                self.next
            )));
        }
        self.sum = self.sum.wrapping_add(v);
        self.next = self.next.wrapping_add(1);
        Ok(())
    }

    /// Reads the run back with `q`'s tailer; returns the wrapping sum of its values.
    fn read_run<Q: Queue>(&mut self, q: &mut Q) -> Res<i64> {
        self.entries = 0;
        self.sum = 0;
        q.read_back(self)?;
        if self.entries != self.shape.entries {
            return Err(Failure::new(format!(
                "run {}: the tailer read back {} entries, {} were written",
                self.run, self.entries, self.shape.entries
            )));
        }
        self.checked += self.entries;
        self.run += 1;
        Ok(self.sum)
    }
}

// ---- latency recording ---------------------------------------------------------------------

/// The histograms' layout (docs/protocol.md): 1 ns to an hour, 3 significant digits.
const HIGHEST: u64 = 3_600_000_000_000;
const SECOND: i64 = 1_000_000_000;

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST, 3).expect("valid histogram bounds")
}

/// HdrHistogram's V2 compressed encoding, base64.
fn encode(serializer: &mut V2DeflateSerializer, h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    serializer
        .serialize(h, &mut bytes)
        .expect("a histogram serializes into memory");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Records one metric's values: every value in a histogram of its second of wall time
/// since the first timed run (the intervals), and all of them (the total). A write costs
/// one comparison and one record; at a second's end the finished histogram is set aside
/// for a spare one, and it is encoded and added to the total after the run (`flush`), so
/// that no write waits for the encoding, not even in paced.
struct Recorder {
    origin: i64,
    /// The second `current` holds, and when it ends.
    second: u64,
    boundary: i64,
    current: Histogram<u64>,
    pending: Vec<(u64, Histogram<u64>)>,
    spare: Vec<Histogram<u64>>,
    total: Histogram<u64>,
    /// (start_ms, histogram) of every second that holds a value.
    intervals: Vec<(u64, String)>,
    serializer: V2DeflateSerializer,
}

impl Recorder {
    /// A recorder for the warm-up: its values are forgotten by `restart`.
    fn new() -> Recorder {
        Recorder {
            origin: 0,
            second: 0,
            boundary: i64::MAX,
            current: histogram(),
            pending: Vec::new(),
            spare: Vec::new(),
            total: histogram(),
            intervals: Vec::new(),
            serializer: V2DeflateSerializer::new(),
        }
    }

    /// The first timed run starts at `origin`: forgets the warm-up.
    fn restart(&mut self, origin: i64) {
        self.current.reset();
        self.total.reset();
        self.intervals.clear();
        for (_, mut h) in self.pending.drain(..) {
            h.reset();
            self.spare.push(h);
        }
        self.origin = origin;
        self.second = 0;
        self.boundary = origin + SECOND;
    }

    /// A value, recorded at monotonic time `t`.
    #[inline]
    fn record(&mut self, t: i64, value: u64) {
        if t >= self.boundary {
            self.next_second(t);
        }
        self.current.saturating_record(value);
    }

    #[cold]
    #[inline(never)]
    fn next_second(&mut self, t: i64) {
        let fresh = self.spare.pop().unwrap_or_else(histogram);
        let done = std::mem::replace(&mut self.current, fresh);
        if done.is_empty() {
            self.spare.push(done);
        } else {
            self.pending.push((self.second, done));
        }
        self.second = ((t - self.origin) / SECOND) as u64;
        self.boundary = self.origin + (self.second as i64 + 1) * SECOND;
    }

    /// Untimed: encodes the finished seconds and adds them to the total.
    fn flush(&mut self) {
        for (second, mut h) in std::mem::take(&mut self.pending) {
            self.intervals
                .push((second * 1000, encode(&mut self.serializer, &h)));
            self.total.add(&h).expect("histograms of one layout");
            h.reset();
            self.spare.push(h);
        }
    }

    /// Everything recorded since `restart`: the total and the intervals, encoded.
    fn finish(mut self) -> Recorded {
        self.flush();
        if !self.current.is_empty() {
            let h = std::mem::replace(&mut self.current, histogram());
            self.pending.push((self.second, h));
            self.flush();
        }
        Recorded {
            total: encode(&mut self.serializer, &self.total),
            intervals: self.intervals,
        }
    }
}

/// One metric's histograms, encoded.
pub struct Recorded {
    total: String,
    intervals: Vec<(u64, String)>,
}

impl Recorded {
    fn metric(&self) -> String {
        let mut j = Json::default();
        j.str("unit", "ns").str("histogram", &self.total);
        j.text()
    }

    fn intervals(&self) -> String {
        let items: Vec<String> = self
            .intervals
            .iter()
            .map(|(start_ms, h)| {
                let mut j = Json::default();
                j.num("start_ms", *start_ms)
                    .num("length_ms", 1000)
                    .str("histogram", h);
                j.text()
            })
            .collect();
        json::list(&items)
    }
}

// ---- the timed loops -------------------------------------------------------------------------

/// What a cell's runs measured and checked.
pub struct Outcome {
    /// Per sample, its run timed whole (paced: the sum of its writes' service times).
    time: Vec<u64>,
    /// Per timed run, the wrapping sum of the values read back.
    check: Vec<i64>,
    entries_checked: u64,
    latency: Recorded,
    /// paced only.
    service: Option<Recorded>,
    /// The cycle file size and the cycle files created.
    files: (u64, u64),
}

#[derive(Clone, Copy)]
enum Case {
    Single,
    Bulk,
    /// The schedule's period in ns.
    Paced(i64),
}

/// Runs a cell with library `Q`: per run (warm-up first), pretouch if asked, the timed
/// writes, then the read-back check, all outside the timed writes.
pub fn measure<Q: Queue>(run: &Run, dir: &Path) -> Res<Outcome> {
    let n = run.iters;
    let case = match run.case {
        "single" => Case::Single,
        "bulk" => Case::Bulk,
        _ => Case::Paced(match run.param("rate") {
            "100k" => 10_000,
            "500k" => 2_000,
            _ => 1_000,
        }),
    };
    let shape = match case {
        Case::Bulk => Shape {
            entries: 1,
            longs: n,
        },
        _ => Shape {
            entries: n,
            longs: 1,
        },
    };
    let max_len = n
        .checked_mul(8)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| Failure::new(format!("--iters {n}: an entry of {n} longs is over 4 GiB")))?;
    let pretouch = run.param("pretouch") == "on";

    let mut q = Q::open(dir, shape)?;
    let mut check = Check::new(shape);
    let mut latency = Recorder::new();
    let mut service = Recorder::new();
    let mut time = Vec::new();
    let mut sums = Vec::new();
    let mut value = 0i64;
    // single: a sample is two runs, one timed whole (its time: no timer read among the
    // writes) and then one timed write by write (its latencies); bulk and paced: one run
    // gives both. The warm-up alternates the same way. Every run is read back.
    let two_runs = matches!(case, Case::Single);
    let runs = if two_runs {
        2 * run.samples
    } else {
        run.samples
    };
    for r in 0..run.warmup + runs {
        if pretouch {
            q.pretouch()?;
        }
        let timed = r >= run.warmup;
        let whole = two_runs && (if timed { r - run.warmup } else { r }) % 2 == 0;
        if r == run.warmup {
            let origin = mono_ns();
            latency.restart(origin);
            service.restart(origin);
        }
        let total = match case {
            Case::Single if whole => single_whole(&mut q, n, &mut value)?,
            Case::Single => single(&mut q, n, &mut value, &mut latency)?,
            Case::Bulk => bulk(&mut q, n, max_len, &mut value, &mut latency)?,
            Case::Paced(period) => {
                paced(&mut q, n, period, &mut value, &mut latency, &mut service)?
            }
        };
        let sum = check.read_run(&mut q)?;
        if timed {
            latency.flush();
            service.flush();
            if whole || !two_runs {
                time.push(total);
            }
            sums.push(sum);
        }
    }
    Ok(Outcome {
        time,
        check: sums,
        entries_checked: check.checked,
        latency: latency.finish(),
        service: matches!(case, Case::Paced(_)).then(|| service.finish()),
        files: q.files(),
    })
}

/// `n` writes of one long each, timed whole: t0 before the first, t1 after the last and no
/// timer read among them (a clock read costs about what a write does). Returns t1 - t0.
fn single_whole<Q: Queue>(q: &mut Q, n: u64, value: &mut i64) -> Res<u64> {
    let mut v = *value;
    let t0 = mono_ns();
    for _ in 0..n {
        q.start(8)?;
        q.write_long(v);
        q.end();
        v = v.wrapping_add(1);
    }
    let t1 = mono_ns();
    *value = v;
    Ok((t1 - t0) as u64)
}

/// `n` writes of one long each, each timed on its own; returns the sum of their service
/// times.
fn single<Q: Queue>(q: &mut Q, n: u64, value: &mut i64, latency: &mut Recorder) -> Res<u64> {
    let mut v = *value;
    let mut total = 0;
    for _ in 0..n {
        let t0 = mono_ns();
        q.start(8)?;
        q.write_long(v);
        q.end();
        let t1 = mono_ns();
        let service = (t1 - t0) as u64;
        latency.record(t1, service);
        total += service;
        v = v.wrapping_add(1);
    }
    *value = v;
    Ok(total)
}

/// One write of `n` longs; returns its service time.
fn bulk<Q: Queue>(
    q: &mut Q,
    n: u64,
    max_len: u32,
    value: &mut i64,
    latency: &mut Recorder,
) -> Res<u64> {
    let v = *value;
    let t0 = mono_ns();
    q.start(max_len)?;
    for i in 0..n as i64 {
        q.write_long(v.wrapping_add(i));
    }
    q.end();
    let t1 = mono_ns();
    let service = (t1 - t0) as u64;
    latency.record(t1, service);
    *value = v.wrapping_add(n as i64);
    Ok(service)
}

/// `n` writes of one long, write i started at `T + i × period` (spinning until then, at
/// once if late), T the run's start: latency from the scheduled start, so a stall shows
/// in the writes behind it too; and each write's service time. Returns the sum of the
/// service times.
fn paced<Q: Queue>(
    q: &mut Q,
    n: u64,
    period: i64,
    value: &mut i64,
    latency: &mut Recorder,
    service: &mut Recorder,
) -> Res<u64> {
    let mut v = *value;
    let mut total = 0;
    let origin = mono_ns();
    for i in 0..n as i64 {
        let scheduled = origin + i * period;
        // The last read of the spin is the write's t0.
        let mut t0 = mono_ns();
        while t0 < scheduled {
            std::hint::spin_loop();
            t0 = mono_ns();
        }
        q.start(8)?;
        q.write_long(v);
        q.end();
        let t1 = mono_ns();
        let s = (t1 - t0) as u64;
        latency.record(t1, (t1 - scheduled) as u64);
        service.record(t1, s);
        total += s;
        v = v.wrapping_add(1);
    }
    *value = v;
    Ok(total)
}

// ---- the result ---------------------------------------------------------------------------

fn run(run: &Run, make: &Factory) -> Result<(), Error> {
    let dir = run
        .fixtures
        .iter()
        .find(|(f, _)| *f == "work-dir")
        .map(|(_, d)| d.as_str())
        .unwrap_or_default();
    let out = make(run, Path::new(dir))?;

    let mut time = Json::default();
    time.str("unit", "ns")
        .num("iters", run.iters)
        .list("samples", &out.time);
    let mut metrics = Json::default();
    metrics
        .raw("time", &time.text())
        .raw("latency", &out.latency.metric());
    let mut intervals = Json::default();
    intervals.raw("latency", &out.latency.intervals());
    if let Some(service) = &out.service {
        metrics.raw("service", &service.metric());
        intervals.raw("service", &service.intervals());
    }
    let mut queue = Json::default();
    queue
        .num("cycle_size", out.files.0)
        .num("cycles", out.files.1);
    let mut evidence = Json::default();
    evidence
        .list("check", &out.check)
        .num("entries_checked", out.entries_checked)
        .raw("intervals", &intervals.text())
        .raw("queue", &queue.text());
    result::print_metrics(run, "local", &metrics, &evidence);
    Ok(())
}
