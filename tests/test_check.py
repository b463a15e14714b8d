"""`rule603 check`: engine traces in, the first broken clause out."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rule603._internal import conformance
from rule603._internal.schema import Schema
from rule603._internal.trace import to_json
from rule603.cli import main
from test_clauses import CASES, ED

SCHEMA = Schema(tuple(ED.model.VARIABLES))
CLEAN = ("603.2h", "603.3b", "603.6d")  # their accepted traces obey every clause and axiom


def _trace_json(number: str, bad: bool) -> dict:
    return to_json(CASES[number].build(bad).build(), SCHEMA)


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    folder = tmp_path / "traces"
    (folder / "sub").mkdir(parents=True)
    for number in CLEAN:
        (folder / f"{number}-good.json").write_text(json.dumps(_trace_json(number, False)))
    (folder / "sub" / "603.2h-bad.json").write_text(json.dumps(_trace_json("603.2h", True)))
    (folder / "notes.txt").write_text("not a trace; ignored")
    return folder


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _unreadable(capsys, *argv: str) -> list[str]:
    """The unreadable inputs a run that found nothing else wrong lists, as one-line messages."""
    code, out, err = _run(capsys, *argv, "--format", "json")
    assert (code, err) == (5, "")
    return [str(conformance.Unreadable(**item)) for item in json.loads(out)["unreadable"]]


def test_accepted_traces_conform(capsys, traces: Path):
    files = [str(traces / f"{n}-good.json") for n in CLEAN]
    code, out, _ = _run(capsys, *files, "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert [t["conforms"] for t in report["traces"]] == [True] * len(CLEAN)
    assert report["summary"]["conforming"] == len(CLEAN)


def test_directory_is_searched_and_the_broken_clause_named(capsys, traces: Path):
    code, out, _ = _run(capsys, str(traces), "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert len(report["traces"]) == len(CLEAN) + 1
    (bad,) = [t for t in report["traces"] if not t["conforms"]]
    assert bad["file"].endswith("603.2h-bad.json")
    violation = bad["violations"][0]
    assert (violation["clause"], violation["moment"], violation["kind"]) == ("603.2h", CASES["603.2h"].moment, "clause")
    assert violation["about"] == CASES["603.2h"].about
    assert violation["summary"] and violation["values"]
    # Without --all: every clause broken at the first broken moment, and nothing later.
    assert {v["moment"] for v in bad["violations"]} == {CASES["603.2h"].moment}


def test_all_lists_every_violation(capsys, traces: Path):
    data = _trace_json("603.6d", False)
    data["states"].append(json.loads(json.dumps(data["states"][-1])))  # a third moment...
    data["states"][2]["#meta"]["index"] = 2
    data["states"][2]["turn"] = 9  # ...that breaks the game model's turn structure
    data["states"][1]["turn"] = 0  # and moment 1 breaks it too
    path = traces / "three.json"
    path.write_text(json.dumps(data))
    _, first, _ = _run(capsys, str(path), "--format", "json")
    _, every, _ = _run(capsys, str(path), "--format", "json", "--all")
    first_moments = {v["moment"] for v in json.loads(first)["traces"][0]["violations"]}
    every_moments = {v["moment"] for v in json.loads(every)["traces"][0]["violations"]}
    assert first_moments == {1}
    assert every_moments >= {1, 2}


def test_json_lines_stream_names_the_line(capsys, tmp_path: Path):
    stream = tmp_path / "engine.jsonl"
    lines = [json.dumps(_trace_json("603.3b", False)), "", json.dumps(_trace_json("603.3b", True))]
    stream.write_text("\n".join(lines) + "\n")
    code, out, _ = _run(capsys, str(stream), "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert [(t["file"], t["conforms"]) for t in report["traces"]] == [
        (f"{stream}:1", True),
        (f"{stream}:3", False),
    ]


def test_stdin_stream(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(_trace_json("603.6d", False)) + "\n"))
    code, out, _ = _run(capsys, "-")
    assert code == 0
    assert "<stdin>:1" in out and "conforms" in out


def test_junit_is_valid_xml_with_one_failure_per_broken_clause(capsys, traces: Path):
    code, out, _ = _run(capsys, str(traces), "--format", "junit")
    root = ET.fromstring(out)
    cases = root.findall(".//testcase")
    failures = root.findall(".//failure")
    assert code == 1
    assert len(cases) == len(CLEAN) + 1
    assert [f.get("type") for f in failures][0] == "603.2h"
    assert root.get("failures") == "1"


def test_table_lists_the_violation(capsys, traces: Path):
    code, out, _ = _run(capsys, str(traces / "sub"))
    assert code == 1
    assert "603.2h" in out and f"moment {CASES['603.2h'].moment}" in out
    assert "1 trace, 0 conform, 1 breaks a clause" in out


def test_parallel_workers_give_the_same_results(traces: Path):
    items = list(conformance.inputs([str(traces)]))
    serial = conformance.check_all(items, all_violations=True, jobs=1)
    parallel = conformance.check_all(items * 3, all_violations=True, jobs=2)
    assert [r.to_json() for r in parallel.results] == [r.to_json() for r in serial.results] * 3


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "bad.json: at /: not JSON"),
        ('{"#meta": {"edition": "current", "rule603": "rule603-trace/0"}}', "bad.json: at /#meta/rule603"),
        ('{"#meta": {"rule603": "rule603-trace/5"}}', "bad.json: at /#meta/edition: missing"),
    ],
)
def test_bad_trace_is_unreadable_and_exit_5(capsys, tmp_path: Path, content: str, expected: str):
    (tmp_path / "bad.json").write_text(content)
    (problem,) = _unreadable(capsys, str(tmp_path / "bad.json"))
    assert expected in problem
    code, out, err = _run(capsys, str(tmp_path / "bad.json"))
    assert (code, err) == (5, "") and "unreadable" in out and expected.split(": ", 1)[1] in out


def test_wrong_value_names_the_json_pointer(capsys, tmp_path: Path):
    data = _trace_json("603.6d", False)
    data["states"][1]["zone"][0] = "sideboard"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    (problem,) = _unreadable(capsys, str(tmp_path / "bad.json"))
    assert "bad.json: at /states/1/zone/0: expected one of" in problem


def test_bad_line_of_a_stream_names_file_and_line(capsys, tmp_path: Path):
    stream = tmp_path / "engine.jsonl"
    stream.write_text(json.dumps(_trace_json("603.6d", False)) + "\n{oops\n")
    (problem,) = _unreadable(capsys, str(stream))
    assert problem.startswith(f"{stream}:2: at /: not JSON")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["/no/such/file.json"], "/no/such/file.json: no such file or directory"),
        (["--edition", "1999", "X"], "--edition 1999: unknown edition"),
        (["--jobs", "-1", "X"], "--jobs -1: must be 0 (automatic) to 64"),
    ],
)
def test_usage_errors(capsys, tmp_path: Path, argv: list[str], expected: str):
    target = tmp_path / "x.json"
    target.write_text(json.dumps(_trace_json("603.6d", False)))
    argv = [str(target) if a == "X" else a for a in argv]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and expected in err


def test_output_is_never_overwritten_without_asking(capsys, tmp_path: Path, traces: Path):
    out = tmp_path / "report.xml"
    out.write_text("keep me")
    code, _, err = _run(capsys, str(traces), "--format", "junit", "--output", str(out))
    assert code == 2 and "already exists" in err and out.read_text() == "keep me"
    code, _, _ = _run(capsys, str(traces), "--format", "junit", "--output", str(out), "--overwrite")
    assert code == 1 and out.read_text().startswith("<?xml")


# --- the published example traces ---------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "traces"


def test_example_traces_are_current():
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate_examples", EXAMPLES / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, data in module.examples().items():
        committed = (EXAMPLES / name).read_text(encoding="utf-8")
        assert committed == module.render(data), f"{name} is stale: run python examples/traces/generate.py"


def test_example_traces_give_the_documented_verdicts(capsys):
    code, out, _ = _run(capsys, str(EXAMPLES), "--format", "json")
    verdicts = {Path(t["file"]).name: [v["clause"] for v in t["violations"]] for t in json.loads(out)["traces"]}
    assert code == 1
    assert verdicts["board-wipe.json"] == [] and verdicts["blood-artist-text.json"] == []
    assert verdicts["delayed-fires-twice.json"][0] == "603.7b"
    assert verdicts["apnap-reversed.json"][0] == "603.3b"


# --- bad inputs found in review: each an unreadable input, never a traceback ----------------------


def test_binary_file_is_unreadable(capsys, tmp_path: Path):
    (tmp_path / "x.json").write_bytes(b"\xff\xfe\x00garbage")
    (problem,) = _unreadable(capsys, str(tmp_path / "x.json"))
    assert problem == f"{tmp_path / 'x.json'}: at /: not UTF-8 text (invalid start byte at byte 0)"


def test_deeply_nested_json_is_unreadable(capsys, tmp_path: Path):
    (tmp_path / "x.json").write_text("[" * 100_000 + "]" * 100_000)
    (problem,) = _unreadable(capsys, str(tmp_path / "x.json"))
    assert problem.endswith(
        "x.json: at /: nested too deeply: arrays or objects more than 100 levels inside one another (line 1)"
    )


def test_huge_number_is_unreadable(capsys, tmp_path: Path):
    (tmp_path / "x.json").write_text("1" + "0" * 5000)  # Python 3.11 refuses to read it
    (problem,) = _unreadable(capsys, str(tmp_path / "x.json"))
    assert problem.endswith("x.json: at /: a number of 5001 digits; numbers here have a few digits at most (line 1)")


def test_empty_stream_names_the_file(capsys, tmp_path: Path):
    (tmp_path / "engine.jsonl").write_text("\n\n")
    (problem,) = _unreadable(capsys, str(tmp_path / "engine.jsonl"))
    assert problem.endswith("engine.jsonl: at /: holds no trace (a JSON Lines stream has one trace per line)")


@pytest.mark.parametrize("where", ["missing/report.json", "."])
def test_output_must_be_a_writable_file(capsys, tmp_path: Path, traces: Path, where: str):
    code, _, err = _run(capsys, str(traces), "--output", str(tmp_path / where), "--overwrite")
    assert code == 2 and "--output" in err and err.count("\n") == 1


def test_unknown_edition_named_by_the_trace(capsys, tmp_path: Path):
    data = _trace_json("603.6d", False)
    data["#meta"]["edition"] = "1999"
    (tmp_path / "x.json").write_text(json.dumps(data))
    (problem,) = _unreadable(capsys, str(tmp_path / "x.json"))
    assert "x.json: at /#meta/edition: unknown edition '1999'" in problem


def test_a_trace_object_is_validated_like_json():
    from rule603 import TraceChecker, TraceFormatError
    from rule603._internal.trace import Trace

    good = CASES["603.6d"].build(False).build()
    states = [dict(s) for s in good.states]
    states[1]["zone"] = states[1]["zone"][:-1]  # one card short
    with pytest.raises(TraceFormatError, match=r"at /states/1/zone: expected a list of 3 values"):
        TraceChecker("current").check(Trace(good.edition, good.universe, good.params, tuple(states)))


def test_a_phased_out_permanent_cannot_be_moved():
    """702.26b: treated as though it doesn't exist, it can't be destroyed (nor trigger leaving)."""
    from rule603 import trace_to_json
    from rule603.engines.reference import run
    from rule603.engines.scenario import Action, Card, Scenario
    from rule603.testing import check

    scenario = Scenario(
        cards=(Card(zone="battlefield", trigger="leaves_self", flags=("creature_card",)),),
        actions=(Action(phase_out=(0,)), Action()),
    )
    data = trace_to_json(run(scenario))
    assert check(data).conforms
    moved = data["states"][2]
    moved["zone"][0], moved["since"][0], moved["phased_out"][0] = "graveyard", 2, False
    assert [(v.moment, v.clause) for v in check(data).violations] == [(2, "702.26b")]
