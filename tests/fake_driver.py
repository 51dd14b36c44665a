#!/usr/bin/env python3
"""A driver that speaks docs/protocol.md and misbehaves on request, for the harness tests.

Its libraries name its behaviour: `good` does the carsales work honestly (the expected
answers come from wirebench.workloads), the others crash, hang, lie, print garbage, ...
FAKE_SLEEP (seconds per sample) makes `good` slow enough to be interrupted; FAKE_EXTRA_WARMUP
(iterations) makes it warm up longer than asked, as the JVM driver does; FAKE_NOISE (a
fraction) puts each process's rpc times off by up to that much, FAKE_SLOWDOWN (a factor)
multiplies them (a slower variant, for A/B runs). Its language is
its file's name, so a link `fake2_driver.py` is a second language; FAKE_TOOLCHAIN sets the
toolchain it reports.

It also runs the suite `probe` (tests/conftest.py registers it): a latency histogram per
process and a file in its --out-dir, to exercise histograms and fixtures end to end; and
codec cells whose encodings come from wirebench.codec_records (`null`, and `jackson` for
JSON), honest unless FAKE_CODEC_LIE names an operation whose digest to get wrong; queue
cells through a real wbq queue; readbytes cells on the real data file.
"""

import json
import os
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from wirebench import codec_records, workloads  # noqa: E402

BEHAVIOURS = (
    "good",
    "crash",
    "hang",
    "liar",
    "unverified",
    "garbage",
    "fail",
    "silent",
    "wrongcell",
    "twolines",
    "flood",  # prints without end
    "hog",  # allocates 4 GiB
    "serverdies",  # its server dies at the third request
)


def cells():
    for lib in BEHAVIOURS:
        for mode in ("object", "pipe"):
            yield {
                "suite": "rpc",
                "case": "carsales",
                "lib": lib,
                "params": {"mode": mode, "compression": "none", "reuse": "reuse"},
            }
    yield {"suite": "limit", "case": "memcpy", "lib": "memcpy", "params": {"block": "16KiB"}}
    yield {"suite": "probe", "case": "echo", "lib": "good", "params": {"size": "small"}}
    # Of the size axis only logs10 beside logs: two points make its lines, and Python's
    # generator would make the others in every process of every test that runs codec.
    for case in ("log", "logs10", "logs"):
        for lib, fmt, validation in (("null", "null", "lazy"), ("jackson", "json", "validated")):
            for buffer in ("reused", "fresh"):
                params = {"buffer": buffer, "strings": "owned", "validation": validation}
                params["packing"] = "unpacked"
                yield {"suite": "codec", "case": case, "lib": lib, "format": fmt, "params": params}
    for case in ("single", "bulk"):
        for lib, ordering in (("null", "none"), ("wbq", "release"), ("wbq", "seqcst")):
            params = {"ordering": ordering, "clock": "mono", "pretouch": "on"}
            yield {"suite": "queue", "case": case, "lib": lib, "params": params}
    for case in ("count", "sum", "varint"):
        for lib, caches in (("null", ("warm",)), ("stdio", ("warm", "cold"))):
            for cache in caches:
                yield {"suite": "readbytes", "case": case, "lib": lib, "params": {"cache": cache}}


# The language is the file's name (fake_driver.py: fake; a link fake2_driver.py: fake2).
LANG = Path(sys.argv[0]).name.removesuffix("_driver.py")
TOOLCHAIN = os.environ.get("FAKE_TOOLCHAIN", "fakec")
IDENTITY = {"protocol": 2, "lang": LANG, "toolchain": TOOLCHAIN, "driver": "fake_driver"}


def parse(argv):
    opts = {}
    it = iter(argv)
    for flag in it:
        if not flag.startswith("--"):
            sys.exit(f"fake: unexpected argument {flag!r}")
        opts[flag[2:]] = next(it)
    return opts


def serve(opts):
    requests = 0
    with os.fdopen(int(opts["in-fd"]), "rb") as rd, os.fdopen(int(opts["out-fd"]), "wb") as wr:
        for line in rd:
            requests += 1
            if opts["lib"] == "serverdies" and requests == 3:
                sys.exit("fake server: request 3 is corrupt: length 4294967295 over the limit")
            wr.write(line)
            wr.flush()
    print(json.dumps({**IDENTITY, "role": "server", "requests": requests, "verified": True}))


def probe(opts):
    """Suite probe: latencies 1..100 µs scaled by the rep's drift, and one output file."""
    from hdrh.histogram import HdrHistogram

    h = HdrHistogram(1, 10**9, 3)
    for v in range(1, 101):
        h.record_value(v * 1000)
    out = Path(opts["out-dir"])
    (out / "echo.bin").write_bytes(b"x" * 1234)
    print(
        json.dumps(
            {
                **IDENTITY,
                "suite": "probe",
                "case": opts["case"],
                "lib": opts["lib"],
                "params": {"size": opts["size"]},
                "role": "local",
                "warmup": int(opts["warmup"]),
                "verified": True,
                "metrics": {
                    "time": {"unit": "ns", "iters": int(opts["iters"]), "samples": [5, 6, 7]},
                    "latency": {"unit": "ns", "histogram": h.encode().decode()},
                },
            }
        )
    )


def codec(opts):
    """Suite codec: the Python reference's encoding, written to --out-dir, with the digests
    of honest work; a first (reused) cell measures everything, a fresh one populate and
    serialize only."""
    case, lib, iters, samples = opts["case"], opts["lib"], int(opts["iters"]), int(opts["samples"])
    data = (codec_records.to_null if lib == "null" else codec_records.to_json)(case)
    (Path(opts["out-dir"]) / f"{case}.{lib}").write_bytes(data)
    fold = codec_records.fold(codec_records.records(case))
    ops = ["populate", "serialize"]
    if opts["buffer"] == "reused":
        ops += ["deserialize"] + (["access"] if lib == "null" else [])
    digest = {"serialize": iters * len(data)}
    digest["deserialize"] = digest["access"] = codec_records.signed64(iters * fold)
    lie = os.environ.get("FAKE_CODEC_LIE")
    metrics = {
        op: {"unit": "ns", "iters": iters, "samples": [(100 + i) * iters for i in range(samples)]}
        for op in ops
    }
    metrics["size"] = {"unit": "B", "value": len(data)}
    metrics["populate_allocs"] = {"unit": "allocs", "value": 11}
    metrics["populate_alloc_bytes"] = {"unit": "B", "value": 640}
    check = {op: [digest[op] + (op == lie)] * samples for op in ops if op != "populate"}
    print(
        json.dumps(
            {
                **IDENTITY,
                "suite": "codec",
                "case": case,
                "lib": lib,
                "params": {k: opts[k] for k in ("buffer", "strings", "validation", "packing")},
                "role": "local",
                "warmup": int(opts["warmup"]),
                "verified": True,
                "metrics": metrics,
                "check": check,
            }
        )
    )


def queue(opts):
    """Suite queue: the values really go through a wbq queue in --work-dir (Python's
    writer, read back by Python's reader); latencies are made up. `null` reports its
    histograms in the counts form, as the C++ driver does. FAKE_QUEUE_LIE: a wrong sum.
    FAKE_QUEUE_OLD: single runs timed per write only, one a sample (the old protocol)."""
    from hdrh.histogram import HdrHistogram

    from wirebench import queue_format

    case, iters = opts["case"], int(opts["iters"])
    samples, warmup = int(opts["samples"]), int(opts["warmup"])
    writer = queue_format.Writer(opts["work-dir"], cycle_size=1 << 20)
    hist = HdrHistogram(1, 3_600_000_000_000, 3)
    times, checks, value = [], [], 0
    # single: each sample is a run timed whole (time), then one timed per write (latency);
    # FAKE_QUEUE_OLD: one run a sample, timed per write only (the protocol before).
    old = os.environ.get("FAKE_QUEUE_OLD") is not None
    runs = 2 * samples if case == "single" and not old else samples
    for run in range(warmup + runs):
        before = len(queue_format.read(opts["work-dir"]).values)
        values = list(range(value, value + iters))
        value += iters
        for entry in [values] if case == "bulk" else [[v] for v in values]:
            writer.append(entry)
        back = queue_format.read(opts["work-dir"]).values[before:]
        if back != values:
            sys.exit(f"fake: run {run} read back wrong values")
        if run >= warmup:
            n = 1 if case == "bulk" else iters
            k = run - warmup
            if case != "single" or old or k % 2 == 0:
                times.append((20 + run) * n)
            if case != "single" or old or k % 2 == 1:
                hist.record_value(20 + run, n)
            checks.append(sum(back) + (os.environ.get("FAKE_QUEUE_LIE") is not None))
    writer.close()

    def form(h):
        if opts["lib"] != "null":
            return {"histogram": h.encode().decode()}
        return {
            "counts": [
                [i.value_iterated_to, i.count_added_in_this_iter_step]
                for i in h.get_recorded_iterator()
            ]
        }

    print(
        json.dumps(
            {
                **IDENTITY,
                "suite": "queue",
                "case": case,
                "lib": opts["lib"],
                "params": {k: opts[k] for k in ("ordering", "clock", "pretouch")},
                "role": "local",
                "warmup": warmup,
                "verified": True,
                "metrics": {
                    "time": {"unit": "ns", "iters": iters, "samples": times},
                    "latency": {"unit": "ns", **form(hist)},
                },
                "check": checks,
                "entries_checked": (warmup + runs) * (1 if case == "bulk" else iters),
                "intervals": {"latency": [{"start_ms": 0, "length_ms": 1000, **form(hist)}]},
                "queue": {"cycle_size": 1 << 20, "cycles": 1},
            }
        )
    )


def readbytes(opts):
    """Suite readbytes: the --input file is checked as the harness checks it, and the
    values of docs/workloads.md §8 reported for it; times are made up.
    FAKE_READBYTES_LIE: a wrong check."""
    from wirebench import readbytes_data

    readbytes_data.check(Path(opts["input"]))
    case, iters = opts["case"], int(opts["iters"])
    samples, warmup = int(opts["samples"]), int(opts["warmup"])
    lie = os.environ.get("FAKE_READBYTES_LIE") is not None
    speed = 1 if opts["lib"] == "null" else 3
    print(
        json.dumps(
            {
                **IDENTITY,
                "suite": "readbytes",
                "case": case,
                "lib": opts["lib"],
                "params": {"cache": opts["cache"]},
                "role": "local",
                "warmup": warmup,
                "verified": True,
                "metrics": {
                    "time": {
                        "unit": "ns",
                        "iters": iters,
                        "samples": [speed * 4_000_000 * iters + s for s in range(samples)],
                    },
                    "bytes": {
                        "unit": "B",
                        "iters": iters,
                        "samples": [iters * readbytes_data.SIZE] * samples,
                    },
                },
                "check": [iters * readbytes_data.PER_PASS[case] + lie] * samples,
                "passes_checked": warmup + iters * samples,
            }
        )
    )


def main():
    if sys.argv[1:] == ["info"]:
        print(
            json.dumps(
                {
                    **IDENTITY,
                    "suites": ["rpc", "codec", "queue", "readbytes", "limit"],
                    "versions": {"fake": os.environ.get("FAKE_VERSION", "1.0")},
                }
            )
        )
        return
    if sys.argv[1:] == ["list"]:
        for c in cells():
            print(json.dumps(c))
        return
    if sys.argv[1:2] != ["run"]:
        print("usage: fake_driver info|list|run ...", file=sys.stderr)
        sys.exit(2)
    opts = parse(sys.argv[2:])
    lib = opts["lib"]
    if opts.get("role") == "server":
        return serve(opts)
    if opts["suite"] == "probe":
        return probe(opts)
    if opts["suite"] == "codec":
        return codec(opts)
    if opts["suite"] == "queue":
        return queue(opts)
    if opts["suite"] == "readbytes":
        return readbytes(opts)
    iters, samples, warmup = int(opts["iters"]), int(opts["samples"]), int(opts["warmup"])
    warmup += int(os.environ.get("FAKE_EXTRA_WARMUP", "0"))
    params = {k: opts[k] for k in ("mode", "compression", "reuse", "block") if k in opts}
    if lib == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if lib == "hang":
        time.sleep(3600)
    if lib == "fail":
        print("fake: response 7 was wrong: total 12 != 13", file=sys.stderr)
        sys.exit(1)
    if lib == "garbage":
        print("this is not JSON {")
        return
    if lib == "silent":
        return
    if lib == "flood":
        while True:
            sys.stdout.write("flood " * 10000)
    if lib == "hog":
        try:
            hoard = bytearray(4 << 30)
        except MemoryError:
            sys.exit("fake: out of memory")
        print(len(hoard))
    if opts["suite"] == "limit":
        check, size = 16 << 10, iters * (16 << 10)
    else:
        check = workloads.digest("carsales", iters)
        size = 1000 * iters
    if opts.get("role") == "client":
        with os.fdopen(int(opts["out-fd"]), "wb") as wr, os.fdopen(int(opts["in-fd"]), "rb") as rd:
            for i in range(warmup + iters * samples):
                wr.write(b"%d\n" % i)
                wr.flush()
                echo = rd.readline()
                if not echo:
                    sys.exit(f"fake client: the server closed the pipe at request {i}")
                if echo != b"%d\n" % i:
                    sys.exit("fake client: wrong echo")
    time.sleep(float(os.environ.get("FAKE_SLEEP", "0")) * samples)
    # FAKE_NOISE: each process's times off by up to that fraction, as processes are.
    jitter = 1 + random.uniform(-1, 1) * float(os.environ.get("FAKE_NOISE", "0"))
    jitter *= float(os.environ.get("FAKE_SLOWDOWN", "1"))
    result = {
        **IDENTITY,
        "suite": opts["suite"],
        "case": opts["case"],
        "lib": lib,
        "params": params,
        "role": opts.get("role", "local"),
        "warmup": warmup,
        "metrics": {
            "time": {
                "unit": "ns",
                "iters": iters,
                "samples": [int(1000 * iters * jitter) + 37 * s for s in range(samples)],
            },
            "bytes": {"unit": "B", "iters": iters, "samples": [size] * samples},
        },
        "check": [check] * samples,
        "verified": lib != "unverified",
        "responses_checked": warmup + iters * samples,
        "versions": {"fake": os.environ.get("FAKE_VERSION", "1.0")},
    }
    if lib == "liar":
        result["check"] = [check + 1] * samples
    if lib == "wrongcell":
        result["case"] = "catrank"
    print(json.dumps(result))
    if lib == "twolines":
        print(json.dumps(result))


if __name__ == "__main__":
    main()
