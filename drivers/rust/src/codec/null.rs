//! The codec suite with no serialization library: the plain struct is the native form and
//! the byte format is docs/workloads.md's null format (per record a 34-byte little-endian
//! fixed part, then ten strings as u32 count and bytes; `logs` starts with a u32 record
//! count). Every read is bounds-checked (`lazy`) and a message must be consumed exactly;
//! deserialize checks UTF-8 (a `String` or `&str` must be), access folds the raw bytes.

use super::plain::{fold_refs, to_logs, Msg, Plain};
use super::records::{Case, Fold, Http, HttpRef, Log, LogRef, Origin, OriginRef};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub struct Null(Plain);

const FIXED: usize = 34;

fn write(out: &mut Vec<u8>, r: &Log) {
    out.extend_from_slice(&r.timestamp.to_le_bytes());
    out.extend_from_slice(&r.zone_id.to_le_bytes());
    out.extend_from_slice(&[r.zone_plan, r.http.protocol]);
    out.extend_from_slice(&r.http.status.to_le_bytes());
    out.extend_from_slice(&r.http.host_status.to_le_bytes());
    out.extend_from_slice(&r.http.up_status.to_le_bytes());
    out.push(r.http.method);
    out.extend_from_slice(&r.origin.port.to_le_bytes());
    out.extend_from_slice(&[r.origin.protocol, r.country, r.cache_status]);
    out.extend_from_slice(&r.bytes_dlv.to_le_bytes());
    for s in [
        &r.http.content_type,
        &r.http.user_agent,
        &r.http.referer,
        &r.http.request_uri,
        &r.origin.ip,
        &r.origin.hostname,
        &r.server_ip,
        &r.server_name,
        &r.remote_ip,
        &r.ray_id,
    ] {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
}

/// A bounds-checked cursor over a message.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline(always)]
    fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        let Some(s) = self
            .pos
            .checked_add(n)
            .and_then(|end| self.b.get(self.pos..end))
        else {
            return Err(Failure(format!(
                "null: truncated message ({n} bytes wanted at byte {} of {})",
                self.pos,
                self.b.len()
            )));
        };
        self.pos += n;
        Ok(s)
    }
    #[inline(always)]
    fn u32(&mut self) -> Res<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    #[inline(always)]
    fn bytes(&mut self) -> Res<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    #[inline(always)]
    fn str(&mut self) -> Res<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|e| Failure(format!("null: {e}")))
    }
    /// The fixed part: the integers in null-format order.
    #[inline(always)]
    fn fixed(&mut self) -> Res<Fixed> {
        let b: &[u8; FIXED] = self.take(FIXED)?.try_into().expect("FIXED bytes");
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        Ok(Fixed {
            timestamp: i64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            zone_id: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            zone_plan: b[12],
            protocol: b[13],
            status: u16_at(14),
            host_status: u16_at(16),
            up_status: u16_at(18),
            method: b[20],
            port: u16_at(21),
            origin_protocol: b[23],
            country: b[24],
            cache_status: b[25],
            bytes_dlv: u64::from_le_bytes(b[26..34].try_into().expect("8 bytes")),
        })
    }
    /// The record count of a batch, or 1.
    fn count(&mut self, case: &Case) -> Res<usize> {
        Ok(if case.batch { self.u32()? as usize } else { 1 })
    }
    fn end(&self) -> Res<()> {
        if self.pos != self.b.len() {
            return Err(Failure(format!(
                "null: {} bytes after the last record",
                self.b.len() - self.pos
            )));
        }
        Ok(())
    }
}

struct Fixed {
    timestamp: i64,
    zone_id: u32,
    zone_plan: u8,
    protocol: u8,
    status: u16,
    host_status: u16,
    up_status: u16,
    method: u8,
    port: u16,
    origin_protocol: u8,
    country: u8,
    cache_status: u8,
    bytes_dlv: u64,
}

#[inline(always)]
fn record<'a>(r: &mut Reader<'a>) -> Res<LogRef<'a>> {
    let f = r.fixed()?;
    Ok(LogRef {
        timestamp: f.timestamp,
        zone_id: f.zone_id,
        zone_plan: f.zone_plan,
        http: HttpRef {
            protocol: f.protocol,
            status: f.status,
            host_status: f.host_status,
            up_status: f.up_status,
            method: f.method,
            content_type: r.str()?,
            user_agent: r.str()?,
            referer: r.str()?,
            request_uri: r.str()?,
        },
        origin: OriginRef {
            ip: r.str()?,
            port: f.port,
            hostname: r.str()?,
            protocol: f.origin_protocol,
        },
        country: f.country,
        cache_status: f.cache_status,
        server_ip: r.str()?,
        server_name: r.str()?,
        remote_ip: r.str()?,
        bytes_dlv: f.bytes_dlv,
        ray_id: r.str()?,
    })
}

/// An owned record, its strings copied out as they are read.
#[inline(always)]
fn owned(r: &mut Reader<'_>) -> Res<Log> {
    let f = r.fixed()?;
    let mut s = || r.str().map(String::from);
    let http = Http {
        protocol: f.protocol,
        status: f.status,
        host_status: f.host_status,
        up_status: f.up_status,
        method: f.method,
        content_type: s()?,
        user_agent: s()?,
        referer: s()?,
        request_uri: s()?,
    };
    let (ip, hostname) = (s()?, s()?);
    Ok(Log {
        timestamp: f.timestamp,
        zone_id: f.zone_id,
        zone_plan: f.zone_plan,
        http,
        origin: Origin {
            ip,
            port: f.port,
            hostname,
            protocol: f.origin_protocol,
        },
        country: f.country,
        cache_status: f.cache_status,
        server_ip: s()?,
        server_name: s()?,
        remote_ip: s()?,
        bytes_dlv: f.bytes_dlv,
        ray_id: s()?,
    })
}

fn owned_all(case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
    let mut r = Reader { b: bytes, pos: 0 };
    let n = r.count(case)?;
    // Each record takes at least FIXED + 40 bytes: a corrupt count cannot reserve much.
    let mut logs = Vec::with_capacity(n.min(bytes.len() / (FIXED + 40)));
    for _ in 0..n {
        logs.push(owned(&mut r)?);
    }
    r.end()?;
    Ok(logs)
}

fn borrowed_all<'a>(case: &Case, bytes: &'a [u8]) -> Res<Vec<LogRef<'a>>> {
    let mut r = Reader { b: bytes, pos: 0 };
    let n = r.count(case)?;
    let mut logs = Vec::with_capacity(n.min(bytes.len() / (FIXED + 40)));
    for _ in 0..n {
        logs.push(record(&mut r)?);
    }
    r.end()?;
    Ok(logs)
}

impl Codec for Null {
    fn new(v: Variant) -> Self {
        Null(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        match self.0.parts(case) {
            (Msg::One(r), out) => {
                write(out, r);
                Ok(out)
            }
            (Msg::Batch(b), out) => {
                out.extend_from_slice(&(b.logs.len() as u32).to_le_bytes());
                for r in &b.logs {
                    write(out, r);
                }
                Ok(out)
            }
        }
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if self.0.v.borrowed {
            fold_refs(&borrowed_all(case, bytes)?)
        } else {
            super::records::fold(&owned_all(case, bytes)?)
        })
    }
    fn access(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        let mut r = Reader { b: bytes, pos: 0 };
        let mut fold = Fold::default();
        for _ in 0..r.count(case)? {
            let f = r.fixed()?;
            for v in [
                f.timestamp as u64,
                u64::from(f.zone_id),
                u64::from(f.zone_plan),
                u64::from(f.protocol),
                u64::from(f.status),
                u64::from(f.host_status),
                u64::from(f.up_status),
                u64::from(f.method),
                u64::from(f.port),
                u64::from(f.origin_protocol),
                u64::from(f.country),
                u64::from(f.cache_status),
                f.bytes_dlv,
            ] {
                fold.int(v);
            }
            for _ in 0..10 {
                fold.str(r.bytes()?);
            }
        }
        r.end()?;
        Ok(fold.0)
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.0.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        if self.0.v.borrowed {
            Ok(to_logs(&borrowed_all(case, bytes)?))
        } else {
            owned_all(case, bytes)
        }
    }
}
