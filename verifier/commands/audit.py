"""``rule603 audit``: what an edition's clauses say about each other.

Contradictions, ambiguities, vacuous and redundant clauses, precedence; written as
``reports/audit-<edition>.md`` for the committed reports.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from tabulate import tabulate

from .._internal import cluster
from .._internal.audit import AUDIT_LIMITS, CHECKED, MAX_ROUNDS, NOT_YET, Audit, audit
from .._internal.audit import steps as audit_steps
from .._internal.auditreport import audit_markdown
from .._internal.catalogue import load_edition
from .._internal.editions import edition_texts
from .._internal.registry import Edition
from .._internal.verify import Options, Verifier
from .checking import add_solver_arguments, solver_options, universe
from .common import PROCESSES, ExitCode, Progress, UsageError, out_files, path, whole, write_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    # Deterministic limits by default: the committed reports must come out the same on any machine.
    add_solver_arguments(p, timeout=AUDIT_LIMITS.timeout_ms / 1000, rlimit=AUDIT_LIMITS.rlimit)
    p.add_argument("--all", action="store_true", help="audit every edition held, oldest first")
    p.add_argument(
        "--out", metavar="DIR", type=path("--out"), help="write DIR/audit-<edition>.md for each edition audited"
    )
    p.add_argument("--overwrite", action="store_true", help="with --out: replace existing reports")
    p.add_argument(
        "--jobs",
        type=PROCESSES,
        default=1,
        help="with --all: audit this many editions at once, one process each (default 1)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="audit on the workers of this Dask scheduler (tcp://host:port), an edition to a task, instead of "
        "local processes; needs the extra 'cluster'",
    )
    p.add_argument(
        "--refinements",
        type=whole("--refinements", 1, 10_000),
        default=MAX_ROUNDS,
        help=f"situations the contradiction search tries at a moment before giving up undecided (default {MAX_ROUNDS})",
    )


def run(args: argparse.Namespace) -> ExitCode:
    """Exit 1 when there are findings, 3 when some check is unknown and there are none, 0 otherwise."""
    names = _audit_editions(args)
    editions = {name: load_edition(name) for name in names}
    targets = _audit_targets(args, names)  # before the run: a refusal must not cost minutes
    if args.scheduler:
        cluster.ready(args.scheduler)
    if args.scheduler or (args.jobs > 1 and len(names) > 1):
        # Each edition alone in a worker; the findings do not depend on where they are computed
        # (smt.steady_memory), so the reports are the same as one after another.
        done: dict[str, Audit] = {}
        for name, report in _audited_elsewhere(args, names):
            done[name] = report
            print(
                f"audited {report.edition} ({len(done)}/{len(names)}): {len(report.findings)} finding(s), "
                f"{len(report.unknown)} undecided, {sum(report.seconds.values()):.0f} s",
                file=sys.stderr,
            )
        reports = {name: done[name] for name in names}
        for report in reports.values():
            _print_audit(args, report, sum(report.seconds.values()))
    else:
        reports = {name: _audit_one(args, edition) for name, edition in editions.items()}
    for name, target in targets.items():
        later = {n: (reports[n], editions[n]) for n in names[names.index(name) + 1 :]}
        write_text(target, audit_markdown(reports[name], editions[name], later, audit_command(args)), "--out")
        print(f"wrote {target}", file=sys.stderr)
    if any(r.findings for r in reports.values()):
        return ExitCode.VIOLATED
    return ExitCode.UNKNOWN if any(r.unknown for r in reports.values()) else ExitCode.OK


def _audit_editions(args: argparse.Namespace) -> list[str]:
    if args.all and args.edition != "current":
        raise UsageError(f"--all --edition {args.edition}: name one edition or all, not both")
    if args.all and args.format == "json" and not args.out:
        raise UsageError("--all --format json: several editions need --out DIR")
    return [e.id for e in edition_texts()] if args.all else [args.edition]


def _audit_targets(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Path]:
    """DIR/audit-<edition>.md for each edition, refusing to replace any unless asked."""
    if not args.out:
        return {}
    files = out_files(args.out, [f"audit-{name}.md" for name in names], args.overwrite)
    return dict(zip(names, files, strict=True))


def audit_command(args: argparse.Namespace) -> str:
    """The command that regenerates the reports, as they print it."""
    which = "--all" if args.all else f"--edition {args.edition}"
    bound = "" if args.bound == 8 else f" --bound {args.bound}"
    jobs = f" --jobs {args.jobs}" if args.all and args.jobs > 1 else ""
    rlimit = "" if args.rlimit == AUDIT_LIMITS.rlimit else f" --rlimit {args.rlimit}"
    rounds = "" if args.refinements == MAX_ROUNDS else f" --refinements {args.refinements}"
    return f"rule603 audit {which}{bound}{rlimit}{rounds}{jobs} --out {args.out} --overwrite"


def _options(args: argparse.Namespace) -> Options:
    # The audit shrinks its witnesses under a resource limit too, so that they do not depend on speed.
    probe = min(args.rlimit, AUDIT_LIMITS.probe_rlimit) if args.rlimit else 0
    return solver_options(args, probe, AUDIT_LIMITS.conflicts)


def _audit_one(args: argparse.Namespace, edition: Edition) -> Audit:
    verifier = Verifier(edition, universe(edition, args), _options(args))
    progress = Progress(audit_steps(verifier))

    def step(what: str) -> None:
        progress(f"audit {edition.name}: {what}")
        progress.step()

    started = time.perf_counter()
    try:
        report = audit(verifier, step, refinements=args.refinements)
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    if args.format == "json" and not args.out:
        print(json.dumps({**report.to_json(), "seconds": round(seconds, 1)}, indent=1))
    elif not args.out or args.format != "json":
        _print_audit(args, report, seconds)
    return report


def _audited_elsewhere(args: argparse.Namespace, names: list[str]) -> Iterator[tuple[str, Audit]]:
    """Each edition's audit, as each is done: on a Dask cluster's workers, or ``--jobs`` local processes."""
    if args.scheduler:
        print(f"auditing {len(names)} edition(s) on the workers of {args.scheduler} ...", file=sys.stderr)
        yield from cluster.as_completed_map(args.scheduler, _audit_on_worker, names, args)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(audit_quietly, args, name): name for name in names}
        print(f"auditing {len(names)} editions, {args.jobs} at a time ...", file=sys.stderr)
        for future in as_completed(futures):
            yield futures[future], future.result()


def _audit_on_worker(identity: str, name: str, args: argparse.Namespace) -> tuple[str, Audit]:
    cluster.same_code(identity)
    cluster.single_threaded()
    return name, audit_quietly(args, name)


def audit_quietly(args: argparse.Namespace, name: str) -> Audit:
    """One edition's audit in a worker process: no progress display, nothing printed."""
    edition = load_edition(name)
    return audit(Verifier(edition, universe(edition, args), _options(args)), refinements=args.refinements)


def _print_audit(args: argparse.Namespace, report: Audit, seconds: float) -> None:
    fmt = "github" if args.format == "markdown" else "simple"
    print(f"rule603 audit: edition {report.edition}, bound {report.bound}")
    print(f"checked: {', '.join(CHECKED)}" + (f"; not checked yet: {', '.join(NOT_YET)}" if NOT_YET else "") + "\n")
    rows = [{"kind": f.kind, "clauses": ", ".join(f.clauses), "finding": f.explanation} for f in report.findings]
    rows += [
        {"kind": f"{check} (unknown)", "clauses": what, "finding": f"the solver could not decide: {why}"}
        for check, what, why in report.unknown
    ]
    if rows:
        print(tabulate(rows, headers="keys", tablefmt=fmt, maxcolwidths=[None, None, 80]))
    if report.artefacts:
        behaviours = ", ".join(f.explanation.split(":")[0] for f in report.artefacts)
        print(f"\nmodelling artefacts, not findings ({len(report.artefacts)}): {behaviours}")
    relations = ", ".join(f"{s} over {g}" for s, g in report.precedence)
    print(f"\nprecedence relied on ({len(report.precedence)}): {relations}")
    checks = ", ".join(f"{check} {s:.1f} s" for check, s in report.seconds.items())
    print(f"\n{len(report.findings)} finding(s), {len(report.unknown)} unknown, in {seconds:.1f} s ({checks})")
