#!/usr/bin/env bash
#===- bench/run_boundary_ab.sh - Two compilers' boundaries side by side --===#
#
# Run on the GPU machine. Times the decode boundaries of
# test/gpu/prepare_boundary.sh (bundles/boundary) beside the same programs
# compiled by an earlier compiler (BEFORE_DIR, default
# bundles/boundary_before, the same bundle names), one GPU, loopback: the
# fused attention boundary and the boundary alone (reduce_norm_boundary) at
# tp 2, 4 and 8 and m 1 and 16, graph-replayed, with --publish-barrier as
# test/gpu/boundary.sh's bench (a point lamport-run refuses on one GPU, the
# boundary alone at tp 8 and m 16, is left out). Each point runs before,
# new, new, before (ROUNDS times) so drift falls on both; the table gives
# the median of each side's step medians, their range, and new over
# before. Every run checks its outputs.
#
#   bash test/gpu/prepare_boundary.sh            (here, new compiler)
#   (the earlier compiler's bundles in bundles/boundary_before)
#   bash bench/run_boundary_ab.sh                (there)
#
# Environment: STEPS (4000), ROUNDS (2), TPS ("2 4 8"), KINDS
# ("attention_boundary reduce_norm_boundary"), MS ("1 16"), AFTER_DIR
# (bundles/boundary; BEFORE_DIR again for a run of one compiler against
# itself, to see the noise).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
build=${BUILD_DIR:-$root/build-gpu}
before=${BEFORE_DIR:-$root/bundles/boundary_before}
after=${AFTER_DIR:-$root/bundles/boundary}
out=${OUT:-$build}/boundary_ab
rm -rf "$out" && mkdir -p "$out"
source "$root/test/gpu/build_runtime.sh"
build_runtime run_boundary_ab.sh "$build" "$out/build.log" lamport-run ||
  exit 2
failures=0
run=0 # numbers the JSON files: each round times each side twice
for tp in ${TPS:-2 4 8}; do
  for kind in ${KINDS:-attention_boundary reduce_norm_boundary}; do
    for m in ${MS:-1 16}; do
      for round in $(seq "${ROUNDS:-2}"); do
        for side in before after after before; do
          dir=$before
          [ "$side" = after ] && dir=$after
          run=$((run + 1))
          json=$out/${kind}_tp${tp}_m${m}_${side}_${round}_$run.json
          timeout 120 "$build/bin/lamport-run" "$dir/${kind}_tp$tp" \
            --tp "$tp" --transport loopback --tokens "$m" \
            --steps "${STEPS:-4000}" --batch 8 --graph --bench \
            --publish-barrier --json "$json" >"$json.log" 2>&1 && continue
          if grep -q "on one GPU (--transport loopback)" "$json.log"; then
            echo "left out: ${kind}_tp$tp m $m (lamport-run refuses it on one GPU)"
            continue 3
          fi
          failures=$((failures + 1))
          echo "FAIL $json.log"
          grep -m2 -i "error\|fail" "$json.log" | cut -c1-200
        done
      done
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, os, re, statistics, sys
runs = {}
for path in glob.glob(os.path.join(sys.argv[1], "*.json")):
    name = os.path.basename(path)
    key, side = re.match(r"(.*)_(before|after)_\d+_\d+\.json", name).groups()
    runs.setdefault(key, {}).setdefault(side, []).append(
        json.load(open(path))["latency_us"]["median"])
print("| boundary | m | before us | range | new us | range | new / before |")
print("|---|---:|---:|---|---:|---|---:|")
ratios = []
for key in sorted(runs, key=lambda k: (k.split("_m")[0], int(k.split("_m")[1]))):
    name, m = key.rsplit("_m", 1)
    before = runs[key].get("before", [float("nan")])
    after = runs[key].get("after", [float("nan")])
    b, a = statistics.median(before), statistics.median(after)
    ratios.append(a / b)
    print(f"| {name} | {m} | {b:.2f} | {min(before):.2f}-{max(before):.2f} "
          f"| {a:.2f} | {min(after):.2f}-{max(after):.2f} | {a / b:.3f} |")
print(f"\ngeometric mean new / before: "
      f"{statistics.geometric_mean(ratios):.3f} over {len(ratios)} points")
PY
echo "failures: $failures"
[ "$failures" = 0 ]
