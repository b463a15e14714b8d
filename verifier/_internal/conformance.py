"""Engine conformance: check recorded traces against every clause, in bulk.

Inputs are trace files, directories of them, and JSON Lines streams (one trace per
line).  Each trace is read with the documented format's checks, then checked by the
compiled checker against every encoded clause and the game-model axioms.  Batches
are spread over worker processes; results come back in input order.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..errors import InvalidArgument, Rule603Error, TraceFormatError
from .catalogue import EDITIONS, load_edition
from .compiled import CompiledChecker
from .registry import Edition
from .schema import Schema
from .trace import Trace, from_json, parse
from .trace import to_json as trace_json

STREAM_SUFFIXES = (".jsonl", ".ndjson")
TRACE_SUFFIXES = (".json",) + STREAM_SUFFIXES
PARALLEL_FROM = 400  # smaller batches are checked in this process: each worker compiles every trace shape again


@dataclass(frozen=True)
class Finding:
    """One broken clause instance: where, which clause, and the values it reads."""

    moment: int
    clause: str
    kind: str  # "clause" (of rule 603) or "game model" (a rule outside 603 the model relies on)
    summary: str
    about: str
    values: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "moment": self.moment,
            "clause": self.clause,
            "kind": self.kind,
            "summary": self.summary,
            "about": self.about,
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

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "conforms": self.conforms,
            "moments": self.moments,
            "violations": [v.to_json() for v in self.violations],
        }


@dataclass(frozen=True)
class _Input:
    source: str  # file, or file:line for a line of a stream
    text: str


# --- reading inputs ------------------------------------------------------------------


def inputs(paths: Iterable[str], stdin: Any = None) -> Iterator[_Input]:
    """Every trace named by ``paths`` (files, directories, JSON Lines streams, ``-``), in order."""
    for raw in paths:
        if raw == "-":
            yield from _stream("<stdin>", stdin if stdin is not None else sys.stdin)
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


def _file(path: Path) -> Iterator[_Input]:
    if path.suffix in STREAM_SUFFIXES:
        with _open(path) as handle:
            lines = list(_stream(str(path), handle))
        if not lines:
            raise InvalidArgument(f"{path}: holds no trace (a JSON Lines file has one trace per line)")
        yield from lines
        return
    with _open(path) as handle:
        try:
            text = handle.read()
        except UnicodeDecodeError as e:
            raise InvalidArgument(f"{path}: not UTF-8 text ({e.reason})") from None
    yield _Input(str(path), text)


def _open(path: Path):
    try:
        return open(path, encoding="utf-8")  # noqa: SIM115 - closed by the caller's with
    except OSError as e:
        raise InvalidArgument(f"{path}: cannot be read: {e.strerror}") from None


def _stream(name: str, handle: Iterable[str]) -> Iterator[_Input]:
    try:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield _Input(f"{name}:{number}", line)
    except UnicodeDecodeError as e:
        raise InvalidArgument(f"{name}: not UTF-8 text ({e.reason})") from None


# --- checking --------------------------------------------------------------------------


class TraceChecker:
    """Checks traces against every encoded clause of an edition and the game-model axioms.

    Keep one for many traces: the compiled checks are built once per trace shape.
    ``edition=None`` checks each trace against the edition it names in ``#meta``.
    """

    def __init__(self, edition: str | None = None, *, all_violations: bool = False) -> None:
        self.edition_name = edition
        self.all_violations = all_violations
        self._editions: dict[str, tuple[Edition, Schema, CompiledChecker]] = {}
        if edition is not None:
            self._edition(edition)  # an unknown edition is a usage error before any trace is read

    def _edition(self, name: str) -> tuple[Edition, Schema, CompiledChecker]:
        if name not in self._editions:
            edition = load_edition(name)
            enabled = tuple(e.number for e in edition.encodings)
            self._editions[name] = (edition, Schema(tuple(edition.model.VARIABLES)), CompiledChecker(edition, enabled))
        return self._editions[name]

    def check(self, trace: Trace | Mapping[str, Any], source: str = "<trace>") -> TraceResult:
        """Check a :class:`Trace` or a JSON trace (as parsed); a malformed one raises TraceFormatError."""
        if isinstance(trace, Trace):
            edition, schema, checker = self._edition(self.edition_name or trace.edition)
            trace = _validated(trace, schema, source)
        else:
            edition, schema, checker = self._edition(self.edition_name or _declared_edition(trace, source))
            trace = from_json(trace, schema, source)
        edition.model.check_universe(trace.universe, source)
        broken = checker.violations(trace, first_moment=not self.all_violations)
        return TraceResult(source, trace.length, tuple(_finding(edition, schema, trace, b) for b in broken))

    def check_input(self, item: _Input) -> TraceResult | str:
        """The result, or the one-line message of a bad input (so that worker processes can return it)."""
        try:
            data = parse(item.text, item.source)
            if not isinstance(data, dict):
                raise TraceFormatError(item.source, "", "a trace is a JSON object with #meta, vars and states")
            return self.check(data, item.source)
        except Rule603Error as e:
            return " ".join(str(e).split())


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
    kind = "game model" if edition.is_axiom(broken.clause) else "clause"
    return Finding(broken.moment, broken.clause, kind, summary, broken.about, values)


_PROCESS_CHECKER: TraceChecker | None = None  # one per worker process, set by the pool's initializer


def _init_process(edition_name: str | None, all_violations: bool) -> None:
    global _PROCESS_CHECKER
    _PROCESS_CHECKER = TraceChecker(edition_name, all_violations=all_violations)


def _check_in_process(item: _Input) -> TraceResult | str:
    assert _PROCESS_CHECKER is not None
    return _PROCESS_CHECKER.check_input(item)


@dataclass
class Batch:
    """What ``rule603 check`` saw: results in input order, and how long it took."""

    results: list[TraceResult] = field(default_factory=list)
    seconds: float = 0.0
    jobs: int = 1

    @property
    def conforming(self) -> int:
        return sum(r.conforms for r in self.results)

    @property
    def moments(self) -> int:
        return sum(r.moments for r in self.results)

    def clause_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.results:
            for v in r.violations:
                counts[v.clause] = counts.get(v.clause, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def check_all(
    items: Iterable[_Input],
    *,
    edition: str | None = None,
    all_violations: bool = False,
    jobs: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Batch:
    """Check every input; a bad input raises :class:`InvalidArgument` naming it (one line)."""
    start = time.perf_counter()
    pending = list(items)
    if not pending:
        raise InvalidArgument("no traces given")
    jobs = jobs or min(os.cpu_count() or 1, 2 if len(pending) >= PARALLEL_FROM else 1)
    batch = Batch(jobs=jobs)
    for outcome in _run(pending, edition, all_violations, jobs):
        if isinstance(outcome, str):
            raise InvalidArgument(outcome)
        batch.results.append(outcome)
        if progress:
            progress(len(batch.results))
    batch.seconds = time.perf_counter() - start
    return batch


def _run(items: list[_Input], edition: str | None, all_violations: bool, jobs: int) -> Iterator[TraceResult | str]:
    checker = TraceChecker(edition, all_violations=all_violations)  # also rejects an unknown edition early
    if jobs <= 1:
        yield from map(checker.check_input, items)
        return
    import multiprocessing

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with context.Pool(jobs, initializer=_init_process, initargs=(edition, all_violations)) as pool:
        chunk = max(1, min(64, len(items) // (jobs * 8)))
        yield from pool.imap(_check_in_process, items, chunksize=chunk)


# --- output ------------------------------------------------------------------------------


def to_json(batch: Batch, edition: str | None) -> dict[str, Any]:
    return {
        "edition": edition or "as declared by each trace",
        "traces": [r.to_json() for r in batch.results],
        "summary": {
            "traces": len(batch.results),
            "conforming": batch.conforming,
            "violating": len(batch.results) - batch.conforming,
            "moments": batch.moments,
            "violations_by_clause": batch.clause_counts(),
            "seconds": round(batch.seconds, 3),
            "jobs": batch.jobs,
        },
    }


def to_junit(batch: Batch) -> str:
    """JUnit XML: one test case per trace, a failure per broken clause (CI systems show these)."""
    failures = len(batch.results) - batch.conforming
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites tests="{len(batch.results)}" failures="{failures}" time="{batch.seconds:.3f}">',
        f'  <testsuite name="rule603 check" tests="{len(batch.results)}" failures="{failures}" errors="0">',
    ]
    for r in batch.results:
        lines.append(f'    <testcase classname="rule603.check" name={quoteattr(r.file)}>')
        for v in r.violations:
            message = f"moment {v.moment}: {v.clause} {v.summary} ({v.about})"
            detail = "\n".join(f"{k} = {val}" for k, val in v.values.items())
            lines.append(
                f"      <failure type={quoteattr(v.clause)} message={quoteattr(message)}>{escape(detail)}</failure>"
            )
        lines.append("    </testcase>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines)
