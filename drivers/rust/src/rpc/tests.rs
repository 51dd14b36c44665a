//! Golden tests against testdata/rpc (docs/workloads.md): the generator, the first 20
//! answers of every case with every library in object and bytes modes (both reuse modes),
//! and the digests of checks.json for small counts.

use super::{Mode, SUITE};
use crate::rng::Rng;

fn testdata(name: &str) -> String {
    let path = format!("{}/../../testdata/rpc/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn data_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The digest as the protocol prints it: the wrapping sum read as i64.
fn as_digest(v: i128) -> i64 {
    v as i64
}

#[test]
fn generator_matches_golden_file() {
    let text = testdata("generator.txt");
    let want: Vec<u32> = data_lines(&text).map(|l| l.parse().unwrap()).collect();
    assert_eq!(want.len(), 1000);
    let mut rng = Rng::new();
    for (i, w) in want.iter().enumerate() {
        assert_eq!(rng.next_u32(), *w, "output {i}");
    }
    rng.reset();
    assert_eq!(rng.next_u32(), want[0]);
}

/// Every library's legal compressions, from the registry.
fn compressions(lib: &crate::registry::Lib<super::Factory>) -> &'static [&'static str] {
    lib.values(&SUITE.params[1])
}

#[test]
fn first_twenty_requests_of_every_case_and_lib() {
    let mut tried = 0;
    for &case in SUITE.cases {
        let text = testdata(&format!("{case}.txt"));
        let want: Vec<i64> = data_lines(&text)
            .map(|l| {
                let (_, v) = l.split_once(' ').unwrap();
                as_digest(v.parse::<i128>().unwrap())
            })
            .collect();
        assert_eq!(want.len(), 20);
        for lib in SUITE.libs {
            for &compression in compressions(lib) {
                for reuse in [true, false] {
                    for mode in [Mode::Object, Mode::Bytes] {
                        if mode == Mode::Object && compression != "none" {
                            continue;
                        }
                        let cell = (lib.make)(case, compression, reuse).unwrap();
                        let got = cell.answers(mode, want.len() as u64).unwrap_or_else(|e| {
                            panic!(
                                "{case} {} {mode:?} {compression} {reuse}: {}",
                                lib.name, e.0
                            )
                        });
                        let got: Vec<i64> = got.into_iter().map(|a| a as i64).collect();
                        assert_eq!(
                            got, want,
                            "{case} {} {mode:?} {compression} reuse={reuse}",
                            lib.name
                        );
                        tried += 1;
                    }
                }
            }
        }
    }
    // Every object and bytes cell of `list`, once.
    let listed = SUITE
        .cells()
        .iter()
        .filter(|c| matches!(super::param(&c.params, "mode"), "object" | "bytes"))
        .count();
    assert_eq!(tried, listed);
}

/// `"N": V` pairs of one case's object in checks.json (a flat, known layout).
fn checks(case: &str) -> Vec<(u64, i64)> {
    let text = testdata("checks.json");
    let start = text
        .find(&format!("\"{case}\""))
        .expect("case in checks.json");
    let body = &text[start..];
    let open = body.find('{').unwrap();
    let close = body.find('}').unwrap();
    body[open + 1..close]
        .split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once(':')?;
            let k = k.trim().trim_matches('"').parse().ok()?;
            let v: i128 = v.trim().parse().ok()?;
            Some((k, as_digest(v)))
        })
        .collect()
}

#[test]
fn digests_match_checks_json() {
    for &case in SUITE.cases {
        let table: Vec<(u64, i64)> = checks(case)
            .into_iter()
            .filter(|(n, _)| *n <= 1000)
            .collect();
        assert!(table.len() >= 5, "{case}: small counts in checks.json");
        for lib in SUITE.libs {
            let cell = (lib.make)(case, "none", true).unwrap();
            let largest = table.iter().map(|(n, _)| *n).max().unwrap();
            let answers = cell.answers(Mode::Bytes, largest).unwrap();
            for (n, want) in &table {
                let digest = answers[..*n as usize]
                    .iter()
                    .fold(0u64, |sum, a| sum.wrapping_add(*a));
                assert_eq!(digest as i64, *want, "{case} {} n={n}", lib.name);
            }
        }
    }
}

#[test]
fn eval_arithmetic_edge_cases() {
    use super::cases::apply;
    assert_eq!(apply(3, i32::MIN, -1), i32::MAX);
    assert_eq!(apply(4, i32::MIN, -1), i32::MAX);
    assert_eq!(apply(3, 7, 0), i32::MAX);
    assert_eq!(apply(4, 7, 0), i32::MAX);
    assert_eq!(apply(3, -7, 2), -3);
    assert_eq!(apply(4, -7, 2), -1);
    assert_eq!(apply(0, i32::MAX, 1), i32::MIN);
    assert_eq!(apply(2, 65536, 65536), 0);
}
