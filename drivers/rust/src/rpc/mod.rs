//! Suite `rpc` (docs/protocol.md): the Cap'n Proto benchmark cases, request and response
//! with computation at both ends.
//!
//! - mod.rs (this file): the suite in the registry (cases, parameters, the rule that object
//!   mode has no compression, roles) with its library registry; `Library`, the narrow
//!   interface a library implements for one case; and everything written once on top of
//!   it: the mode loops (object, bytes, pipe, pipe-async), serve, the client's samples and
//!   the roles (local, client, server, a pipe cell with a server thread of its own).
//! - golden.rs: `golden write|check DIR` on the same send, receive and serve.
//! - cases.rs: the library-independent rules of the cases.
//! - capnp.rs, protobuf.rs, null.rs: one file per library, the library's work only.
//!
//! A pipe cell without --role runs its own server: not a forked or spawned process but a
//! second thread of this process, joined to the client by two OS pipes (std::io::pipe),
//! running exactly the code of `--role server`. (std cannot clear FD_CLOEXEC on a child's
//! fds without the libc crate, and a thread keeps the dependency list minimal.)

pub mod capnp;
pub mod cases;
mod golden;
pub mod null;
pub mod protobuf;
#[cfg(test)]
mod tests;

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::marker::PhantomData;
use std::sync::mpsc;

use crate::error::{usage, Error, Failure, Res};
use crate::io::{Counted, Fd};
use crate::json::Json;
use crate::registry::{Golden, Lib, Listed, Pair, Param, Report, Role, Run, Suite};
use crate::result::{self, Metric};
use crate::rng::Rng;
use crate::timing::{self, Sampler};

// ---- the suite and its library registry --------------------------------------------------

/// A library's factory: its cell of a case with a compression and reuse mode, or None if
/// it has no such case or compression.
pub type Factory = fn(case: &str, compression: &str, reuse: bool) -> Option<Box<dyn Cell>>;

impl Listed for Factory {}

/// The rpc suite in the registry (src/registry.rs). `libs` is its library registry, in the
/// order of `list`: adding a library is one file and one entry there.
pub static SUITE: Suite<Factory> = Suite {
    name: "rpc",
    cases: &["carsales", "catrank", "eval"],
    params: &[
        Param {
            name: "mode",
            values: &["object", "bytes", "pipe", "pipe-async"],
            cases: &[],
        },
        Param {
            name: "compression",
            values: &["none", "packed"],
            cases: &[],
        },
        Param {
            name: "reuse",
            values: &["reuse", "no-reuse"],
            cases: &[],
        },
    ],
    libs: &[
        Lib {
            name: "capnp",
            supports: &[("compression", &["none", "packed"])],
            crates: &["capnp"],
            make: capnp::make,
        },
        Lib {
            name: "protobuf",
            supports: &[("compression", &["none"])],
            crates: &["prost"],
            make: protobuf::make,
        },
        Lib {
            name: "null",
            supports: &[("compression", &["none"])],
            crates: &[],
            make: null::make,
        },
    ],
    fixtures: &[],
    refuse,
    prepare,
    run,
    golden: Some(Golden {
        write: golden::write,
        check: golden::check,
    }),
    command: None,
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Object,
    Bytes,
    Pipe,
    PipeAsync,
}

impl Mode {
    fn of(run: &Run) -> Mode {
        match run.param("mode") {
            "object" => Mode::Object,
            "bytes" => Mode::Bytes,
            "pipe" => Mode::Pipe,
            _ => Mode::PipeAsync,
        }
    }
    fn is_pipe(self) -> bool {
        matches!(self, Mode::Pipe | Mode::PipeAsync)
    }
}

fn param<'a>(params: &[(&str, &'a str)], name: &str) -> &'a str {
    params.iter().find(|(n, _)| *n == name).map_or("", |p| p.1)
}

/// Object mode serializes nothing, so it has no compression.
fn refuse(_case: &str, params: &[Pair]) -> Result<(), String> {
    let compression = param(params, "compression");
    if param(params, "mode") == "object" && compression != "none" {
        return Err(format!(
            "compression {compression} does not apply to mode object"
        ));
    }
    Ok(())
}

/// A pipe cell runs as client, as server, or (no --role) with a server of its own; the
/// other modes are local.
fn prepare(run: &mut Run) -> Result<(), Error> {
    let mode = run.param("mode");
    let pipe = Mode::of(run).is_pipe();
    match run.role {
        None if !pipe => run.role = Some(Role::Local),
        Some(Role::Local) if pipe => {
            return Err(usage(format!(
                "--role local is not possible with --mode {mode} (use client or server, or no \
                 --role to run a server of its own)"
            )))
        }
        Some(role @ (Role::Client | Role::Server)) if !pipe => {
            return Err(usage(format!(
                "--role {} needs a pipe mode (pipe or pipe-async)",
                role.name()
            )))
        }
        _ => {}
    }
    Ok(())
}

fn run(run: &Run, make: &Factory) -> Result<(), Error> {
    let reuse = run.param("reuse") == "reuse";
    let cell = make(run.case, run.param("compression"), reuse).ok_or_else(|| {
        usage(format!(
            "combination not supported: {} {}",
            run.lib, run.case
        ))
    })?;
    cell.run(run)
}

// ---- the library interface -----------------------------------------------------------------

/// The digest term of a case's answers (docs/protocol.md, check digests): u64 for carsales,
/// the i64 count for catrank, the sign-extended i32 for eval.
pub trait Term: Copy + PartialEq + std::fmt::Display + Send + 'static {
    fn term(self) -> u64;
}
impl Term for u64 {
    fn term(self) -> u64 {
        self
    }
}
impl Term for i64 {
    fn term(self) -> u64 {
        self as u64
    }
}
impl Term for i32 {
    fn term(self) -> u64 {
        i64::from(self) as u64
    }
}

/// One library's work on one case, with its compression and reuse mode fixed in its type
/// (its factory picks the type). A value holds what the library keeps between messages
/// (builders, scratch space, buffers, message structs); the shared code makes one per role
/// it plays (local; client sender and client receiver, so that the two threads of
/// pipe-async each own theirs; server) and calls it through generics, so that every loop
/// is compiled for each library and case.
///
/// A request's expectation and a response's answer are the case's `E`; the loops compare
/// them, sum the digest and count bytes. Every error is a failed run (exit status 1).
pub trait Library: Default + Send + 'static {
    type E: Term;
    /// The capacities of the buffers the shared code puts between the library and a pipe
    /// or golden file: 0 for none (each read or write goes to the fd), else a BufReader or
    /// BufWriter of that many bytes.
    const READ_BUFFER: usize = 8 * 1024;
    const WRITE_BUFFER: usize = 8 * 1024;

    /// Mode object: a request built from `rng`, handled into a response, its answer read,
    /// nothing serialized. Returns (expectation, answer).
    fn object(&mut self, rng: &mut Rng) -> Res<(Self::E, Self::E)>;
    /// Mode bytes: the same through the library's bytes (the request serialized, parsed by
    /// the server, the response serialized and parsed by the client, packed if the cell
    /// is). Returns (expectation, answer, both messages' sizes).
    fn bytes(&mut self, rng: &mut Rng) -> Res<(Self::E, Self::E, u64)>;
    /// Builds a request from `rng` and writes it to `output` in the pipe wire format,
    /// flushed; returns its expectation.
    fn send(&mut self, rng: &mut Rng, output: &mut impl Write) -> Res<Self::E>;
    /// Reads one response from `input`; returns its answer, or None at a clean end of file
    /// before a message.
    fn receive(&mut self, input: &mut impl BufRead) -> Res<Option<Self::E>>;
    /// Reads one request from `input` and writes its response to `output`, flushed;
    /// returns false at a clean end of file before a message.
    fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> Res<bool>;
}

/// A cell of the suite: a library's work on a case, compression and reuse mode, with all
/// the shared code compiled for it. A factory returns one; a run makes one call through it.
pub trait Cell {
    /// Runs the validated cell in its role and prints its result.
    fn run(&self, run: &Run) -> Result<(), Error>;
    /// Writes the golden files (golden.rs).
    fn golden_write(&self, requests: &str, responses: &str, report: Report<'_>) -> Res<()>;
    /// Checks a pair of golden files (golden.rs).
    fn golden_check(&self, requests: &str, responses: &str, report: Report<'_>) -> Res<()>;
    /// A server of the cell, for streams in memory (the fuzz targets, src/fuzz.rs).
    fn server(&self) -> Box<dyn Server>;
    /// The digest term of each of the first `n` requests of a fresh generator in mode
    /// object or bytes, each response checked against its expectation (tests).
    #[cfg(test)]
    fn answers(&self, mode: Mode, n: u64) -> Res<Vec<u64>>;
}

/// The cell of library type `L`, for its factory.
pub fn cell<L: Library>() -> Box<dyn Cell> {
    Box::new(Of::<L>(PhantomData))
}

struct Of<L>(PhantomData<fn() -> L>);

impl<L: Library> Cell for Of<L> {
    fn run(&self, run: &Run) -> Result<(), Error> {
        run_cell::<L>(run)
    }
    fn golden_write(&self, requests: &str, responses: &str, report: Report<'_>) -> Res<()> {
        golden::write_files::<L>(requests, responses, report)
    }
    fn golden_check(&self, requests: &str, responses: &str, report: Report<'_>) -> Res<()> {
        golden::check_files::<L>(requests, responses, report)
    }
    fn server(&self) -> Box<dyn Server> {
        Box::new(ServerOf(L::default()))
    }
    #[cfg(test)]
    fn answers(&self, mode: Mode, n: u64) -> Res<Vec<u64>> {
        let mut lib = L::default();
        let mut rng = Rng::new();
        let mut answers = Vec::new();
        for _ in 0..n {
            let mut t = Tally::default();
            match mode {
                Mode::Object => object_loop(&mut lib, &mut rng, 1, &mut t)?,
                _ => bytes_loop(&mut lib, &mut rng, 1, &mut t)?,
            }
            assert_eq!(t.responses, 1);
            answers.push(t.check);
        }
        Ok(answers)
    }
}

// ---- the loops, written once -----------------------------------------------------------------

/// What the client side accumulates over a run of iterations.
#[derive(Default, Debug, Clone)]
pub struct Tally {
    pub bytes: u64,
    /// Wrapping sum of the answers (docs/protocol.md, check digests).
    pub check: u64,
    pub responses: u64,
}

impl Tally {
    /// Checks a response's answer against its request's expectation and counts it.
    #[inline(always)]
    fn verify<E: Term>(&mut self, expected: E, answer: E) -> Res<()> {
        if answer != expected {
            return Err(Failure(format!(
                "incorrect response: expected {expected}, got {answer}"
            )));
        }
        self.check = self.check.wrapping_add(expected.term());
        self.responses += 1;
        Ok(())
    }
}

fn object_loop<L: Library>(lib: &mut L, rng: &mut Rng, iters: u64, t: &mut Tally) -> Res<()> {
    for _ in 0..iters {
        let (expected, answer) = lib.object(rng)?;
        t.verify(expected, answer)?;
    }
    Ok(())
}

fn bytes_loop<L: Library>(lib: &mut L, rng: &mut Rng, iters: u64, t: &mut Tally) -> Res<()> {
    for _ in 0..iters {
        let (expected, answer, moved) = lib.bytes(rng)?;
        t.bytes += moved;
        t.verify(expected, answer)?;
    }
    Ok(())
}

/// One side of a pipe: its fds, counted (every byte written plus every byte read), with
/// the library's buffers. The client keeps it between samples, so that the warm-up and
/// the samples share one connection.
struct Conn {
    input: BufReader<Counted<Fd>>,
    output: BufWriter<Counted<Fd>>,
}

impl Conn {
    fn new<L: Library>(input: Fd, output: Fd) -> Self {
        Conn {
            input: BufReader::with_capacity(L::READ_BUFFER, Counted::new(input)),
            output: BufWriter::with_capacity(L::WRITE_BUFFER, Counted::new(output)),
        }
    }
    fn count(&self) -> u64 {
        self.input.get_ref().count + self.output.get_ref().count
    }
}

/// Reads a response and checks it against its expectation.
#[inline(always)]
fn receive<L: Library>(
    rx: &mut L,
    input: &mut impl BufRead,
    expected: L::E,
    t: &mut Tally,
) -> Res<()> {
    let answer = rx
        .receive(input)?
        .ok_or_else(|| Failure::new("unexpected end of file before a response"))?;
    t.verify(expected, answer)
}

/// Mode pipe: send one request, then receive and check its response.
fn pipe_loop<L: Library>(
    tx: &mut L,
    rx: &mut L,
    conn: &mut Conn,
    rng: &mut Rng,
    iters: u64,
    t: &mut Tally,
) -> Res<()> {
    let before = conn.count();
    for _ in 0..iters {
        let expected = tx.send(rng, &mut conn.output)?;
        receive(rx, &mut conn.input, expected, t)?;
    }
    t.bytes += conn.count() - before;
    Ok(())
}

/// Mode pipe-async: this thread sends every request while a second one receives and
/// checks the responses, in order; the expectations cross over a channel. A failure on
/// either side cannot be unwound safely (the other side may be blocked on the pipe), so
/// it ends the process with exit status 1 after saying why (as the C++ driver does).
fn pipe_async_loop<L: Library>(
    tx: &mut L,
    rx: &mut L,
    conn: &mut Conn,
    rng: &mut Rng,
    iters: u64,
    t: &mut Tally,
) -> Res<()> {
    let before = conn.count();
    let Conn { input, output } = &mut *conn;
    let (to_receiver, expectations) = mpsc::channel::<L::E>();
    let tally = &mut *t;
    std::thread::scope(|scope| {
        let receiver = scope.spawn(move || {
            for _ in 0..iters {
                let got = expectations
                    .recv()
                    .map_err(|_| Failure::new("pipe-async: the sender is gone"))
                    .and_then(|expected| receive(rx, input, expected, tally));
                if let Err(e) = got {
                    eprintln!("wirebench-rust: pipe-async receiver: {}", e.0);
                    std::process::exit(1);
                }
            }
        });
        for _ in 0..iters {
            let sent = tx.send(rng, output).and_then(|expected| {
                to_receiver
                    .send(expected)
                    .map_err(|_| Failure::new("pipe-async: the receiver is gone"))
            });
            if let Err(e) = sent {
                eprintln!("wirebench-rust: pipe-async sender: {}", e.0);
                std::process::exit(1);
            }
        }
        if receiver.join().is_err() {
            eprintln!("wirebench-rust: pipe-async receiver panicked");
            std::process::exit(1);
        }
    });
    t.bytes += conn.count() - before;
    Ok(())
}

/// The server: answers requests until a clean end of file at a message boundary, counting
/// them in `requests` as it goes (so that a failure can name the message).
fn serve<L: Library>(
    lib: &mut L,
    input: &mut impl BufRead,
    output: &mut impl Write,
    requests: &mut u64,
) -> Res<()> {
    while lib.serve(input, output)? {
        *requests += 1;
    }
    output.flush()?;
    Ok(())
}

/// A cell's server value, kept between streams: `serve` (the code of `--role server`) on a
/// stream in memory, through the library's read buffer, the responses to a sink.
pub trait Server: Send {
    /// Serves every request of `input`; returns how many.
    fn serve(&mut self, input: &[u8]) -> Res<u64>;
}

struct ServerOf<L>(L);

impl<L: Library> Server for ServerOf<L> {
    fn serve(&mut self, input: &[u8]) -> Res<u64> {
        let mut input = BufReader::with_capacity(L::READ_BUFFER, input);
        let mut output = BufWriter::with_capacity(L::WRITE_BUFFER, std::io::sink());
        let mut requests = 0;
        serve(&mut self.0, &mut input, &mut output, &mut requests)?;
        Ok(requests)
    }
}

// ---- samples and roles -------------------------------------------------------------------------

/// The client's side of the timing loop: `step` runs iterations of the cell's mode with the
/// generator and the tally of the sample under way.
struct Client<F> {
    step: F,
    rng: Rng,
    tally: Tally,
    bytes: Vec<u64>,
    check: Vec<u64>,
    responses: u64,
}

impl<F: FnMut(&mut Rng, u64, &mut Tally) -> Res<()>> Sampler for Client<F> {
    /// The generator is reset at the start of the warm-up and of every sample.
    fn reset(&mut self) {
        self.tally = Tally::default();
        self.rng.reset();
    }
    fn iterate(&mut self, n: u64) -> Res<()> {
        (self.step)(&mut self.rng, n, &mut self.tally)
    }
    fn done(&mut self, sample: bool) -> Res<()> {
        self.responses += self.tally.responses;
        if sample {
            self.bytes.push(self.tally.bytes);
            self.check.push(self.tally.check);
        }
        Ok(())
    }
}

/// What a client measured.
struct Measured {
    ns: Vec<u64>,
    bytes: Vec<u64>,
    check: Vec<u64>,
    responses: u64,
}

fn measure(run: &Run, step: impl FnMut(&mut Rng, u64, &mut Tally) -> Res<()>) -> Res<Measured> {
    let mut client = Client {
        step,
        rng: Rng::new(),
        tally: Tally::default(),
        bytes: Vec::new(),
        check: Vec::new(),
        responses: 0,
    };
    let ns = timing::measure(run, &mut client)?;
    Ok(Measured {
        ns,
        bytes: client.bytes,
        check: client.check,
        responses: client.responses,
    })
}

fn print(run: &Run, role: &str, m: &Measured) {
    // Digests are printed as signed 64-bit numbers.
    let check: Vec<i64> = m.check.iter().map(|&c| c as i64).collect();
    let mut evidence = Json::default();
    evidence
        .list("check", &check)
        .num("responses_checked", m.responses);
    let metrics = [
        Metric {
            name: "time",
            unit: "ns",
            iters: run.iters,
            samples: &m.ns,
        },
        Metric {
            name: "bytes",
            unit: "B",
            iters: run.iters,
            samples: &m.bytes,
        },
    ];
    result::print_result(run, role, &metrics, &evidence);
}

/// The pipe client: its samples on `conn`, then it flushes and closes both fds (so that
/// the server sees the end of file).
fn client<L: Library>(run: &Run, mut conn: Conn) -> Res<Measured> {
    let (mut tx, mut rx) = (L::default(), L::default());
    let m = if Mode::of(run) == Mode::Pipe {
        measure(run, |r, n, t| {
            pipe_loop(&mut tx, &mut rx, &mut conn, r, n, t)
        })?
    } else {
        measure(run, |r, n, t| {
            pipe_async_loop(&mut tx, &mut rx, &mut conn, r, n, t)
        })?
    };
    conn.output.flush()?;
    drop(conn);
    Ok(m)
}

/// An fd given with --in-fd or --out-fd, which must be open.
fn given_fd(fd: i32, flag: &str, owned: bool) -> Result<Fd, Error> {
    if !std::path::Path::new(&format!("/proc/self/fd/{fd}")).exists() {
        return Err(usage(format!("{flag} {fd} is not an open fd")));
    }
    Ok(Fd::from_raw(fd, owned))
}

fn run_cell<L: Library>(run: &Run) -> Result<(), Error> {
    match run.role {
        Some(Role::Local) => {
            let mut lib = L::default();
            let m = if Mode::of(run) == Mode::Object {
                measure(run, |r, n, t| object_loop(&mut lib, r, n, t))?
            } else {
                measure(run, |r, n, t| bytes_loop(&mut lib, r, n, t))?
            };
            print(run, "local", &m);
        }
        Some(Role::Client) => {
            let input = given_fd(run.in_fd, "--in-fd", true)?;
            let output = given_fd(run.out_fd, "--out-fd", true)?;
            let m = client::<L>(run, Conn::new::<L>(input, output))?;
            print(run, "client", &m);
        }
        Some(Role::Server) => {
            // A server leaves its fds open (they may be its stdin and stdout).
            let input = given_fd(run.in_fd, "--in-fd", false)?;
            let output = given_fd(run.out_fd, "--out-fd", false)?;
            let mut conn = Conn::new::<L>(input, output);
            let mut requests = 0;
            serve(
                &mut L::default(),
                &mut conn.input,
                &mut conn.output,
                &mut requests,
            )?;
            let mut counts = Json::default();
            counts
                .num("requests", requests)
                .num("bytes_in", conn.input.get_ref().count)
                .num("bytes_out", conn.output.get_ref().count);
            result::print_server(run, &counts);
        }
        None => with_server_thread::<L>(run)?,
    }
    Ok(())
}

/// A pipe cell without --role: a server thread of this process on two pipes, the client
/// here (see the top of this file).
fn with_server_thread<L: Library>(run: &Run) -> Result<(), Error> {
    let pipe = || std::io::pipe().map_err(|e| Error::Fail(format!("pipe() failed: {e}")));
    let (to_server_r, to_server_w) = pipe()?;
    let (to_client_r, to_client_w) = pipe()?;
    let mut server_lib = L::default();
    let server = std::thread::spawn(move || {
        let mut conn = Conn::new::<L>(Fd::owned(to_server_r), Fd::owned(to_client_w));
        let mut requests = 0;
        let served = serve(
            &mut server_lib,
            &mut conn.input,
            &mut conn.output,
            &mut requests,
        );
        if let Err(e) = served {
            eprintln!("wirebench-rust: server: {}", e.0);
            std::process::exit(1);
        }
    });
    let conn = Conn::new::<L>(Fd::owned(to_client_r), Fd::owned(to_server_w));
    let m = client::<L>(run, conn)?;
    server
        .join()
        .map_err(|_| Error::Fail("the server thread panicked".into()))?;
    print(run, "local", &m);
    Ok(())
}
