"""The whole catalogue at the default bound, adequacy, and the committed report.

Slow (about a minute): behind the ``exhaustive`` marker, which `.ci/run` also runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule603._internal.verify import HOLDS, Options
from rule603.cli import full_run, render_report

REPORT = Path(__file__).resolve().parents[1] / "reports" / "current.md"

pytestmark = pytest.mark.exhaustive


@pytest.fixture(scope="module")
def run(edition):
    options = Options(bound=8)
    results, adequacy = full_run(edition, options)
    return edition, options, results, adequacy


def test_every_property_holds_at_the_default_bound(run):
    _, _, results, _ = run
    assert [(r.property.id, r.verdict) for r in results if r.verdict != HOLDS] == []


def test_adequacy_is_complete(run):
    _, _, _, adequacy = run
    t = adequacy.totals()
    assert t["properties_confirmed"] == t["properties_total"] >= 30
    assert t["clauses_non_vacuous"] == t["clauses_covered"] == t["clauses_total"] == 44


def test_committed_report_is_current(run):
    edition, options, results, adequacy = run
    expected = render_report(edition, options, results, adequacy)
    assert REPORT.read_text(encoding="utf-8") == expected, (
        "reports/current.md is out of date: run `rule603 report --output reports/current.md --overwrite`"
    )
