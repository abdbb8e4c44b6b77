"""The lamport-runtime wheel (scripts/wheel.sh --runtime,
python/runtime/pyproject.toml): the lamport package without its compiler,
for machines that only run bundles. scripts/test.sh installs it into a
virtual environment of its own, sets LAMPORT_TEST_RUNTIME_PACKAGE and runs
these tests with the runtime's (test_runtime.py, test_rank_processes.py,
test_bundle_schema.py); elsewhere they skip."""

import ctypes
import importlib
import importlib.util
import os
import subprocess
import sys
from importlib import metadata

import pytest

import lamport
import lamport.runtime
from conftest import ROOT

pytestmark = pytest.mark.skipif(
    not os.environ.get("LAMPORT_TEST_RUNTIME_PACKAGE"),
    reason="not the lamport-runtime wheel (LAMPORT_TEST_RUNTIME_PACKAGE is "
           "unset)")

BUNDLE = os.path.join(ROOT, "test", "Runtime", "Inputs", "all_reduce_tp4")
PACKAGE = os.path.dirname(os.path.abspath(lamport.__file__))


def test_the_distribution_holds_the_runtime_and_no_compiler():
    assert metadata.version("lamport-runtime") == lamport.__version__
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.distribution("lamport")
    files = [str(f) for f in metadata.files("lamport-runtime")]
    assert any(f.startswith("lamport/lib/libLamportRuntimeC.so.")
               for f in files), files
    for module in ("torch.py", "runtime.py", "bundle.py",
                   "bundle.schema.json"):
        assert "lamport/" + module in files, module
    compiler = [f for f in files if f.startswith(
        ("lamport/_lamport", "lamport/ir.py", "lamport/dialects/"))
        or "libLamportCAPI" in f or "libMLIR" in f or "libLLVM" in f]
    assert compiler == []


def test_the_runtime_library_is_the_packages_and_loads():
    path = lamport.runtime.find_library()
    assert path.startswith(os.path.join(PACKAGE, "lib") + os.sep), path
    # Loading needs no driver: the runtime opens libcuda when it first runs.
    library = ctypes.CDLL(path)
    assert library.lamportRuntimeCreate


def test_the_compiler_is_refused_by_name():
    with pytest.raises(ImportError, match="lamport-runtime has no compiler"):
        lamport.Context()
    with pytest.raises(ImportError):
        importlib.import_module("lamport.ir")


def command(*args):
    return subprocess.run([sys.executable, "-m", "lamport", *args],
                          capture_output=True, text=True, timeout=120)


def test_plan_runs_and_compile_says_why(tmp_path):
    plan = command("plan", BUNDLE)
    assert plan.returncode == 0, plan.stderr
    assert plan.stdout == lamport.Bundle(BUNDLE).describe_plan()
    assert "all_reduce" in plan.stdout
    compiled = command("compile",
                       os.path.join(ROOT, "docs", "examples",
                                    "all_reduce_tp8.mlir"),
                       "-o", str(tmp_path / "bundle"))
    assert compiled.returncode == 1
    assert compiled.stderr.startswith("python -m lamport compile: "
                                      "lamport.Context needs the compiler")
    assert "lamport-runtime has no compiler" in compiled.stderr
    assert "Traceback" not in compiled.stderr
    assert not (tmp_path / "bundle").exists()


def test_boundary_without_torch_says_what_to_install():
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed here")
    import lamport.torch
    with pytest.raises(ImportError, match=r"needs PyTorch .*"
                       r"'lamport-runtime\[torch\]'.*Rank runs without it"):
        lamport.torch.Boundary(BUNDLE)
