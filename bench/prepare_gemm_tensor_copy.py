#!/usr/bin/env python3
#===- bench/prepare_gemm_tensor_copy.py - Bulk stages by tensor copies ---===#
#
# Run where MLIR is. The bulk pipeline fills a stage that is not whole rows
# with one bulk copy a weight row where its rows are 2 KiB or longer, and
# by tensor copies (one cp.async.bulk.tensor a box of every row of the
# stage x up to 256 K, through a tensor map of the weight) where they are
# shorter: the GPU completes only a few thousand bulk copies a microsecond.
# This sweep measures that choice. It takes the candidates of earlier bulk
# sweeps (their candidates.json: register references and bulk kernels) and
# builds each bulk kernel whose stages are not contiguous twice, with one
# copy a row (lamport-compile --bulk-copies=rows) and with tensor copies
# (`_tma`, --bulk-copies=tensor: the 2 KiB rule set aside);
# lamport-gemm-bench compares the twins' bits (the same stage K, so the
# same sums) and times both in one process (docs/design/gemm.md, "Tensor
# copies").
#
#   python3 bench/prepare_gemm_tensor_copy.py [-o DIR] [--m 1,8,16]
#       [--sets bench/data/h200_gemm_bulk_warps,...] [BUILD_BIN]
#
#===----------------------------------------------------------------------===#
import argparse
import json
import os
import shutil
import sys

from tune_module import compile_programs, tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bundles", "gemm_tensor_copy")
SETS = ["bench/data/h200_gemm_bulk_warps", "bench/data/h200_gemm_bulk_passes"]


def contiguous(record):
    knobs = record["tactic"]
    rows = 16 * knobs["tiles"]
    return (knobs["splits"] == 1 and
            knobs["stage_bytes"] // (rows * 2) == record["k"])


def main(argv):
    parser = argparse.ArgumentParser(
        description="bulk kernels with row copies and with tensor copies")
    parser.add_argument("bin", nargs="?",
                        default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("-o", "--output", default=OUT)
    parser.add_argument("--sets", type=lambda t: t.split(","), default=SETS)
    parser.add_argument("--m", type=lambda t: [int(x) for x in t.split(",")])
    args = parser.parse_args(argv)
    compile_tool = os.path.join(args.bin, "lamport-compile")
    bundles = os.path.join(args.output, "bundles")
    shutil.rmtree(args.output, ignore_errors=True)
    os.makedirs(bundles)
    records, rows, tensors, names = [], [], [], set()
    for directory in args.sets:
        with open(os.path.join(ROOT, directory, "candidates.json")) as f:
            candidates = json.load(f)["candidates"]
        for record in candidates:
            if record["bundle"] in names or record["publishes"]:
                continue
            if args.m and record["m"] not in args.m:
                continue
            names.add(record["bundle"])
            text = tune.program(record["shape"], record["n"], record["k"],
                                record["m"],
                                tune.tactic_text(record["tactic"], record["m"]))
            records.append(record)
            rows.append((record["bundle"], text))
            if (record["tactic"].get("pipeline") == "bulk" and
                    not contiguous(record)):
                twin = dict(record, bundle=record["bundle"] + "_tma",
                            tensor_copy=True)
                records.append(twin)
                tensors.append((twin["bundle"], text))
    notes = compile_programs(compile_tool, rows, bundles,
                             ["--bulk-copies=rows"])
    notes += compile_programs(compile_tool, tensors, bundles,
                              ["--bulk-copies=tensor"])
    for note in notes:
        print(note)
    built = set(os.listdir(bundles))
    records = [r for r in records if r["bundle"] in built]
    with open(os.path.join(args.output, "candidates.json"), "w") as f:
        json.dump({"chip": "sm_90", "candidates": records}, f, indent=1)
    print(f"{len(records)} bundles in {bundles} ({len(tensors)} with tensor "
          f"copies), {len(notes)} not built")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
