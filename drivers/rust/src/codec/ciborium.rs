//! ciborium: CBOR by serde on the plain struct (its native form). ciborium writes a struct
//! as a definite-length map with text keys, integers in their shortest form, keys in the
//! order the `Serialize` implementation gives them and does not sort: the records are
//! serialized through views (`Cbor`) whose `Serialize` names the fields in the order of
//! RFC 8949's core deterministic encoding (docs/workloads.md, CBOR; the derived order is
//! the JSON's), so that the bytes are Python's `cbor2.dumps(value, canonical=True)`.
//! `into_writer` appends to the kept buffer (`reused`) or a new one (`fresh`). Read with
//! `from_reader` (derived `Deserialize`, keys in any order) from the slice, which must be
//! consumed exactly; ciborium's deserializer copies every string through its scratch
//! buffer (it takes `DeserializeOwned` only): strings are owned.

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::plain::{Msg, Plain};
use super::records::{self, Case, Http, Log, Logs, Origin};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

pub struct Ciborium(Plain);

/// A plain value serialized with its map keys in CBOR's deterministic order.
struct Cbor<'a, T: ?Sized>(&'a T);

impl Serialize for Cbor<'_, Log> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut m = s.serialize_struct("Log", 12)?;
        m.serialize_field("http", &Cbor(&r.http))?;
        m.serialize_field("rayId", &r.ray_id)?;
        m.serialize_field("origin", &Cbor(&r.origin))?;
        m.serialize_field("zoneId", &r.zone_id)?;
        m.serialize_field("country", &r.country)?;
        m.serialize_field("bytesDlv", &r.bytes_dlv)?;
        m.serialize_field("remoteIp", &r.remote_ip)?;
        m.serialize_field("serverIp", &r.server_ip)?;
        m.serialize_field("zonePlan", &r.zone_plan)?;
        m.serialize_field("timestamp", &r.timestamp)?;
        m.serialize_field("serverName", &r.server_name)?;
        m.serialize_field("cacheStatus", &r.cache_status)?;
        m.end()
    }
}

impl Serialize for Cbor<'_, Http> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = self.0;
        let mut m = s.serialize_struct("Http", 9)?;
        m.serialize_field("method", &h.method)?;
        m.serialize_field("status", &h.status)?;
        m.serialize_field("referer", &h.referer)?;
        m.serialize_field("protocol", &h.protocol)?;
        m.serialize_field("upStatus", &h.up_status)?;
        m.serialize_field("userAgent", &h.user_agent)?;
        m.serialize_field("hostStatus", &h.host_status)?;
        m.serialize_field("requestUri", &h.request_uri)?;
        m.serialize_field("contentType", &h.content_type)?;
        m.end()
    }
}

impl Serialize for Cbor<'_, Origin> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let mut m = s.serialize_struct("Origin", 4)?;
        m.serialize_field("ip", &o.ip)?;
        m.serialize_field("port", &o.port)?;
        m.serialize_field("hostname", &o.hostname)?;
        m.serialize_field("protocol", &o.protocol)?;
        m.end()
    }
}

impl Serialize for Cbor<'_, [Log]> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for r in self.0 {
            seq.serialize_element(&Cbor(r))?;
        }
        seq.end()
    }
}

impl Serialize for Cbor<'_, Logs> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Logs", 1)?;
        m.serialize_field("logs", &Cbor(&self.0.logs[..]))?;
        m.end()
    }
}

fn from<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Res<T> {
    let mut rest = bytes;
    let value =
        ::ciborium::from_reader(&mut rest).map_err(|e| Failure(format!("ciborium: {e}")))?;
    if !rest.is_empty() {
        return Err(Failure(format!(
            "ciborium: {} bytes after the message",
            rest.len()
        )));
    }
    Ok(value)
}

impl Codec for Ciborium {
    fn new(v: Variant) -> Self {
        Ciborium(Plain::new(v))
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.0.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (msg, out) = self.0.parts(case);
        match msg {
            Msg::One(r) => ::ciborium::into_writer(&Cbor(r), &mut *out),
            Msg::Batch(b) => ::ciborium::into_writer(&Cbor(b), &mut *out),
        }
        .map_err(|e| Failure(format!("ciborium: {e}")))?;
        Ok(out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if case.batch {
            records::fold(&from::<Logs>(bytes)?.logs)
        } else {
            from::<Log>(bytes)?.fold()
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.0.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        Ok(if case.batch {
            from::<Logs>(bytes)?.logs
        } else {
            vec![from::<Log>(bytes)?]
        })
    }
}
