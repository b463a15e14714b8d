"""``rule603 check``: engine traces (files, directories, JSON Lines streams, stdin) against the rules."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tabulate import tabulate

from .._internal import conformance
from .._internal.registry import MODEL_BOUND
from .common import ExitCode, Progress, UsageError, check_output, path, whole, write_text

LIST_ALL_UP_TO = 20  # larger batches list only the traces that break a clause and the unreadable inputs
EPILOG = """\
A file, or a line of a JSON Lines stream, that cannot be read as a trace (not UTF-8,
not JSON, not a trace object, breaking the trace format, naming an unknown edition)
is reported as unreadable, with its file, line and JSON pointer, and every other
trace is still checked.  Blank lines of a stream are skipped.

A trace that goes past a bound of the model (not of the game: say, an ability
triggering again, while instances of it wait, after its source moved) is "cut off"
at that moment: the model cannot judge it from there, so it neither conforms nor
breaks a clause; the bound is named.

exit status:
  0  every trace conforms
  1  some trace breaks a clause (unreadable inputs, if any, are listed too)
  2  a usage error: a path that does not exist, a directory without trace files,
     a bad option; one line on stderr, nothing checked
  3  every input is a trace, none breaks a clause, and some are cut off by a
     bound of the model
  5  some inputs could not be read as traces; every trace that could be read conforms
     or is cut off
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("traces", nargs="+", metavar="TRACE", type=path(""))
    p.add_argument("--edition", default=None, help="check against this edition (default: the edition each trace names)")
    p.add_argument(
        "--all", action="store_true", help="list every violation, not only those at each trace's first broken moment"
    )
    p.add_argument("--format", choices=("table", "json", "junit"), default="table")
    p.add_argument(
        "--jobs",
        type=whole("--jobs", 0, 64, "0 (automatic) to 64"),
        default=0,
        help="worker processes (default: 2 for large batches, else 1)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="check on the workers of this Dask scheduler (tcp://host:port) instead of local processes; "
        "needs the extra 'cluster'",
    )
    p.add_argument(
        "--output", metavar="FILE", type=path("--output"), help="write the report to FILE instead of standard output"
    )
    p.add_argument("--overwrite", action="store_true", help="replace --output if it exists")


def run(args: argparse.Namespace) -> ExitCode:
    if args.scheduler is not None and args.jobs:
        raise UsageError("--jobs and --scheduler: local processes or a cluster's workers, not both")
    check_output(args.output, args.overwrite)
    items = list(conformance.inputs(args.traces))
    progress = Progress(len(items))
    started = time.perf_counter()

    def show(done: int, unreadable: int) -> None:
        progress.done = done
        if done % 50 == 0 or done == len(items):
            rate = done / max(time.perf_counter() - started, 1e-9)
            progress(f"traces checked{f', {unreadable} unreadable' if unreadable else ''} ({rate:.0f}/s)")

    try:
        batch = conformance.check_all(
            items,
            edition=args.edition,
            all_violations=args.all,
            jobs=args.jobs,
            progress=show,
            scheduler=args.scheduler,
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
        write_text(Path(args.output), text + "\n", "--output")
    else:
        print(text)
    if batch.violating:
        return ExitCode.VIOLATED
    if batch.unreadable:
        return ExitCode.UNREADABLE
    return ExitCode.UNKNOWN if batch.cut_off else ExitCode.OK


def _check_table(batch: conformance.Batch) -> str:
    total = len(batch.outcomes)
    listed = [
        r for r in batch.outcomes if isinstance(r, conformance.Unreadable) or not r.conforms or total <= LIST_ALL_UP_TO
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
            past = v.kind == MODEL_BOUND
            verdict = f"cut off at moment {v.moment}" if past else f"moment {v.moment}"
            rows.append([r.file, verdict, v.clause, v.summary, v.objects, values])
    headers = ["trace", "verdict", "clause", "summary", "objects", "values read"]
    out = [tabulate(rows, headers=headers, maxcolwidths=[40, None, None, 50, 20, 60])] if rows else []
    hidden = total - len(listed)
    if hidden:
        out.append(f"({hidden} conforming traces not listed; --format json lists every trace)")
    counts = ", ".join(f"{c} ×{n}" for c, n in batch.clause_counts().items())
    broken, unreadable, cut = batch.violating, len(batch.unreadable), batch.cut_off
    rate = total / batch.seconds if batch.seconds else 0.0
    where = "on the cluster" if batch.jobs == 0 else f"{batch.jobs} process{'es' if batch.jobs > 1 else ''}"
    out.append(
        f"\n{total} trace{'s' if total != 1 else ''}, {batch.conforming} conform, {broken} "
        f"break{'s' if broken == 1 else ''} a clause{f' ({counts})' if counts else ''}"
        f"{f', {cut} cut off by a bound of the model (not judged from there)' if cut else ''}"
        f"{f', {unreadable} unreadable' if unreadable else ''}; "
        f"{batch.moments} moments in {batch.seconds:.2f} s "
        f"({rate:.0f} traces/s, {where})"
    )
    return "\n".join(out)
