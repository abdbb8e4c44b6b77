#!/usr/bin/env python3
"""Prints the PTX of the one gpu.binary in MLIR read from stdin.

gpu-module-to-binary{format=isa} stores the PTX as an escaped string
attribute (`assembly = "..."`); ptxas needs it as a plain file.
"""
import re
import sys

text = sys.stdin.read()
assemblies = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
if len(assemblies) != 1:
    sys.exit(f"extract_ptx.py: expected one gpu.binary, found {len(assemblies)}")
# MLIR escapes a backslash as \\ and other bytes as \XX (hex).
ptx = re.sub(r'\\(\\|[0-9A-Fa-f]{2})',
             lambda m: '\\' if m.group(1) == '\\' else chr(int(m.group(1), 16)),
             assemblies[0])
sys.stdout.write(ptx)
