#!/usr/bin/env bash
#===- bench/run_stream_floor.sh - The weight stream's floor, on the GPU --===#
#
# On the GPU machine (carry `third_party_cache`): configures the runtime
# without MLIR as bench/run_gemm.sh does (build-gpu/), builds
# lamport-stream-floor (bench/stream_floor.cu) and runs it: the least a
# kernel that reads W once costs in lamport-gemm-bench's harness, at the
# sizes given (default 4, 8, 16, 32 MiB), against the copy floor of
# docs/performance.md.
#
#   bash bench/run_stream_floor.sh [--mib S,...] [--replays R] [--all]
#       [--hold --chain-cycles C,... --chain-at weights|wait --x-loads N
#        --late L]
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_stream_floor.sh || exit 2
build_cuda_tool run_stream_floor.sh lamport-stream-floor || exit 2
"$build/bin/lamport-stream-floor" "$@"
