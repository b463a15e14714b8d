"""The trigger-condition language (models/conditions.py) and the reader of printed text (models/oracle_text.py).

The expected conditions are written by hand from each card's Oracle text and rule 603's words, not from the
reader: a card whose reading changes fails here.  The round trip (a condition put into words and read back) is
checked over the whole language with Hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rule603.models import game
from rule603.models.conditions import (
    PRESETS,
    STEPS,
    THIS,
    Condition,
    ConditionError,
    Event,
    ModelPoint,
    Subject,
    describe,
    looks_back,
    model_point,
    preset_kind,
)
from rule603.models.oracle_text import printed_ability, read_trigger


def enters(subject: Subject = THIS, **kw) -> Condition:
    return Condition(Event("zone_change", destination="battlefield"), subject, **kw)


def dies(subject: Subject = THIS, **kw) -> Condition:
    return Condition(Event("zone_change", origin="battlefield", destination="graveyard"), subject, **kw)


CREATURE = ("creature",)

#: (card name, its Oracle text's triggered ability, the condition it has, written by hand)
CARDS = [
    ("Soul Warden", "Whenever another creature enters, you gain 1 life.", enters(Subject("another", CREATURE))),
    (
        "Blood Artist",
        "Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life.",
        dies(Subject("any", CREATURE), targets=True),
    ),
    (
        "Zulaport Cutthroat",
        "Whenever Zulaport Cutthroat or another creature you control dies, each opponent loses 1 life and you gain"
        " 1 life.",
        dies(Subject("any", CREATURE, controller="you")),
    ),
    (
        "Grim Haruspex",
        "Whenever another nontoken creature you control dies, draw a card.",
        dies(Subject("another", CREATURE, token=False, controller="you")),
    ),
    (
        "Dictate of Erebos",
        "Whenever a creature you control dies, each opponent sacrifices a creature.",
        dies(Subject("any", CREATURE, controller="you")),
    ),
    ("Kokusho, the Evening Star", "When Kokusho dies, each opponent loses 5 life.", dies()),
    ("Mulldrifter", "When Mulldrifter enters the battlefield, draw two cards.", enters()),  # older wording
    ("Mulldrifter", "When this creature enters, draw two cards.", enters()),
    (
        "Gravedigger",
        "When this creature enters, you may return target creature card from your graveyard to your hand.",
        enters(optional=True, targets=True),
    ),
    (
        "Genesis Chamber",
        "Whenever a nontoken creature enters, if Genesis Chamber is untapped, that creature's controller creates a"
        " 1/1 colorless Myr artifact creature token.",
        enters(Subject("any", CREATURE, token=False), intervening_if="~ is untapped"),
    ),
    (
        "Purphoros, God of the Forge",
        "Whenever another creature you control enters, Purphoros deals 2 damage to each opponent.",
        enters(Subject("another", CREATURE, controller="you")),
    ),
    (
        "Altar of the Brood",
        "Whenever another permanent you control enters, each opponent mills a card.",
        enters(Subject("another", controller="you")),
    ),
    (
        "Amulet of Vigor",
        "Whenever a permanent you control enters tapped, untap it.",
        None,  # "enters tapped" is not an event of the language: the reader says so
    ),
    (
        "Hardened Scales",  # no trigger: a replacement effect
        "If one or more +1/+1 counters would be put on a creature you control, that many plus one are put on it"
        " instead.",
        None,
    ),
    (
        "Felidar Sovereign",
        "At the beginning of your upkeep, if you have 40 or more life, you win the game.",
        Condition(Event("step_begins", step="upkeep", turn="you"), intervening_if="you have 40 or more life"),
    ),
    (
        "Sulfuric Vortex",
        "At the beginning of each player's upkeep, Sulfuric Vortex deals 2 damage to that player.",
        Condition(Event("step_begins", step="upkeep")),
    ),
    (
        "Masticore",
        "At the beginning of your upkeep, sacrifice Masticore unless you discard a card.",
        Condition(Event("step_begins", step="upkeep", turn="you"), optional=True),
    ),
    (
        "Archfiend of Depravity",
        "At the beginning of each opponent's end step, that player chooses up to two creatures they control, then"
        " sacrifices the rest.",
        Condition(Event("step_begins", step="end", turn="opponent")),
    ),
    (
        "Luminarch Ascension",
        "At the beginning of each opponent's end step, if you didn't lose life this turn, you may put a quest"
        " counter on Luminarch Ascension.",
        Condition(
            Event("step_begins", step="end", turn="opponent"),
            intervening_if="you didn't lose life this turn",
            optional=True,
        ),
    ),
    (
        "Goblin Rabblemaster",
        "At the beginning of combat on your turn, create a 1/1 red Goblin creature token with haste.",
        Condition(Event("step_begins", step="beginning_of_combat", turn="you")),
    ),
    (
        "Ball Lightning",
        "At the beginning of the end step, sacrifice Ball Lightning.",
        Condition(Event("step_begins", step="end")),
    ),
    (
        "Ajani's Pridemate",
        "Whenever you gain life, put a +1/+1 counter on Ajani's Pridemate.",
        Condition(Event("gains_life"), player="you"),
    ),
    (
        "Exquisite Blood",
        "Whenever an opponent loses life, you gain that much life.",
        Condition(Event("loses_life"), player="opponent"),
    ),
    (
        "Smothering Tithe",
        "Whenever an opponent draws a card, that player may pay {2}. If the player doesn't, you create a Treasure"
        " token.",
        Condition(Event("draws"), player="opponent", optional=True),  # 603.5: "may", whoever chooses
    ),
    (
        "Megrim",
        "Whenever an opponent discards a card, Megrim deals 2 damage to that player.",
        Condition(Event("discards"), player="opponent"),
    ),
    (
        "Rhystic Study",
        "Whenever an opponent casts a spell, you may draw a card unless that player pays {1}.",
        Condition(Event("cast"), player="opponent", optional=True),
    ),
    (
        "Guttersnipe",
        "Whenever you cast an instant or sorcery spell, Guttersnipe deals 2 damage to each opponent.",
        Condition(Event("cast"), Subject("any", ("instant", "sorcery")), player="you"),
    ),
    (
        "Hellrider",
        "Whenever a creature you control attacks, Hellrider deals 1 damage to the player or planeswalker it's"
        " attacking.",
        Condition(Event("attacks"), Subject("any", CREATURE, controller="you")),
    ),
    (
        "Sword of Fire and Ice",
        "Whenever equipped creature deals combat damage to a player, Sword of Fire and Ice deals 2 damage to any"
        " target and you draw a card.",
        Condition(Event("deals_damage", combat=True, to="player"), Subject("equipped"), targets=True),
    ),
    (
        "Edric, Spymaster of Trest",
        "Whenever a creature deals combat damage to one of your opponents, its controller may draw a card.",
        Condition(Event("deals_damage", combat=True, to="opponent"), Subject("any", CREATURE), optional=True),
    ),
    (
        "Old Gnawbone",
        "Whenever a creature you control deals combat damage to a player, create that many Treasure tokens.",
        Condition(Event("deals_damage", combat=True, to="player"), Subject("any", CREATURE, controller="you")),
    ),
    (
        "Tireless Tracker",
        "Whenever a land you control enters, investigate.",
        enters(Subject("any", ("land",), controller="you")),
    ),
    (
        "Landfall (older wording)",
        "Whenever a land enters the battlefield under your control, you gain 2 life.",
        enters(Subject("any", ("land",), controller="you")),
    ),
    (
        "Manabarbs",
        "Whenever a player taps a land for mana, Manabarbs deals 1 damage to that player.",
        None,  # "a player taps a land" (the player acting) is not the language's "is tapped for mana"
    ),
    (
        "Wild Growth",
        "Whenever enchanted land is tapped for mana, its controller adds an additional {G}.",
        Condition(Event("tapped_for_mana"), Subject("enchanted")),
    ),
    (
        "Omnath, Locus of Rage",
        "Whenever Omnath or another Elemental you control dies, Omnath deals 3 damage to any target.",
        dies(Subject("any", ("Elemental",), controller="you"), targets=True),
    ),
    (
        "Sheoldred, the Apocalypse",
        "Whenever you draw a card, you gain 2 life.",
        Condition(Event("draws"), player="you"),
    ),
    (
        "Bloodghast",
        "Whenever a land you control enters, you may return this card from your graveyard to the battlefield.",
        enters(Subject("any", ("land",), controller="you"), optional=True),
    ),
    (
        "Thing in the Ice",
        "Whenever you cast an instant or sorcery spell, remove an ice counter from Thing in the Ice.",
        Condition(Event("cast"), Subject("any", ("instant", "sorcery")), player="you"),
    ),
    (
        "Teferi's Imp",
        "Whenever Teferi's Imp phases out, discard a card.",
        Condition(Event("phases_out"), THIS),
    ),
    (
        "Grafted Exoskeleton",
        "Whenever Grafted Exoskeleton becomes unattached from a permanent, sacrifice that permanent.",
        None,  # "from a permanent": words after the event
    ),
    (
        "Laquatus's Champion",
        "When Laquatus's Champion leaves the battlefield, target player gains 6 life.",
        Condition(Event("zone_change", origin="battlefield"), THIS, targets=True),
    ),
    (
        "Akroma, Angel of Fury",  # a flavor-free check of "comes into play", the oldest wording
        "When Akroma comes into play, draw a card.",
        enters(),
    ),
    (
        "Stuffy Doll",
        "Whenever Stuffy Doll is dealt damage, it deals that much damage to the chosen player.",
        Condition(Event("dealt_damage"), THIS),
    ),
    (
        "Dark Depths",  # a state trigger (603.8) of another shape: not in the language yet
        "When Dark Depths has no ice counters on it, sacrifice it and create Marit Lage.",
        None,
    ),
    (
        "Lich's Mirror",  # a replacement effect, not a trigger
        "If you would lose the game, instead shuffle your hand, your graveyard, and all permanents you own into"
        " your library.",
        None,
    ),
    (
        "Lost in the Woods?",  # hypothetical name; the form is Kiora's Dismissal's older "whenever another player"
        "Whenever an opponent loses the game, draw a card.",
        Condition(Event("loses_game"), player="opponent"),
    ),
    (
        "Chasm Skulker",
        "When Chasm Skulker dies, create X 1/1 blue Squid creature tokens with islandwalk, where X is the number of"
        " +1/+1 counters on Chasm Skulker.",
        dies(),
    ),
    (
        "Hunted Troll",
        "When Hunted Troll enters, target opponent creates four 1/1 blue Faerie creature tokens with flying.",
        enters(targets=True),
    ),
    (
        "Riptide Laboratory",  # an activated ability: no trigger word
        "{1}{U}, {T}: Return target Wizard you control to its owner's hand.",
        None,
    ),
    (
        "Pyrohemia",
        "At the beginning of the end step, if no creatures are on the battlefield, sacrifice Pyrohemia.",
        Condition(Event("step_begins", step="end"), intervening_if="no creatures are on the battlefield"),
    ),
    (
        "Court of Grace",
        "At the beginning of your upkeep, create a 1/1 white Spirit creature token with flying. If you're the"
        " monarch, create a 4/4 white Angel creature token with flying instead.",
        Condition(Event("step_begins", step="upkeep", turn="you")),  # the "if" is not right after: not 603.4's
    ),
    (
        "Tergrid, God of Fright",
        "Whenever an opponent sacrifices a nontoken permanent or discards a permanent card, you may put that card"
        " onto the battlefield under your control from their graveyard.",
        None,
    ),
    (
        "Bitter Ordeal?",  # the form of Glorybringer's sort: a creature attacking
        "Whenever this creature attacks, you may exert it.",
        Condition(Event("attacks"), THIS, optional=True),
    ),
    (
        "Flanking (as Cavalry Master grants it)",
        "Whenever this creature becomes blocked by a creature without flanking, the blocking creature gets -1/-1"
        " until end of turn.",
        None,  # "by a creature without flanking": words after the event
    ),
    (
        "Champion of Lambholt",
        "Whenever another creature you control enters, creatures you control can't be blocked this turn by"
        " creatures with power less than Champion of Lambholt's power.",
        enters(Subject("another", CREATURE, controller="you")),
    ),
    (
        "Rite of Replication (a modal-trigger form)",
        "When this creature enters, choose one — • Draw a card. • Create a Treasure token.",
        enters(modal=True),
    ),
    (
        "Tocasia's Welcome",
        "Whenever one or more creatures with mana value 3 or less you control enter, draw a card. This ability"
        " triggers only once each turn.",
        None,  # "with mana value 3 or less": not a filter of the language
    ),
    (
        "Welcoming Vampire",
        "Whenever one or more other creatures you control with power 2 or less enter, draw a card. This ability"
        " triggers only once each turn.",
        None,
    ),
    (
        "Fall of the Thran",
        "II, III — Each player returns two land cards from their graveyard to the battlefield.",
        PRESETS["chapter"],
    ),
    (
        "Bonders' Ornament-like",  # the form of "Do this only once each turn" (603.2i)
        "Whenever you cast a noncreature spell, draw a card. Do this only once each turn.",
        Condition(Event("cast"), Subject("any", not_types=CREATURE), player="you", once_each_turn=True),
    ),
    (
        "Ingenious Prodigy?",
        "Whenever one or more +1/+1 counters are put on this creature, draw a card. This ability triggers only once"
        " each turn.",
        Condition(Event("counters_put", counter="+1/+1"), THIS, triggers_once_each_turn=True),
    ),
    (
        "Reveillark",
        "When Reveillark leaves the battlefield, return up to two target creature cards with power 2 or less from"
        " your graveyard to the battlefield.",
        Condition(Event("zone_change", origin="battlefield"), THIS, targets=True),
    ),
    (
        "Bridge from Below",
        "Whenever a nontoken creature you control dies, if Bridge from Below is in your graveyard, create a 2/2"
        " black Zombie creature token.",
        dies(Subject("any", CREATURE, token=False, controller="you"), intervening_if="~ is in your graveyard"),
    ),
    (
        "Syr Konrad, the Grim",
        "Whenever another creature dies, or a creature card is put into a graveyard from anywhere other than the"
        " battlefield, or a creature card leaves your graveyard, Syr Konrad deals 1 damage to each opponent.",
        None,  # three conditions in one: not in the language yet
    ),
    (
        "Chainer's Edict-like graveyard",
        "Whenever a creature card leaves your graveyard, you gain 1 life.",
        Condition(Event("zone_change", origin="graveyard"), Subject("any", CREATURE, token=False, owner="you")),
    ),
    (
        "Dread Slaver",
        "Whenever a creature dealt damage by Dread Slaver this turn dies, return it to the battlefield under your"
        " control.",
        None,  # "dealt damage by ... this turn": not a filter of the language
    ),
    (
        "Vengevine",
        "Whenever you cast a spell, if it's the second creature spell you cast this turn, you may return Vengevine"
        " from your graveyard to the battlefield.",
        Condition(
            Event("cast"),
            player="you",
            intervening_if="it's the second creature spell you cast this turn",
            optional=True,
        ),
    ),
    (
        "Karmic Guide",
        "When this creature enters, return target creature card from your graveyard to the battlefield.",
        enters(targets=True),
    ),
    (
        "Emrakul, the Aeons Torn",
        "When you cast this spell, take an extra turn after this one.",
        Condition(Event("cast"), THIS, player="you"),
    ),
    (
        "Harmless Offering-like control",
        "Whenever an opponent gains control of a permanent you control, draw a card.",
        Condition(Event("control_gained"), Subject("any", controller="you"), player="opponent"),
    ),
    (
        "Rubinia Soulsinger-like",
        "When you lose control of Rubinia Soulsinger, sacrifice it.",
        Condition(Event("control_lost"), THIS, player="you"),
    ),
    (
        "Library of Leng-like",
        "Whenever you have no cards in hand, draw a card.",
        Condition(Event("state", state="no_cards_in_hand"), player="you"),
    ),
    (
        "Teferi's Puzzle Box?",
        "At the beginning of each player's draw step, that player puts the cards in their hand on the bottom of their"
        " library in any order, then draws that many cards.",
        Condition(Event("step_begins", step="draw")),
    ),
    # The cards of issue 22's examples (scenarios/ rules them with their rulings).
    (
        "Vindictive Vampire",
        "Whenever another creature you control dies, Vindictive Vampire deals 1 damage to each opponent and you gain"
        " 1 life.",
        dies(Subject("another", CREATURE, controller="you")),
    ),
    (
        "Midnight Reaper",
        "Whenever a nontoken creature you control dies, Midnight Reaper deals 1 damage to you and you draw a card.",
        dies(Subject("any", CREATURE, token=False, controller="you")),
    ),
    (
        "Grismold, the Dreadsower",
        "Whenever a creature token dies, put a +1/+1 counter on Grismold, the Dreadsower.",
        dies(Subject("any", CREATURE, token=True)),
    ),
    (
        "Twilight Drover",
        "Whenever a creature token leaves the battlefield, put a +1/+1 counter on Twilight Drover.",
        Condition(Event("zone_change", origin="battlefield"), Subject("any", CREATURE, token=True)),
    ),
    (
        "Rukh Egg",
        "When Rukh Egg dies, create a 4/4 red Bird creature token with flying at the beginning of the next end step.",
        dies(),
    ),
    (
        "Thoughtleech",
        "Whenever an Island an opponent controls becomes tapped, you may gain 1 life.",
        Condition(Event("becomes_tapped"), Subject("any", ("Island",), controller="opponent"), optional=True),
    ),
    (
        "Storm the Vault",
        "Whenever one or more creatures you control deal combat damage to a player, create a Treasure token.",
        Condition(
            Event("deals_damage", combat=True, to="player"),
            Subject("any", CREATURE, controller="you"),
            one_or_more=True,
        ),
    ),
    (
        "Elvish Warmaster",
        "Whenever one or more other Elves you control enter, create a 1/1 green Elf Warrior creature token. This"
        " ability triggers only once each turn.",
        enters(Subject("another", ("Elf",), controller="you"), one_or_more=True, triggers_once_each_turn=True),
    ),
    (
        "Gustha's Scepter",
        "When you lose control of Gustha's Scepter, put all cards exiled with Gustha's Scepter into their owner's"
        " graveyard.",
        Condition(Event("control_lost"), THIS, player="you"),
    ),
    (
        "Battle-Rattle Shaman",
        "At the beginning of combat on your turn, you may have target creature get +2/+0 until end of turn.",
        Condition(Event("step_begins", step="beginning_of_combat", turn="you"), optional=True, targets=True),
    ),
    (
        "Kaya's Ghostform",
        "When enchanted creature dies or is put into exile, return that card to the battlefield under your control.",
        None,  # two events joined by "or"
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), CARDS, ids=[f"{c[0]}:{c[1][:30]}" for c in CARDS])
def test_a_real_cards_trigger_reads_as_its_oracle_text_says(name, text, expected):
    reading = read_trigger(text, name.split("?")[0].split(" (")[0].replace("-like", "").strip())
    if expected is None:
        assert reading.condition is None or reading.not_understood, reading
        assert reading.not_understood and all(reading.not_understood), "it says which words it did not understand"
        return
    assert reading.not_understood == (), reading.not_understood
    assert reading.condition == expected


@pytest.mark.parametrize(
    "text",
    [
        "Whenever a creature token dies",  # "token" after the types, as Oracle text has it
        "Whenever one or more creature tokens you control die",
        "Whenever a nontoken creature you control dies",
        "Whenever an Island an opponent controls becomes tapped",  # "an" before a capital vowel too
        "Whenever one or more other Elves you control enter",  # a subtype's irregular plural
        "Whenever one or more Goblins you control attack",
    ],
)
def test_a_condition_is_put_into_the_words_oracle_text_uses(text):
    reading = read_trigger(text + ", draw a card.")
    assert reading.not_understood == ()
    assert describe(reading.condition) == text


def _unread(name: str) -> str:
    """The text of the card of ``CARDS`` that the reader does not understand (expected None)."""
    return next(text for card, text, expected in CARDS if card == name and expected is None)


def test_what_it_does_not_understand_is_named_in_the_cards_own_words():
    cases = {
        ("Ophidian", "Whenever Ophidian attacks and isn't blocked, you may draw a card."): "and isn't blocked",
        ("Dread Slaver", _unread("Dread Slaver")): "dealt damage by Dread Slaver this turn",
        ("Kaya's Ghostform", CARDS[-1][1]): "dies or is put into exile",
        ("x", "Whenever a creature with flying dies, draw a card."): "with flying",
        ("x", "At the beginning of your second upkeep, draw."): "second upkeep",
        ("x", "Draw a card."): "When', 'Whenever' or 'At'",
        ("x", "Whenever a creature dies draw a card."): "no comma",
        ("x", "Whenever you cast your first spell each turn, draw."): "your first spell each turn",
    }
    for (name, text), words in cases.items():
        reading = read_trigger(text, name)
        assert not reading.understood
        assert any(words in w for w in reading.not_understood), (text, reading.not_understood)


PRESET_TEXTS = {
    "enters_self": ("Mulldrifter", "When Mulldrifter enters, draw two cards."),
    "creature_enters": ("Aura Shards-like", "Whenever a creature enters, you may destroy target artifact."),
    "creature_dies": ("Blood Artist", CARDS[1][1]),
    "leaves_self": ("Reveillark", CARDS[-12][1] if False else "When Reveillark leaves the battlefield, draw."),
    "becomes_tapped": ("x", "Whenever this creature becomes tapped, draw a card."),
    "your_upkeep": ("Felidar Sovereign", "At the beginning of your upkeep, if you have 40 or more life, you win."),
    "end_step": ("Ball Lightning", "At the beginning of the end step, sacrifice Ball Lightning."),
    "dealt_damage": ("Stuffy Doll", "Whenever Stuffy Doll is dealt damage, it deals that much damage."),
    "graveyard_from_anywhere": ("x", "Whenever a creature card is put into a graveyard from anywhere, draw."),
    "player_loses": ("x", "Whenever a player loses the game, draw a card."),
    "countered_self": ("Ignorant Bliss?", "When this spell is countered, draw a card."),
    "lose_control": ("x", "When you lose control of this creature, sacrifice it."),
    "phases_out": ("Teferi's Imp", "Whenever Teferi's Imp phases out, discard a card."),
    "unattached": ("x", "Whenever this Equipment becomes unattached, draw."),
    "enchanted_leaves": ("x", "When enchanted creature leaves the battlefield, draw."),
    "ability_triggers": ("x", "Whenever another ability triggers, draw."),
    "no_cards_in_hand": ("x", "Whenever you have no cards in hand, draw a card."),
    "land_to_graveyard": ("x", "Whenever a land is put into a graveyard from the battlefield, draw."),
    "becomes_untapped": ("x", "Whenever this creature becomes untapped, draw."),
    "deals_damage": ("x", "Whenever this creature deals damage, draw."),
    "becomes_blocked": ("x", "Whenever this creature becomes blocked, draw."),
    "enchanted_tapped_for_mana": ("Wild Growth", "Whenever enchanted land is tapped for mana, add {G}."),
    "chapter": ("History of Benalia", "I — Create a 2/2 white Knight creature token with vigilance."),
    "reveals_land_this_way": ("x", "Whenever you reveal a land card this way, draw."),
    "your_combat": ("Goblin Rabblemaster", CARDS[19][1]),
    "land_tapped": ("x", "Whenever a land becomes tapped, its controller loses 1 life."),
    "spell_cast": ("x", "Whenever a player casts a spell, that player loses 1 life."),
    "combat_damage_to_player": ("x", "Whenever a creature deals combat damage to a player, draw a card."),
    "control_gained": (
        "Zidane, Tantalus Thief",
        "Whenever an opponent gains control of a permanent from you, you create a Treasure token.",
    ),
}


#: Printed texts of real cards whose object the model narrows down, and how it plays each: written by hand from the
#: card's words (700.4: "dies" is a creature put into a graveyard from the battlefield).
FILTERED_TEXTS = [
    ("Soul Warden", "Whenever another creature enters, you gain 1 life.", ModelPoint("creature_enters", "another")),
    (
        "Vindictive Vampire",
        "Whenever another creature you control dies, Vindictive Vampire deals 1 damage to each opponent.",
        ModelPoint("creature_dies", "another", "you"),
    ),
    (
        "Midnight Reaper",
        "Whenever a nontoken creature you control dies, Midnight Reaper deals 1 damage to you and you draw a card.",
        ModelPoint("creature_dies", "any", "you", "nontoken"),
    ),
    (
        "Grismold, the Dreadsower",
        "Whenever a creature token dies, put a +1/+1 counter on Grismold.",
        ModelPoint("creature_dies", token="token"),
    ),
    (
        "Rukh Egg",
        "When Rukh Egg dies, create a 4/4 red Bird creature token with flying.",
        ModelPoint("creature_dies", "this"),
    ),
    (
        "Suture Priest",
        "Whenever a creature an opponent controls enters, you may have that player lose 1 life.",
        ModelPoint("creature_enters", controller="opponent"),
    ),
    (
        "Sidisi, Brood Tyrant",
        "Whenever one or more creature cards are put into your graveyard from your library, create a 2/2 black Zombie.",
        None,  # from your library: not a point of the model
    ),
    (
        "Vengeful Townsfolk",
        "Whenever one or more other creatures you control die, put a +1/+1 counter on this creature.",
        ModelPoint("creature_dies", "another", "you", one_or_more=True),
    ),
    (
        "made-up enters card",
        "Whenever one or more nontoken creatures enter, you gain 1 life.",
        ModelPoint("creature_enters", token="nontoken", one_or_more=True),
    ),
    (
        "made-up graveyard card",
        "Whenever one or more creature cards are put into your graveyard from anywhere, draw a card.",
        ModelPoint("graveyard_from_anywhere", controller="you", one_or_more=True),
    ),
    (
        "Dread Slaver",
        "Whenever a creature dealt damage by Dread Slaver this turn dies, return it to the battlefield.",
        None,
    ),
    (
        "Whisper, Blood Liturgist",
        "Whenever another attacking creature dies, draw a card.",
        None,  # a status is not a filter of the model
    ),
    (
        "Rhystic Study",
        "Whenever an opponent casts a spell, you may draw a card unless that player pays {1}.",
        ModelPoint("spell_cast", controller="opponent"),
    ),
    (
        "Kambal, Consul of Allocation",
        "Whenever an opponent casts a noncreature spell, that player loses 2 life.",
        ModelPoint("spell_cast", controller="opponent", type="noncreature"),
    ),
    (
        "Beast Whisperer",
        "Whenever you cast a creature spell, draw a card.",
        ModelPoint("spell_cast", controller="you", type="creature"),
    ),
    (
        "Sai, Master Thopterist",
        "Whenever you cast an artifact spell, create a 1/1 colorless Thopter artifact creature token with flying.",
        ModelPoint("spell_cast", controller="you", type="artifact"),
    ),
    (
        "Monastery Swiftspear",  # prowess, as its reminder text
        "Whenever you cast a noncreature spell, this creature gets +1/+1 until end of turn.",
        ModelPoint("spell_cast", controller="you", type="noncreature"),
    ),
    (
        "Guttersnipe",
        "Whenever you cast an instant or sorcery spell, Guttersnipe deals 2 damage to each opponent.",
        ModelPoint("spell_cast", controller="you", type="instant_or_sorcery"),
    ),
    (
        "made-up sorcery-or-instant card",  # the card types in either order
        "Whenever you cast a sorcery or instant spell, draw a card.",
        ModelPoint("spell_cast", controller="you", type="instant_or_sorcery"),
    ),
    (
        "Mesa Enchantress",
        "Whenever you cast an enchantment spell, you may draw a card.",
        ModelPoint("spell_cast", controller="you", type="enchantment"),
    ),
    (
        "made-up instant card",
        "Whenever an opponent casts an instant spell, you gain 1 life.",
        ModelPoint("spell_cast", controller="opponent", type="instant"),
    ),
    (
        "made-up sorcery card",
        "Whenever you cast a sorcery spell, you gain 1 life.",
        ModelPoint("spell_cast", controller="you", type="sorcery"),
    ),
    # The model's cards tell the card types of 300.1 apart but for battles, planeswalkers and kindred:
    ("made-up planeswalker card", "Whenever you cast a planeswalker spell, draw a card.", None),
    # a spell is never a token here: no token filter
    ("made-up spell card", "Whenever you cast a nontoken creature spell, draw a card.", None),
    (
        "made-up Elf spell card",
        "Whenever you cast an Elf spell, you gain 1 life.",
        ModelPoint("spell_cast", controller="you", subtypes=("Elf",)),
    ),
    ("made-up land spell", "Whenever you cast an Island spell, draw a card.", None),  # a land is played, not cast
    (
        "Emrakul, the Aeons Torn",  # its ability works on the stack, where the spell is
        "When you cast this spell, take an extra turn after this one.",
        ModelPoint("spell_cast", relation="this"),
    ),
    (
        "Storm the Vault",
        "Whenever one or more creatures you control deal combat damage to a player, create a Treasure token.",
        ModelPoint("combat_damage_to_player", controller="you", one_or_more=True),
    ),
    (
        "Ophidian",
        "Whenever Ophidian deals combat damage to a player, you may draw a card.",
        ModelPoint("combat_damage_to_player", relation="this"),
    ),
    ("made-up damage card", "Whenever this creature deals damage to an opponent, that player discards a card.", None),
]


@pytest.mark.parametrize(("name", "text", "expected"), FILTERED_TEXTS, ids=[c[0] for c in FILTERED_TEXTS])
def test_a_condition_about_some_creatures_plays_as_a_kind_with_its_filter(name, text, expected):
    reading = read_trigger(text, name)
    if reading.not_understood or reading.condition is None:
        assert expected is None, reading.not_understood
        return
    assert model_point(reading.condition) == expected


def test_a_preset_plays_unfiltered_and_nothing_but_a_kind_about_any_object_takes_a_filter():
    for kind, preset in PRESETS.items():
        assert model_point(preset) == ModelPoint(kind)
    thoughtleech = Condition(Event("becomes_tapped"), Subject("any", ("Island",), controller="opponent"))
    assert model_point(thoughtleech) == ModelPoint("land_tapped", "any", "opponent", subtypes=("Island",))
    artifact_tapped = Condition(Event("becomes_tapped"), Subject("any", ("artifact",), controller="opponent"))
    assert model_point(artifact_tapped) is None  # becoming tapped is of "this" one, or of any land, in the model
    elf_tapped = Condition(Event("becomes_tapped"), Subject("any", ("Elf",)))
    assert model_point(elf_tapped) is None  # an Elf is a creature (205.3m), not a land
    owned = Condition(
        Event("zone_change", origin="battlefield", destination="graveyard"), Subject("any", ("creature",), owner="you")
    )
    assert model_point(owned) is None  # "a creature you own dies": the model's filter is the controller there


@pytest.mark.parametrize("kind", [k for k in game.KINDS if k != "none"])
def test_every_trigger_kind_of_the_model_is_one_point_of_the_language(kind):
    name, text = PRESET_TEXTS[kind]
    reading = read_trigger(text, name)
    assert reading.understood, reading.not_understood
    assert preset_kind(reading.condition) == kind
    assert set(PRESETS) == set(game.KINDS)


# 603.10a-f, read from the rule's text: which of the model's kinds look back in time.
LOOK_BACK_KINDS = {
    "creature_dies",  # 603.10a: leaves-the-battlefield
    "leaves_self",
    "enchanted_leaves",
    "land_to_graveyard",
    "phases_out",  # 603.10b
    "unattached",  # 603.10c
    "lose_control",  # 603.10d
    "control_gained",  # 603.10d
    "countered_self",  # 603.10e
    "player_loses",  # 603.10f
}


def test_which_conditions_look_back_follows_603_10s_list():
    assert {k for k, c in PRESETS.items() if c is not None and looks_back(c)} == LOOK_BACK_KINDS
    # 603.10a's other two: a card leaving a graveyard; a public object put into a hand or library.
    assert looks_back(Condition(Event("zone_change", origin="graveyard"), Subject("any", token=False)))
    assert looks_back(Condition(Event("zone_change", origin="battlefield", destination="hand"), Subject("any")))
    assert not looks_back(Condition(Event("zone_change", origin="library", destination="hand"), Subject("any")))
    # 603.6c: "from anywhere" is never a leaves-the-battlefield ability.
    assert not looks_back(PRESETS["graveyard_from_anywhere"])  # type: ignore[arg-type]
    # 603.10d: an opponent gaining control of a permanent you control.
    gained = Condition(Event("control_gained"), Subject("any", controller="you"), player="opponent")
    assert looks_back(gained) and not looks_back(Condition(Event("control_gained"), THIS, player="you"))


def test_a_condition_that_means_nothing_is_refused_with_the_reason():
    bad = [
        (Condition(Event("step_begins")), "names a step"),
        (Condition(Event("zone_change")), "where from or where to"),
        (Condition(Event("zone_change", origin="hand", destination="hand")), "no zone change"),
        (Condition(Event("draws"), THIS), "happens to a player"),
        (Condition(Event("becomes_tapped", step="upkeep")), "has no step"),
        (Condition(Event("attacks"), Subject("any", ("wizardry",))), "unknown type"),
        (Condition(Event("attacks"), Subject("this", controller="you")), "names one object"),
        (Condition(Event("attacks"), THIS, one_or_more=True), "one or more"),
        (Condition(Event("attacks"), player="you"), "names no player"),
    ]
    for condition, why in bad:
        with pytest.raises(ConditionError, match=why):
            condition.check()


# --- the round trip: any condition of the language, put into words, reads back to itself -------------------------

TYPE_CHOICES = ("artifact", "creature", "enchantment", "land", "planeswalker")
WHOSE = ("you", "opponent", "any")


@st.composite
def subjects(draw, relations=("this", "another", "any", "enchanted", "equipped")):
    relation = draw(st.sampled_from(relations))
    if relation in ("this", "enchanted", "equipped"):
        return Subject(relation)
    types = tuple(draw(st.lists(st.sampled_from(TYPE_CHOICES), unique=True, max_size=3)))
    not_types = () if types else tuple(draw(st.lists(st.sampled_from(TYPE_CHOICES), unique=True, max_size=1)))
    controller = draw(st.sampled_from(WHOSE))
    owner = "any" if controller != "any" else draw(st.sampled_from(WHOSE))
    return Subject(
        relation,
        types,
        not_types,
        draw(st.sampled_from((None, True, False))),
        controller,
        owner,
        tuple(draw(st.lists(st.sampled_from(("attacking", "tapped")), unique=True, max_size=1))),
    )


ROUTES = [
    (None, "battlefield"),
    ("battlefield", "graveyard"),
    ("battlefield", None),
    (None, "graveyard"),
    ("graveyard", None),
    (None, "exile"),
    ("battlefield", "hand"),
]
OBJECT_EVENTS = [
    "becomes_tapped",
    "becomes_untapped",
    "tapped_for_mana",
    "attacks",
    "blocks",
    "becomes_blocked",
    "phases_out",
    "phases_in",
    "unattached",
]


@st.composite
def conditions(draw):
    shape = draw(st.sampled_from(("zone", "object", "damage", "step", "player", "cast", "control", "state")))
    batch = draw(st.booleans())
    if shape == "step":
        step = draw(
            st.sampled_from(
                [s for s in STEPS if s not in ("untap", "declare_attackers", "declare_blockers", "combat_damage")]
            )
        )
        turn = draw(st.sampled_from(WHOSE if step != "end_of_combat" else ("you", "any")))
        return Condition(Event("step_begins", step=step, turn=turn))
    if shape == "player":
        kind = draw(st.sampled_from(("draws", "discards", "gains_life", "loses_life", "loses_game")))
        return Condition(Event(kind), player=draw(st.sampled_from(WHOSE)))
    if shape == "state":
        return Condition(Event("state", state="no_cards_in_hand"), player=draw(st.sampled_from(WHOSE)))
    if shape == "cast":
        subject = draw(subjects(("this", "any")))
        subject = Subject(subject.relation, subject.types, subject.not_types) if subject.relation == "any" else subject
        many = batch and subject.relation == "any"
        return Condition(
            Event(draw(st.sampled_from(("cast", "copied")))), subject, draw(st.sampled_from(WHOSE)), one_or_more=many
        )
    if shape == "control":
        subject = draw(subjects(("this", "any")))
        kind = draw(st.sampled_from(("control_gained", "control_lost")))
        return Condition(Event(kind), subject, draw(st.sampled_from(WHOSE)))
    subject = draw(subjects())
    many = batch and subject.relation in ("any", "another")
    if shape == "zone":
        origin, destination = draw(st.sampled_from(ROUTES))
        if destination == "graveyard" and subject.relation in ("enchanted", "equipped"):
            subject = THIS
        return Condition(Event("zone_change", origin=origin, destination=destination), subject, one_or_more=many)
    if shape == "damage":
        kind = draw(st.sampled_from(("deals_damage", "dealt_damage")))
        combat = draw(st.sampled_from((None, True)))
        to = (
            draw(st.sampled_from(("any", "player", "opponent", "you", "creature"))) if kind == "deals_damage" else "any"
        )
        return Condition(Event(kind, combat=combat, to=to), subject, one_or_more=many)
    return Condition(Event(draw(st.sampled_from(OBJECT_EVENTS))), subject, one_or_more=many)


def _meaningful(c: Condition) -> bool:
    try:
        c.check()
    except ConditionError:
        return False
    return True


@settings(max_examples=400, deadline=None, derandomize=True)
@given(conditions().filter(_meaningful))
def test_any_condition_put_into_words_reads_back_to_itself(condition):
    text = describe(condition) + ", draw a card."
    reading = read_trigger(text)
    assert reading.not_understood == (), (text, reading.not_understood)
    assert reading.condition == condition, text


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    unit=st.sampled_from(["a creature, ", ",", "another creature you control dies, ", "x ", ", or "]),
    repeats=st.integers(1, 20_000),
)
def test_a_long_text_of_commas_costs_the_reader_no_more_than_a_short_one(unit, repeats):
    """The reader tries the words before each comma as a trigger condition; it looks only within the first
    ``MAX_CONDITION`` characters, so the words it tries are bounded whatever the text's length (a step count, not
    a clock)."""
    from unittest import mock

    from rule603.models import oracle_text

    tried: list[str] = []
    real = oracle_text._condition
    limit = oracle_text.MAX_CONDITION
    budget = limit * (limit + 1) // 2 + limit  # characters, whatever the text's length

    def counting(word: str, phrase: str):
        tried.append(phrase)
        # (checked as the reader goes, so that a reader gone quadratic fails here at once instead of running on)
        assert len(phrase) <= limit and sum(len(p) for p in tried) <= budget, "the reader tried too many words"
        return real(word, phrase)

    text = "Whenever " + unit * repeats + " draw a card."
    with mock.patch.object(oracle_text, "_condition", counting):
        reading = read_trigger(text)
    assert reading.condition is not None or reading.not_understood  # an answer, not a hang or a silent nothing


@pytest.mark.parametrize(
    ("name", "text", "flags"),
    [
        # Gatherer 2023-11-10: no chorus counter once it has left, "but you'll still draw a card and discard a card";
        # the "you may" of an "If ..." sentence is a choice within the effect, not whether to do it (603.5).
        (
            "Malcolm, Alluring Scoundrel",
            "Whenever Malcolm deals combat damage to a player, put a chorus counter on it. Draw a card, then discard a"
            " card. If there are four or more chorus counters on Malcolm, you may cast the discarded card without"
            " paying its mana cost.",
            {"acts_on_this", "other_effect"},
        ),
        (
            "Redcap Gutter-Dweller",
            "At the beginning of your upkeep, you may sacrifice another creature. If you do, put a +1/+1 counter on"
            " this creature and exile the top card of your library. You may play that card this turn.",
            {"optional", "acts_on_this", "other_effect"},
        ),
        # The reflexive "When you do" has the target, and draws: not the enters ability (Gatherer 2025-07-25).
        (
            "Selfcraft Mechan",
            "When this creature enters, you may sacrifice an artifact. When you do, put a +1/+1 counter on target"
            " creature and draw a card.",
            {"optional", "other_effect"},
        ),
        ("Mulldrifter", "When this creature enters, draw two cards.", {"other_effect"}),
        # Dealing damage reads the source (its last known information, 608.2h): nothing done to it.
        (
            "Guttersnipe",
            "Whenever you cast an instant or sorcery spell, Guttersnipe deals 2 damage to each opponent.",
            set(),
        ),
        (
            "Pump",
            "Whenever a creature enters, this creature gets +1/+0 and gains flying until end of turn.",
            {"acts_on_this"},
        ),
        (
            "Upkeep",
            "At the beginning of your upkeep, sacrifice this creature unless you pay {2}.",
            {"optional", "acts_on_this"},
        ),
        (
            "Grower",
            "At the beginning of your upkeep, put a +1/+1 counter on this creature. Then if it has three or more +1/+1"
            " counters on it, sacrifice it.",
            {"acts_on_this"},
        ),
        (
            "Peeker",
            "Whenever this creature deals combat damage to a player, look at the top card of that player's library."
            " You may exile it.",
            {"optional"},
        ),
        # The object the event happened to (acts_on_that): "it" of a condition about any creature, "that creature".
        (
            "Koh, the Face Stealer",
            "Whenever another nontoken creature dies, you may exile it.",
            {"optional", "acts_on_that"},
        ),
        # Endure: counters on the creature, or a Spirit token when they can't be put on it (2025-04-04).
        (
            "Warden of the Grove",
            "Whenever another nontoken creature you control enters, it endures X, where X is the number of counters on"
            " this creature.",
            {"acts_on_that", "other_effect"},
        ),
        (
            "Welcomer",
            "Whenever another creature you control enters, put a +1/+1 counter on that creature and draw a card.",
            {"acts_on_that", "other_effect"},
        ),
        # Events that don't move their object: "that spell" is the spell cast, "it" the creature that dealt the damage.
        (
            "Decree of Silence",
            "Whenever an opponent casts a spell, counter that spell and put a depletion counter on Decree of Silence.",
            {"acts_on_this", "acts_on_that"},
        ),
        (
            "Necropolis Regent",
            "Whenever a creature you control deals combat damage to a player, put that many +1/+1 counters on it.",
            {"acts_on_that"},
        ),
        # "Copy it": a copy is made of a spell that has left the stack too (Thousand-Year Storm, 2018-10-05).
        ("Storm", "Whenever you cast an instant or sorcery spell, copy it.", set()),
        # "It" deals damage: it only reads the creature.  "One or more" has no one object; "this" is 603.6's own.
        ("Pinger", "Whenever a creature enters, it deals 1 damage to target player.", {"targeted"}),
        # "One or more": one trigger for them all; "them" is each object of the batch.
        (
            "Mass",
            "Whenever one or more creatures you control die, return them to their owner's hand.",
            {"acts_on_that"},
        ),
        (
            "Pumper",
            "Whenever one or more creature cards are put into your graveyard from anywhere, put a +1/+1 counter on"
            " this creature and exile them.",
            {"acts_on_this", "acts_on_that"},
        ),
        # "Them" after other objects the effect named are those; combat damage to players is once for each player.
        ("Maker", "Whenever one or more creatures you control die, create two 1/1 tokens and tap them.", set()),
        (
            "Spy",
            "Whenever one or more creatures you control deal combat damage to a player, untap them.",
            set(),
        ),
        ("Drawer", "Whenever one or more creatures you control die, draw a card.", set()),
        ("Hunter", "Whenever another creature dies, put a +1/+1 counter on this creature.", {"acts_on_this"}),
        # An intervening "if" about the creature that entered (603.4, asked of each: Guardian Project 2019-01-25).
        (
            "Guardian Project",
            "Whenever a nontoken creature you control enters, if it doesn't have the same name as another creature you"
            " control or a creature card in your graveyard, draw a card.",
            {"has_if", "if_about_that"},
        ),
        (
            "Evolver",
            "Whenever a creature you control enters, if that creature has greater power or toughness than this"
            " creature, put a +1/+1 counter on this creature.",
            {"has_if", "if_about_that", "acts_on_this"},
        ),
        ("Scholar", "Whenever another creature you control dies, if you control a Wizard, draw a card.", {"has_if"}),
        # "It" after another object named is that object, not the creature that died.
        (
            "Seer",
            "Whenever another creature dies, look at the top card of your library. You may exile it.",
            {"optional"},
        ),
    ],
)
def test_the_reader_says_what_an_effect_does_to_this_object_and_what_else(name: str, text: str, flags: set[str]):
    assert set(printed_ability(text, name).flags) == flags


@pytest.mark.parametrize(
    ("name", "text", "moves_to"),
    [
        # Persist (702.79a), Kitchen Finks: "under its owner's control" is where the model puts a card.
        (
            "Kitchen Finks",
            "When this creature dies, if it had no -1/-1 counters on it, return it to the battlefield under its owner's"
            " control with a -1/-1 counter on it.",
            "battlefield",
        ),
        ("Recaller", "Whenever another creature you control dies, return it to its owner's hand.", "hand"),
        ("Exiler", "Whenever another creature dies, exile it.", "exile"),
        ("Returner", "When this creature dies, return it to its owner's hand.", "hand"),
        ("Burier", "When this creature enters, put it into its owner's graveyard.", "graveyard"),
        ("Sacrificer", "When this creature enters, sacrifice it unless you pay {2}.", "graveyard"),
        (
            "Reanimator",
            "Whenever another creature dies, put it onto the battlefield under your control.",
            "battlefield under your control",
        ),
        ("Tucker", "Whenever a creature you control dies, put it on top of its owner's library.", "library"),
        ("Shuffler", "When this creature dies, shuffle it into its owner's library.", "library"),
        # Moves the model doesn't make: "tapped", "face down", "transformed", and a move out and back.
        (
            "Ashcloud Phoenix",
            "When Ashcloud Phoenix dies, return it to the battlefield face down under your control.",
            "",
        ),
        ("Waker", "When this creature dies, return it to the battlefield tapped under its owner's control.", ""),
        (
            "Blinker",
            "When this creature enters, exile it, then return it to the battlefield under its owner's control.",
            "",
        ),
        # A move later, by a delayed ability (The Scarab God); two objects acted on, one way each.
        (
            "The Scarab God",
            "When The Scarab God dies, return it to its owner's hand at the beginning of the next end step.",
            "",
        ),
        ("Warden", "Whenever another creature dies, exile it and put a +1/+1 counter on this creature.", ""),
        # Not a move: a counter put on it; an object it doesn't act on.
        ("Hunter", "Whenever another creature dies, put a +1/+1 counter on this creature.", ""),
        ("Mulldrifter", "When Mulldrifter enters, draw two cards.", ""),
    ],
)
def test_the_reader_says_where_the_effect_moves_the_object_it_acts_on(name: str, text: str, moves_to: str):
    assert printed_ability(text, name).moves_to == moves_to
