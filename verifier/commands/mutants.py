"""``rule603 mutants``: a mutation study, generated scenarios played through buggy copies of the reference engine."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from .common import ExitCode, Progress, UsageError, print_rows, whole


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scenarios",
        type=whole("--scenarios", 1, 1_000_000),
        default=10000,
        help="most scenarios to generate (default 10000)",
    )
    p.add_argument("--mutant", action="append", default=[], metavar="ID", help="study only this mutant")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")


def run(args: argparse.Namespace) -> ExitCode:
    engines = importlib.import_module("rule603.engines.mutants")  # engines depend on rule603, not the reverse
    known = {m.id: m for m in engines.MUTANTS}
    for wanted in args.mutant:
        if wanted not in known:
            raise UsageError(f"--mutant {wanted}: no such mutant; known: {', '.join(known)}")
    chosen = [m for m in engines.MUTANTS if not args.mutant or m.id in args.mutant]
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
