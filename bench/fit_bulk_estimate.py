#!/usr/bin/env python3
"""Fits the bulk-stream family's four figures and judges the compiler's pick
with them (docs/tactics.md, "The bulk pipeline's estimate").

The bulk-stream family of the cost model (TacticModel.cpp's estimateBulk,
mirrored by fit_tactic_model.estimate_bulk) ranks the bulk pipeline's own
launch shapes (one split, 4-16 warps, 2-8 passes, rings of about 96-192
KiB) with the register model's launch, waves, x, MMAs, reductions and
epilogue, and the weight stream from the ring:

- the bytes a CTA keeps in flight are its ring (a stage less where it is
  refilled); their round trip under load (`bulk_latency`) adds W x latency
  / (resident CTAs x bytes in flight) to the device's own W / bandwidth;
- the GPU completes at most `bulk_copies` bulk copies a microsecond (row
  copies of 512 bytes to 1 KiB bound a stream; tensor copies, the default
  for such rows, are few);
- a set-up beyond the launch, `bulk_setup`.

`bulk_setup` and `bulk_copies` are fitted (scipy's least_squares, soft L1
on the log error) to the bulk-stream kernels measured at the sixteen
shapes the register model is fitted to (`--fit-runs`, lamport-tune
--variants), with the round trip set (`--latency`, 0.1 us: fitted with
the others it goes to 0, and from 0.02 to 0.3 us the fitted shapes' picks
are the same; at 0 every ring of a launch ties). A per-refill cost was
fitted too and went to 0. The shapes of the check (`--judge`, the
fourteen the sm_90 table has no entry for) are judged: each point's pick
among its measured candidates with the register family alone and with
both, as the pass weighs them (no prior here: the model alone,
fit_tactic_model's pick).

    python3 bench/fit_bulk_estimate.py            # fit (scipy), then judge
    python3 bench/fit_bulk_estimate.py --figures SETUP,COPIES
"""

import argparse
import math
import os
import statistics
import sys

import fit_tactic_model as model

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "h200_tactics_bulk")
NAMES = ("bulk_setup", "bulk_copies")
START, LOWER, UPPER = (0.3, 4000.0), (0.0, 500.0), (3.0, 20000.0)


def bulk_rows(directory):
    """[(shape, n, k, m, tactic, us)] of the passing plain kernels of the
    bulk-stream family's sweep in the runs under `directory`."""
    return [(shape, n, k, m, t, us)
            for (shape, m, _), cands in model.load_points(directory).items()
            for t, us, n, k, _ in cands
            if t.get("pipeline") == "bulk" and model.in_sweep(n, k, m, t)]


def with_figures(figures, latency):
    return dict(model.CONSTANTS, bulk_latency=latency,
                **dict(zip(NAMES, figures)))


def errors(figures, latency, rows):
    c = with_figures(figures, latency)
    return [math.log(model.estimate_bulk(c, n, k, m, t) / us)
            for _, n, k, m, t, us in rows]


def judge(c, directory, families):
    """(points within 10%, points, geomean pick / best, bulk picks, the
    misses) of the pick among the measured candidates of `families`."""
    within, ratios, bulk, misses = 0, [], 0, []
    for (shape, m, _), cands in sorted(model.load_points(directory).items()):
        best = min(us for _, us, *_ in cands)
        ranked = [x for x in cands if model.in_sweep(x[2], x[3], m, x[0])
                  and model.pipeline_of(x[0]) in families]
        pick = min(ranked, key=lambda x: model.estimate(c, x[2], x[3], m,
                                                         x[0]))
        ratio = pick[1] / best
        ratios.append(ratio)
        within += ratio <= 1.10
        bulk += model.pipeline_of(pick[0]) == "bulk"
        if ratio > 1.10:
            misses.append(f"{shape} M = {m} {ratio:.3f}")
    return within, len(ratios), model.geomean(ratios), bulk, misses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fit-runs", default=os.path.join(DATA, "tune"))
    parser.add_argument("--judge", default=os.path.join(DATA, "untabled"))
    parser.add_argument("--latency", type=float, default=0.1,
                        help="the round trip, us (set, not fitted)")
    parser.add_argument("--figures", help="SETUP,COPIES: judge these "
                        "instead of fitting (no scipy needed)")
    args = parser.parse_args()
    fitted, judged = bulk_rows(args.fit_runs), bulk_rows(args.judge)
    if args.figures:
        figures = [float(x) for x in args.figures.split(",")]
    else:
        from scipy.optimize import least_squares
        figures = least_squares(lambda x: errors(x, args.latency, fitted),
                                START, bounds=(LOWER, UPPER),
                                loss="soft_l1", f_scale=0.1).x
        figures = [float(f"{x:.3g}") for x in figures]
    print("figures:", ", ".join(f"{name} {value:.4g}" for name, value in
                                zip(NAMES, figures)),
          f"(bulk_latency {args.latency:.4g}, set)")
    for title, rows in (("fitted shapes", fitted), ("judged shapes", judged)):
        e = [abs(x) for x in errors(figures, args.latency, rows)]
        print(f"{title}: {len(rows)} bulk-stream kernels, median |log "
              f"error| {statistics.median(e):.3f}, within 10% "
              f"{sum(x < 0.1 for x in e) / len(e):.0%}")
    c = with_figures(figures, args.latency)
    for title, families in (("register family alone", ("registers",)),
                            ("both families", ("registers", "bulk"))):
        for name, directory in (("fitted", args.fit_runs),
                                ("judged", args.judge)):
            within, total, geomean, bulk, misses = judge(c, directory,
                                                         families)
            print(f"{name} shapes, {title}: pick within 10% at {within} of "
                  f"{total} (geomean {geomean:.3f}, {bulk} bulk picks)")
            if name == "judged" and len(families) > 1 and misses:
                print("  misses: " + "; ".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
