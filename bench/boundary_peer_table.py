#!/usr/bin/env python3
"""Turns lamport-boundary-bench --json reports (one per tp) into the table
of docs/performance.md's "Across GPUs" section.

  boundary_peer_table.py REPORT.json... > table.md

One row per (tp, M) and timing mode: per-step latency of the whole TP group,
median and p99 in microseconds, of ours fused (the attention boundary,
gemm_publish + all_reduce_dual_norm, peer transport), the boundary alone
(publish_rows of partials in memory + all_reduce_dual_norm, --boundary),
NCCL's all-reduce alone, the all-reduce + the same dual norm, that dual
norm alone (PDL between steps, no exchange: the norm half's cost), and the
full baseline (cuBLAS + all-reduce + dual norm); then NCCL all-reduce / the
boundary alone (the target: at least 2, counted per replayed mode,
pipelined and graph, over the rows whose checks passed) and baseline / fused.
Pipelined rows come first: each rank runs a replay's steps back to back, as
a decode loop does; graph rows join every step across the GPUs. The GPU count, devices, NCCL version and date come from
the reports. A row that failed its checks shows what failed; a report that
did not finish is named below the table.
"""
import json
import sys


def fmt(value, suffix=""):
    return f"{value:.2f}{suffix}" if isinstance(value, (int, float)) else "-"


def cell(latency, key):
    return latency.get(key) if isinstance(latency, dict) else None


def main(paths):
    rows, notes, headers = [], [], []
    for path in paths:
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError) as error:
            notes.append(f"{path}: no report ({error})")
            continue
        if report.get("status") == "error":
            notes.append(f"tp {report.get('tp')}: did not finish: "
                         f"{report.get('error', '?')}")
        header = (report.get("devices", "?"), report.get("nccl", "?"),
                  report.get("nccl_nvls_enable", "?"), report.get("date", "?"))
        if header not in headers:
            headers.append(header)
        for row in report.get("rows", []):
            rows.append((report.get("gpus", row.get("tp")), row))
    if not rows:
        print("(no measurements)")
        for note in notes:
            print(f"- {note}")
        return 1
    for devices, nccl, nvls, date in headers:
        print(f"{date}: {devices}, NCCL {nccl}, NCCL_NVLS_ENABLE={nvls}; "
              f"`bash bench/run_boundary_peer.sh` (lamport-boundary-bench). "
              f"Microseconds per step of the whole TP group.")
    print()
    print("| tp | GPUs | M | mode | fused median | fused p99 "
          "| boundary median | boundary p99 | NCCL AR median | NCCL AR p99 "
          "| AR + norm median | AR + norm p99 | norm alone median "
          "| norm alone p99 | baseline median "
          "| baseline p99 | NCCL AR / boundary | baseline / fused | check |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
          "---:|---:|---:|---:|---:|---|")
    order = {"pipelined": 0, "graph": 1, "eager": 2}
    met, total = {}, {}
    for gpus, row in sorted(rows, key=lambda r: (order.get(r[1]["mode"], 3),
                                                 r[1]["tp"], r[1]["m"])):
        ours, alone = row.get("ours_us"), row.get("boundary_us")
        ar, arn = row.get("nccl_all_reduce_us"), row.get("nccl_all_reduce_norm_us")
        base, norm = row.get("baseline_us"), row.get("dual_norm_alone_us")
        ratio = row.get("ratio_all_reduce_over_boundary")
        mode = row["mode"]
        if (isinstance(ratio, (int, float)) and mode != "eager"
                and row.get("check") == "PASS"):
            total[mode] = total.get(mode, 0) + 1
            met[mode] = met.get(mode, 0) + (ratio >= 2)
        print(f"| {row['tp']} | {gpus} | {row['m']} | {row['mode']} | "
              f"{fmt(cell(ours, 'median'))} | {fmt(cell(ours, 'p99'))} | "
              f"{fmt(cell(alone, 'median'))} | {fmt(cell(alone, 'p99'))} | "
              f"{fmt(cell(ar, 'median'))} | {fmt(cell(ar, 'p99'))} | "
              f"{fmt(cell(arn, 'median'))} | {fmt(cell(arn, 'p99'))} | "
              f"{fmt(cell(norm, 'median'))} | {fmt(cell(norm, 'p99'))} | "
              f"{fmt(cell(base, 'median'))} | {fmt(cell(base, 'p99'))} | "
              f"{fmt(ratio, 'x')} | "
              f"{fmt(row.get('ratio_baseline_over_ours'), 'x')} | "
              f"{row.get('check', '?')} |")
    print()
    counts = "; ".join(f"{mode}: met at {met[mode]} of {total[mode]}"
                       for mode in sorted(total, key=lambda m: order.get(m, 3)))
    print(f"Target (the boundary, all-reduce and dual norm, in at most half "
          f"of NCCL's all-reduce alone), over the checked replayed points "
          f"with the boundary alone measured: {counts or 'none measured'}.")
    for note in notes:
        print(f"- {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
