#!/usr/bin/env python3
"""lamport.Runtime on a GPU with PyTorch tensors.

Runs compiled bundles on one GPU (loopback transport) with every rank's
buffers as torch tensors and checks each step against PyTorch:
  all_reduce  integer-valued BF16 partials (so every sum is exact in any
              order), -0.0 among them: out must equal the FP64 sum rounded to
              BF16, bit for bit, on every rank;
  poll_rows   arbitrary BF16 bit patterns (NaN, Inf, subnormals, -0.0): out
              [tp, m, width] must hold every rank's rows bit for bit, -0.0
              arriving as +0.0.
Every token count 1..capacity, fresh data and poisoned outputs each step.

    python3 test/gpu/python_runtime.py BUNDLE_DIR...   (LAMPORT_RUNTIME_LIBRARY
    set to build-gpu/lib/libLamportRuntimeC.so, or LAMPORT_TEST_INSTALLED=1
    for an installed package)
Prints one line per bundle and exits nonzero on any mismatch.
"""

import os
import sys

import torch

# The checkout's package, unless LAMPORT_TEST_INSTALLED asks for the one
# pip installed (a wheel of scripts/wheel.sh, with its runtime library).
if not os.environ.get("LAMPORT_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir,
                                    os.pardir, "python"))
import lamport  # noqa: E402

POISON = 0x7FBD  # a signalling NaN no input pattern produces


def bf16_bits(tensor):
    return tensor.view(torch.int16)


def run_bundle(path, steps_per_m=3, seed=7):
    bundle = lamport.Bundle(path)
    mailbox = bundle.mailboxes[0]
    tp, capacity, width = mailbox["tp"], mailbox["capacity"], mailbox["width"]
    ops = [bundle.kernel(name).op for name in bundle.launches]
    consumer = ops[-1]
    generator = torch.Generator(device="cuda").manual_seed(seed)
    checked = 0
    with lamport.Runtime(bundle, tp=tp, transport="loopback") as group:
        for m in list(range(1, capacity + 1)) * steps_per_m:
            if consumer == "all_reduce":
                rows = [torch.randint(-8, 9, (m, width), generator=generator,
                                      device="cuda").to(torch.bfloat16)
                        for _ in range(tp)]
                for r in range(tp):  # -0.0 where a zero was drawn, sometimes
                    rows[r][(rows[r] == 0) & (torch.rand(m, width, device="cuda",
                            generator=generator) < 0.5)] = -0.0
                want = torch.stack([x.double() for x in rows]).sum(0)
                want = bf16_bits(want.to(torch.bfloat16))
                out_shape = (m, width)
            elif consumer == "poll_rows":
                rows = [torch.randint(-32768, 32768, (m, width),
                                      generator=generator, device="cuda",
                                      dtype=torch.int32).to(torch.int16)
                        .view(torch.bfloat16) for _ in range(tp)]
                stacked = torch.stack([bf16_bits(x) for x in rows]).clone()
                stacked[stacked == -32768] = 0  # -0.0 (0x8000) -> +0.0
                stacked[stacked == POISON] = 0x7FC0
                want = stacked
                out_shape = (tp, m, width)
            else:
                raise SystemExit(f"{path}: no check for consumer '{consumer}'")
            outs = [torch.full(out_shape, 0, dtype=torch.int16, device="cuda")
                    .fill_(POISON).view(torch.bfloat16) for _ in range(tp)]
            if consumer == "poll_rows":  # keep the poison out of the inputs
                for r in range(tp):
                    bits = bf16_bits(rows[r])
                    bits[bits == POISON] = 0x7FC0
            group.step(m, [{"rows": rows[r], "out": outs[r]}
                           for r in range(tp)])
            for r in range(tp):
                got = bf16_bits(outs[r])
                if not torch.equal(got, want):
                    bad = (got != want).nonzero()[0].tolist()
                    raise SystemExit(
                        f"{path}: m = {m}, rank {r}: out{bad} is "
                        f"{int(got[tuple(bad)]) & 0xFFFF:#06x}, expected "
                        f"{int(want[tuple(bad)]) & 0xFFFF:#06x}")
                checked += 1
    return f"{os.path.basename(path)}: {consumer} tp {tp}: {checked} " \
           f"rank-steps bit-exact (m 1..{capacity}, {steps_per_m}x) PASS"


def main():
    if not torch.cuda.is_available():
        raise SystemExit("python_runtime.py: no GPU")
    for path in sys.argv[1:]:
        print(run_bundle(path), flush=True)


if __name__ == "__main__":
    main()
