"""Compiles every docs/examples/*.mlir with lamport-compile and checks what
comes out: a complete bundle (manifest.json that matches docs/bundle.md, a
non-empty .ptx and .cubin per kernel). Anything else fails: every
program-level op has a kernel family.

usage: compile_examples.py LAMPORT_COMPILE EXAMPLES_DIR OUT_DIR [ARGS...]
Prints one line per example, for FileCheck: its launches in order, a launch
chosen by M as KERNEL[LO..HI] (its "tokens" range).
"""

import json
import os
import subprocess
import sys


def check_bundle(bundle):
    """Problems with the bundle in `bundle`, as strings."""
    with open(os.path.join(bundle, "manifest.json")) as f:
        manifest = json.load(f)
    problems = []
    if manifest.get("format") != "lamport-bundle" or manifest.get("version") != 1:
        problems.append("not a version 1 lamport-bundle manifest")
    arguments = manifest["arguments"]
    mailboxes = manifest["mailboxes"]
    names = {kernel["name"] for kernel in manifest["kernels"]}
    for kernel in manifest["kernels"]:
        for key in ("ptx", "cubin"):
            path = os.path.join(bundle, kernel[key])
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                problems.append(f"{kernel['name']}: missing {kernel[key]}")
        for param in kernel["params"]:
            if param["kind"] == "tokens":
                continue
            argument = arguments[param["argument"]]
            if argument["kind"] != param["kind"]:
                problems.append(f"{kernel['name']}: param kind {param['kind']}"
                                f" takes a {argument['kind']} argument")
            if param["kind"] == "mailbox":
                tp = mailboxes[argument["mailbox"]]["tp"]
                if param["size"] != 40 + 8 * tp or param["align"] != 8:
                    problems.append(f"{kernel['name']}: mailbox descriptor "
                                    f"of {param['size']} bytes at tp {tp}")
    for launch in manifest["launches"]:
        if launch["kernel"] not in names:
            problems.append(f"launch of unknown kernel {launch['kernel']}")
    return manifest, problems


def main():
    compiler, examples, out = sys.argv[1:4]
    extra = sys.argv[4:]
    status = 0
    for name in sorted(os.listdir(examples)):
        if not name.endswith(".mlir"):
            continue
        bundle = os.path.join(out, name[: -len(".mlir")])
        result = subprocess.run(
            [compiler, os.path.join(examples, name), "-o", bundle] + extra,
            capture_output=True, text=True)
        if result.returncode == 0:
            manifest, problems = check_bundle(bundle)
            if problems:
                print(f"{name}: BROKEN BUNDLE: " + "; ".join(problems))
                status = 1
                continue
            launches = ", ".join(
                l["kernel"] + ("[{}..{}]".format(*l["tokens"])
                               if "tokens" in l else "")
                for l in manifest["launches"])
            print(f"{name}: bundle for {manifest['chip']}: {launches}")
            continue
        print(f"{name}: FAILED\n{result.stderr}")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
