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
    report = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": multiprocessing.cpu_count(),
        },
        "z3": smt.z3_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "runs": runs,
    }
    path = Path(output) if output else Path("rule603-out") / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}")
    return 0
