"""func.func and func.return, as upstream's mlir.dialects.func builds them."""

from .. import _lamport
from ..ir import FunctionType, Location, Operation, _location

__all__ = ["FuncOp", "ReturnOp"]


class FuncOp:
    """A `func.func` at the insertion point: `FuncOp(name, (inputs,
    results))`. `arg_names` names the arguments (their name locations): the
    printed IR numbers them, the bundle's manifest uses the names."""

    def __init__(self, name, type, *, arg_names=None, loc=None, ip=None):
        if isinstance(type, tuple):
            type = FunctionType.get(*type)
        self._inputs = _lamport.function_type_inputs(type)
        if arg_names is not None and len(arg_names) != len(self._inputs):
            raise ValueError(f"func '{name}': {len(arg_names)} argument "
                             f"names for {len(self._inputs)} arguments")
        self._arg_names = arg_names
        loc = _location(loc)
        self.operation = Operation.create(
            "func.func", attributes={
                "sym_name": _lamport.string_attr(name, loc.context),
                "function_type": _lamport.type_attr(type),
            }, regions=1, loc=loc, ip=ip)
        self._entry_block = None

    @property
    def name(self):
        return str(self.operation.attribute("sym_name")).strip('"')

    def add_entry_block(self):
        """Adds the body's block, whose arguments are the function's."""
        if self._entry_block is not None:
            raise ValueError("the function already has an entry block")
        loc = self.operation.location
        if self._arg_names is None:
            locations = [loc] * len(self._inputs)
        else:
            locations = [Location.name(name, loc) for name in self._arg_names]
        self._entry_block = self.operation.add_block(0, self._inputs,
                                                     locations)
        return self._entry_block

    @property
    def entry_block(self):
        if self._entry_block is None:
            raise IndexError("the function has no body: add_entry_block()")
        return self._entry_block

    @property
    def arguments(self):
        return self.entry_block.arguments

    def __str__(self):
        return str(self.operation)


def ReturnOp(operands=(), *, loc=None, ip=None):
    """A `func.return` of `operands` at the insertion point."""
    return Operation.create("func.return", operands=list(operands),
                            loc=_location(loc), ip=ip)
