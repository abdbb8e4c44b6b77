#!/usr/bin/env bash
#===- test/gpu/prepare_faults.sh - Bundles for test/gpu/faults.sh --------===#
#
# Run where MLIR is (no GPU needed), before test/gpu/faults.sh:
#   - compiles, with the polls' timeout at TIMEOUT_NS (default 1 s, what
#     faults.sh's TIMEOUT_S assumes), into bundles/faults/:
#       all_reduce_tp8            docs/examples/all_reduce_tp8.mlir
#       attention_boundary_tp8    the fused tp 8 boundary (gemm_publish +
#                                 all_reduce_dual_norm)
#       reduce_norm_boundary_tp8  the boundary alone (all_reduce_dual_norm
#                                 publishing its partial)
#       publish_poll_tp8          the soak's round trip
#   - copies nlohmann/json's headers into third_party_cache/.
# Then carry `bundles` and `third_party_cache` to the GPU machine.
#
#   bash test/gpu/prepare_faults.sh [LAMPORT_COMPILE]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare_faults.sh "${1:-}"
timeout_ns=${TIMEOUT_NS:-1000000000}
out=$root/bundles/faults
rm -rf "$out" && mkdir -p "$out"
examples=$root/docs/examples
for pair in all_reduce_tp8:all_reduce_tp8 \
  attention_boundary_tp8:attention_boundary_tp8 \
  reduce_norm_boundary_tp8:reduce_norm_boundary_tp8 \
  publish_poll_tp8:publish_poll_rows_tp8; do
  name=${pair%%:*}
  source=$examples/${pair#*:}.mlir
  [ -f "$source" ] || { echo "prepare_faults.sh: missing $source"; exit 2; }
  "$compile" "$source" --timeout-ns "$timeout_ns" -o "$out/$name"
done
cache_json_headers prepare_faults.sh
du -sh "$out"
ls "$out"
