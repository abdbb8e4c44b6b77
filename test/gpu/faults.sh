#!/usr/bin/env bash
#===- test/gpu/faults.sh - The fault matrix and the soak, one H200 -------===#
#
# On the GPU machine, after test/gpu/prepare_faults.sh here (carry `bundles`
# and `third_party_cache` there). Builds lamport-run without MLIR
# (build-gpu/), then, all ranks on the one GPU (loopback, tp from each
# bundle's manifest: 8):
#   faults  for every bundle of bundles/faults (the all-reduce example, the
#           fused attention boundary, the boundary alone), each fault of
#           lamport-run's matrix, every run under `timeout` (a hang is
#           reported as HANG, never waited out):
#             late-less    rank R publishes LATE_LESS_NS late (default a
#                          fifth of the timeout): the group completes and
#                          the check passes (exit 0);
#             late-more    LATE_MORE_NS late (default 3 timeouts): the
#                          others trap naming slot R, exit 1, within the
#                          timeout plus MARGIN_S of the start;
#             wrong-stage  rank 1 one stage ahead: a trap naming stage 0
#                          and slot 1 (or rank 1 in stage 1), exit 1, in time;
#             corrupt      one BF16 of rank R's published input altered
#                          after the reference: the check names row and
#                          column, exit 1 (exit 2, refused, for a bundle
#                          whose publishes compute their rows: gemm_publish);
#             skip-publish rank R never publishes (the baseline);
#           and the trap faults again with --timeout-check, which must
#           PASS: every record is one the fault causes, each poll trapped
#           within 1% + 1 ms of its timeout and the failure reached the
#           host within the timeout plus 1 s + 25%.
#   soak    SOAK_STEPS (10,000,000) graph-replayed publish/poll steps of
#           bundles/faults/publish_poll_tp8, tp 8, --tokens all (m cycling
#           1..16 with every generation), every step's output compared on
#           the GPU with its expected bytes (input sets differ from step to
#           step, so a lost row leaves poison and a stale row another set's
#           data): runs of SOAK_CHUNK steps (2,000,000), each with its own
#           seed, until SOAK_STEPS or SOAK_BUDGET_S (540 s, counted from
#           the start of this call, build included);
#           prints steps, failures, time and steps/s. A call that runs out
#           of budget says so and exits 3; SOAK_FROM=K continues at run K
#           in another call, the earlier runs' lines kept in
#           build-gpu/soak.tsv, and the totals count them all.
# Prints a short table last; with $OUT set, summary.txt and results.tar.gz
# (every log and JSON report) go there.
#
#   bash test/gpu/prepare_faults.sh        (here, with MLIR)
#   PHASE=faults bash test/gpu/faults.sh   (there)
#   PHASE=soak bash test/gpu/faults.sh     (there, a call of its own)
#
# Environment: PHASE (all, faults or soak), TIMEOUT_S (1: the polls'
# timeout the bundles were compiled with), MARGIN_S (10), HANG_S (60: the
# wall-clock bound of one fault run), LATE_LESS_NS, LATE_MORE_NS, SOAK_*,
# BUILD_DIR (build-gpu), BUNDLES_DIR (bundles/faults), SKIP_BUILD=1 with
# RUN=path/to/lamport-run (an existing build: how the script is exercised
# over the fake driver).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# NVLink multicast stays off on these machines, for everything we start.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-$root/build-gpu}
bundles=${BUNDLES_DIR:-$root/bundles/faults}
out=$build/faults-results
phase=${PHASE:-all}
timeout_s=${TIMEOUT_S:-1}
margin_s=${MARGIN_S:-10}
hang_s=${HANG_S:-60}
timeout_ns=$(python3 -c "print(int($timeout_s * 1e9))")
late_less_ns=${LATE_LESS_NS:-$((timeout_ns / 5))}
late_more_ns=${LATE_MORE_NS:-$((timeout_ns * 3))}
soak_steps=${SOAK_STEPS:-10000000}
soak_chunk=${SOAK_CHUNK:-2000000}
soak_budget=${SOAK_BUDGET_S:-540}
soak_from=${SOAK_FROM:-0}
soak_bundle=${SOAK_BUNDLE:-$bundles/publish_poll_tp8}
soak_state=$build/soak.tsv
case $phase in all | faults | soak) ;; *)
  echo "faults.sh: PHASE must be all, faults or soak, got '$phase'"
  exit 2
  ;;
esac
mkdir -p "$build"
rm -rf "$out" && mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
failures=0
partial=0
note() { printf '%-13s %-26s %-7s %-9s %s\n' "$@" >>"$summary"; }
note fault bundle verdict wall observed

if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total \
    --format=csv,noheader 2>&1 | tee "$out/device.txt" || true
fi

if [ -n "${SKIP_BUILD:-}" ]; then
  run=${RUN:?SKIP_BUILD needs RUN=path/to/lamport-run}
else
  echo "== build (runtime only, no MLIR)"
  source "$root/test/gpu/build_runtime.sh"
  build_runtime faults.sh "$build" "$out/build.log" lamport-run || exit 2
  run=$build/bin/lamport-run
fi

# The tp of a bundle, from its manifest.
tp_of() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["mailboxes"][0]["tp"])' \
    "$1/manifest.json"
}

# The line of a log that says most about its outcome: the timeout check's
# verdict, a timeout record (rank, stage, slot), the error, the fault's
# completion.
first_of() {
  local pattern
  for pattern in 'timeout check' 'timed out polling' 'error:' \
    'fault .*completed'; do
    if grep -q -E "$pattern" "$1"; then
      grep -m1 -E "$pattern" "$1" | sed 's/^ *//; s/^lamport-run: //' |
        cut -c1-160
      return
    fi
  done
}

# fault NAME BUNDLE EXPECT PATTERN ARGS...: one lamport-run under `timeout`.
# EXPECT is the exit code that passes (0, 1 or 2), PATTERN an extended
# regular expression its output must hold; a run that fails is also bounded
# by the timeout plus the margin. Records one line of the table.
fault() {
  local what=$1 bundle=$2 expect=$3 pattern=$4
  shift 4
  local name log start rc wall verdict observed
  name=$(basename "$bundle")
  log=$out/${name}_$what.log
  echo "-- $what: $name $*"
  start=$(date +%s.%N)
  rc=0
  timeout -k 5 "$hang_s" "$run" "$bundle" "$@" >"$log" 2>&1 || rc=$?
  wall=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
  observed="exit $rc: $(first_of "$log")"
  verdict=PASS
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    verdict=HANG
    observed="no exit within $hang_s s"
  elif [ "$rc" != "$expect" ]; then
    verdict=FAIL
  elif ! grep -q -E "$pattern" "$log"; then
    verdict=FAIL
    observed="$observed (missing: $pattern)"
  elif [ "$rc" != 0 ] && python3 -c \
    "import sys; sys.exit(0 if $wall > $timeout_s + $margin_s else 1)"; then
    verdict=SLOW
  fi
  [ "$verdict" = PASS ] || failures=$((failures + 1))
  note "$what" "$name" "$verdict" "${wall} s" "$observed"
  grep -E 'error|timed out|timeout check|fault' "$log" | head -6 || true
}

if [ "$phase" != soak ]; then
  echo "== faults (timeout ${timeout_s} s, margin ${margin_s} s)"
  found=0
  for bundle in "$bundles"/*/; do
    bundle=${bundle%/}
    [ -f "$bundle/manifest.json" ] || continue
    [ "$bundle" = "${soak_bundle%/}" ] && continue
    found=1
    tp=$(tp_of "$bundle")
    r=$((tp - 1))
    common=(--tp "$tp" --transport loopback --tokens 4 --steps 8 --batch 4
      --graph --check)
    fault late-less "$bundle" 0 'fault late-publish.*the check passed' \
      "${common[@]}" --fault "late-publish:rank=$r:ns=$late_less_ns"
    fault late-more "$bundle" 1 \
      "timed out polling .*slot $r \\(data of rank $r never came\\)" \
      "${common[@]}" --fault "late-publish:rank=$r:ns=$late_more_ns"
    fault late-check "$bundle" 0 'timeout check: PASS' \
      "${common[@]}" --fault "late-publish:rank=$r:ns=$late_more_ns" \
      --timeout-check
    fault wrong-stage "$bundle" 1 \
      "stage 0, slot 1 \\(data of rank 1 never came\\)|rank 1 timed out polling .*: stage 1, slot" \
      "${common[@]}" --fault wrong-stage:rank=1
    fault stage-check "$bundle" 0 'timeout check: PASS' \
      "${common[@]}" --fault wrong-stage:rank=1 --timeout-check
    fault skip-check "$bundle" 0 'timeout check: PASS' \
      "${common[@]}" --skip-publish "$r" --timeout-check
    # A gemm_publish publishes rows it computes: no one input value is one
    # published value, and lamport-run refuses the fault before the GPU.
    if grep -q '"gemm_publish"' "$bundle/manifest.json"; then
      fault corrupt "$bundle" 2 'publishes rows it computes' \
        "${common[@]}" --fault "corrupt:rank=$r:row=2:col=17"
    else
      fault corrupt "$bundle" 1 \
        'wrong result: .*\[(slot [0-9]+, )?row 2, column 17\]' \
        "${common[@]}" --fault "corrupt:rank=$r:row=2:col=17"
    fi
  done
  if [ "$found" = 0 ]; then
    echo "faults.sh: no bundle in $bundles (run test/gpu/prepare_faults.sh)"
    exit 2
  fi
fi

if [ "$phase" != faults ]; then
  echo "== soak: $soak_steps steps of $(basename "$soak_bundle")"
  [ -f "$soak_bundle/manifest.json" ] ||
    { echo "faults.sh: no soak bundle $soak_bundle"; exit 2; }
  tp=$(tp_of "$soak_bundle")
  chunks=$(((soak_steps + soak_chunk - 1) / soak_chunk))
  # A new soak starts an empty state; a continued one drops the runs it
  # repeats.
  touch "$soak_state"
  awk -F'\t' -v from="$soak_from" '$1 < from' "$soak_state" >"$soak_state.new"
  mv "$soak_state.new" "$soak_state"
  last=0
  k=$soak_from
  while [ "$k" -lt "$chunks" ]; do
    steps=$((soak_steps - k * soak_chunk < soak_chunk ? soak_steps - k * soak_chunk : soak_chunk))
    # The budget counts from the start of this call, build included.
    left=$((soak_budget - SECONDS))
    if [ "$left" -lt 1 ] ||
      { [ "$k" -gt "$soak_from" ] && [ "$left" -lt $((last + last / 10 + 5)) ]; }; then
      echo "soak: the budget of $soak_budget s leaves too little for run $k;" \
        "continue in another call with PHASE=soak SOAK_FROM=$k"
      note soak "runs $soak_from..$((k - 1))" PARTIAL "" \
        "continue with PHASE=soak SOAK_FROM=$k"
      break
    fi
    json=$out/soak_$k.json
    log=$out/soak_$k.log
    echo "-- soak run $k: $steps steps, seed $((1000 + k))"
    start=$SECONDS
    rc=0
    timeout -k 5 "$left" "$run" "$soak_bundle" --tp "$tp" --transport loopback \
      --tokens all --steps "$steps" --graph --check --steps-per-check 6400 \
      --seed $((1000 + k)) --json "$json" >"$log" 2>&1 || rc=$?
    last=$((SECONDS - start))
    tail -3 "$log"
    checked=$(python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1])).get("steps_checked", 0))
except Exception:
    print(0)' "$json")
    fail=0
    [ "$rc" = 0 ] || fail=1
    printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$checked" "$fail" "$last" "$rc" >>"$soak_state"
    if [ "$fail" != 0 ]; then
      failures=$((failures + 1))
      if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        note soak "run $k" TIMEOUT "$last s" \
          "killed at the end of the budget; lower SOAK_CHUNK"
      else
        note soak "run $k" FAIL "$last s" \
          "exit $rc: $(grep -m1 -E 'error:' "$log" | cut -c1-150 || true)"
      fi
      break
    fi
    k=$((k + 1))
  done
  # Totals over every run of this soak (earlier calls' included).
  read -r total_steps total_fail total_s runs < <(awk -F'\t' \
    '{ s += $2; f += $3; t += $4; n += 1 } END { print s + 0, f + 0, t + 0, n + 0 }' \
    "$soak_state")
  rate=$(python3 -c "print(f'{$total_steps / max($total_s, 1):.0f}')")
  verdict=PASS
  [ "$total_steps" -ge "$soak_steps" ] || verdict=PARTIAL
  [ "$total_fail" = 0 ] || verdict=FAIL
  note soak "$(basename "$soak_bundle")" "$verdict" "$total_s s" \
    "$total_steps steps checked on the GPU in $runs run(s), $total_fail failure(s), $rate steps/s"
  echo "soak: $total_steps steps, $total_fail failure(s), $total_s s, $rate steps/s"
  if [ "$verdict" = PARTIAL ] && [ "$total_fail" = 0 ]; then
    echo "soak: $total_steps of $soak_steps steps so far"
    partial=1
  fi
fi

if [ -n "${OUT:-}" ]; then
  cp "$summary" "$OUT/summary.txt"
  cp "$soak_state" "$OUT/soak.tsv" 2>/dev/null || true
  tar -czf "$OUT/results.tar.gz" -C "$build" faults-results
fi
echo
echo "== summary ($failures failure(s)); logs in $out${OUT:+, copied to \$OUT}"
cat "$summary"
[ "$failures" -eq 0 ] || exit 1
# A soak that has not reached SOAK_STEPS yet is not done.
[ "$partial" -eq 0 ] || exit 3
