"""The whole catalogue at the default bound, adequacy, and the committed verification report while it is current.

Slow: behind the ``exhaustive`` marker, which `.ci/run` also runs.
"""

from __future__ import annotations

import pytest
from committed_reports import committed_text, require_current
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
def test_the_committed_report_is_what_the_run_writes_while_it_is_current(run, name, render):
    """Byte for byte, except the time cells (normalised in both: they differ on every run) and the provenance stamp."""
    require_current("verification")
    expected = normalise_times(render(run, regenerate_command()))
    assert normalise_times(committed_text(f"reports/{name}")) == expected
