"""Regenerating a report gives the same bytes: what a report's fingerprint stands on.

The audit of the current edition (the one audit that can be regenerated alone: the others report on the later
editions' audits too) is regenerated in full and compared with the committed one while that is current; it is long,
so it runs by hand: ``pytest -m audit_regeneration tests/test_reports_regenerate.py``. CI runs the same diff twice,
each in a process of its own, at a small bound: the two must be byte for byte the same (z3's resource limit, not the
wall clock, decides what a diff leaves undecided, so this holds on any machine).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from committed_reports import committed_text, require_current
from rule603._internal.auditreport import audit_markdown
from rule603._internal.catalogue import load_edition
from rule603.cli import _parser
from rule603.commands.audit import audit_command, audit_quietly

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.exhaustive
@pytest.mark.audit_regeneration
def test_the_audit_of_the_current_edition_regenerates_byte_for_byte():
    require_current("audit")
    args = _parser().parse_args("audit --all --jobs 2 --out reports --overwrite".split())
    fresh = audit_markdown(audit_quietly(args, "current"), load_edition("current"), {}, audit_command(args))
    assert fresh == committed_text("reports/audit-current.md")


@pytest.mark.exhaustive
def test_a_diff_computed_twice_in_two_processes_is_the_same_bytes(tmp_path):
    for run in ("one", "two"):
        argv = ["diff", "battlefield-en", "battlefield-fr", "--bound", "3", "--out", str(tmp_path / run)]
        done = subprocess.run(
            [sys.executable, "-m", "rule603.cli", *argv, "--format", "md,html"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode in (0, 1), done.stderr
    for fmt in ("md", "html"):
        name = f"diff-battlefield-en-battlefield-fr.{fmt}"
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name
