"""`rule603 diff`: text changes word by word, and behaviour witnesses that the concrete checker confirms."""

from __future__ import annotations

import dataclasses
import json

import pytest
from limits import TEST_TIMEOUT_MS
from rule603._internal import smt
from rule603._internal.bmc import violations
from rule603._internal.diff import compare, text_rows, word_changes
from rule603._internal.schema import ENV
from rule603._internal.verify import Options
from rule603.cli import main
from test_clauses import ED

OPTIONS = Options(bound=3, limits=smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_word_changes_keep_the_common_words_and_mark_the_rest():
    changes = word_changes("When this enters the battlefield, draw", "When this enters, draw")
    assert [(c.op, c.text) for c in changes] == [
        ("same", "When this"),
        ("removed", "enters the battlefield,"),
        ("added", "enters,"),
        ("same", "draw"),
    ]


def test_the_text_of_two_editions_is_aligned_and_compared_word_by_word():
    rows = {(r.a, r.b): r for r in text_rows("2024-06", "current")}
    reworded = rows["603.6a", "603.6a"]
    assert reworded.kind == "reworded"
    assert ("removed", "enters the battlefield,") in [(w.op, w.text) for w in reworded.words]
    assert rows["603.1", "603.1"].kind == "same"
    assert all(w.op == "same" for w in rows["603.1", "603.1"].words)


def test_translations_are_shown_side_by_side_not_diffed_word_by_word():
    rows = text_rows("battlefield-en", "battlefield-fr")
    assert rows and all(r.kind in ("translation", "new", "removed") for r in rows)
    assert all(r.words == () for r in rows if r.kind == "translation")


def _without(number: str):
    """The current edition with clause ``number`` demanding nothing: every game it allows, and more."""

    def nothing(g, t):
        return []

    encodings = tuple(dataclasses.replace(e, fn=nothing) if e.number == number else e for e in ED.encodings)
    return dataclasses.replace(ED, name=f"current-without-{number}", encodings=encodings)


@pytest.fixture(scope="module")
def weaker():
    """The current edition against itself with 603.3b (APNAP order) demanding nothing."""
    from unittest import mock

    from rule603._internal import diff as diff_module

    loose = _without("603.3b")
    # The tests below are about the behaviour search; the verdicts of two properties stand for the catalogue's.
    some = [p for p in diff_module.builtin_properties() if p.id in KEPT_BY_THE_SMALL_LIMIT_TEST[:2]]
    with mock.patch.object(diff_module, "builtin_properties", lambda: some):
        return loose, compare(loose, ED, dataclasses.replace(OPTIONS, bound=2), ED.model.universe(), lambda _: None)


def test_a_clause_that_demands_nothing_is_the_only_clause_the_weaker_edition_breaks(weaker):
    loose, result = weaker
    broken = {(s.allowed, s.clause) for s in result.searches if s.result == "differs"}
    assert broken == {(loose.name, "603.3b")}  # and no game of the current edition breaks a clause of the looser one
    assert all(s.result != "unknown" for s in result.searches)


def test_each_witness_is_allowed_by_one_edition_and_breaks_the_named_clause_of_the_other(weaker):
    loose, result = weaker
    (w,) = result.witnesses
    assert violations(loose, w.trace, [e.number for e in loose.encodings]) == []
    assert {v.clause for v in violations(ED, w.trace, ["603.3b"], include_axioms=False)} == {"603.3b"}


def test_the_game_instead_plays_the_same_scenario_and_obeys_the_stricter_edition(weaker):
    _, result = weaker
    (w,) = result.witnesses
    assert w.instead is not None
    assert violations(ED, w.instead, [e.number for e in ED.encodings]) == []
    schema = ED.model.VARIABLES
    for spec in (s for s in schema if s.role == ENV):
        for key in w.trace.universe.indices(spec.dims):
            for t in range(w.trace.length) if spec.per_moment else [None]:
                index = (t, *key) if t is not None else key
                assert w.trace.value(spec.name, index, spec.per_moment) == w.instead.value(
                    spec.name, index, spec.per_moment
                )


def test_the_behaviour_the_stricter_edition_forbids_is_the_stack_order_and_603_3b_forbids_it(weaker):
    _, result = weaker
    (w,) = result.witnesses
    shown = {b.behaviour: b for b in w.behaviours}
    assert "stack order" in shown
    assert "603.3b" in shown["stack order"].clauses
    assert any(x != y for _, x, y in shown["stack order"].changes)


@pytest.mark.exhaustive  # slow (over 10 s); the README test command stays within five minutes
def test_editions_encoded_alike_have_no_behavioural_difference(capsys):
    code, out, err = run(capsys, "diff", "2024-06", "current", "--bound", "2", "--format", "json")
    report = json.loads(out)
    assert code == 0, err
    assert report["witnesses"] == [] and report["verdicts"] == []
    assert {s["result"] for s in report["searched"]} == {"same"}
    assert {(b["behaviour"], tuple(b["witnesses"])) for b in report["behaviours"]} == {
        (name, ()) for name in ED.model.BEHAVIOURS
    }
    changed = [r for r in report["text"] if r["kind"] == "reworded"]
    assert {r["a"] for r in changed} >= {"603.6a", "603.6d"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["diff", "current"], "name two editions"),
        (["diff", "2004", "nope"], "unknown edition"),
        (["diff", "current", "current"], "two different editions"),
        (["diff", "--consecutive"], "add --out DIR"),
        (["diff", "2004", "2008", "--format", "md,json"], "several formats need --out"),
        (["diff", "2004", "2008", "--format", "pdf"], "formats are md, html, json"),
        (["diff", "2004", "2008", "--bound", "0"], "--bound 0"),
        (["diff", "2004", "2008", "--rlimit", "-5"], "--rlimit -5"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


@pytest.mark.exhaustive  # slow (over 10 s); the README test command stays within five minutes
def test_reports_are_not_overwritten_unless_asked(capsys, tmp_path):
    target = tmp_path / "diff-2024-06-current.md"
    target.write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "diff", "2024-06", "current", "--bound", "1", "--out", str(tmp_path))
    assert code == 2 and "already exists" in err
    assert target.read_text(encoding="utf-8") == "mine"
    code, _, _ = run(capsys, "diff", "2024-06", "current", "--bound", "1", "--out", str(tmp_path), "--overwrite")
    assert code == 0 and target.read_text(encoding="utf-8").startswith("# rule603 diff: 2024-06 → current")


def test_with_too_small_a_resource_limit_every_verdict_is_unknown_and_none_is_the_same(capsys, tmp_path, monkeypatch):
    # z3's resource limit, not the wall clock, decides what a diff leaves unknown; two unknowns are not one verdict.
    # Four properties of the catalogue, not 47: each unknown is asked again of a fresh encoding, the cost of this test.
    from rule603._internal import diff as diff_module

    some = [p for p in diff_module.builtin_properties() if p.id in KEPT_BY_THE_SMALL_LIMIT_TEST]
    assert len(some) == len(KEPT_BY_THE_SMALL_LIMIT_TEST)
    monkeypatch.setattr(diff_module, "builtin_properties", lambda: some)
    code, _, err = run(capsys, "diff", "2004", "2008", "--bound", "1", "--rlimit", "1", "--out", str(tmp_path))
    assert code == 3, err
    text = (tmp_path / "diff-2004-2008.md").read_text(encoding="utf-8")
    assert "`rule603 diff 2004 2008 --bound 1 --rlimit 1`" in text and "up to 1 of z3's resource units" in text
    assert "0 properties of the catalogue have a different verdict and " in text
    assert "Every property of the catalogue has the same verdict" not in text
    assert "| dies-once-per-creature" in text and "never read as holds" in text
    assert "Not decided within the budget (counted as neither broken nor never broken): whether a game 20" in text


KEPT_BY_THE_SMALL_LIMIT_TEST = ("delayed-fires-once", "dies-once-per-creature", "apnap-nonactive-resolves-first")


def test_an_unknown_verdict_is_asked_again_of_a_fresh_encoding(monkeypatch):
    from types import SimpleNamespace

    from rule603._internal import diff as diff_module

    stuck = SimpleNamespace(
        check=lambda prop: SimpleNamespace(verdict="unknown"),
        edition=ED,
        encoding=SimpleNamespace(universe="the universe"),
        options=OPTIONS,
        progress=print,
    )
    made = []

    class Fresh:
        def __init__(self, *args):
            made.append(args)

        def check(self, prop):
            return SimpleNamespace(verdict="holds")

    monkeypatch.setattr(diff_module, "Verifier", Fresh)
    assert diff_module._verdict(stuck, "a property").verdict == "holds"
    assert made == [(ED, "the universe", OPTIONS, print)]


@pytest.mark.exhaustive  # about 14 s: every clause of two editions, both ways, by both solvers
def test_what_cadical_proves_no_game_breaks_z3_finds_no_game_breaking_either():
    # CaDiCaL only ever proves "no game breaks it" (``Verifier.unbroken``); each clause is asked of z3 as well, in an
    # encoding the proofs never touched.  Between battlefield-fr and 2024-06 some clauses are broken (603.3b, in
    # both directions) and others are not: both kinds of answer must occur, and never for the same clause.
    from rule603._internal.catalogue import load_edition
    from rule603._internal.verify import Verifier

    first, second = load_edition("battlefield-fr"), load_edition("2024-06")
    universe = first.model.universe()
    for allowing, refusing in ((first, second), (second, first)):
        numbers = [e.number for e in refusing.encodings]
        proved = Verifier(allowing, universe, OPTIONS).unbroken(refusing, numbers)
        z3_alone = Verifier(allowing, universe, dataclasses.replace(OPTIONS, sat="z3"))
        broken = {n for n in numbers if z3_alone.breaks(refusing, n)[0] == "yes"}
        assert proved and broken and not proved & broken, (allowing.name, proved & broken)
