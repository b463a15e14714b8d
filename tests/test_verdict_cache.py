"""Verdicts kept across runs (``verdicts``): a second ``rule603 verify`` with nothing changed makes no solver call
and says the same, a kept counterexample is checked again before it is shown, and what was not decided, or not
computed from rule603's own code, is never kept."""

from __future__ import annotations

import json
import textwrap
import zlib

import pytest
from rule603._internal import smt
from rule603.cli import main
from test_cli import VIOLATED_FILE

#: in the 2004 edition, one property is violated (the non-active player's abilities need not go on top) and one
#: holds, at a bound small enough for a test
SMALL = ["--bound", "2", "--cards", "2", "--slots", "2", "--jobs", "1"]
ARGS = ["verify", "--edition", "2004", *SMALL, "--format", "json"]
PROPS = ["--property", "apnap-nonactive-resolves-first", "--property", "upkeep-trigger-each-upkeep"]


@pytest.fixture
def keeping(tmp_path, monkeypatch):
    monkeypatch.setenv("RULE603_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RULE603_VERDICTS")
    return tmp_path


def _verify(capsys, *argv: str) -> tuple[int, dict, int]:
    with smt.solver_time() as solver:
        code = main([*ARGS, *argv])
    return code, json.loads(capsys.readouterr().out), solver.checks


def _answers(out: dict) -> list[dict]:
    return [{k: v for k, v in p.items() if k not in ("seconds", "cached")} for p in out["properties"]]


def test_a_second_run_with_nothing_changed_makes_no_solver_call(keeping, capsys):
    code, first, checks = _verify(capsys, *PROPS)
    assert code == 1 and checks > 0
    assert [p["verdict"] for p in first["properties"]] == ["holds", "violated"]  # in the catalogue's order
    again, second, checks = _verify(capsys, *PROPS)
    assert again == code and checks == 0
    assert _answers(second) == _answers(first) and second["cut_off"] == first["cut_off"]
    assert [p["cached"] for p in second["properties"]] == [True, True]
    _, third, checks = _verify(capsys, *PROPS, "--no-cache")
    assert checks > 0 and not any(p["cached"] for p in third["properties"])
    _, fourth, checks = _verify(capsys, *PROPS, "--seed", "7")  # another seed may give another counterexample
    assert checks > 0 and not any(p["cached"] for p in fourth["properties"])


def test_a_kept_counterexample_is_checked_again_before_it_is_shown(keeping, capsys):
    _, first, _ = _verify(capsys, *PROPS[:2])
    assert first["properties"][0]["verdict"] == "violated"
    (entry,) = [f for f in (keeping / "verdicts").rglob("*.entry") if b'"violated"' in zlib.decompress(f.read_bytes())]
    kept = json.loads(zlib.decompress(entry.read_bytes()))
    kept["violated_at"] = 0  # the claim holds at moment 0: the kept answer no longer stands
    entry.write_bytes(zlib.compress(json.dumps(kept).encode()))
    _, second, checks = _verify(capsys, *PROPS[:2])
    assert checks > 0 and not second["properties"][0]["cached"]
    assert _answers(second) == _answers(first)
    entry.write_bytes(b"not an entry")
    _, third, checks = _verify(capsys, *PROPS[:2])
    assert _answers(third) == _answers(first)


def test_a_users_property_and_an_unknown_verdict_are_never_kept(keeping, capsys, tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text(textwrap.dedent(VIOLATED_FILE))
    for _ in range(2):
        with smt.solver_time() as solver:
            main(["verify", "--property-file", str(mine), "--no-builtin", *SMALL])
        capsys.readouterr()
        assert solver.checks > 0
    for _ in range(2):
        code, out, checks = _verify(capsys, *PROPS[2:], "--rlimit", "1")
        assert code == 3 and checks > 0 and out["properties"][0]["verdict"] == "unknown"


@pytest.mark.exhaustive  # two diffs of two editions: a minute of the default suite's five
def test_a_diff_keeps_each_editions_verdicts_and_reads_the_same_with_them(keeping, capsys):
    """The catalogue's verdicts of an edition are its own, whichever edition it is compared with: a second diff
    takes them kept, and its report (the behaviour witnesses too, searched on fresh encodings) is the same."""
    argv = ["diff", "2024-06", "current", "--bound", "2", "--format", "json"]
    reports = []
    for _ in range(2):
        with smt.solver_time() as solver:
            assert main(argv) == 0
        reports.append((json.loads(capsys.readouterr().out), solver.checks))
    (first, cold), (second, warm) = reports
    assert second == first
    catalogue = 2 * 48  # each property on each edition (none is "not applicable" in these two editions)
    assert cold - warm >= catalogue
