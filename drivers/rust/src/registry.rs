//! The registry: every suite this driver runs, each with its cases, its parameters and
//! their legal values, its libraries (the suite's library registry: name, the parameter
//! values it supports, provenance versions, factory) and the fixtures it takes. `list`,
//! `info`, the usage text and the validation of `run` (main.rs) are generated from it;
//! nothing else knows which suites, cases or libraries there are.
//!
//! A suite is one folder (src/rpc, src/codec, src/limit, src/queue, src/readbytes) that
//! declares its `Suite` and one line in `SUITES`.

use crate::error::{Error, Res};
use crate::json::{self, Json};
use crate::{codec, limit, queue, readbytes, rpc};

/// The suites, in the order of `list` and `info`.
pub static SUITES: [&dyn AnySuite; 5] = [
    &rpc::SUITE,
    &limit::SUITE,
    &codec::SUITE,
    &queue::SUITE,
    &readbytes::SUITE,
];

/// The fixture flags the command line knows (docs/protocol.md); a suite declares the ones
/// it takes and refuses the others.
pub const FIXTURES: [&str; 3] = ["input", "work-dir", "out-dir"];

/// A name and its value: a parameter and its value, or a provenance key and its version.
pub type Pair = (&'static str, &'static str);

/// A cell parameter of a suite, passed as `--NAME VALUE`, with its legal values in the
/// order of `list`.
pub struct Param {
    pub name: &'static str,
    pub values: &'static [&'static str],
    /// The cases that take it (queue's `rate`: paced only); empty: every case.
    pub cases: &'static [&'static str],
}

impl Param {
    /// Whether a cell of `case` takes this parameter.
    pub fn applies_to(&self, case: &str) -> bool {
        self.cases.is_empty() || self.cases.contains(&case)
    }
}

/// A library of a suite, `F` being the suite's factory type.
pub struct Lib<F: 'static> {
    pub name: &'static str,
    /// Parameters whose legal values this library narrows (capnp's compressions), with
    /// the values it supports in the order of `list`; any other parameter takes all of
    /// its suite's values.
    pub supports: &'static [(&'static str, &'static [&'static str])],
    /// The extra provenance of this library's results: (key, version).
    pub versions: &'static [(&'static str, &'static str)],
    /// Makes what runs a cell of this library (the suite says from what).
    pub make: F,
}

impl<F> Lib<F> {
    /// The values of `p` that this library supports.
    pub fn values(&self, p: &Param) -> &'static [&'static str] {
        self.supports
            .iter()
            .find(|(name, _)| *name == p.name)
            .map_or(p.values, |(_, values)| values)
    }
}

/// The role of a run: `--role local|client|server`, or none (an rpc pipe cell with a
/// server of its own).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    Local,
    Client,
    Server,
}

impl Role {
    pub const NAMES: [&'static str; 3] = ["local", "client", "server"];

    pub fn name(self) -> &'static str {
        match self {
            Role::Local => "local",
            Role::Client => "client",
            Role::Server => "server",
        }
    }

    pub fn from_name(name: &str) -> Option<Role> {
        match name {
            "local" => Some(Role::Local),
            "client" => Some(Role::Client),
            "server" => Some(Role::Server),
            _ => None,
        }
    }
}

/// One validated `run`: the cell, its role, its counts.
#[derive(Debug)]
pub struct Run {
    pub suite: &'static str,
    pub case: &'static str,
    pub lib: &'static str,
    /// Every parameter of the suite with its value, in the suite's order.
    pub params: Vec<Pair>,
    /// Provenance: the compiler and the library's versions.
    pub versions: Vec<Pair>,
    /// None: a pipe cell with a server of its own (the suite's `prepare` decides).
    pub role: Option<Role>,
    /// The pipe ends of a client or a server, else -1.
    pub in_fd: i32,
    pub out_fd: i32,
    /// Iterations per sample, samples, warm-up iterations (a server ignores them).
    pub iters: u64,
    pub samples: u64,
    pub warmup: u64,
    /// The fixture flags given (only ones the suite takes).
    pub fixtures: Vec<(&'static str, String)>,
}

impl Run {
    /// The value of the suite's parameter `name`.
    pub fn param(&self, name: &str) -> &'static str {
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("parameter {name} is not in suite {}", self.suite))
    }
}

/// One golden file written, checked or skipped.
pub struct GoldenFile {
    /// The file name inside the directory.
    pub name: String,
    pub messages: u64,
    pub bytes: u64,
    pub skipped: bool,
    /// A codec file checked: the libraries that decoded it, and whether its bytes equal
    /// this driver's own encoding.
    pub libs: Vec<&'static str>,
    pub same_bytes: Option<bool>,
}

/// What a golden command calls with every file written, checked or skipped.
pub type Report<'a> = &'a mut dyn FnMut(&GoldenFile);

/// `golden write DIR` and `golden check DIR` of a suite that has golden files; each
/// reports every file as it goes.
pub struct Golden {
    pub write: fn(&str, Report<'_>) -> Res<()>,
    pub check: fn(&str, Report<'_>) -> Res<()>,
}

/// A suite, `F` being the factory type of its libraries.
pub struct Suite<F: 'static> {
    pub name: &'static str,
    pub cases: &'static [&'static str],
    pub params: &'static [Param],
    pub libs: &'static [Lib<F>],
    /// The fixture flags this suite takes (of FIXTURES).
    pub fixtures: &'static [&'static str],
    /// Why a combination of legal parameter values is not a cell of the case (`list`
    /// leaves it out, `run` refuses it), or Ok.
    pub refuse: fn(case: &str, &[Pair]) -> Result<(), String>,
    /// Checks the run's role against its parameters and gives a run without --role its
    /// default role.
    pub prepare: fn(&mut Run) -> Result<(), Error>,
    /// Runs one validated cell with its library's factory and prints its result.
    pub run: fn(&Run, &F) -> Result<(), Error>,
    pub golden: Option<Golden>,
}

impl<F> Suite<F> {
    pub fn lib(&self, name: &str) -> Option<&'static Lib<F>> {
        self.libs.iter().find(|l| l.name == name)
    }

    pub fn lib_names(&self) -> Vec<&'static str> {
        self.libs.iter().map(|l| l.name).collect()
    }

    /// Every cell: case, library, then every parameter of the case in its order with the
    /// values the library supports, less what `refuse` refuses.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for &case in self.cases {
            for lib in self.libs {
                let mut combinations = vec![Vec::new()];
                for p in self.params.iter().filter(|p| p.applies_to(case)) {
                    combinations = combinations
                        .into_iter()
                        .flat_map(|head: Vec<Pair>| {
                            lib.values(p).iter().map(move |&v| {
                                let mut params = head.clone();
                                params.push((p.name, v));
                                params
                            })
                        })
                        .collect();
                }
                for params in combinations {
                    if (self.refuse)(case, &params).is_ok() {
                        cells.push(Cell {
                            case,
                            lib: lib.name,
                            params,
                        });
                    }
                }
            }
        }
        cells
    }
}

/// One line of `list`.
pub struct Cell {
    pub case: &'static str,
    pub lib: &'static str,
    pub params: Vec<Pair>,
}

/// A suite as the command line sees it, whatever its factory type.
pub trait AnySuite: Sync {
    fn name(&self) -> &'static str;
    fn params(&self) -> &'static [Param];
    /// One line of `list` per cell.
    fn list(&self) -> Vec<String>;
    /// The libraries' provenance versions.
    fn versions(&self) -> Vec<Pair>;
    /// Its part of the usage text.
    fn usage(&self) -> String;
    /// Validates `run`'s flags against this suite (main.rs) and runs the cell.
    fn run(&self, args: &crate::Args) -> Result<(), Error>;
    fn golden(&self) -> Option<&Golden>;
}

impl<F: Sync> AnySuite for Suite<F> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn params(&self) -> &'static [Param] {
        self.params
    }

    fn list(&self) -> Vec<String> {
        self.cells()
            .into_iter()
            .map(|cell| {
                let mut j = Json::default();
                j.str("suite", self.name)
                    .str("case", cell.case)
                    .str("lib", cell.lib)
                    .raw("params", &json::pairs(&cell.params));
                j.text()
            })
            .collect()
    }

    fn versions(&self) -> Vec<Pair> {
        self.libs
            .iter()
            .flat_map(|l| l.versions.iter().copied())
            .collect()
    }

    fn usage(&self) -> String {
        let mut s = format!(
            "  suite {}: --case {} --lib {}\n   ",
            self.name,
            self.cases.join("|"),
            self.lib_names().join("|")
        );
        for p in self.params {
            s.push_str(&format!(" --{} {}", p.name, p.values.join("|")));
            if !p.cases.is_empty() {
                s.push_str(&format!(" ({})", p.cases.join(", ")));
            }
        }
        s.push('\n');
        s
    }

    fn run(&self, args: &crate::Args) -> Result<(), Error> {
        let (run, lib) = crate::validate(self, args)?;
        (self.run)(&run, &lib.make)
    }

    fn golden(&self) -> Option<&Golden> {
        self.golden.as_ref()
    }
}

/// The suite called `name`.
pub fn find_suite(name: &str) -> Option<&'static dyn AnySuite> {
    SUITES.iter().copied().find(|s| s.name() == name)
}

pub fn suite_names() -> Vec<&'static str> {
    SUITES.iter().map(|s| s.name()).collect()
}
