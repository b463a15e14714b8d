"""CaDiCaL proves what holds, z3 finds every counterexample (``--sat``, ``verifier/_internal/sat.py``).

The two ways must give the same verdicts, and a violated property the same counterexample as z3 alone in a fresh
encoding; CaDiCaL stopped by its budget is an unknown, never a verdict.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from limits import TEST_TIMEOUT_MS
from rule603._internal import sat, smt
from rule603._internal.catalogue import builtin_properties, load_edition
from rule603._internal.loader import load_property_file
from rule603._internal.verify import HOLDS, UNKNOWN, VIOLATED, Options, Verifier
from test_workers import MY_PROPS

OPTIONS = Options(bound=3, limits=smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS))


@pytest.fixture(scope="module")
def current():
    return load_edition("current")


def _check_all(edition, props, options):
    verifier = Verifier(edition, edition.model.universe(), options)
    return verifier, verifier.check_all(props)


def test_cadical_and_z3_give_the_same_verdicts_on_the_catalogue_and_the_same_counterexample(current):
    # A twelfth of the catalogue, spread over it, keeps the default suite short; the exhaustive test below has all.
    props = builtin_properties()[::12] + load_property_file(MY_PROPS)
    proving, by_cadical = _check_all(current, props, OPTIONS)
    _, by_z3 = _check_all(current, props, dataclasses.replace(OPTIONS, sat="z3"))
    assert [r.verdict for r in by_cadical] == [r.verdict for r in by_z3]
    held = [r.property for r in by_cadical if r.verdict == HOLDS]
    assert len(held) == len(props) - 1 and all(proving.by_cadical(p) for p in held)  # CaDiCaL proved them
    wrong = props[-1]  # the example file's third property, wrong on purpose
    assert by_cadical[-1].verdict == VIOLATED
    alone = Verifier(current, current.model.universe(), OPTIONS).check(wrong)  # z3 alone, a fresh encoding
    assert (by_cadical[-1].trace, by_cadical[-1].violated_at) == (alone.trace, alone.violated_at)


def test_goals_added_after_z3_drew_its_sample_game_are_proved_too(current):
    verifier = Verifier(current, current.model.universe(), OPTIONS)
    props = builtin_properties()[:3]
    assert verifier.check(props[0]).verdict == HOLDS  # z3 alone: the claim guard draws its sample game first
    assert [r.verdict for r in verifier.check_all(props)] == [HOLDS] * 3
    assert all(verifier.by_cadical(p) for p in props)


def test_with_a_resource_limit_z3_alone_decides(current):
    limited = dataclasses.replace(OPTIONS, limits=dataclasses.replace(OPTIONS.limits, rlimit=10**9))
    verifier, results = _check_all(current, builtin_properties()[:2], limited)
    assert [r.verdict for r in results] == [HOLDS, HOLDS]
    assert not any(verifier.by_cadical(r.property) for r in results)


def test_with_a_resource_limit_and_a_conflict_budget_cadical_proves_and_its_budget_decides_what_is_unknown(current):
    # z3's rlimit and CaDiCaL's conflicts are both counts: a run under both proves the same on every machine.
    def limited(conflicts: int) -> Options:
        return dataclasses.replace(
            OPTIONS, limits=dataclasses.replace(OPTIONS.limits, rlimit=10**9, conflicts=conflicts)
        )

    props = builtin_properties()[:2]
    verifier, results = _check_all(current, props, limited(2_000_000))
    assert [r.verdict for r in results] == [HOLDS, HOLDS]
    assert all(verifier.by_cadical(p) for p in props)
    _, starved = _check_all(current, props, limited(1))  # not a single conflict's worth: no proof
    assert [r.verdict for r in starved] == [UNKNOWN, UNKNOWN] and all("CaDiCaL" in r.reason for r in starved)


def _pigeonhole(pigeons: int) -> str:
    """``pigeons`` pigeons in one hole fewer, in DIMACS: unsatisfiable, and hard for resolution."""
    holes = pigeons - 1

    def var(p: int, h: int) -> int:
        return p * holes + h + 1

    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    for h in range(holes):
        for p, q in itertools.combinations(range(pigeons), 2):
            clauses.append([-var(p, h), -var(q, h)])
    goal = pigeons * holes + 1  # a named literal that the clauses do not mention
    lines = [f"p cnf {goal} {len(clauses)}", *(" ".join(map(str, c)) + " 0" for c in clauses), f"c {goal} goal"]
    return "\n".join(lines) + "\n"


def test_cadical_proves_unsatisfiable_and_its_budget_is_undecided():
    assert sat.CnfSolver(_pigeonhole(5), []).unsatisfiable("goal", TEST_TIMEOUT_MS)
    hard = sat.CnfSolver(_pigeonhole(11), [])
    with pytest.raises(sat.Undecided):
        hard.unsatisfiable("goal", TEST_TIMEOUT_MS, conflicts=100)


def test_a_satisfiable_goal_is_not_a_proof():
    text = "p cnf 2 1\n1 2 0\nc 1 x\nc 2 y\n"
    solver = sat.CnfSolver(text, ["x"])
    assert solver.knows("y") and not solver.knows("z")
    assert not solver.unsatisfiable("y", TEST_TIMEOUT_MS)
    assert sat.CnfSolver("p cnf 2 2\n-1 -2 0\nc 1 x\nc 2 y\n", ["x"]).unsatisfiable("y", TEST_TIMEOUT_MS)


def test_cadical_stopped_is_unknown(current, monkeypatch):
    def stopped(*_args, **_kwargs):
        raise sat.Undecided("CaDiCaL stopped before an answer")

    monkeypatch.setattr(sat.CnfSolver, "unsatisfiable", stopped)
    _, results = _check_all(current, builtin_properties()[:1], OPTIONS)
    assert results[0].verdict == UNKNOWN and "CaDiCaL" in results[0].reason


@pytest.mark.exhaustive
def test_on_the_whole_catalogue_cadical_and_z3_give_the_same_verdicts(current):
    # Bound 6, not the default 8: z3 alone takes five times as long at 8, and the suite has 30 minutes.
    from rule603._internal.workers import Workers

    options = Options(bound=6, limits=smt.SolverLimits(timeout_ms=600_000))
    props = builtin_properties()
    verdicts = {}
    for solver in ("cadical", "z3"):
        with Workers(
            current,
            current.model.universe(),
            dataclasses.replace(options, sat=solver),
            builtin_properties,
            2,
            lambda _: None,
        ) as workers:
            verdicts[solver] = [r.verdict for r in workers.check_all(props)]
    assert verdicts["cadical"] == verdicts["z3"] == [HOLDS] * len(props)


def _pigeons_under(guard: int, pigeons: int) -> list[str]:
    """Clauses putting ``pigeons`` pigeons into one hole fewer, each clause switched on by variable ``guard``:
    unsatisfiable with the guard true, and not in a handful of conflicts."""
    holes = pigeons - 1
    var = {(p, h): 1 + guard + p * holes + h for p in range(pigeons) for h in range(holes)}
    lines = [" ".join(str(var[p, h]) for h in range(holes)) + f" -{guard} 0" for p in range(pigeons)]
    for h in range(holes):
        for p, q in itertools.combinations(range(pigeons), 2):
            lines.append(f"-{var[p, h]} -{var[q, h]} -{guard} 0")
    return lines


def test_cadical_proves_only_what_it_knows_and_finishes_within_the_budget():
    dimacs = "\n".join(["p cnf 60 0", "c 1 never", "c 2 free", "c 3 crowded", "-1 0", *_pigeons_under(3, 7)])
    cnf = sat.CnfSolver(dimacs, [])
    assert cnf.proves("never", TEST_TIMEOUT_MS)
    assert not cnf.proves("free", TEST_TIMEOUT_MS)  # satisfiable
    assert not cnf.proves("eliminated", TEST_TIMEOUT_MS)  # a name z3 folded away: z3 is asked
    assert not cnf.proves(["never", "eliminated"], TEST_TIMEOUT_MS)
    with pytest.raises(sat.Undecided):
        cnf.unsatisfiable("crowded", TEST_TIMEOUT_MS, conflicts=1)
    assert not cnf.proves("crowded", TEST_TIMEOUT_MS, conflicts=1)  # stopped: not proved
    assert cnf.proves("crowded", TEST_TIMEOUT_MS)
