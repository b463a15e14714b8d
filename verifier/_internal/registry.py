"""Clause encodings and properties: how they are declared and collected.

Both are plain objects made by decorators and collected from a module's namespace
(the way pytest collects tests), so there is no global registry to mutate: the
built-in edition and catalogue are modules, and a user's property file is one more.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..errors import InvalidArgument, InvalidDefinition
from .documents import shown
from .expr import Expr

_CLAUSE_ID = re.compile(r"^\d{3}\.\d+[a-z]?$")
_PROPERTY_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
MAX_ID = 100  # an id names a file (verify --save-traces DIR/<id>.itf.json)


#: The kinds of ``Rule.room``.
SLOTS, MODEL_BOUND = "slots", "model bound"


@dataclass(frozen=True)
class Rule:
    """One instance of a clause: where it ``applies``, what it ``requires``."""

    applies: Expr
    requires: Expr
    about: str = ""  # the objects and values involved, for violation messages
    witness: Expr = None  # where the clause does real work (non-vacuity); defaults to ``applies``
    #: a game rule's instance that is a bound of the model, not of the game, and which: ``SLOTS`` holds the stack
    #: to the universe's slots (more slots lift it), ``MODEL_BOUND`` is the representation's own (nothing lifts it).
    #: The audit sets these aside to see whether a deadlock rests on the model's room
    #: (``Encoding(room_apart=...)``); ``rule603 verify``, ``rule`` and ``check`` report the games they cut off.
    room: str = ""

    def fires(self) -> Expr:
        return self.applies if self.witness is None else self.witness


ClauseFn = Callable[[Any, int], Iterable[Rule]]
ExceptionFn = Callable[..., Expr]


@dataclass(frozen=True)
class ClauseEncoding:
    """The constraint family of one clause of one edition."""

    number: str
    summary: str
    text_hash: str
    fn: ClauseFn
    overrides: Mapping[str, ExceptionFn] = field(default_factory=dict)  # general clause -> where this one wins
    scope: str = ""  # which parts of the clause the model covers, when not all
    origin: str = ""  # in an older edition: "reuses current 603.2f" or "own encoding <name>"
    # The same exceptions under the current numbers they were written against, when ``overrides`` is re-keyed to
    # an older edition's numbers: two current clauses can share one older counterpart (2008's 404.2 says what
    # 603.2 and 603.2c say), and each keeps its own exception there.  Where it is set, ``exempt`` reads it, and
    # only the keys of ``overrides`` are read (``precedence``).
    as_written: Mapping[str, ExceptionFn] = field(default_factory=dict)

    def rules(self, g: Any, t: int) -> Iterable[Rule]:
        return self.fn(g, t)


@dataclass(frozen=True)
class NotModelled:
    number: str
    reason: str


def clause(
    number: str,
    summary: str,
    *,
    text_hash: str,
    overrides: Mapping[str, ExceptionFn] | None = None,
    scope: str = "",
) -> Callable[[ClauseFn], ClauseEncoding]:
    """Declare the encoding of one clause.

    ``overrides`` maps each general clause this one is more specific than ("a specific
    rule beats a general one") to ``exception(g, t, *key)``, where it wins.  The
    general clause asks :func:`exempt` and so steps aside only while this clause is
    enabled: the precedence is a named, reported relation, not an edit to the
    general clause.
    """
    if not _CLAUSE_ID.match(number):
        raise InvalidArgument(f"clause number={number!r} is not of the form '603.2a'.")

    def wrap(fn: ClauseFn) -> ClauseEncoding:
        return ClauseEncoding(number, summary, text_hash, fn, dict(overrides or {}), scope)

    return wrap


@dataclass(frozen=True)
class Property:
    """A claim over whole traces, checked at every moment of every trace."""

    id: str
    summary: str
    clauses: tuple[str, ...]
    claim: Callable[[Any, int], Expr]
    source: str = ""  # file and line where the property was defined

    def __call__(self, g: Any, t: int) -> Expr:
        return self.claim(g, t)


def prop(
    id: str, *, clauses: Sequence[str] = (), summary: str = ""
) -> Callable[[Callable[[Any, int], Expr]], Property]:
    """Declare a property: ``claim(g, t)`` must be true at every moment ``t``.

    ``clauses`` names the clauses the claim depends on; ``rule603 verify --adequacy``
    checks that dropping any one of them produces a counterexample.
    """
    if callable(id) and not isinstance(id, str):
        raise InvalidArgument("@prop needs an id and clauses: write @prop('my-claim', clauses=['603.2']).")
    if not isinstance(id, str) or not _PROPERTY_ID.fullmatch(id) or len(id) > MAX_ID:
        raise InvalidArgument(
            f"prop(id={shown(id)}): ids are lower-case words joined by '-', e.g. 'delayed-fires-once', "
            f"at most {MAX_ID} characters."
        )
    if not isinstance(clauses, (list, tuple)) or not clauses:
        raise InvalidArgument(f"prop({id!r}, clauses={shown(clauses)}): give a non-empty list of clause numbers.")
    for number in clauses:
        if not isinstance(number, str) or not _CLAUSE_ID.fullmatch(number):
            raise InvalidArgument(f"prop({id!r}): clause={shown(number)} is not of the form '603.2a'.")
    if not isinstance(summary, str):
        raise InvalidArgument(f"prop({id!r}): summary={shown(summary)} is not a string.")

    def wrap(fn: Callable[[Any, int], Expr]) -> Property:
        # Misuse is found here, where the loader can name the file's line, rather than at the first check.
        try:
            inspect.signature(fn).bind(None, 0)
        except (TypeError, ValueError):  # not callable, or not with (g, t)
            raise InvalidArgument(
                f"@prop({id!r}) decorates {shown(fn)}: a property is a function claim(g, t) of a trace and a moment."
            ) from None
        text = summary or _first_paragraph(getattr(fn, "__doc__", None)) or id
        code = getattr(fn, "__code__", None)
        where = f"{code.co_filename}:{code.co_firstlineno}" if code else getattr(fn, "__module__", "")
        return Property(id, text, tuple(clauses), fn, where)

    return wrap


def _first_paragraph(doc: str | None) -> str:
    """The docstring's first paragraph on one line: a property's summary."""
    lines = []
    for line in (doc or "").strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


def collect(module: ModuleType, kind: type) -> list[Any]:
    """The objects of ``kind`` a module defines, in definition order."""
    return [value for value in vars(module).values() if isinstance(value, kind)]


@dataclass(frozen=True)
class GameFeature:
    """A part of the game some editions don't know (reflexive abilities, 'triggers an additional time', ...).

    ``off(g, t)`` yields the game-model rules that remove the feature from a trace: an edition
    whose text does not govern it is verified on a game without it (``Edition.absent``).
    """

    name: str
    words: str  # what it is, in the game's words: "reflexive triggered abilities ('When you do, ...')"
    governed_by: str  # the current clauses (or other rules) that govern it: "603.12, 603.12a"
    off: ClauseFn


@dataclass(frozen=True)
class Edition:
    """One edition of rule 603: its text, its encodings, and what is left out."""

    name: str
    rules: Any  # RuleDocument
    encodings: tuple[ClauseEncoding, ...]
    not_modelled: tuple[NotModelled, ...]
    axioms: tuple[ClauseEncoding, ...] = ()  # the game outside rule 603, always on
    model: Any = None  # the game model module: VARIABLES, universe(), measures
    # For an edition other than the current one: each current clause number -> this edition's
    # clauses that stand for it (empty: none).  Clause functions name general clauses (and
    # properties name clauses) by their current number; this is where they are translated.
    counterparts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The game features this edition's text does not govern, each with the reviewed reason; the
    # game-model rule ``model.features`` among the axioms switches them off.  Empty: the whole game.
    absent: tuple[tuple[GameFeature, str], ...] = ()
    by_number: dict[str, ClauseEncoding] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        seen: dict[str, ClauseEncoding] = {}
        for enc in self.encodings:
            if enc.number in seen:
                raise InvalidDefinition(f"{enc.number} is registered twice, which is not allowed.")
            seen[enc.number] = enc
        for nm in self.not_modelled:
            if nm.number in seen:
                raise InvalidDefinition(f"{nm.number} is both encoded and listed as not modelled.")
        known = set(self.rules.numbers())
        for number in list(seen) + [nm.number for nm in self.not_modelled]:
            if number not in known:
                raise InvalidDefinition(f"{number} is encoded but the {self.name} edition's text has no such clause.")
        axioms = {ax.number for ax in self.axioms}
        for enc in self.encodings:
            for general in enc.overrides:
                if general not in seen and general not in axioms:
                    raise InvalidDefinition(f"{enc.number} overrides {general}, which is not encoded.")
        object.__setattr__(self, "by_number", seen)

    def status(self, number: str) -> str:
        if number in self.by_number:
            enc = self.by_number[number]
            if enc.text_hash != self.rules.get(number).text_hash:
                return "stale"
            return "encoded"
        if any(nm.number == number for nm in self.not_modelled):
            return "not modelled"
        return "missing"

    def overriders(self, general: str) -> list[ClauseEncoding]:
        return [enc for enc in self.axioms + self.encodings if general in enc.overrides]

    def local(self, number: str) -> tuple[str, ...]:
        """This edition's clauses for a current clause number (a game-model rule stands for itself)."""
        if not self.counterparts or number not in self.counterparts:
            return (number,)
        return self.counterparts[number]

    def precedence(self) -> list[tuple[str, str]]:
        """(specific, general) pairs: where the first applies, the second steps aside."""
        return [(enc.number, general) for enc in self.axioms + self.encodings for general in enc.overrides]

    def is_axiom(self, number: str) -> bool:
        return any(ax.number == number for ax in self.axioms)


def exempt(g: Any, general: str, t: int, *key: int, besides: str = "") -> Expr:
    """True where an enabled, more specific clause (or a game-model rule) sets ``general`` aside.

    ``general`` is a current clause number; in another edition it stands for that edition's
    counterparts (``Edition.local``), so one clause function serves every edition it is reused in.
    ``besides`` (a current clause number) leaves that clause's own exceptions out: where it sets ``general`` aside,
    whether another clause does too.
    """
    edition: Edition = g.edition
    mine = set(edition.local(besides)) if besides else set()
    return g.Or(
        *[
            g.And(True if edition.is_axiom(enc.number) else g.enabled(enc.number), fn(g, t, *key))
            for local in edition.local(general)
            for enc in edition.overriders(local)
            if enc.number not in mine and (fn := _exception(enc, local, general)) is not None
        ]
    )


def _exception(enc: ClauseEncoding, local: str, general: str) -> ExceptionFn | None:
    """Where ``enc`` sets the current clause ``general`` aside, its edition's counterpart being ``local``."""
    return enc.as_written.get(general) if enc.as_written else enc.overrides[local]
