#!/usr/bin/env bash
#===- bench/run_tactics.sh - The tactic-selection checks, on the GPU -----===#
#
# Builds lamport-gemm-bench without MLIR (build-gpu/), then times the
# bundles bench/prepare_tactics.py compiled where MLIR is (copy
# bundles/tactics.tar.xz, or bundles/tactics unpacked): the seed shapes from
# the sm_90 table against the hand-written tactics (bundles/tactics/seed)
# and lamport-tune's candidates for the real-model shapes the model was
# fitted to (bundles/tactics/tune), for those it was not
# (bundles/tactics/fresh, unseen) and for those the table lacks
# (bundles/tactics/untabled), `lamport-tune time`; launch shapes
# outside the sweep (bundles/tactics/explore). Writes the bench's reports
# and each set's candidates.json and results.json to $OUT where it is set
# (for `lamport-tune merge` and refits where MLIR is), and prints the
# checks' tables last (bench/tactics_report.py; docs/tactics.md, "Checks").
# SETS (default "seed explore tune fresh unseen untabled") names the parts
# to time, to split them over several runs where one would be too long;
# bench/tactics_report.py then prints the tables from the saved sets.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_tactics.sh || exit 2
out=${OUT:-$build}
bench=$build/bin/lamport-gemm-bench
# Only this run's reports below (the build directory outlives a run).
rm -f "$out/tactics_seed.json" "$out/tactics_explore.json"
if [ -f "$root/bundles/tactics.tar.xz" ]; then
  rm -rf "$root/bundles/tactics"
  tar -C "$root/bundles" -xJf "$root/bundles/tactics.tar.xz" || exit 2
fi
asked=" ${SETS:-seed explore tune fresh unseen untabled} "
wanted() { [[ $asked == *" $1 "* ]]; }
if wanted seed; then
  "$bench" --json "$out/tactics_seed.json" "$root"/bundles/tactics/seed/* \
    >"$out/tactics_seed.log" 2>&1
  echo "seed bench: status $? ($(grep -c PASS "$out/tactics_seed.log") PASS lines)"
fi
explore=$root/bundles/tactics/explore
if wanted explore && [ -d "$explore" ]; then
  "$bench" --json "$out/tactics_explore.json" "$explore"/* \
    >"$out/tactics_explore.log" 2>&1
  echo "explore bench: status $? ($(grep -c PASS "$out/tactics_explore.log") PASS lines)"
fi
sets=()
for set in tune fresh unseen untabled; do
  dir=$root/bundles/tactics/$set
  wanted "$set" && [ -d "$dir" ] || continue
  python3 "$root/tools/lamport-tune/lamport-tune" time "$dir" --bench "$bench" \
    >"$out/tactics_$set.log" 2>&1
  echo "lamport-tune time $set: status $? ($(grep -c PASS "$out/tactics_$set.log") PASS lines)"
  mkdir -p "$out/$set"
  cp "$dir/candidates.json" "$dir/results.json" "$out/$set/" 2>/dev/null
  sets+=("$dir")
done
if [ -f "$out/tactics_explore.json" ] && [ ${#sets[@]} -gt 0 ]; then
  python3 "$root/bench/tactics_report.py" --explore "$out/tactics_explore.json" "${sets[@]}"
fi
if [ ${#sets[@]} -gt 0 ]; then
  python3 "$root/bench/tactics_report.py" --summary "${sets[@]}"
fi
if [ -f "$out/tactics_seed.json" ]; then
  python3 "$root/bench/tactics_report.py" "$out/tactics_seed.json" "${sets[@]}"
fi
