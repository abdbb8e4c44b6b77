"""Lamport IR from Python, named as upstream MLIR's Python bindings name it:
Context, Location, Module, InsertionPoint, Operation, Block, Value, Type,
Attribute, with `with ctx, loc:` and `with InsertionPoint(block):`.

    from lamport.ir import Context, Module, InsertionPoint
    from lamport.dialects import func, lamport as lp

    with Context():
        module = Module.create()
        with InsertionPoint(module.body):
            ...                              # func.FuncOp, lp.gemm_publish
        module.verify()                      # raises MLIRError

The classes live in the compiled extension lamport._lamport, over the C API
(libLamportCAPI.so); Context and Module add the text and bundle methods here.
"""

import inspect
import os
import sys

from . import _lamport
from ._checks import C_INT64, flag, integer, text
from ._errors import DiagnosticInfo, Error, MLIRError

Attribute = _lamport.Attribute
Block = _lamport.Block
InsertionPoint = _lamport.InsertionPoint
Location = _lamport.Location
Operation = _lamport.Operation
Type = _lamport.Type
Value = _lamport.Value

__all__ = [
    "Attribute", "BF16Type", "Block", "Context", "DiagnosticInfo", "Error",
    "F32Type", "FunctionType", "IndexType", "InsertionPoint", "IntegerType",
    "Location", "MLIRError", "MemRefType", "Module", "Operation",
    "ShapedType", "Type", "Value",
]


def _bundle(directory, remarks):
    from .bundle import Bundle

    bundle = Bundle(directory)
    bundle.remarks = remarks
    return bundle


class Context(_lamport.Context):
    """An MLIR context that knows the lamport dialect and everything its
    programs and lowering use, as lamport-opt does. `with Context():` makes
    it the current one (and leaves it open); close() destroys it and every
    module in it at once, else it goes when nothing refers to it."""

    def parse(self, text_, name="<string>"):
        """Parses and verifies `text_`; raises Error with the messages
        (source line included) when it does not parse or verify."""
        return Module._parse(self, text_, name)

    def compile(self, text_, directory, *, chip="sm_90", transport="unicast",
                timeout_ns=None, program=None, name="<string>",
                tactic_table=None, bulk_copies="auto", protocol_check=True,
                explain_tactics=False, cubins=True):
        """Compiles the program in `text_` into the bundle `directory`, as
        `lamport-compile FILE -o DIRECTORY` does, and returns the Bundle,
        whose `remarks` hold the compilation's warnings and remarks.
        Argument names in the manifest are those of the source. With
        `cubins=False` no ptxas runs: the bundle holds the PTX alone, which
        the driver JIT-compiles when the runtime loads it."""
        source = text("Context.compile: text", text_)
        name = text("Context.compile: name", name)
        options = _options(chip, transport, timeout_ns, program, tactic_table,
                           bulk_copies, protocol_check, explain_tactics,
                           cubins)
        remarks = self._compile(source, name, os.fspath(directory), options)
        return _bundle(directory, remarks)


def _options(chip, transport, timeout_ns, program, tactic_table, bulk_copies,
             protocol_check, explain_tactics, cubins):
    if timeout_ns is not None:
        timeout_ns = integer("timeout_ns", timeout_ns, C_INT64)
    if tactic_table is not None:
        if not isinstance(tactic_table, (str, bytes, os.PathLike)):
            raise TypeError("tactic_table must be a path (str, bytes or "
                            "os.PathLike) or None, got "
                            f"{type(tactic_table).__name__}")
        tactic_table = os.fsdecode(tactic_table)
        if not tactic_table:
            raise ValueError("tactic_table is an empty path: pass None for "
                             "the chip's table")
    return _lamport._CompileOptions(
        text("chip", chip), text("transport", transport), timeout_ns,
        None if program is None else text("program", program), tactic_table,
        text("bulk_copies", bulk_copies),
        flag("protocol_check", protocol_check),
        flag("explain_tactics", explain_tactics), flag("cubins", cubins))


class Module:
    """A module, owned by its Context: `Module.create()` for an empty one to
    build into, `Module.parse(text)` or `Context.parse` for one from text."""

    def __init__(self, raw):
        self._raw = raw
        #: The warnings and remarks of the last run_pipeline.
        self.remarks = ""

    @staticmethod
    def create(loc=None):
        """An empty module at `loc` (default: the current location, else
        unknown) in the current context."""
        if loc is None and Location.current is None:
            loc = Location.unknown()
        return Module(_lamport.Module.create(loc))

    @staticmethod
    def parse(asm, context=None, name="<string>"):
        """Parses and verifies `asm` in `context` (default: the current
        one); raises Error with the messages when it does not."""
        context = context or Context.current
        if context is None:
            raise Error("no current context: pass context=, or parse inside "
                        "`with Context():`")
        return Module._parse(context, asm, name)

    @staticmethod
    def _parse(context, asm, name):
        source = text("Context.parse: text", asm)
        name = text("Context.parse: name", name)
        return Module(context._parse(source, name))

    @property
    def context(self):
        return self._raw.context

    @property
    def body(self):
        """The block the module's ops are in."""
        return self._raw.body

    @property
    def operation(self):
        return self._raw.operation

    def verify(self):
        """True, or raises MLIRError with every diagnostic and location."""
        return self._raw.operation.verify()

    def __str__(self):
        return str(self._raw.operation)

    def close(self):
        """Destroys the module now; handles into it raise from then on."""
        self._raw.close()

    def run_pipeline(self, pipeline):
        """Runs a textual pass pipeline in place, e.g.
        `builtin.module(lamport-generate-kernels, lamport-lower-to-nvvm)`;
        raises Error with the messages on failure. Returns the module; its
        `remarks` then hold the pipeline's warnings and remarks (e.g.
        `lamport-select-tactics{explain}`'s)."""
        self.remarks = self._raw._run_pipeline(
            text("run_pipeline: pipeline", pipeline))
        return self

    def compile(self, directory, *, chip="sm_90", transport="unicast",
                timeout_ns=None, program=None, tactic_table=None,
                bulk_copies="auto", protocol_check=True,
                explain_tactics=False, cubins=True):
        """Compiles this module's program into the bundle `directory` and
        returns the Bundle (its `remarks`: the compilation's warnings and
        remarks). The module is lowered in place. The manifest names an
        argument by its name location (what func.FuncOp's arg_names sets),
        else arg<i>. `cubins=False`: the PTX alone, as Context.compile."""
        options = _options(chip, transport, timeout_ns, program, tactic_table,
                           bulk_copies, protocol_check, explain_tactics,
                           cubins)
        remarks = self._raw._compile(os.fspath(directory), options)
        return _bundle(directory, remarks)


#===----------------------------------------------------------------------===#
# Builtin types
#===----------------------------------------------------------------------===#


class ShapedType:
    @staticmethod
    def get_dynamic_size():
        """The size of a dynamic dimension (`?`) in MemRefType.get."""
        return _lamport.dynamic_size()


class MemRefType:
    @staticmethod
    def get(shape, element_type, loc=None):
        """`memref<shape x element_type>`, contiguous; a dimension of
        ShapedType.get_dynamic_size() (or None) is dynamic."""
        dynamic = _lamport.dynamic_size()
        shape = [dynamic if d is None else d for d in shape]
        return _lamport.memref_type(shape, element_type, _location(loc))


class BF16Type:
    @staticmethod
    def get(context=None):
        return _lamport.bf16_type(context)


class F32Type:
    @staticmethod
    def get(context=None):
        return _lamport.f32_type(context)


class IndexType:
    @staticmethod
    def get(context=None):
        return _lamport.index_type(context)


class IntegerType:
    @staticmethod
    def get_signless(width, context=None):
        return _lamport.integer_type(width, context)


class FunctionType:
    @staticmethod
    def get(inputs, results, context=None):
        return _lamport.function_type(list(inputs), list(results), context)


#===----------------------------------------------------------------------===#
# Default locations
#===----------------------------------------------------------------------===#

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _location(loc):
    """`loc`, else the current location, else the file and line of the
    code outside this package that called the builder: an op built without
    a location is reported where the script built it."""
    if loc is not None:
        return loc
    if Location.current is not None:
        return Location.current
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(
            frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame = frame.f_back
    if frame is None:
        return Location.unknown()
    column = 1
    positions = getattr(inspect.getframeinfo(frame), "positions", None)
    if positions is not None and positions.col_offset is not None:
        column = positions.col_offset + 1
    return Location.file(frame.f_code.co_filename, frame.f_lineno, column)
