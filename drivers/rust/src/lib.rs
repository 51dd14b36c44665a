//! wirebench-rust: the Rust driver. Implements docs/protocol.md (commands info, list, run,
//! golden, and a suite's own commands such as queue append|tail) on the registry of suites
//! (src/registry.rs, the suites listed in src/suites.rs). The command line knows no suite:
//! it looks the suite up, validates the cell against the suite's registry entry (cases,
//! libraries, parameters and their legal values, fixtures) and hands the validated run to
//! the suite (src/rpc, src/codec, src/limit, src/queue, src/readbytes).
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
mod result;
mod rng;
mod rpc;
mod suites;
#[cfg(test)]
mod tests;
mod timing;

// The locked version of each of the driver's dependencies (build.rs, from Cargo.lock).
mod locked {
    include!(concat!(env!("OUT_DIR"), "/locked.rs"));
}

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
use registry::{AnySuite, Role, Run, FIXTURES};
use suites::SUITES;

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
struct Args {
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
/// combinations the suite refuses, role, fds and counts. Returns the validated run.
fn validate(suite: &dyn AnySuite, args: &Args) -> Result<Run, Error> {
    let (name, params) = (suite.name(), suite.params());
    for flag in &args.order {
        let flag = flag.as_str();
        if FIXTURES.contains(&flag) && !suite.fixtures().contains(&flag) {
            return Err(usage(format!(
                "flag --{flag} is a fixture that suite {name} does not take (its fixtures: {})",
                or_none(suite.fixtures())
            )));
        }
        if is_param(flag) && !params.iter().any(|p| p.name == flag) {
            let names: Vec<&str> = params.iter().map(|p| p.name).collect();
            return Err(usage(format!(
                "flag --{flag} is not a parameter of suite {name} (its parameters: {})",
                or_none(&names)
            )));
        }
    }
    let cases = suite.cases().join(", ");
    if !args.has("case") {
        return Err(usage(format!("missing --case (one of: {cases})")));
    }
    let Some(&case) = suite.cases().iter().find(|&&c| c == args.get("case")) else {
        return Err(usage(format!(
            "case '{}' is not in suite {name} (one of: {cases})",
            args.get("case"),
        )));
    };
    let lib_names = suite.lib_names();
    if !args.has("lib") {
        return Err(usage(format!(
            "missing --lib (one of: {})",
            lib_names.join(", ")
        )));
    }
    let Some(&lib) = lib_names.iter().find(|&&l| l == args.get("lib")) else {
        return Err(usage(format!(
            "unknown lib '{}' for suite {name} (one of: {})",
            args.get("lib"),
            lib_names.join(", ")
        )));
    };
    let mut values = Vec::new();
    for p in params {
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
            format!(" for lib {lib}")
        } else {
            String::new()
        };
        let value = one_of(args, p.name, suite.lib_values(lib, p), &context)?;
        values.push((p.name, value));
    }
    suite.refuse(case, &values).map_err(usage)?;

    let mut run = Run {
        suite: name,
        case,
        lib,
        params: values,
        versions: [("compiler", COMPILER)]
            .into_iter()
            .chain(suite.lib_versions(lib))
            .collect(),
        role: None,
        in_fd: -1,
        out_fd: -1,
        iters: 0,
        samples: 1,
        warmup: 0,
        fixtures: suite
            .fixtures()
            .iter()
            .filter(|f| args.has(f))
            .map(|&f| (f, args.get(f).to_string()))
            .collect(),
    };
    if args.has("role") {
        run.role = Role::from_name(one_of(args, "role", &Role::NAMES, "")?);
    }
    suite.prepare(&mut run)?;
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
    Ok(run)
}

/// `run`: finds the suite, validates the flags against it and runs the cell.
fn run_command(argv: &[String]) -> Result<(), Error> {
    let args = parse_run_flags(argv)?;
    let names = suites::names().join(", ");
    if !args.has("suite") {
        return Err(usage(format!("missing --suite (one of: {names})")));
    }
    let Some(suite) = suites::find(args.get("suite")) else {
        return Err(usage(format!(
            "unknown suite '{}' (one of: {names})",
            args.get("suite")
        )));
    };
    suite.run(&validate(suite, &args)?)
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

/// The usage, from the registry.
fn usage_text() -> String {
    let mut s = String::from(
        "usage: wirebench-rust info | list
       wirebench-rust run --suite S --case C --lib L [cell parameters] --iters N
         [--samples S] [--warmup W] [--role local|client|server] [--in-fd R --out-fd W]
         [--input FILE] [--work-dir DIR] [--out-dir DIR] (fixtures, for suites that take them)
       wirebench-rust golden write|check DIR
",
    );
    for command in SUITES.iter().filter_map(|s| s.command()) {
        s.push_str(command.usage);
    }
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
        // A suite's own commands: `queue append DIR ...`.
        other => match suites::find(other).and_then(|s| s.command()) {
            Some(command) => (command.run)(&argv[1..]),
            None => Err(usage(format!("unknown command '{other}'"))),
        },
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
