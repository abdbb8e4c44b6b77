#!/usr/bin/env bash
#===- test/gpu/run.sh - The runtime's GPU checks, one H200 ---------------===#
#
# Builds the runtime alone (no MLIR) in build-gpu/, builds reference bundles
# from test/gpu/reference (nvcc), then for every bundle in bundles/ (compiled
# by lamport-compile where MLIR is, carried here) and every reference bundle:
#   every m    every token count 1..capacity, every rank, bit for bit, with
#              every generation (48 host-checked steps, --tokens all);
#   graph      a captured batch replays the eager batch's bytes exactly;
#   rotation   ROTATION_STEPS consecutive graph-replayed steps, every output
#              of every step compared on the GPU (step-dependent data);
#   trap       one rank skips its publish: the others must trap within the
#              timeout plus a margin and lamport-run must name rank, mailbox,
#              stage and slot (--timeout-check);
# and the loopback round-trip latency table for tp 2, 4, 8 and m 1..16.
# Prints a short table last; logs and JSON reports go to build-gpu/results,
# and, where $OUT is set, three files go there (few, so that they are easy
# to copy back): summary.txt, latency.md and results.tar.gz (every log and
# JSON report).
#
#   bash test/gpu/prepare.sh        (here, with MLIR: bundles/, third_party_cache/)
#   bash test/gpu/run.sh            (there, with bundles/ and third_party_cache/)
#
# Environment: ROTATION_STEPS (default 1000000 for the compiled tp = 8
# publish/poll bundle, 100000 for the others), LATENCY_STEPS (6400),
# SKIP_REFERENCE=1,
# SKIP_LATENCY=1, BUILD_DIR (build-gpu), BUNDLES_DIR (bundles).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# NVLink multicast stays off on these machines, for everything we start.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-$root/build-gpu}
bundles_dir=${BUNDLES_DIR:-$root/bundles}
out=$build/results
rm -rf "$out"
mkdir -p "$out"
rotation_compiled=${ROTATION_STEPS:-1000000}
rotation_reference=${ROTATION_STEPS:-100000}
latency_steps=${LATENCY_STEPS:-6400}
summary=$out/summary.txt
: >"$summary"
failures=0

note() { printf '%-10s %-28s %-5s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  2>&1 | tee "$out/device.txt"

echo "== build (runtime only, no MLIR)"
if [ ! -e "$root/third_party_cache/nlohmann/json.hpp" ] &&
  [ ! -e /usr/include/nlohmann/json.hpp ]; then
  echo "run.sh: no nlohmann/json: copy /usr/include/nlohmann to" \
    "third_party_cache/nlohmann and copy third_party_cache to the GPU machine"
  exit 2
fi
source "$root/test/gpu/build_runtime.sh"
build_runtime run.sh "$build" "$out/build.log" lamport-run || exit 2
run=$build/bin/lamport-run
if [ -x "$build/bin/LamportRuntimeTests" ]; then
  "$build/bin/LamportRuntimeTests" >"$out/unit.log" 2>&1 &&
    note unit all PASS "runtime unit tests" ||
    { note unit all FAIL "see unit.log"; failures=$((failures + 1)); }
fi

# Bundles: reference ones built here, then whatever bundles/ holds.
bundles=()
if [ -z "${SKIP_REFERENCE:-}" ]; then
  echo "== reference bundles (nvcc)"
  ref=$build/reference
  rm -rf "$ref" && mkdir -p "$ref"
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  pids=()
  for tp in 2 4 8; do
    python3 "$root/test/gpu/reference/make_bundle.py" --out \
      "$ref/ref_publish_poll_tp$tp" --tp $tp --consumer poll_rows --nvcc "$nvcc" \
      >"$out/ref_pp$tp.log" 2>&1 &
    pids+=($!)
  done
  python3 "$root/test/gpu/reference/make_bundle.py" --out \
    "$ref/ref_all_reduce_tp8" --tp 8 --consumer all_reduce --nvcc "$nvcc" \
    >"$out/ref_ar8.log" 2>&1 &
  pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || echo "a reference bundle failed"; done
  for b in "$ref"/*/; do [ -f "$b/manifest.json" ] && bundles+=("${b%/}"); done
fi
for b in "$bundles_dir"/*/; do
  [ -f "$b/manifest.json" ] && bundles+=("${b%/}")
done
if [ ${#bundles[@]} -eq 0 ]; then
  echo "run.sh: no bundle to run (bundles/*/manifest.json)"
  exit 2
fi

# tp, capacity and consumer op of a bundle, from its manifest.
describe() {
  python3 - "$1/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
mb = m["mailboxes"][0]
ops = [k["op"] for k in m["kernels"] if k["op"] != "publish_rows"]
print(mb["tp"], mb["capacity"], ops[0] if ops else "none")
PY
}

# check NAME BUNDLE LIMIT_S ARGS...: runs lamport-run, records PASS/FAIL.
# A failure is retried once with a fallback that tells its cause apart:
# --no-pdl when graph capture refused the launches, --publish-barrier when
# polls timed out (loopback SM starvation: pollers of all ranks filling the
# GPU while a publisher waits for an SM). The check still counts as failed.
check() {
  local what=$1 bundle=$2 limit=$3
  shift 3
  local name
  name=$(basename "$bundle")
  local log="$out/${name}_$what.log"
  echo "-- $what: $name $*"
  local start=$SECONDS
  if timeout "$limit" "$run" "$bundle" "$@" >"$log" 2>&1; then
    note "$what" "$name" PASS "[$((SECONDS - start)) s] $(grep -E '^  [0-9]' "$log" | tail -1 |
      sed 's/  */ /g' | cut -c1-130)$(grep -h 'timeout check' "$log")"
  else
    local rc=$?
    failures=$((failures + 1))
    note "$what" "$name" FAIL "[$((SECONDS - start)) s] exit $rc: $(grep -m1 'error' "$log" | cut -c1-160)"
    local fallback=""
    if grep -q 'capturing\|instantiating' "$log"; then
      fallback=--no-pdl
    elif [ "$what" != trap ] && grep -q 'timed out polling' "$log"; then
      fallback=--publish-barrier
    fi
    if [ -n "$fallback" ]; then
      if timeout "$limit" "$run" "$bundle" "$@" $fallback \
        >"$out/${name}_${what}_retry.log" 2>&1; then
        note "" "" "" "... but PASSES with $fallback"
      else
        note "" "" "" "... and fails with $fallback too"
      fi
    fi
  fi
  tail -4 "$log"
}

for bundle in "${bundles[@]}"; do
  read -r tp capacity op < <(describe "$bundle")
  name=$(basename "$bundle")
  echo "== $name: tp $tp, capacity $capacity, consumer $op"
  steps=$((capacity * 3))
  check every_m "$bundle" 120 --tp "$tp" --transport loopback --tokens all \
    --steps $steps --batch $steps --check --json "$out/${name}_every_m.json"
  check graph "$bundle" 120 --tp "$tp" --transport loopback --tokens all \
    --steps $((2 * steps)) --batch $steps --graph --check \
    --json "$out/${name}_graph.json"
  # The long rotation on the compiled tp = 8 round trip; the rest rotate
  # 100,000 steps.
  rotation=$rotation_reference
  case $name in
  ref_*) ;;
  *) [ "$tp" = 8 ] && [ "$op" = poll_rows ] && rotation=$rotation_compiled ;;
  esac
  check rotation "$bundle" 300 --tp "$tp" --transport loopback \
    --tokens all --steps "$rotation" --graph --check \
    --json "$out/${name}_rotation.json"
  check trap "$bundle" 60 --tp "$tp" --transport loopback --tokens 4 \
    --steps 3 --skip-publish $((tp - 1)) --timeout-check
done

# Latency: the first publish/poll bundle of each tp (compiled first).
if [ -z "${SKIP_LATENCY:-}" ]; then
  echo "== loopback latency, tp 2/4/8, m 1..16"
  reports=()
  for tp in 2 4 8; do
    chosen=""
    for bundle in "${bundles[@]}"; do
      read -r btp capacity op < <(describe "$bundle")
      [ "$btp" = "$tp" ] && [ "$op" = poll_rows ] || continue
      case $(basename "$bundle") in
      ref_*) [ -z "$chosen" ] && chosen=$bundle ;;
      *) chosen=$bundle ;;
      esac
    done
    [ -n "$chosen" ] || continue
    read -r btp capacity op < <(describe "$chosen")
    for m in $(seq 1 $((capacity < 16 ? capacity : 16))); do
      json="$out/latency_tp${tp}_m$m.json"
      timeout 60 "$run" "$chosen" --tp "$tp" --transport loopback \
        --tokens "$m" --steps "$latency_steps" --batch 32 --graph --bench \
        --json "$json" >"$out/latency_tp${tp}_m$m.log" 2>&1 ||
        { failures=$((failures + 1)); note latency "tp$tp m$m" FAIL \
          "$(grep -m1 error "$out/latency_tp${tp}_m$m.log" | cut -c1-160)"; }
      reports+=("$json")
    done
  done
  python3 "$root/bench/latency_table.py" "${reports[@]}" >"$out/latency.md"
  cat "$out/latency.md"
fi

if [ -n "${OUT:-}" ]; then
  cp "$summary" "$OUT/summary.txt"
  [ -f "$out/latency.md" ] && cp "$out/latency.md" "$OUT/latency.md"
  tar -czf "$OUT/results.tar.gz" -C "$build" results
fi
echo
echo "== summary ($failures failure(s)); logs in $out${OUT:+, copied to \$OUT}"
cat "$summary"
[ "$failures" -eq 0 ]
