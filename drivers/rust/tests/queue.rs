//! Runs the built driver on the queue suite: its list, a run deleting the cycle files its
//! tailer has finished with, its usage errors, and `queue append|tail DIR` (recovery after a writer dies mid-entry, the lock
//! across processes, following a live appender, errors naming file and offset).

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_wirebench-rust");

/// A fresh directory (on tmpfs where there is one), removed on drop; not created.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let shm = Path::new("/dev/shm");
        let root = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = root.join(format!("wbq-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run the driver")
}

/// The one JSON line of a successful command.
fn ok_json(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    serde_json::from_str(&text).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The wrapping sum of the values lo, lo+1, ..., lo+n-1.
fn sum(lo: u64, n: u64) -> i64 {
    let s = (n as i128) * (lo as i128) + (n as i128) * (n as i128 - 1) / 2;
    s as i64
}

/// The cells of docs/protocol.md (suite queue), in their order.
fn expected_cells() -> Vec<String> {
    let clocks: &[&str] = if cfg!(target_arch = "x86_64") {
        &["mono", "tsc"]
    } else {
        &["mono"]
    };
    let mut cells = Vec::new();
    let cell = |case: &str, lib: &str, o: &str, c: &str, p: &str, rate: Option<&str>| {
        let rate = rate.map_or(String::new(), |r| format!(", \"rate\": \"{r}\""));
        format!(
            "{{\"suite\": \"queue\", \"case\": \"{case}\", \"lib\": \"{lib}\", \"params\": \
             {{\"ordering\": \"{o}\", \"clock\": \"{c}\", \"pretouch\": \"{p}\"{rate}}}}}"
        )
    };
    for case in ["single", "bulk"] {
        for &c in clocks {
            cells.push(cell(case, "null", "none", c, "on", None));
        }
        for o in ["release", "seqcst"] {
            for &c in clocks {
                for p in ["on", "off"] {
                    cells.push(cell(case, "wbq", o, c, p, None));
                }
            }
        }
    }
    for (lib, o) in [("null", "none"), ("wbq", "release")] {
        for rate in ["100k", "500k", "1M"] {
            cells.push(cell("paced", lib, o, "mono", "on", Some(rate)));
        }
    }
    cells
}

/// `list`'s queue lines are the protocol's cells; each cell's result is judged by the
/// harness (its conformance test over every listed cell).
#[test]
fn the_listed_queue_cells_are_the_protocols() {
    let out = run(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = text.lines().filter(|l| l.contains("\"queue\"")).collect();
    assert_eq!(listed, expected_cells());
}

/// A wbq run's tailer deletes each cycle file it has finished with: a run leaves a file or
/// two in its work directory.
#[test]
fn a_wbq_run_leaves_at_most_two_cycle_files() {
    let work = TempDir::new("cell-work");
    std::fs::create_dir_all(&work.0).unwrap();
    let r = ok_json(&[
        "run",
        "--suite",
        "queue",
        "--case",
        "single",
        "--lib",
        "wbq",
        "--ordering",
        "release",
        "--clock",
        "mono",
        "--pretouch",
        "on",
        "--iters",
        "1000",
        "--samples",
        "2",
        "--work-dir",
        work.s(),
    ]);
    assert_eq!(r["queue"]["cycle_size"], 64 << 20, "{r}");
    assert!(r["queue"]["cycles"].as_u64().unwrap() >= 1, "{r}");
    let files = std::fs::read_dir(&work.0)
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().ends_with(".wbq")
        })
        .count();
    assert!((1..=2).contains(&files), "{files} files: {r}");
}

#[test]
fn queue_usage_errors_exit_2_and_name_the_problem() {
    let cell = |case: &str, lib: &str, params: &[&str], more: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["run", "--suite", "queue", "--case", case, "--lib", lib]
            .map(String::from)
            .to_vec();
        v.extend(params.iter().map(|s| s.to_string()));
        v.extend(["--iters", "10"].map(String::from));
        v.extend(more.iter().map(|s| s.to_string()));
        v
    };
    let good = [
        "--ordering",
        "release",
        "--clock",
        "mono",
        "--pretouch",
        "on",
    ];
    let wd = ["--work-dir", "/nonexistent-wbq"];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            cell("single", "wbq", &good, &[]),
            "suite queue needs --work-dir DIR",
        ),
        (
            cell(
                "single",
                "wbq",
                &good,
                &[&wd[..], &["--rate", "1M"]].concat(),
            ),
            "flag --rate is not a parameter of case single (only of case paced)",
        ),
        (
            cell("paced", "wbq", &good, &wd),
            "missing --rate (one of: 100k, 500k, 1M)",
        ),
        (
            cell(
                "paced",
                "wbq",
                &[
                    "--ordering",
                    "seqcst",
                    "--clock",
                    "mono",
                    "--pretouch",
                    "on",
                ],
                &[&wd[..], &["--rate", "1M"]].concat(),
            ),
            "case paced runs each library's default variant",
        ),
        (
            cell(
                "single",
                "wbq",
                &["--ordering", "none", "--clock", "mono", "--pretouch", "on"],
                &wd,
            ),
            "unknown value for --ordering: 'none' for lib wbq (one of: release, seqcst)",
        ),
        (
            cell(
                "bulk",
                "null",
                &["--ordering", "none", "--clock", "mono", "--pretouch", "off"],
                &wd,
            ),
            "unknown value for --pretouch: 'off' for lib null (one of: on)",
        ),
        (
            cell("single", "chronicle", &good, &wd),
            "unknown lib 'chronicle' for suite queue (one of: null, wbq)",
        ),
        (
            cell(
                "single",
                "wbq",
                &good,
                &[&wd[..], &["--role", "client"]].concat(),
            ),
            "--role client is not possible in suite queue",
        ),
        (
            ["queue", "append", "/tmp/x"].map(String::from).to_vec(),
            "queue append: missing --entries N",
        ),
        (
            [
                "queue",
                "append",
                "/tmp/x",
                "--entries",
                "1",
                "--cycle-size",
                "1000",
            ]
            .map(String::from)
            .to_vec(),
            "bad value for --cycle-size: 1000 (a multiple of 4096, at least 65536)",
        ),
        (
            [
                "queue",
                "append",
                "/tmp/x",
                "--entries",
                "1",
                "--ordering",
                "lib",
            ]
            .map(String::from)
            .to_vec(),
            "unknown value for --ordering: 'lib' (one of: release, seqcst)",
        ),
        (
            ["queue", "tail", "/tmp/x", "--expect", "3"]
                .map(String::from)
                .to_vec(),
            "queue tail: --follow and --expect N go together",
        ),
        (
            ["queue", "tail", "/tmp/x", "--bogus"]
                .map(String::from)
                .to_vec(),
            "unknown flag --bogus for queue tail (its flags: --follow, --expect, --timeout)",
        ),
        (
            ["queue", "frob", "/tmp/x"].map(String::from).to_vec(),
            "queue: unknown subcommand 'frob' (append or tail)",
        ),
    ];
    for (args, message) in cases {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let first = stderr(&out).lines().next().unwrap_or("").to_string();
        assert!(
            first.starts_with(&format!("wirebench-rust: usage error: {message}")),
            "{args:?}: {first}"
        );
    }
}

#[test]
fn a_writer_dying_mid_entry_is_recovered_and_its_entry_skipped() {
    let d = TempDir::new("die");
    let small = ["--cycle-size", "65536"];
    let a = ok_json(&[&["queue", "append", d.s(), "--entries", "100"][..], &small].concat());
    assert_eq!(
        a,
        serde_json::json!({"entries": 100, "longs": 100, "first": 0, "sum": 4950})
    );
    let t = ok_json(&["queue", "tail", d.s()]);
    assert_eq!(
        t,
        serde_json::json!({"entries": 100, "longs": 100, "first": 0, "last": 99, "sum": 4950,
            "consecutive": true, "monotonic": true, "abandoned": 0, "stopped": "end",
            "file": "00000000.wbq", "offset": 64 + 100 * 24})
    );

    let args = [
        "queue",
        "append",
        d.s(),
        "--entries",
        "10",
        "--longs",
        "4",
        "--first",
        "100",
        "--die-mid-entry",
    ];
    let out = run(&[&args[..], &small].concat());
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let dead = 64 + 100 * 24 + 10 * 48;
    let t = ok_json(&["queue", "tail", d.s()]);
    assert_eq!(t["entries"], 110);
    assert_eq!(t["last"], 139);
    assert_eq!(t["stopped"], "incomplete");
    assert_eq!(t["offset"], dead);

    // Another clock or cycle size is refused, naming both.
    let out = run(&["queue", "append", d.s(), "--entries", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("65536") && stderr(&out).contains("67108864"),
        "{}",
        stderr(&out)
    );
    if cfg!(target_arch = "x86_64") {
        let out = run(&[
            &["queue", "append", d.s(), "--entries", "1", "--clock", "tsc"][..],
            &small,
        ]
        .concat());
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("clock mono"), "{}", stderr(&out));
    }

    let args = [
        "queue",
        "append",
        d.s(),
        "--entries",
        "5",
        "--longs",
        "4",
        "--first",
        "140",
    ];
    let a = ok_json(&[&args[..], &small].concat());
    assert_eq!(a["sum"], sum(140, 20));
    let t = ok_json(&["queue", "tail", d.s()]);
    assert_eq!(
        t,
        serde_json::json!({"entries": 115, "longs": 160, "first": 0, "last": 159,
            "sum": sum(0, 160), "consecutive": true, "monotonic": true, "abandoned": 1,
            "stopped": "end", "file": "00000000.wbq", "offset": dead + 48 + 5 * 48})
    );
}

#[test]
fn a_second_appender_process_is_refused_naming_the_first() {
    let d = TempDir::new("lock");
    let first = Command::new(BIN)
        .args([
            "queue",
            "append",
            d.s(),
            "--entries",
            "100",
            "--pause-us",
            "10000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = first.id().to_string();
    let lock = d.0.join("queue.lock");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&lock).unwrap_or_default() != pid {
        assert!(Instant::now() < deadline, "the first appender never locked");
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = run(&["queue", "append", d.s(), "--entries", "1"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(d.s()) && err.contains(&format!("(pid {pid}")),
        "{err}"
    );
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success());
    // Once the first has exited, the lock is free.
    ok_json(&["queue", "append", d.s(), "--entries", "1", "--first", "100"]);
}

#[test]
fn a_tailer_follows_a_live_appender_across_cycle_files() {
    let d = TempDir::new("follow");
    let follower = Command::new(BIN)
        .args([
            "queue",
            "tail",
            d.s(),
            "--follow",
            "--expect",
            "300",
            "--timeout",
            "60",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let args = [
        "queue",
        "append",
        d.s(),
        "--entries",
        "300",
        "--longs",
        "100",
        "--pause-us",
        "200",
        "--cycle-size",
        "65536",
    ];
    ok_json(&args);
    let out = follower.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["entries"], 300);
    assert_eq!(t["longs"], 30_000);
    assert_eq!(t["first"], 0);
    assert_eq!(t["last"], 29_999);
    assert_eq!(t["consecutive"], true);
    assert_eq!(t["monotonic"], true);
    assert_eq!(t["stopped"], "end");
    // 816-byte entries, 80 a 64 KiB file: the fourth file.
    assert_eq!(t["file"], "00000003.wbq");
}

#[test]
fn tail_errors_exit_1_naming_what_is_wrong() {
    let d = TempDir::new("tail-errors");
    // Following an empty queue for too long.
    let out = run(&[
        "queue",
        "tail",
        d.s(),
        "--follow",
        "--expect",
        "5",
        "--timeout",
        "0.2",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("timed out"), "{}", stderr(&out));
    // No directory, not following.
    let out = run(&["queue", "tail", d.s()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no queue directory"),
        "{}",
        stderr(&out)
    );
    // An empty queue.
    std::fs::create_dir_all(&d.0).unwrap();
    let t = ok_json(&["queue", "tail", d.s()]);
    assert_eq!(t["entries"], 0);
    assert_eq!(t["first"], Value::Null);
    assert_eq!(t["file"], Value::Null);
    // A corrupt header word.
    ok_json(&[
        "queue",
        "append",
        d.s(),
        "--entries",
        "3",
        "--cycle-size",
        "65536",
    ]);
    let file = d.0.join("00000000.wbq");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .write_all_at(&(1u64 << 40 | 8).to_le_bytes(), 88)
        .unwrap();
    let out = run(&["queue", "tail", d.s()]);
    assert_eq!(out.status.code(), Some(1));
    let want = format!("{} offset 88: corrupt header word", file.display());
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
}
