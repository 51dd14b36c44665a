#!/usr/bin/env python3
"""Makes the seed inputs of the fuzz targets from the golden files (testdata/golden/*/):
every rpc request stream split into single messages (the smallest two of each file), and
every codec `log.<format>`, each behind the byte that picks the case (and variant) of
the target (src/fuzz.rs). With --logs, also every `logs.<format>` (large: long runs
only; the committed corpus is what `cargo fuzz cmin` keeps).

    fuzz/seeds.py OUT_DIR [--logs]     writes OUT_DIR/<target>/<sha1>
"""
import hashlib
import pathlib
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "testdata" / "golden"
RPC_CASES = ["carsales", "catrank", "eval"]
CODEC = {  # target -> format of the golden files
    "codec_null": "null", "codec_serde_json": "json", "codec_simd_json": "json",
    "codec_sonic_rs": "json", "codec_prost": "protobuf", "codec_capnp": "capnp",
    "codec_flatbuffers": "flatbuffers", "codec_rmp_serde": "msgpack",
    "codec_bincode": "bincode", "codec_bitcode": "bitcode", "codec_postcard": "postcard",
    "codec_rkyv": "rkyv",
}


def split_null(b):
    i = 0
    while i < len(b):
        (n,) = struct.unpack_from("<I", b, i)
        yield b[i:i + 4 + n]
        i += 4 + n


def split_protobuf(b):
    i = 0
    while i < len(b):
        size, shift, j = 0, 0, i
        while True:
            c = b[j]
            j += 1
            size |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                break
        yield b[i:j + size]
        i = j + size


def capnp_words(table):
    """Words of a message (table included) from its first bytes, None if incomplete."""
    if len(table) < 4:
        return None
    count = struct.unpack_from("<I", table, 0)[0] + 1
    head = 4 + 4 * count
    head += head % 8
    if len(table) < head:
        return None
    sizes = struct.unpack_from("<%dI" % count, table, 4)
    return head // 8 + sum(sizes)


def split_capnp(b):
    i = 0
    while i < len(b):
        n = capnp_words(b[i:i + 8 * 1024]) * 8
        yield b[i:i + n]
        i += n


def split_packed(b):
    i = 0
    while i < len(b):
        start, out = i, bytearray()
        while True:
            tag = b[i]
            i += 1
            for bit in range(8):
                if tag & (1 << bit):
                    out.append(b[i])
                    i += 1
                else:
                    out.append(0)
            if tag == 0x00:
                out += bytes(8 * b[i])
                i += 1
            elif tag == 0xFF:
                n = b[i]
                i += 1
                out += b[i:i + 8 * n]
                i += 8 * n
            words = capnp_words(bytes(out[:8 * 1024]))
            if words is not None and len(out) >= 8 * words:
                break
        yield b[start:i]


SPLIT = {"null.none": split_null, "protobuf.none": split_protobuf,
         "capnp.none": split_capnp, "capnp.packed": split_packed}


def put(out, target, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main():
    out = pathlib.Path(sys.argv[1])
    logs = "--logs" in sys.argv[2:]
    for lang in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        for f in sorted(lang.glob("*.requests")):
            case, lib, compression, _ = f.name.split(".")
            messages = sorted(SPLIT[f"{lib}.{compression}"](f.read_bytes()), key=len)
            for m in messages[:2]:
                pick = RPC_CASES.index(case) + (6 if compression == "packed" else 0)
                for reuse in (0, 3):  # reuse, no-reuse
                    put(out, f"rpc_{lib}", bytes([pick + reuse]) + m)
        for target, fmt in CODEC.items():
            f = lang / f"log.{fmt}"
            if f.exists():
                put(out, target, b"\x00" + f.read_bytes())
            f = lang / f"logs.{fmt}"
            if logs and f.exists():
                put(out, target, b"\x01" + f.read_bytes())


main()
