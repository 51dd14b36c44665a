//! thrift (the Apache Thrift crate, 0.17.0) with the code Debian's `thrift --gen rs`
//! 0.17.0 generates from schemas/log.thrift at build time (build.rs, OUT_DIR/thrift/log.rs).
//! The native form is the generated structs (`Logs`; case `log` writes its first `Log`),
//! written by their `write_to_out_protocol` to the binary protocol (strict, the default
//! cell `packing unpacked`) or the compact protocol (`packing compact`) over the output
//! buffer itself (a `Vec` is a transport), kept and cleared (`reused`) or new (`fresh`);
//! read by `read_from_in_protocol` from the input slice, which must be consumed exactly.
//! Strings are owned (`String`, checked UTF-8).
//!
//! The crate's readers size an allocation from a length prefix before reading it: a
//! string's `vec![0; len]` (a negative binary length is a capacity-overflow panic, a
//! compact one up to 4 GiB) and the generated code's `Vec::with_capacity` of a list's
//! count. The input protocol is therefore wrapped (`Guard`) in one that refuses a string
//! or collection longer than the bytes left, then lets the crate's protocol read it.

use std::cell::Cell;
use std::io::{self, Read};

use ::thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TFieldIdentifier, TInputProtocol, TListIdentifier, TMapIdentifier, TMessageIdentifier,
    TOutputProtocol, TSerializable, TSetIdentifier, TStructIdentifier,
};
use ::thrift::{ProtocolError, ProtocolErrorKind};

use super::records::{Case, Fold, Http, Log, Origin};
use super::signed::{fold_signed, int, to_plain};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

#[allow(clippy::all, dead_code, unused_imports, unused_extern_crates)]
mod gen {
    include!(concat!(env!("OUT_DIR"), "/thrift/log.rs"));
}

pub struct Thrift {
    v: Variant,
    native: gen::Logs,
    out: Vec<u8>,
}

fn err(e: ::thrift::Error) -> Failure {
    Failure(format!("thrift: {e}"))
}

fn empty() -> gen::Log {
    gen::Log::new(
        0,
        0,
        0,
        gen::Http::new(
            0,
            0,
            0,
            0,
            0,
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ),
        gen::Origin::new(String::new(), 0, String::new(), 0),
        0,
        0,
        String::new(),
        String::new(),
        String::new(),
        0,
        String::new(),
    )
}

/// Makes `d` a copy of the plain record `s` (strings keep their capacity); a value that
/// does not fit its Thrift type is an error.
fn assign(d: &mut gen::Log, s: &Log) -> Res<()> {
    d.timestamp = s.timestamp;
    d.zone_id = int(s.zone_id, "zoneId")?;
    d.zone_plan = int(s.zone_plan, "zonePlan")?;
    d.http.protocol = int(s.http.protocol, "http.protocol")?;
    d.http.status = int(s.http.status, "http.status")?;
    d.http.host_status = int(s.http.host_status, "http.hostStatus")?;
    d.http.up_status = int(s.http.up_status, "http.upStatus")?;
    d.http.method = int(s.http.method, "http.method")?;
    d.http.content_type.clone_from(&s.http.content_type);
    d.http.user_agent.clone_from(&s.http.user_agent);
    d.http.referer.clone_from(&s.http.referer);
    d.http.request_uri.clone_from(&s.http.request_uri);
    d.origin.ip.clone_from(&s.origin.ip);
    d.origin.port = s.origin.port.into();
    d.origin.hostname.clone_from(&s.origin.hostname);
    d.origin.protocol = int(s.origin.protocol, "origin.protocol")?;
    d.country = s.country.into();
    d.cache_status = int(s.cache_status, "cacheStatus")?;
    d.server_ip.clone_from(&s.server_ip);
    d.server_name.clone_from(&s.server_name);
    d.remote_ip.clone_from(&s.remote_ip);
    d.bytes_dlv = int(s.bytes_dlv, "bytesDlv")?;
    d.ray_id.clone_from(&s.ray_id);
    Ok(())
}

/// The fold of a generated record (signed.rs's, whose field names it shares).
#[inline]
fn fold(r: &gen::Log) -> u64 {
    fold_signed!(r)
}

/// A generated record as a plain one, every integer range-checked.
fn to_log(r: &gen::Log) -> Res<Log> {
    Ok(to_plain!(r))
}

// ---- the input: a slice both the crate's protocol and the guard read ---------------------

/// The input and how far the protocol has read it.
struct Input<'a> {
    bytes: &'a [u8],
    pos: Cell<usize>,
}

impl Input<'_> {
    fn rest(&self) -> &[u8] {
        &self.bytes[self.pos.get()..]
    }
}

impl Read for &Input<'_> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.rest();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos.set(self.pos.get() + n);
        Ok(n)
    }
    #[inline]
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let rest = self.rest();
        if rest.len() < buf.len() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf.copy_from_slice(&rest[..buf.len()]);
        self.pos.set(self.pos.get() + buf.len());
        Ok(())
    }
}

fn too_long(what: &str, n: i64, left: usize) -> ::thrift::Error {
    ::thrift::Error::Protocol(ProtocolError::new(
        ProtocolErrorKind::SizeLimit,
        format!("{what} of {n} with {left} bytes left"),
    ))
}

/// The crate's input protocol `P` over `input`, with the lengths of strings and
/// collections checked against the bytes left before `P` reads (and allocates) them.
struct Guard<'i, 'a, P> {
    inner: P,
    input: &'i Input<'a>,
    compact: bool,
}

impl<P: TInputProtocol> Guard<'_, '_, P> {
    /// The length prefix of the next string must not exceed the bytes after it. A prefix
    /// cut short is left to the protocol, which fails on it.
    fn check_string(&self) -> ::thrift::Result<()> {
        let rest = self.input.rest();
        let (n, prefix) = if self.compact {
            // A base-128 varint u32, low groups first, of at most 5 bytes.
            let mut n = 0u64;
            let mut used = None;
            for (i, &b) in rest.iter().take(5).enumerate() {
                n |= u64::from(b & 0x7f) << (7 * i);
                if b & 0x80 == 0 {
                    used = Some(i + 1);
                    break;
                }
            }
            let Some(used) = used else { return Ok(()) };
            (n as i64, used)
        } else {
            let Some(b) = rest.get(..4) else {
                return Ok(());
            };
            (i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]])), 4)
        };
        let left = rest.len() - prefix;
        if n < 0 || n as u64 > left as u64 {
            return Err(too_long("a string", n, left));
        }
        Ok(())
    }

    /// A collection's element count must not be negative nor exceed the bytes left (each
    /// element takes at least one).
    fn check_count(&self, what: &str, n: i32) -> ::thrift::Result<()> {
        let left = self.input.rest().len();
        if n < 0 || n as usize > left {
            return Err(too_long(what, n.into(), left));
        }
        Ok(())
    }
}

impl<P: TInputProtocol> TInputProtocol for Guard<'_, '_, P> {
    fn read_message_begin(&mut self) -> ::thrift::Result<TMessageIdentifier> {
        self.check_string()?;
        self.inner.read_message_begin()
    }
    fn read_message_end(&mut self) -> ::thrift::Result<()> {
        self.inner.read_message_end()
    }
    fn read_struct_begin(&mut self) -> ::thrift::Result<Option<TStructIdentifier>> {
        self.inner.read_struct_begin()
    }
    fn read_struct_end(&mut self) -> ::thrift::Result<()> {
        self.inner.read_struct_end()
    }
    fn read_field_begin(&mut self) -> ::thrift::Result<TFieldIdentifier> {
        self.inner.read_field_begin()
    }
    fn read_field_end(&mut self) -> ::thrift::Result<()> {
        self.inner.read_field_end()
    }
    fn read_bool(&mut self) -> ::thrift::Result<bool> {
        self.inner.read_bool()
    }
    fn read_bytes(&mut self) -> ::thrift::Result<Vec<u8>> {
        self.check_string()?;
        self.inner.read_bytes()
    }
    fn read_i8(&mut self) -> ::thrift::Result<i8> {
        self.inner.read_i8()
    }
    fn read_i16(&mut self) -> ::thrift::Result<i16> {
        self.inner.read_i16()
    }
    fn read_i32(&mut self) -> ::thrift::Result<i32> {
        self.inner.read_i32()
    }
    fn read_i64(&mut self) -> ::thrift::Result<i64> {
        self.inner.read_i64()
    }
    fn read_double(&mut self) -> ::thrift::Result<f64> {
        self.inner.read_double()
    }
    fn read_string(&mut self) -> ::thrift::Result<String> {
        self.check_string()?;
        self.inner.read_string()
    }
    fn read_list_begin(&mut self) -> ::thrift::Result<TListIdentifier> {
        let list = self.inner.read_list_begin()?;
        self.check_count("a list", list.size)?;
        Ok(list)
    }
    fn read_list_end(&mut self) -> ::thrift::Result<()> {
        self.inner.read_list_end()
    }
    fn read_set_begin(&mut self) -> ::thrift::Result<TSetIdentifier> {
        let set = self.inner.read_set_begin()?;
        self.check_count("a set", set.size)?;
        Ok(set)
    }
    fn read_set_end(&mut self) -> ::thrift::Result<()> {
        self.inner.read_set_end()
    }
    fn read_map_begin(&mut self) -> ::thrift::Result<TMapIdentifier> {
        let map = self.inner.read_map_begin()?;
        self.check_count("a map", map.size)?;
        Ok(map)
    }
    fn read_map_end(&mut self) -> ::thrift::Result<()> {
        self.inner.read_map_end()
    }
    fn read_byte(&mut self) -> ::thrift::Result<u8> {
        self.inner.read_byte()
    }
}

/// The message `T` read from all of `bytes` by the variant's protocol.
fn read<T: TSerializable>(v: Variant, bytes: &[u8]) -> Res<T> {
    let input = Input {
        bytes,
        pos: Cell::new(0),
    };
    let value = if v.compact {
        T::read_from_in_protocol(&mut Guard {
            inner: TCompactInputProtocol::new(&input),
            input: &input,
            compact: true,
        })
    } else {
        T::read_from_in_protocol(&mut Guard {
            inner: TBinaryInputProtocol::new(&input, true),
            input: &input,
            compact: false,
        })
    }
    .map_err(err)?;
    let left = input.rest().len();
    if left != 0 {
        return Err(Failure(format!("thrift: {left} bytes after the message")));
    }
    Ok(value)
}

/// `msg` to `out` by the variant's protocol.
fn write<T: TSerializable>(v: Variant, msg: &T, out: &mut Vec<u8>) -> ::thrift::Result<()> {
    fn to(msg: &impl TSerializable, prot: &mut dyn TOutputProtocol) -> ::thrift::Result<()> {
        msg.write_to_out_protocol(prot)?;
        prot.flush()
    }
    if v.compact {
        to(msg, &mut TCompactOutputProtocol::new(out))
    } else {
        to(msg, &mut TBinaryOutputProtocol::new(out, true))
    }
}

impl Codec for Thrift {
    fn new(v: Variant) -> Self {
        Thrift {
            v,
            native: gen::Logs::new(Vec::new()),
            out: Vec::new(),
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        let logs = &mut self.native.logs;
        if !self.v.reused {
            *logs = Vec::with_capacity(case.records.len());
        }
        logs.truncate(case.records.len());
        logs.resize_with(case.records.len(), empty);
        for (d, s) in logs.iter_mut().zip(&case.records) {
            assign(d, s)?;
        }
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        if self.v.reused {
            self.out.clear();
        } else {
            self.out = Vec::new();
        }
        if case.batch {
            write(self.v, &self.native, &mut self.out)
        } else {
            write(self.v, &self.native.logs[0], &mut self.out)
        }
        .map_err(err)?;
        Ok(&self.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if case.batch {
            read::<gen::Logs>(self.v, bytes)?
                .logs
                .iter()
                .fold(0u64, |s, r| s.wrapping_add(fold(r)))
        } else {
            fold(&read::<gen::Log>(self.v, bytes)?)
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        self.native.logs.iter().map(to_log).collect()
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        if case.batch {
            read::<gen::Logs>(self.v, bytes)?
                .logs
                .iter()
                .map(to_log)
                .collect()
        } else {
            Ok(vec![to_log(&read::<gen::Log>(self.v, bytes)?)?])
        }
    }
}
