//! The registry's types: a suite with its cases, its parameters and their legal values, its
//! libraries (the suite's library registry: name, the parameter values it supports, the
//! crates of its provenance, factory), the fixtures it takes and its own commands, and a
//! validated run of one of its cells. `list`, `info`, the usage text and the validation of
//! `run` (src/lib.rs) are generated from it. It knows no suite: the suites are listed in
//! src/suites.rs, and each suite's folder declares its own `Suite`.

use crate::error::{Error, Res};
use crate::json::{self, Json};

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
    /// The crates whose versions (Cargo.lock's, by build.rs) are the extra provenance of
    /// this library's results, each under its crate's name.
    pub crates: &'static [&'static str],
    /// Makes what runs a cell of this library (the suite says from what).
    pub make: F,
}

impl<F> Lib<F> {
    /// Its provenance: each of its crates with its locked version.
    pub fn versions(&self) -> Vec<Pair> {
        self.crates
            .iter()
            .map(|&k| (k, locked_version(k)))
            .collect()
    }

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
    /// The suite's own commands, `DRIVER <suite> ARGS...` (queue append|tail).
    pub command: Option<Command>,
}

/// A suite's own commands: `run` gets the arguments after the suite's name; `usage` is its
/// lines of the usage text, each ending in a newline.
pub struct Command {
    pub run: fn(&[String]) -> Result<(), Error>,
    pub usage: &'static str,
}

/// What a library's factory adds to its cells' lines of `list`: the format it writes
/// (codec), if its suite has formats.
pub trait Listed {
    fn format(&self) -> Option<&'static str> {
        None
    }
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
    fn cases(&self) -> &'static [&'static str];
    fn params(&self) -> &'static [Param];
    fn fixtures(&self) -> &'static [&'static str];
    fn lib_names(&self) -> Vec<&'static str>;
    /// The values of `p` that library `lib` (one of `lib_names`) supports.
    fn lib_values(&self, lib: &str, p: &Param) -> &'static [&'static str];
    /// The provenance versions of library `lib`'s results.
    fn lib_versions(&self, lib: &str) -> Vec<Pair>;
    /// The suite's `refuse` and `prepare`.
    fn refuse(&self, case: &str, params: &[Pair]) -> Result<(), String>;
    fn prepare(&self, run: &mut Run) -> Result<(), Error>;
    /// Runs a cell validated against this suite with its library's factory.
    fn run(&self, run: &Run) -> Result<(), Error>;
    /// One line of `list` per cell.
    fn list(&self) -> Vec<String>;
    /// The libraries' provenance versions.
    fn versions(&self) -> Vec<Pair>;
    /// Its part of the usage text.
    fn usage(&self) -> String;
    fn golden(&self) -> Option<&Golden>;
    fn command(&self) -> Option<&Command>;
}

impl<F: Listed + Sync> Suite<F> {
    fn named(&self, lib: &str) -> &'static Lib<F> {
        self.lib(lib)
            .unwrap_or_else(|| panic!("no library {lib} in suite {}", self.name))
    }
}

impl<F: Listed + Sync> AnySuite for Suite<F> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn cases(&self) -> &'static [&'static str] {
        self.cases
    }

    fn params(&self) -> &'static [Param] {
        self.params
    }

    fn fixtures(&self) -> &'static [&'static str] {
        self.fixtures
    }

    fn lib_names(&self) -> Vec<&'static str> {
        Suite::lib_names(self)
    }

    fn lib_values(&self, lib: &str, p: &Param) -> &'static [&'static str] {
        self.named(lib).values(p)
    }

    fn lib_versions(&self, lib: &str) -> Vec<Pair> {
        self.named(lib).versions()
    }

    fn refuse(&self, case: &str, params: &[Pair]) -> Result<(), String> {
        (self.refuse)(case, params)
    }

    fn prepare(&self, run: &mut Run) -> Result<(), Error> {
        (self.prepare)(run)
    }

    fn run(&self, run: &Run) -> Result<(), Error> {
        (self.run)(run, &self.named(run.lib).make)
    }

    fn list(&self) -> Vec<String> {
        self.cells()
            .into_iter()
            .map(|cell| {
                let mut j = Json::default();
                j.str("suite", self.name)
                    .str("case", cell.case)
                    .str("lib", cell.lib);
                if let Some(format) = self.named(cell.lib).make.format() {
                    j.str("format", format);
                }
                j.raw("params", &json::pairs(&cell.params));
                j.text()
            })
            .collect()
    }

    fn versions(&self) -> Vec<Pair> {
        self.libs.iter().flat_map(Lib::versions).collect()
    }

    fn usage(&self) -> String {
        let mut s = format!(
            "  suite {}: --case {} --lib {}\n   ",
            self.name,
            self.cases.join("|"),
            Suite::lib_names(self).join("|")
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

    fn golden(&self) -> Option<&Golden> {
        self.golden.as_ref()
    }

    fn command(&self) -> Option<&Command> {
        self.command.as_ref()
    }
}

/// The version of `krate` in Cargo.lock (a dependency of the driver's), or "unknown".
pub fn locked_version(krate: &str) -> &'static str {
    crate::locked::VERSIONS
        .iter()
        .find(|(name, _)| *name == krate)
        .map_or("unknown", |(_, v)| v)
}
