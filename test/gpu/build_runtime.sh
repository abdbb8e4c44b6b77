#!/usr/bin/env bash
#===- test/gpu/build_runtime.sh - The runtime built on a GPU machine -----===#
#
# Sourced by the GPU scripts (test/gpu, bench): the GPU machines have no
# MLIR, so each builds the runtime and its tools with the compiler off.
#
#   source "$root/test/gpu/build_runtime.sh"
#   build_runtime SCRIPT BUILD_DIR LOG TARGET... || exit 2
#
# Configures BUILD_DIR (Release, LAMPORT_ENABLE_COMPILER=OFF) and builds the
# TARGETs, the output in LOG; on a failure prints LOG's last 30 lines and
# "SCRIPT: the runtime did not build (log: LOG)", and returns 2.
#
#===----------------------------------------------------------------------===#

build_runtime() {
  local script=$1 build=$2 log=$3
  shift 3
  if ! { cmake -G Ninja -S "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." &&
    pwd)" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLAMPORT_ENABLE_COMPILER=OFF -DLAMPORT_ENABLE_RUNTIME=ON &&
    ninja -C "$build" "$@"; } >"$log" 2>&1; then
    tail -30 "$log"
    echo "$script: the runtime did not build (log: $log)"
    return 2
  fi
}
