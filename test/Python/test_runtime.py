"""lamport.Runtime over libLamportRuntimeC.so, with no GPU: each test runs
in a child process whose dynamic loader finds the host-only libcuda of
test/Runtime/FakeDriver (device memory is host memory; publish_rows,
all_reduce and poll_rows run as host code), so the whole path -- bundle,
session, binding, launches, waits, errors -- runs in CI. The GPU run of the
same API with PyTorch tensors is test/gpu/python_runtime.py."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import conftest
from conftest import EXPECT, ROOT, fake_cuda_env, requires_runtime

BUNDLE = os.path.join(ROOT, "test", "Runtime", "Inputs", "all_reduce_tp4")

PRELUDE = textwrap.dedent(f"""
    import struct, sys
    import lamport
    BUNDLE = {BUNDLE!r}

    def bf16(values):
        # Small integers: the high half of their FP32 is their exact BF16.
        return b"".join(struct.pack("<f", v)[2:] for v in values)

    def floats(data):
        return [struct.unpack("<f", b"\\0\\0" + data[i:i + 2])[0]
                for i in range(0, len(data), 2)]
""") + EXPECT


def run_child(body, fake=True, quiet=False):
    """Runs PRELUDE + body in a child interpreter, over the host-only libcuda
    when fake; its stdout."""
    return conftest.run_child(PRELUDE + textwrap.dedent(body),
                              env=fake_cuda_env() if fake else None,
                              quiet=quiet)


@requires_runtime
def test_all_reduce_steps_match_the_exact_sum():
    out = run_child("""
        width, tp = 256, 4
        with lamport.Runtime(BUNDLE, tp=tp, transport="loopback") as group:
            assert group.buffer_arguments() == ["rows", "out"]
            capacity = 8
            rows = [group.allocate(r, capacity * width * 2) for r in range(tp)]
            outs = [group.allocate(r, capacity * width * 2) for r in range(tp)]
            for step, m in enumerate([1, 3, 8, 2, 5, 8, 1]):
                partial = [[((7 * r + 3 * i + step) % 11) - 5
                            for i in range(m * width)] for r in range(tp)]
                for r in range(tp):
                    rows[r].upload(bf16(partial[r]))
                    outs[r].upload(b"\\xbd\\x7f" * (capacity * width))  # poison
                group.step(m, [{"rows": rows[r], "out": outs[r]}
                               for r in range(tp)])
                want = [sum(p[i] for p in partial) for i in range(m * width)]
                for r in range(tp):
                    got = floats(outs[r].download(m * width * 2))
                    assert got == want, (step, m, r)
                    # Past the m rows the poison stays.
                    assert outs[r].download()[m * width * 2:] == \\
                        b"\\xbd\\x7f" * ((capacity - m) * width)
            print("steps", group.steps)
    """)
    assert "steps 7" in out


@requires_runtime
def test_bad_use_is_reported_with_its_context():
    out = run_child("""
        expect(lambda: lamport.Runtime(BUNDLE, tp=2), lamport.RuntimeFailure,
               "tp 2 does not match mailbox 'mb'", "tp = 4")
        expect(lambda: lamport.Runtime(BUNDLE, tp=4, transport="multicast"),
               lamport.RuntimeFailure, "unknown transport 'multicast'")
        expect(lambda: lamport.Runtime(BUNDLE + "/missing", tp=4),
               lamport.BundleError, "missing")
        group = lamport.Runtime(BUNDLE, tp=4)
        expect(lambda: group.step(1), lamport.RuntimeFailure,
               "rank 0, argument 'rows' is not bound")
        small = [group.allocate(r, 256 * 2) for r in range(4)]
        big = [group.allocate(r, 8 * 256 * 2) for r in range(4)]
        for r in range(4):
            group.bind(r, "rows", small[r])
            group.bind(r, "out", big[r])
        expect(lambda: group.step(2), lamport.RuntimeFailure,
               "rank 0, argument 'rows' holds 512 bytes",
               "a step of 2 token(s) needs 1024")
        expect(lambda: group.step(0), lamport.RuntimeFailure,
               "tokens must be in [1, 8]")
        expect(lambda: group.step(9), lamport.RuntimeFailure,
               "tokens must be in [1, 8]")
        expect(lambda: group.bind(0, "mb", big[0]), KeyError,
               "no buffer argument 'mb'", "rows, out")
        expect(lambda: group.bind(1, "rows", big[0]), ValueError,
               "allocated for rank 0")
        expect(lambda: lamport.runtime._call(
                   lamport.runtime._library().lamportRuntimeBind,
                   group._handle, 0, 0, big[0].pointer + 2, 64),
               lamport.RuntimeFailure, "not 16-byte aligned")
        expect(lambda: group.bind(0, "rows", object()), TypeError,
               "expected a torch.Tensor or a DeviceBuffer")
        group.step(1)  # a step of one token fits the small rows
        group.close()
        expect(lambda: group.step(1), lamport.RuntimeFailure, "closed")
    """)
    assert out.count("ok:") == 12


@requires_runtime
def test_no_driver_is_its_own_error():
    probe = subprocess.run(
        [sys.executable, "-c", "import ctypes; ctypes.CDLL('libcuda.so.1')"],
        capture_output=True)
    if probe.returncode == 0:
        pytest.skip("this machine has a CUDA driver")
    out = run_child("""
        try:
            lamport.Runtime(BUNDLE, tp=4)
        except lamport.NoDeviceError as error:
            print("no device:", error)
    """, fake=False)
    assert "no device:" in out


@requires_runtime
def test_integers_are_checked_before_ctypes():
    # ctypes keeps the low bits of a Python int: tp 2**32 + 4 reached the
    # library as 4 and ran, 2**64 + 256 bytes allocated 256. A Runtime whose
    # construction failed raised AttributeError from __del__.
    out = run_child("""
        import gc

        expect(lambda: lamport.Runtime(BUNDLE, tp=2**32 + 4), ValueError,
               "tp must be in [-2147483648, 2147483647] (a C int), got 4294967300")
        expect(lambda: lamport.Runtime(BUNDLE, tp=4, device=2**40), ValueError,
               "device must be in")
        expect(lambda: lamport.Runtime(BUNDLE, tp=4, watchdog=float("nan")),
               ValueError, "watchdog must be a positive, finite number")
        expect(lambda: lamport.Runtime(BUNDLE, tp=2), lamport.RuntimeFailure,
               "tp 2 does not match")
        gc.collect()
        with lamport.Runtime(BUNDLE, tp=4) as group:
            expect(lambda: group.allocate(0, 2**64 + 256), ValueError,
                   "allocate: nbytes must be in [0, 18446744073709551615] "
                   "(a C uint64_t)")
            expect(lambda: group.allocate(2**32, 256), ValueError,
                   "rank must be in")
            expect(lambda: group.device(4), ValueError,
                   "rank 4 is out of range: tp = 4")
            expect(lambda: group.step(2**32 + 1), ValueError,
                   "tokens must be in")
            expect(lambda: group.step(1, watchdog=float("inf")), ValueError,
                   "watchdog must be a positive, finite number")
            buffer = group.allocate(0, 512)
            expect(lambda: buffer.upload(5), TypeError,
                   "upload: data must be bytes-like, got int")
            expect(lambda: buffer.download(2**64), ValueError,
                   "download: nbytes must be in")
            # The library checks what the values mean: a pointer range that
            # wraps the address space is refused, not bound.
            expect(lambda: lamport.runtime._call(
                       lamport.runtime._library().lamportRuntimeBind,
                       group._handle, 0, 0, 2**64 - 16, 32),
                   lamport.RuntimeFailure,
                   "32 bytes at 0xfffffffffffffff0 run past the end of the "
                   "address space")
    """, quiet=True)
    assert out.count("ok:") == 12


@requires_runtime
def test_first_device_near_int_max_is_refused():
    # device + tp wrapped past INT_MAX to a negative sum, which passed the
    # device count check.
    out = run_child("""
        try:
            lamport.Runtime(BUNDLE, tp=4, device=2**31 - 1)
        except lamport.RuntimeFailure as error:
            print("refused:", error)
    """)
    assert ("refused: the loopback transport with tp = 4 needs 1 GPU(s) from "
            "device 2147483647, but this machine has") in out


@requires_runtime
def test_null_result_and_host_pointers_are_errors():
    # The C API wrote through a null result pointer and handed a null host
    # pointer to the driver; each is now an error naming the entry point.
    out = run_child("""
        import ctypes
        from lamport import runtime as rt
        lib = rt._library()
        r = lamport.Runtime(BUNDLE, tp=4)
        calls = [
            (lib.lamportRuntimeGetDevice, (r._handle, 0, None)),
            (lib.lamportRuntimeAllocate, (r._handle, 0, 64, None)),
            (lib.lamportRuntimeUpload, (r._handle, 0, 0, None, 64)),
            (lib.lamportRuntimeDownload, (r._handle, 0, None, 0, 64)),
        ]
        for function, args in calls:
            try:
                rt._call(function, *args)
            except lamport.RuntimeFailure as error:
                print("refused:", error)
        r.close()
    """)
    assert "refused: lamportRuntimeGetDevice: the result pointer is null" in out
    assert "refused: lamportRuntimeAllocate: the result pointer is null" in out
    assert ("refused: lamportRuntimeUpload: the host pointer is null, for 64 "
            "bytes") in out
    assert ("refused: lamportRuntimeDownload: the host pointer is null, for 64 "
            "bytes") in out


def lonely_poller(directory, override=True):
    """publish_poll_tp2 copied to `directory` without its publish launch, so
    every poll misses and traps after its timeout; with override False its
    poller's image also lacks lamport_poll_timeout_ns (a bundle compiled
    before the override)."""
    source = os.path.join(ROOT, "test", "Runtime", "Inputs",
                          "publish_poll_tp2")
    bundle = os.path.join(directory, "lonely_poller")
    shutil.copytree(source, bundle)
    manifest_path = os.path.join(bundle, "manifest.json")
    with open(manifest_path) as f:
        manifest = json.load(f)
    manifest["launches"] = [launch for launch in manifest["launches"]
                            if launch["kernel"] != "publish_rows_0"]
    with open(manifest_path, "w") as f:
        json.dump(manifest, f)
    if not override:
        image = os.path.join(bundle, "poll_rows_0.ptx")
        with open(image) as f:
            lines = f.readlines()
        assert any("lamport_poll_timeout_ns" in line for line in lines)
        with open(image, "w") as f:
            f.writelines(line for line in lines
                         if "lamport_poll_timeout_ns" not in line)
    return bundle


POLL_TIMEOUT_STEP = """
    def lonely_step(group):
        rows = [group.allocate(r, 1024 * 2) for r in range(2)]
        outs = [group.allocate(r, 2 * 1024 * 2) for r in range(2)]
        group.step(1, [{{"rows": rows[r], "out": outs[r]}} for r in range(2)])

    with lamport.Runtime({bundle!r}, tp=2) as group:
        assert group.poll_timeout is None
{body}
"""


@requires_runtime
@pytest.mark.parametrize("seconds, record", [
    (0.25, "(timeout 250.000 ms)"), (None, "(timeout 1000.000 ms)")])
def test_the_poll_timeout_set_at_run_time_is_the_one_that_traps(
        tmp_path, seconds, record):
    body = textwrap.indent(textwrap.dedent(f"""
        for bad, kind in ((-1, ValueError), (float("nan"), ValueError),
                          (0, ValueError), (1e30, ValueError),
                          (True, TypeError), ("1", TypeError)):
            expect(lambda: group.set_poll_timeout(bad), kind, "poll timeout")
        assert group.poll_timeout is None
        group.set_poll_timeout(60.0)
        group.set_poll_timeout({seconds!r})
        assert group.poll_timeout == {seconds!r}
        expect(lambda: lonely_step(group), lamport.KernelFailure,
               "slot 0 (data of rank 0 never came)", {record!r})
    """), "        ")
    out = run_child(POLL_TIMEOUT_STEP.format(
        bundle=lonely_poller(str(tmp_path)), body=body))
    assert out.count("ok:") == 7


@requires_runtime
def test_a_bundle_without_the_override_is_named(tmp_path):
    bundle = lonely_poller(str(tmp_path), override=False)
    body = textwrap.indent(textwrap.dedent(f"""
        expect(lambda: group.set_poll_timeout(5.0), lamport.RuntimeFailure,
               "kernel 'poll_rows_0' of bundle '{bundle}' polls but has no "
               "override of its timeout (lamport_poll_timeout_ns)")
        assert group.poll_timeout is None
    """), "        ")
    out = run_child(POLL_TIMEOUT_STEP.format(bundle=bundle, body=body))
    assert out.count("ok:") == 1
