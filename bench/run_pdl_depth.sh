#!/usr/bin/env bash
#===- bench/run_pdl_depth.sh - How far ahead a PDL chain's grids run -----===#
#
# On the GPU machine (carry `third_party_cache`): configures the runtime
# without MLIR as bench/run_gemm.sh does (build-gpu/), builds
# lamport-pdl-depth (bench/pdl_depth.cu) and runs it: whether grid i + d of
# a PDL chain starts while grid i still runs, when every grid between them
# triggered launch_dependents first (docs/design/gemm.md, "Open gaps").
#
#   bash bench/run_pdl_depth.sh [--max-depth D] [--timeout-us T] [--trials N]
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_pdl_depth.sh || exit 2
build_cuda_tool run_pdl_depth.sh lamport-pdl-depth || exit 2
"$build/bin/lamport-pdl-depth" "$@"
