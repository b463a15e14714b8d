"""`rule603 diff A B`: what changed between two editions, in the text and in what the rules allow.

Three parts, each from one source of truth:

* the text: the reviewed clause alignment (:func:`.editions.align`), each pair of clauses
  compared word by word;
* the verdicts: the property catalogue checked against both editions, every property whose
  verdict differs;
* the behaviour: for each clause of one edition, a game the other edition allows that breaks
  it (the shortest, then the smallest, the solver finds).  Its scenario (what players and
  effects do) is then played under the edition it breaks: each observable behaviour of the
  game (``observables`` in the game model) the breaking edition cannot reproduce in that
  scenario is a behavioural difference, with the clauses that forbid it (a minimal core) and a
  game that edition allows instead.  A clause whose broken games all look the same to the
  players differs only in how the rules keep track, and is listed as such.

No game within the bound breaks a clause: the editions agree on it there, and that is a proof
to the bound, not a sample.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import smt
from .bmc import Encoding, concrete_game
from .catalogue import builtin_properties, load_edition
from .editions import align, aligned_clauses, find_edition, localise
from .registry import Edition, Property
from .ruling import minimal_core, pin_scenario
from .trace import Trace
from .verdicts import VerdictStore
from .verify import NOT_APPLICABLE, CheckResult, Options, Verifier, cadical_budget

DIFFERS, SAME, UNKNOWN = "differs", "same", "unknown"
#: A committed diff must read the same on every machine, so budgets decide what is unknown, not the wall clock (a
#: safety net of ten minutes): z3's resource limit, 600 million (about 250 s of solving on the slow machine of
#: 2026-11-26, where with a 60-s wall clock ``state-trigger-single-instance`` was "unknown" in battlefield-en and
#: "holds" on a faster one), and CaDiCaL's conflicts for the catalogue's proofs, two million (about thirty times
#: what the hardest proof of current at bound 8 takes).
DIFF_LIMITS = smt.SolverLimits(timeout_ms=600_000, rlimit=600_000_000, conflicts=2_000_000)
RETRIES = 2  # other scenarios tried for a clause whose first broken game looks the same to the players
NO_VISIBLE_DIFFERENCE = (
    "The players see no difference in this game: {edition} can reproduce every observable behaviour of it; "
    "the clauses differ in how the rules keep track (which instance, which moment)."
)

Progress = Callable[[str], None]


# --- the text ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WordChange:
    op: str  # "same", "removed" or "added"
    text: str


@dataclass(frozen=True)
class TextRow:
    """One row of the alignment: clause ``a`` of the first edition and what it became, ``b``."""

    a: str | None
    b: str | None
    kind: str  # as in the alignment: same, reworded, renumbered, new, removed, translation, ...
    a_text: str
    b_text: str
    words: tuple[WordChange, ...]  # empty for a translation: a word diff across languages says nothing


def word_changes(a: str, b: str) -> tuple[WordChange, ...]:
    """``a`` to ``b`` word by word: runs of unchanged, removed and added words."""
    old, new = a.split(), b.split()
    out: list[WordChange] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(WordChange("same", " ".join(old[i1:i2])))
            continue
        if i2 > i1:
            out.append(WordChange("removed", " ".join(old[i1:i2])))
        if j2 > j1:
            out.append(WordChange("added", " ".join(new[j1:j2])))
    return tuple(out)


def text_rows(a: str, b: str) -> list[TextRow]:
    doc_a, doc_b = find_edition(a).document(), find_edition(b).document()
    rows = []
    for link in align(a, b).links:
        a_text = doc_a.get(link.a).text if link.a else ""
        b_text = doc_b.get(link.b).text if link.b else ""
        words = () if link.kind == "translation" else word_changes(a_text, b_text)
        rows.append(TextRow(link.a, link.b, link.kind, a_text, b_text, words))
    return rows


# --- the behaviour ----------------------------------------------------------------------


@dataclass(frozen=True)
class Behaviour:
    """One observable behaviour a game shows under one edition and the other cannot reproduce."""

    behaviour: str  # one of the game model's BEHAVIOURS
    changes: tuple[tuple[str, str, str], ...]  # (what, in the allowed game, in the game instead), in words
    clauses: tuple[str, ...]  # a minimal set of the refusing edition's clauses that forbid it


@dataclass
class Witness:
    """A game ``allowed`` allows and ``refused`` does not: it breaks ``clause`` of ``refused``."""

    id: str
    allowed: str
    refused: str
    clause: str
    counterparts: tuple[str, ...]  # ``allowed``'s clauses aligned with ``clause``
    trace: Trace
    behaviours: list[Behaviour] = field(default_factory=list)
    instead: Trace | None = None  # a game of the same scenario ``refused`` allows
    note: str = ""


@dataclass(frozen=True)
class Search:
    """Was clause ``clause`` of ``refused`` broken by a game ``allowed`` allows?"""

    allowed: str
    refused: str
    clause: str
    result: str  # DIFFERS, SAME or UNKNOWN
    witness: str = ""  # the witness id, for DIFFERS


@dataclass(frozen=True)
class VerdictRow:
    property: str
    a: str
    b: str

    @property
    def unknown(self) -> bool:
        return UNKNOWN in (self.a, self.b)


@dataclass
class Diff:
    a: str
    b: str
    bound: int
    text: list[TextRow]
    verdicts: list[VerdictRow]
    witnesses: list[Witness]
    searches: list[Search]
    behaviours: tuple[str, ...]
    editions: dict[str, Edition] = field(default_factory=dict, repr=False)  # by name, for rendering games
    rlimit: int = 0  # z3's resource limit per solver call (0: none, the wall clock decides)
    conflicts: int = 0  # CaDiCaL's conflict budget per proof of a catalogue property (0: none)

    def by_behaviour(self) -> dict[tuple[str, str], list[str]]:
        """(behaviour, "A->B") -> the ids of the witnesses that show it, A allowing and B refusing."""
        out: dict[tuple[str, str], list[str]] = {}
        for w in self.witnesses:
            for b in w.behaviours:
                out.setdefault((b.behaviour, f"{w.allowed}->{w.refused}"), []).append(w.id)
        return out

    def to_json(self, render: Callable[[Edition, Trace], Any]) -> dict[str, Any]:
        shown = self.by_behaviour()
        return {
            "a": self.a,
            "b": self.b,
            "bound": self.bound,
            "text": [
                {
                    "a": r.a,
                    "b": r.b,
                    "kind": r.kind,
                    "a_text": r.a_text,
                    "b_text": r.b_text,
                    "words": [{"op": w.op, "text": w.text} for w in r.words],
                }
                for r in self.text
            ],
            "verdicts": [{"property": v.property, self.a: v.a, self.b: v.b} for v in self.verdicts],
            "behaviours": [
                {
                    "behaviour": name,
                    "allowed": x,
                    "refused": y,
                    "witnesses": shown.get((name, f"{x}->{y}"), []),
                }
                for name in self.behaviours
                for x, y in ((self.a, self.b), (self.b, self.a))
            ],
            "witnesses": [_witness_json(w, self.editions, render) for w in self.witnesses],
            "searched": [
                {
                    "allowed": s.allowed,
                    "refused": s.refused,
                    "clause": s.clause,
                    "result": s.result,
                    "witness": s.witness,
                }
                for s in self.searches
            ],
        }


def _witness_json(w: Witness, editions: dict[str, Edition], render: Callable[[Edition, Trace], Any]) -> dict[str, Any]:
    return {
        "id": w.id,
        "allowed": w.allowed,
        "refused": w.refused,
        "clause": w.clause,
        "counterparts": list(w.counterparts),
        "behaviours": [
            {
                "behaviour": b.behaviour,
                "clauses": list(b.clauses),
                "changes": [{"what": what, w.allowed: x, w.refused: y} for what, x, y in b.changes],
            }
            for b in w.behaviours
        ],
        "note": w.note,
        "trace": render(editions[w.allowed], w.trace),
        "instead": render(editions[w.refused], w.instead) if w.instead else None,
    }


def observed(edition: Edition, trace: Trace) -> list[tuple[str, str, Any]]:
    """The observable outcomes of a concrete game, named the way a reader sees them."""
    g = concrete_game(edition, trace, [])
    model = edition.model
    return model.observables(g, trace.length, name=lambda a: model.ability_name(g, a))


def _in_words(edition: Edition, trace: Trace) -> Callable[[str, Any], str]:
    g = concrete_game(edition, trace, [])
    return lambda what, value: edition.model.observed_value(g, what, value)


class _Replay:
    """One edition's solver, in which the scenarios of other editions' games are played again."""

    def __init__(self, edition: Edition, limits: smt.SolverLimits) -> None:
        self.edition = edition
        self.limits = limits
        self._enc: Encoding | None = None
        self._replays = 0  # literal names must be new to the solver: a game replayed again gets new ones

    def encoding(self, trace: Trace) -> Encoding:
        if self._enc is None or self._enc.universe != trace.universe:
            self._enc = Encoding(self.edition, trace.universe, self.limits)
        return self._enc

    def compare(self, witness: Witness, allowing: Edition) -> None:
        """Fill in the behaviours of ``witness.trace`` this edition cannot reproduce, and a game it allows instead."""
        trace = witness.trace
        enc = self.encoding(trace)
        self._replays += 1
        tag = f"replay {self._replays}"
        pin = pin_scenario(enc, trace, self.edition.model.SCENARIO_DECIDES, name=f"{tag}: scenario")
        lits = {e.number: enc.solver.literal(e.number) for e in self.edition.encodings}
        base = enc.moment_literals[: trace.length] + [pin]
        status = enc.solver.check(base + list(lits.values()))
        if status != smt.Verdict.SAT:
            core = minimal_core(enc, base, lits, []) if status == smt.Verdict.UNSAT else None
            witness.note = _no_game_note(self.edition.name, core, enc.solver.reason_unknown)
            return
        terms = self.edition.model.observables(enc.g, trace.length)
        seen = observed(allowing, trace)
        # Behaviours in the game model's order, each given the ones before it that the game kept: a
        # stack order can be impossible only together with the same abilities triggering.
        kept: list[Any] = []
        forbidden: dict[str, list[str]] = {}
        for name in self.edition.model.BEHAVIOURS:
            same = enc.solver.fresh_literal(f"{tag}: same {name}")
            rows = [term[2] == seen[i][2] for i, term in enumerate(terms) if term[0] == name]
            enc.solver.add(enc.g.Implies(same, enc.g.And(*rows)))
            core = minimal_core(enc, base + kept, lits, [same])
            if core is None:
                witness.note += f" Whether {name} differs is unknown ({enc.solver.reason_unknown})."
            elif core:
                forbidden[name] = core
            else:
                kept.append(same)
        if enc.solver.check(base + list(lits.values()) + kept) != smt.Verdict.SAT:  # it was; unless out of time
            enc.solver.check(base + list(lits.values()))
        witness.instead = enc.extract(trace.length)
        instead = observed(self.edition, witness.instead)
        words = _in_words(allowing, trace), _in_words(self.edition, witness.instead)
        for name, core in forbidden.items():
            changes = tuple(
                (seen[i][1], words[0](seen[i][1], seen[i][2]), words[1](seen[i][1], instead[i][2]))
                for i in range(len(seen))
                if seen[i][0] == name and seen[i][2] != instead[i][2]
            )
            witness.behaviours.append(Behaviour(name, changes, tuple(core)))
        if not witness.behaviours and not witness.note:
            witness.note = NO_VISIBLE_DIFFERENCE.format(edition=self.edition.name)


def _no_game_note(edition: str, core: list[str] | None, reason: str) -> str:
    if core is None:
        return f"Whether {edition} allows any game of this scenario is unknown ({reason})."
    if not core:
        return f"{edition} allows no game of this scenario: its game model rules it out (a feature it does not have)."
    return f"{edition} allows no game of this scenario: {', '.join(core)} together rule it out."


def behaviour_witnesses(
    first: Verifier,
    second: Verifier,
    limits: smt.SolverLimits,
    progress: Progress,
) -> tuple[list[Witness], list[Search]]:
    """Both directions: games ``first`` allows that break a clause of ``second``, and the reverse.  In each
    direction CaDiCaL first proves which clauses no game breaks (``Verifier.unbroken``), in a fresh encoding of its
    own, so that what it proves depends on nothing asked before; z3 searches the others, in ``first`` and
    ``second``, whose solvers the proofs leave as they were."""
    witnesses: list[Witness] = []
    searches: list[Search] = []
    replays = {id(v): _Replay(v.edition, limits) for v in (first, second)}
    for allowing, refusing in ((first, second), (second, first)):
        replay = replays[id(refusing)]
        mine, theirs = refusing.edition, allowing.edition
        parts = aligned_clauses(mine.name, theirs.name, mine.rules.numbers(), theirs.rules.numbers())
        prover = Verifier(theirs, allowing.encoding.universe, allowing.options)
        unbroken = prover.unbroken(mine, refusing.all_clauses)
        for number in refusing.all_clauses:
            progress(f"{allowing.edition.name} allows, {refusing.edition.name} {number} refuses?")
            found, trace = ("no", None) if number in unbroken else allowing.breaks(refusing.edition, number)
            if found != "yes" or trace is None:
                result = SAME if found == "no" else UNKNOWN
                searches.append(Search(allowing.edition.name, refusing.edition.name, number, result))
                continue
            w = _witness(f"W{len(witnesses) + 1}", allowing, refusing, number, parts.get(number, ()), trace, replay)
            tried = [trace]
            while _looks_the_same(w) and len(tried) <= RETRIES:
                found, trace = allowing.breaks(refusing.edition, number, avoid=tried)
                if found != "yes" or trace is None:
                    break
                tried.append(trace)
                other = _witness(w.id, allowing, refusing, number, w.counterparts, trace, replay)
                w = other if not _looks_the_same(other) else w
            witnesses.append(w)
            searches.append(Search(w.allowed, w.refused, number, DIFFERS, w.id))
    return witnesses, searches


def _witness(
    wid: str, allowing: Verifier, refusing: Verifier, number: str, parts: tuple[str, ...], trace: Trace, replay: _Replay
) -> Witness:
    w = Witness(wid, allowing.edition.name, refusing.edition.name, number, parts, trace)
    replay.compare(w, allowing.edition)
    return w


def _looks_the_same(w: Witness) -> bool:
    return not w.behaviours and w.instead is not None


# --- the verdicts -----------------------------------------------------------------------


def verdicts(first: Verifier, second: Verifier, progress: Progress) -> list[VerdictRow]:
    """Every catalogue property whose verdict differs between the two editions.  An edition's decided verdicts are
    kept (``verdicts.VerdictStore``): the diffs of an edition with the one before and the one after check its
    catalogue once."""
    props = builtin_properties()
    found: list[dict[str, str]] = []
    for v in (first, second):
        applicable, not_applicable = localise(props, v.edition)
        by_id = {p.id: NOT_APPLICABLE for p, _ in not_applicable}
        store = VerdictStore.open(v.edition, v.encoding.universe, v.options)
        kept = store.known(applicable) if store is not None else {}
        v.prepare([p for p in applicable if p.id not in kept])
        for p in applicable:
            if p.id in kept:
                by_id[p.id] = kept[p.id].verdict
                continue
            progress(f"{v.edition.name}: checking {p.id}")
            result = _verdict(v, p)
            by_id[p.id] = result.verdict
            if store is not None:
                store.keep([result])
        found.append(by_id)
    return [
        VerdictRow(p.id, found[0][p.id], found[1][p.id]) for p in props if _may_differ(found[0][p.id], found[1][p.id])
    ]


def _may_differ(a: str, b: str) -> bool:
    """Two verdicts the report must show: different, or one unknown (two unknowns are not the same verdict)."""
    return a != b or UNKNOWN in (a, b)


def _verdict(verifier: Verifier, prop: Property) -> CheckResult:
    """``prop``'s verdict; an unknown one is asked again of a fresh encoding.  The catalogue's earlier checks can
    leave the incremental solver on a path many times longer than a fresh one's (z3 starts a cut-short solver again
    from its constraints, ``smt.Solver``, but not from what it was before those checks)."""
    result = verifier.check(prop)
    if result.verdict != UNKNOWN:
        return result
    fresh = Verifier(verifier.edition, verifier.encoding.universe, verifier.options, verifier.progress)
    return fresh.check(prop)


# --- the whole diff ----------------------------------------------------------------------


def diff(a: str, b: str, options: Options, universe: Any, progress: Progress = lambda _: None) -> Diff:
    """Editions ``a`` and ``b`` compared: text, verdicts and behaviour, to ``options.bound``."""
    align(a, b)  # an unknown edition or a missing alignment is a usage error before any solving
    result = compare(load_edition(a), load_edition(b), options, universe, progress)
    result.text = text_rows(a, b)
    return result


def compare(first: Edition, second: Edition, options: Options, universe: Any, progress: Progress) -> Diff:
    """Two encoded editions compared in verdicts and behaviour (no text: they may have none of their own)."""
    with smt.steady_memory():
        rows = verdicts(Verifier(first, universe, options), Verifier(second, universe, options), progress)
        # Fresh encodings: what the search finds must not depend on which verdicts were kept from an earlier run.
        one, two = Verifier(first, universe, options), Verifier(second, universe, options)
        witnesses, searches = behaviour_witnesses(one, two, options.limits, progress)
    names = {first.name: first, second.name: second}
    return Diff(
        first.name,
        second.name,
        options.bound,
        [],
        rows,
        witnesses,
        searches,
        first.model.BEHAVIOURS,
        names,
        options.limits.rlimit,
        cadical_budget(options),
    )


__all__: Sequence[str] = ("DIFF_LIMITS", "Diff", "TextRow", "Witness", "compare", "diff", "text_rows", "word_changes")
