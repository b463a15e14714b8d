"""What several commands share: the exit statuses, option types, output files and the progress display.

Options are checked as they are parsed, so that a bad value is one line before any work; outputs are
shown writable, and not to replace anything without ``--overwrite``, before any work too.
"""

from __future__ import annotations

import argparse
import enum
import errno
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tabulate import tabulate

from .._internal.documents import clipped, write_atomically


class ExitCode(enum.IntEnum):
    OK = 0
    VIOLATED = 1
    USAGE = 2
    UNKNOWN = 3
    INTERNAL = 4  # a bug in rule603, never a verdict
    UNREADABLE = 5  # rule603 check: some inputs are not traces; every trace read conforms or is cut off


class UsageError(Exception):
    """A user's mistake: the command line prints it as one line and exits 2."""


# --- options: each checked where it is parsed, so that a bad value is one line before any work ------------

MAX_BOUND = 30  # moments are stored in 8-bit vectors with room for sums
Z3_UINT = 2**32 - 1  # z3 keeps seeds, resource limits and timeouts (ms) in 32 bits, and wraps larger ones silently
MAX_SECONDS = Z3_UINT // 1000
MIN_SECONDS = 0.001  # z3 counts milliseconds, and 0 means no limit at all


def whole(option: str, low: int, high: int, meaning: str = "") -> Callable[[str], int]:
    """An integer option from ``low`` to ``high``; anything else is one line naming the option."""

    def parse(text: str) -> int:
        try:  # int() of thousands of digits is refused, or slow where it is not: no number here is that long
            value = int(text) if len(text) <= 30 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise UsageError(f"{option} {clipped(text, 40)}: must be {meaning or f'between {low} and {high}'}")
        return value

    return parse


#: ``--jobs`` of the commands that run in worker processes: at least one, at most two per core.
PROCESSES = whole("--jobs", 1, 2 * (os.cpu_count() or 1), "between 1 and twice the number of cores")


def seconds(option: str) -> Callable[[str], float]:
    """A number of seconds: finite, positive, and within what z3 can hold (1e308 would overflow it)."""

    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 30 else math.nan
        except ValueError:
            value = math.nan
        if not MIN_SECONDS <= value <= MAX_SECONDS:  # also false for nan
            raise UsageError(
                f"{option} {clipped(text, 40)}: must be a positive number of seconds, "
                f"from {MIN_SECONDS} to {MAX_SECONDS}"
            )
        return value

    return parse


BOUND = whole("--bound", 1, MAX_BOUND)
TIMEOUT = seconds("--timeout")
RLIMIT = whole("--rlimit", 0, Z3_UINT, f"0 (no limit) to {Z3_UINT}")  # z3 resource units per solver call


def path(option: str) -> Callable[[str], str]:
    """A path the system can look up.  A name longer than it allows (or holding NUL) is one line naming the
    option here, rather than an OSError wherever the path is first used; a missing file is the command's to
    report, in its own words."""

    def parse(text: str) -> str:
        label = f"{option} {text}" if option else text
        if "\0" in text:
            raise UsageError(f"{label}: a path cannot hold a NUL character")
        try:
            os.stat(text)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                raise UsageError(f"{label}: {e.strerror}") from None
        return text

    return parse


def format_list(known: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    """``--format md,html``: each of ``known`` at most once, in the order given."""

    def parse(text: str) -> tuple[str, ...]:
        formats = tuple(dict.fromkeys(f.strip() for f in text.split(",")))
        for f in formats:
            if f not in known:
                raise argparse.ArgumentTypeError(f"{f!r}: formats are {', '.join(known)}")
        return formats

    return parse


def timeout_ms(args: argparse.Namespace) -> int:
    """``--timeout`` in milliseconds, the solver's unit."""
    return int(args.timeout * 1000)


# --- outputs: shown writable before any work, written last ---------------------------------------------------


def check_output(path: str | None, overwrite: bool, hint: str = "add --overwrite to replace it") -> None:
    """``--output FILE`` must be writable, and not replace anything unless asked: found out before any work."""
    if path:
        writable(Path(path), f"--output {path}:", overwrite, hint)


def out_files(out: str, names: Sequence[str], overwrite: bool, option: str = "--out") -> list[Path]:
    """``--out DIR``: the files ``names`` in it, refusing to replace any unless asked; DIR is created, and
    each file shown writable, before any work."""
    folder = Path(out)
    label = f"{option} {out}"
    try:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{label}: exists and is not a directory")
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{label}: cannot create it ({e.strerror})") from None
    files = [folder / name for name in names]
    for target in files:
        writable(target, f"{label}: {target.name}", overwrite, "add --overwrite to replace it")
    return files


def per_format(out: str, names: Sequence[str], formats: Sequence[str], overwrite: bool) -> list[dict[str, Path]]:
    """``--out DIR`` with ``--format``: DIR/<name>.<format> for each name, as ``out_files`` checks them."""
    files = iter(out_files(out, [f"{name}.{fmt}" for name in names for fmt in formats], overwrite))
    return [{fmt: next(files) for fmt in formats} for _ in names]


def writable(target: Path, label: str, overwrite: bool, hint: str) -> None:
    """Refuse ``target`` unless it can be written, and, when it exists, may be replaced; ``label`` begins each
    message ("--output FILE:", "--out DIR: NAME").

    A file that does not exist yet is created and removed again: that is the one test that does not depend
    on who runs us (root passes every permission check) and that finds every reason (a read-only file
    system, a name too long for it, a parent that is a file)."""
    try:
        if target.is_dir():
            raise UsageError(f"{label} is a directory; name a file")
        if target.exists():
            if not overwrite:
                raise UsageError(f"{label} already exists; {hint}")
            if not os.access(target, os.W_OK):
                raise UsageError(f"{label} cannot be written (permission denied)")
            return
        if not target.parent.is_dir():
            raise UsageError(f"{label} no such directory {target.parent}")
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        os.unlink(target)
    except OSError as e:
        raise UsageError(f"{label} cannot be written ({e.strerror})") from None


def write_text(target: Path, text: str, label: str) -> None:
    """The last step of a command: writing what it made.  Checked before the work (``writable``), this fails
    only when something changed meanwhile (a full disk): one line, not a traceback."""
    try:
        write_atomically(target, text)
    except OSError as e:
        raise UsageError(f"{label}: cannot write {target} ({e.strerror})") from None


def print_rows(rows: list[dict], fmt: str, title: str = "") -> None:
    """A listing as a table (``table``, ``markdown``) or as JSON."""
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


class Progress:
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
