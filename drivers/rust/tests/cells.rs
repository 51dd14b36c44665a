//! Runs the built driver: `info`, `list`, every listed cell briefly (protocol 2 results),
//! the server role on stdin/stdout (clean end of file, corrupt and truncated messages) and
//! usage errors.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_wirebench-rust");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run the driver")
}

/// Pulls `"key": "value"` or `"key": value` out of one JSON line (flat enough here).
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let pat = format!("\"{key}\": ");
    let start = line.find(&pat).unwrap_or_else(|| panic!("{key} in {line}")) + pat.len();
    let rest = &line[start..];
    if let Some(r) = rest.strip_prefix('"') {
        &r[..r.find('"').unwrap()]
    } else {
        let end = rest.find([',', '}']).unwrap();
        &rest[..end]
    }
}

/// The first line of a usage error's stderr: the message, without the usage text after it
/// (which names every flag and value, so any needle would be found there).
fn usage_message(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().unwrap_or("").to_string();
    assert!(
        first.starts_with("wirebench-rust: usage error: "),
        "not a usage error: {err}"
    );
    first
}

#[test]
fn info_says_protocol_2_toolchain_and_suites() {
    let out = run(&["info"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert_eq!(field(&text, "protocol"), "2");
    assert_eq!(field(&text, "lang"), "rust");
    assert_eq!(field(&text, "toolchain"), "rustc");
    assert!(
        text.contains("\"suites\": [\"rpc\", \"limit\", \"codec\", \"queue\", \"readbytes\"]"),
        "{text}"
    );
    for lib in ["serde_json", "rkyv", "flatbuffers", "bincode"] {
        assert!(text.contains(&format!("\"{lib}\": \"")), "{lib} in {text}");
    }
}

/// The totals of one metric or the digests, one per sample: the list after `key`.
fn per_sample(result: &str, key: &str) -> Vec<u64> {
    let at = result
        .find(key)
        .unwrap_or_else(|| panic!("{key} in {result}"))
        + key.len();
    let list = &result[at..at + result[at..].find(']').unwrap()];
    list.split(", ")
        .map(|v| v.parse::<i64>().unwrap() as u64)
        .collect()
}

/// Every cell of `list` runs, verifies and prints a protocol 2 result: one JSON line with
/// the driver's identity, the cell as listed, named metrics of one total per sample, one
/// check per sample, and every response checked (warm-up included). How many cells there
/// are is the registry's business: the harness holds every driver to the C++ driver's list.
#[test]
fn every_listed_cell_runs_and_prints_a_protocol_2_result() {
    let out = run(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty());
    let (iters, samples, warmup) = (3u64, 2usize, 1u64);
    for line in lines {
        let suite = field(line, "suite");
        // Queue cells need a --work-dir and counts of their own (tests/queue.rs),
        // readbytes cells an --input (tests/readbytes.rs).
        if suite == "queue" || suite == "readbytes" {
            continue;
        }
        let mut args = vec![
            "run".to_string(),
            "--suite".into(),
            suite.into(),
            "--case".into(),
            field(line, "case").into(),
            "--lib".into(),
            field(line, "lib").into(),
        ];
        let params_at = line.find("\"params\": {").unwrap() + "\"params\": {".len();
        let params = &line[params_at..line.len() - 2];
        for kv in params.split(", ") {
            let (k, v) = kv.split_once(": ").unwrap();
            args.push(format!("--{}", k.trim_matches('"')));
            args.push(v.trim_matches('"').into());
        }
        args.extend([
            "--iters".to_string(),
            iters.to_string(),
            "--samples".into(),
            samples.to_string(),
            "--warmup".into(),
            warmup.to_string(),
        ]);
        let out = Command::new(BIN).args(&args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Vec<&str> = stdout.lines().collect();
        assert_eq!(result.len(), 1, "{args:?}: {stdout}");
        let r = result[0];
        assert_eq!(field(r, "protocol"), "2", "{r}");
        assert_eq!(field(r, "lang"), "rust");
        assert_eq!(field(r, "toolchain"), "rustc");
        assert_eq!(field(r, "driver"), "wirebench-rust");
        assert_eq!(field(r, "verified"), "true", "{args:?}");
        assert_eq!(field(r, "role"), "local");
        assert_eq!(field(r, "warmup"), warmup.to_string());
        assert!(r.contains(&format!("\"params\": {{{params}}}")), "{r}");
        assert!(!r.contains("samples_ns"), "a protocol 1 key in {r}");
        if suite == "codec" {
            check_codec(line, r, iters, samples);
            continue;
        }
        let time = per_sample(
            r,
            "\"time\": {\"unit\": \"ns\", \"iters\": 3, \"samples\": [",
        );
        let bytes = per_sample(
            r,
            "\"bytes\": {\"unit\": \"B\", \"iters\": 3, \"samples\": [",
        );
        let check = per_sample(r, "\"check\": [");
        assert_eq!(time.len(), samples, "{r}");
        assert_eq!(bytes.len(), samples, "{r}");
        assert_eq!(check.len(), samples, "{r}");
        // The generator is reset before every sample: every sample does the same work.
        assert!(check.iter().all(|c| *c == check[0]), "{r}");
        assert!(bytes.iter().all(|b| *b == bytes[0]), "{r}");
        if suite == "rpc" {
            let checked = warmup + iters * samples as u64;
            assert_eq!(field(r, "responses_checked"), checked.to_string(), "{r}");
            assert_eq!(bytes[0] == 0, field(line, "mode") == "object", "{r}");
        } else {
            let block: u64 = match field(line, "block") {
                "16KiB" => 16 << 10,
                "1MiB" => 1 << 20,
                "64MiB" => 64 << 20,
                b => panic!("block {b}"),
            };
            assert_eq!(check[0], block, "{r}");
            assert_eq!(bytes[0], block * iters, "{r}");
            assert_eq!(field(r, "responses_checked"), samples.to_string(), "{r}");
        }
    }
}

/// A codec result: every operation of a library's first cell (only those its one
/// differing parameter governs otherwise), one time per sample, digests per operation
/// (serialize: iters x size; deserialize and access: iters x the case's fold), size and
/// allocation scalars.
fn check_codec(line: &str, r: &str, iters: u64, samples: usize) {
    let fold: u64 = match field(line, "case") {
        "log" => 25469139935656,
        _ => 31369852023422929,
    };
    let size: u64 = field(r, "value").parse().unwrap();
    assert!(r.contains("\"size\": {\"unit\": \"B\", \"value\": "), "{r}");
    let mut measured = 0;
    for op in ["populate", "serialize", "deserialize", "access"] {
        let metric = format!("\"{op}\": {{\"unit\": \"ns\", \"iters\": {iters}, \"samples\": [");
        if !r.contains(&metric) {
            continue;
        }
        measured += 1;
        assert_eq!(per_sample(r, &metric).len(), samples, "{r}");
        assert!(
            r.contains(&format!("\"{op}_allocs\": {{\"unit\": \"allocs\"")),
            "{r}"
        );
        assert!(
            r.contains(&format!("\"{op}_alloc_bytes\": {{\"unit\": \"B\"")),
            "{r}"
        );
        if op == "populate" {
            continue;
        }
        let want = if op == "serialize" {
            iters * size
        } else {
            iters.wrapping_mul(fold)
        };
        let digests = per_sample(r, &format!("\"{op}\": ["));
        assert_eq!(digests, vec![want; samples], "{op} in {r}");
    }
    assert!(measured >= 1, "{r}");
    assert!(r.contains("\"check\": {"), "{r}");
}

#[test]
fn a_codec_cell_writes_its_encoding_to_the_out_dir() {
    let dir = std::env::temp_dir().join(format!("wirebench-rust-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&[
        "run",
        "--suite",
        "codec",
        "--case",
        "log",
        "--lib",
        "serde_json",
        "--buffer",
        "reused",
        "--strings",
        "owned",
        "--validation",
        "validated",
        "--packing",
        "unpacked",
        "--iters",
        "2",
        "--out-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(dir.join("log.serde_json")).unwrap();
    let canonical = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/codec/log.json"),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(written, canonical);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(field(&text, "value"), canonical.len().to_string());
}

/// Runs a server on stdin/stdout with `input` as the whole request stream.
fn serve(lib: &str, case: &str, compression: &str, input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args([
            "run",
            "--suite",
            "rpc",
            "--case",
            case,
            "--lib",
            lib,
            "--mode",
            "pipe",
            "--compression",
            compression,
            "--reuse",
            "reuse",
            "--role",
            "server",
            "--in-fd",
            "0",
            "--out-fd",
            "1",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn server_stops_cleanly_at_end_of_file() {
    for (lib, compression) in [
        ("capnp", "none"),
        ("capnp", "packed"),
        ("protobuf", "none"),
        ("null", "none"),
    ] {
        let out = serve(lib, "eval", compression, b"");
        assert!(out.status.success(), "{lib} {compression}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(field(&text, "role"), "server");
        assert_eq!(field(&text, "requests"), "0");
    }
}

#[test]
fn corrupt_or_truncated_message_to_server_exits_1() {
    let cases: [(&str, &str, &[u8]); 7] = [
        // capnp: a segment table promising 16 words, then 3 bytes.
        ("capnp", "none", &[0, 0, 0, 0, 16, 0, 0, 0, 1, 2, 3]),
        // capnp: half a segment table.
        ("capnp", "none", &[0, 0, 0]),
        ("capnp", "packed", &[0x11, 0, 0x04, 0xff]),
        // protobuf: a size of 100 bytes, then 5.
        ("protobuf", "none", &[100, 1, 2, 3, 4, 5]),
        // protobuf: garbage that is not an Expression (wire type 7).
        ("protobuf", "none", &[2, 0x0f, 0x00]),
        // null: a size of 10 bytes, then 3.
        ("null", "none", &[10, 0, 0, 0, 1, 2, 3]),
        // null: an operation byte out of range.
        ("null", "none", &[10, 0, 0, 0, 9, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
    ];
    for (lib, compression, input) in cases {
        let out = serve(lib, "eval", compression, input);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{lib} {compression} {input:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("wirebench-rust: error: "), "{err}");
    }
}

/// A good rpc run with these flags replaced, left out (value None) or added.
fn good_with(changes: &[(&str, Option<&str>)]) -> Vec<String> {
    const GOOD: [(&str, &str); 8] = [
        ("--suite", "rpc"),
        ("--case", "eval"),
        ("--lib", "capnp"),
        ("--mode", "bytes"),
        ("--compression", "none"),
        ("--reuse", "reuse"),
        ("--iters", "1"),
        ("--samples", "1"),
    ];
    let mut args = vec!["run".to_string()];
    for (flag, value) in GOOD {
        match changes.iter().find(|(f, _)| *f == flag) {
            None => args.extend([flag.to_string(), value.to_string()]),
            Some((_, Some(v))) => args.extend([flag.to_string(), v.to_string()]),
            Some((_, None)) => {}
        }
    }
    for (flag, value) in changes {
        if !GOOD.iter().any(|(f, _)| f == flag) {
            args.push(flag.to_string());
            args.extend(value.map(str::to_string));
        }
    }
    args
}

/// The usage errors below differ from this run by what they name.
#[test]
fn the_good_run_of_the_usage_tests_runs() {
    let out = Command::new(BIN).args(good_with(&[])).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn usage_errors_exit_2_and_name_the_problem() {
    let limit = |block: &str| -> Vec<String> {
        [
            "run", "--suite", "limit", "--case", "memcpy", "--lib", "memcpy", "--block", block,
            "--iters", "1",
        ]
        .map(String::from)
        .to_vec()
    };
    let codec = |lib: &str, buffer: &str, strings: &str, validation: &str| -> Vec<String> {
        [
            "run",
            "--suite",
            "codec",
            "--case",
            "logs",
            "--lib",
            lib,
            "--buffer",
            buffer,
            "--strings",
            strings,
            "--validation",
            validation,
            "--packing",
            "unpacked",
            "--iters",
            "1",
        ]
        .map(String::from)
        .to_vec()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["frobnicate".into()], "unknown command 'frobnicate'"),
        (good_with(&[("--bogus", Some("1"))]), "unknown flag --bogus"),
        (
            good_with(&[("--suite", None)]),
            "missing --suite (one of: rpc, limit, codec, queue, readbytes)",
        ),
        (
            good_with(&[("--suite", Some("telepathy"))]),
            "unknown suite 'telepathy' (one of: rpc, limit, codec, queue, readbytes)",
        ),
        (
            good_with(&[("--suite", Some("limit"))]),
            "flag --mode is not a parameter of suite limit (its parameters: block)",
        ),
        (
            good_with(&[("--case", Some("memcpy"))]),
            "case 'memcpy' is not in suite rpc (one of: carsales, catrank, eval)",
        ),
        (
            good_with(&[("--lib", Some("nope"))]),
            "unknown lib 'nope' for suite rpc (one of: capnp, protobuf, null)",
        ),
        (
            good_with(&[
                ("--lib", Some("protobuf")),
                ("--compression", Some("packed")),
            ]),
            "unknown value for --compression: 'packed' for lib protobuf (one of: none)",
        ),
        (
            good_with(&[("--block", Some("1MiB"))]),
            "flag --block is not a parameter of suite rpc \
             (its parameters: mode, compression, reuse)",
        ),
        (
            good_with(&[("--input", Some("/etc/hostname"))]),
            "flag --input is a fixture that suite rpc does not take (its fixtures: none)",
        ),
        (
            good_with(&[("--out-dir", Some("/tmp"))]),
            "flag --out-dir is a fixture that suite rpc does not take (its fixtures: none)",
        ),
        (
            good_with(&[("--iters", Some("x"))]),
            "bad value for --iters: 'x' (want a decimal integer)",
        ),
        (
            good_with(&[("--mode", Some("pipe")), ("--role", Some("local"))]),
            "--role local is not possible with --mode pipe",
        ),
        (
            codec("rkyv", "reused", "borrowed", "validated"),
            "unknown value for --strings: 'borrowed' for lib rkyv (one of: owned)",
        ),
        (
            codec("null", "kept", "owned", "lazy"),
            "unknown value for --buffer: 'kept' (one of: reused, fresh)",
        ),
        (
            codec("capnp", "reused", "owned", "unchecked"),
            "unknown value for --validation: 'unchecked' for lib capnp (one of: lazy)",
        ),
        (
            {
                let mut args = codec("prost", "reused", "owned", "validated");
                let at = args.iter().position(|a| a == "unpacked").unwrap();
                args[at] = "packed".into();
                args
            },
            "unknown value for --packing: 'packed' for lib prost (one of: unpacked)",
        ),
        (
            codec("null", "fresh", "borrowed", "lazy"),
            "buffer fresh, strings borrowed, validation lazy and packing unpacked: a codec cell \
             differs from its library's first cell in at most one parameter",
        ),
        (
            limit("3KiB"),
            "unknown value for --block: '3KiB' (one of: 16KiB, 1MiB, 64MiB)",
        ),
    ];
    for (args, message) in cases {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let got = usage_message(&out);
        assert!(
            got.starts_with(&format!("wirebench-rust: usage error: {message}")),
            "{args:?}: {got}"
        );
    }
}
