#!/usr/bin/env bash
#===- bench/run_gemm_ab.sh - Two compilers' GEMM bundles side by side ----===#
#
# Run on the GPU machine. Times the bundles of bench/prepare_gemm.sh
# (bundles/gemm) beside the same programs compiled by an earlier compiler
# (BEFORE_DIR, default bundles/gemm_before, each bundle renamed
# NAME_before there) in one run of lamport-gemm-bench, so every point
# shares its inputs, reference and cuBLAS time, then prints
# bench/compare_gemm.py's table and verdicts: same bits, every check
# passed, geometric mean of new over before at most BOUND (1.02).
#
#   bash bench/prepare_gemm.sh                    (here, new compiler)
#   (earlier compiler's bundles in bundles/gemm_before, renamed NAME_before)
#   bash bench/run_gemm_ab.sh                     (there)
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
before=${BEFORE_DIR:-$root/bundles/gemm_before}
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_gemm_ab.sh || exit 2
json=${OUT:-$build}/gemm_ab.json
rm -f "$json"  # so that a report is this run's
"$build/bin/lamport-gemm-bench" ${GEMM_BENCH_ARGS:-} --json "$json" \
  "$root"/bundles/gemm/* "$before"/* >"${OUT:-$build}/gemm_ab.log" 2>&1
status=$?
tail -5 "${OUT:-$build}/gemm_ab.log"
[ -s "$json" ] || exit 2
python3 "$root/bench/compare_gemm.py" "$json" "${BOUND:-1.02}" || status=1
exit $status
