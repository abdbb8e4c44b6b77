#!/usr/bin/env python3
"""Turns lamport-run --bench --json reports of the fused and the unfused
attention boundary into docs/performance.md's table.

  boundary_table.py REPORT.json... > table.md

One row per (tp, m): per-step latency (graph replay; a step is every rank's
GEMM and consumer launches) of the fused boundary (gemm_publish +
all_reduce_dual_norm) and the unfused one (plain GEMM, publish_rows,
all_reduce, dual_norm), median and p99 in microseconds, and their ratio.
"""
import datetime
import json
import sys


def main(paths):
    cells = {}
    device = ""
    for path in paths:
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            print(f"boundary_table.py: skipping {path}: {e}", file=sys.stderr)
            continue
        if r.get("status") != "pass":
            continue
        kind = "unfused" if "unfused" in r.get("bundle", "") else "fused"
        cells[(r["tp"], r["tokens"], kind)] = r["latency_us"]
        device = r.get("device", device)
    if not cells:
        print("(no reports)")
        return 1
    print(f"Attention boundary per decode step, loopback, {device}, "
          f"{datetime.date.today().isoformat()}, CUDA graph replay (us):\n")
    print("| tp | M | fused median | fused p99 | unfused median | unfused p99 "
          "| unfused / fused |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for tp, m in sorted({(tp, m) for tp, m, _ in cells}):
        f = cells.get((tp, m, "fused"), {})
        u = cells.get((tp, m, "unfused"), {})
        ratio = (u["median"] / f["median"]) if f and u else None

        def fmt(v):
            return f"{v:.2f}" if v is not None else "-"
        print(f"| {tp} | {m} | {fmt(f.get('median'))} | {fmt(f.get('p99'))} | "
              f"{fmt(u.get('median'))} | {fmt(u.get('p99'))} | "
              f"{fmt(ratio)}{'x' if ratio else ''} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
