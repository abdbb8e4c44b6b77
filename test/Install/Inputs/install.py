#!/usr/bin/env python3
"""Installs the components find_package(Lamport) needs from a build tree.

usage: install.py BUILD_DIR PREFIX

The list is LAMPORT_INSTALL_COMPONENTS of the build's CMakeCache.txt
(cmake/LamportInstall.cmake): only what the test suite built, where a plain
`cmake --install` would want every target of the tree built.
"""
import os
import subprocess
import sys

build, prefix = sys.argv[1:]
components = None
with open(os.path.join(build, "CMakeCache.txt")) as cache:
    for line in cache:
        if line.startswith("LAMPORT_INSTALL_COMPONENTS:"):
            components = line.split("=", 1)[1].strip().split(";")
if not components:
    sys.exit(f"install.py: {build}/CMakeCache.txt has no LAMPORT_INSTALL_COMPONENTS")
for component in components:
    subprocess.run(["cmake", "--install", build, "--prefix", prefix,
                    "--component", component], check=True,
                   stdout=subprocess.DEVNULL)
