//! Golden messages (docs/protocol.md, `golden write` and `golden check`), as in the C++
//! driver (drivers/cpp/src/golden.cpp): the pipe client and server of each cell, run
//! against files instead of pipes. `write` runs the client's writing side into
//! DIR/X.requests (a fresh generator, reuse builders, so the bytes are deterministic:
//! single-segment capnp messages) and the server on X.requests into X.responses. `check`
//! runs the server on X.requests (whoever wrote it) and the client's reading side on
//! X.responses, and compares every answer with the expectation of the same request from a
//! fresh generator.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::cases::{Failure, Res, RpcCell, ServerStats};
use crate::registry;
use crate::rng::Rng;

/// Requests (and so responses) per golden file: the first ones from a fresh generator.
pub const GOLDEN_MESSAGES: u64 = 5;

const REQUESTS: &str = ".requests";
const RESPONSES: &str = ".responses";

/// One file written, checked or skipped.
pub struct GoldenFile {
    /// The file name inside the directory.
    pub name: String,
    pub messages: u64,
    pub bytes: u64,
    pub skipped: bool,
}

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

/// The cell whose wire format a golden file of (case, lib, compression) is in, or None if
/// this driver does not support it. Builders are the reuse variant: deterministic bytes.
fn golden_cell(case: &str, lib: &str, compression: &str) -> Option<Box<dyn RpcCell>> {
    if !registry::RPC_CASES.contains(&case) {
        return None;
    }
    let l = registry::find_rpc_lib(lib)?;
    if !l.compressions.contains(&compression) {
        return None;
    }
    (l.make)(case, compression, true)
}

/// A failure in `r` becomes one naming the file and the message `index`.
fn at_message<T>(path: &str, index: u64, r: Res<T>) -> Res<T> {
    r.map_err(|e| Failure(format!("{path}: message {index}: {}", e.0)))
}

/// The expectations of the first GOLDEN_MESSAGES requests of a fresh generator.
fn fresh_expectations(cell: &mut dyn RpcCell) -> Res<Vec<u64>> {
    cell.write_requests(&mut Rng::new(), GOLDEN_MESSAGES, &mut std::io::sink())
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

/// The server side: decodes the requests, answers them, and the answers (read back from
/// the responses it wrote) must be the expectations.
fn check_requests(cell: &mut dyn RpcCell, path: &str, expectations: &[u64]) -> Res<()> {
    let mut input = open(path)?;
    let mut computed: Vec<u8> = Vec::new();
    let mut stats = ServerStats::default();
    let served = cell.serve_stream(&mut input, &mut computed, &mut stats);
    at_message(path, stats.requests, served)?;
    let mut answers = Vec::new();
    let read = cell.read_responses(&mut computed.as_slice(), &mut answers);
    let read = read.map_err(|e| {
        Failure(format!(
            "the server's own response does not read back: {}",
            e.0
        ))
    });
    at_message(path, answers.len() as u64, read)?;
    expect_answers(path, "the server's", &answers, expectations)
}

/// The client side: decodes the responses, whose answers must be the expectations.
fn check_responses(cell: &mut dyn RpcCell, path: &str, expectations: &[u64]) -> Res<()> {
    let mut input = open(path)?;
    let mut answers = Vec::new();
    let read = cell.read_responses(&mut input, &mut answers);
    at_message(path, answers.len() as u64, read)?;
    expect_answers(path, "the response's", &answers, expectations)
}

/// Writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc case, library
/// and compression this driver supports, creating DIR if needed; reports each file as it
/// is written.
pub fn golden_write(dir: &str, report: &mut dyn FnMut(&GoldenFile)) -> Res<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("{dir}: cannot create directory: {e}")))?;
    for case in registry::RPC_CASES {
        for lib in &registry::RPC_LIBS {
            for &compression in lib.compressions {
                let Some(mut cell) = golden_cell(case, lib.name, compression) else {
                    continue;
                };
                let stem = format!("{case}.{}.{compression}", lib.name);
                let requests = join(dir, &format!("{stem}{REQUESTS}"));
                let responses = join(dir, &format!("{stem}{RESPONSES}"));

                let written = {
                    let mut out = create(&requests)?;
                    let written = cell
                        .write_requests(&mut Rng::new(), GOLDEN_MESSAGES, &mut out)
                        .and_then(|e| out.sync_all().map(|()| e).map_err(Failure::from))
                        .map_err(|e| Failure(format!("{requests}: {}", e.0)))?;
                    written.len() as u64
                };
                report(&GoldenFile {
                    name: format!("{stem}{REQUESTS}"),
                    messages: written,
                    bytes: file_size(&requests)?,
                    skipped: false,
                });

                let mut stats = ServerStats::default();
                {
                    let mut input = open(&requests)?;
                    let mut out = create(&responses)?;
                    let served = cell
                        .serve_stream(&mut input, &mut out, &mut stats)
                        .and_then(|()| out.flush().map_err(Failure::from))
                        .and_then(|()| out.sync_all().map_err(Failure::from));
                    at_message(&requests, stats.requests, served)?;
                }
                if stats.requests != GOLDEN_MESSAGES {
                    return Err(Failure(format!(
                        "{requests}: the server answered {} requests, expected {GOLDEN_MESSAGES}",
                        stats.requests
                    )));
                }
                report(&GoldenFile {
                    name: format!("{stem}{RESPONSES}"),
                    messages: stats.requests,
                    bytes: file_size(&responses)?,
                    skipped: false,
                });
            }
        }
    }
    Ok(())
}

/// Checks every DIR/<case>.<lib>.<compression>.requests file and its .responses file (in
/// name order), reporting each file checked or skipped (unsupported case, lib or
/// compression). Fails naming the file and the message at the first corrupt message,
/// wrong answer or wrong message count, or if no file could be checked.
pub fn golden_check(dir: &str, report: &mut dyn FnMut(&GoldenFile)) -> Res<()> {
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
        let Some(mut cell) = cell else {
            report(&GoldenFile {
                name: name.clone(),
                messages: 0,
                bytes: 0,
                skipped: true,
            });
            if Path::new(&responses).exists() {
                report(&GoldenFile {
                    name: responses_name,
                    messages: 0,
                    bytes: 0,
                    skipped: true,
                });
            }
            continue;
        };
        let expectations = fresh_expectations(cell.as_mut())?;
        check_requests(cell.as_mut(), &requests, &expectations)?;
        report(&GoldenFile {
            name: name.clone(),
            messages: expectations.len() as u64,
            bytes: file_size(&requests)?,
            skipped: false,
        });
        check_responses(cell.as_mut(), &responses, &expectations)?;
        report(&GoldenFile {
            name: responses_name,
            messages: expectations.len() as u64,
            bytes: file_size(&responses)?,
            skipped: false,
        });
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
