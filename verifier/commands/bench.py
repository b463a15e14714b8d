"""``rule603 bench``: the catalogue timed at several bounds, ``rule603 check`` timed on generated traces, or
``rule603 rule`` timed on scenario files."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._internal.bench import run_bench, run_check_bench, run_reports_bench, run_rule_bench
from .checking import DEFAULT_SIZES, add_sat_argument, add_universe_arguments, universe_sizes
from .common import BOUND, MAX_BOUND, PROCESSES, TIMEOUT, ExitCode, UsageError, check_output, path, whole


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bounds", type=_bounds, default=[4, 6, 8, 10, 12], help="comma-separated bounds (default 4,6,8,10,12)"
    )
    p.add_argument(
        "--output",
        metavar="FILE",
        type=path("--output"),
        help="JSON file to write (default rule603-out/bench-<time>.json)",
    )
    p.add_argument("--property", action="append", default=[], metavar="ID")
    p.add_argument("--timeout", type=TIMEOUT, default=300.0, help="seconds per solver call (default 300)")
    p.add_argument(
        "--jobs",
        type=PROCESSES,
        default=2,
        help="worker processes checking the catalogue, as 'rule603 verify --jobs' (default 2)",
    )
    add_sat_argument(p)
    add_universe_arguments(p)
    p.add_argument(
        "--check",
        type=whole("--check", 1, 1_000_000),
        metavar="N",
        help="instead: time 'rule603 check' on N distinct reference-engine traces (1 and 2 processes; empty and "
        "filled cache)",
    )
    p.add_argument(
        "--rule",
        nargs="*",
        metavar="SCENARIO",
        type=path("--rule"),
        help="instead: time 'rule603 rule' on each scenario file (default: every file in scenarios/)",
    )
    p.add_argument(
        "--reports",
        action="store_true",
        help="instead: time regenerating every committed report (into a scratch copy, with an empty cache; "
        "--jobs at a time)",
    )


def run(args: argparse.Namespace) -> ExitCode:
    check_output(args.output, overwrite=False, hint="choose another file")
    chosen = [
        name
        for name, on in (
            ("--check", args.check is not None),
            ("--rule", args.rule is not None),
            ("--reports", args.reports),
        )
        if on
    ]
    if len(chosen) > 1:
        raise UsageError(f"{' and '.join(chosen)}: one benchmark at a time")
    sizes = universe_sizes(args)
    if chosen and sizes != DEFAULT_SIZES:
        raise UsageError(
            "--players, --cards, --slots, --abilities: for the catalogue's benchmark only (a trace or a scenario states"
            " its own)"
        )
    if args.check is not None:
        return ExitCode(run_check_bench(args.check, args.output))
    if args.reports:
        if not Path("scenarios").is_dir():
            raise UsageError("--reports: run at the top of a rule603 checkout (no scenarios/ here)")
        return ExitCode(run_reports_bench(Path("."), args.jobs, args.output))
    if args.rule is not None:
        return ExitCode(run_rule_bench(_scenarios(args.rule), args.timeout, args.output, args.jobs))
    return ExitCode(run_bench(args.bounds, args.property, args.timeout, args.output, args.jobs, args.sat, sizes))


def _bounds(text: str) -> list[int]:
    """``--bounds 4,6,8``: at least one, each a bound ``--bound`` accepts, none empty (``4,,6`` is a slip, refused)."""
    parts = text.split(",")
    try:
        if all(part.strip() for part in parts):
            return [BOUND(part) for part in parts]
    except UsageError:
        pass
    raise UsageError(f"--bounds {text}: expected comma-separated whole numbers from 1 to {MAX_BOUND}, e.g. 4,6,8")


def _scenarios(given: list[str]) -> list[str]:
    """The scenario files to time: those given, else every one in ./scenarios (sorted: the same order each run)."""
    if given:
        for name in given:
            if not Path(name).is_file():
                raise UsageError(f"--rule {name}: no such file")
        return given
    found = sorted(str(p) for p in Path("scenarios").glob("*.toml"))
    if not found:
        raise UsageError("--rule: no scenario files given, and no scenarios/*.toml here")
    return found
