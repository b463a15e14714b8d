"""The catalogue on several cores: properties, adequacy checks and the cut-off probe shared out among worker
processes, each with its own incremental encoding of the edition.

Checking one property is independent of checking another, so the work is embarrassingly parallel. Each worker
builds the encoding once (about 2 s at bound 8) and takes the next check as soon as it is free, so that a few
slow properties do not hold the rest up; the cut-off probe, one of the longest tasks, is handed out first.

A verdict does not depend on which worker gives it: "holds" and "violated" are answers about every game within
the bound. What a worker checked before does change its solver's learned clauses, and so could change which
counterexample the shortest-trace search and the minimisation find first; a property a worker finds violated is
therefore checked again in a fresh encoding of its own, so that its counterexample is the same whatever the
number of workers and whatever each checked before. (``--jobs 1`` keeps the one encoding of ``Verifier``, one
property after another, whose counterexamples may differ from these.) A timeout is machine-dependent either way,
and stays ``unknown``.

Everything a worker needs is in a picklable ``Job`` (the edition by name, the universe's sizes, the options and
a module-level function that loads the properties), so workers may be forked or spawned. A user's mistake found
in a worker (a property whose claim fails, say) comes back as its message and is raised again here, so that the
command line gives its one line.

Spread over a cluster, the same tasks go to as many machines as there are properties: each needs only the
``Job`` and a task's name, and sends back a few numbers and, for a violation, one trace.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Rule603Error
from . import interrupts, usercode
from .bounds import CutOff, cut_offs
from .catalogue import load_edition
from .registry import Edition, Property
from .schema import Universe
from .verify import (
    VIOLATED,
    Adequacy,
    CheckResult,
    ClauseAdequacy,
    DropResult,
    Options,
    Progress,
    PropertyAdequacy,
    Verifier,
)


@dataclass(frozen=True)
class Job:
    """What every worker builds for itself."""

    edition: str
    sizes: tuple[tuple[str, int], ...]
    options: Options
    properties: Callable[[], Sequence[Property]]  # module-level (or a functools.partial of one): picklable
    stuck_note: str  # a file where a worker stuck in a user's code leaves why, before it ends itself


@dataclass
class _Worker:
    """One worker process's encoding and properties, made once by ``_start`` (one per process, never shared)."""

    job: Job
    verifier: Verifier
    props: dict[str, Property] = field(default_factory=dict)


_worker: _Worker | None = None  # set in each worker process by ``_start``; the parent never sets it


def _start(job: Job) -> None:
    global _worker
    interrupts.install()  # whatever this process inherited: Ctrl-C in a destructor stops it without a traceback
    usercode.on_stuck = functools.partial(_stuck, job.stuck_note)
    edition = load_edition(job.edition)
    verifier = Verifier(edition, edition.model.universe(**dict(job.sizes)), job.options)
    _worker = _Worker(job, verifier, {p.id: p for p in job.properties()})


def _stuck(note: str, why: str) -> None:
    """A user's claim that swallows every interruption: this worker can only end, and leaves the parent why."""
    try:
        # Atomically: the other workers may be stuck on the same claim and write the note too, and a note being
        # rewritten reads empty, which the parent would take for a crash of ours.
        handle, written = tempfile.mkstemp(dir=Path(note).parent, prefix="rule603-stuck-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(why)
        os.replace(written, note)
    finally:
        os._exit(2)


def _task(name: str, arg: str = "") -> tuple[str, Any]:
    """Run one task in this worker: ``("ok", answer)``, or ``("error", message)`` for a user's mistake."""
    assert _worker is not None, "a task ran outside a worker"
    try:
        return "ok", _TASKS[name](_worker, arg)
    except Rule603Error as e:  # its own class may not survive pickling; its message is what the user reads
        return "error", str(e)


def _check(w: _Worker, prop_id: str) -> tuple:
    prop = w.props[prop_id]
    w.verifier.prepare(list(w.props.values()))
    result = w.verifier.check(prop)
    if result.verdict == VIOLATED and not w.verifier.by_cadical(prop):
        # the counterexample of a fresh encoding: the same whatever ran before (CaDiCaL's path gives one already)
        fresh = Verifier(w.verifier.edition, w.verifier.encoding.universe, w.job.options)
        again = fresh.check(prop)
        seconds = result.seconds + again.seconds
        result = CheckResult(prop, again.verdict, again.bound, seconds, again.trace, again.violated_at, again.reason)
    return result.verdict, result.bound, result.seconds, result.trace, result.violated_at, result.reason


def _drops(w: _Worker, prop_id: str) -> tuple[DropResult, ...]:
    return w.verifier.drops(w.props[prop_id]).drops


def _witness(w: _Worker, number: str) -> str:
    return w.verifier.non_vacuous(number)


def _cut_off(w: _Worker, _: str) -> list[CutOff]:
    v = w.verifier
    return cut_offs(v.edition, v.encoding.universe, v.options.limits, v.options.bound, v.all_clauses)


_TASKS: dict[str, Callable[[_Worker, str], Any]] = {
    "check": _check,
    "drops": _drops,
    "witness": _witness,
    "cut_off": _cut_off,
}


class Workers:
    """``Verifier``'s catalogue questions (``check_all``, ``adequacy``, ``cut_off``) answered by ``jobs`` worker
    processes; results come back in the order asked, whatever order they finish in.

    ``cut_off`` is started with the first batch of work (``start_cut_off``) and collected when asked."""

    def __init__(
        self,
        edition: Edition,
        universe: Universe,
        options: Options,
        properties: Callable[[], Sequence[Property]],
        jobs: int,
        progress: Progress,
    ) -> None:
        self.edition = edition
        self.universe = universe
        self.options = options
        self.progress = progress
        self.all_clauses = [enc.number for enc in self.edition.encodings]
        handle, self._stuck_note = tempfile.mkstemp(prefix="rule603-worker-", suffix=".txt")
        os.close(handle)
        job = Job(edition.name, tuple(sorted(universe.sizes.items())), options, properties, self._stuck_note)
        self._pool = ProcessPoolExecutor(max_workers=jobs, initializer=_start, initargs=(job,))
        self._cut_off: Future | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        Path(self._stuck_note).unlink(missing_ok=True)
        if error is None:
            self._pool.shutdown(wait=True)  # every task is done by now; the workers' peak memory is then counted
            return
        # A mistake, an interrupt or a crash: stop the workers now rather than wait out their checks.
        stop = getattr(self._pool, "terminate_workers", None)  # Python 3.14
        if stop is not None:
            stop()
            return
        for process in list((getattr(self._pool, "_processes", None) or {}).values()):  # before 3.14: no public way
            process.terminate()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def start_cut_off(self) -> None:
        if self._cut_off is None:
            self._cut_off = self._pool.submit(_task, "cut_off")

    def cut_off(self) -> list[CutOff]:
        future = self._cut_off or self._pool.submit(_task, "cut_off")
        return self._answer(future)

    def check_all(self, props: Sequence[Property], step: Callable[[], None] = lambda: None) -> list[CheckResult]:
        results = []
        for prop, answer in zip(props, self._each("check", [p.id for p in props], step), strict=True):
            verdict, bound, seconds, trace, violated_at, reason = answer
            results.append(CheckResult(prop, verdict, bound, seconds, trace, violated_at, reason))
        return results

    def adequacy(self, props: Sequence[Property], step: Callable[[], None] = lambda: None) -> Adequacy:
        """As ``Verifier.adequacy``: each property's drops, then each clause's witness, all at once."""
        drops = list(self._each("drops", [p.id for p in props], step, "adequacy: dropping the clauses of "))
        report = Adequacy(properties=[PropertyAdequacy(p, d) for p, d in zip(props, drops, strict=True)])
        witnesses = self._each("witness", self.all_clauses, step, "adequacy: witness for ")
        for number, non_vacuous in zip(self.all_clauses, witnesses, strict=True):
            covered = tuple(
                p.property.id
                for p in report.properties
                if any(d.clause == number and d.verdict == VIOLATED for d in p.drops)
            )
            report.clauses.append(ClauseAdequacy(number, non_vacuous, covered))
        return report

    def _each(self, task: str, args: Sequence[str], step: Callable[[], None], label: str = "checked ") -> Iterator:
        """The answers of ``task`` for each of ``args``, in that order; progress as each one comes back."""
        futures = [self._pool.submit(_task, task, arg) for arg in args]
        which = {f: arg for f, arg in zip(futures, args, strict=True)}
        pending = set(futures)
        started = time.perf_counter()
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                self._answer(f)  # a user's mistake stops the run at once
                self.progress(f"{label}{which[f]} ({time.perf_counter() - started:.0f} s)")
                step()
        return (self._answer(f) for f in futures)

    def _answer(self, future: Future) -> Any:
        """A task's answer; a user's mistake is raised as its one line, and so is a worker that ended stuck."""
        try:
            status, value = future.result()
        except BrokenProcessPool:
            why = Path(self._stuck_note).read_text(encoding="utf-8")
            if why:
                raise Rule603Error(why) from None
            raise  # a crash of ours, never a verdict: the command line reports it as such
        if status == "error":
            raise Rule603Error(value)
        return value
