"""The whole catalogue at the default bound, adequacy, and the committed reports.

Slow (about a minute): behind the ``exhaustive`` marker, which `.ci/run` also runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule603._internal.report import (
    HTML,
    MARKDOWN,
    full_run,
    normalise_times,
    regenerate_command,
    report_options,
    to_html,
    to_markdown,
)
from rule603._internal.verify import HOLDS

REPORTS = Path(__file__).resolve().parents[1] / "reports"

pytestmark = pytest.mark.exhaustive


@pytest.fixture(scope="module")
def run(edition):
    return full_run(edition, report_options())


def test_every_property_holds_at_the_default_bound(run):
    assert [(r.property.id, r.verdict) for r in run.results if r.verdict != HOLDS] == []


def test_adequacy_is_complete(run):
    t = run.adequacy.totals()
    assert t["properties_confirmed"] == t["properties_total"] >= 30
    assert t["clauses_non_vacuous"] == t["clauses_covered"] == t["clauses_total"] == 44


@pytest.mark.parametrize("name, render", [(MARKDOWN, to_markdown), (HTML, to_html)])
def test_committed_report_is_current(run, name, render):
    """Byte for byte, except the time cells (normalised in both: they differ on every run)."""
    command = regenerate_command()
    committed = REPORTS / name
    assert committed.exists(), f"reports/{name} is missing: run `{command}`"
    expected = normalise_times(render(run, command))
    assert normalise_times(committed.read_text(encoding="utf-8")) == expected, (
        f"reports/{name} is out of date: run `{command}`"
    )
