"""The committed reports of `rule603 diff` between consecutive editions are current.

Slow (every consecutive pair at the default bound): behind the ``exhaustive`` marker, which
`.ci/run` also runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule603._internal.diff import diff
from rule603._internal.diffreport import render
from rule603._internal.editions import edition_texts
from rule603._internal.verify import Options

REPORTS = Path(__file__).resolve().parents[1] / "reports"
REGENERATE = "rule603 diff --consecutive --out reports --format md,html --overwrite"
BOUND = 8
IDS = [t.id for t in edition_texts()]
PAIRS = list(zip(IDS, IDS[1:], strict=False))

pytestmark = pytest.mark.exhaustive


def test_there_is_a_report_for_each_pair_of_consecutive_editions_and_no_other():
    committed = sorted(p.name for p in REPORTS.glob("diff-*.*"))
    assert committed == sorted(f"diff-{a}-{b}.{fmt}" for a, b in PAIRS for fmt in ("html", "md"))


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_committed_diff_reports_are_current(edition, a, b):
    result = diff(a, b, Options(bound=BOUND), edition.model.universe())
    command = f"rule603 diff {a} {b} --bound {BOUND}"
    for fmt in ("md", "html"):
        committed = REPORTS / f"diff-{a}-{b}.{fmt}"
        assert committed.exists(), f"{committed.name} is missing: run `{REGENERATE}`"
        assert committed.read_text(encoding="utf-8") == render(result, fmt, command), (
            f"reports/{committed.name} is out of date: run `{REGENERATE}`"
        )
