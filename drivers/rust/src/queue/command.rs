//! `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md): the wbq queue
//! itself, for the tests that make every language read every other's queue, follow a live
//! appender of another language, and recover after an appender killed mid-write. The
//! command line (main.rs) parses the flags into these arguments.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::wbq::{self, Appender, Clock, Mono, Publish, Read, Release, SeqCst, Tailer};
use crate::error::{Failure, Res};
use crate::json::{self, Json};

pub struct AppendArgs {
    pub dir: PathBuf,
    pub entries: u64,
    pub longs: u64,
    pub first: i64,
    pub ordering: &'static str,
    pub clock: &'static str,
    pub cycle_size: u64,
    pub pause_us: u64,
    pub die_mid_entry: bool,
}

pub struct TailArgs {
    pub dir: PathBuf,
    /// `--follow --expect N`: wait for N complete entries.
    pub expect: Option<u64>,
    pub timeout: Duration,
}

/// Opens (creating or recovering) the queue and appends the entries; prints
/// `{"entries", "longs", "first", "sum"}`.
pub fn append(a: &AppendArgs) -> Res<()> {
    match (a.clock, a.ordering) {
        #[cfg(target_arch = "x86_64")]
        ("tsc", "seqcst") => append_with::<wbq::Tsc, SeqCst>(a),
        #[cfg(target_arch = "x86_64")]
        ("tsc", _) => append_with::<wbq::Tsc, Release>(a),
        (_, "seqcst") => append_with::<Mono, SeqCst>(a),
        _ => append_with::<Mono, Release>(a),
    }
}

fn append_with<C: Clock, P: Publish>(a: &AppendArgs) -> Res<()> {
    let max_len = a
        .longs
        .checked_mul(8)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| Failure::new(format!("--longs {}: an entry over 4 GiB", a.longs)))?;
    let mut q = Appender::<C, P>::open(&a.dir, a.cycle_size)?;
    let mut v = a.first;
    let mut sum = 0i64;
    for _ in 0..a.entries {
        q.start(max_len)?;
        for _ in 0..a.longs {
            q.write_long(v);
            sum = sum.wrapping_add(v);
            v = v.wrapping_add(1);
        }
        q.end();
        if a.pause_us > 0 {
            std::thread::sleep(Duration::from_micros(a.pause_us));
        }
    }
    if a.die_mid_entry {
        q.start(max_len)?;
        for _ in 0..a.longs / 2 {
            q.write_long(v);
            v = v.wrapping_add(1);
        }
        eprintln!(
            "wirebench-rust: queue append: dying in the middle of entry {} as asked",
            a.entries
        );
        // SAFETY: _exit ends the process at once: no destructor, no flush, no end().
        unsafe { libc::_exit(3) };
    }
    let mut j = Json::default();
    j.num("entries", a.entries)
        .num("longs", a.entries.wrapping_mul(a.longs))
        .raw("first", &a.first.to_string())
        .raw("sum", &sum.to_string());
    json::print_line(&j.text());
    Ok(())
}

/// Reads the queue from its lowest cycle file (following a live appender with
/// `--follow`); prints what it read and where and why it stopped.
pub fn tail(a: &TailArgs) -> Res<()> {
    if a.expect.is_none() && !a.dir.is_dir() {
        return Err(Failure::new(format!(
            "no queue directory {}",
            a.dir.display()
        )));
    }
    let deadline = Instant::now() + a.timeout;
    let mut t = Tailer::new(&a.dir, None, false);
    let (mut entries, mut longs, mut sum) = (0u64, 0u64, 0i64);
    let (mut first, mut last) = (None::<i64>, None::<i64>);
    let (mut consecutive, mut monotonic) = (true, true);
    let mut last_timestamp = i64::MIN;
    let stopped = loop {
        if a.expect == Some(entries) {
            break "end";
        }
        let whole = match t.read()? {
            Read::Entry { timestamp, payload } => {
                monotonic &= timestamp >= last_timestamp;
                last_timestamp = timestamp;
                entries += 1;
                for long in payload.chunks_exact(8) {
                    let v = i64::from_le_bytes(long.try_into().unwrap());
                    consecutive &= last.is_none_or(|l| v == l.wrapping_add(1));
                    first.get_or_insert(v);
                    last = Some(v);
                    sum = sum.wrapping_add(v);
                    longs += 1;
                }
                Ok(payload.len())
            }
            Read::End if a.expect.is_none() => break "end",
            Read::Incomplete if a.expect.is_none() => break "incomplete",
            _ => Err(()),
        };
        match whole {
            // The queue suite writes longs: a payload of another length is not its queue.
            Ok(len) if !len.is_multiple_of(8) => {
                let (file, offset) = t.position().unwrap_or_default();
                return Err(Failure::new(format!(
                    "{} offset {}: an entry of {len} bytes, not a whole number of longs",
                    a.dir.join(file).display(),
                    offset - wbq::span(len as u32) as u64
                )));
            }
            Ok(_) => {}
            Err(()) => {
                // Following: nothing complete yet; wait for the appender.
                if Instant::now() >= deadline {
                    let at = t
                        .position()
                        .map(|(f, o)| format!(" (waiting at {f} offset {o})"))
                        .unwrap_or_default();
                    return Err(Failure::new(format!(
                        "timed out after {:?} following {}: read {entries} of {} entries{at}",
                        a.timeout,
                        a.dir.display(),
                        a.expect.unwrap_or(0)
                    )));
                }
                std::thread::sleep(Duration::from_micros(100));
            }
        }
    };
    let opt = |v: Option<i64>| v.map_or("null".to_string(), |v| v.to_string());
    let (file, offset) = match t.position() {
        Some((f, o)) => (json::quote(&f), o.to_string()),
        None => ("null".into(), "null".into()),
    };
    let mut j = Json::default();
    j.num("entries", entries)
        .num("longs", longs)
        .raw("first", &opt(first))
        .raw("last", &opt(last))
        .raw("sum", &sum.to_string())
        .boolean("consecutive", consecutive)
        .boolean("monotonic", monotonic)
        .num("abandoned", t.abandoned())
        .str("stopped", stopped)
        .raw("file", &file)
        .raw("offset", &offset);
    json::print_line(&j.text());
    Ok(())
}
