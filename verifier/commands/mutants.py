"""``rule603 mutants``: a mutation study, generated scenarios played through buggy copies of the reference engine."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from .._internal import cluster
from .common import PROCESSES, ExitCode, Progress, UsageError, print_rows, whole


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scenarios",
        type=whole("--scenarios", 1, 1_000_000),
        default=10000,
        help="most scenarios to generate (default 10000)",
    )
    p.add_argument("--mutant", action="append", default=[], metavar="ID", help="study only this mutant")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument(
        "--jobs",
        type=PROCESSES,
        default=1,
        help="study the mutants in this many local processes, each a share of them (default 1)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="study on the workers of this Dask scheduler (tcp://host:port), a share of the mutants to each worker, "
        "instead of local processes; needs the extra 'cluster'",
    )


def run(args: argparse.Namespace) -> ExitCode:
    engines = importlib.import_module("rule603.engines.mutants")  # engines depend on rule603, not the reverse
    known = {m.id: m for m in engines.MUTANTS}
    for wanted in args.mutant:
        if wanted not in known:
            raise UsageError(f"--mutant {wanted}: no such mutant; known: {', '.join(known)}")
    chosen = [m for m in engines.MUTANTS if not args.mutant or m.id in args.mutant]
    if args.scheduler:
        cluster.ready(args.scheduler)
    if args.scheduler or args.jobs > 1:
        result = _study_elsewhere(args, engines, chosen)
    else:
        progress = Progress(args.scenarios)

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
        print_rows(rows, args.format)
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


def _study_elsewhere(args: argparse.Namespace, engines: Any, chosen: Sequence[Any]) -> Any:
    """The study in shares of the mutants, each share a study of its own in a worker (``engines.mutants.merged``:
    the same outcomes as one study of them all)."""
    started = time.perf_counter()
    shares = engines.groups(chosen, _workers(args))
    ids = [[m.id for m in share] for share in shares]
    progress = Progress(len(shares))
    parts = []
    try:
        progress(f"shares of {len(chosen)} mutants studied")
        for part in _shares_studied(args, ids):
            parts.append(part)
            progress.done = len(parts)
            progress(f"shares of {len(chosen)} mutants studied")
    finally:
        progress.close()
    return engines.merged(parts, chosen, time.perf_counter() - started)


def _workers(args: argparse.Namespace) -> int:
    if not args.scheduler:
        return args.jobs
    client = cluster.connect(args.scheduler)
    try:
        return len(client.scheduler_info()["workers"])
    finally:
        client.close()


def _shares_studied(args: argparse.Namespace, ids: list[list[str]]) -> Any:
    if args.scheduler:
        print(f"studying {len(ids)} share(s) of the mutants on the workers of {args.scheduler} ...", file=sys.stderr)
        yield from cluster.as_completed_map(args.scheduler, _study_on_worker, ids, args.scenarios)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(study_share, share, args.scenarios) for share in ids]
        for future in as_completed(futures):
            yield future.result()


def _study_on_worker(identity: str, ids: list[str], scenarios: int) -> Any:
    cluster.same_code(identity)
    return study_share(ids, scenarios)


def study_share(ids: list[str], scenarios: int) -> Any:
    """The study of the mutants ``ids`` alone, in a worker process, quietly."""
    engines = importlib.import_module("rule603.engines.mutants")
    known = {m.id: m for m in engines.MUTANTS}
    return engines.study(scenarios, [known[i] for i in ids])
