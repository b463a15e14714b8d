"""The ``rule603`` command line: the parser, ``main`` and the dispatch to each subcommand's module.

Exit status: 0 every verdict holds, 1 some property violated (or an adequacy check
failed), 2 bad input (a user mistake: one line on stderr, nothing done), 3 some verdict
unknown and none violated, 4 a bug in rule603 (never a verdict), 5 (``rule603 check``)
some inputs could not be read as traces, and every trace that could be read conforms,
130 interrupted.  A violation outranks an unreadable input: ``rule603 check`` exits 1
when some trace breaks a clause, whatever else it found.

No input gives a traceback.  A user's mistake (a file, an option, a property) is one
line on stderr naming the file and line, the JSON pointer or the option, and status 2:
options are checked as they are parsed (``commands.common``: ``whole``, ``seconds``,
``path``); outputs are shown writable, and not to replace anything without
``--overwrite``, before any work (``commands.common.writable``); documents are parsed by
one reader that locates what the parsers refuse (``_internal.documents``); a user's claim
runs under a time limit of its own (``_internal.usercode``).  Anything else is caught last
(``_internal_error``): one line saying it is a bug, the traceback saved to a file, status 4.

Each subcommand is a module of :mod:`rule603.commands`, imported only when it is the one
given (``_Subcommands``), so that the committed reports one command writes depend on its
module and not on every command's (``_internal/fingerprint.py``, ``DISPATCH``).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import os
import platform
import sys
import tempfile
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import __version__
from ._internal import interrupts, smt, usercode
from ._internal.documents import clipped
from .commands.common import ExitCode, UsageError
from .errors import Rule603Error


@dataclass(frozen=True)
class _Command:
    module: str  # gives the subcommand its arguments (``add_arguments``) and runs it (``run``)
    help: str


# In the order ``rule603 --help`` lists them. Named, not imported: see _Subcommands.
_COMMANDS = {
    "verify": _Command(
        "rule603.commands.verify", "check the property catalogue against an edition by bounded model checking"
    ),
    "audit": _Command(
        "rule603.commands.audit",
        "what an edition's clauses say about each other: contradictions, ambiguities, vacuous and redundant "
        "clauses, precedence",
    ),
    "diff": _Command(
        "rule603.commands.diff",
        "what changed between two editions: the text word by word, verdicts, and behaviour with games",
    ),
    "clauses": _Command(
        "rule603.commands.clauses", "list the clauses of an edition: number, summary, status, text hash"
    ),
    "properties": _Command("rule603.commands.properties", "list the properties and the clauses each depends on"),
    "editions": _Command(
        "rule603.commands.editions",
        "list the editions of the rule text held, or (--align A B) how their clauses correspond",
    ),
    "show": _Command("rule603.commands.show", "print a JSON trace as a step table"),
    "report": _Command(
        "rule603.commands.report",
        "run the catalogue and adequacy checks; write DIR/verification.md and DIR/verification.html",
    ),
    "check": _Command(
        "rule603.commands.check",
        "check engine traces (files, directories, JSON Lines streams, '-' for stdin) against the rules",
    ),
    "mutants": _Command(
        "rule603.commands.mutants",
        "mutation study: play generated scenarios through buggy copies of the reference engine",
    ),
    "rule": _Command("rule603.commands.rule", "answer a scenario file's questions over every rule-compliant game"),
    "schema": _Command("rule603.commands.schema", "print (or write) the JSON Schema of the trace format"),
    "migrate": _Command(
        "rule603.commands.migrate", "rewrite traces of an older version of the trace format in the current one"
    ),
    "reports": _Command(
        "rule603.commands.reports",
        "list the committed reports and whether each is current; --regenerate writes the stale ones again",
    ),
    "cache": _Command(
        "rule603.commands.cache",
        "where 'rule603 check' keeps its compiled checks and 'rule603 verify' its verdicts; --clear empties it",
    ),
    "bench": _Command("rule603.commands.bench", "time the catalogue at several bounds; print a table and write JSON"),
}


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, module: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.module = module  # a subcommand's, whose arguments are added once it is the one given

    def error(self, message: str) -> None:  # one line, exit 2, as for every user mistake
        raise UsageError(f"{self.prog}: {message}")

    def add_command_arguments(self) -> None:
        if self.module:
            importlib.import_module(self.module).add_arguments(self)
            self.module = ""


class _Subcommands(argparse._SubParsersAction):
    """Gives a subcommand its arguments only once it is the one given, so that no other command's module is
    imported: the fingerprint of a committed report counts its own command's module and leaves the others
    out, which is sound only because their code never runs (``_internal/fingerprint.py``, ``DISPATCH``)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        chosen = self._name_parser_map.get(values[0])
        if isinstance(chosen, _Parser):
            chosen.add_command_arguments()
        super().__call__(parser, namespace, values, option_string)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rule603", description="Verify Comprehensive Rules 603 (Handling Triggered Abilities).")
    parser.add_argument("--version", action="version", version=_version_text())
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, action=_Subcommands)
    for name, command in _COMMANDS.items():
        sub.add_parser(name, help=command.help, module=command.module)
    return parser


def _run(args: argparse.Namespace) -> int:
    """The subcommand's own ``run``, looked up as it runs (its module was imported as its arguments were parsed)."""
    return int(importlib.import_module(_COMMANDS[args.command].module).run(args))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (see the module's docstring).  Never raises, never prints a traceback."""
    stdout_errors = _lenient_stdout()
    usercode.on_stuck = _stuck
    restore_interrupts = interrupts.install()
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as e:  # --help and --version print and stop; argparse's own way out
            return e.code if isinstance(e.code, int) else int(ExitCode.OK)
        code = _run(args)
        sys.stdout.flush()  # here, so that a full disk is found while we can still say so
        return code
    except (UsageError, Rule603Error) as e:
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
        # write say which on their own (commands.common.write_text).
        print(f"rule603: error: cannot write standard output ({e.strerror})", file=sys.stderr)
        _drop_stdout()
        return int(ExitCode.USAGE)
    except BaseException as e:  # noqa: BLE001 - the last resort: a crash must never read as a verdict
        return _internal_error(e, argv)
    finally:
        usercode.on_stuck = None
        restore_interrupts()
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


def _one_line(text: str) -> str:
    """A message on one line, each word of it at most a few hundred characters: a message repeats what the
    user gave ("--edition X: unknown edition"), which may be thousands of characters long."""
    return " ".join(clipped(word) for word in text.split())


if __name__ == "__main__":
    sys.exit(main())
