#!/usr/bin/env bash
#===- bench/run_untabled_bounds.sh - Bounds on the untabled shapes' chain -===#
#
# Run on the GPU machine (carry bundles/untabled_best, bundles/
# untabled_twins and third_party_cache). What the tactic checks' untabled
# shapes (docs/tactics.md, "Checks") could still gain after the PDL wait:
#   1. bench/run_stream_floor.sh --hold at their fourteen weight sizes (read
#      from the bundles' manifests): the skeleton that holds its weights
#      across the wait and reads one word after it;
#   2. bench/run_x_handover.sh: the tuner's fastest kernel at each of their
#      56 points beside its twins of bench/x_handover_bound.py (the wait at
#      the exits, sleeps after the trigger, x read by every second or
#      fourth CTA only), RUNS (2) lamport-gemm-bench processes.
# Reports go to $OUT (default the build directory); the twins' tables are
# printed last, with cuBLAS over the skeleton's time at each point (cuBLAS
# from the twins' process). Where MLIR is, first:
#
#   python3 bench/x_handover_bound.py \
#     --best bench/data/h200_tactics_twins/untabled --top 1 \
#     --source bundles/untabled_best -o bundles/untabled_twins \
#     --twins latewait,sleep300,sleep700,xshare2,xshare4
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
best=${SOURCE_DIR:-$root/bundles/untabled_best}
twins=${TWINS_DIR:-$root/bundles/untabled_twins}
if ! ls -d "$best"/*/ >/dev/null 2>&1 || ! ls -d "$twins"/*/ >/dev/null 2>&1
then
  echo "run_untabled_bounds.sh: no bundles in $best or $twins (make them" \
    "with bench/x_handover_bound.py --best, above)"
  exit 2
fi
# Each weight's size in MiB as lamport-stream-floor prints it.
sizes=$(python3 - "$root/bench" "$best" <<'EOF'
import glob, json, os, sys
sys.path.insert(0, sys.argv[1])
from tactics_report import mib_text
sizes = {mib_text(*argument["shape"])
         for manifest in glob.glob(os.path.join(sys.argv[2], "*",
                                                "manifest.json"))
         for argument in json.load(open(manifest))["arguments"]
         if argument["name"] == "w"}
print(",".join(sorted(sizes, key=float)))
EOF
)
[ -n "$sizes" ] || { echo "run_untabled_bounds.sh: no weight in $best"; exit 2; }
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench run_untabled_bounds.sh || exit 2
out=${OUT:-$build}
status=0
bash "$root/bench/run_stream_floor.sh" --mib "$sizes" --hold \
  >"$out/hold_untabled.md" 2>&1 || status=1
cat "$out/hold_untabled.md"
# The skeleton's bound with the twins', over the same cuBLAS times.
stream=
grep -q '^| W MiB' "$out/hold_untabled.md" && stream=$out/hold_untabled.md
SOURCE_DIR=$best TWINS_DIR=$twins OUT=$out STREAM=$stream \
  TWINS=${TWINS:-latewait,sleep300,sleep700,xshare2,xshare4} \
  bash "$root/bench/run_x_handover.sh" || status=1
exit $status
