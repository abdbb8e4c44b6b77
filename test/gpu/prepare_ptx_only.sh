#!/usr/bin/env bash
#===- test/gpu/prepare_ptx_only.sh - PTX-only bundles for ptx_only.sh ----===#
#
# Run where MLIR is (no GPU needed), before test/gpu/ptx_only.sh:
#   - compiles test/gpu/prepare.sh's programs and the tp 8 attention boundary
#     with `lamport-compile --cubins=false` into bundles/ptx_only/ (the PTX
#     alone: the driver JIT-compiles it at load);
#   - compiles the same boundary with its cubins into bundles/cubin/, so that
#     ptx_only.sh times both images in one run;
#   - copies nlohmann/json's headers into third_party_cache/.
# Then copy `bundles` and `third_party_cache` to the GPU machine.
#
#   bash test/gpu/prepare_ptx_only.sh [LAMPORT_COMPILE]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare_ptx_only.sh "${1:-}"
ptx=$root/bundles/ptx_only
cubin=$root/bundles/cubin
rm -rf "$ptx" "$cubin" && mkdir -p "$cubin"
BUNDLES_DIR=$ptx CUBINS=false bash "$root/test/gpu/prepare.sh" "$compile" \
  >/dev/null
examples=$root/docs/examples
"$compile" "$examples/attention_boundary_tp8.mlir" \
  -o "$ptx/attention_boundary_tp8" --cubins=false
"$compile" "$examples/attention_boundary_tp8.mlir" \
  -o "$cubin/attention_boundary_tp8"
if compgen -G "$ptx/*/*.cubin" >/dev/null; then
  echo "prepare_ptx_only.sh: a PTX-only bundle holds a cubin"
  exit 1
fi
cache_json_headers prepare_ptx_only.sh
du -sh "$ptx" "$cubin"
ls "$ptx" "$cubin"
