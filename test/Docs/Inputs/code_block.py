#!/usr/bin/env python3
"""Prints the Nth fenced code block of a language from a markdown file.

usage: code_block.py FILE.md LANGUAGE [N]   (N counts from 0, default 0)

The test suite runs the code the docs show, not a copy of it.
"""
import re
import sys

path, language = sys.argv[1:3]
index = int(sys.argv[3]) if len(sys.argv) > 3 else 0
with open(path) as file:
    blocks = re.findall(r"^```" + re.escape(language) + r"\n(.*?)^```", file.read(),
                        re.M | re.S)
if index >= len(blocks):
    sys.exit(f"code_block.py: {path} has {len(blocks)} ```{language} blocks")
sys.stdout.write(blocks[index])
