#!/usr/bin/env bash
#===- test/gpu/prepare_boundary.sh - Bundles for test/gpu/boundary.sh ----===#
#
# Run where MLIR is (no GPU needed), before test/gpu/boundary.sh:
#   - compiles the decode-boundary examples of docs/examples for tp 2, 4, 8
#     and 16 (fused attention boundary, the same boundary unfused, unpooler
#     boundary), the tp 4 unpooler boundary with a GEMM in dynamic shared
#     memory (test/gpu/programs) and the Python-runtime check's bundles
#     into bundles/boundary/;
#   - copies nlohmann/json's headers into third_party_cache/.
# Then copy `bundles` and `third_party_cache` to the GPU machine.
#
#   bash test/gpu/prepare_boundary.sh [LAMPORT_COMPILE]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare_boundary.sh "${1:-}"
out=$root/bundles/boundary
rm -rf "$out" && mkdir -p "$out"
examples=$root/docs/examples
for tp in 2 4 8 16; do
  for kind in attention_boundary attention_boundary_unfused unpooler_boundary \
    reduce_norm_boundary; do
    source=$examples/${kind}_tp$tp.mlir
    [ -f "$source" ] || { echo "missing $source"; exit 2; }
    "$compile" "$source" -o "$out/${kind}_tp$tp"
  done
done
"$compile" "$root/test/gpu/programs/unpooler_boundary_dynamic_shared_tp4.mlir" \
  -o "$out/unpooler_boundary_dynamic_shared_tp4"
"$compile" "$examples/all_reduce_tp8.mlir" -o "$out/py_all_reduce_tp8"
"$compile" "$examples/publish_poll_rows_tp4.mlir" -o "$out/py_publish_poll_tp4"
cache_json_headers prepare_boundary.sh
du -sh "$out"
ls "$out"
