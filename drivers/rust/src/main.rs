//! wirebench-rust: the Rust driver. Implements docs/protocol.md (commands info, list, run,
//! golden),
//! the timing loop, the roles of pipe cells and the JSON results, like the C++ driver
//! (drivers/cpp/src/main.cpp).
//!
//! A pipe cell without --role runs its own server: not a forked or spawned process but a
//! second thread of this process, joined to the client by two OS pipes (std::io::pipe),
//! running exactly the code of `--role server`. (std cannot clear FD_CLOEXEC on a child's
//! fds without the libc crate, and a thread keeps the dependency list minimal.)

mod cases;
mod golden;
mod io;
mod limit;
mod registry;
mod rng;
mod rpc;
#[cfg(test)]
mod tests;

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
#[allow(clippy::all, dead_code)]
pub mod pb {
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
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
use std::time::Instant;

use cases::{Failure, RpcCell, Tally};
use rng::Rng;

const PROTOCOL: u32 = 2;
/// The driver's identity (docs/protocol.md) beside its language.
const TOOLCHAIN: &str = "rustc";
/// Fixtures the harness may hand a cell (docs/protocol.md); no suite here takes any.
const FIXTURE_FLAGS: [&str; 3] = ["input", "work-dir", "out-dir"];
const COMPILER: &str = env!("WB_RUSTC_VERSION");

enum Error {
    Usage(String),
    Fail(String),
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        Error::Fail(f.0)
    }
}

fn usage(s: impl Into<String>) -> Error {
    Error::Usage(s.into())
}

// ---- JSON -------------------------------------------------------------------------------

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An object built field by field, printed on one line.
#[derive(Default)]
struct Json {
    body: String,
}

impl Json {
    fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        if !self.body.is_empty() {
            self.body.push_str(", ");
        }
        self.body.push_str(&quote(key));
        self.body.push_str(": ");
        self.body.push_str(json);
        self
    }
    fn str(&mut self, key: &str, v: &str) -> &mut Self {
        self.raw(key, &quote(v))
    }
    fn num(&mut self, key: &str, v: u64) -> &mut Self {
        self.raw(key, &v.to_string())
    }
    fn boolean(&mut self, key: &str, v: bool) -> &mut Self {
        self.raw(key, if v { "true" } else { "false" })
    }
    fn list<T: ToString>(&mut self, key: &str, v: &[T]) -> &mut Self {
        let items: Vec<String> = v.iter().map(ToString::to_string).collect();
        self.raw(key, &format!("[{}]", items.join(", ")))
    }
    fn text(&self) -> String {
        format!("{{{}}}", self.body)
    }
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout leaves nothing to report to; the exit status still tells.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

// ---- command line -----------------------------------------------------------------------

const RUN_FLAGS: [&str; 16] = [
    "input",
    "work-dir",
    "out-dir",
    "suite",
    "case",
    "lib",
    "mode",
    "compression",
    "reuse",
    "block",
    "iters",
    "samples",
    "warmup",
    "role",
    "in-fd",
    "out-fd",
];

struct Args {
    flags: BTreeMap<String, String>,
}

impl Args {
    fn has(&self, k: &str) -> bool {
        self.flags.contains_key(k)
    }
    fn get(&self, k: &str) -> &str {
        &self.flags[k]
    }
}

fn parse_run_flags(argv: &[String]) -> Result<Args, Error> {
    let mut flags = BTreeMap::new();
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
        if !RUN_FLAGS.contains(&name.as_str()) {
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
        if flags.contains_key(&name) {
            return Err(usage(format!("flag --{name} given twice")));
        }
        flags.insert(name, value);
        i += 1;
    }
    Ok(Args { flags })
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

fn one_of(args: &Args, name: &str, allowed: &[&str], context: &str) -> Result<String, Error> {
    if !args.has(name) {
        return Err(usage(format!("missing --{name}")));
    }
    let v = args.get(name);
    if allowed.contains(&v) {
        return Ok(v.to_string());
    }
    Err(usage(format!(
        "unknown value for --{name}: '{v}'{context} (one of: {})",
        allowed.join(", ")
    )))
}

/// Everything `run` needs, validated.
#[derive(Clone, Default)]
struct RunSpec {
    suite: String,
    case: String,
    lib: String,
    params: Vec<(String, String)>,
    mode: String,
    compression: String,
    block: String,
    reuse: bool,
    /// local, client, server, or "" (pipe without a role: run a server thread).
    role: String,
    in_fd: i32,
    out_fd: i32,
    iters: u64,
    samples: u64,
    warmup: u64,
    versions: Vec<(String, String)>,
}

fn validate(args: &Args) -> Result<RunSpec, Error> {
    let mut spec = RunSpec {
        samples: 1,
        in_fd: -1,
        out_fd: -1,
        ..Default::default()
    };
    let suite = one_of(args, "suite", &["rpc", "limit"], "")?;
    let suite = if suite == "rpc" { "rpc" } else { "limit" };
    let cases: &[&str] = if suite == "rpc" {
        &registry::RPC_CASES
    } else {
        &["memcpy"]
    };
    spec.case = one_of(args, "case", cases, &format!(" for suite {suite}"))?;
    for f in FIXTURE_FLAGS {
        if args.has(f) {
            return Err(usage(format!(
                "flag --{f} is a fixture suite {suite} does not take"
            )));
        }
    }
    spec.suite = suite.to_string();
    if !args.has("lib") {
        return Err(usage("missing --lib"));
    }
    spec.lib = args.get("lib").to_string();
    spec.versions.push(("compiler".into(), COMPILER.into()));

    let reject = |names: &[&str]| -> Result<(), Error> {
        for n in names {
            if args.has(n) {
                return Err(usage(format!(
                    "flag --{n} is not a parameter of suite {suite}"
                )));
            }
        }
        Ok(())
    };

    if suite == "rpc" {
        reject(&["block"])?;
        let Some(lib) = registry::find_rpc_lib(&spec.lib) else {
            let names: Vec<&str> = registry::RPC_LIBS.iter().map(|l| l.name).collect();
            return Err(usage(format!(
                "unknown lib '{}' for suite rpc (one of: {})",
                spec.lib,
                names.join(", ")
            )));
        };
        spec.mode = one_of(args, "mode", &registry::RPC_MODES, "")?;
        spec.compression = one_of(
            args,
            "compression",
            lib.compressions,
            &format!(" for lib {}", lib.name),
        )?;
        if spec.mode == "object" && spec.compression != "none" {
            return Err(usage(format!(
                "compression {} does not apply to mode object",
                spec.compression
            )));
        }
        spec.reuse = one_of(args, "reuse", &registry::REUSE_MODES, "")? == "reuse";
        spec.params = vec![
            ("mode".into(), spec.mode.clone()),
            ("compression".into(), spec.compression.clone()),
            (
                "reuse".into(),
                if spec.reuse { "reuse" } else { "no-reuse" }.into(),
            ),
        ];
        for (k, v) in lib.versions {
            spec.versions.push(((*k).into(), (*v).into()));
        }
    } else {
        reject(&["mode", "compression", "reuse"])?;
        if spec.lib != "memcpy" {
            return Err(usage(format!(
                "unknown lib '{}' for suite limit (one of: memcpy)",
                spec.lib
            )));
        }
        let blocks: Vec<&str> = registry::MEMCPY_BLOCKS.iter().map(|b| b.0).collect();
        spec.block = one_of(args, "block", &blocks, "")?;
        spec.params = vec![("block".into(), spec.block.clone())];
    }

    let pipe_mode = spec.mode == "pipe" || spec.mode == "pipe-async";
    if args.has("role") {
        spec.role = one_of(args, "role", &["local", "client", "server"], "")?;
        if pipe_mode && spec.role == "local" {
            return Err(usage(format!(
                "--role local is not possible with --mode {} (use client or server, or no \
                 --role to run a server of its own)",
                spec.mode
            )));
        }
        if !pipe_mode && spec.role != "local" {
            return Err(usage(format!(
                "--role {} needs a pipe mode (pipe or pipe-async)",
                spec.role
            )));
        }
    } else {
        spec.role = if pipe_mode { "" } else { "local" }.into();
    }
    let split = spec.role == "client" || spec.role == "server";
    if split {
        if !args.has("in-fd") || !args.has("out-fd") {
            return Err(usage(format!(
                "--role {} needs --in-fd and --out-fd",
                spec.role
            )));
        }
        spec.in_fd = i32::try_from(parse_count(args, "in-fd", 0)?)
            .map_err(|_| usage("bad value for --in-fd"))?;
        spec.out_fd = i32::try_from(parse_count(args, "out-fd", 0)?)
            .map_err(|_| usage("bad value for --out-fd"))?;
    } else if args.has("in-fd") || args.has("out-fd") {
        return Err(usage(
            "--in-fd and --out-fd need --role client or --role server",
        ));
    }

    if spec.role != "server" {
        if !args.has("iters") {
            return Err(usage("missing --iters"));
        }
        spec.iters = parse_count(args, "iters", 1)?;
        if args.has("samples") {
            spec.samples = parse_count(args, "samples", 1)?;
        }
        if args.has("warmup") {
            spec.warmup = parse_count(args, "warmup", 0)?;
        }
    } else {
        // A server answers until end of file; it accepts the client's counts and ignores them.
        for n in ["iters", "samples", "warmup"] {
            if args.has(n) {
                parse_count(args, n, 0)?;
            }
        }
    }
    Ok(spec)
}

// ---- results ----------------------------------------------------------------------------

#[derive(Default)]
struct Samples {
    ns: Vec<u64>,
    bytes: Vec<u64>,
    check: Vec<i64>,
    responses: u64,
}

fn pairs_json(pairs: &[(String, String)]) -> String {
    let mut j = Json::default();
    for (k, v) in pairs {
        j.str(k, v);
    }
    j.text()
}

fn header(spec: &RunSpec, role: &str) -> Json {
    let mut j = Json::default();
    j.num("protocol", u64::from(PROTOCOL))
        .str("lang", "rust")
        .str("toolchain", TOOLCHAIN)
        .str("driver", "wirebench-rust")
        .str("suite", &spec.suite)
        .str("case", &spec.case)
        .str("lib", &spec.lib)
        .raw("params", &pairs_json(&spec.params))
        .str("role", role);
    j
}

fn print_result(spec: &RunSpec, role: &str, s: &Samples) {
    let mut j = header(spec, role);
    let metric = |unit: &str, samples: &[u64]| {
        let mut m = Json::default();
        m.str("unit", unit)
            .num("iters", spec.iters)
            .list("samples", samples);
        m.text()
    };
    let mut metrics = Json::default();
    metrics
        .raw("time", &metric("ns", &s.ns))
        .raw("bytes", &metric("B", &s.bytes));
    j.num("warmup", spec.warmup)
        .raw("metrics", &metrics.text())
        .list("check", &s.check)
        .boolean("verified", true)
        .num("responses_checked", s.responses)
        .raw("versions", &pairs_json(&spec.versions));
    print_line(&j.text());
}

// ---- running ----------------------------------------------------------------------------

/// The timing loop shared by every rpc mode on the client side: the generator is reset at
/// the start of the warm-up and of every sample; only the sample's iterations are timed.
fn time_rpc(
    spec: &RunSpec,
    mut step: impl FnMut(&mut Rng, u64, &mut Tally) -> cases::Res<()>,
) -> Result<Samples, Error> {
    let mut s = Samples::default();
    let mut rng = Rng::new();
    if spec.warmup > 0 {
        let mut warm = Tally::default();
        rng.reset();
        step(&mut rng, spec.warmup, &mut warm)?;
        s.responses += warm.responses;
    }
    for _ in 0..spec.samples {
        let mut t = Tally::default();
        rng.reset();
        let t0 = Instant::now();
        step(&mut rng, spec.iters, &mut t)?;
        let elapsed = t0.elapsed();
        s.ns.push(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        s.bytes.push(t.bytes);
        s.check.push(t.check as i64);
        s.responses += t.responses;
    }
    Ok(s)
}

fn make_cell(spec: &RunSpec) -> Result<Box<dyn RpcCell>, Error> {
    let lib = registry::find_rpc_lib(&spec.lib).expect("validated");
    (lib.make)(&spec.case, &spec.compression, spec.reuse).ok_or_else(|| {
        usage(format!(
            "combination not supported: {} {}",
            spec.lib, spec.case
        ))
    })
}

fn run_client(
    spec: &RunSpec,
    cell: &mut dyn RpcCell,
    in_fd: i32,
    out_fd: i32,
) -> Result<Samples, Error> {
    cell.open_client(in_fd, out_fd);
    let s = if spec.mode == "pipe" {
        time_rpc(spec, |r, n, t| cell.pipe(r, n, t))?
    } else {
        time_rpc(spec, |r, n, t| cell.pipe_async(r, n, t))?
    };
    cell.close_client()?;
    Ok(s)
}

fn check_fd(fd: i32, flag: &str) -> Result<(), Error> {
    if !std::path::Path::new(&format!("/proc/self/fd/{fd}")).exists() {
        return Err(usage(format!("{flag} {fd} is not an open fd")));
    }
    Ok(())
}

fn run_server(spec: &RunSpec) -> Result<(), Error> {
    let mut cell = make_cell(spec)?;
    let st = cell.serve(spec.in_fd, spec.out_fd)?;
    let mut j = header(spec, "server");
    j.num("requests", st.requests)
        .num("bytes_in", st.bytes_in)
        .num("bytes_out", st.bytes_out)
        .boolean("verified", true)
        .raw("versions", &pairs_json(&spec.versions));
    print_line(&j.text());
    Ok(())
}

fn raw_fd(fd: impl Into<OwnedFd>) -> i32 {
    fd.into().into_raw_fd()
}

/// A pipe cell without --role: a server thread of this process on two pipes, the client
/// here (see the top of this file).
fn run_with_server_thread(spec: &RunSpec) -> Result<(), Error> {
    let (to_server_r, to_server_w) =
        std::io::pipe().map_err(|e| Error::Fail(format!("pipe() failed: {e}")))?;
    let (to_client_r, to_client_w) =
        std::io::pipe().map_err(|e| Error::Fail(format!("pipe() failed: {e}")))?;
    let (srv_in, srv_out) = (raw_fd(to_server_r), raw_fd(to_client_w));
    let (cli_in, cli_out) = (raw_fd(to_client_r), raw_fd(to_server_w));
    let mut server_cell = make_cell(spec)?;
    let server = std::thread::spawn(move || {
        if let Err(e) = server_cell.serve(srv_in, srv_out) {
            eprintln!("wirebench-rust: server: {}", e.0);
            std::process::exit(1);
        }
        // SAFETY: the server's pipe ends, made above, used by nobody else any more.
        unsafe {
            drop(OwnedFd::from_raw_fd(srv_in));
            drop(OwnedFd::from_raw_fd(srv_out));
        }
    });
    let mut cell = make_cell(spec)?;
    let s = run_client(spec, cell.as_mut(), cli_in, cli_out)?;
    drop(cell);
    server
        .join()
        .map_err(|_| Error::Fail("the server thread panicked".into()))?;
    print_result(spec, "local", &s);
    Ok(())
}

fn run_memcpy(spec: &RunSpec) -> Result<(), Error> {
    let block = registry::MEMCPY_BLOCKS
        .iter()
        .find(|b| b.0 == spec.block)
        .expect("validated")
        .1;
    let mut cell = limit::MemcpyCell::new(block);
    let mut s = Samples::default();
    if spec.warmup > 0 {
        cell.scramble();
        cell.copy(spec.warmup);
        if !cell.verify() {
            return Err(Error::Fail(
                "memcpy: the copy differs from the source after the warm-up".into(),
            ));
        }
    }
    for _ in 0..spec.samples {
        cell.scramble();
        let t0 = Instant::now();
        cell.copy(spec.iters);
        let elapsed = t0.elapsed();
        if !cell.verify() {
            return Err(Error::Fail(
                "memcpy: the copy differs from the source".into(),
            ));
        }
        s.ns.push(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        s.bytes.push(spec.iters.wrapping_mul(block as u64));
        s.check.push(block as i64);
        s.responses += 1; // one comparison per sample
    }
    print_result(spec, "local", &s);
    Ok(())
}

fn run_command(spec: &RunSpec) -> Result<(), Error> {
    if spec.suite == "limit" {
        return run_memcpy(spec);
    }
    match spec.role.as_str() {
        "server" => {
            check_fd(spec.in_fd, "--in-fd")?;
            check_fd(spec.out_fd, "--out-fd")?;
            run_server(spec)
        }
        "client" => {
            check_fd(spec.in_fd, "--in-fd")?;
            check_fd(spec.out_fd, "--out-fd")?;
            let mut cell = make_cell(spec)?;
            let s = run_client(spec, cell.as_mut(), spec.in_fd, spec.out_fd)?;
            print_result(spec, "client", &s);
            Ok(())
        }
        "" => run_with_server_thread(spec),
        _ => {
            let mut cell = make_cell(spec)?;
            let s = if spec.mode == "object" {
                time_rpc(spec, |r, n, t| cell.object(r, n, t))?
            } else {
                time_rpc(spec, |r, n, t| cell.bytes(r, n, t))?
            };
            print_result(spec, "local", &s);
            Ok(())
        }
    }
}

fn info() {
    let mut versions = Json::default();
    versions
        .str("compiler", COMPILER)
        .str("capnp", registry::CAPNP_VERSION)
        .str("prost", registry::PROST_VERSION);
    let mut build = Json::default();
    build
        .str("profile", env!("WB_PROFILE"))
        .str("opt-level", env!("WB_OPT_LEVEL"))
        .str("lto", "fat")
        .str("codegen-units", "1");
    let mut j = Json::default();
    j.num("protocol", u64::from(PROTOCOL))
        .str("lang", "rust")
        .str("toolchain", TOOLCHAIN)
        .str("driver", "wirebench-rust")
        .raw("suites", "[\"rpc\", \"limit\"]")
        .raw("versions", &versions.text())
        .raw("build", &build.text());
    print_line(&j.text());
}

fn list() {
    let mut out = std::io::stdout().lock();
    for line in registry::list_cells() {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}

/// `golden write DIR` and `golden check DIR`: one JSON line per file (src/golden.rs).
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
    if sub == "write" {
        golden::golden_write(dir, &mut |f| {
            let mut j = Json::default();
            j.str("file", &f.name)
                .num("messages", f.messages)
                .num("bytes", f.bytes);
            print_line(&j.text());
        })?;
    } else {
        golden::golden_check(dir, &mut |f| {
            let mut j = Json::default();
            j.str("file", &f.name);
            if f.skipped {
                j.boolean("skipped", true);
            } else {
                j.num("messages", f.messages).boolean("ok", true);
            }
            print_line(&j.text());
        })?;
    }
    Ok(())
}

const USAGE: &str =
    "usage: wirebench-rust info | list | run --case C --lib L [cell parameters] --iters N
         [--samples S] [--warmup W] [--suite S] [--role local|client|server]
         [--in-fd R --out-fd W]
       wirebench-rust golden write|check DIR
  rpc parameters: --mode object|bytes|pipe|pipe-async --compression none|packed
                  --reuse reuse|no-reuse
  limit parameters: --block 16KiB|1MiB|64MiB
";

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
        "run" => {
            let spec = validate(&parse_run_flags(&argv[1..])?)?;
            run_command(&spec)
        }
        "golden" => golden_command(argv),
        other => Err(usage(format!("unknown command '{other}'"))),
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match real_main(&argv) {
        Ok(()) => {}
        Err(Error::Usage(m)) => {
            eprint!("wirebench-rust: usage error: {m}\n{USAGE}");
            std::process::exit(2);
        }
        Err(Error::Fail(m)) => {
            eprintln!("wirebench-rust: error: {m}");
            std::process::exit(1);
        }
    }
}
