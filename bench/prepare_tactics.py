#!/usr/bin/env python3
"""Compiles the bundles of the tactic-selection checks (docs/tactics.md,
"Checks"); run where MLIR is, then bench/run_tactics.sh on the GPU machine.

  prepare_tactics.py [--candidates N] [--sets S,...] [BUILD_BIN]
      (default 10 candidates, every set, build/bin)

bundles/tactics/seed: the 6 seed shapes x M 1, 2, 4, 8, 16, each twice in
one point: the program without tactics, which lamport-select-tactics gives
the sm_90 table's (_table), and the program with the tactic list
bench/prepare_gemm.sh carried before the table (_hand): the same speed is
the check. bundles/tactics/tune: lamport-tune's candidates (the model's N
best launch shapes, its pick among them) for the real-model shapes below x
M 1, 4, 8, 16; bundles/tactics/fresh and unseen: the same for shapes the
model was not fitted to; bundles/tactics/untabled: for shapes the sm_90
table has no entry for, each launch shape also at its other late-chunk
counts and bulk rings (lamport-tune --variants), as for the fitted shapes
(tune), whose bulk kernels the model's bulk estimate is fitted to;
bundles/tactics/explore: launch shapes outside
the sweep (8 splits, kw 256) at the shapes of large K. Ten launch shapes a
point, not lamport-tune's six: the tuned best a point is judged against
should not be only what the model ranks high (about 5,800 candidates
with the variants, twelve to seventeen minutes to compile on two cores). The directory is packed into
bundles/tactics.tar.xz, which the GPU machine unpacks
(bench/run_tactics.sh): the bundles' PTX packs about tenfold. Carry it and
third_party_cache (nlohmann/json's headers, copied here).
"""
import argparse
import json
import os
import subprocess
import sys

from tune_module import tune

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))

# The seed shapes and the tactics bench/prepare_gemm.sh carried before the
# table: LAST:SPLITS:KW:TILES:ACCS:MIN_CTAS:EARLY:PASSES[:LATE], each serving
# the M past the previous one's LAST up to its own.
HAND = """
unpooler_tp4 2048 4096   4:1:128:1:2:1:1:1:1  8:2:128:4:1:1:1:1  16:2:128:2:1:1:1:1:1
unpooler_tp8 1024 4096   4:1:128:1:2:1:1:1  8:2:64:2:2:1:1:1   16:4:128:2:1:1:1:1
unpooler_tp16 512 4096   8:2:64:1:4:1:1:1   16:4:128:1:4:1:1:1
oproj_tp4 8192 2048      8:1:128:1:2:1:1:4  16:1:128:1:1:1:1:4
oproj_tp8 8192 1024      8:1:128:1:2:1:1:2  16:1:128:1:1:1:1:2:1
oproj_tp16 8192 512      2:1:64:1:4:1:1:1   4:1:128:2:4:0:1:1  8:1:128:2:2:0:1:1  16:1:128:2:1:0:1:1
"""

# Real models' shapes: K and N from the published hidden and intermediate
# sizes over tp (sources in docs/tactics.md). The sm_90 table holds their
# tuned tactics; the model's pick is chosen without it.
REAL = [
    "llama3_8b_oproj_tp2:4096:2048",      # hidden 4096 / 2
    "llama3_8b_down_tp4:4096:3584",       # intermediate 14336 / 4
    "llama3_70b_down_tp8:8192:3584",      # intermediate 28672 / 8
    "llama3_70b_down_tp16:8192:1792",     # intermediate 28672 / 16
    "llama3_405b_oproj_tp8:16384:2048",   # hidden 16384 / 8
    "qwen25_72b_up_tp8:3696:8192",        # intermediate 29568 / 8 (N)
    "mixtral_8x7b_down_tp8:4096:1792",    # expert intermediate 14336 / 8
    "deepseek_v3_oproj_tp8:7168:2048",    # 128 heads x 128 / 8
    "deepseek_v3_down_tp16:7168:1152",    # dense intermediate 18432 / 16
    "deepseek_v3_oproj_tp16:7168:1024",   # 128 heads x 128 / 16
    "llama3_8b_oproj_tp8:4096:512",       # hidden 4096 / 8
    "llama3_8b_down_tp16:4096:896",       # intermediate 14336 / 16
    "llama31_405b_down_tp16:16384:3328",  # intermediate 53248 / 16
    "mistral_7b_oproj_tp16:4096:256",     # hidden 4096 / 16
    "qwen25_7b_oproj_tp4:3584:896",       # hidden 3584 / 4
    "qwen25_14b_oproj_tp8:5120:640",      # hidden 5120 / 8
]


def projections(model, hidden, attention, intermediate):
    """NAME:N:K of a model's projections that end in an all-reduce, at tp 4,
    8 and 16: o_proj [hidden, attention / tp] (attention = heads x
    head_dim), then down [hidden, intermediate / tp]."""
    return [f"{model}_{name}_tp{tp}:{hidden}:{inner // tp}"
            for name, inner in (("oproj", attention), ("down", intermediate))
            for tp in (4, 8, 16)]


# Shapes the model's figures are not fitted to: the projections of two model
# families not above (sources in docs/tactics.md). FRESH judged the refits
# of the model's figures (bench/data/h200_tactics_heldout); UNSEEN, no fit
# and no choice between fits has seen.
FRESH = (projections("qwen3_32b", 5120, 64 * 128, 25600) +
         projections("gemma2_27b", 4608, 32 * 128, 36864))
UNSEEN = (projections("mistral_nemo", 5120, 32 * 128, 14336) +
          projections("gemma2_9b", 3584, 16 * 256, 14336))
# Shapes the sm_90 table has no entry for, of three more model families
# (sources in docs/tactics.md): the check of what the compiler gives a
# shape it was not tuned for, the model with the timed points of the
# table's nearest shapes as its prior. Command R's o_proj shapes are Llama 3 70B's, and Phi-3-medium's
# o_proj at tp 8 is Qwen2.5-14B's: tuned, so left out (table_shapes()).
UNTABLED = (projections("yi15_34b", 7168, 56 * 128, 20480) +
            projections("phi3_medium", 5120, 40 * 128, 17920) +
            projections("command_r", 8192, 64 * 128, 22528))


def table_shapes():
    """The (N, K) the sm_90 table has entries for."""
    with open(os.path.join(ROOT, "data", "tactics", "sm_90.json")) as f:
        return {(e["n"], e["k"]) for e in json.load(f)["entries"]}


def untabled():
    """UNTABLED without the shapes the table has."""
    tabled = table_shapes()
    return [spec for spec in UNTABLED
            if tuple(int(x) for x in spec.split(":")[1:]) not in tabled]


# Launch shapes outside the sweep (docs/tactics.md: 8 splits and kw 256 lost
# at the seed shapes, K <= 4096), tried at the shapes of larger K at M 1
# and 16, to see whether the sweep should grow there.
EXPLORE_SPLITS_KW = [(8, 64), (8, 128), (1, 256), (2, 256), (4, 256)]
EXPLORE_MIN_K = 3584


def explore_tactics(k, m):
    """Each (splits, kw) of EXPLORE_SPLITS_KW that gives K 1..32 warps, at
    one tile, two late chunks (one at kw 64) and the hint and early
    dependents the sweep's best carry."""
    for splits, kw in EXPLORE_SPLITS_KW:
        if k % (splits * kw) == 0 and 1 <= k // (splits * kw) <= 32:
            yield {"splits": splits, "kw": kw, "accs": 2 if m <= 8 else 1,
                   "tiles": 1, "passes": 1, "min_ctas_per_sm": 1,
                   "early_dependents": True,
                   "late_chunks": min(2, kw // 32 - 1)}


def hand_tactics(specs):
    """(knobs, last M) of each tactic of a HAND line."""
    out = []
    for spec in specs:
        f = [int(x) for x in spec.split(":")]
        last, s, w, t, a, occ, early, p = f[:8]
        out.append(({"splits": s, "kw": w, "accs": a, "tiles": t,
                     "passes": p, "min_ctas_per_sm": occ,
                     "early_dependents": bool(early),
                     "late_chunks": f[8] if len(f) > 8 else 0}, last))
    return out


def compile_program(compile_tool, work, name, text, out, required=True):
    """Compiles `text` into bundle OUT/NAME; a program that is not required
    may fail to compile (a launch shape the kernel refuses): it is left
    out, with the compiler's reason."""
    source = os.path.join(work, name + ".mlir")
    with open(source, "w") as f:
        f.write(text)
    result = subprocess.run([compile_tool, source, "-o",
                             os.path.join(out, name)],
                            capture_output=True, text=True)
    if result.returncode and required:
        sys.exit(f"{name}: {result.stderr.strip()}")
    if result.returncode:
        print(f"left out {name}: {result.stderr.strip().splitlines()[0]}")


SETS = ("tune", "fresh", "unseen", "untabled")


def positive_int(text):
    """argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def set_list(text):
    """argparse type: a comma-separated list of SETS."""
    sets = tuple(text.split(","))
    unknown = [name for name in sets if name not in SETS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"{', '.join(unknown)}: not a set (each of {', '.join(SETS)})")
    return sets


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=positive_int, default=10,
                        help="launch shapes a point (default 10)")
    parser.add_argument("--sets", type=set_list, default=SETS,
                        help=f"some of {','.join(SETS)} (default all)")
    parser.add_argument("bin_dir", nargs="?", metavar="BUILD_BIN",
                        default=os.path.join(ROOT, "build", "bin"),
                        help="holds lamport-opt and lamport-compile "
                        "(default build/bin)")
    args = parser.parse_args(argv)
    candidates, sets = str(args.candidates), args.sets
    opt = os.path.join(args.bin_dir, "lamport-opt")
    compile_tool = os.path.join(args.bin_dir, "lamport-compile")
    # Before the previous bundles are removed: a wrong directory leaves them.
    for tool in (opt, compile_tool):
        if not os.access(tool, os.X_OK):
            parser.error(f"{tool}: no such program (BUILD_BIN must hold "
                         "lamport-opt and lamport-compile)")
    seed = os.path.join(ROOT, "bundles", "tactics", "seed")
    work = os.path.join(ROOT, "bundles", "tactics", "programs")
    subprocess.run(["rm", "-rf", os.path.join(ROOT, "bundles", "tactics")])
    os.makedirs(seed)
    os.makedirs(work)
    for line in HAND.strip().splitlines():
        shape, n, k, *specs = line.split()
        n, k = int(n), int(k)
        hand = hand_tactics(specs)
        listed = ", ".join(tune.tactic_text(knobs, last) for knobs, last in hand)
        for m in (1, 2, 4, 8, 16):
            table, _ = tune.select(opt, tune.program(shape, n, k, m), "")
            serving = next(knobs for knobs, last in hand if m <= last)
            compile_program(compile_tool, work,
                            tune.bundle_name(shape, m, table, False) + "_table",
                            tune.program(shape, n, k, m), seed)
            compile_program(compile_tool, work,
                            tune.bundle_name(shape, m, serving, False) + "_hand",
                            tune.program(shape, n, k, m, listed), seed)
    explore = os.path.join(ROOT, "bundles", "tactics", "explore")
    os.makedirs(explore)
    for spec in REAL + FRESH:
        shape, n, k = spec.split(":")
        n, k = int(n), int(k)
        if k < EXPLORE_MIN_K:
            continue
        for m in (1, 16):
            for knobs in explore_tactics(k, m):
                compile_program(compile_tool, work,
                                tune.bundle_name(shape, m, knobs, False),
                                tune.program(shape, n, k, m,
                                             tune.tactic_text(knobs, m)),
                                explore, required=False)
    for directory, shapes in (("tune", REAL), ("fresh", FRESH),
                              ("unseen", UNSEEN), ("untabled", untabled())):
        if directory not in sets:
            continue
        subprocess.run(
            [os.path.join(ROOT, "tools", "lamport-tune", "lamport-tune"),
             "emit", "-o", os.path.join(ROOT, "bundles", "tactics", directory),
             "--m", "1,4,8,16", "--candidates", candidates, "--opt", opt,
             "--compile", compile_tool] + shapes +
            # The check proper's tuned best, and the fitted shapes' bulk
            # kernels the bulk estimate is fitted to: each launch shape's
            # late chunks and bulk rings timed too.
            (["--variants"] if directory in ("tune", "untabled") else []),
            check=True)
    subprocess.run(["rm", "-rf", work])
    subprocess.run(["tar", "-C", os.path.join(ROOT, "bundles"), "-cJf",
                    os.path.join(ROOT, "bundles", "tactics.tar.xz"), "tactics"],
                   check=True)
    # The GPU machine builds the bench without a package manager.
    subprocess.run(["bash", "-c", 'root="$1"; source '
                    '"$root/test/gpu/prepare_common.sh"; '
                    'cache_json_headers prepare_tactics.py', "bash", ROOT],
                   check=True)
    print(f"seed: {len(os.listdir(seed))} bundles in {seed}; explore: "
          f"{len(os.listdir(explore))} in {explore}")


if __name__ == "__main__":
    main(sys.argv[1:])
