"""The codec workloads in plain Python: the records, their checksum, and the encodings
whose bytes are fixed by docs/workloads.md (JSON, MessagePack, null).

This is wirebench's independent implementation of the codec sections of
docs/workloads.md. `python -m wirebench.codec_records` writes testdata/codec/: the
canonical JSON of each case (every driver's records are tested against it) and
checks.json (each case's fold and encoded sizes). The harness uses it to check the fold
digests drivers report and to decode the encodings they leave in --out-dir.
"""

from __future__ import annotations

import io
import json
import struct
import sys
from functools import cache
from pathlib import Path

import bson
import cbor2
import fastavro
import msgpack
import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.utils import deserialize as thrift_deserialize
from thriftpy2.utils import serialize as thrift_serialize

from .workloads import MASK64, XorShift128

CASES = ("log", "logs")  # the seed's record and batch, which every golden file holds
BATCH = 1000  # records in the `logs` case
# The size axis: batches of the first N records of the `logs` generator (`logs` itself is
# the first 1000), so that a library's cost per record can be read against the message's
# size. Every batch case is a `Logs` message.
SIZES = {"logs1": 1, "logs10": 10, "logs100": 100, "logs": BATCH, "logs10000": 10000}
ALL_CASES = ("log", *SIZES)
ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata" / "codec"
SCHEMAS = ROOT / "schemas"

# The one record of case `log` (the reference's values; see docs/workloads.md).
LOG = {
    "timestamp": 25469139677502,
    "zoneId": 123456,
    "zonePlan": 1,
    "http": {
        "protocol": 2,
        "status": 200,
        "hostStatus": 503,
        "upStatus": 520,
        "method": 1,
        "contentType": "text/html",
        "userAgent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML,like Gecko) "
        "Chrome/33.0.1750.146 Safari/537.36",
        "referer": "https: //www.cloudflare.com/",
        "requestUri": "/cdn-cgi/trace",
    },
    "origin": {"ip": "1.2.3.4", "port": 8000, "hostname": "www.example.com", "protocol": 2},
    "country": 238,
    "cacheStatus": 3,
    "serverIp": "192.168.1.1",
    "serverName": "metal.cloudflare.com",
    "remoteIp": "10.1.2.3",
    "bytesDlv": 123456,
    "rayId": "10c73629cce30078-LAX",
}

# The tables the `logs` generator draws from (docs/workloads.md, codec / logs).
STATUS = (200, 200, 200, 200, 200, 200, 200, 200, 204, 206, 301, 304, 400, 404, 500, 503)
CONTENT_TYPES = (
    "text/html",
    "text/html; charset=utf-8",
    "application/json",
    "text/css",
    "application/javascript",
    "image/png",
    "image/jpeg",
    "text/plain",
)
USER_AGENTS = (
    LOG["http"]["userAgent"],
    "curl/7.88.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    "",
)
COLOS = ("LAX", "SJC", "AMS", "FRA", "LHR", "NRT", "SIN", "GRU")

# The nested records' fields in the null format's order (the schemas' order).
HTTP_INTS = ("protocol", "status", "hostStatus", "upStatus", "method")
HTTP_STRINGS = ("contentType", "userAgent", "referer", "requestUri")
ORIGIN_INTS = ("port", "protocol")
STRINGS = ("serverIp", "serverName", "remoteIp", "rayId")


def letters(rng: XorShift128, n: int) -> str:
    return "".join(chr(ord("a") + rng.rand(26)) for _ in range(n))


def ip(rng: XorShift128) -> str:
    return ".".join(str(rng.rand(256)) for _ in range(4))


def u64(rng: XorShift128) -> int:
    hi = rng.next()
    lo = rng.next()
    return (hi << 32) | lo


def log_record(rng: XorShift128, i: int) -> dict:
    """Record `i` of the batch. Each line draws in the order written (docs/workloads.md)."""
    timestamp = 25469139677502 + 1000 * i + rng.rand(1000)
    shift = 1 + rng.rand(31)
    zone_id = rng.next() >> shift
    zone_plan = rng.rand(5)
    protocol = rng.rand(3)
    status = STATUS[rng.rand(16)]
    host_status = STATUS[rng.rand(16)]
    up_status = STATUS[rng.rand(16)]
    method = rng.rand(11)
    content_type = CONTENT_TYPES[rng.rand(8)]
    user_agent = USER_AGENTS[rng.rand(8)]
    referer = "https://" + letters(rng, 1 + rng.rand(12)) + ".com/"
    referer += letters(rng, rng.rand(40))
    request_uri = "/" + letters(rng, rng.rand(80))
    origin_ip = ip(rng)
    port = rng.rand(65536)
    hostname = letters(rng, 1 + rng.rand(16)) + ".example.com"
    origin_protocol = rng.rand(3)
    country = rng.rand(256)
    cache_status = rng.rand(4)
    server_ip = ip(rng)
    server_name = "metal" + str(rng.rand(1000)) + ".cloudflare.com"
    remote_ip = ip(rng)
    shift = 16 + rng.rand(48)
    bytes_dlv = u64(rng) >> shift
    ray = u64(rng)
    ray_id = f"{ray:016x}-" + COLOS[rng.rand(8)]
    return {
        "timestamp": timestamp,
        "zoneId": zone_id,
        "zonePlan": zone_plan,
        "http": {
            "protocol": protocol,
            "status": status,
            "hostStatus": host_status,
            "upStatus": up_status,
            "method": method,
            "contentType": content_type,
            "userAgent": user_agent,
            "referer": referer,
            "requestUri": request_uri,
        },
        "origin": {
            "ip": origin_ip,
            "port": port,
            "hostname": hostname,
            "protocol": origin_protocol,
        },
        "country": country,
        "cacheStatus": cache_status,
        "serverIp": server_ip,
        "serverName": server_name,
        "remoteIp": remote_ip,
        "bytesDlv": bytes_dlv,
        "rayId": ray_id,
    }


def logs_batch(n: int = BATCH) -> list[dict]:
    """The first `n` records from a fresh generator: the `logs` case, or a batch of the
    size axis."""
    rng = XorShift128()
    return [log_record(rng, i) for i in range(n)]


@cache
def _batch(n: int) -> tuple[dict, ...]:
    return tuple(logs_batch(n))


def records(case: str) -> list[dict]:
    """The case's records (generated once per process: callers must not change them)."""
    if case == "log":
        return [LOG]
    if case in SIZES:
        return list(_batch(SIZES[case]))
    raise KeyError(f"unknown codec case {case!r}; known: {', '.join(ALL_CASES)}")


def message(case: str) -> dict:
    """The case as one value: the record itself, or {"logs": [...]}."""
    recs = records(case)
    return recs[0] if case == "log" else {"logs": recs}


# -- the fold ----------------------------------------------------------------------------


def ints(r: dict) -> list[int]:
    """The record's integers in null-format order."""
    h, o = r["http"], r["origin"]
    return [
        r["timestamp"],
        r["zoneId"],
        r["zonePlan"],
        *(h[k] for k in HTTP_INTS),
        *(o[k] for k in ORIGIN_INTS),
        r["country"],
        r["cacheStatus"],
        r["bytesDlv"],
    ]


def strings(r: dict) -> list[str]:
    """The record's strings in null-format order."""
    h, o = r["http"], r["origin"]
    return [*(h[k] for k in HTTP_STRINGS), o["ip"], o["hostname"], *(r[k] for k in STRINGS)]


def str_fold(s: str) -> int:
    b = s.encode()
    return len(b) + (b[0] + b[-1] if b else 0)


def fold(recs: list[dict]) -> int:
    """The checksum every timed read folds (docs/workloads.md): a wrapping sum, as signed
    64-bit, of every integer field and, for each string, its length plus its first and
    last byte."""
    total = sum(sum(ints(r)) + sum(str_fold(s) for s in strings(r)) for r in recs)
    return signed64(total)


def signed64(v: int) -> int:
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


# -- encodings whose bytes docs/workloads.md fixes -------------------------------------


def to_json(case: str) -> bytes:
    return json.dumps(message(case), separators=(",", ":"), ensure_ascii=False).encode()


def to_msgpack(case: str) -> bytes:
    return msgpack.packb(message(case))


NULL_FIXED = struct.Struct("<qIBBHHHBHBBBQ")  # 34 bytes: ints() in order


def null_record(r: dict) -> bytes:
    out = [NULL_FIXED.pack(*ints(r))]
    for s in strings(r):
        b = s.encode()
        out += [struct.pack("<I", len(b)), b]
    return b"".join(out)


def to_null(case: str) -> bytes:
    recs = records(case)
    if case == "log":
        return null_record(recs[0])
    return struct.pack("<I", len(recs)) + b"".join(null_record(r) for r in recs)


def from_null(case: str, data: bytes) -> list[dict]:
    """Decodes the null format; ValueError for a truncated or overlong encoding."""
    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(data):
            raise ValueError(f"null encoding truncated at byte {pos}")
        pos += n
        return data[pos - n : pos]

    def record() -> dict:
        v = NULL_FIXED.unpack(take(NULL_FIXED.size))
        return _record(v, [take(struct.unpack("<I", take(4))[0]).decode() for _ in range(10)])

    count = 1 if case == "log" else struct.unpack("<I", take(4))[0]
    recs = [record() for _ in range(count)]
    if pos != len(data):
        raise ValueError(f"null encoding has {len(data) - pos} bytes after its last record")
    return recs


def to_cbor(case: str) -> bytes:
    """RFC 8949 core deterministic encoding: definite lengths, shortest integers, map keys
    sorted by their encoded bytes (for these short text keys: shorter first)."""
    return cbor2.dumps(message(case), canonical=True)


@cache
def avro_schema(case: str):
    """schemas/log.avsc for the record, schemas/logs.avsc for every batch."""
    name = "log" if case == "log" else "logs"
    return fastavro.parse_schema(json.loads((SCHEMAS / f"{name}.avsc").read_text()))


def to_avro(case: str) -> bytes:
    """One Avro datum in the binary encoding of schemas/<case>.avsc (no container file,
    no single-object header); an array in one block."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, avro_schema(case), message(case))
    return out.getvalue()


@cache
def thrift_module():
    return thriftpy2.load(str(SCHEMAS / "log.thrift"), module_name="log_thrift")


THRIFT_PROTOCOLS = {"binary": TBinaryProtocolFactory(), "compact": TCompactProtocolFactory()}


def _thrift_value(case: str):
    t = thrift_module()

    def record(r: dict):
        return t.Log(
            **{k: v for k, v in r.items() if k not in ("http", "origin")},
            http=t.Http(**r["http"]),
            origin=t.Origin(**r["origin"]),
        )

    recs = records(case)
    return record(recs[0]) if case == "log" else t.Logs(logs=[record(r) for r in recs])


def to_thrift(case: str, protocol: str = "binary") -> bytes:
    """The struct Log or Logs of schemas/log.thrift in Thrift's binary (or compact)
    protocol: every field, in field-id order, then the stop byte."""
    return thrift_serialize(_thrift_value(case), THRIFT_PROTOCOLS[protocol])


def from_thrift(case: str, data: bytes, protocol: str = "binary") -> list[dict]:
    t = thrift_module()
    empty = t.Log() if case == "log" else t.Logs()
    value = thrift_deserialize(empty, data, THRIFT_PROTOCOLS[protocol])

    def plain(v) -> dict:
        return {
            k: plain(x) if hasattr(x, "thrift_spec") else x
            for k, x in ((spec[1], getattr(v, spec[1])) for spec in v.thrift_spec.values())
        }

    return [plain(value)] if case == "log" else [plain(r) for r in value.logs]


def _bson_record(r: dict) -> dict:
    """timestamp and bytesDlv are int64 whatever their value; every other integer int32."""
    return {**r, "timestamp": bson.Int64(r["timestamp"]), "bytesDlv": bson.Int64(r["bytesDlv"])}


def to_bson(case: str) -> bytes:
    """One BSON document with the JSON's keys in its order (`logs`: an array, a document
    keyed "0", "1", ...)."""
    recs = [_bson_record(r) for r in records(case)]
    return bson.encode(recs[0] if case == "log" else {"logs": recs})


SBE_HEADER = struct.Struct("<HHHH")  # blockLength, templateId, schemaId, version
SBE_SCHEMA_ID = 1


def _record(v: tuple, s: list[str]) -> dict:
    """A record from the null format's integers (ints() order) and strings (strings())."""
    return {
        "timestamp": v[0],
        "zoneId": v[1],
        "zonePlan": v[2],
        "http": dict(zip(HTTP_INTS + HTTP_STRINGS, (*v[3:8], *s[0:4]), strict=True)),
        "origin": {"ip": s[4], "port": v[8], "hostname": s[5], "protocol": v[9]},
        "country": v[10],
        "cacheStatus": v[11],
        "serverIp": s[6],
        "serverName": s[7],
        "remoteIp": s[8],
        "bytesDlv": v[12],
        "rayId": s[9],
    }


def _sbe_record(r: dict) -> bytes:
    out = [NULL_FIXED.pack(*ints(r))]
    for s in strings(r):
        b = s.encode()
        out += [struct.pack("<H", len(b)), b]
    return b"".join(out)


def to_sbe(case: str) -> bytes:
    """schemas/log.sbe.xml's message Log (template 1) or Logs (template 2): the header, the
    null format's 34-byte fixed block, the ten strings with uint16 lengths; Logs has an
    empty root block and a group (blockLength 34, count) of the records."""
    recs = records(case)
    if case == "log":
        return SBE_HEADER.pack(NULL_FIXED.size, 1, SBE_SCHEMA_ID, 0) + _sbe_record(recs[0])
    group = struct.pack("<HH", NULL_FIXED.size, len(recs))
    return SBE_HEADER.pack(0, 2, SBE_SCHEMA_ID, 0) + group + b"".join(map(_sbe_record, recs))


def from_sbe(case: str, data: bytes) -> list[dict]:
    """Decodes to_sbe's bytes; ValueError for another header, a truncation or a tail."""
    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(data):
            raise ValueError(f"SBE message truncated at byte {pos}")
        pos += n
        return data[pos - n : pos]

    def record() -> dict:
        v = NULL_FIXED.unpack(take(NULL_FIXED.size))
        return _record(v, [take(struct.unpack("<H", take(2))[0]).decode() for _ in range(10)])

    template = 1 if case == "log" else 2
    block = NULL_FIXED.size if case == "log" else 0
    if (header := SBE_HEADER.unpack(take(SBE_HEADER.size))) != (block, template, SBE_SCHEMA_ID, 0):
        raise ValueError(f"SBE header {header}, expected {(block, template, SBE_SCHEMA_ID, 0)}")
    if case == "log":
        recs = [record()]
    else:
        group_block, count = struct.unpack("<HH", take(4))
        if group_block != NULL_FIXED.size:
            raise ValueError(f"SBE group block length {group_block}, expected {NULL_FIXED.size}")
        recs = [record() for _ in range(count)]
    if pos != len(data):
        raise ValueError(f"SBE message has {len(data) - pos} bytes after its last record")
    return recs


ENCODERS = {
    "json": to_json,
    "msgpack": to_msgpack,
    "null": to_null,
    "cbor": to_cbor,
    "avro": to_avro,
    "thrift": to_thrift,
    "bson": to_bson,
    "sbe": to_sbe,
}


def decode(fmt: str, case: str, data: bytes) -> list[dict]:
    """The records an encoding holds, for the formats Python reads here (json, msgpack,
    null, cbor, avro, thrift, bson, sbe); ValueError or the decoder's own error for a
    corrupt one."""
    if fmt == "null":
        return from_null(case, data)
    if fmt == "sbe":
        return from_sbe(case, data)
    if fmt == "thrift":
        return from_thrift(case, data)
    if fmt == "avro":
        buf = io.BytesIO(data)
        value = fastavro.schemaless_reader(buf, avro_schema(case), None)
        if buf.tell() != len(data):
            raise ValueError(f"{len(data) - buf.tell()} bytes after the Avro datum")
    elif fmt == "bson":
        value = bson.decode(data)
    elif fmt == "cbor":
        value = cbor2.loads(data)
    else:
        value = json.loads(data) if fmt == "json" else msgpack.unpackb(data)
    return [value] if case == "log" else value["logs"]


def checks() -> dict:
    return {
        case: {
            "records": len(records(case)),
            "fold": fold(records(case)),
            "size": {fmt: len(encode(case)) for fmt, encode in ENCODERS.items()},
        }
        for case in ALL_CASES
    }


def write(out: Path = TESTDATA) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        (out / f"{case}.json").write_bytes(to_json(case))
    (out / "checks.json").write_text(json.dumps(checks(), indent=2) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else TESTDATA)
