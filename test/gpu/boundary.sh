#!/usr/bin/env bash
#===- test/gpu/boundary.sh - Decode boundaries on one H200 ---------------===#
#
# On the GPU machine, after test/gpu/prepare_boundary.sh here (copy
# `bundles` and `third_party_cache` there). Builds the runtime, lamport-run and
# libLamportRuntimeC without MLIR (build-gpu/), then:
#   python    lamport.Runtime with PyTorch tensors (test/gpu/python_runtime.py);
#   check     every boundary bundle (fused, unfused, unpooler, the boundary
#             alone; at tp 4 also the unpooler with a GEMM in dynamic shared
#             memory), loopback, every m 1..16, eager then
#             graph-replayed, CHECK_STEPS steps (default 100000) with fresh
#             data per batch position, every output compared on the GPU;
#   pipelined the fused boundary and the boundary alone (one kernel that
#             publishes its partial, then all-reduces and norms) with each
#             rank's steps back to back (--pipelined), every step checked;
#   trap      one rank skips its publishing kernel (the fused boundary's
#             GEMM, the boundary alone's one kernel): the others trap within
#             the timeout and the diagnostic names the slot;
#   same      fused and unfused attention boundaries give the same bytes
#             (out and stream) for the same inputs (integer-valued partials:
#             the sum is exact, so the fused sum equals the unfused one);
#   bench     per-step latency (graph replay, median and p99) of the fused
#             and the unfused attention boundary, tp 2/4/8/16, m 1/4/16,
#             both with --publish-barrier: on one GPU every rank's kernels
#             share the SMs, and consumers that start early (PDL) can spin
#             on SMs a later rank's GEMM needs (docs/runtime.md); the
#             barrier makes each consumer wait for every rank's publishes.
# Prints a short table last; with $OUT set, summary.txt, boundary.md and
# results.tar.gz go there.
#
#   bash test/gpu/boundary.sh
# Environment: PHASE (all, check or bench: to run the phases separately,
# each in less time), CHECK_STEPS (100000, the fused attention boundary),
# OTHER_STEPS (20000, the unfused and unpooler boundaries), BENCH_STEPS
# (4000), TPS ("2 4 8 16").
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-$root/build-gpu}
bundles=$root/bundles/boundary
out=$build/boundary-results
rm -rf "$out" && mkdir -p "$out"
phase=${PHASE:-all}
check_steps=${CHECK_STEPS:-100000}
other_steps=${OTHER_STEPS:-20000}
bench_steps=${BENCH_STEPS:-4000}
tps=${TPS:-2 4 8 16}
summary=$out/summary.txt
: >"$summary"
failures=0
note() { printf '%-7s %-30s %-5s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  2>&1 | tee "$out/device.txt"
echo "== build (runtime only)"
source "$root/test/gpu/build_runtime.sh"
build_runtime boundary.sh "$build" "$out/build.log" lamport-run \
  LamportRuntimeC LamportRuntimeTests || exit 2
run=$build/bin/lamport-run
"$build/bin/LamportRuntimeTests" >"$out/unit.log" 2>&1 &&
  note unit all PASS "runtime unit tests" ||
  { note unit all FAIL "see unit.log"; failures=$((failures + 1)); }

if [ "$phase" != bench ]; then
echo "== python: lamport.Runtime over torch tensors"
if LAMPORT_RUNTIME_LIBRARY=$build/lib/libLamportRuntimeC.so timeout 300 \
  python3 "$root/test/gpu/python_runtime.py" "$bundles/py_all_reduce_tp8" \
  "$bundles/py_publish_poll_tp4" >"$out/python.log" 2>&1; then
  while read -r line; do note python "" PASS "$line"; done <"$out/python.log"
else
  failures=$((failures + 1))
  note python "" FAIL "$(tail -2 "$out/python.log" | tr '\n' ' ' | cut -c1-200)"
fi

# runlr WHAT NAME LIMIT ARGS...: lamport-run, PASS/FAIL into the summary.
runlr() {
  local what=$1 name=$2 limit=$3
  shift 3
  local log=$out/${name}_$what.log start=$SECONDS
  echo "-- $what $name $*"
  if timeout "$limit" "$run" "$bundles/$name" "$@" >"$log" 2>&1; then
    note "$what" "$name" PASS "[$((SECONDS - start)) s] $(grep -E '^  [0-9]' "$log" | tail -1 | sed 's/  */ /g' | cut -c1-120)"
    return 0
  fi
  # The boundary alone publishes and then waits in the same CTAs: with every
  # rank on one GPU it runs only where all ranks' grids fit at once, and
  # lamport-run must refuse it cleanly (before any launch) where they do not.
  if grep -q 'must be resident at once' "$log"; then
    note "$what" "$name" REFUSED "$(grep -o '[0-9]* clusters of [0-9]* CTAs, but this GPU holds [0-9]* at most' "$log" | head -1)"
    return 0
  fi
  failures=$((failures + 1))
  note "$what" "$name" FAIL "[$((SECONDS - start)) s] $(grep -m1 -i 'error' "$log" | cut -c1-200)"
  tail -5 "$log"
  return 1
}

for tp in $tps; do
  for kind in attention_boundary attention_boundary_unfused unpooler_boundary \
    reduce_norm_boundary; do
    name=${kind}_tp$tp
    [ -f "$bundles/$name/manifest.json" ] || { note check "$name" FAIL "no bundle"; failures=$((failures + 1)); continue; }
    steps=$other_steps
    [ "$kind" = attention_boundary ] && steps=$check_steps
    # The unfused baseline's all_reduce spins on SMs that a later rank's
    # publish_rows needs when 16 ranks share one GPU (seen at tp 16); the
    # publish barrier keeps its consumers back until every rank published.
    barrier=""
    [ "$kind" = attention_boundary_unfused ] && barrier=--publish-barrier
    runlr check "$name" 300 --tp "$tp" --transport loopback --tokens all \
      --steps "$steps" --graph --check $barrier --json "$out/${name}_check.json"
  done
  # A GEMM whose reduction lives in dynamic shared memory (M = 9..16): the
  # loader must opt the kernel into its shared_bytes.
  if [ "$tp" = 4 ]; then
    runlr check unpooler_boundary_dynamic_shared_tp4 300 --tp 4 \
      --transport loopback --tokens all --steps "$other_steps" --graph \
      --check --json "$out/unpooler_boundary_dynamic_shared_tp4_check.json"
  fi
  # Each rank's steps back to back (no join between steps, as a decode
  # loop runs them): the fused boundary and the boundary alone.
  for kind in attention_boundary reduce_norm_boundary; do
    runlr pipelined "${kind}_tp$tp" 300 --tp "$tp" --transport loopback \
      --tokens all --steps "$other_steps" --graph --pipelined --check \
      --json "$out/${kind}_tp${tp}_pipelined.json"
  done
  # A rank that never publishes: every other rank's consumer must trap
  # within the timeout, and lamport-run must name rank, mailbox, stage, slot.
  for kind in attention_boundary reduce_norm_boundary; do
    runlr trap "${kind}_tp$tp" 60 --tp "$tp" --transport loopback \
      --tokens 4 --steps 3 --skip-publish $((tp - 1)) --timeout-check
  done
  # Fused and unfused: the same inputs (same seed, batch and token counts)
  # must give the same out and stream bytes.
  for name in attention_boundary_tp$tp attention_boundary_unfused_tp$tp; do
    runlr same "$name" 300 --tp "$tp" --transport loopback --tokens all \
      --steps 32 --batch 16 --seed 11 --check --json "$out/${name}_same.json"
  done
  python3 "$root/bench/same_outputs.py" "$tp" \
    "$out/attention_boundary_tp${tp}_same.json" \
    "$out/attention_boundary_unfused_tp${tp}_same.json" >>"$summary" ||
    failures=$((failures + 1))
done

fi

if [ "$phase" != check ]; then
echo "== bench: fused vs unfused attention boundary"
reports=()
for tp in $tps; do
  for m in 1 4 16; do
    for kind in attention_boundary attention_boundary_unfused; do
      name=${kind}_tp$tp
      json=$out/bench_${name}_m$m.json
      timeout 120 "$run" "$bundles/$name" --tp "$tp" --transport loopback \
        --tokens "$m" --steps "$bench_steps" --batch 8 --graph --bench \
        --publish-barrier --json "$json" >"$out/bench_${name}_m$m.log" 2>&1 ||
        { failures=$((failures + 1)); note bench "$name m$m" FAIL \
          "$(grep -m1 -i error "$out/bench_${name}_m$m.log" | cut -c1-160)"; }
      reports+=("$json")
    done
  done
done
python3 "$root/bench/boundary_table.py" "${reports[@]}" >"$out/boundary.md"
fi
touch "$out/boundary.md"

if [ -n "${OUT:-}" ]; then
  cp "$summary" "$out/boundary.md" "$OUT/" 2>/dev/null
  tar -czf "$OUT/results.tar.gz" -C "$build" boundary-results 2>/dev/null
fi
echo
cat "$out/boundary.md"
echo
cat "$summary"
echo "failures: $failures"
[ "$failures" = 0 ]
