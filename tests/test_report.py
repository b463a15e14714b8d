"""`rule603 report`: both files from one run, every clause and property in them, times the only difference.

Most tests render a hand-built run (three properties: one holds, one violated, one
unknown) so that every verdict shows without a solver; one runs the command at bound 1.
The committed verification report, compared while it is current, is test_exhaustive.py's.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import probe
from rule603._internal import report
from rule603._internal.bounds import CutOff
from rule603._internal.report import Run, normalise_times, regenerate_command, to_html, to_markdown
from rule603._internal.schema import Schema
from rule603._internal.trace import load
from rule603._internal.verify import (
    HOLDS,
    UNKNOWN,
    VIOLATED,
    Adequacy,
    CheckResult,
    ClauseAdequacy,
    DropResult,
    Options,
    PropertyAdequacy,
)
from rule603.cli import ExitCode, main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "traces" / "delayed-fires-twice.json"
COMMAND = regenerate_command()
TABLES = ["totals", "properties", "adequacy-properties", "adequacy-clauses", "clauses", "precedence"]
TIMED_ROWS = 6  # three verdicts and three properties' adequacy drops


def fake_run(edition, catalogue, seconds: float = 1.0) -> Run:
    """Three verdicts, one of each kind; the third property's first clause is (wrongly) not needed."""
    by_id = {p.id: p for p in catalogue}
    broken, fine, unsure = by_id["delayed-fires-once"], by_id["draw-is-not-losing"], by_id["dies-once-per-creature"]
    trace = load(EXAMPLE, Schema(tuple(edition.model.VARIABLES)))
    results = (
        CheckResult(broken, VIOLATED, 3, seconds, trace=trace, violated_at=2),
        CheckResult(fine, HOLDS, 4, 2 * seconds),
        CheckResult(unsure, UNKNOWN, 4, 3 * seconds, reason="timeout"),
    )
    props = (broken, fine, unsure)
    drops = [
        tuple(DropResult(c, HOLDS if (p is unsure and i == 0) else VIOLATED, seconds) for i, c in enumerate(p.clauses))
        for p in props
    ]
    clauses = [
        ClauseAdequacy(enc.number, "yes", tuple(p.id for p in props if enc.number in p.clauses))
        for enc in edition.encodings
    ]
    adequacy = Adequacy([PropertyAdequacy(p, d) for p, d in zip(props, drops, strict=True)], clauses)
    cut = (CutOff("stack_size", 3, "number of objects on the stack", 1, unit="objects on the stack"),)
    return Run(edition, Options(bound=4), edition.model.universe(), results, adequacy, cut)


class _Page(HTMLParser):
    """Checks that every tag is closed in order, and collects each table's rows (cells and class) by id."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "wbr"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []
        self.tables: dict[str, list[tuple[str, list[str]]]] = {}
        self.ids: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()
        if self.open:
            self.problems.append(f"never closed: {self.open}")

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag not in self.VOID:
            self.open.append(tag)
        if tag == "table":
            self._table = attrs["id"]
            self.tables[self._table] = []
        elif tag == "tr":
            self.tables[self._table].append((attrs.get("class", ""), []))
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        top = self.open.pop() if self.open else None
        if top != tag:
            self.problems.append(f"</{tag}> closes <{top}> at {self.getpos()}")
        if tag in ("td", "th"):
            self.tables[self._table][-1][1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def column(self, table: str, index: int = 0) -> list[str]:
        return [cells[index] for _, cells in self.tables[table][1:]]

    def row_classes(self, table: str) -> list[str]:
        return [css for css, _ in self.tables[table][1:]]


@pytest.fixture(scope="module")
def run(edition, catalogue) -> Run:
    return fake_run(edition, catalogue)


def test_markdown_has_every_clause_and_property(run, edition):
    md = to_markdown(run, COMMAND)
    assert md.startswith("# rule603 verification report: edition current, bound 4\n")
    assert f"`{COMMAND}`" in md and edition.rules.date in md
    for c in edition.rules.clauses:
        assert f"\n| {c.number} " in md and f"\n### {c.number}\n" in md and c.text in md
        assert all(f"> Example: {example}" in md for example in c.examples)
        assert c.text_hash in md
    for nm in edition.not_modelled:
        assert nm.reason in md
    for r in run.results:
        assert f"\n| {r.property.id} " in md and r.property.summary in md
    assert "VIOLATED at moment 2" in md and "unknown (timeout)" in md and "holds (to bound 4)" in md
    assert "## Counterexamples" in md and "d0(creature_dies) ×2 [P0]" in md
    assert "Cut off: the model leaves out games within bound 4 with more than 3 objects on the stack" in md


def test_html_is_well_formed_self_contained_and_complete(run, edition):
    page = to_html(run, COMMAND)
    parsed = _Page(page)
    assert parsed.problems == []
    assert page.startswith("<!DOCTYPE html>") and f"<code>{COMMAND}</code>" in page
    for banned in ("<script", "http", "<link", "src=", "@import"):
        assert banned not in page
    assert list(parsed.tables) == TABLES
    assert parsed.column("clauses") == list(edition.rules.numbers())
    assert all(f"clause-{n}" in parsed.ids for n in edition.rules.numbers())
    assert parsed.column("properties") == [r.property.id for r in run.results]
    assert parsed.row_classes("properties") == [VIOLATED, HOLDS, UNKNOWN]
    assert parsed.row_classes("adequacy-properties") == ["confirmed", "confirmed", "not-confirmed"]
    assert parsed.column("properties", 3) == [", ".join(r.property.clauses) for r in run.results]
    assert parsed.column("adequacy-clauses") == [enc.number for enc in edition.encodings]
    assert len(parsed.tables["precedence"]) - 1 == len(edition.precedence())
    statuses = dict(zip(parsed.column("clauses"), parsed.column("clauses", 1), strict=True))
    assert {n for n, s in statuses.items() if s == "not modelled"} == {nm.number for nm in edition.not_modelled}


@pytest.mark.parametrize("render", [to_markdown, to_html], ids=["md", "html"])
def test_times_are_the_only_difference_between_runs(edition, catalogue, render):
    quick = render(fake_run(edition, catalogue, seconds=0.5), COMMAND)
    slow = render(fake_run(edition, catalogue, seconds=123456.789), COMMAND)  # wider than the column's header
    assert quick != slow
    assert normalise_times(quick) == normalise_times(slow)
    assert "123456.79" in slow and "123456.79" not in normalise_times(slow)
    masked = normalise_times(slow)
    assert masked.count('<td class="time">…</td>') + masked.count("| … |\n") == TIMED_ROWS
    assert normalise_times(masked) == masked


def test_regenerate_command_leaves_out_the_defaults():
    assert regenerate_command() == "rule603 report --overwrite"
    assert regenerate_command(bound=4, out="my reports") == "rule603 report --bound 4 --out 'my reports' --overwrite"


@pytest.mark.exhaustive  # slow (over 10 s); the README test command stays within five minutes
def test_report_command_writes_both_files_and_output_prints_the_same_markdown(tmp_path, capsys):
    code = main(["report", "--bound", "1", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code in (ExitCode.OK, ExitCode.VIOLATED)  # at bound 1 some adequacy checks cannot succeed
    assert out == "" and err.startswith("wrote ")
    md = (tmp_path / report.MARKDOWN).read_text(encoding="utf-8")
    page = (tmp_path / report.HTML).read_text(encoding="utf-8")
    assert _Page(page).problems == [] and list(_Page(page).tables) == TABLES
    assert f"rule603 report --bound 1 --out {tmp_path} --overwrite" in md
    assert main(["report", "--bound", "1", "--out", str(tmp_path), "--output", "-"]) == ExitCode.USAGE
    capsys.readouterr()
    assert main(["report", "--bound", "1", "--output", "-"]) == code
    printed = capsys.readouterr().out
    assert normalise_times(printed) == normalise_times(md.replace(f" --out {tmp_path}", ""))


@pytest.mark.parametrize("existing", [report.MARKDOWN, report.HTML])
def test_report_refuses_to_overwrite_before_any_work(tmp_path, capsys, monkeypatch, existing):
    monkeypatch.setattr(
        "rule603.commands.report.full_run", lambda *a, **k: pytest.fail("the run started before the refusal")
    )
    (tmp_path / existing).write_text("mine\n", encoding="utf-8")
    code = main(["report", "--out", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == ExitCode.USAGE
    assert err == f"rule603: error: --out {tmp_path}: {existing} already exists; add --overwrite to replace it\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [existing]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--out", "README.md"], "--out README.md: exists and is not a directory"),
        (["--bound", "0"], "--bound 0: must be between 1 and 30"),
        (["--output", "reports"], "--output reports: is a directory"),
        (["--out", "x", "--output", "y"], "not allowed with argument"),
    ],
)
def test_report_usage_errors_are_one_line(capsys, monkeypatch, argv, message):
    monkeypatch.setattr(
        "rule603.commands.report.full_run", lambda *a, **k: pytest.fail("the run started before the refusal")
    )
    code = main(["report", *argv])
    _, err = capsys.readouterr()
    assert code == ExitCode.USAGE and message in err and err.count("\n") == 1


VISIBLE = """{
  tables: [...document.querySelectorAll('table')].filter(seen).map((t) => t.id),
  properties: [...document.querySelectorAll('#properties tbody tr')].filter(seen).map((r) => r.cells[0].textContent),
  clauses: [...document.querySelectorAll('#clauses tbody tr')].filter(seen).map((r) => r.cells[0].textContent),
  texts: [...document.querySelectorAll('h3[id^="clause-"]')].filter(seen).map((h) => h.textContent),
  times: [...document.querySelectorAll('td.time')].filter(seen).length,
  violated: getComputedStyle(document.querySelector('#properties tr.violated td')).backgroundColor,
  holds: getComputedStyle(document.querySelector('#properties tr.holds td')).backgroundColor,
}"""


def test_verification_page_is_visible_in_a_browser(run, edition, tmp_path):
    shown = probe(to_html(run, COMMAND), VISIBLE, tmp_path)
    assert shown["tables"] == TABLES
    assert shown["properties"] == [r.property.id for r in run.results]
    assert shown["clauses"] == shown["texts"] == list(edition.rules.numbers())
    assert shown["times"] == TIMED_ROWS
    assert shown["violated"] != shown["holds"]  # a violation stands out
