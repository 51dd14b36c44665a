//! The codec workload against testdata/codec (records, folds, canonical JSON) and every
//! library's variants: round trips of both cases, digests, truncated input.

use super::records::{self, Case, Log, Logs};
use super::{ops, Aligned, Op, Variant, SUITE};

fn testdata(name: &str) -> Vec<u8> {
    let path = format!("{}/../../testdata/codec/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn records_equal_the_canonical_json() {
    let log: Log = ::serde_json::from_slice(&testdata("log.json")).unwrap();
    assert_eq!(log, records::log());
    let logs: Logs = ::serde_json::from_slice(&testdata("logs.json")).unwrap();
    assert_eq!(logs.logs.len(), records::BATCH);
    assert_eq!(logs.logs, records::logs(records::BATCH));
}

#[test]
fn folds_equal_checks_json() {
    let checks: ::serde_json::Value = ::serde_json::from_slice(&testdata("checks.json")).unwrap();
    for &name in SUITE.cases {
        let case = Case::new(name);
        assert_eq!(
            case.fold as i64,
            checks[name]["fold"].as_i64().unwrap(),
            "{name}"
        );
        assert_eq!(
            case.records.len() as u64,
            checks[name]["records"].as_u64().unwrap()
        );
    }
}

/// Every listed cell's variant of every library: its encoding decodes to the workload,
/// deserialize and access fold it.
#[test]
fn every_cell_round_trips_both_cases() {
    for &name in SUITE.cases {
        let case = Case::new(name);
        for cell in SUITE.cells().iter().filter(|c| c.case == name) {
            let lib = SUITE.lib(cell.lib).unwrap();
            let v = Variant {
                reused: super::param(&cell.params, "buffer") == "reused",
                borrowed: super::param(&cell.params, "strings") == "borrowed",
                validation: match super::param(&cell.params, "validation") {
                    "validated" => super::Validation::Validated,
                    "lazy" => super::Validation::Lazy,
                    _ => super::Validation::Unchecked,
                },
                packed: super::param(&cell.params, "packing") == "packed",
                compact: super::param(&cell.params, "packing") == "compact",
            };
            let what = format!("{name} {} {:?}", cell.lib, cell.params);
            let c = (lib.make.cell)();
            // (Bytes may differ between buffer variants: capnp's fresh builder grows
            // segments where the reused scratch holds one.)
            let bytes = c.encode(&case, v).unwrap();
            assert!(
                c.decode(&case, v, &bytes).unwrap() == case.records,
                "{what}"
            );
            let input = Aligned::from(&bytes);
            for op in ops(lib, &cell.params) {
                if matches!(op, Op::Deserialize | Op::Access) {
                    let fold = c.fold(&case, v, op, input.bytes()).unwrap();
                    assert_eq!(fold, case.fold, "{what} {op:?}");
                }
            }
        }
    }
}

/// A truncated encoding is an error from every library's deserialize and access (first
/// cells: no `unchecked`), never a panic.
#[test]
fn a_truncated_encoding_is_an_error() {
    for &name in records::GOLDEN {
        let case = Case::new(name);
        for lib in SUITE.libs {
            let v = Variant::first(lib);
            let bytes = (lib.make.cell)().encode(&case, v).unwrap();
            // Not just the last byte: a FlatBuffer may end in padding no reader needs.
            for cut in [1, bytes.len() / 2, bytes.len() - 16] {
                let input = Aligned::from(&bytes[..cut]);
                let what = format!("{name} {} cut at {cut}", lib.name);
                let c = (lib.make.cell)();
                // An rkyv archive has no length or framing and its root is at the end, so
                // a prefix can be a valid archive of other values: that is all it can say.
                match c.decode(&case, v, input.bytes()) {
                    Err(_) => {}
                    Ok(r) => assert!(lib.name == "rkyv" && r != case.records, "{what}"),
                }
                for op in [Op::Deserialize, Op::Access] {
                    if op == Op::Access && !lib.make.access {
                        continue;
                    }
                    match c.fold(&case, v, op, input.bytes()) {
                        Err(_) => {}
                        Ok(f) => assert!(lib.name == "rkyv" && f != case.fold, "{what} {op:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn a_cell_differs_from_its_first_in_at_most_one_parameter() {
    for lib in SUITE.libs {
        let mine: Vec<_> = SUITE
            .cells()
            .into_iter()
            .filter(|c| c.lib == lib.name && c.case == "log")
            .collect();
        let first = &mine[0].params;
        for p in SUITE.params {
            assert_eq!(
                super::param(first, p.name),
                lib.values(p)[0],
                "{}",
                lib.name
            );
        }
        for c in &mine[1..] {
            let differing = c.params.iter().zip(first).filter(|(a, b)| a != b).count();
            assert_eq!(differing, 1, "{} {:?}", lib.name, c.params);
        }
        let variants: usize = SUITE.params.iter().map(|p| lib.values(p).len() - 1).sum();
        assert_eq!(mine.len(), 1 + variants, "{}", lib.name);
    }
}

/// capnp's packed cell measures the same message as its first cell: its bytes are the
/// first cell's packed (the library unpacks them to the same bytes), fewer of them, and a
/// truncated packed encoding is an error of deserialize and access, never a panic.
#[test]
fn capnp_packed_is_the_first_cells_message_packed() {
    let lib = SUITE.lib("capnp").unwrap();
    let first = Variant::first(lib);
    let packed = Variant {
        packed: true,
        ..first
    };
    for &name in records::GOLDEN {
        let case = Case::new(name);
        let c = (lib.make.cell)();
        let plain = c.encode(&case, first).unwrap();
        let bytes = c.encode(&case, packed).unwrap();
        assert!(bytes.len() < plain.len(), "{name}");
        let m = ::capnp::serialize_packed::read_message(&bytes[..], Default::default()).unwrap();
        let unpacked = ::capnp::serialize::write_message_segments_to_words(&m.into_segments());
        assert!(
            unpacked == plain,
            "{name}: the packed bytes unpack to other bytes"
        );
        for cut in [1, bytes.len() / 2, bytes.len() - 1] {
            let input = Aligned::from(&bytes[..cut]);
            for op in [Op::Deserialize, Op::Access] {
                assert!(
                    c.fold(&case, packed, op, input.bytes()).is_err(),
                    "{name} cut at {cut} {op:?}"
                );
            }
        }
    }
}
