"""Contradictions: a reachable situation where the clauses leave the rules no way to go on.

Moment-local totality (the standard deadlock check).  For each moment ``t`` below the bound:
is there a prefix of moments ``0..t-1`` obeying every clause and game rule, and an environment
for moment ``t`` (what players and effects do), such that the game rules alone can go on at ``t``
(some choice of moment ``t``'s rule variables obeys them) but no choice obeys them together with
rule 603's clauses?  The game rules must admit a continuation: where they don't, the model, not
the clauses, forbids the environment.

That is an exists-forall question, solved by counterexample-guided refinement with two
incremental solvers (measured against z3 quantifiers: see "How the audit got there" in docs/audit.md):

- ``search`` proposes a prefix and an environment for ``t`` (with rule values at ``t`` that obey
  the game rules alone);
- ``judge`` fixes the proposal and looks for rule values at ``t`` that obey the game rules and
  every clause.  If there are none the proposal is a contradiction; otherwise those rule values
  ``r`` are a counterexample, and ``search`` learns "with rule values ``r`` at ``t``, some rule
  or clause is broken" over its own variables, which rules out every proposal ``r`` serves.

Deadlocks that belong to the model, not to the text, are kept apart:

- A clause instance whose requirement constrains none of moment ``t``'s rule variables (603.6d:
  an "enters tapped" permanent enters tapped, and ``tapped`` is the environment's) says what can
  happen, it does not respond to it: it goes on the proposal side with the game rules, so that no
  situation it forbids is proposed (``shapes_situation``).
- A deadlock the same situation does not have with more room (``CAPACITY_ROOM`` stack slots, every
  capacity of the model -- counts of triggered instances, resolutions, lore counters, the stack's size -- up to
  as many, the model's ``roomy_variables``, and at ``t`` the game rules' instances that bound the model's own
  bookkeeping set aside, ``Rule.room == MODEL_BOUND``: ``model.pending``, ``model.delayed_reuse``) comes
  from the model's bounds, not from the clauses: it is passed on as an ``Artefact``, and from then on at
  that moment every proposal must also have a continuation obeying every clause in that larger universe
  (``_fits``), which rules out exactly such situations.
- A deadlock the larger universe has too is judged a third time, with the counts free (``FREE_COUNT``,
  in integers wide enough to add them up) and moment ``t``'s stack free of the model's slots (the game
  rules' instances marked ``Rule.room`` set aside there).  Only if it stays is it a contradiction: a
  deadlock more room might end is not one the check can name.  It is passed on as an unsettled
  ``Artefact``, that one situation is ruled out, and the moment's check can then end undecided at best.

Moment 0 is the start of a game, not a response to events: its state is all situation, and the
only question there is whether any start state obeys every clause and game rule.

Every solver call has the limits' timeout; a timeout, or the iteration cap, makes the check at
that moment ``unknown`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from . import smt
from .bmc import Encoding
from .registry import MODEL_BOUND, SLOTS, Edition
from .ruling import minimal_core
from .schema import RULE, Game, Universe, VarSpec
from .trace import Trace

#: Refinements at one moment before giving up with "unknown": a budget, ``rule603 audit --refinements`` (docs/audit.md).
#: No edition's search has ended in a contradiction after its 50th refinement (200 were spent on every moment of
#: every edition until 2026-11-26, each moment ending undecided), and on a slow machine 200 cost two hours.
MAX_ROUNDS = 50
#: A deadlock is judged again with this many stack slots, and room for as many triggered instances in one batch
#: (the model's own ranges: 3 slots, 6 instances, a stack of 7).  A batch can need more than 7: nine chapter
#: triggers of a Saga with three instances of its ability; eighteen 'whenever an ability triggers' ones watching six.
CAPACITY_ROOM = 24
#: The third judgement's counts: well above a batch of the default universe (a Saga's nine chapter triggers seen by
#: two 'whenever an ability triggers' abilities with three instances each make 63, and each 'triggers an additional
#: time' multiplies that), in bit-vectors of ``FREE_WIDTH`` bits, where seven such counts, each times three
#: instances, still add up without wrapping (signed: below 32768).  A batch needing more is named a contradiction.
FREE_COUNT = 1000
FREE_WIDTH = 16


def _ignore(_: object) -> None:
    pass


@dataclass(frozen=True)
class Deadlock:
    moment: int
    core: tuple[str, ...]  # clauses and game rules that together leave no continuation
    situation: Trace  # moments 0..moment; at ``moment`` the rule values are the game rules' alone
    rounds: int


@dataclass(frozen=True)
class Artefact:
    """A deadlock of the model's bounds: the same situation goes on in a universe with more stack slots.
    Unsettled: it does not go on there either, but the deadlock rests on the room, so more might end it."""

    moment: int
    core: tuple[str, ...]
    situation: Trace
    reason: str
    settled: bool = True


@dataclass(frozen=True)
class Undecided:
    moment: int
    reason: str


@dataclass(frozen=True)
class _Stuck:
    """A situation the judge found no rule values for: its assumptions, and the literals a core names."""

    base: list[Any]
    literals: dict[str, Any]


@dataclass(frozen=True)
class _Past:
    """How the search goes on past a deadlock of the model: ``ruled_out`` holds of the situations it no longer
    proposes (those the larger universe's rule values serve; if unsettled, that situation alone), and the artefact
    to show, if any."""

    ruled_out: Any
    settled: bool
    shown: Artefact | None


@dataclass
class _Seen:
    """What became of the situations the search proposed at one moment (none was a contradiction)."""

    went_on: int = 0  # the judge found rule values obeying every clause and game rule
    roomy: int = 0  # they went on only in the larger universe (capacity artefacts)
    beyond: int = 0  # deadlocks that more room than the larger universe's might end, ruled out one by one

    def count(self, settled: bool) -> None:
        if settled:
            self.roomy += 1
        else:
            self.beyond += 1

    def __str__(self) -> str:
        parts = [
            f"{self.went_on} went on under every clause and game rule",
            f"{self.roomy} only with more room ({CAPACITY_ROOM} stack slots, the model's own bounds set aside)",
            *([f"{self.beyond} not even then (more room might end them)"] if self.beyond else []),
        ]
        total = self.went_on + self.roomy + self.beyond
        return f"of the {total} situations proposed, " + ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class _Proposal:
    """The search solver's model: every value of the prefix, the constants and moment ``t``'s environment."""

    values: dict[tuple[str, tuple[int, ...]], Any]
    trace: Trace


class DeadlockSearch:
    """The solvers of one edition's search, the proposing and the judging ones started afresh for each moment: a
    solver still holding an earlier moment's hundreds of lessons was measured many times slower at the next (on
    current, moment 5 had done 11 refinements after 20 minutes), as the ambiguity search's solvers were with moments
    no question asked of.  Their encodings are kept, and grow with the moments: what a moment adds to their solvers
    is added ``for_now``, and forgotten before the next (``smt.Solver.forget_for_now``)."""

    def __init__(
        self, edition: Edition, universe: Universe, limits: smt.SolverLimits, max_rounds: int = MAX_ROUNDS
    ) -> None:
        self.edition = edition
        self.universe, self.limits = universe, limits
        self.max_rounds = max_rounds
        self.clauses = [e.number for e in edition.encodings]
        # The roomier universes' encodings are kept from moment to moment: each judges a few pinned situations
        # (a lesson each, under its own literal), and building them again cost more than all their checks.
        self._larger: Encoding | None = None
        self._free: Encoding | None = None
        self._pins = 0  # numbers each pinned situation's literal in them, so that no two share one
        self.search = Encoding(edition, universe, limits, restartable=True)
        self.judge = Encoding(edition, universe, limits, track_axioms=True, restartable=True)
        self._every_rule: dict[int, tuple[Any, list[tuple[tuple[str, tuple[int, ...]], Any]]]] = {}
        self._every_larger_rule: dict[int, tuple[Any, list[tuple[tuple[str, tuple[int, ...]], Any]]]] = {}
        self._asked = False  # has a moment been asked (so that the solvers must forget it)?

    def at(
        self,
        t: int,
        progress: Callable[[int], None] = lambda _: None,
        artefact: Callable[[Artefact], None] = lambda _: None,
    ) -> Deadlock | Undecided | None:
        """A contradiction at moment ``t``, ``None`` if there is none, or why it is unknown; each capacity
        artefact met on the way is passed to ``artefact`` and the search goes on past it."""
        search, judge = self.search, self.judge
        if self._asked:
            search.solver.forget_for_now()
            judge.solver.forget_for_now()
        self._asked = True
        search.extend(t)
        judge.extend(t + 1)
        if t == 0:
            return self._start()
        model_alone = search.solver.fresh_literal(f"game-rules-alone[{t}]")
        for rule in self._rules(search.g, t, axioms_only=True):
            search.solver.add(search.g.Implies(model_alone, rule), for_now=True)
        for rule in self._shaping(t):
            search.solver.add(search.g.Implies(model_alone, rule), for_now=True)
        learned = search.solver.fresh_literal(f"learned[{t}]")
        base = search.assumptions(t, self.clauses) + [model_alone, learned]
        shown: set[bool] = set()  # the kinds of artefact shown at this moment (settled or not): the first of each
        seen = _Seen()
        for rounds in range(1, self.max_rounds + 1):
            progress(rounds)
            status = search.solver.check(base)
            if status == smt.Verdict.UNSAT:
                return self._beyond_room(t, seen.beyond) if seen.beyond else None
            if status == smt.Verdict.UNKNOWN:
                return Undecided(t, f"proposing a situation: {search.solver.reason_unknown}")
            proposal = self._proposal(t)
            verdict = self._judge(t, proposal, rounds)
            if isinstance(verdict, _Stuck):
                past = self._past_deadlock(t, proposal, verdict, rounds, shown)
                if not isinstance(past, _Past):
                    return past
                if past.shown is not None:
                    shown.add(past.settled)
                    artefact(past.shown)
                seen.count(past.settled)
                search.solver.add(search.g.Implies(learned, search.g.Not(past.ruled_out)), for_now=True)
                continue
            if isinstance(verdict, Undecided):
                return verdict
            seen.went_on += 1
            search.solver.add(search.g.Implies(learned, search.g.Not(self._served(t, verdict))), for_now=True)
        return Undecided(t, f"no answer after {self.max_rounds} refinements: {seen}; more remain")

    def _past_deadlock(
        self, t: int, proposal: _Proposal, stuck: _Stuck, rounds: int, shown: set[bool]
    ) -> Deadlock | Undecided | _Past:
        """A situation the judge found stuck, judged again with more room: a contradiction, why that is unknown,
        or how the search goes on past it (with the artefact, unless one of its kind is in ``shown``)."""
        fits = self._fits_larger(t, proposal)
        if fits is None:
            why = self._larger.solver.reason_unknown if self._larger else ""
            return Undecided(t, f"judging a deadlock with more stack slots: {why}")
        settled = True
        if fits is False:
            room = self._rests_on_room(t, proposal)
            if room is None:
                why = self._free.solver.reason_unknown if self._free else ""
                return Undecided(t, f"judging a deadlock with free counts: {why}")
            settled = not room
        contradiction = settled and fits is False
        artefact = None
        if contradiction or settled not in shown:
            core = self._core(stuck)
            if core is None:
                return Undecided(t, f"minimising a contradiction's core: {self.judge.solver.reason_unknown}")
            if contradiction:
                return Deadlock(t, core, proposal.trace, rounds)
            reason = self._capacity_reason() if settled else self._unsettled_reason()
            artefact = Artefact(t, core, proposal.trace, reason, settled)
        ruled_out = self._served_larger(t, fits) if settled else _held(self.search, proposal)
        return _Past(ruled_out, settled, artefact)

    def _start(self) -> Deadlock | Undecided | None:
        """Moment 0: does some start state obey every clause and game rule?  ``None`` if one does."""
        judge = self.judge
        base = judge.moment_literals[:1]
        lits = {n: judge.solver.literal(n) for n in self.clauses} | judge.axiom_literals
        status = judge.solver.check(base + list(lits.values()))
        if status == smt.Verdict.SAT:
            return None
        if status == smt.Verdict.UNKNOWN:
            return Undecided(0, f"looking for a start state: {judge.solver.reason_unknown}")
        core = minimal_core(judge, base, lits, [])
        if core is None:
            return Undecided(0, f"minimising a contradiction's core: {judge.solver.reason_unknown}")
        if judge.solver.check(base + list(judge.axiom_literals.values())) != smt.Verdict.SAT:
            return Undecided(0, "the game rules alone allow no start state")
        return Deadlock(0, tuple(core), judge.extract(1), 0)

    def _shaping(self, t: int) -> Iterator[Any]:
        """The clause instances at ``t`` that shape the situation (see ``shapes_situation``), over the search's
        variables."""
        g = self.search.g
        for enc in self.edition.encodings:
            for rule in enc.rules(g, t):
                if shapes_situation(self.search, rule.requires, t):
                    yield g.Implies(rule.applies, rule.requires)

    def _fits_larger(self, t: int, proposal: _Proposal) -> Callable[[Any], Any] | bool | None:
        """Does ``proposal`` have a continuation obeying every clause and game rule in a universe with
        ``CAPACITY_ROOM`` stack slots and counts?  The reader of that model if so, ``False`` if not, ``None`` when the
        solver cannot tell."""
        if self._larger is None:
            variables = self.edition.model.roomy_variables(CAPACITY_ROOM)
            self._larger = Encoding(
                self.edition,
                self._larger_universe(),
                self.limits,
                variables=variables,
                room_apart=(MODEL_BOUND,),
                restartable=True,
            )
        larger = self._larger
        larger.extend(t + 1)
        self._pins += 1
        pin = _pin(larger, f"capacity[{t}:{self._pins}]", proposal)
        status = larger.check_with(t + 1, self.clauses, [pin, *larger.room_literals[:t]])
        if status == smt.Verdict.SAT:
            return larger.solver.model_reader()
        return None if status == smt.Verdict.UNKNOWN else False

    def _rests_on_room(self, t: int, proposal: _Proposal) -> bool | None:
        """Could more room end a deadlock that ``CAPACITY_ROOM`` does not?  Yes if the proposal goes on, obeying
        every clause and game rule, with the counts free (up to ``FREE_COUNT``) and moment ``t``'s stack free of
        the slots' bound (the instances marked ``Rule.room`` set aside there, kept before ``t``); ``None`` when the
        solver cannot tell."""
        if self._free is None:
            self._free = Encoding(
                self.edition,
                self._free_universe(),
                self.limits,
                variables=self.edition.model.roomy_variables(FREE_COUNT),
                width=FREE_WIDTH,
                room_apart=(SLOTS, MODEL_BOUND),
                restartable=True,
            )
        free = self._free
        free.extend(t + 1)
        self._pins += 1
        pin = _pin(free, f"free[{t}:{self._pins}]", proposal)
        status = free.check_with(t + 1, self.clauses, [pin, *free.room_literals[:t]])
        if status == smt.Verdict.UNKNOWN:
            return None
        return status == smt.Verdict.SAT

    def _beyond_room(self, t: int, situations: int) -> Undecided:
        """The search ended, but some situations were only ruled out one by one (``_rests_on_room``)."""
        return Undecided(
            t,
            f"no contradiction but {situations} situation(s) that do not go on with {CAPACITY_ROOM} stack slots "
            "either, though they do with a stack of any size: more room might end them (the first is among the "
            "modelling artefacts)",
        )

    def _unsettled_reason(self) -> str:
        """Why an unsettled artefact is one (see ``_rests_on_room``)."""
        return (
            f"it does not go on with {CAPACITY_ROOM} stack slots either, but it does, obeying every clause, with a "
            f"stack of any size and up to {FREE_COUNT} triggered instances in one batch: more room than the check "
            "has might end it"
        )

    def _free_universe(self) -> Universe:
        """The larger universe with a slot more for every card: the bound set aside on moment ``t``'s stack
        frees the counts of abilities put on it, but a spell is a card in a slot (405.1), and every card of a
        batch could be cast at once."""
        larger = self._larger_universe()
        sizes = {d: n for d, n in larger.sizes.items() if d != "ability"}
        return self.edition.model.universe(**{**sizes, "slot": sizes["slot"] + sizes["card"]})

    def _larger_universe(self) -> Universe:
        sizes = {d: n for d, n in self.universe.sizes.items() if d != "ability"}
        return self.edition.model.universe(**{**sizes, "slot": max(CAPACITY_ROOM, sizes["slot"])})

    def _capacity_reason(self) -> str:
        slots = self.universe.size("slot")
        bounds = [ax.number for ax in self.edition.axioms if ax.number in self._model_bounds()]
        apart = f", and its own bounds ({', '.join(bounds)}) set aside at that moment" if bounds else ""
        return (
            f"the same situation goes on, obeying every clause, with {self._larger_universe().size('slot')} stack "
            f"slots instead of the model's {slots}, as much room for triggered instances in one batch{apart}: "
            "the game needs more than the model holds (more abilities trigger or must go on the stack at once, "
            "or instances it cannot keep apart)"
        )

    def _model_bounds(self) -> set[str]:
        """The game rules some of whose instances are bounds of the model's own bookkeeping."""
        return set(getattr(self.edition.model, "MODEL_BOUND_MEANINGS", {}))

    # --- the two sides --------------------------------------------------------------
    def _rules(self, g: Game, t: int, *, axioms_only: bool = False, model_bounds: bool = True) -> Iterator[Any]:
        """Every rule instance at moment ``t`` as one implication each: the game rules, then the clauses;
        without the model's own bounds (``MODEL_BOUND``) if ``model_bounds`` is false."""
        families = list(self.edition.axioms) + ([] if axioms_only else list(self.edition.encodings))
        for fam in families:
            for rule in fam.rules(g, t):
                if model_bounds or rule.room != MODEL_BOUND:
                    yield g.Implies(rule.applies, rule.requires)

    def _proposal(self, t: int) -> _Proposal:
        enc = self.search
        # The rules at t make every variable they mention first, so that the situation pins all of them: a lesson
        # learned from it (``_served``, ``_served_larger``) then rules out that very situation.
        self._every_rule_at(t)
        read = enc.variable_reader()
        values = {key: read(*key) for key, _ in enc.variables() if self._fixed(key, t)}
        return _Proposal(values, enc.extract(t + 1, read))

    def _fixed(self, key: tuple[str, tuple[int, ...]], t: int) -> bool:
        """Is this variable part of the situation (not one of moment ``t``'s rule variables, nor of a later moment)?"""
        spec = self.search.schema.spec(key[0])
        return not spec.per_moment or (key[1][0] <= t and not _rule_variable_at(spec, key[1], t))

    def _judge(self, t: int, proposal: _Proposal, rounds: int) -> _Stuck | Undecided | Callable[[Any], Any]:
        """Pin ``proposal`` in the judge; no rule values fit it: stuck (``_core`` names why).
        Otherwise the reader of the judge's model, whose rule values at ``t`` fit it."""
        judge = self.judge
        pin = _pin(judge, f"situation[{t}:{rounds}]", proposal, for_now=True)
        base = judge.moment_literals[: t + 1] + [pin]
        lits = {n: judge.solver.literal(n) for n in self.clauses} | judge.axiom_literals
        status = judge.solver.check(base + list(lits.values()))
        if status == smt.Verdict.UNKNOWN:
            return Undecided(t, f"judging a situation: {judge.solver.reason_unknown}")
        if status == smt.Verdict.SAT:
            return judge.solver.model_reader()
        return _Stuck(base, lits)

    def _core(self, stuck: _Stuck) -> tuple[str, ...] | None:
        """The minimal core of a stuck situation (clauses and game rules), or ``None`` if the solver can't tell."""
        core = minimal_core(self.judge, stuck.base, stuck.literals, [])
        return None if core is None else tuple(core)

    def _served(self, t: int, read: Callable[[Any], Any]) -> Any:
        """Over the search's variables: the judge's rule values for ``t`` (``read``) obey every rule and clause
        there."""
        term, rule_variables = self._every_rule_at(t)
        values = [(var, read(self.judge.lookup(*key))) for key, var in rule_variables]
        return self.search.backend.substitute(term, values)

    def _every_rule_at(self, t: int) -> tuple[Any, list[tuple[tuple[str, tuple[int, ...]], Any]]]:
        """Every rule at ``t`` over the search's own variables, and moment ``t``'s rule variables, built once per
        moment; each round puts the judge's values in for those (building the rules again took most of a round)."""
        if t not in self._every_rule:
            search = self.search
            every_rule = search.g.And(*self._rules(search.g, t))  # (makes the variables it mentions)
            rule_variables = [(key, var) for key, var in search.variables() if self._judged(key, t)]
            self._every_rule[t] = (every_rule, rule_variables)
        return self._every_rule[t]

    def _judged(self, key: tuple[str, tuple[int, ...]], t: int) -> bool:
        """Is this one of moment ``t``'s rule variables (what the judge chooses)?"""
        return _rule_variable_at(self.search.schema.spec(key[0]), key[1], t)

    def _served_larger(self, t: int, read: Callable[[Any], Any]) -> Any:
        """``_served`` with the values of the universe with more stack slots (``_fits_larger``'s), and that
        universe's rules (the prefix's extra slots empty), built once per moment as ``_served``'s are."""
        larger = self._larger
        assert larger is not None
        if t not in self._every_larger_rule:
            self._every_larger_rule[t] = self._larger_rules(t)
        term, placeholders = self._every_larger_rule[t]
        values = [(var, read(larger.lookup(*key))) for key, var in placeholders]
        return self.search.backend.substitute(term, values)

    def _larger_rules(self, t: int) -> tuple[Any, list[tuple[tuple[str, tuple[int, ...]], Any]]]:
        """Every rule at ``t`` of the universe with more stack slots, over the search's variables for the
        situation (the prefix's extra slots empty) and a placeholder for each of moment ``t``'s rule variables."""
        search, larger = self.search, self._larger
        assert larger is not None
        small = self.universe
        placeholders: dict[tuple[str, tuple[int, ...]], Any] = {}

        def lookup(name: str, index: tuple[int, ...]) -> Any:
            spec = larger.schema.spec(name)
            if _rule_variable_at(spec, index, t):
                if (name, index) not in placeholders:
                    label = f"larger.{name}[{','.join(map(str, index))}]"
                    make = search.backend.bool_var if spec.kind == "bool" else search.backend.int_var
                    placeholders[name, index] = make(label)
                return placeholders[name, index]
            dims = index[1:] if spec.per_moment else index
            if all(i < small.size(d) for i, d in zip(dims, spec.dims, strict=True)):
                return search.lookup(name, index)
            return False if spec.kind == "bool" else 0  # an extra slot of the prefix: empty

        g = Game(search.backend, larger.schema, larger.universe, lookup, search.solver.literal, 0)
        g.edition = self.edition
        return g.And(*self._rules(g, t, model_bounds=False)), list(placeholders.items())


def _held(enc: Encoding, proposal: _Proposal) -> Any:
    """Over ``enc``'s variables: the situation is ``proposal``'s."""
    return enc.g.And(*[enc.lookup(n, i) == v for (n, i), v in proposal.values.items()])


def _pin(enc: Encoding, label: str, proposal: _Proposal, *, for_now: bool = False) -> Any:
    """A new literal of ``enc``'s solver that, assumed, pins ``proposal`` there (``for_now``: see ``smt.Solver``)."""
    pin = enc.solver.fresh_literal(label)
    enc.solver.add(enc.g.Implies(pin, _held(enc, proposal)), for_now=for_now)
    return pin


def shapes_situation(enc: Encoding, requires: Any, t: int) -> bool:
    """Does a rule instance at ``t`` requiring ``requires`` constrain none of moment ``t``'s rule variables?
    Then it says what can happen (which events, what state), not how the rules respond to it."""
    return not any(_rule_variable_at(enc.schema.spec(name), index, t) for name, index in enc.mentioned(requires))


def _rule_variable_at(spec: VarSpec, index: tuple[int, ...], t: int) -> bool:
    """Is the variable ``spec.name[index]`` one of moment ``t``'s rule variables (what the rules choose there)?"""
    return spec.per_moment and spec.role == RULE and index[0] == t
