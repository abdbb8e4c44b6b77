#!/usr/bin/env python3
"""Makes a hand-edited copy of a bundle, for timing experiments: a kernel's
PTX changed by line edits, its cubin rebuilt by ptxas for the manifest's
chip, everything else as it was. The docs' "hand-edited PTX" measurements
are made this way, then timed beside the unedited bundles (for GEMMs:
lamport-gemm-bench bundles/gemm/... bundles/exp/...).

  edit_ptx.py SOURCE DEST [--kernel NAME] EDIT... [--ptxas PATH]

Edits, applied to the kernel's PTX in the order given:
  --insert-after PATTERN LINE   LINE after the first line PATTERN matches
  --insert-before PATTERN LINE  LINE before the first line PATTERN matches
  --sub PATTERN REPLACEMENT     re.sub on every line PATTERN matches
  --sub-skip N PATTERN REPLACEMENT
                                the same, leaving the first N matches alone
  --sub-text PATTERN REPLACEMENT
                                re.sub over the whole PTX (multiline, so
                                PATTERN may span an instruction's lines)
PATTERN is a Python regular expression, REPLACEMENT may use its groups.
An edit that matches nothing is an error: an experiment that silently
changed nothing would measure the original. Prints each edit's count.
Example (the publish's 16 copy stores under an evict-last L2 policy, y's
store, the first, left alone):

  edit_ptx.py bundles/gemm/X bundles/exp/X_evlast \\
    --insert-after '\\.reg \\.b64\\s+%rd<' '.reg .b64 %pubpol;' \\
    --insert-after 'createpolicy' \\
      'createpolicy.fractional.L2::evict_last.b64 %pubpol, 1.0;' \\
    --sub-skip 1 'st\\.global\\.v4\\.b32(\\s+)(\\[[^]]+\\]), (\\{[^}]+\\});' \\
      'st.global.L2::cache_hint.v4.b32\\1\\2, \\3, %pubpol;'

Exit status 1 on a failed edit or ptxas error (DEST is then removed), 2 on
bad arguments.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


class Edit(argparse.Action):
    """Keeps every edit option, whatever its kind, in command-line order."""

    def __call__(self, parser, namespace, values, option_string=None):
        edits = getattr(namespace, "edits", None) or []
        kind = option_string.lstrip("-")
        if kind == "sub-skip":
            try:
                skip = int(values[0])
            except ValueError:
                parser.error(f"--sub-skip: {values[0]!r} is not a count")
            edits.append((kind, skip, values[1], values[2]))
        else:
            edits.append((kind, 0, values[0], values[1]))
        namespace.edits = edits


def apply_edit(lines, edit):
    """Applies one edit to the PTX lines; returns how many lines changed."""
    kind, skip, pattern, text = edit
    try:
        regex = re.compile(pattern, re.M)
    except re.error as error:
        raise ValueError(f"--{kind} {pattern!r}: {error}")
    if kind == "sub-text":
        whole, changed = regex.subn(text, "\n".join(lines))
        lines[:] = whole.split("\n")
        return changed
    if kind in ("insert-after", "insert-before"):
        for i, line in enumerate(lines):
            if regex.search(line):
                lines.insert(i + (kind == "insert-after"), "\t" + text)
                return 1
        return 0
    changed = 0
    matched = 0
    for i, line in enumerate(lines):
        if not regex.search(line):
            continue
        matched += 1
        if matched <= skip:
            continue
        lines[i] = regex.sub(text, line)
        changed += 1
    return changed


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("dest")
    parser.add_argument("--kernel", help="kernel name (default: the only one)")
    parser.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    parser.add_argument("--insert-after", nargs=2, action=Edit,
                        metavar=("PATTERN", "LINE"))
    parser.add_argument("--insert-before", nargs=2, action=Edit,
                        metavar=("PATTERN", "LINE"))
    parser.add_argument("--sub", nargs=2, action=Edit,
                        metavar=("PATTERN", "REPLACEMENT"))
    parser.add_argument("--sub-skip", nargs=3, action=Edit,
                        metavar=("N", "PATTERN", "REPLACEMENT"))
    parser.add_argument("--sub-text", nargs=2, action=Edit,
                        metavar=("PATTERN", "REPLACEMENT"))
    args = parser.parse_args()
    edits = getattr(args, "edits", None) or []
    if not edits:
        parser.error("no edits: the copy would be the original")

    try:
        with open(os.path.join(args.source, "manifest.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as error:
        parser.error(f"{args.source}: no readable manifest.json ({error})")
    kernels = manifest.get("kernels", [])
    if args.kernel:
        kernels = [k for k in kernels if k.get("name") == args.kernel]
    if len(kernels) != 1:
        parser.error(f"{args.source}: name one of its kernels with --kernel "
                     f"({', '.join(k.get('name', '?') for k in manifest.get('kernels', []))})")
    kernel = kernels[0]
    if os.path.exists(args.dest):
        parser.error(f"{args.dest} exists; remove it or choose another name")
    shutil.copytree(args.source, args.dest)
    status = edit_copy(args, edits, manifest, kernel)
    if status != 0:
        shutil.rmtree(args.dest)  # no half-made experiment left to time
    return status


def edit_copy(args, edits, manifest, kernel):
    """Edits the copy's PTX and rebuilds its cubin; 0 on success."""
    ptx_path = os.path.join(args.dest, kernel["ptx"])
    with open(ptx_path) as f:
        lines = f.read().split("\n")
    for edit in edits:
        try:
            count = apply_edit(lines, edit)
        except ValueError as error:
            print(f"edit_ptx.py: {error}", file=sys.stderr)
            return 1
        unit = "match(es)" if edit[0] == "sub-text" else "line(s)"
        print(f"--{edit[0]} {edit[2]!r}: {count} {unit}")
        if count == 0:
            print(f"edit_ptx.py: --{edit[0]} {edit[2]!r} matched nothing in "
                  f"{ptx_path}", file=sys.stderr)
            return 1
    with open(ptx_path, "w") as f:
        f.write("\n".join(lines))
    if kernel.get("cubin"):
        cubin = os.path.join(args.dest, kernel["cubin"])
        result = subprocess.run(
            [args.ptxas, f"-arch={manifest['chip']}", "-o", cubin, ptx_path],
            capture_output=True, text=True)
        if result.returncode != 0:
            print(f"edit_ptx.py: ptxas refused the edited {ptx_path}:\n"
                  f"{result.stderr}", file=sys.stderr)
            return 1
    print(f"{args.dest}: {kernel['name']} edited, "
          f"{'cubin rebuilt' if kernel.get('cubin') else 'no cubin'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
