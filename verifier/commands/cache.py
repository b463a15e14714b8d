"""``rule603 cache``: where the compiled checks of ``rule603 check``, the verdicts of ``rule603 verify`` and the
rulings of ``rule603 rule`` are kept, how much, and emptying it."""

from __future__ import annotations

import argparse

from .._internal import checkcache
from .common import ExitCode


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--clear", action="store_true", help="remove everything cached: compiled checks, verdicts, rulings")


def run(args: argparse.Namespace) -> ExitCode:
    held = checkcache.clear() if args.clear else checkcache.contents()
    if held.root is None:
        print(f"the cache is off (${checkcache.CACHE_ENV} turns it off)")
        return ExitCode.OK
    checks, verdicts = held.entries.get(checkcache.FOLDER, 0), held.entries.get("verdicts", 0)
    rulings = held.entries.get("rulings", 0)
    what = (
        f"{checks} compiled checks, {verdicts} verdicts and {rulings} rulings, {held.bytes / 2**20:.1f} MiB, "
        f"for {held.versions} code version(s)"
    )
    print(f"removed {what} from {held.root}" if args.clear else f"{held.root}: {what}")
    return ExitCode.OK
