//! Golden messages (docs/protocol.md, `golden write` and `golden check`), as in the C++
//! driver (drivers/cpp/src/golden.cpp): the pipe client and server of each cell, run
//! against files instead of pipes, with the same `send`, `receive` and `serve`. `write`
//! sends the first requests of a fresh generator into DIR/X.requests (reuse builders, so
//! the bytes are deterministic: single-segment capnp messages) and serves X.requests into
//! X.responses. `check` serves X.requests (whoever wrote it) and receives X.responses, and
//! compares every answer with the expectation of the same request from a fresh generator.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use super::{serve, Cell, Library, Term, SUITE};
use crate::error::{Failure, Res};
use crate::registry::{GoldenFile, Report};
use crate::rng::Rng;

/// Requests (and so responses) per golden file: the first ones from a fresh generator.
pub const GOLDEN_MESSAGES: u64 = 5;

const REQUESTS: &str = ".requests";
const RESPONSES: &str = ".responses";

fn join(dir: &str, name: &str) -> String {
    Path::new(dir).join(name).to_string_lossy().into_owned()
}

fn file_size(path: &str) -> Res<u64> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Failure(format!("{path}: {e}")))
}

fn open(path: &str) -> Res<File> {
    File::open(path).map_err(|e| Failure(format!("{path}: cannot open: {e}")))
}

fn create(path: &str) -> Res<File> {
    File::create(path).map_err(|e| Failure(format!("{path}: cannot open: {e}")))
}

/// The file name of `path`, for reports.
fn name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The compressions of a library, from the registry.
fn compressions(lib: &super::Lib<super::Factory>) -> &'static [&'static str] {
    let p = SUITE
        .params
        .iter()
        .find(|p| p.name == "compression")
        .expect("rpc has a compression parameter");
    lib.values(p)
}

/// The cell whose wire format a golden file of (case, lib, compression) is in, or None if
/// this driver does not support it. Builders are the reuse variant: deterministic bytes.
fn golden_cell(case: &str, lib: &str, compression: &str) -> Option<Box<dyn Cell>> {
    if !SUITE.cases.contains(&case) {
        return None;
    }
    let l = SUITE.lib(lib)?;
    if !compressions(l).contains(&compression) {
        return None;
    }
    (l.make)(case, compression, true)
}

/// A failure in `r` becomes one naming the file and the message `index`.
fn at_message<T>(path: &str, index: u64, r: Res<T>) -> Res<T> {
    r.map_err(|e| Failure(format!("{path}: message {index}: {}", e.0)))
}

/// Sends the first GOLDEN_MESSAGES requests of a fresh generator to `output`; returns
/// their expectations.
fn send_requests<L: Library>(output: &mut impl Write) -> Res<Vec<u64>> {
    let mut lib = L::default();
    let mut rng = Rng::new();
    (0..GOLDEN_MESSAGES)
        .map(|_| lib.send(&mut rng, output).map(Term::term))
        .collect()
}

/// Serves the requests of `input` into `output`; counts them in `requests` as it goes.
fn serve_stream<L: Library>(input: impl Read, output: impl Write, requests: &mut u64) -> Res<()> {
    let mut input = BufReader::with_capacity(L::READ_BUFFER, input);
    let mut output = BufWriter::with_capacity(L::WRITE_BUFFER, output);
    serve(&mut L::default(), &mut input, &mut output, requests)
}

/// Receives responses until a clean end of file, pushing each one's answer (its digest
/// term) onto `answers` as it goes.
fn receive_responses<L: Library>(input: impl Read, answers: &mut Vec<u64>) -> Res<()> {
    let mut input = BufReader::with_capacity(L::READ_BUFFER, input);
    let mut lib = L::default();
    while let Some(answer) = lib.receive(&mut input)? {
        answers.push(answer.term());
    }
    Ok(())
}

/// Every case's answer is signed 64-bit.
fn answer_text(term: u64) -> String {
    (term as i64).to_string()
}

fn expect_answers(path: &str, whose: &str, answers: &[u64], expectations: &[u64]) -> Res<()> {
    for (i, (a, e)) in answers.iter().zip(expectations).enumerate() {
        if a != e {
            return Err(Failure(format!(
                "{path}: message {i}: {whose} answer is {}, but request {i} of a fresh \
                 generator expects {}",
                answer_text(*a),
                answer_text(*e)
            )));
        }
    }
    if answers.len() != expectations.len() {
        return Err(Failure(format!(
            "{path}: {} messages, expected {}",
            answers.len(),
            expectations.len()
        )));
    }
    Ok(())
}

/// Writes `requests` and `responses` (golden write of one cell); reports each file.
pub fn write_files<L: Library>(requests: &str, responses: &str, report: Report<'_>) -> Res<()> {
    let written = create(requests)
        .and_then(|file| {
            let mut out = BufWriter::with_capacity(L::WRITE_BUFFER, &file);
            let expectations = send_requests::<L>(&mut out)?;
            out.flush()?;
            drop(out);
            file.sync_all()?;
            Ok(expectations.len() as u64)
        })
        .map_err(|e| Failure(format!("{requests}: {}", e.0)))?;
    report(&GoldenFile {
        name: name(requests),
        messages: written,
        bytes: file_size(requests)?,
        skipped: false,
        libs: Vec::new(),
        same_bytes: None,
    });

    let mut served = 0;
    {
        let input = open(requests)?;
        let out = create(responses)?;
        let r = serve_stream::<L>(input, &out, &mut served)
            .and_then(|()| out.sync_all().map_err(Failure::from));
        at_message(requests, served, r)?;
    }
    if served != GOLDEN_MESSAGES {
        return Err(Failure(format!(
            "{requests}: the server answered {served} requests, expected {GOLDEN_MESSAGES}"
        )));
    }
    report(&GoldenFile {
        name: name(responses),
        messages: served,
        bytes: file_size(responses)?,
        skipped: false,
        libs: Vec::new(),
        same_bytes: None,
    });
    Ok(())
}

/// Checks `requests` with the server (the answers of its responses must be the
/// expectations) and `responses` with the client (golden check of one cell); reports each
/// file.
pub fn check_files<L: Library>(requests: &str, responses: &str, report: Report<'_>) -> Res<()> {
    let expectations = send_requests::<L>(&mut std::io::sink())?;

    let mut computed: Vec<u8> = Vec::new();
    let mut served = 0;
    let r = serve_stream::<L>(open(requests)?, &mut computed, &mut served);
    at_message(requests, served, r)?;
    let mut answers = Vec::new();
    let read = receive_responses::<L>(computed.as_slice(), &mut answers).map_err(|e| {
        Failure(format!(
            "the server's own response does not read back: {}",
            e.0
        ))
    });
    at_message(requests, answers.len() as u64, read)?;
    expect_answers(requests, "the server's", &answers, &expectations)?;
    report(&GoldenFile {
        name: name(requests),
        messages: expectations.len() as u64,
        bytes: file_size(requests)?,
        skipped: false,
        libs: Vec::new(),
        same_bytes: None,
    });

    let mut answers = Vec::new();
    let read = receive_responses::<L>(open(responses)?, &mut answers);
    at_message(responses, answers.len() as u64, read)?;
    expect_answers(responses, "the response's", &answers, &expectations)?;
    report(&GoldenFile {
        name: name(responses),
        messages: expectations.len() as u64,
        bytes: file_size(responses)?,
        skipped: false,
        libs: Vec::new(),
        same_bytes: None,
    });
    Ok(())
}

/// Writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc case, library
/// and compression this driver supports, creating DIR if needed; reports each file as it
/// is written.
pub fn write(dir: &str, report: Report<'_>) -> Res<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("{dir}: cannot create directory: {e}")))?;
    for case in SUITE.cases {
        for lib in SUITE.libs {
            for &compression in compressions(lib) {
                let Some(cell) = golden_cell(case, lib.name, compression) else {
                    continue;
                };
                let stem = format!("{case}.{}.{compression}", lib.name);
                cell.golden_write(
                    &join(dir, &format!("{stem}{REQUESTS}")),
                    &join(dir, &format!("{stem}{RESPONSES}")),
                    report,
                )?;
            }
        }
    }
    Ok(())
}

/// Checks every DIR/<case>.<lib>.<compression>.requests file and its .responses file (in
/// name order), reporting each file checked or skipped (unsupported case, lib or
/// compression). Fails naming the file and the message at the first corrupt message,
/// wrong answer or wrong message count, or if no file could be checked.
pub fn check(dir: &str, report: Report<'_>) -> Res<()> {
    let cannot_read = |e: std::io::Error| Failure(format!("{dir}: cannot read directory: {e}"));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot_read)? {
        let name = entry.map_err(cannot_read)?.file_name();
        let name = name.to_string_lossy().into_owned();
        if name.ends_with(REQUESTS) {
            names.push(name);
        }
    }
    names.sort();

    let mut checked = 0u64;
    for name in names {
        let stem = &name[..name.len() - REQUESTS.len()];
        let responses_name = format!("{stem}{RESPONSES}");
        let requests = join(dir, &name);
        let responses = join(dir, &responses_name);
        let parts: Vec<&str> = stem.split('.').collect();
        let cell = match parts.as_slice() {
            [case, lib, compression] => golden_cell(case, lib, compression),
            _ => None,
        };
        let Some(cell) = cell else {
            report(&GoldenFile {
                name: name.clone(),
                messages: 0,
                bytes: 0,
                skipped: true,
                libs: Vec::new(),
                same_bytes: None,
            });
            if Path::new(&responses).exists() {
                report(&GoldenFile {
                    name: responses_name,
                    messages: 0,
                    bytes: 0,
                    skipped: true,
                    libs: Vec::new(),
                    same_bytes: None,
                });
            }
            continue;
        };
        cell.golden_check(&requests, &responses, report)?;
        checked += 2;
    }
    if checked == 0 {
        return Err(Failure(format!(
            "{dir}: no golden files that this driver supports \
             (<case>.<lib>.<compression>.requests and .responses)"
        )));
    }
    Ok(())
}
