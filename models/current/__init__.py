"""The current edition of rule 603 (the "enters" wording), as text and as encodings."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rule603 import ClauseEncoding, NotModelled
from rule603._internal.registry import Edition, collect
from rule603._internal.ruletext import load_rules

from .. import axioms, game
from . import clauses

RULE_TEXT = Path(__file__).with_name("rule603.txt")

NOT_MODELLED = (
    NotModelled(
        "603.1",
        "defines how triggered abilities are written (their template); it governs card text, "
        "not game behaviour, so no trace can satisfy or break it",
    ),
    NotModelled(
        "603.11",
        "describes how linked static and triggered abilities are printed in one paragraph; the "
        "linking itself is rule 607, outside rule 603",
    ),
    NotModelled(
        "603.10g",
        "planeswalking exists only in the Planechase variant (rule 901), which the model does not "
        "include; the look-back mechanism it relies on is encoded for 603.10a-f",
    ),
)


@cache
def edition() -> Edition:
    """The current edition, parsed from its text file and checked against its encodings."""
    return Edition(
        name="current",
        rules=load_rules(RULE_TEXT),
        encodings=tuple(collect(clauses, ClauseEncoding)),
        not_modelled=NOT_MODELLED,
        axioms=tuple(collect(axioms, ClauseEncoding)),
        model=game,
    )
