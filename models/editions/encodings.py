"""Edition-specific encodings: clauses of older editions whose meaning differs from the current rule.

Each function is one clause of one older edition, written from that edition's text (its
number and ``text_hash`` are those of the edition it was written for; an edition that
shares it, such as the French translation, records its own hash in its decision file).
Which edition uses which encoding is data: ``encodings-<edition>.toml`` next to this file.

Like the current encodings, these use the game model's vocabulary (models/game.py) and
name general clauses by their *current* number ("603.2", "608.2"): ``overrides`` keys and
``exempt`` calls are translated to the edition's own numbers when the edition is built
(``Edition.local``), so the 2004 rules' 410.2 is what "603.2" means there.

Where an older clause says the same as a current one together with others (2004's 410.2 is
current 603.2, 603.2b, 603.3 and 603.3a in one paragraph) the encoding is the union of what
those say, taken from the current encodings by number; only what differs is written here.
What a trigger condition matches, what is resolving and what a delayed ability finds are the game
model's, not an edition's: those pieces come from models/triggers.py, shared with the current
encodings, so that what the model can express (several instances of an ability, say) is the same in
every edition.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from rule603 import ClauseEncoding, Rule, clause

from .. import game as m
from ..game import (
    ABILITY_CAUSE,
    LEAVES_KINDS,
    LOSE_CONTROL,
    PHASES_OUT,
    REPLACEMENT_CAUSE,
    SPELL_CAUSE,
    UNATTACHED,
)
from ..triggers import (
    delayed_abilities,
    delayed_object_found,
    delayed_object_gone,
    just_created,
    leaves_from_anywhere,
    leaves_matches,
    resolving_ability_of,
    resolving_spell,
    top_before,
)

R = Rule


@cache
def _current() -> dict[str, ClauseEncoding]:
    from ..current import edition

    return edition().by_number


def _as_current(g, t: int, number: str) -> Iterator[Rule]:
    """The rules of the current encoding of ``number``: for an older clause that says the same in other words."""
    yield from _current()[number].fn(g, t)


# --- triggering and going on the stack -----------------------------------------------


def _put_on_stack(g, t: int, *, removable) -> Iterator[Rule]:
    """Triggered instances go on the stack when a player would receive priority, and only then."""
    for a in m.abilities(g):
        yield R(g.priority(t), g.pending(t, a) == 0, f"ability {a}", witness=g.And(g.priority(t), g.placed(t, a) >= 1))
        yield R(
            g.Not(g.priority(t)),
            g.And(g.placed(t, a) == 0, g.removed(t, a) == 0, g.skipped(t, a) == 0),
            f"ability {a}",
            witness=g.And(g.Not(g.priority(t)), g.pending(t, a) >= 1),
        )
        yield R(g.removed(t, a) >= 1, removable(g, t, a), f"ability {a}")


def _no_legal_choice(g, t, a):
    return g.And(g.no_legal_choice(t, a), m.needs_choice(g, a))


@clause(
    "410.2",
    "a matching event triggers the ability ('at the beginning of' too); it goes on the stack at the next "
    "priority, controlled by its source's controller",
    text_hash="c8dd30b7d15b",
)
def triggering_2004(g, t: int) -> Iterator[Rule]:
    # One paragraph of 2004 that the 2009 rules split into 603.2, 603.2b, 603.3 and 603.3a.
    yield from _as_current(g, t, "603.2")
    yield from _as_current(g, t, "603.2b")
    # "automatically puts the ability on the stack": the one way off it that rule 410 names is 410.4's.
    yield from _put_on_stack(g, t, removable=_no_legal_choice)
    yield from _as_current(g, t, "603.3a")


@clause(
    "404.2",
    "a triggered ability triggers each time its trigger event occurs and goes on the stack the next time a "
    "player would receive priority",
    text_hash="c2f91dc92791",
)
def triggering_2008(g, t: int) -> Iterator[Rule]:
    yield from _as_current(g, t, "603.2")
    # "each time its trigger event occurs": once for each occurrence and never without one, what 2004's
    # 410.6 and today's 603.2c say apart.
    yield from _as_current(g, t, "603.2c")
    # "its trigger event" is what its trigger condition names (404.1): for "at the beginning of", the
    # step beginning, as 2004's 410.2 said in the same paragraph and 603.2b says today.
    yield from _as_current(g, t, "603.2b")
    # "it goes on the stack": rule 404 names no way for an ability to be removed or left off instead.
    yield from _put_on_stack(g, t, removable=lambda g, t, a: False)
    for a in m.abilities(g):
        yield R(True, g.skipped(t, a) == 0, f"ability {a}")


# --- the intervening 'if' -----------------------------------------------------------------


def _if_false_resolving(g, t, *_object):
    if t == 0:
        return False
    return g.Or(
        *[g.And(m.resolving_ability(g, t, a), g.has_if(a), g.Not(g.cond(t - 1, a))) for c, a in m.printed_abilities(g)]
    )


def _if_false_at_trigger(g, t, a):
    cls, _ = m.ability_class(g, a)
    return g.And(g.has_if(a), g.Not(g.cond(t, a))) if cls == "printed" else False


@clause(
    "404.3",
    "intervening 'if': checked as the event occurs and on resolution; if false then, the ability does nothing",
    text_hash="a78eed68e306",
    overrides={"603.2": _if_false_at_trigger, "608.2": _if_false_resolving},
)
def intervening_if_does_nothing(g, t: int) -> Iterator[Rule]:
    # "the ability does nothing" (2008's 404.3; 2004's 410.8 in other words): it still resolves, doing
    # nothing, where the 2009 rule removes it from the stack (603.4) -- so it counts as a resolution.
    for _, a in m.printed_abilities(g):
        false_now = _if_false_at_trigger(g, t, a)
        yield R(
            false_now, g.base_triggers(t, a) == 0, m.printed_about(g, a), witness=g.And(false_now, g.matches(t, a) >= 1)
        )
    yield R(_if_false_resolving(g, t), g.Not(g.acts(t)), "resolving ability")


# --- order on the stack ----------------------------------------------------------------


def _new_abilities(g, t, s1, s2):
    n_abilities = g.size("ability")
    return g.And(
        m.new_slot(g, t, s1),
        m.new_slot(g, t, s2),
        g.slot_src(t, s1) <= n_abilities,
        g.slot_src(t, s2) <= n_abilities,
    )


def _ordered_pairs(g):
    return [(s1, s2) for s1 in m.slots(g) for s2 in m.slots(g) if s1 < s2]


@clause(
    "603.3b",
    "abilities go on the stack in APNAP order, each player's in any order (one part)",
    text_hash="0b96de1975c9",
    scope="one round of placement; the state-based-action loop is the game model's",
)
def apnap_one_part(g, t: int) -> Iterator[Rule]:
    # No second part: an ability that triggers on another ability triggering is placed with
    # its controller's others, not after everyone's.
    for s1, s2 in _ordered_pairs(g):
        both = _new_abilities(g, t, s1, s2)
        r1, r2 = m.apnap_rank(g, t, g.slot_controller(t, s1)), m.apnap_rank(g, t, g.slot_controller(t, s2))
        yield R(
            both,
            r1 <= r2,
            f"slots {s1}<{s2}",
            witness=g.And(both, g.slot_controller(t, s1) != g.slot_controller(t, s2)),
        )


@clause(
    "410.3",
    "the active player's triggered abilities go on the stack first, then the opponent's",
    text_hash="c7c4b42c9a51",
    scope="one round of placement; the state-based-effect loop is the game model's",
)
def active_player_first(g, t: int) -> Iterator[Rule]:
    # Written for two players: the active player's go first (lowest), the rest after; with
    # three or more players the rule does not order the non-active players among themselves.
    for s1, s2 in _ordered_pairs(g):
        both = _new_abilities(g, t, s1, s2)
        second_is_active = g.slot_controller(t, s2) == g.active(t)
        yield R(
            g.And(both, second_is_active),
            g.slot_controller(t, s1) == g.active(t),
            f"slots {s1}<{s2}",
            witness=g.And(both, g.slot_controller(t, s1) != g.slot_controller(t, s2)),
        )


@clause(
    "410.4",
    "a triggered ability for which no legal choice can be made (modes, targets) is removed from the stack",
    text_hash="6cfe409c3d5d",
    scope="the choices modelled are a mode and targets",
)
def no_legal_choice_removed(g, t: int) -> Iterator[Rule]:
    # Choices "as for an activated ability" include the mode: one rule for what 603.3c and 603.3d split.
    for a in m.abilities(g):
        none = g.And(m.needs_choice(g, a), g.no_legal_choice(t, a), g.priority(t))
        about = m.printed_about(g, a) if m.ability_class(g, a)[0] == "printed" else f"ability {a}"
        yield R(none, g.placed(t, a) == 0, about, witness=g.And(none, g.removed(t, a) >= 1))


# --- leaving play and looking back ----------------------------------------------------------


@clause(
    "410.10c",
    "leaves-play abilities trigger when a permanent leaves play",
    text_hash="0b7b3d89b591",
    scope="'dies', 'a land is put into a graveyard from play', 'this leaves play', 'enchanted permanent leaves play'",
)
def leaves_play(g, t: int) -> Iterator[Rule]:
    # Unlike 603.6c, nothing says a "from anywhere" ability is not a leaves-play ability: whether
    # it is stays open (is_leaves_ability is left free).
    yield from leaves_matches(g, t)


def _look_back(g, t: int, kinds) -> Iterator[Rule]:
    """Abilities of ``kinds`` (and leaves abilities 'from anywhere') look back; every other one is judged after."""
    for a in m.abilities(g):
        back = g.Or(m.is_kind(g, a, kinds), leaves_from_anywhere(g, t, a))
        yield R(back, g.look_back(t, a), f"ability {a}", witness=g.And(back, g.matches(t, a) >= 1))
        yield R(g.Not(back), g.Not(g.look_back(t, a)), f"ability {a}")


@clause(
    "603.6d",
    "triggers are judged after the event, except leaves-the-battlefield, phasing-out, unattach and "
    "loss-of-control abilities, which look back",
    text_hash="6ebe09a63727",
    scope="hand-or-library and planeswalking abilities are not among the model's trigger conditions",
)
def look_back_battlefield(g, t: int) -> Iterator[Rule]:
    # The normal rule and its list of exceptions in one clause; a countered spell (603.10e) and a
    # player losing the game (603.10f) are not on the list, so they are judged after the event.
    yield from _look_back(g, t, (*LEAVES_KINDS, PHASES_OUT, UNATTACHED, LOSE_CONTROL))


@clause(
    "410.10d",
    "abilities that trigger on permanents leaving play or a player losing control look back in time",
    text_hash="49c9af9c88d2",
)
def look_back_2004(g, t: int) -> Iterator[Rule]:
    # "must be treated specially ... has to look back": the others are judged after the event.
    # Phasing out, becoming unattached, a countered spell and losing the game are not special here.
    yield from _look_back(g, t, (*LEAVES_KINDS, LOSE_CONTROL))


# --- delayed triggered abilities -----------------------------------------------------------


def _created_by(g, t, d, *, replacement: bool):
    """Delayed ability ``d`` comes from a resolving spell or ability (or, if allowed, a replacement effect)."""
    src = g.d_source(d)
    by_resolution = g.If(
        g.d_cause(d) == SPELL_CAUSE,
        resolving_spell(g, t, src),
        g.And(g.d_cause(d) == ABILITY_CAUSE, resolving_ability_of(g, t, src)),
    )
    if not replacement:
        return by_resolution
    by_replacement = g.And(
        g.d_cause(d) == REPLACEMENT_CAUSE,
        m.card_value(g, "zone", t, src) == m.BATTLEFIELD,
        g.replacement_applied(t, d),
    )
    return g.Or(by_resolution, by_replacement)


def _delayed_creation(g, t: int, *, replacement: bool) -> Iterator[Rule]:
    for d, a in delayed_abilities(g):
        yield R(m.delayed_created(g, t, d), _created_by(g, t, d, replacement=replacement), f"delayed {d}")
        fresh = just_created(g, t, a)
        yield R(
            fresh,
            g.base_triggers(t, a) == 0,
            f"delayed {d}",
            witness=g.And(m.delayed_created(g, t, d), g.matches(t, a) >= 1),
        )


@clause(
    "603.7a",
    "delayed abilities come from resolving spells or abilities or replacement effects, and don't trigger "
    "before they exist",
    text_hash="7ffa8b512e62",
    overrides={"603.2": just_created},
)
def delayed_creation_no_action(g, t: int) -> Iterator[Rule]:
    # No static ability that allows an action creates one (that came with 603.7g).
    yield from _delayed_creation(g, t, replacement=True)


@clause(
    "404.4a",
    "delayed abilities come from spells or abilities that create them on resolution, and don't trigger "
    "before they exist",
    text_hash="873a9030bb4d",
    overrides={"603.2": just_created},
)
def delayed_creation_on_resolution(g, t: int) -> Iterator[Rule]:
    # Neither replacement effects nor allowed actions create one.
    yield from _delayed_creation(g, t, replacement=False)


@clause(
    "404.4c",
    "a delayed ability still affects its object after the object changes characteristics",
    text_hash="b6c0add15dd7",
)
def delayed_despite_characteristics(g, t: int) -> Iterator[Rule]:
    # The model's delayed ability refers to cards in zones, never to their characteristics: where an object it
    # refers to is still that object, the ability affects it.
    if t == 0:
        return
    for d, a in delayed_abilities(g):
        for c in m.cards(g):
            found = g.And(m.resolving_ability(g, t, a), g.d_refers(d, c), delayed_object_found(g, t, d, c))
            yield R(found, g.affects(t, c), f"delayed {d}, card {c}")


@clause(
    "404.4d",
    "a delayed ability fails if its permanent leaves play, even if it returns; so does a one-shot effect "
    "for an object that left its zone",
    text_hash="68460a966076",
    overrides={"608.2": delayed_object_gone},
)
def delayed_object_left(g, t: int) -> Iterator[Rule]:
    # "Will fail" for that permanent: an ability that refers to several fails for each one that left (the rule
    # speaks of "a particular permanent"), and does nothing once all have (608.2 set aside: delayed_object_gone).
    if t == 0:
        return
    for d, a in delayed_abilities(g):
        for c in m.cards(g):
            lost = g.And(m.resolving_ability(g, t, a), g.d_refers(d, c), g.Not(delayed_object_found(g, t, d, c)))
            yield R(lost, g.Not(g.affects(t, c)), f"delayed {d}, card {c}")


@clause(
    "404.4e",
    "a delayed ability is controlled by the controller of the spell or ability that created it",
    text_hash="20e905128282",
)
def delayed_controller_creator(g, t: int) -> Iterator[Rule]:
    # One rule for 603.7d and 603.7e.  It is created as its creator resolves, so "the controller of
    # the spell or ability" is the controller of the resolving object; no reflexive triggers here.
    for d, a in delayed_abilities(g):
        mine = g.Or(g.d_cause(d) == SPELL_CAUSE, g.d_cause(d) == ABILITY_CAUSE)
        creator = top_before(g, t, "slot_controller") if t > 0 else 0
        yield R(g.And(m.delayed_created(g, t, d), mine), g.d_controller(t, d) == creator, f"delayed {d}")
        yield R(
            g.And(mine, g.base_triggers(t, a) >= 1), g.trigger_controller(t, a) == g.d_controller(t, d), f"delayed {d}"
        )
