#!/usr/bin/env python3
# ===- make_boundaries.py - The fake decode-boundary bundles --------------===#
#
# Part of the Lamport project.
#
# Writes the hand-made bundles the fake-boundaries tests run over the
# host-only libcuda (test/Runtime/FakeDriver): manifests as docs/bundle.md
# lays them out, with buffer roles, and stand-in PTX whose "fake-kernel:"
# line tells the fake driver the kernel's parameters and shapes. Small
# shapes (tp 2..4, H 256, K 64), the structure of docs/examples:
#   attention_tp2           gemm_publish into a mailbox, all_reduce_dual_norm
#   attention_unfused_tp2   gemm_publish (no mailbox), publish_rows,
#                           all_reduce, dual_norm: the same outputs
#   attention_channel_tp4   the fused boundary with per-channel gates, no
#                           post-norm weight, pairwise sums and eps 1e-5
#   unpooler_tp4            gemm_publish of a column block, all_gather
#   attention_dispatch_tp2  the fused boundary with the GEMM chosen by M:
#                           gemm_publish_0 (8-token tile) for M in 1..8,
#                           gemm_publish_1 (16) for 9..16
#   reduce_norm_tp4         the boundary alone in one kernel:
#                           all_reduce_dual_norm publishing its partial
# Run it from this directory after changing it; the outputs are committed.
#
# ===----------------------------------------------------------------------===#
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def buffer(name, dtype, shape, io):
    return {"name": name, "kind": "buffer", "dtype": dtype, "shape": shape,
            "io": io}


def mailbox_arg(name):
    return {"name": name, "kind": "mailbox", "mailbox": 0}


def io_of(role):
    """The param io lamport-compile writes for a buffer of `role`: what the
    kernel does to it (the op's buffer roles)."""
    if role in ("out", "y"):
        return "out"
    return "inout" if role == "stream" else "in"


def kernel(name, op, params, attributes, tp, grid=16, block=128):
    """params: (kind, argument, role) in order; kind is mailbox, buffer or
    tokens."""
    entries = []
    for kind, argument, role in params:
        if kind == "mailbox":
            entries.append({"kind": "mailbox", "argument": argument,
                            "size": 40 + 8 * tp, "align": 8})
        elif kind == "buffer":
            entries.append({"kind": "buffer", "argument": argument,
                            "io": io_of(role), "size": 8, "align": 8,
                            "role": role})
        else:
            entries.append({"kind": "tokens", "size": 4, "align": 4})
    return {"name": name, "op": op, "ptx": name + ".ptx",
            "cubin": name + ".cubin", "grid": [grid, 1, 1],
            "block": [block, 1, 1], "cluster": [1, 1, 1],
            "shared_bytes": 0, "pdl": True, "attributes": attributes,
            "params": entries}


def launch(name, tokens):
    entry = {"kernel": name}
    if tokens:
        entry["tokens"] = tokens
    return entry


def fake_params(params):
    return ",".join(kind if kind != "buffer" else role
                    for kind, _, role in params)


def write(directory, program, tp, capacity, width, arguments, kernels,
          fakes, tokens=None):
    """tokens: per kernel, the [lo, hi] range of M its launch runs for, or
    None (every M); one launch per kernel, in order."""
    path = os.path.join(HERE, directory)
    os.makedirs(path, exist_ok=True)
    for i, arg in enumerate(arguments):
        arg["index"] = i
        arguments[i] = {"index": i, **{k: v for k, v in arg.items()
                                       if k != "index"}}
    manifest = {
        "format": "lamport-bundle", "version": 1, "chip": "sm_90",
        "transport": "unicast", "program": program,
        "mailboxes": [{"id": 0, "name": "mb", "tp": tp,
                       "capacity": capacity, "width": width}],
        "arguments": arguments, "kernels": kernels,
        "launches": [launch(k["name"], r)
                     for k, r in zip(kernels, tokens or [None] * len(kernels))]}
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    for k, line in zip(kernels, fakes):
        with open(os.path.join(path, k["name"] + ".ptx"), "w") as f:
            f.write("// A stand-in image. The GPU never loads it; the "
                    "host-only driver of\n// test/Runtime/FakeDriver reads "
                    "the next line.\n")
            f.write(f"// fake-kernel: tp={tp} capacity={capacity} "
                    f"width={line[0]} {line[1]}\n")
            f.write(".version 8.0\n.target sm_90\n.address_size 64\n")
            if "timeout_ns" in k.get("attributes", {}):
                # A polling kernel's override of its timeout, as
                # lamport-compile's images hold it.
                f.write(".visible .const .align 8 .u64 "
                        "lamport_poll_timeout_ns;\n")
            f.write(f".visible .entry {k['name']}()\n{{\n  ret;\n}}\n")


def attention(directory, tp, h, k, gates, post, order, eps, dispatch=False):
    args = [buffer("attn", "bf16", [-1, k], "in"),
            buffer("o_proj", "bf16", [h, k], "in"),
            buffer("partial", "bf16", [-1, h], "out"),
            mailbox_arg("mb"),
            buffer("stream", "f32", [-1, h], "inout"),
            buffer("alpha", "f32", [gates], "in"),
            buffer("beta", "f32", [gates], "in")]
    if post:
        args.append(buffer("post_weight", "bf16", [h], "in"))
    args += [buffer("next_weight", "bf16", [h], "in"),
             buffer("out", "bf16", [-1, h], "out")]
    index = {a["name"]: i for i, a in enumerate(args)}
    gemm = [("mailbox", index["mb"], None),
            ("buffer", index["o_proj"], "weight"),
            ("buffer", index["attn"], "x"),
            ("buffer", index["partial"], "y"), ("tokens", None, None)]
    norm = [("mailbox", index["mb"], None),
            ("buffer", index["stream"], "stream"),
            ("buffer", index["alpha"], "alpha"),
            ("buffer", index["beta"], "beta")]
    if post:
        norm.append(("buffer", index["post_weight"], "post_weight"))
    norm += [("buffer", index["next_weight"], "next_weight"),
             ("buffer", index["out"], "out"), ("tokens", None, None)]
    norm_kernel = kernel("all_reduce_dual_norm_0", "all_reduce_dual_norm",
                         norm, {"eps": eps, "sum_order": order,
                                "timeout_ns": 1000000000}, tp)
    norm_fake = (h, f"params={fake_params(norm)} gate={gates} eps={eps} "
                    f"order={order}")
    if not dispatch:
        kernels = [
            kernel("gemm_publish_0", "gemm_publish", gemm,
                   {"transport": "unicast", "token_tile": 16}, tp, h // 16,
                   128),
            norm_kernel]
        fakes = [(h, f"params={fake_params(gemm)} n={h} k={k}"), norm_fake]
        write(directory, "attention_boundary", tp, 16, h, args, kernels,
              fakes)
        return
    # One GEMM kernel per token tile, chosen by M; the fake computes only
    # a kernel's tile of rows, so running the wrong one fails the check.
    kernels = [
        kernel("gemm_publish_0", "gemm_publish", gemm,
               {"transport": "unicast", "token_tile": 8}, tp, h // 16, 128),
        kernel("gemm_publish_1", "gemm_publish", gemm,
               {"transport": "unicast", "token_tile": 16}, tp, h // 16, 128),
        norm_kernel]
    fakes = [(h, f"params={fake_params(gemm)} n={h} k={k} tile=8"),
             (h, f"params={fake_params(gemm)} n={h} k={k} tile=16"),
             norm_fake]
    write(directory, "attention_boundary", tp, 16, h, args, kernels, fakes,
          tokens=[[1, 8], [9, 16], None])


def attention_unfused(directory, tp, h, k, eps):
    args = [buffer("attn", "bf16", [-1, k], "in"),
            buffer("o_proj", "bf16", [h, k], "in"),
            buffer("partial", "bf16", [-1, h], "inout"),
            mailbox_arg("mb"),
            buffer("reduced", "bf16", [-1, h], "inout"),
            buffer("stream", "f32", [-1, h], "inout"),
            buffer("alpha", "f32", [1], "in"),
            buffer("beta", "f32", [1], "in"),
            buffer("post_weight", "bf16", [h], "in"),
            buffer("next_weight", "bf16", [h], "in"),
            buffer("out", "bf16", [-1, h], "out")]
    index = {a["name"]: i for i, a in enumerate(args)}
    gemm = [("buffer", index["o_proj"], "weight"),
            ("buffer", index["attn"], "x"),
            ("buffer", index["partial"], "y"), ("tokens", None, None)]
    publish = [("mailbox", index["mb"], None),
               ("buffer", index["partial"], "rows"), ("tokens", None, None)]
    reduce = [("mailbox", index["mb"], None),
              ("buffer", index["reduced"], "out"), ("tokens", None, None)]
    norm = [("buffer", index["reduced"], "reduced"),
            ("buffer", index["stream"], "stream"),
            ("buffer", index["alpha"], "alpha"),
            ("buffer", index["beta"], "beta"),
            ("buffer", index["post_weight"], "post_weight"),
            ("buffer", index["next_weight"], "next_weight"),
            ("buffer", index["out"], "out"), ("tokens", None, None)]
    kernels = [
        kernel("gemm_publish_0", "gemm_publish", gemm, {"token_tile": 16},
               tp, h // 16, 128),
        kernel("publish_rows_0", "publish_rows", publish,
               {"transport": "unicast"}, tp),
        kernel("all_reduce_0", "all_reduce", reduce,
               {"sum_order": "rank_ascending", "timeout_ns": 1000000000}, tp),
        kernel("dual_norm_0", "dual_norm", norm, {"eps": eps}, tp)]
    fakes = [(h, f"params={fake_params(gemm)} n={h} k={k}"),
             (h, f"params={fake_params(publish)}"),
             (h, f"params={fake_params(reduce)}"),
             (h, f"params={fake_params(norm)} gate=1 eps={eps}")]
    write(directory, "attention_boundary_unfused", tp, 16, h, args, kernels,
          fakes)


def reduce_norm(directory, tp, h, eps):
    args = [buffer("partial", "bf16", [-1, h], "in"),
            mailbox_arg("mb"),
            buffer("stream", "f32", [-1, h], "inout"),
            buffer("alpha", "f32", [1], "in"),
            buffer("beta", "f32", [1], "in"),
            buffer("post_weight", "bf16", [h], "in"),
            buffer("next_weight", "bf16", [h], "in"),
            buffer("out", "bf16", [-1, h], "out")]
    index = {a["name"]: i for i, a in enumerate(args)}
    norm = [("mailbox", index["mb"], None)] + [
        ("buffer", index[name], name)
        for name in ("stream", "alpha", "beta", "post_weight", "next_weight",
                     "out", "partial")] + [("tokens", None, None)]
    kernels = [kernel("all_reduce_dual_norm_0", "all_reduce_dual_norm", norm,
                      {"eps": eps, "sum_order": "rank_ascending",
                       "timeout_ns": 1000000000, "transport": "unicast"},
                      tp)]
    fakes = [(h, f"params={fake_params(norm)} gate=1 eps={eps}")]
    write(directory, "reduce_norm_boundary", tp, 16, h, args, kernels, fakes)


def unpooler(directory, tp, n, k):
    args = [buffer("x", "bf16", [-1, k], "in"),
            buffer("w_block", "bf16", [n, k], "in"),
            buffer("y", "bf16", [-1, n], "out"),
            mailbox_arg("mb"),
            buffer("out", "bf16", [-1, tp * n], "out")]
    gemm = [("mailbox", 3, None), ("buffer", 1, "weight"),
            ("buffer", 0, "x"), ("buffer", 2, "y"), ("tokens", None, None)]
    gather = [("mailbox", 3, None), ("buffer", 4, "out"),
              ("tokens", None, None)]
    kernels = [
        kernel("gemm_publish_0", "gemm_publish", gemm,
               {"transport": "unicast", "token_tile": 16}, tp, n // 16, 128),
        kernel("all_gather_0", "all_gather", gather,
               {"timeout_ns": 1000000000}, tp)]
    fakes = [(n, f"params={fake_params(gemm)} n={n} k={k}"),
             (n, f"params={fake_params(gather)}")]
    write(directory, "unpooler_boundary", tp, 16, n, args, kernels, fakes)


if __name__ == "__main__":
    attention("attention_tp2", 2, 256, 64, 1, True, "rank_ascending", 1e-06)
    attention_unfused("attention_unfused_tp2", 2, 256, 64, 1e-06)
    attention("attention_channel_tp4", 4, 256, 64, 256, False, "pairwise",
              1e-05)
    unpooler("unpooler_tp4", 4, 64, 64)
    attention("attention_dispatch_tp2", 2, 256, 64, 1, True, "rank_ascending",
              1e-06, dispatch=True)
    reduce_norm("reduce_norm_tp4", 4, 256, 1e-06)
