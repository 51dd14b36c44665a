//! Runs the built driver: `info`, a codec cell's `--out-dir`, the server role on
//! stdin/stdout (clean end of file, corrupt and truncated messages) and usage errors. Every
//! listed cell's result is judged by the harness (its conformance test), not here.

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
