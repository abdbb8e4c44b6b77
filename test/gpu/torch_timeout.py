#!/usr/bin/env python3
"""A poll that times out under lamport.torch, one rank of a torchrun group.

    torchrun --nproc-per-node 2 test/gpu/torch_timeout.py BUNDLE

BUNDLE: the tp 2 attention boundary with the default poll timeout of a second
(test/gpu/prepare_boundary.sh). Rank 1 opens its Boundary and never steps;
rank 0 sets its polls' timeout to a quarter of a second
(Boundary.set_poll_timeout) and steps once, so its polls wait for rank 1's
partials and trap after that timeout, not the bundle's. torch reports the
trap at its next launch or synchronisation as a bare launch failure;
Boundary.wait() must then raise lamport.KernelFailure naming the mailbox,
stage and slot 1 (rank 1's data never came), after 250 ms (timeout 250 ms).
Each rank prints "rank R: timeout PASS ..." or "... FAIL ..." and exits 1 on
a failure. Run it last: the trap leaves rank 0's CUDA context unusable.
"""

import os
import re
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import lamport.torch  # noqa: E402
from torch_compile import inputs, layer  # noqa: E402


def step_alone(boundary, rank):
    """Rank 0's step with no partner: what torch says, then Boundary.wait."""
    failures = []
    data = inputs(1, rank, 1)
    out = torch.full((1, 8192), float("nan"), dtype=torch.bfloat16,
                     device=data["attn"].device)
    partial = torch.full_like(out, float("nan"))
    torch_error = "none"
    boundary.set_poll_timeout(0.25)
    start = time.monotonic()
    try:
        # The torch ops after the step may see the trap first.
        layer(boundary, data["attn"], data["o_proj"], data["stream"].clone(),
              data["alpha"], data["beta"], data["post_weight"],
              data["next_weight"], partial, out)
        torch.cuda.synchronize()
        failures.append("the step finished, though rank 1 never stepped")
    except Exception as error:  # torch's class for it varies by version
        torch_error = str(error).splitlines()[0]
    waited = time.monotonic() - start
    try:
        boundary.wait(watchdog=30.0)
        failures.append("Boundary.wait raised nothing after the trap")
        return failures, ""
    except lamport.KernelFailure as error:
        text = str(error)
    sentence = next((line.strip() for line in text.splitlines()
                     if "timed out polling mailbox" in line), "")
    if not re.search(r"rank 0 timed out polling mailbox '[^']+' \(id \d+\): "
                     r"stage \d+, slot 1 \(data of rank 1 never came\)",
                     sentence):
        failures.append(f"KernelFailure does not name rank 1's slot: {text}")
    # The record says the override, and the poll waited it out, not the
    # bundle's second.
    timing = re.search(r"after ([0-9.]+) ms \(timeout 250\.000 ms\)", sentence)
    if not timing or not 250.0 <= float(timing.group(1)) < 1000.0:
        failures.append("the record does not show a 250 ms timeout waited "
                        f"out: {sentence}")
    if waited < 0.25:
        failures.append(f"the trap came {waited:.2f} s after the step, "
                        "before the 0.25 s timeout")
    return failures, f"torch: '{torch_error}'; lamport: '{sentence}'"


def main(bundle):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_DEVICE", "0")))
    boundary = lamport.torch.Boundary(bundle)
    failures, said = step_alone(boundary, rank) if rank == 0 else ([], "")
    dist.barrier()  # rank 1 keeps its Boundary open until rank 0 is done
    dist.destroy_process_group()
    if failures:
        print(f"rank {rank}: timeout FAIL: " + "; ".join(failures))
        return 1
    print(f"rank {rank}: timeout PASS" + (f" ({said})" if said else
                                          " (never stepped)"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    code = main(sys.argv[1])
    sys.stdout.flush()
    # No teardown: rank 0's context is lost, and closing a Boundary there
    # would only report that again.
    os._exit(code)
