"""Reading a bundle: manifest.json, its kernels and their PTX.

Pure Python over the files docs/bundle.md describes, so it works where
there is no MLIR (a GPU machine) as well as after lamport.compile().

A manifest is checked against docs/bundle.schema.json with the jsonschema
package, then against the rules between fields the schema cannot state
(docs/bundle.md lists them); every error names the offending field by its
JSON path. The schema is found beside this module where the package is
installed, else in docs/ of the source tree it is run from. Where jsonschema
is not installed, Bundle warns and checks only the rules between fields.
"""

import functools
import json
import math
import os
import warnings
from dataclasses import dataclass, field

SCHEMA_FILE = "bundle.schema.json"

# The most characters of a string an error message quotes.
_MAX_QUOTED = 80


class BundleError(Exception):
    """A bundle directory that is missing or does not follow docs/bundle.md."""


@dataclass(frozen=True)
class Kernel:
    """One kernel of a bundle and how the runtime launches it."""

    bundle: "Bundle" = field(repr=False, compare=False)
    name: str
    op: str
    grid: tuple
    block: tuple
    cluster: tuple
    shared_bytes: int
    pdl: bool
    params: tuple
    attributes: dict = field(compare=False)
    # "publish", "poll", "publish_and_poll"; None where the manifest says
    # nothing (no mailbox, or written before the field).
    mailbox_use: str = None

    @property
    def ptx_path(self):
        return os.path.join(self.bundle.path, self.bundle._entry(self.name)["ptx"])

    @property
    def cubin_path(self):
        return os.path.join(self.bundle.path, self.bundle._entry(self.name)["cubin"])

    @property
    def ptx(self):
        """The kernel's PTX text."""
        with open(self.ptx_path, encoding="utf-8") as file:
            return file.read()


def schema_path():
    """The path of bundle.schema.json: beside this module in an installed
    package, docs/ in the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = (os.path.join(here, SCHEMA_FILE),
                  os.path.join(here, os.pardir, os.pardir, "docs", SCHEMA_FILE))
    for path in candidates:
        if os.path.isfile(path):
            return os.path.normpath(path)
    raise FileNotFoundError(f"{SCHEMA_FILE} is neither beside {here} nor in "
                            f"the source tree's docs/: the package is "
                            f"incomplete")


@functools.lru_cache(maxsize=None)
def _validator():
    """A draft 2020-12 validator of the manifest schema whose integers are
    JSON integers (no 1.0), as the C++ reader reads them; None without
    jsonschema."""
    try:
        import jsonschema
    except ImportError:
        warnings.warn("jsonschema is not installed: lamport.Bundle checks "
                      "only the rules between a manifest's fields, not "
                      "docs/bundle.schema.json", stacklevel=3)
        return None
    with open(schema_path(), encoding="utf-8") as file:
        schema = json.load(file)
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(base, type_checker=checker)(schema)


def _cut(text, limit=_MAX_QUOTED):
    return text if len(text) <= limit else text[:limit] + "..."


def _quoted(text):
    return f"'{_cut(str(text))}'"


def _shown(value):
    """A JSON value as a message shows it: scalars as written (strings cut),
    arrays and objects by their size, never whole."""
    if isinstance(value, str):
        return json.dumps(_cut(value))
    if isinstance(value, list):
        return f"an array of {_count(len(value), 'entry', 'entries')}"
    if isinstance(value, dict):
        return f"an object of {_count(len(value), 'field', 'fields')}"
    return json.dumps(value)


def _count(n, one, many):
    return f"{n} {one if n == 1 else many}"


def _path(parts):
    """A JSON path as messages write it: kernels[0].grid[1]."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + str(part)
    return text


_TYPE_WORDS = {"integer": "an integer", "string": "a string", "array": "an array",
               "object": "a JSON object", "boolean": "true or false",
               "number": "a number"}

# Why a field the schema forbids in its place is not allowed there.
_ABSENT_WHY = {"mailbox_use": "the kernel takes no mailbox parameter"}


def _alternatives(options):
    words = [_quoted(o) if isinstance(o, str) else json.dumps(o) for o in options]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _schema_message(error):
    """(path, message) of a jsonschema error, in the C++ reader's words."""
    kind, value, got = error.validator, error.validator_value, error.instance
    path = list(error.absolute_path)
    shown = _shown(got)
    if kind == "required":
        missing = [key for key in value if key not in got]
        return path, f"missing field '{missing[0]}'"
    if kind == "type":
        types = value if isinstance(value, list) else [value]
        return path, f"must be {' or '.join(_TYPE_WORDS.get(t, t) for t in types)}, got {shown}"
    if kind in ("minimum", "maximum"):
        low, high = error.schema.get("minimum"), error.schema.get("maximum")
        if low is not None and high is not None:
            return path, f"must be in [{low}, {high}], got {shown}"
        return path, f"must be {'>=' if kind == 'minimum' else '<='} {value}, got {shown}"
    if kind == "enum":
        return path, f"must be {_alternatives(value)}, got {shown}"
    if kind == "const":
        return path, f"must be {_alternatives([value])}, got {shown}"
    if kind == "multipleOf":
        return path, f"must be a multiple of {value}, got {shown}"
    if kind == "minItems":
        return path, f"must have at least {_count(value, 'entry', 'entries')}, got {len(got)}"
    if kind == "maxItems":
        return path, f"must have at most {_count(value, 'entry', 'entries')}, got {len(got)}"
    if kind == "minLength":
        return path, "must not be empty"
    if kind in ("pattern", "not") and "description" in error.schema:
        # The schema says in words what the pattern or exclusion means.
        return path, f"must be {error.schema['description']}, got {shown}"
    if kind == "pattern":
        return path, f"must match {value}, got {shown}"
    if kind == "not" and isinstance(value, dict) and list(value) == ["required"]:
        # {"not": {"required": [KEY]}}: KEY must be absent.
        key = value["required"][0]
        why = _ABSENT_WHY.get(key)
        return path + [key], f"must be absent{f' ({why})' if why else ''}, got {_shown(got[key])}"
    if kind == "not":
        return path, f"must not be {shown}"
    return path, _cut(error.message, 200)


def _error_order(error):
    """Sorts errors by their place in the manifest, a field's own error
    before its enclosing object's, and the rules of if/then branches last."""
    place = [(0, part) if isinstance(part, int) else (1, part) for part in error.absolute_path]
    branch = any(part in ("then", "else") for part in error.absolute_schema_path)
    return [(0, p) for p in place] + [(1, branch, str(error.validator), error.message)]


def _check_schema(manifest, origin):
    validator = _validator()
    if validator is None:
        return
    errors = sorted(validator.iter_errors(manifest), key=_error_order)
    if errors:
        path, message = _schema_message(errors[0])
        where = _path(path)
        raise BundleError(f"{origin}: {where + ': ' if where else ''}{message}")


# The rule every error about a choice by M states (docs/bundle.md `tokens`).
_CHOICE_RULE = (
    "the launches with 'tokens' are alternatives of one op, consecutive and "
    "in ascending M: their ranges start at 1, each begins right after the "
    "one before ends, and the last ends at the largest mailbox capacity, so "
    "exactly one of them runs at every M")


class _Rules:
    """The rules between fields that docs/bundle.md keeps in code, checked
    on a manifest the schema accepted."""

    def __init__(self, manifest, origin):
        self.m, self.origin = manifest, origin

    def fail(self, path, message):
        raise BundleError(f"{self.origin}: {path}: {message}")

    def check(self):
        self.mailboxes()
        self.arguments()
        self.unique(self.m["kernels"], "kernel", "kernels")
        for k, kernel in enumerate(self.m["kernels"]):
            self.kernel(k, kernel)
        self.launches()

    def unique(self, entries, what, where):
        seen = set()
        for i, entry in enumerate(entries):
            if entry["name"] in seen:
                self.fail(f"{where}[{i}].name",
                          f"{what} name {_quoted(entry['name'])} is used twice")
            seen.add(entry["name"])

    def mailboxes(self):
        mailboxes = self.m["mailboxes"]
        for i, mailbox in enumerate(mailboxes):
            if mailbox["id"] != i:
                self.fail(f"mailboxes[{i}].id", f"must equal the mailbox's "
                          f"position {i}, got {mailbox['id']}")
        self.unique(mailboxes, "mailbox", "mailboxes")
        for mailbox in mailboxes:
            if mailbox["tp"] != mailboxes[0]["tp"]:
                self.fail("mailboxes", f"mailbox {_quoted(mailbox['name'])} has "
                          f"tp = {mailbox['tp']} but mailbox "
                          f"{_quoted(mailboxes[0]['name'])} has tp = "
                          f"{mailboxes[0]['tp']}; one program runs on one TP group")

    def arguments(self):
        for i, argument in enumerate(self.m["arguments"]):
            if argument["index"] != i:
                self.fail(f"arguments[{i}].index", f"must equal the argument's "
                          f"position {i}, got {argument['index']}")
            if argument["kind"] == "mailbox" and argument["mailbox"] >= len(self.m["mailboxes"]):
                self.fail(f"arguments[{i}].mailbox", f"names mailbox "
                          f"{argument['mailbox']}, but the manifest has "
                          f"{len(self.m['mailboxes'])} mailbox(es)")
        self.unique(self.m["arguments"], "argument", "arguments")

    def kernel(self, k, kernel):
        where = f"kernels[{k}]"
        x, y, z = kernel["block"]
        if x * y * z > 1024:
            self.fail(f"{where}.block", f"has {x * y * z} threads; a CTA holds at most 1024")
        for i, (grid, cluster) in enumerate(zip(kernel["grid"], kernel["cluster"])):
            if grid % cluster:
                self.fail(f"{where}.cluster", f"dimension {i} ({cluster}) does "
                          f"not divide the grid's ({grid})")
        arguments = self.m["arguments"]
        for p, param in enumerate(kernel["params"]):
            if param["kind"] == "tokens":
                continue
            at = f"{where}.params[{p}]"
            index = param["argument"]
            if index >= len(arguments):
                self.fail(f"{at}.argument", f"names argument {index}, but the "
                          f"program has {len(arguments)} argument(s)")
            argument = arguments[index]
            if param["kind"] == "tensor_map":
                self.tensor_map(kernel, at, argument, param)
                continue
            if argument["kind"] != param["kind"]:
                self.fail(f"{at}.argument", f"names argument {index} "
                          f"({_quoted(argument['name'])}), which is a "
                          f"{argument['kind']}, but the parameter is a {param['kind']}")
            if param["kind"] == "mailbox":
                mailbox = self.m["mailboxes"][argument["mailbox"]]
                expected = 40 + 8 * mailbox["tp"]
                if param["size"] != expected:
                    self.fail(f"{at}.size", f"mailbox parameter is {param['size']} "
                              f"bytes, expected {expected} (the descriptor of "
                              f"mailbox {_quoted(mailbox['name'])} is 40 + 8 * tp "
                              f"bytes, tp = {mailbox['tp']})")

    def tensor_map(self, kernel, at, argument, param):
        """The rules of a tensor map parameter that the schema cannot state
        (docs/bundle.md): what cuTensorMapEncodeTiled takes."""
        shape = argument.get("shape", [])
        if (argument["kind"] != "buffer" or argument["dtype"] != "bf16" or
                len(shape) != 2 or min(shape) < 0 or shape[1] % 8):
            self.fail(f"{at}.argument", f"names buffer {_quoted(argument['name'])}"
                      ": a tensor map describes a 2-D bf16 buffer of static "
                      "shape whose rows are a multiple of 16 bytes")
        inner, outer = param["box"]
        if inner % 8 or inner > shape[1] or outer > shape[0]:
            self.fail(f"{at}.box", f"{inner} x {outer} must lie within the "
                      f"buffer's {shape[1]} x {shape[0]} (inner, outer), its "
                      "inner side a multiple of 8")
        if not any(p["kind"] == "buffer" and p.get("argument") == param["argument"]
                   for p in kernel["params"]):
            self.fail(at, f"is the tensor map of argument {param['argument']}, "
                      "which the kernel does not take as a buffer")

    def launches(self):
        kernels = {kernel["name"]: kernel for kernel in self.m["kernels"]}
        bound = max((mb["capacity"] for mb in self.m["mailboxes"]), default=16)
        next_m, first = 0, 0
        for i, launch in enumerate(self.m["launches"]):
            if launch["kernel"] not in kernels:
                self.fail(f"launches[{i}].kernel", f"names kernel "
                          f"{_quoted(launch['kernel'])}, which the manifest does not list")
            if "tokens" not in launch:
                if next_m:
                    self.fail(f"launches[{i}]", f"has no 'tokens' but the choice "
                              f"by M that launches[{first}] starts covers only "
                              f"1..{next_m - 1} ({_CHOICE_RULE})")
                continue
            lo, hi = launch["tokens"]
            if lo > hi or hi > bound:
                self.fail(f"launches[{i}].tokens", f"must be [lo, hi] with 1 <= "
                          f"lo <= hi <= {bound} (the largest mailbox capacity), "
                          f"got [{lo}, {hi}]")
            op = kernels[launch["kernel"]]["op"]
            if not next_m:
                first, next_m = i, 1
            first_op = kernels[self.m["launches"][first]["kernel"]]["op"]
            if op != first_op:
                self.fail(f"launches[{i}].tokens", f"launches op {_quoted(op)} in "
                          f"the choice by M that launches[{first}] starts with "
                          f"op {_quoted(first_op)} ({_CHOICE_RULE})")
            if lo != next_m:
                gap = ("the ranges overlap" if lo < next_m
                       else "M in between runs no alternative")
                self.fail(f"launches[{i}].tokens", f"starts at {lo} where "
                          f"{next_m} is expected: {gap} ({_CHOICE_RULE})")
            next_m = 0 if hi == bound else hi + 1
        if next_m:
            self.fail(f"launches[{first}]", f"the choice by M it starts covers "
                      f"only 1..{next_m - 1}, not 1..{bound} ({_CHOICE_RULE})")


def _finite_float(text):
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {_cut(text)} is out of range")
    return value


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _attribute_text(value):
    """A kernel attribute as the runtime prints it: strings as they are,
    numbers and booleans as JSON writes them."""
    return value if isinstance(value, str) else json.dumps(value)


def load_manifest(path):
    """The manifest at `path`, checked: BundleError naming the offending
    field where it does not follow docs/bundle.md."""
    try:
        with open(path, encoding="utf-8") as file:
            manifest = json.load(file, parse_float=_finite_float,
                                 parse_constant=_no_constant)
    except OSError as error:
        raise BundleError(f"cannot read '{path}': {error.strerror}") from None
    except (ValueError, RecursionError) as error:
        # JSONDecodeError, UnicodeDecodeError, and the hooks above.
        raise BundleError(f"'{path}' is not JSON: {_cut(str(error), 200)}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != Bundle.FORMAT:
        raise BundleError(f"'{path}' is not a {Bundle.FORMAT} manifest")
    _check_schema(manifest, path)
    try:
        _Rules(manifest, path).check()
    except (KeyError, TypeError, ValueError, IndexError) as error:
        # Only without jsonschema can a wrong type reach the rules.
        raise BundleError(f"{path}: does not follow docs/bundle.md "
                          f"({type(error).__name__}: {_cut(str(error))})") from None
    return manifest


class Bundle:
    """A bundle directory: `Bundle(path)` reads and checks its manifest."""

    FORMAT = "lamport-bundle"

    def __init__(self, path):
        self.path = os.fspath(path)
        manifest_path = os.path.join(self.path, "manifest.json")
        if not os.path.isfile(manifest_path):
            raise BundleError(f"'{self.path}' is not a bundle: it has no manifest.json")
        self.manifest = load_manifest(manifest_path)
        self._entries = {entry["name"]: entry for entry in self.manifest["kernels"]}
        #: The warnings and remarks of the compilation that wrote the bundle
        #: (lamport.Context.compile, Module.compile), as lamport-compile
        #: prints them; empty for a bundle only read from disk.
        self.remarks = ""

    def _entry(self, name):
        return self._entries[name]

    @property
    def version(self):
        return self.manifest["version"]

    @property
    def chip(self):
        return self.manifest["chip"]

    @property
    def transport(self):
        return self.manifest["transport"]

    @property
    def program(self):
        """The program's name; "" where the manifest names none."""
        return self.manifest.get("program", "")

    @property
    def mailboxes(self):
        return self.manifest["mailboxes"]

    @property
    def arguments(self):
        return self.manifest["arguments"]

    @property
    def launches(self):
        """Kernel names in stream order, one a launch."""
        return [launch["kernel"] for launch in self.manifest["launches"]]

    @property
    def launch_tokens(self):
        """(kernel name, (lo, hi)) per launch, in stream order: the launch
        runs in a step of M tokens when lo <= M <= hi; (lo, hi) is None for
        a launch that runs at every M (docs/bundle.md, `tokens`)."""
        return [(launch["kernel"],
                 tuple(launch["tokens"]) if "tokens" in launch else None)
                for launch in self.manifest["launches"]]

    def launches_for(self, tokens):
        """The kernel names a step of `tokens` tokens launches, in order."""
        return [name for name, span in self.launch_tokens
                if span is None or span[0] <= tokens <= span[1]]

    @property
    def kernels(self):
        """Every kernel, in the manifest's order."""
        return [self.kernel(name) for name in self._entries]

    def kernel(self, name):
        """The kernel called `name`."""
        if name not in self._entries:
            raise KeyError(f"bundle '{self.path}' has no kernel '{name}' "
                           f"(it has {', '.join(self._entries) or 'none'})")
        entry = self._entries[name]
        return Kernel(
            bundle=self,
            name=name,
            op=entry["op"],
            grid=tuple(entry["grid"]),
            block=tuple(entry["block"]),
            cluster=tuple(entry["cluster"]),
            shared_bytes=entry["shared_bytes"],
            pdl=entry["pdl"],
            params=tuple(entry["params"]),
            attributes=entry.get("attributes", {}),
            mailbox_use=entry.get("mailbox_use"),
        )

    def describe_plan(self):
        """The launch plan as `lamport-run BUNDLE --plan` prints it: the
        mailboxes, the arguments, then each launch of a step in stream order
        with its launch shape, parameters, roles and attributes."""
        lines = [f"program {self.program or '(unnamed)'}: chip {self.chip}, "
                 f"transport {self.transport}, manifest version {self.version}"]
        for mb in self.mailboxes:
            lines.append(
                f"mailbox {mb['id']} '{mb['name']}': tp {mb['tp']}, capacity "
                f"{mb['capacity']}, width {mb['width']}; "
                f"{3 * mb['tp'] * mb['capacity'] * mb['width'] * 2} bytes per "
                f"rank, descriptor {40 + 8 * mb['tp']} bytes")
        for arg in self.arguments:
            head = f"argument {arg['index']} '{arg['name']}': "
            if arg["kind"] == "mailbox":
                lines.append(head + f"mailbox {arg['mailbox']}")
            else:
                shape = ", ".join(str(d) for d in arg["shape"])
                lines.append(head + f"buffer {arg['dtype']} [{shape}] {arg['io']}")
        lines.append("one step, per rank, in stream order:")
        names = [a["name"] for a in self.arguments]
        dims = "x".join
        for i, (name, span) in enumerate(self.launch_tokens):
            k = self._entries[name]
            line = f"  {i + 1}. {name} ({k['op']})"
            if span is not None:
                line += f" for M in {span[0]}..{span[1]}"
            line += (f": grid {dims(map(str, k['grid']))}, block "
                     f"{dims(map(str, k['block']))}, cluster "
                     f"{dims(map(str, k['cluster']))}, shared "
                     f"{k['shared_bytes']} B{', pdl' if k['pdl'] else ''}")
            lines.append(line)
            params = []
            for p in k["params"]:
                what = ("tokens" if p["kind"] == "tokens"
                        else f"{p['kind']} '{names[p['argument']]}'")
                params.append(f" {what} ({p['size']} B)")
            lines.append("     params:" + ",".join(params))
            roles = [f"{p['role']} = '{names[p['argument']]}'"
                     for p in k["params"]
                     if p["kind"] == "buffer" and p.get("role")]
            if roles:
                lines.append("     roles: " + ", ".join(roles))
            attributes = k.get("attributes", {})
            if attributes:
                lines.append("     attributes:" + "".join(
                    f" {key} = {_attribute_text(attributes[key])}"
                    for key in sorted(attributes)))
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return (f"Bundle({self.path!r}, program={self.program!r}, "
                f"chip={self.chip!r}, kernels={list(self._entries)})")
