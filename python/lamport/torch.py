"""One rank of a Lamport TP group inside a framework's process.

Serving stacks run one process per GPU; ``lamport.torch`` runs a compiled
bundle's rank there, on the framework's streams and tensors:

    import torch.distributed as dist, lamport.torch
    boundary = lamport.torch.Boundary("bundles/attention_boundary_tp2")
    boundary(x=x, weight=w, stream=residual, alpha=a, beta=b,
             next_weight=nw, out=out)      # on torch.cuda.current_stream()

``Boundary`` takes its rank and tp from a ``torch.distributed`` group and
agrees the rendezvous through it (rank 0 of the group picks a TCP port and
broadcasts ``tcp://HOST:PORT``); each call enqueues one decode step on torch's
current stream and returns at once, so it can be captured with
``torch.cuda.graph``; inside ``torch.compile`` it is the custom op
``torch.ops.lamport.step``, so a compiled model keeps one graph around it.
``Rank`` is the same without torch: device pointers,
dtypes and shapes (``DeviceArray``, ``__cuda_array_interface__`` objects or
torch tensors) and a rendezvous address.
"""

import ctypes
import itertools
import json
import os
import socket
import weakref

from . import runtime as _runtime
from .runtime import _OwnedHandle, _call

__all__ = ["Boundary", "DeviceArray", "Rank"]

_DTYPES = {"bf16": 0, "f32": 1, "i32": 2}


class _Buffer(ctypes.Structure):
    _fields_ = [("pointer", ctypes.c_uint64), ("dtype", ctypes.c_int),
                ("ndim", ctypes.c_int),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


_lib = None


def _library():
    global _lib
    if _lib is None:
        # The runtime's library, loaded (and its load errors explained) once.
        lib = _runtime._library()
        c_int, c_void_p, status = ctypes.c_int, ctypes.c_void_p, ctypes.c_int
        _runtime._declare(lib, {
            "lamportRankCreateWithTransport": (
                status, ctypes.c_char_p, c_int, c_int, c_int, ctypes.c_char_p,
                ctypes.c_double, c_int, ctypes.c_char_p,
                ctypes.POINTER(c_void_p)),
            "lamportRankGetArgumentCount": (status, c_void_p,
                                            ctypes.POINTER(c_int)),
            "lamportRankStep": (status, c_void_p, c_void_p, c_int,
                                ctypes.POINTER(_Buffer), c_int),
            "lamportRankWait": (status, c_void_p, c_void_p, ctypes.c_double),
            "lamportRankSetPollTimeout": (status, c_void_p, c_void_p,
                                          ctypes.c_uint64),
        }, "lamportRankDestroy")
        _lib = lib
    return _lib


class DeviceArray:
    """A device buffer described by hand: a pointer, a dtype ("bf16", "f32",
    "i32") and a row-major contiguous shape."""

    def __init__(self, pointer, dtype, shape):
        if dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {sorted(_DTYPES)}, "
                             f"got {dtype!r}")
        self.pointer, self.dtype, self.shape = int(pointer), dtype, tuple(shape)


def _describe(value, device, name):
    """(pointer, dtype code, shape, strides or None) of one buffer."""
    if isinstance(value, DeviceArray):
        return value.pointer, _DTYPES[value.dtype], value.shape, None
    if hasattr(value, "data_ptr") and hasattr(value, "stride"):  # torch
        import torch
        codes = {torch.bfloat16: 0, torch.float32: 1, torch.int32: 2}
        if not value.is_cuda or (device is not None
                                 and value.device.index != device):
            raise ValueError(f"argument '{name}': a tensor on {value.device}, "
                             f"this rank runs on cuda:{device}")
        if value.dtype not in codes:
            raise ValueError(f"argument '{name}': dtype {value.dtype} is not "
                             "bf16, f32 or i32")
        return (value.data_ptr(), codes[value.dtype], tuple(value.shape),
                tuple(value.stride()))
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        codes = {"<f4": 1, "<i4": 2}
        if interface["typestr"] not in codes:
            raise ValueError(f"argument '{name}': typestr "
                             f"{interface['typestr']!r} is not <f4 or <i4 "
                             "(pass a DeviceArray for bf16)")
        strides = interface.get("strides")
        if strides is not None:
            size = 4
            strides = tuple(s // size for s in strides)
        return (interface["data"][0], codes[interface["typestr"]],
                tuple(interface["shape"]), strides)
    raise TypeError(f"argument '{name}': expected a torch tensor, an object "
                    "with __cuda_array_interface__ or a DeviceArray, got "
                    f"{type(value).__name__}")


TRANSPORTS = ("mailbox", "nccl")


def _check_transport(transport):
    if transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {list(TRANSPORTS)}, got "
                         f"{transport!r}")


def _ordered(arguments, buffers):
    """`buffers` (a list by argument, or a dict by name) as a list in the
    manifest's order, None where a dict leaves one out."""
    if isinstance(buffers, dict):
        unknown = set(buffers) - {a["name"] for a in arguments}
        if unknown:
            raise ValueError(f"unknown argument(s) {sorted(unknown)}; the "
                             "program takes "
                             f"{[a['name'] for a in arguments]}")
        buffers = [buffers.get(a["name"]) for a in arguments]
    if len(buffers) != len(arguments):
        raise ValueError(f"the program takes {len(arguments)} "
                         f"argument(s), got {len(buffers)}")
    return buffers


def _token_carrier(arguments, ordered):
    """(spec, buffer) that carries the token count: of `ordered` (_ordered's
    list), the first buffer given whose manifest shape starts with -1."""
    for spec, value in zip(arguments, ordered):
        if spec["kind"] == "buffer" and spec["shape"][0] == -1 \
                and value is not None:
            return spec, value
    raise ValueError("no buffer carries the token count; pass tokens=")


class Rank(_OwnedHandle):
    """Rank `rank` of the `tp`-rank group of a bundle, on CUDA device
    `device`, meeting the other ranks at `rendezvous` ("tcp://HOST:PORT",
    rank 0 serving; "file://DIR"). `transport` "mailbox" runs the compiled
    kernels over mailbox copies shared between the rank processes; "nccl"
    runs each publish_rows + all_reduce pair as one ncclAllReduce (NCCL's
    sum order; libnccl.so.2 needed) and the other kernels as compiled, for
    programs of that unfused form only."""

    def __init__(self, bundle, rank, tp, device, rendezvous, timeout=60.0,
                 pdl=True, transport="mailbox"):
        _check_transport(transport)
        self.transport = transport
        self.bundle = os.fspath(bundle)
        with open(os.path.join(self.bundle, "manifest.json")) as f:
            self.arguments = json.load(f)["arguments"]
        self.rank, self.tp, self.device = rank, tp, device
        # The override set_poll_timeout set, None for the compiled ones.
        self.poll_timeout = None
        handle = ctypes.c_void_p()
        _call(_library().lamportRankCreateWithTransport, self.bundle.encode(),
              rank, tp, device, rendezvous.encode(), float(timeout),
              int(bool(pdl)), transport.encode(), ctypes.byref(handle))
        self._handle = handle

    def _buffers(self, buffers):
        return _ordered(self.arguments, buffers)

    def tokens_of(self, buffers):
        """The token count M: the leading size of the first buffer whose
        manifest shape starts with -1."""
        spec, value = _token_carrier(self.arguments, self._buffers(buffers))
        return int(_describe(value, self.device, spec["name"])[2][0])

    def step(self, buffers, tokens=None, stream=0):
        """Enqueues one decode step on `stream` (a CUstream as an int; 0 is
        the legacy default stream) over `buffers` (a list by argument, or a
        dict by name; mailboxes are left out) and returns at once."""
        buffers = self._buffers(buffers)
        if tokens is None:
            tokens = self.tokens_of(buffers)
        array = (_Buffer * len(buffers))()
        keep = []
        for i, (spec, value) in enumerate(zip(self.arguments, buffers)):
            if spec["kind"] != "buffer":
                continue
            if value is None:
                raise ValueError(f"argument '{spec['name']}' has no buffer")
            pointer, dtype, shape, strides = _describe(value, self.device,
                                                       spec["name"])
            shape_array = (ctypes.c_int64 * len(shape))(*shape)
            strides_array = ((ctypes.c_int64 * len(strides))(*strides)
                             if strides is not None else None)
            keep += [shape_array, strides_array]
            array[i] = _Buffer(pointer, dtype, len(shape), shape_array,
                               strides_array)
        _call(_library().lamportRankStep, self._handle,
              ctypes.c_void_p(int(stream)), int(tokens), array, len(buffers))

    def wait(self, stream=0, watchdog=30.0):
        """Waits for `stream`; a poll that timed out raises KernelFailure
        naming the rank whose data never came."""
        _call(_library().lamportRankWait, self._handle,
              ctypes.c_void_p(int(stream)), float(watchdog))

    def set_poll_timeout(self, seconds, stream=0):
        """How long each poll of this rank's kernels waits for the other
        ranks before it traps: `seconds`, or None for the timeouts the
        bundle was compiled with. The change is enqueued on `stream`: the
        steps enqueued there after it see it, as do replays of CUDA graphs
        captured before. Set it between steps, outside a capture (during
        one it raises RuntimeFailure and the capture goes on): long for
        a first step that waits out the other ranks' warm-up (a
        torch.compile), short after. Keep wait()'s watchdog longer."""
        _call(_library().lamportRankSetPollTimeout, self._handle,
              ctypes.c_void_p(int(stream)), _runtime._poll_timeout_ns(seconds))
        self.poll_timeout = seconds

    def _destroy(self, handle):
        _library().lamportRankDestroy(handle)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


# The open Boundaries, by key, for torch.ops.lamport.step.
_open_boundaries = weakref.WeakValueDictionary()
_keys = itertools.count()
_step_op = None


def _register_step_op():
    """torch.ops.lamport.step(boundary, indices, inputs, outputs, tokens),
    registered once: one decode step of the Boundary keyed `boundary` on
    torch's current stream, `inputs` then `outputs` being the manifest's
    arguments `indices`. `outputs` are those the manifest marks "out" or
    "inout", which the step writes; a compiled graph orders reads of them
    after it. None with torch before 2.4 (no torch.library.custom_op)."""
    global _step_op
    if _step_op is not None:
        return _step_op
    import torch

    if not hasattr(torch.library, "custom_op"):
        return None  # torch before 2.4: eager calls only

    @torch.library.custom_op("lamport::step", mutates_args=("outputs",))
    def step(boundary: int, indices: list[int], inputs: list[torch.Tensor],
             outputs: list[torch.Tensor], tokens: int) -> None:
        owner = _open_boundaries.get(boundary)
        if owner is None:
            raise RuntimeError(f"lamport::step: Boundary {boundary} is "
                               "closed")
        names = [owner.rank.arguments[i]["name"] for i in indices]
        owner._enqueue(dict(zip(names, list(inputs) + list(outputs))),
                       tokens)

    @step.register_fake
    def _(boundary, indices, inputs, outputs, tokens):
        return None

    _step_op = step
    return step


class Boundary:
    """A bundle's rank in a torch.distributed group: rank and tp from the
    group, device from torch.cuda.current_device(), the rendezvous agreed
    through the group; `transport` as Rank's. Calling it enqueues one step
    on torch's current stream (capturable with torch.cuda.graph); under
    torch.compile the call is the custom op torch.ops.lamport.step, which
    keeps the model's graph whole (fullgraph=True holds)."""

    def __init__(self, bundle, group=None, device=None, timeout=60.0,
                 pdl=True, transport="mailbox"):
        _check_transport(transport)
        try:
            import torch
            import torch.distributed as dist
        except ImportError as error:
            raise ImportError(
                f"lamport.torch.Boundary needs PyTorch ({error}): install it "
                "or the package's torch extra (pip install 'lamport[torch]' "
                "or 'lamport-runtime[torch]'); lamport.torch.Rank runs "
                "without it") from error

        rank = dist.get_rank(group)
        tp = dist.get_world_size(group)
        device = torch.cuda.current_device() if device is None else device
        address = [None]
        if rank == 0:
            host = os.environ.get("MASTER_ADDR", socket.gethostname())
            address[0] = f"tcp://{host}:{_free_port()}"
        source = dist.get_global_rank(group, 0) if group is not None else 0
        dist.broadcast_object_list(address, src=source, group=group)
        self._attach(Rank(bundle, rank, tp, device, address[0], timeout, pdl,
                          transport))

    def _attach(self, rank):
        """Serves `rank` (a Rank, or what has its arguments, device, step
        and close) and registers the custom op."""
        _register_step_op()
        self.rank = rank
        self._index = {a["name"]: i for i, a in enumerate(rank.arguments)
                       if a["kind"] == "buffer"}
        self._written = {a["name"] for a in rank.arguments
                         if a["kind"] == "buffer" and a.get("io", "in") != "in"}
        self._key = next(_keys)
        _open_boundaries[self._key] = self

    def __call__(self, tokens=None, **buffers):
        import torch

        # The op exists from torch 2.4, which has is_compiling; before it a
        # compiled call runs eagerly (dynamo breaks the graph there).
        if _step_op is not None and torch.compiler.is_compiling():
            self._compiled_step(tokens, buffers)
        else:
            self._enqueue(buffers, tokens)

    def _current_stream(self):
        import torch

        return torch.cuda.current_stream(self.rank.device).cuda_stream

    def _enqueue(self, buffers, tokens):
        self.rank.step(buffers, tokens=tokens, stream=self._current_stream())

    def _compiled_step(self, tokens, buffers):
        """The step as the custom op, traced by torch.compile: what it needs
        of the buffers is their shapes (no pointers), so the trace holds."""
        import torch

        arguments = self.rank.arguments
        # Unknown names are refused while tracing.
        ordered = _ordered(arguments, buffers)
        if tokens is None:
            # As Rank.tokens_of, from the shape alone.
            tokens = _token_carrier(arguments, ordered)[1].shape[0]
        inputs = [n for n in buffers if n not in self._written]
        outputs = [n for n in buffers if n in self._written]
        torch.ops.lamport.step(self._key,
                               [self._index[n] for n in inputs + outputs],
                               [buffers[n] for n in inputs],
                               [buffers[n] for n in outputs], tokens)

    def set_poll_timeout(self, seconds):
        """Rank.set_poll_timeout on torch's current stream: how long this
        rank's polls wait for the other ranks (None: as compiled), from the
        next step on."""
        self.rank.set_poll_timeout(seconds, self._current_stream())

    def wait(self, watchdog=30.0):
        """Waits for torch's current stream. Where a step's poll timed out,
        torch says only "unspecified launch failure"; this raises
        lamport.KernelFailure naming the rank, mailbox, stage and slot
        whose data never came, from the timeout records the polls left."""
        self.rank.wait(self._current_stream(), watchdog)

    def close(self):
        _open_boundaries.pop(getattr(self, "_key", None), None)
        self.rank.close()
