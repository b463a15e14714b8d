"""Every edition of the rule text the project holds, oldest first.

Each file keeps its source's own format (see rule603._internal.editiontext); its header
says where the text comes from, when, and in which language.  The current edition's
text stays in models/current/rule603.txt, next to the encodings that hash it.  The
files align-<A>-<B>.json next to this one are the reviewed clause alignments.
"""

from __future__ import annotations

from pathlib import Path

from rule603._internal.editions import EditionText

HERE = Path(__file__).resolve().parent

EDITIONS = (
    EditionText("2004", HERE / "2004.txt"),
    EditionText("2008", HERE / "2008.txt"),
    EditionText("battlefield-en", HERE / "battlefield-en.txt"),
    EditionText("battlefield-fr", HERE / "battlefield-fr.txt"),
    EditionText("2024-06", HERE / "2024-06.txt"),
    EditionText("current", HERE.parent / "current" / "rule603.txt"),
)
