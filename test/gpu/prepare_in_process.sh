#!/usr/bin/env bash
#===- test/gpu/prepare_in_process.sh - Inputs of test/gpu/in_process.sh --===#
#
# Run where MLIR is (no GPU needed), before test/gpu/in_process.sh. Into
# bundles/in_process/:
#   publish_poll_tp2   docs/examples/publish_poll_rows_tp2.mlir compiled by
#                      lamport-compile (polls' timeout: the compiled second);
#   host_lowered.o     the same program lowered as a compiler that lowers its
#                      own host code would (test/HostLowering): the Lamport
#                      pipeline `lamport-lower-program`, then upstream's passes
#                      alone (mlir-opt, mlir-translate, llc), with the real
#                      kernels' PTX in it;
#   host_lowered_twice.o the same of test/HostLowering/Inputs/
#                      publish_poll_rows_twice_tp2.mlir (its exchange twice a
#                      step: several polling images);
# and nlohmann/json's headers into third_party_cache/. Carry `bundles` and
# `third_party_cache` to the GPU machine.
#
#   bash test/gpu/prepare_in_process.sh [LAMPORT_COMPILE]
#
# Environment: LLVM_TOOLS (default /usr/lib/llvm-22/bin: mlir-opt,
# mlir-translate, llc).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/gpu/prepare_common.sh"
find_compile prepare_in_process.sh "${1:-}"
tools=${LLVM_TOOLS:-/usr/lib/llvm-22/bin}
opt=$(dirname "$compile")/lamport-opt
for tool in "$opt" "$tools/mlir-opt" "$tools/mlir-translate" "$tools/llc"; do
  [ -x "$tool" ] || { echo "prepare_in_process.sh: no $tool"; exit 2; }
done
out=$root/bundles/in_process
rm -rf "$out" && mkdir -p "$out"
program=$root/docs/examples/publish_poll_rows_tp2.mlir
"$compile" "$program" -o "$out/publish_poll_tp2"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# lower SOURCE OBJECT: the program as upstream's passes alone lower it.
lower() {
  "$opt" "$1" --lamport-lower-program -o "$work/program.mlir"
  "$tools/mlir-opt" "$work/program.mlir" --gpu-to-llvm --convert-scf-to-cf \
    --convert-to-llvm --reconcile-unrealized-casts -o "$work/program.llvm.mlir"
  "$tools/mlir-translate" --mlir-to-llvmir "$work/program.llvm.mlir" \
    -o "$work/program.ll"
  "$tools/llc" -O2 -relocation-model=pic -filetype=obj "$work/program.ll" \
    -o "$2"
}
lower "$program" "$out/host_lowered.o"
lower "$root/test/HostLowering/Inputs/publish_poll_rows_twice_tp2.mlir" \
  "$out/host_lowered_twice.o"
cache_json_headers prepare_in_process.sh
ls -l "$out" "$out/publish_poll_tp2"
