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
compile=${1:-$root/build/bin/lamport-compile}
if [ ! -x "$compile" ]; then
  echo "prepare.sh: no lamport-compile at $compile (build it, or pass its path)"
  exit 2
fi
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
rm -rf "$root/third_party_cache/nlohmann"
mkdir -p "$root/third_party_cache"
cp -r /usr/include/nlohmann "$root/third_party_cache/"
du -sh "$root/bundles" "$root/third_party_cache"
ls "$root/bundles"
