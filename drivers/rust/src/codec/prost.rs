//! Protocol Buffers with prost (code generated from schemas/log.proto and logs.proto):
//! populate builds the generated messages, kept and refilled (`reused`: messages and their
//! strings keep their memory) or new (`fresh`); serialize is `encode` into the kept buffer
//! or `encode_to_vec`; deserialize is `decode` (owned strings: prost's `String` fields).

use prost::Message;

use super::records::{Case, Fold, Http, Log, Origin};
use super::{Codec, Variant};
use crate::error::{Failure, Res};
use crate::pb::codec as pb;

pub struct Prost {
    v: Variant,
    native: pb::Logs,
    out: Vec<u8>,
}

/// A record's message, refilled in place (strings keep their capacity).
fn fill(m: &mut pb::Log, r: &Log) {
    m.timestamp = r.timestamp;
    m.zone_id = r.zone_id;
    m.zone_plan = i32::from(r.zone_plan);
    let h = m.http.get_or_insert_with(Default::default);
    h.protocol = i32::from(r.http.protocol);
    h.status = u32::from(r.http.status);
    h.host_status = u32::from(r.http.host_status);
    h.up_status = u32::from(r.http.up_status);
    h.method = i32::from(r.http.method);
    h.content_type.clone_from(&r.http.content_type);
    h.user_agent.clone_from(&r.http.user_agent);
    h.referer.clone_from(&r.http.referer);
    h.request_uri.clone_from(&r.http.request_uri);
    let o = m.origin.get_or_insert_with(Default::default);
    o.ip.clone_from(&r.origin.ip);
    o.port = u32::from(r.origin.port);
    o.hostname.clone_from(&r.origin.hostname);
    o.protocol = i32::from(r.origin.protocol);
    m.country = i32::from(r.country);
    m.cache_status = i32::from(r.cache_status);
    m.server_ip.clone_from(&r.server_ip);
    m.server_name.clone_from(&r.server_name);
    m.remote_ip.clone_from(&r.remote_ip);
    m.bytes_dlv = r.bytes_dlv;
    m.ray_id.clone_from(&r.ray_id);
}

fn fold(m: &pb::Log) -> u64 {
    let (no_http, no_origin) = (pb::Http::default(), pb::Origin::default());
    let mut f = Fold::default();
    let e = |v: i32| i64::from(v) as u64;
    f.int(m.timestamp as u64);
    f.int(u64::from(m.zone_id));
    f.int(e(m.zone_plan));
    let h = m.http.as_ref().unwrap_or(&no_http);
    f.int(e(h.protocol));
    f.int(u64::from(h.status));
    f.int(u64::from(h.host_status));
    f.int(u64::from(h.up_status));
    f.int(e(h.method));
    f.str(h.content_type.as_bytes());
    f.str(h.user_agent.as_bytes());
    f.str(h.referer.as_bytes());
    f.str(h.request_uri.as_bytes());
    let o = m.origin.as_ref().unwrap_or(&no_origin);
    f.str(o.ip.as_bytes());
    f.int(u64::from(o.port));
    f.str(o.hostname.as_bytes());
    f.int(e(o.protocol));
    f.int(e(m.country));
    f.int(e(m.cache_status));
    f.str(m.server_ip.as_bytes());
    f.str(m.server_name.as_bytes());
    f.str(m.remote_ip.as_bytes());
    f.int(m.bytes_dlv);
    f.str(m.ray_id.as_bytes());
    f.0
}

/// A decoded message as a plain record; a value out of its field's range is an error.
fn plain(m: &pb::Log) -> Res<Log> {
    fn n<T: TryFrom<i64>>(what: &str, v: impl Into<i64>) -> Res<T> {
        let v = v.into();
        T::try_from(v).map_err(|_| Failure(format!("prost: {what} {v} out of range")))
    }
    let h = m.http.clone().unwrap_or_default();
    let o = m.origin.clone().unwrap_or_default();
    Ok(Log {
        timestamp: m.timestamp,
        zone_id: m.zone_id,
        zone_plan: n("zonePlan", m.zone_plan)?,
        http: Http {
            protocol: n("http.protocol", h.protocol)?,
            status: n("http.status", h.status)?,
            host_status: n("http.hostStatus", h.host_status)?,
            up_status: n("http.upStatus", h.up_status)?,
            method: n("http.method", h.method)?,
            content_type: h.content_type,
            user_agent: h.user_agent,
            referer: h.referer,
            request_uri: h.request_uri,
        },
        origin: Origin {
            ip: o.ip,
            port: n("origin.port", o.port)?,
            hostname: o.hostname,
            protocol: n("origin.protocol", o.protocol)?,
        },
        country: n("country", m.country)?,
        cache_status: n("cacheStatus", m.cache_status)?,
        server_ip: m.server_ip.clone(),
        server_name: m.server_name.clone(),
        remote_ip: m.remote_ip.clone(),
        bytes_dlv: m.bytes_dlv,
        ray_id: m.ray_id.clone(),
    })
}

fn err(e: prost::DecodeError) -> Failure {
    Failure(format!("prost: {e}"))
}

/// The records of a message.
fn decode_logs(case: &Case, bytes: &[u8]) -> Res<Vec<pb::Log>> {
    Ok(if case.batch {
        pb::Logs::decode(bytes).map_err(err)?.logs
    } else {
        vec![pb::Log::decode(bytes).map_err(err)?]
    })
}

impl Codec for Prost {
    fn new(v: Variant) -> Self {
        Prost {
            v,
            native: pb::Logs::default(),
            out: Vec::new(),
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        let logs = &mut self.native.logs;
        if self.v.reused {
            logs.truncate(case.records.len());
            logs.resize_with(case.records.len(), Default::default);
        } else {
            *logs = Vec::with_capacity(case.records.len());
            logs.resize_with(case.records.len(), Default::default);
        }
        for (m, r) in logs.iter_mut().zip(&case.records) {
            fill(m, r);
        }
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        if self.v.reused {
            self.out.clear();
            let encoded = if case.batch {
                self.native.encode(&mut self.out)
            } else {
                self.native.logs[0].encode(&mut self.out)
            };
            encoded.map_err(|e| Failure(format!("prost: {e}")))?;
        } else {
            self.out = if case.batch {
                self.native.encode_to_vec()
            } else {
                self.native.logs[0].encode_to_vec()
            };
        }
        Ok(&self.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if case.batch {
            let logs = pb::Logs::decode(bytes).map_err(err)?;
            logs.logs.iter().fold(0u64, |s, m| s.wrapping_add(fold(m)))
        } else {
            fold(&pb::Log::decode(bytes).map_err(err)?)
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        self.native.logs.iter().map(plain).collect()
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        decode_logs(case, bytes)?.iter().map(plain).collect()
    }
}
