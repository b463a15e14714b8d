"""The reference engine: plays a :class:`~rule603.engines.scenario.Scenario` by rule 603 and records the trace.

It is written from the rule text (``models/current/rule603.txt``), the variable docs
(``VARIABLES`` in ``models/game.py``) and the game outside 603 (``models/axioms.py``), in
plain Python, without the clause encodings: the two are meant to check each other.

One action is one batch of simultaneous events and makes one new moment.
:meth:`ReferenceGame.apply` follows a batch through these stages, in order:

1. the turn structure: a step or a turn begins (500.1; the untap step's turn-based actions, 502);
2. circumstances: continuous effects, prohibitions, intervening-'if' conditions, revealed cards;
3. the top of the stack resolves or is countered, and whether a resolving ability does what
   it says (608.2, with 603.4, 603.5, 603.6, 603.6e, 603.7c);
4. zone changes (each makes a new object, 400.7; a token is created from outside the game, 111.1, and once
   it has left the battlefield it moves nowhere else, 111.8), then events on permanents that stay
   (tapping, damage, control, phasing, attachments), then players leaving the game (800.4a);
5. what the permanents look like now (613.1, 603.6b), and resolution bookkeeping (603.2i, 603.7h);
6. delayed triggered abilities that end or are created (603.7, 603.7a-h);
7. what triggered and how many times (603.2-603.2i, 603.6, 603.8-603.10, 603.12);
8. delayed abilities used up by triggering (603.7b);
9. if a player would receive priority, the waiting abilities go on the stack (603.3, 603.3b-d).

Simplifications of the game, each stated where it is made: one printed triggered ability
per card; attachments behave like Equipment (an attached card stays on the battlefield,
unattached, when its permanent leaves: an Aura's state-based trip to the graveyard is a
separate ``destroy``); no indirect phasing; players choose the order of their own
triggered abilities by ability number.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rule603 import InvalidArgument, Trace, write_atomically
from rule603.models import game
from rule603.models.game import (
    ABILITY_CAUSE,
    ABILITY_TRIGGERS,
    BATTLEFIELD,
    BECOMES_BLOCKED,
    BECOMES_TAPPED,
    BECOMES_UNTAPPED,
    BEGINNING_OF_COMBAT,
    CHAPTER,
    CLEANUP,
    COMBAT_DAMAGE,
    COMBAT_DAMAGE_TO_PLAYER,
    COMMAND,
    CONTROL_GAINED,
    COUNTER,
    COUNTERED_SELF,
    CREATURE_DIES,
    CREATURE_ENTERS,
    DEALS_DAMAGE,
    DEALT_DAMAGE,
    ENCHANTED_LEAVES,
    ENCHANTED_TAPPED_FOR_MANA,
    END,
    END_STEP,
    ENTERS_SELF,
    EXILE,
    GRAVEYARD,
    GRAVEYARD_FROM_ANYWHERE,
    HAND,
    LAND_TAPPED,
    LAND_TO_GRAVEYARD,
    LEAVES_SELF,
    LIBRARY,
    LOSE_CONTROL,
    MAIN,
    MAX_CHAPTER,
    MAX_COUNT,
    MAX_INSTANCES,
    NO_CARDS_IN_HAND,
    NO_LEAVE,
    NONE,
    OUTSIDE,
    PHASES_OUT,
    PLAYER_LOSES,
    POSTCOMBAT_MAIN,
    REPLACEMENT_CAUSE,
    RESOLVE,
    REVEALS_LAND_THIS_WAY,
    SPELL_CAST,
    SPELL_CAUSE,
    STACK,
    UNATTACHED,
    UNTAP,
    UPKEEP,
    YOUR_COMBAT,
    YOUR_UPKEEP,
)

from .scenario import (
    Action,
    BeyondModelBounds,
    Card,
    PrintedAbility,
    Scenario,
    cards_named,
    check_action_names,
    check_scenario,
)

#: 603.10a-f: the triggers judged on the game as it was just before the event ("look back in time").
LOOK_BACK_KINDS = frozenset(
    {
        CREATURE_DIES,  # 603.10a: leaves-the-battlefield abilities
        LAND_TO_GRAVEYARD,
        LEAVES_SELF,
        ENCHANTED_LEAVES,
        PHASES_OUT,  # 603.10b
        UNATTACHED,  # 603.10c
        LOSE_CONTROL,  # 603.10d
        CONTROL_GAINED,  # 603.10d
        COUNTERED_SELF,  # 603.10e
        PLAYER_LOSES,  # 603.10f
    }
)
#: 603.6c: leaves-the-battlefield abilities ("from anywhere" ones are never such).
LEAVES_THE_BATTLEFIELD_KINDS = frozenset({CREATURE_DIES, LAND_TO_GRAVEYARD, LEAVES_SELF, ENCHANTED_LEAVES})
#: Trigger conditions about one object: "this" creature, or the permanent this Aura enchants.
ONE_OBJECT_KINDS = frozenset(
    {
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
    }
)
#: 603.6: zone-change abilities that try to do something to the object that moved.
ZONE_CHANGE_SELF_KINDS = frozenset({ENTERS_SELF, LEAVES_SELF})
HIDDEN_ZONES = frozenset({LIBRARY, HAND})
MAX_STACK = 7  # the trace model's stack_size bound
LEFT_TO_THE_RULES, OBJECT_LEFT_TO_THE_RULES = game.LEFT_TO_THE_RULES, game.OBJECT_LEFT_TO_THE_RULES
ZONE_KEPT_BY_THE_SCRIPT = game.ZONE_KEPT_BY_THE_SCRIPT
#: An effect's destination (``moves_to``) as a zone: each card goes to its owner's.
ZONE_OF_DESTINATION = game.DESTINATION_ZONES
PUTS_IT = {
    "hand": "return it to its owner's hand",
    "battlefield": "put it onto the battlefield",
    "graveyard": "put it into its owner's graveyard",
    "exile": "exile it",
    "library": "put it into its owner's library",
    "battlefield under your control": "put it onto the battlefield under its controller's control",
}


# ---------------------------------------------------------------------------------------
# The state of the game at one moment.
# ---------------------------------------------------------------------------------------


@dataclass
class CardState:
    """One card at one moment: the object it is (zone + since, 400.7) and its status."""

    zone: int
    since: int = 0  # the moment it entered its zone: with the card, the object's identity
    controller: int = 0
    tapped: bool = False
    revealed: bool = False
    phased_out: bool = False
    attached_to: int | None = None
    prohibited: bool = False  # an effect precludes activating its abilities
    eff_creature: bool = False  # is a creature, continuous effects applied
    damage: bool = False  # events of the batch that made this moment
    damage_prevented: bool = False
    deals_damage: bool = False
    combat_damage_to: tuple[int, ...] = ()  # the players it deals combat damage to in the batch (one at most)
    blocked: bool = False
    was_blocked: bool = False  # became blocked this turn (509.1: blockers are declared once)
    tapped_for_mana: bool = False
    revealed_first_draw: bool = False
    lore: int = 0  # lore counters (714.3)
    dies_replaced: bool = False
    lethal: bool = False  # lethal damage marked on it, or toughness 0 or less (704.5f-g)
    #: the player under whose control it entered the battlefield, where not its owner ("put it onto the battlefield
    #: under your control", 110.2): no control-changing effect gives it to them (800.4a: exiled when they leave)
    entered_under: int | None = None


@dataclass
class PrintedState:
    """One printed triggered ability at one moment (a card has one of these per ability it prints)."""

    cond: bool = True  # its intervening-'if' condition is true
    cond_false_for: frozenset[int] = frozenset()  # cards of whose object its "if" about that object is false (603.4)
    eff_ability: bool = False  # its object has it, continuous effects applied
    instances: int = 1  # instances of it the object has (113.2c)
    resolutions: int = 0  # its resolutions this turn
    done_by: frozenset[int] = frozenset()  # players whose resolving instance of it did what it says this turn (603.2i)
    triggered: tuple[int, int] = (0, -1)  # (turn, its object's since-stamp) it last triggered in


@dataclass(frozen=True)
class StackObject:
    """A spell or a triggered ability on the stack (a slot of the trace)."""

    code: int  # slot_src: 1 + ability for an ability, 1 + abilities + card for a spell
    controller: int
    moment: int = 0  # for an ability: the moment it triggered
    zone: int = 0  # for a printed ability: the zone its object was in when it triggered (603.6)
    object: int = 0  # for a printed ability: the card whose zone change it looks for (603.6, 603.6e)
    subject: int = 0  # for one that acts on the object its event happened to: that object's card (acts_on_that)
    put_on_stack: int = 0  # the moment it was put on the stack (not in the trace: the engine's own record)
    objects: tuple[int, ...] = ()  # for one that acts on all of a "one or more" event's objects: their cards


@dataclass(frozen=True)
class WaitingAbility:
    """A triggered instance that will go on the stack the next time a player would receive priority (603.3)."""

    ability: int
    controller: int
    moment: int
    zone: int
    object: int = 0
    subject: int = 0  # the object its event happened to, for one that acts on it (acts_on_that)
    objects: tuple[int, ...] = ()  # the objects of its "one or more" event, for one that acts on them (acts_on_them)


@dataclass
class Triggering:
    """What happened to one triggered ability at one moment."""

    look_back: bool = False
    matches: int = 0
    attempts: int = 0
    base_triggers: int = 0
    triggers: int = 0
    controller: int = 0
    placed: int = 0
    removed: int = 0
    dropped: int = 0  # not put on the stack: its controller has left the game (800.4d)
    counts_additional: bool = False
    no_legal_choice: bool = False
    objects: tuple[int, ...] = ()  # for one that carries the object its event happened to: those objects' cards
    counted: tuple[int, ...] = ()  # ... every card whose event its condition counted (``triggered_by``)
    stopped_by: str = ""  # why it didn't trigger though its event happened (for people reading the engine)


@dataclass
class DelayedState:
    registered: bool = False  # exists: created and not yet used up or ended
    controller: int = 0
    #: each object it refers to, as it was at creation: card -> (since-stamp, zone) (400.7, 603.7c)
    objects: dict[int, tuple[int, int]] = field(default_factory=dict)
    replacement_applied: bool = False  # events of the batch
    action_taken: bool = False


@dataclass
class Moment:
    t: int
    turn: int
    active: int
    step: int
    priority: bool
    cards: list[CardState]
    printed: list[PrintedState]
    delayed: list[DelayedState]
    effects: dict[str, bool]
    in_game: list[bool]
    stack: list[StackObject] = field(default_factory=list)
    waiting: list[WaitingAbility] = field(default_factory=list)
    abilities: list[Triggering] = field(default_factory=list)
    leaves_game: list[bool] = field(default_factory=list)
    by_draw: list[bool] = field(default_factory=list)
    leave: int = NO_LEAVE
    may_use: bool = True
    actions_by_effect: int = 0
    actions_other: int = 0
    countered_now: bool = False
    ceased: int = 0  # objects a player leaving the game took off the stack (800.4a)
    removed_now: bool = False  # the top ability tried to resolve and was removed instead (603.4, 608.2b)
    unfinished: bool = False  # the resolution (or turn-based action) of this batch goes on in the next (608.2c)
    targets_illegal: bool = False
    instruction_works: bool = False
    acts: bool = False
    affects: frozenset[int] = frozenset()  # the cards whose objects the resolving ability affected (603.6e, 603.7c)
    resolving: StackObject | None = None  # the object that resolved in this batch
    moved_by_effect: frozenset[int] = frozenset()  # cards its effect moved where its text says (``moves_to``)
    looked_for: frozenset[int] = frozenset()  # cards an effect that says where it moves them looked for, found or not
    named: frozenset[int] = frozenset()  # cards the batch's action names
    state_based: bool = False  # the batch is state-based actions the engine performed (704.3)
    extra_turn: bool = False  # the turn that begins in this batch is an extra turn (500.7)
    extra_step: bool = False  # the step that begins in this batch was added by an effect (500.8-500.10)
    no_life: list[bool] = field(default_factory=list)  # players with 0 or less life (704.5a)
    #: for each ability, the batch it last triggered in, its controller then, its object's zone then and its object
    last_triggered: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)

    def successor(self) -> Moment:
        """The next moment before anything happens: lasting state copied, the batch's events cleared."""
        cards = [
            replace(
                c,
                damage=False,
                damage_prevented=False,
                dies_replaced=False,
                deals_damage=False,
                combat_damage_to=(),
                blocked=False,
                tapped_for_mana=False,
                revealed_first_draw=False,
            )
            for c in self.cards
        ]
        delayed = [replace(d, replacement_applied=False, action_taken=False) for d in self.delayed]
        return Moment(
            t=self.t + 1,
            turn=self.turn,
            active=self.active,
            step=self.step,
            priority=True,
            cards=cards,
            printed=[replace(p) for p in self.printed],
            delayed=delayed,
            effects=dict(self.effects),
            in_game=list(self.in_game),
            stack=list(self.stack),
            waiting=[],
            leaves_game=[False] * len(self.in_game),
            by_draw=[False] * len(self.in_game),
            no_life=list(self.no_life),
            last_triggered=dict(self.last_triggered),
        )


def _fail(message: str) -> None:
    raise InvalidArgument(message)


# ---------------------------------------------------------------------------------------
# The game.
# ---------------------------------------------------------------------------------------


def has_named_subtype(ability: PrintedAbility, card: Card) -> bool:
    """``card`` has one of the subtypes ``ability``'s trigger condition names, as printed (205.3); true if it names
    none (``subject_subtype``)."""
    named = ability.subject_subtypes
    return not named or bool(set(named) & set(card.subtypes))


class ReferenceGame:
    """A game being played: ``apply`` one action (one batch) at a time, then read ``trace()``."""

    def __init__(self, scenario: Scenario) -> None:
        check_scenario(scenario)
        self.scenario = scenario
        self.n_players = scenario.players
        self.n_cards = len(scenario.cards)
        self.n_delayed = len(scenario.delayed)
        self.n_reflexive = len(scenario.reflexive)
        #: the printed triggered abilities: each card's first (its own index), then each card's second, ...
        self.texts = [card.ability(nth) for nth in range(scenario.abilities_per_card) for card in scenario.cards]
        self.n_printed = len(self.texts)
        self.n_abilities = self.n_printed + self.n_delayed + self.n_reflexive
        self.kind = [game.KINDS.index(text.trigger) for text in self.texts]
        self.d_kind = [game.KINDS.index(d.trigger) for d in scenario.delayed]
        self.subject_filters = {
            f: [values.index(getattr(text, f)) for text in self.texts] for f, values in game.SUBJECT_VALUES.items()
        }
        self.d_cause = [game.CAUSES.index(d.cause) for d in scenario.delayed]
        self._keep: tuple[int, ...] = ()  # the legendary permanents the script keeps (704.5j), during one action
        self._kept: set[int] = set()  # ... those of them the legend rule applied to
        self.moments: list[Moment] = [self._first_moment()]
        self.actions_applied = 0
        #: the moment each action of the script made (state-based actions may make more, between them)
        self.action_moments: list[int] = []

    # --- the cards' text and the abilities ----------------------------------------------
    def flag(self, c: int, name: str) -> bool:
        """Card ``c``'s text says ``name`` (its types, statics, and its first printed ability's flags)."""
        return self.scenario.cards[c].has(name)

    def said(self, a: int, name: str) -> bool:
        """Printed ability ``a`` says ``name`` (one of game.ABILITY_FLAGS)."""
        return self.texts[a].has(name)

    def card_of(self, a: int) -> int:
        """The card printed ability ``a`` is printed on."""
        return a % self.n_cards

    def abilities_of(self, c: int) -> range:
        """Card ``c``'s printed triggered abilities."""
        return range(c, self.n_printed, self.n_cards)

    def is_token(self, c: int) -> bool:
        return self.scenario.cards[c].token

    def ability_class(self, a: int) -> tuple[str, int]:
        """('printed', a), ('delayed', d) or ('reflexive', r): abilities are numbered in that order."""
        if a < self.n_printed:
            return "printed", a
        if a < self.n_printed + self.n_delayed:
            return "delayed", a - self.n_printed
        return "reflexive", a - self.n_printed - self.n_delayed

    def ability_kind(self, a: int) -> int:
        cls, i = self.ability_class(a)
        if cls == "printed":
            return self.kind[i]
        return self.d_kind[i] if cls == "delayed" else NONE

    def subject(self, a: int) -> int:
        """The card a trigger condition calls "this": the ability's own, or the one a delayed ability refers to."""
        cls, i = self.ability_class(a)
        if cls == "printed":
            return self.card_of(i)
        if cls == "delayed":  # the one card it refers to, for a condition that names one (scenario.check_scenario)
            refers = self.scenario.delayed[i].refers_to
            return refers[0] if refers else 0
        return self.scenario.reflexive[i].created_by

    def spell_code(self, c: int) -> int:
        return 1 + self.n_abilities + c

    @staticmethod
    def ability_code(a: int) -> int:
        return 1 + a

    def spell_card(self, code: int) -> int | None:
        """The card of a spell's stack code, None for an ability."""
        return code - 1 - self.n_abilities if code > self.n_abilities else None

    # --- reading a moment -----------------------------------------------------------------
    @property
    def now(self) -> Moment:
        return self.moments[-1]

    @property
    def game_over(self) -> bool:
        remaining = sum(self.now.in_game)
        return remaining == 0 or (self.n_players >= 2 and remaining < 2)

    @staticmethod
    def visible(m: Moment, c: int) -> bool:
        """Visible to all players: revealed, or not in a hidden zone (603.2g)."""
        return m.cards[c].revealed or m.cards[c].zone not in HIDDEN_ZONES

    def has_ability(self, m: Moment, a: int) -> bool:
        """Printed triggered ability ``a`` exists at ``m``: it functions where its card is (113.6)."""
        card = m.cards[self.card_of(a)]
        if self.kind[a] == NONE or not m.printed[a].eff_ability:
            return False
        if self.kind[a] == COUNTERED_SELF or self.cast_trigger(a):
            return card.zone == STACK  # "When this spell is countered", "When you cast this spell": on the stack
        if card.zone == BATTLEFIELD:
            return not card.phased_out  # phased-out permanents are treated as though they don't exist (702.26b)
        return card.zone == HAND and self.said(a, "from_hand")

    def cast_trigger(self, a: int) -> bool:
        """Printed ability ``a`` is "when you cast this spell"."""
        return self.kind[a] == SPELL_CAST and self.texts[a].subject_relation == "this"

    def hand_is_empty(self, m: Moment, player: int) -> bool:
        return not any(card.zone == HAND and self.scenario.cards[c].owner == player for c, card in enumerate(m.cards))

    # --- moment 0 -------------------------------------------------------------------------
    def _first_moment(self) -> Moment:
        s = self.scenario
        cards = []
        for c, card in enumerate(s.cards):
            on_battlefield = card.zone == "battlefield"
            cards.append(
                CardState(
                    zone=game.ZONES.index(card.zone),
                    controller=card.controller if on_battlefield and card.controller is not None else card.owner,
                    tapped=card.tapped,
                    revealed=card.revealed,
                    attached_to=card.attached_to,
                    prohibited=c in s.prohibited,
                    lore=card.lore,
                )
            )
        m = Moment(
            t=0,
            turn=1,
            active=0,
            step=game.STEPS.index(s.step),
            priority=True,
            cards=cards,
            printed=[PrintedState(cond=text.condition, instances=text.instances) for text in self.texts],
            delayed=[DelayedState() for _ in s.delayed],
            effects={
                name: name in s.effects for name in ("lands_are_creatures", "creatures_lose_abilities", "grant_ability")
            },
            in_game=[True] * self.n_players,
            no_life=[False] * self.n_players,
            leaves_game=[False] * self.n_players,
            by_draw=[False] * self.n_players,
        )
        self._characteristics(m)
        due = self._state_based_actions(m)
        if due != Action():
            _fail(
                f"the starting position has state-based actions to perform (704.3): {due.destroy or ''}"
                f"{due.lose or ''} -- a creature with lethal damage, an Aura attached to nothing, two legendary "
                "permanents with the same name under one player's control, a player at 0 life"
            )
        m.abilities = self._what_triggered(None, m, Action())
        for a, tr in enumerate(m.abilities):
            if tr.base_triggers:  # only a state trigger can match before anything happens (603.8)
                _fail(
                    f"the starting position would trigger ability {a} (a state trigger, 603.8) before the game "
                    "begins; give its controller a card in hand"
                )
        return m

    # --- one batch --------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Play one batch of simultaneous events; raise InvalidArgument (nothing changes) if it can't happen."""
        # Actions are numbered from 1 in the script's order; moments may be more (state-based actions).
        number = self.actions_applied + 1
        check_action_names(f"action {number}", action, self.scenario)
        kept = len(self.moments)
        self._keep, self._kept = action.keep, set()
        try:
            if action.cease_to_exist:
                _fail("cease_to_exist: a token ceases to exist as a state-based action (704.5d): the engine's to do")
            self._apply(action)
            if action.keep and self.now.unfinished:
                _fail(
                    "keep: the legend rule applies once the resolution is finished (704.4): put keep on its last action"
                )
            self._perform_state_based_actions()
            for c in action.keep:
                if c not in self._kept:
                    _fail(f"keep card {c}: the legend rule doesn't apply to it after this batch (704.5j)")
        except InvalidArgument as e:
            del self.moments[kept:]  # nothing changes
            raise type(e)(f"action {number}: {e}") from None
        finally:
            self._keep = ()
        self.actions_applied += 1
        self.action_moments.append(len(self.moments) - 1)

    def _perform_state_based_actions(self) -> None:
        """704.3 and 603.3b's loop: while state-based actions are due, a batch performs them all at once; only
        when none is due does a player receive priority (and the abilities that triggered go on the stack)."""
        # Each batch removes a player for good, or a card from the battlefield (a token, from the game next).
        for _ in range(2 * self.n_cards + self.n_players + 1):
            due = self._state_based_actions(self.now)
            if due == Action() or self.now.unfinished:  # 704.4: not in the middle of a resolution
                return
            if self.now.step == UNTAP:
                raise BeyondModelBounds(
                    "state-based actions due in the untap step: the model's untap step is one batch"
                )
            self._apply(due)
            self.now.state_based = True
        raise AssertionError("state-based actions went on performing themselves")

    def _state_based_actions(self, m: Moment) -> Action:
        """What the state-based actions due at ``m`` do (704.5a, d, f-g, j, m), as one batch: all at once (704.3)."""
        here = [c for c, card in enumerate(m.cards) if card.zone == BATTLEFIELD and not card.phased_out]
        lethal = [c for c in here if m.cards[c].lethal and m.cards[c].eff_creature]  # 704.5f-g
        auras = [c for c in here if self.flag(c, "aura") and m.cards[c].attached_to is None]  # 704.5m
        losers = [p for p in range(self.n_players) if m.no_life[p] and m.in_game[p]]  # 704.5a
        # 704.5d: "If a token is in a zone other than the battlefield, it ceases to exist."
        gone = [c for c, card in enumerate(m.cards) if self.is_token(c) and card.zone not in (BATTLEFIELD, OUTSIDE)]
        # 704.5j: "... that player chooses one of them, and the rest are put into their owners' graveyards."
        legends = []
        for group in self._legend_groups(m, here):
            chosen = self._legend_kept(m, group, leaving=set(lethal + auras))
            legends += [c for c in group if c != chosen]
        return Action(
            destroy=tuple(sorted(set(lethal + auras + legends))), lose=tuple(losers), cease_to_exist=tuple(gone)
        )

    def _legend_groups(self, m: Moment, here: list[int]) -> list[list[int]]:
        """704.5j: the sets of two or more legendary permanents with the same name controlled by the same player."""
        groups: dict[tuple[int, int], list[int]] = {}
        for c in here:
            name = self.scenario.cards[c].legend_name
            if name:
                groups.setdefault((m.cards[c].controller, name), []).append(c)
        return [group for group in groups.values() if len(group) >= 2]

    def _legend_kept(self, m: Moment, group: list[int], leaving: set[int]) -> int:
        """The one its controller keeps: the one the script names (``keep``), or else one that isn't leaving anyway
        (the same check's other state-based actions), of those the one on the battlefield longest."""
        named = [c for c in group if c in self._keep]
        if len(named) > 1:
            _fail(f"keep cards {named}: they have the same name and controller; the legend rule keeps one (704.5j)")
        if named:
            self._kept.add(named[0])
            return named[0]
        return min(group, key=lambda c: (c in leaving, m.cards[c].since, c))

    def _apply(self, action: Action) -> None:
        if self.game_over:
            _fail("the game is over: no player is left to act")
        before = self.now
        after = before.successor()
        if after.t >= 32:
            raise BeyondModelBounds("a trace holds at most 32 moments")
        self._goes_on(before, action)
        after.named = cards_named(action)
        self._turn_structure(before, after, action)
        self._circumstances(after, action)
        self._top_of_stack(before, after, action)
        self._zone_changes(before, after, action)
        self._events_on_permanents(before, after, action)
        self._lore_counters(before, after)
        self._players_leave(before, after, action)
        self._tidy_permanents(after)
        self._characteristics(after)
        self._resolution_bookkeeping(before, after)
        self._delayed_abilities_end_or_begin(before, after, action)
        after.abilities = self._what_triggered(before, after, action)
        self._delayed_abilities_used_up(after)
        self._cleanup_priority(before, after, action)
        self._instructions_in_order(before, after, action)
        if self._state_based_actions(after) != Action():
            after.priority = False  # 704.3: state-based actions first; nobody receives priority yet
        self._put_triggers_on_stack(before, after)
        self.moments.append(after)

    # 1. turn structure ------------------------------------------------------------------------
    def _turn_structure(self, before: Moment, after: Moment, action: Action) -> None:
        if action.extra_turn is not None and not action.next_turn:
            _fail("extra_turn: an extra turn begins like any turn (next_turn = true)")
        if action.extra_step and action.step is None:
            _fail("extra_step: it says that the step beginning (step = ...) was added by an effect")
        if action.extra_step and action.step == "precombat_main":
            _fail("extra_step: an added main phase is a postcombat main phase (505.1a)")
        if action.next_turn:
            if action != Action(next_turn=True, extra_turn=action.extra_turn, priority=action.priority):
                _fail("next_turn: the untap step has no priority, so nothing else happens in that batch (502.4)")
            self._check_step_can_end(before)
            if before.step == CLEANUP and before.priority:
                _fail("next_turn: players had priority in the cleanup step, so another cleanup step follows (514.3a)")
            self._no_beginning_skipped(before, range(before.step + 1, len(game.STEPS)))
            after.turn += 1
            for card in after.cards:
                card.was_blocked = False  # a new turn, a new combat
            if after.turn > 31:
                raise BeyondModelBounds("the model counts at most 31 turns")
            if action.extra_turn is not None:  # 500.7: the effect says who takes it
                after.active = action.extra_turn
            else:
                after.active = (before.active + 1) % self.n_players
            after.extra_turn = action.extra_turn is not None
            if not after.in_game[after.active]:
                raise BeyondModelBounds(
                    f"next_turn: player {after.active} has left the game; the model doesn't skip their turn"
                )
            after.step = UNTAP
            after.priority = False  # 502.4: no player receives priority during the untap step
            self._untap_step(after)
            return
        if action.step is not None:
            new_step = game.STEPS.index(action.step)
            # 514.3a: once players received priority in a cleanup step, another cleanup step follows.
            another_cleanup = new_step == before.step == CLEANUP and before.priority
            if new_step <= before.step and not (action.extra_step or another_cleanup):
                _fail(
                    f"step {action.step}: the turn is already past it (steps only move forward in a turn, unless an "
                    "effect added it: extra_step = true)"
                )
            # (514.2: as the cleanup step begins, "until end of turn" effects end: control given by one goes back)
            control_back = action.gain_control and new_step == CLEANUP
            if action.cast is not None or action.play_land is not None or (action.gain_control and not control_back):
                _fail(f"step {action.step}: players act only once they receive priority in the new step")
            if before.step != UNTAP:  # 502.4: what triggered in the untap step waits for the upkeep
                self._check_step_can_end(before)
            if not action.extra_step:
                self._no_beginning_skipped(before, range(before.step + 1, new_step))
            after.step = new_step
            after.extra_step = action.extra_step
            if new_step == BEGINNING_OF_COMBAT:
                for card in after.cards:
                    card.was_blocked = False  # a new combat phase (an added one too, 500.8): blockers anew (509.1)
            if new_step == UNTAP:  # an added beginning phase's untap step (500.8): as any untap step, 502
                if action != Action(step=action.step, extra_step=True, priority=action.priority):
                    _fail("step untap: the untap step has no priority, so nothing else happens in that batch (502.4)")
                after.priority = False
                self._untap_step(after)
                return
        elif before.step == UNTAP:
            _fail("the untap step lasts one batch: the next action begins a step (step = 'upkeep', ...)")
        after.priority = action.priority
        if not before.priority and not after.priority and after.step != CLEANUP and not action.unfinished:
            _fail("priority = false twice in a row: a player receives priority as soon as nothing else happens (117.3)")

    def _instructions_in_order(self, before: Moment, after: Moment, action: Action) -> None:
        """608.2c: a spell or ability follows its instructions in order; each instruction's events are a batch,
        and nobody receives priority (nor are state-based actions performed, 704.4) until the last is done.  A
        turn-based action as a step begins may go on the same way (703.4)."""
        if action.unfinished:
            resolving = after.resolving is not None and not after.removed_now
            begins = action.step is not None or action.next_turn
            if not (resolving or before.unfinished or begins):
                _fail(
                    "unfinished: only a resolution (resolve = true), a turn-based action as a step begins, or the"
                    " events of an unfinished one go on in the next action (608.2c)"
                )
            after.priority = False
            after.unfinished = True

    @staticmethod
    def _goes_on(before: Moment, action: Action) -> None:
        """The action after an unfinished resolution holds its next events: nothing a player does with priority."""
        if before.unfinished:
            what = [
                name
                for name, done in (
                    ("next_turn", action.next_turn),
                    ("step", action.step is not None),
                    ("cast", action.cast is not None),
                    ("play_land", action.play_land is not None),
                    ("resolve", action.resolve),
                    ("counter", action.counter),
                )
                if done
            ]
            if what:
                _fail(
                    f"{what[0]}: the previous action's resolution is unfinished (unfinished = true), so this action"
                    " holds its next events; nobody has priority in between (608.2c, 117.3)"
                )

    def _cleanup_priority(self, before: Moment, after: Moment, action: Action) -> None:
        """514.3a: in the cleanup step no player receives priority, unless abilities triggered or state-based
        actions were performed there: then, in the next batch, the active player does (and the abilities go on
        the stack), and players keep it while they act; all passing with the stack empty, another cleanup step
        begins (``step = "cleanup"``), without priority again."""
        if after.step == CLEANUP:
            # this batch performed them (514.3a), unless a resolution went on in it (704.4)
            performed = self._state_based_actions(before) != Action() and not before.unfinished
            # A cleanup step that begins (the first, or another once all passed) gives nobody priority.
            begins = before.step != CLEANUP or action.step == "cleanup"
            going_on = before.priority and not begins  # players who have priority keep it while they act
            after.priority = not begins and (bool(before.waiting) or bool(before.stack) or performed or going_on)
            if not after.priority and (action.cast is not None or action.play_land is not None):
                _fail("cast/play_land: nobody has priority in the cleanup step unless something triggered (514.3)")

    def _no_beginning_skipped(self, before: Moment, steps: range) -> None:
        """A script may pass over steps in which nothing happens; not over one whose beginning triggers an ability."""
        for step in steps:
            for a in range(self.n_abilities):
                if self._waits_for(before, a, step):
                    _fail(
                        f"step {game.STEPS[step]} is passed over, but ability {a} triggers at its beginning: "
                        f"write step = '{game.STEPS[step]}'"
                    )
            if step == MAIN:  # 714.3b: a Saga's lore counter as its controller's precombat main phase begins
                for c, card in enumerate(before.cards):
                    if self.kind[c] == CHAPTER and card.zone == BATTLEFIELD and card.controller == before.active:
                        _fail(f"step precombat_main is passed over, but card {c} (a Saga) gets a lore counter there")

    def _waits_for(self, m: Moment, a: int, step: int) -> bool:
        """Ability ``a`` exists and says "at the beginning of" ``step`` (of its controller's turn, if "your")."""
        kind = self.ability_kind(a)
        begins_at = {YOUR_UPKEEP: (UPKEEP, True), END_STEP: (END, False), YOUR_COMBAT: (BEGINNING_OF_COMBAT, True)}
        if kind not in begins_at or begins_at[kind][0] != step:
            return False
        cls, i = self.ability_class(a)
        if cls == "printed":
            exists, controller = self.has_ability(m, i), m.cards[self.card_of(i)].controller
        elif cls == "delayed":
            exists, controller = m.delayed[i].registered, m.delayed[i].controller
        else:
            return False
        return exists and (not begins_at[kind][1] or controller == m.active)

    def _check_step_can_end(self, before: Moment) -> None:
        # 500.2: a step ends only when the stack is empty and nothing waits to go on it, and every player has
        # passed: after a moment with priority (or from the untap or cleanup step, where nobody had it).
        if before.stack or before.waiting:
            _fail("a step or turn ends only when the stack is empty and no triggered ability is waiting (500.2)")
        if not before.priority and before.step not in (UNTAP, CLEANUP):
            _fail(
                "a step or turn ends only once every player has passed priority (500.2): not right after a batch"
                " without priority"
            )

    def _untap_step(self, after: Moment) -> None:
        for card in after.cards:
            if card.zone == BATTLEFIELD and card.controller == after.active:
                card.phased_out = False  # 502.1: the active player's phased-out permanents phase in
                card.tapped = False  # 502.3: the active player untaps their permanents

    # 2. circumstances -------------------------------------------------------------------------
    def _circumstances(self, after: Moment, action: Action) -> None:
        for name in ("lands_are_creatures", "creatures_lose_abilities", "grant_ability"):
            value = getattr(action, name)
            if value is not None:
                after.effects[name] = value
        for c in action.prohibit:
            after.cards[c].prohibited = True
        for c in action.allow:
            after.cards[c].prohibited = False
        for a in action.condition_true:
            after.printed[a].cond = True
        for a in action.condition_false:
            after.printed[a].cond = False
        for a, c in action.condition_true_for:
            after.printed[a].cond_false_for = after.printed[a].cond_false_for - {c}
        for a, c in action.condition_false_for:
            after.printed[a].cond_false_for = after.printed[a].cond_false_for | {c}
        if set(action.condition_true_for) & set(action.condition_false_for):
            _fail("condition_true_for/false_for: the same ability and card both ways in one batch")
        for c in action.reveal:
            after.cards[c].revealed = True
        for c in action.conceal:
            after.cards[c].revealed = False
        for name, on, off in (
            ("prohibit/allow", action.prohibit, action.allow),
            ("condition_true/false", action.condition_true, action.condition_false),
            ("reveal/conceal", action.reveal, action.conceal),
        ):
            if set(on) & set(off):
                _fail(f"{name}: the same card both ways in one batch")

    # 3. the top of the stack ------------------------------------------------------------------
    def _top_of_stack(self, before: Moment, after: Moment, action: Action) -> None:
        top = before.stack[-1] if before.stack else None
        # 603.1a: "This ability can't be countered" functions while the ability is on the stack.
        if top is not None and top.code <= self.n_printed and self.said(top.code - 1, "uncounterable"):
            after.instruction_works = True
        after.may_use = not action.decline
        after.actions_other = action.actions_other
        if action.targets_illegal and not action.resolve:
            _fail("targets_illegal: targets are checked as the ability tries to resolve (resolve = true, 608.2b)")
        if not (action.resolve or action.counter):
            if action.actions_by_effect:
                _fail("actions_by_effect: no triggered ability is resolving in this batch (603.12)")
            return
        if top is None:
            _fail("resolve/counter: the stack is empty")
        if not before.priority:
            _fail("resolve/counter: the top of the stack leaves only after every player passes priority (117.4)")
        spell = self.spell_card(top.code)
        if action.actions_by_effect and (action.counter or spell is not None):
            _fail("actions_by_effect: no triggered ability is resolving in this batch (603.12)")
        if action.counter:
            after.leave = COUNTER
            if after.instruction_works:
                return  # 603.1a: it can't be countered, and stays on the stack
            after.countered_now = True
            after.stack.pop()
            if spell is not None:
                self._move(after, spell, GRAVEYARD)  # a countered spell goes to its owner's graveyard
            return
        after.leave = RESOLVE
        after.stack.pop()
        if action.targets_illegal:
            if spell is not None or not self.targets(top.code - 1):
                _fail("targets_illegal: only a triggered ability that targets has targets to become illegal")
            after.targets_illegal = True
        if spell is None and self._removed_instead(before, top, action):
            # It leaves the stack without resolving and does nothing: no effect, no action, no delayed
            # or reflexive ability, and it isn't one of the ability's resolutions this turn.
            after.removed_now = True
            # Removed, it takes its action no times, as when it resolves doing nothing (recorded as 0 then too).
            after.actions_by_effect = 0
            return
        after.resolving = top
        if spell is not None:
            permanent = self.scenario.cards[spell].permanent
            self._move(after, spell, BATTLEFIELD if permanent else GRAVEYARD, controller=top.controller)
            return
        after.acts, after.affects = self._does_what_it_says(before, top, action)  # 608.2
        # The instructed action (603.12) is part of the effect: an ability that does nothing doesn't take it.
        after.actions_by_effect = action.actions_by_effect if after.acts else 0

    def _removed_instead(self, before: Moment, top: StackObject, action: Action) -> bool:
        """Every player passed, but the top ability doesn't resolve: a rule removes it from the stack."""
        if action.targets_illegal:
            return True  # 608.2b: "If all its targets ... are now illegal, the ... ability doesn't resolve"
        cls, a = self.ability_class(top.code - 1)
        # 603.4: "If the condition isn't true at that time, the ability is removed from the stack and does nothing."
        if cls == "printed" and self.if_about_that(a):  # ... asked of the object its instance carries
            return top.subject in self._if_false_of(before, a)
        return cls == "printed" and self.said(a, "has_if") and not before.printed[a].cond

    def _does_what_it_says(self, before: Moment, top: StackObject, action: Action) -> tuple[bool, frozenset[int]]:
        """Does the resolving ability do what its effect says (608.2 and its exceptions), and to which of the objects
        the model follows for it (a delayed ability's, an Aura's leaves ability's)?"""
        cls, i = self.ability_class(top.code - 1)
        if cls == "delayed":
            # 603.7c: each object it refers to is affected if it is still that object, in the zone it was in when the
            # ability was created (changed characteristics don't matter); the others aren't.  With no object it does
            # its effect (608.2); with objects, what it does is what it does to them.
            d, state = self.scenario.delayed[i], before.delayed[i]
            if not d.refers_to:
                return True, frozenset()
            # A phased-out permanent is treated as though it doesn't exist (702.26b): it can't be affected.
            if d.trigger in ("enters_self", "leaves_self"):
                # A zone-change trigger ("when that creature dies this turn, return that card"): the zone it is
                # expected to be in is the one it moved to, where it looks for it (603.6).
                found = frozenset(c for c in d.refers_to if self._is_where_it_moved(before, c, top))
            else:
                found = frozenset(
                    c
                    for c in d.refers_to
                    if (before.cards[c].since, before.cards[c].zone) == state.objects[c]
                    and not before.cards[c].phased_out
                )
            return bool(found) or d.other_effect, found
        if cls == "reflexive":
            return True, frozenset()
        a, c = i, self.card_of(i)
        if self.said(a, "once_each_turn") and top.controller in before.printed[a].done_by:
            return False, frozenset()  # "Do this only once each turn": its controller already took the action
        if self.said(a, "optional") and action.decline:
            return False, frozenset()  # 603.5: the "may" choice is made on resolution
        if self.acts_on_its_own_object(a) and not self._finds_its_object(before, c, top):
            # 603.6: it looks for the object in the zone it moved to; not found, the part of the ability that does
            # something to it does nothing -- all of it, unless it also does something else ("draw two cards").
            return self.said(a, "other_effect"), frozenset()
        this = self.said(a, "acts_on_this") and not self.acts_on_its_own_object(a) and self.kind[a] != ENCHANTED_LEAVES
        if this or self.acts_on_that(a) or self.acts_on_them(a):
            # 400.7: its source as it was when it triggered; the object its event happened to, the one that card
            # became in the zone it moved to (603.6), or the one it was for an event that didn't move it -- or each
            # object of its "one or more" event ("return them").  Each found or not; the rest of the effect is done.
            found = {c} if this and self._finds_its_source(before, a, top) else set()
            if self.acts_on_that(a) and self._finds_what_it_happened_to(before, a, top):
                found.add(top.subject)
            found |= {x for x in top.objects if self._finds_what_it_happened_to(before, a, top, x)}
            return bool(found) or self.said(a, "other_effect"), frozenset(found)
        if self.kind[a] == ENCHANTED_LEAVES:
            # 603.6e: two objects, each found or not: the Aura card in its owner's graveyard; the new object the
            # enchanted permanent's card became in the zone it moved to (the first zone it went to, 603.6c: not the
            # battlefield, which it could be on again only after going somewhere else first), unless that zone is
            # hidden from the ability's controller (603.6).
            found = set()
            # The Aura card: the object it became in its owner's graveyard "after state-based actions have been
            # checked", before the ability went on the stack -- not a newer one that got there since (400.7).
            if before.cards[c].zone == GRAVEYARD and before.cards[c].since <= top.put_on_stack:
                found.add(c)
            if top.zone != BATTLEFIELD and self._finds_its_object(before, top.object, top):
                found.add(top.object)
            return bool(found) or self.said(a, "other_effect"), frozenset(found)
        return True, frozenset()

    def _finds_its_source(self, before: Moment, a: int, top: StackObject) -> bool:
        """400.7: printed ability ``a`` does something to its source as it was when it triggered; a card that has moved
        since is a new object (a look-back trigger's source moving in that very event is already a new one), and a
        phased-out permanent is treated as though it doesn't exist (702.26b)."""
        card = before.cards[self.card_of(a)]
        same = card.since < top.moment or (card.since == top.moment and not self.looks_back(self.kind[a]))
        return same and not card.phased_out

    def _finds_what_it_happened_to(self, before: Moment, a: int, top: StackObject, c: int | None = None) -> bool:
        """400.7, 603.6: the object the event happened to ("whenever another creature dies, exile it": card ``c``, by
        default the one the instance carries) is the one its card became in the zone it moved to (a spell cast: the
        stack, 601.2a), or the one it already was if the event didn't put it there ("whenever a land becomes tapped");
        one that has changed zones since is a new object."""
        stayed = self.kind[a] not in game.EVENT_PUTS_ITS_OBJECT_THERE
        return self._is_where_it_moved(before, top.subject if c is None else c, top, stayed=stayed)

    def _finds_its_object(self, before: Moment, c: int, top: StackObject) -> bool:
        # ... in the zone its instance recorded as it triggered.
        return before.cards[c].zone == top.zone and self._is_where_it_moved(before, c, top)

    def _is_where_it_moved(self, before: Moment, c: int, top: StackObject, stayed: bool = False) -> bool:
        """Card ``c`` is the object it became by the zone change the ability triggered on (it entered its zone at
        that moment, 400.7; ``stayed``: the object it already was, for an event that didn't move it), not hidden from
        the ability's controller (603.6: a library, another player's hand) and not phased out (treated as though it
        doesn't exist, 702.26b)."""
        card = before.cards[c]
        hidden = card.zone == LIBRARY or (card.zone == HAND and self.scenario.cards[c].owner != top.controller)
        same = card.since < top.moment if stayed else card.since == top.moment
        return same and not hidden and not card.phased_out

    # 4. zone changes -------------------------------------------------------------------------
    def remembers_resolutions(self, a: int) -> bool:
        """Printed ability ``a`` has a memory of its resolutions this turn: 'do this only once each turn'
        (603.2i) or, for a card's first ability, a delayed ability created on its second resolution (603.7h)."""
        nth = any(d.nth and d.cause == "ability" and d.source == a for d in self.scenario.delayed)
        return self.said(a, "once_each_turn") or nth

    def _move(self, after: Moment, c: int, zone: int, controller: int | None = None) -> None:
        """Card ``c`` goes to ``zone`` and becomes a new object (400.7)."""
        card = after.cards[c]
        owner = self.scenario.cards[c].owner
        card.zone = zone
        card.since = after.t
        card.controller = owner if controller is None else controller
        card.tapped = zone == BATTLEFIELD and self.flag(c, "enters_tapped")  # 603.6d: enters tapped
        card.phased_out = False
        card.attached_to = None
        card.revealed = False  # a new object hasn't been revealed
        for a in self.abilities_of(c):
            after.printed[a].instances = 1  # effects that gave the old object more instances don't know it (400.7)
        card.was_blocked = False
        card.lore = int(zone == BATTLEFIELD and self.kind[c] == CHAPTER)  # 714.3a: a Saga enters with a lore counter
        card.lethal = False  # a new object has no damage marked on it
        card.entered_under = card.controller if zone == BATTLEFIELD and card.controller != owner else None

    def _comes_back(self, c: int) -> bool:
        """A permanent exiled and returned at once (a flicker) comes back as a new object (400.7), but not a token:
        "A token that has left the battlefield can't ... come back onto the battlefield" (111.8)."""
        return not self.is_token(c)

    @staticmethod
    def _in_zone(zone: int) -> str:
        return {OUTSIDE: "outside the game", EXILE: "in exile"}.get(zone, f"in the {game.ZONES[zone]}")

    def _why_there(self, c: int, card: CardState) -> str:
        """A hint, where an ability's effect put card ``c`` where it is (``moves_to``): the order the engine resolved
        the abilities in is the file's."""
        if not any(c in m.moved_by_effect and card.since == m.t for m in self.moments):
            return ""
        return (
            " (an ability's effect put it there: the engine puts one player's abilities that trigger together on the"
            " stack in the order their objects are listed, the last listed on top; list them in the order wanted)"
        )

    def _zone_changes(self, before: Moment, after: Moment, action: Action) -> None:
        cards = before.cards

        def require(c: int, verb: str, zones: tuple[int, ...]) -> None:
            card = cards[c]
            if card.zone not in zones:
                if card.zone == OUTSIDE and self.is_token(c):
                    _fail(f"{verb} card {c}: the token doesn't exist: not yet created (create), or gone (111.7)")
                where = " or ".join("outside the game" if z == OUTSIDE else f"the {game.ZONES[z]}" for z in zones)
                _fail(f"{verb} card {c}: it is {self._in_zone(card.zone)}, not {where}{self._why_there(c, card)}")
            if self.is_token(c) and card.zone != BATTLEFIELD and verb not in ("create", "cease_to_exist"):
                _fail(f"{verb} card {c}: a token that has left the battlefield can't move to another zone (111.8)")
            if card.zone == BATTLEFIELD and card.phased_out:
                _fail(f"{verb} card {c}: it is phased out, treated as though it doesn't exist (702.26b)")
            if after.cards[c].since == after.t:
                _fail(f"{verb} card {c}: it already moved in this batch")

        if action.cast is not None:
            c = action.cast
            require(c, "cast", (HAND,))
            if self.flag(c, "land_card"):
                _fail(f"cast card {c}: a land is played, not cast (play_land)")
            if not before.priority or not after.priority:
                _fail(f"cast card {c}: a player casts spells while they have priority (117.1a)")
            if len(after.stack) >= min(self.scenario.slots, MAX_STACK):
                raise BeyondModelBounds(f"cast card {c}: the stack has only {self.scenario.slots} slots")
            self._move(after, c, STACK)
            after.stack.append(StackObject(self.spell_code(c), self.scenario.cards[c].owner))
        if action.play_land is not None:
            c = action.play_land
            require(c, "play_land", (HAND,))
            if not self.flag(c, "land_card"):
                _fail(f"play_land card {c}: it is not a land card")
            owner = self.scenario.cards[c].owner
            main_phase = before.step in (MAIN, POSTCOMBAT_MAIN)
            if owner != before.active or not main_phase or before.stack or not before.priority:
                _fail(f"play_land card {c}: its owner plays it in their main phase with an empty stack (305.1)")
            self._move(after, c, BATTLEFIELD)
        for verb, zones, to in (
            ("destroy", (BATTLEFIELD,), GRAVEYARD),
            ("sacrifice", (BATTLEFIELD,), GRAVEYARD),
            ("bounce", (BATTLEFIELD,), HAND),
            ("flicker", (BATTLEFIELD,), BATTLEFIELD),
            ("exile", (BATTLEFIELD, HAND, LIBRARY, GRAVEYARD, COMMAND), EXILE),
            ("put_onto_battlefield", (HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND), BATTLEFIELD),
            ("discard", (HAND,), GRAVEYARD),
            ("draw", (LIBRARY,), HAND),
            ("mill", (LIBRARY,), GRAVEYARD),
            ("create", (OUTSIDE,), BATTLEFIELD),
            ("cease_to_exist", (HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND, STACK), OUTSIDE),
        ):
            for c in getattr(action, verb):
                if verb in ("create", "cease_to_exist") and not self.is_token(c):
                    what = "created (111.1); put a card onto the battlefield" if verb == "create" else "gone (704.5d)"
                    _fail(f"{verb} card {c}: it is a card, not a token: only a token is {what}")
                require(c, verb, zones)
                if to == BATTLEFIELD and not self.scenario.cards[c].permanent:
                    continue  # 304.4, 307.4: an instant or sorcery card that would enter the battlefield stays put
                if verb == "create" and not before.in_game[self.scenario.cards[c].owner]:
                    _fail(f"create card {c}: its owner has left the game")
                # A token is created under its owner's control: its owner is the player who created it (111.2).
                # 111.8: a token exiled doesn't come back (a flicker): it stays in exile, and ceases to exist.
                self._move(after, c, EXILE if verb == "flicker" and not self._comes_back(c) else to)
        for c, player in action.put_onto_battlefield_under:
            require(c, "put_onto_battlefield_under", (HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND))
            if not self.scenario.cards[c].permanent or not before.in_game[player]:
                _fail(f"put_onto_battlefield_under card {c}: only a permanent card enters, under a player in the game")
            self._move(after, c, BATTLEFIELD, controller=player)
        for c in action.dies_replaced:
            require(c, "dies_replaced", (BATTLEFIELD,))
            if not cards[c].eff_creature:
                _fail(f"dies_replaced card {c}: only a creature dies")
            self._move(after, c, EXILE)  # 603.2h: "exile it instead": the death never happens
            after.cards[c].dies_replaced = True
        self._moved_by_its_effect(before, after)

    def _moved_by_its_effect(self, before: Moment, after: Moment) -> None:
        """A resolving ability whose text says where it moves what it acts on ("return it to its owner's hand":
        ``moves_to``) moves each object it finds there (608.2c), and none it doesn't find (400.7: a new object, or one
        phased out); the script's own move of such an object in the batch is an assertion, checked here."""
        top = after.resolving
        if top is None or self.spell_card(top.code) is not None:
            return
        destination = self._destination(top.code - 1)
        if not destination:
            return
        zone, words = ZONE_OF_DESTINATION[destination], PUTS_IT[destination]
        found, looked_for = self._objects_acted_on(before, after, top)
        after.looked_for = frozenset(looked_for)
        for c in sorted(looked_for - found):
            if after.cards[c].since == after.t and after.cards[c].zone == zone:
                why = "it is a new object (400.7), or phased out" if after.acts else "the ability does nothing"
                _fail(
                    f"card {c}: the resolving ability doesn't find it ({why}), so it doesn't {words}:"
                    " leave that move out"
                )
        for c in sorted(found):
            card = after.cards[c]
            if card.since == after.t:  # the script wrote the move: it must be the effect's
                if card.zone != zone:
                    where = "into exile" if card.zone == EXILE else f"to the {game.ZONES[card.zone]}"
                    _fail(f"card {c}: the resolving ability's effect would {words} (moves_to), not move it {where}")
                continue
            if card.zone == zone or (zone == BATTLEFIELD and not self.scenario.cards[c].permanent):
                continue  # already there; an instant or sorcery card stays put (304.4, 307.4)
            if (self.is_token(c) and card.zone != BATTLEFIELD) or card.zone == STACK:
                continue  # 111.8: a token that has left the battlefield moves nowhere else; a spell isn't moved here
            yours = destination == "battlefield under your control"
            self._move(after, c, zone, controller=top.controller if yours else None)
        after.moved_by_effect = frozenset(c for c in found if after.cards[c].since == after.t)

    def _destination(self, a: int) -> str:
        cls, i = self.ability_class(a)
        if cls == "printed":
            return self.texts[i].moves_to
        return self.scenario.delayed[i].moves_to if cls == "delayed" else ""

    def _objects_acted_on(self, before: Moment, after: Moment, top: StackObject) -> tuple[set[int], set[int]]:
        """The objects the resolving ability found and acts on, and those it looked for (``after.affects`` and its
        own object, 603.6, which ``affects`` leaves out)."""
        cls, a = self.ability_class(top.code - 1)
        if cls == "delayed":
            return set(after.affects), set(self.scenario.delayed[a].refers_to)
        c = self.card_of(a)
        if self.kind[a] == ENCHANTED_LEAVES:  # "return that card": the enchanted permanent's card, not the Aura's
            return set(after.affects) & {top.object}, {top.object}
        looked_for = {top.subject} if self.acts_on_that(a) else set(top.objects)
        if self.acts_on_its_own_object(a) or self.said(a, "acts_on_this"):
            looked_for.add(c)
        found = set(after.affects)
        if self.acts_on_its_own_object(a) and after.acts and self._finds_its_object(before, c, top):
            found.add(c)
        return found, looked_for

    # events on permanents that stay -----------------------------------------------------------------
    def _events_on_permanents(self, before: Moment, after: Moment, action: Action) -> None:
        def permanent(c: int, verb: str, *, stays: bool = True) -> None:
            card = before.cards[c]
            if card.zone != BATTLEFIELD:
                _fail(f"{verb} card {c}: it is not on the battlefield")
            if card.phased_out and verb != "phase_in":
                _fail(f"{verb} card {c}: it is phased out, treated as though it doesn't exist (702.26b)")
            if stays and after.cards[c].since == after.t:
                _fail(f"{verb} card {c}: it leaves the battlefield in this batch")

        for c in action.damage:
            permanent(c, "damage", stays=False)
            if not before.cards[c].eff_creature:
                _fail(f"damage card {c}: only creatures are dealt damage in this model")
            after.cards[c].damage = True
        for c in action.lethal:
            permanent(c, "lethal", stays=False)
            if not before.cards[c].eff_creature:
                _fail(f"lethal card {c}: only a creature has toughness and lethal damage")
            after.cards[c].lethal = after.cards[c].since != after.t  # moved in this batch, it is a new object
        for c in action.no_longer_lethal:
            permanent(c, "no_longer_lethal")
            if c in action.lethal:
                _fail(f"no_longer_lethal card {c}: the same action gives it lethal damage")
            after.cards[c].lethal = False
        for p in action.no_life:
            if not after.in_game[p]:
                _fail(f"no_life player {p}: they have left the game")
            after.no_life[p] = True
        for c in action.prevent_damage:
            if c not in action.damage:
                _fail(f"prevent_damage card {c}: no damage is dealt to it in this batch")
            after.cards[c].damage_prevented = True
        for c in action.reveal_first_draw:
            if c not in action.draw:
                _fail(f"reveal_first_draw card {c}: only a card drawn in this batch is revealed as it is drawn")
            owner = self.scenario.cards[c].owner
            revealers = [
                a
                for a in range(self.n_printed)
                if self.kind[a] == REVEALS_LAND_THIS_WAY
                and self.has_ability(before, a)
                and before.cards[self.card_of(a)].zone == BATTLEFIELD
                and before.cards[self.card_of(a)].controller == owner
            ]
            if not revealers:
                _fail(f"reveal_first_draw card {c}: its owner controls no 'reveal the first card you draw' permanent")
            after.cards[c].revealed_first_draw = True
        for c in action.deals_damage:
            permanent(c, "deals_damage", stays=False)
            after.cards[c].deals_damage = True
        for c, player in action.combat_damage:  # 510.2: as a combat damage step begins, to a player it attacks
            permanent(c, "combat_damage", stays=False)
            beginning = after.step == COMBAT_DAMAGE and not before.stack and not (action.resolve or action.counter)
            if not beginning or not before.cards[c].eff_creature:
                _fail(
                    f"combat_damage card {c}: a creature deals combat damage as a combat damage step begins, "
                    "with the stack empty (510.1-510.3)"
                )
            attacking = before.cards[c].controller == after.active != player
            if not attacking or after.cards[c].combat_damage_to:
                _fail(
                    f"combat_damage card {c}: an attacking creature, the active player's, deals combat damage to "
                    "one other player (506.2, 508.1b)"
                )
            after.cards[c].deals_damage = True
            after.cards[c].combat_damage_to = (player,)
        for c in action.block:
            permanent(c, "block")
            if action.step != "declare_blockers":
                _fail(f"block card {c}: creatures become blocked as the declare blockers step begins (509.1h)")
            if not before.cards[c].eff_creature:
                _fail(f"block card {c}: only a creature becomes blocked")
            if before.cards[c].was_blocked:
                _fail(f"block card {c}: it already became blocked this combat (blockers are declared once, 509.1)")
            after.cards[c].blocked = after.cards[c].was_blocked = True
        for a, n in action.instances:  # (a card's first printed ability has the card's number)
            c = self.card_of(a)
            if not 1 <= n <= MAX_INSTANCES:
                _fail(f"instances card {c}: {n} instances; an object has 1 to {MAX_INSTANCES} in this model")
            if after.cards[c].zone != BATTLEFIELD and n != 1:
                raise BeyondModelBounds(f"instances card {c}: only a permanent has more than one in this model")
            if n != 1 and self.remembers_resolutions(a):
                raise BeyondModelBounds(
                    f"instances card {c}: the model remembers one instance's resolutions (603.2i, 603.7h)"
                )
            if self.kind[a] == NO_CARDS_IN_HAND and n != 1:
                raise BeyondModelBounds(f"instances card {c}: the model follows one instance of a state trigger")
            after.printed[a].instances = n
        for c in action.tap + action.tap_for_mana:
            verb = "tap" if c in action.tap else "tap_for_mana"
            permanent(c, verb)
            if before.cards[c].tapped or (c in action.tap and c in action.tap_for_mana):
                _fail(f"{verb} card {c}: it is already tapped")
            after.cards[c].tapped = True
            after.cards[c].tapped_for_mana = verb == "tap_for_mana"  # 106.12: its mana ability with {T}
        for c in action.untap:
            permanent(c, "untap")
            if not before.cards[c].tapped or c in action.tap:
                _fail(f"untap card {c}: it is not tapped")
            after.cards[c].tapped = False
        for c, player in action.gain_control:
            permanent(c, "gain_control")
            if player == before.cards[c].controller or not after.in_game[player]:
                _fail(f"gain_control card {c}: player {player} already controls it or has left the game")
            after.cards[c].controller = player
        for c in action.phase_out:
            permanent(c, "phase_out")
            after.cards[c].phased_out = True
        for c in action.phase_in:
            permanent(c, "phase_in")
            if not before.cards[c].phased_out:
                _fail(f"phase_in card {c}: it is not phased out")
            after.cards[c].phased_out = False
        for c in action.unattach:
            permanent(c, "unattach")
            if before.cards[c].attached_to is None:
                _fail(f"unattach card {c}: it is not attached")
            after.cards[c].attached_to = None
        for c, target in action.attach:
            permanent(c, "attach")
            permanent(target, "attach (to)")
            if target == c or before.cards[c].attached_to == target:
                _fail(f"attach card {c}: it can't be attached to card {target}")
            if c in action.unattach:
                _fail(f"attach card {c}: also unattached in this batch")
            after.cards[c].attached_to = target

    def _lore_counters(self, before: Moment, after: Moment) -> None:
        """714.3b: as its controller's precombat main phase begins, a Saga gets a lore counter."""
        if after.step != MAIN or (after.step == before.step and after.turn == before.turn):
            return
        for c, card in enumerate(after.cards):
            staying = card.zone == BATTLEFIELD and card.since != after.t and not before.cards[c].phased_out
            has_chapters = before.printed[c].eff_ability  # a Saga that lost its chapter abilities gets none
            if self.kind[c] == CHAPTER and staying and has_chapters and card.controller == after.active:
                card.lore += 1
                if card.lore > MAX_CHAPTER + 1:
                    raise BeyondModelBounds(f"card {c}: the model counts at most {MAX_CHAPTER + 1} lore counters")

    # players leaving ---------------------------------------------------------------------------------
    def _players_leave(self, before: Moment, after: Moment, action: Action) -> None:
        leaving = list(action.lose)
        if action.draw_game:
            leaving = [p for p in range(self.n_players) if after.in_game[p]]
        for p in leaving:
            if not after.in_game[p]:
                _fail(f"lose player {p}: they have already left the game")
            if action.cast is not None and self.scenario.cards[action.cast].owner == p:
                _fail(f"lose player {p}: they cast a spell in this batch; a player leaves before or after casting")
            # 800.4a: their spells leave the game with the cards, the abilities they control cease to exist.
            kept = [obj for obj in after.stack if not self._taken_along(obj, p)]
            after.ceased += len(after.stack) - len(kept)
            after.stack = kept
            after.in_game[p] = False
            after.no_life[p] = False
            after.leaves_game[p] = True
            after.by_draw[p] = action.draw_game  # 603.9: a draw doesn't make a player lose
        for p in leaving:
            # 800.4a: all objects the player owns leave the game; control they were given ends.
            for c, card in enumerate(after.cards):
                if self.scenario.cards[c].owner == p and card.zone != OUTSIDE:  # (a token not yet created is there)
                    self._move(after, c, OUTSIDE)
                elif card.zone != BATTLEFIELD or card.controller != p:
                    continue
                elif card.entered_under == p and not card.phased_out:
                    self._move(after, c, EXILE)  # Bribery's example: it entered under their control; no effect ends
                else:  # the control-changing effect ends: back to the player it entered under (110.2)
                    back = card.entered_under
                    card.controller = back if back is not None and after.in_game[back] else self.scenario.cards[c].owner

    def _taken_along(self, obj: StackObject, p: int) -> bool:
        """Player ``p`` leaving the game takes this stack object along (800.4a)."""
        spell = self.spell_card(obj.code)
        return obj.controller == p or (spell is not None and self.scenario.cards[spell].owner == p)

    def _tidy_permanents(self, after: Moment) -> None:
        """110.2: status and attachments exist only on the battlefield, and only to objects still there."""
        for card in after.cards:
            if card.zone != BATTLEFIELD:
                card.tapped = card.phased_out = False
                card.attached_to = None
            target = card.attached_to
            if target is not None and (after.cards[target].zone != BATTLEFIELD or after.cards[target].since == after.t):
                card.attached_to = None  # the permanent it was attached to left: it is a new object now (400.7)

    # 5. characteristics --------------------------------------------------------------------------------
    def _characteristics(self, m: Moment) -> None:
        for c, card in enumerate(m.cards):
            creature_card = self.flag(c, "creature_card")
            if card.zone != BATTLEFIELD:
                # 603.6b: continuous effects don't apply before the permanent is on the battlefield.
                card.eff_creature = creature_card
                for a in self.abilities_of(c):
                    m.printed[a].eff_ability = not self.said(a, "granted")
                continue
            # 613.1 / 603.6b: on the battlefield (newcomers included) the effects apply at once.
            creature = creature_card or (self.flag(c, "land_card") and m.effects["lands_are_creatures"])
            loses = m.effects["creatures_lose_abilities"] and creature  # "lose all abilities" is the later effect
            card.eff_creature = creature
            for a in self.abilities_of(c):
                has_it = m.effects["grant_ability"] if self.said(a, "granted") else True
                m.printed[a].eff_ability = has_it and not loses

    def _resolution_bookkeeping(self, before: Moment, after: Moment) -> None:
        same_turn = after.turn == before.turn
        resolving = after.resolving
        for a, ability in enumerate(after.printed):
            was, now = before.cards[self.card_of(a)].since, after.cards[self.card_of(a)].since
            if not same_turn:
                ability.resolutions, ability.done_by = 0, frozenset()
            if now != was:
                ability.resolutions = 0  # a new object: its ability's resolutions start over (400.7, 603.7h)
            if resolving is not None and resolving.code == self.ability_code(a):
                if self._counts_for_its_object(before, after, a):
                    ability.resolutions += 1
                if after.acts:  # the action is taken by the ability's controller
                    ability.done_by = ability.done_by | {resolving.controller}
        if any(ability.resolutions > 7 for ability in after.printed):
            raise BeyondModelBounds("the model counts at most 7 resolutions of one ability in a turn")

    def _counts_for_its_object(self, before: Moment, after: Moment, a: int) -> bool:
        """The resolving instance of printed ability ``a`` counts for its card's object now (400.7): the object stays
        the same, and the instance triggered as it, not as an earlier object the card was."""
        was, now = before.cards[self.card_of(a)].since, after.cards[self.card_of(a)].since
        return now == was and was <= after.resolving.moment

    # 6. delayed triggered abilities --------------------------------------------------------------------
    def _delayed_abilities_end_or_begin(self, before: Moment, after: Moment, action: Action) -> None:
        self._this_turn_ends(before, after)
        # The text of a resolving spell or ability creates its delayed abilities (603.7a, 603.7d-e, 603.7h); a
        # script's ``create_delayed`` for one is checked, and creates one of a replacement effect or an action.
        made = [d for d in range(self.n_delayed) if self._made_by_its_creator(before, after, d)]
        for d in dict.fromkeys([*action.create_delayed, *made]):
            self._create_delayed(before, after, d)

    def _this_turn_ends(self, before: Moment, after: Moment) -> None:
        if after.turn != before.turn:
            for d, state in enumerate(after.delayed):
                if state.registered and self.scenario.delayed[d].duration:
                    state.registered = False  # 603.7b: "this turn" is over

    def _made_by_its_creator(self, before: Moment, after: Moment, d: int) -> bool:
        """Delayed ability ``d``'s creating spell or ability resolves in this batch and its text creates it then."""
        made_by_text = self.d_cause[d] in (SPELL_CAUSE, ABILITY_CAUSE)
        return made_by_text and not self._why_its_creator_makes_none(before, after, d)

    def _why_its_creator_makes_none(self, before: Moment, after: Moment, d: int) -> str:
        """Why the spell or ability that creates delayed ability ``d`` doesn't create it in this batch ("" if it
        does): it isn't resolving, it did nothing, or this isn't its Nth resolution (603.7h)."""
        ability, resolving = self.scenario.delayed[d], after.resolving
        source = ability.source
        if self.d_cause[d] == SPELL_CAUSE:
            if resolving is None or resolving.code != self.spell_code(source):
                return f"card {source}'s spell isn't resolving in this batch"
            return ""
        if resolving is None or resolving.code != self.ability_code(source):
            return f"card {source}'s triggered ability isn't resolving in this batch"
        counted = self._counts_for_its_object(before, after, source)
        if ability.nth and (after.printed[source].resolutions != ability.n or not counted):
            return f"it is created at the ability's resolution number {ability.n} this turn (603.7h)"
        if not after.acts:
            why = "its object is gone (603.6) or its 'may' was declined: it did nothing, so it created nothing"
            return f"card {source}'s triggered ability resolved doing nothing: {why}"
        return ""

    def _create_delayed(self, before: Moment, after: Moment, d: int) -> None:
        """603.7a: created by a resolving spell or ability, a replacement effect, or an allowed action."""
        ability, state = self.scenario.delayed[d], after.delayed[d]
        source = ability.source
        cause = self.d_cause[d]
        if cause in (SPELL_CAUSE, ABILITY_CAUSE):
            why = self._why_its_creator_makes_none(before, after, d)
            if why:
                _fail(f"create_delayed {d}: {why}")
            # 603.7d-e: who controlled the spell or ability as it resolved
            controller = after.resolving.controller
        else:
            card = after.cards[source]
            if card.zone != BATTLEFIELD or card.phased_out:
                _fail(f"create_delayed {d}: card {source}'s static ability works only on the battlefield")
            controller = card.controller  # 603.7f-g: the controller of the object with the static ability
            if cause == REPLACEMENT_CAUSE:
                state.replacement_applied = True
            else:
                state.action_taken = True
        if state.registered:
            raise BeyondModelBounds(f"delayed ability {d} is created again: the model holds one, and it still exists")
        if any(w.ability == self.n_printed + d for w in before.waiting) or any(
            obj.code == self.ability_code(self.n_printed + d) for obj in before.stack
        ):
            raise BeyondModelBounds(
                f"delayed ability {d} is created again while an earlier instance of it is waiting or on the stack"
            )
        if ability.duration and after.turn != before.turn:
            _fail(f"create_delayed {d}: created as its turn ends")
        # 603.7c: it refers to these objects, as they are now, where they are now (the zones they are expected in)
        objects = {c: (after.cards[c].since, after.cards[c].zone) for c in ability.refers_to}
        after.delayed[d] = replace(state, registered=True, controller=controller, objects=objects)

    def _delayed_abilities_used_up(self, after: Moment) -> None:
        for d, state in enumerate(after.delayed):
            if state.registered and not self.scenario.delayed[d].duration:
                if after.abilities[self.n_printed + d].base_triggers:
                    state.registered = False  # 603.7b: it triggers only once

    # 7. what triggered --------------------------------------------------------------------------------
    def _what_triggered(self, before: Moment | None, after: Moment, action: Action) -> list[Triggering]:
        found = [Triggering() for _ in range(self.n_abilities)]
        # "Whenever another ability triggers" counts the others, so it is judged last.
        order = sorted(range(self.n_abilities), key=lambda a: self.ability_kind(a) == ABILITY_TRIGGERS)
        for a in order:
            found[a] = self._triggering(a, before, after, action, found)
        return found

    def _triggering(
        self, a: int, before: Moment | None, after: Moment, action: Action, found: list[Triggering]
    ) -> Triggering:
        kind = self.ability_kind(a)
        cls, i = self.ability_class(a)
        tr = Triggering(look_back=self.looks_back(kind))  # 603.10
        tr.no_legal_choice = a in action.no_legal_choice
        # 603.10: judged on the game right after the event, or just before it for a look-back trigger.
        view = before if (tr.look_back and before is not None) else after
        tr.controller = self._controller(a, view, after)
        if cls == "reflexive":
            tr.matches = tr.attempts = self._reflexive_occurrences(i, before, after)
        else:
            tr.matches, tr.attempts = self._occurrences(a, kind, before, after, view, found)
            if cls == "printed":  # 113.2c: each instance of the ability triggers separately
                tr.matches = self._one_event(i, tr.matches) * view.printed[i].instances
                tr.attempts = self._one_event(i, tr.attempts) * view.printed[i].instances
        if cls == "printed" and before is not None and self.if_about_that(i):
            # 603.4, of each object the event happened to: those its "if" is true of (Pelt Collector, 2018-10-05).
            tr.counted = tuple(self._event_objects(i, kind, before, after, view))
            tr.objects = tuple(c for c in tr.counted if c not in self._if_false_of(after, i))
        tr.stopped_by = self._why_it_does_not_trigger(a, before, after, tr)
        if tr.stopped_by or not tr.matches:
            tr.base_triggers = 0
        elif cls == "delayed" and not self.scenario.delayed[i].duration:
            tr.base_triggers = 1  # 603.7b: once, for one of the simultaneous events
        elif cls == "reflexive" and self.scenario.reflexive[i].pay_any:
            tr.base_triggers = 1  # 603.12a: "one or more times" triggers once
        elif cls == "printed" and self.said(i, "triggers_once_each_turn"):
            tr.base_triggers = 1  # once, however many occurrences the event has
            after.printed[i].triggered = (after.turn, view.cards[self.card_of(i)].since)
        elif cls == "printed" and self.if_about_that(i):
            tr.base_triggers = len(tr.objects) * view.printed[i].instances  # once for each object it's true of
        else:
            tr.base_triggers = tr.matches  # 603.2c: once for each occurrence
        tr.counts_additional = self._counts_additional(a, after)
        tr.triggers = tr.base_triggers
        if tr.counts_additional:  # 603.2d: determine how many times, then it triggers that many times
            tr.triggers = tr.base_triggers * (1 + self._additional_times(a, after))
        if tr.triggers and cls == "printed" and self.acts_on_that(i) and not self.if_about_that(i):
            tr.objects = tr.counted = tuple(self._event_objects(i, kind, before, after, view))  # (not at moment 0)
        elif tr.triggers and cls == "printed" and self.acts_on_them(i):
            tr.counted = tuple(self._event_objects(i, kind, before, after, view))  # each instance acts on them all
        if not tr.triggers:
            tr.objects = tr.counted = ()
        if max(tr.matches, tr.attempts, tr.triggers) > MAX_COUNT:
            raise BeyondModelBounds(f"ability {a} would trigger more than {MAX_COUNT} times in one batch")
        return tr

    def _controller(self, a: int, view: Moment, after: Moment) -> int:
        """Who controls the instances that trigger (603.3a, 603.7d-g, 603.12)."""
        cls, i = self.ability_class(a)
        if cls == "printed":
            return view.cards[self.card_of(i)].controller  # 603.3a: its source's controller when it triggered
        if cls == "delayed":
            return view.delayed[i].controller
        resolving = after.resolving
        return resolving.controller if resolving is not None else 0  # who controlled the resolving ability

    def _speaks_of(self, a: int, c: int, seen: Moment, by_owner: bool = False) -> bool:
        """Whether card ``c``'s object, as it is in ``seen``, is what ability ``a``'s printed condition speaks of:
        "another creature" is any creature but the ability's own object; "when this creature dies" that object
        alone; "you control" a permanent its controller controls, "an opponent controls" one another player does
        (as it last existed on the battlefield, for one that left: 603.10a; a card elsewhere has no controller,
        108.4a, so its owner's; "your graveyard", ``by_owner``: a card goes to its owner's, 404.1); "token" and
        "nontoken" what it is (111.1); "a creature spell" a spell of that card type.  A delayed or reflexive
        ability's condition says none of that here."""
        cls, _ = self.ability_class(a)
        if cls != "printed":
            return True
        x = self.card_of(a)
        relation, whose, token = self.subject_of(a)
        if (relation == "this") != (c == x) and relation != "any":
            return False
        obj = seen.cards[c]
        # A spell's controller is who cast it (601.2a).
        holder = obj.controller if obj.zone in (BATTLEFIELD, STACK) and not by_owner else self.scenario.cards[c].owner
        you = seen.cards[x].controller
        if whose == "you" and holder != you:
            return False
        if whose == "opponent" and holder == you:
            return False
        if token != "any" and (token == "token") != self.scenario.cards[c].token:
            return False
        return self.card_type_matches(a, c) and self.subtype_matches(a, c)

    def _became_tapped(self, before: Moment, after: Moment, c: int) -> bool:
        """Permanent ``c`` was on the battlefield before and after the batch, the same object, and became tapped
        (not one that entered tapped, 603.2f)."""
        was, now = before.cards[c], after.cards[c]
        return self._stayed(before, after, c) and not was.tapped and now.tapped

    @staticmethod
    def _stayed(before: Moment, after: Moment, c: int) -> bool:
        """Card ``c`` was on the battlefield before and after the batch, the same object (400.7)."""
        was, now = before.cards[c], after.cards[c]
        return was.zone == BATTLEFIELD and now.zone == BATTLEFIELD and now.since != after.t

    def card_type_matches(self, a: int, c: int) -> bool:
        """Card ``c`` is of the card type printed ability ``a``'s condition names for a spell ("whenever you cast a
        noncreature spell"), as printed on it (205.2); true if it names none."""
        wanted = self.texts[a].subject_type
        if wanted == "any":
            return True
        if wanted == "instant_or_sorcery":
            return self.flag(c, "instant_card") or self.flag(c, "sorcery_card")
        if wanted == "enchantment":
            return self.flag(c, "enchantment_card") or self.flag(c, "aura")  # an Aura is an enchantment (303.4)
        if wanted in ("artifact", "instant", "sorcery"):
            return self.flag(c, f"{wanted}_card")
        return self.flag(c, "creature_card") == (wanted == "creature")

    def subtype_matches(self, a: int, c: int) -> bool:
        """Card ``c`` has one of the subtypes printed ability ``a``'s condition names, as printed (205.3); true if
        none."""
        return has_named_subtype(self.texts[a], self.scenario.cards[c])

    def about_each_object(self, a: int) -> bool:
        """Printed ability ``a``'s condition is about any object of a kind (a zone change, a land becoming tapped, a
        spell cast, combat damage to a player), one trigger per object (not "one or more"), of an object other than its
        own: "it" in its text is the object the event happened to."""
        about_any = self.kind[a] in game.FILTERED_KINDS and self.subject_of(a)[0] != "this"
        return about_any and not self.said(a, "one_or_more")

    def acts_on_that(self, a: int) -> bool:
        """Printed ability ``a`` does something to the object its event happened to ("whenever another creature dies,
        exile it")."""
        return self.said(a, "acts_on_that") and self.about_each_object(a)

    def acts_on_them(self, a: int) -> bool:
        """Printed ability ``a`` does something to all the objects its "one or more" event happened to ("whenever one
        or more creatures you control die, return them to their owner's hand")."""
        about_any = self.kind[a] in game.THEM_KINDS and self.subject_of(a)[0] != "this"
        return self.said(a, "acts_on_that") and about_any and self.said(a, "one_or_more")

    @staticmethod
    def _if_false_of(m: Moment, a: int) -> frozenset[int]:
        """The cards of whose objects printed ability ``a``'s intervening "if" about that object is false at ``m``."""
        return m.printed[a].cond_false_for

    def if_about_that(self, a: int) -> bool:
        """Printed ability ``a``'s intervening "if" speaks of the object its event happened to ("if that creature's
        power is greater than ~'s"): 603.4 asks it of each such object, as it triggers and as its instance resolves."""
        return self.said(a, "has_if") and self.said(a, "if_about_that") and self.about_each_object(a)

    def _event_objects(self, a: int, kind: int, before: Moment, after: Moment, view: Moment) -> list[int]:
        """The cards whose event in the batch ability ``a``'s condition of ``kind`` counts, judged in ``view``:
        creatures entering (603.6a; 603.6b: as they are now), creatures dying or lands put into a graveyard from the
        battlefield (603.6c; 603.10a: a creature as it was then, being a land is printed), creature cards put into a
        graveyard from anywhere (a token is not a card, 108.2b; "your graveyard": the owner's, 404.1), lands becoming
        tapped, spells cast, creatures dealing combat damage to a player."""
        if kind == CREATURE_ENTERS:
            return [
                c
                for c in range(self.n_cards)
                if self._entered_battlefield(after, c) and after.cards[c].eff_creature and self._speaks_of(a, c, after)
            ]
        if kind in (CREATURE_DIES, LAND_TO_GRAVEYARD):
            return [
                c for c in range(self.n_cards) if self._dies(before, after, c) and self._leaving_one(a, kind, view, c)
            ]
        if kind == LAND_TAPPED:  # 603.2f: every land that became tapped, as the condition names it
            lands = [c for c in range(self.n_cards) if self.flag(c, "land_card")]
            return [c for c in lands if self._became_tapped(before, after, c) and self._speaks_of(a, c, view)]
        if kind == SPELL_CAST:  # each card put on the stack in the batch was cast; its caster controls it (601.2a)
            return [
                c
                for c, card in enumerate(after.cards)
                if card.zone == STACK and before.cards[c].zone != STACK and self._speaks_of(a, c, view)
            ]
        if kind == COMBAT_DAMAGE_TO_PLAYER:  # each creature that deals combat damage to a player (510.2)
            return [c for c in range(self.n_cards) if after.cards[c].combat_damage_to and self._speaks_of(a, c, view)]
        assert kind == GRAVEYARD_FROM_ANYWHERE, kind
        return [
            c
            for c, card in enumerate(after.cards)
            if card.zone == GRAVEYARD
            and card.since == after.t
            and self.flag(c, "creature_card")
            and not self.scenario.cards[c].token
            and self._speaks_of(a, c, view, by_owner=True)
        ]

    def _leaving_one(self, a: int, kind: int, view: Moment, c: int) -> bool:
        """Card ``c``'s object, as it was in ``view``, is one "whenever a creature dies" (a creature then) or "a land is
        put into a graveyard from the battlefield" (being a land is printed) of ability ``a`` speaks of."""
        is_kind = view.cards[c].eff_creature if kind == CREATURE_DIES else self.flag(c, "land_card")
        return is_kind and self._speaks_of(a, c, view)

    def acts_on_its_own_object(self, a: int) -> bool:
        """Printed ability ``a`` triggers on its own object changing zones: "when this enters", "when this leaves the
        battlefield", "when this creature dies" (603.6: it then looks for that object where it went)."""
        own = self.kind[a] in game.ZONE_CHANGE_FILTERED_KINDS and self.subject_of(a)[0] == "this"
        return self.kind[a] in ZONE_CHANGE_SELF_KINDS or own

    def subject_of(self, a: int) -> tuple[str, str, str]:
        """What printed ability ``a``'s condition says of its object: relation, controller, token."""
        text = self.texts[a]
        return text.subject_relation, text.subject_controller, text.subject_token

    def looks_back(self, kind: int) -> bool:
        """603.10: is a trigger of this kind judged on the game as it was just before the event?"""
        return kind in LOOK_BACK_KINDS

    def _exists(self, a: int, view: Moment, before: Moment | None = None, after: Moment | None = None) -> bool:
        """Is the ability there to be matched by the batch's events, judged in ``view``?"""
        cls, i = self.ability_class(a)
        if cls == "printed":
            return self.has_ability(view, i)
        # A delayed ability is there if it existed before the batch or was created in it, whatever the view:
        # the event that makes it fire also uses it up (603.7b), so its existence after the batch can't decide.
        # Whether it may trigger (created only now, 603.7a; its "this turn" is over, 603.7b) is decided apart.
        after = view if after is None else after
        if before is not None and before.delayed[i].registered:
            # 603.7a: "this creature" is the object the ability was created for; once that object
            # has changed zones the card is a new object (400.7), and its event can't happen any more.
            if self.ability_kind(a) in ONE_OBJECT_KINDS:
                x = self.subject(a)
                return before.cards[x].since == before.delayed[i].objects[x][0]
            return True
        return after.delayed[i].registered

    # the trigger conditions, one by one
    def _occurrences(
        self, a: int, kind: int, before: Moment | None, after: Moment, view: Moment, found: list[Triggering]
    ) -> tuple[int, int]:
        """(occurrences that match, occurrences counting prevented and replaced ones)."""
        if kind == NONE:
            return 0, 0
        exists = self._exists(a, view, before, after)
        if before is None:  # moment 0: nothing has happened; only a state can match (603.8)
            n = int(
                kind == NO_CARDS_IN_HAND and exists and self.hand_is_empty(after, self._controller(a, after, after))
            )
            return n, n
        if not exists:
            return 0, 0
        x = self.subject(a)
        t = after.t
        was, now = before.cards[x], after.cards[x]
        stayed = self._stayed(before, after, x)
        n = 0
        if kind == ENTERS_SELF:  # 603.6a
            n = int(self._entered_battlefield(after, x))
        elif kind in (CREATURE_ENTERS, GRAVEYARD_FROM_ANYWHERE):
            n = len(self._event_objects(a, kind, before, after, view))
        elif kind in (CREATURE_DIES, LAND_TO_GRAVEYARD):  # 603.6c; 603.10a: as the permanents were before the event
            # A creature as it was then; being a land is printed.
            is_one = [self._leaving_one(a, kind, view, c) for c in range(self.n_cards)]
            died = [self._dies(before, after, c) and one for c, one in enumerate(is_one)]
            would = [after.cards[c].dies_replaced and one for c, one in enumerate(is_one)]
            return sum(died), sum(died) + sum(would)  # 603.2h: a replaced death triggers nothing
        elif kind == LEAVES_SELF:  # 603.6c
            n = int(self._left_battlefield(before, after, x))
        elif kind == BECOMES_TAPPED:  # 603.2f: only the change, not entering tapped
            n = int(self._became_tapped(before, after, x))
        elif kind == BECOMES_UNTAPPED:  # 603.2f: nor entering untapped
            n = int(stayed and was.tapped and not now.tapped)
        elif kind in (LAND_TAPPED, SPELL_CAST):
            n = len(self._event_objects(a, kind, before, after, view))
        elif kind == COMBAT_DAMAGE_TO_PLAYER:  # each creature, or with "one or more" each player it is dealt to
            dealt = [
                (c, p)
                for c in range(self.n_cards)
                if self._speaks_of(a, c, after)
                for p in after.cards[c].combat_damage_to
            ]
            # "One or more": one combat damage event to each player (Storm the Vault's ruling, 2018-01-19).
            per_player = self.ability_class(a)[0] == "printed" and self.said(a, "one_or_more")
            n = len({p for _, p in dealt}) if per_player else len(dealt)
        elif kind == YOUR_UPKEEP:  # 603.2b: "you" is the ability's controller
            mine = after.active == self._controller(a, view, after)
            n = int(self._began(before, after, UPKEEP) and mine and self._there_as_it_began(a, before))
        elif kind == END_STEP:  # 603.2b
            n = int(self._began(before, after, END) and self._there_as_it_began(a, before))
        elif kind == YOUR_COMBAT:  # 603.2b: "at the beginning of combat on your turn"
            mine = after.active == self._controller(a, view, after)
            n = int(self._began(before, after, BEGINNING_OF_COMBAT) and mine and self._there_as_it_began(a, before))
        elif kind == DEALT_DAMAGE:
            if now.damage:
                return int(not now.damage_prevented), 1  # 603.2h: prevented damage triggers nothing
        elif kind == DEALS_DAMAGE:
            n = int(now.deals_damage)
        elif kind == BECOMES_BLOCKED:  # 603.2f: the event of becoming blocked
            n = int(now.blocked)
        elif kind == ENCHANTED_TAPPED_FOR_MANA:  # "Whenever enchanted land is tapped for mana"
            n = int(now.attached_to is not None and after.cards[now.attached_to].tapped_for_mana)
        elif kind == CHAPTER:  # 714.2b: each chapter number the lore counters reach
            had = 0 if now.since == t else was.lore
            final = self.scenario.cards[x].final_chapter
            n = sum(had < number <= now.lore for number in range(1, final + 1))
        elif kind == REVEALS_LAND_THIS_WAY:  # linked to its own static ability, there as the card was drawn (607.2)
            you = self._controller(a, view, after)
            printed = self.ability_class(a)[0] == "printed"
            own_static = printed and self.has_ability(before, a) and was.zone == BATTLEFIELD
            shown = (
                card.revealed_first_draw and self.flag(y, "land_card") and self.scenario.cards[y].owner == you
                for y, card in enumerate(after.cards)
            )
            n = sum(shown) if own_static else 0
        elif kind == PLAYER_LOSES:  # 603.9: losing or leaving, not a draw
            n = sum(left and not draw for left, draw in zip(after.leaves_game, after.by_draw, strict=True))
        elif kind == COUNTERED_SELF:  # 603.10e
            n = int(after.countered_now and before.stack[-1].code == self.spell_code(x))
        elif kind == LOSE_CONTROL:  # 603.10d: "you" is who controlled it just before
            # Control is lost to another player, or with the permanent itself as it leaves the battlefield (Gustha's
            # Scepter's ruling, 2004-10-04).
            lost = (stayed and was.controller != now.controller) or self._left_battlefield(before, after, x)
            n = int(lost and self._controller(a, view, after) == was.controller)  # "you": the ability's controller
        elif kind == CONTROL_GAINED:  # 603.10d: from "you", the ability's controller just before; to any other player
            you = self._controller(a, view, after)
            n = sum(
                self._stayed(before, after, c)
                and not before.cards[c].phased_out
                and before.cards[c].controller == you
                and after.cards[c].controller != you
                for c in range(self.n_cards)
            )
        elif kind == PHASES_OUT:  # 603.10b
            n = int(not was.phased_out and now.phased_out)
        elif kind == UNATTACHED:  # 603.10c: no longer attached to what it was attached to
            n = int(was.attached_to is not None and (now.attached_to != was.attached_to or now.since == t))
        elif kind == ENCHANTED_LEAVES:  # 603.6c, 603.10a
            n = int(was.attached_to is not None and self._left_battlefield(before, after, was.attached_to))
        elif kind == ABILITY_TRIGGERS:  # another ability triggering (not one of this same kind)
            n = sum(tr.triggers for b, tr in enumerate(found) if b != a and self.ability_kind(b) != ABILITY_TRIGGERS)
        elif kind == NO_CARDS_IN_HAND:  # 603.8: a state, true right now
            n = int(self.hand_is_empty(view, self._controller(a, view, after)))
        return n, n

    def _one_event(self, a: int, occurrences: int) -> int:
        """Printed ability ``a``'s condition met ``occurrences`` times in one batch: "whenever one or more creatures
        die" asks for one trigger per event, and the batch is one event however many creatures it has (603.2c)."""
        if self.kind[a] == COMBAT_DAMAGE_TO_PLAYER:
            return occurrences  # one event per player dealt combat damage, counted so already
        return min(occurrences, 1) if self.said(a, "one_or_more") else occurrences

    def _reflexive_occurrences(self, r: int, before: Moment | None, after: Moment) -> int:
        """603.12: the creating ability's resolution, and only it: how often its instructed action was taken.  One
        that waits for its creator's Nth resolution this turn (603.7h: Gimli, Mournful Avenger) triggers once, in the
        resolution that counts as the Nth for the object."""
        resolving = after.resolving
        ability = self.scenario.reflexive[r]
        creator = ability.created_by
        if before is None or resolving is None or resolving.code != self.ability_code(creator):
            return 0
        if ability.on_resolution:
            nth = after.printed[creator].resolutions == ability.on_resolution
            return int(nth and self._counts_for_its_object(before, after, creator))
        return after.actions_by_effect

    def _entered_battlefield(self, after: Moment, c: int) -> bool:
        card = after.cards[c]
        return card.zone == BATTLEFIELD and card.since == after.t

    def _left_battlefield(self, before: Moment, after: Moment, c: int) -> bool:
        was, now = before.cards[c], after.cards[c]
        if was.zone != BATTLEFIELD:
            return False
        if was.phased_out and now.zone == OUTSIDE:
            return False  # 603.6c: only a phased-in permanent "leaves" when its owner leaves the game
        return now.zone != BATTLEFIELD or now.since == after.t

    def _dies(self, before: Moment, after: Moment, c: int) -> bool:
        return self._left_battlefield(before, after, c) and after.cards[c].zone == GRAVEYARD

    def _there_as_it_began(self, a: int, before: Moment | None) -> bool:
        """513.2: an "at the beginning of" ability triggers only if it was there as the step began, not if its
        permanent arrived in that batch (it waits for the next such step)."""
        return before is not None and self._exists(a, before, before, before)

    @staticmethod
    def _began(before: Moment, after: Moment, step: int) -> bool:
        return after.step == step and (after.step != before.step or after.turn != before.turn or after.extra_step)

    def _why_it_does_not_trigger(self, a: int, before: Moment | None, after: Moment, tr: Triggering) -> str:
        """The rule that stops an ability whose event happened from triggering, or ''."""
        cls, i = self.ability_class(a)
        # 603.2a: an effect that precludes activating abilities doesn't stop a triggered ability.
        if cls == "printed":
            c = self.card_of(i)
            if self._never_visible(c, before, after, tr.look_back):
                return "603.2g"
            if (
                self.said(i, "once_each_turn")
                and before is not None
                # The action counts from the moment it is taken: one taken by this batch's resolution
                # already stops its events (a creature the resolution puts onto the battlefield).
                and (before if tr.look_back else after).cards[c].controller in after.printed[i].done_by
                and before.turn == after.turn
            ):
                return "603.2i"
            if self.said(i, "triggers_once_each_turn") and before is not None:
                # "This ability triggers only once each turn", of this object (a new object has a new ability).
                obj = (before if tr.look_back else after).cards[c].since
                if before.printed[i].triggered == (after.turn, obj):
                    return "text.triggers_once_each_turn"
            if self.if_about_that(i):
                if not tr.objects:
                    return "603.4"  # its "if" is false of every object the event happened to
            elif self.said(i, "has_if") and not after.printed[i].cond:
                return "603.4"
        if cls == "delayed" and before is not None:
            if not before.delayed[i].registered:
                return "603.7a"  # created in this batch: its event counts as earlier than its creation
            if self.scenario.delayed[i].duration and after.turn != before.turn:
                return "603.7b"  # "this turn" is over
        if self.ability_kind(a) == NO_CARDS_IN_HAND and before is not None:
            if self._still_on_its_way(a, before, after):
                return "603.8"
        return ""

    def _never_visible(self, c: int, before: Moment | None, after: Moment, look_back: bool) -> bool:
        """603.2g: the object with the ability is at no time visible to all players."""
        if before is None:
            return not self.visible(after, c)
        same_object = after.cards[c].since != after.t
        seen_before, seen_after = self.visible(before, c), self.visible(after, c)
        if look_back:  # the object is the one that existed before the event
            return not (seen_before or (same_object and seen_after))
        return not (seen_after or (same_object and seen_before))

    def _still_on_its_way(self, a: int, before: Moment, after: Moment) -> bool:
        """603.8: an instance this object's state trigger made is waiting or on the stack, and didn't leave it now."""
        code = self.ability_code(a)
        cls, i = self.ability_class(a)
        # A card that changed zones is a new object (400.7): the instances of the old object's ability aren't its own.
        since = after.cards[self.card_of(i)].since if cls == "printed" else 0
        waiting = sum(w.ability == a and w.moment >= since for w in before.waiting)
        on_stack = [obj for obj in before.stack if obj.code == code and obj.moment >= since]
        top = before.stack[-1] if before.stack else None
        left_now = top is not None and top in on_stack and (after.countered_now or after.leave == RESOLVE)
        return waiting + len(on_stack) - int(left_now) >= 1

    @staticmethod
    def _subjects(tr: Triggering) -> list[int]:
        """The object each of the batch's instances carries (603.2c: one trigger per object; 113.2c's instances and
        603.2d's additional times repeat each object's): 0 for one that doesn't act on the object its event
        happened to."""
        if not tr.objects:
            return [0] * tr.triggers
        each = max(1, tr.triggers // len(tr.objects))
        carried = [c for c in tr.objects for _ in range(each)][: tr.triggers]
        return carried + [tr.objects[0]] * (tr.triggers - len(carried))

    def _counts_additional(self, a: int, after: Moment) -> bool:
        """Does "an artifact or creature entering makes an ability of a permanent you control trigger an additional
        time" refer to this ability?  Only where such an effect applies to it, and only to abilities a permanent
        has (603.2e), triggered by an artifact or creature entering."""
        cls, i = self.ability_class(a)
        c = self.card_of(i) if cls == "printed" else 0
        if cls != "printed" or after.cards[c].zone != BATTLEFIELD or not self._additional_times(a, after):
            return False
        # Panharmonicon: "If an artifact or creature entering the battlefield causes a triggered ability ..."
        entering_self = after.cards[c].eff_creature or self.flag(c, "artifact_card")
        return self.kind[a] == CREATURE_ENTERS or (self.kind[a] == ENTERS_SELF and entering_self)

    def _additional_times(self, a: int, after: Moment) -> int:
        you = after.cards[self.subject(a)].controller
        return sum(
            self.flag(x, "doubler")
            and card.zone == BATTLEFIELD
            and not card.phased_out
            and after.printed[x].eff_ability  # (the card's abilities, as its first triggered ability has them)
            and card.controller == you
            for x, card in enumerate(after.cards)
        )

    # 8.-9. putting triggered abilities on the stack ------------------------------------------------
    def _put_triggers_on_stack(self, before: Moment, after: Moment) -> None:
        waiting = list(before.waiting)
        for a, tr in enumerate(after.abilities):
            cls, i = self.ability_class(a)
            obj = self._object_looked_for(before, a)
            zone = after.cards[obj].zone if cls == "printed" else 0  # 603.6: where its object moved to
            earlier = [w for w in before.waiting if w.ability == a]
            if tr.triggers and not earlier:
                after.last_triggered[a] = (after.t, tr.controller, zone, obj)
            if tr.triggers and earlier and not after.priority:
                since = after.cards[self.card_of(i)].since if cls == "printed" else 0
                first = min(w.moment for w in earlier)
                unlike = any(w.controller != tr.controller or w.zone != zone or w.object != obj for w in earlier)
                if unlike or since > first:
                    raise BeyondModelBounds(
                        f"ability {a} triggers again while instances of it from an earlier batch still wait for "
                        "priority, under another controller or from another object or zone: the model keeps the "
                        "waiting instances of one ability alike"
                    )
            if cls == "printed" and self.said(i, "mana_ability"):
                continue  # 605.4a: a triggered mana ability resolves at once, without the stack
            them = tr.counted if cls == "printed" and self.acts_on_them(i) else ()
            waiting += [WaitingAbility(a, tr.controller, after.t, zone, obj, c, them) for c in self._subjects(tr)]
        if not after.priority:
            after.waiting = waiting  # 603.3: they wait for the next time a player would receive priority
            self._check_counts(after)
            return
        # 603.3b: first the abilities that don't trigger on abilities triggering, then those; each part in
        # APNAP order, so the active player's go on the stack first and end up lowest.
        for w in sorted(waiting, key=lambda w: (self._part(w.ability), self._apnap_rank(after, w.controller))):
            if not self._still_in_game(after, w.controller):
                after.abilities[w.ability].dropped += 1  # 800.4d: it isn't put on the stack
                continue
            if self._no_legal_choice(w.ability, after):
                after.abilities[w.ability].removed += 1  # 603.3c-d: simply removed from the stack
                continue
            after.stack.append(
                StackObject(
                    self.ability_code(w.ability),
                    w.controller,
                    w.moment,
                    w.zone,
                    w.object,
                    w.subject,
                    after.t,
                    w.objects,
                )
            )
            after.abilities[w.ability].placed += 1
        self._check_counts(after)

    @staticmethod
    def _still_in_game(m: Moment, player: int) -> bool:
        """A triggered ability this player would control can go on the stack (800.4d)."""
        return m.in_game[player]

    def _object_looked_for(self, before: Moment, a: int) -> int:
        """The card whose zone change a printed ability triggering now looks for (603.6): its own; for an Aura's
        "when enchanted permanent leaves", the permanent it was attached to before the event (603.6e)."""
        cls, i = self.ability_class(a)
        if cls != "printed":
            return 0
        c = self.card_of(i)
        host = before.cards[c].attached_to if before is not None else None
        return host if self.kind[i] == ENCHANTED_LEAVES and host is not None else c

    def _part(self, a: int) -> int:
        return 2 if self.ability_kind(a) == ABILITY_TRIGGERS else 1

    def _apnap_rank(self, m: Moment, player: int) -> int:
        """0 for the active player, then the others in turn order (101.4)."""
        return (player - m.active) % self.n_players

    def _no_legal_choice(self, a: int, after: Moment) -> bool:
        needs_choice = self.targets(a) or (self.ability_class(a)[0] == "printed" and self.said(a, "modal"))
        return needs_choice and after.abilities[a].no_legal_choice

    def targets(self, a: int) -> bool:
        """Ability ``a`` (by ability number) targets: a printed one as its text says, a delayed or reflexive one."""
        cls, i = self.ability_class(a)
        if cls == "printed":
            return self.said(i, "targeted")
        return (self.scenario.delayed if cls == "delayed" else self.scenario.reflexive)[i].targeted

    def _check_counts(self, after: Moment) -> None:
        if len(after.stack) > min(self.scenario.slots, MAX_STACK):
            raise BeyondModelBounds(
                f"the stack would hold {len(after.stack)} objects; it has {self.scenario.slots} slots"
            )
        for a, tr in enumerate(after.abilities):
            if max(tr.placed, tr.removed, sum(w.ability == a for w in after.waiting)) > MAX_COUNT:
                raise BeyondModelBounds(f"more than {MAX_COUNT} instances of ability {a} in one placement")

    # --- the trace ----------------------------------------------------------------------------------
    def constants(self) -> dict[str, object]:
        s = self.scenario
        out: dict[str, object] = {
            "owner": [card.owner for card in s.cards],
            "kind": list(self.kind),
            **{
                flag: [card.has(flag) for card in s.cards] for flag in game.CARD_FLAGS if flag not in game.ABILITY_FLAGS
            },
            **{flag: [text.has(flag) for text in self.texts] for flag in game.ABILITY_FLAGS},
            "reflexive_from": [r.created_by for r in s.reflexive],
            "pay_any": [r.pay_any for r in s.reflexive],
            "r_targeted": [r.targeted for r in s.reflexive],
            "r_n": [r.on_resolution for r in s.reflexive],
            "d_kind": list(self.d_kind),
            "d_duration": [d.duration for d in s.delayed],
            "d_cause": list(self.d_cause),
            "d_source": [d.source for d in s.delayed],
            "d_refers": [[c in d.refers_to for c in range(self.n_cards)] for d in s.delayed],
            "d_nth": [d.nth for d in s.delayed],
            "d_n": [d.n for d in s.delayed],
            "d_other_effect": [d.other_effect for d in s.delayed],
            "d_targeted": [d.targeted for d in s.delayed],
            "d_moves_to": [game.DESTINATIONS.index(d.moves_to or "none") for d in s.delayed],
            "moves_to": [game.DESTINATIONS.index(text.moves_to or "none") for text in self.texts],
            "final_chapter": [card.final_chapter for card in s.cards],
            "token": [card.token for card in s.cards],
            "legend_name": [card.legend_name for card in s.cards],
            **{f: list(codes) for f, codes in self.subject_filters.items()},
            # The cards' text, as the trace states it: what the engine's matcher makes of it is another thing.
            "subject_subtype": [[has_named_subtype(text, card) for card in s.cards] for text in self.texts],
        }
        return out

    def variables(self, m: Moment) -> dict[str, object]:
        """Every per-moment trace variable of moment ``m``, as codes."""
        none = self.n_cards
        cards, abilities = m.cards, m.abilities
        slots = [m.stack[s] if s < len(m.stack) else StackObject(0, 0) for s in range(self.scenario.slots)]
        return {
            "turn": m.turn,
            "active": m.active,
            "step": m.step,
            "priority": m.priority,
            "zone": [c.zone for c in cards],
            "since": [c.since for c in cards],
            "controller": [c.controller for c in cards],
            "tapped": [c.tapped for c in cards],
            "revealed": [c.revealed for c in cards],
            "phased_out": [c.phased_out for c in cards],
            "attached_to": [none if c.attached_to is None else c.attached_to for c in cards],
            "prohibited": [c.prohibited for c in cards],
            "cond": [p.cond for p in m.printed],
            "cond_that": [[c not in p.cond_false_for for c in range(self.n_cards)] for p in m.printed],
            "lands_are_creatures": m.effects["lands_are_creatures"],
            "creatures_lose_abilities": m.effects["creatures_lose_abilities"],
            "grant_ability": m.effects["grant_ability"],
            "eff_creature": [c.eff_creature for c in cards],
            "eff_ability": [p.eff_ability for p in m.printed],
            "damage": [c.damage for c in cards],
            "damage_prevented": [c.damage_prevented for c in cards],
            "deals_damage": [c.deals_damage for c in cards],
            "combat_damage_to": [[p in c.combat_damage_to for p in range(self.n_players)] for c in cards],
            "blocked": [c.blocked for c in cards],
            "was_blocked": [c.was_blocked for c in cards],
            "instances": [p.instances for p in m.printed],
            "tapped_for_mana": [c.tapped_for_mana for c in cards],
            "revealed_first_draw": [c.revealed_first_draw for c in cards],
            "lore": [c.lore for c in cards],
            "dies_replaced": [c.dies_replaced for c in cards],
            "leaves_game": list(m.leaves_game),
            "by_draw": list(m.by_draw),
            "leave": m.leave,
            "may_use": m.may_use,
            "actions_by_effect": m.actions_by_effect,
            "actions_other": m.actions_other,
            "replacement_applied": [d.replacement_applied for d in m.delayed],
            "action_taken": [d.action_taken for d in m.delayed],
            "no_legal_choice": [tr.no_legal_choice for tr in abilities],
            "look_back": [tr.look_back for tr in abilities],
            "matches": [tr.matches for tr in abilities],
            "attempts": [tr.attempts for tr in abilities],
            "base_triggers": [tr.base_triggers for tr in abilities],
            "triggers": [tr.triggers for tr in abilities],
            "trigger_controller": [tr.controller for tr in abilities],
            "pending": [sum(w.ability == a for w in m.waiting) for a in range(self.n_abilities)],
            "waiting_since": [m.last_triggered.get(a, (0, 0, 0, 0))[0] for a in range(self.n_abilities)],
            "waiting_controller": [m.last_triggered.get(a, (0, 0, 0, 0))[1] for a in range(self.n_abilities)],
            "waiting_zone": [m.last_triggered.get(a, (0, 0, 0, 0))[2] for a in range(self.n_abilities)],
            "waiting_object": [m.last_triggered.get(a, (0, 0, 0, 0))[3] for a in range(self.n_abilities)],
            "triggered_by": [
                [bool(abilities) and c in abilities[a].counted for c in range(self.n_cards)]
                for a in range(self.n_printed)
            ],
            "placed": [tr.placed for tr in abilities],
            "removed": [tr.removed for tr in abilities],
            "skipped": [0] * self.n_abilities,  # 603.5: optional abilities go on the stack regardless
            "dropped": [tr.dropped for tr in abilities],
            "prohibition_applies": [False] * self.n_abilities,  # 603.2a
            "counts_additional": [tr.counts_additional for tr in abilities],
            "is_leaves_ability": [k in LEAVES_THE_BATTLEFIELD_KINDS for k in self.kind],  # 603.6c
            "registered": [d.registered for d in m.delayed],
            "d_controller": [d.controller for d in m.delayed],
            "d_stamp": [[d.objects.get(c, (0, LIBRARY))[0] for c in range(self.n_cards)] for d in m.delayed],
            "d_zone": [[d.objects.get(c, (0, LIBRARY))[1] for c in range(self.n_cards)] for d in m.delayed],
            "resolutions": [p.resolutions for p in m.printed],
            "once_triggered_object": [p.triggered[1] + 1 if p.triggered[0] == m.turn else 0 for p in m.printed],
            "done_this_turn": [[x in p.done_by for x in range(self.n_players)] for p in m.printed],
            "stack_size": len(m.stack),
            "slot_src": [obj.code for obj in slots],
            "slot_controller": [obj.controller for obj in slots],
            "slot_moment": [obj.moment for obj in slots],
            "slot_zone": [obj.zone for obj in slots],
            "slot_object": [obj.object for obj in slots],
            "slot_subject": [obj.subject for obj in slots],
            "extra_turn": m.extra_turn,
            "extra_step": m.extra_step,
            "lethal": [c.lethal for c in cards],
            "no_life": list(m.no_life),
            "left_game": [not x for x in m.in_game],
            "countered_now": m.countered_now,
            "removed_now": m.removed_now,
            "ceased": m.ceased,
            "unfinished": m.unfinished,
            "targets_illegal": m.targets_illegal,
            "instruction_works": m.instruction_works,
            "acts": m.acts,
            "affects": [c in m.affects for c in range(self.n_cards)],
        }

    def trace(self) -> Trace:
        universe = game.universe(**self.scenario.universe_sizes())
        states = tuple(self.variables(m) for m in self.moments)
        missing = {spec.name for spec in game.VARIABLES if spec.per_moment} ^ set(states[0])
        assert not missing, f"the engine doesn't compute {sorted(missing)}"
        cells, kept, zones = self._left_to_the_rules()
        meta = {"engine": "reference"}
        if cells:
            meta |= {LEFT_TO_THE_RULES: cells, OBJECT_LEFT_TO_THE_RULES: kept, ZONE_KEPT_BY_THE_SCRIPT: zones}
        return Trace("current", universe, self.constants(), states, meta)

    def _left_to_the_rules(self) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
        """``[moment, card]`` where the card's zone and object are the rules' to say, not the script's: between the
        script's events that name it or move it, where a resolving effect moved it as its text says (608.2) -- had
        that effect not found it (400.7), or resolved at another moment, it would be elsewhere then.  Then those of
        them just before an event of the script that names the card, which says where it is (its zone is the
        script's); and after such a stretch, until the card next moves, the moments where only its object is the
        rules' (it stays put, but it became that object at a moment the rules said)."""
        cells: list[list[int]] = []
        kept: list[list[int]] = []
        zones: list[list[int]] = []
        for c in sorted({c for m in self.moments for c in m.looked_for}):
            stretches, window = [], []
            for s, here in enumerate(self.moments):
                prev = self.moments[s - 1] if s else here
                moved = (here.cards[c].zone, here.cards[c].since) != (prev.cards[c].zone, prev.cards[c].since)
                if s == 0 or c in here.named or (moved and c not in here.moved_by_effect):
                    stretches.append((window, s))
                    window = []
                    continue
                window.append(s)
            stretches.append((window, len(self.moments)))
            opened = [(w, closing) for w, closing in stretches if self._left_open(c, w, closing)]
            starts = [w[0] for w, _ in opened]
            for w, closing in opened:
                cells += [[t, c] for t in w]
                if closing < len(self.moments):
                    zones.append([w[-1], c])
                    limit = min([x for x in starts if x > closing], default=len(self.moments))
                    kept += [[t, c] for t in self._stays_put(c, closing) if t < limit]
        return sorted(cells), sorted(kept), sorted(zones)

    def _left_open(self, c: int, window: list[int], closing: int) -> bool:
        """The stretch ``window`` of card ``c``'s moments, ended at ``closing``, has a resolution of an effect that
        says where it moves the card in it (found or not: another order may find it), is ended by an event of the
        script that names it (not by a move the script's game made of it: a spell resolving), and has no player
        leaving and no state-based actions after a resolution in it: their batches are the script's game's, which
        another order of resolutions would not have (``_left_to_the_rules``)."""
        if not any(c in self.moments[t].looked_for for t in window):
            return False
        if closing < len(self.moments) and c not in self.moments[closing].named:
            return False
        if any(any(self.moments[t].leaves_game) for t in [*window, closing] if t < len(self.moments)):
            return False  # 800.4a moves what a leaving player owns or controls: not an effect's move
        resolved = [t for t in window if self.moments[t].resolving is not None]
        after = range(resolved[0], min(closing + 1, len(self.moments))) if resolved else range(0)
        return not any(self.moments[t].state_based for t in after)

    def _stays_put(self, c: int, closing: int) -> list[int]:
        """From ``closing``, where the script names card ``c`` without moving it, the moments until it next moves."""
        out = []
        for t in range(closing, len(self.moments)):
            here, prev = self.moments[t], self.moments[t - 1]
            if (here.cards[c].zone, here.cards[c].since) != (prev.cards[c].zone, prev.cards[c].since):
                break
            out.append(t)
        return out


def run(scenario: Scenario) -> Trace:
    """Play ``scenario`` by rule 603 and return its trace; a bad scenario raises InvalidArgument naming the action."""
    played = ReferenceGame(scenario)
    for action in scenario.actions:
        played.apply(action)
    return played.trace()


# --- command line: sample traces for `rule603 check` ------------------------------------------------


def sample_traces(count: int, max_actions: int = 19) -> list[Trace]:
    """``count`` traces of generated scenarios (the same ones on every run: Hypothesis, derandomized)."""
    from .strategies import each_scenario

    out: list[Trace] = []
    each_scenario(count, lambda scenario: out.append(run(scenario)), max_actions=max_actions)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m rule603.engines.reference --count N --output FILE.jsonl``: reference traces as JSON Lines."""
    import argparse
    import json
    import sys
    from pathlib import Path

    from rule603 import trace_to_json

    parser = argparse.ArgumentParser(prog="python -m rule603.engines.reference", description=main.__doc__)
    parser.add_argument("--count", type=int, default=100, help="how many traces (default 100)")
    parser.add_argument("--output", required=True, metavar="FILE", help="JSON Lines file to write")
    parser.add_argument("--overwrite", action="store_true", help="replace FILE if it exists")
    args = parser.parse_args(argv)
    if args.count < 1:
        print(f"{parser.prog}: error: --count {args.count}: must be positive", file=sys.stderr)
        return 2
    path = Path(args.output)
    if path.exists() and not args.overwrite:
        print(f"{parser.prog}: error: --output {path}: already exists; add --overwrite to replace it", file=sys.stderr)
        return 2
    traces = sample_traces(args.count)
    write_atomically(path, "".join(json.dumps(trace_to_json(t)) + "\n" for t in traces))
    print(f"wrote {len(traces)} traces to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
