#!/usr/bin/env bash
#===- test/gpu/nccl.sh - The nccl transport at world size 1 on one GPU ---===#
#
# NCCL refuses two ranks on one GPU, so one GPU runs the nccl transport at
# tp 1: for each bundle of test/gpu/prepare_nccl.sh (the all-reduce and the
# unfused attention boundary, tp 1), lamport-launch --tp 1 runs it with the
# mailbox transport and with --transport nccl for the same seed, eager
# steps then graph replays, every output checked (nccl: each all-reduce
# output within the BF16 bound of the FP64 sum, the dual norm within its
# bound). Prints a short table: status, steps, eager and graph-replay step
# times, and whether the two transports' first-batch outputs hash the same
# (informational: NCCL keeps -0.0 where a publish stores +0.0).
# Logs and JSON go to build-gpu/nccl; with $OUT set, summary.txt and
# nccl.tar.gz go there too.
#
#   bash test/gpu/prepare_nccl.sh    (here, with MLIR: bundles/nccl)
#   bash test/gpu/nccl.sh            (there, with bundles/, third_party_cache/)
#
# Environment: BUILD_DIR (build-gpu), SKIP_BUILD=1 (use BUILD_DIR as it
# is), BUNDLES_DIR (bundles/nccl), STEPS (2000), BATCH (16), NCCL_LIB_DIR
# (put first on LD_LIBRARY_PATH when libnccl.so.2 is not where the loader
# looks).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0
[ -n "${NCCL_LIB_DIR:-}" ] &&
  export LD_LIBRARY_PATH=$NCCL_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
build=${BUILD_DIR:-$root/build-gpu}
bundles=${BUNDLES_DIR:-$root/bundles/nccl}
steps=${STEPS:-2000}
batch=${BATCH:-16}
out=$build/nccl
rm -rf "$out" && mkdir -p "$out"
summary=$out/summary.txt
failures=0

echo "== build (runtime only, no MLIR)"
source "$root/test/gpu/build_runtime.sh"
if [ -z "${SKIP_BUILD:-}" ]; then
  build_runtime nccl.sh "$build" "$out/build.log" lamport-launch || exit 2
fi
launch=$build/bin/lamport-launch

printf '%-32s %-8s %-5s %7s %10s %12s %s\n' bundle transport status steps \
  "eager us" "graph us/st" "note" >"$summary"
for name in all_reduce_tp1 attention_boundary_unfused_tp1; do
  b=$bundles/$name
  if [ ! -d "$b" ]; then
    printf '%-32s %-8s %-5s\n' "$name" - SKIP >>"$summary"
    continue
  fi
  for transport in mailbox nccl; do
    echo "== $name, $transport"
    json=$out/$name.$transport.json
    "$launch" "$b" --tp 1 --transport "$transport" --tokens all \
      --steps "$steps" --batch "$batch" --graph --seed 1 --json "$json" \
      >"$out/$name.$transport.log" 2>&1
    status=$?
    [ "$status" = 0 ] || failures=$((failures + 1))
    python3 - "$json" "$name" "$transport" "$status" \
      "$out/$name.mailbox.json" >>"$summary" <<'PY'
import json, sys
path, name, transport, status, mailbox = sys.argv[1:6]
try:
    rank = json.load(open(path))["ranks"][0]
except Exception as error:
    print(f"{name:32} {transport:8} FAIL  (no report: {error})")
    sys.exit(0)
note = rank.get("error", "")[:100]
if transport == "nccl" and not note:
    try:
        base = json.load(open(mailbox))["ranks"][0]
        hashes = lambda r: {**r.get("output_hashes", {}),
                            **r.get("norm_output_hashes", {})}
        note = ("outputs hash as mailbox's" if hashes(rank) == hashes(base)
                else "outputs differ in bits from mailbox's (within bound)")
    except Exception:
        pass
print(f"{name:32} {transport:8} {'PASS' if status == '0' else 'FAIL':5} "
      f"{rank.get('steps_run', 0):7} {rank.get('step_us_median', 0):10.2f} "
      f"{rank.get('graph_step_us_median', 0):12.2f} {note}")
PY
  done
done

cat "$summary"
if [ -n "${OUT:-}" ]; then
  cp "$summary" "$OUT/summary.txt"
  tar -czf "$OUT/nccl.tar.gz" -C "$build" nccl
fi
[ "$failures" = 0 ] && echo "nccl.sh: PASS" || echo "nccl.sh: $failures FAILED"
[ "$failures" = 0 ]
