"""Contradictions: a reachable situation where the clauses leave the rules no way to go on.

Moment-local totality (the standard deadlock check).  For each moment ``t`` below the bound:
is there a prefix of moments ``0..t-1`` obeying every clause and game rule, and an environment
for moment ``t`` (what players and effects do), such that the game rules alone can go on at ``t``
(some choice of moment ``t``'s rule variables obeys them) but no choice obeys them together with
rule 603's clauses?  The game rules must admit a continuation: where they don't, the model, not
the clauses, forbids the environment.

That is an exists-forall question, solved by counterexample-guided refinement with two
incremental solvers (measured against z3 quantifiers: see ``audit`` in the README):

- ``search`` proposes a prefix and an environment for ``t`` (with rule values at ``t`` that obey
  the game rules alone);
- ``judge`` fixes the proposal and looks for rule values at ``t`` that obey the game rules and
  every clause.  If there are none the proposal is a contradiction; otherwise those rule values
  ``r`` are a counterexample, and ``search`` learns "with rule values ``r`` at ``t``, some rule
  or clause is broken" over its own variables, which rules out every proposal ``r`` serves.

Every solver call has the limits' timeout; a timeout, or the iteration cap, makes the check at
that moment ``unknown`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from . import smt
from .bmc import Encoding
from .registry import Edition
from .ruling import minimal_core
from .schema import RULE, Game, Universe
from .trace import Trace

MAX_ROUNDS = 400  # refinements at one moment before giving up with "unknown"


@dataclass(frozen=True)
class Deadlock:
    moment: int
    core: tuple[str, ...]  # clauses and game rules that together leave no continuation
    situation: Trace  # moments 0..moment; at ``moment`` the rule values are the game rules' alone
    rounds: int


@dataclass(frozen=True)
class Undecided:
    moment: int
    reason: str


@dataclass
class _Proposal:
    """The search solver's model: every value of the prefix, the constants and moment ``t``'s environment."""

    values: dict[tuple[str, tuple[int, ...]], Any]
    trace: Trace


class DeadlockSearch:
    """The two solvers of one edition, reused for every moment (learned clauses survive)."""

    def __init__(self, edition: Edition, universe: Universe, limits: smt.SolverLimits) -> None:
        self.edition = edition
        self.search = Encoding(edition, universe, limits)
        self.judge = Encoding(edition, universe, limits, track_axioms=True)
        self.clauses = [e.number for e in edition.encodings]

    def at(self, t: int, progress: Callable[[int], None] = lambda _: None) -> Deadlock | Undecided | None:
        """A contradiction at moment ``t``, ``None`` if there is none, or why it is unknown."""
        search, judge = self.search, self.judge
        search.extend(t)
        judge.extend(t + 1)
        model_alone = search.solver.fresh_literal(f"game-rules-alone[{t}]")
        for rule in self._rules(search.g, t, axioms_only=True):
            search.solver.add(search.g.Implies(model_alone, rule))
        learned = search.solver.fresh_literal(f"learned[{t}]")
        base = search.assumptions(t, self.clauses) + [model_alone, learned]
        for rounds in range(1, MAX_ROUNDS + 1):
            progress(rounds)
            status = search.solver.check(base)
            if status == smt.Verdict.UNSAT:
                return None
            if status == smt.Verdict.UNKNOWN:
                return Undecided(t, f"proposing a situation: {search.solver.reason_unknown}")
            proposal = self._proposal(t)
            verdict = self._judge(t, proposal, rounds)
            if isinstance(verdict, (Deadlock, Undecided)):
                return verdict
            search.solver.add(search.g.Implies(learned, search.g.Not(self._served(t, verdict))))
        return Undecided(t, f"no answer after {MAX_ROUNDS} refinements")

    # --- the two sides --------------------------------------------------------------
    def _rules(self, g: Game, t: int, *, axioms_only: bool = False) -> Iterator[Any]:
        """Every rule instance at moment ``t`` as one implication each: the game rules, then the clauses."""
        families = list(self.edition.axioms) + ([] if axioms_only else list(self.edition.encodings))
        for fam in families:
            for rule in fam.rules(g, t):
                yield g.Implies(rule.applies, rule.requires)

    def _proposal(self, t: int) -> _Proposal:
        enc = self.search
        read = enc.solver.model_reader()
        values = {key: read(var) for key, var in enc._vars.items() if self._fixed(key, t)}
        return _Proposal(values, enc.extract(t + 1))

    def _fixed(self, key: tuple[str, tuple[int, ...]], t: int) -> bool:
        """Is this variable part of the situation (not one of moment ``t``'s rule variables)?"""
        spec = self.search.schema.spec(key[0])
        if not spec.per_moment:
            return True
        return key[1][0] < t or (key[1][0] == t and spec.role != RULE)

    def _judge(self, t: int, proposal: _Proposal, rounds: int) -> Deadlock | Undecided | Callable[[Any], Any]:
        """Pin ``proposal`` in the judge; no rule values fit it: a deadlock, with its minimal core.
        Otherwise the reader of the judge's model, whose rule values at ``t`` fit it."""
        judge = self.judge
        pin = judge.solver.fresh_literal(f"situation[{t}:{rounds}]")
        g = judge.g
        judge.solver.add(g.Implies(pin, g.And(*[g.var(n, *i) == v for (n, i), v in proposal.values.items()])))
        base = judge.moment_literals[: t + 1] + [pin]
        lits = {n: judge.solver.literal(n) for n in self.clauses} | judge.axiom_literals
        status = judge.solver.check(base + list(lits.values()))
        if status == smt.Verdict.UNKNOWN:
            return Undecided(t, f"judging a situation: {judge.solver.reason_unknown}")
        if status == smt.Verdict.SAT:
            return judge.solver.model_reader()
        core = minimal_core(judge, base, lits, [])
        if core is None:
            return Undecided(t, f"minimising a contradiction's core: {judge.solver.reason_unknown}")
        return Deadlock(t, tuple(core), proposal.trace, rounds)

    def _served(self, t: int, read: Callable[[Any], Any]) -> Any:
        """Over the search's variables: the judge's rule values for ``t`` obey every rule and clause there."""
        search = self.search
        judge_vars = self.judge._vars

        def lookup(name: str, index: tuple[int, ...]) -> Any:
            spec = search.schema.spec(name)
            if spec.per_moment and spec.role == RULE and index[0] == t:
                return read(judge_vars[(name, index)])
            return search._lookup(name, index)

        g = Game(search.backend, search.schema, search.universe, lookup, search.solver.literal, 0)
        g.edition = self.edition
        return g.And(*self._rules(g, t))
