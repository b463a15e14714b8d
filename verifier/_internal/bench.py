"""The benchmark: the catalogue at several bounds, each in a fresh process.

A fresh process per bound makes the peak-memory figure that bound's own (the peak
resident size only ever grows within a process).  Figures go to a table and a JSON
file so that changes can be compared; no test asserts on them.
"""

from __future__ import annotations

import json
import multiprocessing
import platform
import resource
import sys
import time
from pathlib import Path

from tabulate import tabulate

from . import smt


def _one_bound(bound: int, ids: list[str], timeout: float) -> dict:
    from .catalogue import builtin_properties, load_edition, select
    from .verify import Options, Verifier

    edition = load_edition("current")
    props = select(builtin_properties(), ids)
    options = Options(bound=bound, limits=smt.SolverLimits(timeout_ms=int(timeout * 1000)))
    started = time.perf_counter()
    verifier = Verifier(edition, edition.model.universe(), options)
    verifier.encoding.extend(bound)
    encode_seconds = time.perf_counter() - started
    per_property = {}
    verdicts = {}
    for prop in props:
        result = verifier.check(prop)
        per_property[prop.id] = round(result.seconds, 4)
        verdicts[prop.id] = result.verdict
    total = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {
        "bound": bound,
        "total_seconds": round(total, 3),
        "encode_seconds": round(encode_seconds, 3),
        "peak_memory_mib": round(peak_kib / 1024, 1),
        "seconds_per_property": per_property,
        "verdicts": verdicts,
    }


def run_bench(bounds: list[int], ids: list[str], timeout: float, output: str | None) -> int:
    ctx = multiprocessing.get_context("spawn")
    runs = []
    for bound in bounds:
        print(f"bound {bound} ...", file=sys.stderr, flush=True)
        with ctx.Pool(1) as pool:
            runs.append(pool.apply(_one_bound, (bound, ids, timeout)))
    rows = []
    for i, run in enumerate(runs):
        ratio = f"×{run['total_seconds'] / runs[i - 1]['total_seconds']:.2f}" if i else ""
        unknown = sum(v == "unknown" for v in run["verdicts"].values())
        rows.append(
            [
                run["bound"],
                run["total_seconds"],
                run["encode_seconds"],
                ratio,
                run["peak_memory_mib"],
                len(run["verdicts"]),
                unknown,
            ]
        )
    print(tabulate(rows, headers=["bound", "total s", "encode s", "vs previous", "peak MiB", "properties", "unknown"]))
    _write(output, "bench", {"z3": smt.z3_version(), "runs": runs})
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
    path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}")


# --- rule603 check throughput ----------------------------------------------------------------

CHECK_MOMENTS = 20  # the yardstick: traces of 20 moments


def _engine_traces(unique: int, moments: int) -> list[str]:
    """``unique`` JSON traces of exactly ``moments`` moments, played by the reference engine.

    Scenarios come from the Hypothesis strategy (derandomized, so the set is the same on
    every run); scripts shorter than needed are padded with batches in which nothing
    happens (or the next step begins, where a step must).
    """
    import importlib
    from dataclasses import replace

    from .schema import Schema
    from .trace import to_json

    reference = importlib.import_module("rule603.engines.reference")
    scenario_module = importlib.import_module("rule603.engines.scenario")
    strategies = importlib.import_module("rule603.engines.strategies")
    Action = scenario_module.Action  # noqa: N806 - a class
    schema = Schema(tuple(importlib.import_module("rule603.models.game").VARIABLES))
    out: list[str] = []

    def collect(scenario) -> bool:
        game = reference.ReferenceGame(replace(scenario, actions=()))
        for action in scenario.actions:
            game.apply(action)
        while len(game.moments) < moments and not game.game_over:
            for filler in (Action(), Action(step="upkeep"), Action(step="precombat_main")):
                try:
                    game.apply(filler)
                    break
                except Exception:  # noqa: BLE001 - the engine refuses it: try the next filler
                    continue
            else:
                return False
        if len(game.moments) == moments:
            out.append(json.dumps(to_json(game.trace(), schema)))
        return len(out) >= unique

    strategies.each_scenario(unique * 4, collect, max_actions=moments - 1)
    return out


def run_check_bench(traces: int, output: str | None) -> int:
    from .conformance import _Input, check_all

    unique = min(traces, 200)
    print(f"generating {unique} distinct {CHECK_MOMENTS}-moment traces with the reference engine ...", file=sys.stderr)
    started = time.perf_counter()
    texts = _engine_traces(unique, CHECK_MOMENTS)
    generate_seconds = time.perf_counter() - started
    if not texts:
        print("rule603: error: the engine produced no trace of the required length", file=sys.stderr)
        return 2
    items = [_Input(f"trace-{i}", texts[i % len(texts)]) for i in range(traces)]
    runs = []
    for jobs in (1, 2):
        print(f"checking {len(items)} traces with {jobs} process(es) ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        batch = check_all(items, jobs=jobs)
        seconds = time.perf_counter() - started
        runs.append(
            {
                "jobs": jobs,
                "traces": len(items),
                "moments_per_trace": CHECK_MOMENTS,
                "seconds": round(seconds, 3),
                "traces_per_second": round(len(items) / seconds, 1),
                "conforming": batch.conforming,
            }
        )
    print(
        tabulate(
            [[r["jobs"], r["traces"], r["seconds"], r["traces_per_second"], r["conforming"]] for r in runs],
            headers=["processes", "traces", "seconds", "traces/s", "conforming"],
        )
    )
    figures = {"distinct_traces": len(texts), "generate_seconds": round(generate_seconds, 3), "check_runs": runs}
    _write(output, "bench-check", figures)
    return 0
