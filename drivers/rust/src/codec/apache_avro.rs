//! apache-avro (the Apache Avro Rust crate): one datum in Avro's binary encoding of
//! schemas/log.avsc or schemas/logs.avsc (embedded at build time), no container file and no
//! single-object header. The serde path the crate recommends since 0.22 (`to_avro_datum`
//! and `from_avro_datum` are deprecated there): a `GenericDatumWriter` whose `write_ser`
//! runs its schema-aware serializer straight into the output buffer (no intermediate
//! `Value`; no `target_block_size`, so an array is one block: count, items, 0), and a
//! `GenericDatumReader` whose `read_deser` runs the schema-aware deserializer straight
//! from the bytes. Both are made once per cell. The native form is the records with signed
//! integers (signed.rs: Avro's int and long). Its deserializer takes `DeserializeOwned`
//! only: strings are owned. A datum must be consumed exactly.

use std::sync::OnceLock;

use ::apache_avro::reader::datum::GenericDatumReader;
use ::apache_avro::writer::datum::GenericDatumWriter;
use ::apache_avro::Schema;

use super::records::{Case, Log};
use super::signed::{self, SLog, SLogs};
use super::{Codec, Variant};
use crate::error::{Failure, Res};

const LOG: &str = include_str!("../../../../schemas/log.avsc");
const LOGS: &str = include_str!("../../../../schemas/logs.avsc");

/// The schemas of `log` and `logs`, parsed once per process.
fn schemas() -> &'static [Schema; 2] {
    static SCHEMAS: OnceLock<[Schema; 2]> = OnceLock::new();
    SCHEMAS
        .get_or_init(|| [LOG, LOGS].map(|s| Schema::parse_str(s).expect("schemas/log*.avsc parse")))
}

fn err(e: ::apache_avro::Error) -> Failure {
    Failure(format!("apache-avro: {e}"))
}

pub struct ApacheAvro {
    v: Variant,
    native: SLogs,
    out: Vec<u8>,
    /// Writer and reader of `log` ([0]) and `logs` ([1]).
    writers: [GenericDatumWriter<'static>; 2],
    readers: [GenericDatumReader<'static>; 2],
}

impl ApacheAvro {
    /// One datum of type `T` read by `case`'s reader, which must end with the input.
    fn read<T: serde::de::DeserializeOwned>(&self, case: &Case, bytes: &[u8]) -> Res<T> {
        let mut rest = bytes;
        let value = self.readers[usize::from(case.batch)]
            .read_deser::<T>(&mut rest)
            .map_err(err)?;
        if !rest.is_empty() {
            return Err(Failure(format!(
                "apache-avro: {} bytes after the datum",
                rest.len()
            )));
        }
        Ok(value)
    }
}

impl Codec for ApacheAvro {
    fn new(v: Variant) -> Self {
        let [log, logs] = schemas();
        let writer = |s: &'static Schema| {
            GenericDatumWriter::builder(s)
                .build()
                .expect("an Avro schema resolves")
        };
        let reader = |s: &'static Schema| {
            GenericDatumReader::builder(s)
                .build()
                .expect("an Avro schema resolves")
        };
        ApacheAvro {
            v,
            native: SLogs::default(),
            out: Vec::new(),
            writers: [writer(log), writer(logs)],
            readers: [reader(log), reader(logs)],
        }
    }
    fn populate(&mut self, case: &Case) -> Res<()> {
        signed::assign(&mut self.native.logs, &case.records, self.v.reused)
    }
    fn serialize(&mut self, case: &Case) -> Res<&[u8]> {
        if self.v.reused {
            self.out.clear();
        } else {
            self.out = Vec::new();
        }
        let msg = signed::msg(&self.native, case);
        self.writers[usize::from(case.batch)]
            .write_ser(&mut self.out, &msg)
            .map_err(err)?;
        Ok(&self.out)
    }
    fn deserialize(&mut self, case: &Case, bytes: &[u8]) -> Res<u64> {
        Ok(if case.batch {
            signed::fold(&self.read::<SLogs>(case, bytes)?.logs)
        } else {
            self.read::<SLog>(case, bytes)?.fold()
        })
    }
    fn populated(&self, _: &Case) -> Res<Vec<Log>> {
        signed::to_logs(&self.native.logs)
    }
    fn decode(&mut self, case: &Case, bytes: &[u8]) -> Res<Vec<Log>> {
        if case.batch {
            signed::to_logs(&self.read::<SLogs>(case, bytes)?.logs)
        } else {
            Ok(vec![self.read::<SLog>(case, bytes)?.to_log()?])
        }
    }
}
