"""``rule603 cache``: where the compiled checks of ``rule603 check`` are kept, how much, and emptying it."""

from __future__ import annotations

import argparse

from .._internal import checkcache
from .common import ExitCode


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--clear", action="store_true", help="remove every cached compiled check")


def run(args: argparse.Namespace) -> ExitCode:
    held = checkcache.clear() if args.clear else checkcache.contents()
    if held.root is None:
        print(f"the cache is off (${checkcache.CACHE_ENV} turns it off)")
        return ExitCode.OK
    where = held.root / checkcache.FOLDER
    what = f"{held.entries} compiled checks, {held.bytes / 2**20:.1f} MiB, for {held.versions} code version(s)"
    print(f"removed {what} from {where}" if args.clear else f"{where}: {what}")
    return ExitCode.OK
