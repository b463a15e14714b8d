"""Hypothesis strategies for scenarios: random cards, abilities and legal action scripts.

``scenarios()`` draws the cards (every trigger condition of ``game.KINDS``, every flag of
``game.CARD_FLAGS``), delayed abilities (every cause, with and without a duration),
reflexive abilities, starting continuous effects, and then a script, one action at a
time: it draws what kind of thing happens next, then fits it to the game as it stands
(cast only a card in a hand, resolve only when the stack holds something, begin a step
only when the stack is empty, ...).  The game as it stands is the reference engine's
own state, played as the script grows; an action the engine still refuses (or that would
overflow the model's bounds) is left out, so every generated script plays through.

Shrinking works as usual: fewer cards, fewer actions, plainer ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st
from rule603 import InvalidArgument
from rule603.models import game
from rule603.models.game import (
    BATTLEFIELD,
    BEGINNING_OF_COMBAT,
    COMBAT_DAMAGE,
    COMMAND,
    DECLARE_BLOCKERS,
    END,
    EXILE,
    GRAVEYARD,
    HAND,
    LIBRARY,
    MAIN,
    OUTSIDE,
    STACK,
    UNTAP,
    UPKEEP,
)

from .reference import ReferenceGame
from .scenario import (
    DESTINATIONS,
    EFFECTS,
    PERMANENT_TYPES,
    START_ZONES,
    Action,
    Card,
    DelayedAbility,
    PrintedAbility,
    ReflexiveAbility,
    Scenario,
    why_it_moves_nothing,
)

#: What happens next, drawn first and then fitted to the game, with its weight.
ACTION_WEIGHTS = {
    "provoke": 16,  # an action aimed at some ability's trigger condition, or at creating a delayed ability
    "resolve": 4,  # (now and then the top is countered instead)
    "step": 3,
    "next_turn": 2,
    "cast": 2,
    "put_onto_battlefield": 2,
    "create": 2,  # tokens created (111.1)
    "legend": 2,  # a second legendary permanent with a name its controller has (704.5j)
    **dict.fromkeys(
        (
            "pass",
            "counter",
            "play_land",
            "destroy",
            "board_wipe",
            "sacrifice",
            "exile",
            "bounce",
            "flicker",
            "discard",
            "draw",
            "mill",
            "dies_replaced",
            "damage",
            "tap",
            "untap",
            "gain_control",
            "phase_out",
            "phase_in",
            "attach",
            "unattach",
            "lose",
            "draw_game",
            "effect",
            "prohibit",
            "condition",
            "reveal",
            "create_delayed",
            "deals_damage",
            "block",
            "instances",
            "tap_for_mana",
            "combat_damage",
        ),
        1,
    ),
}
ACTION_KINDS = tuple(kind for kind, weight in ACTION_WEIGHTS.items() for _ in range(weight))
PLAYERS = st.integers(2, 3)  # how many players, by default (one-player games: pass players=1)
CARDS = st.integers(1, 4)  # how many cards, by default
#: One card in how many has the flag (6 when not listed): creatures are common, granted abilities rare.
FLAG_ODDS = {"creature_card": 2, "granted": 12}
#: The flags drawn on their own; "one or more" is drawn with the subject filters, for the conditions that take it.
#: An instant or sorcery card is one that is not a permanent card (304.4, 307.4): drawn with ``permanent``.
#: An intervening "if" about each object (``if_about_that``) comes with an intervening "if" (``has_if``).
DRAWN_FLAGS = tuple(f for f in game.CARD_FLAGS if f not in ("one_or_more", "instant_card", "sorcery_card"))
#: Flags about the object each event happened to: a scenario built around one has conditions that meet several
#: objects at once (a board wipe), so that each instance carries its own.
ABOUT_THAT = ("acts_on_that", "if_about_that")
#: Trigger conditions and starting zones, the interesting ones first (Hypothesis favours the first).
#: Trigger conditions the generators leave out for now (none: every condition of the model is drawn).
NOT_DRAWN_YET: tuple[str, ...] = ()
#: Subject filters the generators leave out for now, by condition (none: "when you cast this spell" is drawn too).
FILTERS_NOT_DRAWN_YET: dict[str, dict[str, tuple[str, ...]]] = {}
#: Subtypes drawn onto generated cards (205.3): two creature types and two land types, so that a condition naming one
#: meets objects with it and without it.
SUBTYPES = {"creature": ("Elf", "Goblin"), "land": ("Island", "Forest")}
#: The conditions about lands, whose subtype filter names a land type; the others name a creature type.
LAND_CONDITIONS = ("land_to_graveyard", "land_tapped")
KINDS_FIRST = tuple(k for k in game.KINDS[1:] + game.KINDS[:1] if k not in NOT_DRAWN_YET)
#: Trigger conditions one batch can meet several times over (a board wipe, several creatures entering).
MANY_AT_ONCE = ("creature_dies", "creature_enters", "graveyard_from_anywhere", "land_to_graveyard")
#: The other conditions whose "it" may be the object each event happened to (``ABOUT_THAT``): events that don't move
#: their object.  Drawn only where asked (``scenarios(about_that=...)``): the default stream, which the mutation
#: study's figures come from, stays as it was.
ABOUT_EACH_OBJECT = (*MANY_AT_ONCE, "land_tapped", "spell_cast", "combat_damage_to_player")
ZONES_FIRST = ("battlefield", "hand", "battlefield", "hand", *START_ZONES)
STEPS_AFTER_UNTAP = tuple(s for s in game.STEPS if s != "untap")


def _one_in(draw, n: int) -> bool:
    """True about one time in ``n``; shrinks to False."""
    return draw(st.integers(0, n - 1)) == n // 2


def _n(draw, value: int | st.SearchStrategy[int]) -> int:
    return draw(value) if isinstance(value, st.SearchStrategy) else value


@st.composite
def card_texts(draw, players: int, focus: str | None = None, focus_flag: str | None = None) -> Card:
    """One card: any trigger condition, any flags, any owner and starting zone.

    ``focus`` and ``focus_flag``, when given, are the trigger condition and flag a scenario
    is built around: each card has them half of the time, so that abilities meet (several
    players' "dies" abilities in one board wipe, a doubler next to an enters ability, ...).
    """
    flags = [flag for flag in DRAWN_FLAGS if _one_in(draw, FLAG_ODDS.get(flag, 6))]
    if focus_flag is not None and focus_flag not in flags and draw(st.booleans()):
        flags.append(focus_flag)
    if "if_about_that" in flags and "has_if" not in flags:
        flags.append("has_if")
    token = _one_in(draw, 6)  # a token (111.1): on the battlefield, or outside the game until created
    zone = draw(st.sampled_from(("battlefield", "outside") if token else ZONES_FIRST))
    on_battlefield = zone == "battlefield"
    trigger = draw(st.sampled_from(KINDS_FIRST))
    if focus is not None and draw(st.booleans()):
        trigger = focus
    if trigger == "combat_damage_to_player" and "creature_card" not in flags and draw(st.booleans()):
        flags.append("creature_card")  # (its own creature, often: "whenever this creature deals combat damage")
    creature_or_land = "creature_card" in flags or "land_card" in flags
    permanent_card = any(f in flags for f in PERMANENT_TYPES)
    if "mana_ability" in flags:  # 605.1b: only a trigger on tapping for mana, with no target, is a mana ability
        if trigger != "enchanted_tapped_for_mana":
            flags.remove("mana_ability")
        else:
            flags = [f for f in flags if f not in ("targeted", "modal", "once_each_turn", "triggers_once_each_turn")]
    subject, one_or_more = _subject_filters(draw, trigger)
    flags += ["one_or_more"] * one_or_more
    kind_of_card = "creature" if "creature_card" in flags else "land" if "land_card" in flags else None
    printed = tuple(x for x in SUBTYPES.get(kind_of_card, ()) if _one_in(draw, 2))
    named: tuple[str, ...] = ()
    if subject.get("subject_relation", "any") != "this" and game.KINDS.index(trigger) in game.FILTERED_KINDS:
        if _one_in(draw, 3):  # "another Elf", "an Island"
            named = (draw(st.sampled_from(SUBTYPES["land" if trigger in LAND_CONDITIONS else "creature"])),)
    permanent = token or creature_or_land or draw(st.booleans()) or permanent_card or on_battlefield
    if not permanent:
        flags.append("instant_card" if draw(st.booleans()) else "sorcery_card")
    card = Card(
        owner=draw(st.integers(0, players - 1)),
        trigger=trigger,
        flags=tuple(f for f in game.CARD_FLAGS if f in flags),
        zone=zone,
        controller=draw(st.integers(0, players - 1)) if on_battlefield and draw(st.booleans()) else None,
        tapped=on_battlefield and draw(st.booleans()),
        permanent=permanent,
        condition=not _one_in(draw, 4),
        revealed=zone in ("hand", "library") and _one_in(draw, 4),
        # 113.2c: now and then a second instance of the ability (a state trigger is followed as one).
        instances=2
        if on_battlefield
        and trigger != "no_cards_in_hand"
        and not {"once_each_turn", "triggers_once_each_turn"} & set(flags)
        and _one_in(draw, 6)
        else 1,
        final_chapter=draw(st.integers(1, game.MAX_CHAPTER)) if trigger == "chapter" else 0,
        lore=int(trigger == "chapter" and on_battlefield),
        token=token,
        # Now and then legendary, with one of two names: two of a name meet often (704.5j).
        legend_name=draw(st.integers(1, 2)) if _one_in(draw, 4) else 0,
        subtypes=printed,
        subject_subtypes=named,
        **subject,
    )
    # Now and then a second printed triggered ability (Elas il-Kor's "enters" and "dies"), drawn as the first is.
    return replace(card, more=(draw(second_abilities(focus)),)) if _one_in(draw, 5) else card


#: Flags a generated second ability may have (a mana ability, a granted one and one that works from a hand are
#: drawn on first abilities only).
SECOND_ABILITY_FLAGS = (
    "has_if",
    "optional",
    "modal",
    "targeted",
    "once_each_turn",
    "uncounterable",
    "other_effect",
    "acts_on_this",
    "acts_on_that",
)


@st.composite
def second_abilities(draw, focus: str | None = None) -> PrintedAbility:
    """A card's second printed triggered ability: any condition but a Saga's chapters, its filters and flags."""
    trigger = draw(st.sampled_from(tuple(k for k in KINDS_FIRST if k != "chapter")))
    if focus is not None and focus != "chapter" and draw(st.booleans()):
        trigger = focus
    flags = [flag for flag in SECOND_ABILITY_FLAGS if _one_in(draw, 6)]
    subject, one_or_more = _subject_filters(draw, trigger)
    named: tuple[str, ...] = ()
    if subject.get("subject_relation", "any") != "this" and game.KINDS.index(trigger) in game.FILTERED_KINDS:
        if _one_in(draw, 3):
            named = (draw(st.sampled_from(SUBTYPES["land" if trigger in LAND_CONDITIONS else "creature"])),)
    return PrintedAbility(
        trigger,
        tuple(f for f in game.ABILITY_FLAGS if f in flags or (f == "one_or_more" and one_or_more)),
        condition=not _one_in(draw, 4),
        subject_subtypes=named,
        **subject,
    )


def _subject_filters(draw, trigger: str) -> tuple[dict[str, str], bool]:
    """For a condition about any object of a kind, half of the time something that narrows it down ("another",
    "you control", "token", ...), each part drawn apart ("any" first, so that it shrinks to none); and now and then
    "one or more" (not of "this" one object)."""
    kind = game.KINDS.index(trigger)
    if kind not in game.FILTERED_KINDS:
        return {}, False
    filters = {}
    if draw(st.booleans()):
        left_out = FILTERS_NOT_DRAWN_YET.get(trigger, {})
        filters = {
            f: draw(st.sampled_from([x for x in v if game.takes_filter(kind, f, x) and x not in left_out.get(f, ())]))
            for f, v in game.SUBJECT_VALUES.items()
        }
    return filters, filters.get("subject_relation") != "this" and _one_in(draw, 3)


@st.composite
def delayed_abilities(draw, n_cards: int, focus: str | None = None) -> DelayedAbility:
    """A delayed triggered ability: any trigger condition (or the scenario's focus), cause, duration."""
    cause = draw(st.sampled_from(game.CAUSES))
    # Half of them have a condition several simultaneous events can meet: 603.7b is about exactly those.
    trigger = draw(st.sampled_from(MANY_AT_ONCE if draw(st.booleans()) else KINDS_FIRST))
    if focus is not None and draw(st.booleans()):
        trigger = focus
    source = draw(st.integers(0, n_cards - 1))
    if game.KINDS.index(trigger) in game.NAMES_AN_OBJECT:  # "this": the one object it refers to
        refers_to: tuple[int, ...] = (source if draw(st.booleans()) else draw(st.integers(0, n_cards - 1)),)
    else:  # 603.7c: no object ("draw a card"), one, or several ("return the exiled cards")
        refers_to = tuple(sorted(draw(st.sets(st.integers(0, n_cards - 1), max_size=n_cards))))
    return DelayedAbility(
        trigger=trigger,
        cause=cause,
        source=source,
        refers_to=refers_to,
        # Without a duration, two times in three where several events can meet the condition at once (603.7b).
        duration=_one_in(draw, 3) if trigger in MANY_AT_ONCE else draw(st.booleans()),
        nth=cause == "ability" and _one_in(draw, 3),
        # Now and then "... then draw a card" besides what it does to its objects (603.7c).
        other_effect=bool(refers_to) and _one_in(draw, 3),
        targeted=_one_in(draw, 4),  # "target land deals 3 damage to that creature" (603.3d, 608.2b)
    )


@st.composite
def reflexive_abilities(draw, n_cards: int) -> ReflexiveAbility:
    return ReflexiveAbility(
        created_by=draw(st.integers(0, n_cards - 1)), pay_any=draw(st.booleans()), targeted=_one_in(draw, 4)
    )


def _attachments(draw, chosen: list[Card]) -> list[Card]:
    """Some permanents start attached to other permanents; an Aura always does (or starts in the graveyard:
    attached to nothing, a state-based action would put it there before the game begins, 704.5m)."""
    on_bf = [c for c, card in enumerate(chosen) if card.zone == "battlefield"]
    out = list(chosen)
    for c in on_bf:
        others = [x for x in on_bf if x != c]
        aura = "aura" in out[c].flags
        if others and (aura or _one_in(draw, 4)):
            out[c] = replace(out[c], attached_to=draw(st.sampled_from(others)))
        elif aura:
            gone = "outside" if out[c].token else "graveyard"  # (a token would cease to exist, 704.5d)
            out[c] = replace(out[c], zone=gone, controller=None, tapped=False, instances=1, lore=0)
    gone = {c for c in on_bf if out[c].zone != "battlefield"}
    return [replace(card, attached_to=None) if card.attached_to in gone else card for card in out]


def _one_legend_each(chosen: list[Card]) -> list[Card]:
    """No player starts with two legendary permanents of one name (the legend rule would apply before the game
    begins, 704.5j): of each such set the first keeps its name, the others are not legendary."""
    seen: set[tuple[int, int]] = set()
    out = []
    for card in chosen:
        controller = card.owner if card.controller is None else card.controller
        key = (controller, card.legend_name)
        if card.zone == "battlefield" and card.legend_name:
            if key in seen:
                card = replace(card, legend_name=0)
            seen.add(key)
        out.append(card)
    return out


def _set_aside(card, zone: str):
    """``card`` as it starts in ``zone`` off the battlefield (a token: outside the game, where it never starts)."""
    return replace(
        card,
        zone="outside" if card.token else zone,
        controller=None,
        tapped=False,
        attached_to=None,
        instances=1,
        lore=0,
    )


def _detached(cards: list, gone: set[int]) -> list:
    return [replace(card, attached_to=None) if card.attached_to in gone else card for card in cards]


def _starting_game(scenario: Scenario) -> tuple[Scenario, ReferenceGame]:
    """The game at moment 0.  A state trigger must not trigger before the game begins: if one would, the
    state-trigger cards where they would function start in the library instead."""
    try:
        return scenario, ReferenceGame(scenario)
    except InvalidArgument:
        fixed = [
            _set_aside(card, "library")
            if any(x.trigger == "no_cards_in_hand" for x in (card, *card.more)) and card.zone in ("battlefield", "hand")
            else card
            for card in scenario.cards
        ]
        fixed = _detached(fixed, {c for c, card in enumerate(fixed) if card.zone in ("library", "outside")})
        # An Aura attached to nothing would go to the graveyard before the game begins (704.5m): it starts there
        # (a token: it doesn't start at all); what was attached to it is then attached to nothing, and so on.
        while True:
            fixed = [
                _set_aside(card, "graveyard")
                if "aura" in card.flags and card.zone == "battlefield" and card.attached_to is None
                else card
                for card in fixed
            ]
            gone = {c for c, card in enumerate(fixed) if card.zone != "battlefield"}
            if not any(card.attached_to in gone for card in fixed):
                break
            fixed = _detached(fixed, gone)
        scenario = replace(scenario, cards=tuple(fixed))
        return scenario, ReferenceGame(scenario)


@st.composite
def scenarios(
    draw,
    players: int | st.SearchStrategy[int] = PLAYERS,
    cards: int | st.SearchStrategy[int] = CARDS,
    max_actions: int = 12,
    slots: int = 5,
    about_that: tuple[str, ...] = MANY_AT_ONCE,
    moves: bool = False,
) -> Scenario:
    """A scenario with a script the reference engine plays through (``players``, ``cards``: how many; ``about_that``:
    the conditions a scenario about the object each event happened to is built around; ``moves``: abilities that act
    on objects may say where they move them, ``moves_to``)."""
    n_players = _n(draw, players)
    n_cards = _n(draw, cards)
    focus = draw(st.sampled_from(KINDS_FIRST[:-1]))
    focus_flag = draw(st.sampled_from(DRAWN_FLAGS))
    if moves and draw(st.booleans()):  # an ability that acts on its source, or on the object its event happened to
        focus_flag = draw(st.sampled_from(("acts_on_this", "acts_on_that")))
    if focus_flag in ABOUT_THAT and focus not in about_that:
        focus = draw(st.sampled_from(about_that))
    chosen = _attachments(draw, [draw(card_texts(n_players, focus, focus_flag)) for _ in range(n_cards)])
    if n_cards >= 2 and _one_in(draw, 4):  # two of one legendary name, one owner's: the legend rule's game
        a, b = sorted(draw(st.lists(st.integers(0, n_cards - 1), min_size=2, max_size=2, unique=True)))
        name = chosen[a].legend_name or 1
        chosen[a] = replace(chosen[a], legend_name=name)
        chosen[b] = replace(chosen[b], legend_name=name, owner=chosen[a].owner, controller=None)
    delayed = draw(st.lists(delayed_abilities(n_cards, focus), max_size=2))
    for ability in delayed:  # a spell that creates a delayed ability is best found in a hand, to be cast
        if ability.nth and ability.cause == "ability":  # one instance keeps count of its resolutions (603.7h)
            chosen[ability.source] = replace(chosen[ability.source], instances=1)
        watched = ability.refers_to[0] if ability.refers_to else ability.source
        if ability.trigger == "leaves_self" and watched != ability.source and _one_in(draw, 2):
            # "When that creature leaves the battlefield, return that card": one on the battlefield, so that it can
            # leave after the ability exists, and be looked for where it went (603.6, 603.7c)
            # (an instant or sorcery card is never there: 304.4)
            if chosen[watched].zone != "battlefield" and not chosen[watched].token and chosen[watched].permanent:
                chosen[watched] = replace(chosen[watched], zone="battlefield", revealed=False)
        source = chosen[ability.source]
        if (
            ability.cause in ("replacement", "action")
            and source.zone != "battlefield"
            and draw(st.booleans())
            and source.permanent
        ):
            # ... and a static ability that does, on the battlefield, where it works (of a permanent card, 304.4)
            chosen[ability.source] = replace(source, zone="battlefield", revealed=False)
            continue
        if ability.cause == "spell" and source.zone != "hand" and not source.has("land_card") and draw(st.booleans()):
            chosen[ability.source] = replace(  # (a card: a token is never a spell)
                source, zone="hand", controller=None, tapped=False, attached_to=None, instances=1, lore=0, token=False
            )
            chosen = _detached(chosen, {ability.source})
    if moves:  # drawn only where asked, so that the default stream stays the mutation study's
        chosen = [
            replace(card, moves_to=_destination(draw, not why_it_moves_nothing(card.ability(0)))) for card in chosen
        ]
        delayed = [replace(d, moves_to=_destination(draw, bool(d.refers_to))) for d in delayed]
    setup = Scenario(
        cards=tuple(_one_legend_each(chosen)),
        players=n_players,
        delayed=tuple(delayed),
        reflexive=tuple(draw(st.lists(reflexive_abilities(n_cards), max_size=1))),
        slots=slots,
        step=draw(st.sampled_from(STEPS_AFTER_UNTAP)),
        effects=tuple(e for e in EFFECTS if _one_in(draw, 8 if e == "creatures_lose_abilities" else 5)),
        prohibited=tuple(c for c in range(n_cards) if _one_in(draw, 6)),
    )
    setup, played = _starting_game(setup)
    script: list[Action] = []
    for _ in range(3 * max_actions):  # an action the engine refuses is left out (and counts as a try)
        if len(script) >= max_actions or played.game_over:
            break
        if len(script) >= 2 and _one_in(draw, 10):
            break  # scripts end at random (and shrink towards shorter ones)
        action = _next_action(draw, played)
        try:
            played.apply(action)
        except InvalidArgument:
            continue  # the engine refuses it (or the model can't hold it): leave it out
        script.append(action)
    return replace(setup, actions=tuple(script))


def _destination(draw, acts: bool) -> str:
    """Where an ability that acts on objects moves them (``moves_to``), or "" for a move the script writes."""
    return draw(st.sampled_from(("", *DESTINATIONS))) if acts else ""


def each_scenario(max_examples: int, visit: Callable[[Scenario], bool | None], **options: Any) -> int:
    """Call ``visit`` on generated scenarios until it returns True or ``max_examples`` are drawn.

    The scenarios are the same, in the same order, on every run (derandomized, no example
    database, generation only).  ``options`` go to :func:`scenarios`.  Returns how many
    scenarios ``visit`` saw.
    """
    from hypothesis import HealthCheck, Phase, given, settings

    visited, stopped = [0], [False]

    class _Stop(Exception):
        pass

    @settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(scenarios(**options))
    def play(scenario: Scenario) -> None:
        if stopped[0]:
            raise _Stop  # Hypothesis replays the example that stopped it: visit it only once
        visited[0] += 1
        if visit(scenario):
            stopped[0] = True
            raise _Stop

    try:
        play()
    except _Stop:
        pass
    return visited[0]


# ---------------------------------------------------------------------------------------
# Fitting an action to the game as it stands.
# ---------------------------------------------------------------------------------------


def _some(draw, items: list[int], at_most: int = 3) -> tuple[int, ...]:
    """A non-empty selection of ``items`` (in order), or () if there are none."""
    if not items:
        return ()
    picked = draw(st.lists(st.sampled_from(items), min_size=1, max_size=at_most, unique=True))
    return tuple(sorted(picked))


def _next_action(draw, played: ReferenceGame) -> Action:
    m = played.now
    if m.step == UNTAP:  # the untap step lasts one batch: a step begins
        return Action(step=draw(st.sampled_from(("upkeep", "upkeep", "draw", "precombat_main", "end"))))
    if m.unfinished:
        return _next_instruction(draw, played)
    idle = not m.stack and not m.waiting
    top_is_delayed = m.stack and played.n_printed < m.stack[-1].code <= played.n_printed + played.n_delayed
    top_carries = m.stack and m.stack[-1].code <= played.n_printed and _carries(played, m.stack[-1].code - 1)
    if (top_is_delayed or top_carries) and m.priority and _one_in(draw, 3):
        return _meddle(draw, played)  # 603.7c: move the object it will look for
    action = Action()
    for _ in range(3):  # a kind that fits nothing here (say, tap with no permanent) gives way to another
        kind = draw(st.sampled_from(ACTION_KINDS))
        if kind in ("resolve", "counter") and not (m.stack and m.priority):
            continue
        if kind in ("step", "next_turn") and not idle:
            kind = "resolve" if m.priority else "pass"
        if kind == "step" and m.step == game.STEPS.index("cleanup"):
            kind = "next_turn"
        if kind in ("lose", "draw_game") and not _one_in(draw, 3):
            continue  # the game ends: not too often
        action = _fit(draw, played, kind)
        if action != Action() or kind == "pass":
            break
    # Circumstances that ride along with anything: no legal target now, or no priority afterwards.
    printed_modal = [a for a in range(played.n_printed) if played.said(a, "modal")]
    choosy = sorted({*printed_modal, *[a for a in range(played.n_abilities) if played.targets(a)]})
    if choosy and not action.next_turn and _one_in(draw, 10):
        action = replace(action, no_legal_choice=_some(draw, choosy))
    quiet = not (action.cast is not None or action.next_turn or action.gain_control)
    if quiet and m.priority and _one_in(draw, 8):
        action = replace(action, priority=False)
    return action


def _fit(draw, played: ReferenceGame, kind: str) -> Action:  # one branch per kind of event
    m = played.now
    zone_of = [card.zone for card in m.cards]

    def in_zone(*zones: int) -> list[int]:
        return [c for c, z in enumerate(zone_of) if z in zones and not m.cards[c].phased_out]

    permanents = in_zone(BATTLEFIELD)
    creatures = [c for c in permanents if m.cards[c].eff_creature]
    players_in = [p for p in range(played.n_players) if m.in_game[p]]

    if kind == "resolve":
        return Action(counter=True) if _one_in(draw, 8) else _resolution(draw, played)
    if kind == "provoke":
        return _provoke(draw, played)
    if kind == "counter":
        return Action(counter=True)
    if kind == "cast":
        castable = [c for c in in_zone(HAND) if not played.flag(c, "land_card")]
        return Action(cast=draw(st.sampled_from(castable))) if castable and m.priority else Action()
    if kind == "play_land":
        lands = [c for c in in_zone(HAND) if played.flag(c, "land_card") and played.scenario.cards[c].owner == m.active]
        if lands and m.step == MAIN and not m.stack and m.priority:
            return Action(play_land=draw(st.sampled_from(lands)))
        return Action(
            put_onto_battlefield=_some(draw, _permanent_cards(played, in_zone(HAND, GRAVEYARD, EXILE, COMMAND)), 1)
        )
    if kind in ("destroy", "sacrifice", "bounce", "flicker"):
        return Action(**{kind: _some(draw, permanents, 2)})
    if kind == "board_wipe":
        return Action(destroy=tuple(creatures) or tuple(permanents))
    if kind == "exile":
        return Action(exile=_some(draw, in_zone(BATTLEFIELD, HAND, LIBRARY, GRAVEYARD, COMMAND), 2))
    if kind == "put_onto_battlefield":
        arriving = _permanent_cards(played, in_zone(HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND))
        return Action(put_onto_battlefield=_some(draw, arriving, 2))
    if kind == "create":
        return Action(create=_some(draw, _creatable(played), 2))
    if kind == "legend":
        return _second_legend(draw, played)
    if kind == "discard":
        return Action(discard=_some(draw, in_zone(HAND), 2))
    if kind == "draw":
        return Action(draw=_some(draw, in_zone(LIBRARY), 2))
    if kind == "mill":
        return Action(mill=_some(draw, in_zone(LIBRARY), 2))
    if kind == "dies_replaced":
        replaced = _some(draw, creatures, 2)
        rest = tuple(c for c in creatures if c not in replaced and draw(st.booleans()))
        return Action(dies_replaced=replaced, destroy=rest)
    if kind == "damage":
        hit = _some(draw, creatures, 3)
        prevented = tuple(c for c in hit if draw(st.booleans()))
        # Some of the damage not prevented is lethal: the creature dies in the state-based actions (704.5g).
        lethal = tuple(c for c in hit if c not in prevented and _one_in(draw, 2))
        return Action(damage=hit, prevent_damage=prevented, lethal=lethal)
    if kind == "deals_damage":
        return Action(deals_damage=_some(draw, permanents, 2))
    if kind == "combat_damage":
        return _combat_damage(draw, played, creatures)
    if kind == "block":
        if m.stack or m.waiting or m.step >= DECLARE_BLOCKERS:
            return Action()
        return Action(step="declare_blockers", block=_some(draw, creatures, 2))  # as blockers are declared (509.1h)
    if kind == "instances":
        many = [
            a
            for a in range(played.n_printed)
            if played.card_of(a) in permanents
            and played.kind[a] not in (game.NONE, game.NO_CARDS_IN_HAND)
            and not played.remembers_resolutions(a)
            and not played.said(a, "triggers_once_each_turn")  # one instance, which remembers its triggering
        ]
        return Action(instances=((draw(st.sampled_from(many)), draw(st.integers(1, 3))),)) if many else Action()
    if kind == "tap":
        return Action(tap=_some(draw, [c for c in permanents if not m.cards[c].tapped], 2))
    if kind == "tap_for_mana":
        return Action(tap_for_mana=_some(draw, [c for c in permanents if not m.cards[c].tapped], 2))
    if kind == "untap":
        return Action(untap=_some(draw, [c for c in permanents if m.cards[c].tapped], 2))
    if kind == "gain_control":
        if not permanents or len(players_in) < 2 or not m.priority:
            return Action()
        c = draw(st.sampled_from(permanents))
        others = [p for p in players_in if p != m.cards[c].controller]
        return Action(gain_control=((c, draw(st.sampled_from(others))),))
    if kind == "phase_out":
        return Action(phase_out=_some(draw, permanents, 2))
    if kind == "phase_in":
        phased = [c for c, card in enumerate(m.cards) if card.zone == BATTLEFIELD and card.phased_out]
        return Action(phase_in=_some(draw, phased, 2))
    if kind == "attach":
        if len(permanents) < 2:
            return Action()
        c = draw(st.sampled_from(permanents))
        targets = [x for x in permanents if x != c and m.cards[c].attached_to != x]
        return Action(attach=((c, draw(st.sampled_from(targets))),)) if targets else Action()
    if kind == "unattach":
        return Action(unattach=_some(draw, [c for c in permanents if m.cards[c].attached_to is not None], 1))
    if kind == "lose":
        if _one_in(draw, 2):
            return Action(no_life=_some(draw, players_in, 1))  # 0 life: they lose as a state-based action (704.5a)
        return Action(lose=_some(draw, players_in, 1))
    if kind == "draw_game":
        return Action(draw_game=True)
    if kind == "step":
        if _one_in(draw, 8):  # an effect adds a phase or step: an additional combat, upkeep, main phase (500.8-9)
            return Action(
                step=draw(st.sampled_from(("beginning_of_combat", "upkeep", "postcombat_main"))), extra_step=True
            )
        later = [s for s in STEPS_AFTER_UNTAP if game.STEPS.index(s) > m.step]
        weights = [s for s in later if game.STEPS.index(s) in (UPKEEP, END)] * 2 + later
        return Action(step=draw(st.sampled_from(weights)))
    if kind == "next_turn":
        if _one_in(draw, 5):
            return Action(next_turn=True, extra_turn=m.active)  # an extra turn (500.7)
        return Action(next_turn=True)
    if kind == "effect":
        name = draw(st.sampled_from(EFFECTS))
        return Action(**{name: not m.effects[name]})
    if kind == "prohibit":
        c = draw(st.integers(0, played.n_cards - 1))
        return Action(allow=(c,)) if m.cards[c].prohibited else Action(prohibit=(c,))
    if kind == "condition":
        a = draw(st.integers(0, played.n_printed - 1))  # (a printed ability: a card's first has its number)
        if played.if_about_that(a) and draw(st.booleans()):  # 603.4: true of some objects, false of others
            c = draw(st.integers(0, played.n_cards - 1))
            if c in m.printed[a].cond_false_for:
                return Action(condition_true_for=((a, c),))
            return Action(condition_false_for=((a, c),))
        return Action(condition_false=(a,)) if m.printed[a].cond else Action(condition_true=(a,))
    if kind == "reveal":
        hidden = in_zone(HAND, LIBRARY)
        if not hidden:
            return Action()
        c = draw(st.sampled_from(hidden))
        return Action(conceal=(c,)) if m.cards[c].revealed else Action(reveal=(c,))
    if kind == "create_delayed":
        statics = [
            d
            for d, ability in enumerate(played.scenario.delayed)
            if ability.cause in ("replacement", "action")
            and ability.source in permanents
            and not m.delayed[d].registered
        ]
        return Action(create_delayed=_some(draw, statics, 1))
    return Action()


def _combat_damage(draw, played: ReferenceGame, creatures: list[int]) -> Action:
    """Some of the active player's ``creatures`` deal combat damage, each to another player, as a combat
    damage step begins with the stack empty (510.1-510.2); one already in that step stands for a second one
    (first strike, 510.4)."""
    m = played.now
    if m.stack or m.waiting or m.step > COMBAT_DAMAGE:
        return Action()
    attackers = [c for c in creatures if m.cards[c].controller == m.active]
    defenders = [p for p in range(played.n_players) if m.in_game[p] and p != m.active]
    if not attackers or not defenders:
        return Action()
    dealing = _some(draw, attackers, 3)
    hits = tuple((c, draw(st.sampled_from(defenders))) for c in dealing)
    return Action(step=None if m.step == COMBAT_DAMAGE else "combat_damage", combat_damage=hits)


def _creatable(played: ReferenceGame) -> list[int]:
    """Tokens not yet created (or gone), whose owner is still in the game: an effect can create them (111.1)."""
    m = played.now
    return [
        c
        for c, card in enumerate(m.cards)
        if played.is_token(c) and card.zone == OUTSIDE and m.in_game[played.scenario.cards[c].owner]
    ]


def _second_legend(draw, played: ReferenceGame) -> Action:
    """A legendary permanent arrives under, or comes under, the control of a player who has one of its name: the
    legend rule applies (704.5j), and its controller keeps the old one or, now and then, the new one."""
    m = played.now
    here = [c for c, card in enumerate(m.cards) if card.zone == BATTLEFIELD and not card.phased_out]
    names = {(m.cards[c].controller, played.scenario.cards[c].legend_name) for c in here}
    owner = [played.scenario.cards[c].owner for c in range(played.n_cards)]
    name = [played.scenario.cards[c].legend_name for c in range(played.n_cards)]
    arriving = [c for c in _creatable(played) if name[c] and (owner[c], name[c]) in names]
    action = Action(create=(draw(st.sampled_from(arriving)),)) if arriving else Action()
    if not arriving:
        off = [c for c, card in enumerate(m.cards) if card.zone in (HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND)]
        arriving = [c for c in off if name[c] and (owner[c], name[c]) in names]
        action = Action(put_onto_battlefield=(draw(st.sampled_from(arriving)),)) if arriving else Action()
    if not arriving and m.priority:  # a player gains control of another's legend of a name they have (Act of Treason)
        stolen = [
            (c, p)
            for c in here
            for p in range(played.n_players)
            if name[c] and p != m.cards[c].controller
            if m.in_game[p] and (p, name[c]) in names
        ]
        if stolen:
            pair = draw(st.sampled_from(stolen))
            action, arriving = Action(gain_control=(pair,)), [pair[0]]
    if arriving and _one_in(draw, 2):
        newcomer = action.create or action.put_onto_battlefield or (action.gain_control[0][0],)
        action = replace(action, keep=newcomer)
    return action


def _resolution(draw, played: ReferenceGame) -> Action:
    """The top of the stack resolves: with the choices and side events its effect may bring."""
    m = played.now
    top = m.stack[-1]
    spell = played.spell_card(top.code)
    extra: dict[str, object] = {}
    # (The delayed abilities its text creates, it creates as it resolves: the engine derives them, 603.7a.)
    if spell is None and top.code - 1 < played.n_printed:
        a = top.code - 1
        if played.said(a, "optional") and _one_in(draw, 3):
            extra["decline"] = True
    if spell is None and played.targets(top.code - 1) and _one_in(draw, 3):
        extra["targets_illegal"] = True  # its target left or changed in response (608.2b): any triggered ability
    if spell is None and top.code - 1 < played.n_printed:
        extra["actions_by_effect"] = draw(st.integers(0, 3))
        extra["actions_other"] = draw(st.integers(0, 1))
    # Its effect may also move or hurt permanents (e.g. a spell that destroys all creatures).
    permanents = [c for c, card in enumerate(m.cards) if card.zone == BATTLEFIELD and not card.phased_out]
    effect = draw(st.integers(0, 5))
    if effect == 0 and permanents:
        extra["destroy"] = _some(draw, permanents, 3)
    elif effect == 1 and permanents:
        extra["exile"] = _some(draw, permanents, 1)
    elif effect == 2:
        library = [c for c, card in enumerate(m.cards) if card.zone in (LIBRARY, GRAVEYARD)]
        extra["put_onto_battlefield"] = _some(draw, library, 2)
    elif effect == 3:
        extra["create"] = _some(draw, _creatable(played), 2)  # "create a 1/1 ... token" (111.1)
    # Its instructions may be followed in order, each a batch of its own (608.2c): the resolution goes on.
    if _one_in(draw, 6):
        extra["unfinished"] = True
    return Action(resolve=True, **extra)  # type: ignore[arg-type]


#: What a resolution's later instruction may do (608.2c): events, not what a player does with priority.
INSTRUCTION_KINDS = ("provoke", "destroy", "exile", "bounce", "flicker", "discard", "draw", "damage", "tap", "untap")


def _next_instruction(draw, played: ReferenceGame) -> Action:
    """The next events of an unfinished resolution; it may go on again, and may undo lethal damage (704.4)."""
    m = played.now
    action = _fit(draw, played, draw(st.sampled_from(INSTRUCTION_KINDS)))
    if action.step is not None or action.cast is not None or action.resolve or action.counter:
        action = Action()
    lethal = [c for c, card in enumerate(m.cards) if card.lethal and c not in action.lethal]
    if lethal and draw(st.booleans()):
        action = replace(action, no_longer_lethal=_some(draw, lethal, 2))
    return replace(action, unfinished=_one_in(draw, 3), priority=True)


def _permanent_cards(played: ReferenceGame, cards: list[int]) -> list[int]:
    return [c for c in cards if played.scenario.cards[c].permanent]


def _provoke(draw, played: ReferenceGame) -> Action:  # one branch per trigger condition
    """An action aimed at some ability's trigger condition (or at creating a delayed ability)."""
    m = played.now
    if m.stack and m.stack[-1].code <= played.n_printed + played.n_delayed and _one_in(draw, 3):
        return _meddle(draw, played)
    targets = [a for a in range(played.n_printed) if played.kind[a] != game.NONE]
    targets += [played.n_printed + d for d in range(played.n_delayed)]
    # A delayed ability that exists is rare and short-lived: aim at it more often while it lasts.
    targets += [played.n_printed + d for d in range(played.n_delayed) if m.delayed[d].registered] * 6
    if not targets:
        return Action()
    a = draw(st.sampled_from(targets))
    cls, i = played.ability_class(a)
    if cls == "delayed" and not m.delayed[i].registered:
        return _create(draw, played, i)
    kind, x = played.ability_kind(a), played.subject(a)
    card = m.cards[x]
    on_bf = card.zone == BATTLEFIELD and not card.phased_out
    idle = not m.stack and not m.waiting
    permanents = [c for c, cs in enumerate(m.cards) if cs.zone == BATTLEFIELD and not cs.phased_out]
    off_bf = [c for c, cs in enumerate(m.cards) if cs.zone in (HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND)]
    creature_cards = [c for c in off_bf if played.flag(c, "creature_card")]
    enterable = _permanent_cards(played, off_bf)  # (an instant or sorcery card stays where it is: 304.4)
    if kind == game.ENTERS_SELF:
        if played.is_token(x) and card.zone == OUTSIDE:
            return Action(create=(x,)) if x in _creatable(played) else Action()
        if on_bf:
            return Action(flicker=(x,))  # (a token doesn't come back, 111.8)
        if card.zone == HAND and not played.flag(x, "land_card") and m.priority:
            return Action(cast=x)
        return Action(put_onto_battlefield=(x,)) if x in enterable else Action()
    # Several events at once matter to a delayed ability (one trigger, 603.7b), to "do this only once each turn"
    # (each instance of the batch, but only the first to resolve takes the action, 603.2i) and to "one or more"
    # (one trigger for the batch, 603.2c).
    several = cls == "delayed" or (
        cls == "printed" and (played.said(a, "once_each_turn") or played.said(a, "one_or_more"))
    )
    if kind == game.CREATURE_ENTERS:
        tokens = [c for c in _creatable(played) if played.flag(c, "creature_card")]
        if tokens and _one_in(draw, 3):
            return Action(create=_some(draw, tokens, 2))  # creature tokens entering: "creature enters" (603.6a)
        if several and len(creature_cards) >= 2 and draw(st.booleans()):
            return Action(put_onto_battlefield=tuple(creature_cards[:3]))  # several enter at once (603.7b)
        return Action(put_onto_battlefield=_some(draw, creature_cards or enterable, 2))
    if kind in (game.CREATURE_DIES, game.GRAVEYARD_FROM_ANYWHERE):
        dying = [c for c in permanents if m.cards[c].eff_creature]
        if several and len(dying) >= 2 and draw(st.booleans()):
            return Action(destroy=tuple(dying))  # a board wipe: several events at once
        tokens = [c for c in _creatable(played) if played.flag(c, "creature_card")]
        if several and len(dying) < 2 and tokens and draw(st.booleans()):
            return Action(create=tuple(tokens[:2]))  # creature tokens for that board wipe
        if several and len(dying) < 2 and creature_cards and draw(st.booleans()):
            return Action(put_onto_battlefield=tuple(creature_cards[:2]))  # creatures for that board wipe
        if dying and _one_in(draw, 3):
            replaced = _some(draw, dying, 2)
            return Action(dies_replaced=replaced, destroy=tuple(c for c in dying if c not in replaced))
        if kind == game.GRAVEYARD_FROM_ANYWHERE and draw(st.booleans()):
            return Action(mill=_some(draw, [c for c in creature_cards if m.cards[c].zone == LIBRARY], 2))
        return Action(destroy=_some(draw, dying or permanents, 3))
    if kind == game.LEAVES_SELF and on_bf:
        verb = draw(st.sampled_from(("destroy", "exile", "bounce", "flicker", "sacrifice")))
        return Action(**{verb: (x,)})
    if kind == game.LAND_TO_GRAVEYARD:
        lands = [c for c in permanents if played.flag(c, "land_card")]
        if lands and _one_in(draw, 3):
            return Action(dies_replaced=_some(draw, lands, 1))
        return Action(destroy=_some(draw, lands or permanents, 3))  # several lands at once: 603.2c's example
    if kind in (game.BECOMES_TAPPED, game.BECOMES_UNTAPPED) and on_bf:
        return Action(untap=(x,)) if card.tapped else Action(tap=(x,))
    if kind in (game.YOUR_UPKEEP, game.END_STEP, game.YOUR_COMBAT) and idle:
        if kind == game.END_STEP and m.step < END:
            return Action(step="end")
        if kind == game.YOUR_COMBAT and m.step < BEGINNING_OF_COMBAT:
            return Action(step="beginning_of_combat")
        return Action(next_turn=True)
    if kind == game.ENCHANTED_TAPPED_FOR_MANA and on_bf:
        host = card.attached_to
        if host is None:
            hosts = [c for c in permanents if c != x]
            return Action(attach=((x, draw(st.sampled_from(hosts))),)) if hosts else Action()
        return Action(tap_for_mana=(host,)) if not m.cards[host].tapped else Action(untap=(host,))
    if kind == game.CHAPTER:
        if not on_bf:
            return Action(put_onto_battlefield=(x,)) if x in enterable else Action()
        if idle and m.step < MAIN:
            return Action(step="precombat_main")
        return Action(next_turn=True) if idle else Action()
    if kind == game.REVEALS_LAND_THIS_WAY and on_bf:
        mine = [c for c in off_bf if m.cards[c].zone == LIBRARY and played.scenario.cards[c].owner == card.controller]
        drawn = _some(draw, mine, 1)
        return Action(draw=drawn, reveal_first_draw=drawn if draw(st.booleans()) else ())
    if kind == game.DEALS_DAMAGE and on_bf:
        return Action(deals_damage=(x,))
    if kind == game.SPELL_CAST and m.priority:
        if cls == "printed" and not on_bf and x in enterable and draw(st.booleans()):
            return Action(put_onto_battlefield=(x,))  # where its ability works
        spells = [c for c in off_bf if m.cards[c].zone == HAND and not played.flag(c, "land_card")]
        # Half of the time a spell of a card type the condition doesn't name ("a noncreature spell": a creature one).
        unnamed = [c for c in spells if not played.card_type_matches(a, c)] if cls == "printed" else []
        chosen = unnamed if unnamed and draw(st.booleans()) else spells
        return Action(cast=draw(st.sampled_from(chosen))) if chosen else Action()
    if kind == game.COMBAT_DAMAGE_TO_PLAYER and idle:
        if cls == "printed" and not on_bf and x in enterable:
            return Action(put_onto_battlefield=(x,))  # where its ability works
        creatures = [c for c in permanents if m.cards[c].eff_creature]
        named = (lambda c: played.subtype_matches(a, c)) if cls == "printed" else (lambda c: True)
        spoken_of = [c for c in creatures if played._speaks_of(a, c, m) and named(c)]
        hit = _combat_damage(draw, played, spoken_of or creatures)
        if hit != Action():
            return hit
        if not creatures and creature_cards:
            return Action(put_onto_battlefield=_some(draw, creature_cards, 2))
        return Action(next_turn=True)  # past combat, or the active player has no creature: the next turn
    if kind == game.BECOMES_BLOCKED and on_bf and card.eff_creature:
        return Action(step="declare_blockers", block=(x,)) if idle and m.step < DECLARE_BLOCKERS else Action()
    if kind == game.DEALT_DAMAGE and on_bf and card.eff_creature:
        return Action(damage=(x,), prevent_damage=(x,) if _one_in(draw, 4) else ())
    if kind == game.PLAYER_LOSES:
        players_in = [p for p in range(played.n_players) if m.in_game[p]]
        return Action(lose=_some(draw, players_in, 1)) if len(players_in) > 2 or _one_in(draw, 3) else Action()
    if kind == game.COUNTERED_SELF:
        if m.stack and m.priority and m.stack[-1].code == played.spell_code(x):
            return Action(counter=True)
        return Action(cast=x) if card.zone == HAND and m.priority and not played.flag(x, "land_card") else Action()
    if kind == game.LOSE_CONTROL and on_bf and m.priority:
        others = [p for p in range(played.n_players) if m.in_game[p] and p != card.controller]
        return Action(gain_control=((x, draw(st.sampled_from(others))),)) if others else Action()
    if kind == game.CONTROL_GAINED and on_bf and m.priority:  # another player gains control of one of "yours"
        yours = [c for c in permanents if m.cards[c].controller == card.controller]
        others = [p for p in range(played.n_players) if m.in_game[p] and p != card.controller]
        if yours and others:
            return Action(gain_control=((draw(st.sampled_from(yours)), draw(st.sampled_from(others))),))
        return Action()
    if kind == game.PHASES_OUT and on_bf:
        return Action(phase_out=(x,))
    if kind in (game.UNATTACHED, game.ENCHANTED_LEAVES) and on_bf:
        attached = card.attached_to
        if attached is None:
            hosts = [c for c in permanents if c != x]
            return Action(attach=((x, draw(st.sampled_from(hosts))),)) if hosts else Action()
        if kind == game.ENCHANTED_LEAVES:
            return Action(destroy=(attached,))
        return Action(unattach=(x,)) if draw(st.booleans()) else Action(destroy=(attached,))
    if kind == game.NO_CARDS_IN_HAND:
        you = card.controller
        hand = [c for c, cs in enumerate(m.cards) if cs.zone == HAND and played.scenario.cards[c].owner == you]
        return Action(discard=tuple(hand)) if hand else Action()
    if kind == game.ABILITY_TRIGGERS:
        return _fit(draw, played, draw(st.sampled_from(("destroy", "put_onto_battlefield", "flicker"))))
    return Action()


def _create(draw, played: ReferenceGame, d: int) -> Action:
    """Set up the creation of delayed ability ``d``: by a static ability now, or by casting its spell."""
    m = played.now
    ability = played.scenario.delayed[d]
    source = m.cards[ability.source]
    if ability.cause in ("replacement", "action"):
        if source.zone == BATTLEFIELD and not source.phased_out:
            return Action(create_delayed=(d,))
        if source.zone == OUTSIDE:
            return Action(create=(ability.source,)) if ability.source in _creatable(played) else Action()
        return Action(put_onto_battlefield=(ability.source,)) if source.zone != STACK else Action()
    if ability.cause == "spell" and source.zone == HAND and m.priority and not played.flag(ability.source, "land_card"):
        return Action(cast=ability.source)
    return Action()


def _carries(played: ReferenceGame, a: int) -> bool:
    """Printed ability ``a``'s instances carry the object their event happened to (400.7, 603.4)."""
    return played.acts_on_that(a) or played.if_about_that(a)


def _meddle(draw, played: ReferenceGame) -> Action:
    """Move the object the ability on top of the stack will look for (603.6, 603.6e, 603.7c) or that its event
    happened to (400.7), or make its intervening 'if' false (603.4), of that object if it speaks of it."""
    m = played.now
    top = m.stack[-1]
    a = top.code - 1
    cls, i = played.ability_class(a)
    if cls == "printed" and played.if_about_that(i) and draw(st.booleans()):
        return Action(condition_false_for=((i, top.subject),))  # 603.4: no longer true of that object
    if cls == "printed" and played.said(i, "has_if") and m.printed[i].cond and draw(st.booleans()):
        return Action(condition_false=(i,))  # 603.4: the condition no longer holds as it resolves
    if cls == "printed" and played.acts_on_that(i) and draw(st.booleans()):
        x = top.subject  # 400.7: the object the event happened to moves on
    elif cls == "delayed":  # 603.7c: one of the objects it refers to, each judged on its own
        refers = played.scenario.delayed[i].refers_to
        if not refers:
            return Action()
        x = draw(st.sampled_from(refers))
    elif played.kind[i] == game.ENCHANTED_LEAVES:  # 603.6e: the enchanted permanent's card, or the Aura card
        x = m.stack[-1].object if draw(st.booleans()) else played.card_of(i)
    else:
        x = played.card_of(i)
    zone = m.cards[x].zone
    if zone == BATTLEFIELD and not m.cards[x].phased_out:
        verb = draw(st.sampled_from(("destroy", "exile", "bounce", "flicker")))
        return Action(**{verb: (x,)})
    if zone in (HAND, LIBRARY, GRAVEYARD, EXILE, COMMAND):
        return Action(put_onto_battlefield=(x,)) if draw(st.booleans()) else Action(exile=(x,) if zone != EXILE else ())
    return Action()
