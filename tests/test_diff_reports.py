"""The committed reports of `rule603 diff` between consecutive editions are current.

Slow (every consecutive pair at the default bound, two at a time): behind the ``exhaustive``
marker, which `.ci/run` also runs.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from rule603._internal.catalogue import load_edition
from rule603._internal.diff import diff
from rule603._internal.diffreport import render
from rule603._internal.editions import edition_texts
from rule603._internal.verify import Options

REPORTS = Path(__file__).resolve().parents[1] / "reports"
REGENERATE = "rule603 diff --consecutive --out reports --format md,html --overwrite"
BOUND = 8
FORMATS = ("md", "html")
IDS = [t.id for t in edition_texts()]
PAIRS = list(zip(IDS, IDS[1:], strict=False))

pytestmark = pytest.mark.exhaustive


def _reports(a: str, b: str) -> dict[str, str]:
    """What `rule603 diff A B` writes, in each committed format (run in a worker process)."""
    result = diff(a, b, Options(bound=BOUND), load_edition("current").model.universe())
    return {fmt: render(result, fmt, f"rule603 diff {a} {b} --bound {BOUND}") for fmt in FORMATS}


@pytest.fixture(scope="module")
def fresh() -> dict[tuple[str, str], dict[str, str]]:
    with ProcessPoolExecutor(max_workers=2) as pool:  # CI has 2 cores; each pair is independent
        futures = {pair: pool.submit(_reports, *pair) for pair in PAIRS}
        return {pair: future.result() for pair, future in futures.items()}


def test_there_is_a_report_for_each_pair_of_consecutive_editions_and_no_other():
    committed = sorted(p.name for p in REPORTS.glob("diff-*.*"))
    assert committed == sorted(f"diff-{a}-{b}.{fmt}" for a, b in PAIRS for fmt in FORMATS)


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_committed_diff_reports_are_current(fresh, a, b):
    for fmt, text in fresh[a, b].items():
        committed = REPORTS / f"diff-{a}-{b}.{fmt}"
        assert committed.exists(), f"{committed.name} is missing: run `{REGENERATE}`"
        assert committed.read_text(encoding="utf-8") == text, (
            f"reports/{committed.name} is out of date: run `{REGENERATE}`"
        )
