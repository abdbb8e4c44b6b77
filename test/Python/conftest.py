"""pytest setup of the lamport package tests. They test the installed
package (scripts/test.sh installs the wheel into a fresh virtual
environment and runs them from outside the source tree), never python/ of
this checkout; the checkout gives only the example programs and docs."""

import os
import shutil

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))

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

    # Not entered: a test makes it current where it builds.
    ctx = lamport.Context()
    yield ctx
    ctx.close()
