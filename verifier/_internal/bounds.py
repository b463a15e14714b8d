"""Cut off: the games a bound of the model leaves out, found by the solver rather than assumed.

The model holds a game in finite room: its ``CAPACITY_VARIABLES`` (at most ``MAX_COUNT`` instances of one ability in
one batch, a few resolutions of one ability in a turn, 4 lore counters), as many objects on the stack as the
universe has slots, and the game rules' instances marked ``Rule.room == MODEL_BOUND`` (bounds of the
representation itself, such as ``model.pending``'s: the instances of one ability that wait at once have one
controller and one zone of their source).  A game that
needs more is not in the model, so no verdict, ruling or check speaks of it.  This module asks whether there is
such a game: one that obeys every clause and game rule until some moment ``t`` within the room, and at ``t``,
still obeying every clause and game rule, needs more.

The question is put to a roomier model, so that "needs more" is a game and not a broken bound: counts range up
to ``ROOM``, and at ``t`` only, the rules that hold the stack to its slots (``SLOTS``) and the model-bound rules
are set aside (``Encoding(room_apart=...)``).  The stack goes past its slots when the objects in them and the
instances put on it without one (``model.stack_needed``) are more than the slots: an instance merely left
without a slot while there is room is no game that needs more.  Before ``t`` the game stays within the model's
own room, so ``t`` is the first moment it is cut off.  A game whose first batch past the model needs more than
``ROOM`` instances of one ability is not looked at; a spell cast onto a full stack is not either (the reference
engine refuses such a script at its step).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import smt
from .bmc import Encoding
from .registry import MODEL_BOUND, SLOTS, Edition
from .schema import Universe

STACK = "stack_size"
#: The roomier model's counts (and the integers' width, so that sums of them don't wrap): a game needing more than
#: this many instances of one ability in one batch at the first moment it goes past the model is not found.
ROOM, WIDTH = 24, 16


@dataclass(frozen=True)
class CutOff:
    """A bound some game reaches beyond: the games that need more are not in the model.

    ``bound`` is a capacity variable (``triggers``, ``stack_size``) or a model-bound rule's number
    (``model.pending``); ``limit`` the most the model holds (for a rule, 0); ``moment`` the first moment at which
    a game was found to need more; ``unknown``: the solver could not tell whether one does."""

    bound: str
    limit: int
    meaning: str
    moment: int | None = None
    unknown: bool = False
    unit: str = ""  # what a capacity counts ("instances of one ability in one batch"); "" for a rule

    def to_json(self) -> dict[str, Any]:
        return {
            "bound": self.bound,
            "limit": self.limit,
            "meaning": self.meaning,
            "moment": self.moment,
            "unknown": self.unknown,
            **({"unit": self.unit} if self.unit else {}),
        }


#: ``pin(enc)``: a literal of ``enc``'s solver that, assumed, fixes its game to a scenario (``rule603 rule``).
Pin = Callable[[Encoding], Any]


def cut_offs(
    edition: Edition,
    universe: Universe,
    limits: smt.SolverLimits,
    moments: int,
    clauses: Sequence[str],
    pin: Pin | None = None,
    progress: Callable[[str], None] = lambda _: None,
    fixed: Mapping[tuple[str, tuple[int, ...]], int | bool] | None = None,
) -> list[CutOff]:
    """Every bound of the model some game of ``moments`` moments (obeying ``clauses`` and every game rule, and
    playing ``pin``'s scenario if given) needs more than, each with the first moment found; in a fixed order.
    ``fixed``: the scenario's values, known before solving (``Encoding(fixed=...)``)."""
    model = edition.model
    slots = universe.size("slot")
    normal = {spec.name: spec for spec in model.VARIABLES}
    capacities = getattr(model, "CAPACITY_VARIABLES", ())
    counts = [n for n in capacities if n != STACK]
    enc = Encoding(
        edition,
        universe,
        limits,
        variables=model.roomy_variables(ROOM),
        width=WIDTH,
        room_apart=(SLOTS, MODEL_BOUND),
        keep_bounds=True,
        fixed=fixed,
    )
    enc.extend(moments)
    g = enc.g
    pinned = [pin(enc)] if pin is not None else []

    def beyond(t: int) -> dict[str, Any]:
        """Each bound's "some game needs more at ``t``", as a term."""
        out = {}
        for name in counts:
            spec = enc.schema.spec(name)
            out[name] = g.Or(*[g.var(name, t, *idx) > normal[name].max for idx in enc.universe.indices(spec.dims)])
        if STACK in capacities:
            # The slots' bound is set aside at ``t``: instances put on the stack beyond its slots have none.
            out[STACK] = model.stack_needed(g, t) > slots
        out.update(enc.model_bounds_broken[t])
        return out

    found: dict[str, CutOff] = {}
    terms_at = [beyond(t) for t in range(moments)]
    kinds = list(terms_at[-1]) if moments else []  # the last moment has every rule's instances
    for t, terms in enumerate(terms_at):
        progress(f"cut off: moment {t}")
        within = [enc.room_literals[u] for u in range(t)]  # (the stack within its slots, too)
        within += [_within(enc, t, counts, normal)]
        while True:
            wanted = [k for k in kinds if k not in found and k in terms]
            if not wanted:
                break
            goal = enc.solver.fresh_literal(f"cut-off[{t}]")
            enc.solver.add(g.Implies(goal, g.Or(*[terms[k] for k in wanted])))
            answer = enc.check_with(t + 1, clauses, pinned + within + [goal])
            if answer == smt.Verdict.UNSAT:
                break
            if answer == smt.Verdict.UNKNOWN:
                for k in wanted:
                    found[k] = _cut_off(edition, k, normal, slots, t, unknown=True)
                break
            value = enc.solver.model_reader()  # fetched once per answer: a fetch costs more than the reads
            for k in wanted:
                if value(terms[k]):
                    found[k] = _cut_off(edition, k, normal, slots, t)
    return [found[k] for k in kinds if k in found]


def _within(enc: Encoding, t: int, counts: Sequence[str], normal: dict) -> Any:
    """A literal: before ``t`` the game stays within the model's own capacities."""
    g = enc.g
    lit = enc.solver.fresh_literal(f"within[{t}]")
    held = []
    for name in counts:
        spec = enc.schema.spec(name)
        held += [g.var(name, u, *idx) <= normal[name].max for u in range(t) for idx in enc.universe.indices(spec.dims)]
    enc.solver.add(g.Implies(lit, g.And(*held)))
    return lit


def _cut_off(edition: Edition, kind: str, normal: dict, slots: int, t: int, unknown: bool = False) -> CutOff:
    units = getattr(edition.model, "CAPACITY_UNITS", {})
    default = getattr(edition.model, "PER_BATCH", "")
    if kind in normal:
        limit = slots if kind == STACK else normal[kind].max
        return CutOff(kind, limit, normal[kind].doc, t, unknown, units.get(kind, default))
    meanings = getattr(edition.model, "MODEL_BOUND_MEANINGS", {})
    summary = next((ax.summary for ax in edition.axioms if ax.number == kind), "")
    return CutOff(kind, 0, meanings.get(kind, summary), t, unknown)


def probed(edition: Edition) -> list[str]:
    """What the probe looks at, in the game's words: the model's capacities and its model bounds."""
    model = edition.model
    units = getattr(model, "CAPACITY_UNITS", {})
    per_batch = getattr(model, "PER_BATCH", "")
    kinds = dict.fromkeys(units.get(n, per_batch) for n in getattr(model, "CAPACITY_VARIABLES", ()))
    bounds = [ax.number for ax in edition.axioms if ax.number in getattr(model, "MODEL_BOUND_MEANINGS", {})]
    return [k for k in kinds if k] + [f"{n}'s bound" for n in bounds]


def unprobed(edition: Edition) -> list[str]:
    """The games the model leaves out that the probe does not look for."""
    beyond_room = f"a game whose first batch past the model needs more than {ROOM} instances of one ability"
    return [*getattr(edition.model, "UNPROBED_BOUNDS", ()), beyond_room]


def cut_off_text(cut: Sequence[CutOff], games: str, edition: Edition, no_game: bool = False) -> str:
    """One line on what the bounds cut off, for ``games`` ("within bound 8", "of this scenario"); ``no_game``: no
    compliant game fits (a ruling's conflict), so "none" also says the conflict is not the bounds probed."""
    looked = f"the bounds the solver probes ({', '.join(probed(edition))})"
    not_looked = f"Not probed: {'; '.join(unprobed(edition))}."
    if not cut and no_game:
        return (
            f"Cut off: none. No compliant game fits, and no game {games} that obeys the rules up to some moment "
            f"goes past {looked} there: the conflict is not those bounds. {not_looked}"
        )
    if not cut:
        return f"Cut off: none. No game {games} goes past {looked}. {not_looked}"
    sure = [c for c in cut if not c.unknown]
    parts = []
    for limit, unit in sorted({(c.limit, c.unit) for c in sure if c.unit}):
        group = [c for c in sure if c.unit == unit and c.limit == limit]
        first = min(c.moment or 0 for c in group)
        names = ", ".join(c.bound for c in group)
        parts.append(f"more than {limit} {unit} ({names}; from moment {first})")
    parts += [f"{c.meaning} ({c.bound}; from moment {c.moment})" for c in sure if not c.unit]
    text = ""
    if parts:
        text = f"Cut off: the model leaves out games {games} with {'; '.join(parts)}. No answer here speaks of them."
    unsure = [c.bound for c in cut if c.unknown]
    if unsure:
        text += f"{' ' if text else 'Cut off: '}The solver could not tell whether games {games} go past "
        text += f"{', '.join(unsure)}."
    return f"{text} {not_looked}"
