"""Fuzz your own engine against rule 603 from your own pytest suite.

An *engine adapter* is anything with a ``run(scenario)`` method that plays a
:class:`~rule603.engines.scenario.Scenario` and returns the game as a rule603 trace:
a :class:`rule603.Trace`, or the JSON object of the published trace format
(``docs/trace-format.md``).  Hypothesis generates the scenarios; every trace is checked
against every clause of rule 603 and the game-model rules::

    from hypothesis import given, settings
    from rule603.testing import assert_conforms, scenarios

    class MyEngine:
        def run(self, scenario):
            game = my_engine.Game.from_rule603(scenario)   # your translation
            ...
            return game.rule603_trace()                  # a dict in the trace format

    @settings(max_examples=500, deadline=None)
    @given(scenarios())
    def test_my_engine_handles_triggers_as_rule_603_says(scenario):
        assert_conforms(MyEngine().run(scenario))

A failing example names the first broken clause, its text's summary, the moment and
the values involved, and Hypothesis shrinks the scenario for you.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from ._internal.conformance import TraceChecker, TraceResult
from ._internal.trace import Trace

__all__ = [
    "EngineAdapter",
    "ReferenceEngine",
    "assert_conforms",
    "check",
    "scenarios",
]

# The engines and strategies depend on rule603, not the other way round: they are loaded
# by name, like the models and the catalogue.
_ENGINES = "rule603.engines"


@runtime_checkable
class EngineAdapter(Protocol):
    """What rule603 needs from an engine: play a scenario, return its trace."""

    def run(self, scenario: Any) -> Trace | Mapping[str, Any]: ...


class ReferenceEngine:
    """The reference engine as an adapter (to compare outcomes with, or to start from)."""

    def run(self, scenario: Any) -> Trace:
        return importlib.import_module(f"{_ENGINES}.reference").run(scenario)


def scenarios(**options: Any) -> Any:
    """The Hypothesis strategy of scenarios (see ``rule603.engines.strategies.scenarios``)."""
    return importlib.import_module(f"{_ENGINES}.strategies").scenarios(**options)


@lru_cache(maxsize=4)
def _checker(edition: str | None) -> TraceChecker:
    # One per edition for the whole test session: the compiled checks are built once.
    return TraceChecker(edition, all_violations=True)


def check(trace: Trace | Mapping[str, Any], *, edition: str | None = None) -> TraceResult:
    """Every violation in ``trace`` (a :class:`Trace` or a JSON trace object)."""
    return _checker(edition).check(trace)


def assert_conforms(trace: Trace | Mapping[str, Any], *, edition: str | None = None) -> None:
    """Raise ``AssertionError`` naming the first broken clause, its moment and the values it read."""
    result = check(trace, edition=edition)
    if result.conforms:
        return
    first = result.violations[0]
    values = ", ".join(f"{k}={v}" for k, v in first.values.items())
    others = sorted({v.clause for v in result.violations[1:]} - {first.clause})
    raise AssertionError(
        f"the trace breaks {first.clause} at moment {first.moment}: {first.summary} ({first.about}); "
        f"values read: {values}" + (f"; also broken: {', '.join(others)}" if others else "")
    )
