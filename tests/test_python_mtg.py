"""python-mtg, an engine nobody here wrote, checked through its adapter (``rule603.engines.python_mtg``).

Skipped unless the optional extra is installed (``pip install '.[python-mtg]'``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mtg", reason="python-mtg is not installed: pip install '.[python-mtg]'")

from committed_reports import committed_text, require_current  # noqa: E402
from rule603 import TraceChecker  # noqa: E402
from rule603.engines import python_mtg  # noqa: E402
from rule603.models import game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: Seed 0 has simultaneous deaths (one instance for two, the APNAP order); in seed 4 Shock kills Clockwork Fox.
SEEDS = (0, 4)


@pytest.fixture(scope="module")
def games() -> list[python_mtg.GameTraces]:
    """Two short games, each played first in its own child process."""
    return [python_mtg.GameTraces.of(r) for r in python_mtg.play_games(SEEDS, jobs=2)]


@pytest.fixture(scope="module")
def checked(games):
    checker = TraceChecker("current", all_violations=True)
    return [
        (window, document, checker.check(document, window.name)) for g in games for window, document in g.documents()
    ]


def test_games_become_traces_that_load_and_obey_the_game_model(games, checked):
    assert {window.mode for window, _, _ in checked} == {"faithful", "normalised"}
    for window, document, result in checked:
        n = len(window.cards)
        assert n <= 6 and result.moments == window.length <= python_mtg.MAX_MOMENTS
        # The checker read the document with the format's checks; its universe is one the model can make.
        assert document["#meta"]["universe"] == dict(game.universe(card=n, slot=python_mtg.SLOTS).sizes)
        assert python_mtg.to_trace(document).length == window.length
        model = [f for f in result.violations if f.kind != "clause"]
        assert not model, f"{window.name}: the adapter breaks a game-model rule: {model[0]}"
    # Consecutive normalised windows share at most a quiet moment, and no batch with a trigger falls between them.
    for g in games:
        normalised = [w for w in g.windows if w.mode == "normalised"]
        for before, after in zip(normalised, normalised[1:], strict=False):
            assert after.steps[0].moment >= before.steps[-1].moment
        covered = {s.moment for w in normalised for s in w.steps}
        assert {i for i, m in enumerate(g.moments) if m.fired} <= covered


def test_triggers_from_the_library_are_found(checked):
    """python-mtg derives control from printed_control in every zone, so abilities trigger from the library."""
    from_library = [
        (window, f)
        for window, document, result in checked
        for f in result.violations
        if f.clause == "603.2g" and python_mtg.what_happened(document, f) == "from the library"
    ]
    assert from_library
    window, finding = from_library[0]
    assert finding.values[f"base_triggers({finding.moment}, {finding.about.split()[-1]})"] >= 1


def test_a_creature_killed_by_shock_dies_without_its_leaves_trigger(checked):
    """The driver moves a creature that a spell's damage kills straight to the graveyard: no trigger."""
    missed = [
        (document, f)
        for window, document, result in checked
        if window.seed == 4
        for f in result.violations
        if f.clause == "603.6c" and python_mtg.what_happened(document, f) == "missed"
    ]
    assert missed
    document, finding = missed[0]
    j, t = int(finding.about.split()[-1]), finding.moment
    assert document["#meta"]["cards"][j] == "Clockwork Fox"
    assert document["states"][t - 1]["zone"][j] == "battlefield" and document["states"][t]["zone"][j] == "graveyard"


def test_the_engine_never_puts_a_triggered_ability_on_the_stack(checked):
    faithful = [(w, r) for w, _, r in checked if w.mode == "faithful"]
    assert faithful
    for window, result in faithful:
        assert "603.3" in {f.clause for f in result.violations}, window.name


def test_a_game_replays_identically(games):
    """Same seed, same game: here seed 4 after seed 0 in one process, before in its own."""
    again = {r.seed: python_mtg.GameTraces.of(r) for r in python_mtg.play_games(SEEDS, jobs=1)}
    for g in games:
        assert again[g.record.seed].record == g.record
        assert [d for _, d in again[g.record.seed].documents()] == [d for _, d in g.documents()]


def test_every_clause_is_checked_or_said_not_to_be():
    edition = python_mtg.load_edition()
    encoded = {e.number for e in edition.encodings}
    assert set(python_mtg.CHECKED) | set(python_mtg.NOT_CHECKABLE) == encoded
    assert not set(python_mtg.CHECKED) & set(python_mtg.NOT_CHECKABLE)


def test_an_existing_report_is_not_overwritten(tmp_path, capsys):
    report = tmp_path / "python-mtg.md"
    report.write_text("keep me\n", encoding="utf-8")
    assert python_mtg.main(["report", "--output", str(report)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "exists; pass --overwrite" in err
    assert report.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.exhaustive
def test_the_committed_report_is_what_its_command_writes_while_it_is_current(tmp_path):
    """Regenerating the report gives exactly reports/python-mtg.md and its examples (the provenance stamp aside)."""
    require_current("python-mtg")
    command = [sys.executable, "-m", python_mtg.MODULE, "report", "--output", "reports/python-mtg.md"]
    command += ["--games", str(python_mtg.DEFAULT_GAMES), "--seed", str(python_mtg.DEFAULT_SEED)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    fresh, committed = tmp_path / "reports", ROOT / "reports"
    assert (fresh / "python-mtg.md").read_text(encoding="utf-8") == committed_text("reports/python-mtg.md")
    names = sorted(p.name for p in (fresh / "python-mtg").glob("*.json"))
    assert names == sorted(p.name for p in (committed / "python-mtg").glob("*.json"))
    for name in names:
        assert (fresh / "python-mtg" / name).read_text(encoding="utf-8") == committed_text(
            f"reports/python-mtg/{name}"
        ), name
