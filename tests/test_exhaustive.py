"""The committed verification report is what the catalogue at the default bound writes, while it is current.

That every property holds at bound 8 and that adequacy is complete are the README's and docs/verify.md's
exhaustive examples (``rule603 verify``: "47 hold, 0 violated, 0 unknown"; ``rule603 verify --adequacy``:
"47/47 properties confirmed, 44/44 clauses non-vacuous, 44/44 clauses covered", exit 0), run by
tests/test_doc_examples.py; this module only compares the committed report, and computes nothing when it is stale.
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

pytestmark = pytest.mark.exhaustive


@pytest.fixture(scope="module")
def run(edition):
    require_current("verification")  # before the catalogue is run: a stale report is skipped at no cost
    return full_run(edition, report_options())


@pytest.mark.parametrize("name, render", [(MARKDOWN, to_markdown), (HTML, to_html)])
def test_the_committed_report_is_what_the_run_writes_while_it_is_current(run, name, render):
    """Byte for byte, except the time cells (normalised in both: they differ on every run) and the provenance stamp."""
    expected = normalise_times(render(run, regenerate_command()))
    assert normalise_times(committed_text(f"reports/{name}")) == expected
