//! The results every suite prints (docs/protocol.md): the driver's identity, the cell,
//! named metrics, the suite's evidence and the provenance.

use crate::json::{pairs, print_line, Json, DRIVER, LANG, PROTOCOL, TOOLCHAIN};
use crate::registry::Run;

/// A metric of the samples form: one total per timed sample of `iters` iterations.
pub struct Metric<'a> {
    pub name: &'a str,
    pub unit: &'a str,
    pub iters: u64,
    pub samples: &'a [u64],
}

/// What every result starts with: the driver's identity, the cell, the role.
fn header(run: &Run, role: &str) -> Json {
    let mut j = Json::default();
    j.num("protocol", PROTOCOL)
        .str("lang", LANG)
        .str("toolchain", TOOLCHAIN)
        .str("driver", DRIVER)
        .str("suite", run.suite)
        .str("case", run.case)
        .str("lib", run.lib)
        .raw("params", &pairs(&run.params))
        .str("role", role);
    j
}

/// A local or client result: the cell, the warm-up, the metrics, the suite's evidence
/// (its own fields, such as rpc's `check` and `responses_checked`) and the provenance.
/// Only a verified run prints one.
pub fn print_result(run: &Run, role: &str, metrics: &[Metric<'_>], evidence: &Json) {
    let mut m = Json::default();
    for metric in metrics {
        let mut one = Json::default();
        one.str("unit", metric.unit)
            .num("iters", metric.iters)
            .list("samples", metric.samples);
        m.raw(metric.name, &one.text());
    }
    print_metrics(run, role, &m, evidence);
}

/// `print_result` with the metrics object built by the suite (metrics of several forms).
pub fn print_metrics(run: &Run, role: &str, metrics: &Json, evidence: &Json) {
    let mut j = header(run, role);
    j.num("warmup", run.warmup)
        .boolean("verified", true)
        .raw("metrics", &metrics.text())
        .extend(evidence)
        .raw("versions", &pairs(&run.versions));
    print_line(&j.text());
}

/// A server's result: the cell and the suite's counts.
pub fn print_server(run: &Run, counts: &Json) {
    let mut j = header(run, "server");
    j.extend(counts)
        .boolean("verified", true)
        .raw("versions", &pairs(&run.versions));
    print_line(&j.text());
}
