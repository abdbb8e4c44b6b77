"""The compile options beyond chip and transport (the tactic table, the
tactics' remarks, bulk copies, the protocol check), from Python as
lamport-compile takes them."""

import json
import os
import subprocess
import sys

import pytest

import lamport
from conftest import EXAMPLES, ROOT, requires_ptxas

# The unpooler boundary at tp 8: a publishing GEMM with no tactics, which
# the sm_90 table covers.
UNPOOLER = os.path.join(EXAMPLES, "unpooler_boundary_tp8.mlir")

# A plain GEMM of the same weight shape at a static M of 4, no tactics.
GEMM = """\
func.func @gemm(%x: memref<4x4096xbf16>, %w: memref<1024x4096xbf16>,
                %y: memref<4x1024xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<4x4096xbf16>, memref<1024x4096xbf16>, memref<4x1024xbf16>
  return
}
"""

# Bulk-pipeline GEMMs whose stages are not contiguous (test/lamport-compile).
BULK = os.path.join(ROOT, "test", "lamport-compile", "gemm_publish_bulk.mlir")


def read(path):
    with open(path) as file:
        return file.read()


def installed_table():
    """The sm_90 table the compiler should read: the one installed with
    the package when scripts/test.sh runs these tests against the wheel."""
    package = os.path.dirname(os.path.abspath(lamport.__file__))
    return os.path.join(package, "share", "lamport", "tactics", "sm_90.json")


@requires_ptxas
def test_explain_names_the_table_installed_with_the_package(context, tmp_path):
    bundle = context.compile(read(UNPOOLER), tmp_path / "b", name="unpooler.mlir",
                             explain_tactics=True)
    assert bundle.remarks.startswith(
        "unpooler.mlir:28:3: remark: tactics for N = 1024, K = 4096: M 1..4 ")
    assert "from the table " in bundle.remarks
    table = bundle.remarks.split("from the table ", 1)[1].split(" (entry", 1)[0]
    assert os.path.basename(table) == "sm_90.json" and os.path.isfile(table)
    if os.environ.get("LAMPORT_TEST_INSTALLED") == "1":
        # Not the checkout's data/tactics, which a moved install lacks.
        assert table == installed_table()
    # Without the option a compilation that succeeds has nothing to say.
    quiet = context.compile(read(UNPOOLER), tmp_path / "q")
    assert quiet.remarks == ""
    assert lamport.Bundle(tmp_path / "q").remarks == ""


@requires_ptxas
def test_tactic_table_serves_the_ops_without_tactics(context, tmp_path):
    table = tmp_path / "mine.json"
    table.write_text(json.dumps({"chip": "sm_90", "entries": [{
        "n": 1024, "k": 4096, "m": [1, 16], "publishes": False,
        "tactic": {"splits": 1, "kw": 128, "accs": 1},
        "source": "a table of the test's own"}]}))
    bundle = context.compile(GEMM, tmp_path / "b", tactic_table=table,
                             explain_tactics=True)
    assert f"M 4..4 s1 kw128 a1 from the table {table} (entry" in bundle.remarks
    assert "a table of the test's own" in bundle.remarks
    # One split of 32 warps (K / kw), one CTA per 16 rows of the weight.
    [kernel] = bundle.kernels
    assert kernel.grid == (64, 1, 1) and kernel.block == (1024, 1, 1)
    # The chip's table serves the same op another tactic.
    default = context.compile(GEMM, tmp_path / "d", explain_tactics=True)
    assert "s1 kw128 a1 from the table" not in default.remarks
    assert default.kernels[0].grid != kernel.grid or \
        default.kernels[0].block != kernel.block


def test_tactic_table_errors(context, tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(lamport.Error, match=f"tactic table '{missing}': No such file"):
        context.compile(GEMM, tmp_path / "b", tactic_table=missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(lamport.Error, match=str(broken)):
        context.compile(GEMM, tmp_path / "b", tactic_table=broken)
    # A misspelt knob is refused, not left at its default (tiles 1).
    misspelt = tmp_path / "misspelt.json"
    misspelt.write_text(json.dumps({"chip": "sm_90", "entries": [{
        "n": 1024, "k": 4096, "m": [1, 16], "publishes": False,
        "tactic": {"splits": 1, "kw": 128, "accs": 1, "tile": 4}}]}))
    with pytest.raises(lamport.Error,
                       match="entry 0 tactic: unknown field 'tile'"):
        context.compile(GEMM, tmp_path / "b", tactic_table=misspelt)
    with pytest.raises(ValueError, match="tactic_table is an empty path"):
        context.compile(GEMM, tmp_path / "b", tactic_table="")
    with pytest.raises(TypeError, match="tactic_table must be a path"):
        context.compile(GEMM, tmp_path / "b", tactic_table=3)
    assert not os.path.exists(tmp_path / "b")


@requires_ptxas
def test_cubins_false_writes_the_ptx_alone(context, tmp_path):
    # A cubin left by an earlier compile into the directory goes too: the
    # runtime would load it before the PTX.
    directory = tmp_path / "b"
    directory.mkdir()
    (directory / "gemm_publish_0.cubin").write_bytes(b"older")
    bundle = context.compile(GEMM, directory, cubins=False)
    names = sorted(os.listdir(directory))
    assert not [name for name in names if name.endswith(".cubin")], names
    for kernel in bundle.kernels:
        assert os.path.getsize(kernel.ptx_path) > 0
    with pytest.raises(TypeError, match="cubins"):
        context.compile(GEMM, tmp_path / "c", cubins="no")


def test_bulk_copies_and_protocol_check(context, tmp_path):
    source = read(BULK)
    kinds = {}
    for copies in ("auto", "rows", "tensor"):
        bundle = context.compile(source, tmp_path / copies, program="boxes",
                                 bulk_copies=copies, protocol_check=False)
        kinds[copies] = [p["kind"] for k in bundle.kernels for p in k.params]
    assert "tensor_map" in kinds["auto"] and "tensor_map" in kinds["tensor"]
    assert "tensor_map" not in kinds["rows"]
    # The program publishes into a mailbox no op reads: the protocol check,
    # on by default, refuses it.
    with pytest.raises(lamport.Error, match="no later op of the step consumes it"):
        context.compile(source, tmp_path / "checked", program="boxes")
    with pytest.raises(lamport.Error,
                       match="unknown bulk copies 'fast': a bulk stage is filled "
                             "by auto, rows or tensor copies"):
        context.compile(source, tmp_path / "b", program="boxes", bulk_copies="fast")
    for flag in ("protocol_check", "explain_tactics"):
        with pytest.raises(TypeError, match=f"{flag} must be True or False, got str"):
            context.compile(source, tmp_path / "b", **{flag: "false"})


@requires_ptxas
def test_module_compile_takes_the_options(context, tmp_path):
    module = context.parse(read(UNPOOLER), name="unpooler.mlir")
    bundle = module.compile(tmp_path / "b", explain_tactics=True)
    assert "remark: tactics for N = 1024, K = 4096" in bundle.remarks


def test_run_pipeline_keeps_the_remarks(context):
    module = context.parse(GEMM, name="gemm.mlir")
    assert module.remarks == ""
    same = module.run_pipeline("builtin.module(lamport-select-tactics{explain})")
    assert same is module
    assert module.remarks.startswith(
        "gemm.mlir:3:3: remark: tactics for N = 1024, K = 4096: M 4..4 ")
    # A pipeline with nothing to say leaves none.
    module.run_pipeline("builtin.module(lamport-generate-kernels)")
    assert module.remarks == ""


@requires_ptxas
def test_cli_explains_tactics_on_stderr(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "lamport", "compile", UNPOOLER, "-o", "b", "-q",
         "--explain-tactics", "--bulk-copies", "rows"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert f"{UNPOOLER}:28:3: remark: tactics for N = 1024, K = 4096" in result.stderr
    mine = tmp_path / "missing.json"
    result = subprocess.run(
        [sys.executable, "-m", "lamport", "compile", UNPOOLER, "-o", "c",
         "--tactic-table", str(mine)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert f"tactic table '{mine}': No such file" in result.stderr
