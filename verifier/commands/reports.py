"""``rule603 reports``: the committed reports and whether each is current; ``--regenerate`` writes them again.

A stale report fails no test: the listing is for whoever regenerates the reports (a release step), and its
exit status (1 when one is stale) lets a script tell.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

from .._internal import cluster, committed, regenerate
from .._internal.fingerprint import Manifest
from .common import ExitCode, UsageError, path, whole


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="only these reports (as listed), with --regenerate")
    p.add_argument(
        "--regenerate",
        action="store_true",
        help="run the command of each stale report, stamp its files with what they were computed from and record it",
    )
    p.add_argument("--all", action="store_true", help="with --regenerate: every report, stale or not")
    p.add_argument("--jobs", type=whole("--jobs", 1, 64), default=2, help="reports regenerated at once (default 2)")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --regenerate: run the commands on the workers of this Dask scheduler (tcp://host:port) instead "
        "of local processes; needs the extra 'cluster'",
    )
    p.add_argument("--root", type=path("--root"), default=".", help="the top of the rule603 checkout")


def run(args: argparse.Namespace) -> ExitCode:
    """Exit 0 when every committed report is current (or was regenerated), 1 when some is stale."""
    root = Path(args.root)
    if not (root / committed.REPORTS).is_dir() or not (root / committed.SCENARIOS).is_dir():
        raise UsageError(f"--root {args.root}: not the top of a rule603 checkout (no reports/ and scenarios/ there)")
    if (args.names or args.all or args.scheduler) and not args.regenerate:
        raise UsageError("name reports, --all or --scheduler only with --regenerate")
    everything = committed.committed_reports(root)
    by_name = {r.name: r for r in everything}
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        raise UsageError(f"{unknown[0]!r}: no such report; `rule603 reports` lists them")
    # Read once: the status, the records dropped and each record written by the regeneration all use it.
    manifest = Manifest.read(committed.manifest_path(root))
    statuses = committed.status(root, everything, manifest)
    if not args.regenerate:
        return _list(root, everything, statuses, args.jobs)
    if args.names:
        chosen = [by_name[n] for n in args.names]
    else:
        chosen = [s.report for s in statuses if args.all or not s.current]
    lacking = [(r, extra) for r in chosen if (extra := regenerate.missing_extra(r))]
    if lacking:
        r, extra = lacking[0]
        raise UsageError(f"{r.name}: needs the optional extra; pip install '.[{extra}]'")
    if args.scheduler:
        cluster.ready(args.scheduler)
    committed.forget_others(root, everything, manifest)
    where = f"on the workers of {args.scheduler}" if args.scheduler else f"{args.jobs} at a time"
    print(f"regenerating {len(chosen)} report(s), {where}", file=sys.stderr)
    started = time.perf_counter()

    def done(outcome: regenerate.Outcome) -> None:
        state = "done" if outcome.ok else f"FAILED (exit {outcome.returncode})"
        print(f"{outcome.report.name}: {state} in {outcome.seconds:.0f} s", file=sys.stderr)
        if not outcome.ok:
            print(outcome.stderr.rstrip(), file=sys.stderr)

    outcomes = regenerate.regenerate(chosen, root, args.jobs, done, manifest, args.scheduler)
    failed = [o for o in outcomes if not o.ok]
    print(
        f"{len(outcomes) - len(failed)} of {len(outcomes)} regenerated in {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    if not failed:
        return ExitCode.OK
    # A command that failed on bad input says so with 2; anything else (a crash) is ours.
    return ExitCode.USAGE if all(o.returncode == ExitCode.USAGE for o in failed) else ExitCode.INTERNAL


def _list(
    root: Path, everything: Sequence[committed.CommittedReport], statuses: Sequence[committed.Status], jobs: int
) -> ExitCode:
    """The status of every report, and the files under reports/ that no report writes."""
    rows = [[s.report.name, "current" if s.current else "stale", "; ".join(s.reasons)] for s in statuses]
    print(tabulate(rows, headers=["report", "status", "why"], maxcolwidths=[None, None, 90]))
    stale = sum(not s.current for s in statuses)
    strays = committed.strays(root, everything)
    for stray in strays:
        print(f"{stray}: written by no report command (remove it, or list its command in committed.py)")
    print(
        f"\n{len(statuses) - stale} of {len(statuses)} reports current"
        + (f"; regenerate the stale with `rule603 reports --regenerate` (--jobs {jobs})" if stale else "")
    )
    return ExitCode.VIOLATED if stale or strays else ExitCode.OK
