"""Run a compiled bundle from Python: one TP group's ranks on GPUs, buffers
the caller owns (PyTorch tensors) or allocates here, decode steps.

    import torch, lamport
    group = lamport.Runtime("bundles/all_reduce_tp8", tp=8)   # loopback
    rows = [torch.randn(4, 8192, device="cuda").bfloat16() for _ in range(8)]
    out = [torch.empty(4, 8192, device="cuda", dtype=torch.bfloat16)
           for _ in range(8)]
    group.step(4, [{"rows": rows[r], "out": out[r]} for r in range(8)])

Built over libLamportRuntimeC.so (include/lamport-c/Runtime.h) with ctypes;
it needs neither MLIR nor PyTorch (without PyTorch, bind DeviceBuffers made
with Runtime.allocate). The runtime owns the mailboxes; a step runs on its
own streams and returns when every rank has finished, so it synchronizes
the devices it runs on before it starts (work queued on PyTorch's streams is
done by then).
"""

import ctypes
import glob
import math
import os

from ._checks import C_INT, C_UINT64, integer, text_bytes
from .bundle import Bundle

LIBRARY_NAME = "libLamportRuntimeC.so"

STATUS_OK = 0
STATUS_NO_DEVICE = 2
STATUS_KERNEL_FAILURE = 3

_DTYPE_BYTES = {"bf16": 2, "f32": 4, "i32": 4}
_TORCH_DTYPES = {"bf16": "bfloat16", "f32": "float32", "i32": "int32"}


class RuntimeFailure(Exception):
    """A failure of the runtime: the message names the rank, argument,
    mailbox or kernel."""


class NoDeviceError(RuntimeFailure):
    """No CUDA driver or no GPU: nothing can run on this machine."""


class KernelFailure(RuntimeFailure):
    """The GPU failed (a poll's timeout trap among them). The CUDA context is
    lost: close the Runtime; the process cannot use that GPU again."""


_ErrorCallback = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.c_void_p)


def find_library():
    """$LAMPORT_RUNTIME_LIBRARY, else lib/ beside this module (a pip-installed
    package, where the library carries its SONAME), else lib/ of the install
    prefix this package lies in (PREFIX/python/lamport), else the dynamic
    loader's search path."""
    path = os.environ.get("LAMPORT_RUNTIME_LIBRARY")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = sorted(glob.glob(os.path.join(here, "lib", LIBRARY_NAME + "*")))
    candidates.append(os.path.join(here, os.pardir, os.pardir, "lib",
                                   LIBRARY_NAME))
    for candidate in candidates:
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    return LIBRARY_NAME


_lib = None


def _library():
    global _lib
    if _lib is not None:
        return _lib
    path = find_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise OSError(
            f"cannot load the Lamport runtime library '{path}': {error}; build "
            "it (ninja LamportRuntimeC) and set LAMPORT_RUNTIME_LIBRARY to "
            "its path") from None
    c_int, c_u64, c_void_p = ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p
    status = ctypes.c_int
    signatures = {
        "lamportRuntimeCreate": (status, ctypes.c_char_p, c_int,
                                 ctypes.c_char_p, c_int, c_int,
                                 ctypes.POINTER(c_void_p)),
        "lamportRuntimeGetDevice": (status, c_void_p, c_int,
                                    ctypes.POINTER(c_int)),
        "lamportRuntimeBind": (status, c_void_p, c_int, c_int, c_u64, c_u64),
        "lamportRuntimeAllocate": (status, c_void_p, c_int, c_u64,
                                   ctypes.POINTER(c_u64)),
        "lamportRuntimeUpload": (status, c_void_p, c_int, c_u64, c_void_p,
                                 c_u64),
        "lamportRuntimeDownload": (status, c_void_p, c_int, c_void_p, c_u64,
                                   c_u64),
        "lamportRuntimeStep": (status, c_void_p, c_int, ctypes.c_double),
        "lamportRuntimeSetPollTimeout": (status, c_void_p, c_u64),
    }
    _declare(lib, signatures, "lamportRuntimeDestroy")
    _lib = lib
    return lib


def _declare(lib, signatures, destroy):
    """Declares C API functions of `lib`: each of `signatures` (name: its
    return type and arguments) takes the error callback and its user data
    last, as every status-returning lamport* function does; `destroy`
    takes the handle alone and returns nothing."""
    for name, (restype, *argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes + [_ErrorCallback, ctypes.c_void_p]
    getattr(lib, destroy).restype = None
    getattr(lib, destroy).argtypes = [ctypes.c_void_p]


def _call(function, *args):
    """Calls a status-returning entry point; raises with its message."""
    messages = []

    def collect(message, length, _):
        messages.append(ctypes.string_at(message, length).decode(
            errors="replace"))

    callback = _ErrorCallback(collect)
    status = function(*args, callback, None)
    if status == STATUS_OK:
        return
    text = "\n".join(messages) or f"status {status}"
    if status == STATUS_NO_DEVICE:
        raise NoDeviceError(text)
    if status == STATUS_KERNEL_FAILURE:
        raise KernelFailure(text)
    raise RuntimeFailure(text)


class DeviceBuffer:
    """An allocation the Runtime made on one rank's GPU, freed with it."""

    def __init__(self, runtime, rank, pointer, nbytes):
        self.runtime, self.rank = runtime, rank
        self.pointer, self.nbytes = pointer, nbytes

    def upload(self, data):
        """Copies bytes-like `data` (at most nbytes) to the buffer."""
        if isinstance(data, int):  # bytes(5) would be five zero bytes
            raise TypeError("upload: data must be bytes-like, got int")
        data = bytes(data)
        if len(data) > self.nbytes:
            raise ValueError(f"{len(data)} bytes do not fit the buffer of "
                             f"{self.nbytes}")
        self.runtime._check_open()
        _call(_library().lamportRuntimeUpload, self.runtime._handle,
              self.rank, self.pointer, data, len(data))

    def download(self, nbytes=None):
        """The first `nbytes` (default all) bytes of the buffer."""
        nbytes = self.nbytes if nbytes is None else integer(
            "download: nbytes", nbytes, C_UINT64)
        if not 0 <= nbytes <= self.nbytes:
            raise ValueError(f"cannot read {nbytes} bytes of a buffer of "
                             f"{self.nbytes}")
        self.runtime._check_open()
        out = ctypes.create_string_buffer(nbytes)
        _call(_library().lamportRuntimeDownload, self.runtime._handle,
              self.rank, out, self.pointer, nbytes)
        return out.raw


def _seconds(what, value):
    """A positive, finite number of seconds (the C side takes a double)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number of seconds, got "
                        f"{type(value).__name__}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what} must be a positive, finite number of "
                         f"seconds, got {value}")
    return float(value)


# The longest poll timeout, in ns: a compiled timeout_ns's limit (int64).
_MAX_POLL_TIMEOUT_NS = 2**63 - 1


def _poll_timeout_ns(seconds):
    """The C API's poll timeout for `seconds`: 0 for None (the compiled
    timeouts), else at least 1 ns and at most _MAX_POLL_TIMEOUT_NS."""
    if seconds is None:
        return 0
    ns = max(1, round(_seconds("the poll timeout", seconds) * 1e9))
    if ns > _MAX_POLL_TIMEOUT_NS:
        raise ValueError(f"the poll timeout must be at most "
                         f"{_MAX_POLL_TIMEOUT_NS / 1e9:.0f} s, got {seconds}")
    return ns


class _OwnedHandle:
    """A C API handle this object owns: close() destroys it once (with
    `_destroy`), and a `with` block or the garbage collector closes it."""

    # What close() reads, set before __init__ can fail.
    _handle = None

    def _destroy(self, handle):
        raise NotImplementedError

    def close(self):
        if self._handle:
            self._destroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def __del__(self):
        self.close()


class Runtime(_OwnedHandle):
    """One TP group of a bundle on GPUs: `tp` ranks with the `transport`
    ("loopback": every rank on `device`; "peer": rank r on device + r)."""

    def __init__(self, bundle, tp, transport="loopback", device=0, pdl=True,
                 watchdog=30.0):
        # Every integer is checked against its C type here: ctypes would keep
        # its low bits (tp 2**32 + 4 would reach the library as 4).
        tp = integer("tp", tp, C_INT)
        device = integer("device", device, C_INT)
        watchdog = _seconds("watchdog", watchdog)
        transport_bytes = text_bytes("transport", transport)
        self.bundle = bundle if isinstance(bundle, Bundle) else Bundle(bundle)
        self.tp, self.transport, self.watchdog = tp, transport, watchdog
        handle = ctypes.c_void_p()
        _call(_library().lamportRuntimeCreate, self.bundle.path.encode(), tp,
              transport_bytes, device, 1 if pdl else 0,
              ctypes.byref(handle))
        self._handle = handle
        self._arguments = {a["name"]: a for a in self.bundle.arguments}
        self._devices = []
        for rank in range(tp):
            ordinal = ctypes.c_int()
            _call(_library().lamportRuntimeGetDevice, self._handle, rank,
                  ctypes.byref(ordinal))
            self._devices.append(ordinal.value)
        self.steps = 0
        # The override set_poll_timeout set, None for the compiled ones.
        self.poll_timeout = None

    def _destroy(self, handle):
        _library().lamportRuntimeDestroy(handle)

    def _check_open(self):
        if not self._handle:
            raise RuntimeFailure("the runtime is closed")

    # What the program takes.
    def device(self, rank):
        """The CUDA device ordinal of rank `rank`."""
        rank = integer("rank", rank, C_INT)
        if not 0 <= rank < self.tp:
            raise ValueError(f"rank {rank} is out of range: tp = {self.tp}")
        return self._devices[rank]

    def buffer_arguments(self):
        """The names of the buffer arguments every rank binds."""
        return [a["name"] for a in self.bundle.arguments
                if a["kind"] == "buffer"]

    def shape(self, name, tokens):
        """The shape of buffer argument `name` in a step of `tokens`."""
        argument = self._argument(name)
        return tuple(tokens if d == -1 else d for d in argument["shape"])

    def nbytes(self, name, tokens):
        count = 1
        for d in self.shape(name, tokens):
            count *= d
        return count * _DTYPE_BYTES[self._argument(name)["dtype"]]

    def _argument(self, name):
        argument = self._arguments.get(name)
        if argument is None or argument["kind"] != "buffer":
            known = ", ".join(self.buffer_arguments())
            raise KeyError(f"program '{self.bundle.program}' has no buffer "
                           f"argument '{name}' (it has: {known})")
        return argument

    # Buffers.
    def allocate(self, rank, nbytes):
        """A DeviceBuffer of `nbytes` on rank `rank`'s GPU."""
        self._check_open()
        rank = integer("rank", rank, C_INT)
        nbytes = integer("allocate: nbytes", nbytes, C_UINT64)
        pointer = ctypes.c_uint64()
        _call(_library().lamportRuntimeAllocate, self._handle, rank, nbytes,
              ctypes.byref(pointer))
        return DeviceBuffer(self, rank, pointer.value, nbytes)

    def bind(self, rank, name, buffer, tokens=None):
        """Binds buffer argument `name` of rank `rank` to `buffer`: a
        DeviceBuffer, or a CUDA torch.Tensor on that rank's device, dense,
        of the argument's dtype and (given `tokens`) its exact shape."""
        self._check_open()
        rank = integer("rank", rank, C_INT)
        argument = self._argument(name)
        if isinstance(buffer, DeviceBuffer):
            if buffer.rank != rank:
                raise ValueError(f"rank {rank}, argument '{name}': the buffer "
                                 f"was allocated for rank {buffer.rank}")
            pointer, nbytes = buffer.pointer, buffer.nbytes
        else:
            pointer, nbytes = self._tensor_pointer(rank, name, argument,
                                                   buffer, tokens)
        _call(_library().lamportRuntimeBind, self._handle, rank,
              argument["index"], pointer, nbytes)

    def _tensor_pointer(self, rank, name, argument, tensor, tokens):
        where = f"rank {rank}, argument '{name}'"
        if not hasattr(tensor, "data_ptr") or not hasattr(tensor, "is_cuda"):
            raise TypeError(f"{where}: expected a torch.Tensor or a "
                            f"DeviceBuffer, got {type(tensor).__name__}")
        if not tensor.is_cuda or tensor.device.index != self._devices[rank]:
            raise ValueError(f"{where}: the tensor is on {tensor.device}, but "
                             f"rank {rank} runs on cuda:{self._devices[rank]}")
        want = _TORCH_DTYPES[argument["dtype"]]
        if str(tensor.dtype) != "torch." + want:
            raise TypeError(f"{where}: dtype {tensor.dtype}, expected "
                            f"torch.{want}")
        if not tensor.is_contiguous():
            raise ValueError(f"{where}: the tensor must be contiguous "
                             "(kernels index it densely, row-major)")
        if tokens is not None and tuple(tensor.shape) != self.shape(name,
                                                                    tokens):
            raise ValueError(f"{where}: shape {tuple(tensor.shape)}, but a "
                             f"step of {tokens} token(s) takes "
                             f"{self.shape(name, tokens)}")
        return tensor.data_ptr(), tensor.numel() * tensor.element_size()

    # Steps.
    def step(self, tokens, arguments=None, watchdog=None):
        """Runs one decode step of `tokens` tokens on every rank. `arguments`
        (optional) is one dict per rank, name -> tensor or DeviceBuffer, bound
        first; arguments bound earlier stay bound."""
        self._check_open()
        tokens = integer("tokens", tokens, C_INT)
        watchdog = _seconds("watchdog", watchdog or self.watchdog)
        if arguments is not None:
            if len(arguments) != self.tp:
                raise ValueError(f"expected one argument dict per rank "
                                 f"({self.tp}), got {len(arguments)}")
            for rank, named in enumerate(arguments):
                for name, buffer in named.items():
                    self.bind(rank, name, buffer, tokens)
        self._synchronize_torch()
        _call(_library().lamportRuntimeStep, self._handle, tokens, watchdog)
        self.steps += 1

    def set_poll_timeout(self, seconds):
        """How long each poll of the runtime's kernels waits for the other
        ranks before it traps: `seconds`, or None for the timeouts the
        bundle was compiled with. Every rank's kernels have it when this
        returns; set it between steps (long for a first step that waits out
        a slow start, short after), and keep the step watchdog longer."""
        self._check_open()
        _call(_library().lamportRuntimeSetPollTimeout, self._handle,
              _poll_timeout_ns(seconds))
        self.poll_timeout = seconds

    def _synchronize_torch(self):
        import sys

        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_available():
            for ordinal in sorted(set(self._devices)):
                torch.cuda.synchronize(ordinal)
