#!/usr/bin/env python3
#===- bench/x_handover_bound.py - x handed over by sentinel, a bound ------===#
#
# Run where MLIR is. What a GEMM could gain if x came to it the way the
# mailboxes hand over partials (the producer stores x over rows of -0.0
# sentinels, the GEMM polls its fragments) instead of after
# griddepcontrol.wait, the previous grid's completion. Each plain serving
# bundle of bundles/gemm (bench/prepare_gemm.sh) gets hand-edited twins
# (bench/edit_ptx.py) in bundles/gemm_handover:
#   _nowait    the wait removed: no ordering at all (not a valid kernel);
#   _latewait  the wait moved to just before the kernel returns: x and
#              everything after it no longer wait for the previous grid,
#              but no CTA exits before that grid has completed, which a
#              handover kernel needs (its x generation is rearmed, and y
#              overwritten, only once the grids before it are done);
#   _poll      _latewait with every x load volatile and, before x's first
#              use, a branch back to the loads while any BF16 lane of x
#              is -0.0: the poll's cost when x is already there;
#   _pollgpu, _pollcg, _pollweak  the same with ld.relaxed.gpu, ld.global.cg
#              (weak, past L1) and plain (weak) loads: what the load kind
#              costs;
#   _flag      _latewait with, before x's first load, the CTA's first
#              thread spinning with acquire loads on a word until it is
#              nonzero (the first of its x fragment, standing in for a
#              flag the producer releases) and a CTA barrier: a handover by
#              flag, x then read with the kernel's own loads;
#   _flagwarp  the same, every warp's first lane and a warp barrier.
# x is constant in lamport-gemm-bench and holds no -0.0, so every twin
# computes the bundle's bits; not one writes the sentinels back (the
# handover's rearm, M x K x 2 bytes a GEMM, is not in the bound). Each of
# those finds x there at once. The chain twins make x wait for a hand-over
# instead, one a software stand-in could give: the grid before, in the
# producer's place, hands over when every one of its CTAs is done (each
# CTA counts itself out at its exit, before the wait there). Each grid
# takes its number from a ticket (thread 0, an atomic on a module global,
# then a CTA barrier, before it triggers its dependents), and, with the
# wait at the exits:
#   _chain      every CTA releases into one counter at its exit
#               (red.release.gpu); before x's first load every warp's
#               first lane spins with acquire loads until the counter
#               holds every CTA of the grids before, then a warp barrier;
#   _chainwarp  the same, polling with relaxed loads 40 ns apart and one
#               acquire fence after;
#   _chaincta   the same, the CTA's first thread polling, then a CTA
#               barrier;
#   _chaintoken no fence at all: every CTA stores its grid's number plus
#               one into its own token (a relaxed store, the way a
#               mailbox's data carries its own validity), and the next
#               grid's threads read every token with relaxed loads until
#               each holds at least their grid's number, then a CTA
#               barrier (it orders no data: a bound on the latency only);
#   _chainfree  the tickets and releases of _chain, x read at once: what
#               the bookkeeping costs.
# The sleep twins are valid kernels (the wait stays before x): each CTA
# sleeps (`nanosleep`) right after it triggers its dependents, before its
# first weight load, so that its weight stream starts later and the grid
# before it, whose chain after the wait runs then, reads x from a quieter
# memory system (made only of kernels with early dependents, whose trigger
# comes before their weight loads):
#   _sleep300, _sleep700  300 and 700 ns.
# The x-share twins bound what sharing x across a cluster could gain (a
# multicast copy of x into the shared memory of C CTAs that own
# neighbouring features): only every C-th CTA along the features reads x
# after the wait, the others zero its registers instead (their y is then
# wrong, so these twins fail the bench's checks by design and are timed
# all the same); x's L2 traffic falls to 1 / C, with no copy into shared
# memory or mbarrier wait in its place:
#   _xshare2, _xshare4  C = 2 and 4.
# bench/run_x_handover.sh times them beside the bundles on the GPU machine
# (one lamport-gemm-bench process, twice) and prints --report's tables.
#
#   python3 bench/x_handover_bound.py [--source DIR] [-o DIR]
#   python3 bench/x_handover_bound.py --best RUN_DIR [--top N] [--source DIR]
#       [-o DIR] [--twins NAME,...]
#   python3 bench/x_handover_bound.py --report RESULTS.json... [--twins ...]
#       [--stream STREAM.md]
#
# --best first compiles into --source each point's fastest passing
# candidate of a lamport-tune run (RUN_DIR's candidates.json and
# results.json, e.g. bench/data/h200_tactics_twins/untabled), so the twins
# bound the tuner's best kernels rather than the table's; with --top N its
# N fastest, so that a point's twins may come from another tactic than
# its fastest (a kernel that reads less x may poll it more cheaply); a
# candidate whose x is not all loaded after the one wait then gets no
# twins (counted). --twins NAME,... makes (with --report: reports) only
# the twins named; without it, every twin but the chain, sleep and x-share
# ones.
#
# --report prints, from lamport-gemm-bench's reports (one column group
# each), every point's time and share of the copy floor for the bundle
# and each twin (the fastest of a point's bundles and of each twin where
# there are several), then each twin's geometric mean over cuBLAS alone
# and as the faster of it and the bundle at each point, with the points
# that miss the floor targets that way (85% of the floor from 16 MiB of
# weight, 75% from 8 MiB); with --stream, per report, cuBLAS over
# lamport-stream-floor's time at each point's weight (its stream, or with
# --hold its skeleton), overall and by M, in geometric mean: the same
# bound as bench/tactics_report.py's, with cuBLAS from the same process
# as the twins. Exit status 1 where a bundle or twin failed its
# checks (an x-share twin: has no time) or is missing, 2 where a report
# cannot be read or the arguments are wrong.
#
#===----------------------------------------------------------------------===#
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from tactics_report import geomean, mib_text, stream_times
from tune_module import compile_programs, tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAIT = r"^\s*griddepcontrol\.wait;"
TRIGGER = r"^\s*griddepcontrol\.launch_dependents;"
# The weights' loads: 16-byte loads with an L2 cache hint, or bulk copies.
WEIGHT_LOAD = r"ld\.global\.L2::cache_hint|cp\.async\.bulk"
RETURN = r"^(\s*)ret;"
# x's loads: the only plain 16-byte global loads (the weights' carry an L2
# cache hint; the ring's are bulk copies).
X_LOAD = (r"^(\s*)ld\.global\.v4\.b32\s+\{(%r\d+), (%r\d+), (%r\d+), "
          r"(%r\d+)\}, (\[[^]]+\]);")


def sentinel_check(words):
    """PTX that ORs into %xs the sentinel lanes of each of `words`: a
    lane's sign bit where its magnitude is zero (the compiler's
    hasSentinelLane)."""
    return "".join(f"and.b32 %xm, {word}, 0x7fff7fff; "
                   "add.u32 %xm, %xm, 0x7fff7fff; not.b32 %xm, %xm; "
                   f"and.b32 %xm, %xm, {word}; or.b32 %xs, %xs, %xm; "
                   for word in words)


FIRST_MMA = r"^\s*mma\."
# The wait removed (bench/mma_bound.py's twins use it too).
NO_WAIT = ("--sub", WAIT, "\t// no wait")
LATE_WAIT = [("--sub", WAIT, "\t// wait moved to the exits"),
             ("--sub", RETURN, "\\1griddepcontrol.wait;\n\\1ret;")]
# Each poll twin's x load: the loads a poll could use.
POLL_LOADS = {"poll": "ld.volatile.global", "pollgpu": "ld.relaxed.gpu.global",
              "pollcg": "ld.global.cg", "pollweak": "ld.global"}


def flag_spin(first_x, who, barrier):
    """PTX, before x's first load, in which one thread (`who`: %tid.x for
    the CTA's first, %laneid for every warp's) spins with acquire loads on
    the first word of its first x fragment (`first_x`, an address operand)
    until it is nonzero, then `barrier` lets the others on: the handover by
    a flag the producer releases."""
    return ("{ .reg .pred %fp; .reg .b32 %fv; "
            f"mov.u32 %fv, {who}; setp.ne.u32 %fp, %fv, 0; "
            "@%fp bra $Lflagdone; $Lflagspin: "
            f"ld.acquire.gpu.global.b32 %fv, {first_x}; "
            "setp.eq.u32 %fp, %fv, 0; @%fp bra $Lflagspin; "
            f"$Lflagdone: {barrier} }}")


# The chain twin's counters: CTAs of this kernel's grids arrived and done
# (module globals, zero when the bundle is loaded, never reset), the first
# arrival of this CTA's grid and its threads gone (shared).
CHAIN_DECLARATIONS = (
    ".global .align 4 .u32 lamport_chain_arrivals;\n"
    ".global .align 4 .u32 lamport_chain_done;\n"
    ".shared .align 4 .u32 lamport_chain_target;\n"
    ".shared .align 4 .u32 lamport_chain_exits;\n"
    ".shared .align 4 .u32 lamport_chain_grid;\n"
    ".global .align 4 .u32 lamport_chain_tokens[8192];")
# At the kernel's start, before it triggers its dependents (so every CTA of
# a grid arrives before any of the next grid's): thread 0 takes an arrival
# ticket; the grid's number is the ticket over its CTAs, and the CTAs of
# the grids before it, the count of `done` this CTA waits for.
CHAIN_START = (
    "{ .reg .pred %csp; .reg .b32 %cst, %csn, %csi; "
    "mov.u32 %cst, %tid.x; setp.ne.u32 %csp, %cst, 0; "
    "@%csp bra $Lchainarrived; "
    "atom.global.add.u32 %csi, [lamport_chain_arrivals], 1; "
    "mov.u32 %csn, %nctaid.x; mov.u32 %cst, %nctaid.y; "
    "mul.lo.u32 %csn, %csn, %cst; div.u32 %csi, %csi, %csn; "
    "mul.lo.u32 %csi, %csi, %csn; "
    "st.shared.u32 [lamport_chain_target], %csi; "
    "div.u32 %csi, %csi, %csn; st.shared.u32 [lamport_chain_grid], %csi; "
    "st.shared.u32 [lamport_chain_exits], 0; "
    "$Lchainarrived: bar.sync 0; }")


def chain_spin(who, barrier, backoff_ns=0):
    """PTX, before x's first load, in which one thread (`who`: %tid.x for
    the CTA's first, %laneid for every warp's) spins until every CTA of the
    grids before has released (`done` reached the target; a signed
    difference, so the count may wrap), then `barrier` lets the others on.
    With `backoff_ns`, relaxed loads `nanosleep` apart and one acquire
    fence once the count is reached (fewer and cheaper polls of the one
    word), else acquire loads back to back."""
    if backoff_ns:
        poll = ("ld.relaxed.gpu.global.u32 %cwd, [lamport_chain_done]; "
                "sub.s32 %cwd, %cwd, %cwt; setp.lt.s32 %cwp, %cwd, 0; "
                f"@%cwp nanosleep.u32 {backoff_ns}; @%cwp bra $Lchainspin; "
                "fence.acq_rel.gpu; ")
    else:
        poll = ("ld.acquire.gpu.global.u32 %cwd, [lamport_chain_done]; "
                "sub.s32 %cwd, %cwd, %cwt; setp.lt.s32 %cwp, %cwd, 0; "
                "@%cwp bra $Lchainspin; ")
    return ("{ .reg .pred %cwp; .reg .b32 %cwl, %cwt, %cwd; "
            f"mov.u32 %cwl, {who}; setp.ne.u32 %cwp, %cwl, 0; "
            "@%cwp bra $Lchaindone; "
            "ld.shared.u32 %cwt, [lamport_chain_target]; "
            f"$Lchainspin: {poll}"
            f"$Lchaindone: {barrier} }}")


# At the exit, before the wait there: the lanes leaving together count
# themselves into the CTA's exits (one acq_rel shared atomic, after a warp
# barrier that orders their stores before it); the lane that completes the
# CTA's count releases the CTA into `done` at GPU scope, which carries every
# thread's stores (no branch: the exit may be reached by several groups).
def chain_release(release):
    """PTX at the exit: `release` (run by the lane %cel names) once the
    lanes leaving together have counted themselves into the CTA's exits."""
    return (
        "{ .reg .pred %cep, %cel; "
        ".reg .b32 %cem, %cen, %cef, %ceo, %cet, %cei, %ceg, %cec, %ced; "
        ".reg .b64 %cea, %ceb; "
        "activemask.b32 %cem; bar.warp.sync %cem; popc.b32 %cen, %cem; "
        "neg.s32 %cef, %cem; and.b32 %cef, %cef, %cem; bfind.u32 %cef, %cef; "
        "mov.u32 %cei, %laneid; setp.eq.u32 %cep, %cei, %cef; "
        "mov.u32 %ceo, 0; "
        "@%cep atom.acq_rel.cta.shared.add.u32 %ceo, "
        "[lamport_chain_exits], %cen; "
        "add.u32 %ceo, %ceo, %cen; mov.u32 %cet, %ntid.x; "
        f"setp.eq.and.u32 %cel, %ceo, %cet, %cep; {release} }}")


CHAIN_RELEASE = chain_release(
    "@%cel red.release.gpu.global.add.u32 [lamport_chain_done], 1;")
# The token twin's exit: the CTA's own token set to its grid's number plus
# one by a relaxed store, no fence (a stand-in for data that carries its
# own validity, as the mailboxes' sentinels do: it orders nothing else).
CHAIN_TOKEN_RELEASE = chain_release(
    "ld.shared.u32 %ceg, [lamport_chain_grid]; add.u32 %ceg, %ceg, 1; "
    "mov.u32 %cec, %ctaid.x; mov.u32 %ced, %ctaid.y; "
    "mov.u32 %cet, %nctaid.x; mad.lo.u32 %cec, %ced, %cet, %cec; "
    "mul.wide.u32 %cea, %cec, 4; mov.u64 %ceb, lamport_chain_tokens; "
    "add.s64 %cea, %cea, %ceb; "
    "@%cel st.relaxed.gpu.global.u32 [%cea], %ceg;")
# Before x's first load: the CTA's threads read every token of the grid
# before (relaxed loads, each until it holds at least this grid's number),
# then a CTA barrier.
CHAIN_TOKEN_SPIN = (
    "{ .reg .pred %clp; .reg .b32 %clg, %cli, %cln, %clt, %clv; "
    ".reg .b64 %cla, %clb; "
    "ld.shared.u32 %clg, [lamport_chain_grid]; mov.u32 %cli, %tid.x; "
    "mov.u32 %cln, %nctaid.x; mov.u32 %clt, %nctaid.y; "
    "mul.lo.u32 %cln, %cln, %clt; mov.u32 %clt, %ntid.x; "
    "mov.u64 %clb, lamport_chain_tokens; "
    "$Lllnext: setp.ge.u32 %clp, %cli, %cln; @%clp bra $Llldone; "
    "mul.wide.u32 %cla, %cli, 4; add.s64 %cla, %cla, %clb; "
    "$Lllspin: ld.relaxed.gpu.global.u32 %clv, [%cla]; "
    "sub.s32 %clv, %clv, %clg; setp.lt.s32 %clp, %clv, 0; "
    "@%clp bra $Lllspin; add.u32 %cli, %cli, %clt; bra.uni $Lllnext; "
    "$Llldone: bar.sync 0; }")


# The twins made and reported unless --twins names others.
DEFAULT_TWINS = ["nowait", "latewait", "poll", "pollgpu", "pollcg",
                 "pollweak", "flag", "flagwarp"]
# The twins whose y is wrong by design: timed whatever their checks say.
UNCHECKED_TWINS = {"xshare2", "xshare4"}


def twins(x_words, first_x="[%rd0]"):
    """Each twin's edits for a kernel whose x loads (all in one run after
    the wait) fill the registers `x_words`. A poll twin: a label where the
    wait was, every x load of its kind, and before the first MMA (x's first
    use; the weight loads between are issued by then) every word's sentinel
    lanes gathered and a branch back to the label while any held -0.0. Only
    `poll`'s volatile loads make a valid poll by themselves; the others
    price the load kind (in the bench no poll retries)."""
    edits = {"nowait": [NO_WAIT],
             "latewait": LATE_WAIT}
    for nanoseconds in (300, 700):
        edits[f"sleep{nanoseconds}"] = [
            ("--insert-after", TRIGGER, f"\tnanosleep.u32 {nanoseconds};")]
    for share in (2, 4):
        edits[f"xshare{share}"] = [
            ("--insert-after", r"\.reg \.b64\s+%rd<",
             ".reg .b32 %xsc; .reg .pred %xsl;"),
            ("--insert-after", WAIT,
             f"\tmov.u32 %xsc, %ctaid.x; and.b32 %xsc, %xsc, {share - 1}; "
             "setp.eq.u32 %xsl, %xsc, 0;"),
            ("--sub", X_LOAD,
             "\\1mov.b32 \\2, 0; mov.b32 \\3, 0; mov.b32 \\4, 0; "
             "mov.b32 \\5, 0;\n\\1@%xsl ld.global.v4.b32 "
             "{\\2, \\3, \\4, \\5}, \\6;")]
    check = ("mov.b32 %xs, 0; " + sentinel_check(x_words) +
             "and.b32 %xs, %xs, 0x80008000; setp.ne.b32 %xp, %xs, 0; "
             "@%xp bra $Lxpoll;")
    for twin, load in POLL_LOADS.items():
        edits[twin] = [
            ("--insert-after", r"\.reg \.b64\s+%rd<",
             ".reg .b32 %xs, %xm; .reg .pred %xp;"),
            ("--sub", WAIT, "$Lxpoll:"),
            ("--sub", X_LOAD, f"\\1{load}.v4.b32 {{\\2, \\3, \\4, \\5}}, \\6;"),
            ("--insert-before", FIRST_MMA, check)] + LATE_WAIT[1:]
    for twin, who, barrier in (("flag", "%tid.x", "bar.sync 0;"),
                               ("flagwarp", "%laneid", "bar.warp.sync -1;")):
        edits[twin] = LATE_WAIT + [
            ("--insert-before", X_LOAD, flag_spin(first_x, who, barrier))]
    # The chain twins: x waits for the grid before (chainfree keeps the
    # bookkeeping and reads x at once). The release goes in before the
    # exit's wait: it must not wait for the grid before.
    for twin, spin, release in (
            ("chain", chain_spin("%laneid", "bar.warp.sync -1;"),
             CHAIN_RELEASE),
            ("chainwarp", chain_spin("%laneid", "bar.warp.sync -1;", 40),
             CHAIN_RELEASE),
            ("chaincta", chain_spin("%tid.x", "bar.sync 0;", 40),
             CHAIN_RELEASE),
            ("chainfree", None, CHAIN_RELEASE),
            ("chaintoken", CHAIN_TOKEN_SPIN, CHAIN_TOKEN_RELEASE)):
        edits[twin] = [
            ("--insert-before", r"^\.visible \.entry", CHAIN_DECLARATIONS),
            ("--insert-after", r"\.reg \.b64\s+%rd<", CHAIN_START)] + (
                [("--insert-before", X_LOAD, spin)] if spin else []) + [
            ("--sub", RETURN, f"\\1{release}\n\\1ret;")] + LATE_WAIT
    return edits


def straight(lines, begin, end):
    """True where no branch from `end` on targets a basic block of [begin,
    end): the poll's branch back then re-runs no loop but its own. (The
    blocks are LLVM's $L__ labels; inline assembly's spin loops keep their
    labels inside their own braces.)"""
    branch = re.compile(r"\bbra(?:\.uni)?\s+(\$L__\w+);")
    labels = {m.group(1) for line in lines[begin:end]
              for m in [re.match(r"^(\$L__\w+):", line)] if m}
    return not any(m and m.group(1) in labels
                   for line in lines[end:] for m in [branch.search(line)])


def x_load_words(ptx_path):
    """The registers x's loads fill and the first one's address, where every
    load comes after the one wait (the twins then move all of x, and only
    x, off the wait's path); else none."""
    lines = open(ptx_path).read().split("\n")
    waits = [i for i, line in enumerate(lines) if re.search(WAIT, line)]
    loads = [(i, match) for i, line in enumerate(lines)
             for match in [re.search(X_LOAD, line)] if match]
    mmas = [i for i, line in enumerate(lines) if re.search(FIRST_MMA, line)]
    if (len(waits) != 1 or not loads or loads[0][0] < waits[0] or not mmas
            or mmas[0] < loads[-1][0]
            or not straight(lines, waits[0], mmas[0])):
        return [], None
    return ([match.group(g) for _, match in loads for g in (2, 3, 4, 5)],
            loads[0][1].group(6))


def read_report(path, columns):
    """{(shape, M): {column: [row, ...]}} of one lamport-gemm-bench report
    (a column's rows: its bundles at the point), the publishing bundles
    left out; raises ValueError naming what is wrong."""
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a readable report ({error})")
    points = {}
    for index, row in enumerate(rows if isinstance(rows, list) else [None]):
        if not isinstance(row, dict) or not all(
                key in row for key in ("bundle", "shape", "m")):
            raise ValueError(f"{path}: record {index} is not a bundle's row")
        if "_publish" in row["bundle"]:
            continue
        # The longest suffix: one twin's name may end with another's.
        twin = max((c for c in columns[1:] if row["bundle"].endswith(c)),
                   key=len, default="")
        points.setdefault((row["shape"], row["m"]), {}).setdefault(
            twin, []).append(row)
    return points


def passed(row):
    """True where the row passed every check and has a time."""
    return bool(row.get("passed") and row.get("ours_us") and
                row.get("same_bits_as_reference") is not False)


def fastest(rows, checked=True):
    """The fastest of `rows` where every one passed every check (or, not
    `checked`, has a time), else None (a point with a failed bundle or
    twin has no time)."""
    usable = passed if checked else lambda row: bool(row.get("ours_us"))
    if not rows or not all(usable(row) for row in rows):
        return None
    return min(rows, key=lambda row: row["ours_us"])


def timed(rows, checked=True):
    """The time of fastest(rows, checked), else None."""
    row = fastest(rows, checked)
    return row["ours_us"] if row else None


def floor_misses(rows, time):
    """'shape M share' of a point short of the floor targets: 85% of the
    copy floor from 16 MiB of weight, 75% from 8 MiB."""
    mib = rows["n"] * rows["k"] * 2 / 2**20
    share = rows["floor_us"] / time
    short = (mib >= 16 and share < 0.85) or (mib >= 8 and share < 0.75)
    return [f"{rows['shape']} M = {rows['m']} {share:.0%}"] if short else []


def report(paths, only=DEFAULT_TWINS, stream=None):
    """Prints each point's bundle and twins from lamport-gemm-bench's
    reports, then per report each twin's geometric mean over cuBLAS alone
    and as the faster of it and the bundle at each point, with the points
    that miss the floor targets that way, and with `stream` (a
    lamport-stream-floor table) cuBLAS over its time at each point's
    weight; 0 where every bundle and twin passed in every report
    (UNCHECKED_TWINS: has a time), 1 where one failed or is missing, 2
    where a report cannot be read, or the table cannot be read or lacks a
    size (said after the twins' tables, which print all the same)."""
    every = [""] + ["_" + twin for twin in twins(["%r0"] * 4)]
    try:
        runs = [read_report(path, every) for path in paths]
    except ValueError as error:
        print(f"x_handover_bound.py: {error}", file=sys.stderr)
        return 2
    streamed = stream_error = None
    if stream:
        try:
            streamed = stream_table(stream)
        except ValueError as error:
            stream_error = error
    # Each row is told by every twin's suffix, then only those asked for
    # are shown.
    columns = [c for c in every if not c or c[1:] in only]
    status = 0
    header = "| shape | M | floor us |"
    for run in runs:
        header += "".join(f" {c[1:] or 'table'} us (%) |" for c in columns)
    print(header)
    print("|---|---:|---:|" + "---:|" * (len(columns) * len(runs)))
    points = sorted({point for run in runs for point in run})
    for point in points:
        line = f"| {point[0]} | {point[1]} |"
        floor = next((row["floor_us"] for run in runs
                      for rows in run.get(point, {}).values()
                      for row in rows if row.get("floor_us")), 0)
        line += f" {floor:.2f} |"
        for run in runs:
            for column in columns:
                time = timed(run.get(point, {}).get(column),
                             column[1:] not in UNCHECKED_TWINS)
                if time is None:
                    line += " failed |"
                    status = 1
                    continue
                line += f" {time:.2f} ({100 * floor / time:.0f}) |"
        print(line)
    for number, run in enumerate(runs, 1):
        alone, best = [], []
        for column in columns:
            speedups, faster, misses = [], [], []
            for rows in run.values():
                bundle = fastest(rows.get(""))
                twin = timed(rows.get(column),
                             column[1:] not in UNCHECKED_TWINS)
                if bundle is None or twin is None:
                    continue
                # cuBLAS is timed once a point in each bundle's process.
                cublas = bundle["cublas_us"]
                either = min(bundle["ours_us"], twin)
                speedups.append(cublas / twin)
                faster.append(cublas / either)
                misses += floor_misses(bundle, either)
            if not speedups:
                continue
            name = column[1:] or "table"
            alone.append(f"{name} {geomean(speedups):.3f}x")
            if column:
                best.append(f"{name} {geomean(faster):.3f}x, short of the "
                            f"floor targets: {'; '.join(misses) or 'none'}")
        print(f"report {number}, geometric mean over cuBLAS: " +
              ", ".join(alone))
        for line in best:
            print(f"report {number}, the faster of the table's and " + line)
        if streamed is not None:
            line, missing = stream_bound(run, streamed[1])
            if missing:
                stream_error = stream_error or (
                    f"{stream} has no best time for {len(missing)} weight "
                    f"sizes: {','.join(missing)}")
            else:
                print(f"report {number}, cuBLAS over {streamed[0]}: {line}")
    if stream_error:
        sys.stdout.flush()
        print(f"x_handover_bound.py: {stream_error}", file=sys.stderr)
        return 2
    return status


def stream_table(path):
    """(what `path`'s lamport-stream-floor table times, {W in MiB as printed:
    its time}); ValueError where the table cannot be read."""
    try:
        times, held = stream_times(path)
    except OSError as error:
        raise ValueError(f"{path}: not a readable table ({error})")
    return ("the skeleton that holds W across the wait" if held else
            "the stream that reads W once"), times


def stream_bound(run, times):
    """(the geometric mean over `run`'s points, overall and by M, of their
    bundle's cuBLAS time over `times` at their weight, the weight sizes
    `times` lacks); a point whose bundle failed is left out."""
    by_m, missing = {}, set()
    for (_, m), rows in run.items():
        bundle = fastest(rows.get(""))
        if bundle is None:
            continue
        size = mib_text(bundle["n"], bundle["k"])
        if size in times:
            by_m.setdefault(m, []).append(bundle["cublas_us"] / times[size])
        else:
            missing.add(size)
    every_point = [x for ratios in by_m.values() for x in ratios]
    line = f"{geomean(every_point):.3f}x (" + ", ".join(
        f"M = {m} {geomean(by_m[m]):.3f}x" for m in sorted(by_m)) + ")"
    return line, sorted(missing, key=float)


def make_twins(source_dir, output, twins_of, script, skip_unfit=False):
    """Makes, in `output` (emptied first), NAME_TWIN of each plain bundle
    NAME of `source_dir` for every TWIN of `twins_of(NAME, its PTX path)`
    (a dict of edit_ptx.py edits; ValueError where the kernel has none)
    by bench/edit_ptx.py; 0 with the count printed, 1 on the first
    failure, named by `script`. With `skip_unfit`, a bundle with no twins
    is counted and passed over instead."""
    shutil.rmtree(output, ignore_errors=True)
    os.makedirs(output)
    made = unfit = 0
    for name in sorted(os.listdir(source_dir)):
        source = os.path.join(source_dir, name)
        if "_publish" in name or not os.path.isdir(source):
            continue
        try:
            edits_of = twins_of(name,
                                os.path.join(source, "gemm_publish_0.ptx"))
        except ValueError as error:
            if skip_unfit:
                unfit += 1
                continue
            print(f"{script}: {error}", file=sys.stderr)
            return 1
        for twin, edits in edits_of.items():
            command = [sys.executable,
                       os.path.join(ROOT, "bench", "edit_ptx.py"), source,
                       os.path.join(output, f"{name}_{twin}")]
            for edit in edits:
                command += list(edit)
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                print(result.stdout + result.stderr, file=sys.stderr)
                return 1
            made += 1
    print(f"{made} twins in {output}" +
          (f"; {unfit} bundles with no twins" if unfit else ""))
    return 0


def handover_twins(name, ptx, only=DEFAULT_TWINS):
    """make_twins's edits for the bundle `name`: twins() of its x loads,
    those named in `only`; ValueError where x is not all loaded after one
    wait."""
    x_words, first_x = x_load_words(ptx)
    if not x_words:
        raise ValueError(f"{ptx}: x is not all loaded after one wait; "
                         "no twins")
    edits = twins(x_words, first_x)
    chosen = {twin: edits[twin] for twin in edits if twin in only}
    sleeps = [twin for twin in chosen if twin.startswith("sleep")]
    if sleeps and not trigger_first(ptx):
        # Its sleep would not delay the weight stream.
        print(f"x_handover_bound.py: {name}: no {', '.join(sleeps)} (its "
              "trigger does not come before its weight loads)",
              file=sys.stderr)
        chosen = {t: e for t, e in chosen.items() if t not in sleeps}
    return chosen


def trigger_first(ptx_path):
    """True where the kernel triggers its dependents before its first
    weight load (early dependents), where the sleep twins sleep."""
    lines = open(ptx_path).read().split("\n")
    trigger = next((i for i, line in enumerate(lines)
                    if re.search(TRIGGER, line)), None)
    weights = next((i for i, line in enumerate(lines)
                    if re.search(WEIGHT_LOAD, line)), None)
    return trigger is not None and (weights is None or trigger < weights)


def compile_best(run_dir, out, top=1):
    """Compiles each point's `top` fastest passing plain candidates of the
    lamport-tune run in `run_dir` (read and checked as lamport-tune reads
    it; a bad run ends the script there) into `out`; returns how many."""
    _, points = tune.load_points(run_dir)
    jobs = []
    for (shape, n, k, m, publishes), records in sorted(points.items()):
        if publishes:
            continue
        fastest_first = sorted(tune.passing_of(records), key=lambda r: r["us"])
        for record in fastest_first[:top]:
            jobs.append((record["bundle"], tune.program(
                shape, n, k, m, tune.tactic_text(record["tactic"], m))))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    compiler = (shutil.which("lamport-compile") or
                os.path.join(ROOT, "build", "bin", "lamport-compile"))
    notes = compile_programs(compiler, jobs, out)
    for note in notes:
        print(f"x_handover_bound.py: {note}", file=sys.stderr)
    return len(jobs) - len(notes)


def main(argv):
    parser = argparse.ArgumentParser(
        description="serving GEMMs with x off the PDL wait's path (a bound)")
    parser.add_argument("--source",
                        default=os.path.join(ROOT, "bundles", "gemm"))
    parser.add_argument("-o", "--output",
                        default=os.path.join(ROOT, "bundles", "gemm_handover"))
    parser.add_argument("--report", nargs="+", metavar="RESULTS.json",
                        help="print the timed twins instead of making them")
    parser.add_argument("--stream", metavar="STREAM.md",
                        help="with --report, cuBLAS over lamport-stream-"
                        "floor's time (--hold's too) at each point")
    parser.add_argument("--best", metavar="RUN_DIR",
                        help="compile a tuning run's fastest kernels first")
    parser.add_argument("--top", type=int, default=1, metavar="N",
                        help="with --best, each point's N fastest kernels")
    parser.add_argument("--twins", metavar="NAME,...",
                        help="make (or report) only these twins (default: "
                        "all but the chain, sleep and x-share twins)")
    args = parser.parse_args(argv)
    known = list(twins(["%r0"] * 4))
    only = args.twins.split(",") if args.twins else DEFAULT_TWINS
    unknown = [twin for twin in only if twin not in known]
    if unknown:
        parser.error(f"--twins: no twin {', '.join(unknown)} (the twins: "
                     f"{', '.join(known)})")
    if args.stream and not args.report:
        parser.error("--stream goes with --report")
    if args.report:
        return report(args.report, only, args.stream)
    if args.top < 1:
        parser.error(f"--top {args.top}: give 1 or more")
    if args.best:
        print(f"{compile_best(args.best, args.source, args.top)} bundles in "
              f"{args.source}")
    if not os.path.isdir(args.source):
        parser.error(f"{args.source}: no bundles (bench/prepare_gemm.sh "
                     "makes them)")
    return make_twins(args.source, args.output,
                      lambda name, ptx: handover_twins(name, ptx, only),
                      "x_handover_bound.py", skip_unfit=args.top > 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
