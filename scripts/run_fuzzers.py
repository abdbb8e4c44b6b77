#!/usr/bin/env python3
"""Replays and runs the fuzz targets of test/Fuzz; writes JUnit XML.

scripts/fuzz.sh builds the targets and calls this. Three steps:
  1. stage the seed corpus of each kind of input (the committed corpus of
     test/Fuzz/corpus, the examples, the inputs of the lit tests and the
     manifests lamport-compile writes for the examples) and the regression
     inputs of test/Fuzz/regressions (a `.nest` file there describes a
     deeply nested input, written out here instead of being committed);
  2. replay: every seed once per target, and every regression input on its
     own, so a crash names the input;
  3. fuzz: each target for a bounded time from its seeds.
A crash, a sanitizer report, a timeout or running out of memory fails the
step. A regression input listed in test/Fuzz/regressions/known-crashes.txt
is reported as skipped while it crashes, and fails once it no longer does,
so the list is emptied as fixes land.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

# name: (binary, kind of input, dictionary, share of the time, per-input
# timeout in seconds). The compile target lowers to PTX, a few inputs a
# second: it gets a larger share.
TARGETS = {
    "plan": ("lamport-plan-fuzzer", "mlir", "mlir.dict", 1.0, 20),
    "compile": ("lamport-compile-fuzzer", "mlir", "mlir.dict", 1.5, 60),
    "manifest": ("lamport-manifest-fuzzer", "manifest", "manifest.dict", 1.0,
                 10),
    "run-options": ("lamport-run-options-fuzzer", "run-options",
                    "run-options.dict", 0.5, 10),
    "runtime-capi": ("lamport-runtime-capi-fuzzer", "runtime-capi",
                     "runtime-capi.dict", 1.0, 10),
    "tactic-table": ("lamport-tactic-table-fuzzer", "tactic-table",
                     "tactic-table.dict", 0.5, 20),
}
# The target that replays the regression inputs of each kind.
REGRESSION_TARGET = {"mlir": "compile", "manifest": "manifest",
                     "run-options": "run-options",
                     "runtime-capi": "runtime-capi",
                     "tactic-table": "tactic-table"}
# The lit tests' folders whose .mlir files seed the MLIR targets, and the
# option line that runs each the way its tests do.
MLIR_TEST_DIRS = {
    "test/Dialect": "",
    "test/Transforms":
        "// fuzz-pipeline: builtin.module(lamport-generate-kernels)\n",
    "test/Conversion":
        "// fuzz-pipeline: builtin.module(lamport-lower-to-nvvm)\n",
}
MAX_SEED_BYTES = 16384


def add_seed(directory, name, text):
    """Writes one seed, named after its origin, unless one holds the same."""
    data = text.encode() if isinstance(text, str) else text
    if not data.strip() or len(data) > MAX_SEED_BYTES:
        return
    digest = hashlib.sha1(data).hexdigest()[:12]
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    path = os.path.join(directory, f"{safe}-{digest}")
    with open(path, "wb") as f:
        f.write(data)


def stage_mlir(root, out):
    for name in sorted(os.listdir(os.path.join(root, "docs/examples"))):
        if name.endswith(".mlir"):
            with open(os.path.join(root, "docs/examples", name)) as f:
                add_seed(out, name, f.read())
    for folder, header in MLIR_TEST_DIRS.items():
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path) as f:
                    text = f.read()
                # One seed per split of a -split-input-file test, without
                # the RUN and CHECK lines.
                for i, part in enumerate(re.split(r"^// -----.*$", text,
                                                  flags=re.M)):
                    code = "\n".join(line for line in part.splitlines()
                                     if not line.lstrip().startswith("//"))
                    rel = os.path.relpath(path, root)
                    add_seed(out, f"{rel}.{i}", header + code.strip() + "\n")


def stage_manifests(root, build, work, out):
    inputs = os.path.join(root, "test/Runtime/Inputs")
    for name in sorted(os.listdir(inputs)):
        path = os.path.join(inputs, name, "manifest.json")
        if os.path.exists(path):
            with open(path) as f:
                add_seed(out, name + ".json", f.read())
    compiler = os.path.join(build, "bin", "lamport-compile") if build else ""
    if not os.path.exists(compiler):
        print(f"fuzz: no {compiler or 'lamport-compile'}: the manifest seeds "
              "leave out the compiled examples", file=sys.stderr)
        return
    bundles = os.path.join(work, "bundles")
    for name in sorted(os.listdir(os.path.join(root, "docs/examples"))):
        if not name.endswith(".mlir"):
            continue
        bundle = os.path.join(bundles, name[:-5])
        shutil.rmtree(bundle, ignore_errors=True)
        result = subprocess.run(
            [compiler, os.path.join(root, "docs/examples", name), "-o",
             bundle], capture_output=True, text=True)
        if result.returncode != 0:
            print(f"fuzz: lamport-compile {name} failed:\n{result.stderr}",
                  file=sys.stderr)
            continue
        with open(os.path.join(bundle, "manifest.json")) as f:
            add_seed(out, name[:-5] + ".json", f.read())


def stage_tables(root, out):
    """The tables of the tests, and the chips' tables cut to a few entries
    and timed points of a few candidates (whole, they pass the seed size)."""
    for folder in ("test/Transforms/Inputs", "test/lamport-compile/Inputs"):
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if name.startswith("tactics") and name.endswith(".json"):
                with open(os.path.join(root, folder, name), "rb") as f:
                    add_seed(out, name, f.read())
    tables = os.path.join(root, "data/tactics")
    for name in sorted(os.listdir(tables)):
        with open(os.path.join(tables, name)) as f:
            table = json.load(f)
        table["entries"] = table["entries"][:6]
        table["measured"] = table.get("measured", [])[:2]
        for point in table["measured"]:
            point["candidates"] = point["candidates"][:3]
        add_seed(out, name, json.dumps(table, indent=1))


def stage_committed(root, kind, out):
    corpus = os.path.join(root, "test/Fuzz/corpus", kind)
    if os.path.isdir(corpus):
        for name in sorted(os.listdir(corpus)):
            with open(os.path.join(corpus, name), "rb") as f:
                add_seed(out, name, f.read())


def stage_regressions(root, kind, out):
    """The regression inputs of `kind`, `.nest` descriptions written out."""
    source = os.path.join(root, "test/Fuzz/regressions", kind)
    os.makedirs(out, exist_ok=True)
    if not os.path.isdir(source):
        return []
    staged = []
    for name in sorted(os.listdir(source)):
        path = os.path.join(source, name)
        if name.endswith(".nest"):
            with open(path) as f:
                spec = json.load(f)
            name = name[:-len(".nest")]
            text = (spec["prefix"] + spec["open"] * spec["depth"] +
                    spec["close"] * spec["depth"] + spec["suffix"])
            with open(os.path.join(out, name), "w") as f:
                f.write(text)
        else:
            shutil.copy(path, os.path.join(out, name))
        staged.append((f"{kind}/{name}", os.path.join(out, name)))
    return staged


def read_known_crashes(root):
    """known-crashes.txt: `KIND/FILE reason`, one a line."""
    known = {}
    path = os.path.join(root, "test/Fuzz/regressions/known-crashes.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    name, _, reason = line.partition(" ")
                    known[name] = reason.strip()
    return known


def run(command, log, timeout):
    """Runs a fuzz target; returns (exit code, seconds, output)."""
    start = time.monotonic()
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=timeout)
        code, output = result.returncode, result.stdout
    except subprocess.TimeoutExpired as e:
        code, output = 124, (e.stdout or b"") + b"\nfuzz: killed: too slow\n"
    output = output.decode(errors="replace")
    with open(log, "w") as f:
        f.write(output)
    return code, time.monotonic() - start, output


def crash_summary(output):
    """The lines of a report that say what went wrong."""
    keep = [line for line in output.splitlines()
            if re.search(r"ERROR:|runtime error:|SUMMARY:|lamport fuzz "
                         r"finding|terminate called|what\(\):|Test unit "
                         r"written|^\s+#[0-9] ", line)]
    return "\n".join(keep[:40])


def stats(output):
    """execs, cov, ft and corpus of libFuzzer's last status line."""
    found = {}
    for line in output.splitlines():
        m = re.match(r"#(\d+)\s+(?:INITED|DONE|pulse|NEW|REDUCE)\s+cov: (\d+)"
                     r" ft: (\d+) corp: (\d+)/(\S+)", line)
        if m:
            found.update(execs=int(m[1]), cov=int(m[2]), ft=int(m[3]),
                         corpus=int(m[4]), corpus_size=m[5])
        m = re.search(r"\((\d+) inline 8-bit counters\)", line)
        if m:
            found["counters"] = int(m[1])
        m = re.match(r"stat::number_of_executed_units: (\d+)", line)
        if m:
            found["execs"] = int(m[1])
    return found


class Report:
    def __init__(self):
        self.suite = ET.Element("testsuite", name="fuzz")

    def case(self, classname, name, seconds, failure=None, skipped=None,
             output=""):
        case = ET.SubElement(self.suite, "testcase", classname=classname,
                             name=name, time=f"{seconds:.1f}")
        if failure is not None:
            ET.SubElement(case, "failure", message=failure.splitlines()[0]
                          if failure else "failed").text = failure
        elif skipped is not None:
            ET.SubElement(case, "skipped", message=skipped)
        if output:
            ET.SubElement(case, "system-out").text = output

    def write(self, path):
        cases = list(self.suite)
        self.suite.set("tests", str(len(cases)))
        self.suite.set("failures", str(sum(
            c.find("failure") is not None for c in cases)))
        self.suite.set("skipped", str(sum(
            c.find("skipped") is not None for c in cases)))
        ET.ElementTree(self.suite).write(path, encoding="utf-8",
                                         xml_declaration=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--bin", required=True, help="the fuzz build's bin/")
    parser.add_argument("--build", default="",
                        help="a normal build, for lamport-compile")
    parser.add_argument("--work", required=True,
                        help="seeds, corpora, artifacts and logs go here")
    parser.add_argument("--xml", required=True)
    parser.add_argument("--seconds", type=float, default=30,
                        help="fuzzing time of a target of share 1; 0 only "
                        "replays")
    parser.add_argument("--targets", default=" ".join(TARGETS))
    args = parser.parse_args()

    targets = args.targets.split()
    for target in targets:
        if target not in TARGETS:
            sys.exit(f"fuzz: unknown target '{target}' (known: "
                     f"{', '.join(TARGETS)})")
    work = os.path.abspath(args.work)
    seeds = os.path.join(work, "seeds")
    shutil.rmtree(seeds, ignore_errors=True)
    kinds = sorted({TARGETS[t][1] for t in targets})
    for kind in kinds:
        out = os.path.join(seeds, kind)
        os.makedirs(out)
        if kind == "mlir":
            stage_mlir(args.root, out)
        elif kind == "manifest":
            stage_manifests(args.root, args.build, work, out)
        elif kind == "tactic-table":
            stage_tables(args.root, out)
        stage_committed(args.root, kind, out)
    known = read_known_crashes(args.root)
    report = Report()

    for target in targets:
        binary, kind, dictionary, share, timeout = TARGETS[target]
        exe = os.path.join(args.bin, binary)
        logs = os.path.join(work, "logs", target)
        artifacts = os.path.join(work, "artifacts", target)
        os.makedirs(logs, exist_ok=True)
        os.makedirs(artifacts, exist_ok=True)
        common = [f"-timeout={timeout}", "-rss_limit_mb=2048",
                  f"-artifact_prefix={artifacts}/"]
        kind_seeds = os.path.join(seeds, kind)
        count = len(os.listdir(kind_seeds))

        # Replay: each regression input on its own.
        if REGRESSION_TARGET.get(kind) == target:
            staged = stage_regressions(
                args.root, kind, os.path.join(work, "regressions", kind))
            for name, path in staged:
                code, seconds, output = run(
                    [exe] + common + [path],
                    os.path.join(logs, "regression-" +
                                 os.path.basename(path) + ".log"), 600)
                crashed = code != 0
                reason = known.get(name)
                failure = skipped = None
                if crashed and reason is None:
                    failure = (f"{binary} crashes on {path}\n" +
                               crash_summary(output))
                elif crashed:
                    skipped = f"known crash, not yet fixed: {reason}"
                elif reason is not None:
                    failure = (f"{name} no longer crashes: take it off "
                               "test/Fuzz/regressions/known-crashes.txt")
                report.case("fuzz.regression", name, seconds, failure,
                            skipped)
                state = ("CRASH" if crashed and reason is None else
                         "known crash" if crashed else
                         "FIXED (listed as a known crash)" if reason else "ok")
                print(f"fuzz: regression {name}: {state}")

        # Every seed once, then (with a time) fuzzing from them: libFuzzer
        # runs the whole seed corpus before it mutates anything, and says
        # INITED when it has.
        seconds = round(args.seconds * share)
        corpus = os.path.join(work, "corpus", target)
        os.makedirs(corpus, exist_ok=True)
        dict_path = os.path.join(args.root, "test/Fuzz/dict", dictionary)
        command = [exe] + common
        if seconds > 0:
            command += [f"-max_total_time={seconds}", "-print_final_stats=1",
                        f"-dict={dict_path}", corpus]
        else:
            command += ["-runs=0"]
        code, elapsed, output = run(command + [kind_seeds],
                                    os.path.join(logs, "fuzz.log"),
                                    seconds + 900)
        seeded = re.search(r"^#\d+\s+INITED", output, re.M) is not None
        log = os.path.join(logs, "fuzz.log")
        report.case("fuzz.replay", f"{target}: {count} seed inputs",
                    elapsed if seconds <= 0 else 0,
                    failure=None if seeded else
                    f"{binary} crashed on a seed input of {kind_seeds} "
                    f"(log: {log})\n" + crash_summary(output))
        if seconds <= 0:
            print(f"fuzz: {target}: {count} seeds "
                  f"{'replayed' if seeded else 'CRASH'}")
            continue
        found = stats(output)
        summary = (f"{found.get('execs', 0)} executions in {elapsed:.0f} s, "
                   f"cov {found.get('cov', '?')} of "
                   f"{found.get('counters', '?')} counters, ft "
                   f"{found.get('ft', '?')}, corpus {found.get('corpus', '?')}"
                   f" inputs ({found.get('corpus_size', '?')})")
        report.case("fuzz.run", f"{target}: {seconds} s", elapsed,
                    failure=None if code == 0 or not seeded else
                    f"{binary} crashed while fuzzing (log: {log}; the input "
                    f"is in {artifacts})\n" + crash_summary(output),
                    skipped=None if seeded else "a seed input crashed",
                    output=summary)
        print(f"fuzz: {target}: {count} seeds "
              f"{'replayed' if seeded else 'CRASH'}; fuzzing "
              f"{'ok' if code == 0 else 'CRASH'}: {summary}")

    os.makedirs(os.path.dirname(os.path.abspath(args.xml)), exist_ok=True)
    report.write(args.xml)
    failed = [c for c in report.suite if c.find("failure") is not None]
    for case in failed:
        print(f"fuzz: FAILED {case.get('classname')} {case.get('name')}:\n"
              f"{case.find('failure').text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
