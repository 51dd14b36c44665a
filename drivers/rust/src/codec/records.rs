//! The codec workload in plain Rust (docs/workloads.md, codec): the records, the `log`
//! record, the `logs` generator and the fold.
//!
//! `Log` is also the native form of every serde-style library (serde_json, simd-json,
//! sonic-rs, rmp-serde, bincode, bitcode, postcard, rkyv): their populate is this plain
//! struct's build, so it carries their derives. Field names and order are the canonical
//! JSON's (camelCase, in the table's order), so serde writes exactly testdata/codec/*.json.
//! Enums are their numbers (u8), as in JSON and MessagePack.

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// The derives of the owned records: serde (serde_json, simd-json, sonic-rs, rmp-serde,
/// postcard), bincode's and bitcode's own, rkyv's.
macro_rules! owned_record {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        #[derive(
            Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize,
            bincode::Encode, bincode::Decode, bitcode::Encode, bitcode::Decode,
            rkyv::Archive, rkyv::Serialize, rkyv::Deserialize,
        )]
        #[serde(rename_all = "camelCase")]
        $(#[$m])*
        pub struct $name { $($body)* }
    };
}

owned_record! {
    pub struct Log {
        pub timestamp: i64,
        pub zone_id: u32,
        pub zone_plan: u8,
        pub http: Http,
        pub origin: Origin,
        pub country: u8,
        pub cache_status: u8,
        pub server_ip: String,
        pub server_name: String,
        pub remote_ip: String,
        pub bytes_dlv: u64,
        pub ray_id: String,
    }
}

owned_record! {
    pub struct Http {
        pub protocol: u8,
        pub status: u16,
        pub host_status: u16,
        pub up_status: u16,
        pub method: u8,
        pub content_type: String,
        pub user_agent: String,
        pub referer: String,
        pub request_uri: String,
    }
}

owned_record! {
    pub struct Origin {
        pub ip: String,
        pub port: u16,
        pub hostname: String,
        pub protocol: u8,
    }
}

owned_record! {
    /// The `logs` message: `{"logs": [...]}`.
    pub struct Logs {
        pub logs: Vec<Log>,
    }
}

/// The borrowed twin of `Log`: strings point into the input (`strings borrowed`).
#[derive(Debug, Deserialize, bincode::BorrowDecode)]
#[serde(rename_all = "camelCase")]
pub struct LogRef<'a> {
    pub timestamp: i64,
    pub zone_id: u32,
    pub zone_plan: u8,
    #[serde(borrow)]
    pub http: HttpRef<'a>,
    #[serde(borrow)]
    pub origin: OriginRef<'a>,
    pub country: u8,
    pub cache_status: u8,
    pub server_ip: &'a str,
    pub server_name: &'a str,
    pub remote_ip: &'a str,
    pub bytes_dlv: u64,
    pub ray_id: &'a str,
}

#[derive(Debug, Deserialize, bincode::BorrowDecode)]
#[serde(rename_all = "camelCase")]
pub struct HttpRef<'a> {
    pub protocol: u8,
    pub status: u16,
    pub host_status: u16,
    pub up_status: u16,
    pub method: u8,
    pub content_type: &'a str,
    pub user_agent: &'a str,
    pub referer: &'a str,
    pub request_uri: &'a str,
}

#[derive(Debug, Deserialize, bincode::BorrowDecode)]
#[serde(rename_all = "camelCase")]
pub struct OriginRef<'a> {
    pub ip: &'a str,
    pub port: u16,
    pub hostname: &'a str,
    pub protocol: u8,
}

#[derive(Debug, Deserialize, bincode::BorrowDecode)]
pub struct LogsRef<'a> {
    #[serde(borrow)]
    pub logs: Vec<LogRef<'a>>,
}

// ---- the fold ----------------------------------------------------------------------------

/// The fold of docs/workloads.md (codec: the fold), accumulated field by field: a wrapping
/// 64-bit sum of every integer, and for each string its length plus its first and last
/// byte.
#[derive(Default, Clone, Copy)]
pub struct Fold(pub u64);

impl Fold {
    #[inline(always)]
    pub fn int(&mut self, v: u64) {
        self.0 = self.0.wrapping_add(v);
    }
    #[inline(always)]
    pub fn str(&mut self, s: &[u8]) {
        let ends = match (s.first(), s.last()) {
            (Some(&a), Some(&b)) => u64::from(a) + u64::from(b),
            _ => 0,
        };
        self.int(s.len() as u64 + ends);
    }
}

/// The fold of one record of `Log` or `LogRef` (the same field names).
macro_rules! fold_record {
    ($f:expr, $r:expr) => {{
        let (f, r) = (&mut $f, &$r);
        f.int(r.timestamp as u64);
        f.int(u64::from(r.zone_id));
        f.int(u64::from(r.zone_plan));
        f.int(u64::from(r.http.protocol));
        f.int(u64::from(r.http.status));
        f.int(u64::from(r.http.host_status));
        f.int(u64::from(r.http.up_status));
        f.int(u64::from(r.http.method));
        f.int(u64::from(r.origin.port));
        f.int(u64::from(r.origin.protocol));
        f.int(u64::from(r.country));
        f.int(u64::from(r.cache_status));
        f.int(r.bytes_dlv);
        f.str(r.http.content_type.as_bytes());
        f.str(r.http.user_agent.as_bytes());
        f.str(r.http.referer.as_bytes());
        f.str(r.http.request_uri.as_bytes());
        f.str(r.origin.ip.as_bytes());
        f.str(r.origin.hostname.as_bytes());
        f.str(r.server_ip.as_bytes());
        f.str(r.server_name.as_bytes());
        f.str(r.remote_ip.as_bytes());
        f.str(r.ray_id.as_bytes());
    }};
}

impl Log {
    #[inline]
    pub fn fold(&self) -> u64 {
        let mut f = Fold::default();
        fold_record!(f, self);
        f.0
    }
}

impl LogRef<'_> {
    #[inline]
    pub fn fold(&self) -> u64 {
        let mut f = Fold::default();
        fold_record!(f, self);
        f.0
    }

    pub fn to_log(&self) -> Log {
        Log {
            timestamp: self.timestamp,
            zone_id: self.zone_id,
            zone_plan: self.zone_plan,
            http: Http {
                protocol: self.http.protocol,
                status: self.http.status,
                host_status: self.http.host_status,
                up_status: self.http.up_status,
                method: self.http.method,
                content_type: self.http.content_type.into(),
                user_agent: self.http.user_agent.into(),
                referer: self.http.referer.into(),
                request_uri: self.http.request_uri.into(),
            },
            origin: Origin {
                ip: self.origin.ip.into(),
                port: self.origin.port,
                hostname: self.origin.hostname.into(),
                protocol: self.origin.protocol,
            },
            country: self.country,
            cache_status: self.cache_status,
            server_ip: self.server_ip.into(),
            server_name: self.server_name.into(),
            remote_ip: self.remote_ip.into(),
            bytes_dlv: self.bytes_dlv,
            ray_id: self.ray_id.into(),
        }
    }
}

/// Makes `dst` a copy of `src`: `reused` keeps `dst`'s records and their strings'
/// capacity (String::clone_from), `fresh` builds every record and string anew. The
/// populate of every library whose native form is the plain struct.
pub fn assign(dst: &mut Vec<Log>, src: &[Log], reused: bool) {
    if !reused {
        *dst = src.to_vec();
        return;
    }
    dst.truncate(src.len());
    dst.resize_with(src.len(), Log::default);
    for (d, s) in dst.iter_mut().zip(src) {
        d.timestamp = s.timestamp;
        d.zone_id = s.zone_id;
        d.zone_plan = s.zone_plan;
        d.http.protocol = s.http.protocol;
        d.http.status = s.http.status;
        d.http.host_status = s.http.host_status;
        d.http.up_status = s.http.up_status;
        d.http.method = s.http.method;
        d.http.content_type.clone_from(&s.http.content_type);
        d.http.user_agent.clone_from(&s.http.user_agent);
        d.http.referer.clone_from(&s.http.referer);
        d.http.request_uri.clone_from(&s.http.request_uri);
        d.origin.ip.clone_from(&s.origin.ip);
        d.origin.port = s.origin.port;
        d.origin.hostname.clone_from(&s.origin.hostname);
        d.origin.protocol = s.origin.protocol;
        d.country = s.country;
        d.cache_status = s.cache_status;
        d.server_ip.clone_from(&s.server_ip);
        d.server_name.clone_from(&s.server_name);
        d.remote_ip.clone_from(&s.remote_ip);
        d.bytes_dlv = s.bytes_dlv;
        d.ray_id.clone_from(&s.ray_id);
    }
}

/// The fold of a batch: the wrapping sum of its records' folds.
pub fn fold(records: &[Log]) -> u64 {
    records.iter().fold(0u64, |s, r| s.wrapping_add(r.fold()))
}

// ---- the workload ------------------------------------------------------------------------

/// A case of the suite: its records (one, or the batch) and whether its message is the
/// batch (`Logs`) or the record itself (`Log`).
pub struct Case {
    pub name: &'static str,
    pub batch: bool,
    pub records: Vec<Log>,
    pub fold: u64,
}

impl Case {
    /// The case called `name` (a case of the registry).
    pub fn new(name: &'static str) -> Case {
        let (batch, records) = match name {
            "log" => (false, vec![log()]),
            _ => match SIZES.iter().find(|(case, _)| *case == name) {
                Some(&(_, n)) => (true, logs(n)),
                None => panic!("codec case {name}"),
            },
        };
        let fold = fold(&records);
        Case {
            name,
            batch,
            records,
            fold,
        }
    }
}

/// Records in the `logs` case.
pub const BATCH: usize = 1000;

/// The size axis (docs/workloads.md): batches of the generator's first records.
pub const SIZES: &[(&str, usize)] = &[
    ("logs1", 1),
    ("logs10", 10),
    ("logs100", 100),
    ("logs", BATCH),
    ("logs10000", 10000),
];

/// The cases of the golden files: the record and the batch.
pub const GOLDEN: &[&str] = &["log", "logs"];

const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML,like Gecko) \
                          Chrome/33.0.1750.146 Safari/537.36";

/// The one record of case `log` (the reference's values).
pub fn log() -> Log {
    Log {
        timestamp: 25_469_139_677_502,
        zone_id: 123_456,
        zone_plan: 1,
        http: Http {
            protocol: 2,
            status: 200,
            host_status: 503,
            up_status: 520,
            method: 1,
            content_type: "text/html".into(),
            user_agent: USER_AGENT.into(),
            referer: "https: //www.cloudflare.com/".into(),
            request_uri: "/cdn-cgi/trace".into(),
        },
        origin: Origin {
            ip: "1.2.3.4".into(),
            port: 8000,
            hostname: "www.example.com".into(),
            protocol: 2,
        },
        country: 238,
        cache_status: 3,
        server_ip: "192.168.1.1".into(),
        server_name: "metal.cloudflare.com".into(),
        remote_ip: "10.1.2.3".into(),
        bytes_dlv: 123_456,
        ray_id: "10c73629cce30078-LAX".into(),
    }
}

const STATUS: [u16; 16] = [
    200, 200, 200, 200, 200, 200, 200, 200, 204, 206, 301, 304, 400, 404, 500, 503,
];
const CONTENT_TYPES: [&str; 8] = [
    "text/html",
    "text/html; charset=utf-8",
    "application/json",
    "text/css",
    "application/javascript",
    "image/png",
    "image/jpeg",
    "text/plain",
];
const USER_AGENTS: [&str; 8] = [
    USER_AGENT,
    "curl/7.88.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
     Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 \
     (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    "",
];
const COLOS: [&str; 8] = ["LAX", "SJC", "AMS", "FRA", "LHR", "NRT", "SIN", "GRU"];

fn letters(rng: &mut Rng, s: &mut String, n: u32) {
    for _ in 0..n {
        s.push(char::from(b'a' + rng.rand(26) as u8));
    }
}

fn ip(rng: &mut Rng) -> String {
    let parts: Vec<String> = (0..4).map(|_| rng.rand(256).to_string()).collect();
    parts.join(".")
}

fn u64_draw(rng: &mut Rng) -> u64 {
    let hi = u64::from(rng.next_u32());
    let lo = u64::from(rng.next_u32());
    hi << 32 | lo
}

/// Record `i` of the batch; every line draws in the order docs/workloads.md gives.
fn log_record(rng: &mut Rng, i: u64) -> Log {
    let timestamp = (25_469_139_677_502 + 1000 * i + u64::from(rng.rand(1000))) as i64;
    let shift = 1 + rng.rand(31);
    let zone_id = rng.next_u32() >> shift;
    let zone_plan = rng.rand(5) as u8;
    let protocol = rng.rand(3) as u8;
    let status = STATUS[rng.rand(16) as usize];
    let host_status = STATUS[rng.rand(16) as usize];
    let up_status = STATUS[rng.rand(16) as usize];
    let method = rng.rand(11) as u8;
    let content_type = CONTENT_TYPES[rng.rand(8) as usize].to_string();
    let user_agent = USER_AGENTS[rng.rand(8) as usize].to_string();
    let mut referer = String::from("https://");
    let n = 1 + rng.rand(12);
    letters(rng, &mut referer, n);
    referer.push_str(".com/");
    let n = rng.rand(40);
    letters(rng, &mut referer, n);
    let mut request_uri = String::from("/");
    let n = rng.rand(80);
    letters(rng, &mut request_uri, n);
    let origin_ip = ip(rng);
    let port = rng.rand(65536) as u16;
    let mut hostname = String::new();
    let n = 1 + rng.rand(16);
    letters(rng, &mut hostname, n);
    hostname.push_str(".example.com");
    let origin_protocol = rng.rand(3) as u8;
    let country = rng.rand(256) as u8;
    let cache_status = rng.rand(4) as u8;
    let server_ip = ip(rng);
    let server_name = format!("metal{}.cloudflare.com", rng.rand(1000));
    let remote_ip = ip(rng);
    let shift = 16 + rng.rand(48);
    let bytes_dlv = u64_draw(rng) >> shift;
    let ray = u64_draw(rng);
    let ray_id = format!("{ray:016x}-{}", COLOS[rng.rand(8) as usize]);
    Log {
        timestamp,
        zone_id,
        zone_plan,
        http: Http {
            protocol,
            status,
            host_status,
            up_status,
            method,
            content_type,
            user_agent,
            referer,
            request_uri,
        },
        origin: Origin {
            ip: origin_ip,
            port,
            hostname,
            protocol: origin_protocol,
        },
        country,
        cache_status,
        server_ip,
        server_name,
        remote_ip,
        bytes_dlv,
        ray_id,
    }
}

/// The first `n` records of a fresh generator (the `logs` case is `logs(BATCH)`).
pub fn logs(n: usize) -> Vec<Log> {
    let mut rng = Rng::new();
    (0..n as u64).map(|i| log_record(&mut rng, i)).collect()
}
