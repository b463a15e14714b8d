"""``rule603 schema``: the JSON Schema of the trace format, printed or written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._internal.catalogue import load_edition
from .._internal.schema import Schema
from .._internal.trace_schema import schema_text
from .common import ExitCode, check_output, path, write_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default="current")
    p.add_argument(
        "--output", metavar="FILE", type=path("--output"), help="file to write (default: print to standard output)"
    )
    p.add_argument("--overwrite", action="store_true", help="replace --output if it exists")


def run(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    text = schema_text(Schema(tuple(edition.model.VARIABLES)))
    if not args.output:
        sys.stdout.write(text)
        return ExitCode.OK
    check_output(args.output, args.overwrite)
    write_text(Path(args.output), text, "--output")
    return ExitCode.OK
