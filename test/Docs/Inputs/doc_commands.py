#!/usr/bin/env python3
"""Prints, as a shell script, the commands a markdown file shows.

usage: doc_commands.py FILE.md PREFIX...

Every line of an indented (4-space) code block that starts with `lamport-`
and one of the PREFIXes (so a lit RUN line names no tool, which lit would
replace by its path), its trailing `# comment` dropped, one a line after `set -e` and
`set -o pipefail`: the test suite runs the commands the docs show, not a
copy of them.
"""
import re
import sys

path, prefixes = sys.argv[1], ["lamport-" + p for p in sys.argv[2:]]
commands = []
with open(path) as file:
    for line in file:
        if not line.startswith("    "):
            continue
        command = re.sub(r"\s+#.*$", "", line.strip())
        if any(command.startswith(prefix) for prefix in prefixes):
            commands.append(command)
if not commands:
    sys.exit(f"doc_commands.py: {path} shows no command starting with "
             f"{' or '.join(prefixes)}")
print("set -e\nset -o pipefail")
for command in commands:
    print(command)
