#===- bench/tune_module.py - tools/lamport-tune as a Python module -------===#
#
# The bench scripts build and read lamport-tune's programs, bundle names
# and candidates.json through its own functions; the tool is a script
# without a .py suffix, so it is loaded from its path here, once. Their
# sweeps compile their programs through compile_programs.
#
#   sys.path.insert(0, "<root>/bench"); from tune_module import tune
#
#===----------------------------------------------------------------------===#
import importlib.machinery
import importlib.util
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "tools", "lamport-tune", "lamport-tune")
_loader = importlib.machinery.SourceFileLoader("lamport_tune", _PATH)
tune = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("lamport_tune", _loader))
_loader.exec_module(tune)


def compile_programs(compile_tool, jobs, out, options=()):
    """Compiles each (bundle name, program text) of `jobs` into OUT/NAME on
    every core, with lamport-compile's `options`; returns a line for each
    that lamport-compile refused (a launch shape the kernel cannot take),
    with its first error."""
    def compile_one(scratch, job):
        name, text = job
        source = os.path.join(scratch, name + ".mlir")
        with open(source, "w") as f:
            f.write(text)
        run = subprocess.run(
            [compile_tool, source, "-o", os.path.join(out, name), *options],
            capture_output=True, text=True)
        if run.returncode:
            return f"not built {name}: {run.stderr.strip().splitlines()[0]}"
        return None

    with tempfile.TemporaryDirectory() as scratch:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            return [note for note in pool.map(
                lambda job: compile_one(scratch, job), jobs) if note]
