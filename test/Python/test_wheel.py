"""The wheel scripts/wheel.sh builds carries its MLIR: the compiler's
libraries load libMLIR and libLLVM from the installed package, never the
system's, so the package compiles on a machine without MLIR (a GPU machine
with CUDA alone). scripts/test.sh sets LAMPORT_TEST_SELF_CONTAINED for
that wheel; a `pip install .` of the checkout links the system's MLIR, and
these tests skip."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import lamport
from conftest import requires_ptxas

pytestmark = pytest.mark.skipif(
    not os.environ.get("LAMPORT_TEST_SELF_CONTAINED"),
    reason="not the wheel of scripts/wheel.sh (LAMPORT_TEST_SELF_CONTAINED "
           "is unset)")

# Where Debian's MLIR 22 packages put libMLIR and libLLVM.
SYSTEM_MLIR = ["/usr/lib/llvm-22", "/usr/lib/x86_64-linux-gnu/libLLVM.so.22.1"]

GEMM = textwrap.dedent("""\
    func.func @unpooler(%x: memref<4x4096xbf16>, %w: memref<1024x4096xbf16>,
                        %y: memref<4x1024xbf16>) {
      lamport.gemm_publish %x, %w into %y {pdl}
          : memref<4x4096xbf16>, memref<1024x4096xbf16>, memref<4x1024xbf16>
      return
    }
    """)


def mapped_files():
    """The files this process maps (its loaded libraries among them)."""
    with open("/proc/self/maps") as f:
        return {fields[5] for fields in map(str.split, f)
                if len(fields) >= 6 and fields[5].startswith("/")}


def test_mlir_and_llvm_load_from_the_package():
    import lamport._lamport  # noqa: F401  (loads the compiler's libraries)
    site = os.path.dirname(os.path.dirname(os.path.abspath(lamport.__file__)))
    loaded = [path for path in mapped_files()
              if os.path.basename(path).startswith(("libMLIR", "libLLVM"))]
    assert any("libMLIR" in path for path in loaded), loaded
    assert any("libLLVM" in path for path in loaded), loaded
    assert all(path.startswith(site + os.sep) for path in loaded), loaded


@requires_ptxas
def test_compiles_where_the_system_has_no_mlir(tmp_path):
    """In a mount namespace where the system's MLIR and LLVM are empty,
    the package still compiles a GEMM to a bundle."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("hiding the system's MLIR takes root and unshare(1)")
    empty_dir, empty_file = tmp_path / "empty", tmp_path / "empty.so"
    empty_dir.mkdir()
    empty_file.write_bytes(b"")
    mounts = " && ".join(
        f"mount --bind {empty_dir if os.path.isdir(p) else empty_file} {p}"
        for p in SYSTEM_MLIR if os.path.exists(p))
    program = tmp_path / "gemm.mlir"
    program.write_text(GEMM)
    compile_it = (
        "import lamport, sys; "
        f"b = lamport.Context().compile(open({str(program)!r}).read(), "
        f"{str(tmp_path / 'bundle')!r}); "
        "print('kernels', len(b.kernels))")
    # Exit status 97: the namespace could not hide them (a container
    # without CAP_SYS_ADMIN), which says nothing of the wheel.
    command = (f"({mounts}) || exit 97; "
               f"exec {sys.executable} -c {compile_it!r}")
    result = subprocess.run(["unshare", "-m", "sh", "-c", command],
                            capture_output=True, text=True, timeout=300)
    if result.returncode == 97 or "unshare failed" in result.stderr:
        pytest.skip(f"no mount namespace here: {result.stderr.strip()}")
    assert result.returncode == 0, result.stderr
    assert "kernels 1" in result.stdout
