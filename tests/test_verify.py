"""Verdicts: holds, violated with a re-checked minimal counterexample, unknown; adequacy."""

from __future__ import annotations

import pytest
from limits import TEST_TIMEOUT_MS
from rule603 import prop
from rule603._internal import smt
from rule603._internal.bmc import Encoding, claim_fails_at, violations
from rule603._internal.verify import HOLDS, UNKNOWN, VIOLATED, Options, Verifier
from rule603.models import game as m


@prop("dies-at-most-once-per-batch", clauses=["603.2c"])
def too_strong(g, t):
    """Wrong on purpose: a 'dies' ability triggers once per creature (and instance), so twice for two."""
    return g.And(
        *[
            g.Implies(g.kind(c) == m.CREATURE_DIES, g.triggers(t, c) <= (g.instances(t - 1, c) if t else 1))
            for c in m.cards(g)
        ]
    )


@prop("upkeep-only-in-upkeep", clauses=["603.2b", "603.4"])
def names_an_unneeded_clause(g, t):
    """Holds, but 603.4 plays no part in it: adequacy must say so."""
    return g.And(
        *[
            g.Implies(g.And(g.kind(c) == m.YOUR_UPKEEP, g.step(t) != m.UPKEEP), g.triggers(t, c) == 0)
            for c in m.cards(g)
        ]
    )


@pytest.fixture(scope="module")
def too_strong_result(verifier):
    return verifier.check(too_strong)


def test_a_false_claim_gets_a_shortest_rechecked_counterexample(verifier, edition, too_strong_result):
    result = too_strong_result
    assert result.verdict == VIOLATED
    trace = result.trace
    assert trace.length == 2  # a death needs a moment before and after: nothing shorter exists
    assert result.violated_at == 1
    assert violations(edition, trace, verifier.all_clauses) == []
    assert claim_fails_at(edition, trace, too_strong, verifier.all_clauses) == [1]


def test_counterexamples_are_minimised(verifier, edition, too_strong_result):
    trace = too_strong_result.trace
    objects = verifier._measure(trace, verifier.all_clauses, trace.length, 0)
    assert objects == 2  # two creatures die; any third card would be noise


def test_a_true_claim_holds_to_the_bound(verifier, catalogue):
    by_id = {p.id: p for p in catalogue}
    result = verifier.check(by_id["dies-once-per-creature"])
    assert (result.verdict, result.bound, result.trace) == (HOLDS, 6, None)


def test_dropping_a_clause_a_property_needs_breaks_it(verifier, catalogue):
    by_id = {p.id: p for p in catalogue}
    report = verifier.drops(by_id["dies-once-per-creature"])
    assert report.confirmed
    assert [d.clause for d in report.drops] == list(by_id["dies-once-per-creature"].clauses)


def test_adequacy_flags_a_clause_the_property_does_not_need(verifier):
    report = verifier.drops(names_an_unneeded_clause)
    verdicts = {d.clause: d.verdict for d in report.drops}
    assert verdicts == {"603.2b": VIOLATED, "603.4": HOLDS}
    assert not report.confirmed


def test_a_violated_property_is_violated_without_its_clause_too(verifier):
    """Dropping 603.2c (one trigger per occurrence) changes nothing for an already-false claim."""
    assert verifier.drops(too_strong).drops[0].verdict == VIOLATED


def test_every_clause_has_a_witness(verifier, edition):
    assert {enc.number: verifier.non_vacuous(enc.number) for enc in edition.encodings[:6]} == {
        enc.number: "yes" for enc in edition.encodings[:6]
    }


def test_a_resource_limit_gives_unknown_never_holds(edition, catalogue):
    starved = Verifier(
        edition, edition.model.universe(), Options(bound=6, limits=smt.SolverLimits(timeout_ms=60_000, rlimit=1))
    )
    result = starved.check(catalogue[0])
    assert result.verdict == UNKNOWN
    assert result.reason


def test_verdicts_are_reproducible(edition):
    runs = []
    for _ in range(2):
        v = Verifier(edition, edition.model.universe(), Options(bound=4))
        r = v.check(too_strong)
        runs.append((r.verdict, r.violated_at, r.trace.states, dict(r.trace.params)))
    assert runs[0] == runs[1]


def test_after_a_check_cut_short_the_solver_still_holds_every_constraint(edition):
    # z3 does not vouch for an incremental solver's answers after a cancelled check, so the audit's solvers
    # start again from their constraints: they must all be there, and the next answers right.
    enc = Encoding(edition, edition.model.universe(), smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS), restartable=True)
    enc.extend(3)
    g, clauses = enc.g, [e.number for e in edition.encodings]
    cut_short = enc.solver._solver
    assert enc.check_with(3, clauses, [], rlimit=1) == smt.Verdict.UNKNOWN
    assert enc.solver._solver is not cut_short  # started again
    crowded = enc.solver.fresh_literal("crowded")
    enc.solver.add(g.Implies(crowded, g.stack_size(2) > 7))  # more than the model's stack holds
    assert enc.check_with(3, clauses, [crowded]) == smt.Verdict.UNSAT
    assert enc.check_with(3, clauses, []) == smt.Verdict.SAT
    assert violations(edition, enc.extract(3), clauses) == []


def test_the_counterexample_verify_shows_does_not_depend_on_the_machines_speed(monkeypatch, capsys):
    """Issue 39: on a loaded machine docs/verify.md's example showed a larger counterexample, because each probe
    that shrinks it had a wall clock.  ``rule603 verify`` gives each probe z3's resource limit instead: on a machine
    where every probe with a wall clock runs out of time, the counterexample is the same."""
    import json

    from rule603._internal.bmc import Encoding
    from rule603.cli import main

    argv = ["verify", "--property-file", "examples/my_props.py", "--no-builtin", "--bound", "3", "--format", "json"]
    argv += ["--property", "dies-never-triggers-twice-per-creature", "--jobs", "1"]  # its false claim
    assert main(argv) == 1
    quiet = json.loads(capsys.readouterr().out)
    check_with = Encoding.check_with

    def loaded(self, depth, enabled, literals, timeout_ms=None, rlimit=None):
        if timeout_ms is not None and timeout_ms <= 5_000:  # a probe's wall clock: out of time on a slow machine
            return smt.Verdict.UNKNOWN
        return check_with(self, depth, enabled, literals, timeout_ms, rlimit)

    monkeypatch.setattr(Encoding, "check_with", loaded)
    assert main(argv) == 1
    slow = json.loads(capsys.readouterr().out)
    assert [p.get("counterexample") for p in slow["properties"]] == [
        p.get("counterexample") for p in quiet["properties"]
    ]
    assert any(p.get("counterexample") for p in quiet["properties"])
