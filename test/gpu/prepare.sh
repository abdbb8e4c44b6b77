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
# Environment: BUNDLES_DIR (bundles), CUBINS (true; false: the PTX alone,
# lamport-compile --cubins=false).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare.sh "${1:-}"
out=${BUNDLES_DIR:-$root/bundles}
flags=()
[ "${CUBINS:-true}" = false ] && flags=(--cubins=false)
mkdir -p "$out"
compile_into() { # SOURCE NAME
  rm -rf "${out:?}/$2"
  "$compile" "$1" -o "$out/$2" "${flags[@]}"
}
for tp in 2 4 8; do
  compile_into "$root/docs/examples/publish_poll_rows_tp$tp.mlir" \
    "publish_poll_tp$tp"
done
compile_into "$root/docs/examples/all_reduce_tp8.mlir" all_reduce_tp8
compile_into "$root/test/gpu/programs/all_reduce_pairwise_tp4.mlir" \
  all_reduce_pairwise_tp4
cache_json_headers prepare.sh
du -sh "$out" "$root/third_party_cache"
ls "$out"
