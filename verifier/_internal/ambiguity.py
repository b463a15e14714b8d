"""Ambiguities: one scenario, two games that obey every clause, and an observable outcome that differs.

Two copies of the trace live in one solver (``Encoding(twin_of=...)``): they share every
environment variable and constant, so they play the same scenario (the same cards, the same
events, the same choices of the players), and each obeys every clause and game rule.  For each
observable behaviour of the model (``observables`` in the game model: what triggers, how many
times, who controls it, stack order, whether it does anything on resolution) the solver looks
for a pair that differs in it.  The order in which a player puts their own triggers on the stack
is their choice (603.3b) and ``observables`` does not see it, so it is never an ambiguity.

A found pair is explained by where the two games first part: the first moment at which some rule
variable differs, which variables differ there, and the clauses that apply at that moment in
either game (their ``fires``) - the clauses that speak about the situation and still let it go
either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import smt
from .bmc import Encoding, concrete_game
from .registry import Edition
from .schema import Game, Universe
from .trace import Trace
from .verify import minimise


@dataclass(frozen=True)
class Ambiguity:
    behaviour: str
    what: str  # the observable term that differs, in words
    values: tuple[Any, Any]  # its value in each game
    games: tuple[Trace, Trace]
    moment: int  # the first moment at which the two games look different
    differing: tuple[str, ...]  # how, e.g. "triggers: c1(dies) ×1 [P0] / -"
    clauses: tuple[str, ...]  # the clauses that apply at that moment in either game


@dataclass(frozen=True)
class Undetermined:
    behaviour: str
    reason: str


class AmbiguitySearch:
    def __init__(self, edition: Edition, universe: Universe, limits: smt.SolverLimits, bound: int) -> None:
        self.edition, self.bound = edition, bound
        self.one = Encoding(edition, universe, limits)
        self.other = Encoding(edition, universe, limits, twin_of=self.one)
        self.one.extend(bound)
        self.other.extend(bound)
        self.clauses = [e.number for e in edition.encodings]
        pairs = zip(
            edition.model.observables(self.one.g, bound), edition.model.observables(self.other.g, bound), strict=True
        )
        self.terms: dict[str, list[tuple[str, Any, Any]]] = {}
        for (behaviour, what, x), (_, _, y) in pairs:
            self.terms.setdefault(behaviour, []).append((what, x, y))
        self._labels = 0
        self.same_script = self.one.solver.fresh_literal("same-script")
        g = self.one.g
        one_script, other_script = _scripted(self.one.g, bound), _scripted(self.other.g, bound)
        self.one.solver.add(
            g.Implies(self.same_script, g.And(*[x == y for x, y in zip(one_script, other_script, strict=True)]))
        )
        # Both games make the same choices, so that what differs is left open by the rules, not chosen.
        self.same_choices = self.one.solver.fresh_literal("same-choices")
        self.one.solver.add(g.Implies(self.same_choices, g.And(*_same_order(self.one.g, self.other.g, bound))))

    @property
    def behaviours(self) -> list[str]:
        return list(self.terms)

    def find(self, behaviour: str, *, same_script: bool = True) -> Ambiguity | Undetermined | None:
        """A pair of compliant games of one scenario that differ in ``behaviour``, or ``None``.

        ``same_script``: the two games also agree on what the model leaves to rule variables but a
        scenario decides (the game model's ``SCENARIO_DECIDES``); without it, the pairs found may differ only in those.
        """
        one, g = self.one, self.one.g
        differs = one.solver.fresh_literal(f"differs[{behaviour}:{same_script}]")
        one.solver.add(g.Implies(differs, g.Or(*[x != y for _, x, y in self.terms[behaviour]])))
        shared = [self.same_choices] + ([self.same_script] if same_script else [])
        status = one.check_with(self.bound, self.clauses, [differs] + shared)
        if status == smt.Verdict.UNSAT:
            return None
        if status == smt.Verdict.UNKNOWN:
            return Undetermined(behaviour, one.solver.reason_unknown)
        k, model = self.bound, self.edition.model
        measures = [
            (name, [*mine, *theirs])
            for (name, mine), (_, theirs) in zip(model.measures(one.g, k), model.measures(self.other.g, k), strict=True)
        ]
        self._labels += 1
        return minimise(
            one,
            k,
            self.clauses,
            [differs] + shared,
            measures,
            lambda: self._found(behaviour),
            self._size,
            lambda what: f"ambiguity[{self._labels}]:{what}",
        )

    def _found(self, behaviour: str) -> Ambiguity:
        """The pair of games of the solver's current model."""
        read = self.one.solver.model_reader()
        index = next(i for i, (_, x, y) in enumerate(self.terms[behaviour]) if read(x) != read(y))
        what = self.terms[behaviour][index][0]
        games = (self.one.extract(self.bound), self.other.extract(self.bound))
        # The values as the games themselves give them (the solver reads "none", -1, as an unsigned 255).
        values = tuple(self._observed(trace, behaviour)[index] for trace in games)
        moment, differing = _first_divergence(self.edition, games)
        clauses = _applying(self.edition, games, self.clauses, moment)
        return Ambiguity(behaviour, what, values, games, moment, differing, clauses)

    def _observed(self, trace: Trace, behaviour: str) -> list[Any]:
        g = concrete_game(self.edition, trace, [])
        return [term for b, _, term in self.edition.model.observables(g, self.bound) if b == behaviour]

    def _size(self, found: Ambiguity, index: int) -> int:
        """The ``index``-th size measure of both games together, as ``find`` asks the solver for it."""
        total = 0
        for trace in found.games:
            _, values = self.edition.model.measures(concrete_game(self.edition, trace, self.clauses), self.bound)[index]
            total += sum(1 for v in values if v)
        return total


def _scripted(g: Game, bound: int) -> list[Any]:
    """The terms of what a scenario decides though the model makes them rule variables (the game model's
    ``SCENARIO_DECIDES``: names of rule variables, and functions giving terms), at every moment."""
    out: list[Any] = []
    for t in range(bound):
        for item in g.edition.model.SCENARIO_DECIDES:
            if isinstance(item, str):
                spec = g.schema.spec(item)
                out += [g.var(item, t, *idx) for idx in g.universe.indices(spec.dims)]
            else:
                out += list(item(g, t))
    return out


def _same_order(one: Game, other: Game, bound: int) -> list[Any]:
    """The order in which a player puts their own triggered abilities on the stack is their choice (603.3b):
    where both games put the same abilities on the stack at a moment, from the same controllers at the
    same positions, they put them in the same order.  (Where the batches differ in what is put, or whose
    it is, that difference is not a choice and stays visible.)

    Two instances of one ability are different objects when they triggered at different moments (one
    waited through a moment without priority): each refers to the object and event of its own
    triggering (603.6, 400.7), so which of them goes on top is a choice too, and the same one."""
    model = one.edition.model
    out = []
    for t in range(bound):
        new = [(model.new_slot(one, t, s), model.new_slot(other, t, s)) for s in one.range("slot")]
        same_batch = [x == y for x, y in new]
        same_batch += [
            one.Implies(x, one.slot_controller(t, s) == other.slot_controller(t, s)) for s, (x, _) in enumerate(new)
        ]
        for a in one.range("ability"):
            code = model.ability_code(a)
            counts = [
                one.count(one.And(n, g.slot_src(t, s) == code) for s, n in enumerate(side))
                for g, side in ((one, [x for x, _ in new]), (other, [y for _, y in new]))
            ]
            same_batch.append(counts[0] == counts[1])
            fresh = [
                one.count(one.And(n, g.slot_src(t, s) == code, g.slot_moment(t, s) == t) for s, n in enumerate(side))
                for g, side in ((one, [x for x, _ in new]), (other, [y for _, y in new]))
            ]
            same_batch.append(fresh[0] == fresh[1])
        same_order = [
            one.Implies(
                x, one.And(one.slot_src(t, s) == other.slot_src(t, s), one.slot_moment(t, s) == other.slot_moment(t, s))
            )
            for s, (x, _) in enumerate(new)
        ]
        out.append(one.Implies(one.And(*same_batch), one.And(*same_order)))
    return out


def _first_divergence(edition: Edition, games: Sequence[Trace]) -> tuple[int, tuple[str, ...]]:
    """The first moment at which the two games look different to a reader (the model's ``describe``),
    and how: "column: one / other".  Rule variables nobody reads (who would control an ability that
    doesn't trigger) may differ earlier; they are not where the games part."""
    views = [concrete_game(edition, trace, []) for trace in games]
    for t in range(games[0].length):
        one, other = (edition.model.describe(g, t) for g in views)
        differing = tuple(f"{k}: {one[k] or '-'} / {other[k] or '-'}" for k in one if one[k] != other[k])
        if differing:
            return t, differing
    return games[0].length - 1, ()


def _applying(edition: Edition, games: Sequence[Trace], clauses: Sequence[str], t: int) -> tuple[str, ...]:
    """The clauses whose rules apply (do real work) at moment ``t`` of either game."""
    found: set[str] = set()
    for trace in games:
        g = concrete_game(edition, trace, clauses)
        found |= {n for n in clauses if any(rule.fires() for rule in edition.by_number[n].rules(g, t))}
    return tuple(n for n in clauses if n in found)
