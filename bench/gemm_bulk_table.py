#!/usr/bin/env python3
#===- bench/gemm_bulk_table.py - Candidates against the serving kernels ---===#
#
# Reads the JSON of bench/run_gemm_bulk.sh (one file per shape, or one for
# all) and prints, per point, the serving kernel (bundles/gemm, plain), the
# fastest candidate, cuBLAS (the better of cublasGemmEx and cublasLt), the
# floor and the share of it the better of the two kernels reaches; then the
# targets: 85% of the floor at W >= 16 MiB, 75% at W >= 8 MiB, geometric
# mean >= 2.0x over cuBLAS, no point slower than the serving kernel. Every
# variant must have passed its checks. The serving kernels are the bundles
# of --serving DIR; without it, every variant but the bulk pipeline's.
#
#   python3 bench/gemm_bulk_table.py [--serving bundles/gemm] gemm_bulk_*.json
#
#===----------------------------------------------------------------------===#
import argparse
import json
import math
import os
import sys


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--serving", help="directory of the serving bundles")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    paths = args.paths
    serving = set(os.listdir(args.serving)) if args.serving else None
    rows = []
    for path in paths:
        with open(path) as f:
            rows += json.load(f)
    failed = [r["bundle"] for r in rows if not r.get("passed")]
    points = {}
    for r in rows:
        if r["publishes"]:
            continue
        point = points.setdefault((r["shape"], r["m"]), {"row": r})
        if serving is not None:
            kind = "registers" if r["bundle"] in serving else "bulk"
        else:
            kind = "bulk" if "_bulk" in r["bundle"] else "registers"
        best = point.get(kind)
        if r.get("ours_us") and (not best or r["ours_us"] < best["ours_us"]):
            point[kind] = r
    print("| shape | M | W MiB | serving us | best candidate | candidate us | cuBLAS us "
          "| floor us | best % of floor | speedup |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    speedups, misses, slower = [], [], []
    for (shape, m), point in sorted(points.items()):
        r = point["row"]
        weight_mib = r["n"] * r["k"] * 2 / (1 << 20)
        reg = point.get("registers")
        bulk = point.get("bulk")
        times = [p["ours_us"] for p in (reg, bulk) if p]
        best = min(times)
        share = r["floor_us"] / best
        speedup = r["cublas_us"] / best
        speedups.append(speedup)
        need = 0.85 if weight_mib >= 16 else 0.75 if weight_mib >= 8 else 0
        if share < need:
            misses.append(f"{shape} M = {m} ({share:.0%})")
        if reg and bulk and bulk["ours_us"] > reg["ours_us"]:
            slower.append(f"{shape} M = {m}")
        bulk_name = bulk["bundle"].split(f"_m{m}_", 1)[1] if bulk else "-"
        print(f"| {shape} | {m} | {weight_mib:.0f} | "
              f"{reg['ours_us'] if reg else float('nan'):.2f} | {bulk_name} | "
              f"{bulk['ours_us'] if bulk else float('nan'):.2f} | "
              f"{r['cublas_us']:.2f} | {r['floor_us']:.2f} | {share:.0%} | "
              f"{speedup:.2f} |")
    geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
    print(f"\ngeometric mean over {len(speedups)} points, best kernel per "
          f"point: {geomean:.3f}x over the better cuBLAS")
    print(f"floor targets missed: {', '.join(misses) or 'none'}")
    print(f"candidates slower than serving at: {', '.join(slower) or 'none'}")
    print(f"variants failing a check: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
