"""Ruling: every rule-compliant game of a scripted scenario, and the clauses that force each answer.

The scenario fixes what players and effects do (the environment variables of its trace);
what the rules decide (the rule variables) is left to the solver.  For each question the
solver enumerates every value the asked term can take in a compliant game.  A single value
is forced: the clauses that force it are an unsat core of "the term differs", minimised by
dropping clauses one at a time.  A scenario no compliant game fits is reported with the
clauses that conflict, the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import smt
from .bmc import Encoding, fixed_by, scenario_equalities
from .bounds import CutOff, cut_offs
from .registry import Edition
from .schema import Game, Schema
from .trace import Trace

MAX_VALUES = 8  # values enumerated per question before saying "depends" without listing more
SCRIPT_DECIDES = "the scenario's own events decide it, whatever the clauses say"

#: A rule variable's name, or ``term(g, t)``: terms over moment ``t`` the script decides as well.
Fixed = str | Callable[[Game, int], Sequence[Any]]


@dataclass(frozen=True)
class Ask:
    """A question as a term over the trace: ``value(g)`` is what is asked."""

    id: str
    text: str
    value: Callable[[Game], Any]
    boolean: bool = False  # a yes/no question: "always" yes, "never", or "depends"
    labels: tuple[str, ...] = ()  # names of the values (zones, players), when they are codes


@dataclass
class Answer:
    id: str
    text: str
    answer: str  # "always", "never", "depends" or "unknown"
    values: list[Any]
    clauses: list[str] = field(default_factory=list)  # a minimal set of clauses that forces a single value
    note: str = ""
    games: list[Trace] = field(default_factory=list, repr=False)  # for "depends": a game for each value
    needed: list[str] = field(default_factory=list)  # of ``clauses``, those no other clauses can stand in for

    def summary(self) -> str:
        """The answer in a few words, as a scenario file's ``expect`` states it: "always 2",
        "always yes", "always Bob", "never", "depends" (or "unknown")."""
        if self.answer != "always":
            return self.answer
        value = self.values[0]
        return f"always {('yes' if value else 'no') if isinstance(value, bool) else value}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.text,
            "answer": self.answer,
            "summary": self.summary(),
            "values": self.values,
            "clauses": self.clauses,
            "needed": self.needed,
            **({"note": self.note} if self.note else {}),
        }


@dataclass
class Ruling:
    consistent: bool
    answers: list[Answer]
    conflict: list[str] = field(default_factory=list)  # when no compliant game fits the scenario
    conflict_note: str = ""  # who the conflict is with, when it is not clauses of 603
    #: checks the solver left unknown on the way (a minimal core's trial, a *needed* mark, who decides an answer or a
    #: conflict): the answers stand, but a longer limit could cite other clauses
    unknown_checks: int = 0
    #: the model's bounds some game of the scenario needs more than (``bounds.cut_offs``), when asked for
    cut_off: list[CutOff] | None = None


def rule_scenario_file(loaded: Any, limits: smt.SolverLimits, edition_name: str | None = None) -> tuple:
    """A scenario file (``engines.scenario_file.load``) ruled as ``rule603 rule`` rules it: its script played by
    the reference engine, its questions answered with the cut-off probe.  Gives ``(played, edition, ruling)``."""
    played, edition = play_scenario_file(loaded, edition_name)
    return played, edition, rule_played(loaded, played, edition, limits)


def play_scenario_file(loaded: Any, edition_name: str | None = None) -> tuple[Trace, Edition]:
    """A scenario file's script played by the reference engine, and the edition it is ruled in."""
    from .catalogue import load_edition

    edition = load_edition(edition_name or loaded.edition)
    return scenario_files().play(loaded), edition


def rule_played(loaded: Any, played: Trace, edition: Edition, limits: smt.SolverLimits) -> Ruling:
    """A scenario file's questions answered over its played script, with the cut-off probe."""
    files = scenario_files()
    asks = files.asks(loaded, played)
    return rule(edition, played, asks, limits, also_fixed=files.FIXED_BY_SCRIPT, cut_off=True)


def scenario_files() -> Any:
    return importlib.import_module("rule603.engines.scenario_file")  # engines depend on rule603, not the reverse


def rule(
    edition: Edition,
    script: Trace,
    asks: Sequence[Ask],
    limits: smt.SolverLimits,
    without: Sequence[str] = (),
    also_fixed: Sequence[Fixed] = (),
    cut_off: bool = False,
    fold: bool = True,
) -> Ruling:
    """Answer ``asks`` over every game that plays ``script``'s environment and obeys every clause
    (but those named in ``without``: what a clause contributes shows by leaving it out).

    ``also_fixed`` names what the script decides besides its environment: rule variables (e.g.
    object identity, when a permanent leaves and returns within one batch), or functions giving
    terms at each moment (e.g. which delayed abilities the resolving effects create), pinned to
    their value in the script.

    ``cut_off``: also ask which of the model's bounds some game of the scenario needs more than
    (``Ruling.cut_off``): the answers speak only of the games within them.

    ``fold``: give the encodings the script's values as Python values, so that what the scenario decides is
    folded before the solver sees it (about twice as fast); off, they are only pinned by equalities.  The two
    must answer alike (tests/test_rule.py)."""
    schema = Schema(tuple(edition.model.VARIABLES))
    fixed = fixed_by(schema, script, also_fixed) if fold else None
    enc = Encoding(edition, script.universe, limits, track_axioms=True, fixed=fixed)
    pin = pin_scenario(enc, script, also_fixed)
    clauses = [e.number for e in edition.encodings if e.number not in without]
    base = enc.moment_literals[: script.length] + [pin] + list(enc.axiom_literals.values())
    lits = {n: enc.solver.literal(n) for n in clauses}
    status = enc.solver.check(base + list(lits.values()))
    if status == smt.Verdict.UNSAT:
        ruling = _no_compliant_game(enc, base, lits)
    elif status == smt.Verdict.UNKNOWN:
        ruling = Ruling(True, [Answer(a.id, a.text, "unknown", [], note=enc.solver.reason_unknown) for a in asks])
    else:
        ruling = Ruling(True, [_answer(enc, base, lits, ask) for ask in asks])
    ruling.unknown_checks = enc.solver.unknowns
    if cut_off:
        ruling.cut_off = cut_offs(
            edition,
            script.universe,
            limits,
            script.length,
            clauses,
            pin=lambda roomy: pin_scenario(roomy, script, also_fixed),
            fixed=fixed,
        )
        past = [c.bound for c in ruling.cut_off if not c.unknown]
        if not ruling.consistent and past:
            room = (
                f"games of this scenario go past the model's bounds ({', '.join(past)}): the conflict may be the "
                "model's room, not the rules"
            )
            ruling.conflict_note = f"{ruling.conflict_note}; {room}" if ruling.conflict_note else room
    return ruling


def _no_compliant_game(enc: Encoding, base: list, lits: dict[str, Any]) -> Ruling:
    """Why no game fits: the clauses of 603 that conflict with the script, or, where none is needed, the game's
    rules outside 603 that the script itself breaks; never an empty list without a word."""
    core = minimal_core(enc, base, lits, [])
    if core:
        return Ruling(False, [], core)
    if core is None:
        reason = enc.solver.reason_unknown
        return Ruling(False, [], [], f"the solver could not name the clauses ({reason})")
    tracked = list(enc.axiom_literals.values())
    untracked = [lit for lit in base if not any(lit is t for t in tracked)]
    rules = minimal_core(enc, untracked + list(lits.values()), enc.axiom_literals, [])
    if rules:
        return Ruling(
            False, [], rules, "no clause of rule 603 is needed: the script breaks the game's rules outside it"
        )
    reason = enc.solver.reason_unknown if rules is None else "the script's own events contradict each other"
    note = f"no clause of rule 603 is needed, and no game rule could be named ({reason})"
    return Ruling(False, [], [], note)


def decided(ruling: Ruling) -> bool:
    """Whether the solver decided every part of ``ruling`` (nothing unknown), so that a longer limit gives the same."""
    answered = all(a.answer != "unknown" for a in ruling.answers)
    return answered and not ruling.unknown_checks and not any(c.unknown for c in ruling.cut_off or ())


def pin_scenario(enc: Encoding, script: Trace, also_fixed: Sequence[Fixed] = (), name: str = "scenario") -> Any:
    """A literal that, assumed, fixes ``enc``'s trace to ``script``'s scenario: its environment
    (what players and effects do) and ``also_fixed``; what the rules decide stays open.
    ``name`` must be new to ``enc``'s solver: a literal of the same name is the same literal."""
    enc.extend(script.length)
    pin = enc.solver.fresh_literal(name)
    for equality in scenario_equalities(enc, script, also_fixed):
        if equality is not True:  # (a value the encoding was given as fixed)
            enc.solver.add(enc.g.Implies(pin, equality))
    return pin


def _named(ask: Ask, answer: Answer) -> Answer:
    if ask.labels:
        answer.values = [ask.labels[v] if isinstance(v, int) and 0 <= v < len(ask.labels) else v for v in answer.values]
    return answer


def _answer(enc: Encoding, base: list, lits: dict[str, Any], ask: Ask) -> Answer:
    return _named(ask, _values(enc, base, lits, ask))


def _values(enc: Encoding, base: list, lits: dict[str, Any], ask: Ask) -> Answer:
    g = enc.g
    term = ask.value(g)
    if isinstance(term, (bool, int)):  # decided by the script alone
        value = bool(term) if ask.boolean else term
        return Answer(ask.id, ask.text, _kind(ask, [value]), [value], [], SCRIPT_DECIDES)
    values: list[Any] = []
    games: list[Trace] = []
    blocks: list[Any] = []
    while len(values) < MAX_VALUES:
        status = enc.solver.check(base + list(lits.values()) + blocks)
        if status == smt.Verdict.UNKNOWN:
            return Answer(ask.id, ask.text, "unknown", values, note=enc.solver.reason_unknown)
        if status == smt.Verdict.UNSAT:
            break
        value = enc.solver.model_value(term)
        values.append(value)
        games.append(enc.extract(enc.depth))
        block = enc.solver.fresh_literal(f"{ask.id}!={value}")
        enc.solver.add(g.Implies(block, term != value))
        blocks.append(block)
    order = sorted(range(len(values)), key=lambda i: values[i])
    values, games = [values[i] for i in order], [games[i] for i in order]
    if len(values) != 1:
        return Answer(ask.id, ask.text, _kind(ask, values), values, games=games)
    other = enc.solver.fresh_literal(f"{ask.id}:not")
    enc.solver.add(g.Implies(other, term != values[0]))
    core = minimal_core(enc, base, lits, [other])
    if core is None:  # the solver could not show that the value is forced after all
        return Answer(ask.id, ask.text, "unknown", values, note=enc.solver.reason_unknown)
    note = "" if core else _decided_outside_603(enc, base, other)
    needed = [n for n in core if _answer_changes_without(enc, base + [other], lits, n)]
    return Answer(ask.id, ask.text, _kind(ask, values), values, core, note, needed=needed)


def _decided_outside_603(enc: Encoding, base: list, other: Any) -> str:
    """Who decides an answer no clause of 603 is needed for: the script alone, or with the rules of the game
    outside 603 the model follows (such as 605.4a, a mana ability never uses the stack).  Where the solver can't
    tell, it says so, and its unknown check leaves the ruling undecided (``Ruling.unknown_checks``)."""
    tracked = list(enc.axiom_literals.values())
    untracked = [lit for lit in base if not any(lit is t for t in tracked)]
    rules = minimal_core(enc, untracked, enc.axiom_literals, [other])
    if rules is None:
        reason = enc.solver.reason_unknown
        return f"no clause of rule 603 is needed; which game rules decide it is unknown ({reason})"
    if not rules:
        return SCRIPT_DECIDES
    return f"no clause of rule 603 is needed: the game's rules outside it decide it ({', '.join(rules)})"


def _answer_changes_without(enc: Encoding, base: list, lits: dict[str, Any], number: str) -> bool:
    """With every clause but ``number`` in force, can the answer differ?  (Another minimal set of
    clauses may force it as well: 603.2c and 603.2h often stand in for each other.)"""
    return enc.solver.check(base + [lit for n, lit in lits.items() if n != number]) == smt.Verdict.SAT


def _kind(ask: Ask, values: list[Any]) -> str:
    if len(values) != 1:
        return "depends"
    if ask.boolean and not values[0]:
        return "never"
    return "always"


def minimal_core(enc: Encoding, base: list, lits: dict[str, Any], extra: list) -> list[str] | None:
    """Clauses that together make ``base + extra`` unsatisfiable, none of them superfluous ([] if it is
    satisfiable with all of them; None if the solver can't tell)."""
    status = enc.solver.check(base + extra + list(lits.values()))
    if status == smt.Verdict.UNKNOWN:
        return None
    if status != smt.Verdict.UNSAT:
        return []
    core = [n for n in enc.solver.unsat_core_names() if n in lits]
    # The model's own bookkeeping ("model.pending") is tried first for removal, so that a rule of the
    # game a judge can look up is named where either would do.
    core.sort(key=lambda n: not n.startswith("model."))
    for number in list(core):
        trial = [lits[n] for n in core if n != number]
        if enc.solver.check(base + extra + trial) == smt.Verdict.UNSAT:
            core.remove(number)
    return sorted(core, key=_clause_order)


def _clause_order(number: str) -> tuple:
    rule_part, _, sub = number.partition(".")
    digits = "".join(ch for ch in sub if ch.isdigit())
    letters = "".join(ch for ch in sub if ch.isalpha())
    return (rule_part, int(digits or 0), letters)
