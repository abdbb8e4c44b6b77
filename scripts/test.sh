#!/usr/bin/env bash
# Sets up, builds and runs every Lamport test that needs no GPU, then prints
# one closing line "N passed, N failed, N skipped" over all suites.
#   bash scripts/test.sh            # setup + build + test
#   SKIP_SETUP=1 bash scripts/test.sh
#   SKIP_FUZZ=1 bash scripts/test.sh     # without the fuzz step (not in CI)
# The fuzz step (scripts/fuzz.sh) builds the fuzz targets in a build of
# their own, replays their corpus and regression inputs and fuzzes each
# target for about FUZZ_SECONDS (default 30). With CI=true it always runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [ -z "${SKIP_SETUP:-}" ]; then bash "$root/scripts/setup.sh"; fi

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build" lamport-test-depends

results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
status=0
# one_case SUITE FILE ELEMENT: a JUnit file of one case standing for the whole
# suite, ELEMENT its <failure> or <skipped>. results_or_failure SUITE FILE
# WHY: a suite that stopped before writing its JUnit file counts as one
# failed test, so the closing line shows it.
one_case() {
  printf '<testsuite name="%s"><testcase classname="%s" name="%s">%s%s\n' \
    "$1" "$1" "$1" "$3" "</testcase></testsuite>" >"$2"
}
results_or_failure() {
  [ -f "$2" ] || one_case "$1" "$2" "<failure message=\"$3\"/>"
}
/usr/lib/llvm-22/bin/lit -v --xunit-xml-output "$results/lit.xml" \
  "$build/test" || status=1
results_or_failure lit "$results/lit.xml" "lit stopped"

# The runtime's unit tests (GoogleTest, no GPU), when the runtime is built.
if [ -x "$build/bin/LamportRuntimeTests" ]; then
  "$build/bin/LamportRuntimeTests" --gtest_output="xml:$results/runtime.xml" \
    >"$results/runtime.log" 2>&1 || { status=1; cat "$results/runtime.log"; }
  results_or_failure runtime "$results/runtime.xml" "LamportRuntimeTests stopped"
fi

# The lamport Python package: the wheel that carries its MLIR
# (scripts/wheel.sh: pip over this CMake build with
# LAMPORT_PYTHON_PACKAGE_ONLY, then auditwheel repair), installed into a
# fresh virtual environment, and its tests (pytest, no GPU) run against the
# installed package from a directory where the checkout's python/ is not on
# the path. The runtime part (lamport.Runtime) runs over the host-only
# libcuda of test/Runtime/FakeDriver when the runtime is built; torch (the
# torch extra, CPU only here) runs lamport.torch.Boundary under torch.compile.
# test_runtime_package.py is the lamport-runtime wheel's (below).
# PyPI's torch brings CUDA's libraries, about 6 GB installed: pip keeps no
# cache of them, and a venv whose tests passed is removed at once, so the
# steps after it (the fuzz build) do not run short of disk.
wheels="$build/python-wheels" venv="$build/python-venv"
rm -rf "$wheels" "$venv"
if bash "$root/scripts/wheel.sh" "$wheels" >"$results/wheel.log" 2>&1 &&
   python3 -m venv "$venv" &&
   "$venv/bin/pip" install -q --no-cache-dir \
     "$(ls "$wheels"/lamport-*.whl)[test,torch]" >>"$results/wheel.log" 2>&1
then
  if (cd "$results" && LAMPORT_TEST_INSTALLED=1 LAMPORT_TEST_SELF_CONTAINED=1 \
    LAMPORT_FAKE_CUDA_DIR="$build/fake-cuda" LAMPORT_FAKE_NCCL_DIR="$build/fake-nccl" \
    LAMPORT_RUN="$build/bin/lamport-run" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    --junitxml="$results/python.xml" "$root/test/Python" \
    --ignore="$root/test/Python/test_runtime_package.py" \
    >"$results/python.log" 2>&1); then
    rm -rf "$venv"
  else
    status=1; cat "$results/python.log"
  fi
  results_or_failure python "$results/python.xml" "pytest stopped"
else
  status=1; cat "$results/wheel.log"
  df -h "$build" | sed 's/^/free disk: /'
  results_or_failure python "$results/python.xml" \
    "the wheel did not build or install (wheel.log)"
fi

# The lamport-runtime wheel (scripts/wheel.sh --runtime: the package without
# the compiler, for machines that only run bundles) in a virtual environment
# of its own: what it holds and refuses, and the runtime's tests against it.
if [ -x "$build/bin/LamportRuntimeTests" ]; then
  runtime_venv="$build/python-runtime-venv"
  rm -rf "$runtime_venv"
  if bash "$root/scripts/wheel.sh" --runtime "$wheels" \
       >"$results/runtime-wheel.log" 2>&1 &&
     python3 -m venv "$runtime_venv" &&
     "$runtime_venv/bin/pip" install -q --no-cache-dir \
       "$(ls "$wheels"/lamport_runtime-*.whl)[test]" \
       >>"$results/runtime-wheel.log" 2>&1; then
    (cd "$results" && LAMPORT_TEST_RUNTIME_PACKAGE=1 \
      LAMPORT_FAKE_CUDA_DIR="$build/fake-cuda" LAMPORT_FAKE_NCCL_DIR="$build/fake-nccl" \
      LAMPORT_RUN="$build/bin/lamport-run" \
      "$runtime_venv/bin/python" -m pytest -q -p no:cacheprovider \
      --junit-prefix=runtime_package \
      --junitxml="$results/python-runtime.xml" \
      "$root/test/Python/test_runtime_package.py" \
      "$root/test/Python/test_runtime.py" \
      "$root/test/Python/test_rank_processes.py" \
      "$root/test/Python/test_bundle_schema.py" \
      >"$results/python-runtime.log" 2>&1) ||
      { status=1; cat "$results/python-runtime.log"; }
    results_or_failure python-runtime "$results/python-runtime.xml" \
      "pytest stopped"
  else
    status=1; cat "$results/runtime-wheel.log"
    results_or_failure python-runtime "$results/python-runtime.xml" \
      "the lamport-runtime wheel did not build or install (runtime-wheel.log)"
  fi
fi

# The fuzz targets (test/Fuzz): any crash fails the step.
if [ -n "${SKIP_FUZZ:-}" ] && [ "${CI:-}" != true ]; then
  one_case fuzz "$results/fuzz.xml" '<skipped message="SKIP_FUZZ is set"/>'
else
  FUZZ_XML="$results/fuzz.xml" BUILD_DIR="$build" \
    bash "$root/scripts/fuzz.sh" >"$results/fuzz.log" 2>&1 ||
    { status=1; cat "$results/fuzz.log"; }
  results_or_failure fuzz "$results/fuzz.xml" "the fuzz step stopped"
  grep '^fuzz: ' "$results/fuzz.log" | grep -v '^fuzz: regression' || true
fi

python3 "$root/scripts/summarize_tests.py" "$results"/*.xml || status=1
exit $status
