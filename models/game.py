"""The game-trace model: the vocabulary every clause encoding and property uses.

A trace is moments ``0..k-1``.  Each moment holds the state after the batch of
events that happened since the previous moment.  Objects follow rule 400.7: a card
that changes zones becomes a new object, written here as ``since(t, c)``, the moment
card ``c`` entered its current zone; an object is a card together with its ``since``.

Abilities are indexed in one range: first the printed triggered abilities (each card's
first, with the card's own index, then each card's second, ...), then the delayed
triggered abilities, then the reflexive ones.  Variables are either
*environment* (what players and effects do) or *rule* (what the rules force); the
rule variables nobody but a clause of rule 603 constrains are the "open questions"
a dropped clause leaves unanswered.

Default bounds: 2 players, 3 cards with a printed triggered ability each, 1 delayed and 1
reflexive triggered ability, 3 stack slots, trace length 8.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from rule603 import ENV, RULE, Universe, VarSpec

ZONES = ("library", "hand", "battlefield", "graveyard", "exile", "stack", "command", "outside")
LIBRARY, HAND, BATTLEFIELD, GRAVEYARD, EXILE, STACK, COMMAND, OUTSIDE = range(len(ZONES))
HIDDEN_ZONES = (LIBRARY, HAND)

#: The steps of a turn in their order (500.1): the beginning phase (501-504), the precombat main phase
#: (505), the combat phase's five steps (506-511), the postcombat main phase and the ending phase (512-514).
#: A main phase has no steps; it is written here as one.
STEPS = (
    "untap",
    "upkeep",
    "draw",
    "precombat_main",
    "beginning_of_combat",
    "declare_attackers",
    "declare_blockers",
    "combat_damage",
    "end_of_combat",
    "postcombat_main",
    "end",
    "cleanup",
)
(
    UNTAP,
    UPKEEP,
    DRAW,
    MAIN,
    BEGINNING_OF_COMBAT,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    COMBAT_DAMAGE,
    END_OF_COMBAT,
    POSTCOMBAT_MAIN,
    END,
    CLEANUP,
) = range(len(STEPS))
#: Steps in which no player receives priority unless something happens (502.4, 514.3a).
NO_PRIORITY_STEPS = (UNTAP, CLEANUP)

#: Trigger conditions a triggered ability can have, in the game's own words.
KINDS = (
    "none",
    "enters_self",  # When this enters, ...
    "creature_enters",  # Whenever a creature enters, ...
    "creature_dies",  # Whenever a creature dies, ...
    "leaves_self",  # When this leaves the battlefield, ...
    "becomes_tapped",  # Whenever this becomes tapped, ...
    "your_upkeep",  # At the beginning of your upkeep, ...
    "end_step",  # At the beginning of the end step, ...
    "dealt_damage",  # Whenever this is dealt damage, ...
    "graveyard_from_anywhere",  # Whenever a creature card is put into a graveyard from anywhere, ...
    "player_loses",  # Whenever a player loses the game, ...
    "countered_self",  # When this spell is countered, ...
    "lose_control",  # When you lose control of this, ...
    "phases_out",  # Whenever this phases out, ...
    "unattached",  # Whenever this becomes unattached, ...
    "enchanted_leaves",  # When enchanted permanent leaves the battlefield, ...
    "ability_triggers",  # Whenever another ability triggers, ...
    "no_cards_in_hand",  # Whenever you have no cards in hand, ... (a state trigger)
    "land_to_graveyard",  # Whenever a land is put into a graveyard from the battlefield, ...
    "becomes_untapped",  # Whenever this becomes untapped, ...
    "deals_damage",  # Whenever this creature deals damage, ...
    "becomes_blocked",  # Whenever this creature becomes blocked, ... (flanking)
    "enchanted_tapped_for_mana",  # Whenever enchanted land is tapped for mana, ... (Wild Growth)
    "chapter",  # a Saga's chapter abilities: I, II, III -- ... (714.2b)
    "reveals_land_this_way",  # Reveal the first card you draw each turn. Whenever you reveal a land card this way, ...
    "your_combat",  # At the beginning of combat on your turn, ...
    "land_tapped",  # Whenever a land (an Island an opponent controls, ...) becomes tapped, ...
    "spell_cast",  # Whenever a player (you, an opponent) casts a spell, ...
    "combat_damage_to_player",  # Whenever a creature (this, one or more you control) deals combat damage to a player
    "control_gained",  # Whenever an opponent gains control of a permanent from you, ... (looks back: 603.10d)
)
(
    NONE,
    ENTERS_SELF,
    CREATURE_ENTERS,
    CREATURE_DIES,
    LEAVES_SELF,
    BECOMES_TAPPED,
    YOUR_UPKEEP,
    END_STEP,
    DEALT_DAMAGE,
    GRAVEYARD_FROM_ANYWHERE,
    PLAYER_LOSES,
    COUNTERED_SELF,
    LOSE_CONTROL,
    PHASES_OUT,
    UNATTACHED,
    ENCHANTED_LEAVES,
    ABILITY_TRIGGERS,
    NO_CARDS_IN_HAND,
    LAND_TO_GRAVEYARD,
    BECOMES_UNTAPPED,
    DEALS_DAMAGE,
    BECOMES_BLOCKED,
    ENCHANTED_TAPPED_FOR_MANA,
    CHAPTER,
    REVEALS_LAND_THIS_WAY,
    YOUR_COMBAT,
    LAND_TAPPED,
    SPELL_CAST,
    COMBAT_DAMAGE_TO_PLAYER,
    CONTROL_GAINED,
) = range(len(KINDS))
#: "At the beginning of ..." trigger conditions: the step whose beginning they wait for, and whether only
#: on their controller's turn ("your upkeep").  A Saga's chapter abilities wait for its controller's
#: precombat main phase too: the lore counter that makes them trigger is put on as it begins (714.3b).
BEGINNING_KINDS = {YOUR_UPKEEP: (UPKEEP, True), END_STEP: (END, False), YOUR_COMBAT: (BEGINNING_OF_COMBAT, True)}
ENTERS_KINDS = (ENTERS_SELF, CREATURE_ENTERS)
#: Leaves-the-battlefield abilities (603.6c: "Whenever [something] is put into a graveyard from the battlefield").
LEAVES_KINDS = (CREATURE_DIES, LEAVES_SELF, ENCHANTED_LEAVES, LAND_TO_GRAVEYARD)
#: Trigger conditions about one object, "this" (or the permanent this Aura enchants): a delayed
#: ability's is the object it refers to as it was when the ability was created (see ``subject``).
SUBJECT_KINDS = (
    LEAVES_SELF,
    BECOMES_TAPPED,
    BECOMES_UNTAPPED,
    DEALT_DAMAGE,
    DEALS_DAMAGE,
    BECOMES_BLOCKED,
    COUNTERED_SELF,
    LOSE_CONTROL,
    PHASES_OUT,
    UNATTACHED,
    ENCHANTED_LEAVES,
)
#: Trigger conditions that speak of one object (``subject``): those above, "when this enters", "whenever enchanted
#: land is tapped for mana" and a Saga's chapters.  A delayed ability with one of them refers to exactly that object
#: (the model's bound, ``model.delayed``).
NAMES_AN_OBJECT = (*SUBJECT_KINDS, ENTERS_SELF, ENCHANTED_TAPPED_FOR_MANA, CHAPTER)
#: Zone-change abilities that try to do something to the object that moved (603.6).
ZONE_CHANGE_SELF_KINDS = (ENTERS_SELF, LEAVES_SELF)
#: Trigger conditions about any object of a kind ("a creature", "a land"), whose printed text may narrow that object
#: down: "another", "you control" / "an opponent controls", "token" / "nontoken" (``subject_*``), or name the ability's
#: own object ("when this creature dies").
FILTERED_KINDS = (
    CREATURE_ENTERS,
    CREATURE_DIES,
    LAND_TO_GRAVEYARD,
    GRAVEYARD_FROM_ANYWHERE,
    LAND_TAPPED,
    SPELL_CAST,
    COMBAT_DAMAGE_TO_PLAYER,
)
#: The conditions about any object of a kind that are zone changes (603.6a, 603.6c): with "this" ("when this creature
#: dies"), an ability of them looks for its object where it moved (603.6); the others' object stays where it is.
ZONE_CHANGE_FILTERED_KINDS = (CREATURE_ENTERS, CREATURE_DIES, LAND_TO_GRAVEYARD, GRAVEYARD_FROM_ANYWHERE)
#: The conditions about any object of a kind whose event puts the object where it is: a zone change, and a spell cast
#: (its card put on the stack, 601.2a).  The object it happened to is the new one; for the others, the one it was.
EVENT_PUTS_ITS_OBJECT_THERE = (*ZONE_CHANGE_FILTERED_KINDS, SPELL_CAST)
#: The conditions about "one or more" objects of a kind whose effect may act on "them": one trigger for the batch,
#: about all its objects (combat damage to players triggers once for each player, 603.2c: not kept apart).
THEM_KINDS = tuple(k for k in FILTERED_KINDS if k != COMBAT_DAMAGE_TO_PLAYER)
#: How the object a filtered condition speaks of relates to the ability's source: any (itself included), the source
#: itself ("when this creature dies"), or any other ("whenever another creature enters").
SUBJECT_RELATIONS = ("any", "this", "another")
#: Who controls that object, as the ability's controller sees it (for one that left the battlefield: as it last
#: existed there, 603.10a); off the battlefield, who owns it ("a creature card you own").
SUBJECT_PLAYERS = ("any", "you", "opponent")
#: Whether that object is a token (111.1) or not.
SUBJECT_TOKENS = ("any", "nontoken", "token")
#: The card type a spell cast must have ("whenever you cast a creature spell", "a noncreature spell", "an artifact
#: spell", "an instant or sorcery spell"), as printed on its card; each other condition about any object of a kind
#: names its object's type itself.
SUBJECT_TYPES = (
    "any",
    "creature",
    "noncreature",
    "artifact",
    "enchantment",
    "instant",
    "sorcery",
    "instant_or_sorcery",
)
#: The filters a condition cannot take: "a creature card ... from anywhere" is never a token (108.2b) and is never
#: this card's own (the model's ability does not function from a graveyard, 113.6k); nor is a spell cast a token (the
#: model's spells are cards put on the stack).  Only a spell's condition says its card type.
FILTERS_NOT_TAKEN = {
    **{kind: {"subject_type": SUBJECT_TYPES[1:]} for kind in FILTERED_KINDS if kind != SPELL_CAST},
    GRAVEYARD_FROM_ANYWHERE: {
        "subject_relation": ("this",),
        "subject_token": ("nontoken", "token"),
        "subject_type": SUBJECT_TYPES[1:],
    },
    SPELL_CAST: {"subject_token": ("nontoken", "token")},
}


def takes_filter(kind: int, name: str, value: str) -> bool:
    """Whether a condition of ``kind`` can say ``value`` for the subject filter ``name`` ("any" it always can)."""
    if value == "any":
        return True
    return kind in FILTERED_KINDS and value not in FILTERS_NOT_TAKEN.get(kind, {}).get(name, ())


def filter_refused(name: str) -> str:
    """Why a condition cannot say what it says for the subject filter ``name`` (``takes_filter`` said no)."""
    if name == "subject_type":
        return "only 'whenever a player casts a spell' (spell_cast) names the card type of its object"
    filtered = ", ".join(KINDS[k] for k in FILTERED_KINDS)
    return (
        f"only a condition about any object of a kind ({filtered}) narrows it down, and 'a creature card ... from"
        " anywhere' or a spell cast is neither a token nor 'this' one"
    )


ANY_SUBJECT = 0
THIS_SUBJECT, ANOTHER_SUBJECT = 1, 2
YOUR_SUBJECT, OPPONENTS_SUBJECT = 1, 2
NONTOKEN_SUBJECT, TOKEN_SUBJECT = 1, 2
CREATURE_SUBJECT, NONCREATURE_SUBJECT, ARTIFACT_SUBJECT, ENCHANTMENT_SUBJECT = 1, 2, 3, 4
INSTANT_SUBJECT, SORCERY_SUBJECT, INSTANT_OR_SORCERY_SUBJECT = 5, 6, 7
SUBJECT_FILTERS = ("subject_relation", "subject_controller", "subject_token", "subject_type")
#: Each filter's values, in the order of their codes ("any", code 0, first).
SUBJECT_VALUES = dict(
    zip(SUBJECT_FILTERS, (SUBJECT_RELATIONS, SUBJECT_PLAYERS, SUBJECT_TOKENS, SUBJECT_TYPES), strict=True)
)

CAUSES = ("spell", "ability", "replacement", "action")  # what created a delayed trigger (603.7a)
#: Where a resolving effect moves each object it acts on and finds (``moves_to``, 608.2): nowhere the model follows
#: ("none": the script's events say it), its owner's hand, the battlefield under its owner's control, its owner's
#: graveyard, exile, its owner's library, the battlefield under the control of the ability's controller.
DESTINATIONS = ("none", "hand", "battlefield", "graveyard", "exile", "library", "battlefield under your control")
DESTINATION_ZONES = dict(
    zip(DESTINATIONS[1:], (HAND, BATTLEFIELD, GRAVEYARD, EXILE, LIBRARY, BATTLEFIELD), strict=True)
)
YOUR_BATTLEFIELD = DESTINATIONS.index("battlefield under your control")
SPELL_CAUSE, ABILITY_CAUSE, REPLACEMENT_CAUSE, ACTION_CAUSE = range(len(CAUSES))

#: What players and effects do to the top of the stack in a batch: nothing, let it resolve (every player
#: passed priority in succession, 608.1), or counter it.  Whether an object let to resolve does resolve
#: or is removed from the stack instead (603.4, 608.2b) is the rules' answer: ``removed_now``.
LEAVES = ("none", "resolve", "counter")
NO_LEAVE, RESOLVE, COUNTER = range(len(LEAVES))

DEFAULTS = {"player": 2, "card": 3, "delayed": 1, "reflexive": 1, "slot": 3}


#: The most printed triggered abilities one card has in this model (Solemn Simulacrum has two).
MAX_PRINTED_PER_CARD = 3


def universe(**sizes: int) -> Universe:
    """The bounded universe, defaults overridden by ``sizes``.  ``printed`` (the printed triggered abilities) is one
    per card unless given: a multiple of the cards, each card having as many slots (``printed_card``)."""
    merged = {**DEFAULTS, **sizes}
    merged.setdefault("printed", merged["card"])
    merged["ability"] = merged["printed"] + merged["delayed"] + merged["reflexive"]
    return Universe(merged)


def printed_sizes_wrong(sizes: dict[str, int]) -> str:
    """Why ``printed`` can't be the number of printed abilities of ``card`` cards ("" if it can)."""
    cards, printed = sizes.get("card"), sizes.get("printed")
    if not isinstance(cards, int) or not isinstance(printed, int):
        return ""
    if cards == 0:
        return "" if printed == 0 else "no cards, so no printed ability"
    if printed % cards or not 1 <= printed // cards <= MAX_PRINTED_PER_CARD:
        return f"a multiple of the cards, {cards} to {MAX_PRINTED_PER_CARD * cards} (each card's ability slots)"
    return ""


def check_universe(given: Universe, source: str) -> None:
    """A trace's sizes must be a universe this model can make (``ability`` is derived)."""
    from rule603 import TraceFormatError

    base = {k: v for k, v in given.sizes.items() if k in (*DEFAULTS, "printed")}
    wrong = printed_sizes_wrong(base)
    if wrong:
        raise TraceFormatError(source, "/#meta/universe/printed", f"expected {wrong}, got {base['printed']!r}")
    expected = universe(**base).sizes
    for dim, size in expected.items():
        if given.sizes.get(dim) != size:
            why = "printed + delayed + reflexive" if dim == "ability" else "a size"
            raise TraceFormatError(
                source, f"/#meta/universe/{dim}", f"expected {size} ({why}), got {given.sizes.get(dim)!r}"
            )
    if expected["player"] < 1:
        raise TraceFormatError(source, "/#meta/universe/player", "a game has at least one player")


def _const(name: str, dims: tuple[str, ...], doc: str, **kw: object) -> VarSpec:
    return VarSpec(name, dims, per_moment=False, role=ENV, doc=doc, **kw)  # type: ignore[arg-type]


def _env(name: str, dims: tuple[str, ...], doc: str, **kw: object) -> VarSpec:
    return VarSpec(name, dims, role=ENV, doc=doc, **kw)  # type: ignore[arg-type]


def _rule(name: str, dims: tuple[str, ...], doc: str, **kw: object) -> VarSpec:
    return VarSpec(name, dims, role=RULE, doc=doc, **kw)  # type: ignore[arg-type]


#: The yes/no parts of a card's printed text (its types, its ability's features, its statics).
CARD_FLAGS = (
    "creature_card",
    "land_card",
    "artifact_card",
    "enchantment_card",
    "instant_card",
    "sorcery_card",
    "has_if",
    "optional",
    "modal",
    "targeted",
    "once_each_turn",
    "from_hand",
    "enters_tapped",
    "doubler",
    "uncounterable",
    "granted",
    "mana_ability",
    "aura",
    "other_effect",
    "one_or_more",
    "triggers_once_each_turn",
    "acts_on_this",
    "acts_on_that",
    "if_about_that",
)

#: Of those, the ones each printed triggered ability has for itself (a card with two has them twice).
ABILITY_FLAGS = (
    "has_if",
    "optional",
    "modal",
    "targeted",
    "once_each_turn",
    "from_hand",
    "granted",
    "uncounterable",
    "mana_ability",
    "other_effect",
    "one_or_more",
    "triggers_once_each_turn",
    "acts_on_this",
    "acts_on_that",
    "if_about_that",
)

MAX_COUNT = 6  # the most instances one ability can put on the stack in one batch
MAX_INSTANCES = 3  # the most instances of its triggered ability one object can have (113.2c)
MAX_CHAPTER = 3  # the most chapters a Saga has in this model (714.2)
MAX_LEGEND_NAMES = 6  # legendary names one game tells apart: one per card at most (``legend_name``)

VARIABLES: tuple[VarSpec, ...] = (
    # --- the cards and their printed text (constant over a trace) -----------------
    _const("owner", ("card",), "owner of the card", kind="int", max_dim="player"),
    _const("kind", ("printed",), "trigger condition of the printed triggered ability", kind="enum", values=KINDS),
    _const(
        "subject_relation",
        ("printed",),
        "for a filtered trigger condition (FILTERED_KINDS): the object it speaks of is any, this one ('when this"
        " creature dies') or another ('whenever another creature enters')",
        kind="enum",
        values=SUBJECT_RELATIONS,
        absent_means="any",
    ),
    _const(
        "subject_controller",
        ("printed",),
        "for a filtered trigger condition: the object it speaks of is controlled by anyone, by the ability's controller"
        " ('you control') or by an opponent ('an opponent controls'); off the battlefield, owned",
        kind="enum",
        values=SUBJECT_PLAYERS,
        absent_means="any",
    ),
    _const(
        "subject_token",
        ("printed",),
        "for a filtered trigger condition: the object it speaks of is any, not a token ('nontoken') or a token",
        kind="enum",
        values=SUBJECT_TOKENS,
        absent_means="any",
    ),
    _const(
        "subject_type",
        ("printed",),
        "for 'whenever a player casts a spell' (spell_cast): the spell is of any card type, a creature spell, a"
        " noncreature spell, an artifact, enchantment, instant or sorcery spell, or an instant or sorcery spell, as"
        " printed on its card",
        kind="enum",
        values=SUBJECT_TYPES,
        absent_means="any",
    ),
    _const(
        "subject_subtype",
        ("printed", "card"),
        "for a filtered trigger condition (FILTERED_KINDS) of the printed ability that names subtypes ('whenever"
        " another Elf you control enters', 205.3): the card has one of them, as printed; true where the condition"
        " names none",
        absent_means=True,
    ),
    _const(
        "moves_to",
        ("printed",),
        "where the ability's effect moves each object it acts on and finds (608.2: 'return it to its owner's hand'):"
        " its source, the object its event happened to, its own object for a zone-change ability (603.6), an Aura's"
        " enchanted permanent (603.6e); 'none' where the model doesn't follow a move (the script's events say it)",
        kind="enum",
        values=DESTINATIONS,
        absent_means="none",
    ),
    _const("creature_card", ("card",), "printed card type includes creature"),
    _const("land_card", ("card",), "printed card type includes land"),
    _const("artifact_card", ("card",), "printed card type includes artifact", absent_means=False),
    _const("enchantment_card", ("card",), "printed card type includes enchantment", absent_means=False),
    _const(
        "instant_card",
        ("card",),
        "printed card type includes instant: never a permanent (304.4)",
        absent_means=False,
    ),
    _const(
        "sorcery_card",
        ("card",),
        "printed card type includes sorcery: never a permanent (307.4)",
        absent_means=False,
    ),
    _const("has_if", ("printed",), "the ability has an intervening 'if' clause (603.4)"),
    _const(
        "optional", ("printed",), "the ability's effect is optional ('may'); the choice is made on resolution (603.5)"
    ),
    _const("modal", ("printed",), "the ability is modal (603.3c)"),
    _const("targeted", ("printed",), "the ability targets (603.3d)"),
    _const("once_each_turn", ("printed",), "the ability says 'Do this only once each turn' (603.2i)"),
    _const("from_hand", ("printed",), "the ability functions while the card is in its owner's hand"),
    _const(
        "other_effect",
        ("printed",),
        "the effect of an ability that does something to an object -- a zone-change ability to its own (603.6), an"
        " Aura's leaves ability to its two (603.6e), one with acts_on_this to its source (400.7) -- also does something"
        " not done to it (Mulldrifter's 'draw two cards'): where that object can't be found, only the part acting on"
        " it fails. False: its effect is what it does to that object ('return it to its owner's hand')",
        absent_means=False,
    ),
    _const(
        "acts_on_this",
        ("printed",),
        "the effect of an ability that doesn't trigger on its own object's zone change does something to its source"
        " ('put a +1/+1 counter on this creature', 'return this card to your hand'): the object it was as the ability"
        " triggered, which it doesn't find once that object has moved (400.7) or phased out (702.26b)",
        absent_means=False,
    ),
    _const(
        "acts_on_that",
        ("printed",),
        "the effect of an ability whose condition is about any object of a kind (FILTERED_KINDS) does something to"
        " the object the event happened to ('whenever another creature dies, exile it', 'counter that spell'; with"
        " 'one or more', to each of them: 'return them'): the object it became in the zone it moved to (603.6), or"
        " the one it was for an event that doesn't move it, which the ability doesn't find once it has changed zones"
        " since (400.7) or phased out"
        " (702.26b)",
        absent_means=False,
    ),
    _const(
        "if_about_that",
        ("printed",),
        "the intervening 'if' of an ability whose condition is about any object of a kind (as for acts_on_that)"
        " speaks of the object the event happened to ('if that creature's power is greater than ~'s', 'if it's an"
        " artifact'): it is asked of each such object, as it triggers and again as its instance resolves (603.4),"
        " through cond_that",
        absent_means=False,
    ),
    _const(
        "one_or_more",
        ("printed",),
        "for a filtered trigger condition (FILTERED_KINDS) about several objects: it says 'one or more' ('whenever one"
        " or more other creatures you control die'), so one batch triggers it once, however many of its objects the"
        " batch has (603.2c: the batch is one event)",
        absent_means=False,
    ),
    _const(
        "triggers_once_each_turn",
        ("printed",),
        "the ability says 'This ability triggers only once each turn': once it has triggered in a turn it doesn't"
        " trigger again that turn, even if that instance was countered or left the stack (Elvish Warmaster's ruling,"
        " 2021-02-05), and one event with several occurrences triggers it once; a new object has a new ability (400.7)",
        absent_means=False,
    ),
    _const("enters_tapped", ("card",), "static ability 'This permanent enters tapped' (603.6d)"),
    _const(
        "doubler",
        ("card",),
        "static: 'an artifact or creature entering makes an ability of a permanent you control trigger an additional"
        " time' (Panharmonicon)",
    ),
    _const(
        "granted",
        ("printed",),
        "the triggered ability is not printed: the continuous effect grant_ability gives it",
    ),
    _const("uncounterable", ("printed",), "the ability says 'This ability can't be countered' (603.1a)"),
    _const(
        "mana_ability",
        ("printed",),
        "the triggered ability is a mana ability (605.1b): it resolves at once, without the stack (605.4a)",
    ),
    _const("aura", ("card",), "the card is an Aura (303.4): on the battlefield it is attached to what it enchants"),
    _const(
        "token",
        ("card",),
        "the object is a token, not a card (111.1): it is created on the battlefield from outside the game, and"
        " ceases to exist once it is in any other zone (111.7, 704.5d)",
    ),
    _const(
        "legend_name",
        ("card",),
        "0: not legendary; otherwise the object is legendary and this number is its name (two objects with the same"
        " number have the same name: the legend rule, 704.5j)",
        kind="int",
        max=MAX_LEGEND_NAMES,
    ),
    _const(
        "final_chapter",
        ("card",),
        "a Saga's final chapter number (714.2d); 0 for a card that is not a Saga",
        kind="int",
        max=MAX_CHAPTER,
    ),
    _const(
        "reflexive_from",
        ("reflexive",),
        "card whose resolving ability creates this reflexive trigger",
        kind="int",
        max_dim="card",
    ),
    _const("pay_any", ("reflexive",), "'when you pay this cost one or more times' (603.12a)"),
    _const(
        "r_targeted",
        ("reflexive",),
        "the reflexive ability targets ('When you do, put a +1/+1 counter on target creature'): 603.3d and 608.2b",
        absent_means=False,
    ),
    _const(
        "r_n",
        ("reflexive",),
        "0: the reflexive ability triggers on its creator's action (603.12); N: on its creator's Nth resolution this"
        " turn, counted for the object (603.7h; Gimli, Mournful Avenger's 'when this ability resolves for the third"
        " time this turn')",
        kind="int",
        max=7,
        absent_means=0,
    ),
    _const("d_kind", ("delayed",), "trigger condition of the delayed triggered ability", kind="enum", values=KINDS),
    _const("d_duration", ("delayed",), "the delayed ability has a stated duration ('this turn', 603.7b)"),
    _const("d_cause", ("delayed",), "what creates the delayed ability (603.7a, 603.7d-g)", kind="enum", values=CAUSES),
    _const(
        "d_source",
        ("delayed",),
        "the card whose spell, ability or static ability creates it",
        kind="int",
        max_dim="card",
    ),
    _const(
        "d_refers",
        ("delayed", "card"),
        "the delayed ability refers to this card's object (603.7c): none ('draw a card'), one ('exile it') or several"
        " ('return the exiled cards'); its trigger condition's 'this', if it names one, is the one card it refers to",
    ),
    _const(
        "d_other_effect",
        ("delayed",),
        "the delayed ability that refers to objects also does something not done to them (Ignorant Bliss's 'then draw"
        " a card'): it does that even when none of them is found (603.7c)",
        absent_means=False,
    ),
    _const(
        "d_targeted",
        ("delayed",),
        "the delayed ability targets ('at the beginning of the next end step, target land deals 3 damage to that"
        " creature'): 603.3d and 608.2b",
        absent_means=False,
    ),
    _const(
        "d_moves_to",
        ("delayed",),
        "where the delayed ability's effect moves each object it refers to and finds ('return those cards to the"
        " battlefield under their owner's control'): see moves_to",
        kind="enum",
        values=DESTINATIONS,
        absent_means="none",
    ),
    _const("d_nth", ("delayed",), "created when the creating ability has resolved N times this turn (603.7h)"),
    _const(
        "d_n",
        ("delayed",),
        "for a delayed ability created on its creator's Nth resolution this turn (d_nth): N, counted for the object"
        " (400.7: a permanent that left and came back is a new one, whose count starts over)",
        kind="int",
        max=7,
        absent_means=2,
    ),
    # --- the turn ------------------------------------------------------------------
    _env("turn", (), "turn number", kind="int", max=31),
    _env("active", (), "the active player", kind="int", max_dim="player"),
    _env("step", (), "the current step", kind="enum", values=STEPS),
    _env("priority", (), "a player would receive priority at this moment"),
    _env("extra_turn", (), "the turn that begins at this moment is an extra turn an effect gave its player (500.7)"),
    _env(
        "extra_step",
        (),
        "the step that begins at this moment is out of the turn's usual order: an effect added phases or steps"
        " (500.8-500.10), or the turn resumes its order after them",
    ),
    _env(
        "unfinished",
        (),
        "the resolution (or turn-based action) of this batch goes on: its next instruction's events are the next"
        " batch, with no priority and no state-based actions in between (608.2c, 704.4)",
    ),
    # --- objects -------------------------------------------------------------------
    _env("zone", ("card",), "zone of the card", kind="enum", values=ZONES),
    _rule(
        "since",
        ("card",),
        "moment the card entered its zone: with the card, the object's identity (400.7)",
        kind="int",
        max=31,
    ),
    _env("controller", ("card",), "controller (owner outside the battlefield and stack)", kind="int", max_dim="player"),
    _env("tapped", ("card",), "tapped status"),
    _env("lore", ("card",), "lore counters on the permanent (714.3)", kind="int", max=MAX_CHAPTER + 1),
    _env("revealed", ("card",), "the card is revealed to all players"),
    _env("phased_out", ("card",), "the permanent is phased out"),
    _env(
        "attached_to", ("card",), "the card this one is attached to; the number of cards means none", kind="int", max=7
    ),
    _env("prohibited", ("card",), "an effect precludes activating abilities of this card"),
    _env("cond", ("printed",), "the ability's intervening-'if' condition is true now"),
    _env(
        "cond_that",
        ("printed", "card"),
        "for an ability whose intervening 'if' speaks of the object its event happened to (if_about_that): that 'if'"
        " is true of the card's object now",
        absent_means=True,
    ),
    _env("lands_are_creatures", (), "continuous effect 'All lands are creatures'"),
    _env("creatures_lose_abilities", (), "continuous effect 'All creatures lose all abilities'"),
    _env("grant_ability", (), "continuous effect giving permanents with 'granted' their triggered ability"),
    _env(
        "instances",
        ("printed",),
        "instances of the triggered ability its object has (113.2c: each triggers separately); 1 unless effects"
        " give it more",
        kind="int",
        max=MAX_INSTANCES,
    ),
    _rule("eff_creature", ("card",), "is a creature, continuous effects applied"),
    _rule("eff_ability", ("printed",), "its object has the triggered ability, continuous effects applied"),
    # --- events of the batch -------------------------------------------------------
    _env("damage", ("card",), "damage would be dealt to the card in this batch"),
    _env("damage_prevented", ("card",), "that damage was prevented"),
    _env("deals_damage", ("card",), "the permanent deals damage in this batch (damage actually dealt)"),
    _env(
        "combat_damage_to",
        ("card", "player"),
        "the creature deals combat damage to the player in this batch (510.2)",
        absent_means=False,
    ),
    _env("blocked", ("card",), "the attacking creature becomes blocked in this batch (509.1h)"),
    _rule("was_blocked", ("card",), "the object has become blocked this turn (blockers are declared once, 509.1)"),
    _env("tapped_for_mana", ("card",), "the permanent is tapped for mana in this batch (106.12)"),
    _env(
        "revealed_first_draw",
        ("card",),
        "the card, drawn in this batch, is revealed by a static 'Reveal the first card you draw each turn' (607)",
    ),
    _env("dies_replaced", ("card",), "the card would have died, but a replacement effect moved it elsewhere"),
    _env("leaves_game", ("player",), "the player loses or leaves the game in this batch"),
    _env("left_game", ("player",), "the player has left the game, in this batch or before (800.4a)"),
    _env(
        "lethal",
        ("card",),
        "the creature has lethal damage marked on it, or toughness 0 or less (704.5f-g): what the model knows of"
        " damage and toughness",
    ),
    _env("no_life", ("player",), "the player has 0 or less life (704.5a)"),
    _env("by_draw", ("player",), "the player leaves the game because the game is a draw"),
    _env(
        "leave",
        (),
        "what players and effects do to the top object of the stack: let it resolve (all passed), counter it",
        kind="enum",
        values=LEAVES,
    ),
    _env(
        "targets_illegal",
        (),
        "as the top ability tries to resolve, every target it has is illegal (608.2b)",
    ),
    _env("may_use", (), "the controller of the resolving ability takes its option"),
    _env(
        "actions_by_effect",
        (),
        "times the resolving ability's instructed action is taken if it does its effect (603.12; see actions_taken)",
        kind="int",
        max=3,
    ),
    _env("actions_other", (), "times the same action was taken for other reasons", kind="int", max=3),
    _env("replacement_applied", ("delayed",), "the static ability of d_source applied its replacement effect"),
    _env("action_taken", ("delayed",), "the player took the action d_source's static ability allows"),
    _env("no_legal_choice", ("ability",), "no legal mode or target exists for the ability as it is put on the stack"),
    # --- triggered abilities (rule-determined) -------------------------------------
    _rule("look_back", ("ability",), "the ability's trigger is judged on the state before the batch (603.10)"),
    _rule(
        "matches",
        ("ability",),
        "occurrences in the batch that match the trigger condition, once for each instance of the ability (113.2c)",
        kind="int",
        max=MAX_COUNT,
    ),
    _rule(
        "attempts", ("ability",), "matching occurrences counting prevented and replaced ones", kind="int", max=MAX_COUNT
    ),
    _rule(
        "base_triggers",
        ("ability",),
        "times the ability triggers, before 'triggers an additional time'",
        kind="int",
        max=MAX_COUNT,
    ),
    _rule("triggers", ("ability",), "times the ability triggers in this batch", kind="int", max=MAX_COUNT),
    _rule(
        "trigger_controller",
        ("ability",),
        "controller of the instances that trigger in this batch",
        kind="int",
        max_dim="player",
    ),
    _rule("pending", ("ability",), "instances triggered but not yet put on the stack", kind="int", max=MAX_COUNT),
    _rule(
        "waiting_since",
        ("ability",),
        "the batch in which the ability last triggered: its instances that wait were triggered then",
        kind="int",
        max=31,
    ),
    _rule(
        "waiting_controller",
        ("ability",),
        "the controller of the ability as it last triggered (603.3a)",
        kind="int",
        max_dim="player",
    ),
    _rule(
        "waiting_zone",
        ("ability",),
        "the zone its object was in as it last triggered (603.6: where it moved to)",
        kind="enum",
        values=ZONES,
    ),
    _rule(
        "waiting_object",
        ("ability",),
        "the card whose zone change it looks for, as it last triggered (603.6, 603.6e: see slot_object)",
        kind="int",
        max_dim="card",
    ),
    _rule(
        "triggered_by",
        ("printed", "card"),
        "for an ability that acts on the object its event happened to (acts_on_that; with one_or_more, on each of"
        " them): the card's event in this batch (a zone change, a land becoming tapped, a spell cast, combat damage"
        " to a player) is one its condition counts, judged as the condition is (603.10)",
        completed_by=lambda g, t, a, c: triggered_by_value(g, t, a, c),  # (defined below)
    ),
    _rule("placed", ("ability",), "instances put on the stack at this moment", kind="int", max=MAX_COUNT),
    _rule(
        "removed", ("ability",), "instances removed as they were put on the stack (603.3c-d)", kind="int", max=MAX_COUNT
    ),
    _rule(
        "skipped",
        ("ability",),
        "instances never put on the stack because their option would not be used",
        kind="int",
        max=MAX_COUNT,
    ),
    _rule(
        "dropped",
        ("ability",),
        "instances never put on the stack because the player who would control them has left the game (800.4d)",
        kind="int",
        max=MAX_COUNT,
        completed_by=lambda g, t, a: 0,
    ),
    _rule("prohibition_applies", ("ability",), "an activation prohibition stops this ability triggering"),
    _rule("counts_additional", ("ability",), "'triggers an additional time' effects refer to this ability"),
    _rule("is_leaves_ability", ("printed",), "the printed ability counts as a leaves-the-battlefield ability"),
    _rule("registered", ("delayed",), "the delayed triggered ability exists (created and not yet used up)"),
    _rule("d_controller", ("delayed",), "controller of the delayed triggered ability", kind="int", max_dim="player"),
    _rule(
        "d_stamp",
        ("delayed", "card"),
        "since-stamp of each object the delayed ability refers to, at its creation (400.7); 0 for a card it doesn't"
        " refer to",
        kind="int",
        max=31,
    ),
    _rule(
        "d_zone",
        ("delayed", "card"),
        "zone each object it refers to was in at its creation: where it is expected to be (603.7c); library for a"
        " card it doesn't refer to",
        kind="enum",
        values=ZONES,
    ),
    _rule(
        "resolutions",
        ("printed",),
        "resolutions of the ability of its card's current object this turn (a new object's start over, 400.7)",
        kind="int",
        max=7,
    ),
    _rule(
        "once_triggered_object",
        ("printed",),
        "for an ability that triggers only once each turn: the object (its since-stamp + 1) as which it triggered"
        " this turn, 0 if it has not",
        kind="int",
        max=32,
        completed_by=lambda g, t, c: once_triggered_value(g, t, c),  # (defined below)
    ),
    _rule(
        "done_this_turn",
        ("printed", "player"),
        "the player, controlling the ability as it resolved, took its action this turn (603.2i)",
    ),
    # --- the stack ----------------------------------------------------------------
    _rule("stack_size", (), "number of objects on the stack", kind="int", max=7),
    _rule(
        "ceased",
        (),
        "objects a player leaving the game took off the stack in this batch, besides a top that resolved or was"
        " countered (800.4a)",
        kind="int",
        max=7,
        completed_by=lambda g, t: ceased_value(g, t),  # (defined below)
    ),
    _rule(
        "slot_src",
        ("slot",),
        "object in the slot: 0 empty, 1+a ability a, 1+abilities+c spell card c",
        kind="int",
        max=31,
    ),
    _rule("slot_controller", ("slot",), "controller of the object in the slot", kind="int", max_dim="player"),
    _rule("slot_moment", ("slot",), "moment the ability in the slot triggered", kind="int", max=31),
    _rule(
        "slot_zone",
        ("slot",),
        "zone the ability's object moved to (zone-change triggers, 603.6; for an Aura's 'enchanted permanent leaves',"
        " where the enchanted permanent's card went, 603.6e)",
        kind="enum",
        values=ZONES,
    ),
    _rule(
        "slot_object",
        ("slot",),
        "the card whose zone change the ability looks for (603.6): its own card, or the card of the permanent an Aura"
        " enchanted (603.6e); 0 for a spell or another ability",
        kind="int",
        max_dim="card",
    ),
    _rule(
        "slot_subject",
        ("slot",),
        "for an ability that acts on the object its event happened to (acts_on_that): that object's card, one its"
        " condition counted in the batch it triggered in (triggered_by); 0 otherwise",
        kind="int",
        max_dim="card",
        completed_by=lambda g, t, s: 0,
    ),
    _rule("countered_now", (), "the top object was countered in this batch"),
    _rule(
        "removed_now",
        (),
        "the top ability tried to resolve but was removed from the stack instead, doing nothing (603.4, 608.2b)",
    ),
    _rule("instruction_works", (), "the top ability's 'can't be countered' instruction functions (603.1a)"),
    _rule("acts", (), "the resolving object did what its effect says (to one or more of its objects, if it has any)"),
    _rule(
        "affects",
        ("card",),
        "the resolving ability affected the card's object: one a delayed ability refers to (603.7c), or an Aura's"
        " 'enchanted permanent leaves' ability's Aura card or enchanted permanent's card (603.6e)",
    ),
)


#: Counts of triggered instances in one batch, of one ability's resolutions in a turn, of lore counters, and the
#: stack's size: ranges that are the model's capacity (``MAX_COUNT``, 7 stack objects, ``MAX_CHAPTER + 1``), not
#: limits of the game.  A game can need more: a Saga entering with three lore counters and three instances of its
#: chapter ability triggers nine times (714.2b, 113.2c); proliferate can give a Saga a fifth lore counter.
#: What each capacity counts, in the game's words (by default, instances of one ability in one batch).
CAPACITY_UNITS = {
    "stack_size": "objects on the stack",
    "resolutions": "resolutions of one ability in one turn",
    "lore": "lore counters on one permanent",
}
PER_BATCH = "instances of one ability in one batch"
CAPACITY_VARIABLES = (
    "matches",
    "attempts",
    "base_triggers",
    "triggers",
    "pending",
    "placed",
    "removed",
    "skipped",
    "dropped",
    "resolutions",
    "lore",
    "stack_size",
)
# A trace with more is a game beyond the model, and its reader says so.
VARIABLES = tuple(
    replace(s, beyond=f"the model's capacity of {s.max} {CAPACITY_UNITS.get(s.name, PER_BATCH)}")
    if s.name in CAPACITY_VARIABLES
    else s
    for s in VARIABLES
)
#: The constants a card's printed triggered ability decides: a trace that gives the cards' texts (``#meta.oracle``,
#: ``models/printed.py``) may leave them out.
PRINTED_CONSTANTS = (
    "kind",
    *SUBJECT_FILTERS,
    "subject_subtype",
    "has_if",
    "optional",
    "modal",
    "targeted",
    "once_each_turn",
    "triggers_once_each_turn",
    "one_or_more",
)
VARIABLES = tuple(replace(s, printed=True) if s.name in PRINTED_CONSTANTS else s for s in VARIABLES)


#: Games the model leaves out that ``bounds.cut_offs`` does not look for: a script that plays one is refused at its
#: step (the reference engine), and a trace that holds one breaks a game rule.
UNPROBED_BOUNDS = (
    "a spell cast onto a full stack",
    "a delayed ability created again while the earlier one still exists",
)
#: What each game rule marked ``Rule.room == MODEL_BOUND`` leaves out of the model, in the game's words.
MODEL_BOUND_MEANINGS = {
    "model.pending": "an ability triggering again, while earlier instances of it wait, after its source moved, "
    "changed control or became a new object",
    "model.delayed_reuse": "a delayed ability created again while instances of the earlier one wait or are on the "
    "stack",
}


def waiting_bookkeeping(
    states: list[dict],
    n_cards: int,
    no_zone: object = 0,
    enchanted_leaves: list[bool] | None = None,
    n_printed: int | None = None,
) -> None:
    """Fill in ``waiting_since``, ``waiting_controller``, ``waiting_zone`` and ``waiting_object`` (the model's
    bookkeeping an engine doesn't keep) from each state's ``triggers``, ``pending``, ``trigger_controller``,
    ``zone`` and ``attached_to``, as ``model.pending`` defines them: what an ability remembers of the batch it
    triggered in, the first of those whose instances wait together.  The first ``n_printed`` abilities (one per
    card when not given) are printed ones, ability ``a`` on card ``a % n_cards``; ``enchanted_leaves[a]`` says it is
    an Aura's "when enchanted permanent leaves": its object is the card the Aura was attached to before that batch
    (603.6e).  A delayed or reflexive ability's zone is ``no_zone`` (``ZONES[0]`` in the trace's words, 0 as a
    code) and its object 0."""
    printed = n_cards if n_printed is None else n_printed
    last: dict[int, tuple] = {}
    for t, state in enumerate(states):
        for a, count in enumerate(state["triggers"]):
            if count and (t == 0 or not states[t - 1]["pending"][a]):
                card = a % n_cards if a < printed else 0
                obj = card
                if a < printed and enchanted_leaves and enchanted_leaves[a] and t > 0:
                    host = states[t - 1]["attached_to"][card]
                    obj = host if isinstance(host, int) and 0 <= host < n_cards else card
                zone = state["zone"][obj] if a < printed else no_zone
                last[a] = (t, state["trigger_controller"][a], zone, obj)
        n = len(state["triggers"])
        remembered = [last.get(a, (0, 0, no_zone, 0)) for a in range(n)]
        state["waiting_since"] = [x[0] for x in remembered]
        state["waiting_controller"] = [x[1] for x in remembered]
        state["waiting_zone"] = [x[2] for x in remembered]
        state["waiting_object"] = [x[3] for x in remembered]


def roomy_variables(room: int) -> tuple[VarSpec, ...]:
    """``VARIABLES`` with every capacity (``CAPACITY_VARIABLES``: triggered instances in one batch, resolutions in
    a turn, lore counters, objects on the stack with a universe of ``room`` stack slots) raised to ``room``: where a
    deadlock goes away with more room, the model's capacity, not the rules, caused it (the audit's contradiction
    search); a game that needs more than the model holds is one (``bounds.cut_offs``)."""
    return tuple(replace(s, max=max(s.max, room)) if s.name in CAPACITY_VARIABLES else s for s in VARIABLES)


# ---------------------------------------------------------------------------------
# Vocabulary: derived notions, in the game's words.  Every function takes the game
# view ``g`` and returns an expression usable both concretely and symbolically.
# ---------------------------------------------------------------------------------


def cards(g) -> range:
    return g.range("card")


def players(g) -> range:
    return g.range("player")


def abilities(g) -> range:
    return g.range("ability")


def slots(g) -> range:
    return g.range("slot")


def in_view(g, t: int, a: int, fn):
    """``fn(view_moment)`` judged after the batch, or before it for a look-back trigger."""
    if t == 0:
        return fn(t)
    return g.lazy_if(g.look_back(t, a), lambda: fn(t - 1), lambda: fn(t))


def once_triggered_value(g, t: int, a: int):
    """``once_triggered_object(t, a)`` as rule 603 and the card's text fix it: the object (since + 1) as which printed
    ability ``a``, which triggers only once each turn, triggered at ``t``, judged as its trigger is (603.10); else
    the one it triggered as earlier this turn; else 0.  A later object always has a later stamp, so the last one
    is the only one the ability's current object can be."""
    if t == 0:
        return 0
    c = printed_card(g, a)
    view = in_view(g, t, a, lambda v: g.since(v, c))
    earlier = g.If(g.turn(t) == g.turn(t - 1), g.once_triggered_object(t - 1, a), 0)
    return g.If(g.And(g.triggers_once_each_turn(a), g.base_triggers(t, a) >= 1), view + 1, earlier)


def printed_count(g) -> int:
    """Printed triggered abilities in the universe: each card's first, then each card's second, and so on."""
    return g.size("printed")


def printed_card(g, a: int) -> int:
    """The card printed ability ``a`` is printed on.  A card's first ability has the card's own index, its second
    that index plus the number of cards, and so on: a universe of one ability per card numbers them as its cards."""
    return a % g.size("card")


def printed_of(g, c: int) -> list[int]:
    """Card ``c``'s printed triggered abilities (ability indices), first first."""
    return list(range(c, printed_count(g), g.size("card")))


def printed_about(g, a: int) -> str:
    """How a rule instance about printed ability ``a`` names it (``Rule.about``): by its card, and which of the
    card's abilities it is where it is not the first."""
    c, nth = printed_card(g, a), a // g.size("card")
    return f"card {c}" + (f", its ability {nth + 1}" if nth else "")


def printed_abilities(g) -> list[tuple[int, int]]:
    """Each printed triggered ability with its card: ``(card, ability)``.  An ability's text (``kind``, its
    filters and flags) is indexed by the ability, what its object is and does by the card."""
    return [(printed_card(g, a), a) for a in range(printed_count(g))]


def delayed(g, d: int) -> int:
    return printed_count(g) + d


def reflexive(g, r: int) -> int:
    return printed_count(g) + g.size("delayed") + r


def ability_class(g, a: int) -> tuple[str, int]:
    """('printed', a) or ('delayed', d) or ('reflexive', r)."""
    n, nd = printed_count(g), g.size("delayed")
    if a < n:
        return "printed", a
    if a < n + nd:
        return "delayed", a - n
    return "reflexive", a - n - nd


def targets(g, a: int):
    """Ability ``a`` targets (603.3d, 608.2b): a printed one as its text says, a delayed or reflexive one too."""
    cls, i = ability_class(g, a)
    return {"printed": g.targeted, "delayed": g.d_targeted, "reflexive": g.r_targeted}[cls](i)


def needs_choice(g, a: int):
    """Putting ability ``a`` on the stack needs a choice there may be no legal one for: a mode (603.3c, printed
    abilities) or targets (603.3d)."""
    modal = g.modal(a) if ability_class(g, a)[0] == "printed" else False
    return g.Or(modal, targets(g, a))


def ability_kind(g, a: int):
    cls, i = ability_class(g, a)
    if cls == "printed":
        return g.kind(i)
    if cls == "delayed":
        return g.d_kind(i)
    return NONE


def is_kind(g, a: int, kinds: Iterable[int]):
    k = ability_kind(g, a)
    return g.Or(*[k == x for x in kinds])


def spell_code(g, c: int) -> int:
    return 1 + g.size("ability") + c


def ability_code(a: int) -> int:
    return 1 + a


def on_battlefield(g, t: int, c: int):
    return g.zone(t, c) == BATTLEFIELD


def entered(g, t: int, c: int):
    """Card ``c`` became a new object in its zone during batch ``t`` (400.7)."""
    return g.since(t, c) == t if t > 0 else False


def entered_battlefield(g, t: int, c: int):
    return g.And(entered(g, t, c), on_battlefield(g, t, c))


def same_permanent(g, t: int, c: int):
    """``c`` was on the battlefield before batch ``t`` and still is, as the same object (400.7)."""
    return g.And(on_battlefield(g, t - 1, c), on_battlefield(g, t, c), g.Not(entered(g, t, c)))


def left_battlefield(g, t: int, c: int):
    """A permanent left the battlefield in batch ``t`` (603.6c).

    A phased-out permanent is treated as though it does not exist (702.26b): when it leaves
    the game with its owner, that is not a permanent leaving the battlefield (603.6c says
    "a phased-in permanent"), and nothing else can move it.
    """
    if t == 0:
        return False
    return g.And(
        on_battlefield(g, t - 1, c),
        g.Not(g.phased_out(t - 1, c)),
        g.Or(g.zone(t, c) != BATTLEFIELD, entered(g, t, c)),
    )


def dies(g, t: int, c: int):
    return g.And(left_battlefield(g, t, c), g.zone(t, c) == GRAVEYARD)


def visible(g, t: int, c: int):
    """Visible to all players: not in a hidden zone, or revealed."""
    return g.Or(g.revealed(t, c), g.And(g.zone(t, c) != LIBRARY, g.zone(t, c) != HAND))


def functions(g, t: int, a: int):
    """Printed triggered ability ``a`` exists at moment ``t`` (113.6): "when this spell is countered" and "when you
    cast this spell" on the stack, as the spell they are about (601.2i: the latter triggers as it becomes cast)."""
    c = printed_card(g, a)
    kind = g.kind(a)
    zone_ok = g.If(
        g.Or(kind == COUNTERED_SELF, cast_trigger(g, a)),
        g.zone(t, c) == STACK,
        g.Or(g.And(on_battlefield(g, t, c), g.Not(g.phased_out(t, c))), g.And(g.from_hand(a), g.zone(t, c) == HAND)),
    )
    return g.And(kind != NONE, g.eff_ability(t, a), zone_ok)


def cast_trigger(g, a: int):
    """Printed ability ``a`` is "when you cast this spell" (a spell cast, of "this" one)."""
    return g.And(g.kind(a) == SPELL_CAST, g.subject_relation(a) == THIS_SUBJECT)


def exists(g, t: int, a: int):
    """Ability ``a`` exists at moment ``t``: printed ones function, delayed ones are registered."""
    cls, i = ability_class(g, a)
    if cls == "printed":
        return functions(g, t, i)
    if cls == "delayed":
        return g.registered(t, i)
    return False


def can_trigger(g, t: int, view: int, a: int):
    """Ability ``a`` is there to trigger on the events of batch ``t``, judged in ``view`` (``t-1`` or ``t``).

    A printed ability must function in the view.  A delayed ability is there if it existed
    before the batch or exists after it, whatever the view: the event that makes it fire
    also uses it up (603.7b), so its existence after the batch alone cannot decide.  That
    it was created only in this batch (603.7a) or that its duration ended with the turn
    (603.7b) is for those clauses to say: they stop it from triggering.
    """
    cls, i = ability_class(g, a)
    if cls == "delayed":
        if t == 0:
            return g.registered(t, i)
        return g.And(g.Or(g.registered(t - 1, i), g.registered(t, i)), still_its_subject(g, t, a))
    return exists(g, view, a)


def refers_to(g, d: int, c: int):
    """Delayed ability ``d`` refers to card ``c``'s object (603.7c)."""
    return g.d_refers(d, c)


def subject(g, a: int):
    """The card a trigger condition calls "this": the ability's own card; the one card a delayed
    ability refers to ("When this creature leaves the battlefield", 603.7a's example: a delayed
    ability whose condition names an object refers to that object alone, ``model.delayed``); the card
    whose ability created a reflexive one."""
    cls, i = ability_class(g, a)
    if cls == "printed":
        return printed_card(g, i)
    if cls == "delayed":
        out = 0
        for c in range(g.size("card") - 1, -1, -1):  # the first card it refers to (the only one, for a subject)
            out = g.If(g.d_refers(i, c), c, out)
        return out
    return g.reflexive_from(i)


def still_its_subject(g, t: int, a: int):
    """Before batch ``t``, a delayed ability's "this" is still the object it was created for.

    The ability refers to an object, not to a card: once that object has changed zones, the
    card is a new object (400.7) and "this creature leaves the battlefield" can't happen any
    more -- 603.7a's "other events that happen earlier may make the trigger event impossible".
    Conditions that name no object ("at the beginning of the next end step") don't care.
    """
    cls, d = ability_class(g, a)
    if cls != "delayed" or t == 0:
        return True
    same_object = g.And(*[g.Implies(g.d_refers(d, c), g.since(t - 1, c) == g.d_stamp(t - 1, d, c)) for c in cards(g)])
    return g.Or(g.Not(is_kind(g, a, SUBJECT_KINDS)), g.Not(g.registered(t - 1, d)), same_object)


def instances_of(g, t: int, a: int):
    """How many instances of ability ``a`` its object has at moment ``t`` (113.2c).

    Only a card's own triggered ability can be had several times (two Cavalry Masters give each
    other flanking; Genju of the Fields, activated three times, gives the land three instances);
    a delayed or reflexive ability is one ability each.
    """
    cls, i = ability_class(g, a)
    return g.instances(t, i) if cls == "printed" else 1


def per_instance(g, n, instances):
    """``n`` occurrences seen by each of ``instances`` instances: ``n`` times ``instances`` (1 to 3)."""
    if isinstance(instances, int) and instances == 1:
        return n
    return g.If(instances == 3, n + n + n, g.If(instances == 2, n + n, n))


def source_card(g, a: int):
    """The card ability ``a`` comes from: the one it is printed on, or the one whose spell, ability or static
    ability created it."""
    cls, i = ability_class(g, a)
    if cls == "printed":
        return printed_card(g, i)
    if cls == "delayed":
        return g.d_source(i)
    return g.reflexive_from(i)


def source_controller(g, t: int, a: int):
    """Controller of the ability's source at moment ``t`` (for a printed ability)."""
    cls, i = ability_class(g, a)
    if cls == "printed":
        return g.controller(t, printed_card(g, i))
    if cls == "delayed":
        return g.d_controller(t, i)
    return select(g, [g.controller(t, c) for c in cards(g)], g.reflexive_from(i))


def select(g, values: list, index):
    """``values[index]`` for a symbolic index; out of range, the last value (as the If-chain gives)."""
    if isinstance(index, int):
        # An engine's trace may hold an index out of range (a stack larger than its slots,
        # say); the axioms report that, and reading must not crash before they can.
        return values[index] if 0 <= index < len(values) else values[-1]
    out = values[-1]
    for i in range(len(values) - 2, -1, -1):
        out = g.If(index == i, values[i], out)
    return out


def card_value(g, name: str, t: int | None, index):
    """The variable ``name`` of the card at a (possibly symbolic) index."""
    values = [getattr(g, name)(c) if t is None else getattr(g, name)(t, c) for c in cards(g)]
    return select(g, values, index)


def for_card(g, index, fn):
    """``fn(c)`` for the card at a possibly symbolic ``index``."""
    if isinstance(index, int):
        return fn(index)
    return g.Or(*[g.And(index == c, fn(c)) for c in cards(g)])


def apnap_rank(g, t: int, p):
    """0 for the active player, then the others in turn order (101.4)."""
    n = g.size("player")
    return g.If(p >= g.active(t), p - g.active(t), p + n - g.active(t))


def stack_size(g, t: int):
    return g.stack_size(t)


def top(g, t: int, name: str):
    """Attribute ``name`` of the top stack object at moment ``t`` (``size(t) >= 1``)."""
    return select(g, [g.var(name, t, s) for s in slots(g)], stack_size(g, t) - 1)


def popped(g, t: int):
    """The top object of moment ``t-1`` left the stack during batch ``t``."""
    if t == 0:
        return False
    return g.Or(g.leave(t) == RESOLVE, g.countered_now(t))


def ceases(g, t: int, s: int):
    """The object in slot ``s`` at ``t-1`` leaves the stack in batch ``t`` because a player leaves the game (800.4a):
    an ability its controller, a spell its card's owner or its controller takes along."""
    if t == 0:
        return False
    leaving = [g.leaves_game(t, p) for p in players(g)]
    owner_leaves = [g.And(g.slot_src(t - 1, s) == spell_code(g, c), select(g, leaving, g.owner(c))) for c in cards(g)]
    return g.Or(select(g, leaving, g.slot_controller(t - 1, s)), *owner_leaves)


def _held_and_not_popped(g, t: int, s: int) -> tuple:
    """Slot ``s`` at ``t-1`` holds an object, and not the top that left the stack in batch ``t``."""
    return s < stack_size(g, t - 1), g.Not(g.And(popped(g, t), s == stack_size(g, t - 1) - 1))


def _taken_along(g, t: int, s: int):
    """Slot ``s`` at ``t-1`` holds an object, not the popped top, that a player leaving the game takes along."""
    return g.And(*_held_and_not_popped(g, t, s), ceases(g, t, s))


def ceased_value(g, t: int):
    """``ceased(t)`` as the game fixes it."""
    return 0 if t == 0 else g.count(_taken_along(g, t, s) for s in slots(g))


def survives(g, t: int, s: int):
    """The object in slot ``s`` at ``t-1`` is still on the stack at ``t``: neither the popped top nor one a player
    leaving the game took along (800.4a)."""
    return g.And(*_held_and_not_popped(g, t, s), g.Not(ceases(g, t, s)))


def survivors_below(g, t: int, s: int):
    """How many objects below slot ``s`` at ``t-1`` are still on the stack at ``t``: where slot ``s``'s object is
    then, if it is (405.1 keeps their order; the ones between that left close up)."""
    return g.count(survives(g, t, s0) for s0 in slots(g) if s0 < s)


def kept(g, t: int):
    """Stack objects of ``t-1`` that are still there at ``t`` (all but a popped top and those 800.4a takes)."""
    return stack_size(g, t - 1) - g.If(popped(g, t), 1, 0) - g.ceased(t)


def tries_to_resolve(g, t: int, code):
    """The object with slot code ``code`` is on top and every player passed (608.1): it resolves
    during batch ``t`` unless a rule removes it from the stack instead (603.4, 608.2b)."""
    if t == 0:
        return False
    return g.And(g.leave(t) == RESOLVE, stack_size(g, t - 1) >= 1, top(g, t - 1, "slot_src") == code)


def tries_to_resolve_ability(g, t: int, a: int):
    return tries_to_resolve(g, t, ability_code(a))


def resolving(g, t: int, code):
    """The object with slot code ``code`` resolves during batch ``t``: removed, it does not (603.4, 608.2b)."""
    if t == 0:
        return False
    return g.And(tries_to_resolve(g, t, code), g.Not(g.removed_now(t)))


def resolving_ability(g, t: int, a: int):
    return resolving(g, t, ability_code(a))


def at_label(g, t: int, label, name: str, *index: int, default=0):
    """Per-moment variable ``name`` at moment ``label`` (an instance's ``slot_moment``: batch ``t`` itself or an
    earlier one), ``default`` for any other."""
    return g.If(label == t, g.var(name, t, *index), g.earlier(label, t, name, *index, default=default))


def carried_apart(g, t: int, a: int, objects_at: Callable) -> Iterator[tuple[int, int, object]]:
    """For two stack slots ``s1 < s2`` holding instances of printed ability ``a`` put on the stack together in batch
    ``t``, from one batch: when their objects must differ (603.2c: it triggered once for each of
    ``objects_at(label)`` objects, no more times -- 113.2c's instances, 603.2d's "additional time" would be more)."""
    code = ability_code(a)
    for s1 in slots(g):
        origin = g.slot_moment(t, s1)
        once_each = at_label(g, t, origin, "triggers", a) == objects_at(origin)
        for s2 in slots(g):
            if s1 < s2:
                together = g.And(
                    *[g.And(new_slot(g, t, s), g.slot_src(t, s) == code) for s in (s1, s2)],
                    g.slot_moment(t, s2) == origin,
                )
                yield s1, s2, g.And(together, once_each)


def nth_resolution(g, t: int, creator, n):
    """The first printed ability of card ``creator`` (a card's index, maybe symbolic) resolves in batch ``t`` for the
    ``n``-th time this turn, a resolution that counts for its object (400.7: not an earlier object's instance)."""
    if t == 0:
        return False
    return g.Or(
        *[
            g.And(creator == x, resolution_counted(g, t, x), g.resolutions(t, x) == n)
            for x in cards(g)  # (card x's first printed ability is ability x)
        ]
    )


def creator_does_it(g, t: int, d: int):
    """Delayed ability ``d``'s creator resolves in batch ``t`` doing what its text says: a spell as it resolves
    (603.7d), the card's first printed ability (``d_source`` names the card) as it resolves doing what it says (603.7e;
    one removed, 603.4 or 608.2b, or whose "may" was declined, does nothing).  Replacement effects and allowed actions
    create theirs as the script says (603.7f-g)."""
    if t == 0:
        return False
    src = g.d_source(d)
    ability = g.And(resolving_ability_of(g, t, src), g.acts(t))
    return g.If(g.d_cause(d) == SPELL_CAUSE, resolving_spell(g, t, src), g.And(g.d_cause(d) == ABILITY_CAUSE, ability))


def resolving_spell(g, t, c):
    """The spell of the card at (possibly symbolic) index ``c`` resolves in batch ``t``."""
    if t == 0:
        return False
    return g.Or(*[g.And(c == x, resolving(g, t, spell_code(g, x))) for x in cards(g)])


def resolving_ability_of(g, t, c):
    """The first printed ability of the card at (possibly symbolic) index ``c`` resolves in batch ``t``: the one a
    delayed or reflexive ability its card's ability creates comes from (``d_source``, ``reflexive_from``)."""
    return g.Or(*[g.And(c == x, resolving_ability(g, t, x)) for x in cards(g)])  # (card x's first is ability x)


def made_by_its_creator(g, t: int, d: int):
    """Delayed ability ``d``'s creator's text creates it in batch ``t``: as it resolves doing what it says, on its
    ``d_n``-th resolution this turn for one that waits for it (603.7h)."""
    if t == 0:
        return False
    return g.And(creator_does_it(g, t, d), g.Or(g.Not(g.d_nth(d)), nth_resolution(g, t, g.d_source(d), g.d_n(d))))


def resolutions_carried(g, t: int, a: int):
    """Printed ability ``a``'s resolutions this turn before batch ``t``, for its card's object now (400.7: a card that
    became a new object in the batch starts over; a new turn starts over too)."""
    c = printed_card(g, a)
    kept = g.And(g.turn(t) == g.turn(t - 1), g.since(t, c) == g.since(t - 1, c))
    return g.If(kept, g.resolutions(t - 1, a), 0)


def resolution_counted(g, t: int, a: int):
    """Printed ability ``a`` resolves in batch ``t`` and the resolution counts for its card's object (400.7): the
    object stays the same, and the instance triggered as it (one whose source had moved on before it resolved
    counts for that earlier object, not the current one)."""
    c = printed_card(g, a)
    same = g.And(g.since(t, c) == g.since(t - 1, c), g.since(t - 1, c) <= top(g, t - 1, "slot_moment"))
    return g.And(resolving_ability(g, t, a), same)


def actions_taken(g, t: int):
    """Times the resolving ability's instructed action was taken (603.12): the player's choice
    ``actions_by_effect`` if the ability does its effect (608.2), none if it does nothing."""
    return g.If(g.acts(t), g.actions_by_effect(t), 0)


def aura_leaves_resolving(g, t: int, x: int):
    """Aura ``x``'s "when enchanted permanent leaves the battlefield" ability resolves in batch ``t`` (603.6e)."""
    return g.Or(*[g.And(g.kind(a) == ENCHANTED_LEAVES, resolving_ability(g, t, a)) for a in printed_of(g, x)])


def hidden_from(g, t: int, c: int, player):
    """Card ``c`` is, before batch ``t``, in a zone hidden from ``player``: a library, or another player's hand."""
    return g.Or(g.zone(t - 1, c) == LIBRARY, g.And(g.zone(t - 1, c) == HAND, g.owner(c) != player))


def found_where_it_moved(g, t: int, c: int):
    """As the zone-change ability on top of the stack resolves in batch ``t``, card ``c`` is the object it became
    as the ability triggered (603.6: the ability looks for it in the zone it moved to), not hidden from the
    ability's controller, and not phased out (treated as though it doesn't exist, 702.26b)."""
    return g.And(
        g.since(t - 1, c) == top(g, t - 1, "slot_moment"),
        g.Not(hidden_from(g, t, c, top(g, t - 1, "slot_controller"))),
        g.Not(g.phased_out(t - 1, c)),
    )


def effect_destination(g, t: int):
    """Where the ability resolving in batch ``t`` moves the objects it acts on and finds: a code of
    ``DESTINATIONS``, 0 ("none") for an ability that says no move the model follows, or for none resolving."""
    dest = 0
    for a in range(printed_count(g)):
        dest = g.If(resolving_ability(g, t, a), g.moves_to(a), dest)
    for d in g.range("delayed"):
        dest = g.If(resolving_ability(g, t, delayed(g, d)), g.d_moves_to(d), dest)
    return dest


def destination_zone(g, dest):
    """The zone a destination code (``effect_destination``) puts a card into: its owner's."""
    zones = list(DESTINATION_ZONES.values())
    zone = zones[-1]
    for code in range(len(zones) - 1, 0, -1):
        zone = g.If(dest == code, zones[code - 1], zone)
    return zone


def moved_by_effect(g, t: int, c: int, dest):
    """The ability resolving in batch ``t`` moves card ``c``'s object where its text says (``dest``, 608.2): an object
    it acts on and finds -- one it affects, or its own object, for a zone-change ability that finds it where it moved
    (603.6) -- but not an Aura card its own "enchanted permanent leaves" ability finds ("return that card" is the
    permanent's), an instant or sorcery card to the battlefield (304.4, 307.4), a token that has left it (111.8), nor
    a spell."""
    if t == 0:
        return False
    mine = printed_of(g, c)
    own = [g.And(resolving_ability(g, t, a), acts_on_its_own_object(g, a), found_where_it_moved(g, t, c)) for a in mine]
    aura_card = g.Or(*[g.And(resolving_ability(g, t, a), g.kind(a) == ENCHANTED_LEAVES) for a in mine])
    acted = g.Or(g.And(g.affects(t, c), g.Not(aura_card)), g.And(g.acts(t), g.Or(*own)))
    to_battlefield = destination_zone(g, dest) == BATTLEFIELD
    stays = g.Or(
        g.And(to_battlefield, g.Or(g.instant_card(c), g.sorcery_card(c))),
        g.And(g.token(c), g.zone(t - 1, c) != BATTLEFIELD),
        g.zone(t - 1, c) == STACK,  # a spell: the model's stack loses only its top object (405.1)
    )
    return g.And(dest != 0, acted, g.Not(stays))


#: The trace's ``#meta`` key listing ``[moment, card]`` cells a played script leaves to the rules
#: (``left_to_the_rules``).
LEFT_TO_THE_RULES = "left_to_rules"
#: ... and those where only the card's object (``since``) is the rules', the card staying put (``stays_put``).
OBJECT_LEFT_TO_THE_RULES = "object_left_to_rules"
#: ... and those of the first where the card's zone is the script's after all: an event of the script that names the
#: card next says where it is.
ZONE_KEPT_BY_THE_SCRIPT = "zone_kept_by_script"


def stays_put(g, t: int, c: int) -> list:
    """Card ``c`` at moment ``t`` where a played script leaves only its object to the rules: it doesn't move, and stays
    the object it was (400.7), whichever moment the rules made it that object."""
    return [g.zone(t, c) == g.zone(t - 1, c), g.since(t, c) == g.since(t - 1, c)]


def left_to_the_rules(g, t: int, c: int) -> list:
    """Card ``c``'s zone, object, controller and tapped status at moment ``t`` where a played script leaves them to
    the rules (an effect that moves what it finds, ``moves_to``): the card moves only as the resolving effect moves
    it (608.2) -- under its owner's control (110.2), or the ability's controller's, untapped unless it enters tapped
    (603.6d) -- and stays the same object where it doesn't (400.7)."""
    dest = effect_destination(g, t)
    moved = moved_by_effect(g, t, c, dest)
    zone = destination_zone(g, dest)
    yours = g.And(dest == YOUR_BATTLEFIELD, g.Not(g.Or(g.instant_card(c), g.sorcery_card(c))))
    controller = g.If(yours, top(g, t - 1, "slot_controller"), g.owner(c))
    tapped = g.And(zone == BATTLEFIELD, g.enters_tapped(c))
    stays = g.zone(t, c) == g.zone(t - 1, c)
    return [
        g.zone(t, c) == g.If(moved, zone, g.zone(t - 1, c)),
        g.Implies(stays, g.since(t, c) == g.since(t - 1, c)),
        g.controller(t, c) == g.If(g.And(moved, g.Not(stays)), controller, g.controller(t - 1, c)),
        g.tapped(t, c) == g.If(g.And(moved, g.Not(stays)), tapped, g.tapped(t - 1, c)),
    ]


def event_object_named(g, t: int, a: int, c: int):
    """Card ``c`` is an object printed ability ``a``, on top of the stack before batch ``t``, does something to because
    its event happened to it: the one its instance carries (``acts_on_that``), or any of those its "one or more"
    condition counted as it triggered (``acts_on_them``: "return them")."""
    carried = top(g, t - 1, "slot_subject") == c
    counted = at_label(g, t, top(g, t - 1, "slot_moment"), "triggered_by", a, c, default=False)
    return g.Or(g.And(acts_on_that(g, a), carried), g.And(acts_on_them(g, a), counted))


def found_as_it_was(g, t: int, a: int, c: int):
    """As printed ability ``a`` on top of the stack resolves in batch ``t``, card ``c`` is still the object its event
    happened to (400.7): the one it became if the event put it where it is (a zone change, 603.6; a spell cast, its
    card put on the stack, 601.2a), or the one it already was if not (a land that became tapped, a creature that
    dealt combat damage: one that changed zones in that very batch is a new object); not hidden from the ability's
    controller, nor phased out (702.26b)."""
    moment, stamp = top(g, t - 1, "slot_moment"), g.since(t - 1, c)
    return g.And(
        g.If(is_kind(g, a, EVENT_PUTS_ITS_OBJECT_THERE), stamp == moment, stamp < moment),
        g.Not(hidden_from(g, t, c, top(g, t - 1, "slot_controller"))),
        g.Not(g.phased_out(t - 1, c)),
    )


def names_object(g, t: int, c: int):
    """The ability resolving in batch ``t`` does something to card ``c``'s object, as its effect says: an object
    a delayed ability refers to (603.7c); the Aura card and the enchanted permanent's card, for an Aura's "when
    enchanted permanent leaves" ability (603.6e); its source, for a printed ability that says so (``acts_on_this``); the
    object its event happened to, for one that acts on that (``acts_on_that``: the card its instance carries,
    ``slot_subject``); the objects of its "one or more" event, for one that acts on them (``acts_on_them``).  A
    zone-change ability's own object is 603.6's (``acts_on_its_own_object``)."""
    if t == 0:
        return False
    named = [g.And(resolving_ability(g, t, delayed(g, d)), g.d_refers(d, c)) for d in g.range("delayed")]
    named += [g.And(resolving_ability(g, t, a), acts_on_this(g, a)) for a in printed_of(g, c)]
    named += [g.And(resolving_ability(g, t, a), event_object_named(g, t, a, c)) for a in range(printed_count(g))]
    for x in cards(g):
        mine = True if x == c else top(g, t - 1, "slot_object") == c
        named.append(g.And(aura_leaves_resolving(g, t, x), mine))
    return g.Or(*named)


def names_objects(g, t: int):
    """The ability resolving in batch ``t`` does something to objects (``names_object``): what it does is what it
    does to them."""
    return g.Or(*[names_object(g, t, c) for c in cards(g)])


def stack_needed(g, t: int):
    """The objects the stack holds after batch ``t``: those in its slots, and the instances put on it at ``t``
    that have none (only where the slots' bound is set aside: ``bounds.cut_offs`` asks whether a game needs more)."""
    filled = g.count(g.slot_src(t, s) != 0 for s in slots(g))
    without = []
    for a in abilities(g):
        slotted = g.count(new_instance_slots(g, t, a))
        without.append(g.If(g.placed(t, a) > slotted, g.placed(t, a) - slotted, 0))
    return g.Sum([filled, *without])


def new_slot(g, t: int, s: int):
    """Slot ``s`` holds an object put on the stack during batch ``t``."""
    if t == 0:
        return s < stack_size(g, t)
    return g.And(s >= kept(g, t), s < stack_size(g, t))


def new_instance_slots(g, t: int, a: int) -> list:
    """For each stack slot: it holds an instance of ability ``a`` put on the stack during batch ``t``."""
    return [g.And(new_slot(g, t, s), g.slot_src(t, s) == ability_code(a)) for s in slots(g)]


def delayed_created(g, t: int, d: int):
    """Delayed ability slot ``d`` holds a newly created ability at moment ``t``."""
    if t == 0:
        return g.registered(t, d)
    return g.And(g.registered(t, d), g.Not(g.registered(t - 1, d)))


def on_stack_count(g, t: int, a: int):
    return g.count(g.var("slot_src", t, s) == ability_code(a) for s in slots(g))


def outstanding(g, t: int, a: int):
    """Instances of ``a`` pending or on the stack at ``t``."""
    return g.pending(t, a) + on_stack_count(g, t, a)


def lethal_damage_due(g, t: int, c: int):
    """704.5f-g: creature ``c`` has lethal damage marked on it, or toughness 0 or less, at moment ``t``.

    ``lethal`` says it of a creature: whether the permanent is one is the environment's to keep straight
    here, so that what a state-based action needs is known from the environment alone (a rule that made it
    depend on the clauses, 603.6b's for a creature entering, would let a clause contradict the game's rules).
    """
    return g.And(g.lethal(t, c), on_battlefield(g, t, c), g.Not(g.phased_out(t, c)))


def aura_unattached_due(g, t: int, c: int):
    """704.5m: Aura ``c`` is on the battlefield attached to nothing at moment ``t``."""
    return g.And(g.aura(c), on_battlefield(g, t, c), g.Not(g.phased_out(t, c)), g.attached_to(t, c) == attached_none(g))


def token_ceases_due(g, t: int, c: int):
    """704.5d (111.7): token ``c`` is in a zone other than the battlefield at moment ``t`` (outside the game, it has
    ceased to exist already, or is yet to be created)."""
    return g.And(g.token(c), g.zone(t, c) != BATTLEFIELD, g.zone(t, c) != OUTSIDE)


def legend_here(g, t: int, c: int):
    """``c`` is a legendary permanent at moment ``t``, for the legend rule: on the battlefield and phased in (a
    phased-out permanent is treated as though it doesn't exist, 702.26b)."""
    return g.And(g.legend_name(c) >= 1, on_battlefield(g, t, c), g.Not(g.phased_out(t, c)))


def same_legend(g, t: int, c: int, x: int):
    """Legendary permanents ``c`` and ``x`` have the same name and the same controller at moment ``t`` (704.5j)."""
    return g.And(
        legend_here(g, t, c),
        legend_here(g, t, x),
        g.legend_name(c) == g.legend_name(x),
        g.controller(t, c) == g.controller(t, x),
    )


def legend_rule_due(g, t: int, c: int):
    """704.5j: ``c`` is one of two or more legendary permanents with the same name controlled by the same player
    at moment ``t`` (that player keeps one of them; the rest go to their owners' graveyards)."""
    return g.Or(*[same_legend(g, t, c, x) for x in cards(g) if x != c])


def state_based_actions_performed(g, t: int):
    """Batch ``t`` performs the state-based actions due at ``t - 1``: the game checks them as a player would
    receive priority (704.3), never between the events of one resolution (704.4, ``unfinished``)."""
    if t == 0:
        return False
    return g.Not(g.unfinished(t - 1))


def state_based_actions_due(g, t: int):
    """Some state-based action (704.5a, d, f-g, j, m) would be performed before a player receives priority at
    ``t``."""
    return g.Or(
        *[lethal_damage_due(g, t, c) for c in cards(g)],
        *[aura_unattached_due(g, t, c) for c in cards(g)],
        *[token_ceases_due(g, t, c) for c in cards(g)],
        *[legend_rule_due(g, t, c) for c in cards(g)],
        *[g.no_life(t, p) for p in players(g)],
    )


def hand_empty(g, t: int, p):
    return g.Not(g.Or(*[g.And(g.zone(t, c) == HAND, g.owner(c) == p) for c in cards(g)]))


def begins(g, t: int):
    """A step begins during batch ``t``: another step, a new turn, or a step an effect added (an additional
    upkeep right after the upkeep, 500.9)."""
    if t == 0:
        return False
    return g.Or(g.step(t) != g.step(t - 1), g.turn(t) != g.turn(t - 1), g.extra_step(t))


def creature_enters_count(g, t: int, view_t: int, a: int | None = None):
    """Creatures that entered the battlefield in batch ``t``, as they are in view ``view_t``; with ``a``, only those
    ability ``a``'s condition speaks of (``subject_matches``)."""
    return g.count(event_object_of(g, CREATURE_ENTERS, t, view_t, a, c) for c in cards(g))


def event_object_of(g, kind: int, t: int, v: int, a: int | None, c: int):
    """Card ``c``'s object is one a zone-change condition of ``kind`` (``ZONE_CHANGE_FILTERED_KINDS``) counts in batch
    ``t``, as it is in view ``v``, of those ability ``a``'s condition speaks of: a creature entering the battlefield
    (603.6a), a creature dying or a land put into a graveyard from the battlefield (603.6c; a creature as it was in
    the view, 603.10a; being a land is printed), a creature card put into a graveyard from anywhere (a token is not a
    card, 108.2b; "your graveyard" is its owner's, 404.1)."""
    by_owner = kind == GRAVEYARD_FROM_ANYWHERE
    return g.And(
        _zone_change(g, kind, t, c), _object_of_kind(g, kind, v, c), subject_matches(g, a, v, c, by_owner=by_owner)
    )


def _zone_change(g, kind: int, t: int, c: int):
    """Card ``c`` made the zone change of a condition of ``kind`` in batch ``t``."""
    if kind == CREATURE_ENTERS:
        return entered_battlefield(g, t, c)
    if kind in (CREATURE_DIES, LAND_TO_GRAVEYARD):
        return dies(g, t, c)
    assert kind == GRAVEYARD_FROM_ANYWHERE, kind
    return g.And(g.zone(t, c) == GRAVEYARD, entered(g, t, c))


def _object_of_kind(g, kind: int, v: int, c: int):
    """Card ``c``'s object is of the kind a condition of ``kind`` names, as it is in view ``v``: a creature, a land (a
    printed type), a creature card (not a token, 108.2b)."""
    if kind in (CREATURE_ENTERS, CREATURE_DIES):
        return g.eff_creature(v, c)
    if kind == LAND_TO_GRAVEYARD:
        return g.land_card(c)
    assert kind == GRAVEYARD_FROM_ANYWHERE, kind
    return g.And(g.creature_card(c), g.Not(g.token(c)))


def leaving_object_of(g, kind: int, a: int | None, v: int, c: int):
    """Card ``c``'s object, as it was in view ``v``, is one "whenever a creature dies" (a creature then) or "a land is
    put into a graveyard from the battlefield" (being a land is printed) of ability ``a`` speaks of."""
    return g.And(_object_of_kind(g, kind, v, c), subject_matches(g, a, v, c))


def event_object(g, t: int, a: int, v: int, c: int):
    """Card ``c``'s event in batch ``t`` is one printed ability ``a``'s condition about any object of a kind counts,
    judged in view ``v`` (for a zone change, ``event_object_of`` for its kind; the filter, the same for those whose
    object's controller counts, is built once)."""
    if t == 0:
        return False
    by_kind = [
        g.And(g.kind(a) == k, _zone_change(g, k, t, c), _object_of_kind(g, k, v, c))
        for k in (CREATURE_ENTERS, CREATURE_DIES, LAND_TO_GRAVEYARD)
    ]
    # The events that don't move their object: a land becoming tapped (603.2f), a creature dealing combat damage to a
    # player (510.2); each is its object's own event, so each object triggers once.
    by_kind.append(g.And(g.kind(a) == LAND_TAPPED, g.land_card(c), became_tapped(g, t, c)))
    by_kind.append(
        g.And(g.kind(a) == COMBAT_DAMAGE_TO_PLAYER, g.Or(*[g.combat_damage_to(t, c, p) for p in players(g)]))
    )
    anywhere = g.And(g.kind(a) == GRAVEYARD_FROM_ANYWHERE, event_object_of(g, GRAVEYARD_FROM_ANYWHERE, t, v, a, c))
    # A spell is cast as its card is put on the stack (601.2a); its controller is who cast it.
    cast = g.And(g.kind(a) == SPELL_CAST, spell_put_on_stack(g, t, c), subject_matches(g, a, v, c, on_stack=True))
    return g.Or(g.And(subject_matches(g, a, v, c), g.Or(*by_kind)), anywhere, cast)


def became_tapped(g, t: int, c: int):
    """Card ``c``'s permanent was on the battlefield before batch ``t`` and after, the same object, and became tapped in
    it: the event, not a permanent entering tapped (603.2f)."""
    stayed = g.And(g.zone(t - 1, c) == BATTLEFIELD, g.zone(t, c) == BATTLEFIELD, g.since(t, c) != t)
    return g.And(stayed, g.Not(g.tapped(t - 1, c)), g.tapped(t, c))


def spell_put_on_stack(g, t: int, c: int):
    """Card ``c`` was put on the stack in batch ``t``: cast (601.2a; the model has no other way there)."""
    return g.And(g.zone(t, c) == STACK, g.zone(t - 1, c) != STACK)


def about_each_object(g, a: int):
    """Printed ability ``a``'s condition is about any object of a kind ("a creature dies", "a land becomes tapped",
    "an opponent casts a spell", "a creature deals combat damage to a player"), one trigger per object (not "one or
    more"), of an object other than its own: "it" in its text is the object the event happened to."""
    return g.And(is_kind(g, a, FILTERED_KINDS), g.subject_relation(a) != THIS_SUBJECT, g.Not(g.one_or_more(a)))


def acts_on_that(g, a: int):
    """Printed ability ``a`` does something to the object its event happened to ("whenever another creature dies,
    exile it")."""
    return g.And(g.acts_on_that(a), about_each_object(g, a))


def acts_on_them(g, a: int):
    """Printed ability ``a`` does something to all the objects its "one or more" event happened to ("whenever one or
    more creatures you control die, return them to their owner's hand").  Not "one or more creatures deal combat
    damage to a player": it triggers once for each player, each instance about the creatures that dealt that player
    damage, which the model does not keep apart (``THEM_KINDS``)."""
    return g.And(g.acts_on_that(a), is_kind(g, a, THEM_KINDS), g.subject_relation(a) != THIS_SUBJECT, g.one_or_more(a))


def if_about_that(g, a: int):
    """Printed ability ``a``'s intervening "if" speaks of the object its event happened to ("if that creature's power
    is greater than ~'s"): 603.4 asks it of each such object."""
    return g.And(g.has_if(a), g.if_about_that(a), about_each_object(g, a))


def carries_its_object(g, a: int):
    """Each instance of printed ability ``a`` carries the object its event happened to (``slot_subject``): its
    effect acts on it, or its intervening "if" speaks of it."""
    return g.Or(acts_on_that(g, a), if_about_that(g, a))


def triggered_by_value(g, t: int, a: int, c: int):
    """``triggered_by(t, a, c)`` as the game fixes it: an ability that carries its event's object, or acts on all of
    a "one or more" event's (``acts_on_them``), triggers in batch ``t``, and
    card ``c``'s event then is one its condition counts, judged as its trigger is (603.10)."""
    if t == 0:
        return False
    counted = in_view(g, t, a, lambda v: event_object(g, t, a, v, c))
    return g.And(g.Or(carries_its_object(g, a), acts_on_them(g, a)), g.triggers(t, a) >= 1, counted)


def subject_matches(g, a: int | None, v: int, c: int, *, by_owner: bool = False, on_stack: bool = False):
    """Card ``c``'s object, as it is at moment ``v`` (the view the condition is judged in), is one ability ``a``'s
    filtered trigger condition speaks of: "another" is not the source, "this" is; "you control" / "an opponent
    controls" compares its controller (a card off the battlefield has none, 108.4a: its owner) with the ability's
    controller in the same view, and ``by_owner`` ("a creature card is put into your graveyard": a card goes to its
    owner's graveyard, 404.1) compares its owner; ``on_stack``, a spell ("an opponent casts"), compares its
    controller, who cast it (601.2a); "token" / "nontoken" is what it is (111.1); a spell's card type ("a noncreature
    spell") and a subtype ("another Elf") are printed on its card (205.2, 205.3).  Delayed and reflexive abilities,
    and ``a`` None, have no filter."""
    if a is None or ability_class(g, a)[0] != "printed":
        return True
    x = printed_card(g, a)
    relation, whose, token, type_ = (g.var(f, a) for f in SUBJECT_FILTERS)
    same = c == x
    if on_stack:
        holder = g.controller(v, c)
    else:
        holder = g.owner(c) if by_owner else g.If(on_battlefield(g, v, c), g.controller(v, c), g.owner(c))
    you = source_controller(g, v, a)
    return g.And(
        relation != (ANOTHER_SUBJECT if same else THIS_SUBJECT),
        g.Implies(whose == YOUR_SUBJECT, holder == you),
        g.Implies(whose == OPPONENTS_SUBJECT, holder != you),
        g.Implies(token == TOKEN_SUBJECT, g.token(c)),
        g.Implies(token == NONTOKEN_SUBJECT, g.Not(g.token(c))),
        g.Implies(type_ == CREATURE_SUBJECT, g.creature_card(c)),
        g.Implies(type_ == NONCREATURE_SUBJECT, g.Not(g.creature_card(c))),
        g.Implies(type_ == ARTIFACT_SUBJECT, g.artifact_card(c)),
        g.Implies(type_ == ENCHANTMENT_SUBJECT, g.Or(g.enchantment_card(c), g.aura(c))),  # an Aura is one (303.4)
        g.Implies(type_ == INSTANT_SUBJECT, g.instant_card(c)),
        g.Implies(type_ == SORCERY_SUBJECT, g.sorcery_card(c)),
        g.Implies(type_ == INSTANT_OR_SORCERY_SUBJECT, g.Or(g.instant_card(c), g.sorcery_card(c))),
        g.subject_subtype(a, c),
    )


def batched(g, a: int, n):
    """``n`` occurrences in one batch as ability ``a``'s condition counts them: once if it says "one or more" and there
    are any (603.2c: the batch is one event with several occurrences; the card asks for one trigger per event)."""
    if ability_class(g, a)[0] != "printed":
        return n
    return g.If(g.And(g.one_or_more(a), n >= 1), 1, n)


def acts_on_this(g, a: int):
    """Printed ability ``a`` does something to its source as it triggered, and not as 603.6 looks for it (its own
    zone change) nor as 603.6e does (an Aura's card, which its "enchanted permanent leaves" ability looks for)."""
    return g.And(g.acts_on_this(a), g.Not(acts_on_its_own_object(g, a)), g.kind(a) != ENCHANTED_LEAVES)


def also_does_something_else(g, t: int):
    """The ability resolving in batch ``t`` does something besides what it does to the objects it names
    (``other_effect``, ``d_other_effect``): that part is done even when none of them is found."""
    printed = [g.And(resolving_ability(g, t, a), g.other_effect(a)) for a in range(printed_count(g))]
    later = [g.And(resolving_ability(g, t, delayed(g, d)), g.d_other_effect(d)) for d in g.range("delayed")]
    return g.Or(*printed, *later)


def acts_on_its_own_object(g, a: int):
    """Printed ability ``a`` triggers on its own object's zone change ("when this enters", "when this leaves the
    battlefield", "when this creature dies"): its effect looks for that object in the zone it moved to (603.6)."""
    own = g.And(is_kind(g, a, ZONE_CHANGE_FILTERED_KINDS), g.subject_relation(a) == THIS_SUBJECT)
    return g.Or(is_kind(g, a, ZONE_CHANGE_SELF_KINDS), own)


def attached_none(g) -> int:
    return g.size("card")


def measures(g, moments: int) -> list[tuple[str, list]]:
    """What makes a counterexample small, in order: objects involved, events, then card text and effects."""

    # (a token not yet created, or gone, is outside the game: not involved either)
    def somewhere(t: int, c: int):
        return g.And(g.zone(t, c) != LIBRARY, g.Or(g.Not(g.token(c)), g.zone(t, c) != OUTSIDE))

    involved = [g.Or(*[somewhere(t, c) for t in range(moments)]) for c in cards(g)]
    events = []
    for t in range(1, moments):
        for c in cards(g):
            events += [
                entered(g, t, c),  # a zone change, or leaving and coming back (400.7)
                g.tapped(t, c) != g.tapped(t - 1, c),
                g.damage(t, c),
                g.controller(t, c) != g.controller(t - 1, c),
                g.phased_out(t, c) != g.phased_out(t - 1, c),
                g.deals_damage(t, c),
                g.blocked(t, c),
                g.tapped_for_mana(t, c),
                g.revealed_first_draw(t, c),
                g.lore(t, c) != g.lore(t - 1, c),
            ]
        events += [g.leave(t) != NO_LEAVE, begins(g, t)]
        events += [g.leaves_game(t, p) for p in players(g)]
        events += [g.no_life(t, p) != g.no_life(t - 1, p) for p in players(g)]  # a player's life reaching 0
    abilities = range(printed_count(g))
    card_flags = [f for f in CARD_FLAGS if f not in ABILITY_FLAGS]
    circumstances = [g.kind(a) != NONE for a in abilities] + [g.var(f, a) for f in ABILITY_FLAGS for a in abilities]
    circumstances += [g.var(f, c) for f in card_flags for c in cards(g)]
    circumstances += [x for c in cards(g) for x in (g.token(c), g.legend_name(c) != 0)]
    circumstances += [g.var(f, a) != ANY_SUBJECT for f in SUBJECT_FILTERS for a in abilities]
    circumstances += [g.Not(g.subject_subtype(a, x)) for a in abilities for x in cards(g)]  # "another Elf"
    circumstances += [g.moves_to(a) != 0 for a in abilities] + [g.d_moves_to(d) != 0 for d in g.range("delayed")]
    circumstances += [
        x for t in range(moments) for x in (g.lands_are_creatures(t), g.creatures_lose_abilities(t), g.grant_ability(t))
    ]
    circumstances += [g.prohibited(t, c) for t in range(moments) for c in cards(g)]
    circumstances += [g.instances(t, a) != 1 for t in range(moments) for a in abilities]
    return [("objects", involved), ("events", events), ("circumstances", circumstances)]


def delayed_creations(g, t: int) -> tuple:
    """Which delayed abilities a replacement effect or an allowed action creates at moment ``t`` (a spell's or an
    ability's, its text creates: ``made_by_its_creator``)."""
    by_text = [g.Or(g.d_cause(d) == SPELL_CAUSE, g.d_cause(d) == ABILITY_CAUSE) for d in g.range("delayed")]
    return tuple(
        g.If(text, True, delayed_created(g, t, d)) for d, text in zip(g.range("delayed"), by_text, strict=True)
    )


def cast_order(g, t: int) -> tuple:
    """For each two cards, whether the first is a spell below the second on the stack at moment ``t``: the
    order in which the players cast them (601.2a: a spell being cast becomes the topmost object), which the
    model keeps only as stack positions -- two spells cast within one batch could otherwise go either way."""
    out = []
    for c1 in cards(g):
        for c2 in cards(g):
            if c1 < c2:
                one, two = spell_code(g, c1), spell_code(g, c2)
                below = [
                    g.And(g.slot_src(t, s1) == one, g.slot_src(t, s2) == two)
                    for s1 in slots(g)
                    for s2 in slots(g)
                    if s1 < s2
                ]
                out.append(g.Or(*below))
    return tuple(out)


#: What a scenario decides besides its environment (the rule variables and terms it also fixes):
#: which objects are new (400.7), since zones alone don't tell a permanent that stayed from one
#: that left and returned in the same batch (a flicker); which delayed abilities a replacement effect
#: or an allowed action creates, and when (a resolving spell's or ability's are its text's,
#: ``text.creates_delayed``; the rules decide when one is used up, 603.7b); and in which order the
#: players cast the spells cast within one batch.
SCENARIO_DECIDES = ("since", delayed_creations, cast_order)


OBJECT_AT, CONTROLLER_AT = "object at stack position", "controller of stack position"


def observed_value(g, what: str, value) -> str:
    """An observable's value in words, on a concrete trace: "no", "2", "P1", "c0(dies)", "none"."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if what.startswith(OBJECT_AT):
        return object_name(g, value) if value else "none"
    if what.startswith(CONTROLLER_AT):
        return g.names.player(value) if value >= 0 else "none"
    return str(value)


#: The behaviours a player can see, in the words of ``rule603 diff`` (issue 5): what triggers, how
#: many times, who controls it, the stack order, whether it does anything on resolution.
BEHAVIOURS = ("what triggers", "how many times", "who controls it", "stack order", "does anything on resolution")


def observables(
    g, moments: int, name=lambda a: f"ability {a}", *, player_order: bool = True
) -> list[tuple[str, str, object]]:
    """``(behaviour, what, term)`` for every observable outcome of a game of ``moments`` moments;
    ``name(a)`` names ability ``a`` in ``what`` (on a concrete trace, ``ability_name`` can).

    Two games of one scenario that agree on every term look the same to the players.  With
    ``player_order=False`` the stack is observed only as who controls each position and how many
    of each ability are on it: the order in which one player puts their own triggers on the stack
    is mostly that player's choice (603.3b), which a search for what the rules leave open must not
    count.  By default the object at each position is observed too, as a rule may force that order
    (603.3b: an ability that triggers on another's triggering goes on top of it).
    """
    out: list[tuple[str, str, object]] = []
    for a in abilities(g):
        times = g.Sum(g.triggers(t, a) for t in range(moments))
        out.append(("what triggers", f"{name(a)} triggers", times > 0))
        out.append(("how many times", f"times {name(a)} triggers", times))
    for a in abilities(g):
        for p in players(g):
            placed = g.count(x for t in range(moments) for x in _placed(g, t, a, p))
            out.append(("who controls it", f"instances of {name(a)} put on the stack under P{p}", placed))
    for t in range(moments):
        out += _stack_seen(g, t, name, player_order)
    for t in range(1, moments):
        out += _resolution_seen(g, t)
    return out


def moment_observables(g, t: int, name=lambda a: f"ability {a}") -> list[tuple[str, str, object]]:
    """``(behaviour, what, term)`` for what the players see happen at moment ``t`` alone: where two games
    that were alike until ``t`` first look different (the audit's ambiguities), in the terms ``observables``
    sums over a game."""
    out: list[tuple[str, str, object]] = []
    for a in abilities(g):
        out.append(("what triggers", f"{name(a)} triggers at moment {t}", g.triggers(t, a) > 0))
        out.append(("how many times", f"times {name(a)} triggers at moment {t}", g.triggers(t, a)))
    for a in abilities(g):
        for p in players(g):
            what = f"instances of {name(a)} put on the stack under P{p} at moment {t}"
            out.append(("who controls it", what, g.count(_placed(g, t, a, p))))
    out += _stack_seen(g, t, name, True)
    if t >= 1:
        out += _resolution_seen(g, t)
    return out


def _placed(g, t: int, a: int, p: int) -> list:
    """For each stack slot: it holds an instance of ability ``a`` put on the stack under player ``p`` in batch ``t``."""
    return [g.And(x, g.slot_controller(t, s) == p) for s, x in enumerate(new_instance_slots(g, t, a))]


def _stack_seen(g, t: int, name, player_order: bool) -> list[tuple[str, str, object]]:
    out: list[tuple[str, str, object]] = []
    for s in slots(g):
        who = g.If(s < stack_size(g, t), g.slot_controller(t, s), -1)
        out.append(("stack order", f"{CONTROLLER_AT} {s} at moment {t}", who))
        if player_order:
            what = g.If(s < stack_size(g, t), g.slot_src(t, s), 0)
            out.append(("stack order", f"{OBJECT_AT} {s} at moment {t}", what))
    for a in abilities(g):
        out.append(("stack order", f"instances of {name(a)} on the stack at moment {t}", on_stack_count(g, t, a)))
    return out


def _resolution_seen(g, t: int) -> list[tuple[str, str, object]]:
    term = g.And(g.leave(t) == RESOLVE, g.acts(t))
    out = [("does anything on resolution", f"what resolves in batch {t} does its effect", term)]
    for c in cards(g):
        out.append(("does anything on resolution", f"what resolves in batch {t} affects c{c}", g.affects(t, c)))
    return out


# ---------------------------------------------------------------------------------
# Describing a concrete trace for people: one row per moment.
# ---------------------------------------------------------------------------------


def card_name(g, c: int) -> str:
    """A card by the scenario's name for it; unnamed, by the model's label and its trigger (``c0(creature_dies)``)."""
    if g.names.named_card(c):
        return g.names.card(c)
    kinds = [KINDS[g.kind(a)] for a in printed_of(g, c) if g.kind(a) != NONE]
    return f"c{c}" + (f"({'; '.join(kinds)})" if kinds else "")


def ability_name(g, a: int) -> str:
    cls, i = ability_class(g, a)
    if cls == "printed":  # a card's second ability is "Solemn Simulacrum #2", as scenario files name it
        nth = i // g.size("card")
        return card_name(g, printed_card(g, i)) + (f" #{nth + 1}" if nth else "")
    if cls == "delayed":
        return f"{g.names.delayed_ability(i)}({KINDS[g.d_kind(i)]}{', this turn' if g.d_duration(i) else ''})"
    return f"r{i}(reflexive of {g.names.card(g.reflexive_from(i))})"


def object_name(g, code: int) -> str:
    """The stack object with slot code ``code`` (an ability, or a spell)."""
    n = g.size("ability")
    if code <= n:
        return ability_name(g, code - 1)
    return f"spell {g.names.card(code - n - 1)}"


def stack_entry(g, t: int, s: int) -> str:
    """The object in slot ``s``, its controller, and the object its event happened to where it acts on that."""
    src = g.slot_src(t, s)
    entry = f"{object_name(g, src)} [{g.names.player(g.slot_controller(t, s))}]"
    a = src - 1
    if 0 <= a < printed_count(g) and carries_its_object(g, a):
        entry += f" (for {card_name(g, g.slot_subject(t, s))})"
    elif 0 <= a < printed_count(g) and acts_on_them(g, a):
        counted = [c for c in cards(g) if at_label(g, t, g.slot_moment(t, s), "triggered_by", a, c, default=False)]
        entry += f" (for {', '.join(card_name(g, c) for c in counted)})"
    return entry


def describe(g, t: int) -> dict[str, str]:
    """Moment ``t`` of a concrete trace in words: events, state changes, triggers, stack."""
    events: list[str] = []
    changes: list[str] = []
    if t > 0 and begins(g, t):
        events.append(f"{STEPS[g.step(t)]} begins (turn {g.turn(t)}, {g.names.player(g.active(t))} active)")
    for c in cards(g):
        name = card_name(g, c)
        if t > 0 and (g.zone(t, c) != g.zone(t - 1, c) or g.since(t, c) == t):
            how = " (dies)" if dies(g, t, c) and g.eff_creature(t - 1, c) else ""  # a creature's, 700.4
            if g.token(c) and g.zone(t - 1, c) == OUTSIDE and on_battlefield(g, t, c):
                how += " (created)"
            elif g.token(c) and g.zone(t, c) == OUTSIDE and not g.leaves_game(t, g.owner(c)):
                how += " (ceases to exist)"
            how += " (would have died: replaced)" if g.dies_replaced(t, c) else ""
            events.append(f"{name} {ZONES[g.zone(t - 1, c)]}→{ZONES[g.zone(t, c)]}{how}")
        if g.damage(t, c):
            events.append(f"{name} dealt damage" + (" (prevented)" if g.damage_prevented(t, c) else ""))
        if g.deals_damage(t, c):
            hit = [g.names.player(p) for p in players(g) if g.combat_damage_to(t, c, p)]
            events.append(f"{name} deals {'combat damage to ' + hit[0] if hit else 'damage'}")
        if g.lethal(t, c) and (t == 0 or not g.lethal(t - 1, c)):
            changes.append(f"{name} has lethal damage")
        if g.blocked(t, c):
            events.append(f"{name} becomes blocked")
        if g.tapped_for_mana(t, c):
            events.append(f"{name} tapped for mana")
        if g.revealed_first_draw(t, c):
            events.append(f"{name} revealed as its owner's first draw")
        if g.lore(t, c) and (t == 0 or g.lore(t, c) != g.lore(t - 1, c)):
            changes.append(f"{name} has {g.lore(t, c)} lore counter{'s' if g.lore(t, c) > 1 else ''}")
        for a in printed_of(g, c):
            n = g.instances(t, a)
            if n != 1 and g.kind(a) != NONE and (t == 0 or n != g.instances(t - 1, a)):
                changes.append(f"{ability_name(g, a)} has {n} instances of its ability")
        if t > 0 and g.since(t, c) != t:
            if g.tapped(t, c) != g.tapped(t - 1, c):
                changes.append(f"{name} {'tapped' if g.tapped(t, c) else 'untapped'}")
            if g.controller(t, c) != g.controller(t - 1, c):
                was, now = (g.names.player(g.controller(m, c)) for m in (t - 1, t))
                changes.append(f"{name} control {was}→{now}")
            if g.phased_out(t, c) != g.phased_out(t - 1, c):
                changes.append(f"{name} phased {'out' if g.phased_out(t, c) else 'in'}")
        elif g.tapped(t, c) and on_battlefield(g, t, c):
            changes.append(f"{name} enters tapped" if t > 0 else f"{name} tapped")
    for p in players(g):
        if g.no_life(t, p) and (t == 0 or not g.no_life(t - 1, p)):
            changes.append(f"{g.names.player(p)} at 0 life")
        if g.leaves_game(t, p):
            events.append(f"{g.names.player(p)} leaves the game" + (" (draw)" if g.by_draw(t, p) else ""))
    if t > 0 and g.leave(t) != NO_LEAVE:
        events.append(
            f"top of stack: {LEAVES[g.leave(t)]}"
            + (" (countered)" if g.countered_now(t) else "")
            + (" (removed from the stack)" if g.removed_now(t) else "")
            + (" (all its targets illegal)" if g.targets_illegal(t) else "")
            + (" (does its effect)" if g.acts(t) else "")
        )
        affected = [g.names.card(c) for c in cards(g) if g.affects(t, c)]
        if affected:
            events.append(f"it affects {', '.join(affected)}")
    for d in g.range("delayed"):
        if delayed_created(g, t, d):
            changes.append(f"{g.names.delayed_ability(d)} created [{g.names.player(g.d_controller(t, d))}]")
    if g.lands_are_creatures(t):
        changes.append("effect: lands are creatures")
    if g.creatures_lose_abilities(t):
        changes.append("effect: creatures lose abilities")
    if g.grant_ability(t):
        changes.append("effect: grants abilities")
    triggers = [
        f"{ability_name(g, a)} ×{g.triggers(t, a)} [{g.names.player(g.trigger_controller(t, a))}]"
        for a in abilities(g)
        if g.triggers(t, a)
    ]
    stack = [stack_entry(g, t, s) for s in slots(g) if g.slot_src(t, s)]
    return {
        "moment": f"{t}{'' if g.priority(t) else ' (resolution goes on)' if g.unfinished(t) else ' (no priority)'}",
        "step": f"T{g.turn(t)} {STEPS[g.step(t)]}",
        "events": "; ".join(events),
        "state changes": "; ".join(changes),
        "triggers": "; ".join(triggers),
        "stack (bottom→top)": ", ".join(stack),
    }


def subject_words(g, a: int) -> str:
    """What narrows down the object printed ability ``a``'s condition speaks of, in words ("" for nothing)."""
    relation, whose, token, type_ = (g.var(f, a) for f in SUBJECT_FILTERS)
    words = [SUBJECT_RELATIONS[relation]] * (relation != ANY_SUBJECT)
    words += [f"{SUBJECT_TYPES[type_]} spell"] * (type_ != ANY_SUBJECT)
    verbs = {GRAVEYARD_FROM_ANYWHERE: ("you own", "an opponent owns"), SPELL_CAST: ("you cast", "an opponent casts")}
    words += [verbs.get(g.kind(a), ("you control", "an opponent controls"))[whose - 1]] * (whose != ANY_SUBJECT)
    words += [SUBJECT_TOKENS[token]] * (token != ANY_SUBJECT)
    words += ["one or more"] * bool(g.one_or_more(a))
    of_subtype = [x for x in cards(g) if g.subject_subtype(a, x)]
    if len(of_subtype) < len(cards(g)):  # the trace has which cards have a subtype it names, not the subtype's name
        words.append(f"of its subtypes: {', '.join(g.names.card(x) for x in of_subtype) or 'no card'}")
    return f" ({', '.join(words)})" if words else ""


def describe_setup(g) -> list[str]:
    """The cards involved (not idle in the library) and the delayed abilities of a trace, one line each."""
    lines = []
    for c in cards(g):
        if all(g.zone(t, c) == LIBRARY or (g.token(c) and g.zone(t, c) == OUTSIDE) for t in range(g.moments)):
            continue  # not involved (idle in the library, or a token never created)
        abilities = [a for a in printed_of(g, c) if g.kind(a) != NONE] or printed_of(g, c)[:1]
        set_flags = [f for f in CARD_FLAGS if any(g.var(f, x) for x in (abilities if f in ABILITY_FLAGS else [c]))]
        set_flags += [f"moves it to {DESTINATIONS[g.moves_to(a)]}" for a in abilities if g.moves_to(a)]
        set_flags += ["token"] * bool(g.token(c))
        set_flags += [f"legendary (name {g.legend_name(c)})"] * bool(g.legend_name(c))
        triggers = " and ".join(f"{KINDS[g.kind(a)]}{subject_words(g, a)}" for a in abilities)
        lines.append(
            f"{g.names.card(c)}: owner {g.names.player(g.owner(c))}, trigger {triggers}"
            + (f"; {', '.join(set_flags)}" if set_flags else "")
        )
    for d in g.range("delayed"):
        if any(g.registered(t, d) for t in range(g.moments)):
            lines.append(
                f"{g.names.delayed_ability(d)}: {KINDS[g.d_kind(d)]}{' this turn' if g.d_duration(d) else ''}, "
                f"created by {CAUSES[g.d_cause(d)]} of {g.names.card(g.d_source(d))}, refers to "
                + (", ".join(g.names.card(c) for c in cards(g) if g.d_refers(d, c)) or "no object")
                + (f", moves it to {DESTINATIONS[g.d_moves_to(d)]}" if g.d_moves_to(d) else "")
            )
    return lines
