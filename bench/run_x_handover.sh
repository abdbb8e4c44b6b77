#!/usr/bin/env bash
#===- bench/run_x_handover.sh - Time the x-handover bound's twins --------===#
#
# Run on the GPU machine. Times the plain bundles of bench/prepare_gemm.sh
# (bundles/gemm) beside their twins of bench/x_handover_bound.py
# (bundles/gemm_handover) in one lamport-gemm-bench process, twice, and
# prints both reports' table (docs/design/gemm.md, "Open gaps"). Carry
# `bundles` and `third_party_cache`; reports and logs go to $OUT (default
# the build directory). Each run is cut off after BENCH_TIMEOUT seconds
# (500). SOURCE_DIR and TWINS_DIR time other bundles and their twins
# (x_handover_bound.py --best's); RUNS sets how many runs (2); TWINS, the
# --twins list the twins were made with, limits the report to them;
# STREAM, a lamport-stream-floor table, adds cuBLAS over its times.
#
#   bash bench/prepare_gemm.sh && python3 bench/x_handover_bound.py (here)
#   bash bench/run_x_handover.sh                                    (there)
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_x_handover.sh || exit 2
out=${OUT:-$build}
source_dir=${SOURCE_DIR:-$root/bundles/gemm}
twins_dir=${TWINS_DIR:-$root/bundles/gemm_handover}
plain=$(ls -d "$source_dir"/* | grep -v _publish)
reports=()
for run in $(seq "${RUNS:-2}"); do
  json=$out/x_handover_$run.json log=$out/x_handover_$run.log
  rm -f "$json"  # so that a report is this run's
  # A twin that never gets past its poll or flag would hang the GPU.
  timeout "${BENCH_TIMEOUT:-500}" "$build/bin/lamport-gemm-bench" \
    --json "$json" $plain "$twins_dir"/* >"$log" 2>&1
  status=$?
  if [ $status -eq 1 ] && [ -s "$json" ]; then
    # Rows that missed a check; the report says which (the x-share twins
    # miss by design).
    echo "run_x_handover.sh: run $run: some rows failed their checks ($log)"
  elif [ $status -ne 0 ]; then
    echo "run_x_handover.sh: run $run: lamport-gemm-bench exited $status:"
    tail -5 "$log"
  fi
  [ -s "$json" ] && reports+=("$json")
done
[ ${#reports[@]} -gt 0 ] || exit 2
python3 "$root/bench/x_handover_bound.py" --report "${reports[@]}" \
  ${TWINS:+--twins "$TWINS"} ${STREAM:+--stream "$STREAM"}
