"""Comparing a fresh computation with a committed report, only while that report is current.

A committed report is regenerated as a release step, never as a condition of landing a change (docs/reports.md):
a report out of date against this checkout's code is listed by ``rule603 reports``, and the tests that compare
their own fresh output with it byte for byte are skipped, saying so. While it is current, the comparison shows
that regenerating gives the same bytes, so that its fingerprint is worth trusting.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule603._internal import committed

ROOT = Path(__file__).resolve().parents[1]


def require_current(name: str) -> None:
    """Skip the calling test when the committed report ``name`` is out of date (or unknown)."""
    (status,) = [s for s in committed.status(ROOT) if s.report.name == name] or [None]
    if status is None:
        pytest.skip(f"no committed report named {name!r}")
    if not status.current:
        pytest.skip(
            f"reports: {name} is out of date ({'; '.join(status.reasons)[:200]}); `rule603 reports --regenerate`"
        )


def committed_text(relative: str) -> str:
    """A committed report's file as text, without the provenance stamp its regeneration put at its top."""
    from rule603._internal import provenance

    path = ROOT / relative
    return provenance.strip(path.read_text(encoding="utf-8"), path.suffix)
