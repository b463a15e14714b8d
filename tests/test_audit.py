"""`rule603 audit`: vacuous and redundant clauses are found, and only they."""

from __future__ import annotations

import dataclasses
import json

from rule603 import Rule
from rule603._internal import smt
from rule603._internal.audit import audit
from rule603._internal.verify import Options, Verifier
from rule603.cli import main
from test_clauses import ED

OPTIONS = Options(bound=4, limits=smt.SolverLimits(timeout_ms=60_000))


def _with(number: str, fn) -> object:
    """The current edition with clause ``number`` encoded by ``fn`` instead."""
    encodings = tuple(dataclasses.replace(e, fn=fn) if e.number == number else e for e in ED.encodings)
    return dataclasses.replace(ED, encodings=encodings)


def _findings(edition) -> set[tuple[str, tuple[str, ...]]]:
    report = audit(Verifier(edition, edition.model.universe(), OPTIONS))
    assert report.unknown == []
    return {(f.kind, f.clauses) for f in report.findings}


def test_the_current_edition_has_no_vacuous_or_redundant_clause_at_a_small_bound():
    assert _findings(ED) == set()


def test_a_clause_that_says_what_another_says_is_redundant_and_so_is_the_other():
    twice = _with("603.2h", ED.by_number["603.2c"].fn)  # 603.2h encoded as a second copy of 603.2c
    assert {("redundancy", ("603.2h",)), ("redundancy", ("603.2c",))} <= _findings(twice)


def test_a_clause_that_never_applies_is_vacuous():
    def never(g, t):
        yield Rule(False, False, "nothing")

    found = _findings(_with("603.9", never))
    assert ("vacuity", ("603.9",)) in found
    assert ("redundancy", ("603.9",)) in found  # what never applies can't be broken either


def test_the_command_line_prints_findings_as_json(capsys):
    code = main(["audit", "--bound", "4", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (report["edition"], report["bound"], report["findings"]) == ("current", 4, [])
    assert report["checked"] == ["vacuity", "redundancy"] and report["not_checked"] == ["contradiction", "ambiguity"]
    assert {"specific": "603.8", "general": "603.2"} in report["precedence"]


def test_an_unknown_edition_is_one_line(capsys):
    assert main(["audit", "--edition", "1999"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--edition 1999" in err


def test_too_small_a_bound_shows_as_vacuity_not_as_silence():
    # 603.7h needs an ability to resolve twice in a turn: three moments are too few for that.
    report = audit(Verifier(ED, ED.model.universe(), dataclasses.replace(OPTIONS, bound=3)))
    assert ("vacuity", ("603.7h",)) in {(f.kind, f.clauses) for f in report.findings}
