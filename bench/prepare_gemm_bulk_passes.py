#!/usr/bin/env python3
#===- bench/prepare_gemm_bulk_passes.py - Bulk rings across passes -------===#
#
# Run where MLIR is. At the large shapes (W of 16 MiB and more) the register
# kernels run several waves of CTAs, and at 16 tokens x from L2 is as many
# bytes as the weights at one tile. The bulk pipeline streams a CTA's
# weights through its ring pass after pass without registers, so one split
# with several passes keeps a wave of long-lived CTAs streaming and reads x
# once for all of a CTA's passes. Its launch shapes with one split at these
# K need kw outside the compiler's sweep (K / 8, 16 or 32 warps), so the
# model never lists them: this sweep builds them, at M = 1, 8 and 16:
#   - bulk: one split, 8, 16 or 32 warps, 2, 4 or 8 passes, 1, 2 or 4 tiles,
#     grids of at least 96 CTAs, x and sums within a thread's registers,
#     rings of 3 and 6 stages of about 16 and 32 KiB;
#   - beside them, the references: the sm_90 table's tactic where the shape
#     has entries, and the model's three best launch shapes with their
#     late-chunk variants (lamport-select-tactics candidate-variants, its
#     bulk rings left out).
# Bundles and candidates.json (lamport-tune's form) go to
# bundles/gemm_bulk_passes; `lamport-tune time DIR` on the GPU machine.
#
#   python3 bench/prepare_gemm_bulk_passes.py [-o DIR] [--shapes A,B]
#       [--m 1,8,16] [--warps 8,16,32] [--passes 2,4,8] [--stages 3,6]
#       [--stage-kib 16,32] [BUILD_BIN]
#
#===----------------------------------------------------------------------===#
import argparse
import json
import os
import shutil
import sys

from tune_module import compile_programs, tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bundles", "gemm_bulk_passes")
# Seeds with W >= 16 MiB, and the shapes the table lacks with the most
# weight (docs/tactics.md lists their sources).
SHAPES = {"unpooler_tp4": (2048, 4096), "oproj_tp4": (8192, 2048),
          "yi15_34b_down_tp4": (7168, 5120), "yi15_34b_down_tp8": (7168, 2560),
          "command_r_down_tp4": (8192, 5632),
          "command_r_down_tp8": (8192, 2816),
          "phi3_medium_down_tp4": (5120, 4480)}
MIN_CTAS = 96
SM_REGISTERS, MAX_REGISTERS, BASE_REGISTERS = 65536, 255, 24


def fits_registers(kw, tiles, accs, threads, m):
    """x for every pass and the sums within what a thread may hold."""
    token_blocks = 1 if m <= 8 else 2
    need = (BASE_REGISTERS + (kw // 32) * token_blocks * 4 +
            tiles * token_blocks * 4 * accs)
    return need <= min(MAX_REGISTERS, SM_REGISTERS // threads)


def bulk_tactics(n, k, m, sweep):
    accs = 1 if m > 8 else 2
    for warps in sweep.warps:
        if k % warps or (k // warps) % 32:
            continue
        kw = k // warps
        for passes in sweep.passes:
            for tiles in (1, 2, 4):
                rows = 16 * tiles
                if n % (rows * passes) or n // (rows * passes) < MIN_CTAS:
                    continue
                if not fits_registers(kw, tiles, accs, warps * 32, m):
                    continue
                chunks = kw // 32
                sizes = set()
                for target in sweep.stage_kib:
                    best = None
                    for j in range(1, chunks + 1):
                        size = rows * 2 * 32 * j * warps
                        if chunks % j == 0 and (best is None or
                                                size <= target * 1024):
                            best = size
                    sizes.add(best)
                for size in sorted(sizes):
                    for stages in sweep.stages:
                        yield {"splits": 1, "kw": kw, "accs": accs,
                               "tiles": tiles, "passes": passes,
                               "min_ctas_per_sm": 1, "early_dependents": True,
                               "late_chunks": 0, "pipeline": "bulk",
                               "stages": stages, "stage_bytes": size,
                               "producer_lanes": min(rows, 32)}


def references(opt, shape, n, k, m, tabled):
    """The table's tactic (None where the shape is not `tabled`) and the
    model's three best launch shapes with their late-chunk variants."""
    text = tune.program(shape, n, k, m)
    table, _ = tune.select(opt, text, "")
    _, ranked = tune.select(
        opt, text, "no-table candidates=3 candidate-variants")
    model = [t for t in ranked if t.get("pipeline", "registers") != "bulk"]
    return (table if tabled else None), model


def main(argv):
    parser = argparse.ArgumentParser(
        description="bulk rings across passes at the large GEMM shapes")
    parser.add_argument("bin", nargs="?",
                        default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("-o", "--output", default=OUT)
    ints = lambda text: [int(x) for x in text.split(",")]
    parser.add_argument("--shapes", type=lambda t: t.split(","),
                        help="only these of SHAPES")
    parser.add_argument("--m", type=ints, default=[1, 8, 16])
    parser.add_argument("--warps", type=ints, default=[8, 16, 32])
    parser.add_argument("--passes", type=ints, default=[2, 4, 8])
    parser.add_argument("--stages", type=ints, default=[3, 6],
                        help="ring stages")
    parser.add_argument("--stage-kib", type=ints, default=[16, 32],
                        help="stage sizes to aim at (the largest whole "
                             "number of each warp's chunks up to each)")
    args = parser.parse_args(argv)
    opt = os.path.join(args.bin, "lamport-opt")
    compile_tool = os.path.join(args.bin, "lamport-compile")
    out = args.output
    bundles = os.path.join(out, "bundles")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(bundles)
    with open(os.path.join(ROOT, "data", "tactics", "sm_90.json")) as f:
        tabled = {(e["n"], e["k"]) for e in json.load(f)["entries"]}
    records, jobs, names = [], [], set()
    for shape, (n, k) in SHAPES.items():
        if args.shapes and shape not in args.shapes:
            continue
        for m in args.m:
            table, model = references(opt, shape, n, k, m, (n, k) in tabled)
            for knobs in ([table] if table else []) + model + list(
                    bulk_tactics(n, k, m, args)):
                record = tune.candidate(shape, n, k, m, knobs,
                                        table=knobs == table)
                if record["bundle"] in names:
                    continue
                names.add(record["bundle"])
                records.append(record)
                jobs.append((record["bundle"], tune.program(
                    shape, n, k, m, tune.tactic_text(knobs, m))))
    notes = compile_programs(compile_tool, jobs, bundles)
    for note in notes:
        print(note)
    built = set(os.listdir(bundles))
    records = [r for r in records if r["bundle"] in built]
    with open(os.path.join(out, "candidates.json"), "w") as f:
        json.dump({"chip": "sm_90", "candidates": records}, f, indent=1)
    print(f"{len(records)} bundles in {bundles}, {len(notes)} not built")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
