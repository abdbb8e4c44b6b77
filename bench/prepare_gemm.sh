#!/usr/bin/env bash
#===- bench/prepare_gemm.sh - Compile the GEMM benchmark's bundles -------===#
#
# Run where MLIR is. Writes one lamport.gemm_publish program per point of
# docs/performance.md's GEMM table (the seeds' unpooler [M,4096]x[8192/tp,4096]^T and o_proj
# [M,8192/tp]x[8192,8192/tp]^T for tp = 4, 8, 16, at M = 1, 2, 4, 8, 16) and
# tactic variant, and compiles each with lamport-compile into
# bundles/gemm/<shape>_m<M>_s<splits>_kw<kw>_tiles1[_p<passes>][_a<accs>]
# [_publish][_occ<N>][_early], named after the tactic that serves M.
# The variants of a point: the program with the shape's two tactics (one
# for M = 1..8 on the 8-token tile, one for 9..16 on the 16-token tile; the
# op takes both and M picks: docs/design/gemm.md) and the same program
# publishing y into a mailbox of its tp (_publish: the epilogue's cost).
# With PUBLISH_SWEEP="SHAPE:M ..." (e.g. "unpooler_tp8:8 oproj_tp16:1"),
# also every tactic of splits 1, 2, 4 x kw 64, 128 x tiles 1, 2, 4 x accs
# 1, 2, 4 x min_ctas 0, 1 with early dependents at those points, each with
# and without the mailbox: the tactic to choose there is the one whose
# publishing kernel is fastest, since that is the kernel a boundary runs.
# PUBLISH_PASSES="2 4" makes that sweep's tactics take those passes instead
# of one, at one split only (passes need one split): whether an epilogue
# that overlaps the next block's loads hides the stores. PUBLISH_HINTS="2"
# makes it take those min_ctas_per_sm values instead of 0 and 1, and
# PUBLISH_LATE="0 1 2" those late_chunks instead of 0.
# LATE_CHUNKS="1 2 3" also compiles every point's serving tactic with each
# of those late_chunks (its weights' last chunks loaded behind x), where
# the warp has that many chunks to spare, publishing and not.
# With SWEEP=1, also splits 1, 2, 4 x kw 64, 128 at accs 2 around the
# tactic that serves M, each as is, with min_ctas_per_sm = 1 (_occ1:
# ptxas's register budget for one CTA per SM), with early dependents
# (_early: the next kernel may launch before the weight loads) and with
# both, and for o_proj at one split each of those at 2 and 4 passes (_p2,
# _p4: each CTA takes that many blocks of 16 features in turn), at one tile
# (PUBLISH_SWEEP sweeps tiles: docs/design/gemm.md). A
# variant the generator has no kernel for is skipped with its reason. One
# run of bench/run_gemm.sh then times every variant against cuBLAS.
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
skipped=0

# tactic SPLITS KW ACCS MIN_CTAS EARLY PASSES TOKEN_TILES [TILES] [LATE]:
# one #lamport.tactic, knobs at their defaults left out (MIN_CTAS 0, EARLY
# 0, PASSES 1, TILES 1, LATE 0).
tactic() {
  local hint=""
  ((${8:-1} > 1)) && hint="tiles = $8, "
  (($6 > 1)) && hint="${hint}passes = $6, "
  (($4)) && hint="${hint}min_ctas_per_sm = $4, "
  (($5)) && hint="${hint}early_dependents = true, "
  ((${9:-0})) && hint="${hint}late_chunks = $9, "
  echo "#lamport.tactic<splits = $1, kw = $2, accs = $3, ${hint}token_tiles = [$7]>"
}

# variant_name SHAPE M PUBLISH SPLITS KW ACCS MIN_CTAS EARLY PASSES [TILES]
# [LATE]: the bundle's name after the tactic that serves M (accs only where
# not 2, late chunks where not 0).
variant_name() {
  local name=${1}_m${2}_s${4}_kw${5}_tiles${10:-1}
  if (($9 > 1)); then name=${name}_p$9; fi
  if (($6 != 2)); then name=${name}_a$6; fi
  if [ -n "$3" ]; then name=${name}_publish; fi
  if (($7)); then name=${name}_occ$7; fi
  if (($8)); then name=${name}_early; fi
  if ((${11:-0})); then name=${name}_late${11}; fi
  echo "$name"
}

# token_tiles LAST: the token tile of M = 1..LAST, 8 up to 8 tokens, else 16.
token_tiles() {
  local m list=""
  for ((m = 1; m <= $1; ++m)); do
    list="$list${list:+, }$((m <= 8 ? 8 : 16))"
  done
  echo "$list"
}

# split_kw_pairs K: "SPLITS KW" for splits 1, 2, 4 x kw 64, 128, where K /
# (splits x kw) gives 1..32 warps: the pairs the sweeps walk.
split_kw_pairs() {
  local s w warps
  for s in 1 2 4; do
    for w in 64 128; do
      warps=$(($1 / (s * w)))
      ((warps >= 1 && warps <= 32)) && echo "$s $w"
    done
  done
  return 0
}

# late_fits LATE KW: whether a warp of KW K has LATE chunks of 32 K to spare
# (the verifier keeps one before the PDL wait).
late_fits() {
  (($1 * 32 < $2))
}

# publish_sweep_tactics K: "SPLITS KW PASSES TILES ACCS MIN_CTAS LATE" for
# every early-dependents tactic the publishing sweep walks: the split and
# kw pairs x PUBLISH_PASSES (more than one pass at one split only) x tiles
# 1, 2, 4 x accs 1, 2, 4 x PUBLISH_HINTS x PUBLISH_LATE (where the warp has
# a chunk to spare).
publish_sweep_tactics() {
  local s w p t a hint l
  while read -r s w; do
    for p in $publish_passes; do
      ((p > 1 && s > 1)) && continue
      for t in 1 2 4; do
        for a in 1 2 4; do
          for hint in $publish_hints; do
            for l in $publish_late; do
              late_fits "$l" "$w" && echo "$s $w $p $t $a $hint $l"
            done
          done
        done
      done
    done
  done < <(split_kw_pairs "$1")
}

# compile_variant SHAPE N K M TP NAME TACTICS: one bundle of the program
# with TACTICS (the op's tactic list), publishing into a mailbox of tp = TP
# where TP is not empty, or a skip line where the generator has no kernel.
compile_variant() {
  local shape=$1 n=$2 k=$3 m=$4 tp=$5 name=$6 tactics=$7
  local mailbox_arg="" mailbox_use="" check=()
  if [ -n "$tp" ]; then
    local type="!lamport.mailbox<tp = $tp, capacity = 16, width = $n>"
    mailbox_arg=", %mb: $type"
    mailbox_use="mailbox %mb : $type"
    # The GEMM alone publishes with no consumer: a kernel to measure, not a
    # decode step, which the protocol check would refuse.
    check=(--protocol-check=false)
  fi
  cat >"$programs/$name.mlir" <<MLIR
func.func @$shape(%x: memref<${m}x${k}xbf16>, %w: memref<${n}x${k}xbf16>,
                  %y: memref<${m}x${n}xbf16>$mailbox_arg) {
  lamport.gemm_publish %x, %w into %y $mailbox_use
      tactic($tactics)
      {pdl}
      : memref<${m}x${k}xbf16>, memref<${n}x${k}xbf16>, memref<${m}x${n}xbf16>
  return
}
MLIR
  if ! "$compile" "$programs/$name.mlir" -o "$out/$name" ${check[@]+"${check[@]}"} \
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

# shape N K, then the shape's tactics in the order they split M: each
# LAST:SPLITS:KW:TILES:ACCS:MIN_CTAS:EARLY:PASSES[:LATE] serves M past the previous
# one's LAST up to its own (the last reaches 16), on the 8-token tile up to
# 8 tokens and the 16-token tile past them. Chosen from the sweeps in
# docs/design/gemm.md (MIN_CTAS 0 and EARLY 0 ask nothing): by the plain
# GEMM's time, except at unpooler tp8 M = 8, unpooler tp16 and o_proj tp16,
# where a publishing sweep (PUBLISH_SWEEP) chose by the publishing kernel's,
# the one a boundary runs. Every point gets
# the program with all of them, publishing and not; with SWEEP=1 also the
# sweep around the tactic that serves it: splits 1, 2, 4 x kw 64, 128
# (where K / (splits x kw) gives 1..32 warps), one tile, accs 2, each with
# and without the register budget hint and early dependents, and for o_proj
# at one split at 2 and 4 passes as well.
sweep=${SWEEP:-0}
publish_sweep=" ${PUBLISH_SWEEP:-} "
publish_passes=${PUBLISH_PASSES:-1}
publish_hints=${PUBLISH_HINTS:-0 1}
publish_late=${PUBLISH_LATE:-0}
late_chunks=${LATE_CHUNKS:-}
while read -r shape n k specs; do
  tp=${shape##*_tp}
  tactics=""
  for spec in $specs; do
    IFS=: read -r last s w t a occ early p late <<<"$spec"
    tactics="$tactics${tactics:+, }$(tactic "$s" "$w" "$a" "$occ" "$early" \
      "$p" "$(token_tiles "$last")" "$t" "${late:-0}")"
  done
  for m in 1 2 4 8 16; do
    for spec in $specs; do
      IFS=: read -r last s w t a occ early p late <<<"$spec"
      ((m <= last)) && break
    done
    late=${late:-0}
    serving=("$s" "$w" "$a" "$occ" "$early" "$p" "$t" "$late")
    compile_variant "$shape" "$n" "$k" "$m" "" \
      "$(variant_name "$shape" "$m" "" "${serving[@]}")" "$tactics"
    compile_variant "$shape" "$n" "$k" "$m" "$tp" \
      "$(variant_name "$shape" "$m" 1 "${serving[@]}")" "$tactics"
    # The serving tactic with other late chunks (LATE_CHUNKS), publishing
    # and not, where the warp has a chunk to spare.
    for l in $late_chunks; do
      ((l == late)) || ! late_fits "$l" "$w" && continue
      for mailbox in "" "$tp"; do
        compile_variant "$shape" "$n" "$k" "$m" "$mailbox" \
          "$(variant_name "$shape" "$m" "$mailbox" "${serving[@]:0:7}" "$l")" \
          "$(tactic "$s" "$w" "$a" "$occ" "$early" "$p" "$(token_tiles 16)" \
            "$t" "$l")"
      done
    done
    # (The variants come on descriptor 3: the shapes below are on stdin.)
    if [[ $publish_sweep == *" $shape:$m "* ]]; then
      while read -r s w p t a hint l <&3; do
        for mailbox in "" "$tp"; do
          name=$(variant_name "$shape" "$m" "$mailbox" "$s" "$w" "$a" \
            "$hint" 1 "$p" "$t" "$l")
          [ -e "$out/$name" ] && continue
          compile_variant "$shape" "$n" "$k" "$m" "$mailbox" "$name" \
            "$(tactic "$s" "$w" "$a" "$hint" 1 "$p" "$(token_tiles 16)" \
              "$t" "$l")"
        done
      done 3< <(publish_sweep_tactics "$k")
    fi
    ((sweep)) || continue
    while read -r s w <&3; do
      variant_passes=1
      [[ $shape == oproj_* && $s == 1 ]] && variant_passes="1 2 4"
      for p in $variant_passes; do
        for hint in 0 1; do
          for launch in 0 1; do
            name=$(variant_name "$shape" "$m" "" "$s" "$w" 2 "$hint" \
              "$launch" "$p")
            [ -e "$out/$name" ] && continue
            compile_variant "$shape" "$n" "$k" "$m" "" "$name" \
              "$(tactic "$s" "$w" 2 "$hint" "$launch" "$p" "$(token_tiles 16)")"
          done
        done
      done
    done 3< <(split_kw_pairs "$k")
  done
done <<'SHAPES'
unpooler_tp4 2048 4096   4:1:128:1:2:1:1:1:1  8:2:128:4:1:1:1:1  16:2:128:2:1:1:1:1:1
unpooler_tp8 1024 4096   4:1:128:1:2:1:1:1  8:2:64:2:2:1:1:1   16:4:128:2:1:1:1:1
unpooler_tp16 512 4096   8:2:64:1:4:1:1:1   16:4:128:1:4:1:1:1
oproj_tp4 8192 2048      8:1:128:1:2:1:1:4  16:1:128:1:1:1:1:4
oproj_tp8 8192 1024      8:1:128:1:2:1:1:2  16:1:128:1:1:1:1:2:1
oproj_tp16 8192 512      2:1:64:1:4:1:1:1   4:1:128:2:4:0:1:1  8:1:128:2:2:0:1:1  16:1:128:2:1:0:1:1
SHAPES
echo "$(ls "$out" | wc -l) bundles in $out, $skipped variants skipped"
