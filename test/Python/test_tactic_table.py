"""The tactic tables in data/tactics follow docs/tactics.schema.json, and
lamport-tune merges a tuning run into a table (no GPU: a hand-made
results.json stands for lamport-gemm-bench's report)."""

import glob
import json
import os
import subprocess

import pytest

from conftest import ROOT

TUNE = os.path.join(ROOT, "tools", "lamport-tune", "lamport-tune")


def schema():
    with open(os.path.join(ROOT, "docs", "tactics.schema.json")) as f:
        return json.load(f)


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(ROOT, "data", "tactics", "*.json"))))
def test_table_follows_schema(path):
    jsonschema = pytest.importorskip("jsonschema")
    with open(path) as f:
        table = json.load(f)
    jsonschema.validate(table, schema())
    # Entries of one key never overlap in M: the first would hide the other.
    seen = {}
    for entry in table["entries"]:
        key = (entry["n"], entry["k"], entry["publishes"],
               entry.get("transport"))
        for first, last in seen.get(key, []):
            assert entry["m"][1] < first or entry["m"][0] > last, entry
        seen.setdefault(key, []).append(tuple(entry["m"]))


def test_schema_refuses_unknown_knob():
    jsonschema = pytest.importorskip("jsonschema")
    table = {"chip": "sm_90", "entries": [
        {"n": 1024, "k": 4096, "m": [1, 16], "publishes": False,
         "tactic": {"splits": 1, "kw": 128, "accs": 2, "warps": 32}}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(table, schema())


def write_run(directory, candidates, results):
    """A tuning run's candidates.json and results.json in `directory`, and
    beside them a table whose one entry serves the shape at every M."""
    (directory / "candidates.json").write_text(
        json.dumps({"chip": "sm_90", "candidates": candidates}))
    (directory / "results.json").write_text(json.dumps(results))
    table = directory / "table.json"
    table.write_text(json.dumps({"chip": "sm_90", "entries": [
        {"n": 1024, "k": 4096, "m": [1, 16], "publishes": False,
         "tactic": {"splits": 1, "kw": 128, "accs": 2}, "source": "old"}]}))
    return table


def test_merge_takes_the_fastest_passing_candidate(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    fast = {"splits": 2, "kw": 64, "accs": 2, "tiles": 1, "passes": 1,
            "min_ctas_per_sm": 1, "early_dependents": True, "late_chunks": 0}
    failing = dict(fast, splits=4)
    slow = dict(fast, splits=1, kw=128)
    bulk = dict(fast, splits=1, kw=128, pipeline="bulk", stages=2,
                stage_bytes=16384, producer_lanes=32, early_reads=1)
    # us per M: "fast" wins at M = 1 and 8 (one entry), the bulk ring at 16.
    times = {1: {"fast": 3.0, "failing": 1.0, "slow": 4.0, "bulk": 5.0},
             8: {"fast": 3.0, "failing": 1.0, "slow": 4.0, "bulk": 5.0},
             16: {"fast": 3.0, "failing": 1.0, "slow": 2.5, "bulk": 2.0}}
    candidates = []
    results = []
    for m in (1, 8, 16):
        for name, knobs in (("fast", fast), ("failing", failing),
                            ("slow", slow), ("bulk", bulk)):
            bundle = f"shape_m{m}_{name}"
            candidates.append({"bundle": bundle, "shape": "shape", "n": 1024,
                               "k": 4096, "m": m, "publishes": False,
                               "tactic": knobs, "model_us": times[m][name],
                               "model_pick": name == "slow", "table": False})
            results.append({"bundle": bundle, "ours_us": times[m][name],
                            "cublas_us": 7.0, "passed": name != "failing"})
    table = write_run(tmp_path, candidates, results)
    mode = 0o640
    table.chmod(mode)
    subprocess.run([TUNE, "merge", str(tmp_path), "--table", str(table)],
                   check=True)
    merged = json.loads(table.read_text())
    jsonschema.validate(merged, schema())
    # The same tactic at consecutive points is one entry (one kernel).
    assert [e["m"] for e in merged["entries"]] == [[1, 8], [9, 16]]
    # Each entry says which shape and points it was tuned at, and its times.
    assert [e["source"].split(", ", 1)[1] for e in merged["entries"]] == [
        "shape: 3.00 us at M = 1, cuBLAS 7.00 us; 3.00 us at M = 8, "
        "cuBLAS 7.00 us",
        "shape: 2.00 us at M = 16, cuBLAS 7.00 us"]
    # Only the knobs off their defaults are written.
    assert merged["entries"][0]["tactic"] == {
        "splits": 2, "kw": 64, "accs": 2, "min_ctas_per_sm": 1,
        "early_dependents": True}
    assert merged["entries"][1]["tactic"] == {
        "splits": 1, "kw": 128, "accs": 2, "min_ctas_per_sm": 1,
        "early_dependents": True, "pipeline": "bulk", "stages": 2,
        "producer_lanes": 32, "early_reads": 1}
    # Every timed point keeps its passing candidates' times over its best,
    # best first: the cost model's prior for shapes without an entry.
    assert [(p["m"], [(c["tactic"]["splits"], c["tactic"]["kw"],
                       c["tactic"].get("pipeline"), c["over_best"])
                      for c in p["candidates"]])
            for p in merged["measured"]] == [
        (1, [(2, 64, None, 1.0), (1, 128, None, 1.333),
             (1, 128, "bulk", 1.667)]),
        (8, [(2, 64, None, 1.0), (1, 128, None, 1.333),
             (1, 128, "bulk", 1.667)]),
        (16, [(1, 128, "bulk", 1.0), (1, 128, None, 1.25),
              (2, 64, None, 1.5)])]
    # Written beside the table and moved into place, with the table's own
    # permissions.
    assert table.stat().st_mode & 0o777 == mode
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] \
        == []
    # A second merge of the same run replaces the points, not adds to them.
    subprocess.run([TUNE, "merge", str(tmp_path), "--table", str(table)],
                   check=True)
    assert len(json.loads(table.read_text())["measured"]) == 3
    # The model picked the slow one, 4.0 against 3.0: a finding, not a
    # failure, unless the caller bounds it.
    report = subprocess.run([TUNE, "report", str(tmp_path)],
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert "worst model pick / tuned best: 1.333; " in report.stdout
    assert report.stderr == ""
    bounded = subprocess.run([TUNE, "report", str(tmp_path),
                              "--max-pick-ratio", "1.10"],
                             capture_output=True, text=True)
    assert bounded.returncode == 1
    assert "worst model pick / tuned best: 1.333 (bound 1.10)" in \
        bounded.stdout
    assert "a pick is 1.333x its point's best, past --max-pick-ratio 1.10" \
        in bounded.stderr
    # A bound finer than two decimals is shown as given.
    fine = subprocess.run([TUNE, "report", str(tmp_path), "--max-pick-ratio",
                           "1.3325"], capture_output=True, text=True)
    assert fine.returncode == 1
    assert "past --max-pick-ratio 1.3325" in fine.stderr
    # Within the bound it set, the caller gets 0.
    assert subprocess.run([TUNE, "report", str(tmp_path), "--max-pick-ratio",
                           "1.4"], capture_output=True).returncode == 0
    # The best over cuBLAS: 7.0 over 3.0 at M = 1 and 8, 7.0 over 2.0 at 16.
    slow = subprocess.run([TUNE, "report", str(tmp_path), "--min-speedup",
                           "3"], capture_output=True, text=True)
    assert slow.returncode == 1
    assert "the tuned best is 2.671x cuBLAS, under --min-speedup 3.00" in \
        slow.stderr


def test_merge_keeps_the_table_tactic_within_min_gain(tmp_path):
    """--min-gain: a point keeps the table's tactic (timed in the same run)
    unless the best is that fraction faster; a re-tuned table does not
    change kernels on noise."""
    current = {"splits": 1, "kw": 128, "accs": 2, "tiles": 1, "passes": 1,
               "min_ctas_per_sm": 1, "early_dependents": True,
               "late_chunks": 0}
    other = dict(current, splits=2, kw=64)
    # M = 1: the other tactic 1% faster (kept: the table's); M = 16: 20%.
    times = {1: {"current": 3.00, "other": 2.97},
             16: {"current": 3.00, "other": 2.40}}
    candidates, results = [], []
    for m in (1, 16):
        for name, knobs in (("current", current), ("other", other)):
            bundle = f"shape_m{m}_{name}"
            candidates.append({"bundle": bundle, "shape": "shape", "n": 1024,
                               "k": 4096, "m": m, "publishes": False,
                               "tactic": knobs, "model_us": 1.0,
                               "model_pick": False,
                               "table": name == "current"})
            results.append({"bundle": bundle, "ours_us": times[m][name],
                            "cublas_us": 7.0, "passed": True})
    (tmp_path / "candidates.json").write_text(
        json.dumps({"chip": "sm_90", "candidates": candidates}))
    (tmp_path / "results.json").write_text(json.dumps(results))

    def merged(*options):
        table = tmp_path / "table.json"
        table.write_text(json.dumps({"chip": "sm_90", "entries": [
            {"n": 1024, "k": 4096, "m": [1, 16], "publishes": False,
             "tactic": {"splits": 1, "kw": 128, "accs": 2,
                        "min_ctas_per_sm": 1, "early_dependents": True},
             "source": "old"}]}))
        subprocess.run([TUNE, "merge", str(tmp_path), "--table", str(table),
                        *options], check=True, capture_output=True)
        return [(e["m"], e["tactic"]["splits"])
                for e in json.loads(table.read_text())["entries"]]

    # Without a bound the 1% is taken: the other tactic serves every M.
    assert merged() == [([1, 16], 2)]
    assert merged("--min-gain", "0.02") == [([1, 1], 1), ([2, 16], 2)]


def work_directory(tmp_path):
    """A tuning run's candidates.json and results.json (two tactics at one
    point, both passing) and a table holding the point, for the tests of
    bad input below."""
    knobs = {"splits": 1, "kw": 128, "accs": 2, "tiles": 1, "passes": 1,
             "min_ctas_per_sm": 1, "early_dependents": True,
             "late_chunks": 0}
    candidates, results = [], []
    for name, us in (("a", 3.0), ("b", 4.0)):
        bundle = f"shape_m1_{name}"
        kw = 128 if name == "a" else 64
        candidates.append({"bundle": bundle, "shape": "shape", "n": 1024,
                           "k": 4096, "m": 1, "publishes": False,
                           "tactic": dict(knobs, kw=kw),
                           "model_us": us, "model_pick": name == "a",
                           "table": False})
        results.append({"bundle": bundle, "ours_us": us, "cublas_us": 7.0,
                        "passed": True})
    return candidates, results, write_run(tmp_path, candidates, results)


def refused(command, message):
    """lamport-tune `command` fails with status 2 and `message`, not a
    Python traceback."""
    run = subprocess.run([TUNE, *command], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert message in run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr


# Each edit of a good run's reports, and what lamport-tune says of it.
BAD_RESULTS = [
    ("missing", None, "cannot read the results"),
    ("not JSON", "{x", "is not valid JSON"),
    ("NaN", '[{"bundle": "shape_m1_a", "ours_us": NaN, "cublas_us": 7.0, '
            '"passed": true}]', "NaN is not a number"),
    ("not a list", "{}", "must be a list of lamport-gemm-bench's reports"),
    ("empty", "[]", "holds no report"),
    ("no bundle", '[{"ours_us": 3.0}]', "must be an object naming its"),
    ("foreign bundle", '[{"bundle": "other_m1_a", "ours_us": 3.0, '
                       '"cublas_us": 7.0, "passed": true}]',
     "reports none of the bundles candidates.json lists"),
    ("no verdict", '[{"bundle": "shape_m1_a", "ours_us": 3.0, '
                   '"cublas_us": 7.0}]', "'passed' must be true or false"),
    ("negative time", '[{"bundle": "shape_m1_a", "ours_us": -1, '
                      '"cublas_us": 7.0, "passed": true}]',
     "'ours_us' of a passing candidate must be a positive number of "
     "microseconds, got -1"),
    ("time as text", '[{"bundle": "shape_m1_a", "ours_us": 3.0, '
                     '"cublas_us": "7", "passed": true}]',
     "'cublas_us' of a passing candidate must be a positive number"),
]


@pytest.mark.parametrize("what,text,message", BAD_RESULTS,
                         ids=[case[0] for case in BAD_RESULTS])
def test_tune_refuses_bad_results(tmp_path, what, text, message):
    """merge and report name what is wrong with results.json, and merge
    leaves the table as it was."""
    _, _, table = work_directory(tmp_path)
    before = table.read_bytes()
    if text is None:
        (tmp_path / "results.json").unlink()
    else:
        (tmp_path / "results.json").write_text(text)
    refused(["merge", str(tmp_path), "--table", str(table)], message)
    assert table.read_bytes() == before
    refused(["report", str(tmp_path)], message)


def test_tune_refuses_endless_and_binary_documents(tmp_path):
    """A document that never ends (read up to 64 MiB, not forever) or is
    not text is refused by name, not a hang or a traceback."""
    work_directory(tmp_path)
    results = tmp_path / "results.json"
    results.unlink()
    results.symlink_to("/dev/zero")
    refused(["report", str(tmp_path)], "is larger than 64 MiB")
    results.unlink()
    results.write_bytes(b"\xff\xfe[")
    refused(["report", str(tmp_path)], "is not valid JSON")


BAD_CANDIDATES = [
    ("not a manifest", [], "needs a 'chip' name and a 'candidates' list"),
    ("bundle twice", lambda c: c[1].update(bundle=c[0]["bundle"]),
     "bundle 'shape_m1_a' is listed twice"),
    ("M as text", lambda c: c[0].update(m="1"),
     "'m' must be a positive integer"),
    ("N of zero", lambda c: c[0].update(n=0),
     "'n' must be a positive integer"),
    ("flag as number", lambda c: c[0].update(publishes=0),
     "'publishes' must be true or false"),
    ("no kw", lambda c: c[0]["tactic"].pop("kw"),
     "'tactic' must be an object with splits, kw and accs"),
]


@pytest.mark.parametrize("what,edit,message", BAD_CANDIDATES,
                         ids=[case[0] for case in BAD_CANDIDATES])
def test_tune_refuses_bad_candidates(tmp_path, what, edit, message):
    candidates, _, table = work_directory(tmp_path)
    before = table.read_bytes()
    if callable(edit):
        edit(candidates)
        document = {"chip": "sm_90", "candidates": candidates}
    else:
        document = edit
    (tmp_path / "candidates.json").write_text(json.dumps(document))
    refused(["merge", str(tmp_path), "--table", str(table)], message)
    assert table.read_bytes() == before


@pytest.mark.parametrize("document,message", [
    ('{"chip": "sm_90", "entries": [{"n": 1024}]}',
     "entry 0: needs positive 'n' and 'k' and 'publishes' true or false"),
    ('{"chip": "sm_90", "entries": [{"n": 1024, "k": 4096, "m": [1], '
     '"publishes": false}]}', "entry 0: 'm' must be [first, last]"),
    ('{"chip": "sm_90", "entries": [], "measured": {}}',
     "needs an 'entries' list and, where present, a 'measured' list"),
    ('{"chip": "sm_100a", "entries": []}',
     "is the table of chip 'sm_100a', the candidates were built for "
     "'sm_90'"),
    ('{"chip": "sm_90", "entries": [', "is not valid JSON"),
], ids=["entry without K", "M not a range", "measured not a list",
        "another chip's", "cut short"])
def test_merge_refuses_a_table_it_cannot_read(tmp_path, document, message):
    """A table merge cannot read is left untouched, not overwritten."""
    _, _, table = work_directory(tmp_path)
    table.write_text(document)
    refused(["merge", str(tmp_path), "--table", str(table)], message)
    assert table.read_text() == document


@pytest.mark.parametrize("option,message", [
    (["--m", "x"], "'x' is not a token count from 1 to 16"),
    (["--m", "1,17"], "'17' is not a token count from 1 to 16"),
    (["--candidates", "-1"], "'-1' is not an integer of at least 0"),
    (["--publish", "0"], "'0' is not an integer of at least 1"),
])
def test_emit_refuses_bad_options(tmp_path, option, message):
    refused(["emit", "-o", str(tmp_path), "shape:1024:4096", *option],
            message)


@pytest.mark.parametrize("shape", [
    "shape:1024", "shape:1024:4096:2", "a b:1024:4096", "../x:1024:4096",
    "1st:1024:4096", "shape:1\u00b2:4096", "shape:-16:4096", "shape:0x10:64"])
def test_emit_refuses_bad_shapes(tmp_path, shape):
    """A shape that is not NAME:N:K is named before anything runs; a NAME
    that is no identifier would otherwise reach the program's text and the
    bundles' paths."""
    refused(["emit", "-o", str(tmp_path), shape], "is not NAME:N:K")


@pytest.mark.parametrize("shape,message", [
    ("down:0:4096", "N = 0 must be in 1..2147483647"),
    ("down:1024:2147483648", "K = 2147483648 must be in 1..2147483647"),
])
def test_emit_refuses_dimensions_no_bundle_has(tmp_path, shape, message):
    refused(["emit", "-o", str(tmp_path), shape], message)


def test_emit_refuses_two_shapes_of_one_name(tmp_path):
    """A name is a program's function and its bundles' directory: the second
    shape of a name would overwrite the first's candidates."""
    refused(["emit", "-o", str(tmp_path), "down:1024:4096", "down:2048:4096"],
            "two shapes are named 'down' (1024 x 4096 and 2048 x 4096)")
    assert not (tmp_path / "candidates.json").exists()


def test_merge_refuses_bad_gain(tmp_path):
    refused(["merge", str(tmp_path), "--min-gain", "2"],
            "'2' is not a fraction from 0 up to 1")


@pytest.mark.parametrize("option,value", [
    ("--max-pick-ratio", "0"), ("--max-pick-ratio", "inf"),
    ("--min-speedup", "-1"), ("--min-speedup", "nan"),
    ("--min-speedup", "x")])
def test_report_refuses_bad_bounds(tmp_path, option, value):
    refused(["report", str(tmp_path), option, value],
            f"'{value}' is not a positive ratio")


@pytest.mark.parametrize("command", [
    ["time", "DIR", "--min-gain", "0.1"],
    ["time", "DIR", "--table", "t.json"],
    ["emit", "-o", "DIR", "shape:1024:4096", "--bench", "b"],
    ["merge", "DIR", "--bench", "b"],
    ["report", "DIR", "--table", "t.json"],
    ["merge", "DIR", "--min-speedup", "1.5"],
])
def test_commands_refuse_options_they_do_not_use(command):
    """Each command takes only its own options: one of another command's
    is an error, not silently ignored."""
    refused(command, "unrecognized arguments")


def test_help_names_each_command():
    run = subprocess.run([TUNE, "--help"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    for command, where in (("emit", "where MLIR is"),
                           ("time", "where the GPU is"),
                           ("merge", "where MLIR is"),
                           ("report", "anywhere"), ("run", "in one go")):
        assert any(line.split()[:1] == [command] and where in line
                   for line in run.stdout.splitlines()), run.stdout


def test_time_and_emit_name_missing_inputs(tmp_path):
    refused(["time", str(tmp_path / "none"), "--bench", "/bin/true"],
            "no bundles in")
    refused(["emit", "-o", str(tmp_path), "--program",
             str(tmp_path / "none.mlir")], "cannot read program")


@pytest.mark.parametrize("command,option", [
    (["time", "DIR"], "--bench"),
    (["emit", "-o", "DIR", "shape:1024:4096"], "--opt"),
    (["emit", "-o", "DIR", "shape:1024:4096"], "--compile"),
])
@pytest.mark.parametrize("given", ["/nonexistent/tool", "NOT_EXECUTABLE",
                                   "no-such-tool-on-path"])
def test_a_given_tool_must_be_there(tmp_path, command, option, given):
    """A tool named on the command line that is missing or not executable is
    refused by name, not replaced by one found elsewhere (another build)
    nor a Python traceback once it is run."""
    (tmp_path / "bundles" / "shape_m1_a").mkdir(parents=True)
    if given == "NOT_EXECUTABLE":
        given = str(tmp_path / "plain_file")
        (tmp_path / "plain_file").write_text("not a program\n")
        os.chmod(given, 0o644)
    command = [str(tmp_path) if part == "DIR" else part for part in command]
    refused([*command, option, given],
            f"{option} {given}: not an executable file")


def test_time_names_a_bench_it_cannot_run(tmp_path):
    """An executable the system cannot run (no program inside) is named
    with the reason, status 1, not a Python traceback."""
    (tmp_path / "bundles" / "shape_m1_a").mkdir(parents=True)
    bench = tmp_path / "bench"
    bench.write_text("not a program\n")
    os.chmod(bench, 0o755)
    run = subprocess.run([TUNE, "time", str(tmp_path), "--bench", str(bench)],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert f"cannot run {bench}: Exec format error" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr


def test_time_drops_an_earlier_timing(tmp_path):
    """A bench that fails before it writes a report leaves no results.json
    behind: the last timing's must not pass for this one's."""
    (tmp_path / "bundles" / "shape_m1_a").mkdir(parents=True)
    (tmp_path / "results.json").write_text("[]")
    run = subprocess.run([TUNE, "time", str(tmp_path), "--bench",
                          "/bin/false"], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert "wrote no results (status 1)" in run.stderr, run.stderr
    assert not (tmp_path / "results.json").exists()


def test_merge_leaves_out_reports_of_other_bundles(tmp_path):
    """Bundles timed beside the candidates in one process (the serving
    kernels of a sweep) have reports but no candidate: merge leaves them
    out and takes the candidates' best."""
    _, results, table = work_directory(tmp_path)
    results.append({"bundle": "serving_m1", "ours_us": 1.0,
                    "cublas_us": 7.0, "passed": True})
    (tmp_path / "results.json").write_text(json.dumps(results))
    subprocess.run([TUNE, "merge", str(tmp_path), "--table", str(table)],
                   check=True, capture_output=True)
    merged = json.loads(table.read_text())
    assert [(e["m"], e["tactic"]["kw"]) for e in merged["entries"]] == [
        ([1, 1], 128)]
    assert [c["over_best"] for c in merged["measured"][0]["candidates"]] == [
        1.0, 1.333]
