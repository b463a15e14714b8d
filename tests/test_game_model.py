"""The game model where rule 603 is subtle (issue 21), judged both ways on concrete traces.

Each behaviour has a scenario file in scenarios/ whose answers come from the rule text and official rulings
(rule603 rule checks them, tests/test_rule.py runs them).  Here the reference engine plays the right game,
which must conform to every clause and game rule, and a wrong game -- the same trace with the values a buggy
engine would write -- must be rejected at the right moment, naming the clause or game rule it breaks.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest
from rule603 import InvalidArgument, TraceFormatError
from rule603._internal.bmc import violations
from rule603._internal.schema import Schema
from rule603._internal.trace import from_json
from rule603.engines.mutants import MUTANTS
from rule603.engines.reference import run
from rule603.engines.scenario import Action, Card, DelayedAbility, Scenario
from rule603.engines.scenario_file import load, play
from rule603.models import game
from rule603.models.current import edition
from rule603.models.migrations import migrate

ED = edition()
EVERYTHING = [e.number for e in ED.encodings]
SCENARIOS = Path(__file__).parent.parent / "scenarios"
CREATURE = ("creature_card",)
SORCERY = Card(zone="hand", flags=("sorcery_card",), permanent=False)  # a spell that resolves to the graveyard


def broken(trace) -> set[tuple[int, str]]:
    return {(v.moment, v.clause) for v in violations(ED, trace, EVERYTHING)}


def changed(trace, t: int, name: str, value, *index: int):
    """The trace with one per-moment value changed, as a buggy engine would write it."""
    states = copy.deepcopy([dict(s) for s in trace.states])
    if index:
        target = states[t][name]
        for i in index[:-1]:
            target = target[i]
        target[index[-1]] = value
    else:
        states[t][name] = value
    return dataclasses.replace(trace, states=tuple(states))


def played(name: str):
    return play(load(str(SCENARIOS / name)))


# --- the stack's outcomes: removed is not resolved ----------------------------------------------------


def test_a_false_intervening_if_removes_the_ability_and_a_trace_that_resolves_it_is_rejected():
    trace = played("603.4-lifeline-removed.toml")
    assert broken(trace) == set()
    t = next(t for t in range(trace.length) if trace.states[t]["removed_now"])
    assert (t, "603.4") in broken(changed(trace, t, "removed_now", False))


def test_a_removed_ability_creates_no_delayed_ability():
    trace = played("603.4-lifeline-removed.toml")
    t = next(t for t in range(trace.length) if trace.states[t]["removed_now"])
    # The engine lets the removed ability create "return the Bears at the beginning of the next end step".
    wrong = trace
    for u in range(t, trace.length):
        wrong = changed(wrong, u, "registered", True, 0)
    assert (t, "603.7a") in broken(wrong)


def test_a_removed_ability_is_not_one_of_its_resolutions():
    trace = played("608.2b-harvestrite-host.toml")
    assert broken(trace) == set()
    assert trace.states[2]["removed_now"] and trace.states[2]["resolutions"][0] == 0
    wrong = changed(trace, 2, "resolutions", 1, 0)  # the engine counts the fizzled instance
    assert (2, "model.pending") in broken(wrong)


def test_all_targets_illegal_removes_a_targeted_ability():
    trace = played("608.2b-harvestrite-host.toml")
    assert (2, "608.2b") in broken(changed(trace, 2, "removed_now", False))


def test_the_scenario_cannot_create_a_delayed_ability_from_a_removed_one():
    loaded = load(str(SCENARIOS / "603.4-lifeline-removed.toml"))
    actions = list(loaded.scenario.actions)
    actions[2] = dataclasses.replace(actions[2], create_delayed=(0,))
    with pytest.raises(InvalidArgument, match="isn't resolving"):
        run(dataclasses.replace(loaded.scenario, actions=tuple(actions)))


# --- "Do this only once each turn" ---------------------------------------------------------------------


def test_only_the_first_of_two_instances_takes_the_once_each_turn_action():
    trace = played("603.2i-simultaneous-instances.toml")
    assert broken(trace) == set()
    assert trace.states[3]["leave"] == game.RESOLVE and not trace.states[3]["acts"]
    assert (3, "603.2i") in broken(changed(trace, 3, "acts", True))


def test_the_action_counts_from_the_moment_it_is_taken():
    trace = played("603.2i-enters-during-resolution.toml")
    assert broken(trace) == set()
    # The engine lets the Elves, put onto the battlefield by the action itself, trigger it again.
    wrong = changed(changed(trace, 2, "matches", 1, 0), 2, "attempts", 1, 0)
    wrong = changed(changed(wrong, 2, "base_triggers", 1, 0), 2, "triggers", 1, 0)
    assert (2, "603.2i") in broken(wrong)


# --- state-based actions and 603.3b's loop --------------------------------------------------------------

LETHAL = Scenario(
    cards=(
        Card(zone="battlefield", trigger="dealt_damage", flags=CREATURE),
        Card(zone="battlefield", trigger="creature_dies", flags=CREATURE),
    ),
    actions=(Action(damage=(0,), lethal=(0,)),),
)


def test_lethal_damage_written_as_one_action_still_kills_and_triggers_dies_abilities():
    trace = run(LETHAL)
    assert trace.length == 3  # the damage, then the state-based action the engine performs itself
    assert not trace.states[1]["priority"] and trace.states[2]["priority"]
    assert trace.states[2]["zone"][0] == game.GRAVEYARD and trace.states[2]["triggers"] == [0, 1]
    assert broken(trace) == set()


def test_priority_before_state_based_actions_is_rejected():
    trace = run(LETHAL)
    assert (1, "704.3") in broken(changed(trace, 1, "priority", True))


def test_a_creature_with_lethal_damage_that_stays_is_rejected():
    trace = run(LETHAL)
    wrong = changed(changed(trace, 2, "zone", game.BATTLEFIELD, 0), 2, "since", 0, 0)
    assert (2, "704.5g") in broken(wrong)


def test_an_aura_attached_to_nothing_goes_to_the_graveyard():
    trace = played("704.5m-gift-of-immortality.toml")
    assert broken(trace) == set()
    wrong = changed(changed(trace, 2, "zone", game.BATTLEFIELD, 1), 2, "since", 0, 1)
    assert (2, "704.5m") in broken(wrong)


def test_a_player_at_no_life_loses_before_anyone_gets_priority():
    scenario = Scenario(cards=(Card(zone="battlefield", trigger="player_loses"),), actions=(Action(no_life=(1,)),))
    trace = run(scenario)
    assert trace.states[2]["leaves_game"] == [False, True] and trace.states[2]["left_game"] == [False, True]
    assert broken(trace) == set()
    assert (2, "704.5a") in broken(changed(trace, 2, "leaves_game", False, 1))


# --- a resolution's events in order (608.2c, 704.4) --------------------------------------------------


def test_a_resolution_in_order_keeps_maro_and_the_empty_hand_ability_waits_for_the_end_of_it():
    trace = played("704.4-maro-discard-then-draw.toml")
    assert broken(trace) == set()
    assert trace.states[2]["unfinished"] and not trace.states[2]["priority"]
    assert trace.states[3]["zone"][0] == game.BATTLEFIELD  # no state-based action between the instructions
    assert trace.states[2]["triggers"][1] == 1 and trace.states[3]["slot_src"][0] == 1 + 1
    # An engine that asks whether abilities triggered only once the resolution is over misses the empty hand.
    wrong = changed(changed(trace, 2, "triggers", 0, 1), 2, "base_triggers", 0, 1)
    wrong = changed(changed(wrong, 2, "pending", 0, 1), 2, "matches", 0, 1)
    assert {clause for t, clause in broken(wrong) if t == 2} & {"603.2", "603.8"}


def test_state_based_actions_in_the_middle_of_a_resolution_are_rejected_by_the_engine_and_the_model():
    maro = load(str(SCENARIOS / "704.4-maro-discard-then-draw.toml"))
    # The model: with the resolution unfinished, nothing forces Maro into the graveyard ...
    trace = play(maro)
    assert broken(changed(trace, 2, "unfinished", False)) >= {(3, "704.5g")}  # ... but without it, 704.5g does
    # ... and priority in the middle of a resolution is rejected.
    assert (2, "608.2c") in broken(changed(trace, 2, "priority", True))


def test_only_a_resolution_goes_on_and_nothing_is_cast_in_the_middle_of_one():
    card = Card(zone="battlefield", trigger="creature_dies", flags=CREATURE)
    with pytest.raises(InvalidArgument, match="unfinished: only a resolution"):
        run(Scenario(cards=(card,), actions=(Action(unfinished=True),)))
    spell = SORCERY
    with pytest.raises(InvalidArgument, match="cast: the previous action's resolution is unfinished"):
        script = (Action(cast=0), Action(resolve=True, unfinished=True), Action(cast=1))
        run(Scenario(cards=(spell, spell), actions=script))


def test_an_ability_that_triggers_on_two_events_of_one_resolution_puts_both_on_the_stack():
    # "Destroy target creature, then destroy target creature, then draw a card" (in order): "whenever a creature
    # dies" triggers on each death, and both instances wait for the end of the resolution (603.3), then go on
    # the stack together, each labelled with the batch it triggered in.
    watcher = Card(zone="battlefield", trigger="creature_dies")
    bear = Card(zone="battlefield", flags=CREATURE)
    spell = SORCERY
    script = (
        Action(cast=3),
        Action(resolve=True, destroy=(1,), unfinished=True),
        Action(destroy=(2,), unfinished=True),
        Action(draw=(4,)),
    )
    trace = run(Scenario(cards=(watcher, bear, bear, spell, Card()), actions=script))
    assert [s["triggers"][0] for s in trace.states] == [0, 0, 1, 1, 0]
    assert trace.states[3]["pending"][0] == 2 and trace.states[3]["waiting_since"][0] == 2
    assert trace.states[4]["placed"][0] == 2 and sorted(trace.states[4]["slot_moment"][:2]) == [2, 3]
    assert broken(trace) == set()
    # An engine that loses the first instance (it keeps only the last event's triggers) is rejected.
    assert (3, "model.pending") in broken(changed(trace, 3, "pending", 1, 0))


# --- the turn ------------------------------------------------------------------------------------------


def test_the_whole_turn_is_played_and_steps_only_move_forward():
    trace = run(Scenario(cards=(Card(zone="battlefield"),), actions=tuple(Action(step=s) for s in game.STEPS[4:])))
    assert [s["step"] for s in trace.states] == list(range(game.MAIN, game.CLEANUP + 1))
    assert broken(trace) == set()
    assert (2, "500.1") in broken(changed(trace, 2, "step", game.MAIN))


def test_a_step_at_whose_beginning_something_triggers_cannot_be_left_out():
    scenario = Scenario(cards=(Card(zone="battlefield", trigger="end_step"),), actions=(Action(next_turn=True),))
    with pytest.raises(InvalidArgument, match="step end is passed over"):
        run(scenario)
    trace = run(
        dataclasses.replace(scenario, actions=(Action(step="end"), Action(resolve=True), Action(next_turn=True)))
    )
    assert broken(trace) == set()
    # An engine that goes straight to the next turn, past the end step, with the same card.
    skipping = run(dataclasses.replace(scenario, cards=(Card(zone="battlefield"),)))
    skipping = dataclasses.replace(skipping, params={**skipping.params, "kind": [game.END_STEP]})
    assert broken(skipping) == {(1, "model.steps")}


def test_the_turn_ends_only_after_a_cleanup_step_without_priority():
    trace = played("514.3a-cleanup-trigger.toml")
    assert broken(trace) == set()
    loaded = load(str(SCENARIOS / "514.3a-cleanup-trigger.toml"))
    too_soon = loaded.scenario.actions[:3] + (Action(next_turn=True),)
    with pytest.raises(InvalidArgument, match="another cleanup step follows"):
        run(dataclasses.replace(loaded.scenario, actions=too_soon))


def test_an_extra_turn_goes_to_the_player_the_effect_names():
    trace = played("500.7-extra-turn.toml")
    assert trace.states[1]["active"] == 0 and trace.states[1]["extra_turn"]
    assert broken(trace) == set()
    assert (1, "500.1") in broken(changed(trace, 1, "extra_turn", False))


def test_control_changes_during_a_resolution():
    scenario = Scenario(
        cards=(SORCERY, Card(zone="battlefield", trigger="lose_control", flags=CREATURE)),
        actions=(Action(cast=0), Action(resolve=True, priority=False), Action(gain_control=((1, 1),))),
    )
    trace = run(scenario)
    assert not trace.states[2]["priority"] and trace.states[3]["controller"][1] == 1
    assert broken(trace) == set()


# --- old traces -------------------------------------------------------------------------------------------


def test_a_version_3_trace_migrates_and_still_conforms():
    def read(data):
        return from_json(data, Schema(tuple(game.VARIABLES)))

    fixtures = Path(__file__).parent / "fixtures"
    old = json.loads((fixtures / "board-wipe-v3.json").read_text(encoding="utf-8"))
    with pytest.raises(TraceFormatError, match="rule603 migrate"):
        read(old)
    new = migrate(old)
    assert old["#meta"]["rule603"] == "rule603-trace/3"  # what was given is left as it was
    assert new["#meta"]["rule603"] == "rule603-trace/5"
    assert new["#meta"]["universe"]["printed"] == new["#meta"]["universe"]["card"]
    assert broken(read(new)) == set()
    # An engine bug recorded in version 3 is still the same bug in version 5.
    bug = migrate(json.loads((fixtures / "delayed-fires-twice-v3.json").read_text(encoding="utf-8")))
    assert {clause for _, clause in broken(read(bug))} == {"603.7b"}
    assert migrate(new) == new  # a current trace is left alone


def test_migration_writes_version_3_steps_in_version_4_words():
    states = [{"step": "main", "turn": 1}, {"step": "combat", "turn": 1, "blocked": [False]}]
    states += [{"step": "combat", "turn": 1, "blocked": [True]}, {"step": "combat", "turn": 1, "blocked": [False]}]
    doc = {"#meta": {"rule603": "rule603-trace/3", "universe": {"card": 1, "player": 2}}, "vars": [], "states": states}
    steps = [s["step"] for s in migrate(doc)["states"]]
    assert steps == ["precombat_main", "declare_attackers", "declare_blockers", "declare_blockers"]


def test_rule603_migrate_rewrites_old_traces_and_refuses_what_it_cannot(tmp_path, capsys):
    from rule603.cli import main

    fixtures = Path(__file__).parent / "fixtures"
    old = tmp_path / "board-wipe-v3.json"
    old.write_text((fixtures / "board-wipe-v3.json").read_text(encoding="utf-8"), encoding="utf-8")
    kept = old.read_text(encoding="utf-8")
    assert main(["migrate", str(old), "--out", str(tmp_path / "new")]) == 0
    assert old.read_text(encoding="utf-8") == kept  # nothing given is changed without --overwrite
    assert main(["check", str(tmp_path / "new" / old.name)]) == 0
    assert main(["migrate", str(old), "--out", str(tmp_path / "new")]) == 2  # would replace a file
    assert "already exists" in capsys.readouterr().err
    assert main(["migrate", str(tmp_path / "new" / old.name), "--overwrite"]) == 2  # already current
    assert "nothing to migrate" in capsys.readouterr().err
    assert main(["migrate", str(old)]) == 2
    assert "--out DIR, or --overwrite" in capsys.readouterr().err
    assert main(["migrate", str(old), "--overwrite"]) == 0
    assert json.loads(old.read_text(encoding="utf-8"))["#meta"]["rule603"] == "rule603-trace/5"


@pytest.mark.parametrize(("where", "value"), [("turn", float("nan")), ("turn", -1), ("step", "teatime")])
def test_a_trace_the_new_version_cannot_carry_is_refused_and_every_file_kept(tmp_path, capsys, where, value):
    """Issue 40: a version-3 trace with NaN for a turn was rewritten in place and then unreadable; now nothing is
    written, not even the traces given beside it that would migrate, and the refusal names the JSON pointer."""
    from rule603.cli import main

    text = (Path(__file__).parent / "fixtures" / "board-wipe-v3.json").read_text(encoding="utf-8")
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(text, encoding="utf-8")
    broken = json.loads(text)
    broken["states"][1][where] = value
    bad.write_text(json.dumps(broken), encoding="utf-8")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert main(["migrate", str(good), str(bad), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}: at /states/1/{where}: cannot be migrated" in err, err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no partial file left either


def test_a_write_is_whole_or_not_at_all(tmp_path, monkeypatch):
    """What a command writes goes to a new file beside the target, renamed over it only once it is whole."""
    import os

    from rule603._internal.documents import write_atomically

    target = tmp_path / "report.md"
    target.write_text("the user's report\n", encoding="utf-8")
    target.chmod(0o640)

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "half")
    assert target.read_text(encoding="utf-8") == "the user's report\n" and list(tmp_path.iterdir()) == [target]
    monkeypatch.undo()
    write_atomically(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n" and (target.stat().st_mode & 0o777) == 0o640
    write_atomically(os.devnull, "into the device, not over it")
    assert Path(os.devnull).is_char_device()


# --- the independent review's counterexamples (/work/research/review-21.md) -----------------------------------


def _read_fixture(name: str):
    text = (Path(__file__).parent / "fixtures" / "review-21" / name).read_text(encoding="utf-8")
    return from_json(json.loads(text), Schema(tuple(game.VARIABLES)))


def test_no_step_begins_in_the_batch_that_performs_state_based_actions():
    # A creature dies to a state-based action in the batch where the end step begins: its "dies" trigger and an
    # "at the beginning of the end step" trigger would share the stack, which the rules never allow (704.3).
    assert (2, "500.1") in broken(_read_fixture("sba-step.json"))


def test_no_spell_is_cast_in_the_batch_that_performs_state_based_actions():
    assert (2, "405.1") in broken(_read_fixture("sba-cast.json"))


def test_state_based_actions_in_the_cleanup_step_give_priority():
    scenario = Scenario(
        cards=(Card(zone="battlefield", flags=CREATURE), SORCERY),
        step="end",
        actions=(
            Action(step="cleanup", lethal=(0,)),  # "until end of turn" ends: toughness 0 (514.2, 704.5f)
            Action(cast=1),  # 514.3a: the active player has priority after the state-based action
            Action(resolve=True),
            Action(step="cleanup"),  # all passed: another cleanup step, without priority
            Action(next_turn=True),
        ),
    )
    trace = run(scenario)
    assert [s["priority"] for s in trace.states] == [True, False, True, True, True, False, False]
    assert broken(trace) == set()
    too_soon = dataclasses.replace(scenario, actions=scenario.actions[:1] + (Action(next_turn=True),))
    with pytest.raises(InvalidArgument, match="another cleanup step follows"):
        run(too_soon)


def test_a_permanent_entering_as_the_end_step_begins_waits_for_the_next_one():
    # 513.2: "If a permanent with an ability that triggers 'at the beginning of the end step' enters the
    # battlefield during this step, that ability won't trigger until the next turn's end step."
    scenario = Scenario(
        cards=(Card(zone="hand", trigger="end_step", flags=CREATURE),),
        step="postcombat_main",
        actions=(Action(step="end", put_onto_battlefield=(0,)),),
    )
    trace = run(scenario)
    assert trace.states[1]["triggers"][0] == 0
    assert broken(trace) == set()
    assert (1, "603.2b") in broken(changed(changed(trace, 1, "matches", 1, 0), 1, "attempts", 1, 0))


def test_targets_illegal_names_what_it_needs():
    scenario = Scenario(
        cards=(Card(zone="hand", trigger="enters_self", flags=CREATURE),),
        actions=(Action(cast=0), Action(resolve=True), Action(targets_illegal=True)),
    )
    with pytest.raises(InvalidArgument, match="resolve = true"):
        run(scenario)
    with pytest.raises(InvalidArgument, match="targets to become illegal"):
        run(
            dataclasses.replace(
                scenario, actions=(Action(cast=0), Action(resolve=True), Action(resolve=True, targets_illegal=True))
            )
        )


# --- delayed abilities and their objects (603.7c), an Aura's two objects (603.6e) ---------------------------------


def _resolution_of(trace, a: int) -> int:
    """The moment ability ``a`` (a printed ability is its card's number) resolves."""
    return next(
        t
        for t in range(1, trace.length)
        if trace.states[t]["leave"] == game.RESOLVE
        and trace.states[t - 1]["slot_src"][trace.states[t - 1]["stack_size"] - 1] == 1 + a
    )


def test_a_delayed_ability_affects_each_object_still_where_it_was_expected():
    trace = played("603.7c-eerie-interlude-one-left.toml")  # cards: Bears 0, Elves 1, Ghostform 2, Interlude 3
    assert broken(trace) == set()
    assert trace.params["d_refers"] == [[True, True, False, False]]
    t = _resolution_of(trace, 4)  # the delayed ability (abilities: 4 cards, then the delayed one)
    assert trace.states[t]["acts"] and trace.states[t]["affects"] == [False, True, False, False]
    # The engine returns nothing because one of the two objects left exile (all or nothing) ...
    nothing = changed(changed(trace, t, "affects", False, 1), t, "acts", False)
    assert (t, "603.7c") in broken(nothing)
    # ... or returns the Bears too, though Kaya's Ghostform already returned them (a new object, 400.7).
    assert (t, "603.7c") in broken(changed(trace, t, "affects", True, 0))


def test_a_delayed_ability_that_refers_to_no_object_does_its_effect():
    trace = played("603.7c-pact-no-object.toml")
    assert broken(trace) == set()
    assert trace.params["d_refers"] == [[False]]
    t = _resolution_of(trace, 1)
    assert trace.states[t]["acts"] and not any(trace.states[t]["affects"])
    assert (t, "608.2") in broken(changed(trace, t, "acts", False))


def test_an_aura_finds_the_enchanted_cards_new_object_where_it_went_and_not_once_it_left():
    trace = played("603.6e-kayas-ghostform.toml")  # Bears 0, Kaya's Ghostform 1, Elves 2, Second Ghostform 3
    assert broken(trace) == set()
    first, second = _resolution_of(trace, 1), _resolution_of(trace, 3)
    top = trace.states[second - 1]["stack_size"] - 1
    # Each instance recorded the card it looks for and the zone that card went to (603.6e).
    assert trace.states[second - 1]["slot_object"][top] == 2
    assert trace.states[second - 1]["slot_zone"][top] == game.GRAVEYARD
    assert trace.states[first]["affects"][0] and not trace.states[second]["affects"][2]
    # The engine returns the Elves from exile, where they went after leaving the graveyard ...
    assert (second, "603.6e") in broken(changed(trace, second, "affects", True, 2))
    # ... or doesn't return the Bears, though they are in the graveyard they went to.
    assert (first, "608.2") in broken(changed(trace, first, "affects", False, 0))


def test_an_aura_does_not_find_a_permanent_that_was_exiled_and_returned_at_once():
    # Kaya's Ghostform ruling (2019-05-03): "If an effect exiles the enchanted permanent and immediately returns it
    # to the battlefield, the last ability of Kaya's Ghostform triggers but will have no effect."
    scenario = Scenario(
        cards=(
            Card(zone="battlefield", flags=CREATURE),
            Card(zone="battlefield", trigger="enchanted_leaves", flags=("aura",), attached_to=0),
        ),
        actions=(Action(flicker=(0,)), Action(resolve=True)),
    )
    trace = run(scenario)
    assert broken(trace) == set()
    t = _resolution_of(trace, 1)
    assert not trace.states[t]["affects"][0]
    assert (t, "603.6e") in broken(changed(trace, t, "affects", True, 0))


@pytest.mark.parametrize("aura_goes", ["bounced", "exiled"])
def test_an_aura_ability_that_finds_neither_object_does_nothing(aura_goes):
    # 603.6: a leaves ability cannot find an object "in a zone that is hidden from a player, such as ... an
    # opponent's hand"; 603.6e: it finds the Aura card only "in its owner's graveyard". The opponent's land goes
    # to its owner's hand and the Aura card elsewhere than a graveyard, at once: each object is set aside by
    # another clause, and the ability does nothing (the model once demanded that it act and do nothing to either).
    scenario = Scenario(
        players=2,
        cards=(
            Card(owner=1, zone="battlefield", flags=("land_card",)),
            Card(owner=0, zone="battlefield", trigger="enchanted_leaves", flags=("aura",), attached_to=0),
        ),
        actions=(
            Action(bounce=(0, 1)) if aura_goes == "bounced" else Action(bounce=(0,), exile=(1,)),
            Action(resolve=True),
        ),
    )
    trace = run(scenario)
    t = _resolution_of(trace, 1)
    assert trace.states[t - 1]["zone"] == [game.HAND, game.HAND if aura_goes == "bounced" else game.EXILE]
    assert not trace.states[t]["acts"]
    assert broken(trace) == set()
    for affected in ([False, False], [True, False], [False, True]):
        acting = changed(changed(trace, t, "acts", True), t, "affects", affected)
        assert broken(acting), f"acting on {affected} is accepted"


def test_the_all_or_nothing_mutant_is_caught_by_603_7c():
    from rule603.engines.mutants import MUTANTS

    loaded = load(str(SCENARIOS / "603.7c-eerie-interlude-one-left.toml"))
    mutant = next(m for m in MUTANTS if m.id == "delayed-all-or-nothing")
    trace = mutant.run(loaded.scenario)
    t = _resolution_of(trace, 4)
    assert not trace.states[t]["acts"]
    found = broken(trace)
    assert (t, "603.7c") in found and min(moment for moment, _ in found) == t


def test_a_condition_that_names_an_object_refers_to_exactly_one():
    from rule603.engines.scenario import DelayedAbility

    two = Scenario(
        cards=(Card(zone="battlefield", flags=CREATURE), Card(zone="battlefield", flags=CREATURE)),
        delayed=(DelayedAbility(trigger="leaves_self", source=0, refers_to=(0, 1)),),
    )
    with pytest.raises(InvalidArgument, match="names an object: it refers to exactly that one"):
        run(two)
    # An engine's trace that says so anyway is rejected as the model's bound, at moment 0.
    trace = run(dataclasses.replace(two, delayed=(DelayedAbility(trigger="leaves_self", source=0, refers_to=0),)))
    assert broken(trace) == set()
    wrong = dataclasses.replace(trace, params={**trace.params, "d_refers": [[True, True]]})
    assert (0, "model.delayed") in broken(wrong)


def test_a_version_3_delayed_ability_refers_to_its_one_object():
    fixtures = Path(__file__).parent / "fixtures"
    old = json.loads((fixtures / "delayed-fires-twice-v3.json").read_text(encoding="utf-8"))
    new = migrate(old)
    obj = old["constants"]["d_object"][0]
    assert "d_object" not in new["constants"]
    assert new["constants"]["d_refers"] == [[c == obj for c in range(old["#meta"]["universe"]["card"])]]
    for before, after in zip(old["states"], new["states"], strict=True):
        assert after["d_stamp"][0][obj] == before["d_stamp"][0] and after["d_zone"][0][obj] == before["d_zone"][0]


# --- tokens (111.1, 111.7-111.8, 704.5d) and the legend rule (704.5j) ------------------------------------------------


def test_a_token_that_dies_triggers_dies_abilities_and_then_ceases_to_exist():
    trace = played("704.5d-master-of-waves.toml")  # moment 1: the bounce; 2: the tokens die; 3: they cease to exist
    assert broken(trace) == set()
    assert trace.states[2]["zone"][1:3] == [game.GRAVEYARD] * 2 and trace.states[2]["triggers"][3] == 2
    assert trace.states[3]["zone"][1:3] == [game.OUTSIDE] * 2 and trace.states[3]["priority"]
    # The engine lets the tokens linger in the graveyard ...
    lingering = changed(changed(trace, 3, "zone", game.GRAVEYARD, 1), 3, "since", 2, 1)
    assert (3, "704.5d") in broken(lingering)
    # ... or takes them out of the game at once, so that nothing sees them die.
    at_once = changed(changed(trace, 2, "zone", game.OUTSIDE, 1), 2, "zone", game.OUTSIDE, 2)
    assert (2, "704.5d") in broken(at_once)
    # ... or gives priority before they have ceased to exist.
    assert (2, "704.3") in broken(changed(trace, 2, "priority", True))


def test_a_token_is_created_on_the_battlefield_under_its_owners_control_only():
    trace = played("704.5j-tolsimir-voja.toml")
    assert broken(trace) == set()
    assert trace.states[0]["zone"][2] == game.OUTSIDE and trace.states[1]["zone"][2] == game.BATTLEFIELD
    assert (1, "111.1") in broken(changed(trace, 1, "controller", 1, 2))  # created under Bob's control
    into_the_graveyard = changed(changed(trace, 1, "zone", game.GRAVEYARD, 2), 2, "zone", game.GRAVEYARD, 2)
    assert (1, "111.1") in broken(into_the_graveyard)
    # A card, not a token, never comes into the game from outside it.
    card = dataclasses.replace(trace, params={**trace.params, "token": [False, True, False, False]})
    assert (1, "800.4a") in broken(card)
    with pytest.raises(InvalidArgument, match="only a token is created"):
        run(Scenario(cards=(Card(zone="hand", flags=CREATURE),), actions=(Action(create=(0,)),)))


def test_a_flickered_token_stays_in_exile_and_a_trace_that_brings_it_back_is_rejected():
    trace = played("111.8-justiciars-portal.toml")
    assert broken(trace) == set()
    assert trace.states[2]["zone"][0] == game.EXILE and trace.states[3]["zone"][0] == game.OUTSIDE
    # The mutant token-comes-back writes what a buggy engine does: the token returns as a new object.
    (mutant,) = [m for m in MUTANTS if m.id == "token-comes-back"]
    loaded = load(str(SCENARIOS / "111.8-justiciars-portal.toml"))
    wrong = mutant.run(loaded.scenario)
    assert wrong.states[2]["zone"][0] == game.BATTLEFIELD and wrong.states[2]["since"][0] == 2
    assert min(t for t, _ in broken(wrong)) == 2 and (2, "111.8") in broken(wrong)
    # Nor does a token that left the battlefield move on to another zone before it ceases to exist.
    moved_on = changed(changed(trace, 3, "zone", game.GRAVEYARD, 0), 3, "since", 3, 0)
    assert (3, "111.8") in broken(moved_on)


def test_a_spell_that_stays_on_the_stack_stays_the_same_object():
    # Monastery Swiftspear's prowess resolves at moment 4 above Bonesplitter, which waits on the stack: the same
    # spell.  A trace that makes it a new object there, without moving, is refused (400.7).
    trace = played("603.2-monastery-swiftspear-noncreature-spell.toml")
    bonesplitter = 2
    assert broken(trace) == set() and [trace.states[t]["zone"][bonesplitter] for t in (3, 4)] == [game.STACK] * 2
    assert (4, "400.7") in broken(changed(trace, 4, "since", 4, bonesplitter))


def test_the_legend_rule_keeps_one_and_the_other_dies():
    trace = played("704.5j-tolsimir-voja.toml")
    # Moment 1: two Vojas under Alice's control, nobody gets priority; 2: the old one dies; 3: it is gone.
    assert not trace.states[1]["priority"] and trace.states[2]["zone"][1:3] == [game.GRAVEYARD, game.BATTLEFIELD]
    assert trace.states[2]["triggers"][3] == 1  # Blood Artist: the legend rule's trip to the graveyard is dying
    both_stay = changed(changed(trace, 2, "zone", game.BATTLEFIELD, 1), 2, "since", 0, 1)
    assert (2, "704.5j") in broken(both_stay)
    assert (1, "704.3") in broken(changed(trace, 1, "priority", True))
    # A game that does not trigger Blood Artist for it breaks 603.6c (it is a permanent leaving the battlefield).
    unseen = trace
    for name in ("matches", "attempts", "base_triggers", "triggers"):
        unseen = changed(unseen, 2, name, 0, 3)
    assert (2, "603.6c") in broken(unseen)


def test_the_legend_rule_is_per_controller():
    voja = Card(zone="battlefield", token=True, legend_name=1, flags=CREATURE)
    scenario = Scenario(cards=(voja, dataclasses.replace(voja, owner=1)), actions=(Action(),))
    trace = run(scenario)
    assert broken(trace) == set() and trace.length == 2  # Alice's and Bob's Voja: no state-based action
    stolen = run(dataclasses.replace(scenario, actions=(Action(gain_control=((1, 0),)),)))
    assert stolen.states[2]["zone"] == [game.BATTLEFIELD, game.GRAVEYARD]  # Bob owns it: his graveyard
    assert stolen.states[3]["zone"] == [game.BATTLEFIELD, game.OUTSIDE] and stolen.length == 4
    assert broken(stolen) == set()
    assert (2, "704.5j") in broken(changed(changed(stolen, 2, "zone", game.BATTLEFIELD, 1), 2, "since", 0, 1))


def test_all_state_based_actions_happen_at_once_so_the_legend_kept_may_die_too():
    legend = Card(zone="battlefield", legend_name=1, flags=CREATURE)
    scenario = Scenario(
        cards=(legend, dataclasses.replace(legend, zone="hand"), Card(zone="battlefield", trigger="creature_dies")),
        actions=(Action(put_onto_battlefield=(1,), lethal=(0,), keep=(0,)),),
    )
    trace = run(scenario)  # the one kept has lethal damage: both die in one batch, and the 'dies' ability sees both
    assert trace.states[2]["zone"][:2] == [game.GRAVEYARD, game.GRAVEYARD] and trace.states[2]["triggers"][2] == 2
    assert broken(trace) == set()
    # By default the controller keeps the one that stays: only the newcomer dies.
    kept = run(dataclasses.replace(scenario, actions=(Action(put_onto_battlefield=(1,)),)))
    assert kept.states[2]["zone"][:2] == [game.BATTLEFIELD, game.GRAVEYARD] and broken(kept) == set()
    with pytest.raises(InvalidArgument, match="legend rule doesn't apply to it"):
        run(dataclasses.replace(scenario, actions=(Action(keep=(0,)),)))


def test_the_mutant_that_ignores_the_legend_rule_is_caught_where_a_player_gets_priority():
    (mutant,) = [m for m in MUTANTS if m.id == "legend-rule-ignored"]
    scenario = load(str(SCENARIOS / "704.5j-tolsimir-voja.toml")).scenario
    wrong = mutant.run(dataclasses.replace(scenario, actions=(Action(create=(2,)),)))  # (its engine keeps both)
    assert wrong.states[1]["priority"] and wrong.length == 2
    assert broken(wrong) == {(1, "704.3")}


def test_a_version_3_trace_has_no_tokens_and_no_legends():
    fixtures = Path(__file__).parent / "fixtures"
    new = migrate(json.loads((fixtures / "board-wipe-v3.json").read_text(encoding="utf-8")))
    cards = new["#meta"]["universe"]["card"]
    assert new["constants"]["token"] == [False] * cards and new["constants"]["legend_name"] == [0] * cards


# --- players who leave the game (800.4a, 800.4d) ---------------------------------------------------------------------


def test_the_abilities_a_leaving_player_controls_cease_and_the_stack_closes_up():
    trace = played("800.4a-soul-wardens-ability-ceases.toml")  # Alex, Carol, Bianca: Carol leaves at moment 2
    assert broken(trace) == set()
    before, after = trace.states[1], trace.states[2]
    assert before["slot_controller"][:3] == [0, 1, 2] and before["stack_size"] == 3
    assert after["stack_size"] == 2 and after["slot_controller"][:2] == [0, 2]
    assert after["slot_src"][:2] == [before["slot_src"][0], before["slot_src"][2]]
    # An engine that leaves Carol's ability on the stack.
    kept = changed(trace, 2, "stack_size", 3)
    for name in ("slot_src", "slot_controller", "slot_moment", "slot_zone", "slot_object", "slot_subject"):
        kept = changed(kept, 2, name, list(before[name]))
    assert (2, "800.4a") in broken(kept)


def test_a_delayed_ability_whose_creator_has_left_is_not_put_on_the_stack():
    trace = played("800.4d-otherworldly-journey-creator-left.toml")  # Bianca leaves at 3; the end step begins at 4
    assert broken(trace) == set()
    delayed = len(trace.states[4]["dropped"]) - 1
    assert trace.states[4]["triggers"][delayed] == 1 and trace.states[4]["dropped"][delayed] == 1
    assert trace.states[4]["stack_size"] == 0
    # An engine that puts it on the stack all the same, under Bianca's control.
    placed = changed(changed(trace, 4, "dropped", 0, delayed), 4, "placed", 1, delayed)
    placed = changed(changed(placed, 4, "stack_size", 1), 4, "slot_src", game.ability_code(delayed), 0)
    placed = changed(changed(placed, 4, "slot_controller", 1, 0), 4, "slot_moment", 4, 0)
    assert (4, "800.4d") in broken(placed)


def test_a_spell_whose_owner_leaves_as_it_resolves_leaves_the_game_and_casting_as_one_leaves_is_refused():
    bears = Card(zone="hand", owner=1, flags=CREATURE)
    trace = run(Scenario(cards=(bears,), players=3, actions=(Action(cast=0), Action(resolve=True, lose=(1,)))))
    assert broken(trace) == set() and trace.states[2]["zone"][0] == game.OUTSIDE
    with pytest.raises(InvalidArgument, match="cast a spell in this batch"):
        run(Scenario(cards=(bears,), players=3, actions=(Action(cast=0, lose=(1,)),)))


def test_a_permanent_a_leaving_player_controlled_is_no_longer_theirs():
    trace = played("800.4a-mind-control-controller-leaves.toml")  # Alex leaves at moment 2
    assert broken(trace) == set()
    assert trace.states[1]["controller"][0] == 0 and trace.states[2]["controller"][0] == 1
    assert (2, "800.4a") in broken(changed(trace, 2, "controller", 0, 0))


def test_a_leaves_ability_triggers_as_its_object_leaves_with_its_owner_and_goes_on_the_stack_only_for_a_player_in_it():
    trace = played("800.4d-fiend-hunters-leave-with-their-owner.toml")
    assert broken(trace) == set()
    assert trace.states[1]["triggers"][:2] == [1, 1] and trace.states[1]["dropped"][:2] == [1, 0]
    assert trace.states[1]["placed"][:2] == [0, 1]
    # An engine that puts Alex's on the stack too, under his control, below Carol's (APNAP).
    s1 = trace.states[1]
    wrong = changed(changed(trace, 1, "dropped", 0, 0), 1, "placed", 1, 0)
    wrong = changed(wrong, 1, "stack_size", 2)
    for name, alex in (("slot_src", game.ability_code(0)), ("slot_controller", 0), ("slot_object", 0)):
        wrong = changed(wrong, 1, name, [alex, s1[name][0], *s1[name][2:]])
    for name in ("slot_moment", "slot_zone", "slot_subject"):
        wrong = changed(wrong, 1, name, [s1[name][0], *s1[name][:1], *s1[name][2:]])
    assert (1, "800.4d") in broken(wrong)


# --- phasing: a phased-out permanent can't be found or affected (702.26b) -------------------------------------


@pytest.mark.parametrize(
    ("name", "clause"),
    [("603.7c-phased-out-not-affected.toml", "603.7c"), ("603.6-phased-out-not-found.toml", "603.6")],
)
def test_an_ability_that_acts_on_a_phased_out_permanent_is_rejected(name: str, clause: str):
    trace = played(name)
    assert broken(trace) == set()
    last = trace.length - 1  # the ability resolves in the last batch, with card 0 phased out
    assert trace.states[last - 1]["phased_out"][0] and not trace.states[last]["acts"]
    wrong = changed(changed(trace, last, "acts", True), last, "affects", True, 0)
    assert (last, clause) in broken(wrong)


# --- a delayed zone-change ability looks where its object moved (603.6 with 603.7c) ----------------------------


def test_a_delayed_dies_ability_returns_the_card_from_the_graveyard_it_went_to():
    trace = played("603.7c-valkyrie-returns-that-card.toml")  # Valkyrie's Gift 0, Grizzly Bears 1
    assert broken(trace) == set()
    t = _resolution_of(trace, 2)  # the delayed ability (abilities: 2 cards, then the delayed one)
    assert trace.states[t - 1]["zone"][1] == game.GRAVEYARD
    assert trace.states[t]["acts"] and trace.states[t]["affects"] == [False, True]
    # An engine that looks for the creature on the battlefield, where it was when the ability was created, returns
    # nothing: rejected.
    nothing = changed(changed(trace, t, "affects", False, 1), t, "acts", False)
    assert (t, "603.7c") in broken(nothing)


def test_a_delayed_dies_ability_does_not_find_a_card_that_left_the_graveyard_again():
    scenario = load(str(SCENARIOS / "603.7c-valkyrie-returns-that-card.toml")).scenario
    actions = list(scenario.actions)
    # In response, the Bears card is exiled from the graveyard: a new object (400.7), not returned.
    actions.insert(3, Action(exile=(1,)))
    trace = run(dataclasses.replace(scenario, actions=tuple(actions)))
    assert broken(trace) == set()
    t = _resolution_of(trace, 2)
    assert trace.states[t - 1]["zone"][1] == game.EXILE
    assert not trace.states[t]["acts"] and not any(trace.states[t]["affects"])
    wrong = changed(changed(trace, t, "acts", True), t, "affects", True, 1)
    assert (t, "603.7c") in broken(wrong)


# --- 603.6 fails only the part acting on the object (Mulldrifter) -----------------------------------------------


def test_an_enters_ability_that_draws_still_draws_after_its_creature_is_gone():
    trace = played("603.6-mulldrifter-evoke.toml")  # Mulldrifter 0
    assert broken(trace) == set()
    last = trace.length - 1  # "draw two cards" resolves, Mulldrifter already sacrificed
    assert trace.states[last - 1]["zone"][0] == game.GRAVEYARD and trace.states[last]["acts"]
    assert (last, "608.2") in broken(changed(trace, last, "acts", False))
    # Without other_effect ("return it to its owner's hand") the same game is wrong: the effect is all about
    # the object, which is gone (603.6).
    plain = dataclasses.replace(trace, params={**trace.params, "other_effect": [False]})
    assert (last, "603.6") in broken(plain)


# --- an ability that does something to its source finds it or does nothing to it (400.7) ------------------------


def test_an_ability_puts_no_counter_on_its_source_once_it_has_died_and_still_does_the_rest():
    trace = played("400.7-redcap-gutter-dweller-gone.toml")  # Redcap Gutter-Dweller 0
    assert broken(trace) == set()
    first, last = 4, trace.length - 2  # its two resolutions: on the battlefield, then after it died
    assert trace.states[first]["acts"] and trace.states[first]["affects"][0]
    assert trace.states[last - 1]["zone"][0] == game.GRAVEYARD
    assert trace.states[last]["acts"] and not trace.states[last]["affects"][0]
    # An engine that puts the counter on the card in the graveyard, a new object: 400.7.
    assert (last, "400.7") in broken(changed(trace, last, "affects", True, 0))
    # One that forgets the counter while the creature is still there, or drops the rest once it is gone: 608.2.
    assert (first, "608.2") in broken(changed(trace, first, "affects", False, 0))
    assert (last, "608.2") in broken(changed(trace, last, "acts", False))
    # Without other_effect its effect is all about the creature, which is gone: it does nothing (400.7, 608.2).
    plain = dataclasses.replace(trace, params={**trace.params, "other_effect": [False] * 3})
    assert {clause for moment, clause in broken(plain) if moment == last} & {"400.7", "608.2"}


def test_a_look_back_ability_doesnt_find_its_source_that_left_in_the_same_event():
    # "Whenever another creature dies, put a +1/+1 counter on this creature": it and another creature die at once.
    # It triggers (603.10a looks back), but the creature it would put the counter on left in that event (400.7).
    hunter = Card(zone="battlefield", trigger="creature_dies", flags=(*CREATURE, "acts_on_this"))
    hunter = dataclasses.replace(hunter, subject_relation="another")
    bear = Card(zone="battlefield", flags=CREATURE)
    trace = run(Scenario(cards=(hunter, bear), actions=(Action(destroy=(0, 1)), Action(resolve=True))))
    assert broken(trace) == set() and trace.states[1]["triggers"][0] == 1
    assert not trace.states[2]["acts"] and not trace.states[2]["affects"][0]
    assert (2, "400.7") in broken(changed(changed(trace, 2, "affects", True, 0), 2, "acts", True))


def test_an_ability_doesnt_find_the_card_its_event_happened_to_once_that_card_has_left_the_graveyard():
    trace = played("400.7-yarus-card-left-the-graveyard.toml")  # Yarus 0, Spy 1, Informant 2
    assert broken(trace) == set()
    assert trace.states[1]["slot_subject"][0] == 1 and trace.states[4]["slot_subject"][0] == 2
    assert not trace.states[3]["acts"] and not any(trace.states[3]["affects"])
    assert trace.states[5]["acts"] and trace.states[5]["affects"] == [False, False, True]
    # An engine that returns the exiled card anyway (a new object, 400.7), or forgets the one still there (608.2).
    assert (3, "400.7") in broken(changed(changed(trace, 3, "affects", True, 1), 3, "acts", True))
    assert (5, "608.2") in broken(changed(trace, 5, "affects", False, 2))
    # One whose instance carries a card that didn't die (Yarus itself: "another"), or a card for an ability that
    # doesn't act on one: the stack's record (405.1).
    assert (1, "405.1") in broken(changed(trace, 1, "slot_subject", 0, 0))
    unflagged = dataclasses.replace(trace, params={**trace.params, "acts_on_that": [False] * 3})
    assert (1, "405.1") in broken(unflagged)


def test_a_card_that_is_both_the_gone_source_and_the_found_object_of_its_own_death_is_affected():
    # "Whenever a creature dies, put a +1/+1 counter on this creature and exile it", as it dies itself: the creature
    # it would put the counter on left in that event (400.7), but "it" is the card in the graveyard, found (603.6).
    reaper = Card(zone="battlefield", trigger="creature_dies", flags=(*CREATURE, "acts_on_this", "acts_on_that"))
    trace = run(Scenario(cards=(reaper,), actions=(Action(destroy=(0,)), Action(resolve=True))))
    assert broken(trace) == set() and trace.states[1]["slot_subject"][0] == 0
    assert trace.states[2]["acts"] and trace.states[2]["affects"][0]
    assert (2, "608.2") in broken(changed(trace, 2, "affects", False, 0))


def test_each_creature_that_died_at_once_is_carried_by_its_own_instance():
    # "Whenever another creature you control dies, return it to its owner's hand"; two creatures die at once.
    keeper = dataclasses.replace(
        Card(zone="battlefield", trigger="creature_dies", flags=(*CREATURE, "acts_on_that")),
        subject_relation="another",
    )
    bear, elf = Card(zone="battlefield", flags=CREATURE), Card(zone="battlefield", flags=CREATURE)
    actions = (Action(destroy=(1, 2)), Action(resolve=True), Action(resolve=True))
    trace = run(Scenario(cards=(keeper, bear, elf), actions=actions))
    assert broken(trace) == set() and trace.states[1]["triggers"][0] == 2
    assert sorted(trace.states[1]["slot_subject"][:2]) == [1, 2]
    assert {c for t in (2, 3) for c in (1, 2) if trace.states[t]["affects"][c]} == {1, 2}
    # Both instances carrying the Bear: 603.2c gives each creature its own trigger (405.1 keeps them apart).
    assert (1, "405.1") in broken(
        changed(trace, 1, "slot_subject", 1, 1)
        if trace.states[1]["slot_subject"][0] == 1
        else changed(trace, 1, "slot_subject", 1, 0)
    )
    # With a second instance of the ability (113.2c) each creature triggers it twice: two may carry one creature.
    twice = (dataclasses.replace(keeper, instances=2), bear, elf)
    doubled = run(Scenario(cards=twice, actions=actions, slots=4))
    assert broken(doubled) == set() and doubled.states[1]["triggers"][0] == 4
    assert sorted(doubled.states[1]["slot_subject"]) == [1, 1, 2, 2]


def test_an_intervening_if_about_each_creature_is_asked_of_each_as_it_triggers_and_resolves():
    trace = played("603.4-pelt-collector-each-creature.toml")  # Pelt Collector 0; Grizzly 1, Runeclaw 2; Courser 5
    assert broken(trace) == set()
    assert trace.states[1]["triggers"][0] == 2 and sorted(trace.states[1]["slot_subject"][:2]) == [1, 2]
    assert not trace.states[2]["removed_now"] and trace.states[3]["removed_now"]
    assert trace.states[4]["triggers"][0] == 0
    assert trace.states[5]["triggers"][0] == 1 and trace.states[5]["slot_subject"][0] == 5
    # An engine that asks the "if" once for the card (both creatures, or none): 603.4.
    assert (5, "603.4") in broken(changed(trace, 5, "base_triggers", 2, 0))
    assert (4, "603.4") in broken(changed(trace, 4, "base_triggers", 1, 0))
    # ... whose instance carries the 1/1 the "if" was false of, or that resolves the second, too-small one.
    assert (5, "603.4") in broken(changed(trace, 5, "slot_subject", 4, 0))
    resolved = changed(changed(trace, 3, "removed_now", False), 3, "acts", True)
    assert (3, "603.4") in broken(resolved)


def test_an_intervening_if_about_each_creature_is_not_asked_where_the_ability_does_not_exist():
    # Found by the mutation study's generators: a creature spell whose "whenever a creature dies, if it ..." ability
    # resolves onto the battlefield as a creature dies. "Dies" looks back (603.10a): the ability wasn't there.
    keeper = Card(zone="hand", trigger="creature_dies", flags=("creature_card", "has_if", "if_about_that"))
    bear = Card(zone="battlefield", flags=CREATURE)
    trace = run(Scenario(cards=(keeper, bear), actions=(Action(cast=0), Action(resolve=True, destroy=(1,)))))
    assert broken(trace) == set() and trace.states[2]["triggers"][0] == 0


def test_a_delayed_ability_whose_object_is_gone_still_does_the_rest():
    trace = played("603.7c-brood-of-cockroaches-exiled.toml")  # Brood of Cockroaches 0, its delayed ability 0
    assert broken(trace) == set()
    last = trace.length - 1  # "you lose 1 life and return Brood of Cockroaches to your hand"; the card is in exile
    assert trace.states[last - 1]["zone"][0] == game.EXILE
    assert trace.states[last]["acts"] and not trace.states[last]["affects"][0]
    assert (last, "608.2") in broken(changed(trace, last, "acts", False))
    assert (last, "603.7c") in broken(changed(trace, last, "affects", True, 0))
    # Without "you lose 1 life", what it does is what it does to the card: nothing (603.7c sets 608.2 aside for the
    # card; 608.2 holds an ability that affects none of its objects to doing nothing).
    bare = dataclasses.replace(trace, params={**trace.params, "d_other_effect": [False]})
    assert (last, "608.2") in broken(bare)


# --- targets of any triggered ability: printed, delayed, reflexive (603.3d, 608.2b) --------------------------------


def test_a_reflexive_ability_whose_target_is_gone_doesnt_resolve():
    trace = played("608.2b-selfcraft-mechan-reflexive-target-gone.toml")
    assert broken(trace) == set()
    last = trace.length - 1
    assert trace.states[last]["targets_illegal"] and trace.states[last]["removed_now"]
    assert not trace.states[last]["acts"]
    # An engine that lets it resolve (draws the card): 608.2b.
    resolved = changed(changed(trace, last, "removed_now", False), last, "acts", True)
    assert (last, "608.2b") in broken(resolved)


def test_a_delayed_ability_with_no_legal_target_is_removed_as_it_would_go_on_the_stack():
    trace = played("603.3d-feral-encounter-delayed-no-target.toml")
    assert broken(trace) == set()
    a = trace.universe.size("printed")  # the delayed ability's number: after the printed ones
    assert trace.states[3]["triggers"][a] == 1 and trace.states[3]["removed"][a] == 1
    assert trace.states[3]["stack_size"] == 0
    # Removed without a choice to make -- untargeted, or with a legal target -- is not a way off the stack (603.3).
    untargeted = dataclasses.replace(trace, params={**trace.params, "d_targeted": [False]})
    assert (3, "603.3") in broken(untargeted)
    assert (3, "603.3") in broken(changed(trace, 3, "no_legal_choice", False, a))


# --- 603.7h: a delayed ability created on its creator's Nth resolution, counted for the object ----------------------


def test_gimlis_reflexive_ability_triggers_on_the_third_resolution_only():
    trace = played("603.7h-gimli-third-resolution.toml")  # Gimli 0; Gimli fights after the printed and delayed
    assert broken(trace) == set()
    fights = trace.universe.size("printed") + trace.universe.size("delayed")
    assert [t for t in range(trace.length) if trace.states[t]["triggers"][fights]] == [6]
    assert trace.states[6]["resolutions"][0] == 3 and trace.states[9]["resolutions"][0] == 4
    # An engine whose fight triggers on the second resolution, or again on the fourth: 603.7h.
    early = changed(changed(trace, 4, "matches", 1, fights), 4, "attempts", 1, fights)
    assert (4, "603.7h") in broken(early)
    again = changed(changed(trace, 9, "matches", 1, fights), 9, "attempts", 1, fights)
    assert (9, "603.7h") in broken(again)


def _nth_game(n: int, flicker_after: int | None = None, create_at: int = 3):
    """A "whenever another creature enters" card whose ability creates, on its Nth resolution this turn, a delayed
    ability; three creatures enter one at a time, each ability resolving before the next (a flicker of the card
    after the ``flicker_after``-th makes it a new object)."""
    watcher = dataclasses.replace(
        Card(zone="battlefield", trigger="creature_enters", flags=CREATURE), subject_relation="another"
    )
    bears = tuple(Card(zone="hand", flags=CREATURE) for _ in range(3))
    delayed = DelayedAbility(trigger="end_step", cause="ability", source=0, nth=True, n=n)
    actions = []
    for k in range(3):
        actions.append(Action(put_onto_battlefield=(1 + k,)))
        actions.append(Action(resolve=True, create_delayed=(0,) if k + 1 == create_at else ()))
        if flicker_after == k + 1:
            actions.append(Action(flicker=(0,)))
    return run(Scenario(cards=(watcher, *bears), delayed=(delayed,), actions=tuple(actions)))


def test_the_creators_text_creates_a_delayed_ability_and_a_declined_may_creates_none():
    keeper = Card(zone="hand", trigger="enters_self", flags=(*CREATURE, "optional"))
    delayed = DelayedAbility(trigger="end_step", cause="ability", source=0)
    script = (Action(put_onto_battlefield=(0,)), Action(resolve=True), Action(step="end"))
    trace = run(Scenario(cards=(keeper,), delayed=(delayed,), actions=script))  # no create_delayed: the text's
    assert broken(trace) == set() and trace.states[2]["registered"][0] and trace.states[3]["triggers"][1] == 1
    assert (2, "text.creates_delayed") in broken(changed(trace, 2, "registered", False, 0))
    declined = (script[0], Action(resolve=True, decline=True), script[2])
    trace = run(Scenario(cards=(keeper,), delayed=(delayed,), actions=declined))
    assert broken(trace) == set() and not trace.states[2]["registered"][0]
    assert (2, "text.creates_delayed") in broken(changed(trace, 2, "registered", True, 0))


def test_a_delayed_ability_waits_for_any_nth_resolution():
    trace = _nth_game(3)
    assert broken(trace) == set() and trace.params["d_n"] == [3]
    created = next(t for t, s in enumerate(trace.states) if s["registered"][0])
    assert trace.states[created]["resolutions"][0] == 3
    # Created one resolution early: 603.7h.
    with pytest.raises(InvalidArgument, match="resolution number 3"):
        _nth_game(3, create_at=2)
    early = dataclasses.replace(trace, params={**trace.params, "d_n": [2]})
    assert (created, "603.7h") in broken(early)


def test_the_nth_resolution_is_counted_for_the_object_a_flickered_one_starts_over():
    # Flickered after its second resolution, it is a new object (400.7): the third creature's is its first.
    with pytest.raises(InvalidArgument, match="resolution number 3"):
        _nth_game(3, flicker_after=2)
    # Flickered after its first, the third creature's is its second: the ability's text creates it then.
    trace = _nth_game(2, flicker_after=1, create_at=0)
    assert broken(trace) == set()
    last = trace.length - 1
    assert trace.states[last]["resolutions"][0] == 2 and trace.states[last]["registered"][0]
    assert not trace.states[last - 1]["registered"][0]
    assert [s["resolutions"][0] for s in trace.states] == [0, 0, 1, 0, 0, 1, 1, 2]  # the flicker: moment 3
    # An engine that keeps counting across the flicker: the count is the new object's (the game model's record), and
    # the delayed ability was created at its second resolution, not its third (603.7h).
    kept = changed(trace, last, "resolutions", 3, 0)
    assert {(last, "model.pending"), (last, "603.7h")} <= broken(kept)


def test_panharmonicon_doubles_an_artifacts_enters_ability():
    trace = played("603.2d-panharmonicon-artifact.toml")  # Panharmonicon 0, Ichor Wellspring 1
    assert broken(trace) == set()
    t = next(t for t, s in enumerate(trace.states) if s["triggers"][1])
    assert trace.states[t]["triggers"][1] == 2 and trace.states[t]["counts_additional"][1]
    # An engine that doubles only creatures' abilities: once.
    once = changed(changed(trace, t, "triggers", 1, 1), t, "counts_additional", False, 1)
    assert {clause for moment, clause in broken(once) if moment == t} & {"603.2d", "113.3"}


def test_an_aura_does_not_find_its_card_once_it_is_a_newer_object_in_the_graveyard():
    trace = played("603.6e-aura-card-newer-object.toml")  # Grizzly Bears 0, Journey to Eternity 1
    assert broken(trace) == set()
    last = trace.length - 1  # the Aura's ability resolves; its card came back to the graveyard meanwhile
    assert trace.states[last - 1]["zone"][1] == game.GRAVEYARD and not trace.states[last]["affects"][1]
    wrong = changed(changed(trace, last, "affects", True, 1), last, "acts", True)
    assert (last, "603.6e") in broken(wrong)


def test_an_instant_or_sorcery_card_never_enters_the_battlefield():
    # 304.4, 307.4: an instant or sorcery card that would enter the battlefield remains in its previous zone; one
    # that resolves goes to its owner's graveyard (608.2n).  An engine that puts one onto the battlefield is rejected
    # by the game rule, at the moment it does.
    bolt = Card(zone="hand", flags=("instant_card",), permanent=False)
    spike = Card(zone="graveyard", flags=("sorcery_card",), permanent=False)
    bear = Card(zone="hand", flags=CREATURE)
    script = (Action(put_onto_battlefield=(0, 1, 2)), Action(cast=3), Action(resolve=True))
    trace = run(
        Scenario(cards=(bolt, spike, bear, Card(zone="hand", flags=("instant_card",), permanent=False)), actions=script)
    )
    zones = [[game.ZONES[z] for z in s["zone"]] for s in trace.states]
    assert zones[1][:3] == ["hand", "graveyard", "battlefield"]
    assert zones[3][3] == "graveyard"
    assert broken(trace) == set()
    on_battlefield = game.ZONES.index("battlefield")
    assert (1, "304.4") in broken(changed(trace, 1, "zone", on_battlefield, 0))
    with pytest.raises(InvalidArgument, match=r"never a permanent \(304.4, 307.4\)"):
        run(Scenario(cards=(Card(zone="hand", flags=("sorcery_card",)),), actions=()))


def test_a_spells_card_type_is_read_as_printed_an_aura_being_an_enchantment():
    # "Whenever you cast an enchantment spell" (Mesa Enchantress) triggers on an Aura spell (303.4: an Aura is an
    # enchantment); "whenever you cast an instant spell" on an instant, not on a sorcery.  An engine that counts
    # the sorcery is rejected where it does.
    enchantress = Card(zone="battlefield", trigger="spell_cast", flags=CREATURE, subject_type="enchantment")
    wizard = Card(zone="battlefield", trigger="spell_cast", flags=CREATURE, subject_type="instant")
    aura = Card(zone="hand", flags=("aura",))
    bolt = Card(zone="hand", flags=("instant_card",), permanent=False)
    script = (Action(cast=2), Action(cast=3), Action(resolve=True), Action(resolve=True), Action(cast=4))
    scenario = Scenario(cards=(enchantress, wizard, aura, bolt, SORCERY), actions=script, slots=7)
    trace = run(scenario)
    assert [s["triggers"][:2] for s in trace.states] == [[0, 0], [1, 0], [0, 1], [0, 0], [0, 0], [0, 0]]
    assert broken(trace) == set()
    ignoring = next(m for m in MUTANTS if m.id == "card-type-ignored").run(scenario)  # counts every spell
    assert ignoring.states[5]["triggers"][:2] == [1, 1]
    assert (5, "113.3") in broken(ignoring)


def test_a_version_4_trace_is_refused_with_the_hint_and_migrates_with_one_printed_ability_per_card():
    current = json.loads((Path(__file__).parent.parent / "examples/traces/board-wipe.json").read_text(encoding="utf-8"))
    old = copy.deepcopy(current)
    old["#meta"]["rule603"] = "rule603-trace/4"
    del old["#meta"]["universe"]["printed"]
    with pytest.raises(TraceFormatError, match="rule603 migrate"):
        from_json(old, Schema(tuple(game.VARIABLES)))
    new = migrate(old)
    assert new["#meta"]["universe"]["printed"] == new["#meta"]["universe"]["card"]
    assert from_json(new, Schema(tuple(game.VARIABLES))) == from_json(current, Schema(tuple(game.VARIABLES)))


@pytest.mark.parametrize(
    ("card", "printed", "fits"),
    [
        (3, 3, True),
        (3, 6, True),
        (3, 9, True),
        (3, 4, False),
        (3, 12, False),
        (3, 0, False),
        (0, 0, True),
        (0, 2, False),
    ],
)
def test_printed_abilities_are_one_to_three_slots_per_card(card, printed, fits):
    sizes = game.universe(card=card, printed=printed)
    if fits:
        game.check_universe(sizes, "t.json")
        assert sizes.size("ability") == printed + sizes.size("delayed") + sizes.size("reflexive")
        return
    with pytest.raises(TraceFormatError) as caught:
        game.check_universe(sizes, "t.json")
    assert caught.value.pointer == "/#meta/universe/printed"


def test_an_event_that_doesnt_move_its_object_leaves_it_to_be_found_until_it_changes_zones():
    # "Whenever a land becomes tapped, return it to its owner's hand" (Storm Cauldron's, as a land tapped): two lands
    # tapped at once, one flickered in response. The other is the object it was (400.7: tapping is no zone change).
    cauldron = Card(zone="battlefield", trigger="land_tapped", flags=("artifact_card", "acts_on_that"))
    forest, island = Card(zone="battlefield", flags=("land_card",)), Card(zone="battlefield", flags=("land_card",))
    actions = (Action(tap=(1, 2)), Action(flicker=(1,)), Action(resolve=True), Action(resolve=True))
    trace = run(Scenario(cards=(cauldron, forest, island), actions=actions))
    assert broken(trace) == set() and trace.states[1]["triggers"][0] == 2
    found = {c for t in (3, 4) for c in (1, 2) if trace.states[t]["affects"][c]}
    assert found == {2}
    gone = 3 if trace.states[2]["slot_subject"][trace.states[2]["stack_size"] - 1] == 1 else 4
    assert not trace.states[gone]["acts"]
    # An engine that returns the flickered land anyway (a new object), or that forgets the Island: 400.7, 608.2.
    assert (gone, "400.7") in broken(changed(changed(trace, gone, "affects", True, 1), gone, "acts", True))
    kept = 7 - gone
    assert (kept, "608.2") in broken(changed(trace, kept, "affects", False, 2))


def test_a_spell_cast_is_found_while_it_is_on_the_stack_and_not_after_it_left():
    # "Whenever an opponent casts a spell, counter that spell and put a depletion counter on this" (Decree of
    # Silence). Bob's spell is found on the stack; Carol's leaves with her as she concedes in response (800.4a), so the
    # ability counters nothing and still does the rest.
    decree = dataclasses.replace(
        Card(zone="battlefield", trigger="spell_cast", flags=("enchantment_card", "acts_on_that", "other_effect")),
        subject_controller="opponent",
    )
    shock, bolt = Card(zone="hand", owner=1), Card(zone="hand", owner=2)
    actions = (Action(cast=1), Action(resolve=True), Action(counter=True), Action(cast=2), Action(lose=(2,)))
    trace = run(Scenario(players=3, cards=(decree, shock, bolt), actions=(*actions, Action(resolve=True))))
    assert broken(trace) == set() and trace.states[1]["triggers"][0] == 1 and trace.states[1]["slot_subject"][1] == 1
    assert trace.states[2]["acts"] and trace.states[2]["affects"] == [False, True, False]
    assert trace.states[4]["slot_subject"][1] == 2 and trace.states[5]["zone"][2] == game.ZONES.index("outside")
    assert trace.states[6]["acts"] and not any(trace.states[6]["affects"])
    # An engine that counters the spell that left (400.7), or doesn't counter the one still there (608.2).
    assert (6, "400.7") in broken(changed(trace, 6, "affects", True, 2))
    assert (2, "608.2") in broken(changed(trace, 2, "affects", False, 1))


def test_a_creature_that_dealt_combat_damage_and_left_in_that_very_batch_is_not_found():
    # "Whenever a creature you control deals combat damage to a player, put that many +1/+1 counters on it"
    # (Necropolis Regent): the Bears deal combat damage to Bob and are destroyed in the same batch; the card in the
    # graveyard is a new object (400.7). Found by review: the spell-cast rule (the object is the one that arrived then)
    # had been applied to it.
    regent = dataclasses.replace(
        Card(zone="battlefield", trigger="combat_damage_to_player", flags=(*CREATURE, "acts_on_that")),
        subject_controller="you",
    )
    bears = Card(zone="battlefield", flags=CREATURE)
    strike = Action(step="combat_damage", combat_damage=((1, 1),), destroy=(1,))
    trace = run(Scenario(cards=(regent, bears), actions=(strike, Action(resolve=True))))
    assert broken(trace) == set() and trace.states[1]["triggers"][0] == 1
    assert not trace.states[2]["acts"] and not any(trace.states[2]["affects"])
    assert (2, "400.7") in broken(changed(changed(trace, 2, "affects", True, 1), 2, "acts", True))


def test_a_one_or_more_ability_acts_on_each_object_of_its_batch_that_is_still_there():
    # "Whenever one or more creatures you control die, return them to their owner's hand": the Bears and the Elf die
    # at once (one trigger), the Elf's card is exiled from the graveyard in response; Bob's Goblin isn't one of them.
    keeper = dataclasses.replace(
        Card(zone="battlefield", trigger="creature_dies", flags=("enchantment_card", "acts_on_that", "one_or_more")),
        subject_controller="you",
    )
    bears, elf = Card(zone="battlefield", flags=CREATURE), Card(zone="battlefield", flags=CREATURE)
    goblin = Card(zone="battlefield", flags=CREATURE, owner=1)
    actions = (Action(destroy=(1, 2, 3)), Action(exile=(2,)), Action(resolve=True))
    trace = run(Scenario(cards=(keeper, bears, elf, goblin), actions=actions))
    assert broken(trace) == set() and trace.states[1]["triggers"][0] == 1 and trace.states[1]["slot_subject"][0] == 0
    assert trace.states[3]["acts"] and trace.states[3]["affects"] == [False, True, False, False]
    # An engine that returns the exiled Elf (a new object), that forgets the Bears, or returns Bob's Goblin.
    assert (3, "400.7") in broken(changed(trace, 3, "affects", True, 2))
    assert (3, "608.2") in broken(changed(trace, 3, "affects", False, 1))
    assert (3, "608.2") in broken(changed(trace, 3, "affects", True, 3))


def test_an_effect_moves_what_it_finds_where_its_text_says_and_a_trace_that_leaves_it_is_rejected():
    # Persist (Lesser Masticore's ruling): Kitchen Finks is returned to the battlefield; Lesser Masticore, exiled
    # from the graveyard in response, is not.  The script writes no move: the text does (moves_to).
    trace = played("608.2-persist-returns-what-it-finds.toml")
    finks, masticore = 0, 1
    battlefield, exile, graveyard = (game.ZONES.index(z) for z in ("battlefield", "exile", "graveyard"))
    assert broken(trace) == set()
    assert trace.states[-1]["zone"][finks] == battlefield and trace.states[-1]["zone"][masticore] == exile
    moved = next(t for t, s in enumerate(trace.states) if t and s["zone"][finks] == battlefield)
    assert [t for t, c in trace.meta[game.LEFT_TO_THE_RULES] if c == finks] == list(range(2, trace.length))
    # An engine that leaves the card it found where it was, or puts it elsewhere.
    left = changed(changed(trace, moved, "zone", graveyard, finks), moved, "since", 1, finks)
    assert (moved, "608.2") in broken(left)
    assert (moved, "608.2") in broken(changed(trace, moved, "zone", exile, finks))
