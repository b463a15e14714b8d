"""Several instances of one ability (113.2c), 'deals damage' and 'becomes blocked', triggered mana
abilities (605.1b, 605.4a) and Sagas' chapter abilities (714.2b, 714.3): the reference engine plays
them, its traces obey every clause and game rule, and a trace that gets them wrong is caught by the
rule it breaks."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
from limits import TEST_TIMEOUT_MS
from rule603 import InvalidArgument
from rule603._internal import smt
from rule603._internal.bmc import violations
from rule603._internal.catalogue import load_edition
from rule603._internal.ruling import rule
from rule603.engines.reference import run
from rule603.engines.scenario import Action, Card, Scenario, check_scenario
from rule603.engines.scenario_file import FIXED_BY_SCRIPT, asks, load, play

ED = load_edition("current")
EVERYTHING = [e.number for e in ED.encodings]
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

CAVALRY_MASTERS = Scenario(
    cards=(
        Card(trigger="becomes_blocked", flags=("creature_card",), zone="battlefield", instances=2),
        Card(trigger="becomes_blocked", flags=("creature_card",), zone="battlefield", instances=2),
    ),
    actions=(Action(step="declare_attackers"), Action(step="declare_blockers", block=(0,))),
)
GENJU = Scenario(
    cards=(Card(trigger="deals_damage", flags=("land_card",), zone="battlefield"),),
    actions=(Action(instances=((0, 3),)), Action(deals_damage=(0,))),
)
WILD_GROWTH = Scenario(
    cards=(
        Card(flags=("land_card",), zone="battlefield"),
        Card(trigger="enchanted_tapped_for_mana", flags=("mana_ability",), zone="battlefield", attached_to=0),
    ),
    actions=(Action(tap_for_mana=(0,)),),
)
SAGA = Scenario(
    cards=(Card(trigger="chapter", zone="battlefield", final_chapter=3, lore=1),),
    actions=(Action(next_turn=True), Action(step="upkeep"), Action(step="draw"), Action(step="precombat_main")),
    players=1,
)

LINKED_REVEAL = Scenario(
    cards=(
        Card(trigger="reveals_land_this_way", zone="battlefield"),
        Card(flags=("land_card",), zone="library"),
        Card(flags=("land_card",), zone="library"),
    ),
    actions=(Action(draw=(1,), reveal_first_draw=(1,)), Action(resolve=True), Action(draw=(2,), reveal=(2,))),
)


def _with(trace, t: int, name: str, index: int, value):
    """The trace with one per-moment value changed, as a buggy engine would write it."""
    states = copy.deepcopy([dict(s) for s in trace.states])
    states[t][name][index] = value
    return dataclasses.replace(trace, states=tuple(states))


def _broken(trace) -> set[tuple[int, str]]:
    return {(v.moment, v.clause) for v in violations(ED, trace, EVERYTHING)}


@pytest.mark.parametrize(
    ("scenario", "moment", "ability", "times"),
    [(CAVALRY_MASTERS, 2, 0, 2), (GENJU, 2, 0, 3), (WILD_GROWTH, 1, 1, 1), (SAGA, 4, 0, 1), (LINKED_REVEAL, 1, 0, 1)],
    ids=["cavalry-masters", "genju", "wild-growth", "saga", "linked-reveal"],
)
def test_the_reference_engine_plays_them_as_the_rules_say(scenario, moment, ability, times):
    trace = run(scenario)
    assert _broken(trace) == set()
    assert trace.states[moment]["triggers"][ability] == times
    assert sum(trace.states[t]["triggers"][ability] for t in range(trace.length)) == times


def test_each_instance_triggers_separately():
    trace = run(CAVALRY_MASTERS)
    assert trace.states[2]["triggers"][1] == 0  # the other Master wasn't blocked
    assert (2, "603.2f") in _broken(_with(trace, 2, "matches", 0, 1))  # one instance seen, not both


def test_deals_damage_counts_every_instance():
    trace = run(GENJU)
    assert (2, "113.3") in _broken(_with(trace, 2, "matches", 0, 1))


def test_a_triggered_mana_ability_never_waits_for_the_stack():
    trace = run(WILD_GROWTH)
    assert trace.states[1]["stack_size"] == 0 and trace.states[1]["pending"][1] == 0
    assert (1, "605.4a") in _broken(_with(trace, 1, "pending", 1, 1))


def test_a_saga_gets_its_lore_counter_as_the_main_phase_begins():
    trace = run(SAGA)
    assert [trace.states[t]["lore"][0] for t in range(trace.length)] == [1, 1, 1, 1, 2]
    assert (4, "714.3") in _broken(_with(trace, 4, "lore", 0, 1))


def test_an_answer_no_clause_forces_names_the_game_rule_that_does():
    loaded = load(SCENARIOS / "605.4a-wild-growth.toml")
    played = play(loaded)
    wanted = [a for a in asks(loaded, played) if a.id == "no-stack"]
    limits = smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS)
    (answer,) = rule(ED, played, wanted, limits, also_fixed=FIXED_BY_SCRIPT).answers
    assert (answer.answer, answer.clauses) == ("never", [])
    assert "605.4a" in answer.note


def test_only_what_the_linked_static_ability_revealed_triggers_it():
    trace = run(LINKED_REVEAL)
    assert trace.states[3]["triggers"][0] == 0  # revealed by something else: not "this way"
    assert (3, "113.3") in _broken(_with(trace, 3, "matches", 0, 1))
    # Revealed "as it is drawn" while it stays in the library: no such reveal happened.
    assert (2, "607.2") in _broken(_with(trace, 2, "revealed_first_draw", 2, True))


def test_a_creature_becomes_blocked_once_a_combat():
    again = Action(step="declare_blockers", extra_step=True, block=(0,))  # an added step, in the same combat
    resolved = (Action(resolve=True), Action(resolve=True))  # flanking, twice
    twice = dataclasses.replace(CAVALRY_MASTERS, actions=CAVALRY_MASTERS.actions + resolved + (again,))
    with pytest.raises(InvalidArgument, match="already became blocked this combat"):
        run(twice)
    trace = run(dataclasses.replace(CAVALRY_MASTERS, actions=CAVALRY_MASTERS.actions + (Action(),)))
    assert (3, "509.1h") in _broken(_with(trace, 3, "blocked", 0, True))


def test_a_saga_without_its_chapter_abilities_gets_no_lore_counter():
    lost = dataclasses.replace(
        SAGA, cards=(Card(trigger="chapter", flags=("granted",), zone="battlefield", final_chapter=3, lore=1),)
    )
    trace = run(lost)  # 'granted' with no effect granting it: the Saga has no chapter ability
    assert _broken(trace) == set()
    assert trace.states[4]["lore"][0] == 1
    assert (4, "714.3") not in _broken(_with(trace, 4, "lore", 0, 2))  # an effect may still add one
    assert (4, "714.3") in _broken(_with(run(SAGA), 4, "lore", 0, 1))


@pytest.mark.parametrize(
    ("card", "message"),
    [
        (Card(trigger="creature_dies", flags=("once_each_turn",), zone="battlefield", instances=2), "instances"),
        (
            Card(trigger="enchanted_tapped_for_mana", flags=("mana_ability", "once_each_turn"), zone="battlefield"),
            "mana ability",
        ),
    ],
    ids=["once-each-turn-instances", "mana-ability-once-each-turn"],
)
def test_what_the_model_cannot_remember_is_refused(card, message):
    with pytest.raises(InvalidArgument, match=message):
        check_scenario(Scenario(cards=(card,)))
