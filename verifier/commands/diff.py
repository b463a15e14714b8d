"""``rule603 diff``: what changed between two editions, the text word by word, verdicts and behaviour.

Written as ``reports/diff-<a>-<b>.md`` and ``.html`` for the committed reports.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .._internal import smt
from .._internal.catalogue import builtin_properties, load_edition
from .._internal.diff import DIFF_LIMITS, Diff, diff
from .._internal.diffreport import FORMATS
from .._internal.diffreport import render as render_diff
from .._internal.editions import edition_texts, find_edition
from .._internal.verify import Options
from .common import (
    BOUND,
    RLIMIT,
    TIMEOUT,
    ExitCode,
    Progress,
    UsageError,
    format_list,
    path,
    per_format,
    timeout_ms,
    write_text,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("editions", nargs="*", metavar="EDITION", help="two editions, older first (see rule603 editions)")
    p.add_argument(
        "--consecutive", action="store_true", help="instead of A B: every pair of consecutive editions (needs --out)"
    )
    p.add_argument("--bound", type=BOUND, default=8, help="trace length in moments (default 8)")
    p.add_argument(
        "--format",
        type=format_list(FORMATS),
        default=("md",),
        help="md, html or json, or several with --out (default md)",
    )
    p.add_argument("--out", metavar="DIR", type=path("--out"), help="write diff-A-B.md (and .html, .json) into DIR")
    p.add_argument("--overwrite", action="store_true", help="with --out: replace existing reports")
    p.add_argument(
        "--timeout",
        type=TIMEOUT,
        default=DIFF_LIMITS.timeout_ms / 1000,
        help=f"seconds per solver call, a safety net (default {DIFF_LIMITS.timeout_ms / 1000:g})",
    )
    p.add_argument(
        "--rlimit",
        type=RLIMIT,
        default=DIFF_LIMITS.rlimit,
        help="z3 resource limit per solver call: what is unknown is so on every machine "
        f"(default {DIFF_LIMITS.rlimit}; 0: none, the wall clock decides)",
    )


def run(args: argparse.Namespace) -> ExitCode:
    """Exit 1 when the editions behave differently within the bound, 3 when that is unknown, else 0."""
    pairs = _diff_pairs(args)
    limits = smt.SolverLimits(timeout_ms=timeout_ms(args), rlimit=args.rlimit, conflicts=DIFF_LIMITS.conflicts)
    if not args.out and len(args.format) > 1:
        raise UsageError(f"--format {','.join(args.format)}: several formats need --out DIR")
    targets: list[dict[str, Path]] = []
    if args.out:
        targets = per_format(args.out, [f"diff-{a}-{b}" for a, b in pairs], args.format, args.overwrite)
    code = ExitCode.OK
    for i, (a, b) in enumerate(pairs):
        result, seconds = _one_diff(a, b, Options(bound=args.bound, limits=limits))
        rlimit = "" if args.rlimit == DIFF_LIMITS.rlimit else f" --rlimit {args.rlimit}"
        command = f"rule603 diff {a} {b} --bound {args.bound}{rlimit}"
        texts = {fmt: render_diff(result, fmt, command) for fmt in args.format}
        if not targets:
            print(texts[args.format[0]], end="")
        else:
            for fmt, text in texts.items():
                write_text(targets[i][fmt], text, "--out")
        print(f"rule603 diff {a} {b}: {_diff_summary(result)}, {seconds:.0f} s", file=sys.stderr)
        unknown = any(s.result == "unknown" for s in result.searches) or any(r.unknown for r in result.verdicts)
        if unknown and code == ExitCode.OK:
            code = ExitCode.UNKNOWN
        if result.witnesses or any(not r.unknown for r in result.verdicts):
            code = ExitCode.VIOLATED
    return code


def _diff_pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.consecutive:
        if args.editions:
            raise UsageError("--consecutive: name no editions; it compares every consecutive pair")
        if not args.out:
            raise UsageError("--consecutive: add --out DIR to write one report per pair")
        ids = [t.id for t in edition_texts()]
        return list(zip(ids, ids[1:], strict=False))
    if len(args.editions) != 2:
        raise UsageError(f"diff: name two editions (got {len(args.editions)}), e.g. rule603 diff 2024-06 current")
    a, b = args.editions
    find_edition(a, "diff")
    find_edition(b, "diff")
    if a == b:
        raise UsageError(f"diff {a} {b}: name two different editions")
    return [(a, b)]


def _one_diff(a: str, b: str, options: Options) -> tuple[Diff, float]:
    current = load_edition("current")
    steps = 2 * len(builtin_properties()) + len(load_edition(a).encodings) + len(load_edition(b).encodings)
    progress = Progress(steps)

    def step(label: str) -> None:
        progress(f"diff {a} {b}: {label}")
        progress.step()

    started = time.perf_counter()
    result = diff(a, b, options, current.model.universe(), step)
    progress.close()
    return result, time.perf_counter() - started


def _diff_summary(result: Diff) -> str:
    changed = sum(1 for r in result.text if r.kind not in ("same", "translation"))
    return (
        f"{changed} clauses changed, {len(result.verdicts)} verdicts differ, "
        f"{len(result.witnesses)} behaviour witnesses"
    )
