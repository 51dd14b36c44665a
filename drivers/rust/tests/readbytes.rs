//! Runs the built driver on the readbytes suite: its list, a truncated and a corrupted file
//! (exit 1 naming the pass, the offset, the value and the expectation; beside them the
//! data of docs/workloads.md §8, made here), an input that cannot be opened, and its usage
//! errors (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_wirebench-rust");

const SIZE: u64 = 12_886_336;
const IDS: u64 = 3_000_000;

/// What a pass of each case must produce (docs/protocol.md).
fn per_pass(case: &str) -> u64 {
    match case {
        "count" => SIZE,
        "sum" => 1_457_733_664,
        "varint" => 4_499_998_500_000,
        c => panic!("case {c}"),
    }
}

/// Per id: the tag byte 0x08 then the id as a base-128 varint, low groups first.
fn encode(ids: std::ops::Range<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    for mut i in ids {
        out.push(0x08);
        while i >= 0x80 {
            out.push((i as u8 & 0x7f) | 0x80);
            i >>= 7;
        }
        out.push(i as u8);
    }
    out
}

/// The data of §8, made once per test binary (written beside its final name, then
/// renamed), in Cargo's temporary directory for integration tests.
fn data() -> &'static Path {
    static DATA: OnceLock<PathBuf> = OnceLock::new();
    DATA.get_or_init(|| {
        let bytes = encode(0..IDS);
        assert_eq!(bytes.len() as u64, SIZE);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join("readbytes-shop-ids.pb");
        let tmp = dir.join(format!("readbytes-shop-ids.pb.{}", std::process::id()));
        std::fs::write(&tmp, &bytes).unwrap();
        // Written back, so that cold cells can drop its pages.
        std::fs::File::open(&tmp).unwrap().sync_all().unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        path
    })
}

/// A file of this test process, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("readbytes-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run the driver")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `run` of one readbytes cell with these counts and more flags.
fn cell_args<'a>(
    case: &'a str,
    lib: &'a str,
    cache: &'a str,
    counts: [&'a str; 3],
    more: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--suite",
        "readbytes",
        "--case",
        case,
        "--lib",
        lib,
        "--cache",
        cache,
        "--iters",
        counts[0],
        "--samples",
        counts[1],
        "--warmup",
        counts[2],
    ];
    args.extend(more);
    args
}

const LIBS: [&str; 4] = ["null", "bufreader_bytes", "own_buffer", "memmap2"];
const CASES: [&str; 3] = ["count", "sum", "varint"];

/// The cells of docs/protocol.md (suite readbytes) for this driver, in their order: per
/// case, per strategy, warm then cold (null warm only).
fn expected_cells() -> Vec<String> {
    let mut cells = Vec::new();
    for case in CASES {
        for lib in LIBS {
            let caches: &[&str] = if lib == "null" {
                &["warm"]
            } else {
                &["warm", "cold"]
            };
            for cache in caches {
                cells.push(format!(
                    "{{\"suite\": \"readbytes\", \"case\": \"{case}\", \"lib\": \"{lib}\", \
                     \"params\": {{\"cache\": \"{cache}\"}}}}"
                ));
            }
        }
    }
    cells
}

/// `list`'s readbytes lines are the protocol's cells; each cell's result is judged by the
/// harness (its conformance test over every listed cell).
#[test]
fn the_listed_readbytes_cells_are_the_protocols() {
    let out = run(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"suite\": \"readbytes\""))
        .collect();
    assert_eq!(listed, expected_cells());
}

#[test]
fn a_truncated_file_fails_every_strategy_naming_the_pass_and_the_offset() {
    let mut bytes = std::fs::read(data()).unwrap();
    // The last id, 2,999,999, is a varint of 4 bytes at offset SIZE - 4; cut its last.
    bytes.pop();
    let file = TempFile::new("truncated.pb", &bytes);
    for lib in LIBS {
        let args = cell_args(
            "varint",
            lib,
            "warm",
            ["1", "1", "1"],
            &["--input", file.s()],
        );
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let want = format!(
            "wirebench-rust: error: readbytes varint {lib}, pass 1 (warm-up), {}: byte offset \
             {}: end of file inside the varint at offset {}\n",
            file.s(),
            SIZE - 1,
            SIZE - 4
        );
        assert_eq!(stderr(&out), want, "{args:?}");

        let args = cell_args(
            "count",
            lib,
            "warm",
            ["1", "1", "0"],
            &["--input", file.s()],
        );
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let want = format!(
            "readbytes count {lib}, pass 1 (sample 1), {}: value {}, expected {SIZE}",
            file.s(),
            SIZE - 1
        );
        assert!(stderr(&out).contains(&want), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_corrupted_tag_fails_every_strategy_naming_its_offset() {
    let mut bytes = std::fs::read(data()).unwrap();
    // The tag of id 1,000,000.
    let at = encode(0..1_000_000).len();
    assert_eq!(bytes[at], 0x08);
    bytes[at] = 0x10;
    let file = TempFile::new("corrupted.pb", &bytes);
    for lib in LIBS {
        let args = cell_args(
            "varint",
            lib,
            "warm",
            ["3", "1", "0"],
            &["--input", file.s()],
        );
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let want = format!(
            "wirebench-rust: error: readbytes varint {lib}, pass 1 (sample 1), {}: byte offset \
             {at}: tag 0x10, expected 0x08\n",
            file.s()
        );
        assert_eq!(stderr(&out), want, "{args:?}");
        // sum sees 8 more.
        let args = cell_args("sum", lib, "warm", ["1", "1", "2"], &["--input", file.s()]);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let want = format!(
            "pass 1 (warm-up), {}: value {}, expected {}",
            file.s(),
            per_pass("sum") + 8,
            per_pass("sum")
        );
        assert!(stderr(&out).contains(&want), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn an_input_that_cannot_be_opened_is_exit_1_naming_it() {
    let missing = "/nonexistent-wirebench/shop.pb";
    for lib in LIBS {
        let args = cell_args("sum", lib, "warm", ["1", "1", "0"], &["--input", missing]);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
        assert!(
            stderr(&out).starts_with(&format!(
                "wirebench-rust: error: cannot open {missing}: No such file"
            )),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn readbytes_usage_errors_exit_2_and_name_the_problem() {
    let input = ["--input", "/nonexistent-wirebench/shop.pb"];
    let mut no_cache = cell_args("sum", "own_buffer", "warm", ["1", "1", "0"], &input);
    no_cache.drain(7..9);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            cell_args("sum", "own_buffer", "warm", ["1", "1", "0"], &[]),
            "missing --input FILE (suite readbytes reads the data file of docs/workloads.md §8)",
        ),
        (
            cell_args("sum", "fgetc", "warm", ["1", "1", "0"], &input),
            "unknown lib 'fgetc' for suite readbytes \
             (one of: null, bufreader_bytes, own_buffer, memmap2)",
        ),
        (
            cell_args("sum", "null", "cold", ["1", "1", "0"], &input),
            "unknown value for --cache: 'cold' for lib null (one of: warm)",
        ),
        (
            cell_args("sum", "memmap2", "lukewarm", ["1", "1", "0"], &input),
            "unknown value for --cache: 'lukewarm' (one of: warm, cold)",
        ),
        (no_cache, "missing --cache (one of: warm, cold)"),
        (
            cell_args("bytes", "memmap2", "warm", ["1", "1", "0"], &input),
            "case 'bytes' is not in suite readbytes (one of: count, sum, varint)",
        ),
        (
            cell_args(
                "sum",
                "memmap2",
                "warm",
                ["1", "1", "0"],
                &[&input[..], &["--work-dir", "/tmp"]].concat(),
            ),
            "flag --work-dir is a fixture that suite readbytes does not take \
             (its fixtures: input)",
        ),
        (
            cell_args(
                "sum",
                "memmap2",
                "warm",
                ["1", "1", "0"],
                &[&input[..], &["--block", "1MiB"]].concat(),
            ),
            "flag --block is not a parameter of suite readbytes (its parameters: cache)",
        ),
        (
            cell_args(
                "sum",
                "memmap2",
                "warm",
                ["1", "1", "0"],
                &[&input[..], &["--role", "server"]].concat(),
            ),
            "--role server is not possible in suite readbytes (its cells are local)",
        ),
        (
            cell_args("sum", "memmap2", "warm", ["0", "1", "0"], &input),
            "bad value for --iters: 0 (at least 1)",
        ),
    ];
    for (args, message) in cases {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let first = stderr(&out).lines().next().unwrap_or("").to_string();
        assert_eq!(
            first,
            format!("wirebench-rust: usage error: {message}"),
            "{args:?}"
        );
    }
}
