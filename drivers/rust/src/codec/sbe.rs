//! SBE (Simple Binary Encoding) with the Rust code SBE's own generator (sbe-tool 1.30.0,
//! scripts/sbe-generate.sh) makes from schemas/log.sbe.xml at build time (build.rs,
//! OUT_DIR/sbe.rs). SBE has no object model: the native form is the plain struct
//! (records::assign, as null's), serialize writes it with the generated encoders (message
//! header, the 34-byte block, the ten var-data strings; `Logs` a group of them) into the
//! output buffer sized exactly first (kept and resized, or new), access folds through the
//! generated flyweight decoders (fields in schema order, var data in order), deserialize
//! decodes through them into the plain records: strings copied (`owned`) or `&str` into
//! the input (`borrowed`), UTF-8 checked either way.
//!
//! The generated decoders index the buffer unchecked by the schema's rules (a length or a
//! count past the end is a panic), so `validated` is a walk of the message's framing
//! before any decoder reads it: the header must be this schema's (template, schema id 1,
//! version 0, block lengths 34 or 0 and the group's 34) and every block, length and string
//! must lie within the input, which they must fill exactly.

use super::plain::Plain;
use super::records::{self, Case, Fold, Http, HttpRef, Log, LogRef, Origin, OriginRef};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

#[allow(
    clippy::all,
    dead_code,
    unused_imports,
    unused_mut,
    non_camel_case_types
)]
mod gen {
    include!(concat!(env!("OUT_DIR"), "/sbe.rs"));
}

use gen::log_codec::{LogDecoder, LogEncoder};
use gen::logs_codec::decoder::LogsDecoder;
use gen::logs_codec::encoder::{LogsEncoder, RecordsEncoder};
use gen::message_header_codec::{MessageHeaderDecoder, ENCODED_LENGTH as HEADER};
use gen::{ReadBuf, WriteBuf};

/// The block of a record (the null format's fixed part) and its var-data strings.
const BLOCK: usize = 34;
const STRINGS: usize = 10;
/// A group's dimensions: its block length and its count (uint16 each).
const GROUP: usize = 4;

pub struct Sbe(Plain);

fn err(e: gen::SbeErr) -> Failure {
    Failure(format!("sbe: {e}"))
}

fn strings(r: &Log) -> [&str; STRINGS] {
    [
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
    ]
}

/// The encoded size of a record; a string too long for its uint16 length is an error.
fn size(r: &Log) -> Res<usize> {
    let mut n = BLOCK;
    for s in strings(r) {
        if s.len() > 65534 {
            return Err(Failure(format!("sbe: a string of {} bytes", s.len())));
        }
        n += 2 + s.len();
    }
    Ok(n)
}

/// One record by an encoder of `Log` or of the group (the same methods).
macro_rules! encode {
    ($e:expr, $r:expr) => {{
        let (e, r) = (&mut $e, $r);
        e.timestamp(r.timestamp);
        e.zone_id(r.zone_id);
        e.zone_plan(r.zone_plan);
        e.http_protocol(r.http.protocol);
        e.http_status(r.http.status);
        e.http_host_status(r.http.host_status);
        e.http_up_status(r.http.up_status);
        e.http_method(r.http.method);
        e.origin_port(r.origin.port);
        e.origin_protocol(r.origin.protocol);
        e.country(r.country);
        e.cache_status(r.cache_status);
        e.bytes_dlv(r.bytes_dlv);
        e.http_content_type(r.http.content_type.as_bytes());
        e.http_user_agent(r.http.user_agent.as_bytes());
        e.http_referer(r.http.referer.as_bytes());
        e.http_request_uri(r.http.request_uri.as_bytes());
        e.origin_ip(r.origin.ip.as_bytes());
        e.origin_hostname(r.origin.hostname.as_bytes());
        e.server_ip(r.server_ip.as_bytes());
        e.server_name(r.server_name.as_bytes());
        e.remote_ip(r.remote_ip.as_bytes());
        e.ray_id(r.ray_id.as_bytes());
    }};
}

/// The fold of one record read by a decoder of `Log` or of the group: the block's fields
/// in schema order, then each string (its coordinates, then its bytes) in order.
macro_rules! access {
    ($d:expr, $f:expr) => {{
        let (d, f) = (&mut $d, &mut $f);
        f.int(d.timestamp() as u64);
        f.int(u64::from(d.zone_id()));
        f.int(u64::from(d.zone_plan()));
        f.int(u64::from(d.http_protocol()));
        f.int(u64::from(d.http_status()));
        f.int(u64::from(d.http_host_status()));
        f.int(u64::from(d.http_up_status()));
        f.int(u64::from(d.http_method()));
        f.int(u64::from(d.origin_port()));
        f.int(u64::from(d.origin_protocol()));
        f.int(u64::from(d.country()));
        f.int(u64::from(d.cache_status()));
        f.int(d.bytes_dlv());
        let c = d.http_content_type_decoder();
        f.str(d.http_content_type_slice(c));
        let c = d.http_user_agent_decoder();
        f.str(d.http_user_agent_slice(c));
        let c = d.http_referer_decoder();
        f.str(d.http_referer_slice(c));
        let c = d.http_request_uri_decoder();
        f.str(d.http_request_uri_slice(c));
        let c = d.origin_ip_decoder();
        f.str(d.origin_ip_slice(c));
        let c = d.origin_hostname_decoder();
        f.str(d.origin_hostname_slice(c));
        let c = d.server_ip_decoder();
        f.str(d.server_ip_slice(c));
        let c = d.server_name_decoder();
        f.str(d.server_name_slice(c));
        let c = d.remote_ip_decoder();
        f.str(d.remote_ip_slice(c));
        let c = d.ray_id_decoder();
        f.str(d.ray_id_slice(c));
    }};
}

/// A string of the input at the coordinates a decoder gave, as `&str`.
#[inline(always)]
fn text(bytes: &[u8], (at, len): (usize, usize)) -> Res<&str> {
    let s = at
        .checked_add(len)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| Failure::new("sbe: a string past the end"))?;
    std::str::from_utf8(s).map_err(|e| Failure(format!("sbe: {e}")))
}

/// One record read by a decoder of `Log` or of the group, its strings borrowed from the
/// input.
macro_rules! record {
    ($d:expr, $bytes:expr) => {{
        let (d, b) = (&mut $d, $bytes);
        let timestamp = d.timestamp();
        let zone_id = d.zone_id();
        let zone_plan = d.zone_plan();
        let (protocol, status) = (d.http_protocol(), d.http_status());
        let (host_status, up_status) = (d.http_host_status(), d.http_up_status());
        let method = d.http_method();
        let (port, origin_protocol) = (d.origin_port(), d.origin_protocol());
        let (country, cache_status) = (d.country(), d.cache_status());
        let bytes_dlv = d.bytes_dlv();
        let content_type = text(b, d.http_content_type_decoder())?;
        let user_agent = text(b, d.http_user_agent_decoder())?;
        let referer = text(b, d.http_referer_decoder())?;
        let request_uri = text(b, d.http_request_uri_decoder())?;
        let ip = text(b, d.origin_ip_decoder())?;
        let hostname = text(b, d.origin_hostname_decoder())?;
        LogRef {
            timestamp,
            zone_id,
            zone_plan,
            http: HttpRef {
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
            origin: OriginRef {
                ip,
                port,
                hostname,
                protocol: origin_protocol,
            },
            country,
            cache_status,
            server_ip: text(b, d.server_ip_decoder())?,
            server_name: text(b, d.server_name_decoder())?,
            remote_ip: text(b, d.remote_ip_decoder())?,
            bytes_dlv,
            ray_id: text(b, d.ray_id_decoder())?,
        }
    }};
}

/// The same record with owned strings, each copied as it is read.
macro_rules! owned {
    ($d:expr, $bytes:expr) => {{
        let (d, b) = (&mut $d, $bytes);
        let timestamp = d.timestamp();
        let zone_id = d.zone_id();
        let zone_plan = d.zone_plan();
        let (protocol, status) = (d.http_protocol(), d.http_status());
        let (host_status, up_status) = (d.http_host_status(), d.http_up_status());
        let method = d.http_method();
        let (port, origin_protocol) = (d.origin_port(), d.origin_protocol());
        let (country, cache_status) = (d.country(), d.cache_status());
        let bytes_dlv = d.bytes_dlv();
        let content_type = text(b, d.http_content_type_decoder())?.to_owned();
        let user_agent = text(b, d.http_user_agent_decoder())?.to_owned();
        let referer = text(b, d.http_referer_decoder())?.to_owned();
        let request_uri = text(b, d.http_request_uri_decoder())?.to_owned();
        let ip = text(b, d.origin_ip_decoder())?.to_owned();
        let hostname = text(b, d.origin_hostname_decoder())?.to_owned();
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
                ip,
                port,
                hostname,
                protocol: origin_protocol,
            },
            country,
            cache_status,
            server_ip: text(b, d.server_ip_decoder())?.to_owned(),
            server_name: text(b, d.server_name_decoder())?.to_owned(),
            remote_ip: text(b, d.remote_ip_decoder())?.to_owned(),
            bytes_dlv,
            ray_id: text(b, d.ray_id_decoder())?.to_owned(),
        }
    }};
}

/// `validated`: the walk of the message's framing (see the top).
fn check(case: &Case, bytes: &[u8]) -> Res<()> {
    let short = |at: usize| {
        Failure(format!(
            "sbe: truncated message (at byte {at} of {})",
            bytes.len()
        ))
    };
    let u16_at = |at: usize| -> Res<usize> {
        let b = bytes.get(at..at + 2).ok_or_else(|| short(at))?;
        Ok(usize::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let (template, block) = if case.batch { (2, 0) } else { (1, BLOCK) };
    let header = [u16_at(0)?, u16_at(2)?, u16_at(4)?, u16_at(6)?];
    if header != [block, template, 1, 0] {
        return Err(Failure(format!(
            "sbe: header (blockLength, templateId, schemaId, version) {header:?}, expected \
             {:?}",
            [block, template, 1, 0]
        )));
    }
    // `Log`'s block is its record's (read in the loop); `Logs`'s is empty.
    let mut at = HEADER;
    let count = if case.batch {
        let group = u16_at(at)?;
        if group != BLOCK {
            return Err(Failure(format!(
                "sbe: group blockLength {group}, expected {BLOCK}"
            )));
        }
        let count = u16_at(at + 2)?;
        at += GROUP;
        count
    } else {
        1
    };
    for _ in 0..count {
        at += BLOCK;
        for _ in 0..STRINGS {
            at += 2 + u16_at(at)?;
        }
        if at > bytes.len() {
            return Err(short(at));
        }
    }
    if at != bytes.len() {
        return Err(Failure(format!(
            "sbe: {} bytes after the message",
            bytes.len() - at
        )));
    }
    Ok(())
}

/// The decoder of a checked `Log` message.
fn log_decoder(bytes: &[u8]) -> LogDecoder<'_> {
    LogDecoder::default().header(MessageHeaderDecoder::default().wrap(ReadBuf::new(bytes), 0))
}

/// The group decoder of a checked `Logs` message.
fn logs_decoder(bytes: &[u8]) -> gen::logs_codec::decoder::RecordsDecoder<LogsDecoder<'_>> {
    LogsDecoder::default()
        .header(MessageHeaderDecoder::default().wrap(ReadBuf::new(bytes), 0))
        .records_decoder()
}

fn borrowed_all<'a>(case: &Case, bytes: &'a [u8]) -> Res<Vec<LogRef<'a>>> {
    check(case, bytes)?;
    if !case.batch {
        let mut d = log_decoder(bytes);
        return Ok(vec![record!(d, bytes)]);
    }
    let mut g = logs_decoder(bytes);
    let mut logs = Vec::with_capacity(usize::from(g.count()));
    while g.advance().map_err(err)?.is_some() {
        logs.push(record!(g, bytes));
    }
    Ok(logs)
}

fn owned_all(case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
    check(case, bytes)?;
    if !case.batch {
        let mut d = log_decoder(bytes);
        return Ok(vec![owned!(d, bytes)]);
    }
    let mut g = logs_decoder(bytes);
    let mut logs = Vec::with_capacity(usize::from(g.count()));
    while g.advance().map_err(err)?.is_some() {
        logs.push(owned!(g, bytes));
    }
    Ok(logs)
}

impl Codec for Sbe {
    fn new(v: Variant) -> Self {
        Sbe(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let p = &mut self.0;
        let logs = &p.native.logs;
        let mut n = HEADER + if case.batch { GROUP } else { 0 };
        for r in logs {
            n += size(r)?;
        }
        if p.v.reused {
            p.out.clear();
            p.out.resize(n, 0);
        } else {
            p.out = vec![0; n];
        }
        let buf = WriteBuf::new(&mut p.out[..]);
        let written = if case.batch {
            let count = u16::try_from(logs.len())
                .map_err(|_| Failure(format!("sbe: {} records in a group", logs.len())))?;
            let e = LogsEncoder::default().wrap(buf, HEADER);
            let e = e.header(0).parent().map_err(err)?;
            let mut g = e.records_encoder(count, RecordsEncoder::default());
            for r in logs {
                g.advance().map_err(err)?;
                encode!(g, r);
            }
            HEADER + g.parent().map_err(err)?.encoded_length()
        } else {
            let e = LogEncoder::default().wrap(buf, HEADER);
            let mut e = e.header(0).parent().map_err(err)?;
            encode!(e, &logs[0]);
            HEADER + e.encoded_length()
        };
        if written != n {
            return Err(Failure(format!(
                "sbe: {written} bytes encoded, {n} expected"
            )));
        }
        Ok(&p.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if self.0.v.borrowed {
            super::plain::fold_refs(&borrowed_all(case, bytes)?)
        } else {
            records::fold(&owned_all(case, bytes)?)
        })
    }
    fn access(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        check(case, bytes)?;
        let mut f = Fold::default();
        if case.batch {
            let mut g = logs_decoder(bytes);
            while g.advance().map_err(err)?.is_some() {
                access!(g, f);
            }
        } else {
            let mut d = log_decoder(bytes);
            access!(d, f);
        }
        Ok(f.0)
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.0.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        if self.0.v.borrowed {
            Ok(super::plain::to_logs(&borrowed_all(case, bytes)?))
        } else {
            owned_all(case, bytes)
        }
    }
}
