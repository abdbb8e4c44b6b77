#!/usr/bin/env python3
"""lamport.torch.Boundary inside torch.compile, one rank of a torchrun group.

    torchrun --nproc-per-node 2 test/gpu/torch_compile.py BUNDLE

BUNDLE: the tp 2 attention boundary (docs/examples/attention_boundary_tp2.mlir,
compiled by test/gpu/prepare_boundary.sh, its polls' timeout a second). Each
rank compiles the layer before its first compiled step, and one may reach it
seconds after the other, so the compiled steps run with the polls' timeout
set to a minute (Boundary.set_poll_timeout) and the CUDA graph's with the
bundle's own. On one GPU the ranks share it under the CUDA MPS daemon
(test/gpu/ranks.sh starts it).

A decode layer's tail, written as a model writes it: torch ops before the
boundary (the attention output scaled), the boundary, torch ops reading what
it wrote (out and the residual stream). Compiled with fullgraph=True (a graph
break is an error) and dynamic shapes, it must give the eager layer's bytes:
for M = 1, 4, 16 and 7, with fresh random inputs, the outputs and the residual
stream poisoned (NaN) or copied fresh before each run, every rank compares the
compiled layer's out and stream with the eager layer's bit for bit, and its
reductions within float tolerance (inductor may sum in another order). Then
the compiled layer is captured in a CUDA graph and replayed, as serving stacks
capture compiled models, and compared again. Each rank prints one line,
"rank R: compile PASS ..." or "... FAIL ...", and exits 1 on a failure.
"""

import os
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import lamport.torch  # noqa: E402


def layer(boundary, attn, o_proj, stream, alpha, beta, post_weight,
          next_weight, partial, out):
    scaled = (attn.float() * 0.5).bfloat16()
    boundary(attn=scaled, o_proj=o_proj, partial=partial, stream=stream,
             alpha=alpha, beta=beta, post_weight=post_weight,
             next_weight=next_weight, out=out)
    return out.float().sum(dim=-1) + stream.sum(dim=-1)


def inputs(m, rank, seed):
    """Fresh inputs of one run: the weights alike on every rank, the
    attention output the rank's own; a few -0.0 and subnormals in it."""
    g = torch.Generator().manual_seed(seed)
    weights = dict(
        o_proj=(torch.randn(8192, 4096, generator=g) * 0.02).bfloat16(),
        alpha=torch.full((1,), 0.5), beta=torch.full((1,), 1.25),
        post_weight=(torch.rand(8192, generator=g) + 0.5).bfloat16(),
        next_weight=(torch.rand(8192, generator=g) + 0.5).bfloat16())
    g = torch.Generator().manual_seed(seed * 100 + rank)
    attn = torch.randn(m, 4096, generator=g).bfloat16()
    attn[0, :4] = torch.tensor([-0.0, 1e-40, -1e-40, 0.0]).bfloat16()
    stream = torch.randn(m, 8192, generator=g)
    device = torch.device("cuda", torch.cuda.current_device())
    return {k: v.to(device) for k, v in
            dict(attn=attn, stream=stream, **weights).items()}


def run(fn, boundary, data):
    """fn over copies of data, outputs poisoned first: (out, stream, sums)."""
    m = data["attn"].shape[0]
    stream = data["stream"].clone()
    out = torch.full((m, 8192), float("nan"), dtype=torch.bfloat16,
                     device=stream.device)
    partial = torch.full_like(out, float("nan"))
    sums = fn(boundary, data["attn"], data["o_proj"], stream, data["alpha"],
              data["beta"], data["post_weight"], data["next_weight"],
              partial, out)
    torch.cuda.synchronize()
    return out, stream, sums


def compare(what, eager, other, failures):
    out_e, stream_e, sums_e = eager
    out_o, stream_o, sums_o = other
    if torch.isnan(out_e.float()).any():
        failures.append(f"{what}: the eager out holds NaN (not written)")
    if not torch.equal(out_e.view(torch.int16), out_o.view(torch.int16)):
        bad = (out_e.view(torch.int16) != out_o.view(torch.int16)).sum()
        failures.append(f"{what}: out differs from eager in {int(bad)} "
                        "element(s)")
    if not torch.equal(stream_e.view(torch.int32), stream_o.view(torch.int32)):
        failures.append(f"{what}: stream differs from eager")
    if not torch.allclose(sums_e, sums_o, rtol=1e-5, atol=1e-3):
        failures.append(f"{what}: the sums differ from eager by "
                        f"{(sums_e - sums_o).abs().max().item():.3g}")


def main(bundle):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_DEVICE", "0")))
    boundary = lamport.torch.Boundary(bundle)
    compiled = torch.compile(layer, fullgraph=True, dynamic=True)
    failures = []
    # Each new M may compile again: the other rank waits that long.
    boundary.set_poll_timeout(60.0)
    for seed, m in enumerate([1, 4, 16, 7], start=1):
        data = inputs(m, rank, seed)
        eager = run(layer, boundary, data)
        compare(f"M = {m}, compiled", eager, run(compiled, boundary, data),
                failures)

    # The compiled layer captured in a CUDA graph, replayed twice.
    m = 4
    data = inputs(m, rank, 9)
    eager = run(layer, boundary, data)
    static = {k: v.clone() for k, v in data.items()}
    out = torch.empty(m, 8192, dtype=torch.bfloat16, device=static["attn"].device)
    partial = torch.empty_like(out)
    stream = static["stream"].clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture
        compiled(boundary, static["attn"], static["o_proj"], stream,
                 static["alpha"], static["beta"], static["post_weight"],
                 static["next_weight"], partial, out)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    dist.barrier()  # both ranks are done compiling
    boundary.set_poll_timeout(None)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        sums = compiled(boundary, static["attn"], static["o_proj"], stream,
                        static["alpha"], static["beta"],
                        static["post_weight"], static["next_weight"],
                        partial, out)
    for replay in range(2):
        stream.copy_(data["stream"])
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        compare(f"graph replay {replay}", eager, (out, stream, sums),
                failures)

    boundary.close()
    dist.barrier()
    dist.destroy_process_group()
    if failures:
        print(f"rank {rank}: compile FAIL: " + "; ".join(failures))
        return 1
    print(f"rank {rank}: compile PASS (M = 1, 4, 16, 7 and a CUDA graph of "
          "the compiled layer: out and stream equal to eager, bit for bit)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
