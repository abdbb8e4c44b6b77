#!/usr/bin/env python3
#===- bench/early_reads_twins.py - The table's bulk entries, read early --===#
#
# Each bulk entry of the sm_90 table with its twin that reads the ring
# before the PDL wait the other way (`early_reads`: none where the
# generator's rule reads some, with one pass; the loads whose fragments fit
# 64 registers where it reads none, with several; docs/design/gemm.md,
# "Reads before the wait"), at the entry's first and last M.
#
#   # where MLIR is: bundles and candidates.json (lamport-tune's form)
#   python3 bench/early_reads_twins.py prepare [-o DIR] [BUILD_BIN]
#   # where the GPU is: DIR/results.json
#   tools/lamport-tune/lamport-tune time DIR --bench build-gpu/bin/lamport-gemm-bench
#   # where MLIR is: the twin into each entry it beats at every timed M in
#   # every run, by --min-gain (0.02) in geometric mean; a table of both
#   python3 bench/early_reads_twins.py apply DIR [--results R1.json ...] \
#       [--table FILE] [--dry-run]
#
# Only the entries' tactics change: the table's timed points (the cost
# model's prior) stay those of the runs that timed every candidate.
#
#===----------------------------------------------------------------------===#
import argparse
import datetime
import json
import os
import statistics
import sys

from tune_module import compile_programs, tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "data", "tactics", "sm_90.json")
CHUNK_K = 32
FEATURES_PER_TILE = 16
# GemmLaunchShape::kEarlyReadRegisters.
EARLY_READ_REGISTERS = 64


def full_knobs(tactic):
    knobs = dict(tune.DEFAULTS)
    knobs.update(tactic)
    return knobs


def twin_reads(knobs, k):
    """The twin's early_reads, or None where it is the rule's own kernel
    (GemmLaunchShape::earlyReadLoads and earlyReadsTwin, mirrored)."""
    if knobs.get("early_reads") is not None:
        return None
    stage_k = knobs["stage_bytes"] // (FEATURES_PER_TILE * knobs["tiles"] * 2)
    stages_per_pass = k // knobs["splits"] // stage_k
    first_fill = min(knobs["stages"], knobs["passes"] * stages_per_pass)
    registers = (knobs["kw"] // CHUNK_K // stages_per_pass * knobs["tiles"] *
                 8)
    budgeted = min(first_fill, EARLY_READ_REGISTERS // registers)
    rule = 0 if knobs["passes"] > 1 else budgeted
    twin = budgeted if knobs["passes"] > 1 else 0
    return None if twin == rule else twin


def median(values):
    return sorted(values)[len(values) // 2]


def bulk_entries(table):
    return [e for e in table["entries"]
            if e["tactic"].get("pipeline") == "bulk"]


def shape_name(entry):
    return f"t{entry['n']}x{entry['k']}"


def prepare(args):
    bin_dir = args.build_bin or os.path.join(ROOT, "build", "bin")
    compile_tool = os.path.join(bin_dir, "lamport-compile")
    out = args.output
    os.makedirs(os.path.join(out, "bundles"), exist_ok=True)
    table = json.load(open(args.table))
    records, jobs = [], []
    for entry in bulk_entries(table):
        knobs = tune.parse_tactic(tune.tactic_text(full_knobs(entry["tactic"]),
                                                   1))
        reads = twin_reads(knobs, entry["k"])
        if reads is None:
            continue
        twin = dict(knobs, early_reads=reads)
        for m in sorted(set(entry["m"])):
            for tactic, own in ((knobs, True), (twin, False)):
                record = tune.candidate(shape_name(entry), entry["n"],
                                        entry["k"], m, tactic, table=own)
                records.append(record)
                jobs.append((record["bundle"], tune.program(
                    record["shape"], entry["n"], entry["k"], m,
                    tune.tactic_text(tactic, m))))
    notes = compile_programs(compile_tool, jobs,
                             os.path.join(out, "bundles"),
                             ["--chip=sm_90", "--protocol-check=false"])
    for note in notes:
        print(note, file=sys.stderr)
    if notes:
        return 1
    with open(os.path.join(out, "candidates.json"), "w") as f:
        json.dump({"chip": "sm_90", "candidates": records}, f, indent=1)
    print(f"early_reads_twins: {len(jobs)} bundles of "
          f"{len(jobs) // 2} points in {out}")
    return 0


def apply(args):
    candidates = json.load(open(os.path.join(args.output,
                                             "candidates.json")))["candidates"]
    runs = args.results or [os.path.join(args.output, "results.json")]
    # Each candidate's time in every run: all must have passed.
    times = {}
    for path in runs:
        results = {r["bundle"]: r for r in json.load(open(path))}
        for c in candidates:
            r = results.get(c["bundle"])
            if not r or not r.get("passed"):
                print(f"early_reads_twins: {c['bundle']} did not pass in "
                      f"{path}", file=sys.stderr)
                return 1
            times.setdefault((c["n"], c["k"], c["m"], c["table"]),
                             (c["tactic"], []))[1].append(r["ours_us"])
    table = json.load(open(args.table))
    date = datetime.date.today().isoformat()
    rows, taken = [], 0
    for entry in bulk_entries(table):
        ms = sorted(set(entry["m"]))
        pairs = [(times.get((entry["n"], entry["k"], m, True)),
                  times.get((entry["n"], entry["k"], m, False))) for m in ms]
        if not all(own and twin for own, twin in pairs):
            continue
        # The twin must be faster at every timed M in every run, and by
        # the gain asked in geometric mean.
        ratios = [t / o for own, twin in pairs for o, t in zip(own[1], twin[1])]
        mean = statistics.geometric_mean(ratios)
        take = all(r < 1 for r in ratios) and mean <= 1 - args.min_gain
        reads = pairs[0][1][0]["early_reads"]
        # Each M's median time over the runs, the rule's and the twin's.
        medians = [(median(own[1]), median(twin[1])) for own, twin in pairs]
        rows.append((shape_name(entry), entry["m"], dict(entry["tactic"]),
                     reads, medians, mean, take))
        if take:
            taken += 1
            entry["tactic"]["early_reads"] = reads
            entry["source"] += (
                f"; early_reads = {reads} {date}: " + ", ".join(
                    f"{twin:.2f} us against {own:.2f} at M = {m}"
                    for m, (own, twin) in zip(ms, medians)))
    print("| shape | M | tactic | twin reads | M: rule us -> twin us | "
          "twin / rule | taken |")
    print("|---|---|---|---:|---|---:|---|")
    for name, m, tactic, reads, pairs, mean, take in rows:
        times_text = "; ".join(f"{own:.2f} -> {twin:.2f}"
                               for own, twin in pairs)
        print(f"| {name} | {m[0]}..{m[1]} | "
              f"{tune.tactic_name(full_knobs(tactic))} | {reads} | "
              f"{times_text} | {mean:.3f} | {'yes' if take else ''} |")
    print(f"\n{taken} of {len(rows)} entries take their twin")
    if not args.dry_run:
        tune.write_table(args.table, table)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("-o", "--output",
                   default=os.path.join(ROOT, "bundles", "early_reads_twins"))
    p.add_argument("build_bin", nargs="?")
    p.add_argument("--table", default=TABLE)
    a = sub.add_parser("apply")
    a.add_argument("output")
    a.add_argument("--table", default=TABLE)
    a.add_argument("--results", nargs="+",
                   help="results.json of each run (default DIR/results.json)")
    a.add_argument("--min-gain", type=float, default=0.02)
    a.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    return prepare(args) if args.command == "prepare" else apply(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
