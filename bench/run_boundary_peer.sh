#!/usr/bin/env bash
#===- bench/run_boundary_peer.sh - The boundary against NCCL on 2-8 GPUs -===#
#
# On a machine of 2, 4 or 8 GPUs, after
# bench/prepare_boundary_peer.sh where MLIR is (copy `bundles` and
# `third_party_cache`):
#   build  the runtime, lamport-run and lamport-boundary-bench without MLIR
#          (build-gpu/), and their unit tests;
#   check  for every tp of 2, 4, 8 the machine has GPUs for, one GPU per
#          rank (--transport peer): the fused, unfused and unpooler
#          boundaries and the boundary alone (reduce_norm_boundary), every
#          m 1..16 with fresh inputs per batch position, eagerly and as
#          replayed graphs (each step joined across the GPUs, and
#          --pipelined: each rank's steps back to back), every output
#          checked; fused and unfused give the same out and stream bytes;
#          the fault case (the last rank skips its publish: every other
#          rank's poll must trap on its slot within the timeout,
#          --timeout-check);
#   bench  lamport-boundary-bench per tp: the fused boundary and the
#          boundary alone (--boundary) against NCCL's all-reduce alone,
#          all-reduce + the same dual norm, and cuBLAS + both, M 1/4/16,
#          CUDA-graph replays (pipelined, and joined per step), all checked
#          first. A run that does not finish (NCCL warns that one thread
#          launching graphs across GPUs can deadlock) is retried eagerly.
#          Then the boundary alone in one launch and in two
#          (bench/programs/, lamport-run --bench, M 1/4/16, pipelined) and
#          the exchange floor (lamport-exchange-floor: the least step that
#          stores rows into the peers and polls its own, bench/exchange_floor.cu).
# With one GPU only the NCCL half runs (tp 1, --baseline-only): a smoke test.
# Prints the table (bench/boundary_peer_table.py) and a summary last; with
# $OUT set, summary.txt, boundary_peer.md, boundary_bench.json (the bench's
# reports) and results.tar.gz (every log and report) go there.
#
#   bash bench/run_boundary_peer.sh
# Environment: PHASE (all, check or bench: to run the phases separately,
# each in less time), TPS (default: those of 2 4 8 the GPUs allow),
# EAGER_STEPS (128), CHECK_STEPS (3200, graph-replayed), BENCH_STEPS (4000),
# MODES (pipelined,graph), BENCH_LIMIT (240 s per tp), BUILD_DIR (build-gpu),
# BUNDLES_DIR (bundles/boundary_peer),
# GPUS (instead of counting nvidia-smi -L), DRY_RUN=1 (print the commands,
# run nothing).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# NVLink multicast stays off: NCCL's NVLS, and whatever else could make one.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-$root/build-gpu}
bundles=${BUNDLES_DIR:-$root/bundles/boundary_peer}
out=$build/boundary-peer-results
phase=${PHASE:-all}
eager_steps=${EAGER_STEPS:-128}
check_steps=${CHECK_STEPS:-3200}
bench_steps=${BENCH_STEPS:-4000}
bench_limit=${BENCH_LIMIT:-240}
modes=${MODES:-pipelined,graph}
dry=${DRY_RUN:-}
run=$build/bin/lamport-run
bench=$build/bin/lamport-boundary-bench
failures=0

if [ -n "${GPUS:-}" ]; then
  gpus=$GPUS
else
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ "${gpus:-0}" -lt 1 ]; then
  echo "run_boundary_peer.sh: no GPU (nvidia-smi -L lists none)"
  exit 2
fi
if [ -n "${TPS:-}" ]; then
  tps=$TPS
else
  tps=""
  for tp in 2 4 8; do [ "$tp" -le "$gpus" ] && tps="$tps $tp"; done
fi
tps=$(echo $tps)
echo "== $gpus GPU(s); tp: ${tps:-none (smoke test: tp 1, NCCL only)}"

mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
note() { printf '%-6s %-34s %-5s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

# step WHAT NAME LIMIT COMMAND...: COMMAND under a time limit, its output in
# WHAT_NAME.log, PASS or FAIL into the summary; with DRY_RUN only printed.
step() {
  local what=$1 name=$2 limit=$3
  shift 3
  if [ -n "$dry" ]; then
    echo "[$what $name] $*"
    return 0
  fi
  local log=$out/${what}_$name.log start=$SECONDS
  echo "-- $what $name"
  local rc=0
  timeout "$limit" "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    note "$what" "$name" PASS "[$((SECONDS - start)) s] $(grep -E '^  [0-9]|timeout check|PASS' "$log" | tail -1 | sed 's/  */ /g' | cut -c1-120)"
    return 0
  fi
  failures=$((failures + 1))
  note "$what" "$name" FAIL "[$((SECONDS - start)) s] exit $rc: $(grep -m1 -i 'error' "$log" | cut -c1-200)"
  tail -5 "$log"
  return 1
}

if [ -z "$dry" ]; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total \
    --format=csv,noheader >"$out/devices.txt" 2>&1
  nvidia-smi topo -m >"$out/topology.txt" 2>&1
  cat "$out/devices.txt"
  echo "== build (runtime and lamport-boundary-bench, no MLIR)"
  source "$root/test/gpu/build_runtime.sh"
  build_runtime run_boundary_peer.sh "$build" "$out/build.log" lamport-run \
    LamportRuntimeTests || exit 2
  ninja -C "$build" lamport-exchange-floor >>"$out/build.log" 2>&1 ||
    echo "lamport-exchange-floor not built (no nvcc?): no floor measured"
  if ! ninja -C "$build" lamport-boundary-bench LamportBoundaryBenchTests \
    >>"$out/build.log" 2>&1; then
    grep -m1 'lamport-boundary-bench not built' "$out/build.log"
    note build lamport-boundary-bench FAIL \
      "not built (no NCCL or cuBLAS in this toolkit? see build.log)"
    failures=$((failures + 1))
  fi
fi
step unit runtime 120 "$build/bin/LamportRuntimeTests"
[ -n "$dry" ] || [ -x "$build/bin/LamportBoundaryBenchTests" ] &&
  step unit boundary-bench 60 "$build/bin/LamportBoundaryBenchTests"

if [ "$phase" != bench ]; then
  for tp in $tps; do
    for kind in attention_boundary attention_boundary_unfused unpooler_boundary \
      reduce_norm_boundary; do
      name=${kind}_tp$tp
      if [ -z "$dry" ] && [ ! -f "$bundles/$name/manifest.json" ]; then
        note check "$name" FAIL "no bundle (bench/prepare_boundary_peer.sh)"
        failures=$((failures + 1))
        continue
      fi
      step eager "$name" 300 "$run" "$bundles/$name" --tp "$tp" \
        --transport peer --tokens all --steps "$eager_steps" --check \
        --json "$out/eager_$name.json"
      step graph "$name" 300 "$run" "$bundles/$name" --tp "$tp" \
        --transport peer --tokens all --steps "$check_steps" --graph --check \
        --json "$out/graph_$name.json"
      # Each rank's steps back to back, as a decode loop runs them: no join
      # between steps, so ranks run ahead of each other as far as the
      # mailbox lets them.
      step pipelined "$name" 300 "$run" "$bundles/$name" --tp "$tp" \
        --transport peer --tokens all --steps "$check_steps" --graph \
        --pipelined --check --json "$out/pipelined_$name.json"
    done
    # Fused and unfused: the same inputs must give the same out and stream.
    for name in attention_boundary_tp$tp attention_boundary_unfused_tp$tp; do
      step same "$name" 300 "$run" "$bundles/$name" --tp "$tp" \
        --transport peer --tokens all --steps 32 --batch 16 --seed 11 \
        --check --json "$out/same_$name.json"
    done
    if [ -z "$dry" ]; then
      python3 "$root/bench/same_outputs.py" "$tp" \
        "$out/same_attention_boundary_tp$tp.json" \
        "$out/same_attention_boundary_unfused_tp$tp.json" >>"$summary" ||
        failures=$((failures + 1))
    fi
    # The last rank never publishes: every other rank's poll must trap on
    # its slot, after the timeout and soon enough.
    step trap "attention_boundary_tp$tp" 120 "$run" \
      "$bundles/attention_boundary_tp$tp" --tp "$tp" --transport peer \
      --tokens 4 --steps 3 --skip-publish $((tp - 1)) --timeout-check
  done
fi

if [ "$phase" != check ]; then
  reports=()
  bench_tps=$tps
  [ -n "$bench_tps" ] || bench_tps=1
  for tp in $bench_tps; do
    json=$out/boundary_bench_tp$tp.json
    fused=$bundles/attention_boundary_tp$tp
    extra=(--boundary "$bundles/reduce_norm_boundary_tp$tp")
    if [ "$tp" = 1 ]; then
      # One GPU: NCCL's all-reduce of one rank, the dual norm and cuBLAS,
      # over the tp 2 boundary's shapes; ours needs two GPUs.
      fused=$bundles/attention_boundary_tp2
      extra=(--baseline-only)
    fi
    if ! step bench "tp$tp" "$bench_limit" "$bench" "$fused" \
      "$bundles/dual_norm_h8192" --tp "$tp" --tokens 1,4,16 \
      --steps "$bench_steps" --modes "$modes" "${extra[@]}" --json "$json"; then
      # A run that did not reach its table (a graph that hung or did not
      # capture, a watchdog) is retried without graphs; one whose checks
      # failed is not.
      if [ "$modes" != eager ] &&
        ! grep -q 'target: NCCL AR / boundary >= 2' "$out/bench_tp$tp.log"; then
        json=$out/boundary_bench_tp${tp}_eager.json
        step bench "tp${tp}_eager" "$bench_limit" "$bench" "$fused" \
          "$bundles/dual_norm_h8192" --tp "$tp" --tokens 1,4,16 \
          --steps "$bench_steps" --modes eager "${extra[@]}" --json "$json" &&
          note "" "" "" "... eager (no graphs) passes"
      fi
    fi
    reports+=("$json")
  done
  if [ -z "$dry" ]; then
    python3 "$root/bench/boundary_peer_table.py" "${reports[@]}" \
      >"$out/boundary_peer.md"
  else
    echo "[table] python3 $root/bench/boundary_peer_table.py ${reports[*]}"
  fi
  # The boundary alone in one launch and in two, the same run: lamport-run
  # timing each rank's steps back to back (pipelined graph replays), checked.
  form_reports=()
  for tp in $tps; do
    for form in reduce_norm_boundary reduce_norm_boundary_two_launch; do
      for m in 1 4 16; do
        json=$out/form_${form}_tp${tp}_m$m.json
        step form "${form}_tp${tp}_m$m" 120 "$run" "$bundles/${form}_tp$tp" \
          --tp "$tp" --transport peer --tokens "$m" --steps "$bench_steps" \
          --batch 32 --graph --pipelined --bench --check --json "$json" &&
          form_reports+=("$json")
      done
    done
  done
  # The least a step that exchanges rows between the GPUs costs in the same
  # harness (bench/exchange_floor.cu): the floor the boundary is held to.
  floor_tps=1
  for tp in $tps; do floor_tps=$floor_tps,$tp; done
  if [ -n "$dry" ] || [ -x "$build/bin/lamport-exchange-floor" ]; then
    step floor "tp$floor_tps" 240 "$build/bin/lamport-exchange-floor" \
      --tp "$floor_tps"
  fi
  if [ -z "$dry" ]; then
    {
      echo
      echo "The boundary alone, one launch against two (lamport-run --graph"
      echo "--pipelined --bench --check, batch 32, $bench_steps steps; us per step):"
      echo
      python3 - "${form_reports[@]}" <<'PY'
import json, sys
rows = {}
for path in sys.argv[1:]:
    r = json.load(open(path))
    form = "two launches" if r["program"].endswith("two_launch") else "one launch"
    lat = r["latency_us"]
    rows.setdefault((r["tp"], r["tokens"]), {})[form] = (lat["median"], lat["p99"])
print("| tp | M | one launch median | p99 | two launches median | p99 | two / one |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for (tp, m), forms in sorted(rows.items()):
    one, two = forms.get("one launch"), forms.get("two launches")
    cells = [f"{v[0]:.2f} | {v[1]:.2f}" if v else "- | -" for v in (one, two)]
    ratio = f"{two[0] / one[0]:.2f}x" if one and two else "-"
    print(f"| {tp} | {m} | {cells[0]} | {cells[1]} | {ratio} |")
PY
      if [ -f "$out/floor_tp$floor_tps.log" ]; then
        echo
        echo "The exchange floor (lamport-exchange-floor):"
        echo
        grep '^|' "$out/floor_tp$floor_tps.log"
      fi
    } >>"$out/boundary_peer.md"
  fi
fi

[ -n "$dry" ] && exit 0
touch "$out/boundary_peer.md"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$summary" "$out/boundary_peer.md" "$OUT/" 2>/dev/null
  # The bench's reports in one file, so that $OUT holds few files.
  python3 - "$OUT/boundary_bench.json" "$out"/boundary_bench_tp*.json <<'PY'
import json, sys
reports = []
for path in sys.argv[2:]:
    try:
        reports.append(json.load(open(path)))
    except (OSError, ValueError):
        pass
json.dump(reports, open(sys.argv[1], "w"), indent=1)
PY
  tar -czf "$OUT/results.tar.gz" -C "$build" boundary-peer-results 2>/dev/null
fi
echo
cat "$out/boundary_peer.md"
echo
cat "$summary"
echo "failures: $failures"
[ "$failures" = 0 ]
