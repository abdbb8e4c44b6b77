#!/usr/bin/env python3
"""Checks that the fused and the unfused attention boundary gave the same
bytes: their lamport-run --json reports (same seed, batch and token counts)
must carry equal, non-empty output_hashes for `out` and `stream`.

  same_outputs.py TP FUSED.json UNFUSED.json   >> summary.txt

Prints one summary line (PASS or FAIL and why) and exits 1 on FAIL. Used by
test/gpu/boundary.sh (loopback) and bench/run_boundary_peer.sh (peer).
"""
import json
import sys


def main(tp, fused_path, unfused_path):
    try:
        with open(fused_path) as f:
            fused = json.load(f)
        with open(unfused_path) as f:
            unfused = json.load(f)
        hf, hu = fused["output_hashes"], unfused["output_hashes"]
        bad = [k for k in ("out", "stream")
               if not hf.get(k) or hf.get(k) != hu.get(k)]
    except Exception as error:  # a missing report fails too
        bad = [f"no reports ({error})"]
    verdict = "FAIL" if bad else "PASS"
    detail = (f"differ: {bad}" if bad else
              "out and stream bytes identical, every batch position, m 1..16")
    print(f"{'same':<7} {'fused == unfused tp' + tp:<34} {verdict:<5} {detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: same_outputs.py TP FUSED.json UNFUSED.json")
    sys.exit(main(*sys.argv[1:]))
