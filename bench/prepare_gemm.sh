#!/usr/bin/env bash
#===- bench/prepare_gemm.sh - Compile the GEMM benchmark's bundles -------===#
#
# Run where MLIR is. Writes one lamport.gemm_publish program per point of
# issue 5 (the seeds' unpooler [M,4096]x[8192/tp,4096]^T and o_proj
# [M,8192/tp]x[8192,8192/tp]^T for tp = 4, 8, 16, at M = 1, 2, 4, 8, 16) and
# tactic variant, and compiles each with lamport-compile into
# bundles/gemm/<shape>_m<M>_s<splits>_kw<kw>_tiles1[_p<passes>][_publish]
# [_occ1][_early].
# The variants of a point: the shape's tactic (docs/design/gemm.md) and
# the same tactic publishing y into a mailbox of its tp (_publish: the
# epilogue's cost). With SWEEP=1, also splits 1, 2, 4 x kw 64, 128 around
# it, each as is, with min_ctas_per_sm = 1 (_occ1: ptxas's register budget
# for one CTA per SM), with early dependents (_early: the next kernel may
# launch before the weight loads) and with both, and for o_proj at one
# split each of those at 2 and 4 passes (_p2, _p4: each CTA takes that many
# blocks of 16 features in turn). (Several tiles per CTA were measured and
# do not pay: docs/design/gemm.md.) A variant the generator has no kernel
# for is skipped with its reason. One run of bench/run_gemm.sh then times
# every variant against cuBLAS.
#
#   [SWEEP=1] bash bench/prepare_gemm.sh [LAMPORT_COMPILE]
#                                     (default build/bin/lamport-compile)
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

# compile SHAPE N K M SPLITS KW TILES [TP [MIN_CTAS [EARLY [PASSES]]]]: one
# bundle, or a skip line where the generator has no kernel for the tactic.
# With PASSES > 1, each CTA takes that many blocks in turn (_p<PASSES>).
# With TP, the GEMM also publishes y into a mailbox of tp = TP (the
# zero-copy epilogue; name ending in _publish); with MIN_CTAS, the tactic
# asks ptxas for registers that leave room for MIN_CTAS CTAs per SM
# (_occ<MIN_CTAS>); with EARLY non-empty, early_dependents = true (_early).
compile_variant() {
  local shape=$1 n=$2 k=$3 m=$4 splits=$5 kw=$6 tiles=$7 tp=${8:-}
  local min_ctas=${9:-} early=${10:-} passes=${11:-1}
  local name=${shape}_m${m}_s${splits}_kw${kw}_tiles${tiles}
  local mailbox_arg="" mailbox_use="" hint=""
  if ((passes > 1)); then
    name=${name}_p$passes
    hint="passes = $passes, "
  fi
  if [ -n "$tp" ]; then
    name=${name}_publish
    local type="!lamport.mailbox<tp = $tp, capacity = 16, width = $n>"
    mailbox_arg=", %mb: $type"
    mailbox_use="mailbox %mb : $type"
  fi
  if [ -n "$min_ctas" ]; then
    name=${name}_occ$min_ctas
    hint="${hint}min_ctas_per_sm = $min_ctas, "
  fi
  if [ -n "$early" ]; then
    name=${name}_early
    hint="${hint}early_dependents = true, "
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

# shape N K splits kw min_ctas early passes: the tactic each shape uses
# (docs/design/gemm.md; min_ctas 0 and early 0 ask nothing). Every point
# gets its tactic and the tactic publishing y; with SWEEP=1 also the sweep
# around it: splits 1, 2, 4 x kw 64, 128 (where K / (splits x kw) gives
# 1..32 warps), each with and without the register budget hint and early
# dependents, and for o_proj at one split 2 and 4 passes as well.
sweep=${SWEEP:-0}
while read -r shape n k splits kw min_ctas early passes; do
  ((min_ctas)) || min_ctas=""
  ((early)) || early=""
  tp=${shape##*_tp}
  for m in 1 2 4 8 16; do
    compile_variant "$shape" "$n" "$k" "$m" "$splits" "$kw" 1 "" \
      "$min_ctas" "$early" "$passes"
    compile_variant "$shape" "$n" "$k" "$m" "$splits" "$kw" 1 "$tp" \
      "$min_ctas" "$early" "$passes"
    ((sweep)) || continue
    for s in 1 2 4; do
      for w in 64 128; do
        warps=$((k / (s * w)))
        ((warps >= 1 && warps <= 32)) || continue
        variant_passes=1
        [[ $shape == oproj_* && $s == 1 ]] && variant_passes="1 2 4"
        for p in $variant_passes; do
          for hint in "" 1; do
            for launch in "" 1; do
              [[ $s == "$splits" && $w == "$kw" && $p == "$passes" &&
                $hint == "$min_ctas" && $launch == "$early" ]] && continue
              compile_variant "$shape" "$n" "$k" "$m" "$s" "$w" 1 "" \
                "$hint" "$launch" "$p"
            done
          done
        done
      done
    done
  done
done <<'SHAPES'
unpooler_tp4 2048 4096 1 128 0 0 1
unpooler_tp8 1024 4096 1 128 0 0 1
unpooler_tp16 512 4096 2 128 1 0 1
oproj_tp4 8192 2048 1 128 0 0 4
oproj_tp8 8192 1024 1 128 1 1 1
oproj_tp16 8192 512 1 128 1 0 1
SHAPES
echo "$(ls "$out" | wc -l) bundles in $out, $skipped variants skipped"
