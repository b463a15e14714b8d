"""``rule603 show``: a JSON trace as a step table."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._internal.catalogue import load_edition
from .._internal.report import render_trace
from .._internal.schema import Schema
from .._internal.trace import load, trace_names
from .common import ExitCode, path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", metavar="TRACE", type=path(""))
    p.add_argument("--edition", default="current")


def run(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    trace = load(Path(args.trace), Schema(tuple(edition.model.VARIABLES)))
    edition.model.check_universe(trace.universe, args.trace)
    print(render_trace(edition, trace, names=trace_names(trace)))
    return ExitCode.OK
