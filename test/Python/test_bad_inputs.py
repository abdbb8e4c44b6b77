"""Bad input to the lamport package raises, never kills the interpreter or
passes silently: target options the NVVM lowering would crash on, source
nested deeper than MLIR's recursive parser survives, integers a C type would
truncate, text that is not text. Each case runs in a child interpreter, so
a regression shows as a failed test (with the signal) instead of ending
the test session, and the child's stderr shows any exception a __del__
raised."""

import os
import textwrap

import conftest
from conftest import EXPECT

PRELUDE = "import lamport\n" + EXPECT

PROGRAM = """\
!mailbox = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
func.func @publish_poll_rows(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                             %out: memref<2x?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out : !mailbox, memref<2x?x8192xbf16>
  return
}
"""


def run_child(body, env=None, prelude=PRELUDE):
    """Runs PRELUDE + body in a child interpreter; its stdout. The child
    must exit 0 and write nothing to stderr (an exception ignored in
    __del__ among it)."""
    return conftest.run_child(prelude + textwrap.dedent(body),
                              env=dict(os.environ, **(env or {})), quiet=True)


def test_pipeline_target_options_raise():
    out = run_child(f"""
        with lamport.Context() as context:
            module = context.parse({PROGRAM!r})
            module.run_pipeline("builtin.module(lamport-generate-kernels)")
            for options, message in [
                    ("chip=", "chip '' is not a target of this lowering"),
                    ("chip=x86-64", "chip 'x86-64' is not a target"),
                    ("chip=sm_20", "the kernels need sm_90 or later"),
                    ("features=+ptx70", "PTX ISA 7.0"),
                    ("chip=sm_121f", "set features=+ptx88 or later")]:
                expect(lambda: module.run_pipeline(
                           "builtin.module(lamport-lower-to-nvvm{{" + options
                           + "}})"),
                       lamport.Error, message)
            # The module is still usable: a valid pipeline runs.
            module.run_pipeline("builtin.module(lamport-lower-to-nvvm{{chip=sm_90a}})")
            assert ".target sm_90a" in str(module)
    """)
    assert out.count("ok:") == 5


def test_deep_nesting_raises():
    out = run_child(f"""
        brackets = ("module attributes {{test.x = " + "[" * 10000 + "]" * 10000
                    + "}} {{}}")
        regions = '"test.op"() ({{' * 5000 + '}}) : () -> ()' * 5000
        with lamport.Context() as context:
            for text in (brackets, regions):
                expect(lambda: context.parse(text, name="deep.mlir"),
                       lamport.Error, "deep.mlir:1:",
                       "brackets nest deeper than 256 levels here")
                expect(lambda: context.compile(text, "unused", name="deep.mlir"),
                       lamport.Error, "brackets nest deeper than 256 levels")
            # The error does not quote the source line.
            try:
                context.parse(brackets)
            except lamport.Error as error:
                assert len(str(error)) < 400, len(str(error))
            # A pass pipeline nested as deep: its parser recurses too.
            module = context.parse({PROGRAM!r})
            expect(lambda: module.run_pipeline(
                       "builtin.module(" * 50000 + "cse" + ")" * 50000),
                   lamport.Error, "pipeline:1:3855: error: brackets nest "
                   "deeper than 256 levels here")
            # The context still parses.
            assert context.parse({PROGRAM!r}).verify()
    """)
    assert out.count("ok:") == 5


def test_integers_and_text_are_checked_before_the_c_api():
    out = run_child(f"""
        with lamport.Context() as context:
            # 2**70 was once truncated to 0 by ctypes, then refused as "0 ns".
            expect(lambda: context.compile({PROGRAM!r}, "b", timeout_ns=2**70),
                   ValueError, "timeout_ns must be in [-9223372036854775808, "
                   "9223372036854775807] (a C int64_t), got "
                   "1180591620717411303424")
            expect(lambda: context.compile({PROGRAM!r}, "b", timeout_ns=True),
                   TypeError, "timeout_ns must be an integer, got bool")
            expect(lambda: context.compile({PROGRAM!r}, "b", timeout_ns=1.5),
                   TypeError, "timeout_ns must be an integer, got float")
            # parse(5) parsed bytes(5), five zero bytes.
            expect(lambda: context.parse(5), TypeError,
                   "Context.parse: text must be str or bytes, got int")
            expect(lambda: context.parse(None), TypeError, "got NoneType")
            expect(lambda: context.parse({PROGRAM!r}, name=7), TypeError,
                   "Context.parse: name must be str or bytes, got int")
            expect(lambda: context.compile(5, "b"), TypeError,
                   "Context.compile: text must be str or bytes, got int")
            expect(lambda: context.compile({PROGRAM!r}, "b", chip=90),
                   TypeError, "chip must be str or bytes, got int")
            module = context.parse({PROGRAM!r}.encode())
            expect(lambda: module.run_pipeline(5), TypeError,
                   "run_pipeline: pipeline must be str or bytes, got int")
        # Leaving `with` keeps the context (as upstream MLIR's Python
        # does); close() destroys it and the modules in it.
        assert context.parse("module {{}}").verify()
        context.close()
        expect(lambda: context.parse("module {{}}"), lamport.Error,
               "the context is closed")
        expect(lambda: str(module), lamport.Error,
               "the module was destroyed with its context")
    """)
    assert out.count("ok:") == 11


def test_failed_construction_leaves_nothing_to_raise_in_del():
    # Context: the compiler extension cannot be loaded; a Context whose
    # construction failed once raised AttributeError from its __del__
    # ("Exception ignored"). Bundle and Runtime still import.
    out = run_child("""
        import gc
        expect(lambda: lamport.Context(), ImportError,
               "lamport.Context needs the compiler extension")
        expect(lambda: lamport.Context(5), ImportError, "does not load")
        assert lamport.Bundle and lamport.Runtime
        gc.collect()
        print("collected")
    """, prelude=PRELUDE.replace("import lamport",
                                 "import sys\nsys.modules['lamport._lamport'] = None\nimport lamport"))
    assert "collected" in out


def test_long_affine_chain_raises():
    # The affine expression parser recurses once per operator: 100,000
    # chained terms overflowed the interpreter's stack.
    out = run_child("""
        chain = ("#map = affine_map<(d0) -> (d0" + " + d0" * 100000 + ")>\\n"
                 "func.func @f(%a: index) -> index {\\n"
                 "  %0 = affine.apply #map(%a)\\n  return %0 : index\\n}")
        with lamport.Context() as context:
            expect(lambda: context.parse(chain, name="chain.mlir"),
                   lamport.Error, "chain.mlir:1:20511: error: an expression "
                   "chains more than 4096 operators here")
            expect(lambda: context.compile(chain, "unused", name="chain.mlir"),
                   lamport.Error, "chains more than 4096 operators")
    """)
    assert out.count("ok:") == 2
