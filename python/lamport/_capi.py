"""ctypes declarations of libLamportCAPI (include/lamport-c/, mlir-c/).

The MLIR 22 packages ship no MLIR Python bindings, so the package talks to
the C API directly. Only the functions the package calls are declared; every
handle is a struct of one pointer, as mlir-c/IR.h defines it.
"""

import ctypes
import os

LIBRARY_NAME = "libLamportCAPI.so"


# The C integer types of the entry points' arguments: (name, lo, hi).
C_INT = ("int", -2**31, 2**31 - 1)
C_INT64 = ("int64_t", -2**63, 2**63 - 1)
C_UINT64 = ("uint64_t", 0, 2**64 - 1)


def integer(what, value, ctype):
    """`value` as an int that fits the C type `ctype` (C_INT, ...), checked
    before ctypes narrows it: a C integer keeps only the low bits of a
    Python int, so 2**70 would reach the library as 0. What the value means
    is the library's to check. Raises TypeError for a non-integer (bool
    included), ValueError naming `what` and the type for one out of range."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an integer, got "
                        f"{type(value).__name__}")
    value = value.__index__()
    name, lo, hi = ctype
    if not lo <= value <= hi:
        raise ValueError(f"{what} must be in [{lo}, {hi}] (a C {name}), got "
                         f"{value}")
    return value


def text_bytes(what, text):
    """`text` (str, or bytes-like) as bytes; TypeError naming `what` for
    anything else (bytes(5) would be five zero bytes)."""
    if isinstance(text, str):
        return text.encode()
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"{what} must be str or bytes, got {type(text).__name__}")


class MlirStringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]

    @classmethod
    def of(cls, text, what="the text"):
        data = text_bytes(what, text)
        ref = cls(data, len(data))
        ref._keep = data  # the bytes must outlive the call
        return ref


def _handle(name):
    return type(name, (ctypes.Structure,), {"_fields_": [("ptr", ctypes.c_void_p)]})


MlirContext = _handle("MlirContext")
MlirDialectRegistry = _handle("MlirDialectRegistry")
MlirModule = _handle("MlirModule")
MlirOperation = _handle("MlirOperation")


class MlirLogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


class MlirLamportCompileOptions(ctypes.Structure):
    _fields_ = [
        ("chip", MlirStringRef),
        ("transport", MlirStringRef),
        ("timeoutNs", ctypes.c_int64),
        ("program", MlirStringRef),
    ]


MlirStringCallback = ctypes.CFUNCTYPE(None, MlirStringRef, ctypes.c_void_p)


def locate(name, variable):
    """The path of the shared library `name`: $`variable`, else the lib/
    folder of the install prefix this package lies in (PREFIX/python/lamport),
    else `name` for the dynamic loader's search path."""
    path = os.environ.get(variable)
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(here, os.pardir, os.pardir, "lib", name)
    if os.path.exists(installed):
        return os.path.normpath(installed)
    return name


def find_library():
    """The path of libLamportCAPI.so: $LAMPORT_CAPI_LIBRARY, else
    PREFIX/lib, else the dynamic loader's search path."""
    return locate(LIBRARY_NAME, "LAMPORT_CAPI_LIBRARY")


def _declare(lib, name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)


def load(path=None):
    """Loads the library and declares the functions the package uses."""
    path = path or find_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise OSError(
            f"cannot load the Lamport C API library '{path}': {error}; build "
            "it (ninja LamportCAPI) and set LAMPORT_CAPI_LIBRARY to its path"
        ) from None
    _declare(lib, "mlirDialectRegistryCreate", MlirDialectRegistry)
    _declare(lib, "mlirDialectRegistryDestroy", None, MlirDialectRegistry)
    _declare(lib, "mlirLamportRegisterCompilerDialects", None,
             MlirDialectRegistry)
    _declare(lib, "mlirContextCreateWithRegistry", MlirContext,
             MlirDialectRegistry, ctypes.c_bool)
    _declare(lib, "mlirContextDestroy", None, MlirContext)
    _declare(lib, "mlirRegisterLamportPasses", None)
    _declare(lib, "mlirRegisterAllPasses", None)
    _declare(lib, "mlirLamportModuleCreateParse", MlirModule, MlirContext,
             MlirStringRef, MlirStringRef, MlirStringCallback, ctypes.c_void_p)
    _declare(lib, "mlirModuleDestroy", None, MlirModule)
    _declare(lib, "mlirModuleGetOperation", MlirOperation, MlirModule)
    _declare(lib, "mlirOperationVerify", ctypes.c_bool, MlirOperation)
    _declare(lib, "mlirOperationPrint", None, MlirOperation,
             MlirStringCallback, ctypes.c_void_p)
    _declare(lib, "mlirLamportModuleRunPassPipeline", MlirLogicalResult,
             MlirModule, MlirStringRef, MlirStringCallback, ctypes.c_void_p)
    _declare(lib, "mlirLamportCompileOptionsGetDefault",
             MlirLamportCompileOptions)
    _declare(lib, "mlirLamportCompileSourceToBundle", MlirLogicalResult,
             MlirContext, MlirStringRef, MlirStringRef, MlirStringRef,
             MlirLamportCompileOptions, MlirStringCallback, ctypes.c_void_p)
    _declare(lib, "mlirLamportCompileModuleToBundle", MlirLogicalResult,
             MlirModule, MlirStringRef, MlirLamportCompileOptions,
             MlirStringCallback, ctypes.c_void_p)
    return lib
