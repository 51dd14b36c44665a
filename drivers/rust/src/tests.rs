//! Tests of the command line and the registry: validation from the registry (messages that
//! list exactly the registry's values), refusals, and `list` generated from it.

use crate::error::Error;
use crate::suites::{find, SUITES};
use crate::{parse_run_flags, rpc};

/// The usage message of `run` with these flags (of the rpc suite), or None if they
/// validate.
fn refusal<S: AsRef<str>>(args: &[S]) -> Option<String> {
    let argv: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
    let validated = parse_run_flags(&argv).and_then(|args| {
        assert_eq!(args.get("suite"), "rpc");
        crate::validate(&rpc::SUITE, &args).map(|_| ())
    });
    match validated {
        Ok(()) => None,
        Err(Error::Usage(m)) => Some(m),
        Err(Error::Fail(m)) => panic!("not a usage error: {m}"),
    }
}

const GOOD: [&str; 14] = [
    "--suite",
    "rpc",
    "--case",
    "eval",
    "--lib",
    "capnp",
    "--mode",
    "bytes",
    "--compression",
    "packed",
    "--reuse",
    "reuse",
    "--iters",
    "1",
];

/// GOOD with the value of `flag` replaced, or the flag left out (None).
fn with(flag: &str, value: Option<&str>) -> Vec<String> {
    let mut args = Vec::new();
    for pair in GOOD.chunks(2) {
        if pair[0] != flag {
            args.extend(pair.iter().map(|a| a.to_string()));
        } else if let Some(v) = value {
            args.extend([pair[0].to_string(), v.to_string()]);
        }
    }
    args
}

/// GOOD and more flags.
fn and(more: &[&str]) -> Vec<String> {
    GOOD.iter().chain(more).map(|a| a.to_string()).collect()
}

#[test]
fn a_good_run_validates() {
    assert_eq!(refusal(&GOOD), None);
}

#[test]
fn unknown_lib_lists_exactly_the_registry_libraries() {
    let names: Vec<&str> = rpc::SUITE.libs.iter().map(|l| l.name).collect();
    assert!(names.len() >= 3);
    let m = refusal(&with("--lib", Some("nope"))).unwrap();
    assert_eq!(
        m,
        format!(
            "unknown lib 'nope' for suite rpc (one of: {})",
            names.join(", ")
        )
    );
    let m = refusal(&with("--lib", None)).unwrap();
    assert_eq!(m, format!("missing --lib (one of: {})", names.join(", ")));
}

#[test]
fn an_illegal_parameter_value_lists_the_legal_ones() {
    let m = refusal(&with("--mode", Some("telepathy"))).unwrap();
    assert_eq!(
        m,
        "unknown value for --mode: 'telepathy' (one of: object, bytes, pipe, pipe-async)"
    );
    // A value of the suite that the library does not support: the library's values.
    let m = refusal(&with("--lib", Some("protobuf"))).unwrap();
    assert_eq!(
        m,
        "unknown value for --compression: 'packed' for lib protobuf (one of: none)"
    );
    let m = refusal(&with("--reuse", None)).unwrap();
    assert_eq!(m, "missing --reuse (one of: reuse, no-reuse)");
}

#[test]
fn object_mode_has_no_compression() {
    let m = refusal(&with("--mode", Some("object"))).unwrap();
    assert_eq!(m, "compression packed does not apply to mode object");
}

#[test]
fn a_parameter_of_another_suite_is_refused() {
    let m = refusal(&and(&["--block", "1MiB"])).unwrap();
    assert_eq!(
        m,
        "flag --block is not a parameter of suite rpc (its parameters: mode, compression, reuse)"
    );
}

#[test]
fn a_fixture_is_refused_by_a_suite_that_takes_none() {
    for fixture in ["--input", "--work-dir", "--out-dir"] {
        let m = refusal(&and(&[fixture, "/tmp/x"])).unwrap();
        assert_eq!(
            m,
            format!(
                "flag {fixture} is a fixture that suite rpc does not take (its fixtures: none)"
            )
        );
    }
}

#[test]
fn a_flag_of_no_suite_is_unknown() {
    assert_eq!(
        refusal(&and(&["--colour", "blue"])).unwrap(),
        "unknown flag --colour"
    );
}

#[test]
fn a_case_of_another_suite_is_not_in_the_suite() {
    let m = refusal(&with("--case", Some("memcpy"))).unwrap();
    assert_eq!(
        m,
        "case 'memcpy' is not in suite rpc (one of: carsales, catrank, eval)"
    );
}

#[test]
fn suites_are_found_by_name_only() {
    let names: Vec<&str> = SUITES.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["rpc", "limit", "codec", "queue", "readbytes"]);
    assert!(find("rpc").is_some());
    assert!(find("memcpy").is_none());
}

#[test]
fn list_has_a_line_per_cell_of_each_suite_and_no_refused_cell() {
    let rpc_lines = SUITES[0].list();
    let expected: usize = rpc::SUITE
        .libs
        .iter()
        .map(|l| {
            // object: one compression (none); the other modes: every compression.
            let compressions = l.values(&rpc::SUITE.params[1]).len();
            rpc::SUITE.cases.len() * 2 * (1 + 3 * compressions)
        })
        .sum();
    assert_eq!(rpc_lines.len(), expected);
    assert!(rpc_lines
        .iter()
        .all(|l| !(l.contains("\"object\"") && l.contains("\"packed\""))));
    assert_eq!(
        SUITES[1].list(),
        [
            "{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", \"params\": {\"block\": \"16KiB\"}}",
            "{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", \"params\": {\"block\": \"1MiB\"}}",
            "{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", \"params\": {\"block\": \"64MiB\"}}",
        ]
    );
}

#[test]
fn codec_lines_of_list_name_the_format_after_the_library() {
    for suite in SUITES {
        for line in suite.list() {
            let format = line.find("\"format\": ");
            if suite.name() == "codec" {
                let (lib, params) = (line.find("\"lib\": "), line.find("\"params\": "));
                assert!(lib < format && format < params, "{line}");
            } else {
                assert_eq!(format, None, "{line}");
            }
        }
    }
}

#[test]
fn every_library_crate_has_its_locked_version() {
    for suite in SUITES {
        for (krate, version) in suite.versions() {
            assert_ne!(version, "unknown", "{krate} of suite {}", suite.name());
        }
    }
}
