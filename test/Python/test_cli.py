"""python -m lamport (compile, plan) and the builder script of
docs/python.md, each run as a user runs them: in a child interpreter."""

import os
import re
import subprocess
import sys

import lamport
from conftest import EXAMPLES, requires_ptxas
from test_lamport import python_md_block

EXAMPLE = os.path.join(EXAMPLES, "attention_boundary_tp8.mlir")


def run(args, cwd):
    return subprocess.run([sys.executable] + args, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def reference_plan(tmp_path):
    with open(EXAMPLE) as file, lamport.Context() as context:
        return context.compile(file.read(), tmp_path / "reference").describe_plan()


@requires_ptxas
def test_python_md_builder_script(tmp_path):
    """The done-when script: builds the tp = 8 attention boundary with the
    builder, verifies it, compiles it and prints the launch plan, which is
    the plan of the example program."""
    script = tmp_path / "build_boundary.py"
    script.write_text(python_md_block("from lamport.dialects"))
    assert "lamport.mailbox<" not in script.read_text()  # no MLIR text
    result = run([str(script)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == reference_plan(tmp_path) + "\n"
    assert "  1. gemm_publish_0 (gemm_publish) for M in 1..8:" in result.stdout
    assert (tmp_path / "attention_boundary_tp8" / "manifest.json").exists()


@requires_ptxas
def test_compile_and_plan(tmp_path):
    result = run(["-m", "lamport", "compile", EXAMPLE, "-o", "b"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"b: program attention_boundary, 3 kernel\(s\), "
                        r"\d+ bytes, \d+\.\d\d s\n", result.stdout)
    quiet = run(["-m", "lamport", "compile", EXAMPLE, "-o", "q", "-q",
                 "--chip", "sm_100a", "--transport", "multicast"], tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stderr
    assert lamport.Bundle(tmp_path / "q").chip == "sm_100a"

    ptx = run(["-m", "lamport", "compile", EXAMPLE, "-o", "p", "-q",
               "--no-cubins"], tmp_path)
    assert ptx.returncode == 0, ptx.stderr
    names = os.listdir(tmp_path / "p")
    assert "manifest.json" in names and not any(
        name.endswith(".cubin") for name in names), names
    assert any(name.endswith(".cubin") for name in os.listdir(tmp_path / "b"))

    plan = run(["-m", "lamport", "plan", "b"], tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert plan.stdout == reference_plan(tmp_path)
    # lamport-run --plan prints the same plan, then what --check would do.
    lamport_run = os.environ.get("LAMPORT_RUN", "")
    if os.path.exists(lamport_run):
        native = subprocess.run([lamport_run, str(tmp_path / "b"), "--plan"],
                                capture_output=True, text=True, timeout=60)
        assert native.returncode == 0, native.stderr
        assert native.stdout.startswith(plan.stdout)


def test_cli_errors(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  lamport.nothing\n}\n")
    result = run(["-m", "lamport", "compile", str(bad), "-o", "b"], tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith(f"python -m lamport compile: {bad}:2:3: error:")
    assert not (tmp_path / "b").exists()
    result = run(["-m", "lamport", "plan", str(tmp_path)], tmp_path)
    assert result.returncode == 1
    assert "is not a bundle: it has no manifest.json" in result.stderr
    usage = run(["-m", "lamport"], tmp_path)
    assert usage.returncode == 2 and "usage: python -m lamport" in usage.stderr
    help_ = run(["-m", "lamport", "--help"], tmp_path)
    assert help_.returncode == 0
    assert "compile" in help_.stdout and "plan" in help_.stdout
