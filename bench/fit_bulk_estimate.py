#!/usr/bin/env python3
"""Fits an estimate of the bulk pipeline's time and judges whether it would
improve the compiler's pick (docs/tactics.md, "Tried and dropped").

The cost model (TacticModel.cpp, mirrored by fit_tactic_model.py) has no
estimate for `pipeline = bulk`, so the compiler never picks it; lamport-tune
times it instead. This script tries the estimate such a family would need:
the register model's launch, waves, x, MMAs, reductions and epilogue, with
the weight stream taken from the ring instead of the registers:

- a thread's registers hold x of all its chunks, the sums and one chunk's
  weight fragments; a CTA's shared memory is the ring and the reduction;
- the bytes a CTA keeps in flight are its ring (one stage less where the
  ring is refilled), over a copy's round trip (`latency`, fitted);
- the whole GPU completes at most `copies` bulk copies a microsecond
  (fitted): row copies of 512 bytes to 1 KiB make the stream copy-bound,
  not byte-bound (docs/design/gemm.md, "The bulk pipeline");
- a set-up cost beyond the register kernel's launch (`setup`, fitted).

The figures are fitted (scipy's least_squares, soft L1 on the log error) to
every bulk measurement of the seed shapes (bench/data: h200_seed_variants,
h200_gemm_occupancy, and the o_proj tp4 rows of h200_gemm_bulk_passes and
h200_gemm_bulk_warps); the Yi-1.5-34B and Command R rows of the last two
are the estimate's held-out error. Then, on the untabled set of
h200_tactics_unfitted/variants_table (where the bulk pipeline is the best
candidate at 21 of 56 points), each point's pick among the measured
candidates with the register estimate alone and with the bulk estimate
beside it, taking a bulk tactic only where its estimate beats the register
one's by a margin.

    python3 bench/fit_bulk_estimate.py             # fit (scipy), then judge
    python3 bench/fit_bulk_estimate.py --figures SETUP,LATENCY,COPIES
"""

import argparse
import math
import os
import statistics
import sys

import fit_tactic_model as model

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
NAMES = ("setup", "latency", "copies")
START, LOWER, UPPER = (0.3, 0.6, 3000.0), (0, 0.2, 500), (3, 3, 20000)


def is_bulk(t):
    return t.get("pipeline") == "bulk"


def estimate_bulk(figures, n, k, m, t):
    """The bulk kernel's time at m tokens, us, under `figures`."""
    c = dict(model.CONSTANTS, **dict(zip(NAMES, figures)))
    splits, kw, tiles, passes = t["splits"], t["kw"], t["tiles"], t["passes"]
    tile = model.natural_token_tile(m)
    rows = model.FEATURES_PER_TILE * tiles
    warps, grid_x = k // (splits * kw), n // (rows * passes)
    threads, ctas = warps * 32, grid_x * splits
    blocks, chunks = tile // model.TOKENS_PER_MMA, kw // model.CHUNK_K
    stage_k = t["stage_bytes"] // (rows * 2)
    contiguous = splits == 1 and stage_k == k
    ring = t["stages"] * rows * (stage_k * 2 + (0 if contiguous else 64))
    reduction = (warps + splits) * tile * rows * 4
    loads = passes * (k // splits // stage_k)
    copies = ctas * loads * (1 if contiguous else rows)

    registers = (c["registers"] + chunks * blocks * 4 +
                 t["accs"] * tiles * blocks * 4 + tiles * 8)
    hint = t["min_ctas_per_sm"]
    budget = min(model.MAX_REGISTERS,
                 model.SM_REGISTERS // (threads * max(hint, 1)))
    spill = 1 + c["spill"] * (registers - budget) / 8.0 \
        if registers > budget else 1
    per_sm = max(1, min(model.SM_THREADS // threads,
                        model.SM_REGISTERS // (threads * min(registers,
                                                             budget)),
                        model.MAX_SHARED // (ring + reduction + 1024), 32))
    resident = min(ctas, model.SMS * per_sm)
    waves = (ctas + resident - 1) // resident
    share = 2.0 * (k // splits) * rows * passes
    stage = 2.0 * rows * stage_k
    in_flight = min(share, stage * (t["stages"] if loads <= t["stages"]
                                    else max(t["stages"] - 1, 0.5)))
    bandwidth = min(c["dram"], resident * in_flight / c["latency"],
                    min(ctas, model.SMS) * c["sm"])
    stream = max(2.0 * n * k / bandwidth, copies / c["copies"]) + \
        (waves - 1) * c["wave"] / per_sm

    activations = 2.0 * grid_x * m * k / c["l2"]
    mma = float(chunks * 2 * tiles * blocks) / t["accs"] * c["mma"]
    reduce = 0.02 + c["reduce_word"] * warps * tile * rows * passes
    if splits > 1:
        reduce += c["cluster"] + c["split"] * (splits - 1)
    reduce += c["pass"] * (passes - 1)
    fixed = c["launch"] - (c["early"] if t["early_dependents"] else 0) + \
        c["setup"]
    return fixed + (stream + activations + mma + reduce) * spill + \
        2.0 * m * n / c["l2"]


def bulk_rows(runs, keep):
    """[(n, k, m, tactic, us)] of the passing plain bulk kernels of `runs`
    (fit_tactic_model's reading of them) whose shape `keep` takes."""
    return [(n, k, m, t, us) for run in runs
            for (shape, m, _), cands in model.load_points(
                os.path.join(DATA, run)).items()
            if keep(shape)
            for t, us, n, k, _ in cands if is_bulk(t)]


def errors(figures, rows):
    return [math.log(estimate_bulk(figures, n, k, m, t) / us)
            for n, k, m, t, us in rows]


def pick_within(figures, directory, margin):
    """Points whose pick is within 10% of the best, the geometric mean of
    pick over best, and the bulk picks; figures None: register only."""
    within, ratios, bulk = 0, [], 0
    for (_, m, _), cands in sorted(model.load_points(directory).items()):
        best = min(us for _, us, *_ in cands)
        # Each pipeline's first by its estimate (ties: the first measured).
        pick_us, pick = min(
            ((model.estimate(model.CONSTANTS, n, k, m, t), us)
             for t, us, n, k, _ in cands if not is_bulk(t)),
            key=lambda x: x[0])
        if figures is not None and any(is_bulk(t) for t, *_ in cands):
            ring_us, ring = min(
                ((estimate_bulk(figures, n, k, m, t), us)
                 for t, us, n, k, _ in cands if is_bulk(t)),
                key=lambda x: x[0])
            if ring_us * (1 + margin) < pick_us:
                pick, bulk = ring, bulk + 1
        ratios.append(pick / best)
        within += pick / best <= 1.10
    return within, len(ratios), model.geomean(ratios), bulk


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figures", help="SETUP,LATENCY,COPIES: judge these "
                        "instead of fitting (no scipy needed)")
    args = parser.parse_args()
    seed_runs = ["h200_seed_variants", "h200_gemm_occupancy",
                 "h200_gemm_bulk_passes", "h200_gemm_bulk_warps"]
    large = ("yi15_34b", "command_r")
    fitted = bulk_rows(seed_runs, lambda shape: not shape.startswith(large))
    held = bulk_rows(seed_runs[2:], lambda shape: shape.startswith(large))
    if args.figures:
        figures = [float(x) for x in args.figures.split(",")]
    else:
        from scipy.optimize import least_squares
        figures = least_squares(lambda x: errors(x, fitted), START,
                                bounds=(LOWER, UPPER), loss="soft_l1",
                                f_scale=0.1).x
    print("figures:", ", ".join(f"{name} {value:.4g}"
                                for name, value in zip(NAMES, figures)))
    for title, rows in (("seed shapes (fitted)", fitted),
                        ("Yi-1.5-34B and Command R (held out)", held)):
        e = [abs(x) for x in errors(figures, rows)]
        print(f"{title}: {len(rows)} bulk kernels, median |log error| "
              f"{statistics.median(e):.3f}, within 10% "
              f"{sum(x < 0.1 for x in e) / len(e):.0%}")
    untabled = os.path.join(DATA, "h200_tactics_unfitted", "variants_table",
                            "untabled")
    within, total, geomean, _ = pick_within(None, untabled, 0)
    print(f"untabled, register estimate alone: pick within 10% at {within} "
          f"of {total} (geomean {geomean:.3f})")
    for margin in (0.0, 0.1, 0.2):
        within, total, geomean, bulk = pick_within(figures, untabled, margin)
        print(f"untabled, with the bulk estimate, margin {margin:.0%}: "
              f"{within} of {total} (geomean {geomean:.3f}, {bulk} bulk picks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
