#!/usr/bin/env python3
"""Turns lamport-gemm-bench --json reports into docs/performance.md's GEMM
tables and checks them against the targets.

  gemm_table.py GEMM.json [SECOND.json] > tables.md

GEMM.json is one run over bench/prepare_gemm.sh's bundles: each point's
plain variant and its publishing twin (bundle name with _publish). The
first table has one row per point (the plain variant; with several, the
fastest): tactic, ours, cuBLAS (cublasGemmEx and cublasLt's heuristic
choice where the report times both; the speedup is over the better),
speedup, floor, % of the floor (bold under
65% where the weight is 16 MiB or more) and the relative error. The second
has the publishing epilogue per point, time with the mailbox over time
without it minus 1, for each report given (bold over 10%), and the
publishing kernel's time of the first. Last, the targets: geometric-mean
speedup, the slowest point, the floor and epilogue counts. Exit status 1
when a variant did not pass its checks, 2 on unreadable input.
"""
import json
import math
import re
import sys

SHAPES = {
    "unpooler_tp4": "unpooler tp4", "unpooler_tp8": "unpooler tp8",
    "unpooler_tp16": "unpooler tp16", "oproj_tp4": "o_proj tp4",
    "oproj_tp8": "o_proj tp8", "oproj_tp16": "o_proj tp16",
}
FLOOR_WEIGHT_BYTES = 16 << 20
FLOOR_SHARE = 0.65
EPILOGUE_BOUND = 0.10


def tactic_words(bundle):
    """The bundle name's tactic in the tables' words (s2 kw64 tiles 4 ...)."""
    words = re.sub(r"^.*?_m\d+_", "", bundle).replace("_publish", "")
    words = words.replace("_tiles1", "").replace("_", " ")
    return re.sub(r"tiles(\d)", r"tiles \1", words)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"gemm_table.py: {path}: {e}", file=sys.stderr)
        sys.exit(2)


def publishing_costs(rows):
    """(shape, m) -> (cost, publishing us) of the point's publishing twin."""
    by_name = {r["bundle"]: r for r in rows}
    costs = {}
    for r in rows:
        plain = by_name.get(r["bundle"].replace("_publish", ""))
        if r["publishes"] and plain and not plain["publishes"]:
            costs[(r["shape"], r["m"])] = (
                r["ours_us"] / plain["ours_us"] - 1, r["ours_us"])
    return costs


def main(paths):
    runs = [load(p) for p in paths]
    rows = runs[0]
    failed = [r["bundle"] for run in runs for r in run if not r.get("passed")]
    plain = {}
    for r in rows:
        key = (r["shape"], r["m"])
        if not r["publishes"] and (key not in plain or
                                   r["ours_us"] < plain[key]["ours_us"]):
            plain[key] = r
    order = [s for s in SHAPES if any(k[0] == s for k in plain)]
    points = sorted(plain, key=lambda k: (order.index(k[0]), k[1]))

    # Reports that time both cuBLAS paths show each; the speedup is over
    # the better one (cublas_us).
    both = all("cublaslt_us" in plain[k] for k in points)
    baselines = "GemmEx us | Lt us" if both else "cuBLAS us"
    print(f"| shape | N x K | M | tactic serving M | ours us | {baselines} "
          "| speedup | floor us | % of floor | rel. error |")
    print("|---|---|---:|---|---:|" + ("---:|---:|" if both else "---:|") +
          "---:|---:|---:|---:|")
    logs, short = [], []
    for key in points:
        r = plain[key]
        speedup = r["cublas_us"] / r["ours_us"]
        share = r["floor_us"] / r["ours_us"]
        logs.append(math.log(speedup))
        bounded = r["n"] * r["k"] * 2 >= FLOOR_WEIGHT_BYTES
        share_text = f"{share:.0%}"
        if bounded and share < FLOOR_SHARE:
            share_text = f"**{share_text}**"
            short.append(key)
        theirs = (f"{r['cublas_gemmex_us']:.2f} | {r['cublaslt_us']:.2f}"
                  if both else f"{r['cublas_us']:.2f}")
        print(f"| {SHAPES[key[0]]} | {r['n']} x {r['k']} | {key[1]} "
              f"| {tactic_words(r['bundle'])} | {r['ours_us']:.2f} "
              f"| {theirs} | {speedup:.2f} | {r['floor_us']:.2f} "
              f"| {share_text} | {r['rel_error']:.1e} |")

    costs = [publishing_costs(run) for run in runs]
    over = set()
    print("\n| shape | M = 1 | 2 | 4 | 8 | 16 |")
    print("|---|---:|---:|---:|---:|---:|")
    for shape in order:
        cells = []
        for m in (1, 2, 4, 8, 16):
            found = [c[(shape, m)] for c in costs if (shape, m) in c]
            if not found:
                cells.append("-")
                continue
            text = " / ".join(f"{cost:.1%}" for cost, _ in found)
            if max(cost for cost, _ in found) > EPILOGUE_BOUND:
                text = f"**{text}**"
                over.add((shape, m))
            cells.append(f"{text} ({found[0][1]:.2f} us)")
        print(f"| {SHAPES[shape]} | " + " | ".join(cells) + " |")

    published = [k for k in points if k in costs[0]]
    slowest = min(points, key=lambda k: plain[k]["cublas_us"] /
                  plain[k]["ours_us"])
    bounded = [k for k in points
               if plain[k]["n"] * plain[k]["k"] * 2 >= FLOOR_WEIGHT_BYTES]
    print(f"\nGeometric-mean speedup {math.exp(sum(logs) / len(logs)):.3f}x "
          f"over {len(points)} points; slowest "
          f"{SHAPES[slowest[0]]} M = {slowest[1]} "
          f"({plain[slowest]['cublas_us'] / plain[slowest]['ours_us']:.2f}x); "
          f"{len(bounded) - len(short)} of {len(bounded)} points with W >= "
          f"16 MiB at {FLOOR_SHARE:.0%} of the floor or more; publishing "
          f"epilogue within {EPILOGUE_BOUND:.0%} at "
          f"{len(published) - len(over)} of {len(published)} points with a "
          f"publishing twin.")
    if failed:
        print(f"\nNot passed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
