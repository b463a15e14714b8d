"""``rule603 properties``: the properties and the clauses each depends on."""

from __future__ import annotations

import argparse

from .checking import load_properties
from .common import ExitCode, path, print_rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--property-file", action="append", default=[], metavar="FILE", type=path("--property-file"))
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")


def run(args: argparse.Namespace) -> ExitCode:
    props = load_properties(argparse.Namespace(property_file=args.property_file, property=[]))
    rows = [
        {
            "id": p.id,
            "clauses": ", ".join(p.clauses) if args.format != "json" else list(p.clauses),
            "summary": p.summary,
        }
        for p in props
    ]
    print_rows(rows, args.format)
    return ExitCode.OK
