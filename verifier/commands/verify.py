"""``rule603 verify``: check the property catalogue against an edition by bounded model checking."""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

from tabulate import tabulate

from .._internal import smt
from .._internal.bounds import cut_off_text
from .._internal.catalogue import check_clause_names, load_edition
from .._internal.editions import localise
from .._internal.registry import Edition, Property
from .._internal.report import drop_text, render_trace, verdict_text
from .._internal.schema import Schema
from .._internal.trace import dump, to_json
from .._internal.usercode import CLAIM_SECONDS
from .._internal.verdicts import VerdictStore
from .._internal.verify import (
    HOLDS,
    MINIMISE_PROBE_RLIMIT,
    NOT_APPLICABLE,
    UNKNOWN,
    VIOLATED,
    Adequacy,
    CheckResult,
    Verifier,
    proves_by_cadical,
)
from .._internal.workers import Workers
from .checking import (
    add_sat_argument,
    add_solver_arguments,
    exit_code,
    load_properties,
    solver_options,
    steps,
    universe,
)
from .common import ExitCode, Progress, UsageError, out_files, path, seconds, whole

#: A solver call's default limit: the catalogue's slowest check takes about a minute on a slow 2-core machine with
#: the other core busy (one of 60 s answered "unknown" there), so the net is set well above it.
TIMEOUT_SECONDS = 300.0
JOBS = 2  # the default: the same answers on every machine (the 2-core machine's figures are the targets)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--property", action="append", default=[], metavar="ID", help="check only this property (repeatable)"
    )
    p.add_argument(
        "--property-file",
        action="append",
        default=[],
        metavar="FILE",
        type=path("--property-file"),
        help="also check the properties defined in this Python file (repeatable)",
    )
    p.add_argument("--no-builtin", action="store_true", help="with --property-file: skip the built-in catalogue")
    add_solver_arguments(p, timeout=TIMEOUT_SECONDS)
    add_sat_argument(p)
    p.add_argument(
        "--adequacy",
        action="store_true",
        help="also show that each property needs each clause it names, and each clause is non-vacuous",
    )
    p.add_argument(
        "--save-traces",
        metavar="DIR",
        type=path("--save-traces"),
        help="write each counterexample as DIR/<property>.itf.json",
    )
    p.add_argument("--overwrite", action="store_true", help="with --save-traces: replace existing files")
    p.add_argument("--no-minimise", action="store_true", help="report the first counterexample found, unshrunk")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="check every property again, not taking verdicts kept from an earlier run of the same code and options",
    )
    p.add_argument(
        "--claim-timeout",
        type=seconds("--claim-timeout"),
        default=CLAIM_SECONDS,
        metavar="SECONDS",
        help=f"seconds for one call of a property's claim, apart from the solver's (default {CLAIM_SECONDS:g})",
    )
    p.add_argument(
        "--jobs",
        type=whole("--jobs", 1, 2 * (os.cpu_count() or 1), "between 1 and twice the number of cores"),
        default=JOBS,
        help=f"worker processes, each with its own encoding (default {JOBS}; 1: one encoding, one check after another)",
    )


def run(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    options = solver_options(args, MINIMISE_PROBE_RLIMIT)
    sizes = universe(edition, args)
    cited = load_properties(args)
    props, not_applicable = _in_edition(cited, edition)
    save_dir = _prepare_save_dir(args, props)
    progress = Progress(steps(edition, props, args.adequacy))
    started = time.perf_counter()
    kept = VerdictStore.open(edition, sizes, options)
    reading = kept is not None and not args.no_cache  # --no-cache: every check again, the new verdicts kept
    known = kept.known(props) if reading else {}
    todo = [p for p in props if p.id not in known]
    for _ in known:
        progress.step()
    reached = kept.cut_off() if reading and props else None
    probe = bool(props) and reached is None  # nothing checked: nothing to say of the bounds
    checked: dict[str, CheckResult] = {**known, **{r.property.id: r for r in not_applicable}}
    adequacy = None
    if todo or probe or args.adequacy:
        if args.jobs > 1 and (len(todo) > 1 or (args.adequacy and len(props) > 1)):
            with Workers(edition, sizes, options, _catalogue_loader(args), args.jobs, progress) as workers:
                if probe:
                    workers.start_cut_off()  # one of the longest tasks: first in the queue
                adequacy, found = _ask(workers, todo, props, checked, args.adequacy, probe, progress)
        else:
            verifier = Verifier(edition, sizes, options, progress)
            adequacy, found = _ask(verifier, todo, props, checked, args.adequacy, probe, progress)
        reached = found if probe else reached
    results = [checked[p.id] for p in cited]  # catalogue order, the not applicable ones in their place
    if kept:
        kept.keep(results)
        if probe and reached is not None:
            kept.keep_cut_off(reached)
    progress.close()
    elapsed = time.perf_counter() - started
    saved = _save_traces(results, save_dir, edition) if save_dir else {}
    _print_verify(args, edition, options, sizes, results, adequacy, elapsed, saved, reached)
    return exit_code(results, adequacy)


def _ask(verifier: Verifier | Workers, todo, props, checked, adequacy: bool, probe: bool, progress: Progress):
    """Each of ``todo``'s verdicts (into ``checked``); the adequacy checks of ``props`` (or None); and, when
    ``probe``, what the bounds cut off."""
    checked.update({r.property.id: r for r in verifier.check_all(todo, progress.step)})
    answer = verifier.adequacy(props, progress.step) if adequacy else None
    return answer, verifier.cut_off() if probe else None


def _abilities(sizes) -> str:
    """ ", 2 printed triggered abilities per card" where a card may have more than one (``--abilities``)."""
    per_card = sizes.size("printed") // max(sizes.size("card"), 1)
    return f", {per_card} printed triggered abilities per card" if per_card > 1 else ""


def _catalogue_loader(args: argparse.Namespace) -> functools.partial:
    """What a worker calls to load the same properties as this process, in this edition: picklable."""
    wanted = ("no_builtin", "property_file", "property", "claim_timeout")
    return functools.partial(_catalogue, args.edition, SimpleNamespace(**{k: getattr(args, k) for k in wanted}))


def _catalogue(edition_name: str, spec: SimpleNamespace) -> list[Property]:
    props, _ = _in_edition(load_properties(spec), load_edition(edition_name))
    return props


def _in_edition(props: Sequence[Property], edition: Edition) -> tuple[list[Property], list[CheckResult]]:
    """The properties to check in ``edition`` (clauses renumbered), and a NOT_APPLICABLE verdict for the rest."""
    applicable, skipped = localise(props, edition)
    check_clause_names(applicable, edition)
    return applicable, [CheckResult(p, NOT_APPLICABLE, 0, 0.0, reason=why) for p, why in skipped]


def _prepare_save_dir(args: argparse.Namespace, props: Sequence[Property]) -> Path | None:
    if not args.save_traces:
        return None
    # Before the run, so that a bad path is not found out after it.
    out_files(args.save_traces, [f"{p.id}.itf.json" for p in props], args.overwrite, "--save-traces")
    return Path(args.save_traces)


def _save_traces(results: Sequence[CheckResult], directory: Path, edition: Edition) -> dict[str, str]:
    schema = Schema(tuple(edition.model.VARIABLES))
    saved = {}
    for r in results:
        if r.trace is not None:
            target = directory / f"{r.property.id}.itf.json"
            try:
                dump(r.trace, schema, target, _trace_meta(r))
            except OSError as e:  # checked before the run; only a change since (a full disk) comes here
                raise UsageError(f"--save-traces: cannot write {target} ({e.strerror})") from None
            saved[r.property.id] = str(target)
    return saved


def _trace_meta(r: CheckResult) -> dict:
    return {"property": r.property.id, "clauses": list(r.property.clauses), "violated_at": r.violated_at}


def _print_verify(args, edition, options, sizes, results, adequacy, elapsed, saved, reached) -> None:
    if args.format == "json":
        out = _verify_json(edition, options, sizes, results, adequacy, elapsed, saved)
        out["cut_off"] = None if reached is None else [c.to_json() for c in reached]
        print(json.dumps(out, indent=1))
        return
    fmt = "github" if args.format == "markdown" else "simple"
    rows = [
        [r.property.id, verdict_text(r), ", ".join(r.property.clauses), "cached" if r.cached else f"{r.seconds:.2f}"]
        for r in results
    ]
    print(
        f"rule603 verify: edition {edition.name}, bound {options.bound}, "
        f"{sizes.size('player')} players, {sizes.size('card')} cards{_abilities(sizes)}, z3 {smt.z3_version()}"
        f"{_prover(options)}\n"
    )
    print(tabulate(rows, headers=["property", "verdict", "clauses", "seconds"], tablefmt=fmt))
    counts = {v: sum(r.verdict == v for r in results) for v in (HOLDS, VIOLATED, UNKNOWN, NOT_APPLICABLE)}
    na = f", {counts[NOT_APPLICABLE]} not applicable" if counts[NOT_APPLICABLE] else ""
    cached = sum(r.cached for r in results)
    kept = f" ({cached} kept from an earlier run: --no-cache checks them again)" if cached else ""
    print(
        f"\n{counts[HOLDS]} hold, {counts[VIOLATED]} violated, {counts[UNKNOWN]} unknown{na} in {elapsed:.1f} s{kept}"
    )
    if reached is not None:
        print(cut_off_text(reached, f"within bound {options.bound}", edition))
    for r in results:
        if r.trace is not None:
            print(f"\nCounterexample to {r.property.id}: {r.property.summary}")
            print(render_trace(edition, r.trace, fmt))
            if r.property.id in saved:
                print(f"(saved as {saved[r.property.id]})")
    if adequacy is not None:
        print("\n" + render_adequacy(adequacy, fmt))


def _prover(options) -> str:
    """What proves the properties that hold, when it is not z3 (``Options.sat``)."""
    return ", proofs by CaDiCaL" if proves_by_cadical(options) else ""


def _verify_json(edition, options, sizes, results, adequacy, elapsed, saved) -> dict:
    schema = Schema(tuple(edition.model.VARIABLES))
    out = {
        "edition": edition.name,
        "bound": options.bound,
        "universe": dict(sizes.sizes),
        "z3": smt.z3_version(),
        "sat": "cadical" if proves_by_cadical(options) else "z3",
        "seed": options.limits.seed,
        "seconds": round(elapsed, 3),
        "properties": [
            {
                "id": r.property.id,
                "summary": r.property.summary,
                "verdict": r.verdict,
                "clauses": list(r.property.clauses),
                "bound": r.bound,
                "seconds": round(r.seconds, 3),
                "cached": r.cached,
                **(
                    {"violated_at": r.violated_at, "counterexample": to_json(r.trace, schema, _trace_meta(r))}
                    if r.trace is not None
                    else {}
                ),
                **({"trace_file": saved[r.property.id]} if r.property.id in saved else {}),
                **({"reason": r.reason} if r.reason else {}),
            }
            for r in results
        ],
    }
    if adequacy is not None:
        out.update(adequacy.totals())
        out["adequacy"] = {
            "properties": [
                {
                    "id": a.property.id,
                    "confirmed": a.confirmed,
                    "drops": [
                        {"clause": d.clause, "verdict": d.verdict, "seconds": round(d.seconds, 3)} for d in a.drops
                    ],
                }
                for a in adequacy.properties
            ],
            "clauses": [
                {"number": c.number, "non_vacuous": c.non_vacuous, "covered_by": list(c.covered_by)}
                for c in adequacy.clauses
            ],
        }
    return out


def render_adequacy(adequacy: Adequacy, fmt: str) -> str:
    """The adequacy checks as two tables and a line of totals."""
    prop_rows = [
        [
            a.property.id,
            "confirmed" if a.confirmed else "NOT CONFIRMED",
            ", ".join(drop_text(d) for d in a.drops),
        ]
        for a in adequacy.properties
    ]
    clause_rows = [
        [
            c.number,
            c.non_vacuous,
            len(c.covered_by),
            ", ".join(c.covered_by[:3]) + (" …" if len(c.covered_by) > 3 else ""),
        ]
        for c in adequacy.clauses
    ]
    t = adequacy.totals()
    return "\n".join(
        [
            "Adequacy: dropping each named clause must break the property",
            tabulate(
                prop_rows, headers=["property", "status", "clauses dropped (each gives a counterexample)"], tablefmt=fmt
            ),
            "",
            "Adequacy: each encoded clause has a witness trace and a property that needs it",
            tabulate(clause_rows, headers=["clause", "non-vacuous", "properties", "e.g."], tablefmt=fmt),
            "",
            f"{t['properties_confirmed']}/{t['properties_total']} properties confirmed, "
            f"{t['clauses_non_vacuous']}/{t['clauses_total']} clauses non-vacuous, "
            f"{t['clauses_covered']}/{t['clauses_total']} clauses covered",
        ]
    )
