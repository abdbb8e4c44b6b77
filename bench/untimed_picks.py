#!/usr/bin/env python3
#===- bench/untimed_picks.py - A compiler's picks the stored runs lack ---===#
#
# Part of the Lamport project.
#
#===----------------------------------------------------------------------===#
"""The tactics a compiler picks at the tactic checks' points that their
stored runs never timed, compiled to time on a GPU, so that a changed cost
model is judged at every point rather than where its picks happen to have
been timed (tactics_report.py --repick leaves the others out).

  # where MLIR is: bundles and candidates.json (lamport-tune's form)
  untimed_picks.py --opt LAMPORT_OPT [--compile LAMPORT_COMPILE] -o DIR \\
      SET_DIR...
  # where the GPU is: DIR/results.json
  tools/lamport-tune/lamport-tune time DIR --bench build-gpu/bin/lamport-gemm-bench
  # where MLIR is: the checks with those picks' times
  tactics_report.py --repick LAMPORT_OPT --timed-picks DIR --summary SET_DIR...

At each plain point whose pick (prior-only with the sm_90 table) or model
alone (no-table), as LAMPORT_OPT's lamport-select-tactics makes them
(tactics_report.repicked), is not among its set's timed candidates, DIR
gets a bundle of each such tactic and one of the point's fastest stored
kernel, its anchor: the report takes a pick's time as its time here times
the anchor's stored time over its time here, so that what differs between
the two runs cancels. LAMPORT_COMPILE builds the anchor too: the scaling
holds while its kernels are those of the stored run (a change to the cost
model, not to the generator).
"""
import argparse
import json
import os
import sys

from tactics_report import plain_points, repicked_all
from tune_module import compile_programs, tune


def untimed(opt, directories):
    """[(key, anchor knobs, [untimed knobs])] over the sets' plain points."""
    out = []
    for directory in directories:
        keys, points = plain_points(directory)
        for key, tactics in repicked_all(opt, keys).items():
            timed = [r["tactic"] for r in tune.passing_of(points[key])]
            best = tune.best_of(points[key])
            missing = []
            for knobs in tactics:
                if knobs not in timed and knobs not in missing:
                    missing.append(knobs)
            if best and missing:
                out.append((key, best["tactic"], missing))
    return out


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opt", required=True, metavar="LAMPORT_OPT")
    parser.add_argument("--compile", metavar="LAMPORT_COMPILE",
                        help="default: lamport-compile beside LAMPORT_OPT")
    parser.add_argument("-o", "--output", required=True, metavar="DIR")
    parser.add_argument("sets", nargs="+", metavar="SET_DIR")
    args = parser.parse_args(argv)
    compile_tool = args.compile or os.path.join(
        os.path.dirname(os.path.abspath(args.opt)), "lamport-compile")
    points = untimed(args.opt, args.sets)
    if not points:
        print("untimed_picks: every pick was timed; nothing to build")
        return 0
    bundles = os.path.join(args.output, "bundles")
    os.makedirs(bundles, exist_ok=True)
    records, jobs = [], []
    for (shape, n, k, m, _), anchor, missing in points:
        for knobs in [anchor] + missing:
            record = tune.candidate(shape, n, k, m, knobs)
            records.append(record)
            jobs.append((record["bundle"], tune.program(
                shape, n, k, m, tune.tactic_text(knobs, m))))
    notes = compile_programs(compile_tool, jobs, bundles, ["--chip=sm_90"])
    for note in notes:
        print(note, file=sys.stderr)
    if notes:
        return 1
    with open(os.path.join(args.output, "candidates.json"), "w") as f:
        json.dump({"chip": "sm_90", "candidates": records}, f, indent=1)
    print(f"untimed_picks: {len(records) - len(points)} untimed picks at "
          f"{len(points)} points, each beside its anchor: {len(records)} "
          f"bundles in {bundles}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
