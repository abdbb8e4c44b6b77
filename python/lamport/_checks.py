"""Checks of arguments before they cross into C: integers that must fit a
C type, text that must be text."""

# The C integer types of the entry points' arguments: (name, lo, hi).
C_INT = ("int", -2**31, 2**31 - 1)
C_INT64 = ("int64_t", -2**63, 2**63 - 1)
C_UINT64 = ("uint64_t", 0, 2**64 - 1)


def integer(what, value, ctype):
    """`value` as an int that fits the C type `ctype` (C_INT, ...), checked
    before it is narrowed: a C integer keeps only the low bits of a Python
    int, so 2**70 would reach the library as 0. What the value means is the
    library's to check. Raises TypeError for a non-integer (bool included),
    ValueError naming `what` and the type for one out of range."""
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


def text(what, value):
    """`value` (str, or UTF-8 bytes-like) as str; TypeError naming `what`
    for anything else."""
    if isinstance(value, str):
        return value
    return text_bytes(what, value).decode()


def flag(what, value):
    """`value`, which must be a bool: TypeError naming `what` otherwise (the
    string "false" would be true)."""
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, got "
                        f"{type(value).__name__}")
    return value
