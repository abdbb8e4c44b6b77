#!/usr/bin/env bash
#===- bench/prepare_boundary_peer.sh - Bundles for run_boundary_peer.sh --===#
#
# Run where MLIR is (no GPU needed), before bench/run_boundary_peer.sh:
#   - compiles the decode boundaries of docs/examples for tp 2, 4 and 8 (the
#     fused attention boundary, the same boundary unfused, the unpooler
#     boundary, the boundary alone from partials) and the standalone dual norm of the NCCL baseline
#     (test/gpu/programs/dual_norm_h8192.mlir) into bundles/boundary_peer/;
#   - checks that lamport-boundary-bench accepts each fused bundle with the
#     dual norm (--plan), when it is built next to lamport-compile;
#   - copies nlohmann/json's headers into third_party_cache/.
# Then copy `bundles` and `third_party_cache` to the multi-GPU machine.
#
#   bash bench/prepare_boundary_peer.sh [LAMPORT_COMPILE]   (default build/bin/)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare_boundary_peer.sh "${1:-}"
out=$root/bundles/boundary_peer
rm -rf "$out" && mkdir -p "$out"
examples=$root/docs/examples
for tp in 2 4 8; do
  for kind in attention_boundary attention_boundary_unfused unpooler_boundary \
    reduce_norm_boundary; do
    "$compile" "$examples/${kind}_tp$tp.mlir" -o "$out/${kind}_tp$tp"
  done
  two_launch=reduce_norm_boundary_two_launch
  sed "s/@TP@/$tp/g" "$root/bench/programs/$two_launch.mlir.in" \
    >"$out/${two_launch}_tp$tp.mlir"
  "$compile" "$out/${two_launch}_tp$tp.mlir" -o "$out/${two_launch}_tp$tp"
done
"$compile" "$root/test/gpu/programs/dual_norm_h8192.mlir" \
  -o "$out/dual_norm_h8192"
bench=$(dirname "$compile")/lamport-boundary-bench
if [ -x "$bench" ]; then
  for tp in 2 4 8; do
    "$bench" "$out/attention_boundary_tp$tp" "$out/dual_norm_h8192" --plan \
      --boundary "$out/reduce_norm_boundary_tp$tp" >/dev/null
  done
  echo "lamport-boundary-bench --plan accepts every pair"
fi
cache_json_headers prepare_boundary_peer.sh
du -sh "$out"
ls "$out"
