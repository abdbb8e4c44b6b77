#!/usr/bin/env bash
# The main job: sets up, builds, then takes one boundary program through the
# stages that exist so far. Today that is one stage: parse, verify and print
# the tp = 8 attention boundary (docs/examples/attention_boundary_tp8.mlir).
#   bash scripts/run.sh                   # setup + build + run
#   bash scripts/run.sh PROGRAM.mlir      # another program
#   SKIP_SETUP=1 BUILD_DIR=build-x bash scripts/run.sh
# Later stages slot in after `verify`: compile the program into a bundle with
# lamport-compile, and run the bundle with lamport-run where a GPU is present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
program=${1:-$root/docs/examples/attention_boundary_tp8.mlir}
if [ -z "${SKIP_SETUP:-}" ]; then bash "$root/scripts/setup.sh"; fi

# Configure like scripts/test.sh, so both share one build directory.
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
# Build output goes to stderr: stdout carries only the printed program.
ninja -C "$build" lamport-opt >&2

stage() { printf '== %s\n' "$*" >&2; }

# Parse and verify the program, and print it back: the dialect's verifiers
# reject a shape, tactic or mailbox the kernels cannot run.
verify() {
  stage "parse, verify and print $1"
  "$build/bin/lamport-opt" "$1"
}

verify "$program"
