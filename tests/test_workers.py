"""The catalogue on several cores (``rule603 verify --jobs N``, ``verifier/_internal/workers.py``).

What must not depend on the number of workers: the verdicts, the counterexample shown for a violated property
(found again in a fresh encoding), the adequacy checks; and a user's mistake inside a worker is one line and
exit 2, as it is in one process.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from limits import TEST_TIMEOUT_MS
from rule603 import cli
from rule603._internal import smt
from rule603._internal.catalogue import builtin_properties, load_edition, select
from rule603._internal.loader import load_property_file
from rule603._internal.schema import Schema
from rule603._internal.trace import to_json
from rule603._internal.verify import HOLDS, VIOLATED, Options, Verifier
from rule603._internal.workers import Workers
from rule603.commands.common import ExitCode

ROOT = Path(__file__).resolve().parents[1]
MY_PROPS = str(ROOT / "examples" / "my_props.py")
BOUND = 3
OPTIONS = Options(bound=BOUND, limits=smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS))


def _quiet(_: str) -> None:
    pass


def my_props() -> list:
    """What a worker loads: the example file's three properties (the third one wrong on purpose)."""
    return load_property_file(MY_PROPS)


def some_builtins() -> list:
    return select(builtin_properties(), ["delayed-fires-once", "upkeep-trigger-each-upkeep"])


def _trace_json(edition, trace) -> dict:
    return to_json(trace, Schema(tuple(edition.model.VARIABLES)))


@pytest.fixture(scope="module")
def current():
    return load_edition("current")


@pytest.mark.exhaustive  # about 8-16 s; the README test command stays within five minutes
def test_verdicts_and_counterexamples_are_the_same_with_any_number_of_workers(current):
    props = my_props()
    universe = current.model.universe()
    serial = Verifier(current, universe, OPTIONS).check_all(props)
    by_jobs = {}
    for jobs in (2,):
        with Workers(current, universe, OPTIONS, my_props, jobs, _quiet) as workers:
            by_jobs[jobs] = workers.check_all(props)
    verdicts = [r.verdict for r in serial]
    assert verdicts == [HOLDS, HOLDS, VIOLATED]  # the example file's third property is wrong on purpose
    for results in by_jobs.values():
        assert [r.verdict for r in results] == verdicts
        assert [r.property.id for r in results] == [p.id for p in props]  # in the order asked
    # The counterexample is the one a fresh encoding finds for that property alone, whatever else ran before.
    alone = Verifier(current, universe, OPTIONS).check(props[2])
    for results in by_jobs.values():
        assert results[2].violated_at == alone.violated_at
        assert _trace_json(current, results[2].trace) == _trace_json(current, alone.trace)


@pytest.mark.exhaustive  # slow (over 10 s); the README test command stays within five minutes
def test_adequacy_and_cut_off_are_the_same_with_workers(current):
    props = some_builtins()
    universe = current.model.universe()
    options = Options(bound=3, limits=OPTIONS.limits)
    verifier = Verifier(current, universe, options)
    serial = verifier.adequacy(props)
    with Workers(current, universe, options, some_builtins, 2, _quiet) as workers:
        workers.start_cut_off()
        parallel = workers.adequacy(props)
        reached = workers.cut_off()
    assert parallel.totals() == serial.totals()
    assert [(a.property.id, [(d.clause, d.verdict) for d in a.drops]) for a in parallel.properties] == [
        (a.property.id, [(d.clause, d.verdict) for d in a.drops]) for a in serial.properties
    ]
    assert [(c.number, c.non_vacuous, c.covered_by) for c in parallel.clauses] == [
        (c.number, c.non_vacuous, c.covered_by) for c in serial.clauses
    ]
    assert [c.to_json() for c in reached] == [c.to_json() for c in verifier.cut_off()]


def _props_file(tmp_path: Path, body: str) -> Path:
    """Two properties, so that ``verify`` shares them out among workers: a plain one and ``mine``."""
    text = textwrap.dedent(
        """\
        import time
        from rule603 import prop


        @prop("plain", clauses=["603.2"])
        def plain(g, t):
            return True


        @prop("mine", clauses=["603.2"])
        def mine(g, t):
        """
    )
    path = tmp_path / "mine.py"
    path.write_text(text + textwrap.indent(textwrap.dedent(body), "    "), encoding="utf-8")
    return path


def test_a_claim_that_raises_in_a_worker_is_one_line(capsys, tmp_path):
    path = _props_file(tmp_path, "raise ValueError('no')\n")
    code = cli.main(["verify", "--no-builtin", "--property-file", str(path), "--bound", "1", "--jobs", "2"])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE
    assert err.count("\n") == 1 and "property mine (" in err and "its claim raised ValueError: no" in err


def test_a_claim_stuck_in_a_worker_ends_the_run_with_one_line(tmp_path):
    body = "while True:\n    try:\n        time.sleep(1)\n    except BaseException:\n        pass\n"
    path = _props_file(tmp_path, body)
    argv = ["verify", "--no-builtin", "--property-file", str(path), "--bound", "1", "--claim-timeout", "0.3"]
    done = subprocess.run(
        [sys.executable, "-m", "rule603.cli", *argv, "--jobs", "2"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == ExitCode.USAGE and done.stdout == ""
    assert done.stderr.startswith(f"rule603: error: property mine ({path}:") and done.stderr.count("\n") == 1
    assert "ran for more than 0.3 s and does not stop when interrupted" in done.stderr


def test_the_job_a_worker_gets_can_be_pickled(current):
    """Workers may be spawned as well as forked: everything they are given must survive pickling."""
    import pickle

    from rule603._internal.workers import Job

    job = Job("current", (("card", 3),), OPTIONS, functools.partial(select, ["delayed-fires-once"]), "note.txt")
    again = pickle.loads(pickle.dumps(job))
    assert again.properties.func is select and again.properties.args == job.properties.args
    assert (again.edition, again.sizes, again.options, again.stuck_note) == (
        "current",
        (("card", 3),),
        OPTIONS,
        "note.txt",
    )
