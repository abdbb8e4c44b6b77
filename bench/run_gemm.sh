#!/usr/bin/env bash
#===- bench/run_gemm.sh - The GEMM benchmark, on the GPU machine ---------===#
#
# Builds the runtime and lamport-gemm-bench without MLIR (build-gpu/), then
# checks and times every bundle of bundles/gemm against cuBLAS. Prepare the
# bundles where MLIR is (bench/prepare_gemm.sh) and carry `bundles` and
# `third_party_cache`. Writes gemm.json to $OUT where it is set, and prints
# docs/performance.md's tables and the targets last (bench/gemm_table.py).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
build=${BUILD_DIR:-$root/build-gpu}
if ! { cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DLAMPORT_ENABLE_COMPILER=OFF -DLAMPORT_ENABLE_RUNTIME=ON &&
  ninja -C "$build" lamport-gemm-bench; } >"$build.gemm-build.log" 2>&1; then
  tail -30 "$build.gemm-build.log"
  echo "run_gemm.sh: lamport-gemm-bench did not build"
  exit 2
fi
json=${OUT:-$build}/gemm.json
"$build/bin/lamport-gemm-bench" --json "$json" "$root"/bundles/gemm/*
status=$?
[ -s "$json" ] && python3 "$root/bench/gemm_table.py" "$json"
exit $status
