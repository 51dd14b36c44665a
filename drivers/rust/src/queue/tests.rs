//! Tests of the wbq format (docs/queue-format.md) and of the suite's recorder and check:
//! round trip, roll-over, recovery, ABANDONED and WORKING at the tailer, errors naming the
//! file and offset, the lock, clock and cycle-size mismatches, pretouching.

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::wbq::{
    self, decode, Appender, Mono, Read, Release, SeqCst, Tailer, Word, ABANDONED, END, WORKING,
};
use super::{Check, Queue, Recorder, Shape};

const SMALL: u64 = 64 << 10;

/// A fresh directory for one test (on tmpfs where there is one), removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let shm = Path::new("/dev/shm");
        let root = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = root.join(format!("wbq-unit-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }
    fn file(&self, cycle: u64) -> PathBuf {
        self.0.join(wbq::file_name(cycle))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

type Mr = Appender<Mono, Release>;

/// Appends `entries` entries of `longs` values from `first` on; returns the next value.
fn append<C: wbq::Clock, P: wbq::Publish>(
    q: &mut Appender<C, P>,
    entries: u64,
    longs: u64,
    first: i64,
) -> i64 {
    let mut v = first;
    for _ in 0..entries {
        q.start(longs as u32 * 8).unwrap();
        for _ in 0..longs {
            q.write_long(v);
            v += 1;
        }
        q.end();
    }
    v
}

/// What a tailer reads to its end: every entry's values, and how it stopped.
struct Tail {
    entries: Vec<Vec<i64>>,
    timestamps: Vec<i64>,
    incomplete: bool,
    abandoned: u64,
    position: Option<(String, u64)>,
}

fn tail(dir: &Path) -> Result<Tail, String> {
    let mut t = Tailer::new(dir, None, false);
    let mut out = Tail {
        entries: Vec::new(),
        timestamps: Vec::new(),
        incomplete: false,
        abandoned: 0,
        position: None,
    };
    loop {
        match t.read().map_err(|e| e.0)? {
            Read::Entry { timestamp, payload } => {
                out.timestamps.push(timestamp);
                out.entries.push(
                    payload
                        .chunks_exact(8)
                        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                        .collect(),
                );
            }
            Read::End => break,
            Read::Incomplete => {
                out.incomplete = true;
                break;
            }
        }
    }
    out.abandoned = t.abandoned();
    out.position = t.position();
    Ok(out)
}

fn values(t: &Tail) -> Vec<i64> {
    t.entries.iter().flatten().copied().collect()
}

fn word(path: &Path, offset: u64) -> u64 {
    let mut b = [0u8; 8];
    fs::File::open(path)
        .unwrap()
        .read_exact_at(&mut b, offset)
        .unwrap();
    u64::from_le_bytes(b)
}

fn put_word(path: &Path, offset: u64, w: u64) {
    fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .write_all_at(&w.to_le_bytes(), offset)
        .unwrap();
}

#[test]
fn header_words_decode_and_corrupt_ones_are_refused() {
    assert_eq!(decode(0), Some(Word::Empty));
    assert_eq!(decode(8), Some(Word::Complete(8)));
    assert_eq!(decode(0xffff_ffff), Some(Word::Complete(u32::MAX)));
    assert_eq!(decode(WORKING | 16), Some(Word::Working(16)));
    assert_eq!(decode(ABANDONED | 16), Some(Word::Abandoned(16)));
    assert_eq!(decode(END), Some(Word::End));
    for bad in [
        END | 8,
        WORKING | ABANDONED | 8,
        WORKING | END,
        ABANDONED | END,
        1 << 32 | 8,
        1 << 60,
        WORKING | 1 << 45,
    ] {
        assert_eq!(decode(bad), None, "{bad:#x}");
    }
}

#[test]
fn entries_round_trip_with_their_header() {
    let d = TempDir::new("round-trip");
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    let mut v = 0;
    let mut offset = 64u64;
    for i in 0..100 {
        let longs = 1 + i % 5;
        v = append(&mut q, 1, longs, v);
        offset += 16 + 8 * longs;
    }
    let t = tail(&d.0).unwrap();
    assert_eq!(t.entries.len(), 100);
    assert!(t
        .entries
        .iter()
        .enumerate()
        .all(|(i, e)| e.len() == 1 + i % 5));
    assert_eq!(values(&t), (0..v).collect::<Vec<_>>());
    assert!(t.timestamps.windows(2).all(|w| w[0] <= w[1]));
    assert!(!t.incomplete);
    assert_eq!(t.position, Some(("00000000.wbq".into(), offset)));

    let header = fs::read(d.file(0)).unwrap();
    assert_eq!(header.len() as u64, SMALL);
    assert_eq!(&header[0..8], b"wbqueue1");
    assert_eq!(header[8..12], 1u32.to_le_bytes());
    assert_eq!(header[12..16], 64u32.to_le_bytes());
    assert_eq!(header[16..24], SMALL.to_le_bytes());
    assert_eq!(header[24..32], 0u64.to_le_bytes());
    assert_eq!(header[32..36], 1u32.to_le_bytes());
    assert!(header[36..64].iter().all(|&b| b == 0));
    assert_eq!(word(&d.file(0), 64), 8);
    assert_eq!(
        fs::read_to_string(d.0.join("queue.lock")).unwrap(),
        std::process::id().to_string()
    );
}

#[test]
fn a_full_file_ends_with_end_and_the_queue_rolls_over() {
    let d = TempDir::new("roll");
    let mut q = Appender::<Mono, SeqCst>::open(&d.0, SMALL).unwrap();
    // 24-byte entries: (65536 - 64 - 8) / 24 = 2727 a file.
    let per_file = (SMALL - 64 - 8) / 24;
    append(&mut q, 10_000, 1, 0);
    assert_eq!(q.created(), 4);
    for c in 0..3 {
        assert_eq!(word(&d.file(c), 64 + per_file * 24), END, "file {c}");
        assert_eq!(word(&d.file(c), 64 + (per_file - 1) * 24), 8);
    }
    assert!(!d.file(4).exists());
    let t = tail(&d.0).unwrap();
    assert_eq!(values(&t), (0..10_000).collect::<Vec<_>>());
    let at = 64 + (10_000 - 3 * per_file) * 24;
    assert_eq!(t.position, Some(("00000003.wbq".into(), at)));
}

#[test]
fn the_room_rule_is_exact_and_an_entry_too_big_for_a_file_is_refused() {
    let d = TempDir::new("room");
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    // The largest entry: 64 + 16 + L + 8 = 65536.
    let most = (SMALL - 64 - 16 - 8) / 8;
    append(&mut q, 2, most, 0);
    assert_eq!(q.created(), 2);
    assert_eq!(word(&d.file(0), SMALL - 8), END);
    let err = q.start((most as u32 + 1) * 8).unwrap_err().0;
    assert!(
        err.contains("65456 bytes") && err.contains("65536"),
        "{err}"
    );
    let t = tail(&d.0).unwrap();
    assert_eq!(t.entries.len(), 2);
}

#[test]
fn recovery_abandons_a_dead_writers_entry_and_appends_after_it() {
    let d = TempDir::new("recover");
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 10, 1, 0);
    // A writer that dies in the middle of an entry of 3 longs: WORKING stays behind.
    q.start(24).unwrap();
    q.write_long(10);
    drop(q);
    let dead = 64 + 10 * 24;
    assert_eq!(word(&d.file(0), dead), WORKING | 24);

    // A tailer stops at it and says where.
    let t = tail(&d.0).unwrap();
    assert_eq!(t.entries.len(), 10);
    assert!(t.incomplete);
    assert_eq!(t.position, Some(("00000000.wbq".into(), dead)));

    // A half-made cycle file is deleted by recovery.
    fs::write(d.0.join("00000001.wbq.tmp"), b"half").unwrap();
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    assert!(!d.0.join("00000001.wbq.tmp").exists());
    assert_eq!(word(&d.file(0), dead), ABANDONED | 24);
    append(&mut q, 5, 1, 10);
    assert_eq!(word(&d.file(0), dead + 40), 8);

    let t = tail(&d.0).unwrap();
    assert!(!t.incomplete);
    assert_eq!(t.abandoned, 1);
    assert_eq!(values(&t), (0..15).collect::<Vec<_>>());
}

#[test]
fn recovery_skips_a_pretouched_empty_file_and_follows_an_end() {
    let d = TempDir::new("recover-files");
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 10, 1, 0);
    q.pretouch().unwrap();
    drop(q);
    assert!(d.file(1).exists());
    // The last file holding an entry is 0: appending goes on there.
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 1, 1, 10);
    drop(q);
    assert_eq!(word(&d.file(0), 64 + 10 * 24), 8);
    assert_eq!(word(&d.file(1), 64), 0);

    // A file ending in END whose next file is missing (a writer that died between the
    // two): the next entry goes at offset 64 of a new next file.
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 3000, 1, 11);
    drop(q);
    assert_eq!(word(&d.file(0), 64 + 2727 * 24), END);
    fs::remove_file(d.file(1)).unwrap();
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 1, 1, 3011);
    drop(q);
    assert_eq!(word(&d.file(1), 64), 8);
    let t = tail(&d.0).unwrap();
    assert_eq!(values(&t), (0..2727).chain([3011]).collect::<Vec<_>>());
}

#[test]
fn a_second_appender_is_refused_naming_the_holders_pid() {
    let d = TempDir::new("lock");
    let first = Mr::open(&d.0, SMALL).unwrap();
    let err = Mr::open(&d.0, SMALL).err().expect("a second appender").0;
    assert!(err.contains(&d.0.display().to_string()), "{err}");
    assert!(
        err.contains(&format!("(pid {}", std::process::id())),
        "{err}"
    );
    drop(first);
    Mr::open(&d.0, SMALL).unwrap();
}

#[test]
fn another_clock_or_cycle_size_is_refused_naming_both() {
    let d = TempDir::new("mismatch");
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 1, 1, 0);
    drop(q);
    let err = Mr::open(&d.0, 2 * SMALL).err().unwrap().0;
    assert!(err.contains("65536") && err.contains("131072"), "{err}");
    #[cfg(target_arch = "x86_64")]
    {
        let err = Appender::<wbq::Tsc, Release>::open(&d.0, SMALL)
            .err()
            .unwrap()
            .0;
        assert!(
            err.contains("clock mono") && err.contains("not tsc"),
            "{err}"
        );
    }
    // A tailer told the clock refuses another.
    #[cfg(target_arch = "x86_64")]
    {
        let mut t = Tailer::new(&d.0, Some(wbq::ClockId::Tsc), false);
        let err = t.read().err().unwrap().0;
        assert!(err.contains("00000000.wbq offset 32"), "{err}");
    }
}

#[test]
fn pretouch_makes_the_next_file_ahead_and_alters_nothing() {
    let d = TempDir::new("pretouch");
    let mut q = Mr::open(&d.0, SMALL).unwrap();
    append(&mut q, 100, 1, 0);
    let before = fs::read(d.file(0)).unwrap();
    q.pretouch().unwrap();
    assert_eq!(fs::read(d.file(0)).unwrap(), before);
    let next = fs::read(d.file(1)).unwrap();
    assert_eq!(&next[0..8], b"wbqueue1");
    assert_eq!(next[24..32], 1u64.to_le_bytes());
    assert!(next[64..].iter().all(|&b| b == 0));
    assert_eq!(q.created(), 2);
    // The roll takes the pretouched file instead of creating one.
    append(&mut q, 3000, 1, 100);
    assert_eq!(q.created(), 2);
    q.pretouch().unwrap();
    assert_eq!(q.created(), 3);
    let t = tail(&d.0).unwrap();
    assert_eq!(values(&t), (0..3100).collect::<Vec<_>>());
}

/// The tailer's error on this queue: it must name the file and the offset.
fn tail_error(dir: &Path) -> String {
    match tail(dir) {
        Ok(_) => panic!("no error"),
        Err(e) => e,
    }
}

#[test]
fn corrupt_or_truncated_files_are_errors_naming_file_and_offset() {
    let d = TempDir::new("corrupt");
    let fresh = |d: &TempDir| {
        let _ = fs::remove_dir_all(&d.0);
        let mut q = Mr::open(&d.0, SMALL).unwrap();
        append(&mut q, 3, 1, 0);
    };
    let file = d.file(0).display().to_string();
    type Damage = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Damage, String)> = vec![
        (
            "truncated",
            Box::new(|p: &Path| {
                fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .unwrap()
                    .set_len(4096)
                    .unwrap()
            }),
            format!("{file} offset 4096"),
        ),
        (
            "inside the header",
            Box::new(|p: &Path| {
                fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .unwrap()
                    .set_len(10)
                    .unwrap()
            }),
            format!("{file} offset 10"),
        ),
        (
            "magic",
            Box::new(|p: &Path| put_word(p, 0, u64::from_le_bytes(*b"wbqueue9"))),
            format!("{file} offset 0: bad magic"),
        ),
        (
            "version",
            Box::new(|p: &Path| put_word(p, 8, 2 | 64 << 32)),
            format!("{file} offset 8"),
        ),
        (
            "cycle number",
            Box::new(|p: &Path| put_word(p, 24, 7)),
            format!("{file} offset 24"),
        ),
        (
            "clock",
            Box::new(|p: &Path| put_word(p, 32, 9)),
            format!("{file} offset 32"),
        ),
        (
            "reserved bits",
            Box::new(|p: &Path| put_word(p, 88, 1 << 40 | 8)),
            format!("{file} offset 88: corrupt header word"),
        ),
        (
            "two kinds",
            Box::new(|p: &Path| put_word(p, 88, WORKING | ABANDONED | 8)),
            format!("{file} offset 88: corrupt header word"),
        ),
        (
            "end with a length",
            Box::new(|p: &Path| put_word(p, 112, END | 8)),
            format!("{file} offset 112: corrupt header word"),
        ),
        (
            "past the room",
            Box::new(|p: &Path| put_word(p, 88, 65536 - 88 - 16)),
            format!("{file} offset 88: an entry of 65432 bytes runs past the room"),
        ),
    ];
    for (what, damage, want) in cases {
        fresh(&d);
        damage(&d.file(0));
        let err = tail_error(&d.0);
        assert!(err.contains(&want), "{what}: {err}");
    }
    // Recovery refuses a corrupt queue the same way.
    fresh(&d);
    put_word(&d.file(0), 88, 1 << 40 | 8);
    let err = Mr::open(&d.0, SMALL).err().unwrap().0;
    assert!(err.contains(&format!("{file} offset 88")), "{err}");
}

#[test]
fn the_recorder_keeps_every_value_in_its_second_and_in_the_total() {
    use hdrhistogram::serialization::Deserializer;
    let decode = |s: &str| -> hdrhistogram::Histogram<u64> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD.decode(s).unwrap();
        Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .unwrap()
    };
    let mut r = Recorder::new();
    r.record(5, 999); // warm-up: forgotten
    let origin = 1_000_000_000_000;
    r.restart(origin);
    let second = 1_000_000_000;
    for (t, v) in [(0, 10), (5, 20), (second, 30), (3 * second + 7, 40)] {
        r.record(origin + t, v);
    }
    r.flush();
    r.record(origin + 3 * second + 9, 50);
    let out = r.finish();
    let total = decode(&out.total);
    assert_eq!(total.len(), 5);
    assert_eq!(total.max(), 50);
    assert_eq!(
        (total.low(), total.high(), total.sigfig()),
        (1, 3_600_000_000_000, 3)
    );
    let seconds: Vec<(u64, u64)> = out
        .intervals
        .iter()
        .map(|(ms, h)| (*ms, decode(h).len()))
        .collect();
    assert_eq!(seconds, [(0, 2), (1000, 1), (3000, 2)]);
    assert!(
        out.total.starts_with("HISTF"),
        "V2 compressed: {}",
        out.total
    );
}

#[test]
fn the_check_catches_a_wrong_value_a_missing_entry_and_time_going_back() {
    struct Fake(Vec<(i64, Vec<i64>)>);
    impl Queue for Fake {
        fn open(_: &Path, _: Shape) -> crate::error::Res<Self> {
            Ok(Fake(Vec::new()))
        }
        fn start(&mut self, _: u32) -> crate::error::Res<()> {
            Ok(())
        }
        fn write_long(&mut self, _: i64) {}
        fn end(&mut self) {}
        fn pretouch(&mut self) -> crate::error::Res<()> {
            Ok(())
        }
        fn read_back(&mut self, check: &mut Check) -> crate::error::Res<()> {
            for (ts, vs) in self.0.drain(..) {
                check.entry(ts, vs.len() * 8)?;
                for v in vs {
                    check.value(v)?;
                }
            }
            Ok(())
        }
        fn files(&self) -> (u64, u64) {
            (0, 0)
        }
    }
    let shape = Shape {
        entries: 2,
        longs: 2,
    };
    let run = |entries: Vec<(i64, Vec<i64>)>| {
        let mut check = Check::new(shape);
        check.read_run(&mut Fake(entries)).map_err(|e| e.0)
    };
    assert_eq!(run(vec![(1, vec![0, 1]), (1, vec![2, 3])]), Ok(6));
    let err = run(vec![(1, vec![0, 1]), (1, vec![2, 4])]).unwrap_err();
    assert!(
        err.contains("value 4 read back where 3 was written"),
        "{err}"
    );
    let err = run(vec![(1, vec![0, 1])]).unwrap_err();
    assert!(err.contains("read back 1 entries, 2 were written"), "{err}");
    let err = run(vec![(2, vec![0, 1]), (1, vec![2, 3])]).unwrap_err();
    assert!(err.contains("timestamp 1 after 2"), "{err}");
    let err = run(vec![(1, vec![0, 1]), (1, vec![2])]).unwrap_err();
    assert!(err.contains("8 bytes read back, 16 written"), "{err}");
}
