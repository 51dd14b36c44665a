//! Cap'n Proto (capnp crate, code generated from schemas/log.capnp and logs.capnp):
//! populate builds the message in a builder over kept scratch (`reused`: a
//! ScratchSpaceHeapAllocator over one zeroed 128 Ki-word segment, taken back from the last
//! builder and re-zeroed where it was used, as rpc's reuse) or a fresh heap-allocated
//! builder (`fresh`); serialize writes the standard stream framing into the output `Vec`.
//! Reads use a reader over the bytes in place (`read_message_from_flat_slice_no_alloc`),
//! bounds-checked at each read (`lazy`): deserialize builds the plain struct (owned, or
//! borrowed `&str` into the input), access folds through the reader. capnp-rust has no
//! public unchecked reader for a message's bytes, so there is no `unchecked` cell.
//! `packed`: serialize writes the packed framing (`serialize_packed::write_message`);
//! deserialize and access unpack into a kept 128 Ki-word buffer
//! (`serialize_packed::read_message_no_alloc`, as rpc's reuse reads) and read from there.

use capnp::message::{self, HeapAllocator, ScratchSpaceHeapAllocator};
use capnp::{serialize, serialize_packed, Word};

use super::records::{Case, Fold, Http, HttpRef, Log, LogRef, Origin, OriginRef};
use super::{Codec, Variant};
use crate::error::{Failure, Res};
use crate::limits;
use crate::log_capnp::{self as lc, log};
use crate::logs_capnp::logs;

const SCRATCH_WORDS: usize = 128 * 1024;

enum Builder {
    /// Always Some but while `populate` swaps it for a new one.
    Reused(Option<message::Builder<ScratchSpaceHeapAllocator<'static>>>),
    Fresh(message::Builder<HeapAllocator>),
}

pub struct Capnp {
    v: Variant,
    builder: Builder,
    out: Vec<u8>,
    /// `packed`: where deserialize and access unpack the message (empty otherwise).
    unpacked: Vec<Word>,
}

fn build(mut b: log::Builder<'_>, r: &Log) -> Res<()> {
    b.set_timestamp(r.timestamp);
    b.set_zone_id(r.zone_id);
    b.set_zone_plan(lc::ZonePlan::try_from(u16::from(r.zone_plan))?);
    {
        let mut h = b.reborrow().init_http();
        h.set_protocol(lc::HttpProtocol::try_from(u16::from(r.http.protocol))?);
        h.set_status(r.http.status);
        h.set_host_status(r.http.host_status);
        h.set_up_status(r.http.up_status);
        h.set_method(lc::Method::try_from(u16::from(r.http.method))?);
        h.set_content_type(r.http.content_type.as_str());
        h.set_user_agent(r.http.user_agent.as_str());
        h.set_referer(r.http.referer.as_str());
        h.set_request_uri(r.http.request_uri.as_str());
    }
    {
        let mut o = b.reborrow().init_origin();
        o.set_ip(r.origin.ip.as_str());
        o.set_port(r.origin.port);
        o.set_hostname(r.origin.hostname.as_str());
        o.set_protocol(lc::OriginProtocol::try_from(u16::from(r.origin.protocol))?);
    }
    b.set_country(lc::Country::try_from(u16::from(r.country))?);
    b.set_cache_status(lc::CacheStatus::try_from(u16::from(r.cache_status))?);
    b.set_server_ip(r.server_ip.as_str());
    b.set_server_name(r.server_name.as_str());
    b.set_remote_ip(r.remote_ip.as_str());
    b.set_bytes_dlv(r.bytes_dlv);
    b.set_ray_id(r.ray_id.as_str());
    Ok(())
}

fn populate_in<A: message::Allocator>(m: &mut message::Builder<A>, case: &Case) -> Res<()> {
    if case.batch {
        let mut list = m
            .init_root::<logs::Builder>()
            .init_logs(case.records.len() as u32);
        for (i, r) in case.records.iter().enumerate() {
            build(list.reborrow().get(i as u32), r)?;
        }
    } else {
        build(m.init_root::<log::Builder>(), &case.records[0])?;
    }
    Ok(())
}

/// The message in the stream framing, or packed: into `out`, cleared (`reused`), or a
/// new `Vec`.
fn write<A: message::Allocator>(
    m: &message::Builder<A>,
    reused: bool,
    packed: bool,
    out: &mut Vec<u8>,
) -> Res<()> {
    match (reused, packed) {
        (true, false) => {
            out.clear();
            serialize::write_message(&mut *out, m)?;
        }
        (false, false) => *out = serialize::write_message_to_words(m),
        (true, true) => {
            out.clear();
            serialize_packed::write_message(&mut *out, m)?;
        }
        (false, true) => {
            // Room for the unpacked size, which packing rarely exceeds.
            let words = serialize::compute_serialized_size_in_words(m);
            let mut v = Vec::with_capacity(words * 8);
            serialize_packed::write_message(&mut v, m)?;
            *out = v;
        }
    }
    Ok(())
}

impl Builder {
    fn write(&self, reused: bool, packed: bool, out: &mut Vec<u8>) -> Res<()> {
        match self {
            Builder::Reused(m) => write(m.as_ref().expect("a builder"), reused, packed, out),
            Builder::Fresh(m) => write(m, reused, packed, out),
        }
    }
}

/// Calls `f` with each record of the message in `bytes`: read in place, or, given where
/// to unpack it (`packed`), unpacked there first.
#[inline(always)]
fn each(
    case: &Case,
    bytes: &[u8],
    unpack_into: Option<&mut [Word]>,
    mut f: impl FnMut(log::Reader<'_>) -> Res<()>,
) -> Res<()> {
    let mut rest = bytes;
    let opts = limits::CAPNP_OPTIONS;
    match unpack_into {
        None => {
            let m = serialize::read_message_from_flat_slice_no_alloc(&mut rest, opts)?;
            records_of(case, &m, &mut f)?;
        }
        Some(words) => {
            let buf = Word::words_to_bytes_mut(words);
            let m = serialize_packed::read_message_no_alloc(&mut rest, buf, opts)?;
            records_of(case, &m, &mut f)?;
        }
    }
    if !rest.is_empty() {
        return Err(Failure(format!(
            "Cap'n Proto: {} bytes after the message",
            rest.len()
        )));
    }
    Ok(())
}

#[inline(always)]
fn records_of<S: message::ReaderSegments>(
    case: &Case,
    m: &message::Reader<S>,
    f: &mut impl FnMut(log::Reader<'_>) -> Res<()>,
) -> Res<()> {
    if case.batch {
        for l in m.get_root::<logs::Reader>()?.get_logs()? {
            f(l)?;
        }
    } else {
        f(m.get_root::<log::Reader>()?)?;
    }
    Ok(())
}

#[inline(always)]
fn borrowed<'a>(l: log::Reader<'a>) -> Res<LogRef<'a>> {
    let h = l.get_http()?;
    let o = l.get_origin()?;
    Ok(LogRef {
        timestamp: l.get_timestamp(),
        zone_id: l.get_zone_id(),
        zone_plan: l.get_zone_plan()? as u8,
        http: HttpRef {
            protocol: h.get_protocol()? as u8,
            status: h.get_status(),
            host_status: h.get_host_status(),
            up_status: h.get_up_status(),
            method: h.get_method()? as u8,
            content_type: h.get_content_type()?.to_str()?,
            user_agent: h.get_user_agent()?.to_str()?,
            referer: h.get_referer()?.to_str()?,
            request_uri: h.get_request_uri()?.to_str()?,
        },
        origin: OriginRef {
            ip: o.get_ip()?.to_str()?,
            port: o.get_port(),
            hostname: o.get_hostname()?.to_str()?,
            protocol: o.get_protocol()? as u8,
        },
        country: l.get_country()? as u8,
        cache_status: l.get_cache_status()? as u8,
        server_ip: l.get_server_ip()?.to_str()?,
        server_name: l.get_server_name()?.to_str()?,
        remote_ip: l.get_remote_ip()?.to_str()?,
        bytes_dlv: l.get_bytes_dlv(),
        ray_id: l.get_ray_id()?.to_str()?,
    })
}

#[inline(always)]
fn owned(l: log::Reader<'_>) -> Res<Log> {
    let s = |t: capnp::Result<capnp::text::Reader<'_>>| -> Res<String> { Ok(t?.to_str()?.into()) };
    let h = l.get_http()?;
    let o = l.get_origin()?;
    Ok(Log {
        timestamp: l.get_timestamp(),
        zone_id: l.get_zone_id(),
        zone_plan: l.get_zone_plan()? as u8,
        http: Http {
            protocol: h.get_protocol()? as u8,
            status: h.get_status(),
            host_status: h.get_host_status(),
            up_status: h.get_up_status(),
            method: h.get_method()? as u8,
            content_type: s(h.get_content_type())?,
            user_agent: s(h.get_user_agent())?,
            referer: s(h.get_referer())?,
            request_uri: s(h.get_request_uri())?,
        },
        origin: Origin {
            ip: s(o.get_ip())?,
            port: o.get_port(),
            hostname: s(o.get_hostname())?,
            protocol: o.get_protocol()? as u8,
        },
        country: l.get_country()? as u8,
        cache_status: l.get_cache_status()? as u8,
        server_ip: s(l.get_server_ip())?,
        server_name: s(l.get_server_name())?,
        remote_ip: s(l.get_remote_ip())?,
        bytes_dlv: l.get_bytes_dlv(),
        ray_id: s(l.get_ray_id())?,
    })
}

impl Capnp {
    /// Where a packed cell unpacks what it reads; None: it reads the bytes in place.
    fn unpack_into(&mut self) -> Option<&mut [Word]> {
        self.v.packed.then_some(&mut self.unpacked[..])
    }
}

impl Codec for Capnp {
    fn new(v: Variant) -> Self {
        let builder = if v.reused {
            let words: &'static mut [Word] =
                Box::leak(Word::allocate_zeroed_vec(SCRATCH_WORDS).into_boxed_slice());
            Builder::Reused(Some(message::Builder::new(ScratchSpaceHeapAllocator::new(
                Word::words_to_bytes_mut(words),
            ))))
        } else {
            Builder::Fresh(message::Builder::new_default())
        };
        Capnp {
            v,
            builder,
            out: Vec::new(),
            unpacked: if v.packed {
                Word::allocate_zeroed_vec(SCRATCH_WORDS)
            } else {
                Vec::new()
            },
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        match &mut self.builder {
            Builder::Reused(m) => {
                // A new builder on the same scratch, which the old one re-zeroes as it
                // gives it back.
                let old = m.take().expect("a builder");
                populate_in(m.insert(message::Builder::new(old.into_allocator())), case)
            }
            Builder::Fresh(m) => {
                *m = message::Builder::new_default();
                populate_in(m, case)
            }
        }
    }
    fn serialize(&mut self, _: &Case) -> Res<&[u8]> {
        self.builder
            .write(self.v.reused, self.v.packed, &mut self.out)?;
        Ok(&self.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        let mut sum = 0u64;
        let borrowed_strings = self.v.borrowed;
        let unpack_into = self.unpack_into();
        if borrowed_strings {
            each(case, bytes, unpack_into, |l| {
                sum = sum.wrapping_add(borrowed(l)?.fold());
                Ok(())
            })?;
        } else {
            let mut logs = Vec::new();
            each(case, bytes, unpack_into, |l| {
                logs.push(owned(l)?);
                Ok(())
            })?;
            sum = super::records::fold(&logs);
        }
        Ok(sum)
    }
    fn access(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        let mut f = Fold::default();
        each(case, bytes, self.unpack_into(), |l| {
            let h = l.get_http()?;
            let o = l.get_origin()?;
            f.int(l.get_timestamp() as u64);
            f.int(u64::from(l.get_zone_id()));
            f.int(l.get_zone_plan()? as u64);
            f.int(h.get_protocol()? as u64);
            f.int(u64::from(h.get_status()));
            f.int(u64::from(h.get_host_status()));
            f.int(u64::from(h.get_up_status()));
            f.int(h.get_method()? as u64);
            f.str(h.get_content_type()?.as_bytes());
            f.str(h.get_user_agent()?.as_bytes());
            f.str(h.get_referer()?.as_bytes());
            f.str(h.get_request_uri()?.as_bytes());
            f.str(o.get_ip()?.as_bytes());
            f.int(u64::from(o.get_port()));
            f.str(o.get_hostname()?.as_bytes());
            f.int(o.get_protocol()? as u64);
            f.int(l.get_country()? as u64);
            f.int(l.get_cache_status()? as u64);
            f.str(l.get_server_ip()?.as_bytes());
            f.str(l.get_server_name()?.as_bytes());
            f.str(l.get_remote_ip()?.as_bytes());
            f.int(l.get_bytes_dlv());
            f.str(l.get_ray_id()?.as_bytes());
            Ok(())
        })?;
        Ok(f.0)
    }
    fn populated(&self, case: &Case) -> Res<Vec<Log>> {
        let mut bytes = Vec::new();
        self.builder.write(false, false, &mut bytes)?;
        let aligned = super::Aligned::from(&bytes);
        let mut logs = Vec::new();
        each(case, aligned.bytes(), None, |l| {
            logs.push(owned(l)?);
            Ok(())
        })?;
        Ok(logs)
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        let mut logs = Vec::new();
        let borrowed_strings = self.v.borrowed;
        each(case, bytes, self.unpack_into(), |l| {
            logs.push(if borrowed_strings {
                borrowed(l)?.to_log()
            } else {
                owned(l)?
            });
            Ok(())
        })?;
        Ok(logs)
    }
}
