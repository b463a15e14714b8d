"""``rule603 rule``: a scenario file's questions answered over every rule-compliant game.

Written as ``reports/rulings/<scenario>.md``, ``.html`` and ``.json`` for the committed reports.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from .._internal import smt
from .._internal.catalogue import load_edition
from .._internal.ruling import Ruling, rule_scenario_file
from .._internal.rulingcache import rule_scenario_file_kept
from .._internal.rulingreport import render_ruling
from ..errors import Rule603Error
from .common import (
    TIMEOUT,
    ExitCode,
    Progress,
    UsageError,
    format_list,
    path,
    per_format,
    timeout_ms,
    whole,
    write_text,
)

FORMATS = ("md", "html", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO", type=path(""))
    p.add_argument(
        "--format",
        type=format_list(FORMATS),
        default=("md",),
        help="md, html or json, or several with --out: md,html,json (default md)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        type=path("--out"),
        help="write one report per scenario and format into DIR (NAME.md, ...)",
    )
    p.add_argument("--overwrite", action="store_true", help="with --out: replace existing reports")
    p.add_argument("--timeout", type=TIMEOUT, default=60.0, help="seconds per solver call (default 60)")
    p.add_argument("--edition", default=None, help="edition of rule 603 (default: the one the scenario names)")
    p.add_argument(
        "--jobs",
        type=whole("--jobs", 1, 2 * (os.cpu_count() or 1), "between 1 and twice the number of cores"),
        default=1,
        help="with --out: rule this many scenarios at once, one process each (default 1)",
    )
    p.add_argument(
        "--no-cache", action="store_true", help="rule again what an earlier run ruled (and keep the new ruling)"
    )


def run(args: argparse.Namespace) -> ExitCode:
    files = importlib.import_module("rule603.engines.scenario_file")  # engines depend on rule603, not the reverse
    limits = smt.SolverLimits(timeout_ms=timeout_ms(args))
    out_dir = Path(args.out) if args.out else None
    if out_dir is None and len(args.scenarios) > 1:
        raise UsageError("several scenarios: add --out DIR to write one report each")
    if out_dir is None and len(args.format) > 1:
        raise UsageError(f"--format {','.join(args.format)}: several formats need --out DIR")
    if args.edition is not None:
        load_edition(args.edition)  # an unknown edition is a usage error before any work
    loaded = [files.load(p) for p in args.scenarios]  # every file is checked before any is ruled on
    targets = _rule_targets(args) if out_dir else []
    worst = ExitCode.OK
    progress = Progress(len(loaded)) if out_dir else None
    kept = not args.no_cache
    work = [(p, s, limits, args.format, args.edition, kept) for p, s in zip(args.scenarios, loaded, strict=True)]
    for i, (texts, code) in enumerate(_rulings(work, args.jobs)):
        if progress:
            progress(args.scenarios[i])
        if out_dir:
            for fmt, text in texts.items():
                write_text(targets[i][fmt], text + "\n", "--out")
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
    for scenario_path in args.scenarios:
        name = Path(scenario_path).stem
        if name.casefold() in seen:
            raise UsageError(
                f"--out {args.out}: {seen[name.casefold()]} and {scenario_path} would both be "
                f"written as {name}.{args.format[0]}; rename one, or rule them with different --out"
            )
        seen[name.casefold()] = scenario_path
    return per_format(args.out, [Path(p).stem for p in args.scenarios], args.format, args.overwrite)


def _rulings(work: Sequence[tuple], jobs: int) -> Iterator[tuple[dict[str, str], ExitCode]]:
    """Each scenario of ``work`` ruled (``_rule_one``), in order; ``jobs`` at once, one process each.  A ruling
    does not depend on where it runs: each scenario is ruled on its own."""
    if jobs <= 1 or len(work) <= 1:
        yield from map(_rule_one, *zip(*work, strict=True))
        return
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        for outcome in pool.map(_rule_in_worker, *zip(*work, strict=True)):
            if isinstance(outcome, str):  # the engine refused the script: one line, exit 2, as in this process
                raise UsageError(outcome)
            yield outcome
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # a refusal stops the scenarios not yet begun


def _rule_in_worker(*job: Any) -> tuple[dict[str, str], ExitCode] | str:
    """``_rule_one`` in a worker process; a scenario the reference engine refuses comes back as its message (an
    error of rule603 carries more than its message, and not every one survives the way back between processes)."""
    try:
        return _rule_one(*job)
    except Rule603Error as e:
        return str(e)


def _rule_one(
    scenario_path: str,
    loaded: Any,
    limits: smt.SolverLimits,
    formats: Sequence[str],
    edition_name: str | None,
    kept: bool = True,
) -> tuple[dict[str, str], ExitCode]:
    """One scenario ruled once (or its kept ruling, with ``kept``), then written in each of ``formats``."""
    rule_file = rule_scenario_file_kept if kept else rule_scenario_file
    played, edition, ruling = rule_file(loaded, limits, edition_name)
    texts = {fmt: render_ruling(fmt, scenario_path, loaded, edition, played, ruling) for fmt in formats}
    if not ruling.consistent or not _as_expected(scenario_path, loaded, ruling):
        return texts, ExitCode.VIOLATED
    return texts, ExitCode.UNKNOWN if any(a.answer == "unknown" for a in ruling.answers) else ExitCode.OK


def _as_expected(scenario_path: str, loaded: Any, ruling: Ruling) -> bool:
    """Say on stderr where a ruling differs from the answer its file expects (``expect``, ``expect_needed``)."""
    wrong = []
    for i, (question, answer) in enumerate(zip(loaded.questions, ruling.answers, strict=True)):
        where = f"{scenario_path}:{question.line}" if question.line else scenario_path
        if question.expect is not None and question.expect.lower() != answer.summary().lower():
            wrong.append(
                f"{where}: questions[{i}].expect: the file expects {question.expect!r}, "
                f"the ruling is {answer.summary()!r}"
            )
        missing = [n for n in question.expect_needed if n not in answer.needed]
        if missing:
            wrong.append(
                f"{where}: questions[{i}].expect_needed: the file expects {', '.join(missing)} to decide the answer, "
                f"the ruling needs {', '.join(answer.needed) or 'no clause'}"
            )
    for line in wrong:
        print(line, file=sys.stderr)
    return not wrong
