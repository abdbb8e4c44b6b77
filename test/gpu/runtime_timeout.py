#!/usr/bin/env python3
"""lamport.Runtime's poll timeout on a GPU: a TP group in one process.

    python3 test/gpu/runtime_timeout.py CASE BUNDLE

BUNDLE: docs/examples/publish_poll_rows_tp2.mlir compiled with the default
poll timeout of a second (test/gpu/prepare_in_process.sh). One CASE a
process, since a trap leaves the CUDA context unusable:
  steps            the timeout set to 5 s, then back to the compiled one:
                   every token count 1..capacity bit for bit either way;
  trap-250ms       the bundle without its publish launch (every poll
                   misses) and the timeout set to 250 ms: step() raises
                   KernelFailure naming rank, mailbox, stage and slot, and
                   the record shows 250 ms waited out, not the bundle's 1 s;
  trap-compiled    the same with no timeout set: the record shows 1 s;
  capture-MODE     set_poll_timeout while torch captures a CUDA graph on
                   another stream (capture_error_mode MODE: global,
                   thread_local, relaxed): the timeout is set, the capture
                   goes on (the graph replays its ops) and the steps after
                   pass.
Prints "CASE: PASS ..." or "CASE: FAIL ..." and exits 1 on a failure.
"""

import json
import os
import re
import shutil
import sys
import tempfile
import time

import torch

if not os.environ.get("LAMPORT_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir,
                                    os.pardir, "python"))
import lamport  # noqa: E402

POISON = 0x7FBD  # a NaN no input pattern below produces
TIMEOUT_SENTENCE = re.compile(
    r"rank [01] timed out polling mailbox '[^']+' \(id \d+\): stage \d+, "
    r"slot ([01]) \(data of rank \1 never came\), row \d+, column \d+, "
    r"block \d+, after ([0-9.]+) ms \(timeout ([0-9.]+) ms\)")


def bits(tensor):
    return tensor.view(torch.int16)


def step_and_check(group, m, generator):
    """One step of m tokens with random rows (no -0.0, no poison) and
    poisoned outs; every rank's out must hold every rank's rows."""
    width = group.shape("rows", m)[1]
    rows = [torch.randint(-32767, 32768, (m, width), generator=generator,
                          device="cuda", dtype=torch.int32).to(torch.int16)
            for _ in range(group.tp)]
    for r in rows:
        r[r == POISON] = 0x7FC0
    outs = [torch.full((group.tp, m, width), POISON, dtype=torch.int16,
                       device="cuda") for _ in range(group.tp)]
    group.step(m, [{"rows": rows[r].view(torch.bfloat16),
                    "out": outs[r].view(torch.bfloat16)}
                   for r in range(group.tp)])
    want = torch.stack(rows)
    for r in range(group.tp):
        if not torch.equal(outs[r], want):
            bad = (outs[r] != want).nonzero()[0].tolist()
            raise AssertionError(f"m = {m}, rank {r}: out{bad} is "
                                 f"{int(outs[r][tuple(bad)]) & 0xFFFF:#06x}")


def every_m(group, generator):
    capacity = group.bundle.mailboxes[0]["capacity"]
    for m in range(1, capacity + 1):
        step_and_check(group, m, generator)
    return capacity


def case_steps(bundle):
    generator = torch.Generator(device="cuda").manual_seed(11)
    with lamport.Runtime(bundle, tp=2) as group:
        group.set_poll_timeout(5.0)
        assert group.poll_timeout == 5.0
        n = every_m(group, generator)
        group.set_poll_timeout(None)
        every_m(group, generator)
    return f"{2 * n} steps bit-exact (5 s, then the compiled timeout)"


def lonely(bundle, directory):
    """`bundle` copied without its publish launch: every poll misses."""
    copy = os.path.join(directory, "lonely_poller")
    shutil.copytree(bundle, copy)
    path = os.path.join(copy, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest["launches"] = [launch for launch in manifest["launches"]
                            if launch["kernel"].startswith("poll_rows")]
    with open(path, "w") as f:
        json.dump(manifest, f)
    return copy


def case_trap(bundle, seconds):
    expected_ms = 1000.0 if seconds is None else seconds * 1e3
    with tempfile.TemporaryDirectory() as directory:
        group = lamport.Runtime(lonely(bundle, directory), tp=2)
        if seconds is not None:
            group.set_poll_timeout(seconds)
        width = group.shape("rows", 1)[1]
        rows = [torch.ones((1, width), dtype=torch.bfloat16, device="cuda")
                for _ in range(2)]
        outs = [torch.zeros((2, 1, width), dtype=torch.bfloat16,
                            device="cuda") for _ in range(2)]
        start = time.monotonic()
        try:
            group.step(1, [{"rows": rows[r], "out": outs[r]}
                           for r in range(2)], watchdog=30.0)
            raise AssertionError("the step finished, though no rank "
                                 "published")
        except lamport.KernelFailure as error:
            text = str(error)
        waited = time.monotonic() - start
    found = TIMEOUT_SENTENCE.search(text)
    if not found:
        raise AssertionError(f"no timeout record named: {text}")
    after, timeout = float(found.group(2)), float(found.group(3))
    if abs(timeout - expected_ms) > 1e-3:
        raise AssertionError(f"the record's timeout is {timeout} ms, "
                             f"expected {expected_ms}: {found.group(0)}")
    if not expected_ms <= after < expected_ms * 1.5 + 50:
        raise AssertionError(f"waited {after} ms before trapping, timeout "
                             f"{expected_ms} ms")
    if waited < expected_ms / 1e3:
        raise AssertionError(f"step() returned after {waited:.3f} s")
    # The context is lost after a trap; leave without tearing down.
    return f"trapped after {after:.1f} ms (timeout {timeout:.0f} ms), " \
           f"step() raised after {waited:.3f} s: '{found.group(0)[:60]}...'"


def case_capture(bundle, mode):
    """set_poll_timeout while torch captures a CUDA graph on another stream
    of the process: the Runtime's steps are never captured, so the write is
    made at once, and the capture goes on."""
    generator = torch.Generator(device="cuda").manual_seed(13)
    with lamport.Runtime(bundle, tp=2) as group:
        step_and_check(group, 4, generator)
        x = torch.arange(4096, device="cuda", dtype=torch.float32)
        graph = torch.cuda.CUDAGraph()
        said = "accepted"
        with torch.cuda.graph(graph, capture_error_mode=mode):
            y = x * 2
            try:
                group.set_poll_timeout(0.5)
            except lamport.RuntimeFailure as error:
                said = str(error)
            z = y + 1
        if said != "accepted":
            raise AssertionError(f"refused inside the capture: {said}")
        if group.poll_timeout != 0.5:
            raise AssertionError(f"poll_timeout is {group.poll_timeout}")
        x.copy_(torch.arange(4096, device="cuda", dtype=torch.float32) * 3)
        graph.replay()
        torch.cuda.synchronize()
        if not torch.equal(z, x * 2 + 1):
            raise AssertionError("the graph did not replay its ops")
        for m in (1, 7, 16):
            step_and_check(group, m, generator)
    return "set inside the capture; the graph replayed its ops; steps " \
        "bit-exact after"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    case, bundle = sys.argv[1], sys.argv[2]
    if not torch.cuda.is_available():
        sys.exit("runtime_timeout.py: no GPU")
    cases = {
        "steps": lambda: case_steps(bundle),
        "trap-250ms": lambda: case_trap(bundle, 0.25),
        "trap-compiled": lambda: case_trap(bundle, None),
    }
    for mode in ("global", "thread_local", "relaxed"):
        cases[f"capture-{mode}"] = (lambda m: lambda: case_capture(bundle, m)
                                    )(mode)
    if case not in cases:
        sys.exit(f"runtime_timeout.py: unknown case '{case}' "
                 f"(one of {', '.join(cases)})")
    try:
        said = cases[case]()
        print(f"{case}: PASS {said}", flush=True)
        code = 0
    except Exception as error:  # every failure is reported the same way
        print(f"{case}: FAIL {type(error).__name__}: {error}", flush=True)
        code = 1
    # A trap leaves the context lost: no teardown.
    os._exit(code)


if __name__ == "__main__":
    main()
