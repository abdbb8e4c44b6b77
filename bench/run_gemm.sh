#!/usr/bin/env bash
#===- bench/run_gemm.sh - The GEMM benchmark, on the GPU machine ---------===#
#
# Builds the runtime and lamport-gemm-bench without MLIR (build-gpu/), then
# checks and times every bundle of bundles/gemm against cuBLAS. Prepare the
# bundles where MLIR is (bench/prepare_gemm.sh) and copy `bundles` and
# `third_party_cache`. Writes gemm.json to $OUT where it is set, and prints
# docs/performance.md's tables and the targets last (bench/gemm_table.py).
# GEMM_BENCH_ARGS passes options to lamport-gemm-bench (--carveout,
# --extra-shared, --copy-stagger).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_gemm.sh || exit 2
json=${OUT:-$build}/gemm.json
rm -f "$json"  # so that a report is this run's
"$build/bin/lamport-gemm-bench" ${GEMM_BENCH_ARGS:-} --json "$json" "$root"/bundles/gemm/*
status=$?
[ -s "$json" ] && python3 "$root/bench/gemm_table.py" "$json"
exit $status
