"""Disagreements between the reference engine and the encodings that were the engine's fault, now fixed.

Each test is the scenario that showed the problem and what the engine must now do.
"""

from __future__ import annotations

from rule603.engines.reference import run
from rule603.engines.scenario import Action, Card, DelayedAbility, Scenario
from rule603.models import game
from test_reference_engine import conformance_violations


def test_what_triggers_in_the_untap_step_waits_for_the_upkeep():
    """The engine refused to begin the upkeep while an ability that triggered in the untap step waited
    ("a step ends only when nothing waits").  502.4: nothing goes on the stack in the untap step; what
    triggered there waits for the next time a player would receive priority, in the upkeep."""
    scenario = Scenario(
        players=1,
        cards=(Card(zone="battlefield", trigger="no_cards_in_hand"), Card(zone="hand")),
        actions=(Action(phase_out=(0,)), Action(discard=(1,)), Action(next_turn=True), Action(step="upkeep")),
    )
    trace = run(scenario)
    untap, upkeep = trace.states[3], trace.states[4]
    assert untap["step"] == game.UNTAP and untap["priority"] is False
    assert untap["phased_out"][0] is False and untap["triggers"][0] == 1 and untap["pending"][0] == 1
    assert upkeep["placed"][0] == 1 and upkeep["slot_moment"][0] == 3  # it triggered in the untap step
    assert conformance_violations(trace) == []


def test_a_state_trigger_of_a_new_object_is_not_kept_busy_by_the_old_objects_instance():
    """The engine kept a state trigger from triggering while an instance of the same card's ability was on
    the stack, even after the card had left the battlefield and come back.  400.7 makes it a new object;
    603.8 bars retriggering only while the object is "still in the same zone"."""
    scenario = Scenario(
        cards=(Card(zone="battlefield", trigger="no_cards_in_hand"), Card(zone="hand")),
        actions=(Action(discard=(1,)), Action(flicker=(0,))),
    )
    trace = run(scenario)
    assert [s["base_triggers"][0] for s in trace.states] == [0, 1, 1]
    assert trace.states[2]["stack_size"] == 2 and trace.states[2]["slot_moment"][:2] == [1, 2]
    assert conformance_violations(trace) == []


def test_a_delayed_ability_is_matched_from_its_creation_until_it_is_gone():
    """The engine judged a delayed ability's existence after the batch only, so its "this turn" ending with
    the turn hid the untap step's events from it.  The model's convention: a delayed ability that existed
    before the batch or was created in it is matched by the batch's events; 603.7a and 603.7b say whether
    it may trigger."""
    scenario = Scenario(
        cards=(Card(zone="hand"), Card(zone="hand", owner=1)),
        delayed=(DelayedAbility(trigger="no_cards_in_hand", cause="spell", source=1, refers_to=1, duration=True),),
        actions=(Action(cast=1), Action(resolve=True, create_delayed=(0,)), Action(next_turn=True)),
    )
    trace = run(scenario)
    d = 2
    assert [s["matches"][d] for s in trace.states] == [0, 0, 1, 1]  # player 1's hand is empty from moment 2
    assert [s["base_triggers"][d] for s in trace.states] == [0, 0, 0, 0]  # 603.7a, then 603.7b
    assert conformance_violations(trace) == []
