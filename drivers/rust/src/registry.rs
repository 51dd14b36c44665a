//! The one place that lists what this driver can run: suites, cases, libraries, parameters.
//! `list` prints the same 93 cells, in the same order, as the C++ driver.

use crate::cases::RpcCell;
use crate::rpc;

pub const RPC_CASES: [&str; 3] = ["carsales", "catrank", "eval"];
pub const RPC_MODES: [&str; 4] = ["object", "bytes", "pipe", "pipe-async"];
pub const REUSE_MODES: [&str; 2] = ["reuse", "no-reuse"];

pub type Factory = fn(&str, &str, bool) -> Option<Box<dyn RpcCell>>;

pub struct RpcLib {
    pub name: &'static str,
    pub compressions: &'static [&'static str],
    pub make: Factory,
    /// Extra provenance for results of this library: (key, version).
    pub versions: &'static [(&'static str, &'static str)],
}

pub const CAPNP_VERSION: &str = env!("WB_CAPNP_VERSION");
pub const PROST_VERSION: &str = env!("WB_PROST_VERSION");

pub const RPC_LIBS: [RpcLib; 3] = [
    RpcLib {
        name: "capnp",
        compressions: &["none", "packed"],
        make: rpc::capnp::make_cell,
        versions: &[("capnp", CAPNP_VERSION)],
    },
    RpcLib {
        name: "protobuf",
        compressions: &["none"],
        make: rpc::protobuf::make_cell,
        versions: &[("prost", PROST_VERSION)],
    },
    RpcLib {
        name: "null",
        compressions: &["none"],
        make: rpc::null::make_cell,
        versions: &[],
    },
];

pub fn find_rpc_lib(name: &str) -> Option<&'static RpcLib> {
    RPC_LIBS.iter().find(|l| l.name == name)
}

pub const MEMCPY_BLOCKS: [(&str, usize); 3] =
    [("16KiB", 16 << 10), ("1MiB", 1 << 20), ("64MiB", 64 << 20)];

/// One line of `list` per cell, in a stable order.
pub fn list_cells() -> Vec<String> {
    let mut lines = Vec::new();
    for case in RPC_CASES {
        for lib in &RPC_LIBS {
            for mode in RPC_MODES {
                for &compression in lib.compressions {
                    if mode == "object" && compression != "none" {
                        continue; // nothing to compress
                    }
                    for reuse in REUSE_MODES {
                        lines.push(format!(
                            "{{\"suite\": \"rpc\", \"case\": \"{case}\", \"lib\": \"{}\", \
                             \"params\": {{\"mode\": \"{mode}\", \"compression\": \
                             \"{compression}\", \"reuse\": \"{reuse}\"}}}}",
                            lib.name
                        ));
                    }
                }
            }
        }
    }
    for (block, _) in MEMCPY_BLOCKS {
        lines.push(format!(
            "{{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", \
             \"params\": {{\"block\": \"{block}\"}}}}"
        ));
    }
    lines
}
