"""Disagreements where the reference engine was right and an encoding or axiom was changed.

One case per disagreement the differential fuzz test (or reading the rule next to the engine)
found: the smallest scenario that shows it, what the engine does and the rule it follows, and
the check that the trace now conforms.  The traces as first found, with the violations the
encodings reported then, were handed over as JSON (letters A-F).
"""

from __future__ import annotations

import pytest
from rule603.engines.reference import run
from rule603.engines.scenario import Action, Card, DelayedAbility, Scenario
from test_reference_engine import conformance_violations

CASES = {
    # 603.7b/603.7c: "at the beginning of the next end step" (no duration) fires once.  603.2b judged
    # its existence by registered(t), which 603.7b makes false as it fires (first reported as below).
    "A": (
        Scenario(
            cards=(Card(zone="battlefield", flags=("creature_card",)),),
            delayed=(DelayedAbility(trigger="end_step", cause="replacement", source=0, refers_to=0),),
            actions=(Action(create_delayed=(0,)), Action(step="end")),
        ),
        [(2, "603.2b")],
        lambda trace: trace.states[2]["triggers"][1] == 1 and trace.states[2]["registered"] == [False],
    ),
    # 502.4: what triggers in the untap step waits for the upkeep; axiom 500.1 forbade a step to begin
    # while something waits.
    "B": (
        Scenario(
            players=1,
            cards=(Card(zone="battlefield", trigger="no_cards_in_hand"), Card(zone="hand")),
            actions=(Action(phase_out=(0,)), Action(discard=(1,)), Action(next_turn=True), Action(step="upkeep")),
        ),
        [(4, "500.1")],
        lambda trace: trace.states[3]["pending"][0] == 1 and trace.states[4]["placed"][0] == 1,
    ),
    # Moving an Equipment to another creature makes it "become unattached" from the first (Gatherer,
    # Grafted Exoskeleton); axiom 113.3 counted only ending up attached to nothing.
    "C": (
        Scenario(
            cards=(
                Card(trigger="unattached", zone="battlefield", attached_to=1),
                Card(flags=("creature_card",), zone="battlefield"),
                Card(flags=("creature_card",), zone="battlefield"),
            ),
            actions=(Action(attach=((0, 2),)),),
        ),
        [(1, "113.3")],
        lambda trace: trace.states[1]["triggers"][0] == 1,
    ),
    # 702.26b: a phased-out permanent's "triggers an additional time" doesn't apply; 603.2d counted it.
    "D": (
        Scenario(
            cards=(
                Card(flags=("doubler",), zone="battlefield"),
                Card(trigger="creature_enters", zone="battlefield"),
                Card(flags=("creature_card",), zone="hand"),
            ),
            actions=(Action(phase_out=(0,)), Action(put_onto_battlefield=(2,))),
        ),
        [(2, "603.2d")],
        lambda trace: trace.states[2]["triggers"][1] == 1,
    ),
    # 603.6c: leaves-the-battlefield abilities trigger when a *phased-in* permanent leaves the game with its
    # owner; the 603.6c encoding also counted a phased-out one.
    "E": (
        Scenario(
            players=3,
            cards=(Card(zone="battlefield", owner=2, controller=0), Card(zone="battlefield")),
            delayed=(DelayedAbility(trigger="leaves_self", cause="action", source=0, refers_to=0, duration=True),),
            actions=(Action(create_delayed=(0,)), Action(phase_out=(0,)), Action(lose=(2,))),
        ),
        [(3, "603.6c")],
        lambda trace: trace.states[3]["matches"][2] == 0,
    ),
    # 603.8 + 400.7: a state trigger's permanent that left and came back is a new object, free to trigger
    # while the old object's instance is on the stack; the 603.8 encoding kept it busy.
    "F": (
        Scenario(
            cards=(Card(zone="battlefield", trigger="no_cards_in_hand"), Card(zone="hand")),
            actions=(Action(discard=(1,)), Action(flicker=(0,))),
        ),
        [(2, "603.8")],
        lambda trace: trace.states[2]["base_triggers"][0] == 1,
    ),
}


@pytest.mark.parametrize("letter", sorted(CASES))
def test_engine_and_encodings_agree_where_they_once_did_not(letter):
    scenario, reported_before, engine_does = CASES[letter]
    trace = run(scenario)
    assert engine_does(trace), "the engine no longer does what the rule says here"
    found = [(v.moment, v.clause) for v in conformance_violations(trace)]
    assert found == [], f"disagreement {letter} is back (first reported as {reported_before}): {found}"
