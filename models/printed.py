"""Cards described once, by their printed text: a trace's ``#meta.oracle``.

An engine author gives each card's triggered ability as printed ("Whenever another creature you control dies, ...")
and the constants of its text (trigger condition, what narrows down its object, the ability's flags) are read from
it by the same reader as scenario files' ``oracle`` (``oracle_text.printed_ability``).  A constant the document gives
as well must say the same, entry by entry: a trace that contradicts its own cards' text is refused at the entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rule603 import TraceFormatError, Universe, VarSpec

from .conditions import printed_subtype
from .game import PRINTED_CONSTANTS, SUBJECT_FILTERS, VARIABLES
from .oracle_text import NotPlayable, printed_ability

#: The ability flags a printed text says, each a per-card constant.
TEXT_FLAGS = tuple(name for name in PRINTED_CONSTANTS if name not in ("kind", *SUBJECT_FILTERS, "subject_subtype"))
#: The constants a printed text decides, by name (``VarSpec.printed``).
DECIDED: dict[str, VarSpec] = {spec.name: spec for spec in VARIABLES if spec.printed}
MAX_TEXT = 1000  # characters of one card's text: a printed triggered ability is well under 500


def constants_from_text(
    meta: Mapping[str, Any], constants: Mapping[str, Any], universe: Universe, source: str
) -> dict[str, Any]:
    """``constants`` with what ``meta["oracle"]`` decides filled in where the document leaves it out; a value the
    document gives that the text contradicts, a text the model cannot play, and a malformed list are
    :class:`TraceFormatError` at their JSON pointer.

    A card's entry is its printed triggered ability, a list of them (Solemn Simulacrum's two), or null (the constants
    say it).  A card given a text has those abilities and no other: its remaining ability slots have none."""
    cards, printed = universe.size("card"), universe.size("printed")
    owners = constants.get("owner")
    if not isinstance(owners, list) or len(owners) != cards or not cards or printed % cards:
        return dict(constants)  # the trace reader says what is wrong with the cards, before any text is read
    texts = _texts(meta.get("oracle"), cards, printed // cards, source)
    names = _card_names(meta)
    subtypes = _subtypes(meta.get("subtypes"), cards, source) if "subtypes" in meta else None
    filled = {name for name in DECIDED if name not in constants}
    out = {**constants, **{name: [_default(DECIDED[name], cards) for _ in range(printed)] for name in filled}}
    column = _Column(out, filled, printed, cards, source)
    for c, listed in enumerate(texts):
        if listed is None:
            continue
        for nth in range(printed // cards):
            a, where = c + nth * cards, f"/#meta/oracle/{c}" + (f"/{nth}" if len(listed) > 1 else "")
            if nth >= len(listed):
                column.agree("kind", a, "none", f"/#meta/oracle/{c}")
                continue
            try:
                ability = printed_ability(listed[nth], names[c] if c < len(names) else "")
            except NotPlayable as e:
                raise TraceFormatError(source, where, str(e)) from None
            _agree_with_text(column, ability, a, where, subtypes, "subject_subtype" in constants)
    return out


def _agree_with_text(
    column: _Column, ability: Any, a: int, where: str, subtypes: list[tuple[str, ...]] | None, given: bool
) -> None:
    point = ability.point
    said: dict[str, Any] = {
        "kind": point.kind,
        **{name: getattr(point, name.removeprefix("subject_")) for name in SUBJECT_FILTERS},
        **{flag: flag in ability.flags or (flag == "one_or_more" and point.one_or_more) for flag in TEXT_FLAGS},
    }
    for name, value in said.items():
        column.agree(name, a, value, where)
    if not point.subtypes:
        column.agree("subject_subtype", a, [True] * column.cards, where)
    elif subtypes is not None:
        column.agree("subject_subtype", a, [bool(set(point.subtypes) & set(s)) for s in subtypes], where)
    elif not given:
        why = f"it names subtypes ({', '.join(point.subtypes)}): give each card's printed subtypes in #meta.subtypes"
        raise TraceFormatError(column.source, where, why)


@dataclass(frozen=True)
class _Column:
    """The constants being filled in from the texts, by printed ability (``out``; ``filled``: those the document
    left out)."""

    out: dict[str, Any]
    filled: set[str]
    printed: int
    cards: int
    source: str

    def agree(self, name: str, a: int, value: Any, where: str) -> None:
        """Printed ability ``a``'s entry of constant ``name`` is ``value``: filled in where the document has no such
        constant, compared where it has (a malformed one is left to the trace reader, which names what is wrong)."""
        column = self.out[name]
        if name in self.filled:
            column[a] = value
        elif (
            isinstance(column, list)
            and len(column) == self.printed
            and _well_formed(DECIDED[name], column[a], self.cards)
        ):
            if column[a] != value:
                said = f"{column[a]!r}, but the card's printed text (#{where.lstrip('/#')}) says {value!r}"
                raise TraceFormatError(self.source, f"/constants/{name}/{a}", said)


def _well_formed(spec: VarSpec, value: Any, cards: int) -> bool:
    """``value`` is an entry ``spec`` can have (another is the trace reader's to name)."""
    if len(spec.dims) == 2:
        return isinstance(value, list) and len(value) == cards and all(isinstance(x, bool) for x in value)
    return value in spec.values if spec.kind == "enum" else isinstance(value, bool)


def _default(spec: VarSpec, cards: int) -> Any:
    """A printed ability's entry for a constant the document leaves out, where no printed text decides it: no
    ability, no flag, no filter (every card of any subtype)."""
    if spec.absent_means is not None:
        return [spec.absent_means] * cards if len(spec.dims) == 2 else spec.absent_means
    return "none" if spec.kind == "enum" else False


def _texts(value: Any, cards: int, per_card: int, source: str) -> list[list[str] | None]:
    """Each card's printed triggered abilities (a list), or None where the document gives none."""
    if not isinstance(value, list) or len(value) > cards:
        raise TraceFormatError(
            source, "/#meta/oracle", f"expected a list of at most {cards} texts or nulls (#meta.universe.card)"
        )
    out: list[list[str] | None] = []
    for c, entry in enumerate(value):
        listed = [entry] if isinstance(entry, str) else entry
        if entry is None:
            out.append(None)
            continue
        if not isinstance(listed, list) or not 1 <= len(listed) <= per_card:
            why = f"expected a card's printed triggered ability, a list of 1 to {per_card} of them"
            why += " (#meta.universe.printed / card)" if isinstance(listed, list) else ", or null"
            raise TraceFormatError(source, f"/#meta/oracle/{c}", why)
        for nth, text in enumerate(listed):
            if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
                where = f"/#meta/oracle/{c}" + (f"/{nth}" if isinstance(entry, list) else "")
                why = f"expected a card's printed triggered ability (1 to {MAX_TEXT} characters)"
                raise TraceFormatError(source, where, why + ("" if isinstance(entry, list) else " or null"))
        out.append(listed)
    return out


def _subtypes(value: Any, cards: int, source: str) -> list[tuple[str, ...]]:
    if not isinstance(value, list) or len(value) != cards:
        raise TraceFormatError(source, "/#meta/subtypes", f"expected a list of {cards} lists of subtypes, one per card")
    for c, listed in enumerate(value):
        if not isinstance(listed, list) or not all(printed_subtype(s) for s in listed):
            why = "expected a list of subtypes as printed, capitalized ('Elf', 'Island')"
            raise TraceFormatError(source, f"/#meta/subtypes/{c}", why)
    return [tuple(s) for s in value]


def _card_names(meta: Mapping[str, Any]) -> list[str]:
    names = meta.get("names")
    listed = names.get("card") if isinstance(names, dict) else None
    return [n if isinstance(n, str) else "" for n in listed] if isinstance(listed, list) else []
