#!/usr/bin/env python3
"""Prints the tactic-selection checks (docs/tactics.md, "Checks") from
bench/run_tactics.sh's reports.

  tactics_report.py SEED.json SET_DIR...
  tactics_report.py --explore EXPLORE.json SET_DIR...
  tactics_report.py [--repick LAMPORT_OPT [--timed-picks DIR]...]
                    [--stream STREAM.md] --summary SET_DIR...

The first table: the seed shapes, each point's bundle from the sm_90 table
(_table) and with the hand-written tactics (_hand) timed in one process;
the check is the geometric mean of the speedup over cuBLAS from the table
within 2% of the hand-written one's. The second (lamport-tune report): the
real-model shapes, the cost model's pick against the best candidate the
tuner timed (within 10% at every point) and the best over cuBLAS (1.5x in
geometric mean), for each SET_DIR (bundles/tactics/tune: the shapes the
model's figures were fitted to, fresh: held out from the fit, unseen: no
fit or choice between fits saw them, untabled: the sm_90 table has no
entry for them; SET_TITLES). Exit status 1 where a check fails. With --explore: each launch shape outside the sweep
against the best the sweep's candidates gave at its point (no check).
With --summary: each set's pick and the model's own first choice against
the tuned best; the tuned best over cuBLAS by M, and with each point at
its shape's time at the least M (what the set would reach were every M as
fast as that one); the misses of all sets but the last, and each point of
the last (docs/performance.md's tables). With --repick LAMPORT_OPT and
--summary: the pick and the model alone are those that lamport-opt's
lamport-select-tactics makes now (prior-only with the sm_90 table, and
no-table), each looked up among the set's measured candidates, rather
than those marked when the set was emitted; a point whose pick or model
alone was not measured is left out and counted, unless --timed-picks names
a directory of bench/untimed_picks.py that timed it beside the point's
fastest stored kernel (its time there is taken times that kernel's stored
time over its time there). With --stream, a table of
lamport-stream-floor at every weight size of the sets (`--mib` in MiB; a
missing size is named): the last column is the speedup over cuBLAS of
that kernel, which reads W once and does nothing else, at its best launch
shape under PDL, in geometric mean: the most any GEMM reading its weights
from device memory could reach in the harness. With its `--hold` table,
the same for the skeleton that holds W in registers across the wait and
reads one word after it (its 0-cycle chain): what a kernel that must keep
its weights until x arrives could reach.
"""
import argparse
import json
import os
import statistics
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from tune_module import tune


def geomean(values):
    return statistics.geometric_mean(values) if values else 0


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


def explore_report(path, directories):
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


# What each check set holds, by its directory's name under bundles/tactics
# (or that name and more, as runs are kept in bench/data).
SET_TITLES = {
    "tune": "fitted: the sixteen shapes the figures are fitted to",
    "fresh": "held out: Qwen3-32B, Gemma 2 27B",
    "unseen": "unseen by any fit: Mistral-Nemo 12B, Gemma 2 9B",
    "untabled": "not in the table: Yi-1.5-34B, Phi-3-medium, Command R",
}
# The untabled check's bounds: each pick within 10% of the tuned best, the
# tuned best 1.5x cuBLAS in geometric mean.
PICK_BOUND, SPEEDUP_BOUND = 1.10, 1.5
# The copy bandwidth of one H200, bytes per us: the floor of a GEMM is its
# weight bytes over it.
COPY_BYTES_PER_US = 4.25e6


def set_title(directory):
    """What the set in `directory` holds, by its name (or the name)."""
    name = os.path.basename(os.path.normpath(directory))
    return SET_TITLES.get(name.split("_")[0], name)


TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "data", "tactics", "sm_90.json")


def repicked(opt, key):
    """(pick, model alone) that `opt`'s lamport-select-tactics makes for a
    point: prior-only with the sm_90 table, and no-table."""
    shape, n, k, m, _ = key
    text = tune.program(shape, n, k, m)
    pick, _ = tune.select(opt, text, f"chip=sm_90 prior-only "
                          f"tactic-table={TABLE}")
    alone, _ = tune.select(opt, text, "chip=sm_90 no-table")
    return pick, alone


def plain_points(directory):
    """(keys, points) of a set: its plain (non-publishing) points' keys in
    report order, and every point's records (tune.load_points)."""
    _, points = tune.load_points(directory)
    keys = [key for key in sorted(points, key=lambda k: (k[0], k[3]))
            if not key[4]]
    return keys, points


def repicked_all(opt, keys):
    """{key: repicked(opt, key)} for every key, on every core."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(keys, pool.map(lambda key: repicked(opt, key), keys)))


def timed_elsewhere(timed, key, knobs, best):
    """The record of tactic `knobs` at point `key` from the untimed picks'
    runs `timed` ({key: records}), its time scaled by the point's fastest
    stored kernel `best` over that kernel's time in the same run; None
    where that run did not time both."""
    records = tune.passing_of(timed.get(key, []))
    found = next((r for r in records if r["tactic"] == knobs), None)
    anchor = next((r for r in records if r["tactic"] == best["tactic"]), None)
    if not found or not anchor:
        return None
    return dict(found, us=found["us"] * best["us"] / anchor["us"],
                cublas_us=best["cublas_us"])


def picks(directory, opt=None, timed=None):
    """([(key, pick, model alone, best)], points left out) of a set's plain
    points: the pass's pick (model_pick, or `opt`'s now), the model's own
    first choice (model_rank 0, or `opt`'s no-table pick now) and the
    fastest passing candidate; a pick `opt` makes that the set did not
    time is looked up in `timed` (timed_elsewhere)."""
    keys, points = plain_points(directory)
    chosen = repicked_all(opt, keys) if opt else {}
    out, left_out = [], 0
    for key in keys:
        records = points[key]
        best = tune.best_of(records)
        if opt:
            pick_knobs, alone_knobs = chosen[key]
            pick = next((r for r in records if r["tactic"] == pick_knobs),
                        None)
            alone = next((r for r in records if r["tactic"] == alone_knobs),
                         None)
            if best and timed:
                pick = pick or timed_elsewhere(timed, key, pick_knobs, best)
                alone = alone or timed_elsewhere(timed, key, alone_knobs,
                                                 best)
        else:
            pick = next((r for r in records if r["model_pick"]), None)
            alone = next((r for r in records if r["model_rank"] == 0), None)
        if best and pick and alone and pick["passed"] and alone["passed"]:
            out.append((key, pick, alone, best))
        else:
            left_out += 1
    return out, left_out


def stream_times(path):
    """({W in MiB as printed: the best time}, held) of lamport-stream-floor's
    table in `path`: the stream's best under PDL, or with `--hold` (held
    True) the skeleton's best with no chain after its weights (0 cycles);
    the best row of a size is the one that prints the floor."""
    times, held = {}, False
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6:
            continue
        if cells[0] == "W MiB":
            held = cells[2] == "chain cycles"
        elif cells[1] and cells[2] == ("0" if held else "yes"):
            times[cells[0]] = float(cells[3])
    return times, held


def mib_text(n, k):
    """An N x K BF16 weight's size in MiB, as lamport-stream-floor prints it."""
    return f"{2 * n * k / 2**20:g}"


def by_tokens(sets, directories):
    """Per set: the tuned best over cuBLAS at each M (geometric mean), and
    every point taken at its shape's tuned best at the least M timed: a
    bound on the set's mean while no point runs faster than at that M,
    with the points that do."""
    tokens = sorted({k[3] for _, rows in sets for k, *_ in rows})
    print("\nThe tuned best over cuBLAS by M (geometric mean), and with each "
          "point at its shape's best time at its least M (the most the set "
          "reaches while no point runs faster than at that M):\n")
    print("| set | " + " | ".join(f"M = {m}" for m in tokens) +
          " | each point at its shape's least M | points faster than there |")
    print("|---|" + "---:|" * (len(tokens) + 2))
    for (name, rows), directory in zip(sets, directories):
        if not rows:
            continue
        least = {}
        for k, _, _, b in rows:
            if k[0] not in least or k[3] < least[k[0]][0]:
                least[k[0]] = (k[3], b["us"])
        cells = []
        for m in tokens:
            speedup = [b["cublas_us"] / b["us"] for k, _, _, b in rows
                       if k[3] == m]
            cells.append(f"{geomean(speedup):.3f}x" if speedup else "-")
        bound = [b["cublas_us"] / least[k[0]][1] for k, _, _, b in rows]
        faster = sum(b["us"] < least[k[0]][1] for k, _, _, b in rows)
        print(f"| {set_title(directory)} | " + " | ".join(cells) +
              f" | {geomean(bound):.3f}x | {faster} |")


def summary(directories, opt=None, stream=None, timed_dirs=()):
    """Per set: the pick and the model alone against the tuned best, the
    best over cuBLAS and cuBLAS over the copy floor (with `stream`, the
    speedup over cuBLAS of a kernel that only reads W); then the points
    where either misses 10%, and each point of the last set."""
    sets, left_out = [], {}
    timed = {}
    for d in timed_dirs:
        for key, records in tune.load_points(d)[1].items():
            timed.setdefault(key, []).extend(records)
    for d in directories:
        rows, left = picks(d, opt, timed)
        sets.append((os.path.basename(os.path.normpath(d)), rows))
        left_out[sets[-1][0]] = left
    streamed, held = stream_times(stream) if stream else (None, False)
    if streamed is not None:
        missing = sorted({mib_text(k[1], k[2]) for _, rows in sets
                          for k, *_ in rows} - set(streamed), key=float)
        if missing:
            sys.exit(f"{stream} has no best time "
                     f"{'at 0 chain cycles' if held else 'under PDL'} for "
                     f"{len(missing)} weight sizes: run lamport-stream-floor "
                     f"{'--hold ' if held else ''}"
                     f"--mib {','.join(missing)}")
    print("| set | shapes | points | pick within 10% | worst pick / best | "
          "geomean pick / best | model alone within 10% | worst | geomean | "
          "best over cuBLAS | cuBLAS over the copy floor |" +
          ((" cuBLAS over W held across the wait |" if held else
            " cuBLAS over W read alone |") if streamed is not None else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" +
          ("---:|" if streamed is not None else ""))
    for (name, rows), directory in zip(sets, directories):
        if not rows:
            print(f"| {set_title(directory)} | (no passing point) |")
            continue
        pick = [p["us"] / b["us"] for _, p, _, b in rows]
        alone = [a["us"] / b["us"] for _, _, a, b in rows]
        speedup = [b["cublas_us"] / b["us"] for _, _, _, b in rows]
        ceiling = [b["cublas_us"] / (2.0 * k[1] * k[2] / COPY_BYTES_PER_US)
                   for k, _, _, b in rows]
        stream_column = ""
        if streamed is not None:
            alone_speedup = [b["cublas_us"] / streamed[mib_text(k[1], k[2])]
                             for k, _, _, b in rows]
            stream_column = f" {geomean(alone_speedup):.3f}x |"
        print(f"| {set_title(directory)} | "
              f"{len({k[0] for k, *_ in rows})} | {len(rows)} | "
              f"{sum(r <= PICK_BOUND for r in pick)} | {max(pick):.3f} | "
              f"{geomean(pick):.3f} | "
              f"{sum(r <= PICK_BOUND for r in alone)} | "
              f"{max(alone):.3f} | {geomean(alone):.3f} | "
              f"{geomean(speedup):.3f}x | {geomean(ceiling):.2f}x |"
              f"{stream_column}")
    by_tokens(sets, directories)
    for name, left in left_out.items():
        if left:
            print(f"\n{name}: {left} points left out (the pick or the model "
                  "alone not measured, or failing)")
    print("\nThe points where the pick or the model alone misses 10%:\n")
    print("| set | shape | N x K | M | pick | pick / best | model alone / best "
          "| best (tuned) | best us |")
    print("|---|---|---|---:|---|---:|---:|---|---:|")
    for name, rows in sets[:-1]:
        for key, pick, alone, best in rows:
            if max(pick["us"], alone["us"]) > PICK_BOUND * best["us"]:
                print(f"| {name} | {key[0]} | {key[1]} x {key[2]} | {key[3]} | "
                      f"{tune.tactic_name(pick['tactic'])} | "
                      f"{pick['us'] / best['us']:.3f} | "
                      f"{alone['us'] / best['us']:.3f} | "
                      f"{tune.tactic_name(best['tactic'])} | {best['us']:.2f} |")
    name, rows = sets[-1]
    print(f"\nEach point of {name}:\n")
    print("| shape | N x K | M | pick | us | model alone | us | best (tuned) | "
          "best us | pick / best | alone / best | cuBLAS us | best speedup |")
    print("|---|---|---:|---|---:|---|---:|---|---:|---:|---:|---:|---:|")
    for key, pick, alone, best in rows:
        print(f"| {key[0]} | {key[1]} x {key[2]} | {key[3]} | "
              f"{tune.tactic_name(pick['tactic'])} | {pick['us']:.2f} | "
              f"{tune.tactic_name(alone['tactic'])} | {alone['us']:.2f} | "
              f"{tune.tactic_name(best['tactic'])} | {best['us']:.2f} | "
              f"{pick['us'] / best['us']:.3f} | {alone['us'] / best['us']:.3f} "
              f"| {best['cublas_us']:.2f} | "
              f"{best['cublas_us'] / best['us']:.2f} |")


def main(argv):
    description, forms, details = __doc__.split("\n\n", 2)
    # The three forms, each line under the first aligned with it.
    usage = textwrap.dedent(forms).replace("tactics_report.py", "%(prog)s")
    parser = argparse.ArgumentParser(
        description=description, epilog=details,
        usage=usage.replace("\n", "\n       "),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--explore", metavar="EXPLORE.json",
                        help="each launch shape outside the sweep")
    parser.add_argument("--summary", action="store_true",
                        help="each set's pick and model against the best")
    parser.add_argument("--repick", metavar="LAMPORT_OPT",
                        help="with --summary, the picks lamport-opt makes now")
    parser.add_argument("--timed-picks", metavar="DIR", action="append",
                        default=[], help="with --repick, the runs of "
                        "bench/untimed_picks.py")
    parser.add_argument("--stream", metavar="STREAM.md",
                        help="with --summary, lamport-stream-floor's table")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="SEED.json (without --explore or --summary), "
                        "then SET_DIR...")
    args = parser.parse_args(argv)
    if args.explore and args.summary:
        parser.error("--explore and --summary are two reports: give one")
    if (args.repick or args.stream) and not args.summary:
        parser.error("--repick and --stream go with --summary")
    if args.timed_picks and not args.repick:
        parser.error("--timed-picks goes with --repick")
    if args.explore:
        explore_report(args.explore, args.paths)
        print()
        return 0
    if args.summary:
        summary(args.paths, args.repick, args.stream, args.timed_picks)
        print()
        return 0
    if len(args.paths) < 2:
        parser.error("give SEED.json and at least one SET_DIR")
    seed_ok = seed_check(args.paths[0])
    print()
    verdicts = []
    for directory in args.paths[1:]:
        print(f"\n{set_title(directory)} "
              f"({os.path.basename(os.path.normpath(directory))}):\n")
        verdicts.append(tune.report(SimpleNamespace(
            output=directory, max_pick_ratio=PICK_BOUND,
            min_speedup=SPEEDUP_BOUND)) == 0)
    print(f"\nchecks: seed from the table {'PASS' if seed_ok else 'FAIL'}, "
          "cost model and tuner " +
          ", ".join('PASS' if ok else 'FAIL' for ok in verdicts))
    return 0 if seed_ok and all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
