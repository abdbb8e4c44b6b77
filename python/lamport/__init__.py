"""Lamport from Python: build, parse and verify lamport IR, compile a
program to a bundle, read its launch plan and kernels, run it.

    import lamport
    context = lamport.Context()
    module = context.parse(text)
    module.run_pipeline("builtin.module(lamport-generate-kernels)")
    bundle = context.compile(text, "out/bundle", chip="sm_90")
    print(bundle.describe_plan())

lamport.ir and lamport.dialects build IR op by op (docs/python.md). The
compiler side is the extension lamport._lamport over the C API
(libLamportCAPI.so); it is imported on first use, so that reading a bundle
(lamport.Bundle) and running one (lamport.Runtime, lamport.torch) work where
there is no MLIR, and in the lamport-runtime package, which has no compiler.
"""

from ._errors import DiagnosticInfo, Error, MLIRError
from .bundle import Bundle, BundleError, Kernel
from .runtime import (DeviceBuffer, KernelFailure, NoDeviceError, Runtime,
                      RuntimeFailure)

__version__ = "0.2.0"

__all__ = [
    "Bundle", "BundleError", "Context", "DeviceBuffer", "DiagnosticInfo",
    "Error", "Kernel", "KernelFailure", "MLIRError", "Module",
    "NoDeviceError", "Runtime", "RuntimeFailure",
]

# What comes from lamport.ir, which needs the extension.
_FROM_IR = ("Context", "Module")


def __getattr__(name):
    if name in _FROM_IR:
        try:
            from . import ir
        except ImportError as error:
            raise ImportError(
                f"lamport.{name} needs the compiler extension "
                f"(lamport._lamport, over libLamportCAPI.so), which does not "
                f"load: {error}; install the full lamport package (`pip "
                f"install .` in the source tree, or scripts/wheel.sh's wheel): "
                f"lamport-runtime has no compiler") \
                from error
        return getattr(ir, name)
    raise AttributeError(f"module 'lamport' has no attribute '{name}'")
