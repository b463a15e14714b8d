"""The HTML ruling report, rendered in a real browser (headless Chromium): answers, citations and timeline show."""

from __future__ import annotations

from pathlib import Path

from browser import probe
from rule603.cli import main

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "603.10a-board-wipe.toml"
SHOWN = """{
  answers: [...document.querySelectorAll('.answer')].filter(seen).map((e) => e.textContent),
  clauses: [...document.querySelectorAll('.clause b')].filter(seen).map((e) => e.textContent),
  moments: [...document.querySelectorAll('svg g.moment')].filter(seen).length,
  timeline: [...document.querySelectorAll('svg text')].filter(seen).map((e) => e.textContent).join(' | '),
}"""


def _render(tmp_path: Path, capsys) -> dict:
    assert main(["rule", str(SCENARIO), "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    return probe(page, SHOWN, tmp_path)


def test_answers_citations_and_timeline_are_visible_in_a_browser(tmp_path: Path, capsys):
    shown = _render(tmp_path, capsys)
    assert shown["answers"] == ["always 2"]
    assert {"603.2c", "603.10a"} <= set(shown["clauses"])
    assert shown["moments"] == 2
    assert "Blood Artist ×2 [Alice]" in shown["timeline"] and "moment 1" in shown["timeline"]
