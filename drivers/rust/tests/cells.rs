//! Runs the built driver: `list`, every listed cell briefly, the server role on stdin/stdout
//! (clean end of file, corrupt and truncated messages) and usage errors.

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

#[test]
fn every_listed_cell_runs() {
    // How many cells is the registry's business: the harness holds every driver to the
    // C++ driver's list.
    let out = run(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty());
    for line in lines {
        let mut args = vec![
            "run".to_string(),
            "--suite".into(),
            field(line, "suite").into(),
            "--case".into(),
            field(line, "case").into(),
            "--lib".into(),
            field(line, "lib").into(),
        ];
        if field(line, "suite") == "rpc" {
            for p in ["mode", "compression", "reuse"] {
                args.push(format!("--{p}"));
                args.push(field(line, p).into());
            }
        } else {
            args.push("--block".into());
            args.push(field(line, "block").into());
        }
        for a in ["--iters", "3", "--samples", "2", "--warmup", "1"] {
            args.push(a.into());
        }
        let out = Command::new(BIN).args(&args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Vec<&str> = stdout.lines().collect();
        assert_eq!(result.len(), 1, "{args:?}: {stdout}");
        assert_eq!(field(result[0], "verified"), "true", "{args:?}");
        assert_eq!(field(result[0], "lang"), "rust");
        assert_eq!(field(result[0], "toolchain"), "rustc");
        assert_eq!(field(result[0], "protocol"), "2");
        let time = &result[0][result[0].find("\"time\": {").expect("metric time")..];
        assert!(time.contains("\"iters\": 3, \"samples\": ["), "{time}");
        if field(line, "suite") == "rpc" {
            assert_eq!(field(result[0], "responses_checked"), "7", "{args:?}");
        }
    }
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
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn usage_errors_exit_2_and_name_the_problem() {
    let cases: [(&[&str], &str); 10] = [
        (&["frobnicate"], "frobnicate"),
        (
            &[
                "run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--bogus", "1",
            ],
            "--bogus",
        ),
        (
            &[
                "run", "--suite", "rpc", "--case", "eval", "--lib", "nope", "--mode", "bytes",
            ],
            "unknown lib 'nope' for suite rpc (one of: capnp, protobuf, null)",
        ),
        (
            &["run", "--case", "eval", "--lib", "capnp", "--mode", "bytes"],
            "missing --suite",
        ),
        (
            &[
                "run", "--suite", "limit", "--case", "eval", "--lib", "capnp",
            ],
            "for suite limit",
        ),
        (
            &[
                "run",
                "--suite",
                "rpc",
                "--case",
                "eval",
                "--lib",
                "capnp",
                "--out-dir",
                "/tmp",
            ],
            "--out-dir is a fixture suite rpc does not take",
        ),
        (
            &[
                "run",
                "--suite",
                "rpc",
                "--case",
                "eval",
                "--lib",
                "capnp",
                "--mode",
                "bytes",
                "--compression",
                "none",
                "--reuse",
                "reuse",
                "--block",
                "1MiB",
                "--iters",
                "1",
            ],
            "--block is not a parameter of suite rpc",
        ),
        (
            &[
                "run",
                "--suite",
                "rpc",
                "--case",
                "eval",
                "--lib",
                "protobuf",
                "--mode",
                "bytes",
                "--compression",
                "packed",
                "--reuse",
                "reuse",
                "--iters",
                "1",
            ],
            "packed",
        ),
        (
            &[
                "run",
                "--suite",
                "rpc",
                "--case",
                "eval",
                "--lib",
                "capnp",
                "--mode",
                "bytes",
                "--compression",
                "none",
                "--reuse",
                "reuse",
                "--iters",
                "x",
            ],
            "--iters",
        ),
        (
            &[
                "run", "--suite", "limit", "--case", "memcpy", "--lib", "memcpy", "--block",
                "3KiB", "--iters", "1",
            ],
            "3KiB",
        ),
    ];
    for (args, needle) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
