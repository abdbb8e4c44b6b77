#!/usr/bin/env bash
#===- test/gpu/ranks.sh - One process per rank on one H200, under MPS ----===#
#
# The process-per-rank checks (lamport-launch over the RankRuntime), every
# rank process sharing the one GPU under the CUDA MPS daemon:
#   identical  tp 2, 4, 8: the attention, unpooler and reduce-norm
#              boundaries (and the all-reduce example at tp 8) run as tp
#              processes, every output checked against the host simulation,
#              every rank's dual norms equal to rank 0's, and rank 0's output
#              hashes equal to single-process lamport-run's (same seed,
#              batch and tokens);
#   graph      GRAPH_STEPS (100000) graph-replayed steps at tp 8, every
#              CHECK_EVERY-th (1: every) replay's outputs checked;
#   latency    tp 2, m = 1..16: per-step time of graph replays, rank
#              processes (each its own graph) against lamport-run's
#              in-process loopback graph, measured in the same call and
#              the same way (CUDA events around each replay, the first not
#              counted, the median per step; the slowest rank's): both
#              replay a plain graph of the kernels alone (no poison or
#              restores), the rank processes back to back; lamport-run both
#              as it steps by default (the ranks' streams joined after every
#              step) and with --pipelined (joined once per replay, as the
#              rank processes' streams never are);
#   kill       one rank process dies mid-run: how long the others take to
#              fail (within the polls' timeout, read from the timeout
#              records of their traps, plus 1 s), and that they name it;
#   torch      the lamport.torch example under torchrun, when present;
#   compile    lamport.torch.Boundary inside torch.compile (fullgraph) and a
#              CUDA graph of the compiled layer, bit for bit against eager
#              (test/gpu/torch_compile.py under torchrun, when present);
#   timeout    a Boundary step with no partner: torch's bare launch failure,
#              then Boundary.wait naming the slot whose data never came
#              (test/gpu/torch_timeout.py under torchrun, when present; it
#              runs last, since the trap ends rank 0's CUDA context).
# Prints a short table last; logs and JSON go to build-gpu/ranks and, where
# $OUT is set, summary.txt, latency.md and ranks.tar.gz go there.
#
#   bash test/gpu/prepare_boundary.sh    (here, with MLIR: bundles/boundary)
#   bash test/gpu/ranks.sh               (there, with bundles/, third_party_cache/)
#
# Environment: BUILD_DIR (build-gpu), BUNDLES_DIR (bundles/boundary),
# GRAPH_STEPS, CHECK_EVERY, LATENCY_STEPS (6400), SKIP_LATENCY=1;
# ONLY (the checks to run, default "identical graph latency kill torch
# compile timeout"),
# IDENTICAL_TP ("2 4 8"), IDENTICAL_KINDS (the three boundaries and
# all_reduce, the tp 8 all-reduce example),
# IDENTICAL_STEPS (64); WHEEL (a wheel of scripts/wheel.sh, lamport or
# lamport-runtime: the torch checks then import it, installed
# with pip into a folder beside this machine's PyTorch, instead of python/
# and build-gpu's runtime library).
# The one-kernel boundary alone, longer:
#   ONLY="identical kill" IDENTICAL_KINDS=reduce_norm_boundary \
#     IDENTICAL_STEPS=2000 bash test/gpu/ranks.sh
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-$root/build-gpu}
bundles=${BUNDLES_DIR:-$root/bundles/boundary}
out=$build/ranks
rm -rf "$out" && mkdir -p "$out"
graph_steps=${GRAPH_STEPS:-100000}
check_every=${CHECK_EVERY:-1}
latency_steps=${LATENCY_STEPS:-6400}
only=" ${ONLY:-identical graph latency kill torch compile timeout} "
identical_steps=${IDENTICAL_STEPS:-64}
wanted() { [[ "$only" == *" $1 "* ]]; }
summary=$out/summary.txt
: >"$summary"
failures=0
note() { printf '%-10s %-34s %-5s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

echo "== build (runtime only, no MLIR)"
source "$root/test/gpu/build_runtime.sh"
build_runtime ranks.sh "$build" "$out/build.log" lamport-run lamport-launch \
  LamportRuntimeC || exit 2
run=$build/bin/lamport-run
launch=$build/bin/lamport-launch

# What the torch checks import: the checkout's package over build-gpu's
# library, or the installed WHEEL (with the library pip put beside it).
package=(PYTHONPATH="$root/python"
  LAMPORT_RUNTIME_LIBRARY="$build/lib/libLamportRuntimeC.so")
if [ -n "${WHEEL:-}" ] && { wanted torch || wanted compile || wanted timeout; }
then
  echo "== install $WHEEL"
  # Into a folder of its own on PYTHONPATH, beside this Python's PyTorch
  # (a virtual environment would not see a PyTorch in the user's site).
  site=$build/wheel-site
  rm -rf "$site"
  if python3 -m pip install --no-index --no-deps --target "$site" "$WHEEL" \
    >"$out/wheel.log" 2>&1 &&
    where=$(cd "$out" && PYTHONPATH="$site" python3 - "$site" \
      2>>"$out/wheel.log" <<'PY'
import os, sys
import lamport, lamport.runtime
paths = [lamport.__file__, lamport.runtime.find_library()]
print(" ".join(paths))
sys.exit(0 if all(p.startswith(sys.argv[1] + os.sep) for p in paths) else 1)
PY
    ); then
    note wheel "$(basename "$WHEEL" | cut -c1-34)" PASS "installed: $where"
    package=(PYTHONPATH="$site")
  else
    note wheel "$(basename "$WHEEL" | cut -c1-34)" FAIL "see wheel.log"
    failures=$((failures + 1))
    only=${only/ torch / } only=${only/ compile / } only=${only/ timeout / }
  fi
fi

echo "== MPS"
started_mps=0
if [ ! -e "${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}/control" ]; then
  nvidia-cuda-mps-control -d && started_mps=1
fi
stop_mps() { [ "$started_mps" = 1 ] && echo quit | nvidia-cuda-mps-control; }
trap stop_mps EXIT

hashes_equal() { # launch.json run.json
  python3 - "$1" "$2" <<'PY'
import json, sys
launch = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
a = launch["ranks"][0].get("output_hashes", {})
b = run.get("output_hashes", {})
sys.exit(0 if a and a == b else 1)
PY
}

identical_tp=${IDENTICAL_TP:-2 4 8}
wanted identical && echo "== identical to lamport-run" || identical_tp=
for tp in $identical_tp; do
  # At tp 8 the fused kernels' clusters of every rank must be resident at
  # once on the one GPU: 8 tokens fit (docs/runtime.md, Transports).
  tokens=all
  [ "$tp" = 8 ] && tokens=8
  kinds=${IDENTICAL_KINDS:-attention_boundary unpooler_boundary reduce_norm_boundary}
  for kind in $kinds; do
    b=$bundles/${kind}_tp$tp
    name=${kind}_tp$tp
    [ -d "$b" ] || { note identical "$name" SKIP "no bundle"; continue; }
    "$run" "$b" --tp "$tp" --transport loopback --tokens "$tokens" \
      --steps 16 --batch 16 --check --json "$out/$name.run.json" \
      >"$out/$name.run.log" 2>&1
    if "$launch" "$b" --tp "$tp" --tokens "$tokens" --steps "$identical_steps" \
      --batch 16 --mps require --json "$out/$name.launch.json" \
      >"$out/$name.launch.log" 2>&1 &&
      hashes_equal "$out/$name.launch.json" "$out/$name.run.json"; then
      note identical "$name" PASS \
        "$identical_steps steps x $tp processes, == lamport-run"
    else
      note identical "$name" FAIL "see $name.launch.log"
      failures=$((failures + 1))
    fi
  done
done
b=$bundles/py_all_reduce_tp8
if wanted identical && [[ " ${IDENTICAL_KINDS:-all_reduce} " == *" all_reduce "* ]] &&
  [ -d "$b" ]; then
  "$run" "$b" --tp 8 --transport loopback --tokens all --steps 16 --batch 16 \
    --check --json "$out/all_reduce_tp8.run.json" >"$out/all_reduce_tp8.run.log" 2>&1
  if "$launch" "$b" --tp 8 --tokens all --steps "$identical_steps" --batch 16 --mps require \
    --json "$out/all_reduce_tp8.launch.json" >"$out/all_reduce_tp8.launch.log" 2>&1 &&
    hashes_equal "$out/all_reduce_tp8.launch.json" "$out/all_reduce_tp8.run.json"; then
    note identical all_reduce_tp8 PASS "$identical_steps steps x 8 processes, == lamport-run"
  else
    note identical all_reduce_tp8 FAIL "see all_reduce_tp8.launch.log"
    failures=$((failures + 1))
  fi
fi

if wanted graph; then
  echo "== $graph_steps graph-replayed steps at tp 8"
  b=$bundles/attention_boundary_tp8
  start=$(date +%s.%N)
  if "$launch" "$b" --tp 8 --tokens 8 --batch 16 --graph --steps "$graph_steps" \
    --check-every "$check_every" --mps require --json "$out/graph_tp8.json" \
    >"$out/graph_tp8.log" 2>&1; then
    note graph attention_boundary_tp8 PASS \
      "$graph_steps steps, every ${check_every}th replay checked, $(python3 -c "print(round($(date +%s.%N) - $start))") s"
  else
    note graph attention_boundary_tp8 FAIL "see graph_tp8.log"
    failures=$((failures + 1))
  fi
fi

if [ -z "${SKIP_LATENCY:-}" ] && wanted latency; then
  echo "== tp 2 per-step time, rank processes vs in-process loopback"
  b=$bundles/attention_boundary_tp2
  latency=$out/latency.md
  {
    echo "| m | in-process loopback (us) | in-process, --pipelined (us) | process per rank (us) | ratio | ratio to --pipelined |"
    echo "| --- | --- | --- | --- | --- | --- |"
  } >"$latency"
  for m in $(seq 1 16); do
    "$run" "$b" --tp 2 --transport loopback --tokens "$m" --graph --bench \
      --steps "$latency_steps" --batch 64 --json "$out/lat_run_$m.json" \
      >"$out/lat_run_$m.log" 2>&1
    "$run" "$b" --tp 2 --transport loopback --tokens "$m" --graph --bench \
      --pipelined --steps "$latency_steps" --batch 64 \
      --json "$out/lat_pipe_$m.json" >"$out/lat_pipe_$m.log" 2>&1
    "$launch" "$b" --tp 2 --tokens "$m" --graph --batch 64 \
      --steps "$latency_steps" --check-every 1000000 --mps require \
      --json "$out/lat_launch_$m.json" >"$out/lat_launch_$m.log" 2>&1
    python3 - "$m" "$out/lat_run_$m.json" "$out/lat_pipe_$m.json" \
      "$out/lat_launch_$m.json" >>"$latency" <<'PY'
import json, sys
m, run, pipe, launch = sys.argv[1:5]
try:
    a = json.load(open(run))["latency_us"]["median"]
    p = json.load(open(pipe))["latency_us"]["median"]
    b = max(r["graph_step_us_median"] for r in json.load(open(launch))["ranks"])
    print(f"| {m} | {a:.2f} | {p:.2f} | {b:.2f} | {b / a:.3f} | {b / p:.3f} |")
except Exception as error:
    print(f"| {m} | failed | failed | failed | {error} | |")
PY
  done
  note latency attention_boundary_tp2 DONE "latency.md"
fi

if wanted kill; then
  echo "== kill one rank mid-run"
  b=$bundles/reduce_norm_boundary_tp2
  "$launch" "$b" --tp 2 --tokens 4 --steps 100000 --kill-rank 1 \
    --kill-after-steps 2000 --mps require --json "$out/kill.json" \
    >"$out/kill.log" 2>&1
  python3 - "$out/kill.json" >"$out/kill.txt" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
died = report["ranks"][1]["exit_seconds"]
rank0 = report["ranks"][0]
# The polls' timeout is what the kernels were compiled with; each trap's
# timeout record carries it (the manifest need not).
records = rank0.get("timeouts", [])
named = any(r["slot"] == 1 for r in records) and \
    "data of rank 1 never came" in rank0.get("error", "")
after = rank0["exit_seconds"] - died
if not records:
    print(f"rank 0 failed {after:.2f} s after rank 1 died, with no timeout "
          f"record (status {rank0.get('status')}): no poll timed out")
    sys.exit(1)
timeout = max(r["timeout_ns"] for r in records) / 1e9
limit = timeout + 1
print(f"rank 0 failed {after:.2f} s after rank 1 died (poll timeout "
      f"{timeout:.2f} s + 1 s = {limit:.2f} s), named rank 1: {named}")
sys.exit(0 if named and after <= limit else 1)
PY
  if [ $? = 0 ]; then
    note kill reduce_norm_boundary_tp2 PASS "$(cat "$out/kill.txt")"
  else
    note kill reduce_norm_boundary_tp2 FAIL "$(cat "$out/kill.txt" 2>/dev/null) (see kill.log)"
    failures=$((failures + 1))
  fi
fi

# torchrun_check CHECK BUNDLE SCRIPT PASS NOTE [PATTERN]: SCRIPT under
# torchrun, two ranks, over bundles BUNDLE; it passes when PASS appears
# twice in its log (once a rank), noted with NOTE and the log's first match
# of PATTERN.
torchrun_check() {
  local log=$out/$1.log
  if ! python3 -c "import torch.distributed.run" 2>/dev/null ||
    [ ! -d "$bundles/$2" ]; then
    note "$1" "$2" SKIP "no torch or bundle"
  elif (cd "$out" && env "${package[@]}" timeout 600 \
    python3 -m torch.distributed.run --nproc-per-node 2 "$3" "$bundles/$2") \
    >"$log" 2>&1 && [ "$(grep -o "$4" "$log" | wc -l)" = 2 ]; then
    note "$1" "$2" PASS "$5${6:+$(grep -o "$6" "$log" | head -1)}"
  else
    note "$1" "$2" FAIL "$(grep -m1 "$1 FAIL\|Error" "$log" | cut -c1-160) (see $1.log)"
    failures=$((failures + 1))
  fi
}

if wanted torch; then
  echo "== torchrun example"
  # docs/python.md's example, run as written but for the bundle's path (its
  # first argument).
  python3 - "$root/docs/python.md" >"$out/boundary.py" <<'PY'
import sys
text = open(sys.argv[1]).read()
start = text.index("```python", text.index("A complete example")) + len("```python")
code = text[start:text.index("```", start)]
print("import sys\n" + code.replace('"reduce_norm_tp2"', "sys.argv[1]"))
PY
  torchrun_check torch reduce_norm_boundary_tp2 boundary.py \
    'bound 2^-8 |ref|: True' "torchrun, 2 processes, CUDA graph, within the bound"
fi
if wanted compile; then
  echo "== torch.compile"
  torchrun_check compile attention_boundary_tp2 \
    "$root/test/gpu/torch_compile.py" 'compile PASS' \
    "torch.compile fullgraph, M 1/4/16/7 and a CUDA graph: equal to eager"
fi
if wanted timeout; then
  echo "== a poll's timeout under lamport.torch"
  torchrun_check timeout attention_boundary_tp2 \
    "$root/test/gpu/torch_timeout.py" 'timeout PASS' "Boundary.wait: " \
    'rank 0 timed out polling mailbox.*never came)'
fi

tar -C "$build" -czf "$out/../ranks.tar.gz" ranks 2>/dev/null
if [ -n "${OUT:-}" ]; then
  cp "$summary" "$OUT/summary.txt"
  [ -f "$out/latency.md" ] && cp "$out/latency.md" "$OUT/latency.md"
  cp "$out/../ranks.tar.gz" "$OUT/ranks.tar.gz"
fi
echo "== summary"
[ -f "$out/latency.md" ] && cat "$out/latency.md"
cat "$summary"
echo "$failures failure(s)"
exit $((failures > 0))
