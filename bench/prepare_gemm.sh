#!/usr/bin/env bash
#===- bench/prepare_gemm.sh - Compile the GEMM benchmark's bundles -------===#
#
# Run where MLIR is. Writes one lamport.gemm_publish program per point of
# issue 5 (the seeds' unpooler [M,4096]x[8192/tp,4096]^T and o_proj
# [M,8192/tp]x[8192,8192/tp]^T for tp = 4, 8, 16, at M = 1, 2, 4, 8, 16) and
# compiles each with lamport-compile into bundles/gemm/<shape>_m<M>.
#
#   bash bench/prepare_gemm.sh [LAMPORT_COMPILE]   (default build/bin/...)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compile=${1:-$root/build/bin/lamport-compile}
out=$root/bundles/gemm
programs=$(mktemp -d)
trap 'rm -rf "$programs"' EXIT
rm -rf "$out" && mkdir -p "$out"
tiles="8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16"

# shape N K splits kw: the tactic each shape uses (docs/design/gemm.md).
while read -r shape n k splits kw; do
  for m in 1 2 4 8 16; do
    name=${shape}_m$m
    cat >"$programs/$name.mlir" <<MLIR
func.func @$shape(%x: memref<${m}x${k}xbf16>, %w: memref<${n}x${k}xbf16>,
                  %y: memref<${m}x${n}xbf16>) {
  lamport.gemm_publish %x, %w into %y
      tactic(#lamport.tactic<splits = $splits, kw = $kw, accs = 2,
                             token_tiles = [$tiles]>) {pdl}
      : memref<${m}x${k}xbf16>, memref<${n}x${k}xbf16>, memref<${m}x${n}xbf16>
  return
}
MLIR
    "$compile" "$programs/$name.mlir" -o "$out/$name"
  done
done <<'SHAPES'
unpooler_tp4 2048 4096 1 128
unpooler_tp8 1024 4096 2 128
unpooler_tp16 512 4096 2 64
oproj_tp4 8192 2048 1 128
oproj_tp8 8192 1024 1 128
oproj_tp16 8192 512 1 128
SHAPES
ls "$out" | wc -l
