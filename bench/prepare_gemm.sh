#!/usr/bin/env bash
#===- bench/prepare_gemm.sh - Compile the GEMM benchmark's bundles -------===#
#
# Run where MLIR is. Writes one lamport.gemm_publish program per point of
# issue 5 (the seeds' unpooler [M,4096]x[8192/tp,4096]^T and o_proj
# [M,8192/tp]x[8192,8192/tp]^T for tp = 4, 8, 16, at M = 1, 2, 4, 8, 16) and
# tactic variant, and compiles each with lamport-compile into
# bundles/gemm/<shape>_m<M>_s<splits>_kw<kw>_tiles<tiles>. The variants of a
# shape: its tactic (docs/design/gemm.md) at 1, 2 and 4 tiles of 16 features
# per CTA, and for o_proj also kw = 64 at 2 tiles; and the shape's tactic at
# 1 tile publishing y into a mailbox (_publish: the epilogue's cost); and
# the shape's tactic at 1 tile with min_ctas_per_sm = 1 (_occ1: ptxas's
# register budget for one CTA per SM, docs/design/gemm.md). A variant the
# generator
# has no kernel for (the reduction's shared memory grows with the tiles, so
# some only fit the 8-token tile) is skipped with its reason. One run of
# bench/run_gemm.sh then times every variant against cuBLAS.
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
token_tiles="8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16"
skipped=0

# compile SHAPE N K M SPLITS KW TILES [TP [MIN_CTAS]]: one bundle, or a skip
# line where the generator has no kernel for the tactic. With TP, the GEMM
# also publishes y into a mailbox of tp = TP (the zero-copy epilogue; bundle
# name ending in _publish); with MIN_CTAS, the tactic asks ptxas for
# registers that leave room for MIN_CTAS CTAs per SM (name ending in
# _occ<MIN_CTAS>).
compile_variant() {
  local shape=$1 n=$2 k=$3 m=$4 splits=$5 kw=$6 tiles=$7 tp=${8:-}
  local min_ctas=${9:-}
  local name=${shape}_m${m}_s${splits}_kw${kw}_tiles${tiles}
  local mailbox_arg="" mailbox_use="" hint=""
  if [ -n "$tp" ]; then
    name=${name}_publish
    local type="!lamport.mailbox<tp = $tp, capacity = 16, width = $n>"
    mailbox_arg=", %mb: $type"
    mailbox_use="mailbox %mb : $type"
  fi
  if [ -n "$min_ctas" ]; then
    name=${name}_occ$min_ctas
    hint="min_ctas_per_sm = $min_ctas, "
  fi
  cat >"$programs/$name.mlir" <<MLIR
func.func @$shape(%x: memref<${m}x${k}xbf16>, %w: memref<${n}x${k}xbf16>,
                  %y: memref<${m}x${n}xbf16>$mailbox_arg) {
  lamport.gemm_publish %x, %w into %y $mailbox_use
      tactic(#lamport.tactic<splits = $splits, kw = $kw, accs = 2,
                             tiles = $tiles, ${hint}token_tiles = [$token_tiles]>)
      {pdl}
      : memref<${m}x${k}xbf16>, memref<${n}x${k}xbf16>, memref<${m}x${n}xbf16>
  return
}
MLIR
  if ! "$compile" "$programs/$name.mlir" -o "$out/$name" \
    2>"$programs/$name.err"; then
    if grep -q "has no kernel" "$programs/$name.err"; then
      echo "skip $name: $(grep -o 'has no kernel: .*' "$programs/$name.err")"
      skipped=$((skipped + 1))
      return
    fi
    cat "$programs/$name.err" >&2
    exit 1
  fi
}

# shape N K splits kw: the tactic each shape uses (docs/design/gemm.md).
while read -r shape n k splits kw; do
  for m in 1 2 4 8 16; do
    for tiles in 1 2 4; do
      compile_variant "$shape" "$n" "$k" "$m" "$splits" "$kw" "$tiles"
    done
    # The same GEMM publishing y into its TP group's mailbox.
    compile_variant "$shape" "$n" "$k" "$m" "$splits" "$kw" 1 "${shape##*_tp}"
    # The same GEMM with ptxas's register budget for one CTA per SM.
    compile_variant "$shape" "$n" "$k" "$m" "$splits" "$kw" 1 "" 1
    # o_proj: more warps of half the K each, with the activations shared by
    # two tiles.
    if [[ $shape == oproj_* && $kw != 64 ]]; then
      compile_variant "$shape" "$n" "$k" "$m" "$splits" 64 2
    fi
  done
done <<'SHAPES'
unpooler_tp4 2048 4096 1 128
unpooler_tp8 1024 4096 2 128
unpooler_tp16 512 4096 2 64
oproj_tp4 8192 2048 1 128
oproj_tp8 8192 1024 1 128
oproj_tp16 8192 512 1 128
SHAPES
echo "$(ls "$out" | wc -l) bundles in $out, $skipped variants skipped"
