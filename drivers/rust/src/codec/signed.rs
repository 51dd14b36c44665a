//! The records with signed integers, for the formats that have no unsigned ones (BSON's
//! int32/int64, Avro's int/long): `timestamp` and `bytesDlv` as i64, every other integer
//! as i32, fields in the JSON's order and camelCase. The native form of bson and
//! apache-avro, built from the plain records by populate (an out-of-range value is an
//! error, never a wrap) and converted back, range-checked, for the checks. serde names
//! the structs as the Avro schemas name their records (apache-avro's deserializer checks).
//! Also the checked integer conversion the Thrift library shares.

use serde::{Deserialize, Serialize, Serializer};

use super::records::{Case, Fold, Http, Log, Origin};
use crate::error::{Failure, Res};

/// `v` as a `T`, or an error naming the field if it does not fit.
#[inline(always)]
pub fn int<T: TryFrom<S>, S: Copy + std::fmt::Display>(v: S, what: &str) -> Res<T> {
    T::try_from(v).map_err(|_| Failure(format!("{what} {v} is out of range")))
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Log", rename_all = "camelCase")]
pub struct SLog {
    pub timestamp: i64,
    pub zone_id: i32,
    pub zone_plan: i32,
    pub http: SHttp,
    pub origin: SOrigin,
    pub country: i32,
    pub cache_status: i32,
    pub server_ip: String,
    pub server_name: String,
    pub remote_ip: String,
    pub bytes_dlv: i64,
    pub ray_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Http", rename_all = "camelCase")]
pub struct SHttp {
    pub protocol: i32,
    pub status: i32,
    pub host_status: i32,
    pub up_status: i32,
    pub method: i32,
    pub content_type: String,
    pub user_agent: String,
    pub referer: String,
    pub request_uri: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Origin", rename_all = "camelCase")]
pub struct SOrigin {
    pub ip: String,
    pub port: i32,
    pub hostname: String,
    pub protocol: i32,
}

/// The `logs` message: `{"logs": [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Logs")]
pub struct SLogs {
    pub logs: Vec<SLog>,
}

/// The borrowed twin of `SLog`: strings point into the input.
#[derive(Debug, Deserialize)]
#[serde(rename = "Log", rename_all = "camelCase")]
pub struct SLogRef<'a> {
    pub timestamp: i64,
    pub zone_id: i32,
    pub zone_plan: i32,
    #[serde(borrow)]
    pub http: SHttpRef<'a>,
    #[serde(borrow)]
    pub origin: SOriginRef<'a>,
    pub country: i32,
    pub cache_status: i32,
    pub server_ip: &'a str,
    pub server_name: &'a str,
    pub remote_ip: &'a str,
    pub bytes_dlv: i64,
    pub ray_id: &'a str,
}

#[derive(Debug, Deserialize)]
#[serde(rename = "Http", rename_all = "camelCase")]
pub struct SHttpRef<'a> {
    pub protocol: i32,
    pub status: i32,
    pub host_status: i32,
    pub up_status: i32,
    pub method: i32,
    pub content_type: &'a str,
    pub user_agent: &'a str,
    pub referer: &'a str,
    pub request_uri: &'a str,
}

#[derive(Debug, Deserialize)]
#[serde(rename = "Origin", rename_all = "camelCase")]
pub struct SOriginRef<'a> {
    pub ip: &'a str,
    pub port: i32,
    pub hostname: &'a str,
    pub protocol: i32,
}

#[derive(Debug, Deserialize)]
#[serde(rename = "Logs")]
pub struct SLogsRef<'a> {
    #[serde(borrow)]
    pub logs: Vec<SLogRef<'a>>,
}

/// The fold of one record of `SLog` or `SLogRef`, or of any record with their field names
/// (the Thrift code's) (docs/workloads.md): each integer as its
/// 64-bit two's complement, which for the workload's values is the value.
macro_rules! fold_signed {
    ($r:expr) => {{
        let r = &$r;
        let mut f = Fold::default();
        f.int(r.timestamp as u64);
        f.int(r.zone_id as u64);
        f.int(r.zone_plan as u64);
        f.int(r.http.protocol as u64);
        f.int(r.http.status as u64);
        f.int(r.http.host_status as u64);
        f.int(r.http.up_status as u64);
        f.int(r.http.method as u64);
        f.int(r.origin.port as u64);
        f.int(r.origin.protocol as u64);
        f.int(r.country as u64);
        f.int(r.cache_status as u64);
        f.int(r.bytes_dlv as u64);
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
        f.0
    }};
}
pub(crate) use fold_signed;

/// A plain record of an `SLog` or `SLogRef` (or of any record with their field names: the
/// Thrift code's), every integer range-checked.
macro_rules! to_plain {
    ($r:expr) => {{
        let r = &$r;
        Log {
            timestamp: r.timestamp,
            zone_id: int(r.zone_id, "zoneId")?,
            zone_plan: int(r.zone_plan, "zonePlan")?,
            http: Http {
                protocol: int(r.http.protocol, "http.protocol")?,
                status: int(r.http.status, "http.status")?,
                host_status: int(r.http.host_status, "http.hostStatus")?,
                up_status: int(r.http.up_status, "http.upStatus")?,
                method: int(r.http.method, "http.method")?,
                content_type: r.http.content_type.to_string(),
                user_agent: r.http.user_agent.to_string(),
                referer: r.http.referer.to_string(),
                request_uri: r.http.request_uri.to_string(),
            },
            origin: Origin {
                ip: r.origin.ip.to_string(),
                port: int(r.origin.port, "origin.port")?,
                hostname: r.origin.hostname.to_string(),
                protocol: int(r.origin.protocol, "origin.protocol")?,
            },
            country: int(r.country, "country")?,
            cache_status: int(r.cache_status, "cacheStatus")?,
            server_ip: r.server_ip.to_string(),
            server_name: r.server_name.to_string(),
            remote_ip: r.remote_ip.to_string(),
            bytes_dlv: int(r.bytes_dlv, "bytesDlv")?,
            ray_id: r.ray_id.to_string(),
        }
    }};
}
pub(crate) use to_plain;

impl SLog {
    #[inline]
    pub fn fold(&self) -> u64 {
        fold_signed!(self)
    }

    pub fn to_log(&self) -> Res<Log> {
        Ok(to_plain!(self))
    }

    /// Makes this record a copy of `s`, keeping its strings' capacity.
    #[inline]
    fn assign(&mut self, s: &Log) -> Res<()> {
        self.timestamp = s.timestamp;
        self.zone_id = int(s.zone_id, "zoneId")?;
        self.zone_plan = s.zone_plan.into();
        self.http.protocol = s.http.protocol.into();
        self.http.status = s.http.status.into();
        self.http.host_status = s.http.host_status.into();
        self.http.up_status = s.http.up_status.into();
        self.http.method = s.http.method.into();
        self.http.content_type.clone_from(&s.http.content_type);
        self.http.user_agent.clone_from(&s.http.user_agent);
        self.http.referer.clone_from(&s.http.referer);
        self.http.request_uri.clone_from(&s.http.request_uri);
        self.origin.ip.clone_from(&s.origin.ip);
        self.origin.port = s.origin.port.into();
        self.origin.hostname.clone_from(&s.origin.hostname);
        self.origin.protocol = s.origin.protocol.into();
        self.country = s.country.into();
        self.cache_status = s.cache_status.into();
        self.server_ip.clone_from(&s.server_ip);
        self.server_name.clone_from(&s.server_name);
        self.remote_ip.clone_from(&s.remote_ip);
        self.bytes_dlv = int(s.bytes_dlv, "bytesDlv")?;
        self.ray_id.clone_from(&s.ray_id);
        Ok(())
    }
}

impl SLogRef<'_> {
    #[inline]
    pub fn fold(&self) -> u64 {
        fold_signed!(self)
    }

    pub fn to_log(&self) -> Res<Log> {
        Ok(to_plain!(self))
    }
}

/// Makes `dst` the records of `src`: `reused` keeps `dst`'s records and their strings'
/// capacity, `fresh` builds every record and string anew (populate).
pub fn assign(dst: &mut Vec<SLog>, src: &[Log], reused: bool) -> Res<()> {
    if !reused {
        *dst = Vec::with_capacity(src.len());
    }
    dst.truncate(src.len());
    dst.resize_with(src.len(), SLog::default);
    for (d, s) in dst.iter_mut().zip(src) {
        d.assign(s)?;
    }
    Ok(())
}

pub fn fold(logs: &[SLog]) -> u64 {
    logs.iter().fold(0u64, |s, r| s.wrapping_add(r.fold()))
}

pub fn fold_refs(logs: &[SLogRef<'_>]) -> u64 {
    logs.iter().fold(0u64, |s, r| s.wrapping_add(r.fold()))
}

pub fn to_logs(logs: &[SLog]) -> Res<Vec<Log>> {
    logs.iter().map(SLog::to_log).collect()
}

pub fn refs_to_logs(logs: &[SLogRef<'_>]) -> Res<Vec<Log>> {
    logs.iter().map(SLogRef::to_log).collect()
}

/// A case's message: the record itself (`log`) or the batch (`logs`).
pub enum SMsg<'a> {
    One(&'a SLog),
    Batch(&'a SLogs),
}

impl Serialize for SMsg<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SMsg::One(r) => r.serialize(s),
            SMsg::Batch(b) => b.serialize(s),
        }
    }
}

pub fn msg<'a>(native: &'a SLogs, case: &Case) -> SMsg<'a> {
    if case.batch {
        SMsg::Batch(native)
    } else {
        SMsg::One(&native.logs[0])
    }
}
