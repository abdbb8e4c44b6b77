"""The IR builder (lamport.ir, lamport.dialects): programs built op by op
print, verify, round-trip and compile as their text does."""

import os
import sys

import pytest

import lamport
from conftest import EXAMPLES, ROOT, requires_ptxas
from lamport.dialects import func, lamport as lp
from lamport.ir import (Attribute, BF16Type, Context, F32Type, InsertionPoint,
                        IntegerType, Location, MemRefType, Module, ShapedType,
                        Type)

H, K = 8192, 1024

TACTICS_TP8 = [
    dict(splits=1, kw=128, accs=2, passes=2, min_ctas_per_sm=1,
         early_dependents=True, token_tiles=[8] * 8),
    dict(splits=1, kw=128, accs=1, passes=2, min_ctas_per_sm=1,
         early_dependents=True, late_chunks=1, token_tiles=[8] * 8 + [16] * 8),
]


def memref(*shape, element=None):
    return MemRefType.get(list(shape), element or BF16Type.get())


def build_function(name, arguments, body):
    """A module holding func `name` of `arguments` ({name: type}) whose body
    `body(values)` builds; values maps names to the arguments."""
    module = Module.create()
    with InsertionPoint(module.body):
        function = func.FuncOp(name, (list(arguments.values()), []),
                               arg_names=list(arguments))
        with InsertionPoint(function.add_entry_block()):
            body(dict(zip(arguments, function.arguments)))
            func.ReturnOp()
    return module


def attention_boundary_tp8(tactics=None):
    """docs/examples/attention_boundary_tp8.mlir, built op by op: without
    tactics, as the example (lamport-select-tactics chooses them), or with
    `tactics` (dicts of TacticAttr.get's arguments)."""
    f32 = F32Type.get()
    arguments = {
        "attn": memref(None, K), "o_proj": memref(H, K),
        "partial": memref(None, H),
        "mailbox": lp.MailboxType.get(tp=8, capacity=16, width=H),
        "stream": memref(None, H, element=f32), "alpha": memref(1, element=f32),
        "beta": memref(1, element=f32), "post_weight": memref(H),
        "next_weight": memref(H), "out": memref(None, H),
    }

    def body(a):
        lp.gemm_publish(a["attn"], a["o_proj"], a["partial"],
                        mailbox=a["mailbox"],
                        tactics=(None if tactics is None else
                                 [lp.TacticAttr.get(**t) for t in tactics]),
                        pdl=True)
        lp.all_reduce_dual_norm(
            a["mailbox"], a["stream"], a["alpha"], a["beta"], a["next_weight"],
            a["out"], post_weight=a["post_weight"], eps=1e-6,
            sum_order="rank_ascending", pdl=True)

    return build_function("attention_boundary", arguments, body)


def reference(context, name):
    with open(os.path.join(EXAMPLES, name)) as file:
        return context.parse(file.read(), name=name)


def test_attention_boundary_is_the_example(context):
    with context:
        module = attention_boundary_tp8()
    assert module.verify() is True
    # The same ops, operands, shapes and attributes as the example, which
    # leaves the tactics to the compiler.
    assert str(module) == str(reference(context, "attention_boundary_tp8.mlir"))
    # Written tactics are the op's: they print with it.
    with context:
        given = attention_boundary_tp8(TACTICS_TP8)
    assert given.verify() is True
    assert str(given).count("#lamport.tactic<") == 2


def test_print_parse_round_trip(context):
    with context:
        module = attention_boundary_tp8()
        again = Module.parse(str(module))
    assert str(again) == str(module)
    assert str(context.parse(str(module))) == str(module)


@requires_ptxas
def test_compiled_builder_bundle_is_the_examples(context, tmp_path):
    with context:
        built = attention_boundary_tp8().compile(tmp_path / "built")
    with open(os.path.join(EXAMPLES, "attention_boundary_tp8.mlir")) as file:
        text = context.compile(file.read(), tmp_path / "text")
    # Argument names come from the builder's arg_names, as from the source.
    assert [a["name"] for a in built.arguments][:3] == ["attn", "o_proj",
                                                       "partial"]
    assert built.manifest == text.manifest
    assert built.describe_plan() == text.describe_plan()
    for kernel in text.kernels:
        assert built.kernel(kernel.name).ptx == kernel.ptx


@pytest.mark.parametrize("example, build", [
    ("publish_poll_rows_tp2.mlir", "publish_poll_rows"),
    ("all_reduce_tp8.mlir", "all_reduce"),
], ids=["publish_rows+poll_rows", "all_reduce"])
def test_ops_match_examples(context, example, build):
    """Ops other than the attention boundary's, against examples that
    hold them: the builder prints what the example parses to."""
    expected = str(reference(context, example))
    with context:
        module = globals()["build_" + build]()
    module.verify()
    assert str(module) == expected


def build_publish_poll_rows():
    mailbox = lp.MailboxType.get(tp=2, capacity=16, width=8192)
    return build_function(
        "publish_poll_rows",
        {"rows": memref(None, 8192), "mailbox": mailbox,
         "out": memref(2, None, 8192)},
        lambda a: (lp.publish_rows(a["rows"], a["mailbox"], pdl=True),
                   lp.poll_rows(a["mailbox"], a["out"], pdl=True)))


def build_all_reduce():
    mailbox = lp.MailboxType.get(tp=8, capacity=16, width=8192)
    return build_function(
        "all_reduce",
        {"rows": memref(None, 8192), "mailbox": mailbox,
         "out": memref(None, 8192)},
        lambda a: (lp.publish_rows(a["rows"], a["mailbox"], pdl=True),
                   lp.all_reduce(a["mailbox"], a["out"], pdl=True)))


def test_every_program_op_prints_its_syntax(context):
    """Each builder, with its optional operands and attributes, gives the
    op's syntax, and the module verifies."""
    with context:
        f32 = F32Type.get()
        tp8 = lp.MailboxType.get(tp=8, capacity=16, width=8192)
        gather = lp.MailboxType.get(tp=8, capacity=16, width=1024)
        arguments = {
            "rows": memref(None, 8192), "mailbox": tp8, "out": memref(None, 8192),
            "gather": gather, "cols": memref(None, 1024),
            "wide": memref(None, 8192), "stream": memref(None, 8192, element=f32),
            "alpha": memref(1, element=f32), "beta": memref(8192, element=f32),
            "weight": memref(8192), "reduced": memref(None, 8192),
            "ticket": MemRefType.get([1], IntegerType.get_signless(32)),
            "x": memref(None, 4096), "w": memref(1024, 4096),
            "y": memref(None, 1024),
        }

        def body(a):
            lp.publish_rows(a["rows"], a["mailbox"], transport="multicast",
                            release_before=True)
            lp.all_reduce(a["mailbox"], a["out"], sum_order="pairwise",
                          timeout_ns=5000)
            lp.all_reduce_dual_norm(a["mailbox"], a["stream"], a["alpha"],
                                    a["beta"], a["weight"], a["out"],
                                    partial=a["rows"], transport="unicast")
            lp.dual_norm(a["reduced"], a["stream"], a["alpha"], a["beta"],
                         a["weight"], a["out"], post_weight=a["weight"],
                         eps=1e-5, pdl=True)
            lp.gemm_publish(a["x"], a["w"], a["y"], mailbox=a["gather"],
                            tactics=[lp.TacticAttr.get(
                                splits=1, kw=128, accs=2, min_ctas_per_sm=1,
                                token_tiles=[16] * 16)])
            lp.all_gather(a["gather"], a["wide"], timeout_ns=7)
            lp.gemm_publish(a["x"], a["w"], a["y"], mailbox=a["gather"],
                            ticket=a["ticket"],
                            tactics=[lp.TacticAttr.get(
                                splits=1, kw=128, accs=2, token_tiles=[16] * 16)])

        module = build_function("every_op", arguments, body)
    module.verify()
    text = str(module)
    for piece in [
            "lamport.publish_rows %arg0 into %arg1 {release_before, "
            "transport = #lamport.transport<multicast>}",
            "lamport.all_reduce %arg1 into %arg2 {sum_order = "
            "#lamport.sum_order<pairwise>, timeout_ns = 5000 : i64}",
            "lamport.all_reduce_dual_norm %arg1 publishing(%arg0 : "
            "memref<?x8192xbf16>), %arg6 gates(%arg7, %arg8) next_weight %arg9"
            " into %arg2 {transport = #lamport.transport<unicast>}",
            "lamport.dual_norm %arg10, %arg6 gates(%arg7, %arg8) post_weight "
            "%arg9 : memref<8192xbf16> next_weight %arg9 into %arg2 "
            "{eps = 9.99999974E-6 : f32, pdl}",
            "lamport.gemm_publish %arg12, %arg13 into %arg14 mailbox %arg3",
            "tactic(#lamport.tactic<splits = 1, kw = 128, accs = 2, "
            "min_ctas_per_sm = 1, token_tiles = [16, 16, 16, 16, 16, 16, 16, "
            "16, 16, 16, 16, 16, 16, 16, 16, 16]>)",
            "lamport.all_gather %arg3 into %arg5 {timeout_ns = 7 : i64}",
            "lamport.gemm_publish %arg12, %arg13 into %arg14 mailbox %arg3 : "
            "!mailbox_tp8_c16_w1024 ticket %arg11 : memref<1xi32>"]:
        assert piece in text, piece
    assert str(context.parse(text)) == text


def test_verification_error_points_at_the_builder_call(context):
    with context:
        # K of x (512) is not the weight's (1024).
        module = build_function(
            "bad", {"x": memref(None, 512), "w": memref(H, K),
                    "y": memref(None, H),
                    "mailbox": lp.MailboxType.get(tp=8, capacity=16, width=H)},
            lambda a: lp.gemm_publish(  # the line errors name
                a["x"], a["w"], a["y"], mailbox=a["mailbox"],
                tactics=[lp.TacticAttr.get(**TACTICS_TP8[0])]))
    with open(__file__) as file:
        line = 1 + [i for i, text in enumerate(file)
                    if "# the line errors name" in text][0]
    with pytest.raises(lamport.MLIRError) as raised:
        module.verify()
    error = raised.value
    assert isinstance(error, lamport.Error)
    [diagnostic] = error.error_diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.location.startswith(f"{__file__}:{line}:")
    assert diagnostic.message == (
        "'lamport.gemm_publish' op x 'memref<?x512xbf16>' must be [M, K] with "
        "K = 1024 (the weight's K)")
    assert str(diagnostic) in str(error)


def test_explicit_and_current_locations(context):
    with context:
        mailbox = lp.MailboxType.get(tp=2, capacity=16, width=8192)
        arguments = {"mailbox": mailbox, "out": memref(None, 8192)}
        module = build_function(
            "f", arguments,
            lambda a: lp.all_gather(a["mailbox"], a["out"],
                                    loc=Location.file("program.py", 3, 7)))
        with pytest.raises(lamport.MLIRError,
                           match=r"program.py:3:7: error: 'lamport.all_gather'"):
            module.verify()
        with Location.name("gather", Location.file("model.py", 12, 1)):
            module = build_function(
                "f", arguments, lambda a: lp.all_gather(a["mailbox"], a["out"]))
        with pytest.raises(lamport.MLIRError) as raised:
            module.verify()
        assert raised.value.error_diagnostics[0].location == "model.py:12:1"


def test_type_and_attribute_errors(context):
    with context:
        with pytest.raises(lamport.MLIRError) as raised:
            lp.MailboxType.get(tp=8, capacity=16, width=81,
                               loc=Location.file("m.py", 2, 5))
        [diagnostic] = raised.value.error_diagnostics
        assert diagnostic.location == "m.py:2:5"
        assert "width must be a multiple of 8" in diagnostic.message
        with pytest.raises(ValueError, match="tp must be in"):
            lp.MailboxType.get(tp=-1, capacity=16, width=8192)
        with pytest.raises(ValueError, match="unknown transport 'nvls'"):
            lp.TransportAttr.get("nvls")
        with pytest.raises(ValueError, match="unknown sum order 'tree'"):
            lp.SumOrderAttr.get("tree")
        with pytest.raises(lamport.MLIRError, match="is not a type"):
            Type.parse("!lamport.nothing")


def test_types_and_attributes(context):
    with context:
        mailbox = lp.MailboxType.get(tp=4, capacity=8, width=2048)
        assert str(mailbox) == "!lamport.mailbox<tp = 4, capacity = 8, width = 2048>"
        assert lp.MailboxType.isinstance(mailbox)
        assert lp.MailboxType.parameters(mailbox) == (4, 8, 2048)
        assert mailbox == Type.parse(str(mailbox))
        assert not lp.MailboxType.isinstance(BF16Type.get())
        dynamic = ShapedType.get_dynamic_size()
        assert str(MemRefType.get([dynamic, 16], F32Type.get())) == "memref<?x16xf32>"
        tactic = lp.TacticAttr.get(**TACTICS_TP8[1])
        assert str(tactic) == (
            "#lamport.tactic<splits = 1, kw = 128, accs = 1, passes = 2, "
            "min_ctas_per_sm = 1, early_dependents = true, late_chunks = 1, "
            "token_tiles = [8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, "
            "16, 16]>")
        assert tactic == Attribute.parse(str(tactic))
        # Knobs left out take the dialect's defaults, as in the syntax.
        plain = lp.TacticAttr.get(splits=1, kw=64, accs=1, token_tiles=[8])
        assert plain == Attribute.parse(
            "#lamport.tactic<splits = 1, kw = 64, accs = 1, token_tiles = [8]>")
        assert lp.TacticAttr.get(splits=1, kw=64, accs=1, token_tiles=[8],
                                 tiles=1, passes=1, late_chunks=0,
                                 early_dependents=False,
                                 pipeline="registers") == plain
        bulk = lp.TacticAttr.get(splits=1, kw=64, accs=1, tiles=2,
                                 pipeline="bulk", stages=2,
                                 stage_bytes=32768, token_tiles=[8] * 8)
        assert str(bulk) == (
            "#lamport.tactic<splits = 1, kw = 64, accs = 1, tiles = 2, "
            "pipeline = bulk, stages = 2, stage_bytes = 32768, "
            "token_tiles = [8, 8, 8, 8, 8, 8, 8, 8]>")
        assert bulk == Attribute.parse(str(bulk))
        early = lp.TacticAttr.get(splits=1, kw=64, accs=1, passes=2,
                                  pipeline="bulk", stages=2, early_reads=0,
                                  token_tiles=[8])
        assert str(early) == (
            "#lamport.tactic<splits = 1, kw = 64, accs = 1, passes = 2, "
            "pipeline = bulk, stages = 2, early_reads = 0, "
            "token_tiles = [8]>")
        assert early == Attribute.parse(str(early))
        with pytest.raises(ValueError, match="early_reads must be in"):
            lp.TacticAttr.get(splits=1, kw=64, accs=1, pipeline="bulk",
                              early_reads=-1, token_tiles=[8])
        with pytest.raises(ValueError, match="pipeline must be 'registers' or 'bulk'"):
            lp.TacticAttr.get(splits=1, kw=64, accs=1, pipeline="tma",
                              token_tiles=[8])
        assert str(lp.SumOrderAttr.get("pairwise")) == "#lamport.sum_order<pairwise>"


def test_tactics_are_optional_in_the_builder(context):
    """Without tactics the op carries none; what the verifier says of that
    is the dialect's (a pass may choose tactics)."""
    built = []
    with context:
        build_function(
            "f", {"x": memref(None, K), "w": memref(H, K),
                  "y": memref(None, H)},
            lambda a: built.append(lp.gemm_publish(a["x"], a["w"], a["y"])))
    [gemm] = built
    assert gemm.name == "lamport.gemm_publish"
    assert gemm.attribute("tactics") is None
    assert gemm.attribute("pdl") is None
    assert [str(v.type) for v in gemm.operands] == [
        "memref<?x1024xbf16>", "memref<8192x1024xbf16>", "memref<?x8192xbf16>"]
    assert gemm.results == []


def test_context_rules(context):
    assert Context.current is None
    with pytest.raises(lamport.Error, match="no current context"):
        BF16Type.get()
    with context:
        assert Context.current is context
        module = Module.create()
        with pytest.raises(lamport.Error, match="no insertion point"):
            func.ReturnOp()
        with InsertionPoint(module.body):
            assert InsertionPoint.current.block is not None
    assert Context.current is None
    # Leaving `with` keeps the context and its modules.
    assert module.verify()
    other = Context()
    with other:
        foreign = memref(4, 8192)
    with context, InsertionPoint(module.body):
        with pytest.raises(lamport.Error, match="a type is of another context"):
            func.FuncOp("f", ([foreign], []))
        with pytest.raises(lamport.Error, match="of another context"):
            Module.create(Location.unknown(other))
            func.ReturnOp(loc=Location.unknown(other))
    other.close()
    with pytest.raises(lamport.Error, match="the context is closed"):
        str(foreign)


def test_closed_context_invalidates_handles():
    context = Context()
    with context:
        module = attention_boundary_tp8()
    block = module.body
    context.close()
    for use in (lambda: str(module), lambda: module.verify(),
                lambda: block.operations, lambda: Module.create(
                    Location.unknown(context))):
        with pytest.raises(lamport.Error, match="destroyed with its context|"
                                                "the context is closed"):
            use()


def test_version_is_the_packages():
    from importlib import metadata

    try:
        installed = metadata.version("lamport")
    except metadata.PackageNotFoundError:
        pytest.skip("the package is not pip-installed")
    assert lamport.__version__ == installed


def test_extension_is_installed_not_the_source_tree():
    """scripts/test.sh runs these tests against the installed wheel."""
    if os.environ.get("LAMPORT_TEST_INSTALLED") != "1":
        pytest.skip("not run by scripts/test.sh")
    import lamport._lamport as extension

    source = os.path.join(ROOT, "python") + os.sep
    for module in (lamport, extension):
        path = os.path.abspath(module.__file__)
        assert not path.startswith(source)
        assert path.startswith(os.path.abspath(sys.prefix) + os.sep)
        assert "site-packages" in path.split(os.sep)
    assert source.rstrip(os.sep) not in map(os.path.abspath, sys.path)
