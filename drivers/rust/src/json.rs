//! The JSON this driver prints (docs/protocol.md): one object per line, built field by
//! field, and the driver's identity.

use std::io::Write;

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
