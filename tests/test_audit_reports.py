"""The committed reports of `rule603 audit` (one per edition) are current.

Slow (every edition's whole audit at the default bound, two editions at a time): behind the
``exhaustive`` marker, which `.ci/run` also runs.  The audit's default limits are z3 resource
limits, not the wall clock (``AUDIT_LIMITS``), so what it finds and what it leaves undecided is the
same on CI's machine as on the one that wrote the reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule603._internal.editions import edition_texts
from rule603.cli import main

REPORTS = Path(__file__).resolve().parents[1] / "reports"
REGENERATE = "rule603 audit --all --jobs 2 --out reports --overwrite"
IDS = [t.id for t in edition_texts()]

pytestmark = pytest.mark.exhaustive


def test_there_is_an_audit_report_for_each_edition_and_no_other():
    assert sorted(p.name for p in REPORTS.glob("audit-*.md")) == sorted(f"audit-{name}.md" for name in IDS)


def test_committed_audit_reports_are_current(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # so that the reports name the command as committed: --out reports
    assert main(REGENERATE.split()[1:]) in (0, 1, 3)
    for name in IDS:
        fresh = (tmp_path / "reports" / f"audit-{name}.md").read_text(encoding="utf-8")
        committed = REPORTS / f"audit-{name}.md"
        assert committed.exists(), f"{committed.name} is missing: run `{REGENERATE}`"
        stale = f"reports/{committed.name} is out of date: run `{REGENERATE}`"
        assert committed.read_text(encoding="utf-8") == fresh, stale
