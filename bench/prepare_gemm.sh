#!/usr/bin/env bash
#===- bench/prepare_gemm.sh - Compile the GEMM benchmark's bundles -------===#
#
# Run where MLIR is. Writes one lamport.gemm_publish program per point of
# docs/performance.md's GEMM table (the seeds' unpooler [M,4096]x[8192/tp,4096]^T and o_proj
# [M,8192/tp]x[8192,8192/tp]^T for tp = 4, 8, 16, at M = 1, 2, 4, 8, 16),
# without tactics: lamport-select-tactics gives each the sm_90 tactic
# table's (data/tactics/sm_90.json, docs/tactics.md). Each is compiled with
# lamport-compile into bundles/gemm/<shape>_m<M>_s<splits>_kw<kw>_tiles<R>
# [_p<passes>][_a<accs>][_publish][_occ<N>][_early][_late<N>], named after
# the tactic that serves M, and again publishing y into a mailbox of its tp
# with the same tactic written on the op (_publish: the epilogue's cost).
# Also copies nlohmann/json's headers into third_party_cache/. One run of
# bench/run_gemm.sh then times every bundle against cuBLAS (carry `bundles`
# and `third_party_cache`).
# Sweeps of other tactics are lamport-tune's (docs/tactics.md, "Tuning"):
# the sweep space is the compiler's.
#
#   bash bench/prepare_gemm.sh [BUILD_BIN]   (default build/bin)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/test/gpu/prepare_common.sh"
bin=${1:-$root/build/bin}
find_compile prepare_gemm.sh "$bin/lamport-compile"
out=$root/bundles/gemm
programs=$(mktemp -d)
trap 'rm -rf "$programs"' EXIT
rm -rf "$out" && mkdir -p "$out"

# point SHAPE N K M: the program from the table and its publishing twin.
point() {
  python3 - "$root" "$bin" "$programs" "$out" "$@" <<'PYTHON'
import os, subprocess, sys
root, bin_dir, programs, out, shape, n, k, m = sys.argv[1:]
n, k, m, tp = int(n), int(k), int(m), int(shape.rsplit("_tp", 1)[1])
sys.path.insert(0, os.path.join(root, "bench"))
from tune_module import tune
tactic, _ = tune.select(os.path.join(bin_dir, "lamport-opt"),
                        tune.program(shape, n, k, m), "")
for publish in (False, True):
    name = tune.bundle_name(shape, m, tactic, publish)
    # The twin publishes with the plain program's tactic: the epilogue's
    # cost is the difference.
    text = tune.program(shape, n, k, m, tune.tactic_text(tactic, m) if publish
                        else None, tp if publish else None)
    source = os.path.join(programs, name + ".mlir")
    open(source, "w").write(text)
    # The GEMM alone publishes with no consumer: a kernel to measure, not a
    # decode step, which the protocol check would refuse.
    subprocess.run([os.path.join(bin_dir, "lamport-compile"), source, "-o",
                    os.path.join(out, name)] +
                   (["--protocol-check=false"] if publish else []), check=True)
PYTHON
}

while read -r shape n k; do
  for m in 1 2 4 8 16; do
    point "$shape" "$n" "$k" "$m"
  done
done <<'SHAPES'
unpooler_tp4 2048 4096
unpooler_tp8 1024 4096
unpooler_tp16 512 4096
oproj_tp4 8192 2048
oproj_tp8 8192 1024
oproj_tp16 8192 512
SHAPES
cache_json_headers prepare_gemm.sh
echo "$(ls "$out" | wc -l) bundles in $out"
