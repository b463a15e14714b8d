"""Ambiguities: one situation, two continuations that obey every clause, and an observable outcome that differs.

Moment-local, as the contradiction check is.  For each moment ``t`` from 1 below the bound: is there a
prefix of moments ``0..t-1`` obeying every clause and game rule, and an environment for moment ``t``
(what players and effects do), such that two choices of moment ``t``'s rule values both obey every
clause and game rule, make the same choices of the players, and differ in something the players see
happen at ``t`` (``moment_observables`` in the game model: what triggers, how many times, who controls
it, stack order, whether it does anything on resolution)?  Moment 0 is the start of a game: its state
is all situation, not a response to events.

Two copies of the trace live in one solver (``Encoding(twin_of=...)``): they share every environment
variable and constant, so they play the same scenario (the same cards, the same events), and at the
moments before ``t`` their rule variables are equal too, so they are one game until ``t``.  The order
in which a player puts their own triggers on the stack is their choice (603.3b): where both games put
the same abilities on the stack, they put them in the same order, so that order is never an ambiguity.

Each moment is first asked of its last moments of history alone (``WINDOWS``), which can only prove
that no pair exists, then of the whole game: by CaDiCaL first where the run allows it (``cadical``), on one copy
of z3's clauses per moment, which also only proves that none exists, and then by z3, which alone finds pairs.
What this does not ask: two games that differ first in
something nobody sees at that moment (which player would control an ability that does not trigger)
and show it only at a later one, where they are no longer one game before it; nor, so, any pair whose
rule values part before the moment where they first look different.  The old search over whole games
asked that too, and at bound 5 did not end in 20 minutes.

A found pair is explained by the moment where the two games part, which variables differ there, and
the clauses that apply at that moment in either game (their ``fires``) - the clauses that speak
about the situation and still let it go either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import sat, smt
from .bmc import Encoding, concrete_game
from .registry import Edition
from .schema import RULE, Game, Universe
from .trace import Trace
from .verify import minimise

#: The moments of history the first, cheaper checks at a moment keep (see ``AmbiguitySearch._recently_none``).
WINDOWS = (1, 2)


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


@dataclass
class _Twins:
    """Two traces of one scenario in one solver, and per moment the literals that make them one game
    (``same_game``), make the same choices (``same_choices``) and agree on what a scenario decides
    (``same_script``)."""

    one: Encoding
    other: Encoding
    same_game: list[Any]
    same_choices: list[Any]
    same_script: list[Any]

    @classmethod
    def build(cls, edition: Edition, universe: Universe, limits: smt.SolverLimits) -> _Twins:
        one = Encoding(edition, universe, limits, restartable=True)
        return cls(one, Encoding(edition, universe, limits, twin_of=one), [], [], [])

    def extend(self, moments: int) -> None:
        """Both games encoded up to ``moments`` moments, with each new moment's literals.  The search adds a
        moment only when it reaches it: a solver that also holds the moments no question asks of yet was
        measured spending its whole limit on questions a solver without them decides in seconds."""
        self.one.extend(moments)
        self.other.extend(moments)
        g, h, solver = self.one.g, self.other.g, self.one.solver
        for t in range(len(self.same_game), moments):
            for name, terms, kept in (
                ("same-game", _rule_values_equal(g, h, t), self.same_game),
                ("same-choices", _same_order(g, h, t), self.same_choices),
                ("same-script", _script_equal(g, h, t), self.same_script),
            ):
                lit = solver.fresh_literal(f"{name}[{t}]")
                solver.add(g.Implies(lit, g.And(*terms)))
                kept.append(lit)

    def asked(self, behaviour: str, t: int, same_script: bool) -> list[Any]:
        """The literals asking for a pair at ``t`` that differs in what the players see of ``behaviour``."""
        g = self.one.g
        differs = self.one.solver.fresh_literal(f"differs[{behaviour}:{t}:{same_script}]")
        terms = _seen(g, self.other.g, behaviour, t)
        self.one.solver.add(g.Implies(differs, g.Or(*[x != y for _, x, y in terms])))
        return [differs, self.same_choices[t]] + ([self.same_script[t]] if same_script else [])


class AmbiguitySearch:
    """The ambiguity questions of one edition within a bound.  A search is meant to be asked once
    (``find_all``): it encodes the moments as it reaches them, and a second pass would start its first
    moments in solvers already holding them all."""

    def __init__(
        self, edition: Edition, universe: Universe, limits: smt.SolverLimits, bound: int, *, cadical: bool = False
    ) -> None:
        """``cadical``: CaDiCaL first tries to prove that a moment has no pair (under ``limits.conflicts``), and z3
        asks only what it could not prove (``sat.py``)."""
        self.edition, self.bound, self.limits, self.cadical = edition, bound, limits, cadical
        self.clauses = [e.number for e in edition.encodings]
        self._labels = 0
        self.whole = _Twins.build(edition, universe, limits)
        # The cheaper first questions get a solver of their own: one they leave undecided starts its solver
        # again (``smt.Solver``), which must not cost the whole-game questions what they have learned.
        self.recent = _Twins.build(edition, universe, limits)
        self.one, self.other = self.whole.one, self.whole.other

    @property
    def behaviours(self) -> list[str]:
        return list(self.edition.model.BEHAVIOURS)

    def find_all(
        self,
        behaviours: Sequence[str] | None = None,
        *,
        same_script: bool = True,
        progress: Callable[[int], None] = lambda _: None,
    ) -> dict[str, Ambiguity | Undetermined | None]:
        """For each behaviour (every one by default): a situation and two compliant continuations that differ
        in it, at the first moment that has one; ``None`` if no moment has one, or why it is unknown at some
        moment if none was found.  Moment by moment, every behaviour still open at each (what one question
        learns about a moment helps the next, and the solvers grow only as the moments are reached);
        ``progress`` is called with each moment.

        ``same_script``: the two games also agree on what the model leaves to rule variables but a
        scenario decides (the game model's ``SCENARIO_DECIDES``); without it, the pairs found may differ only in those.
        """
        asked = list(self.behaviours if behaviours is None else behaviours)
        answers = self._search([(b, same_script) for b in asked], progress)
        return {b: answers[b, same_script] for b in asked}

    def find_with_artefacts(
        self, progress: Callable[[int], None] = lambda _: None
    ) -> tuple[dict[str, Ambiguity | Undetermined | None], dict[str, Ambiguity | Undetermined | None]]:
        """``find_all`` for every behaviour within one script (the findings), and across scripts for those it finds
        no pair for (modelling artefacts), in one pass over the moments: each moment asks the question across
        scripts first, and where it has no pair, neither has the question within one script."""
        asked = self.behaviours
        answers = self._search([(b, False) for b in asked] + [(b, True) for b in asked], progress)
        strict = {b: answers[b, True] for b in asked}
        return strict, {b: answers[b, False] for b in asked if strict[b] is None}

    def _search(
        self, questions: Sequence[tuple[str, bool]], progress: Callable[[int], None]
    ) -> dict[tuple[str, bool], Ambiguity | Undetermined | None]:
        """Each question's (a behaviour, within one script or not) pair at the first moment that has one; ``None``
        if no moment has one, or why it is unknown at some moment if none was found.  Moment by moment, every
        question still open at each (what one question learns about a moment helps the next, and the solvers grow
        only as the moments are reached); one across scripts is closed too once its behaviour has a pair within one
        script.  ``progress`` is called with each moment."""
        found: dict[tuple[str, bool], Ambiguity] = {}
        unknown: dict[tuple[str, bool], list[str]] = {q: [] for q in questions}
        for t in range(1, self.bound):
            progress(t)
            open_ = [q for q in questions if q not in found and (q[0], True) not in found]
            for question, answer in self._ask(t, open_).items():
                if isinstance(answer, Ambiguity):
                    found[question] = answer
                elif isinstance(answer, str):
                    unknown[question].append(f"moment {t}: {answer}")
        return {
            q: found.get(q) or (Undetermined(q[0], "; ".join(unknown[q])) if unknown[q] else None) for q in questions
        }

    def find(self, behaviour: str, *, same_script: bool = True) -> Ambiguity | Undetermined | None:
        """``find_all`` for one behaviour."""
        return self.find_all([behaviour], same_script=same_script)[behaviour]

    def _moment(self, behaviours: Sequence[str], t: int, same_script: bool) -> dict[str, Ambiguity | str | None]:
        """Each behaviour's pair at moment ``t``, ``None`` if it has none, or the solver's reason it could not
        tell."""
        answers = self._ask(t, [(b, same_script) for b in behaviours])
        return {b: answers[b, same_script] for b in behaviours}

    def _ask(self, t: int, questions: Sequence[tuple[str, bool]]) -> dict[tuple[str, bool], Ambiguity | str | None]:
        """Each question's (a behaviour, within one script or not) pair at moment ``t``, ``None`` if it has none,
        or the solver's reason it could not tell.  A question within one script whose behaviour has no pair across
        scripts (asked before it) has none either."""
        answers: dict[tuple[str, bool], Ambiguity | str | None] = {}

        def settled(question: tuple[str, bool]) -> bool:
            behaviour, same_script = question
            return same_script and (behaviour, False) in answers and answers[behaviour, False] is None

        left = []
        for question in questions:
            if settled(question) or self._recently_none(question[0], t, question[1]):
                answers[question] = None
            else:
                left.append(question)
        if left:
            self.whole.extend(t + 1)
        now = {q: self.whole.asked(q[0], t, q[1]) for q in left}
        for question in self._proved_none(t, now):
            answers[question] = None
        for question in left:
            if question not in answers:
                answers[question] = None if settled(question) else self._at(question[0], t, now[question])
        return {q: answers[q] for q in questions}

    def _proved_none(self, t: int, now: dict[tuple[str, bool], list[Any]]) -> set[tuple[str, bool]]:
        """The questions CaDiCaL proves have no pair at ``t`` (with ``cadical``), on one copy of z3's clauses for
        the moment; a question within one script is proved with the same behaviour's across scripts.  Only once z3
        has bit-blasted the solver: its first check at moment 1 is z3's own."""
        solver = self.one.solver
        if not (self.cadical and now and solver.bit_blasted):
            return set()
        units = self.one.assumptions(t + 1, self.clauses) + self.whole.same_game[:t]
        cnf = sat.CnfSolver(solver.dimacs(), [str(x) for x in units])
        proved = set()
        for (behaviour, same_script), literals in now.items():
            if same_script and (behaviour, False) in proved:
                proved.add((behaviour, same_script))
                continue
            if cnf.proves([str(x) for x in literals], self.limits.timeout_ms, self.limits.conflicts):
                proved.add((behaviour, same_script))
        return proved

    def _at(self, behaviour: str, t: int, now: list[Any]) -> Ambiguity | str | None:
        """z3's pair at moment ``t`` (``now``: the literals asking for it), ``None`` if there is none, or z3's
        reason it could not tell."""
        one, whole = self.one, self.whole
        status = one.check_with(t + 1, self.clauses, whole.same_game[:t] + now)
        if status == smt.Verdict.UNSAT:
            return None
        if status == smt.Verdict.UNKNOWN:
            return one.solver.reason_unknown
        model = self.edition.model
        measures = [
            (name, [*mine, *theirs])
            for (name, mine), (_, theirs) in zip(
                model.measures(one.g, t + 1), model.measures(self.other.g, t + 1), strict=True
            )
        ]
        self._labels += 1
        return minimise(
            one,
            t + 1,
            self.clauses,
            whole.same_game[:t] + now,
            measures,
            lambda: self._found(behaviour, t),
            lambda found, index: self._size(found, index, t + 1),
            lambda what: f"ambiguity[{self._labels}]:{what}",
        )

    def _recently_none(self, behaviour: str, t: int, same_script: bool) -> bool:
        """Is there no pair at ``t`` even after any state ``WINDOWS`` moments back (free, but the same in both
        games)?  No pair after any such state means no pair after a real game's, and that smaller question,
        asked with half a call's limits, is often much easier than the whole game's."""
        recent = self.recent
        recent.extend(t + 1)
        solver = recent.one.solver
        limits = solver.limits
        budget = {"rlimit": max(1, limits.rlimit // 2)} if limits.rlimit else {"timeout_ms": limits.timeout_ms // 2}
        clauses = [solver.literal(n) for n in self.clauses]
        now = recent.asked(behaviour, t, same_script)
        for window in WINDOWS:
            if window >= t:
                break
            start = t - window
            asked = recent.one.moment_literals[start : t + 1] + recent.same_game[start - 1 : t] + clauses + now
            if solver.check(asked, **budget) == smt.Verdict.UNSAT:
                return True
        return False

    def _found(self, behaviour: str, t: int) -> Ambiguity:
        """The pair of games of the solver's current model, moments ``0..t``."""
        read = self.one.solver.model_reader()
        terms = _seen(self.one.g, self.other.g, behaviour, t)
        index = next(i for i, (_, x, y) in enumerate(terms) if read(x) != read(y))
        what = terms[index][0]
        games = (self.one.extract(t + 1), self.other.extract(t + 1))
        # The values as the games themselves give them (the solver reads "none", -1, as an unsigned 255).
        values = tuple(self._observed(trace, behaviour, t)[index] for trace in games)
        moment, differing = _first_divergence(self.edition, games)
        clauses = _applying(self.edition, games, self.clauses, moment)
        return Ambiguity(behaviour, what, values, games, moment, differing, clauses)

    def _observed(self, trace: Trace, behaviour: str, t: int) -> list[Any]:
        g = concrete_game(self.edition, trace, [])
        return [term for b, _, term in self.edition.model.moment_observables(g, t) if b == behaviour]

    def _size(self, found: Ambiguity, index: int, moments: int) -> int:
        """The ``index``-th size measure of both games together, as ``_at`` asks the solver for it."""
        total = 0
        for trace in found.games:
            _, values = self.edition.model.measures(concrete_game(self.edition, trace, self.clauses), moments)[index]
            total += sum(1 for v in values if v)
        return total


def _seen(one: Game, other: Game, behaviour: str, t: int) -> list[tuple[str, Any, Any]]:
    """``(what, term in one game, term in the other)`` for what the players see of ``behaviour`` at ``t``."""
    model = one.edition.model
    pairs = zip(model.moment_observables(one, t), model.moment_observables(other, t), strict=True)
    return [(what, x, y) for (b, what, x), (_, _, y) in pairs if b == behaviour]


def _rule_values_equal(one: Game, other: Game, t: int) -> list[Any]:
    """Every rule variable of moment ``t`` has the same value in both games."""
    return [
        one.var(spec.name, t, *idx) == other.var(spec.name, t, *idx)
        for spec in one.schema.specs
        if spec.per_moment and spec.role == RULE
        for idx in one.universe.indices(spec.dims)
    ]


def _script_equal(one: Game, other: Game, t: int) -> list[Any]:
    """Both games agree at moment ``t`` on what a scenario decides though the model makes it rule variables
    (the game model's ``SCENARIO_DECIDES``: names of rule variables, and functions giving terms)."""
    return [x == y for x, y in zip(_scripted(one, t), _scripted(other, t), strict=True)]


def _scripted(g: Game, t: int) -> list[Any]:
    out: list[Any] = []
    for item in g.edition.model.SCENARIO_DECIDES:
        if isinstance(item, str):
            spec = g.schema.spec(item)
            out += [g.var(item, t, *idx) for idx in g.universe.indices(spec.dims)]
        else:
            out += list(item(g, t))
    return out


def _same_order(one: Game, other: Game, t: int) -> list[Any]:
    """The order in which a player puts their own triggered abilities on the stack is their choice (603.3b):
    where both games put the same abilities on the stack at moment ``t``, from the same controllers at the
    same positions, they put them in the same order.  (Where the batches differ in what is put, or whose
    it is, that difference is not a choice and stays visible.)

    Two instances of one ability are different objects when they triggered at different moments (one
    waited through a moment without priority): each refers to the object and event of its own
    triggering (603.6, 400.7), so which of them goes on top is a choice too, and the same one."""
    model = one.edition.model
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
    return [one.Implies(one.And(*same_batch), one.And(*same_order))]


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
