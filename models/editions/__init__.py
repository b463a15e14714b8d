"""Every edition of the rule text the project holds, oldest first, and the encodings of each.

Each file keeps its source's own format (see rule603._internal.editiontext); its header
says where the text comes from, when, and in which language.  The current edition's
text stays in models/current/rule603.txt, next to the encodings that hash it.  The
files align-<A>-<B>.json next to this one are the reviewed clause alignments, and
encodings-<id>.toml the reviewed decision, clause by clause, of how edition <id> is
encoded (reuse a current encoding, an edition-specific one from encodings.py, or not
modelled), and in its ``[features]`` table the game features (models/features.py) the
edition's text does not govern, each with the reason.  An edition added later
(``rule603 editions --add``) is one more <id>.txt.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rule603 import ClauseEncoding
from rule603._internal.editions import (
    EditionText,
    build_edition,
    load_absent_features,
    load_decisions,
    provisional_decisions,
)
from rule603._internal.registry import Edition

from ..features import FEATURES
from . import encodings

HERE = Path(__file__).resolve().parent

_SEED = (
    EditionText("2004", HERE / "2004.txt"),
    EditionText("2008", HERE / "2008.txt"),
    EditionText("battlefield-en", HERE / "battlefield-en.txt"),
    EditionText("battlefield-fr", HERE / "battlefield-fr.txt"),
    EditionText("2024-06", HERE / "2024-06.txt"),
)
# Editions added with `rule603 editions --add` come after the seed ones, by file name.
_ADDED = tuple(EditionText(p.stem, p) for p in sorted(HERE.glob("*.txt")) if p.stem not in {t.id for t in _SEED})
EDITIONS = (*_SEED, *_ADDED, EditionText("current", HERE.parent / "current" / "rule603.txt"))


def decision_file(name: str) -> Path:
    return HERE / f"encodings-{name}.toml"


def reviewed(name: str) -> bool:
    """Edition ``name`` has a reviewed decision per clause (else its encodings are provisional)."""
    return decision_file(name).is_file()


def own_encodings() -> dict[str, ClauseEncoding]:
    """The edition-specific encodings, by the name the decision files use."""
    return {name: v for name, v in vars(encodings).items() if isinstance(v, ClauseEncoding)}


@cache
def edition(name: str) -> Edition:
    """Edition ``name`` encoded: reviewed decisions where committed, else the current encodings by number."""
    from ..current import edition as current_edition

    current = current_edition()
    if reviewed(name):
        decisions = load_decisions(decision_file(name))
        # The game features the edition's text does not govern: reviewed with the decisions.
        absent = load_absent_features(decision_file(name), FEATURES)
    else:
        from rule603._internal.editions import find_edition

        # Not reviewed yet (a release just added): the whole game, as for the current edition.
        decisions, absent = provisional_decisions(find_edition(name).document(), current), ()
    return build_edition(name, decisions, current, own_encodings(), absent)
