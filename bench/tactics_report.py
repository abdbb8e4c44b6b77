#!/usr/bin/env python3
"""Prints the tactic-selection checks (docs/tactics.md, "Checks") from
bench/run_tactics.sh's reports.

  tactics_report.py SEED.json TUNE_DIR [FRESH_DIR [UNSEEN_DIR [UNTABLED_DIR]]]
  tactics_report.py --explore EXPLORE.json SET_DIR...

The first table: the seed shapes, each point's bundle from the sm_90 table
(_table) and with the hand-written tactics (_hand) timed in one process;
the check is the geometric mean of the speedup over cuBLAS from the table
within 2% of the hand-written one's. The second (lamport-tune report): the
real-model shapes, the cost model's pick against the best candidate the
tuner timed (within 10% at every point) and the best over cuBLAS (1.5x in
geometric mean): TUNE_DIR the shapes the model's figures were fitted to,
FRESH_DIR shapes held out from the fit (on which refits were compared),
UNSEEN_DIR shapes no fit or choice between fits saw, UNTABLED_DIR shapes
the sm_90 table has no entry for. Exit status 1 where
a check fails. With --explore: each launch shape outside the sweep
against the best the sweep's candidates gave at its point (no check).
"""
import importlib.machinery
import importlib.util
import json
import math
import os
import sys
from types import SimpleNamespace

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else 0


def seed_check(path):
    rows = json.load(open(path))
    points = {}
    for row in rows:
        kind = row["bundle"].rsplit("_", 1)[-1]
        points.setdefault((row["shape"], row["m"]), {})[kind] = row
    print("| shape | M | tactic | table us | hand us | cuBLAS us | "
          "table speedup | hand speedup | checks |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    table, hand, passed = [], [], True
    for (shape, m), kinds in sorted(points.items()):
        t, h = kinds.get("table"), kinds.get("hand")
        if not t or not h or not t.get("ours_us") or not h.get("ours_us"):
            print(f"| {shape} | {m} | (missing) |")
            passed = False
            continue
        ok = t["passed"] and h["passed"]
        passed &= ok
        table.append(t["cublas_us"] / t["ours_us"])
        hand.append(h["cublas_us"] / h["ours_us"])
        print(f"| {shape} | {m} | {t['tactic'].replace(' table', '')} | "
              f"{t['ours_us']:.2f} | {h['ours_us']:.2f} | {t['cublas_us']:.2f} "
              f"| {table[-1]:.2f} | {hand[-1]:.2f} | "
              f"{'PASS' if ok else 'FAIL'} |")
    ratio = geomean(table) / geomean(hand) if hand else 0
    print(f"\nseed shapes: from the table {geomean(table):.3f}x, hand-written "
          f"{geomean(hand):.3f}x over cuBLAS (geometric mean, {len(table)} "
          f"points); table / hand {ratio:.4f} (bound 0.98)")
    return passed and ratio >= 0.98


def explore_report(path, directories, tune):
    """Launch shapes outside the sweep against the sweep's best."""
    best = {}
    for directory in directories:
        _, points = tune.load_points(directory)
        for (shape, _, _, m, _), records in points.items():
            found = tune.best_of(records)
            if found:
                best[(shape, m)] = found
    print("| shape | M | outside the sweep | us | sweep's best | us | "
          "outside / best | cuBLAS us | checks |")
    print("|---|---:|---|---:|---|---:|---:|---:|---|")
    for row in sorted(json.load(open(path)),
                      key=lambda r: (r["shape"], r["m"], r["ours_us"] or 0)):
        sweep = best.get((row["shape"], row["m"]))
        if not sweep or not row.get("ours_us"):
            continue
        print(f"| {row['shape']} | {row['m']} | {row['tactic']} | "
              f"{row['ours_us']:.2f} | {tune.tactic_name(sweep['tactic'])} | "
              f"{sweep['us']:.2f} | {row['ours_us'] / sweep['us']:.3f} | "
              f"{row['cublas_us']:.2f} | "
              f"{'PASS' if row['passed'] else 'FAIL'} |")


def load_tune():
    loader = importlib.machinery.SourceFileLoader(
        "lamport_tune",
        os.path.join(ROOT, "tools", "lamport-tune", "lamport-tune"))
    spec = importlib.util.spec_from_loader("lamport_tune", loader)
    tune = importlib.util.module_from_spec(spec)
    loader.exec_module(tune)
    return tune


def main(argv):
    if argv[:1] == ["--explore"] and len(argv) >= 3:
        explore_report(argv[1], argv[2:], load_tune())
        print()
        return 0
    if len(argv) not in (2, 3, 4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    tune = load_tune()
    seed_ok = seed_check(argv[0])
    print()
    verdicts = []
    for title, directory in zip(("shapes the model was fitted to",
                                 "shapes held out from the fit",
                                 "shapes no fit or choice saw",
                                 "shapes the table has no entry for"),
                                argv[1:]):
        print(f"\n{title} ({os.path.basename(os.path.normpath(directory))}):\n")
        verdicts.append(tune.report(SimpleNamespace(output=directory)) == 0)
    print(f"\nchecks: seed from the table {'PASS' if seed_ok else 'FAIL'}, "
          "cost model and tuner " +
          ", ".join('PASS' if ok else 'FAIL' for ok in verdicts))
    return 0 if seed_ok and all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
