#!/usr/bin/env python3
#===- bench/prepare_gemm_occupancy.py - Kernels that share an SM ---------===#
#
# Run where MLIR is. A kernel that only reads W reaches the copy floor in
# lamport-gemm-bench's harness with CTAs small enough that the next graph
# node's CTAs become resident beside them (docs/performance.md, "The weight
# stream alone"); the GEMM's serving tactics take one CTA an SM. This sweep
# asks ptxas to leave registers for 2, 3 or 4 CTAs an SM
# (`min_ctas_per_sm`), at the seeds' six shapes x M = 1, 2, 4, 8, 16:
#   - the register pipeline: the sm_90 table's tactic for the point and
#     every launch shape the cost model ranks (lamport-select-tactics
#     no-table), each with early dependents, late chunks 0, 1 and 2 and
#     every hint whose CTAs fit an SM's threads and leave a thread 64
#     registers;
#   - the bulk pipeline with small rings (BULK below), whose CTAs hold the
#     weights in flight in shared memory instead of registers.
# `--hints 0,1` builds the same launch shapes at the compiler's own hints
# instead. Bundles and candidates.json (lamport-tune's form) go to
# bundles/gemm_occupancy; bench/run_gemm_bulk.sh times them beside
# bundles/gemm (CANDIDATES=bundles/gemm_occupancy), in one process per
# shape, and writes results.json; with both in one directory, `lamport-tune
# merge DIR` takes each point's fastest into the table.
#
#   python3 bench/prepare_gemm_occupancy.py [--hints 2,3,4] [-o DIR] [BUILD_BIN]
#
#===----------------------------------------------------------------------===#
import argparse
import json
import os
import shutil
import sys

from tune_module import compile_programs, tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OUT = os.path.join(ROOT, "bundles", "gemm_occupancy")
SHAPES = {"unpooler_tp4": (2048, 4096), "unpooler_tp8": (1024, 4096),
          "unpooler_tp16": (512, 4096), "oproj_tp4": (8192, 2048),
          "oproj_tp8": (8192, 1024), "oproj_tp16": (8192, 512)}
HINTS = (2, 3, 4)
LATE_CHUNKS = (0, 1, 2)
# Registers a thread keeps at least: the weights in flight, accumulators
# and x fragments of the serving kernels take 60-120.
MIN_REGISTERS = 64
# Bulk candidates: (splits, kw, tiles, passes, stages, stage KiB, producer
# lanes, hints), 8 or 16 warps a CTA, rings of 16-64 KiB.
BULK = {
    "unpooler_tp4": [(1, 512, 1, 1, 4, 16, 16, (2,)),
                     (2, 256, 1, 1, 4, 16, 16, (2, 3)),
                     (4, 128, 1, 1, 4, 8, 16, (2, 4)),
                     (2, 256, 2, 1, 4, 32, 32, (2,))],
    "unpooler_tp8": [(2, 256, 1, 1, 4, 16, 16, (2, 3)),
                     (4, 128, 1, 1, 4, 8, 16, (2, 4)),
                     (1, 512, 1, 1, 4, 16, 16, (2,))],
    "unpooler_tp16": [(4, 128, 1, 1, 4, 8, 16, (2, 4)),
                      (8, 64, 1, 1, 2, 8, 16, (2, 4)),
                      (2, 256, 1, 1, 4, 16, 16, (2,))],
    "oproj_tp4": [(1, 256, 1, 1, 2, 16, 16, (2, 3, 4)),
                  (1, 256, 1, 1, 4, 16, 16, (2, 3)),
                  (1, 256, 1, 2, 4, 16, 16, (2,)),
                  (1, 128, 1, 1, 4, 16, 16, (2,))],
    "oproj_tp8": [(1, 128, 1, 1, 2, 16, 16, (2, 3, 4)),
                  (1, 128, 1, 1, 1, 32, 1, (2, 3)),
                  (1, 128, 1, 2, 4, 16, 16, (2, 3))],
    "oproj_tp16": [(1, 64, 2, 1, 2, 16, 32, (2, 3, 4)),
                   (1, 64, 1, 1, 1, 16, 1, (2, 4)),
                   (1, 64, 2, 2, 2, 32, 1, (2,))],
}


def fits(k, knobs, hint):
    """Whether `hint` CTAs of the tactic's threads fit an SM with
    MIN_REGISTERS registers a thread (no hint asks nothing)."""
    if hint < 2:
        return True
    threads = k // (knobs["splits"] * knobs["kw"]) * 32
    return threads * hint <= 2048 and 65536 // (threads * hint) >= MIN_REGISTERS


def register_tactics(opt, shape, n, k, m, hints):
    """The table's tactic for the point and every launch shape the model
    ranks, each with every hint and late chunks 0, 1 and 2."""
    table, _ = tune.select(opt, tune.program(shape, n, k, m), "")
    _, ranked = tune.select(opt, tune.program(shape, n, k, m),
                            "no-table candidates=1000")
    tactics = []
    for knobs in [table] + ranked:
        for hint in hints:
            for late in LATE_CHUNKS:
                variant = dict(knobs, min_ctas_per_sm=hint, late_chunks=late,
                               early_dependents=True)
                # Late chunks are the register pipeline's (the bulk ring
                # issues every weight copy before the wait).
                if (variant not in tactics and variant != table and
                        fits(k, variant, hint) and
                        late * 32 < variant["kw"] and
                        not (late and variant.get("pipeline") == "bulk")):
                    tactics.append(variant)
    return table, tactics


def bulk_tactics(shape, m, hints):
    accs = 1 if m > 8 else 2
    for s, kw, r, p, st, kib, lanes, bulk_hints in BULK[shape]:
        for hint in (h for h in bulk_hints if h in hints):
            yield {"splits": s, "kw": kw, "accs": accs, "tiles": r,
                   "passes": p, "min_ctas_per_sm": hint,
                   "early_dependents": True, "late_chunks": 0,
                   "pipeline": "bulk", "stages": st, "stage_bytes": kib * 1024,
                   "producer_lanes": lanes}


def main(argv):
    parser = argparse.ArgumentParser(
        description="GEMM tactics of the seed shapes whose CTAs share an SM")
    parser.add_argument("bin", nargs="?",
                        default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--hints", default=",".join(map(str, HINTS)),
                        help="min_ctas_per_sm values to sweep (0,1: the same "
                        "launch shapes at the compiler's own hints)")
    parser.add_argument("-o", "--output", default=OUT)
    args = parser.parse_args(argv)
    hints = [int(h) for h in args.hints.split(",")]
    opt = os.path.join(args.bin, "lamport-opt")
    compile_tool = os.path.join(args.bin, "lamport-compile")
    out = args.output
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    records, jobs = [], []
    for shape, (n, k) in SHAPES.items():
        for m in (1, 2, 4, 8, 16):
            table, tactics = register_tactics(opt, shape, n, k, m, hints)
            tactics += bulk_tactics(shape, m, hints)
            # The table's own tactic is bench/prepare_gemm.sh's bundle of the
            # point, which run_gemm_bulk.sh times beside these.
            names = set()
            for knobs in [table] + tactics:
                record = tune.candidate(shape, n, k, m, knobs,
                                        table=knobs == table)
                name = record["bundle"]
                # A bulk candidate may also be the table's tactic at a hint.
                if name in names:
                    continue
                names.add(name)
                records.append(record)
                if knobs is not table:
                    jobs.append((name, tune.program(
                        shape, n, k, m, tune.tactic_text(knobs, m))))
    notes = compile_programs(compile_tool, jobs, out)
    for note in notes:
        print(note)
    # The candidates in lamport-tune's form, those built and the table's.
    built = set(os.listdir(out))
    records = [r for r in records if r["table"] or r["bundle"] in built]
    with open(os.path.join(out, "candidates.json"), "w") as f:
        json.dump({"chip": "sm_90", "candidates": records}, f, indent=1)
    print(f"{len(jobs) - len(notes)} bundles in {out}, {len(notes)} not built")
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
