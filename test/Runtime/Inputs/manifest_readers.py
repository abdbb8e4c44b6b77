#!/usr/bin/env python3
# ===- manifest_readers.py - Both manifest readers against one schema -----===#
#
# Part of the Lamport project.
#
#   manifest_readers.py examples LAMPORT_COMPILE LAMPORT_RUN SRC_ROOT OUT
# compiles every docs/examples/*.mlir into OUT and checks each manifest
# against docs/bundle.schema.json (jsonschema), lamport.Bundle and
# lamport-run --plan; prints what each op's kernels do to their mailbox.
#
#   manifest_readers.py corpus LAMPORT_RUN SRC_ROOT GOOD_BUNDLE OUT
# writes one bad manifest per rule into OUT/<rule>/manifest.json, each a
# mutation of GOOD_BUNDLE's, and checks that both readers refuse each:
# lamport-run --plan exits 2 (a bundle error, not an abort) with a message
# that names the offending field and quotes no whole value, and
# lamport.Bundle raises BundleError naming the same field.
#
# Prints one line per failure and a closing count; exits 1 on a failure.
#
# ===----------------------------------------------------------------------===#
import copy
import glob
import json
import os
import subprocess
import sys


def load_package(src_root):
    sys.path.insert(0, os.path.join(src_root, "python"))
    import lamport.bundle

    return lamport.bundle


def plain_validator(src_root):
    """A validator of the schema as JSON Schema defines it: what any
    consumer of the schema would run."""
    import jsonschema

    with open(os.path.join(src_root, "docs", "bundle.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def run_plan(lamport_run, bundle):
    result = subprocess.run([lamport_run, bundle, "--plan"],
                            capture_output=True, text=True, errors="replace")
    return result.returncode, result.stderr.strip()


def check_examples(compiler, lamport_run, src_root, out):
    bundle_module = load_package(src_root)
    validator = plain_validator(src_root)
    failures, uses = [], {}
    examples = sorted(glob.glob(os.path.join(src_root, "docs", "examples", "*.mlir")))
    for example in examples:
        name = os.path.basename(example)[: -len(".mlir")]
        bundle = os.path.join(out, name)
        result = subprocess.run([compiler, example, "-o", bundle],
                                capture_output=True, text=True)
        if result.returncode:
            failures.append(f"{name}: lamport-compile failed: {result.stderr}")
            continue
        with open(os.path.join(bundle, "manifest.json")) as f:
            manifest = json.load(f)
        for error in validator.iter_errors(manifest):
            failures.append(f"{name}: {list(error.absolute_path)}: {error.message}")
        try:
            bundle_module.Bundle(bundle)
        except bundle_module.BundleError as error:
            failures.append(f"{name}: lamport.Bundle: {error}")
        status, stderr = run_plan(lamport_run, bundle)
        if status:
            failures.append(f"{name}: lamport-run --plan: {stderr}")
        for kernel in manifest["kernels"]:
            takes_mailbox = any(p["kind"] == "mailbox" for p in kernel["params"])
            use = kernel.get("mailbox_use", "no mailbox")
            if takes_mailbox and "mailbox_use" not in kernel:
                failures.append(f"{name}: {kernel['name']} takes a mailbox "
                                f"but has no mailbox_use")
            uses.setdefault(kernel["op"], set()).add(use)
    for failure in failures:
        print("FAIL", failure)
    for op in sorted(uses):
        print(f"{op}: {', '.join(sorted(uses[op]))}")
    print(f"{len(examples)} example bundles, {len(failures)} failures")
    return 1 if failures else 0


# --- The corpus: one broken rule per manifest --------------------------------


class Good:
    """Where the good manifest keeps what the mutations break: the first
    kernel with a parameter of each kind, and the first choice by M."""

    def __init__(self, m):
        def first(kind):
            return next((k, p) for k, kernel in enumerate(m["kernels"])
                        for p, param in enumerate(kernel["params"])
                        if param["kind"] == kind)
        self.kb, self.pb = first("buffer")
        self.km, self.pm = first("mailbox")
        self.kt, self.pt = first("tokens")
        self.buffer = f"kernels[{self.kb}].params[{self.pb}]"
        self.mailbox = f"kernels[{self.km}].params[{self.pm}]"
        self.tokens = f"kernels[{self.kt}].params[{self.pt}]"
        self.a = next(i for i, a in enumerate(m["arguments"]) if a["kind"] == "buffer")
        self.am = next(i for i, a in enumerate(m["arguments"]) if a["kind"] == "mailbox")
        self.c = next(i for i, l in enumerate(m["launches"]) if "tokens" in l)
        self.c_last = self.c
        while "tokens" in m["launches"][self.c_last + 1]:
            self.c_last += 1
        self.other = next(l["kernel"] for l in m["launches"] if "tokens" not in l)


def at(m, path):
    """The object holding the last key of `path`, and that key."""
    for key in path[:-1]:
        m = m[key]
    return m, path[-1]


def set_(*path_and_value):
    *path, value = path_and_value

    def mutate(m, g):
        target, key = at(m, [k(g) if callable(k) else k for k in path])
        target[key] = value(m, g) if callable(value) else value
    return mutate


def del_(*path):
    def mutate(m, g):
        target, key = at(m, [k(g) if callable(k) else k for k in path])
        del target[key]
    return mutate


def text(old, new):
    """A mutation of the manifest's text rather than of its JSON value."""
    def mutate(content):
        assert old in content, old
        return content.replace(old, new, 1)
    mutate.on_text = True
    return mutate


def second_mailbox(tp_delta, same_name):
    def mutate(m, g):
        extra = dict(m["mailboxes"][0], id=len(m["mailboxes"]))
        extra["name"] += "" if same_name else "_2"
        extra["tp"] += tp_delta
        m["mailboxes"].append(extra)
    return mutate


def mailbox_use_without_mailbox(m, g):
    kernel = m["kernels"][g.km]
    del kernel["params"][g.pm]
    kernel["mailbox_use"] = "publish"


def tensor_map(box=(64, 16), size=128, bound=True):
    """Appends to a kernel a tensor map of a static 2-D bf16 buffer: of one
    the kernel takes (bound) or of one it does not."""
    def mutate(m, g):
        static = [a["index"] for a in m["arguments"] if a["kind"] == "buffer"
                  and a["dtype"] == "bf16" and len(a["shape"]) == 2
                  and min(a["shape"]) > 0]
        for kernel in m["kernels"]:
            taken = {p.get("argument") for p in kernel["params"]
                     if p["kind"] == "buffer"}
            for argument in static:
                if (argument in taken) == bound:
                    kernel["params"].insert(0, {
                        "kind": "tensor_map", "argument": argument,
                        "size": size, "align": 64, "box": list(box)})
                    g.tensor_map = f"kernels[{m['kernels'].index(kernel)}].params[0]"
                    return
        raise AssertionError("the good manifest has no such buffer")
    return mutate


def cluster_not_dividing(m, g):
    m["kernels"][0]["grid"] = [7, 1, 1]
    m["kernels"][0]["cluster"] = [2, 1, 1]


def shift_choice(index, end, delta):
    def mutate(m, g):
        m["launches"][index(g)]["tokens"][end] += delta
    return mutate


def choice_of_two_ops(m, g):
    m["launches"][g.c + 1]["kernel"] = g.other


KB, KM, KT = (lambda g: g.kb), (lambda g: g.km), (lambda g: g.kt)
PB, PM, PT = (lambda g: g.pb), (lambda g: g.pm), (lambda g: g.pt)
A, AM, C = (lambda g: g.a), (lambda g: g.am), (lambda g: g.c)
NO_JSON = None  # Neither reader can name a field of text that is no JSON.

# (rule, mutation, the JSON path both readers must name, or what they must
# say of a missing field: a string, or a function of Good where it depends on
# the good manifest).
CORPUS = [
    # The document and its header.
    ("root-not-object", lambda m, g: m.clear(), ""),
    ("format", set_("format", "cubin-pack"), "format"),
    ("version-2", set_("version", 2), "version"),
    ("version-float", set_("version", 1.0), "version"),
    ("version-2^64-1", set_("version", 18446744073709551615), "version"),
    ("missing-chip", del_("chip"), "missing field 'chip'"),
    ("chip", set_("chip", "gfx90a"), "chip"),
    ("chip-type", set_("chip", 90), "chip"),
    ("transport", set_("transport", "nvshmem"), "transport"),
    ("transport-long", set_("transport", "x" * 10000), "transport"),
    ("program-type", set_("program", ["a"]), "program"),
    # Mailboxes.
    ("mailboxes-type", set_("mailboxes", {}), "mailboxes"),
    ("mailbox-not-object", set_("mailboxes", 0, 7), "mailboxes[0]"),
    ("mailbox-missing-width", del_("mailboxes", 0, "width"), "mailboxes[0]: missing field 'width'"),
    ("mailbox-id-2^32", set_("mailboxes", 0, "id", 4294967296), "mailboxes[0].id"),
    ("mailbox-id-position", set_("mailboxes", 0, "id", 1), "mailboxes[0].id"),
    ("mailbox-name-empty", set_("mailboxes", 0, "name", ""), "mailboxes[0].name"),
    ("mailbox-tp-0", set_("mailboxes", 0, "tp", 0), "mailboxes[0].tp"),
    ("mailbox-tp-65", set_("mailboxes", 0, "tp", 65), "mailboxes[0].tp"),
    ("mailbox-capacity-0", set_("mailboxes", 0, "capacity", 0), "mailboxes[0].capacity"),
    ("mailbox-capacity-2^16+1", set_("mailboxes", 0, "capacity", 65537), "mailboxes[0].capacity"),
    ("mailbox-width-fragment", set_("mailboxes", 0, "width", 1020), "mailboxes[0].width"),
    ("mailbox-width-float", set_("mailboxes", 0, "width", 1024.0), "mailboxes[0].width"),
    ("mailbox-name-twice", second_mailbox(0, True), "mailboxes[1].name"),
    ("mailbox-tp-differs", second_mailbox(1, False), "mailboxes"),
    # Arguments.
    ("argument-index-position", set_("arguments", 0, "index", 1), "arguments[0].index"),
    ("argument-index-2^32", set_("arguments", 0, "index", 4294967296), "arguments[0].index"),
    ("argument-name-empty", set_("arguments", 0, "name", ""), "arguments[0].name"),
    ("argument-name-twice", set_("arguments", 1, "name", lambda m, g: m["arguments"][0]["name"]),
     "arguments[1].name"),
    ("argument-kind", set_("arguments", 0, "kind", "tensor"), "arguments[0].kind"),
    ("argument-missing-kind", del_("arguments", 0, "kind"), "arguments[0]: missing field 'kind'"),
    ("argument-dtype", set_("arguments", A, "dtype", "f16"), lambda g: f"arguments[{g.a}].dtype"),
    ("argument-missing-dtype", del_("arguments", A, "dtype"), lambda g: f"arguments[{g.a}]: missing field 'dtype'"),
    ("argument-io", set_("arguments", A, "io", "both"), lambda g: f"arguments[{g.a}].io"),
    ("argument-shape-empty", set_("arguments", A, "shape", []), lambda g: f"arguments[{g.a}].shape"),
    ("argument-shape-0", set_("arguments", A, "shape", [0, 8]), lambda g: f"arguments[{g.a}].shape[0]"),
    ("argument-shape--2", set_("arguments", A, "shape", [-2, 8]), lambda g: f"arguments[{g.a}].shape[0]"),
    ("argument-shape-2^64-1", set_("arguments", A, "shape", [18446744073709551615, 8]),
     lambda g: f"arguments[{g.a}].shape[0]"),
    ("argument-shape-2^31", set_("arguments", A, "shape", [2147483648, 8]),
     lambda g: f"arguments[{g.a}].shape[0]"),
    ("argument-mailbox-range", set_("arguments", AM, "mailbox", 5), lambda g: f"arguments[{g.am}].mailbox"),
    ("argument-mailbox-2^32", set_("arguments", AM, "mailbox", 4294967296),
     lambda g: f"arguments[{g.am}].mailbox"),
    ("argument-missing-mailbox", del_("arguments", AM, "mailbox"), lambda g: f"arguments[{g.am}]: missing field 'mailbox'"),
    # Kernels.
    ("kernels-empty", set_("kernels", []), "kernels"),
    ("kernel-name-twice", set_("kernels", 1, "name", lambda m, g: m["kernels"][0]["name"]), "kernels[1].name"),
    ("kernel-name-path", set_("kernels", 0, "name", "a/b"), "kernels[0].name"),
    ("kernel-op-dash", set_("kernels", 0, "op", "reduce-scatter"), "kernels[0].op"),
    ("kernel-ptx-outside", set_("kernels", 0, "ptx", "../x.ptx"), "kernels[0].ptx"),
    ("kernel-cubin-dotdot", set_("kernels", 0, "cubin", ".."), "kernels[0].cubin"),
    ("kernel-missing-grid", del_("kernels", 0, "grid"), "kernels[0]: missing field 'grid'"),
    ("grid-2-entries", set_("kernels", 0, "grid", [16, 1]), "kernels[0].grid"),
    ("grid-10000-entries", set_("kernels", 0, "grid", [1] * 10000), "kernels[0].grid"),
    ("grid-x-0", set_("kernels", 0, "grid", 0, 0), "kernels[0].grid[0]"),
    ("grid-x-2^32", set_("kernels", 0, "grid", 0, 4294967296), "kernels[0].grid[0]"),
    ("grid-y-2^16", set_("kernels", 0, "grid", 1, 65536), "kernels[0].grid[1]"),
    ("block-x-0", set_("kernels", 0, "block", 0, 0), "kernels[0].block[0]"),
    ("block-2^16x2^16", set_("kernels", 0, "block", [65536, 65536, 1]), "kernels[0].block[0]"),
    ("block-z-65", set_("kernels", 0, "block", [1, 1, 65]), "kernels[0].block[2]"),
    ("block-threads", set_("kernels", 0, "block", [512, 2, 2]), "kernels[0].block"),
    ("cluster-9", set_("kernels", 0, "cluster", [9, 1, 1]), "kernels[0].cluster[0]"),
    ("cluster-divides-grid", cluster_not_dividing, "kernels[0].cluster"),
    ("shared-bytes-negative", set_("kernels", 0, "shared_bytes", -1), "kernels[0].shared_bytes"),
    ("shared-bytes-2^31", set_("kernels", 0, "shared_bytes", 2147483648), "kernels[0].shared_bytes"),
    ("pdl-int", set_("kernels", 0, "pdl", 1), "kernels[0].pdl"),
    ("pdl-object", set_("kernels", 0, "pdl", {"a": "b" * 1000}), "kernels[0].pdl"),
    ("attributes-array", set_("kernels", 0, "attributes", [1, 2]), "kernels[0].attributes"),
    ("attribute-value-object", set_("kernels", 0, "attributes", "eps", {"x": 1}),
     "kernels[0].attributes.eps"),
    ("mailbox-use", set_("kernels", KM, "mailbox_use", "rearm"), lambda g: f"kernels[{g.km}].mailbox_use"),
    ("mailbox-use-without-mailbox", mailbox_use_without_mailbox, lambda g: f"kernels[{g.km}].mailbox_use"),
    ("params-type", set_("kernels", 0, "params", "mailbox"), "kernels[0].params"),
    # Parameters.
    ("param-kind", set_("kernels", KT, "params", PT, "kind", "stream"), lambda g: f"{g.tokens}.kind"),
    ("param-size-0", set_("kernels", KT, "params", PT, "size", 0), lambda g: f"{g.tokens}.size"),
    ("param-size-2^32", set_("kernels", KT, "params", PT, "size", 4294967296), lambda g: f"{g.tokens}.size"),
    ("param-align-3", set_("kernels", KT, "params", PT, "align", 3), lambda g: f"{g.tokens}.align"),
    ("tokens-param-size", set_("kernels", KT, "params", PT, "size", 8), lambda g: f"{g.tokens}.size"),
    ("buffer-param-size", set_("kernels", KB, "params", PB, "size", 4), lambda g: f"{g.buffer}.size"),
    ("buffer-param-align", set_("kernels", KB, "params", PB, "align", 16), lambda g: f"{g.buffer}.align"),
    ("buffer-param-io", set_("kernels", KB, "params", PB, "io", "read"), lambda g: f"{g.buffer}.io"),
    ("buffer-param-role", set_("kernels", KB, "params", PB, "role", "post weight"),
     lambda g: f"{g.buffer}.role"),
    ("buffer-param-no-argument", del_("kernels", KB, "params", PB, "argument"), lambda g: f"{g.buffer}: missing field 'argument'"),
    ("buffer-param-argument-range", set_("kernels", KB, "params", PB, "argument", 99),
     lambda g: f"{g.buffer}.argument"),
    ("buffer-param-argument-2^32", set_("kernels", KB, "params", PB, "argument", 4294967296),
     lambda g: f"{g.buffer}.argument"),
    ("buffer-param-names-mailbox", set_("kernels", KB, "params", PB, "argument", lambda m, g: g.am),
     lambda g: f"{g.buffer}.argument"),
    ("mailbox-param-size", set_("kernels", KM, "params", PM, "size", 64), lambda g: f"{g.mailbox}.size"),
    ("mailbox-param-size-odd", set_("kernels", KM, "params", PM, "size", 57), lambda g: f"{g.mailbox}.size"),
    ("mailbox-param-names-buffer", set_("kernels", KM, "params", PM, "argument", lambda m, g: g.a),
     lambda g: f"{g.mailbox}.argument"),
    ("tensor-map-size", tensor_map(size=8), lambda g: f"{g.tensor_map}.size"),
    ("tensor-map-box-outside", tensor_map(box=(64, 100000)), lambda g: f"{g.tensor_map}.box[1]"),
    ("tensor-map-box-inner-odd", tensor_map(box=(12, 16)), lambda g: f"{g.tensor_map}.box"),
    ("tensor-map-of-unbound-buffer", tensor_map(bound=False), lambda g: g.tensor_map),
    # Launches.
    ("launches-empty", set_("launches", []), "launches"),
    ("launch-missing-kernel", del_("launches", 0, "kernel"), "launches[0]: missing field 'kernel'"),
    ("launch-kernel-unknown", set_("launches", 0, "kernel", "all_reduce_9"), "launches[0].kernel"),
    ("tokens-3-entries", set_("launches", C, "tokens", [1, 8, 9]), lambda g: f"launches[{g.c}].tokens"),
    ("tokens-lo-0", set_("launches", C, "tokens", 0, 0), lambda g: f"launches[{g.c}].tokens[0]"),
    ("tokens-2^32", set_("launches", C, "tokens", 1, 4294967296), lambda g: f"launches[{g.c}].tokens[1]"),
    ("tokens-lo-past-hi", set_("launches", C, "tokens", [9, 8]), lambda g: f"launches[{g.c}].tokens"),
    ("tokens-past-capacity", set_("launches", C, "tokens", [1, 17]), lambda g: f"launches[{g.c}].tokens"),
    ("choice-gap", shift_choice(lambda g: g.c + 1, 0, 1), lambda g: f"launches[{g.c + 1}].tokens"),
    ("choice-overlap", shift_choice(lambda g: g.c + 1, 0, -1), lambda g: f"launches[{g.c + 1}].tokens"),
    ("choice-cut-short", shift_choice(lambda g: g.c_last, 1, -1), lambda g: f"launches[{g.c_last + 1}]"),
    ("choice-of-two-ops", choice_of_two_ops, lambda g: f"launches[{g.c + 1}].tokens"),
    # Text that is no JSON either reader accepts.
    ("number-overflow", text('"shared_bytes": 0', '"shared_bytes": 1e400'), NO_JSON),
    ("nan", text('"shared_bytes": 0', '"shared_bytes": NaN'), NO_JSON),
    ("not-utf8", text('"program": "', '"program": "\udcff'), NO_JSON),
    ("truncated", text('"launches"', '"launches'), NO_JSON),
]

# The longest message a reader may give for one bad manifest: the path, the
# rule and at most 80 characters of what it found (a choice by M states its
# whole rule).
MAX_MESSAGE = 600


def write_corpus(good, out):
    """Writes OUT/<rule>/manifest.json per rule; (rule, dir, path) each."""
    with open(os.path.join(good, "manifest.json")) as f:
        content = f.read()
    base = json.loads(content)
    g = Good(base)
    cases = []
    for rule, mutate, path in CORPUS:
        directory = os.path.join(out, rule)
        os.makedirs(directory, exist_ok=True)
        if getattr(mutate, "on_text", False):
            data = mutate(content).encode("utf-8", "surrogateescape")
        else:
            m = copy.deepcopy(base)
            mutate(m, g)
            data = json.dumps(m if m else [], indent=1).encode()
        with open(os.path.join(directory, "manifest.json"), "wb") as f:
            f.write(data)
        cases.append((rule, directory, path(g) if callable(path) else path))
    return cases


def needle(path):
    """What a message about the field at `path` holds."""
    if not path or "missing field" in path:
        return f"manifest.json: {path}"
    return f"manifest.json: {path}: "


def judge_cpp(rule, path, status, stderr):
    """What is wrong with lamport-run's answer to a bad manifest, or None."""
    if status != 2:
        return f"lamport-run exited {status}, not 2 (a bundle error): {stderr}"
    if len(stderr) > MAX_MESSAGE:
        return f"lamport-run printed {len(stderr)} characters"
    if path is NO_JSON:
        return None if "not valid JSON" in stderr else f"lamport-run: {stderr}"
    if needle(path) not in stderr:
        return f"lamport-run does not name '{path}': {stderr}"
    return None


def judge_python(rule, path, bundle_module, directory):
    """What is wrong with lamport.Bundle's answer, or None."""
    try:
        bundle_module.Bundle(directory)
        return "lamport.Bundle accepts it"
    except bundle_module.BundleError as error:
        message = str(error)
    if len(message) > MAX_MESSAGE:
        return f"lamport.Bundle said {len(message)} characters"
    if path is NO_JSON:
        return None if "is not JSON" in message else f"lamport.Bundle: {message}"
    if rule in ("root-not-object", "format"):
        # Checked first, as before the schema: not a bundle at all.
        ok = "is not a lamport-bundle manifest" in message
        return None if ok else f"lamport.Bundle: {message}"
    if needle(path) not in message:
        return f"lamport.Bundle does not name '{path}': {message}"
    return None


def check_corpus(lamport_run, src_root, good, out):
    bundle_module = load_package(src_root)
    failures = []
    status, stderr = run_plan(lamport_run, good)
    if status:
        failures.append(f"the good bundle: lamport-run --plan: {stderr}")
    bundle_module.Bundle(good)
    cases = write_corpus(good, out)
    for rule, directory, path in cases:
        status, stderr = run_plan(lamport_run, directory)
        for problem in (judge_cpp(rule, path, status, stderr),
                        judge_python(rule, path, bundle_module, directory)):
            if problem:
                failures.append(f"{rule}: {problem}")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(cases)} bad manifests, {len(failures)} failures")
    return 1 if failures else 0


def main():
    mode = sys.argv[1]
    if mode == "examples":
        return check_examples(*sys.argv[2:6])
    if mode == "corpus":
        return check_corpus(*sys.argv[2:6])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
