#!/usr/bin/env bash
#===- test/gpu/ptx_only.sh - Bundles without cubins on a real driver -----===#
#
# `lamport-compile --cubins=false` writes the PTX alone; the runtime has the
# driver JIT-compile it at load. On one GPU, over the bundles of
# test/gpu/prepare_ptx_only.sh:
#   checks     test/gpu/run.sh's every-m, graph, rotation and trap checks
#              over bundles/ptx_only (ROTATION_STEPS, default 20000);
#   image      every report of those checks names the image the driver
#              took: "PTX (driver JIT)", never "cubin";
#   boundary   the tp 8 attention boundary from its PTX, every token count,
#              graph-replayed and checked;
#   timing     that boundary from its cubins and from its PTX, alternating,
#              m 1 and 16 (the JIT's code runs as fast as ptxas's, or says
#              how much slower).
# Prints a short table last; where $OUT is set, summary.txt goes there.
#
#   bash test/gpu/prepare_ptx_only.sh    (here, with MLIR)
#   bash test/gpu/ptx_only.sh            (there, with bundles/ and
#                                         third_party_cache/)
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-$root/build-gpu}
ptx=$root/bundles/ptx_only
cubin=$root/bundles/cubin
steps=${BENCH_STEPS:-4000}
failures=0

# run.sh's own output (its log; its summary is printed below).
mkdir -p "$build"
echo "== test/gpu/run.sh over $ptx (log: $build/ptx_only_run.log)"
ROTATION_STEPS=${ROTATION_STEPS:-20000} SKIP_REFERENCE=1 SKIP_LATENCY=1 \
  BUNDLES_DIR=$ptx BUILD_DIR=$build bash "$root/test/gpu/run.sh" \
  >"$build/ptx_only_run.log" 2>&1 ||
  { failures=$((failures + 1)); tail -20 "$build/ptx_only_run.log"; }
results=$build/results
summary=$results/summary.txt
run=$build/bin/lamport-run
[ -x "$run" ] || { echo "ptx_only.sh: no $run"; exit 2; }

note() { printf '%-10s %-28s %-5s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

# Every JSON report of run.sh names its image.
images=$(python3 - "$results" <<'PY'
import collections, glob, json, sys
seen = collections.Counter()
for path in glob.glob(sys.argv[1] + "/*.json"):
    try:
        seen[json.load(open(path)).get("image", "(none)")] += 1
    except ValueError:
        seen["(unreadable)"] += 1
print(", ".join(f"{k}: {v}" for k, v in sorted(seen.items())))
PY
)
if [ -n "$images" ] && ! grep -qv 'PTX (driver JIT)' <<<"${images//, /$'\n'}"; then
  note image reports PASS "$images"
else
  note image reports FAIL "${images:-no report}"
  failures=$((failures + 1))
fi

boundary=attention_boundary_tp8
log=$results/${boundary}_ptx_check.log
if timeout 300 "$run" "$ptx/$boundary" --tp 8 --transport loopback \
  --tokens all --steps 20000 --graph --check \
  --json "$results/${boundary}_ptx_check.json" >"$log" 2>&1 &&
  grep -q 'PTX (driver JIT)' "$log"; then
  note boundary "$boundary (PTX)" PASS "$(head -1 "$log" | cut -c1-120)"
else
  note boundary "$boundary (PTX)" FAIL "$(grep -m1 -i error "$log" | cut -c1-160)"
  failures=$((failures + 1))
fi

# Timing: cubin and PTX alternate, two rounds, medians of each round.
table=$results/timing.md
echo "| m | round | cubin median us | PTX median us | PTX / cubin |" >"$table"
echo "|---:|---:|---:|---:|---:|" >>"$table"
for m in 1 16; do
  for round in 1 2; do
    declare -A median=()
    for image in cubin ptx; do
      dir=$cubin
      [ "$image" = ptx ] && dir=$ptx
      json=$results/bench_${image}_m${m}_r$round.json
      if ! timeout 120 "$run" "$dir/$boundary" --tp 8 --transport loopback \
        --tokens "$m" --steps "$steps" --batch 8 --graph --bench \
        --publish-barrier --json "$json" >"${json%.json}.log" 2>&1; then
        note timing "$image m$m" FAIL "$(grep -m1 -i error "${json%.json}.log" | cut -c1-160)"
        failures=$((failures + 1))
        continue
      fi
      median[$image]=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency_us"]["median"])' "$json")
    done
    python3 - "$m" "$round" "${median[cubin]:-nan}" "${median[ptx]:-nan}" >>"$table" <<'PY'
import sys
m, r, c, p = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
print(f"| {m} | {r} | {c:.2f} | {p:.2f} | {p / c:.3f}x |")
PY
    unset median
  done
done
note timing "$boundary" INFO "table: timing.md"
[ -n "${OUT:-}" ] && cp "$summary" "$table" "$OUT/" 2>/dev/null
echo
echo "== summary"
cat "$summary"
echo
cat "$table"
echo "failures: $failures"
[ "$failures" = 0 ]
