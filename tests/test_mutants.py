"""The mutation study: every mutant of the reference engine is caught, by the clause its bug breaks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from rule603.cli import main
from rule603.engines.mutants import MUTANTS, study
from rule603.engines.reference import ReferenceGame, run
from rule603.engines.scenario import Action, Card, DelayedAbility, Scenario
from rule603.engines.scenario_file import load
from rule603.models.current import edition
from rule603.testing import check


def test_each_mutant_changes_one_decision_of_the_reference_engine():
    assert len(MUTANTS) >= 15
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        assert issubclass(mutant.engine, ReferenceGame) and mutant.engine is not ReferenceGame
        changed = [name for name in vars(mutant.engine) if callable(vars(mutant.engine)[name])]
        assert len(changed) == 1, (mutant.id, changed)
        assert hasattr(ReferenceGame, changed[0]), f"{mutant.id} overrides {changed[0]}, which the engine lacks"
        # A clause of 603, or a rule of the game the model relies on (608.2c's instructions, 704.3's check).
        assert mutant.clauses and all(c.startswith("603.") or edition().is_axiom(c) for c in mutant.clauses)


def test_a_mutant_is_caught_where_its_bug_shows():
    """A board wipe under a delayed 'whenever a creature dies' without a duration (603.7b)."""
    scenario = Scenario(
        cards=(
            Card(zone="battlefield", flags=("creature_card",)),
            Card(zone="battlefield", flags=("creature_card",)),
            Card(zone="battlefield"),
        ),
        delayed=(DelayedAbility(trigger="creature_dies", cause="action", source=2, refers_to=2),),
        actions=(Action(create_delayed=(0,)), Action(destroy=(0, 1))),
    )
    (mutant,) = [m for m in MUTANTS if m.id == "delayed-each-event"]
    assert check(run(scenario)).conforms
    found = check(mutant.run(scenario))
    assert [(v.moment, v.clause) for v in found.violations] == [(2, "603.7b")]


SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def _first_caught(scenario_file: str, mutant_id: str) -> tuple[int, set[str]]:
    """The ruling's scenario played by the reference engine conforms; by the mutant, the first moment a clause is
    broken at and the clauses broken there."""
    scenario = load(str(SCENARIOS / scenario_file)).scenario
    (mutant,) = [m for m in MUTANTS if m.id == mutant_id]
    assert check(run(scenario)).conforms
    found = check(mutant.run(scenario))
    assert not found.conforms
    first = min(v.moment for v in found.violations)
    return first, {v.clause for v in found.violations if v.moment == first}


def test_every_instance_taking_the_once_each_turn_action_is_caught_at_the_second_resolution():
    # The study's stream draws this game late, or not at all as the generators change (docs/check.md): a "do this
    # only once each turn" ability that triggered twice at once, both instances resolving (603.2i: the second does
    # not take the action).
    _, clauses = _first_caught("603.2i-simultaneous-instances.toml", "once-each-instance")
    assert clauses == {"603.2i"}


def test_returning_a_card_that_left_the_graveyard_is_caught_where_the_ability_resolves():
    first, clauses = _first_caught("400.7-yarus-card-left-the-graveyard.toml", "event-object-found-anew")
    assert (first, clauses) == (3, {"400.7"})


def test_an_intervening_if_asked_once_for_the_card_is_caught_where_it_is_false_of_one_creature():
    first, clauses = _first_caught("603.4-pelt-collector-each-creature.toml", "if-asked-of-the-card")
    assert (first, clauses) == (3, {"603.4"})


def test_an_ability_left_on_the_stack_by_a_player_who_left_is_caught_as_they_leave():
    first, clauses = _first_caught("800.4a-soul-wardens-ability-ceases.toml", "leavers-abilities-stay")
    assert first == 2 and "800.4a" in clauses


def test_a_delayed_ability_put_on_the_stack_for_a_player_who_left_is_caught_as_it_triggers():
    first, clauses = _first_caught("800.4d-otherworldly-journey-creator-left.toml", "leavers-abilities-put-on-stack")
    assert first == 4 and "800.4d" in clauses


def test_a_delayed_ability_put_on_the_stack_with_no_legal_target_is_caught_there():
    first, clauses = _first_caught("603.3d-feral-encounter-delayed-no-target.toml", "delayed-target-unchecked")
    assert "603.3d" in clauses


def test_one_creature_carried_by_every_instance_is_caught_as_they_go_on_the_stack():
    keeper = replace(
        Card(zone="battlefield", trigger="creature_dies", flags=("creature_card", "acts_on_that")),
        subject_relation="another",
    )
    bears = (Card(zone="battlefield", flags=("creature_card",)),) * 2
    scenario = Scenario(cards=(keeper, *bears), actions=(Action(destroy=(1, 2)), Action(resolve=True)))
    (mutant,) = [m for m in MUTANTS if m.id == "one-object-for-all"]
    assert check(run(scenario)).conforms
    assert {(v.moment, v.clause) for v in check(mutant.run(scenario)).violations} == {(1, "405.1")}


def test_prevented_damage_triggering_is_caught_where_the_damage_is_prevented():
    # The study's stream meets this game late (5,243 scenarios before "one or more"; not within 6,000 since), so it is
    # pinned here: Spitemare dealt damage that is all prevented doesn't trigger (603.2h).
    assert _first_caught("603.2h-prevented-damage.toml", "prevented-damage-triggers") == (1, {"603.2h"})


def test_a_spell_of_a_card_type_the_condition_does_not_name_triggers_nothing_and_a_mutant_that_counts_it_is_caught():
    # Monastery Swiftspear's prowess (rulings of 2014-09-20): an artifact creature spell has the type creature, so it
    # does not trigger "whenever you cast a noncreature spell"; the mutant counts it, at the moment it is cast.
    assert _first_caught("603.2-monastery-swiftspear-noncreature-spell.toml", "card-type-ignored") == (1, {"113.3"})


def test_one_or_more_triggers_once_for_a_batch_and_a_mutant_that_counts_each_is_caught():
    # Vengeful Townsfolk: "Whenever one or more other creatures you control die": a board wipe of two creatures of
    # Alice's triggers it once (603.2c: one event); the same card without "one or more" twice.
    scenarios = Path(__file__).resolve().parents[1] / "scenarios"
    scenario = load(str(scenarios / "603.2c-vengeful-townsfolk-one-or-more.toml")).scenario
    assert check(run(scenario)).conforms
    assert run(scenario).states[1]["triggers"][0] == 1
    each = replace(scenario, cards=(replace(scenario.cards[0], flags=("creature_card",)), *scenario.cards[1:]))
    assert run(each).states[1]["triggers"][0] == 2
    (mutant,) = [m for m in MUTANTS if m.id == "batching-lost"]
    found = check(mutant.run(scenario))
    assert [(v.moment, v.clause) for v in found.violations if v.moment == 1] == [(1, "603.6c")]


def test_this_ability_triggers_only_once_each_turn_and_a_mutant_that_triggers_again_is_caught():
    # Vraan, Executioner Thane: two deaths at once trigger it once; its instance countered, a later death that turn
    # doesn't trigger it (Elvish Warmaster's ruling of 2021-02-05 on the phrase); the next turn one does.
    scenarios = Path(__file__).resolve().parents[1] / "scenarios"
    scenario = load(str(scenarios / "603.2c-vraan-triggers-only-once-each-turn.toml")).scenario
    trace = run(scenario)
    assert check(trace).conforms
    assert [trace.states[t]["base_triggers"][0] for t in (1, 3, 6)] == [1, 0, 1]
    (mutant,) = [m for m in MUTANTS if m.id == "triggers-again-this-turn"]
    # (its second instance would wait on the stack as the turn ends, which the script's engine refuses: stop there)
    found = check(mutant.run(replace(scenario, actions=scenario.actions[:3])))
    assert min(v.moment for v in found.violations) == 3
    assert {v.clause for v in found.violations if v.moment == 3} == {"text.triggers_once_each_turn"}


def test_a_short_study_kills_by_the_right_clause():
    # (a short stream is another stream, not the start of the full one: Hypothesis draws by max_examples; this one
    # kills no-look-back, doubler-applies-to-delayed and triggers-again-this-turn)
    result = study(45)
    killed = [o for o in result.outcomes if o.killed]
    assert not result.reference_violations
    assert len(killed) >= 3, [o.mutant.id for o in killed]
    assert all(o.right_clause for o in killed), [(o.mutant.id, o.broken) for o in killed if not o.right_clause]
    assert all(o.scenarios <= 45 for o in result.outcomes)


def test_mutants_command_json(capsys):
    code = main(["mutants", "--scenarios", "40", "--mutant", "no-look-back", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    (item,) = report["mutants"]
    assert code == 0
    assert {"id", "killed", "clause", "scenarios"} <= set(item)
    assert item["id"] == "no-look-back" and item["killed"] and item["clause"].startswith("603.10")


def test_unknown_mutant_is_a_usage_error(capsys):
    assert main(["mutants", "--mutant", "nope"]) == 2
    assert "--mutant nope: no such mutant" in capsys.readouterr().err


# That every mutant is killed, by the clause its bug breaks, with the reference engine breaking none, over the
# default 10,000 scenarios, is docs/check.md's `rule603 mutants` example (exhaustive, tests/test_doc_examples.py):
# its table says "yes" twice for each mutant with the scenarios each took, and the command exits 0 only
# when all of that holds. The study ran here a second time, about seven minutes of CI on a slow machine.
