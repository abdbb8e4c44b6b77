#!/usr/bin/env bash
#===- bench/run_tactics.sh - The tactic-selection checks, on the GPU -----===#
#
# Builds lamport-gemm-bench without MLIR (build-gpu/), then times the
# bundles bench/prepare_tactics.py compiled where MLIR is (copy `bundles`):
# the seed shapes from the sm_90 table against the hand-written tactics
# (bundles/tactics/seed) and lamport-tune's candidates for the real-model
# shapes (bundles/tactics/tune, `lamport-tune time`). Writes the bench's
# reports and lamport-tune's candidates.json and results.json to $OUT where
# it is set (for `lamport-tune merge` where MLIR is), and prints the two
# checks' tables last (bench/tactics_report.py; docs/tactics.md, "Checks").
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_tactics.sh || exit 2
out=${OUT:-$build}
bench=$build/bin/lamport-gemm-bench
tune=$root/bundles/tactics/tune
"$bench" --json "$out/tactics_seed.json" "$root"/bundles/tactics/seed/* \
  >"$out/tactics_seed.log" 2>&1
echo "seed bench: status $? ($(grep -c PASS "$out/tactics_seed.log") PASS lines)"
python3 "$root/tools/lamport-tune/lamport-tune" time "$tune" --bench "$bench" \
  >"$out/tactics_tune.log" 2>&1
echo "lamport-tune time: status $? ($(grep -c PASS "$out/tactics_tune.log") PASS lines)"
cp "$tune/candidates.json" "$tune/results.json" "$out/" 2>/dev/null
python3 "$root/bench/tactics_report.py" "$out/tactics_seed.json" "$tune"
