"""The verification report: every clause, every property, adequacy and precedence, as Markdown and as HTML.

``rule603 report`` writes both files from one run.  Both are rendered from one list of
blocks (headings, paragraphs, tables, ...), so the two files cannot say different things;
each format decides only how a block looks.

Times differ from run to run and everything else is deterministic.  So every time appears
in one form only, the last column of a table headed ``time (s)``, and
:func:`normalise_times` blanks exactly those cells: that is how a test compares a
committed report with a fresh run.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape

from tabulate import tabulate

from .bmc import concrete_game
from .bounds import CutOff, cut_off_text
from .catalogue import builtin_properties, check_clause_names
from .registry import Edition, Property
from .schema import MODEL_LABELS, Names, Universe
from .smt import SolverLimits
from .trace import Trace
from .verify import HOLDS, UNKNOWN, VIOLATED, Adequacy, CheckResult, DropResult, Options, Progress, Verifier

MARKDOWN = "verification.md"
HTML = "verification.html"
DEFAULT_DIR = "reports"
DEFAULT_EDITION = "current"
DEFAULT_BOUND = 8
TIME_HEADER = "time (s)"
# Generous: the report is a record of verdicts, and an unknown from an impatient timeout would make it depend on the
# machine.  Seed fixed and no resource limit, as for `rule603 verify`.
LIMITS = SolverLimits(timeout_ms=600_000, rlimit=0, seed=0)


# --- the run --------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What a report is about: one edition, one bound, every verdict and every adequacy check."""

    edition: Edition
    options: Options
    universe: Universe
    results: tuple[CheckResult, ...]
    adequacy: Adequacy
    cut_off: tuple[CutOff, ...] | None = None  # the bounds some game goes past (``Verifier.cut_off``), when asked


def report_options(bound: int = DEFAULT_BOUND) -> Options:
    """The solver settings of a report run (a test that the committed report is current must use the same)."""
    return Options(bound=bound, limits=LIMITS)


def full_run(
    edition: Edition,
    options: Options,
    props: Sequence[Property] | None = None,
    progress: Progress = lambda _: None,
    step: Callable[[], None] = lambda: None,
) -> Run:
    """Every property (the built-in catalogue by default), then every adequacy check, on one encoding."""
    if props is None:
        props = builtin_properties()
        check_clause_names(props, edition)
    universe = edition.model.universe()
    verifier = Verifier(edition, universe, options, progress)
    results = verifier.check_all(props, step)
    adequacy = verifier.adequacy(props, step)
    return Run(edition, options, universe, tuple(results), adequacy, tuple(verifier.cut_off()))


def regenerate_command(edition: str = DEFAULT_EDITION, bound: int = DEFAULT_BOUND, out: str = DEFAULT_DIR) -> str:
    """The command that writes this report again; the defaults are left out so the usual one stays short."""
    words = ["rule603", "report"]
    if edition != DEFAULT_EDITION:
        words += ["--edition", edition]
    if bound != DEFAULT_BOUND:
        words += ["--bound", str(bound)]
    if out != DEFAULT_DIR:
        words += ["--out", out]
    return shlex.join(words + ["--overwrite"])


# --- texts shared with the terminal output -------------------------------------------


def verdict_text(r: CheckResult) -> str:
    if r.verdict == HOLDS:
        return f"holds (to bound {r.bound})"
    if r.verdict == VIOLATED:
        return f"VIOLATED at moment {r.violated_at}"
    return f"{r.verdict} ({r.reason})"


def drop_text(d: DropResult) -> str:
    """One dropped clause; says so when dropping it did not break the property, as it should have."""
    return d.clause if d.verdict == VIOLATED else f"{d.clause} ({d.verdict} without it)"


def render_trace(edition: Edition, trace: Trace, fmt: str = "simple", names: Names = MODEL_LABELS) -> str:
    """A trace as a step table, preceded by the cards involved, each named as ``names`` says."""
    g = concrete_game(edition, trace, [], names)
    setup = edition.model.describe_setup(g)
    rows = [edition.model.describe(g, t) for t in range(trace.length)]
    table = tabulate([list(r.values()) for r in rows], headers=list(rows[0]), tablefmt=fmt, maxcolwidths=36)
    return "\n".join(["  " + line for line in setup] + [table])


def _seconds(value: float) -> str:
    return f"{value:.2f}"


# --- blocks: what the report says, independent of the format --------------------------


@dataclass(frozen=True)
class Code:
    """Inline code inside a paragraph (a command, a file name, a hash)."""

    text: str


@dataclass(frozen=True)
class Removed:
    """Words a later text no longer has (a word-level change)."""

    text: str


@dataclass(frozen=True)
class Added:
    """Words a later text has that the earlier did not."""

    text: str


Inline = str | Code | Removed | Added


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    id: str


@dataclass(frozen=True)
class Paragraph:
    parts: tuple[Inline, ...]
    css: str = ""  # HTML class, e.g. "meta"


@dataclass(frozen=True)
class Quote:
    text: str  # an Example: printed under a clause


@dataclass(frozen=True)
class Preformatted:
    text: str  # a counterexample's step table


@dataclass(frozen=True)
class Table:
    id: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    row_classes: tuple[str, ...] = ()  # one per row, for HTML (a verdict, a clause status)

    @property
    def timed(self) -> bool:
        return self.headers[-1] == TIME_HEADER


Block = Heading | Paragraph | Quote | Preformatted | Table


def _para(*parts: Inline, css: str = "") -> Paragraph:
    return Paragraph(tuple(parts), css)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def document(run: Run, command: str) -> list[Block]:
    """The whole report, in order."""
    return [
        *_header(run, command),
        *_summary(run),
        *_properties(run),
        *_counterexamples(run),
        *_adequacy(run),
        *_clauses(run.edition),
        *_clause_texts(run.edition),
        *_precedence(run.edition),
    ]


def _header(run: Run, command: str) -> list[Block]:
    rules = run.edition.rules
    limits = run.options.limits
    sizes = ", ".join(f"{name} {size}" for name, size in run.universe.sizes.items())
    return [
        Heading(1, f"rule603 verification report: edition {run.edition.name}, bound {run.options.bound}", "top"),
        _para(
            "Edition ",
            Code(run.edition.name),
            f", bound {run.options.bound} (traces of up to {run.options.bound} moments; universe: {sizes}); "
            f"z3 random seed {limits.seed}, at most {limits.timeout_ms / 1000:g} s per solver call.",
        ),
        _para(f"Rule text: {rules.source}. Date: {rules.date}."),
        _para(
            "Regenerate with ",
            Code(command),
            ". The ",
            Code(TIME_HEADER),
            " columns differ from run to run; everything else is the same on every run.",
        ),
    ]


def _summary(run: Run) -> list[Block]:
    edition, results = run.edition, run.results
    t = run.adequacy.totals()
    statuses = [edition.status(c.number) for c in edition.rules.clauses]
    not_modelled = ", ".join(nm.number for nm in edition.not_modelled) or "none"
    count = {v: sum(r.verdict == v for r in results) for v in (HOLDS, VIOLATED, UNKNOWN)}
    rows = (
        (f"properties that hold to bound {run.options.bound}", f"{count[HOLDS]}/{len(results)}"),
        ("properties violated", str(count[VIOLATED])),
        ("properties unknown (timeout or resource limit)", str(count[UNKNOWN])),
        ("clauses encoded", f"{statuses.count('encoded')}/{len(statuses)}"),
        ("clauses not modelled (each with its reason below)", f"{statuses.count('not modelled')} ({not_modelled})"),
        ("clauses stale (text changed since encoded)", str(statuses.count("stale"))),
        (
            "properties confirmed (dropping any clause they name gives a counterexample)",
            f"{t['properties_confirmed']}/{t['properties_total']}",
        ),
        (
            "encoded clauses non-vacuous (a trace exists in which they apply)",
            f"{t['clauses_non_vacuous']}/{t['clauses_total']}",
        ),
        ("encoded clauses covered (some property needs them)", f"{t['clauses_covered']}/{t['clauses_total']}"),
        ("precedence relations (a specific rule beats a general one)", str(len(edition.precedence()))),
    )
    out: list[Block] = [Heading(2, "Summary", "summary"), Table("totals", ("measure", "count"), rows)]
    if run.cut_off is not None:
        out.append(_para(cut_off_text(run.cut_off, f"within bound {run.options.bound}", run.edition)))
    return out


def _properties(run: Run) -> list[Block]:
    rows = tuple(
        (
            r.property.id,
            verdict_text(r),
            str(r.bound),
            ", ".join(r.property.clauses),
            r.property.summary,
            _seconds(r.seconds),
        )
        for r in run.results
    )
    headers = ("property", "verdict", "bound", "depends on", "claim", TIME_HEADER)
    return [
        Heading(2, "Properties", "properties"),
        _para(
            "A property holds to bound K when no trace of up to K moments that obeys every clause breaks its claim; "
            "a violation is shown with its shortest counterexample, re-checked clause by clause on concrete values; "
            "unknown gives the solver's reason and is never counted as holds."
        ),
        Table("properties", headers, rows, tuple(r.verdict for r in run.results)),
    ]


def _counterexamples(run: Run) -> list[Block]:
    violated = [r for r in run.results if r.trace is not None]
    if not violated:
        return []
    blocks: list[Block] = [Heading(2, "Counterexamples", "counterexamples")]
    for r in violated:
        blocks += [
            Heading(3, r.property.id, f"counterexample-{r.property.id}"),
            _para(r.property.summary),
            Preformatted(render_trace(run.edition, r.trace)),
        ]
    return blocks


def _adequacy(run: Run) -> list[Block]:
    adequacy = run.adequacy
    property_rows = tuple(
        (
            a.property.id,
            "confirmed" if a.confirmed else "NOT CONFIRMED",
            ", ".join(drop_text(d) for d in a.drops),
            _seconds(sum(d.seconds for d in a.drops)),
        )
        for a in adequacy.properties
    )
    clause_rows = tuple((c.number, c.non_vacuous, ", ".join(c.covered_by)) for c in adequacy.clauses)
    return [
        Heading(2, "Adequacy", "adequacy"),
        _para(
            "Each property must need every clause it names: without the clause, a counterexample must exist. "
            "Each encoded clause must be non-vacuous (some trace obeying every clause is one in which it applies) "
            "and covered (some property needs it)."
        ),
        Heading(3, "Per property", "adequacy-per-property"),
        Table(
            "adequacy-properties",
            ("property", "status", "clauses dropped (each gives a counterexample)", TIME_HEADER),
            property_rows,
            tuple("confirmed" if a.confirmed else "not-confirmed" for a in adequacy.properties),
        ),
        Heading(3, "Per clause", "adequacy-per-clause"),
        Table("adequacy-clauses", ("clause", "non-vacuous", "covered by"), clause_rows),
    ]


def _clause_note(edition: Edition, number: str) -> str:
    """Why a clause is not modelled, or which part of it the encoding covers."""
    reason = next((nm.reason for nm in edition.not_modelled if nm.number == number), "")
    enc = edition.by_number.get(number)
    return reason or (enc.scope if enc else "")


def _clauses(edition: Edition) -> list[Block]:
    clauses = edition.rules.clauses
    rows = tuple(
        (
            c.number,
            edition.status(c.number),
            c.text_hash,
            edition.by_number[c.number].summary if c.number in edition.by_number else c.summary,
            _clause_note(edition, c.number),
        )
        for c in clauses
    )
    return [
        Heading(2, "Clauses", "clauses"),
        _para(
            "Every clause of the edition's text: encoded (one constraint family), not modelled (with the reason), "
            "or stale (its text changed since it was encoded). The hash is of the clause text and its examples; "
            "the note says which part of a clause the encoding covers, when not all."
        ),
        Table(
            "clauses",
            ("clause", "status", "text hash", "summary", "note"),
            rows,
            tuple(_slug(edition.status(c.number)) for c in clauses),
        ),
    ]


def _clause_texts(edition: Edition) -> list[Block]:
    blocks: list[Block] = [
        Heading(2, "Clause texts", "clause-texts"),
        _para("The full text of each clause with the examples printed under it; the text hash is computed from both."),
    ]
    for c in edition.rules.clauses:
        status, note = edition.status(c.number), _clause_note(edition, c.number)
        if note:
            note = f". {'Why' if status == 'not modelled' else 'The encoding covers'}: {note}"
        blocks += [
            Heading(3, c.number, f"clause-{c.number}"),
            _para(status, ", text hash ", Code(c.text_hash), note, css="meta"),
            _para(c.text),
            *(Quote(f"Example: {example}") for example in c.examples),
        ]
    return blocks


def _precedence(edition: Edition) -> list[Block]:
    return [
        Heading(2, "Precedence", "precedence"),
        _para(
            "Where a specific clause (or a rule outside 603 the model relies on) applies, the general one steps "
            "aside; the encoding states each such relation instead of editing the general clause."
        ),
        Table("precedence", ("specific", "steps aside"), tuple(edition.precedence())),
    ]


# --- Markdown -------------------------------------------------------------------------

# Characters that could change the meaning of text in Markdown even mid-line ("|" ends a table cell).  Brackets
# are left alone: the rule text is full of "[this object]", and without a link definition they are plain text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_<|])")


def _md_text(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _md_part(p: Inline) -> str:
    if isinstance(p, Code):
        return f"`{p.text}`"
    if isinstance(p, Removed):
        return f"~~{_md_text(p.text)}~~"
    if isinstance(p, Added):
        return f"**{_md_text(p.text)}**"
    return _md_text(p)


def _md_inline(parts: Iterable[Inline]) -> str:
    return "".join(_md_part(p) for p in parts)


def _md_table(table: Table) -> str:
    # disable_numparse: a hash such as "1234e56789ab" must not be read as a number and reformatted.
    align = ("left",) * (len(table.headers) - 1) + (("right",) if table.timed else ("left",))
    return tabulate(
        [[_md_text(cell) for cell in row] for row in table.rows],
        headers=[_md_text(h) for h in table.headers],
        tablefmt="github",
        disable_numparse=True,
        colalign=align,
    )


def _md_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {_md_text(block.text)}"
    if isinstance(block, Paragraph):
        return _md_inline(block.parts)
    if isinstance(block, Quote):
        return f"> {_md_text(block.text)}"
    if isinstance(block, Preformatted):
        return f"```\n{block.text}\n```"
    return _md_table(block)


def blocks_to_markdown(blocks: Sequence[Block]) -> str:
    """Any report's blocks as Markdown (GitHub flavour: ~~removed~~, **added**)."""
    return "\n\n".join(_md_block(b) for b in blocks) + "\n"


def to_markdown(run: Run, command: str) -> str:
    return blocks_to_markdown(document(run, command))


# --- HTML -----------------------------------------------------------------------------

# Inline, so the page works offline and from a file; no scripts.
_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:90em;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}"
    "nav a{margin-right:1em}"
    "table{border-collapse:collapse;margin:1em 0;font-size:.92em}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "thead th{background:#f0f0f0;position:sticky;top:0}"
    "td:first-child,td:nth-child(2){white-space:nowrap}"
    "td.time,th.time{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "tr.violated td,tr.not-confirmed td,tr.stale td,tr.missing td{background:#fde2e2}"
    "tr.unknown td{background:#fff4ce}tr.not-modelled td{color:#555;background:#f6f6f6}"
    "p.meta{color:#555;margin-bottom:.2em}"
    "blockquote.example{margin:.3em 0 .3em 1.5em;color:#444;font-style:italic}"
    "pre{overflow-x:auto;background:#f7f7f7;padding:.5em}"
    "del{background:#fde2e2}ins{background:#dcf5dc;text-decoration:none}"
    ".pair{display:flex;gap:1em}.pair>div{flex:1;min-width:0;overflow-x:auto}"
)


def _html_part(p: Inline) -> str:
    if isinstance(p, Code):
        return f"<code>{escape(p.text)}</code>"
    if isinstance(p, Removed):
        return f"<del>{escape(p.text)}</del>"
    if isinstance(p, Added):
        return f"<ins>{escape(p.text)}</ins>"
    return escape(p)


def _html_inline(parts: Iterable[Inline]) -> str:
    return "".join(_html_part(p) for p in parts)


def _html_cell(tag: str, text: str, timed: bool) -> str:
    css = ' class="time"' if timed else ""
    return f"<{tag}{css}>{escape(text)}</{tag}>"


def _html_row(tag: str, cells: Sequence[str], table: Table, css: str = "") -> str:
    last = len(cells) - 1
    row = "".join(_html_cell(tag, cell, table.timed and i == last) for i, cell in enumerate(cells))
    return f'<tr class="{escape(css)}">{row}</tr>' if css else f"<tr>{row}</tr>"


def _html_table(table: Table) -> str:
    classes = table.row_classes or ("",) * len(table.rows)
    body = "\n".join(_html_row("td", row, table, css) for row, css in zip(table.rows, classes, strict=True))
    return (
        f'<table id="{escape(table.id)}">\n<thead>{_html_row("th", table.headers, table)}</thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>"
    )


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f'<h{block.level} id="{escape(block.id)}">{escape(block.text)}</h{block.level}>'
    if isinstance(block, Paragraph):
        css = f' class="{escape(block.css)}"' if block.css else ""
        return f"<p{css}>{_html_inline(block.parts)}</p>"
    if isinstance(block, Quote):
        return f'<blockquote class="example">{escape(block.text)}</blockquote>'
    if isinstance(block, Preformatted):
        return f"<pre>{escape(block.text)}</pre>"
    return _html_table(block)


def _html_nav(blocks: Sequence[Block]) -> str:
    links = [
        f'<a href="#{escape(b.id)}">{escape(b.text)}</a>' for b in blocks if isinstance(b, Heading) and b.level == 2
    ]
    return f"<nav>{''.join(links)}</nav>"


def blocks_to_html(blocks: Sequence[Block], raw: Callable[[Block], str | None] = lambda _: None) -> str:
    """Any report's blocks as a self-contained page: inline CSS, no scripts, nothing fetched.

    ``raw(block)`` may render a block itself (a side-by-side pair of timelines); None keeps the default."""
    title = blocks[0].text if isinstance(blocks[0], Heading) else "rule603 report"
    head = (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{escape(title)}</title>\n'
        f"<style>{_CSS}</style>\n</head>\n<body>"
    )
    rendered = [raw(b) or _html_block(b) for b in blocks[1:]]
    body = [_html_block(blocks[0]), _html_nav(blocks), *rendered]
    return "\n".join([head, *body, "</body>\n</html>"]) + "\n"


def to_html(run: Run, command: str) -> str:
    return blocks_to_html(document(run, command))


# --- comparing two runs -----------------------------------------------------------------

_HTML_TIME = re.compile(r'(<td class="time">)[^<]*(</td>)')
_MASK = "…"


def _mask_markdown_cell(cell: str) -> str:
    text = cell.strip()
    if text == TIME_HEADER:
        return text
    return "---" if set(text) <= set("-:") else _MASK


def _normalise_markdown_times(text: str) -> str:
    """Blank the last cell of every row of a table whose header's last cell is ``time (s)``.

    The whole cell goes, padding included, because the column's width follows its widest
    time; no other cell moves, since the time column is always the last one.
    """
    lines = text.split("\n")
    timed = False
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            timed = False
            continue
        head, last, _ = line.rsplit("|", 2)
        timed = timed or last.strip() == TIME_HEADER  # the header row opens a timed table
        if timed:
            lines[i] = f"{head}| {_mask_markdown_cell(last)} |"
    return "\n".join(lines)


def normalise_times(text: str) -> str:
    """The report (Markdown or HTML) with every time replaced by the same mark, and nothing else changed."""
    return _HTML_TIME.sub(rf"\g<1>{_MASK}\g<2>", _normalise_markdown_times(text))
