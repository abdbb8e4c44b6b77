#!/usr/bin/env python3
# ===- edit_manifest.py - A bundle with an edited manifest, for lit --------===#
#
# Part of the Lamport project.
#
#   edit_manifest.py SOURCE DEST 'PYTHON'
# copies bundle SOURCE to DEST (its .ptx files) and writes DEST/manifest.json
# after running the Python statement PYTHON on the parsed manifest `m`, so a
# test names the one field it breaks:
#   edit_manifest.py Inputs/attention_tp2 %t/x "del m['kernels'][1]['params'][2]['role']"
#
# ===----------------------------------------------------------------------===#
import glob
import json
import os
import shutil
import sys

source, dest, statement = sys.argv[1:4]
os.makedirs(dest, exist_ok=True)
for ptx in glob.glob(os.path.join(source, "*.ptx")):
    shutil.copy(ptx, dest)
with open(os.path.join(source, "manifest.json")) as f:
    m = json.load(f)
exec(statement)
with open(os.path.join(dest, "manifest.json"), "w") as f:
    json.dump(m, f, indent=2)
    f.write("\n")
