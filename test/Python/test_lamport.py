"""Tests of the lamport Python package that need no GPU."""

import glob
import json
import os
import re

import pytest

import lamport
from conftest import EXAMPLES, ROOT, requires_ptxas

PROGRAM = """\
!mailbox = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
func.func @publish_poll_rows(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                             %out: memref<2x?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out {pdl}
      : !mailbox, memref<2x?x8192xbf16>
  return
}
"""

INVALID_PUBLISH = """\
!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>
func.func @f(%mb: !mb, %v: vector<12xbf16>, %s: i32, %r: index, %c: index) {
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<12xbf16>, !mb
  return
}
"""


def test_parse_verify_print(context):
    module = context.parse(PROGRAM)
    assert module.verify()
    text = str(module)
    assert "func.func @publish_poll_rows" in text
    assert "lamport.publish_rows %arg0 into %arg1 {pdl}" in text
    # What the module prints parses again to the same text.
    assert str(context.parse(text)) == text


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(EXAMPLES, "*.mlir"))),
                         ids=os.path.basename)
def test_examples_parse_and_verify(context, path):
    with open(path) as file:
        module = context.parse(file.read(), name=path)
    assert module.verify()


def test_parse_error_names_line_and_rule(context):
    with pytest.raises(lamport.Error) as error:
        context.parse(INVALID_PUBLISH, name="bad.mlir")
    message = str(error.value)
    assert message.startswith("bad.mlir:3:3: error: 'lamport.mailbox.publish' op "
                              "publishes 12 BF16, not whole 16-byte fragments")
    # The source line is quoted.
    assert "lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<12xbf16>, !mb" in message


def test_syntax_error(context):
    with pytest.raises(lamport.Error, match=r"bad.mlir:1:1: error"):
        context.parse("not mlir", name="bad.mlir")


def test_run_pipeline_generates_kernels(context):
    module = context.parse(PROGRAM)
    module.run_pipeline("builtin.module(lamport-generate-kernels{transport=multicast})")
    text = str(module)
    assert re.search(r"gpu.launch_func\s+@publish_rows_0::@publish_rows_0", text)
    assert "gpu.module @poll_rows_0" in text
    assert "transport = #lamport.transport<multicast>" in text
    assert "lamport.publish_rows" not in text


def test_run_pipeline_lowers_to_ptx(context):
    module = context.parse(PROGRAM)
    module.run_pipeline(
        "builtin.module(lamport-generate-kernels, lamport-lower-to-nvvm{chip=sm_100a})")
    text = str(module)
    assert text.count("gpu.binary @") == 2
    assert ".target sm_100a" in text


def test_pipeline_errors(context):
    module = context.parse(PROGRAM)
    with pytest.raises(lamport.Error, match="'no-such-pass' does not refer to a registered pass"):
        module.run_pipeline("builtin.module(no-such-pass)")
    with pytest.raises(lamport.Error,
                       match="threads-per-cta must be a multiple of 32 in 32..1024, got 100"):
        module.run_pipeline("builtin.module(lamport-generate-kernels{threads-per-cta=100})")


@requires_ptxas
def test_compile_bundle(context, tmp_path):
    bundle = context.compile(PROGRAM, tmp_path / "bundle", name="program.mlir")
    assert bundle.chip == "sm_90"
    assert bundle.transport == "unicast"
    assert bundle.program == "publish_poll_rows"
    assert bundle.launches == ["publish_rows_0", "poll_rows_0"]
    assert [a["name"] for a in bundle.arguments] == ["rows", "mailbox", "out"]
    assert bundle.mailboxes == [
        {"id": 0, "name": "mailbox", "tp": 2, "capacity": 16, "width": 8192}]
    publish = bundle.kernel("publish_rows_0")
    assert publish.op == "publish_rows"
    assert publish.pdl
    assert [p["kind"] for p in publish.params] == ["mailbox", "buffer", "tokens"]
    # The mailbox descriptor is 40 + 8 * tp bytes (docs/bundle.md).
    assert publish.params[0]["size"] == 56
    assert ".visible .entry publish_rows_0(" in publish.ptx
    assert "multimem" not in publish.ptx
    poll = bundle.kernel("poll_rows_0")
    assert "%globaltimer" in poll.ptx and "trap;" in poll.ptx
    for kernel in bundle.kernels:
        assert os.path.getsize(kernel.cubin_path) > 0
    # Bundle reads the same directory back without the compiler.
    again = lamport.Bundle(tmp_path / "bundle")
    assert again.manifest == bundle.manifest
    with open(tmp_path / "bundle" / "manifest.json") as file:
        assert json.load(file) == bundle.manifest


@requires_ptxas
def test_compile_multicast_sm100a(context, tmp_path):
    bundle = context.compile(PROGRAM, tmp_path / "b", chip="sm_100a",
                             transport="multicast", timeout_ns=1000000)
    assert bundle.chip == "sm_100a"
    assert bundle.transport == "multicast"
    assert "multimem.st" in bundle.kernel("publish_rows_0").ptx


@requires_ptxas
def test_module_compile_names_arguments_by_position(context, tmp_path):
    module = context.parse(PROGRAM)
    bundle = module.compile(tmp_path / "b")
    assert [a["name"] for a in bundle.arguments] == ["arg0", "arg1", "arg2"]


def test_compile_errors(context, tmp_path):
    with pytest.raises(lamport.Error, match="unknown chip 'sm_80': Lamport targets sm_90 and sm_100a"):
        context.compile(PROGRAM, tmp_path / "b", chip="sm_80")
    with pytest.raises(lamport.Error, match="unknown chip '': Lamport targets sm_90 and sm_100a"):
        context.compile(PROGRAM, tmp_path / "b", chip="")
    with pytest.raises(lamport.Error, match="unknown transport 'nvls'"):
        context.compile(PROGRAM, tmp_path / "b", transport="nvls")
    with pytest.raises(lamport.Error, match="the timeout must be positive, got 0 ns"):
        context.compile(PROGRAM, tmp_path / "b", timeout_ns=0)
    with pytest.raises(lamport.Error, match="no program named 'decode'"):
        context.compile(PROGRAM, tmp_path / "b", program="decode")
    with pytest.raises(lamport.Error, match="no program in this file"):
        context.compile("func.func @f() { return }", tmp_path / "b")
    assert not os.path.exists(tmp_path / "b")


def test_bundle_errors(tmp_path):
    with pytest.raises(lamport.BundleError, match="has no manifest.json"):
        lamport.Bundle(tmp_path)
    (tmp_path / "manifest.json").write_text("{")
    with pytest.raises(lamport.BundleError, match="is not JSON"):
        lamport.Bundle(tmp_path)
    (tmp_path / "manifest.json").write_text('{"format": "other"}')
    with pytest.raises(lamport.BundleError, match="is not a lamport-bundle manifest"):
        lamport.Bundle(tmp_path)


@requires_ptxas
def test_unknown_kernel(context, tmp_path):
    bundle = context.compile(PROGRAM, tmp_path / "b")
    with pytest.raises(KeyError, match="has no kernel 'gemm_0'"):
        bundle.kernel("gemm_0")


def python_md_block(marker):
    """The ```python block of docs/python.md that contains `marker`."""
    with open(os.path.join(ROOT, "docs", "python.md")) as file:
        blocks = re.findall(r"^```python\n(.*?)^```", file.read(), re.M | re.S)
    [code] = [block for block in blocks if marker in block]
    return code


@requires_ptxas
def test_python_md_example(tmp_path, monkeypatch, capsys):
    """The example of docs/python.md runs as written, from the repository
    root (here a folder whose docs/ is the repository's)."""
    code = python_md_block("context.parse(")
    os.symlink(os.path.join(ROOT, "docs"), tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/python.md", "exec"), {})
    out = capsys.readouterr().out
    assert "gpu.module @all_reduce_0" in out
    assert "['publish_rows_0', 'all_reduce_0']" in out
    assert "publish_rows_0 (32, 1, 1) (128, 1, 1) False" in out
    assert ".visible .entry all_reduce_0(" in out
    assert (tmp_path / "bundle" / "manifest.json").exists()


@requires_ptxas
def test_launches_chosen_by_m(context, tmp_path):
    # The attention boundary's GEMM has one kernel per token tile, chosen by
    # M at launch (docs/bundle.md, `tokens`).
    source = open(os.path.join(EXAMPLES, "attention_boundary_tp8.mlir")).read()
    bundle = context.compile(source, tmp_path / "bundle",
                             name="attention_boundary_tp8.mlir")
    assert bundle.launch_tokens == [("gemm_publish_0", (1, 8)),
                                    ("gemm_publish_1", (9, 16)),
                                    ("all_reduce_dual_norm_0", None)]
    assert bundle.launches_for(1) == ["gemm_publish_0", "all_reduce_dual_norm_0"]
    assert bundle.launches_for(8) == ["gemm_publish_0", "all_reduce_dual_norm_0"]
    assert bundle.launches_for(9) == ["gemm_publish_1", "all_reduce_dual_norm_0"]
    assert bundle.kernel("gemm_publish_0").attributes["token_tile"] == 8
    assert bundle.kernel("gemm_publish_1").attributes["token_tile"] == 16
