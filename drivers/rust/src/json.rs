//! The JSON this driver prints (docs/protocol.md): one object per line, built field by
//! field, and the results every suite prints: the driver's identity, the cell, named
//! metrics, the suite's evidence and the provenance.

use std::io::Write;

use crate::registry::Run;

/// Protocol version, language, toolchain and program: the driver's identity.
pub const PROTOCOL: u64 = 2;
pub const LANG: &str = "rust";
pub const TOOLCHAIN: &str = "rustc";
pub const DRIVER: &str = "wirebench-rust";

pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An object built field by field, printed on one line.
#[derive(Default)]
pub struct Json {
    body: String,
}

impl Json {
    pub fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        if !self.body.is_empty() {
            self.body.push_str(", ");
        }
        self.body.push_str(&quote(key));
        self.body.push_str(": ");
        self.body.push_str(json);
        self
    }
    pub fn str(&mut self, key: &str, v: &str) -> &mut Self {
        self.raw(key, &quote(v))
    }
    pub fn num(&mut self, key: &str, v: u64) -> &mut Self {
        self.raw(key, &v.to_string())
    }
    pub fn boolean(&mut self, key: &str, v: bool) -> &mut Self {
        self.raw(key, if v { "true" } else { "false" })
    }
    pub fn list<T: ToString>(&mut self, key: &str, v: &[T]) -> &mut Self {
        self.raw(key, &list(v))
    }
    /// Appends the fields of `other`.
    pub fn extend(&mut self, other: &Json) -> &mut Self {
        if !other.body.is_empty() {
            if !self.body.is_empty() {
                self.body.push_str(", ");
            }
            self.body.push_str(&other.body);
        }
        self
    }
    pub fn text(&self) -> String {
        format!("{{{}}}", self.body)
    }
}

pub fn list<T: ToString>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `{"k": "v", ...}`
pub fn pairs(pairs: &[(&str, &str)]) -> String {
    let mut j = Json::default();
    for (k, v) in pairs {
        j.str(k, v);
    }
    j.text()
}

pub fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout leaves nothing to report to; the exit status still tells.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

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
