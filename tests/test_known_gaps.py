"""Known wrong answers: official rulings and rule texts the model does not follow yet.

Each file in ``fixtures/known-gaps`` is a scenario whose ``expect`` is the official answer (its source is in the
file) and which ``rule603 rule`` answers otherwise today; docs/model.md ("Known limits") lists them.  The tests are
strict expected failures: the day the model gets one right, its test fails and says so, and the file moves to
``scenarios/``.  They rule whole scenarios, so they run in the exhaustive suite.

``fixtures/known-gaps/conditions`` holds cards written as printed (``oracle``) with an official ruling's answer, whose
trigger condition the game model cannot play yet; none today (every example of issue 22 is played: "another", "you
control", "token", "dies" of one object, a subtype, "a land becomes tapped", "a player casts a spell" and "one or
more creatures deal combat damage to a player", and those cards are in scenarios/): the
scenario file reader refuses each in one line naming the condition.  Written with the model's nearest trigger kind
instead, each plays, and is answered otherwise than the ruling: that is the approximation issue 22 is about.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rule603.cli import main

KNOWN_GAPS = Path(__file__).parent / "fixtures" / "known-gaps"
GAPS = sorted(KNOWN_GAPS.glob("*.toml"))
CONDITION_GAPS = sorted((KNOWN_GAPS / "conditions").glob("*.toml"))

#: file stem -> why the model answers otherwise (every finding of the reviews is fixed or stated as a limit in
#: docs/model.md; the reviews' texts stay beside them)
WHY: dict[str, str] = {}  # none today: Gustha's Scepter's 'when you lose control' moved to scenarios/

#: file stem -> the model's trigger kind nearest to the card's condition (the refusal names the kinds with the same
#: event), played in its place; "none" where the model has no kind with that event
NEAREST: dict[str, str] = {}


NONE_TODAY = pytest.param(None, marks=pytest.mark.skip(reason="no known wrong answer today (WHY is empty)"), id="none")
NO_CONDITION_TODAY = pytest.param(
    None, marks=pytest.mark.skip(reason="no condition the model cannot play today (NEAREST is empty)"), id="none"
)


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in GAPS] or [NONE_TODAY])
def test_a_known_gap_still_answers_otherwise_than_the_ruling(path: Path, capsys):
    code = main(["rule", str(path), "--format", "json"])
    err = capsys.readouterr().err
    if code == 0:
        pytest.fail(f"{path.name} is answered as the ruling says now: move it to scenarios/ ({WHY[path.stem]})")
    assert "the file expects" in err, err  # a wrong answer, not a file the tool refuses


def test_every_known_gap_says_why():
    assert {p.stem for p in GAPS} == set(WHY)


def test_every_condition_gap_names_its_nearest_kind():
    assert {p.stem for p in CONDITION_GAPS} == set(NEAREST)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in CONDITION_GAPS] or [NO_CONDITION_TODAY])
def test_a_condition_the_model_cannot_play_yet_is_refused_naming_it(path: Path, capsys):
    code = main(["rule", str(path), "--format", "json"])
    err = capsys.readouterr().err
    refused = code == 2 and ("cannot play this condition yet" in err or "is not in the game model yet" in err)
    if not refused:
        pytest.fail(
            f"{path.name}: its condition is played now (exit {code}): check its answers against the ruling, and move "
            f"it to scenarios/ ({err.strip()[:300]})"
        )
    assert err.count("\n") == 1 and "not understood" not in err, err  # read in full: only the model lacks it


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in CONDITION_GAPS] or [NO_CONDITION_TODAY])
def test_with_the_nearest_kind_instead_the_model_answers_otherwise(path: Path, tmp_path: Path, capsys):
    """The script plays (no mistake in the file hides behind the refusal), and the approximation is wrong."""
    nearest = NEAREST[path.stem]
    text = re.sub(r"^oracle = .*$", f'trigger = "{nearest}"', path.read_text(encoding="utf-8"), flags=re.M)
    approximated = tmp_path / path.name
    approximated.write_text(text, encoding="utf-8")
    code = main(["rule", str(approximated), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 1 and "the file expects" in err, f"{path.name} with {nearest}: exit {code}: {err}"
