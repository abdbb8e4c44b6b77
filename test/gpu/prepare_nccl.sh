#!/usr/bin/env bash
#===- test/gpu/prepare_nccl.sh - Bundles for test/gpu/nccl.sh -------------===#
#
# Run where MLIR is (no GPU needed), before test/gpu/nccl.sh: compiles the
# world-size-1 programs the nccl transport runs on one GPU into
# bundles/nccl/ (NCCL refuses two ranks on one GPU, so one GPU runs tp 1):
#   all_reduce_tp1                  docs/examples/all_reduce_tp8.mlir with a
#                                   tp = 1 mailbox;
#   attention_boundary_unfused_tp1  docs/examples/
#                                   attention_boundary_unfused_tp2.mlir with
#                                   a tp = 1 mailbox (the same GEMM shape);
# and copies nlohmann/json's headers into third_party_cache/. Then copy
# `bundles` and `third_party_cache` to the GPU machine.
#
#   bash test/gpu/prepare_nccl.sh [LAMPORT_COMPILE]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare_nccl.sh "${1:-}"
out=$root/bundles/nccl
rm -rf "$out" && mkdir -p "$out/sources"
examples=$root/docs/examples
sed 's/tp = 8, capacity/tp = 1, capacity/' "$examples/all_reduce_tp8.mlir" \
  >"$out/sources/all_reduce_tp1.mlir"
sed 's/tp = 2, capacity/tp = 1, capacity/' \
  "$examples/attention_boundary_unfused_tp2.mlir" \
  >"$out/sources/attention_boundary_unfused_tp1.mlir"
for name in all_reduce_tp1 attention_boundary_unfused_tp1; do
  grep -q 'tp = 1, capacity' "$out/sources/$name.mlir" ||
    { echo "prepare_nccl.sh: $name has no tp = 1 mailbox"; exit 2; }
  "$compile" "$out/sources/$name.mlir" -o "$out/$name"
done
cache_json_headers prepare_nccl.sh
du -sh "$out"
ls "$out"
