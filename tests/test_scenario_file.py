"""Scenario files (TOML): what people write is read faithfully, and every mistake names file, line and field."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from rule603.engines.scenario_file import ScenarioFileError, load, play
from rule603.models import game

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

BASE = """\
title = "two creatures"

[[players]]
name = "Alice"

[[players]]
name = "Bob"

[[objects]]
name = "Blood Artist"
types = ["creature"]
zone = "battlefield"
owner = "Alice"
trigger = "creature_dies"

[objects.ability]
may = true

[[objects]]
name = "Grizzly Bears"
types = ["creature"]
zone = "hand"
owner = "Bob"

[[actions]]
destroy = ["Blood Artist"]

[[questions]]
id = "q"
ask = "how_many_times"
ability = "Blood Artist"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_names_become_numbers(tmp_path: Path):
    loaded = load(_write(tmp_path, BASE))
    artist, bears = loaded.scenario.cards
    assert loaded.players == ("Alice", "Bob") and loaded.objects == ("Blood Artist", "Grizzly Bears")
    assert (artist.owner, artist.trigger, artist.zone) == (0, "creature_dies", "battlefield")
    assert set(artist.flags) == {"creature_card", "optional"}
    assert (bears.owner, bears.zone) == (1, "hand")
    assert loaded.scenario.actions[0].destroy == (0,)
    (question,) = loaded.questions
    assert (question.id, question.ask, question.ability, question.line) == ("q", "how_many_times", 0, 28)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'trigger = "creature_dies"',
            'trigger = "creature_dies"\ncolour = "black"',
            "s.toml:15: objects[0].colour: unknown field",
        ),
        (
            'destroy = ["Blood Artist"]',
            'destroy = ["Blood Artsit"]',
            "s.toml:26: actions[0].destroy: no object named 'Blood Artsit'",
        ),
        ('owner = "Bob"', 'owner = "Carol"', "s.toml:23: objects[1].owner: no player named 'Carol'"),
        ('zone = "hand"', 'zone = "sideboard"', "s.toml:22: objects[1].zone: 'sideboard' is not one of"),
        ("may = true", 'may = "yes"', "s.toml:17: objects.ability[0].may: expected bool, got 'yes'"),
        ('ask = "how_many_times"', 'ask = "why"', "s.toml:30: questions[0].ask: 'why' is not one of"),
        ('title = "two creatures"', 'title = "two creatures', "s.toml:1: not TOML"),
        (
            'ability = "Blood Artist"',
            'ability = "Nobody"',
            "s.toml:31: questions[0].ability: no ability named 'Nobody'",
        ),
        (
            'trigger = "creature_dies"',
            'trigger = "creature_dies"\ninstances = 5',
            "s.toml:15: objects[0].instances: 5: an object has 1 to 3 instances",
        ),
        (
            'trigger = "creature_dies"',
            'trigger = "creature_dies"\nchapters = 2',
            "s.toml:15: objects[0].chapters: 2: a Saga (trigger 'chapter') has 1 to 3 chapters",
        ),
        ("may = true", "mana_ability = true", "s.toml:9: objects[0]: a triggered mana ability triggers on a land"),
        ('zone = "hand"', 'zone = "hand"\ntapped = true', "s.toml:19: objects[1]: only a permanent can be tapped"),
        (
            'name = "Bob"',
            'name = "Bob"\nhand_size = 9',
            "players[1].hand_size: 9: 1 named object(s) are in this hand, and the model has room for 4 more",
        ),
        (
            'zone = "hand"',
            'zone = "hand"\ntoken = true',
            "s.toml:22: objects[1].zone: 'hand': a token exists only on the battlefield (111.1, 111.7)",
        ),
        ('zone = "hand"', 'zone = "outside"', "s.toml:22: objects[1].zone: 'outside' is not one of"),
        ('zone = "hand"', 'zone = "hand"\ntoken = "yes"', "s.toml:23: objects[1].token: expected bool, got 'yes'"),
        (
            'zone = "hand"',
            'zone = "hand"\nsupertypes = ["snow"]',
            "s.toml:23: objects[1].supertypes: 'snow' is not one of legendary",
        ),
        (
            'zone = "hand"',
            'zone = "hand"\ncard_name = "Bears"',
            "s.toml:23: objects[1].card_name: only the legend rule reads names in this model",
        ),
    ],
)
def test_a_mistake_is_one_line_naming_file_line_and_field(tmp_path: Path, old: str, new: str, expected: str):
    assert old in BASE
    path = _write(tmp_path, BASE.replace(old, new, 1))
    with pytest.raises(ScenarioFileError) as caught:
        load(path)
    message = str(caught.value)
    assert "\n" not in message
    assert expected in message.replace(str(tmp_path) + "/", ""), message


def test_an_action_impossible_in_the_stated_zone_names_its_line(tmp_path: Path):
    path = _write(tmp_path, BASE.replace('destroy = ["Blood Artist"]', 'destroy = ["Grizzly Bears"]'))
    expected = r"s\.toml:25: actions\[0\]: destroy 'Grizzly Bears': it is in the hand"
    with pytest.raises(ScenarioFileError, match=expected):
        play(load(path))


def test_hand_size_adds_named_cards_and_keeps_their_names_free(tmp_path: Path):
    with_hand = BASE.replace('name = "Bob"', 'name = "Bob"\nhand_size = 3', 1)
    loaded = load(_write(tmp_path, with_hand))
    assert loaded.objects[-2:] == ("Bob's card 1", "Bob's card 2")
    assert [c.zone for c in loaded.scenario.cards[-2:]] == ["hand", "hand"]
    clash = with_hand.replace('name = "Grizzly Bears"', 'name = "Bob\'s card 1"', 1)
    with pytest.raises(ScenarioFileError, match='objects\\[1\\].name: "Bob\'s card 1" is the name of a card hand_size'):
        load(_write(tmp_path, clash))


def test_two_copies_of_a_legendary_card_share_a_name_and_a_token_starts_outside(tmp_path: Path):
    legends = BASE.replace('types = ["creature"]', 'types = ["creature"]\nsupertypes = ["legendary"]')
    legends = legends.replace('name = "Grizzly Bears"', 'name = "Blood Artist (2)"\ncard_name = "Blood Artist"')
    artist, second = load(_write(tmp_path, legends)).scenario.cards
    assert artist.legend_name == second.legend_name == 1
    other = legends.replace('card_name = "Blood Artist"', 'card_name = "Grizzly Bears"')
    assert [c.legend_name for c in load(_write(tmp_path, other)).scenario.cards] == [1, 2]
    tokens = BASE.replace('zone = "hand"', "token = true")
    bears = load(_write(tmp_path, tokens)).scenario.cards[1]
    assert (bears.token, bears.zone, bears.legend_name) == (True, "outside", 0)
    created = tokens.replace('destroy = ["Blood Artist"]', 'create = "Grizzly Bears"\nkeep = []')
    assert load(_write(tmp_path, created)).scenario.actions[0].create == (1,)


def test_missing_file_is_one_line(tmp_path: Path):
    with pytest.raises(ScenarioFileError, match="nope.toml: no such file"):
        load(tmp_path / "nope.toml")


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.name)
def test_committed_scenarios_load_and_play(path: Path):
    loaded = load(path)
    played = play(loaded)
    # One moment per action, and one more for each batch of state-based actions the engine performs (704.3):
    # a moment no action made is one without priority before it, where something was due (the check repeats: a
    # token the legend rule puts into the graveyard ceases to exist in the next batch, 704.5d).
    extra = played.length - len(loaded.scenario.actions) - 1
    assert extra >= 0
    sba = sum(
        1
        for t in range(1, played.length)
        if not played.states[t - 1]["priority"]
        and played.states[t - 1]["step"] != game.UNTAP
        and played.states[t - 1]["step"] != game.CLEANUP
    )
    assert extra <= sba


DELAYED = BASE.replace(
    '[[actions]]\ndestroy = ["Blood Artist"]',
    '[[delayed]]\nname = "Later"\ntrigger = "end_step"\nsource = "Blood Artist"\nREFERS\n\n'
    '[[actions]]\ndestroy = ["Blood Artist"]',
)


@pytest.mark.parametrize(
    ("refers", "expected"),
    [
        ("", ()),  # an "at the beginning of" condition names no object: by default it refers to none
        ("refers_to = []", ()),
        ('refers_to = "Grizzly Bears"', (1,)),
        ('refers_to = ["Grizzly Bears", "Blood Artist"]', (1, 0)),
        ('trigger = "leaves_self"', (0,)),  # "When this creature leaves": its source, by default
    ],
)
def test_a_delayed_ability_refers_to_no_object_one_or_several(tmp_path: Path, refers: str, expected: tuple):
    text = DELAYED.replace("REFERS", refers)
    if refers.startswith("trigger"):
        text = text.replace('trigger = "end_step"\n', "")
    (delayed,) = load(_write(tmp_path, text)).scenario.delayed
    assert delayed.refers_to == expected


@pytest.mark.parametrize(
    ("refers", "expected"),
    [
        ('refers_to = ["Grizzly Bear"]', "delayed[0].refers_to: no object named 'Grizzly Bear'"),
        ('refers_to = ["Grizzly Bears", "Grizzly Bears"]', "delayed[0].refers_to: names the same object twice"),
        ("refers_to = 3", "delayed[0].refers_to: expected str, got 3"),
        (
            'trigger = "leaves_self"\nrefers_to = ["Grizzly Bears", "Blood Artist"]',
            "delayed[0].refers_to: trigger 'leaves_self' names an object ('this'): the ability refers to exactly "
            "that one, not 2",
        ),
        ('trigger = "becomes_tapped"\nrefers_to = []', "refers to exactly that one, not 0"),
    ],
)
def test_a_bad_refers_to_is_one_line(tmp_path: Path, refers: str, expected: str):
    text = DELAYED.replace("REFERS", refers)
    if refers.startswith("trigger"):
        text = text.replace('trigger = "end_step"\n', "")
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text))
    message = str(caught.value)
    assert "\n" not in message and expected in message, message


def test_a_bad_refers_to_exits_2_with_one_line(tmp_path: Path, capsys):
    from rule603.cli import main

    path = _write(tmp_path, DELAYED.replace("REFERS", 'refers_to = ["Nobody"]'))
    assert main(["rule", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "refers_to: no object named 'Nobody'" in err


ORACLE = BASE.replace(
    'trigger = "creature_dies"\n\n[objects.ability]\nmay = true\n',
    'oracle = "Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life."\n',
)


def test_a_triggered_ability_given_as_printed_text_is_the_models_condition_with_its_modifiers(tmp_path: Path):
    artist = load(_write(tmp_path, ORACLE)).scenario.cards[0]
    assert artist.trigger == "creature_dies"
    assert set(artist.flags) == {"creature_card", "targeted"}  # "target player"; no "may"
    felidar = ORACLE.replace(
        "Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life.",
        "At the beginning of your upkeep, if you have 40 or more life, you may win the game.",
    )
    card = load(_write(tmp_path, felidar)).scenario.cards[0]
    assert card.trigger == "your_upkeep" and set(card.flags) == {"creature_card", "has_if", "optional"}


@pytest.mark.parametrize(
    ("oracle", "expected"),
    [
        (
            "Whenever another attacking creature dies, draw a card.",
            "s.toml:14: objects[0].oracle: 'Whenever another attacking creature dies': the game model cannot play"
            " this condition yet; with the same event it plays 'Whenever a creature dies' (creature_dies)",
        ),
        (
            "Whenever a creature with flying dies, draw a card.",
            "s.toml:14: objects[0].oracle: not understood: with flying: in 'a creature with flying'",
        ),
        (
            "Whenever an opponent draws a card, you gain 1 life.",
            "the game model cannot play this condition yet (no trigger kind of the model has the event draws)",
        ),
        (
            "Whenever one or more +1/+1 counters are put on this creature, draw. This ability triggers only once"
            " each turn.",
            "the game model cannot play this condition yet",
        ),
        ("Flying", "not understood: Flying: a triggered ability begins with 'When', 'Whenever' or 'At' (603.1)"),
    ],
)
def test_printed_text_the_model_cannot_play_is_one_line_saying_why(tmp_path: Path, oracle: str, expected: str):
    text = ORACLE.replace(
        "Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life.", oracle
    )
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text))
    message = str(caught.value).replace(str(tmp_path) + "/", "")
    assert "\n" not in message and expected in message, message


def _with_oracle(tmp_path: Path, oracle: str) -> Path:
    return _write(
        tmp_path,
        ORACLE.replace(
            '"Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life."', oracle
        ),
    )


def test_a_card_with_two_printed_abilities_has_both_and_each_is_named(tmp_path: Path):
    loaded = load(
        _with_oracle(
            tmp_path, '["When this creature enters, draw a card.", "When this creature dies, you may draw a card."]'
        )
    )
    card = loaded.scenario.cards[0]
    assert (card.trigger, card.ability(1).trigger, card.ability(1).subject_relation) == (
        "enters_self",
        "creature_dies",
        "this",
    )
    # Both draw, which does nothing to the creature: 603.6 fails only the part that acts on it (other_effect).
    assert card.ability(1).flags == ("optional", "other_effect") and not card.has("optional")
    assert card.has("other_effect")
    cards = len(loaded.objects)
    assert loaded.abilities[:cards] == loaded.objects and loaded.abilities[cards] == f"{loaded.objects[0]} #2"
    assert loaded.scenario.universe_sizes()["printed"] == 2 * cards


@pytest.mark.parametrize(
    ("oracle", "expected"),
    [
        (
            '["When this creature enters, draw a card.", "Flying"]',
            "objects[0].oracle: not understood: Flying",
        ),
        (
            '["When this creature enters, draw a card.", "When this creature dies, draw a card.",'
            ' "At the beginning of your upkeep, draw a card.", "At the beginning of the end step, draw a card."]',
            "objects[0].oracle: 4 texts: a card has 1 to 3 printed triggered abilities here",
        ),
        ("[]", "objects[0].oracle: 0 texts: a card has 1 to 3 printed triggered abilities here"),
    ],
)
def test_a_list_of_printed_abilities_is_checked_text_by_text(tmp_path: Path, oracle: str, expected: str):
    with pytest.raises(ScenarioFileError) as caught:
        load(_with_oracle(tmp_path, oracle))
    assert expected in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_printed_text_and_the_flags_it_says_are_not_given_twice(tmp_path: Path):
    both = ORACLE.replace("oracle = ", 'trigger = "creature_dies"\noracle = ')
    with pytest.raises(ScenarioFileError, match="objects\\[0\\].oracle: give the triggered ability as 'trigger'"):
        load(_write(tmp_path, both))
    flag = ORACLE.replace(
        '\n\n[[objects]]\nname = "Grizzly', '\n[objects.ability]\ntargeted = true\n\n[[objects]]\nname = "Grizzly', 1
    )
    with pytest.raises(ScenarioFileError, match="objects.ability\\[0\\].targeted: the printed text"):
        load(_write(tmp_path, flag))


def test_a_scenario_in_printed_text_answers_as_the_same_scenario_in_trigger_kinds(tmp_path: Path):
    """The committed scenarios that give their cards' printed texts are, card for card, the scenarios the model's
    kinds wrote before (the same rulings, the same questions)."""
    felidar = "condition = false         # Alice has 39 life\n"
    for name, kind, after, table in [
        ("603.4-felidar-sovereign", "your_upkeep", felidar, "\n[objects.ability]\nintervening_if = true\n"),
        # (its text says it does something else than to Mulldrifter, 603.6: a kind needs the key)
        ("603.6-mulldrifter-evoke", "enters_self", "", "\n[objects.ability]\nother_effect = true"),
        ("603.2b-end-step", "end_step", "", ""),
    ]:
        printed = (SCENARIOS / f"{name}.toml").read_text(encoding="utf-8")
        assert "oracle = " in printed and (not after or after in printed)
        given = f'trigger = "{kind}"' + ("" if after else table)
        lines = [given if x.startswith("oracle = ") else x for x in printed.split("\n")]
        kinds = "\n".join(lines).replace(after, after + table) if after else "\n".join(lines)
        a, b = load(_write(tmp_path, printed)), load(_write(tmp_path, kinds))
        assert a.scenario == b.scenario, name
        assert [dataclasses.replace(q, line=0) for q in a.questions] == [
            dataclasses.replace(q, line=0) for q in b.questions
        ]


def test_a_subject_narrows_down_what_a_condition_about_any_creature_speaks_of(tmp_path: Path):
    text = BASE.replace(
        'trigger = "creature_dies"\n',
        'trigger = "creature_dies"\nsubject = { relation = "another", controller = "you" }\n',
    )
    artist = load(_write(tmp_path, text)).scenario.cards[0]
    assert (artist.subject_relation, artist.subject_controller, artist.subject_token) == ("another", "you", "any")
    printed = load(
        _write(tmp_path, ORACLE.replace("Blood Artist or another creature", "a nontoken creature you control"))
    )
    artist = printed.scenario.cards[0]
    assert (artist.trigger, artist.subject_controller, artist.subject_token) == ("creature_dies", "you", "nontoken")


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ('{ relation = "other" }', "s.toml:15: objects[0].subject.relation: 'other' is not one of any, this, another"),
        (
            '{ whose = "you" }',
            "s.toml:15: objects[0].subject.whose: unknown field; known: relation, controller, token, type, one_or_more",
        ),
        ('"another"', "s.toml:15: objects[0].subject: expected dict"),
        (
            '{ type = "noncreature" }',  # a card type is said of a spell alone: "a creature dies" names its own
            "s.toml:15: objects[0].subject.type: 'noncreature': only 'whenever a player casts a spell' (spell_cast)",
        ),
        ('{ one_or_more = "yes" }', "s.toml:15: objects[0].subject.one_or_more: expected bool"),
        (
            '{ relation = "this", one_or_more = true }',
            "s.toml:15: objects[0].subject.one_or_more: 'one or more' speaks of several objects, not of 'this' one",
        ),
    ],
)
def test_a_subject_the_model_has_no_word_for_is_one_line(tmp_path: Path, subject: str, expected: str):
    text = BASE.replace('trigger = "creature_dies"\n', f'trigger = "creature_dies"\nsubject = {subject}\n')
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text))
    message = str(caught.value).replace(str(tmp_path) + "/", "")
    assert "\n" not in message and expected in message, message


def test_one_or_more_is_said_in_the_subject_or_read_from_the_printed_text(tmp_path: Path):
    subject = 'subject = { relation = "another", one_or_more = true }\n'
    text = BASE.replace('trigger = "creature_dies"\n', f'trigger = "creature_dies"\n{subject}')
    artist = load(_write(tmp_path, text)).scenario.cards[0]
    assert artist.subject_relation == "another" and artist.has("one_or_more")
    printed = load(
        _write(tmp_path, ORACLE.replace("Blood Artist or another creature dies", "one or more other creatures die"))
    )
    artist = printed.scenario.cards[0]
    assert (artist.trigger, artist.subject_relation, artist.has("one_or_more")) == ("creature_dies", "another", True)
    plain = load(_write(tmp_path, ORACLE.replace("Blood Artist or another creature dies", "another creature dies")))
    assert not plain.scenario.cards[0].has("one_or_more")


def test_this_ability_triggers_only_once_each_turn_is_a_flag_said_or_read(tmp_path: Path):
    said = BASE.replace("may = true\n", "may = true\ntriggers_once_each_turn = true\n")
    assert load(_write(tmp_path, said)).scenario.cards[0].has("triggers_once_each_turn")
    once = ORACLE.replace("you gain 1 life.", "you gain 1 life. This ability triggers only once each turn.")
    assert load(_write(tmp_path, once)).scenario.cards[0].has("triggers_once_each_turn")


def test_only_a_condition_about_any_object_of_a_kind_has_a_subject(tmp_path: Path):
    text = BASE.replace('trigger = "creature_dies"\n', 'trigger = "leaves_self"\nsubject = { relation = "another" }\n')
    with pytest.raises(ScenarioFileError, match="only a trigger about any object of a kind"):
        load(_write(tmp_path, text))
    both = ORACLE.replace("oracle =", 'subject = { relation = "another" }\noracle =')
    with pytest.raises(ScenarioFileError, match="not both"):
        load(_write(tmp_path, both))


def test_when_this_dies_is_said_of_a_creature(tmp_path: Path):
    text = ORACLE.replace("Whenever Blood Artist or another creature dies", "When Blood Artist dies").replace(
        'types = ["creature"]\nzone = "battlefield"\nowner = "Alice"\noracle',
        'types = ["artifact"]\nzone = "battlefield"\nowner = "Alice"\noracle',
        1,
    )
    with pytest.raises(ScenarioFileError, match="of a creature only"):
        load(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("table", "entry", "message"),
    [
        ("questions", 'id = "q{i}"\nask = "does_trigger"\nability = "x"\n', "questions: 20000 questions: a scenario "),
        ("objects", 'name = "o{i}"\nowner = "A"\nzone = "hand"\n', "cards: 20001 cards: the model plays 1 to 6"),
        ("actions", "next_turn = true\n", "actions: 20000 actions: a trace holds at most"),
    ],
)
def test_a_scenario_far_larger_than_the_model_is_refused_before_any_work(tmp_path: Path, table, entry, message):
    """Issue 40: a file of 20,000 tables was worked on for minutes; it is refused as it is read."""
    head = '[[players]]\nname = "A"\n[[players]]\nname = "B"\n[[objects]]\nname = "x"\nowner = "A"\n'
    head += 'zone = "battlefield"\ntypes = ["creature"]\ntrigger = "creature_dies"\n'
    path = tmp_path / "huge.toml"
    path.write_text(head + "".join(f"[[{table}]]\n" + entry.format(i=i) for i in range(20000)), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as refused:
        load(path)
    assert message in str(refused.value)


STORM = Path(__file__).resolve().parents[1] / "scenarios" / "603.2c-storm-the-vault-one-or-more.toml"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # Alice's creature dealing combat damage to Alice: an attacking creature attacks another player (508.1b)
        ('"Grizzly Bears" = "Bob"', '"Grizzly Bears" = "Alice"', "deals combat damage to one other player"),
        # outside a combat damage step's beginning: with the top of the stack resolving (510.1-510.3)
        ("resolve = true  ", 'resolve = true\ncombat_damage = { "Grizzly Bears" = "Bob" }  ', "with the stack empty"),
        # before combat: the precombat main phase
        ('step = "combat_damage"', 'step = "beginning_of_combat"', "with the stack empty"),
    ],
)
def test_combat_damage_to_a_player_is_an_attacking_creatures_as_a_combat_damage_step_begins(
    tmp_path: Path, old: str, new: str, expected: str
):
    text = STORM.read_text(encoding="utf-8")
    assert old in text
    with pytest.raises(ScenarioFileError, match=expected):
        play(load(_write(tmp_path, text.replace(old, new, 1))))


COPIES = ORACLE.replace(
    '[[actions]]\ndestroy = ["Blood Artist"]',
    '[[objects]]\nname = "Clone"\ncopy_of = "Blood Artist"\nzone = "hand"\nowner = "Bob"\n\n'
    '[[objects]]\nname = "Artist token"\ntoken = true\ncopy_of = "Blood Artist"\nzone = "outside"\nowner = "Alice"\n\n'
    '[[actions]]\ndestroy = ["Blood Artist"]',
)


def test_a_copy_has_the_printed_text_of_what_it_copies_and_its_own_place(tmp_path: Path):
    loaded = load(_write(tmp_path, COPIES))
    artist, _, clone, token = loaded.scenario.cards
    for copy in (clone, token):
        assert (
            (copy.trigger, set(copy.flags))
            == (artist.trigger, set(artist.flags))
            == ("creature_dies", {"creature_card", "targeted"})
        )
        assert (copy.subject_relation, copy.subject_controller) == (artist.subject_relation, artist.subject_controller)
    assert (clone.zone, clone.owner, clone.token) == ("hand", 1, False)  # 707.2: not its zone, owner or token status
    assert (token.zone, token.token) == ("outside", True)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('copy_of = "Blood Artist"\nzone = "hand"', 'copy_of = "Clone"\nzone = "hand"'), "not itself, not a copy"),
        (('copy_of = "Blood Artist"\nzone = "hand"', 'copy_of = "Nobody"\nzone = "hand"'), "no object named 'Nobody'"),
        (
            ('name = "Clone"\ncopy_of', 'name = "Clone"\ntypes = ["creature"]\ncopy_of'),
            "objects[2].types: a copy takes",
        ),
    ],
)
def test_a_copy_that_cannot_be_is_one_line(tmp_path: Path, change, expected):
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, COPIES.replace(*change, 1)))
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_a_copy_of_an_ability_that_works_off_the_battlefield_is_refused(tmp_path: Path):
    from_hand = COPIES.replace(
        'oracle = "Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life."\n',
        'trigger = "creature_dies"\n\n[objects.ability]\nworks_from_hand = true\n',
    )
    with pytest.raises(
        ScenarioFileError, match=r"objects\[2\]\.copy_of: a copy here has the copied text in every zone"
    ):
        load(_write(tmp_path, from_hand))


def test_a_copy_of_a_legendary_permanent_has_its_name_for_the_legend_rule(tmp_path: Path):
    legendary = COPIES.replace('name = "Blood Artist"\n', 'name = "Blood Artist"\nsupertypes = ["legendary"]\n', 1)
    artist, bears, clone, token = load(_write(tmp_path, legendary)).scenario.cards
    assert artist.legend_name == clone.legend_name == token.legend_name != 0 and bears.legend_name == 0


def test_a_second_abilitys_name_taken_by_something_else_is_one_line(tmp_path: Path):
    two = '["When this creature enters, draw a card.", "When this creature dies, draw a card."]'
    text = _with_oracle(tmp_path, two).read_text(encoding="utf-8")
    name = load(_with_oracle(tmp_path, two)).objects[0]
    clash = text.replace('"Bob"', f'"{name} #2"')
    assert clash != text
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, clash))
    assert f"objects[0].name: its ability 2 is '{name} #2', the name of something else" in str(caught.value)


def test_a_copy_of_a_card_whose_second_ability_works_from_the_stack_is_refused(tmp_path: Path):
    two = '["When this creature enters, draw a card.", "When you cast this spell, draw a card."]'
    name = load(_with_oracle(tmp_path, two)).objects[0]
    copy = f'\n[[objects]]\nname = "Clone"\ncopy_of = "{name}"\nzone = "hand"\nowner = "Alice"\n'
    text = _with_oracle(tmp_path, two).read_text(encoding="utf-8")
    actions = text.index("[[actions]]") if "[[actions]]" in text else len(text)
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text[:actions] + copy + "\n" + text[actions:]))
    assert "copy_of: a copy here has the copied text in every zone" in str(caught.value)


def test_each_printed_ability_takes_its_own_ability_keys_condition_and_instances(tmp_path: Path):
    # Keys the text doesn't say ("granted by an effect", "can't be countered"), given for each ability in a list of
    # tables.
    two = '["When this creature enters, draw a card.", "When this creature dies, you may draw a card."]'
    text = _with_oracle(tmp_path, two).read_text(encoding="utf-8")
    lists = text.replace(
        "oracle = " + two,
        "oracle = " + two + "\ncondition = [true, false]\n"
        "ability = [{ cant_be_countered = true }, { granted_by_effect = true }]",
        1,
    )
    assert lists != text
    card = load(_write(tmp_path, lists)).scenario.cards[0]
    assert card.has("uncounterable") and not card.ability(1).has("uncounterable")
    assert set(card.ability(1).flags) == {"optional", "granted", "other_effect"} and not card.has("granted")
    assert (card.condition, card.ability(1).condition) == (True, False)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("condition = [true, false, true]", "objects[0].condition: 3 entries for 2 printed triggered abilities"),
        ("ability = [{}, { may = true }]", "objects[0].ability[1].may: the printed text ('oracle') says whether"),
        ("instances = []", "objects[0].instances: an empty list"),
    ],
)
def test_per_ability_lists_that_do_not_fit_the_texts_are_one_line(tmp_path: Path, given: str, expected: str):
    two = '["When this creature enters, draw a card.", "When this creature dies, draw a card."]'
    text = (
        _with_oracle(tmp_path, two).read_text(encoding="utf-8").replace("oracle = " + two, f"oracle = {two}\n{given}")
    )
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text))
    assert expected in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_list_of_ability_tables_needs_a_list_of_printed_texts(tmp_path: Path):
    text = ORACLE.replace(
        'oracle = "Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life."',
        'trigger = "creature_dies"\nability = [{ may = true }, { may = true }]',
    )
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text))
    assert "objects[0].ability: a list (one per ability) goes with a list of printed texts, 'oracle'" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("ability", "message", "flags"),
    [
        # "At the beginning of the end step, exile it": no event happened to an object.
        (
            'trigger = "end_step"',
            "s.toml:10: objects[0].ability.acts_on_that: for a condition about any object of a kind",
            "acts_on_that = true",
        ),
        (
            'trigger = "creature_dies"\nsubject = { relation = "this" }',
            "is about its own object as 603.6 says",
            "acts_on_that = true",
        ),
        # "Whenever one or more creatures die, if it ...": one trigger for them all, no one object to ask it of.
        (
            'trigger = "creature_dies"\nsubject = { one_or_more = true }',
            "'one or more' triggers once for them all",
            "intervening_if = true, if_about_that = true",
        ),
        # "... deal combat damage to a player, untap them": once for each player, each about its own creatures.
        (
            'trigger = "combat_damage_to_player"\nsubject = { one_or_more = true }',
            "triggers once for each player dealt damage, each about its own creatures",
            "acts_on_that = true",
        ),
    ],
)
def test_acts_on_that_where_no_one_object_is_it_is_one_line(tmp_path: Path, ability: str, message: str, flags: str):
    text = f"""
[[players]]
name = "Alice"

[[objects]]
name = "Keeper"
types = ["creature"]
zone = "battlefield"
{ability}
ability = {{ {flags} }}
"""
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, text))
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("on_resolution = 8", "reflexive[0].on_resolution: 8: the model counts 1 to 7 resolutions"),
        ("on_resolution = 2\nwhen_paid_one_or_more_times = true", "it triggers on a resolution, not on paying a cost"),
    ],
)
def test_a_reflexive_ability_on_a_resolution_it_cannot_wait_for_is_one_line(tmp_path: Path, entry: str, message: str):
    gimli = (SCENARIOS / "603.7h-gimli-third-resolution.toml").read_text(encoding="utf-8")
    assert "on_resolution = 3\n" in gimli
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, gimli.replace("on_resolution = 3\n", entry + "\n")))
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('"Pelt Collector" = ["Grizzly Bears",', '"Pelt Colector" = ["Grizzly Bears",'), "no ability named"),
        (('= ["Grizzly Bears", "Runeclaw Bear",', '= ["Grizly Bears", "Runeclaw Bear",'), "no object named"),
        (("intervening_if = true, if_about_that", "if_about_that"), "give intervening_if = true too"),
    ],
)
def test_an_if_about_each_object_that_cannot_be_is_one_line(tmp_path: Path, change, message: str):
    pelt = (SCENARIOS / "603.4-pelt-collector-each-creature.toml").read_text(encoding="utf-8")
    assert change[0] in pelt
    with pytest.raises(ScenarioFileError) as caught:
        load(_write(tmp_path, pelt.replace(*change)))
    assert message in str(caught.value) and "\n" not in str(caught.value)


GRAVE_REAVER = SCENARIOS / "608.2-colossal-grave-reaver-puts-one-onto-the-battlefield.toml"
LAST_RESOLVE = 'resolve = true              # moment 3: only the Elves are still one of "them"'


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        (
            'put_onto_battlefield = "Grizzly Bears"',
            "'Grizzly Bears': the resolving ability doesn't find it (it is a new object (400.7), or phased out), so it"
            " doesn't put it onto the battlefield: leave that move out",
        ),
        (
            'exile = "Llanowar Elves"',
            "'Llanowar Elves': the resolving ability's effect would put it onto the battlefield (moves_to), not move it"
            " into exile",
        ),
    ],
)
def test_a_move_the_script_writes_for_an_effect_that_says_where_is_checked(tmp_path: Path, move: str, expected: str):
    """Issue 42 item 5: the ability's text says where it moves what it finds (``moves_to``); a script that moves an
    object it doesn't find, or moves one elsewhere, contradicts the rules: one line, naming the action."""
    text = GRAVE_REAVER.read_text(encoding="utf-8")
    assert LAST_RESOLVE in text
    path = _write(tmp_path, text.replace(LAST_RESOLVE, f"resolve = true\n{move}"))
    with pytest.raises(ScenarioFileError) as caught:
        play(load(path))
    assert str(caught.value).endswith(expected) and "actions[2]" in str(caught.value), caught.value


def test_the_effect_moves_what_it_finds_where_its_text_says_and_the_script_may_say_it_too(tmp_path: Path):
    text = GRAVE_REAVER.read_text(encoding="utf-8")
    derived = play(load(GRAVE_REAVER))
    path = _write(tmp_path, text.replace(LAST_RESOLVE, 'resolve = true\nput_onto_battlefield = "Llanowar Elves"'))
    asserted = play(load(path))
    zones = [[game.ZONES[z] for z in state["zone"]] for state in derived.states]
    assert zones[-1][2] == "battlefield" and zones[-1][1] == "exile", zones[-1]
    assert asserted.states == derived.states


@pytest.mark.parametrize(
    ("ability", "expected"),
    [
        (
            '{ moves_to = "sideboard" }',
            "moves_to: 'sideboard' is not one of hand, battlefield, graveyard, exile, library, battlefield under your"
            " control",
        ),
        ('{ moves_to = "hand" }', "moves_to: it moves the object the effect acts on"),
    ],
)
def test_moves_to_is_a_destination_of_an_ability_that_acts_on_an_object(tmp_path: Path, ability: str, expected: str):
    text = GRAVE_REAVER.read_text(encoding="utf-8")
    old = 'ability = { acts_on_that = true, moves_to = "battlefield" }'
    assert old in text
    with pytest.raises(ScenarioFileError) as caught:
        play(load(_write(tmp_path, text.replace(old, f"ability = {ability}"))))
    assert expected in str(caught.value) and "\n" not in str(caught.value), caught.value
