#===- bench/build_gemm_bench.sh - Build lamport-gemm-bench without MLIR --===#
#
# Sourced by the GEMM scripts that run on the GPU machine (run_gemm.sh,
# profile_gemm.sh) after they set `root`: build_gemm_bench CALLER configures
# the runtime alone (no MLIR there) in $BUILD_DIR (default build-gpu/),
# builds lamport-gemm-bench, sets `build`, and on failure prints the log's
# tail and CALLER's one-line reason and returns 2. build_cuda_tool CALLER
# TARGET then builds one of the plain CUDA tools of bench/ in it (those
# need nvcc), the same way.
#
#===----------------------------------------------------------------------===#

source "$root/test/gpu/build_runtime.sh"

build_gemm_bench() {
  build=${BUILD_DIR:-$root/build-gpu}
  build_runtime "$1" "$build" "$build.gemm-build.log" lamport-gemm-bench
}

build_cuda_tool() {
  if ! ninja -C "$build" "$2" >"$build.$2-build.log" 2>&1; then
    tail -20 "$build.$2-build.log"
    echo "$1: $2 did not build (no nvcc?)"
    return 2
  fi
}
