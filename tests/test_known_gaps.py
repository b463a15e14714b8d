"""Known wrong answers: official rulings and rule texts the model does not follow yet.

Each file in ``fixtures/known-gaps`` is a scenario whose ``expect`` is the official answer (its source is in the
file) and which ``rule603 rule`` answers otherwise today; docs/model.md ("Known limits") lists them.  The tests are
strict expected failures: the day the model gets one right, its test fails and says so, and the file moves to
``scenarios/``.  They rule whole scenarios, so they run in the exhaustive suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule603.cli import main

GAPS = sorted((Path(__file__).parent / "fixtures" / "known-gaps").glob("*.toml"))

#: file stem -> why the model answers otherwise (none left: every finding of the reviews is fixed or stated as a
#: limit in docs/model.md; the reviews' texts stay beside them)
WHY: dict[str, str] = {}


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", GAPS, ids=lambda p: p.stem)
def test_a_known_gap_still_answers_otherwise_than_the_ruling(path: Path, capsys):
    code = main(["rule", str(path), "--format", "json"])
    err = capsys.readouterr().err
    if code == 0:
        pytest.fail(f"{path.name} is answered as the ruling says now: move it to scenarios/ ({WHY[path.stem]})")
    assert "the file expects" in err, err  # a wrong answer, not a file the tool refuses


def test_every_known_gap_says_why():
    assert {p.stem for p in GAPS} == set(WHY)
