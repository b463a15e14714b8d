"""A ruling as Markdown, a self-contained HTML page, or JSON (what `rule603 rule` writes).

Beside :mod:`.auditreport` and :mod:`.diffreport`: the command line rules on a scenario and hands the
ruling here to be written.
"""

from __future__ import annotations

import json
from html import escape

from .bmc import concrete_game
from .bounds import cut_off_text
from .registry import Edition
from .report import render_trace
from .schema import MODEL_LABELS, Names
from .timeline import svg_timeline
from .trace import Trace

FORCED_BY = (
    "Forced by these clauses together (without any one of them, the rest of the list no longer forces it; "
    "marked *needed*: no other clause can stand in for it):"
)
NEEDED = " *needed*"


def render_ruling(fmt: str, path: str, loaded, edition: Edition, played: Trace, ruling) -> str:
    """A ruling as Markdown, a self-contained HTML page, or JSON."""
    if fmt == "html":
        return _ruling_html(path, loaded, edition, played, ruling)
    if fmt == "md":
        return _ruling_markdown(path, loaded, edition, played, ruling)
    names = scenario_names(loaded)
    report = {
        "scenario": path,
        "title": loaded.title,
        "edition": edition.name,
        "moments": played.length,
        "consistent": ruling.consistent,
        "conflict": ruling.conflict,
        **({"conflict_note": ruling.conflict_note} if ruling.conflict_note else {}),
        **({"cut_off": [c.to_json() for c in ruling.cut_off]} if ruling.cut_off is not None else {}),
        "questions": [{**a.to_json(), **_choices_json(edition, a, names)} for a in ruling.answers],
    }
    return json.dumps(report, indent=1, ensure_ascii=False)


def _ruling_markdown(path: str, loaded, edition: Edition, played: Trace, ruling) -> str:
    names = scenario_names(loaded)
    lines = [
        f"# {loaded.title or path}",
        "",
        f"Scenario `{path}`, edition {edition.name}, {played.length} moments.",
        "",
    ]
    if ruling.cut_off is not None:
        lines += [_cut_off(ruling, edition), ""]
    if not ruling.consistent:
        lines += ["No game that follows every clause fits this scenario. The clauses that conflict:", ""]
        if ruling.conflict_note:
            lines += [f"({ruling.conflict_note})", ""]
        lines += [f"- **{n}** {_clause_text(edition, n)}" for n in ruling.conflict]
        return "\n".join(lines)
    for a in ruling.answers:
        lines += [f"## {a.text}", "", f"**{_verdict(a)}**" + (f" ({a.note})" if a.note else ""), ""]
        if a.clauses:
            lines += [FORCED_BY, ""]
            lines += [f"- **{n}**{NEEDED if n in a.needed else ''} {_clause_text(edition, n)}" for n in a.clauses]
            lines += [""]
        for choice in _choices_json(edition, a, names).get("choices", []):
            lines += [f"- {_word(choice['value'])}: {choice['how']}"]
        if a.games:
            lines += [""]
    game = render_trace(edition, played, names=names)
    lines += ["## A game of this scenario", "", "```", game, "```"]
    return "\n".join(lines)


def _ruling_html(path: str, loaded, edition: Edition, played: Trace, ruling) -> str:
    """A self-contained page: no scripts, no network; the timeline is inline SVG."""
    names = scenario_names(loaded)
    title = escape(loaded.title or path)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title>",
        "<style>body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;line-height:1.4}"
        ".answer{font-size:1.2em;font-weight:bold;margin:.3em 0}"
        ".clause{margin:.2em 0 .2em 1em}.clause b{margin-right:.5em}"
        ".timeline{overflow-x:auto;border:1px solid #ddd;padding:.5em}</style>",
        "</head><body>",
        f"<h1>{title}</h1>",
        f"<p>Scenario <code>{escape(path)}</code>, edition {escape(edition.name)}, {played.length} moments.</p>",
    ]
    if ruling.cut_off is not None:
        parts.append(f"<p class='cut-off'>{escape(_cut_off(ruling, edition))}</p>")
    if not ruling.consistent:
        parts.append("<p class='answer'>No game that follows every clause fits this scenario.</p>")
        if ruling.conflict_note:
            parts.append(f"<p>{escape(ruling.conflict_note)}</p>")
        parts += [f"<p class='clause'><b>{n}</b>{escape(_clause_text(edition, n))}</p>" for n in ruling.conflict]
    for a in ruling.answers:
        parts.append(f"<section class='question' id='{escape(a.id)}'><h2>{escape(a.text)}</h2>")
        parts.append(f"<p class='answer'>{escape(_verdict(a))}</p>")
        if a.note:
            parts.append(f"<p>{escape(a.note)}</p>")
        if a.clauses:
            parts.append(f"<p>{escape(FORCED_BY).replace('*needed*', '<em>needed</em>')}</p>")
            parts += [
                f"<p class='clause'><b>{n}</b>{' <em>needed</em>' if n in a.needed else ''} "
                f"{escape(_clause_text(edition, n))}</p>"
                for n in a.clauses
            ]
        for choice in _choices_json(edition, a, names).get("choices", []):
            parts.append(f"<p class='choice'>{escape(_word(choice['value']))}: {escape(choice['how'])}</p>")
        parts.append("</section>")
    game = concrete_game(edition, played, [], names)
    rows = [edition.model.describe(game, t) for t in range(played.length)]
    parts += ["<h2>A game of this scenario</h2>", f"<div class='timeline'>{svg_timeline(rows)}</div>"]
    parts.append("</body></html>")
    return "\n".join(parts)


def _cut_off(ruling, edition: Edition) -> str:
    return cut_off_text(ruling.cut_off, "of this scenario", edition, no_game=not ruling.consistent)


def _word(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _verdict(answer) -> str:
    """The answer in words: "always 2", "always yes (in every compliant game)", "depends on choices: no, yes"."""
    shown = ", ".join(_word(v) for v in answer.values)
    if answer.answer == "depends":
        return f"depends on choices: {shown}"
    if answer.answer == "never":
        return "never (no, in every compliant game)"
    if answer.answer == "always":
        return answer.summary() + (" (in every compliant game)" if isinstance(answer.values[0], bool) else "")
    return answer.answer


def scenario_names(loaded) -> Names:
    """The scenario file's names of its cards, players and delayed abilities, by the model's indices."""
    first_delayed = len(loaded.objects)
    delayed = loaded.abilities[first_delayed : first_delayed + len(loaded.scenario.delayed)]
    return Names(tuple(loaded.objects), tuple(loaded.players), tuple(delayed))


def _choices_json(edition: Edition, answer, names: Names = MODEL_LABELS) -> dict:
    """For a "depends" answer: how the games with each value differ (what a player chose)."""
    if len(answer.games) < 2:
        return {}
    views = [concrete_game(edition, g, [], names) for g in answer.games]
    rows = [[edition.model.describe(view, t) for t in range(view.moments)] for view in views]
    keys = ("events", "triggers", "stack (bottom→top)")
    differing = {
        t: [k for k in keys if len({r[t][k] for r in rows}) > 1]
        for t in range(answer.games[0].length)
        if any(len({r[t][k] for r in rows}) > 1 for k in keys)
    }
    choices = []
    for value, game_rows in zip(answer.values, rows, strict=True):
        how = "; ".join(
            f"moment {t}: " + ", ".join(f"{k} {game_rows[t][k] or '(none)'}" for k in ks) for t, ks in differing.items()
        )
        choices.append({"value": value, "how": how or "the games differ only in values this report doesn't show"})
    return {"choices": choices}


def _clause_text(edition: Edition, number: str) -> str:
    try:
        return edition.rules.get(number).text
    except Exception:  # noqa: BLE001 - a game-model rule has no text in rule 603: its summary says it
        return next((ax.summary for ax in edition.axioms if ax.number == number), "")
