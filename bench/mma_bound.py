#!/usr/bin/env python3
#===- bench/mma_bound.py - What the MMAs cost after the PDL wait -----------===#
#
# Run where MLIR is. Everything a serving GEMM does after
# griddepcontrol.wait (x's loads, the MMAs, the sums, y's store) sits on
# the chain the next grid waits for, and at 16 tokens x and the MMAs
# double. This bounds what the MMAs cost on it, with the wait and
# without: what a faster multiply (sm_90a's asynchronous warpgroup MMA, at
# about twice mma.sync's rate) could gain at most. Each plain serving bundle
# of bundles/gemm (bench/prepare_gemm.sh) gets hand-edited twins
# (bench/edit_ptx.py) in bundles/gemm_mma:
#   _nomma         every mma.sync replaced by four FFMAs, accumulator i
#                  += weight word i x token word i % 2 (bits as FP32), so
#                  the weights stay live until x arrives and every load is
#                  kept, but no tensor-core work is left;
#   _nowait        the PDL wait removed (the x-handover bound's twin);
#   _nowait_nomma  both.
# None of the twins computes the GEMM (their y fails the checks by
# design): their times are bounds, taken only where the bundle itself
# passed. bench/run_gemm_bulk.sh with CANDIDATES=bundles/gemm_mma times
# them beside the bundles, one process per shape.
#
#   python3 bench/mma_bound.py [--source DIR] [-o DIR]
#   python3 bench/mma_bound.py --report RESULTS.json...
#
# --report prints every point's copy floor and, for the bundle and each
# twin, its time and share of the floor, then each twin's median saving at
# each M. Exit status 1 where a bundle failed its checks or a bundle or
# twin is missing, 2 where a report cannot be read or the arguments are
# wrong.
#
#===----------------------------------------------------------------------===#
import argparse
import os
import sys
from statistics import median

from x_handover_bound import NO_WAIT, ROOT, make_twins, read_report, timed

REG = r"(%r\d+)"
MMA = (r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32\s*"
       r"\{" + ", ".join([REG] * 4) + r"\},\s*"
       r"\{" + ", ".join([REG] * 4) + r"\},\s*"
       r"\{" + ", ".join([REG] * 2) + r"\},\s*"
       r"\{" + ", ".join([REG] * 4) + r"\};")
# Groups: D 1-4, A 5-8, B 9-10, C 11-14.
NO_MMA = " ".join(f"fma.rn.f32 \\{1 + i}, \\{5 + i}, \\{9 + i % 2}, "
                  f"\\{11 + i};" for i in range(4))
TWINS = {"nomma": [("--sub-text", MMA, NO_MMA)],
         "nowait": [NO_WAIT],
         "nowait_nomma": [NO_WAIT, ("--sub-text", MMA, NO_MMA)]}
COLUMNS = [""] + ["_" + twin for twin in TWINS]


def report(paths):
    """Prints the bundles' and twins' times from lamport-gemm-bench's
    reports; see the header for the exit status."""
    try:
        runs = [read_report(path, COLUMNS) for path in paths]
    except ValueError as error:
        print(f"mma_bound.py: {error}", file=sys.stderr)
        return 2
    status = 0
    print("| shape | M | floor us |" + "".join(
        f" {c[1:] or 'table'} us (%) |" for c in COLUMNS) * len(runs))
    print("|---|---:|---:|" + "---:|" * (len(COLUMNS) * len(runs)))
    savings = {}
    for point in sorted({p for run in runs for p in run}):
        line = f"| {point[0]} | {point[1]} |"
        rows = [run.get(point, {}) for run in runs]
        floor = next((r[""][0]["floor_us"] for r in rows if r.get("")), 0)
        line += f" {floor:.2f} |"
        for row in rows:
            base = timed(row.get(""))
            if base is None:
                line += " failed |" if row.get("") else " missing |"
                status = 1
            else:
                line += f" {base:.2f} ({100 * floor / base:.0f}) |"
            for column in COLUMNS[1:]:
                # A twin's y is wrong by design: its time counts where the
                # bundle it was made from passed.
                time = min((twin["ours_us"] for twin in row.get(column, [])
                            if twin.get("ours_us")), default=None)
                if not time or base is None:
                    line += " missing |" if not time else " no bundle |"
                    status = 1
                    continue
                line += f" {time:.2f} ({100 * floor / time:.0f}) |"
                savings.setdefault((column, point[1]), []).append(base - time)
        print(line)
    for (column, m), saved in sorted(savings.items()):
        print(f"{column[1:]} at M = {m}: median saving {median(saved):.2f} "
              f"us, {min(saved):.2f} to {max(saved):.2f} over "
              f"{len(saved)} timings")
    return status


def main(argv):
    parser = argparse.ArgumentParser(
        description="serving GEMMs without their MMAs or wait (a bound)")
    parser.add_argument("--source",
                        default=os.path.join(ROOT, "bundles", "gemm"))
    parser.add_argument("-o", "--output",
                        default=os.path.join(ROOT, "bundles", "gemm_mma"))
    parser.add_argument("--report", nargs="+", metavar="RESULTS.json",
                        help="print the timed twins instead of making them")
    args = parser.parse_args(argv)
    if args.report:
        return report(args.report)
    if not os.path.isdir(args.source):
        parser.error(f"{args.source}: no bundles (bench/prepare_gemm.sh "
                     "makes them)")
    return make_twins(args.source, args.output, lambda name, ptx: TWINS,
                      "mma_bound.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
