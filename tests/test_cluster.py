"""Batch jobs on a Dask cluster (``--scheduler``): the same answers as the local run, in the same order.

Needs the optional extra ``cluster``; `.ci/run` installs it before the exhaustive suite, which runs these.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rule603._internal import conformance
from rule603.cli import main

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.exhaustive

EXAMPLES = Path(__file__).parent.parent / "examples" / "traces"


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c.scheduler_address


def _corpus() -> list:
    """Reference-engine traces of several universes, the example traces (two break a clause) and an unreadable
    line, in an order that mixes them."""
    from rule603._internal.bench import _engine_traces

    texts = _engine_traces(90)
    examples = [p.read_text() for p in sorted(EXAMPLES.glob("*.json"))]
    mixed = [*texts[:40], *examples, '{"#meta": 1}', *texts[40:]]
    return [conformance._Input(f"trace-{i}", text) for i, text in enumerate(mixed)]


def _outcomes(batch: conformance.Batch) -> list:
    return [o.to_json() for o in batch.outcomes]


def test_check_on_a_cluster_answers_as_the_local_run(scheduler):
    items = _corpus()
    local = conformance.check_all(items, jobs=1)
    assert local.violating and local.unreadable and local.conforming, "the corpus must hold every kind of outcome"
    clustered = conformance.check_all(items, scheduler=scheduler)
    assert _outcomes(clustered) == _outcomes(local)
    assert clustered.jobs == 0


def test_rule603_check_scheduler(scheduler, capsys):
    paths = [str(p) for p in sorted(EXAMPLES.glob("*.json"))]
    assert main(["check", *paths, "--format", "json"]) == 1
    local = json.loads(capsys.readouterr().out)
    assert main(["check", *paths, "--format", "json", "--scheduler", scheduler]) == 1
    clustered = json.loads(capsys.readouterr().out)
    assert clustered["traces"] == local["traces"]


def test_no_scheduler_there_is_one_line(capsys):
    assert main(["check", str(EXAMPLES / "board-wipe.json"), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("rule603: error: --scheduler tcp://127.0.0.1:9: no Dask scheduler answers there")


def test_a_worker_with_other_code_refuses_the_task():
    from rule603._internal.cluster import OtherCode

    item = conformance._Input("t", (EXAMPLES / "board-wipe.json").read_text())
    with pytest.raises(OtherCode, match="a worker runs another rule603"):
        conformance._check_on_worker("0" * 20, [item], None, False)
