"""Where the built-in edition and property catalogue come from.

The engine does not import the models or the properties statically (they depend on
it, not the other way round); it loads them by name, as it loads a user's file.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Sequence

from ..errors import InvalidArgument
from .editions import find_edition
from .registry import Edition, Property, collect

EDITIONS = {"current": "rule603.models.current"}  # editions with encodings of their own module
CATALOGUE = "rule603.properties.catalogue"
OLDER = "rule603.models.editions"  # every other edition: the current encodings, renumbered and reviewed


def load_edition(name: str = "current") -> Edition:
    """The encoded edition ``name``; an unknown edition is a usage error naming the known ones."""
    if name in EDITIONS:
        return importlib.import_module(EDITIONS[name]).edition()
    find_edition(name)
    return importlib.import_module(OLDER).edition(name)


def how_encoded(name: str) -> str:
    """'own module' (current), 'reviewed' (a decision per clause is committed) or 'by number' (provisional)."""
    if name in EDITIONS:
        return "own module"
    return "reviewed" if importlib.import_module(OLDER).reviewed(name) else "by number"


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
