"""The ``rule603`` command line.

Exit status: 0 every verdict holds, 1 some property violated (or an adequacy check
failed), 2 bad input (a user mistake: one line on stderr, nothing done), 3 some verdict
unknown and none violated, 4 a bug in rule603 (never a verdict), 5 (``rule603 check``)
some inputs could not be read as traces, and every trace that could be read conforms,
130 interrupted.  A violation outranks an unreadable input: ``rule603 check`` exits 1
when some trace breaks a clause, whatever else it found.

No input gives a traceback.  A user's mistake (a file, an option, a property) is one
line on stderr naming the file and line, the JSON pointer or the option, and status 2:
options are checked as they are parsed (``_whole``, ``_seconds``, ``_path``); outputs
are shown writable, and not to replace anything without ``--overwrite``, before any
work (``_writable``); documents are parsed by one reader that locates what the parsers
refuse (``_internal.documents``); a user's claim runs under a time limit of its own
(``_internal.usercode``).  Anything else is caught last (``_internal_error``): one line
saying it is a bug, the traceback saved to a file, status 4.
"""

from __future__ import annotations

import argparse
import enum
import errno
import io
import json
import math
import os
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from tabulate import tabulate

from . import __version__
from ._internal import conformance, smt, usercode  # conformance: loaded by rule603 anyway
from ._internal.audit import AUDIT_LIMITS, CHECKED, NOT_YET, Audit, audit
from ._internal.audit import steps as audit_steps
from ._internal.auditreport import audit_markdown
from ._internal.catalogue import builtin_properties, check_clause_names, how_encoded, load_edition, select
from ._internal.diff import diff
from ._internal.diffreport import FORMATS as DIFF_FORMATS
from ._internal.diffreport import render as render_diff
from ._internal.documents import clipped
from ._internal.editions import (
    KINDS,
    Alignment,
    add_edition,
    align,
    edition_texts,
    find_edition,
    localise,
    similarity,
)
from ._internal.loader import load_property_file
from ._internal.registry import Edition, Property
from ._internal.report import (
    DEFAULT_BOUND,
    DEFAULT_DIR,
    DEFAULT_EDITION,
    HTML,
    MARKDOWN,
    drop_text,
    full_run,
    regenerate_command,
    render_trace,
    report_options,
    to_html,
    to_markdown,
    verdict_text,
)
from ._internal.rulingreport import render_ruling
from ._internal.schema import Schema
from ._internal.trace import dump, load, to_json
from ._internal.usercode import CLAIM_SECONDS
from ._internal.verify import HOLDS, NOT_APPLICABLE, UNKNOWN, VIOLATED, Adequacy, CheckResult, Options, Verifier
from .errors import Rule603Error

MAX_BOUND = 30  # moments are stored in 8-bit vectors with room for sums


class ExitCode(enum.IntEnum):
    OK = 0
    VIOLATED = 1
    USAGE = 2
    UNKNOWN = 3
    INTERNAL = 4  # a bug in rule603, never a verdict
    UNREADABLE = 5  # rule603 check: some inputs are not traces; every trace read conforms


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as for every user mistake
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rule603", description="Verify Comprehensive Rules 603 (Handling Triggered Abilities).")
    parser.add_argument("--version", action="version", version=_version_text())
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    verify = sub.add_parser("verify", help="check the property catalogue against an edition by bounded model checking")
    verify.add_argument(
        "--property", action="append", default=[], metavar="ID", help="check only this property (repeatable)"
    )
    verify.add_argument(
        "--property-file",
        action="append",
        default=[],
        metavar="FILE",
        type=_path("--property-file"),
        help="also check the properties defined in this Python file (repeatable)",
    )
    verify.add_argument("--no-builtin", action="store_true", help="with --property-file: skip the built-in catalogue")
    _common(verify)
    verify.add_argument(
        "--adequacy",
        action="store_true",
        help="also show that each property needs each clause it names, and each clause is non-vacuous",
    )
    verify.add_argument(
        "--save-traces",
        metavar="DIR",
        type=_path("--save-traces"),
        help="write each counterexample as DIR/<property>.itf.json",
    )
    verify.add_argument("--overwrite", action="store_true", help="with --save-traces: replace existing files")
    verify.add_argument("--no-minimise", action="store_true", help="report the first counterexample found, unshrunk")
    verify.add_argument(
        "--claim-timeout",
        type=_seconds("--claim-timeout"),
        default=CLAIM_SECONDS,
        metavar="SECONDS",
        help=f"seconds for one call of a property's claim, apart from the solver's (default {CLAIM_SECONDS:g})",
    )

    audit = sub.add_parser(
        "audit",
        help="what an edition's clauses say about each other: contradictions, ambiguities, vacuous and redundant "
        "clauses, precedence",
    )
    # Deterministic limits by default: the committed reports must come out the same on any machine.
    _common(audit, timeout=AUDIT_LIMITS.timeout_ms / 1000, rlimit=AUDIT_LIMITS.rlimit)
    audit.add_argument("--all", action="store_true", help="audit every edition held, oldest first")
    audit.add_argument(
        "--out", metavar="DIR", type=_path("--out"), help="write DIR/audit-<edition>.md for each edition audited"
    )
    audit.add_argument("--overwrite", action="store_true", help="with --out: replace existing reports")
    audit.add_argument(
        "--jobs",
        type=_whole("--jobs", 1, 2 * (os.cpu_count() or 1), "between 1 and twice the number of cores"),
        default=1,
        help="with --all: audit this many editions at once, one process each (default 1)",
    )

    diff = sub.add_parser(
        "diff", help="what changed between two editions: the text word by word, verdicts, and behaviour with games"
    )
    diff.add_argument("editions", nargs="*", metavar="EDITION", help="two editions, older first (see rule603 editions)")
    diff.add_argument(
        "--consecutive", action="store_true", help="instead of A B: every pair of consecutive editions (needs --out)"
    )
    diff.add_argument("--bound", type=_BOUND, default=8, help="trace length in moments (default 8)")
    diff.add_argument(
        "--format",
        type=_format_list(DIFF_FORMATS),
        default=("md",),
        help="md, html or json, or several with --out (default md)",
    )
    diff.add_argument("--out", metavar="DIR", type=_path("--out"), help="write diff-A-B.md (and .html, .json) into DIR")
    diff.add_argument("--overwrite", action="store_true", help="with --out: replace existing reports")
    diff.add_argument("--timeout", type=_TIMEOUT, default=60.0, help="seconds per solver call (default 60)")

    clauses = sub.add_parser("clauses", help="list the clauses of an edition: number, summary, status, text hash")
    clauses.add_argument("--edition", default="current")
    clauses.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    clauses.add_argument(
        "--precedence", action="store_true", help="list the 'specific beats general' relations instead"
    )

    props = sub.add_parser("properties", help="list the properties and the clauses each depends on")
    props.add_argument("--property-file", action="append", default=[], metavar="FILE", type=_path("--property-file"))
    props.add_argument("--format", choices=("table", "json", "markdown"), default="table")

    editions = sub.add_parser(
        "editions", help="list the editions of the rule text held, or (--align A B) how their clauses correspond"
    )
    editions.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    editions.add_argument(
        "--align", nargs=2, metavar=("A", "B"), help="the reviewed clause alignment from edition A to edition B"
    )
    editions.add_argument(
        "--add",
        metavar="FILE",
        type=lambda text: Path(_path("--add")(text)),
        help="copy rule 603 of an official MagicCompRules .txt file as edition --id",
    )
    editions.add_argument("--id", help="with --add: the new edition's id (file models/editions/ID.txt)")
    editions.add_argument("--date", help="with --add: its date (default: the file's 'effective as of' date)")
    editions.add_argument("--overwrite", action="store_true", help="with --add: replace an edition of that id")

    show = sub.add_parser("show", help="print a JSON trace as a step table")
    show.add_argument("trace", metavar="TRACE", type=_path(""))
    show.add_argument("--edition", default="current")

    report = sub.add_parser(
        "report", help="run the catalogue and adequacy checks; write DIR/verification.md and DIR/verification.html"
    )
    report.add_argument("--edition", default=DEFAULT_EDITION)
    report.add_argument("--bound", type=_BOUND, default=DEFAULT_BOUND)
    where = report.add_mutually_exclusive_group()
    where.add_argument(
        "--out", metavar="DIR", type=_path("--out"), default=DEFAULT_DIR, help="directory to write (default reports)"
    )
    where.add_argument(
        "--output",
        metavar="FILE",
        type=_path("--output"),
        help="instead: write only the Markdown to FILE ('-': standard output)",
    )
    report.add_argument("--overwrite", action="store_true", help="replace existing reports")

    check = sub.add_parser(
        "check",
        help="check engine traces (files, directories, JSON Lines streams, '-' for stdin) against the rules",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("traces", nargs="+", metavar="TRACE", type=_path(""))
    check.add_argument(
        "--edition", default=None, help="check against this edition (default: the edition each trace names)"
    )
    check.add_argument(
        "--all", action="store_true", help="list every violation, not only those at each trace's first broken moment"
    )
    check.add_argument("--format", choices=("table", "json", "junit"), default="table")
    check.add_argument(
        "--jobs",
        type=_whole("--jobs", 0, 64, "0 (automatic) to 64"),
        default=0,
        help="worker processes (default: 2 for large batches, else 1)",
    )
    check.add_argument(
        "--output", metavar="FILE", type=_path("--output"), help="write the report to FILE instead of standard output"
    )
    check.add_argument("--overwrite", action="store_true", help="replace --output if it exists")

    mutants = sub.add_parser(
        "mutants", help="mutation study: play generated scenarios through buggy copies of the reference engine"
    )
    mutants.add_argument(
        "--scenarios",
        type=_whole("--scenarios", 1, 1_000_000),
        default=10000,
        help="most scenarios to generate (default 10000)",
    )
    mutants.add_argument("--mutant", action="append", default=[], metavar="ID", help="study only this mutant")
    mutants.add_argument("--format", choices=("table", "json", "markdown"), default="table")

    ruling = sub.add_parser("rule", help="answer a scenario file's questions over every rule-compliant game")
    ruling.add_argument("scenarios", nargs="+", metavar="SCENARIO", type=_path(""))
    ruling.add_argument(
        "--format",
        type=_format_list(RULING_FORMATS),
        default=("md",),
        help="md, html or json, or several with --out: md,html,json (default md)",
    )
    ruling.add_argument(
        "--out",
        metavar="DIR",
        type=_path("--out"),
        help="write one report per scenario and format into DIR (NAME.md, ...)",
    )
    ruling.add_argument("--overwrite", action="store_true", help="with --out: replace existing reports")
    ruling.add_argument("--timeout", type=_TIMEOUT, default=60.0, help="seconds per solver call (default 60)")
    ruling.add_argument("--edition", default=None, help="edition of rule 603 (default: the one the scenario names)")

    schema = sub.add_parser("schema", help="print (or write) the JSON Schema of the trace format")
    schema.add_argument("--edition", default="current")
    schema.add_argument(
        "--output", metavar="FILE", type=_path("--output"), help="file to write (default: print to standard output)"
    )
    schema.add_argument("--overwrite", action="store_true", help="replace --output if it exists")

    reports = sub.add_parser(
        "reports",
        help="list the committed reports and whether each is current; --regenerate writes the stale ones again",
    )
    reports.add_argument("names", nargs="*", metavar="NAME", help="only these reports (as listed), with --regenerate")
    reports.add_argument("--regenerate", action="store_true", help="run the command of each stale report")
    reports.add_argument("--all", action="store_true", help="with --regenerate: every report, stale or not")
    reports.add_argument(
        "--jobs", type=_whole("--jobs", 1, 64), default=2, help="reports regenerated at once (default 2)"
    )
    reports.add_argument("--root", type=_path("--root"), default=".", help="the top of the rule603 checkout")

    bench = sub.add_parser("bench", help="time the catalogue at several bounds; print a table and write JSON")
    bench.add_argument(
        "--bounds", type=_bounds, default=[4, 6, 8, 10, 12], help="comma-separated bounds (default 4,6,8,10,12)"
    )
    bench.add_argument(
        "--output",
        metavar="FILE",
        type=_path("--output"),
        help="JSON file to write (default rule603-out/bench-<time>.json)",
    )
    bench.add_argument("--property", action="append", default=[], metavar="ID")
    bench.add_argument("--timeout", type=_TIMEOUT, default=120.0, help="seconds per solver call (default 120)")
    bench.add_argument(
        "--check",
        type=_whole("--check", 1, 1_000_000),
        metavar="N",
        help="instead: time 'rule603 check' on N reference-engine traces of 20 moments (1 and 2 processes)",
    )
    return parser


def _common(p: argparse.ArgumentParser, *, timeout: float = 60.0, rlimit: int = 0) -> None:
    p.add_argument("--edition", default="current", help="edition of rule 603 (default: current)")
    p.add_argument("--bound", type=_BOUND, default=8, help="trace length in moments (default 8)")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument("--timeout", type=_TIMEOUT, default=timeout, help=f"seconds per solver call (default {timeout:g})")
    p.add_argument(
        "--rlimit",
        type=_whole("--rlimit", 0, Z3_UINT, f"0 (no limit) to {Z3_UINT}"),
        default=rlimit,
        help=f"z3 resource limit per call, for reproducible unknowns (default {rlimit or '0: none'})",
    )
    p.add_argument("--seed", type=_whole("--seed", 0, Z3_UINT), default=0, help="z3 random seed (default 0)")
    p.add_argument("--players", type=_whole("--players", 2, 4), default=2, help="number of players (default 2)")
    p.add_argument("--cards", type=_whole("--cards", 1, 6), default=3, help="number of cards (default 3)")
    p.add_argument("--slots", type=_whole("--slots", 1, 6), default=3, help="stack slots (default 3)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (see the module's docstring).  Never raises, never prints a traceback."""
    stdout_errors = _lenient_stdout()
    usercode.on_stuck = _stuck
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as e:  # --help and --version print and stop; argparse's own way out
            return e.code if isinstance(e.code, int) else int(ExitCode.OK)
        code = int(_COMMANDS[args.command](args))
        sys.stdout.flush()  # here, so that a full disk is found while we can still say so
        return code
    except (_UsageError, Rule603Error) as e:
        print(f"rule603: error: {_one_line(str(e))}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        print("rule603: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (rule603 check ... | head): not an error of ours
        _drop_stdout()
        return int(ExitCode.OK)
    except OSError as e:
        if e.filename is not None or e.errno not in _OUTPUT_FULL:
            return _internal_error(e, argv)
        # Standard output went to a full disk or a device that refuses it (> /dev/full); the files we
        # write say which on their own (_write_text).
        print(f"rule603: error: cannot write standard output ({e.strerror})", file=sys.stderr)
        _drop_stdout()
        return int(ExitCode.USAGE)
    except BaseException as e:  # noqa: BLE001 - the last resort: a crash must never read as a verdict
        return _internal_error(e, argv)
    finally:
        usercode.on_stuck = None
        _restore_stdout(stdout_errors)


_OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _drop_stdout() -> None:
    """What is left in standard output's buffer is not written: the interpreter's final flush stays quiet."""
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the interpreter closes it


def _stuck(why: str) -> None:
    """A user's code that swallows every interruption: the process is the only way out of it."""
    try:
        print(f"rule603: error: {_one_line(why)}", file=sys.stderr, flush=True)
        sys.stdout.flush()
    finally:  # whatever printing raises, into the user's code that would swallow it
        os._exit(ExitCode.USAGE)


def _internal_error(error: BaseException, argv: Sequence[str] | None) -> int:
    """An exception no command expects is a bug of ours: one line, the traceback kept in a file, exit 4."""
    message = _one_line(_safe_str(error)) or ("out of memory" if isinstance(error, MemoryError) else "")
    what = f"{type(error).__name__}: {message}" if message else type(error).__name__
    try:
        fd, path = tempfile.mkstemp(prefix="rule603-crash-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as file:
            file.write(f"{_version_text()}\nrule603 arguments: {list(sys.argv[1:] if argv is None else argv)!r}\n\n")
            file.write("".join(traceback.format_exception(type(error), error, error.__traceback__)))
        saved = f"the traceback was saved to {path}"
    except BaseException as again:  # noqa: BLE001 - out of memory or of disk: say so rather than crash here
        saved = f"the traceback could not be saved ({type(again).__name__})"
    print(
        f"rule603: internal error: {clipped(what, 300)} \u2014 this is a bug in rule603; {saved}",
        file=sys.stderr,
    )
    return int(ExitCode.INTERNAL)


def _safe_str(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 - an exception whose message cannot be made
        return "(no message)"


def _version_text() -> str:
    return f"rule603 {__version__} (z3 {smt.z3_version()}, Python {platform.python_version()})"


def _lenient_stdout() -> str | None:
    """Paths from the command line may hold bytes that are not UTF-8 (os.fsdecode's surrogates); printing
    them must not fail.  Returns the error handler to put back."""
    if not isinstance(sys.stdout, io.TextIOWrapper) or sys.stdout.errors != "strict":
        return None
    sys.stdout.reconfigure(errors="backslashreplace")
    return "strict"


def _restore_stdout(errors: str | None) -> None:
    if errors is not None and isinstance(sys.stdout, io.TextIOWrapper):
        try:
            sys.stdout.reconfigure(errors=errors)
        except (OSError, ValueError):  # closed, or replaced after a broken pipe
            pass


# --- options: each checked where it is parsed, so that a bad value is one line before any work ------------

Z3_UINT = 2**32 - 1  # z3 keeps seeds, resource limits and timeouts (ms) in 32 bits, and wraps larger ones silently
MAX_SECONDS = Z3_UINT // 1000
MIN_SECONDS = 0.001  # z3 counts milliseconds, and 0 means no limit at all


def _whole(option: str, low: int, high: int, meaning: str = "") -> Callable[[str], int]:
    """An integer option from ``low`` to ``high``; anything else is one line naming the option."""

    def parse(text: str) -> int:
        try:  # int() of thousands of digits is refused, or slow where it is not: no number here is that long
            value = int(text) if len(text) <= 30 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise _UsageError(f"{option} {clipped(text, 40)}: must be {meaning or f'between {low} and {high}'}")
        return value

    return parse


def _seconds(option: str) -> Callable[[str], float]:
    """A number of seconds: finite, positive, and within what z3 can hold (1e308 would overflow it)."""

    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 30 else math.nan
        except ValueError:
            value = math.nan
        if not MIN_SECONDS <= value <= MAX_SECONDS:  # also false for nan
            raise _UsageError(
                f"{option} {clipped(text, 40)}: must be a positive number of seconds, "
                f"from {MIN_SECONDS} to {MAX_SECONDS}"
            )
        return value

    return parse


_BOUND = _whole("--bound", 1, MAX_BOUND)
_TIMEOUT = _seconds("--timeout")


def _bounds(text: str) -> list[int]:
    """``bench --bounds 4,6,8``: at least one, each a bound ``--bound`` accepts."""
    parts = [part for part in text.split(",") if part.strip()]
    try:
        if parts:
            return [_BOUND(part) for part in parts]
    except _UsageError:
        pass
    raise _UsageError(f"--bounds {text}: expected comma-separated whole numbers from 1 to {MAX_BOUND}, e.g. 4,6,8")


def _path(option: str) -> Callable[[str], str]:
    """A path the system can look up.  A name longer than it allows (or holding NUL) is one line naming the
    option here, rather than an OSError wherever the path is first used; a missing file is the command's to
    report, in its own words."""

    def parse(text: str) -> str:
        label = f"{option} {text}" if option else text
        if "\0" in text:
            raise _UsageError(f"{label}: a path cannot hold a NUL character")
        try:
            os.stat(text)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                raise _UsageError(f"{label}: {e.strerror}") from None
        return text

    return parse


def _check_output(path: str | None, overwrite: bool, hint: str = "add --overwrite to replace it") -> None:
    """``--output FILE`` must be writable, and not replace anything unless asked: found out before any work."""
    if path:
        _writable(Path(path), f"--output {path}:", overwrite, hint)


def _out_files(out: str, names: Sequence[str], overwrite: bool, option: str = "--out") -> list[Path]:
    """``--out DIR``: the files ``names`` in it, refusing to replace any unless asked; DIR is created, and
    each file shown writable, before any work."""
    folder = Path(out)
    label = f"{option} {out}"
    try:
        if folder.exists() and not folder.is_dir():
            raise _UsageError(f"{label}: exists and is not a directory")
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _UsageError(f"{label}: cannot create it ({e.strerror})") from None
    files = [folder / name for name in names]
    for target in files:
        _writable(target, f"{label}: {target.name}", overwrite, "add --overwrite to replace it")
    return files


def _writable(target: Path, label: str, overwrite: bool, hint: str) -> None:
    """Refuse ``target`` unless it can be written, and, when it exists, may be replaced; ``label`` begins each
    message ("--output FILE:", "--out DIR: NAME").

    A file that does not exist yet is created and removed again: that is the one test that does not depend
    on who runs us (root passes every permission check) and that finds every reason (a read-only file
    system, a name too long for it, a parent that is a file)."""
    try:
        if target.is_dir():
            raise _UsageError(f"{label} is a directory; name a file")
        if target.exists():
            if not overwrite:
                raise _UsageError(f"{label} already exists; {hint}")
            if not os.access(target, os.W_OK):
                raise _UsageError(f"{label} cannot be written (permission denied)")
            return
        if not target.parent.is_dir():
            raise _UsageError(f"{label} no such directory {target.parent}")
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        os.unlink(target)
    except OSError as e:
        raise _UsageError(f"{label} cannot be written ({e.strerror})") from None


def _write_text(target: Path, text: str, label: str) -> None:
    """The last step of a command: writing what it made.  Checked before the work (``_writable``), this fails
    only when something changed meanwhile (a full disk): one line, not a traceback."""
    try:
        target.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as e:
        raise _UsageError(f"{label}: cannot write {target} ({e.strerror})") from None


def _one_line(text: str) -> str:
    """A message on one line, each word of it at most a few hundred characters: a message repeats what the
    user gave ("--edition X: unknown edition"), which may be thousands of characters long."""
    return " ".join(clipped(word) for word in text.split())


# --- verify ------------------------------------------------------------------------


def _universe(edition: Edition, args: argparse.Namespace):
    return edition.model.universe(player=args.players, card=args.cards, slot=args.slots)


def _timeout_ms(args: argparse.Namespace) -> int:
    """``--timeout`` in milliseconds, the solver's unit."""
    return int(args.timeout * 1000)


def _options(args: argparse.Namespace) -> Options:
    limits = smt.SolverLimits(
        timeout_ms=_timeout_ms(args), rlimit=args.rlimit, seed=args.seed, probe_rlimit=_probe_rlimit(args)
    )
    return Options(
        bound=args.bound,
        limits=limits,
        minimise=not getattr(args, "no_minimise", False),
        claim_seconds=getattr(args, "claim_timeout", CLAIM_SECONDS),
    )


def _probe_rlimit(args: argparse.Namespace) -> int:
    """The audit shrinks its witnesses under a resource limit too, so that they do not depend on speed."""
    if args.command != "audit" or not args.rlimit:
        return 0
    return min(args.rlimit, AUDIT_LIMITS.probe_rlimit)


def _load_properties(args: argparse.Namespace) -> list[Property]:
    if getattr(args, "no_builtin", False) and not args.property_file:
        raise _UsageError("--no-builtin: nothing left to check; add --property-file FILE")
    props = [] if getattr(args, "no_builtin", False) else builtin_properties()
    for file in args.property_file:
        props += load_property_file(file, getattr(args, "claim_timeout", CLAIM_SECONDS))
    seen: dict[str, Property] = {}
    for p in props:
        if p.id in seen:
            raise Rule603Error(f"property {p.id} is defined twice ({seen[p.id].source} and {p.source}).")
        seen[p.id] = p
    if getattr(args, "property", None):
        props = select(props, args.property)
    check_clause_names(props, load_edition("current"))  # properties cite current clause numbers
    return props


def _in_edition(props: Sequence[Property], edition: Edition) -> tuple[list[Property], list[CheckResult]]:
    """The properties to check in ``edition`` (clauses renumbered), and a NOT_APPLICABLE verdict for the rest."""
    applicable, skipped = localise(props, edition)
    check_clause_names(applicable, edition)
    return applicable, [CheckResult(p, NOT_APPLICABLE, 0, 0.0, reason=why) for p, why in skipped]


def _steps(edition: Edition, props: Sequence[Property], adequacy: bool) -> int:
    """What a progress display counts: each check, and with adequacy each property's drops and each clause's witness."""
    return len(props) + (len(props) + len(edition.encodings) if adequacy else 0)


class _Progress:
    """A one-line progress display on stderr, shown only on a terminal."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.live = sys.stderr.isatty()

    def __call__(self, label: str) -> None:
        if self.live:
            sys.stderr.write(f"\r\033[K[{self.done}/{self.total}] {label}")
            sys.stderr.flush()

    def step(self) -> None:
        self.done += 1

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def cmd_verify(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    options = _options(args)
    universe = _universe(edition, args)
    cited = _load_properties(args)
    props, not_applicable = _in_edition(cited, edition)
    save_dir = _prepare_save_dir(args, props)
    progress = _Progress(_steps(edition, props, args.adequacy))
    verifier = Verifier(edition, universe, options, progress)
    started = time.perf_counter()
    checked = {r.property.id: r for r in verifier.check_all(props, progress.step) + not_applicable}
    results = [checked[p.id] for p in cited]  # catalogue order, the not applicable ones in their place
    adequacy = verifier.adequacy(props, progress.step) if args.adequacy else None
    progress.close()
    seconds = time.perf_counter() - started
    saved = _save_traces(results, save_dir, edition, args) if save_dir else {}
    _print_verify(args, edition, options, universe, results, adequacy, seconds, saved)
    return _exit_code(results, adequacy)


def _prepare_save_dir(args: argparse.Namespace, props: Sequence[Property]) -> Path | None:
    if not args.save_traces:
        return None
    # Before the run, so that a bad path is not found out after it.
    _out_files(args.save_traces, [f"{p.id}.itf.json" for p in props], args.overwrite, "--save-traces")
    return Path(args.save_traces)


def _save_traces(results, directory: Path, edition: Edition, args) -> dict[str, str]:
    schema = Schema(tuple(edition.model.VARIABLES))
    saved = {}
    for r in results:
        if r.trace is not None:
            path = directory / f"{r.property.id}.itf.json"
            try:
                dump(r.trace, schema, path, _trace_meta(r))
            except OSError as e:  # checked before the run; only a change since (a full disk) comes here
                raise _UsageError(f"--save-traces: cannot write {path} ({e.strerror})") from None
            saved[r.property.id] = str(path)
    return saved


def _trace_meta(r: CheckResult) -> dict:
    return {"property": r.property.id, "clauses": list(r.property.clauses), "violated_at": r.violated_at}


def _exit_code(results: Sequence[CheckResult], adequacy: Adequacy | None) -> ExitCode:
    if any(r.verdict == VIOLATED for r in results):
        return ExitCode.VIOLATED
    if adequacy is not None:
        t = adequacy.totals()
        if (
            t["properties_confirmed"] < t["properties_total"]
            or t["clauses_non_vacuous"] < t["clauses_total"]
            or t["clauses_covered"] < t["clauses_total"]
        ):
            return ExitCode.VIOLATED
    if any(r.verdict == UNKNOWN for r in results):
        return ExitCode.UNKNOWN
    return ExitCode.OK


def _print_verify(args, edition, options, universe, results, adequacy, seconds, saved) -> None:
    if args.format == "json":
        print(json.dumps(_verify_json(edition, options, universe, results, adequacy, seconds, saved), indent=1))
        return
    fmt = "github" if args.format == "markdown" else "simple"
    rows = [[r.property.id, verdict_text(r), ", ".join(r.property.clauses), f"{r.seconds:.2f}"] for r in results]
    print(
        f"rule603 verify: edition {edition.name}, bound {options.bound}, "
        f"{universe.size('player')} players, {universe.size('card')} cards, z3 {smt.z3_version()}\n"
    )
    print(tabulate(rows, headers=["property", "verdict", "clauses", "seconds"], tablefmt=fmt))
    counts = {v: sum(r.verdict == v for r in results) for v in (HOLDS, VIOLATED, UNKNOWN, NOT_APPLICABLE)}
    na = f", {counts[NOT_APPLICABLE]} not applicable" if counts[NOT_APPLICABLE] else ""
    print(f"\n{counts[HOLDS]} hold, {counts[VIOLATED]} violated, {counts[UNKNOWN]} unknown{na} in {seconds:.1f} s")
    for r in results:
        if r.trace is not None:
            print(f"\nCounterexample to {r.property.id}: {r.property.summary}")
            print(render_trace(edition, r.trace, fmt))
            if r.property.id in saved:
                print(f"(saved as {saved[r.property.id]})")
    if adequacy is not None:
        print("\n" + render_adequacy(adequacy, fmt))


def _verify_json(edition, options, universe, results, adequacy, seconds, saved) -> dict:
    schema = Schema(tuple(edition.model.VARIABLES))
    out = {
        "edition": edition.name,
        "bound": options.bound,
        "universe": dict(universe.sizes),
        "z3": smt.z3_version(),
        "seed": options.limits.seed,
        "seconds": round(seconds, 3),
        "properties": [
            {
                "id": r.property.id,
                "summary": r.property.summary,
                "verdict": r.verdict,
                "clauses": list(r.property.clauses),
                "bound": r.bound,
                "seconds": round(r.seconds, 3),
                **(
                    {"violated_at": r.violated_at, "counterexample": to_json(r.trace, schema, _trace_meta(r))}
                    if r.trace is not None
                    else {}
                ),
                **({"trace_file": saved[r.property.id]} if r.property.id in saved else {}),
                **({"reason": r.reason} if r.reason else {}),
            }
            for r in results
        ],
    }
    if adequacy is not None:
        out.update(adequacy.totals())
        out["adequacy"] = {
            "properties": [
                {
                    "id": a.property.id,
                    "confirmed": a.confirmed,
                    "drops": [
                        {"clause": d.clause, "verdict": d.verdict, "seconds": round(d.seconds, 3)} for d in a.drops
                    ],
                }
                for a in adequacy.properties
            ],
            "clauses": [
                {"number": c.number, "non_vacuous": c.non_vacuous, "covered_by": list(c.covered_by)}
                for c in adequacy.clauses
            ],
        }
    return out


def render_adequacy(adequacy: Adequacy, fmt: str) -> str:
    prop_rows = [
        [
            a.property.id,
            "confirmed" if a.confirmed else "NOT CONFIRMED",
            ", ".join(drop_text(d) for d in a.drops),
        ]
        for a in adequacy.properties
    ]
    clause_rows = [
        [
            c.number,
            c.non_vacuous,
            len(c.covered_by),
            ", ".join(c.covered_by[:3]) + (" …" if len(c.covered_by) > 3 else ""),
        ]
        for c in adequacy.clauses
    ]
    t = adequacy.totals()
    return "\n".join(
        [
            "Adequacy: dropping each named clause must break the property",
            tabulate(
                prop_rows, headers=["property", "status", "clauses dropped (each gives a counterexample)"], tablefmt=fmt
            ),
            "",
            "Adequacy: each encoded clause has a witness trace and a property that needs it",
            tabulate(clause_rows, headers=["clause", "non-vacuous", "properties", "e.g."], tablefmt=fmt),
            "",
            f"{t['properties_confirmed']}/{t['properties_total']} properties confirmed, "
            f"{t['clauses_non_vacuous']}/{t['clauses_total']} clauses non-vacuous, "
            f"{t['clauses_covered']}/{t['clauses_total']} clauses covered",
        ]
    )


# --- clauses, properties, show ------------------------------------------------------


def cmd_audit(args: argparse.Namespace) -> ExitCode:
    """Exit 1 when there are findings, 3 when some check is unknown and there are none, 0 otherwise."""
    names = _audit_editions(args)
    editions = {name: load_edition(name) for name in names}
    targets = _audit_targets(args, names)  # before the run: a refusal must not cost minutes
    if args.jobs > 1 and len(names) > 1:
        # Each edition alone in a worker; the findings do not depend on where they are computed
        # (smt.steady_memory), so the reports are the same as one after another.
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(_audit_quietly, args, name): name for name in names}
            print(f"auditing {len(names)} editions, {args.jobs} at a time ...", file=sys.stderr)
            done: dict[str, Audit] = {}
            for future in as_completed(futures):
                done[futures[future]] = report = future.result()
                print(
                    f"audited {report.edition} ({len(done)}/{len(names)}): {len(report.findings)} finding(s), "
                    f"{len(report.unknown)} undecided, {sum(report.seconds.values()):.0f} s",
                    file=sys.stderr,
                )
            reports = {name: done[name] for name in names}
        for report in reports.values():
            _print_audit(args, report, sum(report.seconds.values()))
    else:
        reports = {name: _audit_one(args, edition) for name, edition in editions.items()}
    for name, target in targets.items():
        later = {n: (reports[n], editions[n]) for n in names[names.index(name) + 1 :]}
        _write_text(target, audit_markdown(reports[name], editions[name], later, _audit_command(args)), "--out")
        print(f"wrote {target}", file=sys.stderr)
    if any(r.findings for r in reports.values()):
        return ExitCode.VIOLATED
    return ExitCode.UNKNOWN if any(r.unknown for r in reports.values()) else ExitCode.OK


def _audit_editions(args: argparse.Namespace) -> list[str]:
    if args.all and args.edition != "current":
        raise _UsageError(f"--all --edition {args.edition}: name one edition or all, not both")
    if args.all and args.format == "json" and not args.out:
        raise _UsageError("--all --format json: several editions need --out DIR")
    return [e.id for e in edition_texts()] if args.all else [args.edition]


def _audit_targets(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Path]:
    """DIR/audit-<edition>.md for each edition, refusing to replace any unless asked."""
    if not args.out:
        return {}
    files = _out_files(args.out, [f"audit-{name}.md" for name in names], args.overwrite)
    return dict(zip(names, files, strict=True))


def _audit_command(args: argparse.Namespace) -> str:
    """The command that regenerates the reports, as they print it."""
    which = "--all" if args.all else f"--edition {args.edition}"
    bound = "" if args.bound == 8 else f" --bound {args.bound}"
    jobs = f" --jobs {args.jobs}" if args.all and args.jobs > 1 else ""
    rlimit = "" if args.rlimit == AUDIT_LIMITS.rlimit else f" --rlimit {args.rlimit}"
    return f"rule603 audit {which}{bound}{rlimit}{jobs} --out {args.out} --overwrite"


def _audit_one(args: argparse.Namespace, edition: Edition) -> Audit:
    verifier = Verifier(edition, _universe(edition, args), _options(args))
    progress = _Progress(audit_steps(verifier))

    def step(what: str) -> None:
        progress(f"audit {edition.name}: {what}")
        progress.step()

    started = time.perf_counter()
    try:
        report = audit(verifier, step)
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    if args.format == "json" and not args.out:
        print(json.dumps({**report.to_json(), "seconds": round(seconds, 1)}, indent=1))
    elif not args.out or args.format != "json":
        _print_audit(args, report, seconds)
    return report


def _audit_quietly(args: argparse.Namespace, name: str) -> Audit:
    """One edition's audit in a worker process: no progress display, nothing printed."""
    edition = load_edition(name)
    return audit(Verifier(edition, _universe(edition, args), _options(args)))


def _print_audit(args: argparse.Namespace, report: Audit, seconds: float) -> None:
    fmt = "github" if args.format == "markdown" else "simple"
    print(f"rule603 audit: edition {report.edition}, bound {report.bound}")
    print(f"checked: {', '.join(CHECKED)}" + (f"; not checked yet: {', '.join(NOT_YET)}" if NOT_YET else "") + "\n")
    rows = [{"kind": f.kind, "clauses": ", ".join(f.clauses), "finding": f.explanation} for f in report.findings]
    rows += [
        {"kind": f"{check} (unknown)", "clauses": what, "finding": f"the solver could not decide: {why}"}
        for check, what, why in report.unknown
    ]
    if rows:
        print(tabulate(rows, headers="keys", tablefmt=fmt, maxcolwidths=[None, None, 80]))
    if report.artefacts:
        behaviours = ", ".join(f.explanation.split(":")[0] for f in report.artefacts)
        print(f"\nmodelling artefacts, not findings ({len(report.artefacts)}): {behaviours}")
    relations = ", ".join(f"{s} over {g}" for s, g in report.precedence)
    print(f"\nprecedence relied on ({len(report.precedence)}): {relations}")
    checks = ", ".join(f"{check} {s:.1f} s" for check, s in report.seconds.items())
    print(f"\n{len(report.findings)} finding(s), {len(report.unknown)} unknown, in {seconds:.1f} s ({checks})")


# --- diff -------------------------------------------------------------------------------


def _diff_pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.consecutive:
        if args.editions:
            raise _UsageError("--consecutive: name no editions; it compares every consecutive pair")
        if not args.out:
            raise _UsageError("--consecutive: add --out DIR to write one report per pair")
        ids = [t.id for t in edition_texts()]
        return list(zip(ids, ids[1:], strict=False))
    if len(args.editions) != 2:
        raise _UsageError(f"diff: name two editions (got {len(args.editions)}), e.g. rule603 diff 2024-06 current")
    a, b = args.editions
    find_edition(a, "diff")
    find_edition(b, "diff")
    if a == b:
        raise _UsageError(f"diff {a} {b}: name two different editions")
    return [(a, b)]


def cmd_diff(args: argparse.Namespace) -> ExitCode:
    """Exit 1 when the editions behave differently within the bound, 3 when that is unknown, else 0."""
    pairs = _diff_pairs(args)
    limits = smt.SolverLimits(timeout_ms=_timeout_ms(args))
    if not args.out and len(args.format) > 1:
        raise _UsageError(f"--format {','.join(args.format)}: several formats need --out DIR")
    targets: list[dict[str, Path]] = []
    if args.out:
        targets = _per_format(args.out, [f"diff-{a}-{b}" for a, b in pairs], args.format, args.overwrite)
    code = ExitCode.OK
    for i, (a, b) in enumerate(pairs):
        result, seconds = _one_diff(a, b, Options(bound=args.bound, limits=limits))
        command = f"rule603 diff {a} {b} --bound {args.bound}"
        texts = {fmt: render_diff(result, fmt, command) for fmt in args.format}
        if not targets:
            print(texts[args.format[0]], end="")
        else:
            for fmt, text in texts.items():
                _write_text(targets[i][fmt], text, "--out")
        print(f"rule603 diff {a} {b}: {_diff_summary(result)}, {seconds:.0f} s", file=sys.stderr)
        if any(s.result == "unknown" for s in result.searches) and code == ExitCode.OK:
            code = ExitCode.UNKNOWN
        if result.witnesses or result.verdicts:
            code = ExitCode.VIOLATED
    return code


def _one_diff(a: str, b: str, options: Options):
    current = load_edition("current")
    steps = 2 * len(builtin_properties()) + len(load_edition(a).encodings) + len(load_edition(b).encodings)
    progress = _Progress(steps)

    def step(label: str) -> None:
        progress(f"diff {a} {b}: {label}")
        progress.step()

    started = time.perf_counter()
    result = diff(a, b, options, current.model.universe(), step)
    progress.close()
    return result, time.perf_counter() - started


def _diff_summary(result) -> str:
    changed = sum(1 for r in result.text if r.kind not in ("same", "translation"))
    return (
        f"{changed} clauses changed, {len(result.verdicts)} verdicts differ, "
        f"{len(result.witnesses)} behaviour witnesses"
    )


def cmd_clauses(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    if args.precedence:
        rows = [{"specific": s, "general": g} for s, g in edition.precedence()]
        _print_rows(rows, args.format, "specific rule beats general rule")
        return ExitCode.OK
    rows = []
    for clause in edition.rules.clauses:
        status = edition.status(clause.number)
        enc = edition.by_number.get(clause.number)
        reason = next((nm.reason for nm in edition.not_modelled if nm.number == clause.number), "")
        rows.append(
            {
                "clause": clause.number,
                "summary": enc.summary if enc else clause.summary,
                "status": status,
                **({"encoding": _how(enc)} if args.edition != "current" else {}),
                "text hash": clause.text_hash,
                **({"note": reason or enc.scope} if args.format == "json" else {}),
            }
        )
    _print_rows(rows, args.format)
    if args.format != "json":
        encoded = sum(r["status"] == "encoded" for r in rows)
        print(
            f"\n{encoded}/{len(rows)} clauses encoded, {len(edition.not_modelled)} not modelled "
            f"({', '.join(nm.number for nm in edition.not_modelled)}); source: {edition.rules.source}"
        )
        _print_absent_features(edition)
    return ExitCode.OK


def _print_absent_features(edition) -> None:
    """The game features the edition's text does not govern, under the clause table (nothing when it has all)."""
    if not edition.absent:
        return
    print(f"\ngame features absent from the {edition.name} game (switched off by the game-model rule model.features):")
    for feature, reason in edition.absent:
        print(f"  {feature.name} ({feature.words}; current {feature.governed_by}): {reason}")


def _how(enc) -> str:
    """'reuses 603.2f' or 'own': the short form of an older edition's encoding origin."""
    if enc is None:
        return ""
    return enc.origin.replace("reuses current ", "reuses ").replace("own encoding ", "own: ")


def cmd_properties(args: argparse.Namespace) -> ExitCode:
    props = _load_properties(argparse.Namespace(property_file=args.property_file, property=[]))
    rows = [
        {
            "id": p.id,
            "clauses": ", ".join(p.clauses) if args.format != "json" else list(p.clauses),
            "summary": p.summary,
        }
        for p in props
    ]
    _print_rows(rows, args.format)
    return ExitCode.OK


def cmd_editions(args: argparse.Namespace) -> ExitCode:
    if args.add is not None:
        return _add_edition(args)
    if args.id or args.date or args.overwrite:
        raise _UsageError("--id, --date and --overwrite go with --add FILE")
    if args.align:
        return _print_alignment(align(*args.align), args.format)
    rows = []
    for text in edition_texts():
        doc = text.document()
        rows.append(
            {
                "id": text.id,
                "date": doc.date,
                "language": doc.language,
                "rule": text.rule,
                "clauses": len(doc.clauses),
                "encoded": how_encoded(text.id),
                "title": doc.title,
                "source": doc.source,
                "file": f"models/{text.path.parent.name}/{text.path.name}",
            }
        )
    if args.format == "json":
        print(json.dumps({"editions": rows}, indent=1, ensure_ascii=False))
        return ExitCode.OK
    table = [
        # Short forms for the table; the full date and source are in the file header and the JSON.
        [r["id"], _before_parenthesis(r["date"]), r["language"], r["rule"], r["clauses"], r["encoded"], r["file"]]
        for r in rows
    ]
    headers = ["edition", "date", "language", "rule", "clauses", "encoded", "file"]
    print(tabulate(table, headers=headers, tablefmt="github" if args.format == "markdown" else "simple"))
    return ExitCode.OK


def _add_edition(args: argparse.Namespace) -> ExitCode:
    """Copy rule 603 of an official file as a new edition and show what must be re-encoded for it."""
    if not args.id:
        raise _UsageError("--add FILE needs --id ID, the new edition's name (e.g. --id 2025-04)")
    added = add_edition(args.add, args.id, date=args.date, overwrite=args.overwrite)
    rows = list(added.rows)
    if args.format == "json":
        print(json.dumps({"edition": args.id, "file": str(added.path), "clauses": rows}, indent=1, ensure_ascii=False))
        return ExitCode.OK
    print(f"added edition {args.id}: {len(added.document.clauses)} clauses of rule 603, dated {added.document.date}")
    print(f"file: {_shown_path(added.path)}\n")
    _print_rows([r for r in rows if r["status"] != "encoded"], args.format)  # what needs a reader's attention
    counts = {s: sum(r["status"] == s for r in rows) for s in ("encoded", "stale", "new: not encoded", "gone")}
    stale = ", ".join(r["clause"] for r in rows if r["status"] == "stale") or "none"
    print(
        f"\nagainst the current encodings: {counts['encoded']} unchanged, {counts['stale']} stale ({stale}), "
        f"{counts['new: not encoded']} new, {counts['gone']} gone; "
        f"'rule603 clauses --edition {args.id}' lists it with the current encodings by number"
    )
    return ExitCode.OK


def _shown_path(path: Path) -> str:
    """models/editions/ID.txt rather than an install path."""
    return f"models/{path.parent.name}/{path.name}" if path.parent.parent.name == "models" else str(path)


def _before_parenthesis(text: str) -> str:
    return text.split(" (", 1)[0]


def _print_alignment(alignment: Alignment, fmt: str) -> ExitCode:
    doc_a = find_edition(alignment.a).document()
    doc_b = find_edition(alignment.b).document()
    rows = []
    for link in alignment.links:
        # Similarity says nothing across languages; it is left out rather than shown as 0.
        same_language = doc_a.language == doc_b.language
        score = similarity(doc_a.get(link.a), doc_b.get(link.b)) if link.a and link.b and same_language else None
        rows.append(
            {alignment.a: link.a, alignment.b: link.b, "kind": link.kind, "similarity": score, "note": link.note}
        )
    if fmt == "json":
        links = [
            {"a": r[alignment.a], "b": r[alignment.b], **{k: r[k] for k in ("kind", "similarity", "note")}}
            for r in rows
        ]
        data = {"a": alignment.a, "b": alignment.b, "review": alignment.review, "links": links}
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return ExitCode.OK
    print(f"{alignment.a} -> {alignment.b} ({alignment.review})")
    table = [["" if v is None else (f"{v:.2f}" if isinstance(v, float) else v) for v in r.values()] for r in rows]
    print(
        tabulate(
            table,
            headers=list(rows[0]) if rows else [],
            tablefmt="github" if fmt == "markdown" else "simple",
            maxcolwidths=[None, None, None, None, 70],
            disable_numparse=True,
        )
    )
    counts = {kind: sum(r["kind"] == kind for r in rows) for kind in KINDS}
    print("\n" + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n))
    return ExitCode.OK


def cmd_show(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    trace = load(Path(args.trace), Schema(tuple(edition.model.VARIABLES)))
    edition.model.check_universe(trace.universe, args.trace)
    print(render_trace(edition, trace))
    return ExitCode.OK


def _print_rows(rows: list[dict], fmt: str, title: str = "") -> None:
    if fmt == "json":
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    if title:
        print(title)
    print(
        tabulate(
            [list(r.values()) for r in rows],
            headers=list(rows[0]) if rows else [],
            tablefmt="github" if fmt == "markdown" else "simple",
            maxcolwidths=[None, 90, None, None],
        )
    )


def cmd_report(args: argparse.Namespace) -> ExitCode:
    """The catalogue and every adequacy check, written as reports/verification.md and .html."""
    edition = load_edition(args.edition)
    targets = _report_targets(args)  # before the run: a refusal must not cost minutes
    props = builtin_properties()
    check_clause_names(props, edition)
    progress = _Progress(_steps(edition, props, adequacy=True))
    try:
        run = full_run(edition, report_options(args.bound), props, progress, progress.step)
    finally:
        progress.close()
    command = regenerate_command(args.edition, args.bound, args.out)
    if args.output == "-":
        sys.stdout.write(to_markdown(run, command))
    elif args.output:
        _write_text(Path(args.output), to_markdown(run, command), "--output")
    else:
        _write_text(targets[0], to_markdown(run, command), "--out")
        _write_text(targets[1], to_html(run, command), "--out")
        print(f"wrote {targets[0]} and {targets[1]}", file=sys.stderr)
    return _exit_code(run.results, run.adequacy)


def _report_targets(args: argparse.Namespace) -> list[Path]:
    """DIR/verification.md and .html, refusing to replace either unless asked; none with --output."""
    if args.output:
        if args.output != "-":
            _check_output(args.output, args.overwrite)
        return []
    return _out_files(args.out, [MARKDOWN, HTML], args.overwrite)


def cmd_mutants(args: argparse.Namespace) -> ExitCode:
    import importlib

    engines = importlib.import_module("rule603.engines.mutants")  # engines depend on rule603, not the reverse
    known = {m.id: m for m in engines.MUTANTS}
    for wanted in args.mutant:
        if wanted not in known:
            raise _UsageError(f"--mutant {wanted}: no such mutant; known: {', '.join(known)}")
    chosen = [m for m in engines.MUTANTS if not args.mutant or m.id in args.mutant]
    progress = _Progress(args.scenarios)

    def show(done: int, killed: int) -> None:
        progress.done = done
        progress(f"scenarios; {killed}/{len(chosen)} mutants killed")

    try:
        result = engines.study(args.scenarios, chosen, show)
    finally:
        progress.close()
    outcomes = [o.to_json() for o in result.outcomes]
    killed = sum(o["killed"] for o in outcomes)
    right = sum(o["killed"] and o["right_clause"] for o in outcomes)
    if args.format == "json":
        summary = {"mutants_total": len(outcomes), "killed": killed, "killed_by_expected_clause": right}
        report = {"mutants": outcomes, "scenarios": result.scenarios, "seconds": round(result.seconds, 2), **summary}
        report["reference_violations"] = result.reference_violations
        print(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        rows = [
            {
                "mutant": o["id"],
                "bug": o["bug"],
                "killed": "yes" if o["killed"] else "NO",
                "clause": o["clause"] or "",
                "expected": ", ".join(o["expected_clauses"][:2]) + ("…" if len(o["expected_clauses"]) > 2 else ""),
                "right clause": ("yes" if o["right_clause"] else "NO") if o["killed"] else "",
                "scenarios": o["scenarios"],
            }
            for o in outcomes
        ]
        _print_rows(rows, args.format)
        print(
            f"\n{killed}/{len(outcomes)} mutants killed, {right} by the clause the bug breaks; "
            f"{result.scenarios} scenarios in {result.seconds:.1f} s"
        )
    if result.reference_violations:
        print(
            f"rule603: the reference engine itself broke a clause in {len(result.reference_violations)} scenarios "
            "(see reference_violations in --format json)",
            file=sys.stderr,
        )
    sound = killed == len(outcomes) and right == killed and not result.reference_violations
    return ExitCode.OK if sound else ExitCode.VIOLATED


RULING_FORMATS = ("md", "html", "json")


def _format_list(known: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    """``--format md,html``: each of ``known`` at most once, in the order given."""

    def parse(text: str) -> tuple[str, ...]:
        formats = tuple(dict.fromkeys(f.strip() for f in text.split(",")))
        for f in formats:
            if f not in known:
                raise argparse.ArgumentTypeError(f"{f!r}: formats are {', '.join(known)}")
        return formats

    return parse


def cmd_rule(args: argparse.Namespace) -> ExitCode:
    import importlib

    files = importlib.import_module("rule603.engines.scenario_file")  # engines depend on rule603, not the reverse
    limits = smt.SolverLimits(timeout_ms=_timeout_ms(args))
    out_dir = Path(args.out) if args.out else None
    if out_dir is None and len(args.scenarios) > 1:
        raise _UsageError("several scenarios: add --out DIR to write one report each")
    if out_dir is None and len(args.format) > 1:
        raise _UsageError(f"--format {','.join(args.format)}: several formats need --out DIR")
    if args.edition is not None:
        load_edition(args.edition)  # an unknown edition is a usage error before any work
    loaded = [files.load(path) for path in args.scenarios]  # every file is checked before any is ruled on
    targets = _rule_targets(args) if out_dir else []
    worst = ExitCode.OK
    progress = _Progress(len(loaded)) if out_dir else None
    for i, (path, scenario) in enumerate(zip(args.scenarios, loaded, strict=True)):
        if progress:
            progress(path)
        texts, code = _rule_one(path, scenario, files, limits, args.format, args.edition)
        if out_dir:
            for fmt, text in texts.items():
                _write_text(targets[i][fmt], text + "\n", "--out")
        else:
            print(texts[args.format[0]])
        if progress:
            progress.step()
        worst = max(worst, code, key=lambda c: (c == ExitCode.VIOLATED, c == ExitCode.UNKNOWN))
    if progress:
        progress.close()
    if out_dir:
        print(f"wrote {sum(map(len, targets))} report(s) to {out_dir}", file=sys.stderr)
    return worst


def _rule_targets(args: argparse.Namespace) -> list[dict[str, Path]]:
    """DIR/<name>.<format> for each scenario, named after its file; two files of one name would write one
    report over the other, so they are refused (the name is compared case-blind, as some file systems do)."""
    seen: dict[str, str] = {}
    for path in args.scenarios:
        name = Path(path).stem
        if name.casefold() in seen:
            raise _UsageError(
                f"--out {args.out}: {seen[name.casefold()]} and {path} would both be "
                f"written as {name}.{args.format[0]}; rename one, or rule them with different --out"
            )
        seen[name.casefold()] = path
    return _per_format(args.out, [Path(p).stem for p in args.scenarios], args.format, args.overwrite)


def _per_format(out: str, names: Sequence[str], formats: Sequence[str], overwrite: bool) -> list[dict[str, Path]]:
    """``--out DIR`` with ``--format``: DIR/<name>.<format> for each name, as ``_out_files`` checks them."""
    files = iter(_out_files(out, [f"{name}.{fmt}" for name in names for fmt in formats], overwrite))
    return [{fmt: next(files) for fmt in formats} for _ in names]


def _rule_one(
    path: str, loaded, files, limits, formats: Sequence[str], edition_name: str | None
) -> tuple[dict[str, str], ExitCode]:
    """One scenario ruled once, then written in each of ``formats``."""
    from ._internal.ruling import rule

    played = files.play(loaded)
    edition = load_edition(edition_name or loaded.edition)
    ruling = rule(edition, played, files.asks(loaded, played), limits, also_fixed=files.FIXED_BY_SCRIPT)
    texts = {fmt: render_ruling(fmt, path, loaded, edition, played, ruling) for fmt in formats}
    if not ruling.consistent or not _as_expected(path, loaded, ruling):
        return texts, ExitCode.VIOLATED
    return texts, ExitCode.UNKNOWN if any(a.answer == "unknown" for a in ruling.answers) else ExitCode.OK


def _as_expected(path: str, loaded, ruling) -> bool:
    """Say on stderr where a ruling differs from the answer its file expects (``expect``)."""
    ok = True
    for i, (question, answer) in enumerate(zip(loaded.questions, ruling.answers, strict=True)):
        if question.expect is not None and question.expect.lower() != answer.summary().lower():
            where = f"{path}:{question.line}" if question.line else path
            print(
                f"{where}: questions[{i}].expect: the file expects {question.expect!r}, "
                f"the ruling is {answer.summary()!r}",
                file=sys.stderr,
            )
            ok = False
    return ok


def cmd_schema(args: argparse.Namespace) -> ExitCode:
    from ._internal.trace_schema import schema_text

    edition = load_edition(args.edition)
    text = schema_text(Schema(tuple(edition.model.VARIABLES)))
    if not args.output:
        sys.stdout.write(text)
        return ExitCode.OK
    _check_output(args.output, args.overwrite)
    _write_text(Path(args.output), text, "--output")
    return ExitCode.OK


# --- check -------------------------------------------------------------------------

CHECK_LIST_ALL_UP_TO = 20  # larger batches list only the traces that break a clause and the unreadable inputs
CHECK_EPILOG = """\
A file, or a line of a JSON Lines stream, that cannot be read as a trace (not UTF-8,
not JSON, not a trace object, breaking the trace format, naming an unknown edition)
is reported as unreadable, with its file, line and JSON pointer, and every other
trace is still checked.  Blank lines of a stream are skipped.

exit status:
  0  every trace conforms
  1  some trace breaks a clause (unreadable inputs, if any, are listed too)
  2  a usage error: a path that does not exist, a directory without trace files,
     a bad option; one line on stderr, nothing checked
  5  some inputs could not be read as traces; every trace that could be read conforms
"""


def cmd_check(args: argparse.Namespace) -> ExitCode:
    _check_output(args.output, args.overwrite)
    items = list(conformance.inputs(args.traces))
    progress = _Progress(len(items))
    started = time.perf_counter()

    def show(done: int, unreadable: int) -> None:
        progress.done = done
        if done % 50 == 0 or done == len(items):
            rate = done / max(time.perf_counter() - started, 1e-9)
            progress(f"traces checked{f', {unreadable} unreadable' if unreadable else ''} ({rate:.0f}/s)")

    try:
        batch = conformance.check_all(
            items, edition=args.edition, all_violations=args.all, jobs=args.jobs, progress=show
        )
    finally:
        progress.close()
    if args.format == "json":
        text = json.dumps(conformance.to_json(batch, args.edition), indent=1, ensure_ascii=False)
    elif args.format == "junit":
        text = conformance.to_junit(batch)
    else:
        text = _check_table(batch)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    if batch.violating:
        return ExitCode.VIOLATED
    return ExitCode.UNREADABLE if batch.unreadable else ExitCode.OK


def _check_table(batch: conformance.Batch) -> str:
    total = len(batch.outcomes)
    listed = [
        r
        for r in batch.outcomes
        if isinstance(r, conformance.Unreadable) or not r.conforms or total <= CHECK_LIST_ALL_UP_TO
    ]
    rows = []
    for r in listed:
        if isinstance(r, conformance.Unreadable):
            rows.append([r.where, "unreadable", "", r.problem, "", ""])
            continue
        if r.conforms:
            rows.append([r.file, "conforms", "", "", "", ""])
        for v in r.violations:
            values = ", ".join(f"{k}={val}" for k, val in list(v.values.items())[:8])
            more = len(v.values) - 8
            values += f", … (+{more})" if more > 0 else ""
            rows.append([r.file, f"moment {v.moment}", v.clause, v.summary, v.about, values])
    headers = ["trace", "verdict", "clause", "summary", "objects", "values read"]
    out = [tabulate(rows, headers=headers, maxcolwidths=[40, None, None, 50, 20, 60])] if rows else []
    hidden = total - len(listed)
    if hidden:
        out.append(f"({hidden} conforming traces not listed; --format json lists every trace)")
    counts = ", ".join(f"{c} ×{n}" for c, n in batch.clause_counts().items())
    broken, unreadable = batch.violating, len(batch.unreadable)
    rate = total / batch.seconds if batch.seconds else 0.0
    out.append(
        f"\n{total} trace{'s' if total != 1 else ''}, {batch.conforming} conform, {broken} "
        f"break{'s' if broken == 1 else ''} a clause{f' ({counts})' if counts else ''}"
        f"{f', {unreadable} unreadable' if unreadable else ''}; "
        f"{batch.moments} moments in {batch.seconds:.2f} s "
        f"({rate:.0f} traces/s, {batch.jobs} process{'es' if batch.jobs > 1 else ''})"
    )
    return "\n".join(out)


def cmd_bench(args: argparse.Namespace) -> ExitCode:
    from ._internal.bench import run_bench, run_check_bench

    _check_output(args.output, overwrite=False, hint="choose another file")
    if args.check is not None:
        return run_check_bench(args.check, args.output)
    return run_bench(args.bounds, args.property, args.timeout, args.output)


def cmd_reports(args: argparse.Namespace) -> ExitCode:
    """Exit 0 when every committed report is current (or was regenerated), 1 when some is stale."""
    from ._internal import committed, regenerate

    root = Path(args.root)
    if not (root / committed.REPORTS).is_dir() or not (root / committed.SCENARIOS).is_dir():
        raise _UsageError(f"--root {args.root}: not the top of a rule603 checkout (no reports/ and scenarios/ there)")
    if (args.names or args.all) and not args.regenerate:
        raise _UsageError("name reports or --all only with --regenerate")
    everything = committed.committed_reports(root)
    by_name = {r.name: r for r in everything}
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        raise _UsageError(f"{unknown[0]!r}: no such report; `rule603 reports` lists them")
    statuses = committed.status(root, everything)
    if not args.regenerate:
        rows = [[s.report.name, "current" if s.current else "stale", "; ".join(s.reasons)] for s in statuses]
        print(tabulate(rows, headers=["report", "status", "why"], maxcolwidths=[None, None, 90]))
        stale = sum(not s.current for s in statuses)
        strays = committed.strays(root, everything)
        for path in strays:
            print(f"{path}: written by no report command (remove it, or list its command in committed.py)")
        print(
            f"\n{len(statuses) - stale} of {len(statuses)} reports current"
            + (f"; regenerate the stale with `rule603 reports --regenerate` (--jobs {args.jobs})" if stale else "")
        )
        return ExitCode.VIOLATED if stale or strays else ExitCode.OK
    if args.names:
        chosen = [by_name[n] for n in args.names]
    else:
        chosen = [s.report for s in statuses if args.all or not s.current]
    lacking = [(r, extra) for r in chosen if (extra := regenerate.missing_extra(r))]
    if lacking:
        r, extra = lacking[0]
        raise _UsageError(f"{r.name}: needs the optional extra; pip install '.[{extra}]'")
    committed.forget_others(root, everything)
    print(f"regenerating {len(chosen)} report(s), {args.jobs} at a time", file=sys.stderr)
    started = time.perf_counter()

    def done(outcome) -> None:
        state = "done" if outcome.ok else f"FAILED (exit {outcome.returncode})"
        print(f"{outcome.report.name}: {state} in {outcome.seconds:.0f} s", file=sys.stderr)
        if not outcome.ok:
            print(outcome.stderr.rstrip(), file=sys.stderr)

    outcomes = regenerate.regenerate(chosen, root, args.jobs, done)
    failed = [o for o in outcomes if not o.ok]
    print(
        f"{len(outcomes) - len(failed)} of {len(outcomes)} regenerated in {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    if not failed:
        return ExitCode.OK
    # A command that failed on bad input says so with 2; anything else (a crash) is ours.
    return ExitCode.USAGE if all(o.returncode == ExitCode.USAGE for o in failed) else ExitCode.INTERNAL


_COMMANDS = {
    "audit": cmd_audit,
    "diff": cmd_diff,
    "verify": cmd_verify,
    "clauses": cmd_clauses,
    "editions": cmd_editions,
    "properties": cmd_properties,
    "show": cmd_show,
    "report": cmd_report,
    "check": cmd_check,
    "mutants": cmd_mutants,
    "rule": cmd_rule,
    "schema": cmd_schema,
    "bench": cmd_bench,
    "reports": cmd_reports,
}

if __name__ == "__main__":
    sys.exit(main())
