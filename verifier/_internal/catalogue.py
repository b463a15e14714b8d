"""Where the built-in edition and property catalogue come from.

The engine does not import the models or the properties statically (they depend on
it, not the other way round); it loads them by name, as it loads a user's file.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Sequence

from ..errors import InvalidArgument
from .editions import edition_texts
from .registry import Edition, Property, collect

EDITIONS = {"current": "rule603.models.current"}
CATALOGUE = "rule603.properties.catalogue"


def load_edition(name: str = "current") -> Edition:
    """The encoded edition ``name``; an edition with text but no encodings yet is a usage error."""
    if name not in EDITIONS:
        texts = {t.id: t for t in edition_texts()}
        if name in texts:
            text = texts[name]
            raise InvalidArgument(
                f"--edition {name}: the {name} edition's text is there ({len(text.document().clauses)} clauses of "
                f"rule {text.rule}, see 'rule603 editions') but no clause encodings are yet; "
                f"encoded: {', '.join(EDITIONS)}."
            )
        raise InvalidArgument(
            f"--edition {name}: unknown edition; encoded: {', '.join(EDITIONS)}; "
            f"text only: {', '.join(t for t in texts if t not in EDITIONS)}."
        )
    return importlib.import_module(EDITIONS[name]).edition()


def builtin_properties() -> list[Property]:
    return collect(importlib.import_module(CATALOGUE), Property)


def select(props: Sequence[Property], ids: Sequence[str]) -> list[Property]:
    """The properties named by ``ids`` (all when empty), in catalogue order; unknown ids are an error."""
    by_id = {p.id: p for p in props}
    for wanted in ids:
        if wanted not in by_id:
            close = difflib.get_close_matches(wanted, list(by_id), n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else " Run 'rule603 properties' to list them."
            raise InvalidArgument(f"--property {wanted}: no such property.{hint}")
    return [p for p in props if not ids or p.id in ids]


def check_clause_names(props: Sequence[Property], edition: Edition) -> None:
    """Every clause a property names must exist and be encoded in the edition."""
    for p in props:
        for number in p.clauses:
            status = edition.status(number) if number in edition.rules.numbers() else "unknown"
            if status != "encoded":
                why = "no such clause" if status == "unknown" else f"that clause is {status}"
                raise InvalidArgument(
                    f"property {p.id} ({p.source}): clause {number}: {why} in the {edition.name} edition."
                )
