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
# of --serving DIR, the candidates every other variant.
#
#   python3 bench/gemm_bulk_table.py --serving bundles/gemm results.json
#
#===----------------------------------------------------------------------===#
import argparse
import json
import os
import statistics
import sys


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--serving", required=True,
                        help="directory of the serving bundles")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    serving = set(os.listdir(args.serving))
    rows = []
    for path in args.paths:
        with open(path) as f:
            rows += json.load(f)
    failed = [r["bundle"] for r in rows if not r.get("passed")]
    points = {}
    for r in rows:
        if r["publishes"]:
            continue
        point = points.setdefault((r["shape"], r["m"]), {"row": r})
        kind = "serving" if r["bundle"] in serving else "candidate"
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
        serve = point.get("serving")
        cand = point.get("candidate")
        times = [p["ours_us"] for p in (serve, cand) if p]
        best = min(times)
        share = r["floor_us"] / best
        speedup = r["cublas_us"] / best
        speedups.append(speedup)
        need = 0.85 if weight_mib >= 16 else 0.75 if weight_mib >= 8 else 0
        if share < need:
            misses.append(f"{shape} M = {m} ({share:.0%})")
        if serve and cand and cand["ours_us"] > serve["ours_us"]:
            slower.append(f"{shape} M = {m}")
        cand_name = cand["bundle"].split(f"_m{m}_", 1)[1] if cand else "-"
        print(f"| {shape} | {m} | {weight_mib:.0f} | "
              f"{serve['ours_us'] if serve else float('nan'):.2f} | "
              f"{cand_name} | "
              f"{cand['ours_us'] if cand else float('nan'):.2f} | "
              f"{r['cublas_us']:.2f} | {r['floor_us']:.2f} | {share:.0%} | "
              f"{speedup:.2f} |")
    geomean = statistics.geometric_mean(speedups)
    print(f"\ngeometric mean over {len(speedups)} points, best kernel per "
          f"point: {geomean:.3f}x over the better cuBLAS")
    print(f"floor targets missed: {', '.join(misses) or 'none'}")
    print(f"candidates slower than serving at: {', '.join(slower) or 'none'}")
    print(f"variants failing a check: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
