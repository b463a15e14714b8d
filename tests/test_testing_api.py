"""rule603.testing as an engine author uses it: an adapter, the strategies, assert_conforms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from rule603 import trace_to_json
from rule603.engines.mutants import MUTANTS
from rule603.engines.scenario import Action, Card, Scenario
from rule603.testing import EngineAdapter, ReferenceEngine, assert_conforms, check, scenarios


class JsonEngine:
    """An adapter that returns the JSON object of the trace format, as another engine would."""

    def run(self, scenario: Scenario) -> dict:
        return trace_to_json(ReferenceEngine().run(scenario))


def test_adapters_follow_the_protocol():
    assert isinstance(ReferenceEngine(), EngineAdapter)
    assert isinstance(JsonEngine(), EngineAdapter)


@settings(max_examples=8, deadline=None, derandomize=True)  # the reference engine's own tests fuzz thousands more
@given(scenarios())
def test_an_engine_that_follows_rule_603_conforms(scenario):
    assert_conforms(JsonEngine().run(scenario))


def test_a_buggy_engine_fails_with_the_clause_named():
    (apnap_reversed,) = [m for m in MUTANTS if m.id == "apnap-reversed"]
    both_enter = Scenario(
        cards=(
            Card(zone="hand", trigger="enters_self", flags=("creature_card",), owner=0),
            Card(zone="hand", trigger="enters_self", flags=("creature_card",), owner=1),
        ),
        actions=(Action(put_onto_battlefield=(0, 1)),),
    )
    with pytest.raises(AssertionError, match=r"breaks 603\.3b at moment 1: abilities go on the stack in APNAP"):
        assert_conforms(apnap_reversed.run(both_enter))
    assert not check(apnap_reversed.run(both_enter)).conforms
