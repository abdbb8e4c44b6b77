#!/usr/bin/env python3
"""Lists the C, C++ and CUDA sources of a checkout that clang-format would
change, and exits 1 if there are any.

  check_format.py CLANG_FORMAT SOURCE_ROOT

The sources are the tracked files where SOURCE_ROOT is a git checkout, else
every such file outside the build, third-party and hidden folders (a
source archive). The style is the .clang-format at SOURCE_ROOT.
"""
import os
import subprocess
import sys

SUFFIXES = (".h", ".hpp", ".c", ".cpp", ".cu", ".cuh")
SKIPPED_TOP_FOLDERS = ("third_party", "third_party_cache", "bundles")


def sources(root):
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                                check=True, capture_output=True).stdout
        paths = [p for p in listed.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for folder, subfolders, files in os.walk(root):
            relative = os.path.relpath(folder, root)
            top = relative.split(os.sep)[0]
            if top.startswith((".", "build")) or top in SKIPPED_TOP_FOLDERS:
                subfolders[:] = []
                continue
            paths += [os.path.normpath(os.path.join(relative, f))
                      for f in files]
    return sorted(p for p in paths if p.endswith(SUFFIXES)
                  and p.split("/")[0] not in SKIPPED_TOP_FOLDERS)


def main():
    clang_format, root = sys.argv[1], sys.argv[2]
    unformatted = []
    for path in sources(root):
        with open(os.path.join(root, path), "rb") as f:
            text = f.read()
        formatted = subprocess.run(
            [clang_format, "--style=file", "--assume-filename=" + path],
            input=text, cwd=root, check=True, capture_output=True).stdout
        if formatted != text:
            unformatted.append(path)
    for path in unformatted:
        print(f"{path}: not as {os.path.basename(clang_format)} writes it")
    if unformatted:
        count = len(unformatted)
        print(f"{count} file{'s' if count > 1 else ''} to format: git "
              f"clang-format --binary {clang_format} (or clang-format -i "
              f"FILE)")
        return 1
    print("every source formatted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
