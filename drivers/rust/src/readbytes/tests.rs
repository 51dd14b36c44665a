//! Tests of the readbytes suite: the consumers on small inputs and on the data of §8 (the
//! values of docs/protocol.md), every varint error with its byte offset, every strategy
//! on small files (buffer boundaries, an empty file, read errors naming the file), the
//! per-pass checks naming the pass, and `cache cold` emptying the page cache.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::registry::{Role, Run};

/// The file of docs/workloads.md §8 for these ids: per id the tag 0x08 and its varint.
fn encode(ids: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let mut out = Vec::new();
    for mut i in ids {
        out.push(TAG);
        while i >= 0x80 {
            out.push((i as u8 & 0x7f) | 0x80);
            i >>= 7;
        }
        out.push(i as u8);
    }
    out
}

fn consume<C: Consumer>(bytes: &[u8]) -> Result<Tally, Corrupt> {
    C::consume(&mut SliceSource::new(bytes))
}

fn tally(value: u64, bytes: u64) -> Result<Tally, Corrupt> {
    Ok(Tally { value, bytes })
}

#[test]
fn count_and_sum_take_every_byte() {
    assert_eq!(consume::<Count>(&[]), tally(0, 0));
    assert_eq!(consume::<Count>(&[0, 1, 2, 255]), tally(4, 4));
    assert_eq!(consume::<Sum>(&[]), tally(0, 0));
    // The bytes (0..255) plus their count.
    assert_eq!(consume::<Sum>(&[0, 255, 8]), tally(263 + 3, 3));
    let many = vec![0xffu8; 100_000];
    assert_eq!(
        consume::<Sum>(&many),
        tally(255 * 100_000 + 100_000, 100_000)
    );
}

#[test]
fn varint_sums_the_ids_low_groups_first() {
    assert_eq!(consume::<Varint>(&[]), tally(0, 0));
    assert_eq!(encode([0, 1, 2]), [8, 0, 8, 1, 8, 2]);
    assert_eq!(encode([300]), [8, 0xac, 0x02]);
    let ids = [
        0,
        1,
        127,
        128,
        300,
        16_383,
        16_384,
        2_999_999,
        (1 << 31) - 1,
    ];
    let bytes = encode(ids);
    assert_eq!(
        consume::<Varint>(&bytes),
        tally(ids.iter().sum(), bytes.len() as u64)
    );
    // Ten bytes is the most a varint may have: a negative int32 (as int64), 2^64 - 1.
    let max = [
        8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ];
    assert_eq!(consume::<Varint>(&max), tally(u64::MAX, 11));
    // The sum wraps.
    let two = [&max[..], &[8, 2]].concat();
    assert_eq!(consume::<Varint>(&two), tally(1, 13));
    // A varint may carry redundant groups (0 as two bytes).
    assert_eq!(
        consume::<Varint>(&[8, 0x80, 0x00, 8, 0x85, 0x00]),
        tally(5, 6)
    );
}

#[test]
fn every_varint_error_names_its_byte_offset() {
    let cases: [(&[u8], Corrupt, &str); 7] = [
        (
            &[0x10],
            Corrupt::Tag {
                offset: 0,
                tag: 0x10,
            },
            "byte offset 0: tag 0x10, expected 0x08",
        ),
        (
            &[8, 1, 9, 1],
            Corrupt::Tag { offset: 2, tag: 9 },
            "byte offset 2: tag 0x09, expected 0x08",
        ),
        (
            &[8, 0xac, 0x02, 0xff],
            Corrupt::Tag {
                offset: 3,
                tag: 0xff,
            },
            "byte offset 3: tag 0xff, expected 0x08",
        ),
        (
            &[8],
            Corrupt::End {
                offset: 1,
                start: 1,
            },
            "byte offset 1: end of file inside the varint at offset 1",
        ),
        (
            &[8, 1, 8, 0x80, 0x80],
            Corrupt::End {
                offset: 5,
                start: 3,
            },
            "byte offset 5: end of file inside the varint at offset 3",
        ),
        (
            // Ten bytes that all go on, then the eleventh.
            &[
                8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
            ],
            Corrupt::Overlong {
                offset: 11,
                start: 1,
            },
            "byte offset 11: the varint at offset 1 is longer than 10 bytes",
        ),
        (
            // Ten that go on at the end of the file: too long before it ends.
            &[
                8, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ],
            Corrupt::Overlong {
                offset: 13,
                start: 3,
            },
            "byte offset 13: the varint at offset 3 is longer than 10 bytes",
        ),
    ];
    for (bytes, corrupt, message) in cases {
        assert_eq!(consume::<Varint>(bytes), Err(corrupt), "{bytes:?}");
        assert_eq!(corrupt.to_string(), message);
    }
}

/// The data of §8 gives the values of docs/protocol.md, which the suite checks against.
#[test]
fn the_data_of_section_8_gives_each_cases_value() {
    let data = encode(0..3_000_000);
    assert_eq!(data.len() as u64, FILE_SIZE);
    assert_eq!(consume::<Count>(&data), tally(COUNT_VALUE, FILE_SIZE));
    assert_eq!(consume::<Sum>(&data), tally(SUM_VALUE, FILE_SIZE));
    assert_eq!(consume::<Varint>(&data), tally(VARINT_VALUE, FILE_SIZE));
    assert_eq!(
        [Case::Count, Case::Sum, Case::Varint].map(Case::expected),
        [12_886_336, 1_457_733_664, 4_499_998_500_000]
    );
}

/// A fresh directory for one test, removed on drop (not on tmpfs: `cache cold` needs a
/// file whose pages can be dropped).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "wirebench-readbytes-unit-{}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

type Make = fn(Case, &Path) -> Res<Box<dyn Cell>>;

const STRATEGIES: [(&str, Make); 4] = [
    ("null", null::make),
    ("bufreader_bytes", bufreader_bytes::make),
    ("own_buffer", own_buffer::make),
    ("memmap2", memmap2::make),
];

const CASES: [Case; 3] = [Case::Count, Case::Sum, Case::Varint];

/// What a case's consumer gives over `bytes` in memory, errors included.
fn in_memory(case: Case, bytes: &[u8]) -> Result<Tally, Corrupt> {
    match case {
        Case::Count => consume::<Count>(bytes),
        Case::Sum => consume::<Sum>(bytes),
        Case::Varint => consume::<Varint>(bytes),
    }
}

#[test]
fn the_registry_lists_every_strategy_in_order() {
    let names: Vec<&str> = SUITE.libs.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        STRATEGIES.iter().map(|(n, _)| *n).collect::<Vec<_>>()
    );
}

/// Every strategy gives every case's in-memory value (or error: a cut varint), pass after
/// pass, on files around its buffers' sizes (8 KiB, 64 KiB) and on an empty file.
#[test]
fn every_strategy_reads_every_byte_of_small_files() {
    let dir = TempDir::new("small");
    let ids = encode(0..100_000);
    let sizes = [
        0,
        1,
        2,
        8191,
        8192,
        8193,
        65_535,
        65_536,
        65_537,
        3 * 65_536,
        ids.len(),
    ];
    for size in sizes {
        let bytes = &ids[..size];
        let path = dir.file(&format!("{size}.pb"), bytes);
        for (name, make) in STRATEGIES {
            for case in CASES {
                let at = format!("{name} {case:?} {size}");
                let mut cell = make(case, &path).unwrap();
                for _ in 0..2 {
                    let got = cell.pass();
                    match in_memory(case, bytes) {
                        Ok(want) => {
                            let p = got.unwrap_or_else(|e| panic!("{at}: {}", e.0));
                            assert_eq!((p.value, p.bytes), (want.value, want.bytes), "{at}");
                        }
                        Err(corrupt) => {
                            let e = got.err().unwrap_or_else(|| panic!("{at}"));
                            assert_eq!(e.0, corrupt.to_string(), "{at}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_corrupt_varint_deep_in_a_file_is_named_by_every_strategy() {
    let dir = TempDir::new("corrupt");
    let mut bytes = encode(0..100_000);
    let at = encode(0..30_000).len();
    bytes[at] = 0x12;
    let path = dir.file("corrupt.pb", &bytes);
    for (name, make) in STRATEGIES {
        let e = make(Case::Varint, &path).unwrap().pass().err().unwrap();
        assert_eq!(
            e.0,
            format!("byte offset {at}: tag 0x12, expected 0x08"),
            "{name}"
        );
        // count and sum do not look.
        for case in [Case::Count, Case::Sum] {
            let p = make(case, &path).unwrap().pass().unwrap();
            assert_eq!(Ok(p.value), in_memory(case, &bytes).map(|t| t.value));
        }
    }
}

#[test]
fn a_missing_file_or_a_read_error_names_the_file() {
    let dir = TempDir::new("errors");
    let missing = dir.0.join("missing.pb");
    for (name, make) in STRATEGIES {
        // null reads the file when its cell is made, the others at each pass.
        let e = match make(Case::Sum, &missing) {
            Err(e) => e,
            Ok(mut cell) => cell.pass().err().unwrap(),
        };
        assert!(
            e.0.contains(&missing.display().to_string()),
            "{name}: {}",
            e.0
        );
        assert!(e.0.contains("No such file"), "{name}: {}", e.0);
    }
    // A directory opens, but does not read (or map).
    let wants = [
        ("null", "read "),
        ("bufreader_bytes", "read "),
        ("own_buffer", "read "),
        ("memmap2", "mmap "),
    ];
    for ((name, make), (_, what)) in STRATEGIES.into_iter().zip(wants) {
        for case in CASES {
            let e = match make(case, &dir.0) {
                Err(e) => e,
                Ok(mut cell) => cell.pass().err().unwrap(),
            };
            assert!(
                e.0.starts_with(&format!("{what}{}: ", dir.0.display())),
                "{name} {case:?}: {}",
                e.0
            );
        }
    }
}

fn run_of(case: &'static str, warmup: u64, iters: u64, samples: u64) -> Run {
    Run {
        suite: "readbytes",
        case,
        lib: "fake",
        params: vec![("cache", "warm")],
        versions: Vec::new(),
        role: Some(Role::Local),
        in_fd: -1,
        out_fd: -1,
        iters,
        samples,
        warmup,
        fixtures: vec![("input", "/data/shop.pb".into())],
    }
}

/// A cell giving `good` until pass `bad` (1-based), then `wrong`.
struct Fake {
    passes: u64,
    bad: u64,
    good: Pass,
    wrong: Res<Pass>,
}

impl Cell for Fake {
    fn pass(&mut self) -> Res<Pass> {
        self.passes += 1;
        if self.passes == self.bad {
            return match &self.wrong {
                Ok(p) => Ok(*p),
                Err(e) => Err(Failure::new(e.0.clone())),
            };
        }
        Ok(self.good)
    }
}

fn good(case: Case) -> Pass {
    Pass {
        value: case.expected(),
        bytes: FILE_SIZE,
        ns: 7,
    }
}

#[test]
fn every_pass_is_checked_and_summed_per_sample() {
    let run = run_of("varint", 3, 4, 2);
    let mut cell = Fake {
        passes: 0,
        bad: 0,
        good: good(Case::Varint),
        wrong: Ok(good(Case::Varint)),
    };
    let path = Path::new("/data/shop.pb");
    let out = passes(&run, &mut cell, Case::Varint, path, false).unwrap();
    assert_eq!(out.time, [28, 28]);
    assert_eq!(out.bytes, [4 * FILE_SIZE; 2]);
    assert_eq!(out.check, [4 * VARINT_VALUE; 2]);
    assert_eq!(out.passes_checked, 3 + 4 * 2);
    assert_eq!(cell.passes, 11);
}

#[test]
fn the_first_wrong_pass_fails_the_run_naming_the_pass_the_value_and_the_expectation() {
    let path = Path::new("/data/shop.pb");
    let wrong_value = Pass {
        value: 12,
        ..good(Case::Sum)
    };
    let short = Pass {
        bytes: FILE_SIZE - 1,
        ..good(Case::Sum)
    };
    let cases: [(u64, Res<Pass>, &str); 4] = [
        (
            2,
            Ok(wrong_value),
            "readbytes sum fake, pass 2 (warm-up), /data/shop.pb: value 12, expected 1457733664",
        ),
        (
            5,
            Ok(wrong_value),
            "readbytes sum fake, pass 5 (sample 1), /data/shop.pb: value 12, expected 1457733664",
        ),
        (
            7,
            Ok(short),
            "readbytes sum fake, pass 7 (sample 2), /data/shop.pb: read 12886335 bytes, \
             expected 12886336",
        ),
        (
            1,
            Err(Failure::new("byte offset 3: tag 0x10, expected 0x08")),
            "readbytes sum fake, pass 1 (warm-up), /data/shop.pb: byte offset 3: tag 0x10, \
             expected 0x08",
        ),
    ];
    for (bad, wrong, message) in cases {
        let mut cell = Fake {
            passes: 0,
            bad,
            good: good(Case::Sum),
            wrong,
        };
        let e = passes(&run_of("sum", 3, 2, 2), &mut cell, Case::Sum, path, false)
            .err()
            .unwrap();
        assert_eq!(e.0, message);
        // Nothing after the first wrong pass.
        assert_eq!(cell.passes, bad);
    }
}

/// Pages of `path` in the page cache, by mincore on a mapping of it.
fn resident_pages(path: &Path) -> usize {
    let file = fs::File::open(path).unwrap();
    let map = unsafe { ::memmap2::Mmap::map(&file) }.unwrap();
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let mut vec = vec![0u8; map.len().div_ceil(page)];
    let rc = unsafe {
        libc::mincore(
            map.as_ptr() as *mut libc::c_void,
            map.len(),
            vec.as_mut_ptr(),
        )
    };
    assert_eq!(rc, 0);
    vec.iter().filter(|v| **v & 1 != 0).count()
}

fn on_tmpfs(path: &Path) -> bool {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statfs(c.as_ptr(), &mut st) }, 0);
    // Their types differ between targets.
    #[allow(clippy::unnecessary_cast)]
    let tmpfs = st.f_type as i64 == libc::TMPFS_MAGIC as i64;
    tmpfs
}

#[test]
fn cache_cold_drops_the_files_pages() {
    let dir = TempDir::new("cold");
    let bytes = encode(0..100_000);
    let path = dir.file("cold.pb", &bytes);
    // A dirty page cannot be dropped: written back first.
    fs::File::open(&path).unwrap().sync_all().unwrap();
    assert_eq!(fs::read(&path).unwrap(), bytes);
    let before = resident_pages(&path);
    assert!(before > 0);
    drop_cache(&path).unwrap();
    if on_tmpfs(&path) {
        return; // tmpfs keeps its pages: the harness refuses cold cells there.
    }
    assert_eq!(resident_pages(&path), 0, "{before} pages before");
    // A pass after the drop reads the file again, all of it.
    let p = own_buffer::make(Case::Sum, &path).unwrap().pass().unwrap();
    assert_eq!(Ok(p.value), in_memory(Case::Sum, &bytes).map(|t| t.value));
    let e = drop_cache(&dir.0.join("missing.pb")).err().unwrap();
    assert!(e.0.starts_with("cannot open "), "{}", e.0);
}
