"""``rule603 report``: the catalogue and every adequacy check, written as ``verification.md`` and ``.html``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._internal.catalogue import builtin_properties, check_clause_names, load_edition
from .._internal.report import (
    DEFAULT_BOUND,
    DEFAULT_DIR,
    DEFAULT_EDITION,
    HTML,
    MARKDOWN,
    full_run,
    regenerate_command,
    report_options,
    to_html,
    to_markdown,
)
from .checking import exit_code, steps
from .common import BOUND, ExitCode, Progress, check_output, out_files, path, write_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default=DEFAULT_EDITION)
    p.add_argument("--bound", type=BOUND, default=DEFAULT_BOUND)
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--out", metavar="DIR", type=path("--out"), default=DEFAULT_DIR, help="directory to write (default reports)"
    )
    where.add_argument(
        "--output",
        metavar="FILE",
        type=path("--output"),
        help="instead: write only the Markdown to FILE ('-': standard output)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace existing reports")


def run(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    targets = _report_targets(args)  # before the run: a refusal must not cost minutes
    props = builtin_properties()
    check_clause_names(props, edition)
    progress = Progress(steps(edition, props, adequacy=True))
    try:
        done = full_run(edition, report_options(args.bound), props, progress, progress.step)
    finally:
        progress.close()
    command = regenerate_command(args.edition, args.bound, args.out)
    if args.output == "-":
        sys.stdout.write(to_markdown(done, command))
    elif args.output:
        write_text(Path(args.output), to_markdown(done, command), "--output")
    else:
        write_text(targets[0], to_markdown(done, command), "--out")
        write_text(targets[1], to_html(done, command), "--out")
        print(f"wrote {targets[0]} and {targets[1]}", file=sys.stderr)
    return exit_code(done.results, done.adequacy)


def _report_targets(args: argparse.Namespace) -> list[Path]:
    """DIR/verification.md and .html, refusing to replace either unless asked; none with --output."""
    if args.output:
        if args.output != "-":
            check_output(args.output, args.overwrite)
        return []
    return out_files(args.out, [MARKDOWN, HTML], args.overwrite)
