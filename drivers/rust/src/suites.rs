//! The suites this driver runs, in the order of `list` and `info`. Adding a suite is one
//! folder (src/<suite>/, declaring its `Suite`, src/registry.rs) and one line here.

use crate::registry::AnySuite;
use crate::{codec, limit, queue, readbytes, rpc};

pub static SUITES: [&dyn AnySuite; 5] = [
    &rpc::SUITE,
    &limit::SUITE,
    &codec::SUITE,
    &queue::SUITE,
    &readbytes::SUITE,
];

/// The suite called `name`.
pub fn find(name: &str) -> Option<&'static dyn AnySuite> {
    SUITES.iter().copied().find(|s| s.name() == name)
}

pub fn names() -> Vec<&'static str> {
    SUITES.iter().map(|s| s.name()).collect()
}
