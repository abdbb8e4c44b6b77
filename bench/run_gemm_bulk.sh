#!/usr/bin/env bash
#===- bench/run_gemm_bulk.sh - The bulk pipeline against today's kernels -===#
#
# Run on the GPU machine. Builds lamport-gemm-bench without MLIR, then, one
# shape at a time, checks and times every bundle of bundles/gemm (bench/
# prepare_gemm.sh: the register pipeline's serving tactics) beside those of
# a directory of candidates, $CANDIDATES (bundles/gemm_bulk by default:
# bench/prepare_gemm_bulk.py's bulk-pipeline tactics; bundles/gemm_occupancy:
# bench/prepare_gemm_occupancy.py's) in one process, so each point's variants
# share inputs, reference and cuBLAS time. Writes gemm_bulk_<shape>.json and
# all of them in results.json to $OUT (or the build directory) and prints
# bench/gemm_bulk_table.py's comparison last.
#
#   python3 bench/prepare_gemm_bulk.py; bash bench/prepare_gemm.sh   (here)
#   bash bench/run_gemm_bulk.sh                                      (there)
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_gemm_bulk.sh || exit 2
out=${OUT:-$build}
candidates=${CANDIDATES:-$root/bundles/gemm_bulk}
[ -d "$candidates" ] || { echo "run_gemm_bulk.sh: no $candidates" >&2; exit 2; }
status=0
jsons=()
for shape in unpooler_tp4 unpooler_tp8 unpooler_tp16 oproj_tp4 oproj_tp8 \
  oproj_tp16; do
  json=$out/gemm_bulk_$shape.json
  rm -f "$json"  # so that a report is this run's
  "$build/bin/lamport-gemm-bench" ${GEMM_BENCH_ARGS:-} --json "$json" \
    "$root"/bundles/gemm/${shape}_m* "$candidates"/${shape}_m* \
    >"$out/gemm_bulk_$shape.log" 2>&1 || status=1
  tail -3 "$out/gemm_bulk_$shape.log"
  [ -s "$json" ] && jsons+=("$json")
done
((${#jsons[@]})) || exit 2
# Every shape's rows in one file: with the candidates' candidates.json
# beside it, the input of `lamport-tune merge`.
python3 -c 'import json, sys
json.dump([r for p in sys.argv[2:] for r in json.load(open(p))],
          open(sys.argv[1], "w"))' "$out/results.json" "${jsons[@]}" || status=1
python3 "$root/bench/gemm_bulk_table.py" --serving "$root/bundles/gemm" \
  "$out/results.json" || status=1
exit $status
