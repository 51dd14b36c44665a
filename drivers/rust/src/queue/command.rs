//! `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md): the wbq queue
//! itself, for the tests that make every language read every other's queue, follow a live
//! appender of another language, and recover after an appender killed mid-write. The queue
//! suite's own commands (its `Suite::command`): the command line hands them the arguments.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::wbq::{self, Appender, Clock, Mono, Publish, Read, Release, SeqCst, Tailer};
use crate::error::{usage, Error, Failure, Res};
use crate::json::{self, Json};

/// The command's lines of the usage text.
pub const USAGE: &str = "       wirebench-rust queue append DIR --entries N [--longs K] [--first V]
         [--ordering release|seqcst] [--clock mono|tsc] [--cycle-size B] [--pause-us U]
         [--die-mid-entry]
       wirebench-rust queue tail DIR [--follow --expect N] [--timeout S]
";

/// A flag of `queue append|tail`: its name and whether it takes a value.
type QueueFlag = (&'static str, bool);

const APPEND_FLAGS: [QueueFlag; 8] = [
    ("entries", true),
    ("longs", true),
    ("first", true),
    ("ordering", true),
    ("clock", true),
    ("cycle-size", true),
    ("pause-us", true),
    ("die-mid-entry", false),
];
const TAIL_FLAGS: [QueueFlag; 3] = [("follow", false), ("expect", true), ("timeout", true)];

/// `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md), `args` being what
/// follows `queue`: parses the flags and runs `append` or `tail`.
pub fn run(argv: &[String]) -> Result<(), Error> {
    let sub = match argv.first().map(String::as_str) {
        Some(s @ ("append" | "tail")) => s,
        Some(other) => {
            return Err(usage(format!(
                "queue: unknown subcommand '{other}' (append or tail)"
            )))
        }
        None => return Err(usage("queue: missing subcommand (append or tail)")),
    };
    let dir = match argv.get(1) {
        Some(d) if !d.is_empty() && !d.starts_with("--") => PathBuf::from(d),
        _ => return Err(usage(format!("queue {sub}: missing DIR"))),
    };
    let known: &[QueueFlag] = if sub == "append" {
        &APPEND_FLAGS
    } else {
        &TAIL_FLAGS
    };
    let mut flags: BTreeMap<&str, String> = BTreeMap::new();
    let mut i = 2;
    while i < argv.len() {
        let a = &argv[i];
        let Some(name) = a.strip_prefix("--") else {
            return Err(usage(format!("unexpected argument '{a}'")));
        };
        let (name, inline) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (name, None),
        };
        let Some(&(name, takes_value)) = known.iter().find(|(n, _)| *n == name) else {
            let names: Vec<String> = known.iter().map(|(n, _)| format!("--{n}")).collect();
            return Err(usage(format!(
                "unknown flag --{name} for queue {sub} (its flags: {})",
                names.join(", ")
            )));
        };
        let value = match (takes_value, inline) {
            (false, None) => String::new(),
            (false, Some(_)) => return Err(usage(format!("flag --{name} takes no value"))),
            (true, Some(v)) => v,
            (true, None) => {
                i += 1;
                argv.get(i)
                    .cloned()
                    .ok_or_else(|| usage(format!("flag --{name} needs a value")))?
            }
        };
        if flags.insert(name, value).is_some() {
            return Err(usage(format!("flag --{name} given twice")));
        }
        i += 1;
    }
    let number = |name: &str, default: u64| -> Result<u64, Error> {
        match flags.get(name) {
            None => Ok(default),
            Some(s) => s.parse().map_err(|_| {
                usage(format!(
                    "bad value for --{name}: '{s}' (want a decimal integer)"
                ))
            }),
        }
    };
    let choice = |name: &str, legal: &'static [&'static str]| -> Result<&'static str, Error> {
        match flags.get(name) {
            None => Ok(legal[0]),
            Some(v) => legal.iter().find(|l| *l == v).copied().ok_or_else(|| {
                usage(format!(
                    "unknown value for --{name}: '{v}' (one of: {})",
                    legal.join(", ")
                ))
            }),
        }
    };
    if sub == "append" {
        if !flags.contains_key("entries") {
            return Err(usage("queue append: missing --entries N"));
        }
        let longs = number("longs", 1)?;
        if longs == 0 {
            return Err(usage("bad value for --longs: 0 (at least 1)"));
        }
        let first = match flags.get("first") {
            None => 0,
            Some(s) => s.parse::<i64>().map_err(|_| {
                usage(format!(
                    "bad value for --first: '{s}' (want a signed 64-bit integer)"
                ))
            })?,
        };
        let cycle_size = number("cycle-size", wbq::DEFAULT_CYCLE_SIZE)?;
        if cycle_size < wbq::MIN_CYCLE_SIZE || !cycle_size.is_multiple_of(4096) {
            return Err(usage(format!(
                "bad value for --cycle-size: {cycle_size} (a multiple of 4096, at least {})",
                wbq::MIN_CYCLE_SIZE
            )));
        }
        append(&AppendArgs {
            dir,
            entries: number("entries", 0)?,
            longs,
            first,
            ordering: choice("ordering", super::orderings())?,
            clock: choice("clock", super::clocks())?,
            cycle_size,
            pause_us: number("pause-us", 0)?,
            die_mid_entry: flags.contains_key("die-mid-entry"),
        })?;
    } else {
        let follow = flags.contains_key("follow");
        if follow != flags.contains_key("expect") {
            return Err(usage("queue tail: --follow and --expect N go together"));
        }
        let timeout = match flags.get("timeout") {
            None => 30.0,
            Some(s) => match s.parse::<f64>() {
                Ok(t) if t.is_finite() && t > 0.0 && t < 1e9 => t,
                _ => {
                    return Err(usage(format!(
                        "bad value for --timeout: '{s}' (seconds, more than 0)"
                    )))
                }
            },
        };
        tail(&TailArgs {
            dir,
            expect: if follow {
                Some(number("expect", 0)?)
            } else {
                None
            },
            timeout: Duration::from_secs_f64(timeout),
        })?;
    }
    Ok(())
}

struct AppendArgs {
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

struct TailArgs {
    pub dir: PathBuf,
    /// `--follow --expect N`: wait for N complete entries.
    pub expect: Option<u64>,
    pub timeout: Duration,
}

/// Opens (creating or recovering) the queue and appends the entries; prints
/// `{"entries", "longs", "first", "sum"}`.
fn append(a: &AppendArgs) -> Res<()> {
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
fn tail(a: &TailArgs) -> Res<()> {
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
