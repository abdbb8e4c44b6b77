"""pytest setup of the lamport package tests. They test the installed
package (scripts/test.sh installs the wheel into a fresh virtual
environment and runs them from outside the source tree), never python/ of
this checkout; the checkout gives only the example programs and docs."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import lamport.runtime

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))

EXAMPLES = os.path.join(ROOT, "docs", "examples")


def have_ptxas():
    cuda = os.environ.get("CUDA_PATH")
    return bool((cuda and os.path.exists(os.path.join(cuda, "bin", "ptxas")))
                or shutil.which("ptxas")
                or os.path.exists("/usr/local/cuda/bin/ptxas"))


requires_ptxas = pytest.mark.skipif(
    not have_ptxas(), reason="no ptxas: a bundle holds cubins ptxas assembles")

# The installed package's runtime library unless $LAMPORT_RUNTIME_LIBRARY
# names one, and the folder of test/Runtime/FakeDriver's host-only libcuda.
LIBRARY = os.environ.get("LAMPORT_RUNTIME_LIBRARY") or lamport.runtime.find_library()
FAKE_CUDA = os.environ.get("LAMPORT_FAKE_CUDA_DIR", "")

requires_runtime = pytest.mark.skipif(
    not (LIBRARY and os.path.exists(LIBRARY) and FAKE_CUDA
         and os.path.exists(os.path.join(FAKE_CUDA, "libcuda.so.1"))),
    reason="the runtime is not built (the package has no "
           "libLamportRuntimeC.so, or LAMPORT_FAKE_CUDA_DIR is unset: "
           "scripts/test.sh sets it)")


def fake_cuda_env(**extra):
    """The environment with the host-only libcuda first on the dynamic
    loader's path, and the variables in extra."""
    env = dict(os.environ, **extra)
    env["LD_LIBRARY_PATH"] = FAKE_CUDA + os.pathsep + os.environ.get("LD_LIBRARY_PATH", "")
    return env


def run_child(source, env=None, quiet=False):
    """Runs source in a child interpreter, so a crash fails one test instead
    of ending the session; its stdout. The child must exit 0 and, when
    quiet, write nothing to stderr (an exception ignored in __del__ among
    it)."""
    result = subprocess.run([sys.executable, "-c", source],
                            env=env if env is not None else dict(os.environ),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (result.returncode, result.stdout,
                                    result.stderr)
    if quiet:
        assert result.stderr == "", result.stderr
    return result.stdout


# Child code: expect(fn, kind, *pieces) calls fn, which must raise kind with
# every piece in its message, and prints "ok: " and the message's first line.
EXPECT = textwrap.dedent("""
    def expect(fn, kind, *pieces):
        try:
            fn()
        except kind as error:
            text = str(error)
            assert all(p in text for p in pieces), text
            print("ok:", text.splitlines()[0][:200])
        else:
            raise AssertionError("no error")
""")


@pytest.fixture
def context():
    import lamport

    # Not entered: a test makes it current where it builds.
    ctx = lamport.Context()
    yield ctx
    ctx.close()
