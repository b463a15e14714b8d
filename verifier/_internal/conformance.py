"""Engine conformance: check recorded traces against every clause, in bulk.

Inputs are trace files, directories of them, and JSON Lines streams (one trace per
line).  Each trace is read with the documented format's checks, then checked by the
compiled checker against every encoded clause and the game-model axioms.  Batches
are spread over worker processes; results come back in input order.

An input that cannot be read as a trace (a file or a line that is not UTF-8, not JSON,
not a trace object, or breaks the format) is a result of its own, :class:`Unreadable`:
one bad line of a stream of ten thousand must not cost the other verdicts.  Only what
makes the whole run meaningless (a path that does not exist, a directory without trace
files) raises :class:`InvalidArgument`.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..errors import InvalidArgument, Rule603Error, TraceFormatError
from . import interrupts
from .catalogue import EDITIONS, load_edition
from .checkcache import CheckStore
from .compiled import CompiledChecker
from .documents import MAX_BYTES, DocumentError, read_capped
from .registry import MODEL_BOUND, Edition
from .schema import Schema
from .trace import Trace, from_json, parse, trace_names
from .trace import to_json as trace_json

STREAM_SUFFIXES = (".jsonl", ".ndjson")
#: The longest line of a stream, and the largest trace file, read: no real trace comes near (a trace of 30 moments
#: is about 100 KiB); it keeps memory bounded whatever arrives on standard input.
MAX_LINE = MAX_BYTES
TRACE_SUFFIXES = (".json",) + STREAM_SUFFIXES
PARALLEL_FROM = 400  # smaller batches are checked in this process: each worker compiles every trace shape again


@dataclass(frozen=True)
class Finding:
    """One broken clause instance: where, which clause, and the values it reads."""

    moment: int
    clause: str
    #: "clause" (of rule 603), "game model" (a rule outside 603 the model relies on), or "model bound" (the trace
    #: goes past a bound of the model, not of the game: from there on the model cannot judge it)
    kind: str
    summary: str
    about: str  # the objects involved by the model's indices ("delayed 0, card 2"), for programs
    values: dict[str, Any]
    objects: str  # the same, each by the trace's name for it where it has one (#meta.names), for people

    def to_json(self) -> dict[str, Any]:
        return {
            "moment": self.moment,
            "clause": self.clause,
            "kind": self.kind,
            "summary": self.summary,
            "about": self.about,
            "objects": self.objects,
            "values": self.values,
        }


@dataclass(frozen=True)
class TraceResult:
    file: str
    moments: int
    violations: tuple[Finding, ...]

    @property
    def conforms(self) -> bool:
        return not self.violations

    @property
    def cut_off(self) -> bool:
        """At the first moment anything is found, the trace goes past a bound of the model and breaks nothing else
        there: it is not judged from that moment on.  With a rule broken beside the bound, it is a violation (an
        engine bug, such as a wrong controller, can itself be what breaks the bound)."""
        if not self.violations:
            return False
        first = min(v.moment for v in self.violations)
        return all(v.kind == MODEL_BOUND for v in self.violations if v.moment == first)

    @property
    def violates(self) -> bool:
        return bool(self.violations) and not self.cut_off

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "conforms": self.conforms,
            "cut_off": self.cut_off,
            "moments": self.moments,
            "violations": [v.to_json() for v in self.violations],
        }


@dataclass(frozen=True)
class Unreadable:
    """An input that is not a trace: a whole file (``line`` None) or one line of a JSON Lines stream."""

    source: str  # the file, or <stdin>
    line: int | None
    pointer: str  # RFC 6901 JSON pointer of the first problem; "" for the whole document
    message: str

    @property
    def where(self) -> str:
        return self.source if self.line is None else f"{self.source}:{self.line}"

    @property
    def problem(self) -> str:
        return f"at {self.pointer or '/'}: {self.message}"

    def __str__(self) -> str:  # the form of a TraceFormatError
        return f"{self.where}: {self.problem}"

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "pointer": self.pointer, "message": self.message}


@dataclass(frozen=True)
class _Input:
    file: str
    text: str
    line: int | None = None  # of a JSON Lines stream

    @property
    def source(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


# --- reading inputs ------------------------------------------------------------------


def inputs(paths: Iterable[str], stdin: Any = None) -> Iterator[_Input | Unreadable]:
    """Every trace named by ``paths`` (files, directories, JSON Lines streams, ``-``), in order.

    A file or line that cannot be read is yielded as :class:`Unreadable`; a path that does not
    exist, or a directory without trace files, raises :class:`InvalidArgument`.
    """
    for raw in paths:
        if raw == "-":
            handle = stdin if stdin is not None else sys.stdin
            # bytes, so that a line that is not UTF-8 spoils only itself
            yield from _nonempty("<stdin>", _stream("<stdin>", getattr(handle, "buffer", handle)))
            continue
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in TRACE_SUFFIXES)
            if not files:
                raise InvalidArgument(f"{raw}: directory has no trace files ({', '.join(TRACE_SUFFIXES)})")
            for file in files:
                yield from _file(file)
        elif path.is_file():
            yield from _file(path)
        else:
            raise InvalidArgument(f"{raw}: no such file or directory")


def _file(path: Path) -> Iterator[_Input | Unreadable]:
    name = str(path)
    try:
        if path.suffix in STREAM_SUFFIXES:
            with path.open("rb") as handle:
                items = list(_nonempty(name, _stream(name, handle)))
        else:
            items = [_whole(name, path)]
    except OSError as e:  # a file that went away or may not be read: the others are still checked
        items = [Unreadable(name, None, "", f"cannot be read: {e.strerror or e}")]
    yield from items


def _stream(name: str, handle: Any) -> Iterator[_Input | Unreadable]:
    for number, line in enumerate(_bounded_lines(handle), start=1):
        if isinstance(line, Unreadable):
            yield dataclasses.replace(line, source=name, line=number)
            continue
        # Blank lines are skipped, as JSON Lines readers do.  Without its newline, a line cut
        # short mid-string is reported as unterminated, not as holding a control character.
        if text := line.rstrip():
            yield _decoded(name, number, text)


def _bounded_lines(handle: Any) -> Iterator[bytes | str | Unreadable]:
    """The lines of a stream, each at most :data:`MAX_LINE` long: a longer one is unreadable and skipped up to its
    end, and a line that has no end within another :data:`MAX_LINE` (``/dev/zero``) ends the stream there.  Memory
    stays bounded whatever arrives."""
    while line := handle.readline(MAX_LINE + 1):
        if len(line) <= MAX_LINE or line[-1:] in (b"\n", "\n"):
            yield line
            continue
        ended = _skip_line(handle)
        yield Unreadable(
            "",
            None,
            "",
            f"a line longer than {MAX_LINE // 2**20} MiB, far more than any trace"
            + ("" if ended else "; no end of line in the next one either, so the rest of the stream is not read"),
        )
        if not ended:
            return


def _skip_line(handle: Any) -> bool:
    """Read past the rest of the current line, at most :data:`MAX_LINE` more; whether its end was found."""
    skipped = 0
    while skipped <= MAX_LINE:
        chunk = handle.readline(2**20)
        if not chunk or chunk[-1:] in (b"\n", "\n"):
            return True
        skipped += len(chunk)
    return False


def _whole(name: str, path: Path) -> _Input | Unreadable:
    try:
        return _decoded(name, None, read_capped(path))
    except DocumentError as e:  # larger than any document rule603 reads
        return Unreadable(name, None, "", str(e))


def _nonempty(name: str, items: Iterable[_Input | Unreadable]) -> Iterator[_Input | Unreadable]:
    """A stream's items; an empty stream is unreadable (an engine that crashed before its first trace)."""
    empty = True
    for item in items:
        empty = False
        yield item
    if empty:
        yield Unreadable(name, None, "", "holds no trace (a JSON Lines stream has one trace per line)")


def _decoded(name: str, line: int | None, raw: bytes | str) -> _Input | Unreadable:
    if isinstance(raw, str):  # a text stream handed to inputs()
        return _Input(name, raw, line)
    try:
        return _Input(name, raw.decode("utf-8"), line)
    except UnicodeDecodeError as e:
        return Unreadable(name, line, "", f"not UTF-8 text ({e.reason} at byte {e.start})")


# --- checking --------------------------------------------------------------------------


@dataclass
class CheckTimes:
    """Where a checker's time went, in seconds: parsing the JSON, reading it against the declared domains,
    getting the compiled checks (compiled, or loaded from the cache), and running them."""

    parse: float = 0.0
    read: float = 0.0
    compile: float = 0.0
    check: float = 0.0

    def to_json(self) -> dict[str, float]:
        return {k: round(v, 3) for k, v in dataclasses.asdict(self).items()}


class TraceChecker:
    """Checks traces against every encoded clause of an edition and the game-model axioms.

    Keep one for many traces: the compiled checks are built once per trace shape.
    ``edition=None`` checks each trace against the edition it names in ``#meta``.
    """

    def __init__(self, edition: str | None = None, *, all_violations: bool = False) -> None:
        self.edition_name = edition
        self.all_violations = all_violations
        self._editions: dict[str, tuple[Edition, Schema, CompiledChecker]] = {}
        self.times = CheckTimes()
        if edition is not None:
            self._edition(edition)  # an unknown edition is a usage error before any trace is read

    def _edition(self, name: str) -> tuple[Edition, Schema, CompiledChecker]:
        if name not in self._editions:
            edition = load_edition(name)
            enabled = tuple(e.number for e in edition.encodings)
            checker = CompiledChecker(edition, enabled, store=CheckStore.default())
            self._editions[name] = (edition, Schema(tuple(edition.model.VARIABLES)), checker)
        return self._editions[name]

    def check(self, trace: Trace | Mapping[str, Any], source: str = "<trace>") -> TraceResult:
        """Check a :class:`Trace` or a JSON trace (as parsed); a malformed one raises TraceFormatError."""
        started = time.perf_counter()
        if isinstance(trace, Trace):
            edition, schema, checker = self._edition(self.edition_name or trace.edition)
            trace = _validated(trace, schema, source)
        else:
            edition, schema, checker = self._edition(self.edition_name or _declared_edition(trace, source))
            trace = from_json(trace, schema, source)
        edition.model.check_universe(trace.universe, source)
        read, compiling = time.perf_counter(), checker.compile_seconds
        broken = checker.violations(trace, first_moment=not self.all_violations)
        self.times.read += read - started
        self.times.compile += checker.compile_seconds - compiling
        self.times.check += time.perf_counter() - read - (checker.compile_seconds - compiling)
        return TraceResult(source, trace.length, tuple(_finding(edition, schema, trace, b) for b in broken))

    def check_input(self, item: _Input) -> TraceResult | Unreadable:
        """The result, or why the input is not a trace: a bad input never raises (nor ends a worker process)."""
        try:
            started = time.perf_counter()
            data = parse(item.text, item.source)
            self.times.parse += time.perf_counter() - started
            if not isinstance(data, dict):
                raise TraceFormatError(item.source, "", "a trace is a JSON object with #meta, vars and states")
            return self.check(data, item.source)
        except TraceFormatError as e:
            return _unreadable(item, e.pointer, e.message)
        except Rule603Error as e:
            return _unreadable(item, "", str(e))


def _unreadable(item: _Input, pointer: str, message: str) -> Unreadable:
    return Unreadable(item.file, item.line, pointer, " ".join(message.split()))


def _declared_edition(data: Any, source: str) -> str:
    meta = data.get("#meta") if isinstance(data, dict) else None
    name = meta.get("edition") if isinstance(meta, dict) else None
    if not isinstance(name, str):
        raise TraceFormatError(source, "/#meta/edition", "missing: name the edition, or pass --edition")
    if name not in EDITIONS:
        raise TraceFormatError(source, "/#meta/edition", f"unknown edition {name!r}; known: {', '.join(EDITIONS)}")
    return name


def _validated(trace: Trace, schema: Schema, source: str) -> Trace:
    """A Trace made in Python goes through the same checks as one read from JSON."""
    try:
        data = trace_json(trace, schema)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        why = f"{type(e).__name__}: {e}"
        raise TraceFormatError(source, "", f"not a trace of this edition's variables ({why})") from None
    return from_json(data, schema, source)


def _finding(edition: Edition, schema: Schema, trace: Trace, broken) -> Finding:
    family = next((f for f in list(edition.axioms) + list(edition.encodings) if f.number == broken.clause), None)
    summary = family.summary if family else ""
    values = {}
    for name, index in broken.reads:
        spec = schema.spec(name)
        value = trace.value(name, index, spec.per_moment)
        label = f"{name}({', '.join(map(str, index))})"
        values[label] = spec.values[value] if spec.kind == "enum" and 0 <= value < len(spec.values) else value
    # A trace declares its own stack slots, so the slots' bound (``SLOTS``) broken is the trace's own inconsistency;
    # a bound of the model's representation (``MODEL_BOUND``) is where the model stops being able to judge it.
    if broken.room == MODEL_BOUND:
        kind = MODEL_BOUND
    else:
        kind = "game model" if edition.is_axiom(broken.clause) else "clause"
    named = trace_names(trace).about(broken.about)
    return Finding(broken.moment, broken.clause, kind, summary, broken.about, values, named)


_PROCESS_CHECKER: TraceChecker | None = None  # one per worker process, set by the pool's initializer


def _init_process(edition_name: str | None, all_violations: bool) -> None:
    global _PROCESS_CHECKER
    interrupts.install()  # Ctrl-C in a destructor stops this worker without a traceback
    _PROCESS_CHECKER = TraceChecker(edition_name, all_violations=all_violations)


def _check_in_process(item: _Input) -> TraceResult | Unreadable:
    assert _PROCESS_CHECKER is not None
    return _PROCESS_CHECKER.check_input(item)


_WORKER_CHECKERS: dict[tuple[str | None, bool], TraceChecker] = {}  # on a Dask worker: kept from task to task
CLUSTER_CHUNK = 32  # traces per task on a cluster: a task costs the scheduler about a millisecond


def _check_on_worker(
    identity: str, chunk: list[_Input], edition_name: str | None, all_violations: bool
) -> list[TraceResult | Unreadable]:
    from .cluster import same_code

    same_code(identity)
    key = (edition_name, all_violations)
    if key not in _WORKER_CHECKERS:
        _WORKER_CHECKERS[key] = TraceChecker(edition_name, all_violations=all_violations)
    return [_WORKER_CHECKERS[key].check_input(item) for item in chunk]


@dataclass
class Batch:
    """What ``rule603 check`` saw: a result for every input, in input order, and how long it took."""

    outcomes: list[TraceResult | Unreadable] = field(default_factory=list)
    seconds: float = 0.0
    jobs: int = 1  # local processes; 0: a Dask cluster's workers
    times: CheckTimes | None = None  # where the time went, when checked in this process

    @property
    def results(self) -> list[TraceResult]:
        """The traces read and checked."""
        return [o for o in self.outcomes if isinstance(o, TraceResult)]

    @property
    def unreadable(self) -> list[Unreadable]:
        return [o for o in self.outcomes if isinstance(o, Unreadable)]

    @property
    def violating(self) -> int:
        return sum(r.violates for r in self.results)

    @property
    def cut_off(self) -> int:
        return sum(r.cut_off for r in self.results)

    @property
    def conforming(self) -> int:
        return sum(r.conforms for r in self.results)

    @property
    def moments(self) -> int:
        return sum(r.moments for r in self.results)

    def clause_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.results:
            for v in r.violations if r.violates else ():
                counts[v.clause] = counts.get(v.clause, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def check_all(
    items: Iterable[_Input | Unreadable],
    *,
    edition: str | None = None,
    all_violations: bool = False,
    jobs: int = 0,
    progress: Callable[[int, int], None] | None = None,
    scheduler: str | None = None,
) -> Batch:
    """Check every input, in order; one that is not a trace gives an :class:`Unreadable` and the rest go on.

    ``progress(done, unreadable)`` is called after each input.  ``scheduler``: the address of a Dask scheduler
    whose workers check the traces instead of local processes (``cluster``).
    """
    start = time.perf_counter()
    pending = list(items)
    if not pending:
        raise InvalidArgument("no traces given")
    readable = [i for i in pending if isinstance(i, _Input)]
    jobs = 0 if scheduler else jobs or min(os.cpu_count() or 1, 2 if len(readable) >= PARALLEL_FROM else 1)
    batch = Batch(jobs=jobs)
    unreadable = 0
    run = _run if scheduler is None else functools.partial(_run_on_cluster, scheduler)
    for outcome in run(pending, readable, edition, all_violations, batch):
        batch.outcomes.append(outcome)
        unreadable += isinstance(outcome, Unreadable)
        if progress:
            progress(len(batch.outcomes), unreadable)
    batch.seconds = time.perf_counter() - start
    return batch


def _run(
    items: list[_Input | Unreadable], readable: list[_Input], edition: str | None, all_violations: bool, batch: Batch
) -> Iterator[TraceResult | Unreadable]:
    """Check ``readable`` (the inputs among ``items``); yield an outcome for every item, in order."""
    checker = TraceChecker(edition, all_violations=all_violations)  # also rejects an unknown edition early
    jobs = batch.jobs
    if jobs <= 1 or not readable:
        batch.times = checker.times
        yield from _in_order(items, map(checker.check_input, readable))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    # Not multiprocessing.Pool: its terminate, after a worker's exception, can wait forever on its own threads.
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_process, initargs=(edition, all_violations))
    try:
        chunk = max(1, min(64, len(readable) // (jobs * 8)))
        yield from _in_order(items, pool.map(_check_in_process, readable, chunksize=chunk))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_on_cluster(
    scheduler: str,
    items: list[_Input | Unreadable],
    readable: list[_Input],
    edition: str | None,
    all_violations: bool,
    batch: Batch,
) -> Iterator[TraceResult | Unreadable]:
    """As :func:`_run`, with the traces checked by the cluster's workers, ``CLUSTER_CHUNK`` to a task."""
    from .cluster import ordered_map

    TraceChecker(edition, all_violations=all_violations)  # an unknown edition is a usage error here, not there
    chunks = [readable[i : i + CLUSTER_CHUNK] for i in range(0, len(readable), CLUSTER_CHUNK)]
    checked = (o for chunk in ordered_map(scheduler, _check_on_worker, chunks, edition, all_violations) for o in chunk)
    yield from _in_order(items, checked)


def _in_order(
    items: list[_Input | Unreadable], checked: Iterator[TraceResult | Unreadable]
) -> Iterator[TraceResult | Unreadable]:
    """Files and lines found unreadable while reading, in their places among the checked ones."""
    for item in items:
        yield item if isinstance(item, Unreadable) else next(checked)


# --- output ------------------------------------------------------------------------------


def to_json(batch: Batch, edition: str | None) -> dict[str, Any]:
    unreadable = batch.unreadable
    return {
        "edition": edition or "as declared by each trace",
        "traces": [r.to_json() for r in batch.results],
        "unreadable": [u.to_json() for u in unreadable],
        "summary": {
            # every input: conforming + violating + cut off + unreadable
            "traces": len(batch.outcomes),
            "conforming": batch.conforming,
            "violating": batch.violating,
            "cut_off": batch.cut_off,
            "unreadable": len(unreadable),
            "moments": batch.moments,
            "violations_by_clause": batch.clause_counts(),
            "seconds": round(batch.seconds, 3),
            "jobs": batch.jobs,
        },
    }


def to_junit(batch: Batch) -> str:
    """JUnit XML: one test case per input, a failure per broken clause, an error per unreadable input."""
    tests, failures, errors = len(batch.outcomes), batch.violating, len(batch.unreadable)
    counts = f'tests="{tests}" failures="{failures}" errors="{errors}" skipped="{batch.cut_off}"'
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites {counts} time="{batch.seconds:.3f}">',
        f'  <testsuite name="rule603 check" {counts}>',
    ]
    for r in batch.outcomes:
        name = r.where if isinstance(r, Unreadable) else r.file
        lines.append(f'    <testcase classname="rule603.check" name={quoteattr(name)}>')
        if isinstance(r, Unreadable):  # an error, not a failure: the trace was never checked
            lines.append(f'      <error type="unreadable" message={quoteattr(r.problem)}>{escape(str(r))}</error>')
        elif r.cut_off:  # skipped: past a bound of the model, the trace is not judged
            first = next(v for v in r.violations if v.kind == MODEL_BOUND)
            why = f"cut off at moment {first.moment}: past the model's bound {first.clause} ({first.objects})"
            lines.append(f"      <skipped message={quoteattr(why)}/>")
        else:
            lines += [_junit_failure(v) for v in r.violations]
        lines.append("    </testcase>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines)


def _junit_failure(v: Finding) -> str:
    message = f"moment {v.moment}: {v.clause} {v.summary} ({v.objects})"
    detail = "\n".join(f"{k} = {val}" for k, val in v.values.items())
    return f"      <failure type={quoteattr(v.clause)} message={quoteattr(message)}>{escape(detail)}</failure>"
