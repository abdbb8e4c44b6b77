"""Lamport from Python: parse, verify and lower lamport IR, compile a
program to a bundle and read its kernels and PTX.

    import lamport
    context = lamport.Context()
    module = context.parse(text)
    module.run_pipeline("builtin.module(lamport-generate-kernels)")
    bundle = context.compile(text, "out/bundle", chip="sm_90")
    print(bundle.kernel("publish_rows_0").ptx)

Built over the C API (libLamportCAPI.so, include/lamport-c/) with ctypes.
Reading a bundle (lamport.Bundle) needs neither MLIR nor the library.
"""

from .bundle import Bundle, BundleError, Kernel
from .runtime import (DeviceBuffer, KernelFailure, NoDeviceError, Runtime,
                      RuntimeFailure)

__all__ = [
    "Bundle", "BundleError", "Context", "DeviceBuffer", "Error", "Kernel",
    "KernelFailure", "Module", "NoDeviceError", "Runtime", "RuntimeFailure",
]


class Error(Exception):
    """A failure of the compiler: the text holds every error it reported,
    one a line, each with its location."""


_lib = None


def _library():
    global _lib
    if _lib is None:
        from . import _capi

        lib = _capi.load()
        # Upstream passes too, so a pipeline string may mix both.
        lib.mlirRegisterAllPasses()
        lib.mlirRegisterLamportPasses()
        _lib = lib
    return _lib


class _Errors:
    """An MlirStringCallback that collects the error text of one call."""

    def __init__(self):
        from . import _capi

        self.text = ""
        self.callback = _capi.MlirStringCallback(self._append)

    def _append(self, ref, _):
        self.text += ref.data[: ref.length].decode(errors="replace")

    def raise_(self, fallback):
        raise Error(self.text or fallback)


def _print(operation):
    from . import _capi

    chunks = []
    callback = _capi.MlirStringCallback(
        lambda ref, _: chunks.append(ref.data[: ref.length]))
    _library().mlirOperationPrint(operation, callback, None)
    return b"".join(chunks).decode()


class Context:
    """An MLIR context that knows the lamport dialect and everything its
    programs and lowering use, as lamport-opt does."""

    # What close() reads, set before __init__ can fail.
    _context = None
    _modules = ()

    def __init__(self):
        lib = _library()
        registry = lib.mlirDialectRegistryCreate()
        lib.mlirLamportRegisterCompilerDialects(registry)
        self._context = lib.mlirContextCreateWithRegistry(registry, False)
        lib.mlirDialectRegistryDestroy(registry)
        self._modules = []

    def close(self):
        """Destroys the context and every module parsed in it."""
        if self._context is not None:
            for module in self._modules:
                module.close()
            _library().mlirContextDestroy(self._context)
            self._context = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _live(self):
        if self._context is None:
            raise Error("the context is closed")

    def parse(self, text, name="<string>"):
        """Parses and verifies `text`; raises Error with the messages (source
        line included) when it does not parse or verify."""
        from . import _capi

        text_ref = _capi.MlirStringRef.of(text, "Context.parse: text")
        name_ref = _capi.MlirStringRef.of(name, "Context.parse: name")
        self._live()
        errors = _Errors()
        module = _library().mlirLamportModuleCreateParse(
            self._context, text_ref, name_ref, errors.callback, None)
        if not module.ptr:
            errors.raise_(f"{name}: does not parse")
        wrapped = Module(self, module)
        self._modules.append(wrapped)
        return wrapped

    def compile(self, text, directory, *, chip="sm_90", transport="unicast",
                timeout_ns=None, program=None, name="<string>"):
        """Compiles the program in `text` into the bundle `directory`, as
        `lamport-compile FILE -o DIRECTORY` does, and returns the Bundle.
        Argument names in the manifest are those of the source."""
        from . import _capi

        options, _strings = _options(chip, transport, timeout_ns, program)
        text_ref = _capi.MlirStringRef.of(text, "Context.compile: text")
        name_ref = _capi.MlirStringRef.of(name, "Context.compile: name")
        self._live()
        errors = _Errors()
        result = _library().mlirLamportCompileSourceToBundle(
            self._context, text_ref, name_ref,
            _capi.MlirStringRef.of(str(directory)), options, errors.callback,
            None)
        if not result.value:
            errors.raise_(f"{name}: compilation failed")
        return Bundle(directory)


def _options(chip, transport, timeout_ns, program):
    from . import _capi

    # The fields point into these objects' bytes: they must outlive the call.
    keep = [_capi.MlirStringRef.of(chip, "chip"),
            _capi.MlirStringRef.of(transport, "transport")]
    if timeout_ns is not None:
        # Checked here: ctypes would keep the low 64 bits of 2**70.
        timeout_ns = _capi.integer("timeout_ns", timeout_ns, _capi.C_INT64)
    if program is not None:
        keep.append(_capi.MlirStringRef.of(program, "program"))
    options = _library().mlirLamportCompileOptionsGetDefault()
    options.chip, options.transport = keep[:2]
    if timeout_ns is not None:
        options.timeoutNs = timeout_ns
    if program is not None:
        options.program = keep[-1]
    return options, keep


class Module:
    """A parsed module, owned by its Context."""

    _module = None

    def __init__(self, context, module):
        self._context = context
        self._module = module

    def close(self):
        if self._module is not None:
            _library().mlirModuleDestroy(self._module)
            self._module = None

    def _live(self):
        if self._module is None:
            raise Error("the module was destroyed with its context")
        return self._module

    def _operation(self):
        return _library().mlirModuleGetOperation(self._live())

    def verify(self):
        """Whether the module verifies (diagnostics go to stderr)."""
        return bool(_library().mlirOperationVerify(self._operation()))

    def __str__(self):
        return _print(self._operation())

    def run_pipeline(self, pipeline):
        """Runs a textual pass pipeline in place, e.g.
        `builtin.module(lamport-generate-kernels, lamport-lower-to-nvvm)`;
        raises Error with the messages on failure."""
        from . import _capi

        pipeline_ref = _capi.MlirStringRef.of(pipeline, "run_pipeline: pipeline")
        errors = _Errors()
        result = _library().mlirLamportModuleRunPassPipeline(
            self._live(), pipeline_ref, errors.callback, None)
        if not result.value:
            errors.raise_(f"pipeline '{pipeline}' failed")
        return self

    def compile(self, directory, *, chip="sm_90", transport="unicast",
                timeout_ns=None, program=None):
        """Compiles this module's program into the bundle `directory`. The
        module is lowered in place; the manifest names arguments arg<i> (a
        parsed module keeps no source names: Context.compile keeps them)."""
        from . import _capi

        options, _strings = _options(chip, transport, timeout_ns, program)
        errors = _Errors()
        result = _library().mlirLamportCompileModuleToBundle(
            self._live(), _capi.MlirStringRef.of(str(directory)), options,
            errors.callback, None)
        if not result.value:
            errors.raise_("compilation failed")
        return Bundle(directory)
