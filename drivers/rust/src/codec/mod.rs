//! Suite `codec` (docs/protocol.md): one log record and a batch of 1000, encoded by every
//! library: populate, serialize, deserialize, access, size and allocations.
//!
//! - mod.rs (this file): the suite in the registry (cases, the four variant parameters,
//!   the rule that a cell differs from its library's first in at most one parameter) with
//!   its library registry; `Codec`, the narrow interface a library implements; and what is
//!   written once on top of it: the timed loops of the four operations, their checks, the
//!   allocation pass and the result.
//! - records.rs: the records, the generator and the fold; golden.rs: `golden write|check`.
//! - One file per library, the library's own work only.

pub mod apache_avro;
pub mod bincode;
pub mod bitcode;
pub mod bson;
pub mod capnp;
pub mod ciborium;
pub mod flatbuffers;
mod golden;
pub mod null;
mod plain;
pub mod postcard;
pub mod prost;
pub mod records;
pub mod rkyv;
pub mod rmp_serde;
pub mod rust_protobuf;
pub mod sbe;
pub mod serde_json;
mod signed;
pub mod simd_json;
pub mod sonic_rs;
#[cfg(test)]
mod tests;
pub mod thrift;

use std::hint::black_box;
use std::marker::PhantomData;

use crate::alloc_count;
use crate::error::{usage, Error, Failure, Res};
use crate::json::Json;
use crate::registry::{Golden, Lib, Listed, Pair, Param, Role, Run, Suite};
use crate::result;
use crate::timing::{self, Sampler};
use records::{Case, Log};

// ---- the suite and its library registry --------------------------------------------------

/// What the registry knows of a library: the format it writes (golden files), whether it
/// has a zero-copy view (`access`), and its cell.
pub struct Make {
    pub format: &'static str,
    pub access: bool,
    pub cell: fn() -> Box<dyn Cell>,
}

impl Listed for Make {
    fn format(&self) -> Option<&'static str> {
        Some(self.format)
    }
}

const REUSED: &[&str] = &["reused", "fresh"];
const OWNED: &[&str] = &["owned"];
const BOTH: &[&str] = &["owned", "borrowed"];
const VALIDATED: &[&str] = &["validated"];
/// `packing` is Cap'n Proto's (`packed`) and Thrift's (`compact`: its compact protocol,
/// `unpacked` its binary protocol); every other format has only its one encoding.
const UNPACKED: &[&str] = &["unpacked"];

/// The codec suite in the registry (src/registry.rs). `libs` is its library registry, in
/// the order of `list`; each library's first value of every parameter is its default
/// cell's (reused, owned, its safe validation, unpacked).
pub static SUITE: Suite<Make> = Suite {
    name: "codec",
    cases: &["log", "logs1", "logs10", "logs100", "logs", "logs10000"],
    params: &[
        Param {
            name: "buffer",
            values: &["reused", "fresh"],
            cases: &[],
        },
        Param {
            name: "strings",
            values: &["owned", "borrowed"],
            cases: &[],
        },
        Param {
            name: "validation",
            values: &["validated", "lazy", "unchecked"],
            cases: &[],
        },
        Param {
            name: "packing",
            values: &["unpacked", "packed", "compact"],
            cases: &[],
        },
    ],
    libs: &[
        Lib {
            name: "null",
            supports: &[
                ("buffer", REUSED),
                ("strings", BOTH),
                ("validation", &["lazy"]),
                ("packing", UNPACKED),
            ],
            crates: &[],
            make: Make {
                format: "null",
                access: true,
                cell: cell::<null::Null>,
            },
        },
        Lib {
            name: "serde_json",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["serde_json"],
            make: Make {
                format: "json",
                access: false,
                cell: cell::<plain::Serde<serde_json::SerdeJson>>,
            },
        },
        Lib {
            name: "simd-json",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["simd-json"],
            make: Make {
                format: "json",
                access: false,
                cell: cell::<simd_json::SimdJson>,
            },
        },
        Lib {
            name: "sonic-rs",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["sonic-rs"],
            make: Make {
                format: "json",
                access: false,
                cell: cell::<plain::Serde<sonic_rs::SonicRs>>,
            },
        },
        Lib {
            name: "prost",
            supports: &[
                ("strings", OWNED),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["prost"],
            make: Make {
                format: "protobuf",
                access: false,
                cell: cell::<prost::Prost>,
            },
        },
        Lib {
            name: "rust-protobuf",
            supports: &[
                ("strings", OWNED),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["protobuf"],
            make: Make {
                format: "protobuf",
                access: false,
                cell: cell::<rust_protobuf::RustProtobuf>,
            },
        },
        Lib {
            name: "capnp",
            supports: &[
                ("strings", BOTH),
                ("validation", &["lazy"]),
                ("packing", &["unpacked", "packed"]),
            ],
            crates: &["capnp"],
            make: Make {
                format: "capnp",
                access: true,
                cell: cell::<capnp::Capnp>,
            },
        },
        Lib {
            name: "flatbuffers",
            supports: &[
                ("strings", BOTH),
                ("validation", &["validated", "unchecked"]),
                ("packing", UNPACKED),
            ],
            crates: &["flatbuffers"],
            make: Make {
                format: "flatbuffers",
                access: true,
                cell: cell::<flatbuffers::Flatbuffers>,
            },
        },
        Lib {
            name: "rmp-serde",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["rmp-serde"],
            make: Make {
                format: "msgpack",
                access: false,
                cell: cell::<plain::Serde<rmp_serde::RmpSerde>>,
            },
        },
        Lib {
            name: "bincode",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["bincode"],
            make: Make {
                format: "bincode",
                access: false,
                cell: cell::<bincode::Bincode>,
            },
        },
        Lib {
            name: "bitcode",
            supports: &[
                ("strings", OWNED),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["bitcode"],
            make: Make {
                format: "bitcode",
                access: false,
                cell: cell::<bitcode::Bitcode>,
            },
        },
        Lib {
            name: "postcard",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["postcard"],
            make: Make {
                format: "postcard",
                access: false,
                cell: cell::<postcard::Postcard>,
            },
        },
        Lib {
            name: "rkyv",
            supports: &[
                ("strings", OWNED),
                ("validation", &["validated", "unchecked"]),
                ("packing", UNPACKED),
            ],
            crates: &["rkyv"],
            make: Make {
                format: "rkyv",
                access: true,
                cell: cell::<rkyv::Rkyv>,
            },
        },
        Lib {
            name: "ciborium",
            supports: &[
                ("strings", OWNED),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["ciborium"],
            make: Make {
                format: "cbor",
                access: false,
                cell: cell::<ciborium::Ciborium>,
            },
        },
        Lib {
            name: "bson",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["bson"],
            make: Make {
                format: "bson",
                access: false,
                cell: cell::<bson::Bson>,
            },
        },
        Lib {
            name: "apache-avro",
            supports: &[
                ("strings", OWNED),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["apache-avro"],
            make: Make {
                format: "avro",
                access: false,
                cell: cell::<apache_avro::ApacheAvro>,
            },
        },
        Lib {
            name: "thrift",
            supports: &[
                ("strings", OWNED),
                ("validation", VALIDATED),
                ("packing", &["unpacked", "compact"]),
            ],
            crates: &["thrift"],
            make: Make {
                format: "thrift",
                access: false,
                cell: cell::<thrift::Thrift>,
            },
        },
        Lib {
            name: "sbe",
            supports: &[
                ("strings", BOTH),
                ("validation", VALIDATED),
                ("packing", UNPACKED),
            ],
            crates: &["sbe-tool"],
            make: Make {
                format: "sbe",
                access: true,
                cell: cell::<sbe::Sbe>,
            },
        },
    ],
    fixtures: &["out-dir"],
    refuse,
    prepare,
    run,
    golden: Some(Golden {
        write: golden::write,
        check: golden::check,
    }),
    command: None,
};

fn param<'a>(params: &[(&str, &'a str)], name: &str) -> &'a str {
    params.iter().find(|(n, _)| *n == name).map_or("", |p| p.1)
}

/// A cell is its library's first (reused, owned, its one safe validation, unpacked) or
/// differs from it in exactly one parameter (docs/protocol.md, suite codec); the size
/// axis's other batches have the first cell only.
fn refuse(case: &str, params: &[Pair]) -> Result<(), String> {
    let differing = [
        param(params, "buffer") != "reused",
        param(params, "strings") != "owned",
        param(params, "validation") == "unchecked",
        param(params, "packing") != "unpacked",
    ];
    if !records::GOLDEN.contains(&case) && differing.contains(&true) {
        return Err(format!(
            "case {case} is on the size axis, which has each library's first cell only"
        ));
    }
    if differing.iter().filter(|d| **d).count() > 1 {
        return Err(format!(
            "buffer {}, strings {}, validation {} and packing {}: a codec cell differs \
             from its library's first cell in at most one parameter",
            param(params, "buffer"),
            param(params, "strings"),
            param(params, "validation"),
            param(params, "packing")
        ));
    }
    Ok(())
}

/// A codec cell runs in one process, with no peer.
fn prepare(run: &mut Run) -> Result<(), Error> {
    match run.role {
        None | Some(Role::Local) => {
            run.role = Some(Role::Local);
            Ok(())
        }
        Some(role) => Err(usage(format!(
            "--role {} is not possible in suite codec (its cells are local)",
            role.name()
        ))),
    }
}

// ---- the library interface -----------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Validation {
    Validated,
    Lazy,
    Unchecked,
}

/// A cell's variant (docs/protocol.md, suite codec).
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// `buffer reused`: output memory (buffer, builder) kept and reset; else fresh.
    pub reused: bool,
    /// `strings borrowed`: deserialized strings point into the input; else owned.
    pub borrowed: bool,
    pub validation: Validation,
    /// `packing packed`: Cap'n Proto's packed encoding; else the format's own.
    pub packed: bool,
    /// `packing compact`: Thrift's compact protocol; else its binary protocol.
    pub compact: bool,
}

impl Variant {
    fn of(run: &Run) -> Variant {
        Variant {
            reused: run.param("buffer") == "reused",
            borrowed: run.param("strings") == "borrowed",
            validation: match run.param("validation") {
                "validated" => Validation::Validated,
                "lazy" => Validation::Lazy,
                _ => Validation::Unchecked,
            },
            packed: run.param("packing") == "packed",
            compact: run.param("packing") == "compact",
        }
    }

    /// A library's first cell.
    pub fn first(lib: &Lib<Make>) -> Variant {
        let value = |i: usize| lib.values(&SUITE.params[i])[0];
        Variant {
            reused: value(0) == "reused",
            borrowed: value(1) == "borrowed",
            validation: match value(2) {
                "validated" => Validation::Validated,
                "lazy" => Validation::Lazy,
                _ => Validation::Unchecked,
            },
            packed: value(3) == "packed",
            compact: value(3) == "compact",
        }
    }
}

/// One library's work on the codec cases, with a variant fixed when it is made. A value
/// holds what the library keeps between iterations (its native form, builders, output
/// buffer). The shared loops call it through generics, so each is compiled per library.
/// `case.batch` says whether the message is `Logs` or a single `Log`. Every error is a
/// failed run (exit 1); no input makes a library panic.
pub trait Codec: 'static {
    fn new(v: Variant) -> Self;
    /// populate: the library's native form built from the plain records.
    fn populate(&mut self, case: &Case) -> Res<()>;
    /// serialize: the last populated native form to bytes, in the output buffer of the
    /// variant (kept and reset, or allocated anew); returns them.
    fn serialize(&mut self, case: &Case) -> Res<&[u8]>;
    /// deserialize: bytes to the complete native form (the plain struct for formats whose
    /// own form is a view), with the variant's strings and validation; returns its fold.
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64>;
    /// access (zero-copy formats, `Make::access`): the fold read through the library's
    /// view of the bytes, with the variant's validation.
    fn access(&mut self, _case: &Case, _bytes: &[u8]) -> Res<u64> {
        Err(Failure::new("this library has no access operation"))
    }
    /// The last populated native form as plain records (checks).
    fn populated(&self, case: &Case) -> Res<Vec<Log>>;
    /// `bytes` decoded the way deserialize decodes them, as plain records (checks and
    /// golden check: a borrowed form cannot outlive its iteration, so the checks decode
    /// the last input again with the same variant).
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>>;
}

/// A library's cell, whatever its type: the run and the golden files' encode and decode.
pub trait Cell {
    fn run(&self, run: &Run, case: &Case, v: Variant, ops: &[Op]) -> Result<(), Error>;
    /// The encoding of the case by the variant (golden write).
    fn encode(&self, case: &Case, v: Variant) -> Res<Vec<u8>>;
    /// `bytes` decoded by the variant (golden check).
    fn decode(&self, case: &Case, v: Variant, bytes: &[u8]) -> Res<Vec<Log>>;
    /// One deserialize or access of `bytes` by the variant: its fold (tests, fuzzing).
    fn fold(&self, case: &Case, v: Variant, op: Op, bytes: &[u8]) -> Res<u64>;
}

/// The cell of library type `C`, for the registry.
pub fn cell<C: Codec>() -> Box<dyn Cell> {
    Box::new(Of::<C>(PhantomData))
}

struct Of<C>(PhantomData<fn() -> C>);

impl<C: Codec> Cell for Of<C> {
    fn run(&self, run: &Run, case: &Case, v: Variant, ops: &[Op]) -> Result<(), Error> {
        run_cell::<C>(run, case, v, ops)
    }
    fn encode(&self, case: &Case, v: Variant) -> Res<Vec<u8>> {
        let mut lib = C::new(v);
        lib.populate(case)?;
        Ok(lib.serialize(case)?.to_vec())
    }
    fn decode(&self, case: &Case, v: Variant, bytes: &[u8]) -> Res<Vec<Log>> {
        C::new(v).decode(case, Aligned::from(bytes).bytes())
    }
    fn fold(&self, case: &Case, v: Variant, op: Op, bytes: &[u8]) -> Res<u64> {
        let mut lib = C::new(v);
        if op == Op::Access {
            lib.access(case, bytes)
        } else {
            lib.deserialize(case, bytes)
        }
    }
}

// ---- the loops, written once -----------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Populate,
    Serialize,
    Deserialize,
    Access,
}

impl Op {
    pub const ALL: [Op; 4] = [Op::Populate, Op::Serialize, Op::Deserialize, Op::Access];

    pub fn name(self) -> &'static str {
        match self {
            Op::Populate => "populate",
            Op::Serialize => "serialize",
            Op::Deserialize => "deserialize",
            Op::Access => "access",
        }
    }
}

/// The operations a cell measures: all of the library's in its first cell, else those
/// the one differing parameter governs (buffer: populate and serialize; strings:
/// deserialize; validation: deserialize and access; packing: all but populate).
pub fn ops(lib: &Lib<Make>, params: &[Pair]) -> Vec<Op> {
    let differing = SUITE
        .params
        .iter()
        .find(|p| param(params, p.name) != lib.values(p)[0])
        .map(|p| p.name);
    Op::ALL
        .into_iter()
        .filter(|&op| op != Op::Access || lib.make.access)
        .filter(|&op| {
            matches!(
                (differing, op),
                (None, _)
                    | (Some("buffer"), Op::Populate | Op::Serialize)
                    | (Some("strings"), Op::Deserialize)
                    | (Some("validation"), Op::Deserialize | Op::Access)
                    | (
                        Some("packing"),
                        Op::Serialize | Op::Deserialize | Op::Access
                    )
            )
        })
        .collect()
}

/// Bytes in 16-byte aligned memory: the input of deserialize and access, as rkyv's
/// archives and capnp's flat segments need (a file's or a Vec's bytes may be unaligned).
pub struct Aligned {
    words: Vec<u128>,
    len: usize,
}

impl Aligned {
    pub fn from(bytes: &[u8]) -> Aligned {
        let mut words = vec![0u128; bytes.len().div_ceil(16)];
        // SAFETY: `words` holds at least bytes.len() bytes; u128 has no invalid bit patterns.
        let dst =
            unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), bytes.len()) };
        dst.copy_from_slice(bytes);
        Aligned {
            words,
            len: bytes.len(),
        }
    }
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of `words`, initialised in `from`.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
}

fn differ(what: &str, got: &[Log], want: &[Log]) -> Res<()> {
    if got.len() != want.len() {
        return Err(Failure(format!(
            "{what}: {} records, expected {}",
            got.len(),
            want.len()
        )));
    }
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        return Err(Failure(format!(
            "{what}: record {i} differs from the workload's: {:?}, expected {:?}",
            got[i], want[i]
        )));
    }
    Ok(())
}

/// One operation's samples: the timed loop (`iterate`) and its checks (`done`).
struct Measure<'a, C: Codec> {
    lib: &'a mut C,
    case: &'a Case,
    op: Op,
    /// The first serialization: the input of deserialize and access, and what every
    /// later serialize must equal.
    input: &'a Aligned,
    /// This run of iterations' digest: serialize the sizes, else the folds, wrapping.
    digest: u64,
    iters: u64,
    digests: Vec<u64>,
}

impl<C: Codec> Sampler for Measure<'_, C> {
    fn reset(&mut self) {
        self.digest = 0;
    }

    fn iterate(&mut self, n: u64) -> Res<()> {
        let (case, input) = (self.case, self.input.bytes());
        self.iters = n;
        let mut digest = 0u64;
        match self.op {
            Op::Populate => {
                for _ in 0..n {
                    self.lib.populate(case)?;
                    black_box(&mut *self.lib);
                }
            }
            Op::Serialize => {
                for _ in 0..n {
                    digest = digest.wrapping_add(self.lib.serialize(case)?.len() as u64);
                }
            }
            Op::Deserialize => {
                for _ in 0..n {
                    digest = digest.wrapping_add(self.lib.deserialize(case, black_box(input))?);
                }
            }
            Op::Access => {
                for _ in 0..n {
                    digest = digest.wrapping_add(self.lib.access(case, black_box(input))?);
                }
            }
        }
        self.digest = black_box(digest);
        Ok(())
    }

    fn done(&mut self, sample: bool) -> Res<()> {
        let (case, op) = (self.case, self.op.name());
        let want = match self.op {
            Op::Populate => {
                differ(
                    "the populated form",
                    &self.lib.populated(case)?,
                    &case.records,
                )?;
                0
            }
            Op::Serialize => {
                // One more serialize of the last populated form, untimed: the bytes of
                // the last iteration (bitcode's reused buffer gives them only as encode's
                // result).
                let out = self.lib.serialize(case)?.to_vec();
                if out != self.input.bytes() {
                    return Err(Failure(format!(
                        "serialize wrote other bytes ({}) than its first iteration ({})",
                        out.len(),
                        self.input.bytes().len()
                    )));
                }
                let back = self.lib.decode(case, Aligned::from(&out).bytes())?;
                differ("the serialized bytes decoded", &back, &case.records)?;
                self.iters.wrapping_mul(out.len() as u64)
            }
            Op::Deserialize => {
                let back = self.lib.decode(case, self.input.bytes())?;
                differ("the deserialized form", &back, &case.records)?;
                self.iters.wrapping_mul(case.fold)
            }
            Op::Access => self.iters.wrapping_mul(case.fold),
        };
        if self.op != Op::Populate && self.digest != want {
            return Err(Failure(format!(
                "{op} digest {} over {} iterations, expected {}",
                self.digest as i64, self.iters, want as i64
            )));
        }
        if sample {
            self.digests.push(self.digest);
        }
        Ok(())
    }
}

/// What one operation measured: ns and digest per sample, allocations per iteration.
struct Measured {
    op: Op,
    ns: Vec<u64>,
    digests: Vec<u64>,
    allocs: f64,
    alloc_bytes: f64,
}

fn run_cell<C: Codec>(run: &Run, case: &Case, v: Variant, ops: &[Op]) -> Result<(), Error> {
    let mut lib = C::new(v);
    // The first populate and serialize, untimed: the input of deserialize and access,
    // checked before any timing.
    lib.populate(case)?;
    let input = Aligned::from(lib.serialize(case)?);
    let back = lib.decode(case, input.bytes())?;
    differ("the first serialization decoded", &back, &case.records)?;

    let mut results = Vec::new();
    for &op in ops {
        let mut m = Measure {
            lib: &mut lib,
            case,
            op,
            input: &input,
            digest: 0,
            iters: 0,
            digests: Vec::new(),
        };
        let ns = timing::measure(run, &mut m)?;
        // The allocation pass: `iters` more iterations, counted, untimed.
        let counted = alloc_count::count(|| m.iterate(run.iters));
        counted.0?;
        results.push(Measured {
            op,
            ns,
            digests: m.digests,
            allocs: counted.1 as f64 / run.iters as f64,
            alloc_bytes: counted.2 as f64 / run.iters as f64,
        });
    }

    if let Some((_, dir)) = run.fixtures.iter().find(|(f, _)| *f == "out-dir") {
        let path = std::path::Path::new(dir).join(format!("{}.{}", run.case, run.lib));
        std::fs::write(&path, input.bytes())
            .map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    }
    print(run, input.bytes().len() as u64, &results);
    Ok(())
}

fn scalar(unit: &str, value: impl std::fmt::Display) -> String {
    let mut j = Json::default();
    j.str("unit", unit).raw("value", &value.to_string());
    j.text()
}

fn print(run: &Run, size: u64, results: &[Measured]) {
    let mut metrics = Json::default();
    let mut check = Json::default();
    for m in results {
        let op = m.op.name();
        let mut samples = Json::default();
        samples
            .str("unit", "ns")
            .num("iters", run.iters)
            .list("samples", &m.ns);
        metrics.raw(op, &samples.text());
        if m.op != Op::Populate {
            // Digests are printed as signed 64-bit numbers.
            let d: Vec<i64> = m.digests.iter().map(|&d| d as i64).collect();
            check.list(op, &d);
        }
    }
    metrics.raw("size", &scalar("B", size));
    // After every timed and counted pass: the process's peak resident memory so far.
    metrics.raw("peak_rss", &scalar("B", peak_rss_bytes() as f64));
    for m in results {
        let op = m.op.name();
        metrics.raw(&format!("{op}_allocs"), &scalar("allocs", m.allocs));
        metrics.raw(&format!("{op}_alloc_bytes"), &scalar("B", m.alloc_bytes));
    }
    let mut evidence = Json::default();
    evidence.raw("check", &check.text());
    result::print_metrics(run, "local", &metrics, &evidence);
}

fn run(run: &Run, make: &Make) -> Result<(), Error> {
    let lib = SUITE
        .lib(run.lib)
        .expect("a validated run names a library of the registry");
    let case = Case::new(run.case);
    (make.cell)().run(run, &case, Variant::of(run), &ops(lib, &run.params))
}

/// The peak resident set of this process's own memory (/proc/self/status VmHWM). Not
/// getrusage's ru_maxrss: that keeps the peak of the process it was forked from, before
/// exec (the harness's Python, tens of MB).
fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}
