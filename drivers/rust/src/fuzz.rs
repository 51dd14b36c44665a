//! The entry points of the fuzz targets (fuzz/, cargo fuzz; fuzz/README.md). A target's
//! input goes through the driver's real code: the rpc server loop of `--role server` on an
//! in-memory stream, and the codec decoders of `golden check` and of the timed
//! deserialize and access. The first byte of an input picks the case (and variant); the
//! rest is the stream or the encoding. Every error is a clean `Err`; a panic, a hang or an
//! unbounded allocation is a bug. The two targets are generic over the library, which they
//! find in the registry by name (`lib_from_env`), so every registered library is fuzzed.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::registry::AnySuite;

use crate::codec::records::Case;
use crate::codec::{self, Aligned, Op, Validation, Variant};
use crate::rpc;

/// The library of `suite` that a fuzz target fuzzes: its registry name in $WB_FUZZ_LIB,
/// read once per process. Panics (at the first input) naming the suite's libraries if it
/// is missing or not one of them.
pub fn lib_from_env(suite: &str) -> &'static str {
    static LIB: OnceLock<&'static str> = OnceLock::new();
    LIB.get_or_init(|| {
        let suite: &dyn AnySuite = match suite {
            "codec" => &codec::SUITE,
            _ => &rpc::SUITE,
        };
        let names = suite.lib_names();
        let wanted = std::env::var("WB_FUZZ_LIB").unwrap_or_default();
        names
            .iter()
            .copied()
            .find(|&n| n == wanted)
            .unwrap_or_else(|| {
                panic!(
                    "WB_FUZZ_LIB='{wanted}': not a {} library (one of: {})",
                    suite.name(),
                    names.join(", ")
                )
            })
    })
}

/// The rpc server of library `lib` (capnp, protobuf, null) on the stream `data[1..]`, the
/// responses to a sink. `data[0]` picks the case (`% 3`: carsales, catrank, eval), reuse
/// (`/ 3 % 2`) and, for capnp, packed (`/ 6 % 2`). Returns the requests served.
///
/// A server is made once per cell and kept for the process, as a server process keeps
/// one for all its requests (capnp's buffers live as long as the process by design).
pub fn rpc_server(lib: &str, data: &[u8]) -> Result<u64, String> {
    // A global rather than a thread-local: LeakSanitizer sees what globals hold.
    static SERVERS: Mutex<Option<HashMap<String, Box<dyn rpc::Server>>>> = Mutex::new(None);
    let Some((&pick, stream)) = data.split_first() else {
        return Ok(0);
    };
    let l = rpc::SUITE
        .libs
        .iter()
        .find(|l| l.name == lib)
        .unwrap_or_else(|| panic!("no rpc library {lib}"));
    let case = rpc::SUITE.cases[usize::from(pick % 3)];
    let reuse = pick / 3 % 2 == 0;
    let compressions = l.values(&rpc::SUITE.params[1]);
    let compression = compressions[usize::from(pick / 6) % compressions.len()];
    let key = format!("{case} {compression} {reuse}");
    let mut servers = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let server = servers
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| {
            (l.make)(case, compression, reuse)
                .expect("a registered combination")
                .server()
        });
    server.serve(stream).map_err(|e| e.0)
}

/// The codec library `lib` (its registry name) on the encoding `data[1..]` of case
/// `data[0] % 2` (log, logs): decoded by its first cell and compared with the case's
/// records (`golden check`), then deserialized and, if it has access, accessed by each of
/// its variants except `unchecked` (which reads only bytes the library wrote itself), and
/// by its other packings too (capnp: the same bytes read as packed; Thrift: read by the
/// compact protocol).
pub fn codec(lib: &str, data: &[u8]) -> Result<(), String> {
    static CASES: OnceLock<[Case; 2]> = OnceLock::new();
    let Some((&pick, bytes)) = data.split_first() else {
        return Ok(());
    };
    let case = &CASES.get_or_init(|| [Case::new("log"), Case::new("logs")])[usize::from(pick % 2)];
    let l = codec::SUITE
        .libs
        .iter()
        .find(|l| l.name == lib)
        .unwrap_or_else(|| panic!("no codec library {lib}"));
    let cell = (l.make.cell)();
    // `buffer` governs populate and serialize only; `fresh` because a `reused` capnp cell
    // keeps its builder's scratch for the process (made once per run, by design).
    let first = Variant {
        reused: false,
        ..Variant::first(l)
    };
    let mut result = Ok(());
    match cell.decode(case, first, bytes) {
        Ok(records) => {
            if records != case.records {
                result = Err(format!("{} other records", records.len()));
            }
        }
        Err(e) => result = Err(e.0),
    }
    let input = Aligned::from(bytes);
    let ops: &[Op] = if l.make.access {
        &[Op::Deserialize, Op::Access]
    } else {
        &[Op::Deserialize]
    };
    for &strings in l.values(&codec::SUITE.params[1]) {
        for &validation in l.values(&codec::SUITE.params[2]) {
            let validation = match validation {
                "validated" => Validation::Validated,
                "lazy" => Validation::Lazy,
                _ => continue,
            };
            for &packing in l.values(&codec::SUITE.params[3]) {
                let v = Variant {
                    reused: false,
                    borrowed: strings == "borrowed",
                    validation,
                    packed: packing == "packed",
                    compact: packing == "compact",
                };
                for &op in ops {
                    if let Err(e) = cell.fold(case, v, op, input.bytes()) {
                        result = result.and(Err(e.0));
                    }
                }
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use crate::registry::AnySuite;

    /// The library of a fuzz target's name (`codec_simd_json`: codec's `simd-json`), as
    /// run.sh names them: suite, `_`, the library with `-` as `_`.
    fn lib_of(suite: &dyn AnySuite, target: &str) -> Option<&'static str> {
        let lib = target.strip_prefix(suite.name())?.strip_prefix('_')?;
        suite
            .lib_names()
            .into_iter()
            .find(|l| l.replace('-', "_") == lib)
    }

    /// Every input a fuzz target once crashed on (fuzz/regressions/<target>/<what it
    /// found>) now ends in a clean result; a regression aborts or panics the test.
    #[test]
    fn fuzz_regressions() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/regressions");
        let mut inputs = 0;
        for target in std::fs::read_dir(dir).unwrap() {
            let target = target.unwrap();
            let name = target.file_name().into_string().unwrap();
            for input in std::fs::read_dir(target.path()).unwrap() {
                let data = std::fs::read(input.unwrap().path()).unwrap();
                if let Some(lib) = lib_of(&crate::rpc::SUITE, &name) {
                    let _ = super::rpc_server(lib, &data);
                } else {
                    let lib = lib_of(&crate::codec::SUITE, &name)
                        .unwrap_or_else(|| panic!("{name}: no registered library"));
                    let _ = super::codec(lib, &data);
                }
                inputs += 1;
            }
        }
        assert!(inputs > 0);
    }
}
