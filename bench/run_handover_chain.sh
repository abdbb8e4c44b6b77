#!/usr/bin/env bash
#===- bench/run_handover_chain.sh - x by sentinel, producer in the chain ---===#
#
# On the GPU machine (carry `third_party_cache`): configures the runtime
# without MLIR as bench/run_gemm.sh does (build-gpu/), builds
# lamport-handover-chain (bench/handover_chain.cu) and runs it at four
# weight shapes, one wave of CTAs each: whether a GEMM that polls its x for
# the -0.0 sentinel, its wait moved to its exit, finishes a layer sooner
# than one that waits for the producer's grid (docs/design/gemm.md, "Open
# gaps"). Arguments go to every run (e.g. --replays 50).
#
#   bash bench/run_handover_chain.sh [ARGS...]
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_handover_chain.sh || exit 2
build_cuda_tool run_handover_chain.sh lamport-handover-chain || exit 2
status=0
# K, held words a thread, CTAs, tokens: N = CTAs x 2048 x words / K.
for shape in "320 5 160 1,8,16" "1280 10 320 1,8,16" "4096 8 256 1,8" \
  "5632 11 264 1,8"; do
  read -r k words ctas tokens <<<"$shape"
  "$build/bin/lamport-handover-chain" --k "$k" --words "$words" \
    --ctas "$ctas" --m "$tokens" "$@" || status=1
  echo
done
exit $status
