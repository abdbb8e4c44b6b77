#!/usr/bin/env python3
"""Fits and checks the register-direct cost model of lamport-select-tactics.

The model (lib/Dialect/Lamport/Transforms/TacticModel.cpp) estimates a
tactic's time from the bytes each CTA keeps in flight, the waves, the
activations from L2, the MMA chain, the split-K and pass reductions and the
fixed costs. estimate() below is that function line for line, its constants
in CONSTANTS; `--check-opt` compares it with lamport-opt's own estimate
(the explain remark of lamport-select-tactics) on every measured candidate,
so the C++ stays the one model and this file only mirrors it.

    bench/fit_tactic_model.py [--results DIR]       # evaluate CONSTANTS
    bench/fit_tactic_model.py --per-point           # each point's pick
    bench/fit_tactic_model.py --check-opt build/bin/lamport-opt
    bench/fit_tactic_model.py --fit [--hold-out]    # refit from START

The measurements (bench/data/h200_tactics, one H200), a subdirectory per
run, each with lamport-tune's candidates.json and results.json and
tactics_seed.json (the seed shapes at their table tactics): nine_shapes,
nine real-model shapes x M 1, 4, 8, 16 (204 timed candidates); and
sixteen_shapes, those nine and seven smaller ones (372 timed candidates of
the model the first run fitted). `--results DIR` reads one run (a directory
with results.json) or every run under DIR.

Criteria: for each (shape, M, run) the candidate the model ranks first
among the measured ones, over the measured best (within 1.10 is the goal);
the estimate over the measurement at the seed points (each at its table
tactic); with --hold-out, the same ranking for each shape with the
constants fitted without it (in every run).
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SMS, SM_REGISTERS, SM_THREADS, MAX_REGISTERS = 132, 65536, 2048, 255
MAX_SHARED = 227 * 1024
CHUNK_K, TOKENS_PER_MMA, FEATURES_PER_TILE = 32, 8, 16

# The H200 figures and the kernel's costs, as TacticModel.cpp has them.
CONSTANTS = {
    "dram": 4.25e6,        # weight-stream bandwidth, bytes/us
    "sm": 75e3,            # what one SM's loads pull, bytes/us
    "l2": 9e6,             # activations from L2, bytes/us
    "publish": 4.4e6,      # the publishing epilogue's copies, bytes/us
    "launch": 0.55,        # fixed cost of a launch under PDL, us
    "latency": 1.0,        # a memory round trip under load, us
    "wave": 2.0,           # each further wave, over the CTAs per SM, us
    "mma": 0.02,           # one mma.sync of a warp's accumulator chain, us
    "cluster": 0.1,        # the split-K exchange through the cluster, us
    "split": 0.0,          # each further split's exchange, us
    "pass": 0.2,           # each further pass's reduce and store, us
    "stream_over": 1.06,   # the weight stream over its floor
    "no_hint": 1.04,       # the stream without the register budget hint
    "early": 0.2,          # what early dependents save, us
    "late1": 0.25,         # share of x one late chunk overlaps
    "late2": 0.6,          # share of x two late chunks overlap
    "late_cost": 0.05,     # each late chunk of each tile, us
    "registers": 18,       # a thread's registers besides weights and sums
    "spill": 0.04,         # each 8 registers past the budget
    "reduce_word": 12e-6,  # the warps' partials per word, us
}


# Where the fit starts: the constants fitted to the seed shapes alone,
# before the real-model shapes were measured.
START = dict(CONSTANTS, latency=0.6, wave=0.6, mma=0.02, cluster=0.1,
             split=0.05, late2=0.35, registers=16, early=0.15,
             reduce_word=2e-6, **{"pass": 0.1})


def natural_token_tile(m):
    return 8 if m <= 8 else 16


def estimate(c, n, k, m, t, publishes=False, tp=1):
    """TacticModel.cpp's estimateRegister() for tactic dict `t`."""
    splits, kw, accs = t["splits"], t["kw"], t["accs"]
    tiles, passes = t["tiles"], t["passes"]
    warps = k // (splits * kw)
    token_tile = natural_token_tile(m)
    threads = warps * 32
    features = FEATURES_PER_TILE * tiles
    grid_x = n // (features * passes)
    ctas = grid_x * splits
    token_blocks = token_tile // TOKENS_PER_MMA
    chunks = kw // CHUNK_K
    shared = (warps + splits) * token_tile * features * 4

    weight_registers = chunks * tiles * 8 * (2 if passes > 1 else 1)
    registers = (c["registers"] + weight_registers +
                 accs * tiles * token_blocks * 4 +
                 token_blocks * 4)
    hint = t["min_ctas_per_sm"]
    budget = min(MAX_REGISTERS, SM_REGISTERS // (threads * max(hint, 1)))
    spill = 1 + c["spill"] * (registers - budget) / 8.0 \
        if registers > budget else 1
    per_sm = min(SM_THREADS // threads,
                 SM_REGISTERS // (threads * min(registers, budget)),
                 MAX_SHARED // (shared + 1024), 32)
    per_sm = max(per_sm, 1)
    resident = min(ctas, SMS * per_sm)
    waves = (ctas + resident - 1) // resident
    active_sms = min(ctas, SMS)

    weight_bytes = 2.0 * n * k
    cta_bytes = 2.0 * (k // splits) * features * (2 if passes > 1 else 1)
    bandwidth = min(c["dram"], resident * cta_bytes / c["latency"],
                    active_sms * c["sm"])
    stream = weight_bytes / bandwidth * c["stream_over"] + \
        (waves - 1) * c["wave"] / per_sm
    if not hint:
        stream *= c["no_hint"]

    x_bytes = 2.0 * grid_x * m * k
    activations = x_bytes / c["l2"]
    late = t["late_chunks"]
    late_gain = activations * (c["late1"] if late == 1 else c["late2"]) \
        if late else 0
    late_cost = c["late_cost"] * late * tiles

    mma = float(chunks * 2 * tiles * token_blocks) / accs * c["mma"]
    reduce = 0.02 + c["reduce_word"] * warps * token_tile * features * passes
    if splits > 1:
        reduce += c["cluster"] + c["split"] * (splits - 1)
    reduce += c["pass"] * (passes - 1)

    y_bytes = 2.0 * m * n
    epilogue = y_bytes / c["l2"]
    if publishes:
        epilogue += tp * y_bytes / c["publish"]

    fixed = c["launch"] - (c["early"] if t["early_dependents"] else 0)
    return fixed + (stream + activations - late_gain + late_cost + mma +
                    reduce) * spill + epilogue


def full_tactic(t):
    """A table or candidates.json tactic with every knob at its default."""
    out = {"splits": 1, "kw": 128, "accs": 2, "tiles": 1, "passes": 1,
           "min_ctas_per_sm": 0, "early_dependents": False, "late_chunks": 0}
    out.update({key: t[key] for key in out if key in t})
    out["early_dependents"] = bool(out["early_dependents"])
    return out


def runs(results_dir):
    """The measurement runs under `results_dir`: [(name, directory)], the
    directory itself where it holds results.json, else each subdirectory
    that does."""
    if os.path.exists(os.path.join(results_dir, "results.json")):
        return [(os.path.basename(os.path.normpath(results_dir)), results_dir)]
    return [(name, os.path.join(results_dir, name))
            for name in sorted(os.listdir(results_dir))
            if os.path.exists(os.path.join(results_dir, name, "results.json"))]


def load_points(results_dir):
    """{(shape, m, run): [(tactic, measured us, n, k, emitted estimate)]} of
    the passing candidates of every run."""
    points = {}
    for run, directory in runs(results_dir):
        results = json.load(open(os.path.join(directory, "results.json")))
        cands = json.load(open(os.path.join(directory, "candidates.json")))
        knobs = {c["bundle"]: c for c in cands["candidates"]}
        for r in results:
            if not r["passed"] or r["publishes"]:
                continue
            c = knobs[r["bundle"]]
            points.setdefault((r["shape"], r["m"], run), []).append(
                (full_tactic(c["tactic"]), r["ours_us"], r["n"], r["k"],
                 c["model_us"]))
    return points


def load_seed(results_dir):
    """[(shape, n, k, m, table tactic, measured us)] of the seed points of
    every run."""
    table = json.load(open(os.path.join(ROOT, "data/tactics/sm_90.json")))
    out = []
    for run, directory in runs(results_dir):
        seed = json.load(open(os.path.join(directory, "tactics_seed.json")))
        for r in seed:
            if not r["bundle"].endswith("_table") or r["publishes"]:
                continue
            for e in table["entries"]:
                if (e["n"], e["k"]) == (r["n"], r["k"]) \
                        and not e["publishes"] \
                        and e["m"][0] <= r["m"] <= e["m"][1]:
                    out.append((f"{r['shape']} ({run})", r["n"], r["k"],
                                r["m"], full_tactic(e["tactic"]),
                                r["ours_us"]))
                    break
            else:
                sys.exit(f"no table entry for seed point {r['bundle']}")
    return out


def pick_ratios(c, points):
    """{(shape, m, run): the model's pick among the measured over the
    best}."""
    out = {}
    for key, cands in points.items():
        best = min(us for _, us, *_ in cands)
        pick = min(cands, key=lambda x: estimate(c, x[2], x[3], key[1], x[0]))
        out[key] = pick[1] / best
    return out


def seed_errors(c, seed):
    return [estimate(c, n, k, m, t) / us for _, n, k, m, t, us in seed]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def loss(c, points, seed):
    """Picks past 10% of their point's best dominate; then the mean pick
    ratio and the seed points' squared log error."""
    ratios = pick_ratios(c, points).values()
    errors = seed_errors(c, seed)
    misses = sum(max(0.0, r - 1.10) for r in ratios)
    spread = sum(math.log(e) ** 2 for e in errors) / len(errors)
    return 100 * misses + sum(r - 1 for r in ratios) / len(ratios) + spread


# The values the fit tries for each constant it moves; the bandwidths of
# DRAM and the publish stay the chip's.
SEARCH = {
    "cluster": [0.05, 0.1, 0.2, 0.3, 0.4],
    "split": [0.0, 0.05, 0.1, 0.2, 0.3],
    "pass": [0.0, 0.05, 0.1, 0.2, 0.3, 0.5],
    "latency": [0.5, 0.6, 0.7, 0.8, 1.0],
    "sm": [60e3, 75e3, 90e3],
    "late1": [0.25, 0.5, 0.75],
    "late2": [0.35, 0.6, 0.9],
    "mma": [0.005, 0.01, 0.02, 0.03],
    "l2": [4.5e6, 6e6, 9e6],
    "registers": [16, 18, 20, 22, 24],
    "wave": [0.3, 0.6, 0.9, 1.2, 1.5, 2.0],
    "late_cost": [0.02, 0.05, 0.1, 0.15, 0.2, 0.3],
    "early": [0.1, 0.15, 0.2],
    "reduce_word": [2e-6, 4e-6, 8e-6, 12e-6, 16e-6, 24e-6],
}


def fit(points, seed, start):
    """Coordinate descent over SEARCH from `start`, until no value of one
    constant lowers the loss."""
    c = dict(start)
    best = loss(c, points, seed)
    for _ in range(10):
        improved = False
        for key, values in SEARCH.items():
            for value in values:
                trial = dict(c, **{key: value})
                trial_loss = loss(trial, points, seed)
                if trial_loss < best - 1e-12:
                    c, best, improved = trial, trial_loss, True
        if not improved:
            break
    return c


def report(c, points, seed, title):
    ratios = pick_ratios(c, points)
    within = sum(r <= 1.10 for r in ratios.values())
    worst = max(ratios, key=ratios.get)
    print(f"{title}: pick within 10% of the best at {within} of "
          f"{len(ratios)} points, worst {ratios[worst]:.3f} "
          f"({worst[0]} M = {worst[1]}, {worst[2]}), geomean "
          f"{geomean(list(ratios.values())):.3f}")
    errors = seed_errors(c, seed)
    lo = min(range(len(seed)), key=lambda i: errors[i])
    hi = max(range(len(seed)), key=lambda i: errors[i])
    print(f"  seed estimate/measured: geomean {geomean(errors):.3f}, "
          f"{errors[lo]:.2f} ({seed[lo][0]} M = {seed[lo][3]}) .. "
          f"{errors[hi]:.2f} ({seed[hi][0]} M = {seed[hi][3]})")
    return ratios


def describe(t):
    text = f"s{t['splits']} kw{t['kw']}"
    if t["tiles"] > 1:
        text += f" tiles{t['tiles']}"
    if t["passes"] > 1:
        text += f" p{t['passes']}"
    text += f" a{t['accs']}"
    if t["late_chunks"]:
        text += f" late{t['late_chunks']}"
    return text


def per_point(c, points):
    """Each point's best, and the pick of the estimates recorded in
    candidates.json (the model that emitted them) and of CONSTANTS."""
    print(f"{'run':14} {'point':28} {'measured best':26} "
          f"{'emitted pick':>26} {'ratio':>6} {'this pick':>26} {'ratio':>6}")
    for (shape, m, run), cands in sorted(points.items(),
                                         key=lambda p: (p[0][2], p[0][:2])):
        best = min(cands, key=lambda x: x[1])
        before = min(cands, key=lambda x: x[4])
        after = min(cands, key=lambda x: estimate(c, x[2], x[3], m, x[0]))
        print(f"{run:14} {shape + ' M=' + str(m):28} {describe(best[0]):26} "
              f"{describe(before[0]):>26} {before[1] / best[1]:6.3f} "
              f"{describe(after[0]):>26} {after[1] / best[1]:6.3f}")


def opt_estimate(opt, n, k, m, t):
    """lamport-opt's estimate for tactic `t` (explain's remark, 2 decimals)."""
    tiles = ", ".join(str(natural_token_tile(i)) for i in range(1, m + 1))
    knobs = (f"splits = {t['splits']}, kw = {t['kw']}, accs = {t['accs']}, "
             f"tiles = {t['tiles']}, passes = {t['passes']}, "
             f"min_ctas_per_sm = {t['min_ctas_per_sm']}, early_dependents = "
             f"{'true' if t['early_dependents'] else 'false'}, late_chunks = "
             f"{t['late_chunks']}, token_tiles = [{tiles}]")
    text = (f"func.func @f(%x: memref<{m}x{k}xbf16>, %w: memref<{n}x{k}xbf16>,"
            f" %y: memref<{m}x{n}xbf16>) {{\n  lamport.gemm_publish %x, %w "
            f"into %y tactic(#lamport.tactic<{knobs}>) {{pdl}}\n      : "
            f"memref<{m}x{k}xbf16>, memref<{n}x{k}xbf16>, "
            f"memref<{m}x{n}xbf16>\n  return\n}}\n")
    result = subprocess.run(
        [opt, "-", "--mlir-print-op-on-diagnostic=false", "-o", os.devnull,
         "--lamport-select-tactics=explain chip=sm_90"],
        input=text, capture_output=True, text=True)
    found = re.search(r": ([\d.]+) us\)", result.stderr)
    if not found:
        sys.exit(f"lamport-opt gave no estimate:\n{result.stderr}")
    return float(found.group(1))


def check_opt(opt, points, seed):
    """Whether estimate() with CONSTANTS is lamport-opt's, on every measured
    candidate and seed point; returns the number of mismatches."""
    bad = total = 0
    cases = [(shape, m, t, n, k)
             for (shape, m, _), cands in sorted(points.items())
             for t, _, n, k, _ in cands]
    cases += [(shape, m, t, n, k) for shape, n, k, m, t, _ in seed]
    for shape, m, t, n, k in cases:
        ours = estimate(CONSTANTS, n, k, m, t)
        theirs = opt_estimate(opt, n, k, m, t)
        total += 1
        if abs(ours - theirs) > 0.006:
            bad += 1
            print(f"mismatch {shape} M = {m} {t}: python {ours:.3f}, "
                  f"lamport-opt {theirs:.2f}")
    print(f"lamport-opt and this model agree on {total - bad} of {total} "
          "tactics")
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results",
                        default=os.path.join(HERE, "data", "h200_tactics"),
                        help="directory of results.json, candidates.json "
                             "and tactics_seed.json")
    parser.add_argument("--check-opt", metavar="LAMPORT_OPT")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--per-point", action="store_true",
                        help="each point's pick before and after")
    parser.add_argument("--hold-out", action="store_true",
                        help="with --fit: refit without each shape in turn")
    args = parser.parse_args()
    points, seed = load_points(args.results), load_seed(args.results)
    if args.check_opt:
        return 1 if check_opt(args.check_opt, points, seed) else 0
    report(CONSTANTS, points, seed, "the model")
    if args.per_point:
        per_point(CONSTANTS, points)
    if not args.fit:
        return 0
    fitted = fit(points, seed, START)
    print("fitted from START:", {k: v for k, v in fitted.items()
                                 if v != START[k]},
          "(= CONSTANTS)" if fitted == CONSTANTS else "(not CONSTANTS)")
    report(fitted, points, seed, "fitted on every shape")
    if args.hold_out:
        shapes = sorted({s for s, _, _ in points})
        held_out = {}
        for shape in shapes:
            train = {p: v for p, v in points.items() if p[0] != shape}
            held = {p: v for p, v in points.items() if p[0] == shape}
            c = fit(train, seed, START)
            r = pick_ratios(c, held)
            held_out.update(r)
            print(f"  without {shape}: its points " + ", ".join(
                f"M{m} {v:.3f} ({run})"
                for (_, m, run), v in sorted(r.items())))
        worst = max(held_out, key=held_out.get)
        print(f"held out: pick within 10% at "
              f"{sum(v <= 1.10 for v in held_out.values())} of "
              f"{len(held_out)} points, worst {held_out[worst]:.3f} "
              f"({worst[0]} M = {worst[1]}, {worst[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
