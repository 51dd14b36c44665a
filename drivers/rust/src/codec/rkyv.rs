//! rkyv 0.8: the plain struct (its native form) archived. serialize is `to_bytes_in` into
//! the kept `AlignedVec` (`reused`) or `to_bytes` (`fresh`), both with rkyv's thread-local
//! arena for scratch. access reads the archive in place through `rkyv::access` (bytecheck
//! validation, `validated`) or `access_unchecked` (`unchecked`); deserialize is the same
//! access then `rkyv::deserialize` to the owned plain struct (owned strings only).

use rkyv::rancor;
use rkyv::util::AlignedVec;

use super::plain::Plain;
use super::records::{self, ArchivedLog, ArchivedLogs, Case, Fold, Log, Logs};
use super::{Codec, Validation, Variant};
use crate::error::{Failure, Res};

pub struct Rkyv {
    p: Plain,
    out: AlignedVec,
}

fn err(e: rancor::Error) -> Failure {
    Failure(format!("rkyv: {e}"))
}

/// The archived root, checked or not.
fn root<'a, T>(v: Validation, bytes: &'a [u8]) -> Res<&'a T>
where
    T: rkyv::Portable
        + for<'b> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'b, rancor::Error>>,
{
    if v == Validation::Unchecked {
        // SAFETY: `unchecked` cells read only archives this library wrote.
        Ok(unsafe { rkyv::access_unchecked::<T>(bytes) })
    } else {
        rkyv::access::<T, rancor::Error>(bytes).map_err(err)
    }
}

#[inline(always)]
fn fold(f: &mut Fold, l: &ArchivedLog) {
    f.int(l.timestamp.to_native() as u64);
    f.int(u64::from(l.zone_id.to_native()));
    f.int(u64::from(l.zone_plan));
    f.int(u64::from(l.http.protocol));
    f.int(u64::from(l.http.status.to_native()));
    f.int(u64::from(l.http.host_status.to_native()));
    f.int(u64::from(l.http.up_status.to_native()));
    f.int(u64::from(l.http.method));
    f.str(l.http.content_type.as_bytes());
    f.str(l.http.user_agent.as_bytes());
    f.str(l.http.referer.as_bytes());
    f.str(l.http.request_uri.as_bytes());
    f.str(l.origin.ip.as_bytes());
    f.int(u64::from(l.origin.port.to_native()));
    f.str(l.origin.hostname.as_bytes());
    f.int(u64::from(l.origin.protocol));
    f.int(u64::from(l.country));
    f.int(u64::from(l.cache_status));
    f.str(l.server_ip.as_bytes());
    f.str(l.server_name.as_bytes());
    f.str(l.remote_ip.as_bytes());
    f.int(l.bytes_dlv.to_native());
    f.str(l.ray_id.as_bytes());
}

impl Rkyv {
    fn logs(&self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        let v = self.p.v.validation;
        Ok(if case.batch {
            rkyv::deserialize::<Logs, rancor::Error>(root::<ArchivedLogs>(v, bytes)?)
                .map_err(err)?
                .logs
        } else {
            vec![
                rkyv::deserialize::<Log, rancor::Error>(root::<ArchivedLog>(v, bytes)?)
                    .map_err(err)?,
            ]
        })
    }
}

impl Codec for Rkyv {
    fn new(v: Variant) -> Self {
        Rkyv {
            p: Plain::new(v),
            out: AlignedVec::new(),
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        self.p.populate(case);
        Ok(())
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        let (native, one) = (&self.p.native, &self.p.native.logs[0]);
        self.out = if self.p.v.reused {
            let mut out = std::mem::take(&mut self.out);
            out.clear();
            if case.batch {
                rkyv::api::high::to_bytes_in::<_, rancor::Error>(native, out)
            } else {
                rkyv::api::high::to_bytes_in::<_, rancor::Error>(one, out)
            }
        } else if case.batch {
            rkyv::to_bytes::<rancor::Error>(native)
        } else {
            rkyv::to_bytes::<rancor::Error>(one)
        }
        .map_err(err)?;
        Ok(&self.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(records::fold(&self.logs(case, bytes)?))
    }
    fn access(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        let v = self.p.v.validation;
        let mut f = Fold::default();
        if case.batch {
            for l in root::<ArchivedLogs>(v, bytes)?.logs.iter() {
                fold(&mut f, l);
            }
        } else {
            fold(&mut f, root::<ArchivedLog>(v, bytes)?);
        }
        Ok(f.0)
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        Ok(self.p.populated())
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        self.logs(case, bytes)
    }
}
