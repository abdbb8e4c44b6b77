#!/usr/bin/env bash
# Builds the fuzz targets of test/Fuzz in a build directory of their own
# (clang with libFuzzer, ASan and UBSan), replays their seed corpus and the
# regression inputs, and fuzzes each target for a bounded time
# (scripts/run_fuzzers.py). Writes JUnit XML for scripts/summarize_tests.py;
# exits non-zero on any crash.
#   bash scripts/fuzz.sh                      # about 30 s per target
#   FUZZ_SECONDS=1800 bash scripts/fuzz.sh    # about 30 minutes per target
#   FUZZ_SECONDS=0 bash scripts/fuzz.sh       # replay only
#   FUZZ_TARGETS="manifest run-options" bash scripts/fuzz.sh
# FUZZ_SECONDS is the time of a target of share 1: lamport-compile-fuzzer
# gets 1.5 times it, lamport-run-options-fuzzer and lamport-tactic-table-fuzzer
# half (run_fuzzers.py).
# FUZZ_BUILD_DIR (default build-fuzz) is the fuzz build, FUZZ_WORK (default
# FUZZ_BUILD_DIR/fuzz) where seeds, the grown corpora, crash inputs and logs
# go, FUZZ_XML the JUnit file (default FUZZ_WORK/fuzz.xml); BUILD_DIR
# (default build) is a normal build whose lamport-compile writes the
# examples' manifests, seeds of the manifest target. FUZZ_CC and FUZZ_CXX
# name the compiler (default clang-22, the LLVM of the MLIR packages);
# FUZZ_JOBS limits the build's parallel jobs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fuzzbuild=${FUZZ_BUILD_DIR:-$root/build-fuzz}
work=${FUZZ_WORK:-$fuzzbuild/fuzz}
cc=${FUZZ_CC:-clang-22}
cxx=${FUZZ_CXX:-clang++-22}

if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found: install clang-22 and libclang-rt-22-dev" \
    "(scripts/setup.sh), or skip the fuzz step with SKIP_FUZZ=1" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

start=$SECONDS
cmake -G Ninja -S "$root" -B "$fuzzbuild" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DLAMPORT_ENABLE_FUZZERS=ON "${launcher[@]}" >/dev/null
ninja -C "$fuzzbuild" ${FUZZ_JOBS:+-j "$FUZZ_JOBS"} lamport-fuzzers
echo "fuzz: built the fuzz targets in $((SECONDS - start)) s"

start=$SECONDS
status=0
python3 "$root/scripts/run_fuzzers.py" --root "$root" \
  --bin "$fuzzbuild/bin" --build "${BUILD_DIR:-$root/build}" \
  --work "$work" --xml "${FUZZ_XML:-$work/fuzz.xml}" \
  --seconds "${FUZZ_SECONDS:-30}" \
  ${FUZZ_TARGETS:+--targets "$FUZZ_TARGETS"} || status=1
echo "fuzz: replayed and fuzzed in $((SECONDS - start)) s"
exit $status
