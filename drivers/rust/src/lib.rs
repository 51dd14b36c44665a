//! wirebench-rust: the Rust driver. Implements docs/protocol.md (commands info, list, run,
//! golden) on the registry of suites (src/registry.rs). The command line knows no suite: it
//! looks the suite up, validates the cell against the suite's registry entry (cases,
//! libraries, parameters and their legal values, fixtures) and hands the validated run to
//! the suite (src/rpc, src/codec, src/limit, src/queue, src/readbytes). `queue append|tail
//! DIR` drive the wbq queue itself (src/queue/command.rs).
//!
//! The driver is this library and a binary that only calls `main` (src/main.rs), so that
//! the fuzz targets (fuzz/, cargo fuzz) can call the decoders through `fuzz`.

mod alloc_count;
mod codec;
mod error;
pub mod fuzz;
mod io;
mod json;
mod limit;
mod limits;
mod queue;
mod readbytes;
mod registry;
mod rng;
mod rpc;
#[cfg(test)]
mod tests;
mod timing;

// The code generated from ../../schemas by build.rs (the rpc suite's message types).
#[allow(clippy::all, dead_code, unused_parens, unused_imports)]
pub mod carsales_capnp {
    include!(concat!(env!("OUT_DIR"), "/carsales_capnp.rs"));
}
#[allow(clippy::all, dead_code, unused_parens, unused_imports)]
pub mod catrank_capnp {
    include!(concat!(env!("OUT_DIR"), "/catrank_capnp.rs"));
}
#[allow(clippy::all, dead_code, unused_parens, unused_imports)]
pub mod eval_capnp {
    include!(concat!(env!("OUT_DIR"), "/eval_capnp.rs"));
}
#[allow(clippy::all, dead_code, unused_parens, unused_imports)]
pub mod log_capnp {
    include!(concat!(env!("OUT_DIR"), "/log_capnp.rs"));
}
#[allow(clippy::all, dead_code, unused_parens, unused_imports)]
pub mod logs_capnp {
    include!(concat!(env!("OUT_DIR"), "/logs_capnp.rs"));
}
// The FlatBuffers code of logs.fbs and the log.fbs it includes (flatc --gen-all).
#[allow(
    clippy::all,
    dead_code,
    deprecated,
    unused_imports,
    unreachable_patterns,
    mismatched_lifetime_syntaxes,
    non_camel_case_types
)]
pub mod log_fbs {
    include!(concat!(env!("OUT_DIR"), "/logs_generated.rs"));
}
#[allow(clippy::all, dead_code)]
pub mod pb {
    pub mod codec {
        include!(concat!(env!("OUT_DIR"), "/wirebench.codec.rs"));
    }
    pub mod carsales {
        include!(concat!(env!("OUT_DIR"), "/wirebench.carsales.rs"));
    }
    pub mod catrank {
        include!(concat!(env!("OUT_DIR"), "/wirebench.catrank.rs"));
    }
    pub mod eval {
        include!(concat!(env!("OUT_DIR"), "/wirebench.eval.rs"));
    }
}

use std::collections::BTreeMap;
use std::io::Write;

use error::{usage, Error};
use json::Json;
use registry::{Lib, Role, Run, Suite, FIXTURES, SUITES};

const COMPILER: &str = env!("WB_RUSTC_VERSION");

// ---- command line -----------------------------------------------------------------------

/// The flags of `run` that every suite takes.
const COMMON_FLAGS: [&str; 9] = [
    "suite", "case", "lib", "iters", "samples", "warmup", "role", "in-fd", "out-fd",
];

/// Whether `name` is a parameter of some suite.
fn is_param(name: &str) -> bool {
    SUITES
        .iter()
        .any(|s| s.params().iter().any(|p| p.name == name))
}

/// The flags of `run`, by name, and their order on the command line.
pub struct Args {
    flags: BTreeMap<String, String>,
    order: Vec<String>,
}

impl Args {
    fn has(&self, k: &str) -> bool {
        self.flags.contains_key(k)
    }
    fn get(&self, k: &str) -> &str {
        self.flags.get(k).map_or("", String::as_str)
    }
}

/// Reads `--NAME VALUE` and `--NAME=VALUE` pairs: the common flags, the fixtures and every
/// suite's parameters are known, any other name is a usage error.
fn parse_run_flags(argv: &[String]) -> Result<Args, Error> {
    let mut args = Args {
        flags: BTreeMap::new(),
        order: Vec::new(),
    };
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        let Some(name) = a.strip_prefix("--") else {
            return Err(usage(format!("unexpected argument '{a}'")));
        };
        let (name, inline) = match name.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (name.to_string(), None),
        };
        let known = COMMON_FLAGS.contains(&name.as_str())
            || FIXTURES.contains(&name.as_str())
            || is_param(&name);
        if !known {
            return Err(usage(format!("unknown flag --{name}")));
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                match argv.get(i) {
                    Some(v) => v.clone(),
                    None => return Err(usage(format!("flag --{name} needs a value"))),
                }
            }
        };
        if args.has(&name) {
            return Err(usage(format!("flag --{name} given twice")));
        }
        args.order.push(name.clone());
        args.flags.insert(name, value);
        i += 1;
    }
    Ok(args)
}

fn parse_count(args: &Args, name: &str, min: u64) -> Result<u64, Error> {
    let s = args.get(name);
    if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(usage(format!(
            "bad value for --{name}: '{s}' (want a decimal integer)"
        )));
    }
    let v: u64 = s
        .parse()
        .map_err(|_| usage(format!("bad value for --{name}: '{s}'")))?;
    if v < min {
        return Err(usage(format!(
            "bad value for --{name}: {s} (at least {min})"
        )));
    }
    Ok(v)
}

fn parse_fd(args: &Args, name: &str) -> Result<i32, Error> {
    i32::try_from(parse_count(args, name, 0)?).map_err(|_| usage(format!("bad value for --{name}")))
}

fn or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// The value of `--name`, which must be one of `allowed` (a value of the registry).
fn one_of(
    args: &Args,
    name: &str,
    allowed: &[&'static str],
    context: &str,
) -> Result<&'static str, Error> {
    if !args.has(name) {
        return Err(usage(format!(
            "missing --{name} (one of: {})",
            allowed.join(", ")
        )));
    }
    let v = args.get(name);
    if let Some(&a) = allowed.iter().find(|&&a| a == v) {
        return Ok(a);
    }
    Err(usage(format!(
        "unknown value for --{name}: '{v}'{context} (one of: {})",
        allowed.join(", ")
    )))
}

/// Checks `run`'s flags against `suite`'s registry entry: fixtures and parameters of other
/// suites, case, library, each parameter's value (as far as the library supports it),
/// combinations the suite refuses, role, fds and counts. Returns the validated run and its
/// library.
pub fn validate<F>(suite: &Suite<F>, args: &Args) -> Result<(Run, &'static Lib<F>), Error> {
    for name in &args.order {
        let name = name.as_str();
        if FIXTURES.contains(&name) && !suite.fixtures.contains(&name) {
            return Err(usage(format!(
                "flag --{name} is a fixture that suite {} does not take (its fixtures: {})",
                suite.name,
                or_none(suite.fixtures)
            )));
        }
        if is_param(name) && !suite.params.iter().any(|p| p.name == name) {
            let names: Vec<&str> = suite.params.iter().map(|p| p.name).collect();
            return Err(usage(format!(
                "flag --{name} is not a parameter of suite {} (its parameters: {})",
                suite.name,
                or_none(&names)
            )));
        }
    }
    let cases = suite.cases.join(", ");
    if !args.has("case") {
        return Err(usage(format!("missing --case (one of: {cases})")));
    }
    let Some(&case) = suite.cases.iter().find(|&&c| c == args.get("case")) else {
        return Err(usage(format!(
            "case '{}' is not in suite {} (one of: {cases})",
            args.get("case"),
            suite.name
        )));
    };
    let libs = suite.lib_names().join(", ");
    if !args.has("lib") {
        return Err(usage(format!("missing --lib (one of: {libs})")));
    }
    let Some(lib) = suite.lib(args.get("lib")) else {
        return Err(usage(format!(
            "unknown lib '{}' for suite {} (one of: {libs})",
            args.get("lib"),
            suite.name
        )));
    };
    let mut params = Vec::new();
    for p in suite.params {
        if !p.applies_to(case) {
            if args.has(p.name) {
                return Err(usage(format!(
                    "flag --{} is not a parameter of case {case} (only of case {})",
                    p.name,
                    p.cases.join(", ")
                )));
            }
            continue;
        }
        // A legal value of the suite that this library does not support says so.
        let context = if p.values.contains(&args.get(p.name)) {
            format!(" for lib {}", lib.name)
        } else {
            String::new()
        };
        params.push((p.name, one_of(args, p.name, lib.values(p), &context)?));
    }
    (suite.refuse)(case, &params).map_err(usage)?;

    let mut run = Run {
        suite: suite.name,
        case,
        lib: lib.name,
        params,
        versions: [("compiler", COMPILER)]
            .into_iter()
            .chain(lib.versions.iter().copied())
            .collect(),
        role: None,
        in_fd: -1,
        out_fd: -1,
        iters: 0,
        samples: 1,
        warmup: 0,
        fixtures: suite
            .fixtures
            .iter()
            .filter(|f| args.has(f))
            .map(|&f| (f, args.get(f).to_string()))
            .collect(),
    };
    if args.has("role") {
        run.role = Role::from_name(one_of(args, "role", &Role::NAMES, "")?);
    }
    (suite.prepare)(&mut run)?;
    if let Some(role @ (Role::Client | Role::Server)) = run.role {
        if !args.has("in-fd") || !args.has("out-fd") {
            return Err(usage(format!(
                "--role {} needs --in-fd and --out-fd",
                role.name()
            )));
        }
        run.in_fd = parse_fd(args, "in-fd")?;
        run.out_fd = parse_fd(args, "out-fd")?;
    } else if args.has("in-fd") || args.has("out-fd") {
        return Err(usage(
            "--in-fd and --out-fd need --role client or --role server",
        ));
    }

    if run.role != Some(Role::Server) {
        if !args.has("iters") {
            return Err(usage("missing --iters"));
        }
        run.iters = parse_count(args, "iters", 1)?;
        if args.has("samples") {
            run.samples = parse_count(args, "samples", 1)?;
        }
        if args.has("warmup") {
            run.warmup = parse_count(args, "warmup", 0)?;
        }
    } else {
        // A server answers until end of file; it accepts the client's counts and ignores them.
        for n in ["iters", "samples", "warmup"] {
            if args.has(n) {
                parse_count(args, n, 0)?;
            }
        }
    }
    Ok((run, lib))
}

/// `run`: finds the suite, which validates the flags and runs the cell.
fn run_command(argv: &[String]) -> Result<(), Error> {
    let args = parse_run_flags(argv)?;
    let names = registry::suite_names().join(", ");
    if !args.has("suite") {
        return Err(usage(format!("missing --suite (one of: {names})")));
    }
    let Some(suite) = registry::find_suite(args.get("suite")) else {
        return Err(usage(format!(
            "unknown suite '{}' (one of: {names})",
            args.get("suite")
        )));
    };
    suite.run(&args)
}

// ---- other commands ---------------------------------------------------------------------

fn info() {
    let mut versions = Json::default();
    versions.str("compiler", COMPILER);
    let mut seen = Vec::new();
    for suite in SUITES {
        for (k, v) in suite.versions() {
            if !seen.contains(&k) {
                seen.push(k);
                versions.str(k, v);
            }
        }
    }
    let mut build = Json::default();
    build
        .str("profile", env!("WB_PROFILE"))
        .str("opt-level", env!("WB_OPT_LEVEL"));
    let suites: Vec<String> = SUITES.iter().map(|s| json::quote(s.name())).collect();
    let mut j = Json::default();
    j.num("protocol", json::PROTOCOL)
        .str("lang", json::LANG)
        .str("toolchain", json::TOOLCHAIN)
        .str("driver", json::DRIVER)
        .raw("suites", &json::list(&suites))
        .raw("versions", &versions.text())
        .raw("build", &build.text());
    json::print_line(&j.text());
}

/// One line per cell of every suite.
fn list() {
    let mut out = std::io::stdout().lock();
    for suite in SUITES {
        for line in suite.list() {
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = out.flush();
}

/// `golden write DIR` and `golden check DIR` for the suites that have golden files: one
/// JSON line per file.
fn golden_command(argv: &[String]) -> Result<(), Error> {
    let Some(sub) = argv.get(1) else {
        return Err(usage("golden: missing subcommand (write or check)"));
    };
    if sub != "write" && sub != "check" {
        return Err(usage(format!(
            "golden: unknown subcommand '{sub}' (write or check)"
        )));
    }
    let Some(dir) = argv.get(2) else {
        return Err(usage(format!("golden {sub}: missing DIR")));
    };
    if let Some(a) = argv.get(3) {
        return Err(usage(format!("unexpected argument '{a}'")));
    }
    if dir.is_empty() {
        return Err(usage(format!("golden {sub}: DIR is empty")));
    }
    for golden in SUITES.iter().filter_map(|s| s.golden()) {
        if sub == "write" {
            (golden.write)(dir, &mut |f| {
                let mut j = Json::default();
                j.str("file", &f.name)
                    .num("messages", f.messages)
                    .num("bytes", f.bytes);
                json::print_line(&j.text());
            })?;
        } else {
            (golden.check)(dir, &mut |f| {
                let mut j = Json::default();
                j.str("file", &f.name);
                if f.skipped {
                    j.boolean("skipped", true);
                } else if let Some(same) = f.same_bytes {
                    let libs: Vec<String> = f.libs.iter().map(|l| json::quote(l)).collect();
                    j.raw("libs", &json::list(&libs))
                        .num("records", f.messages)
                        .boolean("same_bytes", same)
                        .boolean("ok", true);
                } else {
                    j.num("messages", f.messages).boolean("ok", true);
                }
                json::print_line(&j.text());
            })?;
        }
    }
    Ok(())
}

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

/// `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md): parses the flags
/// and hands them to src/queue/command.rs.
fn queue_command(argv: &[String]) -> Result<(), Error> {
    let sub = match argv.get(1).map(String::as_str) {
        Some(s @ ("append" | "tail")) => s,
        Some(other) => {
            return Err(usage(format!(
                "queue: unknown subcommand '{other}' (append or tail)"
            )))
        }
        None => return Err(usage("queue: missing subcommand (append or tail)")),
    };
    let dir = match argv.get(2) {
        Some(d) if !d.is_empty() && !d.starts_with("--") => std::path::PathBuf::from(d),
        _ => return Err(usage(format!("queue {sub}: missing DIR"))),
    };
    let known: &[QueueFlag] = if sub == "append" {
        &APPEND_FLAGS
    } else {
        &TAIL_FLAGS
    };
    let mut flags: BTreeMap<&str, String> = BTreeMap::new();
    let mut i = 3;
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
        let cycle_size = number("cycle-size", queue::wbq::DEFAULT_CYCLE_SIZE)?;
        if cycle_size < queue::wbq::MIN_CYCLE_SIZE || !cycle_size.is_multiple_of(4096) {
            return Err(usage(format!(
                "bad value for --cycle-size: {cycle_size} (a multiple of 4096, at least {})",
                queue::wbq::MIN_CYCLE_SIZE
            )));
        }
        queue::append(&queue::AppendArgs {
            dir,
            entries: number("entries", 0)?,
            longs,
            first,
            ordering: choice("ordering", queue::orderings())?,
            clock: choice("clock", queue::clocks())?,
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
        queue::tail(&queue::TailArgs {
            dir,
            expect: if follow {
                Some(number("expect", 0)?)
            } else {
                None
            },
            timeout: std::time::Duration::from_secs_f64(timeout),
        })?;
    }
    Ok(())
}

/// The usage, from the registry.
fn usage_text() -> String {
    let mut s = String::from(
        "usage: wirebench-rust info | list
       wirebench-rust run --suite S --case C --lib L [cell parameters] --iters N
         [--samples S] [--warmup W] [--role local|client|server] [--in-fd R --out-fd W]
         [--input FILE] [--work-dir DIR] [--out-dir DIR] (fixtures, for suites that take them)
       wirebench-rust golden write|check DIR
       wirebench-rust queue append DIR --entries N [--longs K] [--first V]
         [--ordering release|seqcst] [--clock mono|tsc] [--cycle-size B] [--pause-us U]
         [--die-mid-entry]
       wirebench-rust queue tail DIR [--follow --expect N] [--timeout S]
",
    );
    for suite in SUITES {
        s.push_str(&suite.usage());
    }
    s
}

fn real_main(argv: &[String]) -> Result<(), Error> {
    let Some(command) = argv.first() else {
        return Err(usage("missing command"));
    };
    match command.as_str() {
        "info" | "list" => {
            if let Some(a) = argv.get(1) {
                return Err(usage(format!("unexpected argument '{a}'")));
            }
            if command == "info" {
                info();
            } else {
                list();
            }
            Ok(())
        }
        "run" => run_command(&argv[1..]),
        "golden" => golden_command(argv),
        "queue" => queue_command(argv),
        other => Err(usage(format!("unknown command '{other}'"))),
    }
}

/// The command line of the `wirebench-rust` binary: runs the command and exits with the
/// protocol's status (2 for a usage error, 1 for a failure).
pub fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match real_main(&argv) {
        Ok(()) => {}
        Err(Error::Usage(m)) => {
            eprint!("wirebench-rust: usage error: {m}\n{}", usage_text());
            std::process::exit(2);
        }
        Err(Error::Fail(m)) => {
            eprintln!("wirebench-rust: error: {m}");
            std::process::exit(1);
        }
    }
}
