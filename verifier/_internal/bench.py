"""The benchmark: the catalogue at several bounds, each in a fresh process.

A fresh process per bound makes the peak-memory figure that bound's own (the peak
resident size only ever grows within a process).  Figures go to a table and a JSON
file so that changes can be compared; no test asserts on them.
"""

from __future__ import annotations

import functools
import importlib
import json
import multiprocessing
import os
import platform
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tabulate import tabulate

from . import interrupts, sat, smt
from .documents import write_atomically


def _selected(ids: list[str]) -> list:
    from .catalogue import builtin_properties, select

    return select(builtin_properties(), ids)


def _one_bound(
    bound: int, ids: list[str], timeout: float, jobs: int, solver: str = "cadical", sizes: dict | None = None
) -> dict:
    interrupts.install()  # a spawned process: Ctrl-C in a destructor stops it too, without a traceback
    from .catalogue import load_edition
    from .verify import Options, Verifier
    from .workers import Workers

    edition = load_edition("current")
    universe = edition.model.universe(**(sizes or {}))
    props = _selected(ids)
    options = Options(bound=bound, limits=smt.SolverLimits(timeout_ms=int(timeout * 1000)), sat=solver)
    started = time.perf_counter()
    verifier = Verifier(edition, universe, options)
    verifier.encoding.extend(bound)
    encode_seconds = time.perf_counter() - started
    if jobs > 1:  # the encoding above is only timed: each worker builds its own, within the total
        started = time.perf_counter()
        with Workers(edition, universe, options, functools.partial(_selected, ids), jobs, _quiet) as w:
            results = w.check_all(props)
        solver_seconds = None  # inside the workers: not seen from here
    else:
        with smt.solver_time() as solver:
            results = verifier.check_all(props)
        solver_seconds = round(solver.seconds, 3)
    total = time.perf_counter() - started
    peak_kib = max(  # KiB on Linux; with workers, the largest of them (they have ended by now)
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    )
    return {
        "bound": bound,
        "universe": dict(universe.sizes),  # every size, the derived ones too
        "jobs": jobs,
        "total_seconds": round(total, 3),
        "encode_seconds": round(encode_seconds, 3),
        "solver_seconds": solver_seconds,  # in the solvers' checks, z3's and CaDiCaL's (with --jobs 1 only)
        "peak_memory_mib": round(peak_kib / 1024, 1),
        "seconds_per_property": {r.property.id: round(r.seconds, 4) for r in results},
        "verdicts": {r.property.id: r.verdict for r in results},
        "unknown_reasons": {r.property.id: r.reason for r in results if r.verdict == "unknown"},
    }


def _quiet(_: str) -> None:
    pass


def run_bench(
    bounds: list[int],
    ids: list[str],
    timeout: float,
    output: str | None,
    jobs: int = 2,
    solver: str = "cadical",
    sizes: dict[str, int] | None = None,
) -> int:
    """The catalogue at each bound, in ``sizes``' universe (``--players``, ``--cards``, ``--slots``; the model's
    defaults where not given)."""
    ctx = multiprocessing.get_context("spawn")
    runs = []
    for bound in bounds:
        print(f"bound {bound} ...", file=sys.stderr, flush=True)
        # (not multiprocessing.Pool: its daemonic process could not start the workers of --jobs)
        with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            runs.append(pool.submit(_one_bound, bound, ids, timeout, jobs, solver, sizes).result())
    rows = []
    for i, run in enumerate(runs):
        ratio = f"×{run['total_seconds'] / runs[i - 1]['total_seconds']:.2f}" if i else ""
        unknown = sum(v == "unknown" for v in run["verdicts"].values())
        rows.append(
            [
                run["bound"],
                run["total_seconds"],
                run["encode_seconds"],
                "" if run["solver_seconds"] is None else run["solver_seconds"],
                ratio,
                run["peak_memory_mib"],
                len(run["verdicts"]),
                unknown,
            ]
        )
    headers = ["bound", "total s", "encode s", "in solver s", "vs previous", "peak MiB", "properties", "unknown"]
    print(tabulate(rows, headers=headers))
    _write(
        output,
        "bench",
        {
            "z3": smt.z3_version(),
            "sat": sat.solver_version() if solver == "cadical" else "z3",
            "jobs": jobs,
            "runs": runs,
        },
    )
    return 0


def _write(output: str | None, name: str, figures: dict) -> None:
    """The figures, with the machine and the time, as JSON (default rule603-out/<name>-<time>.json)."""
    report = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": multiprocessing.cpu_count(),
        },
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **figures,
    }
    path = Path(output) if output else Path("rule603-out") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(report, indent=1) + "\n")
    print(f"\nwrote {path}")


# --- rule603 check throughput ----------------------------------------------------------------

CHECK_MOMENTS = (10, 30)  # the traces' lengths: from 10 to 30 moments, 20 on average


def _engine_traces(count: int) -> list[str]:
    """Up to ``count`` distinct JSON traces played by the reference engine, of 10 to 30 moments.

    Scenarios come from the Hypothesis strategy (derandomized, so the set is the same on
    every run); each is played to a length of its own, padded with batches in which nothing
    happens (or the next step begins, where a step must).  A game that ends sooner is kept
    from 10 moments on; a trace already drawn is not drawn twice.
    """
    from dataclasses import replace

    from .schema import Schema
    from .trace import to_json

    reference = importlib.import_module("rule603.engines.reference")
    scenario_module = importlib.import_module("rule603.engines.scenario")
    strategies = importlib.import_module("rule603.engines.strategies")
    Action = scenario_module.Action  # noqa: N806 - a class
    schema = Schema(tuple(importlib.import_module("rule603.models.game").VARIABLES))
    shortest, longest = CHECK_MOMENTS
    out: dict[str, None] = {}  # insertion-ordered set of texts

    def collect(scenario) -> bool:
        moments = shortest + (len(out) * 7) % (longest - shortest + 1)
        game = reference.ReferenceGame(replace(scenario, actions=()))
        for action in scenario.actions[: moments - 1]:
            game.apply(action)
        while len(game.moments) < moments and not game.game_over:
            for filler in (Action(), Action(step="upkeep"), Action(step="precombat_main")):
                try:
                    game.apply(filler)
                    break
                except Exception:  # noqa: BLE001 - the engine refuses it: try the next filler
                    continue
            else:
                break
        if len(game.moments) >= shortest:
            out[json.dumps(to_json(game.trace(), schema))] = None
        return len(out) >= count

    strategies.each_scenario(count * 8, collect, max_actions=longest - 1)
    return list(out)


def run_check_bench(traces: int, output: str | None) -> int:
    """``rule603 check`` timed on ``traces`` distinct engine traces: with an empty cache and with the cache that
    run filled, in one process (where the time went) and in two."""
    import tempfile

    from .checkcache import CACHE_ENV
    from .conformance import _Input, check_all

    print(f"generating {traces} distinct reference-engine traces of 10 to 30 moments ...", file=sys.stderr)
    started = time.perf_counter()
    texts = _engine_traces(traces)
    generate_seconds = time.perf_counter() - started
    if not texts:
        print("rule603: error: the engine produced no trace of the required length", file=sys.stderr)
        return 2
    items = [_Input(f"trace-{i}", text) for i, text in enumerate(texts)]
    moments = sum(len(json.loads(text)["states"]) for text in texts)
    saved = os.environ.get(CACHE_ENV)
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="rule603-bench-cache-") as scratch:
            # Each first run starts from an empty cache folder; the last two use the one the second filled.
            for cache, jobs, folder in (("empty", 1, "a"), ("empty", 2, "b"), ("filled", 1, "b"), ("filled", 2, "b")):
                os.environ[CACHE_ENV] = os.path.join(scratch, folder)
                print(
                    f"checking {len(items)} traces, {jobs} process(es), cache {cache} ...", file=sys.stderr, flush=True
                )
                started = time.perf_counter()
                batch = check_all(items, jobs=jobs)
                seconds = time.perf_counter() - started
                runs.append(
                    {
                        "cache": cache,
                        "jobs": jobs,
                        "seconds": round(seconds, 3),
                        "traces_per_second": round(len(items) / seconds, 1),
                        "conforming": batch.conforming,
                        "split_seconds": batch.times.to_json() if batch.times else None,
                    }
                )
    finally:
        if saved is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = saved
    print(tabulate([_check_row(r) for r in runs], headers=_CHECK_HEADERS))
    print(f"\n{len(items)} distinct traces, {moments} moments in all")
    figures = {
        "distinct_traces": len(items),
        "moments": moments,
        "generate_seconds": round(generate_seconds, 3),
        "check_runs": runs,
    }
    _write(output, "bench-check", figures)
    return 0


_CHECK_HEADERS = [
    "cache",
    "processes",
    "seconds",
    "traces/s",
    "conforming",
    "parse s",
    "read s",
    "compile s",
    "check s",
]


def _check_row(run: dict) -> list:
    split = run["split_seconds"] or {}
    parts = [split.get(k, "") for k in ("parse", "read", "compile", "check")]
    return [run["cache"], run["jobs"], run["seconds"], run["traces_per_second"], run["conforming"], *parts]


# --- rule603 rule, scenario by scenario ------------------------------------------------------


def _time_ruling(scenario_path: str, timeout_ms: int) -> dict:
    """One scenario file ruled as ``rule603 rule`` rules it, timed: in all, and inside z3's checks."""
    interrupts.install()  # a spawned process
    from .ruling import rule_scenario_file

    files = importlib.import_module("rule603.engines.scenario_file")
    started = time.perf_counter()
    loaded = files.load(scenario_path)
    with smt.solver_time() as solver:
        _, _, ruling = rule_scenario_file(loaded, smt.SolverLimits(timeout_ms=timeout_ms))
    seconds = time.perf_counter() - started
    return {
        "scenario": Path(scenario_path).stem,
        "seconds": round(seconds, 3),
        "solver_seconds": round(solver.seconds, 3),
        "solver_checks": solver.checks,
        "other_seconds": round(seconds - solver.seconds, 3),
        "questions": len(ruling.answers),
        "unknown": sum(a.answer == "unknown" for a in ruling.answers),
    }


def run_rule_bench(paths: list[str], timeout: float, output: str | None, jobs: int = 2) -> int:
    """Every scenario of ``paths`` ruled and timed, ``jobs`` at once (each timed inside its own process)."""
    print(f"ruling {len(paths)} scenarios, {jobs} at a time ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        rows = list(pool.map(_time_ruling, paths, [int(timeout * 1000)] * len(paths)))
    wall = time.perf_counter() - started
    seconds = sorted(r["seconds"] for r in rows)
    solver = sum(r["solver_seconds"] for r in rows)
    summary = {
        "scenarios": len(rows),
        "median_seconds": round(statistics.median(seconds), 3),
        "slowest_seconds": seconds[-1],
        "solver_share": round(solver / max(sum(seconds), 1e-9), 3),
        "wall_seconds": round(wall, 3),
    }
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:10]
    print(
        tabulate(
            [[r["scenario"], r["seconds"], r["solver_seconds"], r["solver_checks"], r["questions"]] for r in slowest],
            headers=["slowest scenarios", "seconds", "in z3", "z3 checks", "questions"],
        )
    )
    print(
        f"\n{summary['scenarios']} scenarios: median {summary['median_seconds']} s, slowest "
        f"{summary['slowest_seconds']} s; {summary['solver_share']:.0%} of the time in z3's checks; "
        f"{summary['wall_seconds']} s with {jobs} processes"
    )
    _write(output, "bench-rule", {"z3": smt.z3_version(), "jobs": jobs, **summary, "rulings": rows})
    return 0


# --- regenerating the committed reports --------------------------------------------------------------


def run_reports_bench(root: Path, jobs: int, output: str | None) -> int:
    """Every committed report regenerated as ``rule603 reports --regenerate --all`` does, into a scratch copy of
    the checkout's inputs with an empty cache (nothing under ``root`` is written), each command timed."""
    import shutil
    import tempfile

    from .committed import REPORTS, SCENARIOS, committed_reports
    from .regenerate import missing_extra, run_locally

    with tempfile.TemporaryDirectory(prefix="rule603-bench-reports-") as folder:
        scratch = Path(folder) / "checkout"
        shutil.copytree(root / SCENARIOS, scratch / SCENARIOS)
        (scratch / REPORTS / "rulings").mkdir(parents=True)
        every = committed_reports(scratch)
        skipped = [r.name for r in every if missing_extra(r)]
        reports = [r for r in every if r.name not in skipped]
        env = {**os.environ, "RULE603_CACHE_DIR": str(Path(folder) / "cache")}
        print(f"regenerating {len(reports)} reports, {jobs} at a time, into a scratch copy ...", file=sys.stderr)
        started = time.perf_counter()
        rows = []
        for outcome in run_locally(reports, scratch, jobs, env):
            rows.append({"report": outcome.report.name, "seconds": round(outcome.seconds, 1), "ok": outcome.ok})
            print(f"{outcome.report.name}: {outcome.seconds:.0f} s", file=sys.stderr, flush=True)
        wall = time.perf_counter() - started
    rows.sort(key=lambda r: -r["seconds"])
    failed = [r["report"] for r in rows if not r["ok"]]
    print(tabulate([[r["report"], r["seconds"]] for r in rows[:10]], headers=["slowest reports", "seconds"]))
    print(
        f"\n{len(rows)} reports in {wall:.0f} s with {jobs} at a time ({sum(r['seconds'] for r in rows):.0f} s "
        "of commands)" + (f"; not regenerated (optional extra missing): {', '.join(skipped)}" if skipped else "")
    )
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
    figures = {"z3": smt.z3_version(), "jobs": jobs, "wall_seconds": round(wall, 1), "skipped": skipped}
    _write(output, "bench-reports", {**figures, "reports": rows})
    return 1 if failed else 0
