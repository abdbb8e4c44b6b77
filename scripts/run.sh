#!/usr/bin/env bash
# The main job: sets up, builds, then takes one decode boundary through every
# stage on the best target this machine has:
#   verify   parse, verify and print the program (lamport-opt);
#   compile  lamport-compile it into a bundle: PTX, cubins (ptxas), manifest;
#   run      with an NVIDIA GPU, lamport-run every rank of it on that GPU
#            (loopback transport), checked against the host reference and
#            timed; without one, print the bundle's launch plan and say so.
# The default program is the tp = 8 attention boundary of a decode step
# (docs/examples/attention_boundary_tp8.mlir): the o_proj GEMM publishing its
# partial from its epilogue, then the all-reduce fused with the dual norm
# (RMSNorm, gated FP32 residual, RMSNorm) over 1..16 tokens x 8192.
#   bash scripts/run.sh                   # setup + build + all stages
#   bash scripts/run.sh PROGRAM.mlir      # another program
#   SKIP_SETUP=1 BUILD_DIR=build-x bash scripts/run.sh
# STEPS (default 10000) sets how many decode steps the GPU run times.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
program=${1:-$root/docs/examples/attention_boundary_tp8.mlir}
steps=${STEPS:-10000}
if [ -z "${SKIP_SETUP:-}" ]; then bash "$root/scripts/setup.sh"; fi

# Configure like scripts/test.sh, so both share one build directory.
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
# Build output goes to stderr: stdout carries what each stage prints.
ninja -C "$build" lamport-opt lamport-compile lamport-run >&2

stage() { printf '== %s\n' "$*" >&2; }

stage "verify: parse, verify and print $program"
"$build/bin/lamport-opt" "$program"

name=$(basename "$program" .mlir)
bundle=$build/bundles/$name
stage "compile: lamport-compile $program -o $bundle"
rm -rf "$bundle"
"$build/bin/lamport-compile" "$program" -o "$bundle"
ls "$bundle"

# The TP group size of the program's (first) mailbox.
tp=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["mailboxes"][0]["tp"])' \
  "$bundle/manifest.json")

if nvidia-smi -L >/dev/null 2>&1; then
  stage "run: lamport-run on $(nvidia-smi -L | head -n 1), tp = $tp, loopback"
  # NVLink multicast stays off; the loopback transport never uses it.
  export NCCL_NVLS_ENABLE=0
  "$build/bin/lamport-run" "$bundle" --tp "$tp" --transport loopback \
    --tokens all --steps 48 --check
  "$build/bin/lamport-run" "$bundle" --tp "$tp" --transport loopback \
    --tokens 16 --steps "$steps" --graph --bench --check
else
  stage "run: no NVIDIA GPU here; the launch plan lamport-run would follow:"
  "$build/bin/lamport-run" "$bundle" --plan
fi
