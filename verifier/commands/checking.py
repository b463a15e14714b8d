"""What the commands that check properties with the solver share (verify, audit, report, properties).

The solver's options and the universe, the property catalogue as loaded (built-in and from files), and
the exit status of a run of the catalogue.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .._internal import smt
from .._internal.catalogue import builtin_properties, check_clause_names, load_edition, select
from .._internal.loader import load_property_file
from .._internal.registry import Edition, Property
from .._internal.usercode import CLAIM_SECONDS
from .._internal.verify import UNKNOWN, VIOLATED, Adequacy, CheckResult, Options
from ..errors import Rule603Error
from .common import BOUND, RLIMIT, TIMEOUT, Z3_UINT, ExitCode, UsageError, timeout_ms, whole


def add_solver_arguments(p: argparse.ArgumentParser, *, timeout: float = 60.0, rlimit: int = 0) -> None:
    """The edition, bound, output format, solver limits and universe of ``verify`` and ``audit``."""
    p.add_argument("--edition", default="current", help="edition of rule 603 (default: current)")
    p.add_argument("--bound", type=BOUND, default=8, help="trace length in moments (default 8)")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument("--timeout", type=TIMEOUT, default=timeout, help=f"seconds per solver call (default {timeout:g})")
    p.add_argument(
        "--rlimit",
        type=RLIMIT,
        default=rlimit,
        help=f"z3 resource limit per call, for reproducible unknowns (default {rlimit or '0: none'})",
    )
    p.add_argument("--seed", type=whole("--seed", 0, Z3_UINT), default=0, help="z3 random seed (default 0)")
    add_universe_arguments(p)


#: The universe's sizes when none is given, as the model's ``universe`` takes them.
DEFAULT_SIZES = {"player": 2, "card": 3, "slot": 3}


def add_universe_arguments(p: argparse.ArgumentParser) -> None:
    """The universe's sizes (``universe``)."""
    players, cards, slots = (DEFAULT_SIZES[dim] for dim in ("player", "card", "slot"))
    p.add_argument(
        "--players", type=whole("--players", 2, 4), default=players, help=f"number of players (default {players})"
    )
    p.add_argument("--cards", type=whole("--cards", 1, 6), default=cards, help=f"number of cards (default {cards})")
    p.add_argument("--slots", type=whole("--slots", 1, 6), default=slots, help=f"stack slots (default {slots})")
    p.add_argument(
        "--abilities",
        type=whole("--abilities", 1, 3),
        default=1,
        help="printed triggered abilities each card may have (default 1; each more adds as many abilities as cards)",
    )


#: ``--sat``'s choices: what proves a property that holds (``Options.sat``).
SAT_SOLVERS = ("cadical", "z3")


def add_sat_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sat",
        choices=SAT_SOLVERS,
        default="cadical",
        help="what proves the properties that hold: CaDiCaL on z3's bit-blasted encoding (default), or z3 alone; "
        "z3 finds every counterexample either way",
    )


def universe(edition: Edition, args: argparse.Namespace):
    return edition.model.universe(**universe_sizes(args))


def universe_sizes(args: argparse.Namespace) -> dict[str, int]:
    """``--players``, ``--cards``, ``--slots`` and ``--abilities``, as the model's ``universe`` takes them."""
    sizes = {"player": args.players, "card": args.cards, "slot": args.slots}
    if args.abilities != 1:
        sizes["printed"] = args.cards * args.abilities
    return sizes


def solver_options(args: argparse.Namespace, probe_rlimit: int = 0, conflicts: int = 0) -> Options:
    """The options of ``add_solver_arguments``; ``probe_rlimit`` limits the shrinking of the audit's witnesses,
    ``conflicts`` CaDiCaL's proofs (``smt.SolverLimits``)."""
    limits = smt.SolverLimits(
        timeout_ms=timeout_ms(args), rlimit=args.rlimit, seed=args.seed, probe_rlimit=probe_rlimit, conflicts=conflicts
    )
    return Options(
        bound=args.bound,
        limits=limits,
        minimise=not getattr(args, "no_minimise", False),
        sat=getattr(args, "sat", "cadical"),
        claim_seconds=getattr(args, "claim_timeout", CLAIM_SECONDS),
    )


def load_properties(args: argparse.Namespace) -> list[Property]:
    """The built-in catalogue (unless ``--no-builtin``) and ``--property-file``'s, narrowed to ``--property``."""
    if getattr(args, "no_builtin", False) and not args.property_file:
        raise UsageError("--no-builtin: nothing left to check; add --property-file FILE")
    props = [] if getattr(args, "no_builtin", False) else builtin_properties()
    for file in args.property_file:
        props += load_property_file(file, getattr(args, "claim_timeout", CLAIM_SECONDS))
    seen: dict[str, Property] = {}
    for p in props:
        if p.id in seen:
            raise Rule603Error(f"property {p.id} is defined twice ({seen[p.id].source} and {p.source}).")
        seen[p.id] = p
    if getattr(args, "property", None):
        props = select(props, args.property)
    check_clause_names(props, load_edition("current"))  # properties cite current clause numbers
    return props


def steps(edition: Edition, props: Sequence[Property], adequacy: bool) -> int:
    """What a progress display counts: each check, and with adequacy each property's drops and each clause's witness."""
    return len(props) + (len(props) + len(edition.encodings) if adequacy else 0)


def exit_code(results: Sequence[CheckResult], adequacy: Adequacy | None) -> ExitCode:
    """1 for a violation or a failed adequacy check, else 3 for an unknown verdict, else 0."""
    if any(r.verdict == VIOLATED for r in results):
        return ExitCode.VIOLATED
    if adequacy is not None:
        t = adequacy.totals()
        if (
            t["properties_confirmed"] < t["properties_total"]
            or t["clauses_non_vacuous"] < t["clauses_total"]
            or t["clauses_covered"] < t["clauses_total"]
        ):
            return ExitCode.VIOLATED
    if any(r.verdict == UNKNOWN for r in results):
        return ExitCode.UNKNOWN
    return ExitCode.OK
