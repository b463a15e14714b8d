"""What a game engine is given: the cards, the abilities they create, and a script of actions.

A :class:`Scenario` is engine-neutral: the reference engine (``reference.py``) plays it,
and later other engines and human-written TOML files (one table per card, one
``[[actions]]`` entry per batch) use the same shape.  Everything is named in the game's
own words; where a field becomes a trace variable, its docstring names that variable.

An :class:`Action` is one *batch*: everything in it happens at the same time (a board
wipe is one ``destroy`` of several cards), then the game looks at what triggered.  Each
action makes one new moment of the trace.  An action with no fields set is a batch in
which nothing happens (players pass priority without the top of the stack resolving,
or do something the model does not track).

:func:`check_scenario` catches what can be seen without playing (unknown names, numbers
out of range); whether an action is possible in the game's state at that point is the
engine's question.  Both raise :class:`rule603.InvalidArgument` with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from rule603 import InvalidArgument
from rule603._internal.documents import shown
from rule603.models import game

#: Zones a card can start in (the stack starts empty; no card starts outside the game).
START_ZONES = ("library", "hand", "battlefield", "graveyard", "exile", "command")
#: ... and a token (111.1): on the battlefield, or outside the game until an action creates it.
TOKEN_START_ZONES = ("battlefield", "outside")
#: Continuous effects a scenario can switch on or off.
EFFECTS = ("lands_are_creatures", "creatures_lose_abilities", "grant_ability")
#: Limits of the trace model (see VARIABLES in models/game.py).
MAX_PLAYERS, MAX_CARDS, MAX_SLOTS, MAX_MOMENTS = 4, 6, 7, 32


class BeyondModelBounds(InvalidArgument):
    """The game is fine, but the trace model can't hold it (too many triggers, stack objects, moments).

    Generators skip such scripts; a person sees which bound was hit.
    """

    __module__ = "rule603.engines.scenario"


@dataclass(frozen=True)
class PrintedAbility:
    """One printed triggered ability of a card.  A card's first is given by the card's own fields (``Card.ability``),
    its second and later ones by ``Card.more``; each has its own trigger condition, flags and filters."""

    trigger: str = "none"  # one of game.KINDS (``kind``)
    flags: tuple[str, ...] = ()  # the ability's yes/no parts that are true: names from game.ABILITY_FLAGS
    condition: bool = True  # its intervening-'if' condition is true at the start (``cond``)
    instances: int = 1  # instances of it the object starts with (``instances``, 113.2c)
    subject_relation: str = "any"
    subject_controller: str = "any"
    subject_token: str = "any"
    subject_type: str = "any"
    subject_subtypes: tuple[str, ...] = ()
    #: where its effect moves each object it acts on and finds (one of DESTINATIONS: "return it to its owner's
    #: hand"); "" leaves the move to the script's actions
    moves_to: str = ""

    def has(self, flag: str) -> bool:
        return flag in self.flags


#: Where an effect that acts on an object may move it (``moves_to``): its owner's hand, the battlefield under its
#: owner's control, its owner's graveyard, exile.
DESTINATIONS = game.DESTINATIONS[1:]


@dataclass(frozen=True)
class Card:
    """A card: its printed text, who owns it, and where it starts."""

    owner: int = 0
    trigger: str = "none"  # its printed triggered ability's trigger condition: one of game.KINDS (``kind``)
    flags: tuple[str, ...] = ()  # the yes/no parts of its text that are true: names from game.CARD_FLAGS
    zone: str = "library"  # where it starts: one of START_ZONES
    controller: int | None = None  # who controls it, when it starts on the battlefield (default: its owner)
    tapped: bool = False  # starts tapped (on the battlefield only)
    attached_to: int | None = None  # starts attached to this card (both on the battlefield)
    permanent: bool = True  # as a spell it resolves onto the battlefield; False: an instant or sorcery
    condition: bool = True  # its intervening-'if' condition is true at the start (``cond``)
    revealed: bool = False  # starts revealed to all players (``revealed``)
    instances: int = 1  # instances of its triggered ability it starts with (``instances``, 113.2c)
    final_chapter: int = 0  # a Saga (trigger "chapter"): its final chapter number, 1 to 3 (``final_chapter``, 714.2d)
    lore: int = 0  # lore counters it starts with, on the battlefield (``lore``, 714.3)
    token: bool = False  # a token, not a card (``token``, 111.1): zone "outside" until an action creates it
    legend_name: int = 0  # legendary, with this name (``legend_name``: same number, same name); 0: not legendary
    # What its trigger condition's object must be, for a condition about any object of a kind (game.FILTERED_KINDS):
    subject_relation: str = "any"  # "this" ('when this creature dies') or "another"; game.SUBJECT_RELATIONS
    subject_controller: str = "any"  # "you" ('you control') or "opponent"; game.SUBJECT_PLAYERS
    subject_token: str = "any"  # "token" or "nontoken"; game.SUBJECT_TOKENS
    subject_type: str = "any"  # a spell's card type, "creature" ('a creature spell') and so on; game.SUBJECT_TYPES
    subject_subtypes: tuple[str, ...] = ()  # "another Elf": one of these subtypes (205.3); () names none
    subtypes: tuple[str, ...] = ()  # its own subtypes, as printed on its type line ("Elf", "Warrior")
    #: its second and later printed triggered abilities (Solemn Simulacrum's "When this creature dies, ...")
    more: tuple[PrintedAbility, ...] = ()
    moves_to: str = ""  # its first printed ability's destination (``PrintedAbility.moves_to``)

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def ability(self, nth: int) -> PrintedAbility:
        """Its ``nth`` printed triggered ability (0: the first, the card's own fields); none past its last."""
        if nth:
            return self.more[nth - 1] if nth <= len(self.more) else PrintedAbility()
        own = tuple(f for f in self.flags if f in game.ABILITY_FLAGS)
        filters = {f: getattr(self, f) for f in (*game.SUBJECT_FILTERS, "subject_subtypes")}
        return PrintedAbility(self.trigger, own, self.condition, self.instances, **filters, moves_to=self.moves_to)


@dataclass(frozen=True)
class DelayedAbility:
    """A delayed triggered ability some spell, ability or static ability can create (603.7).

    ``refers_to`` is the cards whose objects it does something to when it resolves (``d_refers``, 603.7c): none
    ("draw a card"), one ("exile it") or several ("return the exiled cards"); a single card number is read as
    that one card.  A trigger condition that names an object ("when that creature leaves the battlefield") speaks
    of the one card it refers to.
    """

    trigger: str  # its trigger condition, one of game.KINDS (``d_kind``)
    cause: str = "spell"  # what creates it: one of game.CAUSES (``d_cause``, 603.7a)
    source: int = 0  # the card whose spell, ability or static ability creates it (``d_source``)
    refers_to: tuple[int, ...] = ()  # the cards it does something to when it resolves (``d_refers``, 603.7c)
    duration: bool = False  # it has a stated duration, "this turn" (``d_duration``, 603.7b)
    nth: bool = False  # created when its creating ability resolves for the Nth time in a turn (``d_nth``, 603.7h)
    n: int = 2  # that N (``d_n``), counted for the creating ability's object
    #: it also does something not done to the objects it refers to, "then draw a card" (``d_other_effect``, 603.7c)
    other_effect: bool = False
    targeted: bool = False  # "target land deals 3 damage to that creature": 603.3d, 608.2b (``d_targeted``)
    moves_to: str = ""  # where it moves each object it refers to and finds ("return those cards to the battlefield")

    def __post_init__(self) -> None:
        if isinstance(self.refers_to, int) and not isinstance(self.refers_to, bool):
            object.__setattr__(self, "refers_to", (self.refers_to,))
        elif isinstance(self.refers_to, list):
            object.__setattr__(self, "refers_to", tuple(self.refers_to))


@dataclass(frozen=True)
class ReflexiveAbility:
    """A reflexive triggered ability: "When you do, ..." (603.12)."""

    created_by: int  # the card whose resolving triggered ability creates it (``reflexive_from``)
    pay_any: bool = False  # "when you pay this cost one or more times": triggers once (``pay_any``, 603.12a)
    targeted: bool = False  # "When you do, ... target creature": 603.3d, 608.2b (``r_targeted``)
    #: 0: it triggers on the creator's action; N: on the creator's Nth resolution this turn (``r_n``, 603.7h)
    on_resolution: int = 0


@dataclass(frozen=True)
class Action:
    """One batch of simultaneous events.  Card and player fields are numbers (indexes into the scenario).

    Circumstances (continuous effects, prohibitions, intervening-'if' conditions, revealed
    cards) last until an action changes them.
    """

    # --- turn structure ---------------------------------------------------------------
    step: str | None = None  # this later step of the current turn begins (one of game.STEPS, not untap)
    next_turn: bool = False  # the next player's turn begins, with its untap step (no other event in that batch)
    extra_turn: int | None = None  # with next_turn: the turn is an extra turn an effect gave this player (500.7)
    extra_step: bool = False  # with step: an effect added that phase or step, so it may come back (500.8-500.10)
    priority: bool = True  # a player receives priority after this batch; False: another batch follows at once
    #: the resolution (or turn-based action) of this batch goes on: the next action holds its next instruction's
    #: events, with no priority and no state-based actions in between (608.2c, 704.4)
    unfinished: bool = False
    # --- the stack --------------------------------------------------------------------
    cast: int | None = None  # this card is cast from its owner's hand (it goes on the stack)
    resolve: bool = False  # the top object of the stack resolves
    counter: bool = False  # the top object of the stack is countered
    decline: bool = False  # the resolving ability's controller doesn't take its "may" option (603.5)
    targets_illegal: bool = False  # as the top ability tries to resolve, every target it has is illegal (608.2b)
    actions_by_effect: int = 0  # times the resolving ability's instructed action is taken (603.12; 0..3)
    actions_other: int = 0  # times the same action is taken for other reasons (0..3)
    create_delayed: tuple[int, ...] = ()  # delayed abilities created in this batch, each by its cause (603.7a)
    create: tuple[int, ...] = ()  # tokens created on the battlefield under their owners' control (111.1, 111.2)
    #: printed abilities (a card's first: its number) that would have no legal mode or target now (603.3c-d)
    no_legal_choice: tuple[int, ...] = ()
    # --- zone changes -----------------------------------------------------------------
    play_land: int | None = None  # the active player plays this land card from their hand
    destroy: tuple[int, ...] = ()  # permanents put into their owners' graveyards
    sacrifice: tuple[int, ...] = ()  # likewise, by their controllers
    exile: tuple[int, ...] = ()  # cards exiled from the battlefield, a hand, a library, a graveyard or the command zone
    bounce: tuple[int, ...] = ()  # permanents returned to their owners' hands
    flicker: tuple[int, ...] = ()  # permanents exiled and returned at once: new objects (400.7)
    put_onto_battlefield: tuple[int, ...] = ()  # cards put onto the battlefield under their owners' control
    #: (card, player): the card is put onto the battlefield under that player's control (Bribery: no control-changing
    #: effect gives it to them, 110.2, so it is exiled when they leave the game, 800.4a)
    put_onto_battlefield_under: tuple[tuple[int, int], ...] = ()
    discard: tuple[int, ...] = ()  # cards discarded from hand
    draw: tuple[int, ...] = ()  # cards drawn from the library by their owners
    mill: tuple[int, ...] = ()  # cards put from the library into the graveyard
    reveal_first_draw: tuple[int, ...] = ()  # of the cards drawn, those a "reveal the first card you draw" reveals
    dies_replaced: tuple[int, ...] = ()  # creatures that would die, but a replacement effect exiles them (603.2h)
    # --- events on permanents ---------------------------------------------------------
    damage: tuple[int, ...] = ()  # creatures dealt damage
    prevent_damage: tuple[int, ...] = ()  # of those, the ones whose damage is prevented (603.2h)
    deals_damage: tuple[int, ...] = ()  # permanents that deal damage (to anything)
    #: (creature, player): the creature deals combat damage to the player (510.2); it deals damage, too
    combat_damage: tuple[tuple[int, int], ...] = ()
    tap_for_mana: tuple[int, ...] = ()  # permanents tapped for mana: they become tapped (106.12)
    block: tuple[int, ...] = ()  # attacking creatures that become blocked (during combat, 509.1h)
    #: (printed ability, n): from now on the object has n instances of that ability (a card's first: its number)
    instances: tuple[tuple[int, int], ...] = ()
    tap: tuple[int, ...] = ()
    untap: tuple[int, ...] = ()
    gain_control: tuple[tuple[int, int], ...] = ()  # (card, player): that player gains control of the permanent
    phase_out: tuple[int, ...] = ()
    phase_in: tuple[int, ...] = ()
    attach: tuple[tuple[int, int], ...] = ()  # (card, permanent): the card becomes attached to the permanent
    unattach: tuple[int, ...] = ()
    # --- players ----------------------------------------------------------------------
    lose: tuple[int, ...] = ()  # players who lose the game
    no_life: tuple[int, ...] = ()  # players whose life is now 0 or less: they lose as a state-based action (704.5a)
    lethal: tuple[int, ...] = ()  # creatures now with lethal damage marked, or toughness 0 or less (704.5f-g)
    #: creatures whose lethal damage is gone before state-based actions see it: damage removed, or toughness raised
    #: (a +1/+1 counter, cards drawn back into hand), later in the same resolution (704.4)
    no_longer_lethal: tuple[int, ...] = ()
    keep: tuple[int, ...] = ()  # when the legend rule next applies, the legendary permanents their controllers keep
    # (704.5j; by default the one on the battlefield longest, unless it leaves anyway)
    cease_to_exist: tuple[int, ...] = ()  # tokens out of the battlefield that cease to exist: a state-based action
    # (704.5d) the engine performs itself, never a script's
    draw_game: bool = False  # the game is a draw: every remaining player leaves it (603.9)
    # --- circumstances ----------------------------------------------------------------
    lands_are_creatures: bool | None = None  # continuous effect "All lands are creatures" starts (True) or ends
    creatures_lose_abilities: bool | None = None  # "All creatures lose all abilities"
    grant_ability: bool | None = None  # the effect giving cards flagged 'granted' their triggered ability
    prohibit: tuple[int, ...] = ()  # an effect now precludes activating this card's abilities (603.2a)
    allow: tuple[int, ...] = ()  # that effect ends
    condition_true: tuple[int, ...] = ()  # these printed abilities' intervening-'if' conditions become true (603.4)
    condition_false: tuple[int, ...] = ()  # ... or false
    #: (printed ability, card): an intervening "if" about the object its event happened to (``if_about_that``)
    #: becomes true, or false, of that card's object (603.4)
    condition_true_for: tuple[tuple[int, int], ...] = ()
    condition_false_for: tuple[tuple[int, int], ...] = ()
    reveal: tuple[int, ...] = ()  # these cards are revealed to all players (603.2g)
    conceal: tuple[int, ...] = ()  # ... or no longer revealed

    def __repr__(self) -> str:  # only what is set: scripts read like the game
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if getattr(self, f.name) != f.default]
        return f"Action({', '.join(shown)})"

    def moved_cards(self) -> list[int]:
        """Every card this action moves to another zone (or out and back, for ``flicker``)."""
        out = list(self.destroy + self.sacrifice + self.exile + self.bounce + self.flicker)
        out += list(self.put_onto_battlefield + self.discard + self.draw + self.mill + self.dies_replaced)
        out += list(self.create + self.cease_to_exist)
        out += [c for c in (self.cast, self.play_land) if c is not None]
        return out


@dataclass(frozen=True)
class Scenario:
    """A game to play: players, cards, the abilities they can create, and the actions, one batch each."""

    cards: tuple[Card, ...]
    actions: tuple[Action, ...] = ()
    players: int = 2
    delayed: tuple[DelayedAbility, ...] = ()
    reflexive: tuple[ReflexiveAbility, ...] = ()
    slots: int = 3  # stack slots of the trace model: at most this many objects on the stack
    step: str = "precombat_main"  # the step the game starts in (turn 1, player 0 active)
    effects: tuple[str, ...] = ()  # continuous effects in force at the start: names from EFFECTS
    prohibited: tuple[int, ...] = ()  # cards whose abilities can't be activated at the start
    description: str = field(default="", compare=False)

    @property
    def abilities_per_card(self) -> int:
        """Printed triggered ability slots each card has in the universe: as many as the card with the most."""
        return 1 + max((len(card.more) for card in self.cards), default=0)

    def universe_sizes(self) -> dict[str, int]:
        return {
            "player": self.players,
            "card": len(self.cards),
            "delayed": len(self.delayed),
            "reflexive": len(self.reflexive),
            "slot": self.slots,
            "printed": len(self.cards) * self.abilities_per_card,
        }


# ---------------------------------------------------------------------------------------
# Checks that need no play: names and numbers.
# ---------------------------------------------------------------------------------------


def _fail(where: str, message: str) -> None:
    raise InvalidArgument(f"{where}: {message}")


def _one_of(where: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        _fail(where, f"{shown(value)} is not one of {', '.join(allowed)}")


def _index(where: str, value: object, size: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
        _fail(where, f"{shown(value)} is not a {what} number (0..{size - 1})")


def check_scenario(s: Scenario) -> None:
    """Raise :class:`InvalidArgument` naming the first thing in ``s`` that can't be right."""
    if not 1 <= s.players <= MAX_PLAYERS:
        _fail("players", f"{shown(s.players)}: the model plays 1 to {MAX_PLAYERS} players")
    if not 1 <= len(s.cards) <= MAX_CARDS:
        _fail("cards", f"{len(s.cards)} cards: the model plays 1 to {MAX_CARDS}")
    if not 1 <= s.slots <= MAX_SLOTS:
        _fail("slots", f"{shown(s.slots)}: the stack has 1 to {MAX_SLOTS} slots")
    if 1 + len(s.actions) > MAX_MOMENTS:
        _fail("actions", f"{len(s.actions)} actions: a trace holds at most {MAX_MOMENTS - 1}")
    n = len(s.cards)
    if 1 + n * s.abilities_per_card + len(s.delayed) + len(s.reflexive) + n > 31:
        _fail("delayed", "too many abilities for the stack's codes (printed + delayed + reflexive + cards <= 30)")
    _one_of("step", s.step, tuple(x for x in game.STEPS if x != "untap"))
    for name in s.effects:
        _one_of("effects", name, EFFECTS)
    for c in s.prohibited:
        _index("prohibited", c, n, "card")
    for c, card in enumerate(s.cards):
        _check_card(c, card, s)
    for d, ability in enumerate(s.delayed):
        where = f"delayed {d}"
        _one_of(f"{where}: trigger", ability.trigger, game.KINDS)
        _one_of(f"{where}: cause", ability.cause, game.CAUSES)
        _index(f"{where}: source", ability.source, n, "card")
        if not isinstance(ability.refers_to, tuple):
            _fail(f"{where}: refers_to", f"expected a list of card numbers, got {shown(ability.refers_to)}")
        for c in ability.refers_to:
            _index(f"{where}: refers_to", c, n, "card")
        if len(set(ability.refers_to)) != len(ability.refers_to):
            _fail(f"{where}: refers_to", "names the same card twice")
        if game.KINDS.index(ability.trigger) in game.NAMES_AN_OBJECT and len(ability.refers_to) != 1:
            _fail(
                f"{where}: refers_to",
                f"its trigger condition {ability.trigger!r} names an object: it refers to exactly that one"
                f" (the model's bound), not {len(ability.refers_to)}",
            )
        if ability.nth and ability.cause != "ability":
            _fail(where, "only an ability can wait for its own second resolution (603.7h): set cause = 'ability'")
        if ability.moves_to:
            _one_of(f"{where}: moves_to", ability.moves_to, DESTINATIONS)
            if not ability.refers_to:
                _fail(f"{where}: moves_to", "it moves the objects it refers to: name them (refers_to)")
    for r, ability in enumerate(s.reflexive):
        _index(f"reflexive {r}: created_by", ability.created_by, n, "card")
    for i, action in enumerate(s.actions, start=1):
        check_action_names(f"action {i}", action, s)


def _check_card(c: int, card: Card, s: Scenario) -> None:
    where, n = f"card {c}", len(s.cards)
    _index(f"{where}: owner", card.owner, s.players, "player")
    for flag in card.flags:
        _one_of(f"{where}: flags", flag, game.CARD_FLAGS)
    if not isinstance(card.subtypes, tuple) or not all(isinstance(x, str) and x[:1].isupper() for x in card.subtypes):
        _fail(f"{where}: subtypes", f"{shown(card.subtypes)}: subtypes as printed, capitalized ('Elf', 'Island')")
    if card.token:
        if card.zone not in TOKEN_START_ZONES:
            _fail(
                f"{where}: zone",
                f"{shown(card.zone)}: a token exists only on the battlefield (111.1, 111.7): start it there, or"
                " outside the game for an action to create it (create)",
            )
        if not card.permanent:
            _fail(where, "a token is a permanent (111.1): permanent = true")
    else:
        _one_of(f"{where}: zone", card.zone, START_ZONES)
    if isinstance(card.legend_name, bool) or not isinstance(card.legend_name, int):
        _fail(f"{where}: legend_name", f"{shown(card.legend_name)}: a number, 0 for a card that is not legendary")
    if not 0 <= card.legend_name <= game.MAX_LEGEND_NAMES:
        names = game.MAX_LEGEND_NAMES
        _fail(f"{where}: legend_name", f"{shown(card.legend_name)}: the model tells 1 to {names} names apart")
    on_battlefield = card.zone == "battlefield"
    if card.controller is not None:
        _index(f"{where}: controller", card.controller, s.players, "player")
        if not on_battlefield:
            _fail(where, "only a permanent has a controller other than its owner (110.2)")
    if card.tapped and not on_battlefield:
        _fail(where, "only a permanent can be tapped (110.5)")
    if card.attached_to is not None:
        _index(f"{where}: attached_to", card.attached_to, n, "card")
        if card.attached_to == c:
            _fail(where, "a card can't be attached to itself")
        if not on_battlefield or s.cards[card.attached_to].zone != "battlefield":
            _fail(where, "attachments exist only between permanents on the battlefield")
    if not isinstance(card.more, tuple) or not all(isinstance(x, PrintedAbility) for x in card.more):
        _fail(f"{where}: more", "expected its further printed triggered abilities")
    for nth in range(1 + len(card.more)):
        _check_ability(where if not nth else f"{where}: ability {nth + 1}", nth, c, s)
    if len(card.more) >= game.MAX_PRINTED_PER_CARD:
        _fail(f"{where}: more", f"a card has 1 to {game.MAX_PRINTED_PER_CARD} printed triggered abilities here")
    if any(x.trigger == "chapter" for x in card.more):
        _fail(f"{where}: more", "a Saga's chapter abilities are its first ability here (trigger 'chapter')")
    saga = card.trigger == "chapter"
    if saga != (1 <= card.final_chapter <= game.MAX_CHAPTER) or isinstance(card.final_chapter, bool):
        _fail(f"{where}: final_chapter", f"{shown(card.final_chapter)}: a Saga (trigger 'chapter') has 1 to 3 chapters")
    if not 0 <= card.lore <= game.MAX_CHAPTER + 1 or (card.lore and not (saga and on_battlefield)):
        _fail(f"{where}: lore", f"{shown(card.lore)}: only a Saga on the battlefield has lore counters (0 to 4)")
    instant_or_sorcery = card.has("instant_card") or card.has("sorcery_card")
    if instant_or_sorcery and any(card.has(flag) for flag in PERMANENT_TYPES):
        _fail(where, "an instant or sorcery card has no permanent card type (creature, land, artifact, enchantment)")
    if not card.permanent and any(card.has(flag) for flag in PERMANENT_TYPES):
        _fail(where, "a creature, land, artifact or enchantment card is a permanent card (permanent = true)")
    if card.permanent and instant_or_sorcery:
        _fail(where, "an instant or sorcery card is never a permanent (304.4, 307.4): permanent = false")
    if not card.permanent and not instant_or_sorcery:
        _fail(where, "a card that is not a permanent card is an instant or a sorcery: give it that type (304.4, 307.4)")
    if not card.permanent and card.zone == "battlefield":
        _fail(f"{where}: zone", "an instant or sorcery card can't be on the battlefield (304.4, 307.4)")


def _check_ability(where: str, nth: int, c: int, s: Scenario) -> None:
    """Card ``c``'s ``nth`` printed triggered ability: its condition, flags and filters fit together and the model."""
    card = s.cards[c]
    ability = card.ability(nth)
    on_battlefield = card.zone == "battlefield"
    _one_of(f"{where}: trigger", ability.trigger, game.KINDS)
    for flag in ability.flags:
        _one_of(f"{where}: flags", flag, game.ABILITY_FLAGS)
    if isinstance(ability.instances, bool) or not isinstance(ability.instances, int) or not 1 <= ability.instances <= 3:
        _fail(f"{where}: instances", f"{shown(ability.instances)}: an object has 1 to 3 instances of its ability here")
    if ability.instances != 1 and not on_battlefield:
        _fail(f"{where}: instances", "only a permanent has more than one instance of its ability in this model")
    for field_, values in game.SUBJECT_VALUES.items():
        value = getattr(ability, field_)
        _one_of(f"{where}: {field_}", value, values)
        if not game.takes_filter(game.KINDS.index(ability.trigger), field_, value):
            _fail(f"{where}: {field_}", f"{value!r}: {game.filter_refused(field_)}")
    named = ability.subject_subtypes
    if not isinstance(named, tuple) or not all(isinstance(x, str) and x[:1].isupper() for x in named):
        _fail(f"{where}: subject_subtypes", f"{shown(named)}: subtypes as printed, capitalized ('Elf', 'Island')")
    filtered_kind = game.KINDS.index(ability.trigger) in game.FILTERED_KINDS
    if ability.subject_subtypes and (not filtered_kind or ability.subject_relation == "this"):
        _fail(f"{where}: subject_subtypes", "only a condition about any object of a kind names its subtypes")
    several = filtered_kind and ability.subject_relation != "this"
    if ability.has("one_or_more") and not several:
        filtered = ", ".join(game.KINDS[k] for k in game.FILTERED_KINDS)
        _fail(f"{where}: flags", f"'one or more' speaks of several objects of a kind ({filtered}), not of 'this' one")
    if ability.has("mana_ability") and (
        ability.trigger != "enchanted_tapped_for_mana" or ability.has("targeted") or ability.has("modal")
    ):
        _fail(where, "a triggered mana ability triggers on a land tapped for mana and has no target (605.1b)")
    if ability.has("mana_ability") and ability.has("once_each_turn"):
        _fail(where, "the model doesn't follow a mana ability's resolution, so not its 'once each turn' either")
    # (a delayed ability an ability creates comes from its card's first printed ability: ``d_source``)
    counted = nth == 0 and any(d.nth and d.cause == "ability" and d.source == c for d in s.delayed)
    if ability.instances != 1 and (ability.has("once_each_turn") or counted):
        _fail(f"{where}: instances", "the model remembers one instance's resolutions (603.2i, 603.7h)")
    if ability.instances != 1 and ability.has("triggers_once_each_turn"):
        _fail(f"{where}: instances", "the model remembers whether one instance triggered this turn")
    if ability.moves_to:
        _one_of(f"{where}: moves_to", ability.moves_to, DESTINATIONS)
        _fail_unless_one_move(f"{where}: moves_to", ability)


def _fail_unless_one_move(where: str, ability: PrintedAbility) -> None:
    why = why_it_moves_nothing(ability)
    if why:
        _fail(where, why)


def why_it_moves_nothing(ability: PrintedAbility) -> str:
    """Why ``moves_to`` can't be said of ``ability`` ("" if it can): it moves every object the ability acts on, one
    way, so it is said of an ability that acts on objects of one kind, none of them a spell (the model's stack loses
    only its top object, 405.1)."""
    if not acts_on_an_object(ability):
        return (
            "it moves the object the effect acts on: its source (acts_on_this), the object its event happened to"
            " (acts_on_that), its own object, for an enters or leaves ability (603.6), or the permanent an Aura"
            " enchanted (603.6e)"
        )
    if ability.has("acts_on_this") and ability.has("acts_on_that"):
        return "it moves every object the effect acts on: not for one that acts on this object and on another"
    if ability.trigger == "spell_cast":
        return "a spell moved off the stack by an ability is not in the model (its stack loses its top object)"
    return ""


def acts_on_an_object(ability: PrintedAbility) -> bool:
    """The ability's effect does something to one object the model follows (or, "one or more", to each): its source
    (``acts_on_this``), the object its event happened to (``acts_on_that``), its own object, for an ability that
    triggers on that object's zone change (603.6), or an Aura's enchanted permanent, that left (603.6e)."""
    kind = game.KINDS.index(ability.trigger)
    own = kind in game.ZONE_CHANGE_SELF_KINDS or (
        kind in game.ZONE_CHANGE_FILTERED_KINDS and ability.subject_relation == "this"
    )
    aura = kind == game.ENCHANTED_LEAVES  # "return that card": the enchanted permanent's (603.6e)
    return own or aura or ability.has("acts_on_this") or ability.has("acts_on_that")


#: The flags of the permanent card types (a card with one is a permanent card, 110.4).
PERMANENT_TYPES = ("creature_card", "land_card", "artifact_card", "enchantment_card", "aura")

#: Action fields that list cards (by number here, by name in scenario files).
CARD_LIST_FIELDS = (
    "no_legal_choice",
    "destroy",
    "sacrifice",
    "exile",
    "bounce",
    "flicker",
    "put_onto_battlefield",
    "discard",
    "draw",
    "reveal_first_draw",
    "mill",
    "dies_replaced",
    "damage",
    "lethal",
    "no_longer_lethal",
    "create",
    "keep",
    "prevent_damage",
    "deals_damage",
    "block",
    "tap",
    "tap_for_mana",
    "untap",
    "phase_out",
    "phase_in",
    "unattach",
    "prohibit",
    "allow",
    "condition_true",
    "condition_false",
    "reveal",
    "conceal",
)
_CARD_LISTS = ("create_delayed", *CARD_LIST_FIELDS, "cease_to_exist")  # create_delayed lists delayed abilities
#: Action fields about a triggered ability rather than a card: by ability number (a card's first printed ability has
#: the card's number, its second the number of cards more, and so on; then the delayed and reflexive abilities, for
#: ``no_legal_choice``).
ABILITY_LIST_FIELDS = ("no_legal_choice", "condition_true", "condition_false")


def cards_named(a: Action) -> frozenset[int]:
    """The cards an action's events name (as the object of an event, or the permanent one is attached to)."""
    named = {c for name in CARD_LIST_FIELDS if name not in ABILITY_LIST_FIELDS for c in getattr(a, name)}
    named |= {c for c in (a.cast, a.play_land) if c is not None}
    pairs = ("gain_control", "put_onto_battlefield_under", "attach", "combat_damage")
    named |= {pair[0] for name in pairs for pair in getattr(a, name)}
    named |= {pair[1] for pair in a.attach} | set(a.cease_to_exist)
    named |= {pair[1] for name in ("condition_true_for", "condition_false_for") for pair in getattr(a, name)}
    return frozenset(named)


def check_action_names(where: str, a: Action, s: Scenario) -> None:
    """The action's names and numbers make sense for ``s`` (whether it can happen is the engine's question)."""
    n = len(s.cards)
    if a.step is not None:
        # An untap step begins only with its turn (next_turn), or as part of an added beginning phase (500.8).
        _one_of(f"{where}: step", a.step, tuple(x for x in game.STEPS if x != "untap" or a.extra_step))
    for name in _CARD_LISTS:
        values = getattr(a, name)
        if not isinstance(values, tuple):
            _fail(f"{where}: {name}", f"expected a list of numbers, got {shown(values)}")
        size, what = (len(s.delayed), "delayed ability") if name == "create_delayed" else (n, "card")
        if name in ABILITY_LIST_FIELDS:
            size, what = n * s.abilities_per_card, "printed ability"
        if name == "no_legal_choice":  # a delayed or reflexive ability's choices too
            size, what = n * s.abilities_per_card + len(s.delayed) + len(s.reflexive), "ability"
        for c in values:
            _index(f"{where}: {name}", c, size, what)
        if len(set(values)) != len(values):
            _fail(f"{where}: {name}", "names the same card twice")
    for name in ("cast", "play_land"):
        if getattr(a, name) is not None:
            _index(f"{where}: {name}", getattr(a, name), n, "card")
    for name in ("gain_control", "put_onto_battlefield_under", "attach", "combat_damage"):
        for pair in getattr(a, name):
            if not (isinstance(pair, tuple) and len(pair) == 2):
                _fail(f"{where}: {name}", f"expected pairs, got {shown(pair)}")
            _index(f"{where}: {name}", pair[0], n, "card")
            _index(f"{where}: {name}", pair[1], n if name == "attach" else s.players, "player or card")
    for name in ("condition_true_for", "condition_false_for"):
        for pair in getattr(a, name):
            if not (isinstance(pair, tuple) and len(pair) == 2):
                _fail(f"{where}: {name}", f"expected (ability, card) pairs, got {shown(pair)}")
            _index(f"{where}: {name}", pair[0], n * s.abilities_per_card, "printed ability")
            _index(f"{where}: {name}", pair[1], n, "card")
    for pair in a.instances:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            _fail(f"{where}: instances", f"expected (card, count) pairs, got {shown(pair)}")
        _index(f"{where}: instances", pair[0], n * s.abilities_per_card, "printed ability")
        if isinstance(pair[1], bool) or not isinstance(pair[1], int) or not 1 <= pair[1] <= 3:
            _fail(f"{where}: instances", f"{shown(pair[1])}: an object has 1 to 3 instances of its ability here")
        if pair[1] != 1 and s.cards[pair[0] % n].ability(pair[0] // n).has("triggers_once_each_turn"):
            _fail(f"{where}: instances", "the model remembers whether one instance triggered this turn")
    for p in a.lose:
        _index(f"{where}: lose", p, s.players, "player")
    for p in a.no_life:
        _index(f"{where}: no_life", p, s.players, "player")
    for name in ("actions_by_effect", "actions_other"):
        value = getattr(a, name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            _fail(f"{where}: {name}", f"{shown(value)}: the model counts 0 to 3")
    if a.resolve and a.counter:
        _fail(where, "the top of the stack either resolves or is countered, not both")
    moved = a.moved_cards()
    if len(set(moved)) != len(moved):
        _fail(where, "a card moves at most once in one batch")
