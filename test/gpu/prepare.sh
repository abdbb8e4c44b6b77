#!/usr/bin/env bash
#===- test/gpu/prepare.sh - What test/gpu/run.sh needs, made here --------===#
#
# Run on the build machine (MLIR, no GPU) before a GPU run:
#   - compiles the GPU checks' programs into bundles/ with lamport-compile:
#     publish_poll_tp2/4/8 and all_reduce_tp8 (docs/examples), and
#     all_reduce_pairwise_tp4 (test/gpu/programs);
#   - copies nlohmann/json's headers into third_party_cache/ (the GPU
#     machine has no package manager).
# Then copy `bundles` and `third_party_cache` to the GPU machine and run
# test/gpu/run.sh there.
#
#   bash test/gpu/prepare.sh [LAMPORT_COMPILE]     (default: build/bin/...)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare.sh "${1:-}"
mkdir -p "$root/bundles"
for tp in 2 4 8; do
  rm -rf "$root/bundles/publish_poll_tp$tp"
  "$compile" "$root/docs/examples/publish_poll_rows_tp$tp.mlir" \
    -o "$root/bundles/publish_poll_tp$tp"
done
rm -rf "$root/bundles/all_reduce_tp8"
"$compile" "$root/docs/examples/all_reduce_tp8.mlir" \
  -o "$root/bundles/all_reduce_tp8"
rm -rf "$root/bundles/all_reduce_pairwise_tp4"
"$compile" "$root/test/gpu/programs/all_reduce_pairwise_tp4.mlir" \
  -o "$root/bundles/all_reduce_pairwise_tp4"
cache_json_headers prepare.sh
du -sh "$root/bundles" "$root/third_party_cache"
ls "$root/bundles"
