"""Stands in for `valgrind --tool=cachegrind` in tests: runs the driver and writes a
cachegrind out file whose counts grow with --iters (1,000,000 + 700 per iteration, 10 of
them first-level misses, 1 a memory access). FAKE_VALGRIND_FLAT makes them not grow."""

import os
import subprocess
import sys

args = sys.argv[1:]
out = next(a.split("=", 1)[1] for a in args if a.startswith("--cachegrind-out-file="))
command = args[next(i for i, a in enumerate(args) if not a.startswith("--")) :]
iters = int(command[command.index("--iters") + 1])
status = subprocess.run(command, close_fds=False).returncode  # a pipe cell's fds
n = 0 if os.environ.get("FAKE_VALGRIND_FLAT") else iters
with open(out.replace("%p", str(os.getpid())), "w") as f:
    f.write("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n")
    f.write(f"summary: {1_000_000 + 700 * n} {10 * n} {n} 0 0 0 0 0 0\n")
sys.exit(status)
