"""lamport.torch.Rank over libLamportRuntimeC.so with no GPU: two child
processes, one per rank, over the host-only libcuda of test/Runtime/
FakeDriver (whose cuMem copies are memfds the processes share, and whose
polls wait for another process's publish with FAKE_CUDA_POLL_WAIT_MS). The
torch half of lamport.torch (Boundary) needs torch and a GPU: docs/python.md
shows it under torchrun; test_torch_compile.py checks it under torch.compile
over a stand-in rank. The nccl transport runs over the host-only
libnccl.so.2 of test/Runtime/FakeNccl."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

from conftest import LIBRARY, ROOT, fake_cuda_env, requires_runtime

BUNDLE = os.path.join(ROOT, "test", "Runtime", "Inputs", "publish_poll_tp2")
# The folder of test/Runtime/FakeNccl's host-only libnccl.so.2.
FAKE_NCCL = os.environ.get("LAMPORT_FAKE_NCCL_DIR", "")

# What every rank process starts with: its rank, the store, and device
# memory from the host-only driver.
PRELUDE = textwrap.dedent("""
    import ctypes, struct, sys
    from lamport.torch import DeviceArray, Rank
    from lamport.runtime import RuntimeFailure
    rank, store = int(sys.argv[1]), sys.argv[2]
    cuda = ctypes.CDLL("libcuda.so.1")  # the host-only driver

    def alloc(nbytes):
        pointer = ctypes.c_uint64()
        assert cuda.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(nbytes)) == 0
        return pointer.value
""")

RANK = PRELUDE + textwrap.dedent(f"""
    with Rank({BUNDLE!r}, rank, 2, 0, store, timeout=10) as group:
        m = 3
        rows, out = alloc(m * 1024 * 2), alloc(2 * m * 1024 * 2)
        data = struct.pack("<H", 0x3F80 + rank) * (m * 1024)
        ctypes.memmove(rows, data, len(data))  # device memory is host memory
        try:
            group.step({{"rows": DeviceArray(rows, "f32", (m, 1024)),
                        "out": DeviceArray(out, "bf16", (2, m, 1024))}})
            raise SystemExit("a f32 buffer for a bf16 argument was accepted")
        except RuntimeFailure as error:
            assert f"rank {{rank}}, argument 'rows': expected bf16, got f32" in str(error), error
        group.step({{"rows": DeviceArray(rows, "bf16", (m, 1024)),
                    "out": DeviceArray(out, "bf16", (2, m, 1024))}})
        group.wait()
        got = ctypes.string_at(out, 2 * m * 1024 * 2)
        for slot in range(2):
            expected = struct.pack("<H", 0x3F80 + slot) * (m * 1024)
            assert got[slot * m * 2048:(slot + 1) * m * 2048] == expected, slot
    print("rank", rank, "ok")
""")


def run_ranks(source, tp, env, *arguments):
    """Runs source in tp child interpreters at once, rank r with arguments
    r, a fresh file store and `arguments`; each must exit 0 saying "rank R
    ok"."""
    with tempfile.TemporaryDirectory() as store:
        ranks = [subprocess.Popen([sys.executable, "-c", source, str(r),
                                   "file://" + store, *arguments],
                                  env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
                 for r in range(tp)]
        outputs = [p.communicate(timeout=60)[0] for p in ranks]
    for r, (p, output) in enumerate(zip(ranks, outputs)):
        assert p.returncode == 0, output
        assert f"rank {r} ok" in output


@requires_runtime
def test_two_rank_processes_exchange_rows():
    env = fake_cuda_env(FAKE_CUDA_POLL_WAIT_MS="2000",
                        LAMPORT_RUNTIME_LIBRARY=LIBRARY)
    run_ranks(RANK, 2, env)


@requires_runtime
def test_a_missing_rank_is_named():
    env = fake_cuda_env(LAMPORT_RUNTIME_LIBRARY=LIBRARY)
    body = textwrap.dedent(f"""
        import sys
        from lamport.torch import Rank
        from lamport.runtime import RuntimeFailure
        try:
            Rank({BUNDLE!r}, 0, 2, 0, "file://" + sys.argv[1], timeout=0.3)
        except RuntimeFailure as error:
            print(error)
    """)
    with tempfile.TemporaryDirectory() as store:
        result = subprocess.run([sys.executable, "-c", body, store], env=env,
                                capture_output=True, text=True, timeout=60)
    assert "rank 1 never set it (died or never reached the rendezvous)" \
        in result.stdout, result.stdout + result.stderr


# Rank 1 opens and leaves; rank 0's poll then waits the timeout set at run
# time, not the bundle's 1 s, and says so.
POLL_TIMEOUT_RANK = PRELUDE + textwrap.dedent(f"""
    from lamport.runtime import KernelFailure
    with Rank({BUNDLE!r}, rank, 2, 0, store, timeout=10) as group:
        if rank == 1:
            print("rank", rank, "ok")
            raise SystemExit(0)
        assert group.poll_timeout is None
        for bad, kind in ((-1, ValueError), (float("nan"), ValueError),
                          (1e30, ValueError), (True, TypeError)):
            try:
                group.set_poll_timeout(bad)
                raise SystemExit(f"a poll timeout of {{bad!r}} was accepted")
            except kind:
                pass
        group.set_poll_timeout(5.0)
        assert group.poll_timeout == 5.0
        rows, out = alloc(1024 * 2), alloc(2 * 1024 * 2)
        group.step({{"rows": DeviceArray(rows, "bf16", (1, 1024)),
                    "out": DeviceArray(out, "bf16", (2, 1, 1024))}})
        try:
            group.wait()
            raise SystemExit("a poll without data did not time out")
        except KernelFailure as error:
            assert "slot 1 (data of rank 1 never came)" in str(error), error
            assert "(timeout 5000.000 ms)" in str(error), error
    print("rank", rank, "ok")
""")

# A bundle compiled before the override: its polling kernel's image has
# no lamport_poll_timeout_ns, and setting the timeout says so (sys.argv[4]).
OLD_BUNDLE_RANK = PRELUDE + textwrap.dedent("""
    with Rank(sys.argv[3], rank, 2, 0, store, timeout=10) as group:
        try:
            group.set_poll_timeout(5.0)
            raise SystemExit("an image without the override was accepted")
        except RuntimeFailure as error:
            assert str(error).startswith(f"rank {rank}: "), error
            assert sys.argv[4] in str(error), error
        assert group.poll_timeout is None
    print("rank", rank, "ok")
""")


@requires_runtime
def test_the_poll_timeout_set_at_run_time_is_the_one_that_traps():
    run_ranks(POLL_TIMEOUT_RANK, 2,
              fake_cuda_env(LAMPORT_RUNTIME_LIBRARY=LIBRARY))


@requires_runtime
@pytest.mark.parametrize("recorded", [True, False])
def test_a_bundle_without_the_override_is_named(tmp_path, recorded):
    """The poller without its override; its manifest with the timeout_ns
    it was compiled with (lamport-compile writes it), or without (one
    compiled before manifests recorded it)."""
    bundle = tmp_path / "publish_poll_tp2"
    shutil.copytree(BUNDLE, bundle)
    image = bundle / "poll_rows_0.ptx"
    text = image.read_text()
    assert "lamport_poll_timeout_ns" in text
    image.write_text("".join(line for line in text.splitlines(True)
                             if "lamport_poll_timeout_ns" not in line))
    if recorded:
        expected = (f"kernel 'poll_rows_0' of bundle '{bundle}' polls but "
                    "has no override of its timeout (lamport_poll_timeout_ns)"
                    ": it was compiled before the override; compile the "
                    "bundle again")
    else:
        manifest = json.loads((bundle / "manifest.json").read_text())
        for kernel in manifest["kernels"]:
            kernel.get("attributes", {}).pop("timeout_ns", None)
        (bundle / "manifest.json").write_text(json.dumps(manifest))
        expected = (f"no kernel of bundle '{bundle}' has an override of its "
                    "polls' timeout (lamport_poll_timeout_ns): none polls, "
                    "or they were compiled before the override; compile "
                    "the bundle again")
    run_ranks(OLD_BUNDLE_RANK, 2,
              fake_cuda_env(LAMPORT_RUNTIME_LIBRARY=LIBRARY), str(bundle),
              expected)


def test_an_unknown_transport_is_refused_before_anything_opens():
    from lamport.torch import Boundary, Rank
    with pytest.raises(ValueError, match=r"transport must be one of "
                       r"\['mailbox', 'nccl'\], got 'ucx'"):
        Rank(BUNDLE, 0, 2, 0, "file:///nonexistent", transport="ucx")
    with pytest.raises(ValueError, match="got 'NCCL'"):
        Boundary(BUNDLE, transport="NCCL")


NCCL_RANK = PRELUDE + textwrap.dedent(f"""
    bundle = {os.path.join(ROOT, "test", "Runtime", "Inputs", "all_reduce_tp4")!r}
    with Rank(bundle, rank, 4, 0, store, timeout=10, transport="nccl") as group:
        assert group.transport == "nccl"
        m = 2
        rows, out = alloc(m * 256 * 2), alloc(m * 256 * 2)
        data = struct.pack("<H", 0x3F80) * (m * 256)  # 1.0 on every rank
        ctypes.memmove(rows, data, len(data))
        group.step({{"rows": DeviceArray(rows, "bf16", (m, 256)),
                    "out": DeviceArray(out, "bf16", (m, 256))}})
        group.wait()
        got = ctypes.string_at(out, m * 256 * 2)
        assert got == struct.pack("<H", 0x4080) * (m * 256), got[:8]  # 4.0
    print("rank", rank, "ok")
""")


@requires_runtime
@pytest.mark.skipif(not (FAKE_NCCL and os.path.exists(
    os.path.join(FAKE_NCCL, "libnccl.so.2"))),
    reason="LAMPORT_FAKE_NCCL_DIR is unset (scripts/test.sh sets it)")
def test_four_rank_processes_all_reduce_over_nccl():
    env = fake_cuda_env(LAMPORT_RUNTIME_LIBRARY=LIBRARY)
    env["LD_LIBRARY_PATH"] = FAKE_NCCL + os.pathsep + env["LD_LIBRARY_PATH"]
    run_ranks(NCCL_RANK, 4, env)
