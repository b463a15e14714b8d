"""A game as a picture: one column per moment, with its events, triggers and stack, as inline SVG.

Self-contained (no scripts, no fonts to fetch), so a report page works offline.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

COLUMN, LINE, PAD, WRAP = 230, 15, 8, 34
ROWS = (("events", "#7a3b00"), ("state changes", "#555555"), ("triggers", "#0b5394"), ("stack (bottom→top)", "#38761d"))


def _lines(text: str) -> list[str]:
    out: list[str] = []
    for part in (p.strip() for p in text.split(";")):
        if part:
            out += textwrap.wrap(part, WRAP) or [part]
    return out


def svg_timeline(rows: Sequence[Mapping[str, str]]) -> str:
    """``rows``: one description per moment (``moment``, ``step`` and the ROWS keys)."""
    columns = []
    height = 0
    for i, row in enumerate(rows):
        x = i * COLUMN + PAD
        items = [(f"moment {row['moment']}", "#000000", True), (row["step"], "#000000", False)]
        for key, colour in ROWS:
            lines = _lines(row.get(key, ""))
            if lines:
                items.append((key, colour, True))
                items += [(line, colour, False) for line in lines]
        texts = []
        for j, (text, colour, bold) in enumerate(items):
            weight = ' font-weight="bold"' if bold else ""
            y = PAD + (j + 1) * LINE
            texts.append(f'<text x="{x + 6}" y="{y}" fill="{colour}"{weight}>{escape(text)}</text>')
        box_height = (len(items) + 1) * LINE
        height = max(height, box_height + 2 * PAD)
        columns.append(
            f'<g class="moment"><rect x="{x}" y="{PAD}" width="{COLUMN - 12}" height="{box_height}" '
            f'rx="6" fill="#f7f7f7" stroke="#bbbbbb"/>{"".join(texts)}</g>'
        )
    width = len(rows) * COLUMN + 2 * PAD
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="timeline of the game" '
        f'width="{width}" height="{height}" font-family="sans-serif" font-size="12">{"".join(columns)}</svg>'
    )
