#!/usr/bin/env python3
"""Makes the seed inputs of the fuzz targets from the golden files (testdata/golden/*/)
and the driver's registry (LIST: the output of `wirebench-rust list`): every rpc request
stream of an rpc library split into single messages (the smallest two of each file), and
every `log.<format>` of each codec library's format, each behind the byte that picks the
case (and variant) of the target (src/fuzz.rs). With --logs, also every `logs.<format>`
(large: long runs only).

    fuzz/seeds.py OUT_DIR LIST [--logs]     writes OUT_DIR/<suite>_<lib>/<sha1>
"""

import hashlib
import json
import pathlib
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "testdata" / "golden"
RPC_CASES = ["carsales", "catrank", "eval"]


def split_null(b):
    i = 0
    while i < len(b):
        (n,) = struct.unpack_from("<I", b, i)
        yield b[i : i + 4 + n]
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
        yield b[i : j + size]
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
    sizes = struct.unpack_from(f"<{count}I", table, 4)
    return head // 8 + sum(sizes)


def split_capnp(b):
    i = 0
    while i < len(b):
        n = capnp_words(b[i : i + 8 * 1024]) * 8
        yield b[i : i + n]
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
                out += b[i : i + 8 * n]
                i += 8 * n
            words = capnp_words(bytes(out[: 8 * 1024]))
            if words is not None and len(out) >= 8 * words:
                break
        yield b[start:i]


# The framing of each rpc library's request streams; a library not here has no seeds.
SPLIT = {
    "null.none": split_null,
    "protobuf.none": split_protobuf,
    "capnp.none": split_capnp,
    "capnp.packed": split_packed,
}


def put(out, target, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def target(suite, lib):
    return suite + "_" + lib.replace("-", "_")


def main():
    out = pathlib.Path(sys.argv[1])
    cells = [json.loads(line) for line in open(sys.argv[2])]
    logs = "--logs" in sys.argv[3:]
    rpc = {c["lib"] for c in cells if c["suite"] == "rpc"}
    codec = {target("codec", c["lib"]): c["format"] for c in cells if c["suite"] == "codec"}
    for lang in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        for f in sorted(lang.glob("*.requests")):
            case, lib, compression, _ = f.name.split(".")
            split = SPLIT.get(f"{lib}.{compression}")
            if lib not in rpc or split is None:
                continue
            messages = sorted(split(f.read_bytes()), key=len)
            for m in messages[:2]:
                pick = RPC_CASES.index(case) + (6 if compression == "packed" else 0)
                for reuse in (0, 3):  # reuse, no-reuse
                    put(out, target("rpc", lib), bytes([pick + reuse]) + m)
        for name, fmt in codec.items():
            f = lang / f"log.{fmt}"
            if f.exists():
                put(out, name, b"\x00" + f.read_bytes())
            f = lang / f"logs.{fmt}"
            if logs and f.exists():
                put(out, name, b"\x01" + f.read_bytes())


main()
