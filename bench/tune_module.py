#===- bench/tune_module.py - tools/lamport-tune as a Python module -------===#
#
# The bench scripts build and read lamport-tune's programs, bundle names
# and candidates.json through its own functions; the tool is a script
# without a .py suffix, so it is loaded from its path here, once.
#
#   sys.path.insert(0, "<root>/bench"); from tune_module import tune
#
#===----------------------------------------------------------------------===#
import importlib.machinery
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "tools", "lamport-tune", "lamport-tune")
_loader = importlib.machinery.SourceFileLoader("lamport_tune", _PATH)
tune = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("lamport_tune", _loader))
_loader.exec_module(tune)
