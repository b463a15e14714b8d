"""Rulings kept across runs (``rulings``): a second ``rule603 rule`` on an unchanged scenario makes no solver call and
says the same; a kept game is checked again before it is shown; a changed file, ``--no-cache`` and a ruling the
solver did not wholly decide are ruled again."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest
from rule603._internal import smt
from rule603._internal.ruling import Answer, Ruling, decided, rule_scenario_file
from rule603._internal.rulingcache import RulingStore, rule_scenario_file_kept
from rule603.cli import main
from rule603.engines.scenario_file import FIXED_BY_SCRIPT, load

SCENARIOS = Path(__file__).parent.parent / "scenarios"
#: one forced answer, one that depends on the player's choice (a game for each value), and a controller
APNAP = "603.3b-apnap.toml"


@pytest.fixture
def keeping(tmp_path, monkeypatch):
    monkeypatch.setenv("RULE603_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULE603_VERDICTS")
    scenario = tmp_path / APNAP
    shutil.copy(SCENARIOS / APNAP, scenario)
    return scenario


def _rule(capsys, scenario: Path, *argv: str) -> tuple[int, str, int]:
    with smt.solver_time() as solver:
        code = main(["rule", str(scenario), "--format", "json", *argv])
    return code, capsys.readouterr().out, solver.checks


def _entries(scenario: Path) -> list[Path]:
    return sorted((scenario.parent / "cache" / "rulings").rglob("*.entry"))


def test_a_second_ruling_of_an_unchanged_scenario_makes_no_solver_call(keeping, capsys):
    code, first, checks = _rule(capsys, keeping)
    assert code == 0 and checks > 0
    assert [q["answer"] for q in json.loads(first)["questions"]][:2] == ["always", "depends"]
    again, second, checks = _rule(capsys, keeping)
    assert (again, second, checks) == (code, first, 0)
    md = main(["rule", str(keeping)])
    assert md == 0 and "depends on choices: no, yes" in capsys.readouterr().out  # the kept games, named
    _, third, checks = _rule(capsys, keeping, "--no-cache")
    assert checks > 0 and third == first
    keeping.write_text(keeping.read_text() + "\n# another text is another scenario\n")
    _, fourth, checks = _rule(capsys, keeping)
    assert checks > 0 and fourth == first


def _tamper(entry: Path, change) -> None:
    kept = json.loads(zlib.decompress(entry.read_bytes()))
    game = next(a for a in kept["answers"] if a["answer"] == "depends")["games"][0]
    change(game["states"][1])
    entry.write_bytes(zlib.compress(json.dumps(kept).encode()))


def test_a_kept_game_that_no_longer_plays_the_script_or_obeys_the_clauses_is_ruled_again(keeping, capsys, edition):
    _, first, _ = _rule(capsys, keeping)
    (entry,) = _entries(keeping)
    kept = RulingStore.open(edition, keeping.read_bytes(), smt.SolverLimits(timeout_ms=60_000))
    played = rule_scenario_file_kept(load(keeping), smt.SolverLimits(timeout_ms=60_000))[0]
    assert kept is not None and kept.load(played, FIXED_BY_SCRIPT) is not None
    # A rule variable: nothing triggers when the three creatures enter (603.2 is broken), the script still played.
    _tamper(entry, lambda moment: moment.update(triggers=[0] * len(moment["triggers"])))
    assert kept.load(played, FIXED_BY_SCRIPT) is None
    _, second, checks = _rule(capsys, keeping)
    assert checks > 0 and second == first
    # The environment: an intervening "if" condition none of these abilities has is false now; a compliant game, but
    # of another script.
    _tamper(entry, lambda moment: moment.update(cond=[False] * len(moment["cond"])))
    assert kept.load(played, FIXED_BY_SCRIPT) is None
    _, third, checks = _rule(capsys, keeping)
    assert checks > 0 and third == first
    entry.write_bytes(b"not an entry")
    _, fourth, checks = _rule(capsys, keeping)
    assert checks > 0 and fourth == first


def test_a_ruling_with_anything_unknown_is_never_kept(keeping, edition):
    store = RulingStore.open(edition, b"a scenario", smt.SolverLimits(timeout_ms=1000))
    assert store is not None
    unknown = Ruling(True, [Answer("q", "Does it?", "unknown", [])])
    outside_unknown = Ruling(True, [Answer("q", "Does it?", "always", [True])], unknown_checks=1)
    conflict_unnamed = Ruling(False, [], [], "the solver could not name the clauses", unknown_checks=1)
    a_trial_unknown = Ruling(True, [Answer("q", "Does it?", "always", [True], ["603.2"])], unknown_checks=1)
    for ruling in (unknown, outside_unknown, conflict_unnamed, a_trial_unknown):
        assert not decided(ruling)
        store.keep(ruling)
    assert not list((keeping.parent / "cache").rglob("*.entry"))
    store.keep(Ruling(True, [Answer("q", "Does it?", "always", [True], ["603.2"], needed=["603.2"])]))
    assert len(list((keeping.parent / "cache").rglob("*.entry"))) == 1


def test_a_kept_ruling_keeps_every_field_and_only_when_asked(keeping, capsys, edition, monkeypatch):
    _, first, _ = _rule(capsys, keeping)
    store = RulingStore.open(edition, keeping.read_bytes(), smt.SolverLimits(timeout_ms=60_000))
    played = rule_scenario_file_kept(load(keeping), smt.SolverLimits(timeout_ms=60_000))[0]
    kept = store.load(played, FIXED_BY_SCRIPT)
    fresh = rule_scenario_file(load(keeping), smt.SolverLimits(timeout_ms=60_000))[2]
    assert kept == fresh  # every field of the ruling and of each answer, the games included
    assert main(["cache"]) == 0 and "and 1 rulings" in capsys.readouterr().out
    monkeypatch.setenv("RULE603_VERDICTS", "off")
    for _ in range(2):
        _, again, checks = _rule(capsys, keeping)
        assert checks > 0 and again == first
