"""Verdicts: holds to a bound, violated (with a re-checked, minimal counterexample), unknown.

The pipeline for one run is the list ``PIPELINE``: load the edition, encode it once,
check every property, then (optionally) the adequacy checks.  Every solver call has a
timeout; an ``unknown`` answer is reported as unknown with its reason, never as holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..errors import InvalidDefinition
from . import sat, smt, usercode
from .bmc import Encoding, claim_at, claim_fails_at, concrete_game, is_concrete_boolean, scenario_equalities, violations
from .bounds import CutOff, cut_offs
from .registry import Edition, Property
from .schema import Universe
from .trace import Trace

MINIMISE_TIMEOUT_MS = 5_000  # each probe while shrinking a counterexample (a safety net, rarely reached)
#: z3's resource units for each probe while shrinking a counterexample, as ``rule603 verify`` runs it: a wall clock
#: there gave a larger counterexample on a loaded machine than on a quiet one; a count gives the same on both.
MINIMISE_PROBE_RLIMIT = 25_000_000
MINIMISE_PROBES = 16  # probes for one counterexample: a count, so that the result does not depend on speed

T = TypeVar("T")

HOLDS = "holds"
VIOLATED = "violated"
UNKNOWN = "unknown"
NOT_APPLICABLE = "not applicable"  # in an older edition: a clause the property cites has no encoded counterpart


@dataclass(frozen=True)
class Options:
    bound: int = 8
    limits: smt.SolverLimits = smt.SolverLimits()
    minimise: bool = True
    claim_seconds: float = usercode.CLAIM_SECONDS  # each call of a claim (user code, apart from the solver)
    #: what decides a check of every clause at the bound: "cadical" (CaDiCaL proves, z3 finds counterexamples,
    #: ``sat.py``) or "z3" alone.  With an rlimit, CaDiCaL proves only under a conflict budget
    #: (``SolverLimits.conflicts``; without one, z3 alone): budgets, not the clock, make a run repeatable.
    sat: str = "cadical"


def proves_by_cadical(options: Options) -> bool:
    """Does CaDiCaL prove what holds under ``options``: asked for, and repeatable where the run must be (an
    rlimit, z3's, comes with a conflict budget, CaDiCaL's)?"""
    return options.sat == "cadical" and (not options.limits.rlimit or options.limits.conflicts > 0)


def cadical_budget(options: Options) -> int:
    """The conflicts each of CaDiCaL's proofs may take under ``options``; 0 where there is no budget or CaDiCaL
    proves nothing (what a report states next to z3's rlimit)."""
    return options.limits.conflicts if proves_by_cadical(options) else 0


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one property (CrossHair-style three-valued outcome)."""

    property: Property
    verdict: str
    bound: int
    seconds: float
    trace: Trace | None = None  # the counterexample, for VIOLATED
    violated_at: int | None = None
    reason: str = ""  # for UNKNOWN and NOT_APPLICABLE
    cached: bool = False  # kept from an earlier run with the same code and options (``verdicts``)


@dataclass(frozen=True)
class DropResult:
    clause: str
    verdict: str  # VIOLATED means: dropping the clause breaks the property, as claimed
    seconds: float


@dataclass(frozen=True)
class PropertyAdequacy:
    property: Property
    drops: tuple[DropResult, ...]

    @property
    def confirmed(self) -> bool:
        return all(d.verdict == VIOLATED for d in self.drops)


@dataclass(frozen=True)
class ClauseAdequacy:
    number: str
    non_vacuous: str  # "yes", "no" or "unknown"
    covered_by: tuple[str, ...]


@dataclass
class Adequacy:
    properties: list[PropertyAdequacy] = field(default_factory=list)
    clauses: list[ClauseAdequacy] = field(default_factory=list)

    def totals(self) -> dict[str, int]:
        return {
            "properties_confirmed": sum(p.confirmed for p in self.properties),
            "properties_total": len(self.properties),
            "clauses_non_vacuous": sum(c.non_vacuous == "yes" for c in self.clauses),
            "clauses_covered": sum(bool(c.covered_by) for c in self.clauses),
            "clauses_total": len(self.clauses),
        }


Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def minimise(
    enc: Encoding,
    depth: int,
    enabled: Sequence[str],
    fixed: Sequence[object],
    measures: Sequence[tuple[str, Sequence[object]]],
    snapshot: Callable[[], T],
    size: Callable[[T, int], int],
    label: Callable[[str], str],
    timeout_ms: int | None = MINIMISE_TIMEOUT_MS,
) -> T:
    """The smallest answer the solver finds within ``MINIMISE_PROBES`` probes, measure after measure.

    The solver's current model answers the question ``fixed`` (literals) asks of ``enc`` with ``enabled``
    clauses; ``measures`` are ``(name, booleans)`` in order of importance (the game model's ``measures``);
    ``snapshot()`` keeps the current model's answer and ``size(answer, i)`` counts its ``i``-th measure from
    the same definition.  Each measure is binary-searched with "at most n of these are true"."""
    best = snapshot()
    fixed = list(fixed)
    probes = MINIMISE_PROBES
    # A deterministic resource limit per probe, where the limits give one, makes the answer kept the same on
    # every machine; the whole call's timeout is then only the safety net.
    probe_rlimit = enc.solver.limits.probe_rlimit or None
    if probe_rlimit:
        timeout_ms = None
    for index, (name, bools) in enumerate(measures):
        low, high = 0, size(best, index)
        while low < high and probes > 0:  # binary search on "at most n"
            probes -= 1
            mid = (low + high) // 2
            lit = enc.solver.fresh_literal(label(f"min-{name}-{mid}"))
            enc.solver.add(enc.g.Implies(lit, enc.solver.at_most(bools, mid)))
            answer = enc.check_with(depth, enabled, fixed + [lit], timeout_ms, probe_rlimit)
            if answer == smt.Verdict.SAT:
                best = snapshot()
                high = size(best, index)
                fixed.append(lit)
            elif answer == smt.Verdict.UNSAT:
                low = mid + 1
            else:
                break  # out of time: keep the smallest answer found so far
        # The answer's size on this measure holds from here on: a later measure must not trade it for its own
        # (without this, a probe of the events could bring back a third object the objects' search ruled out).
        lit = enc.solver.fresh_literal(label(f"keep-{name}-{high}"))
        enc.solver.add(enc.g.Implies(lit, enc.solver.at_most(bools, high)))
        fixed.append(lit)
    return best


def counterexample_problem(
    edition: Edition, prop: Property, trace: Trace, enabled: Sequence[str], moment: int, claim_seconds: float
) -> str:
    """Why ``trace`` is no counterexample to ``prop`` broken at ``moment`` under the clauses ``enabled``, evaluated
    concretely (a clause it breaks, or the claim holding there); "" when it is one."""
    broken = violations(edition, trace, enabled, first_only=True)
    if broken:
        return f"clause {broken[0].clause} at moment {broken[0].moment}"
    if moment not in claim_fails_at(edition, trace, prop, enabled, claim_seconds):
        return "the claim holds on it"
    return ""


class Verifier:
    """Checks properties against one edition with one incremental encoding."""

    def __init__(self, edition: Edition, universe: Universe, options: Options, progress: Progress = _quiet) -> None:
        self.edition = edition
        self.options = options
        self.progress = progress
        self.encoding = Encoding(edition, universe, options.limits)
        self.all_clauses = [enc.number for enc in edition.encodings]
        self._labels = 0
        self._guarded: set[str] = set()
        self._claim_terms: dict[tuple[str, int], object] = {}
        self._sample: tuple[Trace, Callable] | None = None
        self._cnf: sat.CnfSolver | None = None
        self._cnf_goals: dict[str, str] = {}  # property id: the name of its goal's literal in ``_cnf``
        self._foreign: dict[str, list[list[list[Any]]]] = {}  # another edition's own game rules (``_their_game``)

    def _label(self, what: str) -> str:
        self._labels += 1
        return f"goal[{self._labels}:{what}]"

    def _violation_goal(self, prop: Property, moments: Iterable[int]):
        g = self.encoding.g
        self._guard(prop)
        return g.Or(*[g.Not(self._claim_term(prop, t)) for t in moments])

    def _claim_term(self, prop: Property, t: int):
        """The symbolic claim at ``t``, built once per property and moment."""
        key = (prop.id, t)
        if key not in self._claim_terms:
            self._claim_terms[key] = claim_at(
                prop, self.encoding.g, t, self.encoding.backend.is_boolean, self.options.claim_seconds
            )
        return self._claim_terms[key]

    def _guard(self, prop: Property) -> None:
        """Evaluate the claim concretely and symbolically on one sample trace; they must agree.

        A definition that applies Python's ``and``/``or``/``not``/``if`` to trace values
        works on concrete values but silently means something else to z3; this catches
        such claims before they produce a wrong verdict.
        """
        if prop.id in self._guarded:
            return
        if self._sample is None:
            k = self.options.bound
            if self.encoding.check(k, self.all_clauses, True, self._label("sample")) != smt.Verdict.SAT:
                self._guarded.add(prop.id)  # no trace to compare on; the solver answers alone
                return
            self._sample = (self.encoding.extract(k), self.encoding.solver.model_evaluator())
        trace, evaluate = self._sample
        concrete = concrete_game(self.edition, trace, self.all_clauses)
        for t in range(trace.length):
            symbolic_value = evaluate(self._claim_term(prop, t))
            concrete_value = claim_at(prop, concrete, t, is_concrete_boolean, self.options.claim_seconds)
            if bool(symbolic_value) != bool(concrete_value):
                raise InvalidDefinition(
                    f"property {prop.id} ({prop.source}): its claim at moment {t} is {bool(concrete_value)} on a "
                    f"concrete trace but {bool(symbolic_value)} to the solver. Hint: it probably applies Python "
                    "and/or/not/if to trace values; use g.And/g.Or/g.Not/g.If."
                )
        self._guarded.add(prop.id)

    def check(self, prop: Property, enabled: Sequence[str] | None = None) -> CheckResult:
        """Verdict for ``prop`` up to the bound; a violation comes with the shortest trace.  The same in any process,
        whatever ran before: no cycle collection inside (``smt.steady_memory``)."""
        with smt.steady_memory():
            if enabled is None and prop.id in self._cnf_goals:
                return self._check_by_cadical(prop)
            return self._check(prop, enabled)

    def prepare(self, props: Sequence[Property]) -> None:
        """Get ready to check ``props`` with every clause: with ``Options.sat`` "cadical", every goal is added to
        the encoding at once and the whole goes to CaDiCaL (``sat.py``), which then proves what holds."""
        todo = [p for p in props if p.id not in self._cnf_goals]
        if not proves_by_cadical(self.options) or self._cnf is not None or not todo:
            return
        with smt.steady_memory():
            k, enc = self.options.bound, self.encoding
            enc.extend(k)
            self.progress(f"encoding {len(todo)} properties for CaDiCaL")
            goals = {}
            for prop in todo:
                lit = enc.solver.fresh_literal(self._label(prop.id))
                enc.solver.add(enc.g.Implies(lit, enc.g.Or(*[enc.g.Not(self._claim_term(prop, t)) for t in range(k)])))
                goals[prop.id] = str(lit)
            for prop in todo:  # its first call is a check, which takes every goal above into z3's SAT core
                self._guard(prop)
            if self._sample is None:  # no game at all: nothing was taken in, and nothing is left to prove
                return
            # (goals added after an earlier sample are taken in by ``dimacs`` itself: tests/test_sat_backend.py)
            units = [str(lit) for lit in enc.assumptions(k, self.all_clauses)]
            self._cnf = sat.CnfSolver(enc.solver.dimacs(), units)
            self._cnf_goals = {pid: name for pid, name in goals.items() if self._cnf.knows(name)}

    def by_cadical(self, prop: Property) -> bool:
        """Is ``prop`` checked with every clause decided by CaDiCaL (``prepare``)?"""
        return prop.id in self._cnf_goals

    def _check_by_cadical(self, prop: Property) -> CheckResult:
        """CaDiCaL's proof that ``prop`` holds; where it finds none, z3's verdict, in a fresh encoding so that the
        counterexample is the same however many properties were prepared with it."""
        assert self._cnf is not None
        start = time.perf_counter()
        try:
            limits = self.options.limits
            if self._cnf.unsatisfiable(self._cnf_goals[prop.id], limits.timeout_ms, limits.conflicts):
                return CheckResult(prop, HOLDS, self.options.bound, time.perf_counter() - start)
        except sat.Undecided as stopped:
            return CheckResult(prop, UNKNOWN, self.options.bound, time.perf_counter() - start, reason=str(stopped))
        alone = Verifier(self.edition, self.encoding.universe, self.options, self.progress).check(prop)
        return replace(alone, seconds=alone.seconds + time.perf_counter() - start)

    def _check(self, prop: Property, enabled: Sequence[str] | None) -> CheckResult:
        enabled = list(self.all_clauses if enabled is None else enabled)
        k = self.options.bound
        start = time.perf_counter()
        enc = self.encoding
        enc.extend(k)
        answer = enc.check(k, enabled, self._violation_goal(prop, range(k)), self._label(prop.id))
        if answer == smt.Verdict.UNSAT:
            return CheckResult(prop, HOLDS, k, time.perf_counter() - start)
        if answer == smt.Verdict.UNKNOWN:
            return CheckResult(prop, UNKNOWN, k, time.perf_counter() - start, reason=enc.solver.reason_unknown)
        # Search the bounds upward for the shortest counterexample.
        for depth in range(1, k + 1):
            goal = self._violation_goal(prop, [depth - 1])
            answer = enc.check(depth, enabled, goal, self._label(f"{prop.id}@{depth}"))
            if answer == smt.Verdict.SAT:
                trace = self._minimise(depth, enabled, goal) if self.options.minimise else enc.extract(depth)
                return self._confirmed(prop, trace, enabled, depth, start)
            if answer == smt.Verdict.UNKNOWN:
                return CheckResult(prop, UNKNOWN, depth, time.perf_counter() - start, reason=enc.solver.reason_unknown)
        return CheckResult(
            prop,
            UNKNOWN,
            k,
            time.perf_counter() - start,
            reason="a violation exists at the bound but none was found at any single depth",
        )

    def cut_off(self) -> list[CutOff]:
        """The model's bounds some game within the bound needs more than, obeying every clause until then
        (``bounds.cut_offs``): the verdicts do not speak of those games."""
        return cut_offs(
            self.edition,
            self.encoding.universe,
            self.options.limits,
            self.options.bound,
            self.all_clauses,
            progress=self.progress,
        )

    def check_all(self, props: Sequence[Property], step: Callable[[], None] = lambda: None) -> list[CheckResult]:
        """A verdict for each property, in order; ``step`` after each (a progress display counts them)."""
        self.prepare(props)
        results = []
        for prop in props:
            self.progress(f"checking {prop.id}")
            results.append(self.check(prop))
            step()
        return results

    def breaks(self, other: Edition, number: str, avoid: Sequence[Trace] = ()) -> tuple[str, Trace | None]:
        """A shortest, then smallest, game this edition allows that breaks clause ``number`` of ``other``,
        in a scenario none of the games in ``avoid`` plays.

        The game is one both game models allow: an edition without a feature (``model.features``)
        is not shown a game that uses it, which would break its clauses for no reason of theirs.
        ``("yes", trace)``, re-checked on the concrete trace; ``("no", None)`` when no game within the
        bound does; ``("unknown", None)`` when the solver cannot tell.
        """
        k = self.options.bound
        enc = self.encoding
        enc.extend(k)
        g, seen = enc.g, enc.seen_by(other)
        label = f"breaks-{other.name}-{number}"
        if not avoid and self._same_rules(self.edition.by_number.get(number), other.by_number[number], seen):
            return "no", None
        decides = self.edition.model.SCENARIO_DECIDES
        elsewhere = g.And(*[g.Not(g.And(*scenario_equalities(enc, game, decides))) for game in avoid])

        def goal(depth: int):
            return g.And(elsewhere, self._their_game(other, seen, depth), enc.broken_by(seen, number, depth))

        answer = enc.check(k, self.all_clauses, goal(k), self._label(label))
        if answer != smt.Verdict.SAT:
            return ("no" if answer == smt.Verdict.UNSAT else UNKNOWN), None
        for depth in range(1, k + 1):
            target = goal(depth)
            answer = enc.check(depth, self.all_clauses, target, self._label(f"{label}@{depth}"))
            if answer == smt.Verdict.UNKNOWN:
                return UNKNOWN, None
            if answer == smt.Verdict.SAT:
                trace = self._minimise(depth, self.all_clauses, target) if self.options.minimise else enc.extract(depth)
                allowed = not violations(self.edition, trace, self.all_clauses, first_only=True)
                their_game = not violations(other, trace, [], first_only=True)
                refused = violations(other, trace, [number], include_axioms=False)
                return ("yes", trace) if allowed and their_game and refused else (UNKNOWN, None)
        return UNKNOWN, None

    def unbroken(self, other: Edition, numbers: Sequence[str]) -> set[str]:
        """The clauses of ``other`` among ``numbers`` that CaDiCaL proves no game of this edition breaks within the
        bound (``breaks`` answers "no" for them): with ``Options.sat`` "cadical" and a conflict budget
        (``proves_by_cadical``), every clause's question at the bound is added at once and the whole goes to
        CaDiCaL, as ``prepare`` does for the catalogue.  Best asked of a verifier whose own searches are done: the
        questions stay in its solver."""
        if not proves_by_cadical(self.options):
            return set()
        with smt.steady_memory():
            k, enc = self.options.bound, self.encoding
            enc.extend(k)
            g, seen = enc.g, enc.seen_by(other)
            goals = {}
            for number in numbers:
                if not self._same_rules(self.edition.by_number.get(number), other.by_number[number], seen):
                    lit = enc.solver.fresh_literal(self._label(f"unbroken-{other.name}-{number}"))
                    enc.solver.add(
                        g.Implies(lit, g.And(self._their_game(other, seen, k), enc.broken_by(seen, number, k)))
                    )
                    goals[number] = str(lit)
            units = enc.assumptions(k, self.all_clauses)
            if not goals or (not enc.solver.bit_blasted and enc.solver.check(units) != smt.Verdict.SAT):
                return set()  # (no game at all: z3's searches say so themselves)
            cnf = sat.CnfSolver(enc.solver.dimacs(), [str(x) for x in units])
            limits, proved = self.options.limits, set()
            for number, name in goals.items():
                self.progress(f"{self.edition.name} allows, {other.name} {number} refuses? (CaDiCaL)")
                if cnf.proves(name, limits.timeout_ms, limits.conflicts):
                    proved.add(number)
            return proved

    def _their_game(self, other: Edition, seen, depth: int):
        """``other``'s game-model rules, where they are not term for term this edition's, below ``depth``."""
        g = self.encoding.g
        foreign = self._foreign_rules(other, seen)
        return g.And(*[rule for per_moment in foreign for rules in per_moment[:depth] for rule in rules])

    def _foreign_rules(self, other: Edition, seen) -> list[list[list[Any]]]:
        """Per game rule of ``other`` that is not term for term this edition's, its rules at each moment up to the
        bound, built once per edition: comparing every game rule again for each depth was most of a diff's time."""
        if other.name not in self._foreign:
            g = self.encoding.g
            mine = {ax.number: ax for ax in self.edition.axioms}
            self._foreign[other.name] = [
                [[g.Implies(r.applies, r.requires) for r in ax.rules(seen, t)] for t in range(self.options.bound)]
                for ax in other.axioms
                if not self._same_rules(mine.get(ax.number), ax, seen)
            ]
        return self._foreign[other.name]

    def _same_rules(self, mine, theirs, seen) -> bool:
        """Are ``theirs`` (a clause or game rule of another edition) term for term ``mine``, which this
        encoding asserts at every moment?  Then no game this edition allows breaks them, and the solver
        need not be asked: most encodings are shared between editions."""
        if mine is None:
            return False
        same = self.encoding.backend.identical
        for t in range(self.options.bound):
            ours = list(mine.rules(self.encoding.g, t))
            others = list(theirs.rules(seen, t))
            if len(ours) != len(others):
                return False
            for a, b in zip(ours, others, strict=True):
                if not (same(a.applies, b.applies) and same(a.requires, b.requires)):
                    return False
        return True

    def _minimise(self, depth: int, enabled: Sequence[str], goal) -> Trace:
        """As few objects, then as few events, as the solver can manage within its limits."""
        enc = self.encoding
        lit_goal = enc.solver.fresh_literal(self._label("min-goal"))
        enc.solver.add(enc.g.Implies(lit_goal, goal))
        return minimise(
            enc,
            depth,
            enabled,
            [lit_goal],
            self.edition.model.measures(enc.g, depth),
            lambda: enc.extract(depth),
            lambda trace, index: self._measure(trace, enabled, depth, index),
            self._label,
        )

    def _measure(self, trace: Trace, enabled: Sequence[str], depth: int, index: int) -> int:
        """The ``index``-th size measure of a concrete trace, from the same definition as the solver's."""
        _, values = self.edition.model.measures(concrete_game(self.edition, trace, enabled), depth)[index]
        return sum(1 for v in values if v)

    def _confirmed(self, prop: Property, trace: Trace, enabled: Sequence[str], depth: int, start: float) -> CheckResult:
        """Re-check the counterexample by evaluating every clause on the concrete trace."""
        problem = counterexample_problem(self.edition, prop, trace, enabled, depth - 1, self.options.claim_seconds)
        seconds = time.perf_counter() - start
        if problem:
            return CheckResult(
                prop,
                UNKNOWN,
                depth,
                seconds,
                reason=f"internal: the solver's counterexample failed the concrete re-check ({problem})",
            )
        return CheckResult(prop, VIOLATED, depth, seconds, trace=trace, violated_at=depth - 1)

    # --- adequacy -----------------------------------------------------------------
    def drops(self, prop: Property) -> PropertyAdequacy:
        results = []
        k = self.options.bound
        for number in prop.clauses:
            start = time.perf_counter()
            enabled = [n for n in self.all_clauses if n != number]
            answer = self.encoding.check(
                k, enabled, self._violation_goal(prop, range(k)), self._label(f"drop-{number}")
            )
            verdict = {smt.Verdict.SAT: VIOLATED, smt.Verdict.UNSAT: HOLDS}.get(answer, UNKNOWN)
            results.append(DropResult(number, verdict, time.perf_counter() - start))
        return PropertyAdequacy(prop, tuple(results))

    def non_vacuous(self, number: str) -> str:
        k = self.options.bound
        g = self.encoding.g
        self.encoding.extend(k)
        goal = g.Or(*self.encoding.witness[number][:k])
        answer = self.encoding.check(k, self.all_clauses, goal, self._label(f"witness-{number}"))
        return {smt.Verdict.SAT: "yes", smt.Verdict.UNSAT: "no"}.get(answer, "unknown")

    def redundant(self, number: str) -> str:
        """Do the other clauses already force what clause ``number`` requires, in every game up to the
        bound?  "yes" when no game obeying them breaks it, "no" when one does, or "unknown"."""
        k = self.options.bound
        self.encoding.extend(k)
        goal = self.encoding.broken(number, k)
        others = [n for n in self.all_clauses if n != number]
        answer = self.encoding.check(k, others, goal, self._label(f"redundant-{number}"))
        return {smt.Verdict.SAT: "no", smt.Verdict.UNSAT: "yes"}.get(answer, "unknown")

    def adequacy(self, props: Sequence[Property], step: Callable[[], None] = lambda: None) -> Adequacy:
        """Drop each named clause of each property, then look for each clause's witness."""
        report = Adequacy()
        for prop in props:
            self.progress(f"adequacy: dropping the clauses of {prop.id}")
            report.properties.append(self.drops(prop))
            step()
        for number in self.all_clauses:
            self.progress(f"adequacy: witness for {number}")
            covered = tuple(
                p.property.id
                for p in report.properties
                if any(d.clause == number and d.verdict == VIOLATED for d in p.drops)
            )
            report.clauses.append(ClauseAdequacy(number, self.non_vacuous(number), covered))
            step()
        return report
