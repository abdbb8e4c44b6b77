#!/usr/bin/env python3
"""Builds a reference bundle from reference_kernels.cu (nvcc), in the format
of docs/bundle.md, so lamport-run can be checked on a GPU without the
compiler.

  make_bundle.py --out DIR --tp N --consumer poll_rows|all_reduce
                 [--capacity 16] [--width 1024] [--timeout-ns 1000000000]
                 [--chip sm_90] [--nvcc nvcc]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--tp", type=int, required=True)
    p.add_argument("--consumer", choices=["poll_rows", "all_reduce"],
                   required=True)
    p.add_argument("--capacity", type=int, default=16)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--timeout-ns", type=int, default=1_000_000_000)
    p.add_argument("--chip", default="sm_90")
    p.add_argument("--nvcc", default="nvcc")
    a = p.parse_args()
    if a.width % 8:
        sys.exit("make_bundle.py: --width must be a multiple of 8")

    os.makedirs(a.out, exist_ok=True)
    source = os.path.join(HERE, "reference_kernels.cu")
    defines = [f"-DTP={a.tp}", f"-DCAPACITY={a.capacity}",
               f"-DWIDTH={a.width}", f"-DTIMEOUT_NS={a.timeout_ns}ull"]
    module = os.path.join(a.out, "reference")
    for kind in ("cubin", "ptx"):
        subprocess.run([a.nvcc, f"-arch={a.chip}", f"-{kind}", "-O3",
                        *defines, "-o", f"{module}.{kind}", source],
                       check=True)
    kernels = ["publish_rows", a.consumer]
    for name in kernels:
        for kind in ("cubin", "ptx"):
            shutil.copyfile(f"{module}.{kind}",
                            os.path.join(a.out, f"{name}.{kind}"))

    block = 128
    items = a.capacity * a.width // 8
    grid = max(1, min((items + block - 1) // block, 1024))
    descriptor = 40 + 8 * a.tp
    out_shape = ([a.tp, -1, a.width] if a.consumer == "poll_rows"
                 else [-1, a.width])

    def kernel(name, op, buffer_argument, attributes):
        return {
            "name": name, "op": op, "ptx": f"{name}.ptx",
            "cubin": f"{name}.cubin", "grid": [grid, 1, 1],
            "block": [block, 1, 1], "cluster": [1, 1, 1],
            "shared_bytes": 0, "pdl": True, "attributes": attributes,
            "params": [
                {"kind": "mailbox", "argument": 1, "size": descriptor,
                 "align": 8},
                {"kind": "buffer", "argument": buffer_argument, "size": 8,
                 "align": 8},
                {"kind": "tokens", "size": 4, "align": 4}]}

    consumer_attributes = {"timeout_ns": a.timeout_ns}
    if a.consumer == "all_reduce":
        consumer_attributes["sum_order"] = "rank_ascending"
    manifest = {
        "format": "lamport-bundle", "version": 1, "chip": a.chip,
        "transport": "unicast", "program": f"reference_{a.consumer}",
        "mailboxes": [{"id": 0, "name": "mb", "tp": a.tp,
                       "capacity": a.capacity, "width": a.width}],
        "arguments": [
            {"index": 0, "name": "rows", "kind": "buffer", "dtype": "bf16",
             "shape": [-1, a.width], "io": "in"},
            {"index": 1, "name": "mb", "kind": "mailbox", "mailbox": 0},
            {"index": 2, "name": "out", "kind": "buffer", "dtype": "bf16",
             "shape": out_shape, "io": "out"}],
        "kernels": [
            kernel("publish_rows", "publish_rows", 0,
                   {"transport": "unicast"}),
            kernel(a.consumer, a.consumer, 2, consumer_attributes)],
        "launches": [{"kernel": "publish_rows"}, {"kernel": a.consumer}],
    }
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.remove(f"{module}.cubin")
    os.remove(f"{module}.ptx")


if __name__ == "__main__":
    main()
