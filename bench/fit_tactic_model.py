#!/usr/bin/env python3
"""Fits and checks the cost model of lamport-select-tactics.

The model (lib/Dialect/Lamport/Transforms/TacticModel.cpp) estimates a
tactic's time from the bytes each CTA keeps in flight, the waves, the
activations from L2, the MMA chain, the split-K and pass reductions and the
fixed costs; the bulk-stream family's estimate takes the same terms with
the weight stream from its ring (figures of its own, which
bench/fit_bulk_estimate.py fits). estimate() below is that model line for
line, its constants in CONSTANTS (the fields of ChipModel); `--check-opt` compares it with
lamport-opt's own estimate (the explain remark of lamport-select-tactics)
on every measured candidate, and nearest_points() and slowdown() with the
pass's prior (its timed points and its pick's weighed estimate) at every
measured point, so the C++ stays the one model and this file only mirrors
it.

    bench/fit_tactic_model.py                       # evaluate CONSTANTS
    bench/fit_tactic_model.py --per-point           # each point's pick
    bench/fit_tactic_model.py --check-opt build/bin/lamport-opt
    bench/fit_tactic_model.py --ptxas bundles/tactics/untabled ...
    bench/fit_tactic_model.py --fit                 # refit (scipy, minutes)

The measurements (one H200), a subdirectory per run, each with
lamport-tune's candidates.json and results.json and tactics_seed.json (the
seed shapes at their table tactics): bench/data/h200_tactics, the runs the
constants are fitted to (sixteen real-model shapes x M 1, 4, 8, 16, four
runs), and bench/data/h200_tactics_heldout, shapes the fit never sees
(thirty-eight shapes of seven other model families, four runs), on which
the model's error is judged. `--results DIR` and `--held-out DIR` read
others (a directory with results.json, or every run under it).

Criteria: for each (shape, M, run) the candidate the model ranks first
among the measured ones, over the measured best (within 1.10 is the goal;
bulk-pipeline candidates, from lamport-tune --variants, count towards the
best, but the model ranks only those of its sweep space, as the pass
does: the register ones and the bulk pipeline's own launch shapes);
the estimate over the measurement at the seed points (each at its table
tactic). Then the same over all runs with the prior of SelectTactics.cpp
(each tactic's slowdown at the table's timed points of the nearest
shapes): from the other model
families' measured best, and from the sm_90 table without the point's
own shape.
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from tune_module import tune

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SMS, SM_REGISTERS, SM_THREADS, MAX_REGISTERS = 132, 65536, 2048, 255
MAX_SHARED = 227 * 1024
CHUNK_K, TOKENS_PER_MMA, FEATURES_PER_TILE = 32, 8, 16

# The H200 figures and the kernel's costs, as TacticModel.cpp has them.
CONSTANTS = {
    "dram": 4.25e6,        # weight-stream bandwidth, bytes/us
    "sm": 81.9e3,          # what one SM's loads pull, bytes/us
    "l2": 11.9e6,          # activations from L2, bytes/us
    "x_tile_saving": 0.5,  # x's time falls as tiles^-this, not 1 / tiles
    "publish": 4.4e6,      # the publishing epilogue's copies, bytes/us
    "launch": 0.641,       # fixed cost of a launch under PDL, us
    "latency": 0.565,      # a memory round trip under load, us
    "wave": 2.95,          # each further wave, over the CTAs per SM, us
    "mma": 0.0112,         # one mma.sync of a warp's accumulator chain, us
    "cluster": 0.022,      # the split-K exchange through the cluster, us
    "split": 0.177,        # each further split's exchange, us
    "pass": 0.269,         # each further pass's reduce and store, us
    "stream_over": 1.0,    # the weight stream over its floor
    "no_hint": 1.04,       # the stream without the register budget hint
    "early": 0.188,        # what early dependents save, us
    "late1": 0.00162,      # share of x one late chunk overlaps
    "late2": 0.684,        # share of x two late chunks overlap
    "late2_wide": 0.35,    # the same with 16-token tiles
    "late_cost": 0.0678,   # each late chunk of each tile, us
    "registers": 18,       # a thread's registers besides weights and sums
    "spill": 0.04,         # each 8 registers past the budget
    "reduce_word": 1.15e-05,  # the warps' partials per word, us
    # The bulk-stream family's own (bench/fit_bulk_estimate.py).
    "bulk_setup": 0.409,   # set-up beyond a launch, us
    "bulk_copies": 3760.0,  # bulk copies the GPU completes a microsecond
    "bulk_latency": 0.1,   # a bulk copy's round trip under load, us (set)
}


def natural_token_tile(m):
    return 8 if m <= 8 else 16


def box_k(stage_k):
    """GemmLaunchShape::boxK: the largest multiple of 32 up to 256 dividing
    a stage's K."""
    return next((box for box in range(256, CHUNK_K - 1, -CHUNK_K)
                 if stage_k % box == 0), CHUNK_K)


def bulk_layout(n, k, t):
    """(stage K, loads, whether tensor copies fill a stage, copies a stage,
    a slot's bytes) of bulk tactic `t` as the generator lays it out under
    the default `--bulk-copies=auto` (GemmLaunchShape)."""
    rows = FEATURES_PER_TILE * t["tiles"]
    stage_k = t["stage_bytes"] // (rows * 2)
    contiguous = t["splits"] == 1 and stage_k == k
    loads = t["passes"] * (k // t["splits"] // stage_k)
    tensor = not contiguous and stage_k * 2 < 2048 and loads > t["stages"]
    if tensor:
        return stage_k, loads, True, stage_k // box_k(stage_k), \
            t["stage_bytes"]
    return stage_k, loads, False, 1 if contiguous else rows, \
        rows * (stage_k * 2 + (0 if contiguous else 64))


def residency(c, ctas, threads, registers, hint, shared):
    """TacticModel.cpp's residencyOf(): (spill factor, CTAs an SM holds,
    CTAs resident at once, waves)."""
    budget = min(MAX_REGISTERS, SM_REGISTERS // (threads * max(hint, 1)))
    spill = 1 + c["spill"] * (registers - budget) / 8.0 \
        if registers > budget else 1
    per_sm = max(1, min(SM_THREADS // threads,
                        SM_REGISTERS // (threads * min(registers, budget)),
                        MAX_SHARED // (shared + 1024), 32))
    resident = min(ctas, SMS * per_sm)
    return spill, per_sm, resident, (ctas + resident - 1) // resident


def mma_and_reductions(c, t, warps, token_tile):
    """TacticModel.cpp's mmaAndReductionsUs()."""
    rows = FEATURES_PER_TILE * t["tiles"]
    mma = float(t["kw"] // CHUNK_K * 2 * t["tiles"] *
                (token_tile // TOKENS_PER_MMA)) / t["accs"] * c["mma"]
    reduce = 0.02 + c["reduce_word"] * warps * token_tile * rows * t["passes"]
    if t["splits"] > 1:
        reduce += c["cluster"] + c["split"] * (t["splits"] - 1)
    reduce += c["pass"] * (t["passes"] - 1)
    return mma + reduce


def epilogue_us(c, n, m, publishes, tp):
    """TacticModel.cpp's epilogueUs(): y, and with a publish tp copies."""
    y_bytes = 2.0 * m * n
    epilogue = y_bytes / c["l2"]
    if publishes:
        epilogue += tp * y_bytes / c["publish"]
    return epilogue


def launch_cost(c, t):
    """TacticModel.cpp's launchCostUs()."""
    return c["launch"] - (c["early"] if t["early_dependents"] else 0)


def estimate_bulk(c, n, k, m, t, publishes=False, tp=1):
    """TacticModel.cpp's estimateBulk() for bulk tactic dict `t`."""
    splits, kw, accs = t["splits"], t["kw"], t["accs"]
    tiles, passes = t["tiles"], t["passes"]
    warps = k // (splits * kw)
    token_tile = natural_token_tile(m)
    threads = warps * 32
    rows = FEATURES_PER_TILE * tiles
    grid_x = n // (rows * passes)
    ctas = grid_x * splits
    token_blocks = token_tile // TOKENS_PER_MMA
    chunks = kw // CHUNK_K
    stage_k, loads, _, copies_stage, slot = bulk_layout(n, k, t)
    shared = t["stages"] * slot + (warps + splits) * token_tile * rows * 4

    registers = (c["registers"] + chunks * token_blocks * 4 +
                 accs * tiles * token_blocks * 4 + tiles * 8)
    spill, per_sm, resident, waves = residency(
        c, ctas, threads, registers, t["min_ctas_per_sm"], shared)

    share = 2.0 * (k // splits) * rows * passes
    stage = 2.0 * rows * stage_k
    in_flight = min(share, stage * (t["stages"] if loads <= t["stages"]
                                    else max(t["stages"] - 1.0, 0.5)))
    weight_bytes = 2.0 * n * k
    bytes_us = weight_bytes / c["dram"] + \
        weight_bytes * c["bulk_latency"] / (resident * in_flight)
    copies = float(ctas) * loads * copies_stage
    stream = max(bytes_us, copies / c["bulk_copies"]) + \
        (waves - 1) * c["wave"] / per_sm

    activations = 2.0 * grid_x * m * k / c["l2"]
    return launch_cost(c, t) + c["bulk_setup"] + \
        (stream + activations + mma_and_reductions(c, t, warps, token_tile)) \
        * spill + epilogue_us(c, n, m, publishes, tp)


# appendBulkLaunches (TacticModel.cpp): the bulk-stream family's sweep.
BULK_MIN_CTAS, BULK_OTHER_REGISTERS = 64, 24
BULK_RINGS = (96 * 1024, 128 * 1024, 192 * 1024)


def bulk_launch_rings(n, k, t):
    """The (stages, stage bytes, producer lanes) appendRings gives the
    launch of bulk tactic `t` for the bulk launches' rings."""
    rows = FEATURES_PER_TILE * t["tiles"]
    warps, chunks = k // t["kw"], t["kw"] // CHUNK_K
    stage_bytes = 0
    for j in range(1, chunks + 1):
        if chunks % j:
            continue
        size = rows * 2 * j * CHUNK_K * warps
        if not stage_bytes or size <= 32 * 1024:
            stage_bytes = size
    loads = t["passes"] * (k // (stage_bytes // (rows * 2)))
    out = set()
    for ring in BULK_RINGS:
        stages = min(max((ring + stage_bytes // 2) // stage_bytes,
                         min(loads, 2)), min(loads, 16))
        shaped = dict(t, stages=stages, stage_bytes=stage_bytes)
        copies = bulk_layout(n, k, shaped)[3]
        out.add((stages, stage_bytes, min(copies, 32)))
    return out


def in_sweep(n, k, m, t):
    """Whether the pass ranks tactic `t` at m: the register tactics of its
    sweep (not the table's wider ones: 8 splits, kw 256, hints of 2-4),
    and of the bulk pipeline its own launch shapes at m's token tile only
    (the rings of the register launch shapes are timed, not ranked)."""
    if t.get("pipeline") != "bulk":
        # enumerateRegister's sweep: splits 1, 2, 4 and kw 64, 128, or,
        # for a K none of those divides, every splits and kw.
        swept = any(k % (splits * kw) == 0 and
                    1 <= k // (splits * kw) <= 32
                    for splits in (1, 2, 4) for kw in (64, 128))
        return ((not swept or (t["splits"] in (1, 2, 4) and
                               t["kw"] in (64, 128))) and
                t["passes"] in (1, 2, 4) and
                (t["passes"] == 1 or t["splits"] == 1) and
                t["tiles"] in (1, 2, 4) and t["accs"] in (1, 2, 4) and
                t["min_ctas_per_sm"] in (0, 1) and
                t["late_chunks"] * CHUNK_K < t["kw"])
    warps = k // t["kw"] if t["kw"] and k % t["kw"] == 0 else 0
    rows = FEATURES_PER_TILE * t["tiles"]
    # A tactic naming early_reads: ranked as the twin of a launch of the
    # family's own (the pass ranks each beside it), no other count.
    if t.get("early_reads") is not None:
        return (is_early_reads_twin(t, k) and
                in_sweep(n, k, m, dict(t, early_reads=None)))
    if (t["splits"] != 1 or warps not in (4, 8, 16) or
            t["passes"] not in (2, 4, 8) or t["tiles"] not in (1, 2) or
            t["min_ctas_per_sm"] != 1 or not t["early_dependents"] or
            t["late_chunks"] or n % (rows * t["passes"]) or
            n // (rows * t["passes"]) < BULK_MIN_CTAS):
        return False
    # The launches of m's token tile (2 accumulators at 8 tokens, 1 at 16),
    # whose x and sums fit a thread's registers at that tile.
    tile = natural_token_tile(m)
    if t["accs"] != (1 if tile > 8 else 2):
        return False
    blocks = tile // TOKENS_PER_MMA
    registers = (BULK_OTHER_REGISTERS + t["kw"] // CHUNK_K * blocks * 4 +
                 t["tiles"] * blocks * 4 * t["accs"])
    if registers > min(MAX_REGISTERS, SM_REGISTERS // (warps * 32)):
        return False
    return (t["stages"], t["stage_bytes"], t["producer_lanes"]) in \
        bulk_launch_rings(n, k, t)


def register_count(c, t, token_tile, x_chunks=1):
    """estimateRegister()'s registers of a thread: the weight fragments in
    flight (twice with several passes), the accumulators, `x_chunks` x
    fragments per token block (the model counts one) and the rest."""
    token_blocks = token_tile // TOKENS_PER_MMA
    weights = t["kw"] // CHUNK_K * t["tiles"] * 8 * \
        (2 if t["passes"] > 1 else 1)
    return (c["registers"] + weights +
            t["accs"] * t["tiles"] * token_blocks * 4 +
            x_chunks * token_blocks * 4)


def estimate(c, n, k, m, t, publishes=False, tp=1):
    """TacticModel.cpp's estimate for tactic dict `t`: estimateRegister(),
    or estimateBulk() for the bulk pipeline."""
    if t.get("pipeline") == "bulk":
        return estimate_bulk(c, n, k, m, t, publishes, tp)
    splits, kw = t["splits"], t["kw"]
    tiles, passes = t["tiles"], t["passes"]
    warps = k // (splits * kw)
    token_tile = natural_token_tile(m)
    threads = warps * 32
    features = FEATURES_PER_TILE * tiles
    grid_x = n // (features * passes)
    ctas = grid_x * splits
    shared = (warps + splits) * token_tile * features * 4

    registers = register_count(c, t, token_tile)
    hint = t["min_ctas_per_sm"]
    spill, per_sm, resident, waves = residency(c, ctas, threads, registers,
                                               hint, shared)
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
    activations = x_bytes / c["l2"] * tiles ** (1.0 - c["x_tile_saving"])
    late = t["late_chunks"]
    late_gain = activations * (
        c["late1"] if late == 1 else
        c["late2_wide"] if token_tile > TOKENS_PER_MMA else c["late2"]) \
        if late else 0
    late_cost = c["late_cost"] * late * tiles

    return launch_cost(c, t) + (
        stream + activations - late_gain + late_cost +
        mma_and_reductions(c, t, warps, token_tile)) * spill + \
        epilogue_us(c, n, m, publishes, tp)


# The prior (SelectTactics.cpp): each tactic's measured slowdown at the
# table's timed points of the PRIOR_SHAPES shapes nearest the op's.
PRIOR_SHAPES = 1
MATCH_KNOBS = ("splits", "tiles", "passes", "accs", "min_ctas_per_sm",
               "early_dependents", "late_chunks", "pipeline", "stages",
               "stage_bytes", "producer_lanes")
# Registers of weight fragments the generator's rule reads before the PDL
# wait with one pass (GemmLaunchShape::kEarlyReadRegisters).
EARLY_READ_REGISTERS = 64


def load_table(path=os.path.join(ROOT, "data", "tactics", "sm_90.json")):
    """[(n, k, first M, last M, publishes, tactic)] of a tactic table."""
    table = json.load(open(path))
    return [(e["n"], e["k"], e["m"][0], e["m"][1], e["publishes"],
             full_tactic(e["tactic"])) for e in table["entries"]]


def load_measured(path=os.path.join(ROOT, "data", "tactics", "sm_90.json")):
    """[(n, k, m, publishes, [(tactic, over_best)])]: a tactic table's
    timed points."""
    table = json.load(open(path))
    return [(p["n"], p["k"], p["m"], p["publishes"],
             [(full_tactic(c["tactic"]), c["over_best"])
              for c in p["candidates"]])
            for p in table.get("measured", [])]


def nearest_points(measured, n, k, m, publishes=False):
    """TacticTable::nearestMeasured: the timed point serving m (the least M
    at or above it, else the greatest) of each of the PRIOR_SHAPES shapes
    nearest [n, k], one a shape (publishing as asked where the shape has
    both), never [n, k] itself; nearest first."""
    shapes = {}
    for point in measured:
        pn, pk, pm, pub, _ = point
        if (pn, pk) == (n, k):
            continue
        shapes.setdefault((pn, pk), []).append(point)

    def serving(points):
        same = [p for p in points if p[3] == publishes] or points
        above = [p for p in same if p[2] >= m]
        return min(above, key=lambda p: p[2]) if above else \
            max(same, key=lambda p: p[2])
    order = sorted(shapes, key=lambda s: math.hypot(math.log(s[0] / n),
                                                    math.log(s[1] / k)))
    return [serving(shapes[s]) for s in order[:PRIOR_SHAPES]]


def warps_of(t, k):
    return k // (t["splits"] * t["kw"])


def ring_loads(t, k):
    """(the loads of bulk tactic t's ring's first fill at K = k, those that
    fit EARLY_READ_REGISTERS), or None where its stage does not split into
    the warps' 32-K chunks (GemmLaunchShape)."""
    rows = FEATURES_PER_TILE * t["tiles"]
    stage_k = t["stage_bytes"] // (rows * 2)
    slice_k = k // t["splits"]
    if (t["stage_bytes"] % (rows * 2) or stage_k < CHUNK_K or
            slice_k % stage_k or (stage_k * t["kw"]) % slice_k or
            (stage_k * t["kw"] // slice_k) % CHUNK_K):
        return None
    stages_per_pass = slice_k // stage_k
    first_fill = min(t["stages"], t["passes"] * stages_per_pass)
    per_load = t["kw"] // CHUNK_K // stages_per_pass * t["tiles"] * 8
    return first_fill, min(first_fill, EARLY_READ_REGISTERS // per_load)


def early_read_loads(t, k):
    """earlyReadLoads (TacticModel.cpp): the loads of bulk tactic t's ring
    read before the PDL wait at K = k, its early_reads or the generator's
    rule (one pass: those that fit the budget; several: none); a ring
    whose stage does not split into the warps' chunks (which the generator
    refuses), its early_reads as written (-1 where left out)."""
    loads = ring_loads(t, k)
    if loads is None:
        return -1 if t.get("early_reads") is None else t["early_reads"]
    if t.get("early_reads") is not None:
        return min(t["early_reads"], loads[0])
    return 0 if t["passes"] > 1 else loads[1]


def is_early_reads_twin(t, k):
    """Whether t names the other choice of reads before the wait of the
    tactic that leaves them to the rule (earlyReadsTwin): none with one
    pass, the budget's with several, where that differs from the rule."""
    loads = ring_loads(t, k)
    if t.get("early_reads") is None or loads is None:
        return False
    rule = early_read_loads(dict(t, early_reads=None), k)
    twin = loads[1] if t["passes"] > 1 else 0
    return twin != rule and early_read_loads(t, k) == twin


def same_kernel(a, ka, b, kb, any_width=False):
    """Whether tactic a at K = ka is tactic b at K = kb: the same knobs, a
    bulk pipeline's warps for its kw (which grows with K) and its reads
    before the PDL wait counted, however spelled; with `any_width`, at any
    kw or count of bulk warps."""
    if any(a.get(knob) != b.get(knob) for knob in MATCH_KNOBS):
        return False
    if pipeline_of(a) == "bulk":
        return ((any_width or warps_of(a, ka) == warps_of(b, kb)) and
                early_read_loads(a, ka) == early_read_loads(b, kb))
    return any_width or a["kw"] == b["kw"]


def timed_at(t, k, points, any_width=False):
    """The times over the best at `points` of t's kernel (any_width: at any
    width along K)."""
    return [over for pn, pk, pm, pub, cands in points
            for other, over in cands
            if same_kernel(t, k, other, pk, any_width)]


def slowdown(t, k, points, none_timed=False):
    """The prior's factor on t's estimate: the geometric mean of its time
    over the best at the points that timed it; where they timed none of
    the tactics ranked (`none_timed`), of its kernel's at other widths;
    else the median of every candidate's there; 1 without points."""
    timed = timed_at(t, k, points) or \
        (timed_at(t, k, points, any_width=True) if none_timed else [])
    if not timed:
        timed = [statistics.median([over for *_, cands in points
                         for _, over in cands])] if points else [1.0]
    return statistics.geometric_mean(timed)


def timed_none_of(tactics, k, points):
    """Whether `points` timed none of `tactics` (SelectTactics.cpp's
    rank() then weighs each by its kernel at other widths)."""
    return not any(timed_at(t, k, points) for t in tactics)


def pipeline_of(t):
    return t.get("pipeline", "registers")


def weighed_estimates(c, n, k, m, tactics, points):
    """Each tactic's estimate weighed as the pass weighs it: times its
    measured slowdown at the prior's points (whether they timed none is
    judged among `tactics`, the pass judges it among all it ranks)."""
    none = timed_none_of(tactics, k, points)
    return [estimate(c, n, k, m, t) * slowdown(t, k, points, none)
            for t in tactics]


# SelectTactics.cpp's kFamilyTie: the two pipelines' best scores closer
# than this (in the logarithm of their ratio) are a tie.
FAMILY_TIE = 0.1


def family_best_at(points, pipeline):
    """SelectTactics.cpp's familyBestAtPrior: the geometric mean over the
    points that timed a kernel of `pipeline` of the fastest one's time over
    the best; None where none did."""
    fastest = [min(over for t, over in cands if pipeline_of(t) == pipeline)
               for *_, cands in points
               if any(pipeline_of(t) == pipeline for t, _ in cands)]
    return statistics.geometric_mean(fastest) if fastest else None


def first_choice(tactics, scores, points):
    """The index of the pass's first choice among `tactics` weighed to
    `scores` (arbitrateFamilies): the least score, unless the other
    pipeline's best scores within FAMILY_TIE of it and that pipeline's
    fastest kernel ran faster at the prior's `points`."""
    first = min(range(len(tactics)), key=scores.__getitem__)
    pipeline = pipeline_of(tactics[first])
    others = [i for i in range(len(tactics))
              if pipeline_of(tactics[i]) != pipeline]
    if not others:
        return first
    other = min(others, key=scores.__getitem__)
    if abs(math.log(scores[other] / scores[first])) >= FAMILY_TIE:
        return first
    mine = family_best_at(points, pipeline)
    theirs = family_best_at(points, pipeline_of(tactics[other]))
    if mine is None or theirs is None or theirs >= mine:
        return first
    return other


def full_tactic(t):
    """A table or candidates.json tactic with every knob at its default;
    a bulk tactic keeps its ring's knobs (so it is told from its register
    twin)."""
    out = {"splits": 1, "kw": 128, "accs": 2, "tiles": 1, "passes": 1,
           "min_ctas_per_sm": 0, "early_dependents": False, "late_chunks": 0}
    if t.get("pipeline") == "bulk":
        out.update({"pipeline": "bulk", "stages": 4, "stage_bytes": 16384,
                    "producer_lanes": 1, "early_reads": None})
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


# A seed bundle's name: the point and the tactic it was built with
# (lamport-tune's bundle_name), then _table or _hand.
SEED_NAME = re.compile(
    r".*_s(?P<splits>\d+)_kw(?P<kw>\d+)_tiles(?P<tiles>\d+)(?:_p(?P<passes>\d+))?"
    r"(?:_a(?P<accs>\d+))?(?P<bulk>_bulk\d+x\d+(?:_lanes\d+)?)?"
    r"(?:_occ(?P<min_ctas_per_sm>\d+))?"
    r"(?P<early_dependents>_early)?(?:_late(?P<late_chunks>\d+))?_table$")


def load_seed(results_dir):
    """[(shape, n, k, m, table tactic, measured us)] of the seed points of
    every run, each with the tactic the run's table gave it (its name),
    but those the table serves with the bulk pipeline, which the model has
    no estimate for. A run without tactics_seed.json takes its parent's
    (the sets of one run share it), each file read once."""
    out, read = [], set()
    for run, directory in runs(results_dir):
        path = os.path.join(directory, "tactics_seed.json")
        if not os.path.exists(path):
            path = os.path.join(os.path.dirname(os.path.normpath(directory)),
                                "tactics_seed.json")
        if path in read or not os.path.exists(path):
            continue
        read.add(path)
        seed = json.load(open(path))
        for r in seed:
            if not r["bundle"].endswith("_table") or r["publishes"]:
                continue
            match = SEED_NAME.match(r["bundle"])
            if not match:
                sys.exit(f"seed point {r['bundle']}: not a tactic's name")
            if match["bulk"]:
                continue
            knobs = {key: int(value) for key, value in match.groupdict().items()
                     if value and key not in ("early_dependents", "bulk")}
            knobs["early_dependents"] = bool(match["early_dependents"])
            out.append((f"{r['shape']} ({run})", r["n"], r["k"], r["m"],
                        full_tactic(knobs), r["ours_us"]))
    return out


def pick_ratios(c, points, prior_of=None):
    """{(shape, m, run): the model's pick among the measured over the
    best}; with `prior_of(shape, n, k, m)`, each estimate weighed by the
    slowdowns at the timed points it gives."""
    out = {}
    for key, cands in points.items():
        best = min(us for _, us, *_ in cands)
        n, k = cands[0][2], cands[0][3]
        prior = prior_of(key[0], n, k, key[1]) if prior_of else []
        ranked = [x for x in cands if in_sweep(n, k, key[1], x[0])]
        scores = weighed_estimates(c, n, k, key[1], [x[0] for x in ranked],
                                   prior)
        pick = ranked[first_choice([x[0] for x in ranked], scores, prior)]
        out[key] = pick[1] / best
    return out


def family(shape):
    """The model a real-model shape's name starts with."""
    return re.sub(r"_(oproj|down|up)_tp\d+$", "", shape)


def family_prior(points):
    """A prior_of() judging each model family against the others: the
    timed points are the measured candidates of `points` (each over its
    point's best, one run a point), the shape's own family left out."""
    measured, seen = [], set()
    for (shape, m, _), cands in sorted(points.items()):
        if (shape, m) in seen:
            continue
        seen.add((shape, m))
        best = min(us for _, us, *_ in cands)
        measured.append((cands[0][2], cands[0][3], m, False,
                         [(t, us / best) for t, us, *_ in cands], shape))

    def prior_of(shape, n, k, m):
        others = [p[:5] for p in measured if family(p[5]) != family(shape)]
        return nearest_points(others, n, k, m)
    return prior_of


def seed_errors(c, seed):
    return [estimate(c, n, k, m, t) / us for _, n, k, m, t, us in seed]


def geomean(xs):
    return statistics.geometric_mean(xs)


# The constants --fit moves and their bounds; the bandwidths of DRAM and the
# publish, the spill and register terms stay as they are.
BOUNDS = {
    "sm": (40e3, 150e3), "l2": (3e6, 15e6), "launch": (0.3, 0.8),
    "latency": (0.3, 1.5), "wave": (0.1, 3.0), "mma": (0.002, 0.05),
    "cluster": (0.0, 0.5), "split": (0.0, 0.4), "pass": (0.0, 1.0),
    "early": (0.05, 0.3), "late1": (0.0, 0.9), "late2": (0.0, 0.95),
    "late2_wide": (0.0, 0.95),
    "late_cost": (0.0, 0.3), "reduce_word": (0.0, 4e-5),
    "stream_over": (1.0, 1.15),
}
# How sharply the fit's ranking term prefers the model's first candidate,
# and the weight of the seed points' calibration.
RANK_SHARPNESS, SEED_WEIGHT = 0.03, 2.0


def loss(c, points, seed):
    """The measured time over the point's best of the candidate the model
    ranks first, softened (each candidate weighted by how close to the
    first the model puts it, so the loss is smooth in the constants),
    averaged over the points; plus the seed points' squared log error."""
    ranking = 0.0
    for (_, m, _), cands in points.items():
        best = min(us for _, us, *_ in cands)
        cands = [x for x in cands if in_sweep(x[2], x[3], m, x[0])]
        logs = [math.log(estimate(c, n, k, m, t)) for t, _, n, k, _ in cands]
        first = min(logs)
        weights = [math.exp(-(x - first) / RANK_SHARPNESS) for x in logs]
        ranking += sum(w * cand[1] / best for w, cand in
                       zip(weights, cands)) / sum(weights)
    errors = seed_errors(c, seed)
    spread = sum(math.log(e) ** 2 for e in errors) / len(errors)
    return ranking / len(points) + SEED_WEIGHT * spread


def fit(points, seed):
    """Differential evolution over BOUNDS from CONSTANTS' other figures;
    the result rounded to three significant digits."""
    try:
        from scipy.optimize import differential_evolution
    except ImportError:
        sys.exit("--fit needs scipy (pip install scipy)")
    names = sorted(BOUNDS)

    def constants(x):
        return dict(CONSTANTS, **dict(zip(names, x)))

    result = differential_evolution(
        lambda x: loss(constants(x), points, seed),
        [BOUNDS[name] for name in names], maxiter=60, popsize=10, seed=2,
        polish=False, tol=1e-9)
    return {key: float(f"{value:.3g}")
            for key, value in constants(result.x).items()}


def report(c, points, seed, title, calibration=True, prior_of=None):
    ratios = pick_ratios(c, points, prior_of)
    within = sum(r <= 1.10 for r in ratios.values())
    worst = max(ratios, key=ratios.get)
    print(f"{title}: pick within 10% of the best at {within} of "
          f"{len(ratios)} points, worst {ratios[worst]:.3f} "
          f"({worst[0]} M = {worst[1]}, {worst[2]}), geomean "
          f"{geomean(list(ratios.values())):.3f}")
    if not calibration:
        return ratios
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
    if t.get("pipeline") == "bulk":
        text += f" bulk{t['stages']}x{t['stage_bytes'] // 1024}"
    return text


def per_point(c, points):
    """Each point's best, and the pick of the estimates recorded in
    candidates.json (the model that emitted them) and of CONSTANTS."""
    print(f"{'run':14} {'point':28} {'measured best':26} "
          f"{'emitted pick':>26} {'ratio':>6} {'this pick':>26} {'ratio':>6}")
    for (shape, m, run), cands in sorted(points.items(),
                                         key=lambda p: (p[0][2], p[0][:2])):
        best = min(cands, key=lambda x: x[1])
        before = min(cands, key=lambda x: math.inf if x[4] is None else x[4])
        after = min(cands, key=lambda x: estimate(c, x[2], x[3], m, x[0]))
        print(f"{run:14} {shape + ' M=' + str(m):28} {describe(best[0]):26} "
              f"{describe(before[0]):>26} {before[1] / best[1]:6.3f} "
              f"{describe(after[0]):>26} {after[1] / best[1]:6.3f}")


def opt_estimate(opt, n, k, m, t):
    """lamport-opt's estimate for tactic `t` (explain's remark, 2 decimals)."""
    text = tune.program("f", n, k, m, tune.tactic_text(t, m))
    result = subprocess.run(
        [opt, "-", "--mlir-print-op-on-diagnostic=false", "-o", os.devnull,
         "--lamport-select-tactics=explain chip=sm_90"],
        input=text, capture_output=True, text=True)
    found = re.search(r": ([\d.]+) us\)", result.stderr)
    if not found:
        sys.exit(f"lamport-opt gave no estimate:\n{result.stderr}")
    return float(found.group(1))


def opt_prior_pick(opt, n, k, m, table_path):
    """lamport-opt's pick with prior-only at m: (tactic, its weighed
    estimate, its slowdown, [(n, k, m)] of the timed points, whether they
    timed none of the tactics ranked), from the op and explain's remark."""
    text = tune.program("f", n, k, m)
    result = subprocess.run(
        [opt, "-", "--mlir-print-op-on-diagnostic=false",
         f"--lamport-select-tactics=explain chip=sm_90 prior-only "
         f"tactic-table={table_path}"],
        input=text, capture_output=True, text=True)
    chosen = re.search(r"tactic\((#lamport\.tactic<.*?>)\)", result.stdout)
    score = re.search(r"weighed by the prior ([\d.]+) and [\d.]+ us \(the "
                      r"pick's slowdown there ([\d.]+)", result.stderr)
    leaning = re.search(r"leaning on the table's timed points "
                        r"((?:(?:, )?\d+ x \d+ at M = \d+)+)", result.stderr)
    if not chosen or not score or not leaning:
        sys.exit(f"lamport-opt gave no prior pick:\n{result.stderr}")
    tactic = full_tactic(tune.parse_tactic(chosen.group(1)))
    timed = [(int(a), int(b), int(c)) for a, b, c in
             re.findall(r"(\d+) x (\d+) at M = (\d+)", leaning.group(1))]
    none = bool(re.search(r"none of the \d+ tactics ranked was timed",
                          result.stderr))
    return tactic, float(score.group(1)), float(score.group(2)), timed, none


def check_prior(opt, points):
    """Whether nearest_points() and slowdown() are the pass's: at every
    measured point's N, K and M, the timed points lamport-opt names with
    prior-only and its pick's weighed estimate; returns the mismatches."""
    path = os.path.join(ROOT, "data", "tactics", "sm_90.json")
    measured = load_measured(path)
    cases = sorted({(cands[0][2], cands[0][3], m)
                    for (_, m, _), cands in points.items()})
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        theirs_all = list(pool.map(
            lambda case: opt_prior_pick(opt, *case, path), cases))
    bad = 0
    for (n, k, m), (tactic, score, theirs_slowdown, timed, none) in zip(
            cases, theirs_all):
        mine = nearest_points(measured, n, k, m)
        ours_slowdown = slowdown(tactic, k, mine, none)
        ours = estimate(CONSTANTS, n, k, m, tactic) * ours_slowdown
        if ([p[:3] for p in mine] != timed or
                abs(ours_slowdown - theirs_slowdown) > 0.0006 or
                abs(ours - score) > 0.006):
            bad += 1
            print(f"prior mismatch at {n} x {k} M = {m}: python "
                  f"{[p[:3] for p in mine]} {ours:.3f} "
                  f"({ours_slowdown:.3f}), lamport-opt {timed} "
                  f"{score:.2f} ({theirs_slowdown:.3f})")
    print(f"lamport-opt and this prior agree at {len(cases) - bad} of "
          f"{len(cases)} points")
    return bad


def ptxas_registers(ptx):
    """(registers, spill store bytes) ptxas gives the kernel of `ptx` for
    sm_90."""
    result = subprocess.run(["ptxas", "-arch=sm_90", "-v", ptx, "-o",
                             os.devnull], capture_output=True, text=True)
    used = re.search(r"Used (\d+) registers", result.stderr)
    spill = re.search(r"(\d+) bytes spill stores", result.stderr)
    if result.returncode or not used:
        sys.exit(f"ptxas failed on {ptx}:\n{result.stderr}")
    return int(used.group(1)), int(spill.group(1)) if spill else 0


def check_ptxas(set_dirs):
    """The model's registers of a thread against ptxas's, for every
    register-family candidate compiled under SET_DIR/bundles (lamport-tune
    emit's layout, one kernel a bundle): counting one x fragment per token
    block, as the model does, and every chunk's, as the kernel loads them
    (all of a warp's x before its MMAs). Only kernels ptxas leaves under
    their register budget and unspilled count: at the budget ptxas, not
    the kernel, sets the number."""
    cases = []
    for set_dir in set_dirs:
        cands = json.load(open(os.path.join(set_dir, "candidates.json")))
        for c in cands["candidates"]:
            t = full_tactic(c["tactic"])
            if pipeline_of(t) == "bulk":
                continue
            ptx = os.path.join(set_dir, "bundles", c["bundle"],
                               "gemm_publish_0.ptx")
            cases.append((t, c["k"], natural_token_tile(c["m"]), ptx))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        measured = list(pool.map(lambda case: ptxas_registers(case[3]),
                                 cases))
    rows = {8: [], 16: []}
    for (t, k, tile, _), (registers, spill) in zip(cases, measured):
        threads = warps_of(t, k) * 32
        budget = min(MAX_REGISTERS,
                     SM_REGISTERS // (threads * max(t["min_ctas_per_sm"], 1)))
        if spill or registers >= budget - 8:
            continue
        rows[tile].append((registers,
                           register_count(CONSTANTS, t, tile),
                           register_count(CONSTANTS, t, tile,
                                          t["kw"] // CHUNK_K)))
    print(f"ptxas against the model's registers, {len(cases)} register "
          f"kernels, {sum(map(len, rows.values()))} under their budget:")
    for tile, found in rows.items():
        for name, column in (("one x fragment a block", 1),
                             ("x of every chunk", 2)):
            errors = [r[0] - r[column] for r in found]
            if errors:
                print(f"  token tile {tile}, {name}: ptxas - model median "
                      f"{statistics.median(errors):+.0f}, mean absolute "
                      f"{sum(map(abs, errors)) / len(errors):.1f} "
                      f"({len(errors)} kernels)")


def check_opt(opt, points, seed):
    """Whether estimate() with CONSTANTS is lamport-opt's, on every measured
    candidate and seed point (each tactic of a shape and M once, though
    several runs timed it); returns the number of mismatches."""
    bad = total = 0
    cases = {}
    for (shape, m, _), cands in sorted(points.items()):
        for t, _, n, k, _ in cands:
            cases[(n, k, m, tuple(sorted(t.items())))] = (shape, n, k, m, t)
    for shape, n, k, m, t, _ in seed:
        cases[(n, k, m, tuple(sorted(t.items())))] = (shape, n, k, m, t)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        theirs_all = list(pool.map(lambda case: opt_estimate(opt, *case[1:]),
                                   cases.values()))
    for (shape, n, k, m, t), theirs in zip(cases.values(), theirs_all):
        ours = estimate(CONSTANTS, n, k, m, t)
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
                        help="the runs the constants are fitted to")
    parser.add_argument("--held-out",
                        default=os.path.join(HERE, "data",
                                             "h200_tactics_heldout"),
                        help="runs of shapes the fit does not see")
    parser.add_argument("--check-opt", metavar="LAMPORT_OPT")
    parser.add_argument("--ptxas", nargs="+", metavar="SET_DIR",
                        help="the model's registers against ptxas's for "
                        "the register kernels under SET_DIR/bundles")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--per-point", action="store_true",
                        help="each point's pick before and after")
    args = parser.parse_args()
    if args.ptxas:
        check_ptxas(args.ptxas)
        return 0
    points, seed = load_points(args.results), load_seed(args.results)
    held_out = load_points(args.held_out)
    if args.check_opt:
        everything = {**points, **held_out}
        bad = check_opt(args.check_opt, everything, seed)
        bad += check_prior(args.check_opt, everything)
        return 1 if bad else 0
    report(CONSTANTS, points, seed, "fitted shapes")
    report(CONSTANTS, held_out, seed, "held-out shapes", calibration=False)
    # The prior, each model family judged against the timed candidates of
    # the others (how PRIOR_SHAPES was chosen), and against the sm_90
    # table's timed points without the point's own shape (what the pass
    # does with prior-only; the table holds these shapes' points, so the
    # family's other shapes are among the neighbours).
    everything = {**points, **held_out}
    report(CONSTANTS, everything, seed, "all shapes, the model alone",
           calibration=False)
    report(CONSTANTS, everything, seed,
           "all shapes, the prior of the other families' timed points",
           calibration=False, prior_of=family_prior(everything))
    measured = load_measured()
    report(CONSTANTS, everything, seed,
           "all shapes, the prior of the sm_90 table", calibration=False,
           prior_of=lambda shape, n, k, m: nearest_points(measured, n, k, m))
    if args.per_point:
        per_point(CONSTANTS, {**points, **held_out})
    if not args.fit:
        return 0
    fitted = fit(points, seed)
    print("fitted:", {k: v for k, v in fitted.items() if k in BOUNDS},
          "(= CONSTANTS)" if fitted == CONSTANTS else "(not CONSTANTS)")
    report(fitted, points, seed, "refit, fitted shapes")
    report(fitted, held_out, seed, "refit, held-out shapes",
           calibration=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
