"""The HTML ruling report, rendered in a real browser (headless Chromium): answers, citations and timeline show."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from rule603.cli import main

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "603.10a-board-wipe.toml"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
# Appended by the test only (the report itself has no scripts): what the browser laid out, and how big.
PROBE = """
<script>
const seen = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
const report = {
  answers: [...document.querySelectorAll('.answer')].filter(seen).map((e) => e.textContent),
  clauses: [...document.querySelectorAll('.clause b')].filter(seen).map((e) => e.textContent),
  moments: [...document.querySelectorAll('svg g.moment')].filter(seen).length,
  timeline: [...document.querySelectorAll('svg text')].filter(seen).map((e) => e.textContent).join(' | '),
};
document.body.setAttribute('data-probe', JSON.stringify(report));
</script>
"""


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine: .ci/run installs Debian's 'chromium' package; install it to run this")


def _render(tmp_path: Path, capsys) -> dict:
    import html
    import json
    import re

    assert main(["rule", str(SCENARIO), "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    result = subprocess.run(
        [_browser(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", probe.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    match = re.search(r"data-probe=\"([^\"]*)\"", result.stdout)
    assert match, f"the browser rendered nothing usable: {result.stderr[-500:]}"
    return json.loads(html.unescape(match.group(1)))


def test_answers_citations_and_timeline_are_visible_in_a_browser(tmp_path: Path, capsys):
    shown = _render(tmp_path, capsys)
    assert shown["answers"] == ["always 2"]
    assert {"603.2c", "603.10a"} <= set(shown["clauses"])
    assert shown["moments"] == 2
    assert "c0(creature_dies) ×2 [P0]" in shown["timeline"] and "moment 1" in shown["timeline"]
