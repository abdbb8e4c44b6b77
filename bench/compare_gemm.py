#!/usr/bin/env python3
"""Compares two builds of the same GEMM bundles timed in one run of
lamport-gemm-bench: every bundle NAME of the new build beside NAME_before
(the same program compiled by the earlier compiler; bench/run_gemm_ab.sh
lays them out so).

  compare_gemm.py GEMM.json [BOUND]

The bench already compares every variant's y with the point's plain new
variant bit for bit (same_bits_as_reference) and checks each against the
FP64 reference; this prints, per pair, both times and their ratio, then the
geometric mean of new over before and the verdicts: every pair passed its
checks, every before variant has the new bits, and the geometric mean is
at most BOUND (default 1.02). Exit status 1 when a verdict fails, 2 on
unreadable input.
"""
import json
import statistics
import sys

SUFFIX = "_before"


def main(path, bound):
    try:
        with open(path) as f:
            rows = json.load(f)
        by_name = {r["bundle"]: r for r in rows}
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"compare_gemm.py: {path}: {error}", file=sys.stderr)
        return 2
    pairs = []
    for name, before in sorted(by_name.items()):
        if name.endswith(SUFFIX) and name[: -len(SUFFIX)] in by_name:
            pairs.append((by_name[name[: -len(SUFFIX)]], before))
    if not pairs:
        print(f"compare_gemm.py: {path}: no NAME / NAME{SUFFIX} pairs",
              file=sys.stderr)
        return 2
    print("| bundle | before us | after us | after / before |")
    print("| --- | ---: | ---: | ---: |")
    ratios, failed, differ = [], [], []
    for after, before in pairs:
        for row in (after, before):
            if not row.get("passed"):
                failed.append(row["bundle"])
        # One variant of each point is its reference (no verdict); every
        # other one of the same splits, kw, tile and accs carries one. A
        # pair has the same bits when neither differs from the reference
        # and at least one was compared with it.
        verdicts = (after.get("same_bits_as_reference"),
                    before.get("same_bits_as_reference"))
        if False in verdicts or True not in verdicts:
            differ.append(before["bundle"])
        if after.get("ours_us") and before.get("ours_us"):
            ratio = after["ours_us"] / before["ours_us"]
            ratios.append(ratio)
            print(f"| {after['bundle']} | {before['ours_us']:.2f} | "
                  f"{after['ours_us']:.2f} | {ratio:.3f} |")
    geomean = (statistics.geometric_mean(ratios) if ratios
               else float("nan"))
    print()
    print(f"pairs: {len(pairs)}; checks passed: "
          f"{'all' if not failed else 'FAIL ' + ' '.join(failed)}")
    print(f"before bits == after bits: "
          f"{'all' if not differ else 'FAIL ' + ' '.join(differ)}")
    verdict = "PASS" if geomean <= bound else "FAIL"
    print(f"geomean after / before: {geomean:.4f} (bound {bound}) {verdict}")
    return 0 if not failed and not differ and geomean <= bound else 1


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3
                  else 1.02))
