//! Suite `limit` (docs/protocol.md): how fast this machine does what every library's work
//! is bounded by. Its one case is memcpy: how fast it copies a block of `--block` bytes.
//! Each library is one file whose factory makes a `Sampler` for a block size.

mod memcpy;

use crate::error::Error;
use crate::json::Json;
use crate::registry::{Lib, Listed, Param, Role, Run, Suite};
use crate::result::{self, Metric};
use crate::timing::{self, Sampler};

/// A library's factory: what copies blocks of the given size, timed by timing::measure.
pub type Factory = fn(block: usize) -> Box<dyn Sampler>;

impl Listed for Factory {}

/// The limit suite in the registry (src/registry.rs), with its library registry.
pub static SUITE: Suite<Factory> = Suite {
    name: "limit",
    cases: &["memcpy"],
    params: &[Param {
        name: "block",
        values: &["16KiB", "1MiB", "64MiB"],
        cases: &[],
    }],
    libs: &[Lib {
        name: "memcpy",
        supports: &[],
        crates: &[],
        make: memcpy::make,
    }],
    fixtures: &[],
    refuse: |_, _| Ok(()),
    prepare,
    run,
    golden: None,
    command: None,
};

/// The bytes of a block size: a number then KiB or MiB.
fn block_bytes(name: &str) -> usize {
    let (n, shift) = match name.strip_suffix("KiB") {
        Some(n) => (n, 10),
        None => (
            name.strip_suffix("MiB")
                .expect("a block size in KiB or MiB"),
            20,
        ),
    };
    n.parse::<usize>().expect("a block size") << shift
}

/// A limit cell runs in one process, with no peer.
fn prepare(run: &mut Run) -> Result<(), Error> {
    match run.role {
        None | Some(Role::Local) => {
            run.role = Some(Role::Local);
            Ok(())
        }
        Some(role) => Err(crate::error::usage(format!(
            "--role {} is not possible in suite limit (its cells are local)",
            role.name()
        ))),
    }
}

fn run(run: &Run, make: &Factory) -> Result<(), Error> {
    let block = block_bytes(run.param("block"));
    let mut sampler = make(block);
    let ns = timing::measure(run, sampler.as_mut())?;
    let bytes = vec![run.iters.wrapping_mul(block as u64); ns.len()];
    let check = vec![block as u64; ns.len()];
    let mut evidence = Json::default();
    // One comparison of the copy with its source per sample.
    evidence
        .list("check", &check)
        .num("responses_checked", run.samples);
    result::print_result(
        run,
        "local",
        &[
            Metric {
                name: "time",
                unit: "ns",
                iters: run.iters,
                samples: &ns,
            },
            Metric {
                name: "bytes",
                unit: "B",
                iters: run.iters,
                samples: &bytes,
            },
        ],
        &evidence,
    );
    Ok(())
}
