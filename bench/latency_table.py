#!/usr/bin/env python3
"""Turns lamport-run --json reports into the loopback round-trip table.

  latency_table.py REPORT.json... > table.md

One row per tp, one column per token count m: the median per-step time of
graph replays (a step is every rank's publish and consumer, forked from and
joined into one stream), in microseconds; p99 in a second table.
"""
import datetime
import json
import sys


def main(paths):
    cells = {}
    device = bundle = ""
    for path in paths:
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            print(f"latency_table.py: skipping {path}: {e}", file=sys.stderr)
            continue
        if r.get("status") != "pass":
            continue
        cells[(r["tp"], r["tokens"])] = r["latency_us"]
        device = r.get("device", device)
        bundle = r.get("program", bundle)
    if not cells:
        print("(no latency reports)")
        return 1
    tps = sorted({tp for tp, _ in cells})
    ms = sorted({m for _, m in cells if isinstance(m, int)})
    print(f"Loopback round trip per step, {bundle}, {device}, "
          f"{datetime.date.today().isoformat()}, CUDA graph replay (us):\n")
    for key in ("median", "p99"):
        print(f"{key} | " + " | ".join(f"m={m}" for m in ms))
        print("---|" + "|".join("---:" for _ in ms))
        for tp in tps:
            row = [cells.get((tp, m), {}).get(key) for m in ms]
            print(f"tp {tp} | " + " | ".join(
                f"{v:.2f}" if v is not None else "-" for v in row))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
