#!/usr/bin/env python3
#===- bench/prepare_gemm_groups.py - Warps in feature groups -------------===#
#
# Run where MLIR is. At 16 tokens the register pipeline's kernels read x
# from L2 once for every block of 16 x tiles x passes features, N / (16 x
# tiles x passes) x M x K x 2 bytes, all of it after the PDL wait
# (docs/design/gemm.md, "Open gaps"). `feature_groups = G` puts G groups of
# warps in a CTA, each owning its own 16 x tiles features and all of the
# CTA's K, so the groups' warps of one K read the same x, from L1 after the
# first: a CTA owns G times the features at a warp's register budget. This
# sweep builds, at the seeds' six shapes x M = 8 and 16, every register
# tactic with 2, 4 or 8 groups whose CTAs are 4..32 warps and fill 96..264
# of the H200's SMs (splits 1, 2, 4, 8, kw 64, 128, tiles 1, 2, passes 1,
# 2, accs 1, 2, late chunks 0..2, hints 0 and 1, early dependents), and for
# each (splits, kw, accs) the plain one-group kernel whose bits every
# variant of them must have. Bundles and candidates.json (lamport-tune's
# form) go to bundles/gemm_groups; `CANDIDATES=bundles/gemm_groups bash
# bench/run_gemm_bulk.sh` times them beside bench/prepare_gemm.sh's
# serving bundles.
#
#   python3 bench/prepare_gemm_groups.py [-o DIR] [BUILD_BIN]
#
#===----------------------------------------------------------------------===#
import argparse
import itertools
import json
import os
import shutil
import sys

from tune_module import compile_programs, tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bundles", "gemm_groups")
SHAPES = {"unpooler_tp4": (2048, 4096), "unpooler_tp8": (1024, 4096),
          "unpooler_tp16": (512, 4096), "oproj_tp4": (8192, 2048),
          "oproj_tp8": (8192, 1024), "oproj_tp16": (8192, 512)}
# CTAs of one launch: enough to fill most of the 132 SMs, at most two a SM.
MIN_CTAS, MAX_CTAS = 96, 264


def group_tactics(n, k):
    """Every feature-group tactic of the sweep that launches [n, k]."""
    for splits, kw, tiles, passes, groups in itertools.product(
            (1, 2, 4, 8), (64, 128), (1, 2), (1, 2), (2, 4, 8)):
        if passes > 1 and splits > 1:
            continue
        if k % (splits * kw):
            continue
        warps = groups * k // (splits * kw)
        features = 16 * tiles * groups * passes
        if not 4 <= warps <= 32 or n % features:
            continue
        if not MIN_CTAS <= n // features * splits <= MAX_CTAS:
            continue
        for accs, late, hint in itertools.product((1, 2), (0, 1, 2), (0, 1)):
            if late * 32 >= kw:
                continue
            yield {"splits": splits, "kw": kw, "accs": accs, "tiles": tiles,
                   "passes": passes, "feature_groups": groups,
                   "min_ctas_per_sm": hint, "early_dependents": True,
                   "late_chunks": late}


def main(argv):
    parser = argparse.ArgumentParser(
        description="GEMM tactics whose warps split features as well as K")
    parser.add_argument("bin", nargs="?",
                        default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("-o", "--output", default=OUT)
    args = parser.parse_args(argv)
    compile_tool = os.path.join(args.bin, "lamport-compile")
    out = args.output
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    records, jobs = [], []
    for (shape, (n, k)), m in itertools.product(SHAPES.items(), (8, 16)):
        tactics = list(group_tactics(n, k))
        # The plain kernel of each (splits, kw, accs): its bits are every
        # variant's.
        references = {(t["splits"], t["kw"], t["accs"]) for t in tactics}
        tactics += [{"splits": s, "kw": kw, "accs": a, "tiles": 1,
                     "passes": 1, "min_ctas_per_sm": 0,
                     "early_dependents": False, "late_chunks": 0}
                    for s, kw, a in sorted(references)]
        for knobs in tactics:
            record = tune.candidate(shape, n, k, m, knobs)
            records.append(record)
            jobs.append((record["bundle"], tune.program(
                shape, n, k, m, tune.tactic_text(knobs, m))))
    notes = compile_programs(compile_tool, jobs, out)
    for note in notes:
        print(note)
    built = set(os.listdir(out))
    records = [r for r in records if r["bundle"] in built]
    with open(os.path.join(out, "candidates.json"), "w") as f:
        json.dump({"chip": "sm_90", "candidates": records}, f, indent=1)
    print(f"{len(jobs) - len(notes)} bundles in {out}, {len(notes)} not built")
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
