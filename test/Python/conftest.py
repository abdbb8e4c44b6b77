"""pytest setup of the lamport package tests: the package from python/ of
this checkout, the C API library from $LAMPORT_CAPI_LIBRARY (scripts/test.sh
sets it to the build's lib/libLamportCAPI.so)."""

import os
import shutil
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))

EXAMPLES = os.path.join(ROOT, "docs", "examples")


def have_ptxas():
    cuda = os.environ.get("CUDA_PATH")
    return bool((cuda and os.path.exists(os.path.join(cuda, "bin", "ptxas")))
                or shutil.which("ptxas")
                or os.path.exists("/usr/local/cuda/bin/ptxas"))


requires_ptxas = pytest.mark.skipif(
    not have_ptxas(), reason="no ptxas: a bundle holds cubins ptxas assembles")


@pytest.fixture
def context():
    import lamport

    with lamport.Context() as ctx:
        yield ctx
