"""python -m lamport: compile a program to a bundle, print a bundle's
launch plan.

    python -m lamport compile program.mlir -o bundle [--chip sm_90]
        [--tactic-table PATH] [--explain-tactics] [--no-cubins]
    python -m lamport plan bundle
"""

import argparse
import os
import sys
import time


def _compile(args):
    import lamport

    with open(args.input, encoding="utf-8") as file:
        source = file.read()
    start = time.perf_counter()
    context = lamport.Context()
    try:
        bundle = context.compile(source, args.output, chip=args.chip,
                                 transport=args.transport,
                                 timeout_ns=args.timeout_ns,
                                 program=args.program, name=args.input,
                                 tactic_table=args.tactic_table,
                                 bulk_copies=args.bulk_copies,
                                 protocol_check=args.protocol_check,
                                 explain_tactics=args.explain_tactics,
                                 cubins=args.cubins)
    finally:
        context.close()
    if bundle.remarks:
        print(bundle.remarks, file=sys.stderr)
    if not args.quiet:
        size = sum(os.path.getsize(os.path.join(args.output, name))
                   for name in os.listdir(args.output))
        print(f"{args.output}: program {bundle.program}, "
              f"{len(bundle.kernels)} kernel(s), {size} bytes, "
              f"{time.perf_counter() - start:.2f} s")


def _plan(args):
    import lamport

    sys.stdout.write(lamport.Bundle(args.bundle).describe_plan())


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m lamport",
        description="Compile lamport programs to bundles and show their "
                    "launch plans.")
    commands = parser.add_subparsers(dest="command", required=True)

    compile_ = commands.add_parser(
        "compile", help="compile a program into a bundle directory, as "
                        "lamport-compile does")
    compile_.add_argument("input", help="the program (.mlir)")
    compile_.add_argument("-o", "--output", required=True,
                          help="the bundle directory to write")
    compile_.add_argument("--chip", default="sm_90",
                          help="sm_90 (default) or sm_100a")
    compile_.add_argument("--transport", default="unicast",
                          help="transport of publishes that set none: "
                               "unicast (default) or multicast")
    compile_.add_argument("--timeout-ns", type=int, default=None,
                          help="timeout of polls that set none")
    compile_.add_argument("--program", default=None,
                          help="the function to compile where the file "
                               "holds more than one")
    compile_.add_argument("--tactic-table", default=None, metavar="PATH",
                          help="tactic table for gemm_publish ops without "
                               "tactics (default: the chip's)")
    compile_.add_argument("--bulk-copies", default="auto",
                          choices=["auto", "rows", "tensor"],
                          help="how the GEMM's bulk pipeline fills a stage "
                               "that is not contiguous (default: auto)")
    compile_.add_argument("--no-protocol-check", dest="protocol_check",
                          action="store_false",
                          help="skip lamport-check-protocol")
    compile_.add_argument("--explain-tactics", action="store_true",
                          help="remark, for each gemm_publish, where its "
                               "tactics came from (on stderr)")
    compile_.add_argument("--no-cubins", dest="cubins", action="store_false",
                          help="write the PTX alone, no ptxas: the driver "
                               "JIT-compiles it when the bundle is loaded")
    compile_.add_argument("-q", "--quiet", action="store_true",
                          help="print no summary line on success")
    compile_.set_defaults(run=_compile)

    plan = commands.add_parser(
        "plan", help="print a bundle's launch plan, as lamport-run --plan "
                     "does")
    plan.add_argument("bundle", help="the bundle directory")
    plan.set_defaults(run=_plan)

    args = parser.parse_args(argv)
    import lamport

    try:
        args.run(args)
    except (lamport.Error, lamport.BundleError, OSError, ImportError) as error:
        print(f"python -m lamport {args.command}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
