#!/usr/bin/env python3
#===- scripts/pass_orders.py - Lamport's passes in other orders ----------===#
#
# Part of the Lamport project.
#
#===----------------------------------------------------------------------===#
"""Runs lamport-opt's passes alone and in orders a compiler that embeds them
may choose (upstream cleanups between them, a pass twice, other chips and
transports, upstream's host lowering after lamport-lower-program) over
every .mlir file of the given files and directories, each with
--split-input-file. A pass may refuse its input with a diagnostic (most
orders here are not Lamport's); it must not crash. Prints each crash with
the command that reproduces it and exits 1 where there is one.

  pass_orders.py [--opt LAMPORT_OPT] [--jobs N] PATH...
"""
import argparse
import glob
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# Each a pass pipeline nested in builtin.module.
PIPELINES = [
    # Each pass alone, on whatever the file holds.
    "lamport-select-tactics",
    "lamport-check-protocol",
    "lamport-generate-kernels",
    "lamport-lower-to-nvvm",
    "gpu.module(convert-lamport-to-nvvm)",
    "lamport-lower-host",
    "lamport-lower-program",
    "lamport-lower-to-llvm",
    # Out of order, or twice.
    "lamport-lower-host,lamport-generate-kernels",
    "lamport-lower-to-nvvm,lamport-generate-kernels",
    "lamport-generate-kernels,lamport-generate-kernels",
    "lamport-lower-program,lamport-lower-program",
    "lamport-select-tactics,lamport-select-tactics,lamport-generate-kernels",
    "lamport-generate-kernels,lamport-lower-host",
    # Upstream's cleanups between Lamport's passes.
    "lamport-select-tactics{no-table},lamport-generate-kernels,canonicalize,"
    "cse,symbol-dce,lamport-lower-to-nvvm",
    "lamport-generate-kernels,gpu.module(canonicalize,cse,"
    "convert-lamport-to-nvvm,canonicalize)",
    "inline,lamport-lower-program,canonicalize,cse",
    # Other chips and transports.
    "lamport-lower-to-nvvm{chip=sm_100a}",
    "lamport-lower-program{chip=sm_90a}",
    "lamport-generate-kernels{transport=multicast},lamport-lower-to-nvvm",
    # Upstream's host lowering after Lamport's.
    "lamport-lower-program,gpu-to-llvm,convert-scf-to-cf,convert-to-llvm,"
    "reconcile-unrealized-casts",
]

# What a crash prints (LLVM's signal handler, a failed assertion, a fatal
# error), beyond a signal or a status past 127.
CRASH_SIGNS = ("Stack dump", "PLEASE submit a bug report", "Assertion",
               "LLVM ERROR", "UNREACHABLE")


def mlir_files(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += glob.glob(os.path.join(path, "**", "*.mlir"),
                               recursive=True)
        else:
            files.append(path)
    return sorted(files)


def run(opt, path, pipeline):
    """A line describing the crash of `pipeline` on `path`, or None."""
    command = [opt, path, "--split-input-file", "-o", os.devnull,
               f"--pass-pipeline=builtin.module({pipeline})"]
    try:
        # Diagnostics quote the input, which need not be UTF-8.
        result = subprocess.run(command, capture_output=True,
                                encoding="utf-8", errors="replace",
                                timeout=300)
    except subprocess.TimeoutExpired:
        return f"timed out after 300 s: {' '.join(command)}"
    crashed = (result.returncode < 0 or result.returncode > 127 or
               any(sign in result.stderr for sign in CRASH_SIGNS))
    if not crashed:
        return None
    first = next((line for line in result.stderr.splitlines()
                  if line.strip()), "")
    return (f"status {result.returncode}: {' '.join(command)}\n"
            f"  {first[:300]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opt", default="lamport-opt")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    files = mlir_files(args.paths)
    if not files:
        sys.exit(f"pass_orders.py: no .mlir file in {' '.join(args.paths)}")
    jobs = [(path, pipeline) for path in files for pipeline in PIPELINES]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        crashes = [line for line in pool.map(lambda job: run(args.opt, *job),
                                             jobs) if line]
    for line in crashes:
        print(f"pass_orders.py: crash, {line}")
    print(f"pass_orders.py: {len(jobs)} runs ({len(files)} files x "
          f"{len(PIPELINES)} pipelines), {len(crashes)} crash(es)")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
