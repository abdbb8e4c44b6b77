#!/usr/bin/env python3
#===- bench/prepare_gemm_bulk.py - Bundles of the bulk pipeline's sweep ---===#
#
# Run where MLIR is. Compiles the seeds' six GEMM shapes (docs/performance.md's
# table) at M = 1, 2, 4, 8, 16 with `pipeline = bulk` tactics into
# bundles/gemm_bulk/<shape>_m<M>_s<S>_kw<W>_tiles<R>[_p<P>][_a<A>]_bulk<stages>
# x<stage KiB>[_lanes<L>][_publish][_occ1]_early, beside bench/prepare_gemm.sh's
# bundles/gemm: one run of lamport-gemm-bench over both directories checks
# every variant (FP64 reference, poisoned y, bitwise repeat, publishing
# twins' mailbox copies) and times it against today's tactics and cuBLAS on
# the same inputs (bench/run_gemm_bulk.sh). The candidates per shape are
# below: each keeps every warp reading 32 or 64 K of each stage and the ring
# and reduction within a CTA's shared memory (the generator refuses
# others, and this script skips them with the reason).
#
#   python3 bench/prepare_gemm_bulk.py [LAMPORT_COMPILE]
#
#===----------------------------------------------------------------------===#
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from tune_module import tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_COMPILE = os.path.join(ROOT, "build/bin/lamport-compile")
OUT = os.path.join(ROOT, "bundles/gemm_bulk")

# shape: (N, K, tp, [(splits, kw, tiles, passes, stages, stage KiB, lanes)])
SHAPES = {
    "unpooler_tp4": (2048, 4096, 4, [
        (1, 256, 1, 1, 1, 128, 1), (1, 512, 1, 1, 1, 128, 1),
        (1, 256, 1, 1, 8, 16, 32), (2, 128, 1, 1, 1, 64, 16),
        (2, 128, 2, 1, 4, 32, 32), (4, 128, 4, 1, 4, 32, 32)]),
    "unpooler_tp8": (1024, 4096, 8, [
        (2, 128, 1, 1, 4, 16, 32), (2, 128, 1, 1, 1, 64, 16),
        (2, 256, 1, 1, 2, 32, 32), (4, 128, 2, 1, 2, 32, 32),
        (4, 64, 1, 1, 2, 16, 32)]),
    "unpooler_tp16": (512, 4096, 16, [
        (4, 64, 1, 1, 2, 16, 32), (4, 128, 1, 1, 1, 32, 16),
        (8, 64, 1, 1, 1, 16, 16), (4, 128, 1, 1, 4, 8, 32)]),
    "oproj_tp4": (8192, 2048, 4, [
        (1, 256, 1, 4, 2, 64, 1), (1, 256, 1, 4, 3, 64, 1),
        (1, 128, 1, 4, 2, 64, 1), (1, 128, 2, 2, 4, 32, 32)]),
    "oproj_tp8": (8192, 1024, 8, [
        (1, 128, 1, 4, 4, 32, 1), (1, 128, 1, 4, 2, 32, 1),
        (1, 128, 2, 2, 2, 64, 1), (1, 64, 1, 4, 4, 32, 1),
        (1, 128, 1, 2, 2, 32, 1), (1, 128, 2, 2, 4, 32, 32)]),
    "oproj_tp16": (8192, 512, 16, [
        (1, 64, 2, 1, 2, 16, 32), (1, 64, 2, 1, 1, 32, 1),
        (1, 64, 1, 2, 2, 16, 1), (1, 64, 2, 2, 2, 32, 1),
        (1, 64, 1, 4, 4, 16, 1), (1, 128, 2, 2, 2, 32, 1),
        (1, 64, 1, 1, 1, 16, 1)]),
}
# Publishing twins (the zero-copy epilogue) of each shape's first candidate.
PUBLISH_MS = (1, 16)


def jobs():
    for shape, (n, k, tp, candidates) in SHAPES.items():
        for m in (1, 2, 4, 8, 16):
            for i, (s, kw, r, p, st, kib, lanes) in enumerate(candidates):
                # One CTA per SM where the grid is one wave: the register
                # budget hint, as the register pipeline's serving tactics.
                ctas = n // (16 * r * p) * s
                knobs = {"splits": s, "kw": kw, "accs": 1 if m > 8 else 2,
                         "tiles": r, "passes": p,
                         "min_ctas_per_sm": 1 if ctas <= 132 else 0,
                         "early_dependents": True, "late_chunks": 0,
                         "pipeline": "bulk", "stages": st,
                         "stage_bytes": kib * 1024, "producer_lanes": lanes}
                text = tune.tactic_text(knobs, m)
                yield (tune.bundle_name(shape, m, knobs, False),
                       tune.program(shape, n, k, m, text))
                if i == 0 and m in PUBLISH_MS:
                    yield (tune.bundle_name(shape, m, knobs, True),
                           tune.program(shape, n, k, m, text, tp))


def compile_one(compile_tool, item, scratch):
    name, text = item
    source = os.path.join(scratch, name + ".mlir")
    with open(source, "w") as f:
        f.write(text)
    args = [compile_tool, source, "-o", os.path.join(OUT, name)]
    if "_publish" in name:
        args.append("--protocol-check=false")
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode:
        if "has no kernel" in run.stderr:
            return f"skip {name}: {run.stderr.strip().splitlines()[0]}"
        return f"FAIL {name}: {run.stderr.strip()}"
    return None


def main(argv):
    parser = argparse.ArgumentParser(
        description="Compiles the bulk pipeline's sweep of the seed shapes "
        "into bundles/gemm_bulk.")
    parser.add_argument("compile", nargs="?", metavar="LAMPORT_COMPILE",
                        default=DEFAULT_COMPILE,
                        help="default build/bin/lamport-compile")
    compile_tool = parser.parse_args(argv).compile
    # Before the previous bundles are removed: a wrong path leaves them.
    if not os.access(compile_tool, os.X_OK):
        parser.error(f"{compile_tool}: no such program")
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    with tempfile.TemporaryDirectory() as scratch:
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(
                lambda j: compile_one(compile_tool, j, scratch), jobs()))
    notes = [r for r in results if r]
    for note in notes:
        print(note)
    print(f"{len(os.listdir(OUT))} bundles in {OUT}, {len(notes)} not built")
    return 1 if any(n.startswith("FAIL") for n in notes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
