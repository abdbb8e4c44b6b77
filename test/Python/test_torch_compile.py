"""lamport.torch.Boundary under torch.compile, on the CPU: the call becomes
the custom op torch.ops.lamport.step, the model's graph stays whole
(fullgraph=True), the token count follows the buffers' shapes (dynamic=True),
and what the step writes (the manifest's "out" and "inout" arguments) is
what the compiled code reads after it.

The Boundary serves a stand-in rank with test/Runtime/Inputs/attention_tp2's
manifest whose step computes on the CPU what a tp 2 group of identical ranks
would (the GEMM, the sum of two equal partials, the residual update, a norm):
the real step needs a GPU (test/gpu/torch_compile.py runs it there, against
the eager layer, bit for bit)."""

import json
import os

import pytest

from conftest import ROOT

torch = pytest.importorskip("torch")
import lamport.torch  # noqa: E402

MANIFEST = os.path.join(ROOT, "test", "Runtime", "Inputs", "attention_tp2",
                        "manifest.json")


class StandInRank:
    """What Boundary needs of a Rank; its step runs the boundary on the CPU
    and records each call's token count and argument names."""

    def __init__(self):
        with open(MANIFEST) as f:
            self.arguments = json.load(f)["arguments"]
        self.device = None
        self.calls = []
        self.closed = False

    def step(self, buffers, tokens=None, stream=0):
        b = buffers
        # A Rank reads the token count off the buffers when it is not given.
        m = b["attn"].shape[0] if tokens is None else int(tokens)
        self.calls.append((m, sorted(buffers), stream))
        partial = (b["attn"][:m].float() @ b["o_proj"].float().t())
        b["partial"][:m] = partial.bfloat16()
        reduced = 2 * b["partial"][:m].float()
        b["stream"][:m] = b["alpha"] * b["stream"][:m] + b["beta"] * reduced
        norm = b["stream"][:m].pow(2).mean(-1, keepdim=True).add(1e-6).rsqrt()
        b["out"][:m] = (b["stream"][:m] * norm *
                        b["next_weight"].float()).bfloat16()

    def wait(self, stream=0, watchdog=30.0):
        self.calls.append(("wait", stream, watchdog))

    def set_poll_timeout(self, seconds, stream=0):
        self.calls.append(("set_poll_timeout", seconds, stream))

    def close(self):
        self.closed = True


class CpuBoundary(lamport.torch.Boundary):
    """A Boundary over the stand-in rank, on the default stream."""

    def __init__(self):
        self._attach(StandInRank())

    def _current_stream(self):
        return 0


def layer(boundary, attn, weights, stream, partial, out):
    """A decode layer's tail: torch ops before the boundary, the boundary,
    torch ops reading what it wrote."""
    scaled = (attn.float() * 0.5).bfloat16()
    boundary(attn=scaled, partial=partial, stream=stream, out=out, **weights)
    return out.float().sum(-1) + stream.sum(-1)


def data(m, seed):
    g = torch.Generator().manual_seed(seed)
    weights = dict(o_proj=torch.randn(256, 64, generator=g).bfloat16(),
                   alpha=torch.full((1,), 0.5), beta=torch.full((1,), 1.25),
                   post_weight=torch.rand(256, generator=g).bfloat16(),
                   next_weight=(torch.rand(256, generator=g) + 0.5).bfloat16())
    attn = torch.randn(m, 64, generator=g).bfloat16()
    attn[0, :2] = torch.tensor([-0.0, 1e-40]).bfloat16()
    return attn, weights, torch.randn(m, 256, generator=g)


def run(fn, boundary, m, seed):
    attn, weights, stream = data(m, seed)
    out = torch.full((m, 256), float("nan")).bfloat16()
    partial = torch.full((m, 256), float("nan")).bfloat16()
    sums = fn(boundary, attn, weights, stream, partial, out)
    return out, stream, sums


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_a_compiled_layer_equals_the_eager_one(backend):
    torch._dynamo.reset()
    boundary = CpuBoundary()
    compiled = torch.compile(layer, fullgraph=True, dynamic=True,
                             backend=backend)
    for seed, m in enumerate([3, 8, 5], start=1):
        eager = run(layer, boundary, m, seed)
        got = run(compiled, boundary, m, seed)
        assert torch.equal(eager[0].view(torch.int16), got[0].view(torch.int16))
        assert torch.equal(eager[1], got[1])
        assert torch.allclose(eager[2], got[2], rtol=1e-5, equal_nan=True)
    # Each call was one step with the token count of its buffers, every
    # argument bound, on torch's stream (here 0).
    names = sorted(a["name"] for a in boundary.rank.arguments
                   if a["kind"] == "buffer")
    assert boundary.rank.calls == [(m, names, 0) for m in (3, 3, 8, 8, 5, 5)]


def test_the_compiled_call_is_the_custom_op():
    torch._dynamo.reset()
    boundary = CpuBoundary()
    graphs = []

    def backend(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    compiled = torch.compile(layer, fullgraph=True, dynamic=True,
                             backend=backend)
    run(compiled, boundary, 4, 1)
    run(compiled, boundary, 6, 2)  # the token count is a symbol: no retrace
    assert len(graphs) == 1
    targets = [node.target for node in graphs[0].graph.nodes
               if node.op == "call_function"]
    step = torch.ops.lamport.step
    assert sum(t in (step, step.default) for t in targets) == 1, targets


def test_a_closed_boundary_refuses_a_compiled_step():
    torch._dynamo.reset()
    boundary = CpuBoundary()
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    run(compiled, boundary, 2, 1)
    boundary.close()
    assert boundary.rank.closed
    with pytest.raises(RuntimeError, match="is closed"):
        run(compiled, boundary, 2, 1)


def test_an_unknown_argument_is_refused_when_compiling():
    torch._dynamo.reset()
    boundary = CpuBoundary()

    def wrong(boundary, x):
        boundary(attention=x)

    with pytest.raises(Exception, match=r"unknown argument\(s\) "
                       r"\['attention'\]"):
        torch.compile(wrong, fullgraph=True, backend="aot_eager")(
            boundary, torch.zeros(2, 64).bfloat16())


def test_eager_calls_step_the_rank_directly():
    boundary = CpuBoundary()
    out, stream, _ = run(layer, boundary, 2, 1)
    assert not torch.isnan(out.float()).any()
    assert boundary.rank.calls[-1][0] == 2


def test_wait_waits_for_the_current_stream():
    boundary = CpuBoundary()
    boundary.wait()
    boundary.wait(watchdog=2.5)
    assert boundary.rank.calls == [("wait", 0, 30.0), ("wait", 0, 2.5)]


def test_the_poll_timeout_is_set_on_the_current_stream():
    boundary = CpuBoundary()
    boundary._current_stream = lambda: 7
    boundary.set_poll_timeout(60.0)
    boundary.set_poll_timeout(None)
    assert boundary.rank.calls == [("set_poll_timeout", 60.0, 7),
                                   ("set_poll_timeout", None, 7)]
