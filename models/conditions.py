"""Trigger conditions as a language: what a printed "when", "whenever" or "at" says, in pieces.

A triggered ability's condition (603.1) is an **event** (603.2: something happens; or a **state**,
603.8: a game state is true), the **subject** the event happens to ("this creature", "another
creature you control", "a land an opponent controls"), the **player** who acts or is affected ("you
cast", "an opponent draws", "your upkeep"), and the modifiers rule 603 has something to say about:
"one or more" (603.2c: one event, one trigger), an intervening "if" (603.4), "Do this only once
each turn" (603.2i), "you may" (603.5), targets and modes (603.3c-d).

Every trigger condition the game model knows by name (``models.game.KINDS``: ``creature_dies``,
``your_upkeep``, ...) is one point of this language: :data:`PRESETS`.  A condition written in the
language, or read from a card's printed text (``models.oracle_text``), that equals a preset is one
the model can play today; :func:`preset_kind` says which.

The language is plain data (frozen data classes) and knows nothing of the solver: it is the
vocabulary scenario files, traces and the reference engine share.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from .game import FILTERED_KINDS, KINDS, STEPS, takes_filter

#: What can happen, in the game's own words.  Each is one kind of event (603.2) or, for ``state``,
#: a game state (603.8).
EVENTS: dict[str, str] = {
    "zone_change": "an object moves from one zone to another: enters, dies, leaves the battlefield, is put into a"
    " zone, is exiled, leaves a graveyard (603.6)",
    "becomes_tapped": "a permanent becomes tapped",
    "becomes_untapped": "a permanent becomes untapped",
    "tapped_for_mana": "a permanent is tapped for mana",
    "attacks": "a creature attacks (is declared as an attacker, 508.1)",
    "blocks": "a creature blocks (is declared as a blocker, 509.1)",
    "becomes_blocked": "a creature becomes blocked (509.1h)",
    "deals_damage": "an object deals damage",
    "dealt_damage": "a permanent (or player) is dealt damage",
    "cast": "a spell is cast (601.2)",
    "copied": "a spell is copied (707.10)",
    "countered": "a spell is countered (701.6)",
    "ability_triggers": "an ability triggers",
    "step_begins": "a phase or step begins (500)",
    "draws": "a player draws a card",
    "discards": "a player discards a card",
    "gains_life": "a player gains life",
    "loses_life": "a player loses life",
    "loses_game": "a player loses the game (104.3)",
    "counters_put": "counters are put on an object",
    "control_gained": "a player gains control of a permanent",
    "control_lost": "a player loses control of a permanent",
    "phases_out": "a permanent phases out (702.26)",
    "phases_in": "a permanent phases in (702.26)",
    "unattached": "an Aura or Equipment becomes unattached (701.3)",
    "reveals": "a player reveals a card",
    "state": "a game state is true: a state trigger (603.8)",
}

#: Zones a zone change names, in the game model's words (``models.game.ZONES``).
ZONES = ("library", "hand", "battlefield", "graveyard", "exile", "stack", "command")
#: Whose: a player relation as the ability's controller sees it.
WHOSE = ("you", "opponent", "any")
#: How the subject relates to the ability's source.
RELATIONS = (
    "this",  # the source itself: "when this creature enters"
    "another",  # any other object: "whenever another creature enters"
    "any",  # any object, the source included: "whenever a creature dies", "this or another creature"
    "enchanted",  # the permanent the source Aura enchants
    "equipped",  # the creature the source Equipment equips
)
#: Types a subject can be restricted to (card types 300.1, and subtypes the model meets).
TYPES = (
    "artifact",
    "creature",
    "enchantment",
    "land",
    "planeswalker",
    "battle",
    "instant",
    "sorcery",
    "aura",
    "equipment",
    "saga",
)
#: Statuses a subject can be required to have ("an attacking creature", "a tapped land").
STATUSES = ("attacking", "blocking", "tapped", "untapped")
#: Damage recipients.
RECIPIENTS = ("player", "opponent", "you", "creature", "permanent", "any")
#: Subtypes whose plural is not the singular and an "s" ("one or more other Elves you control").
SUBTYPE_PLURALS = {"Elf": "Elves", "Dwarf": "Dwarves", "Wolf": "Wolves", "Werewolf": "Werewolves", "Ally": "Allies"}
#: Subtypes that are not creature types, with the card type they go with (205.3g-i, 205.3h: artifact, enchantment
#: and land types); every other subtype a condition names is read as a creature type (205.3m, too long a list to
#: hold).  Aura, Equipment and Saga are types of the language (``TYPES``), written in lower case.
NONCREATURE_SUBTYPES = {
    **dict.fromkeys(
        ("Cave", "Cloud", "Desert", "Forest", "Gate", "Island", "Lair", "Locus", "Mine", "Mountain", "Plains")
        + ("Planet", "Power-Plant", "Sphere", "Swamp", "Tower", "Town", "Urza's"),
        "land",
    ),
    **dict.fromkeys(
        ("Attraction", "Blood", "Clue", "Contraption", "Food", "Fortification", "Gold", "Incubator", "Junk", "Map")
        + ("Powerstone", "Treasure", "Vehicle"),
        "artifact",
    ),
    **dict.fromkeys(
        ("Background", "Cartouche", "Case", "Class", "Curse", "Role", "Room", "Rune", "Shard", "Shrine"), "enchantment"
    ),
}


def printed_subtype(word: object) -> bool:
    """``word`` is written as a subtype is printed on a type line (205.3): a capitalized word, "Elf", "Island"."""
    return isinstance(word, str) and word[:1].isupper() and word.replace("-", "").replace("'", "").isalpha()


def subtype_card_type(subtype: str) -> str:
    """The card type a subtype goes with (205.3): a land type is a land's, and so on; any other is a creature type."""
    return NONCREATURE_SUBTYPES.get(subtype, "creature")


#: States a state trigger (603.8) can watch, in the model's words.
STATES = {
    "no_cards_in_hand": "a player has no cards in hand",
    "controls_no": "a player controls no permanents of the subject's kind",
}


class ConditionError(ValueError):
    """A condition that says something the language cannot mean (an "at the beginning of" with no step)."""


@dataclass(frozen=True)
class Subject:
    """What an event happens to: an object and how it relates to the ability's source."""

    relation: str = "any"
    #: one of these types (empty: any object); "artifact or creature" is ("artifact", "creature")
    types: tuple[str, ...] = ()
    #: types the object must not have ("noncreature", "nonland")
    not_types: tuple[str, ...] = ()
    #: True: a token; False: not a token ("nontoken", "a creature card"); None: either
    token: bool | None = None
    controller: str = "any"
    owner: str = "any"
    status: tuple[str, ...] = ()

    def check(self) -> None:
        _one_of("relation", self.relation, RELATIONS)
        for t in (*self.types, *self.not_types):
            if not t[:1].isupper():  # a subtype is written as printed, capitalized ("Elemental")
                _one_of("type", t, TYPES)
        _one_of("controller", self.controller, WHOSE)
        _one_of("owner", self.owner, WHOSE)
        for s in self.status:
            _one_of("status", s, STATUSES)
        if self.relation in ("this", "enchanted", "equipped") and (
            self.controller != "any" or self.owner != "any" or self.token is not None
        ):
            raise ConditionError(f"a subject that is '{self.relation}' names one object: no controller, owner or token")


THIS = Subject("this")


@dataclass(frozen=True)
class Event:
    """What happens.  Only the fields its ``kind`` uses may differ from their defaults."""

    kind: str
    #: zone_change: where from and where to (None: anywhere, "from anywhere")
    origin: str | None = None
    destination: str | None = None
    #: step_begins: which step, on whose turn ("your upkeep": "you"; "each upkeep": "any")
    step: str | None = None
    turn: str = "any"
    #: deals_damage / dealt_damage: combat damage only (True), any damage (None)
    combat: bool | None = None
    #: deals_damage: to whom
    to: str = "any"
    #: counters_put: the kind of counter (None: any)
    counter: str | None = None
    #: state: which state (:data:`STATES`)
    state: str | None = None

    def check(self) -> None:
        _one_of("event", self.kind, tuple(EVENTS))
        used = _EVENT_FIELDS.get(self.kind, ())
        for f in fields(self):
            if f.name != "kind" and f.name not in used and getattr(self, f.name) != f.default:
                raise ConditionError(f"event {self.kind} has no {f.name} (it is {getattr(self, f.name)!r})")
        if self.kind == "zone_change":
            if self.origin is None and self.destination is None:
                raise ConditionError("a zone change names where from or where to")
            for z in (self.origin, self.destination):
                if z is not None:
                    _one_of("zone", z, ZONES)
            if self.origin is not None and self.origin == self.destination:
                raise ConditionError(f"a zone change from {self.origin} to {self.origin} is no zone change")
        if self.kind == "step_begins":
            if self.step is None:
                raise ConditionError("'at the beginning of' names a step or phase")
            _one_of("step", self.step, STEPS)
            _one_of("turn", self.turn, WHOSE)
        if self.kind in ("deals_damage", "dealt_damage"):
            _one_of("to", self.to, RECIPIENTS)
        if self.kind == "state":
            _one_of("state", self.state, tuple(STATES))


_EVENT_FIELDS = {
    "zone_change": ("origin", "destination"),
    "step_begins": ("step", "turn"),
    "deals_damage": ("combat", "to"),
    "dealt_damage": ("combat",),
    "counters_put": ("counter",),
    "state": ("state",),
}
#: Events that happen to a player, not to an object: their subject is left at its default.
PLAYER_EVENTS = ("step_begins", "draws", "discards", "gains_life", "loses_life", "loses_game")
#: Events a player does to an object ("you cast a creature spell", "you lose control of this"): both the
#: player and the subject matter.
PLAYER_AND_OBJECT_EVENTS = ("cast", "copied", "control_gained", "control_lost", "reveals")


@dataclass(frozen=True)
class Condition:
    """One triggered ability's trigger condition and the modifiers rule 603 reads."""

    event: Event
    subject: Subject = field(default_factory=Subject)
    #: the player who acts or is affected ("you draw", "an opponent casts", "you lose control of")
    player: str = "any"
    #: "one or more": one event with several occurrences triggers it once (603.2c)
    one_or_more: bool = False
    #: the intervening "if" clause's words (603.4), "" for none
    intervening_if: str = ""
    #: "Do this only once each turn." (603.2i)
    once_each_turn: bool = False
    #: "This ability triggers only once each turn." (a limit on triggering, not 603.2i's)
    triggers_once_each_turn: bool = False
    #: "you may" / "unless": a choice made on resolution (603.5)
    optional: bool = False
    #: the effect targets (603.3d)
    targets: bool = False
    #: modal: "choose one" (603.3c)
    modal: bool = False

    def check(self) -> Condition:
        """This condition, after checking that it means something; :class:`ConditionError` says what doesn't."""
        self.event.check()
        self.subject.check()
        _one_of("player", self.player, WHOSE)
        if self.event.kind in PLAYER_EVENTS and self.subject != Subject():
            raise ConditionError(f"{self.event.kind} happens to a player: it has no object subject")
        if self.event.kind not in PLAYER_EVENTS + PLAYER_AND_OBJECT_EVENTS + ("state",) and self.player != "any":
            raise ConditionError(f"{self.event.kind} names no player (the subject's controller says whose)")
        route = (self.event.origin, self.event.destination)
        if self.event.kind == "zone_change" and "battlefield" not in route and self.subject.controller != "any":
            raise ConditionError("an object off the battlefield has no controller (108.4a): say whose by its owner")
        if self.one_or_more and self.subject.relation in ("this", "enchanted", "equipped"):
            raise ConditionError("'one or more' needs a subject that can be several objects")
        return self

    def modifiers(self) -> Condition:
        """The same trigger condition without its modifiers: what makes it trigger, and nothing else."""
        return replace(
            self,
            intervening_if="",
            once_each_turn=False,
            triggers_once_each_turn=False,
            optional=False,
            targets=False,
            modal=False,
        )


def _one_of(what: str, value: object, allowed: tuple) -> None:
    if value not in allowed:
        raise ConditionError(f"unknown {what} {value!r}; known: {', '.join(map(str, allowed))}")


def zone_change(origin: str | None, destination: str | None, subject: Subject = THIS, **kw: object) -> Condition:
    return Condition(Event("zone_change", origin=origin, destination=destination), subject, **kw)  # type: ignore[arg-type]


def beginning_of(step: str, turn: str = "any") -> Condition:
    return Condition(Event("step_begins", step=step, turn=turn))


#: The model's named trigger conditions (``models.game.KINDS``), each as a point of the language.  A
#: ``None`` kind ("none") has no trigger condition.
PRESETS: dict[str, Condition | None] = {
    "none": None,
    "enters_self": zone_change(None, "battlefield"),
    "creature_enters": zone_change(None, "battlefield", Subject("any", ("creature",))),
    "creature_dies": zone_change("battlefield", "graveyard", Subject("any", ("creature",))),
    "leaves_self": zone_change("battlefield", None),
    "becomes_tapped": Condition(Event("becomes_tapped"), THIS),
    "your_upkeep": beginning_of("upkeep", "you"),
    "end_step": beginning_of("end"),
    "dealt_damage": Condition(Event("dealt_damage"), THIS),
    "graveyard_from_anywhere": zone_change(None, "graveyard", Subject("any", ("creature",), token=False)),
    "player_loses": Condition(Event("loses_game")),
    "countered_self": Condition(Event("countered"), THIS),
    "lose_control": Condition(Event("control_lost"), THIS, player="you"),
    "phases_out": Condition(Event("phases_out"), THIS),
    "unattached": Condition(Event("unattached"), THIS),
    "enchanted_leaves": zone_change("battlefield", None, Subject("enchanted")),
    "ability_triggers": Condition(Event("ability_triggers"), Subject("another")),
    "no_cards_in_hand": Condition(Event("state", state="no_cards_in_hand"), player="you"),
    "land_to_graveyard": zone_change("battlefield", "graveyard", Subject("any", ("land",))),
    "becomes_untapped": Condition(Event("becomes_untapped"), THIS),
    "deals_damage": Condition(Event("deals_damage"), THIS),
    "becomes_blocked": Condition(Event("becomes_blocked"), THIS),
    "enchanted_tapped_for_mana": Condition(Event("tapped_for_mana"), Subject("enchanted")),
    # 714.2b: "When one or more lore counters are put onto this Saga, if the number of lore counters on it was
    # less than [N] and became at least [N], [effect]."
    "chapter": Condition(
        Event("counters_put", counter="lore"),
        THIS,
        intervening_if="the number of lore counters on it was less than N and became at least N",
    ),
    # "Whenever you reveal a land card this way": linked to the card's own "reveal the first card you draw".
    "reveals_land_this_way": Condition(Event("reveals"), Subject("any", ("land",), token=False), player="you"),
    "your_combat": beginning_of("beginning_of_combat", "you"),
    "land_tapped": Condition(Event("becomes_tapped"), Subject("any", ("land",))),
    # "Whenever a player casts a spell": who cast it is the condition's player ("an opponent casts", "you cast").
    "spell_cast": Condition(Event("cast")),
    "combat_damage_to_player": Condition(
        Event("deals_damage", combat=True, to="player"), Subject("any", ("creature",))
    ),
    # "Whenever an opponent gains control of a permanent from you" (Zidane, Tantalus Thief; 603.10d)
    "control_gained": Condition(Event("control_gained"), Subject("any", controller="you"), player="opponent"),
}

#: The modifiers a scenario file's ``[objects.ability]`` table names, as condition fields.
MODIFIER_FLAGS = {
    "intervening_if": "has_if",
    "once_each_turn": "once_each_turn",
    "triggers_once_each_turn": "triggers_once_each_turn",
    "optional": "optional",
    "targets": "targeted",
    "modal": "modal",
}


def preset_kind(condition: Condition | None) -> str | None:
    """The name of the model's trigger condition this one is (its modifiers aside), or None if it has none."""
    if condition is None:
        return "none"
    bare = condition.modifiers()
    for name, preset in PRESETS.items():
        if preset is not None and preset.modifiers() == bare:
            return name
    return None


#: The model's conditions about any object of a kind, which a subject filter can narrow down
#: (``models.game.FILTERED_KINDS``).
FILTERED_PRESETS = tuple(KINDS[kind] for kind in FILTERED_KINDS)
_TOKEN_WORDS = {None: "any", False: "nontoken", True: "token"}


@dataclass(frozen=True)
class ModelPoint:
    """A condition as the game model plays it: a named trigger condition (``models.game.KINDS``) and, for one about
    any object of a kind, what narrows that object down (``models.game.SUBJECT_RELATIONS`` and the rest)."""

    kind: str
    relation: str = "any"
    controller: str = "any"
    token: str = "any"
    type: str = "any"  # a spell's card type: "a creature spell", "a noncreature spell", "an instant or sorcery spell"
    one_or_more: bool = False  # "one or more": one batch triggers it once (603.2c)
    subtypes: tuple[str, ...] = ()  # "another Elf": the object has one of these subtypes, as printed (205.3)


def model_point(condition: Condition | None) -> ModelPoint | None:
    """How the game model plays ``condition`` (its modifiers aside), or None if it cannot."""
    kind = preset_kind(condition)
    if kind is not None:
        return ModelPoint(kind)
    assert condition is not None
    bare = condition.modifiers()
    s = bare.subject
    subtypes = tuple(t for t in s.types if t[:1].isupper())
    if subtypes:
        s = replace(s, types=tuple(t for t in s.types if t not in subtypes))
    for name in FILTERED_PRESETS:
        preset = PRESETS[name]
        assert preset is not None
        p = preset.subject
        # "when this dies": a creature (700.4); "another Elf": a creature, "an Island": a land (205.3)
        implied = (s.relation == "this" or subtypes) and not s.types
        types = p.types if implied else s.types
        # A spell may be of any card type but land (a land is played, not cast: 305.1), so of any other subtype
        # ("an Elf spell", "an Aura spell").
        allowed = p.types or ("creature", "artifact", "enchantment")
        fits = all(subtype_card_type(t) in allowed for t in subtypes)
        if not fits or (subtypes and s.relation == "this"):
            continue
        moves = bare.event.kind == "zone_change"  # any other event of an object happens on the battlefield
        off_battlefield = moves and "battlefield" not in (bare.event.origin, bare.event.destination)
        # Off the battlefield an object has no controller (108.4a): "a creature card you own" says whose by owner.
        whose = s.owner if off_battlefield else s.controller
        if (not off_battlefield and s.owner != "any") or (off_battlefield and s.controller != "any"):
            continue
        player = bare.player
        card_type, not_types = "any", s.not_types
        if preset.event.kind == "cast":  # "an opponent casts a spell": the caster controls it (601.2a)
            if s.controller != "any":
                continue
            # "When you cast this spell": its caster is who controls it, the ability's controller (601.2a, 603.3a)
            whose, player = ("any" if s.relation == "this" and bare.player == "you" else bare.player), "any"
            card_type = _spell_type(s)
            if card_type is None:
                continue
            types, not_types = p.types, p.not_types  # the spell's card type is the filter's, below
        token = s.token if p.token is None else (p.token if s.token == p.token else "differs")
        if token == "differs":
            continue
        same = replace(
            s,
            relation=p.relation,
            types=types,
            not_types=not_types,
            controller=p.controller,
            owner=p.owner,
            token=p.token,
        )
        token_word = _TOKEN_WORDS[token] if p.token is None else "any"
        point = ModelPoint(name, s.relation, whose, token_word, card_type, bare.one_or_more, subtypes)
        kind = KINDS.index(name)
        filters = ("relation", "controller", "token", "type")
        taken = all(takes_filter(kind, f"subject_{f}", getattr(point, f)) for f in filters)
        alike = replace(bare, subject=same, one_or_more=False, player=player) == preset.modifiers()
        if alike and s.relation in ("any", "this", "another") and taken:
            return point
    return None


#: A spell's card types as the model tells them apart (``models.game.SUBJECT_TYPES``), by what the card says.
_SPELL_TYPES = {
    ((), ()): "any",
    (("creature",), ()): "creature",
    ((), ("creature",)): "noncreature",
    (("artifact",), ()): "artifact",
    (("enchantment",), ()): "enchantment",
    (("instant",), ()): "instant",
    (("sorcery",), ()): "sorcery",
    (("instant", "sorcery"), ()): "instant_or_sorcery",
}


def _spell_type(s: Subject) -> str | None:
    """The model's card type of a spell ``s`` speaks of ("a noncreature spell": "noncreature"), None if it has none."""
    return _SPELL_TYPES.get((tuple(sorted(s.types)), s.not_types))


def leaves_the_battlefield(c: Condition) -> bool:
    """A leaves-the-battlefield ability (603.6c): it triggers as a permanent moves from the battlefield to another
    zone.  One that triggers on a card put into a zone "from anywhere" is never one (603.6c)."""
    e = c.event
    return e.kind == "zone_change" and e.origin == "battlefield"


#: Zones whose objects all players can see (400.2: public zones), for 603.10a's "put into a hand or library".
PUBLIC_ZONES = ("battlefield", "graveyard", "exile", "stack", "command")


def looks_back(c: Condition) -> bool:
    """Whether the game "looks back in time" to decide if ``c`` triggers (603.10a-f), from the rule's list.

    - 603.10a: leaves-the-battlefield abilities; abilities that trigger when a card leaves a graveyard; abilities
      that trigger when an object that all players can see is put into a hand or library;
    - 603.10b: a permanent phases out; 603.10c: an object becomes unattached;
    - 603.10d: a player loses control of an object, or a player's opponent gains control of one from that player;
    - 603.10e: a spell is countered; 603.10f: a player loses the game.
    """
    e = c.event
    if e.kind == "zone_change":
        if leaves_the_battlefield(c) or e.origin == "graveyard":
            return True
        return e.destination in ("hand", "library") and e.origin in PUBLIC_ZONES
    if e.kind == "control_gained":
        return c.player == "opponent" and c.subject.controller == "you"
    return e.kind in ("phases_out", "unattached", "control_lost", "countered", "loses_game")


# --- the condition in words ---------------------------------------------------------------------------------------

_STEP_TEXT = {
    "upkeep": "upkeep",
    "draw": "draw step",
    "precombat_main": "precombat main phase",
    "beginning_of_combat": "combat",
    "postcombat_main": "postcombat main phase",
    "end": "end step",
    "cleanup": "cleanup step",
}
_PLAYER_TEXT = {"you": "you", "opponent": "an opponent", "any": "a player"}
_WHOSE_TEXT = {"you": "your", "opponent": "an opponent's", "any": "a"}


def describe(c: Condition | None) -> str:
    """The trigger condition in the printed words of 603.1 ("Whenever another creature you control dies"), without
    the effect; ``models.oracle_text`` reads it back to the same condition."""
    if c is None:
        return "(no triggered ability)"
    e = c.event
    if e.kind == "step_begins":
        if e.step == "end_of_combat":
            return "At end of combat" + (" on your turn" if e.turn == "you" else "")
        if e.step == "beginning_of_combat" and e.turn == "you":
            return "At the beginning of combat on your turn"
        whose = {"you": "your", "opponent": "each opponent's", "any": "each"}[e.turn]
        return f"At the beginning of {whose} {_STEP_TEXT.get(e.step or '', e.step)}"
    word = "Whenever"
    if c.subject.relation in ("this", "enchanted") and e.kind in ("zone_change", "countered", "control_lost"):
        word = "When"
    return f"{word} {_event_words(c)}"


def _event_words(c: Condition) -> str:
    e, s, many = c.event, c.subject, c.one_or_more
    who = _PLAYER_TEXT[c.player]
    plural_player = c.player == "you"
    if e.kind in ("draws", "discards"):
        return f"{who} {_verb(e.kind[:-1], plural_player)} a card"
    if e.kind in ("gains_life", "loses_life"):
        return f"{who} {_verb(e.kind.split('_')[0][:-1], plural_player)} life"
    if e.kind == "loses_game":
        return f"{who} {_verb('lose', plural_player)} the game"
    if e.kind == "state" and e.state == "no_cards_in_hand":
        return f"{who} {'have' if plural_player else 'has'} no cards in hand"
    if e.kind == "state":
        return f"{who} {_verb('control', plural_player)} no {_filter(replace(s, controller='any'), True)}"
    if e.kind in ("cast", "copied"):
        verb = "cast" if e.kind == "cast" else "copy"
        spell = "this spell" if s.relation == "this" else f"{_noun_phrase(s, many, 'spell')}"
        return f"{who} {_verb(verb, plural_player)} {spell}"
    if e.kind in ("control_gained", "control_lost"):
        verb = "gain" if e.kind == "control_gained" else "lose"
        return f"{who} {_verb(verb, plural_player)} control of {_noun_phrase(s, many)}"
    if e.kind == "reveals":
        return f"{who} {_verb('reveal', plural_player)} {_noun_phrase(s, many, 'card')} this way"
    if e.kind == "ability_triggers":
        return f"{'another' if s.relation == 'another' else 'an'} ability triggers"
    if e.kind == "counters_put":
        counter = f"{e.counter} " if e.counter else ""
        return f"one or more {counter}counters are put on {_noun_phrase(s, False)}"
    off_battlefield = e.kind == "zone_change" and "battlefield" not in (e.origin, e.destination)
    noun = "spell" if e.kind == "countered" else "card" if off_battlefield and s.token is False else "permanent"
    return f"{_noun_phrase(s, many, noun)} {_object_verb(c)}"


def _verb(stem: str, plural: bool) -> str:
    if plural:
        return stem
    return {"copy": "copies"}.get(stem, stem + "s")


def _object_verb(c: Condition) -> str:
    e, s, plural = c.event, c.subject, c.one_or_more
    be = "are" if plural else "is"
    if e.kind == "zone_change":
        route = (e.origin, e.destination)
        if route == (None, "battlefield"):
            return "enter" if plural else "enters"
        dying = bool(s.types) and set(s.types) <= {"creature", "planeswalker"}  # "dies" (700.4)
        if route == ("battlefield", "graveyard") and s.owner == "any" and (dying or s.relation == "this"):
            return "die" if plural else "dies"
        if route == ("battlefield", None):
            return "leave the battlefield" if plural else "leaves the battlefield"
        if e.destination == "graveyard" and e.origin in (None, "battlefield"):
            whose = _WHOSE_TEXT[s.owner]
            return f"{be} put into {whose} graveyard from {'anywhere' if e.origin is None else 'the battlefield'}"
        if route == ("graveyard", None):
            return f"{'leave' if plural else 'leaves'} {_WHOSE_TEXT[s.owner]} graveyard"
        if route == (None, "exile"):
            return f"{be} exiled"
        if route == ("battlefield", "hand"):
            hand = "their owners' hands" if plural else "its owner's hand"
            return f"{be} returned to {hand}"
        return f"moves from {e.origin or 'anywhere'} to {e.destination or 'anywhere'}"
    if e.kind in ("deals_damage", "dealt_damage"):
        combat = "combat " if e.combat else ""
        if e.kind == "dealt_damage":
            return f"{be} dealt {combat}damage"
        to = {"any": "", "player": " to a player", "opponent": " to an opponent", "you": " to you"}.get(
            e.to, f" to a {e.to}"
        )
        return f"{'deal' if plural else 'deals'} {combat}damage{to}"
    words = {
        "becomes_tapped": "becomes tapped",
        "becomes_untapped": "becomes untapped",
        "tapped_for_mana": "is tapped for mana",
        "attacks": "attacks",
        "blocks": "blocks",
        "becomes_blocked": "becomes blocked",
        "countered": "is countered",
        "phases_out": "phases out",
        "phases_in": "phases in",
        "unattached": "becomes unattached",
    }[e.kind]
    if plural:
        first, _, rest = words.partition(" ")
        first = {"becomes": "become", "is": "are", "attacks": "attack", "blocks": "block", "phases": "phase"}[first]
        words = f"{first} {rest}".strip()
    return words


def _noun_phrase(s: Subject, many: bool, noun: str = "permanent") -> str:
    if s.relation == "this":
        return f"this {noun}"
    if s.relation in ("enchanted", "equipped"):
        return f"{s.relation} {'creature' if s.relation == 'equipped' else 'permanent'}"
    words = _filter(s, many, noun)
    if many:
        return f"one or more {'other ' if s.relation == 'another' else ''}{words}"
    if s.relation == "another":
        return f"another {words}"
    return f"{'an' if words[0].lower() in 'aeiou' else 'a'} {words}"


def _filter(s: Subject, many: bool, noun: str = "permanent") -> str:
    def plural(word: str) -> str:
        return {"sorcery": "sorceries", **SUBTYPE_PLURALS}.get(word, word + "s") if many else word

    types = [t if s.token else plural(t) for t in s.types] or [plural(noun)]  # "creature tokens"
    listed = (
        types[0]
        if len(types) == 1
        else (f"{types[0]} or {types[1]}" if len(types) == 2 else ", ".join(types[:-1]) + f", or {types[-1]}")
    )
    if noun == "spell" and s.types:
        listed += " spells" if many else " spell"
    elif noun == "card" and s.types:
        listed += " cards" if many else " card"
    words = [
        *s.status,
        *(["nontoken"] if s.token is False and noun != "card" else []),
        *(f"non{t}" for t in s.not_types),
    ]
    if s.token:  # "a creature token", "one or more tokens": the word follows the types, as Oracle text has it
        listed = f"{listed} {'tokens' if many else 'token'}" if s.types else ("tokens" if many else "token")
    suffix = {
        ("you", "any"): " you control",
        ("opponent", "any"): " an opponent controls",
        ("any", "you"): " you own",
        ("any", "opponent"): " an opponent owns",
    }.get((s.controller, s.owner), "")
    return " ".join([*words, listed]) + suffix
