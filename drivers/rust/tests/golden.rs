//! Golden messages (docs/protocol.md, `golden write` and `golden check`): the built driver
//! checks its own files and the C++ driver's in testdata/golden/, still writes its own
//! byte for byte, and names the file when one is corrupt or truncated.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_wirebench-rust");

fn golden(lang: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/golden")
        .join(lang)
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run the driver")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh, empty directory under the system's temp directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!(
            "wirebench-rust-golden-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The golden files this driver writes, by `list`: a .requests and a .responses file for
/// every (case, lib, compression) of the rpc suite's cells.
fn expected_files() -> Vec<String> {
    let out = run(&["list"]);
    assert!(out.status.success());
    let mut stems: Vec<String> = Vec::new();
    for line in text(&out.stdout).lines() {
        if !line.starts_with("{\"suite\": \"rpc\"") {
            continue;
        }
        let value = |key: &str| {
            let pat = format!("\"{key}\": \"");
            let at = line.find(&pat).unwrap() + pat.len();
            line[at..at + line[at..].find('"').unwrap()].to_string()
        };
        let stem = format!(
            "{}.{}.{}",
            value("case"),
            value("lib"),
            value("compression")
        );
        if !stems.contains(&stem) {
            stems.push(stem);
        }
    }
    assert!(!stems.is_empty());
    let mut names: Vec<String> = stems
        .iter()
        .flat_map(|s| [format!("{s}.requests"), format!("{s}.responses")])
        .collect();
    names.extend(codec_files());
    names.sort();
    names
}

/// The codec golden files this driver writes: <case>.<format> for each codec case and
/// each format of its libraries (`info` names no formats, so they are listed here).
fn codec_files() -> Vec<String> {
    let formats = [
        "null",
        "json",
        "protobuf",
        "capnp",
        "flatbuffers",
        "msgpack",
        "bincode",
        "bitcode",
        "postcard",
        "rkyv",
        "cbor",
        "bson",
        "avro",
        "thrift",
        "sbe",
    ];
    ["log", "logs"]
        .iter()
        .flat_map(|case| formats.iter().map(move |f| format!("{case}.{f}")))
        .collect()
}

/// `golden check DIR` succeeds, with a good line for every file; returns the files checked
/// and the output.
fn check_dir(dir: &Path) -> (Vec<String>, String) {
    let out = run(&["golden", "check", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "golden check {}: {}",
        dir.display(),
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    let mut checked = Vec::new();
    for line in stdout.lines() {
        let file = line
            .strip_prefix("{\"file\": \"")
            .and_then(|l| l.split_once('"'))
            .filter(|(file, rest)| {
                if file.ends_with(".requests") || file.ends_with(".responses") {
                    *rest == ", \"messages\": 5, \"ok\": true}"
                } else {
                    rest.contains("\"records\": ") && rest.ends_with("\"ok\": true}")
                }
            })
            .unwrap_or_else(|| panic!("{line} in {}", dir.display()))
            .0;
        checked.push(file.to_string());
    }
    checked.sort();
    (checked, stdout)
}

#[test]
fn checks_its_own_golden_files() {
    let (checked, stdout) = check_dir(&golden("rust"));
    assert_eq!(checked, expected_files());
    // Its own codec files are its own bytes.
    assert!(!stdout.contains("\"same_bytes\": false"), "{stdout}");
}

/// Every rpc file of the C++ driver, and whatever codec files it has.
#[test]
fn checks_the_cpp_golden_files() {
    let (checked, _) = check_dir(&golden("cpp"));
    let rpc: Vec<String> = expected_files()
        .into_iter()
        .filter(|f| f.ends_with(".requests") || f.ends_with(".responses"))
        .collect();
    assert!(rpc.iter().all(|f| checked.contains(f)), "{checked:?}");
}

/// A library upgrade that changes the wire format (capnp or prost), or a change to the
/// generator or to a case, fails here: the files written now must equal the committed ones
/// byte for byte. If the change is intended, rewrite testdata/golden/rust with
/// `wirebench-rust golden write testdata/golden/rust` and check that every other language
/// still reads them (tests/test_golden.py).
#[test]
fn writes_its_golden_files_byte_for_byte() {
    let tmp = TempDir::new("write");
    let out = run(&["golden", "write", tmp.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let names = expected_files();
    assert_eq!(stdout.lines().count(), names.len(), "{stdout}");
    let committed = golden("rust");
    assert_eq!(files(&committed), names);
    assert_eq!(files(&tmp.0), names);
    for name in &names {
        let want = std::fs::read(committed.join(name)).unwrap();
        let got = std::fs::read(tmp.0.join(name)).unwrap();
        assert!(
            got == want,
            "{name}: golden write differs from testdata/golden/rust/{name} \
             ({} bytes, committed {} bytes): has the wire format changed?",
            got.len(),
            want.len()
        );
    }
}

/// Copies one case's pair of files into a fresh directory and applies `damage` to one.
fn damaged(tag: &str, stem: &str, which: &str, damage: impl FnOnce(&mut Vec<u8>)) -> TempDir {
    let tmp = TempDir::new(tag);
    for ext in ["requests", "responses"] {
        let name = format!("{stem}.{ext}");
        std::fs::copy(golden("rust").join(&name), tmp.0.join(&name)).unwrap();
    }
    let path = tmp.0.join(format!("{stem}.{which}"));
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
    tmp
}

fn assert_fails_naming(tmp: &TempDir, file: &str, message: u64) {
    let out = run(&["golden", "check", tmp.path()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let want = format!("{file}: message {message}:");
    assert!(stderr.contains(&want), "want '{want}' in: {stderr}");
}

#[test]
fn a_flipped_byte_in_a_response_fails_naming_the_file() {
    // eval.capnp.none: 24 bytes a message (segment table, root pointer, value); byte 16 is
    // the low byte of the first response's value.
    let tmp = damaged("flip-response", "eval.capnp.none", "responses", |b| {
        b[16] ^= 1
    });
    assert_fails_naming(&tmp, "eval.capnp.none.responses", 0);
}

#[test]
fn a_flipped_byte_in_a_request_fails_naming_the_file() {
    // eval.null.none: the u32 size prefix of the first request, made far too large.
    let tmp = damaged("flip-request", "eval.null.none", "requests", |b| {
        b[3] ^= 0x80
    });
    assert_fails_naming(&tmp, "eval.null.none.requests", 0);
}

#[test]
fn a_truncated_file_fails_naming_the_file() {
    let tmp = damaged("truncated", "carsales.capnp.packed", "requests", |b| {
        b.truncate(b.len() - 100)
    });
    assert_fails_naming(&tmp, "carsales.capnp.packed.requests", 4);

    let tmp = damaged(
        "truncated-responses",
        "eval.protobuf.none",
        "responses",
        |b| b.truncate(b.len() - 1),
    );
    assert_fails_naming(&tmp, "eval.protobuf.none.responses", 4);
}

#[test]
fn unsupported_names_are_skipped_and_an_empty_directory_fails() {
    let tmp = TempDir::new("skipped");
    for name in ["a.b.c.requests", "a.b.c.responses", "x.requests"] {
        std::fs::write(tmp.0.join(name), b"").unwrap();
    }
    let out = run(&["golden", "check", tmp.path()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no golden files that this driver supports"));
    assert_eq!(
        text(&out.stdout),
        "{\"file\": \"a.b.c.requests\", \"skipped\": true}\n\
         {\"file\": \"a.b.c.responses\", \"skipped\": true}\n\
         {\"file\": \"x.requests\", \"skipped\": true}\n"
    );
}

#[test]
fn golden_usage_errors_exit_2() {
    for args in [
        &["golden"][..],
        &["golden", "read", "x"],
        &["golden", "check"],
        &["golden", "write", ""],
        &["golden", "check", "x", "y"],
    ] {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("usage error"), "{args:?}");
    }
}
