#!/usr/bin/env python3
#===- bench/prefetch_next.py - The next GEMM's weight prefetched to L2 ---===#
#
# Run where MLIR is. A bound on what a GEMM could gain by streaming the next
# GEMM's weight into L2 while its own chain after the PDL wait (x, the
# MMAs, the sums, the epilogue) leaves the DRAM idle. Each plain serving
# bundle of bundles/gemm (bench/prepare_gemm.sh) gets hand-edited twins
# (bench/edit_ptx.py) in which each issuer (every thread, lane 0 of every
# warp, or thread 0 of every CTA: suffix thread, warp, cta) issues one
# cp.async.bulk.prefetch.L2 of its share of the weight that follows its
# own in memory:
#   _pfwait...  right after griddepcontrol.wait;
#   _pfmma...   after the (first pass's) MMAs, at the warps' first partial
#               store to shared memory.
# lamport-gemm-bench `--contiguous-weights` lays the rotated weight copies
# back to back (one spare past the last), so the weight after a GEMM's own
# is the next graph node's. Not valid kernels in general (they read past
# their weight): a measurement only. Bundles go to bundles/gemm_prefetch;
# time them on the GPU machine with
#
#   lamport-gemm-bench --contiguous-weights bundles/gemm/<shape>_m* \
#       bundles/gemm_prefetch/<shape>_m*
#
#   python3 bench/prefetch_next.py [-o DIR]
#
#===----------------------------------------------------------------------===#
import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACES = {"pfwait": r"^\s*griddepcontrol\.wait;",
          "pfmma": r"^\s*st\.shared\.b32\s"}
# Who issues the prefetches: every thread, lane 0 of every warp, thread 0
# of every CTA (threads a unit; 0: the kernel's CTA).
UNITS = {"thread": 1, "warp": 32, "cta": 0}


def prefetch_line(weight_bytes, issuers, per_cta, unit):
    """One PTX line: this issuer's share of the next weight to L2. An
    issuer is every thread (unit 1), lane 0 of every warp (32) or thread 0
    of every CTA (the CTA's threads), `per_cta` of them a CTA."""
    chunk = (weight_bytes + issuers - 1) // issuers
    chunk = (chunk + 15) // 16 * 16
    return ("{ .reg .b64 %pfw, %pfa; .reg .b32 %pfx, %pfnx, %pfy, %pft, "
            "%pfid; .reg .pred %pfp; "
            "ld.param.b64 %pfw, [gemm_publish_0_param_0]; "
            "mov.u32 %pfx, %ctaid.x; mov.u32 %pfnx, %nctaid.x; "
            "mov.u32 %pfy, %ctaid.y; mov.u32 %pft, %tid.x; "
            f"rem.u32 %pfid, %pft, {unit}; setp.eq.u32 %pfp, %pfid, 0; "
            f"div.u32 %pft, %pft, {unit}; "
            "mad.lo.u32 %pfid, %pfy, %pfnx, %pfx; "
            f"mad.lo.u32 %pfid, %pfid, {per_cta}, %pft; "
            f"add.u64 %pfw, %pfw, {weight_bytes}; "
            f"mad.wide.u32 %pfa, %pfid, {chunk}, %pfw; "
            f"@%pfp cp.async.bulk.prefetch.L2.global [%pfa], {chunk}; }}")


def main(argv):
    parser = argparse.ArgumentParser(
        description="serving GEMMs that prefetch the next weight into L2")
    parser.add_argument("-o", "--output",
                        default=os.path.join(ROOT, "bundles", "gemm_prefetch"))
    parser.add_argument("--source", default=os.path.join(ROOT, "bundles", "gemm"))
    args = parser.parse_args(argv)
    shutil.rmtree(args.output, ignore_errors=True)
    os.makedirs(args.output)
    made = failed = 0
    for name in sorted(os.listdir(args.source)):
        if "_publish" in name:
            continue
        source = os.path.join(args.source, name)
        manifest = json.load(open(os.path.join(source, "manifest.json")))
        kernel = manifest["kernels"][0]
        n, k = manifest["arguments"][1]["shape"]
        weight_bytes = n * k * 2
        ctas = kernel["grid"][0] * kernel["grid"][1]
        threads = kernel["block"][0]
        for (suffix, place), (unit_name, unit) in itertools.product(
                PLACES.items(), UNITS.items()):
            unit = unit or threads
            per_cta = threads // unit
            # The bundle's name with a suffix: the bench takes it as a
            # variant of the same point.
            dest = os.path.join(args.output, f"{name}_{suffix}{unit_name}")
            run = subprocess.run(
                [sys.executable, os.path.join(ROOT, "bench", "edit_ptx.py"),
                 source, dest, "--insert-after", place,
                 prefetch_line(weight_bytes, ctas * per_cta, per_cta, unit)],
                capture_output=True, text=True)
            if run.returncode:
                print(f"{name} {suffix}: {run.stderr.strip()}")
                failed += 1
            else:
                made += 1
    print(f"{made} bundles in {args.output}, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
