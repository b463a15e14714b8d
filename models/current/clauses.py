"""Rule 603, current edition: one constraint family per clause.

Each function is one clause.  It yields :class:`Rule` instances ``(applies,
requires)`` for one moment ``t``; the engine guards every instance with the clause's
assumption literal.  Encodings say what their clause says and nothing more: where a
clause leaves a question open, the variable stays free.  Where a clause is a
specific exception to a general one, it declares ``overrides=`` and the general clause
steps aside there (see ``rule603 clauses --precedence``).
"""

from __future__ import annotations

from collections.abc import Iterator

from rule603 import Rule, clause, exempt

from .. import game as m
from ..axioms import additional_times, effective_characteristics, in_view, printed_characteristics
from ..game import (
    ABILITY_CAUSE,
    ABILITY_TRIGGERS,
    ACTION_CAUSE,
    BATTLEFIELD,
    BECOMES_BLOCKED,
    BECOMES_TAPPED,
    BECOMES_UNTAPPED,
    BEGINNING_KINDS,
    CONTROL_GAINED,
    COUNTERED_SELF,
    CREATURE_ENTERS,
    ENTERS_SELF,
    GRAVEYARD,
    GRAVEYARD_FROM_ANYWHERE,
    LAND_TAPPED,
    LEAVES_KINDS,
    LOSE_CONTROL,
    NO_CARDS_IN_HAND,
    PHASES_OUT,
    PLAYER_LOSES,
    REPLACEMENT_CAUSE,
    SPELL_CAUSE,
    UNATTACHED,
)
from ..triggers import (
    defines,
    delayed_abilities,
    delayed_object_found,
    delayed_object_gone,
    found_where_it_moved,
    hidden_from,
    just_created,
    leaves_from_anywhere,
    leaves_matches,
    reflexive_abilities,
    resolving_ability_of,
    resolving_spell,
    top_before,
)

R = Rule


# --- 603.1 -------------------------------------------------------------------------


@clause(
    "603.1a",
    "instructions after the effect (e.g. 'can't be countered') function while the ability is on the stack",
    text_hash="f7792b3a2d7d",
)
def instructions_on_stack(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for _, a in m.printed_abilities(g):
        top_is = g.And(
            m.stack_size(g, t - 1) >= 1, top_before(g, t, "slot_src") == m.ability_code(a), g.uncounterable(a)
        )
        yield R(top_is, g.instruction_works(t), m.printed_about(g, a), witness=g.And(top_is, g.leave(t) == m.COUNTER))


# --- 603.2 -------------------------------------------------------------------------


@clause(
    "603.2", "whenever an event or state matches a trigger condition, the ability triggers", text_hash="3408f842f683"
)
def triggers_on_match(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield R(
            g.And(g.matches(t, a) >= 1, g.Not(exempt(g, "603.2", t, a))), g.base_triggers(t, a) >= 1, f"ability {a}"
        )


def _prohibited_source(g, t, a):
    return m.card_value(g, "prohibited", t, m.source_card(g, a))


@clause("603.2a", "effects that preclude activating abilities don't stop triggered abilities", text_hash="d0bac4df339d")
def prohibitions_dont_apply(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        blocked = _prohibited_source(g, t, a)
        yield R(
            blocked, g.Not(g.prohibition_applies(t, a)), f"ability {a}", witness=g.And(blocked, g.matches(t, a) >= 1)
        )


def _beginning_of(step, yours):
    def count(g, t, a):
        def n(v):
            you = m.source_controller(g, v, a)
            mine = (g.active(t) == you) if yours else True
            # "When a phase or step begins": the ability must be there as it begins, not arrive in that batch
            # (513.2: a permanent entering during the end step waits for the next turn's).
            there = g.And(m.can_trigger(g, t, t - 1, a), m.can_trigger(g, t, v, a)) if t > 0 else False
            return g.If(g.And(m.begins(g, t), g.step(t) == step, mine, there), 1, 0)

        return n

    return count


@clause(
    "603.2b", "when a phase or step begins, 'at the beginning of' abilities for it trigger", text_hash="2433f27139f7"
)
def beginning_of_step(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        for kind, (step, yours) in BEGINNING_KINDS.items():
            yield defines(g, t, a, kind, _beginning_of(step, yours)(g, t, a))


@clause(
    "603.2c",
    "an ability triggers once per occurrence of its trigger event, so repeatedly for several",
    text_hash="bfe6e1ad6999",
)
def once_per_occurrence(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield R(True, g.base_triggers(t, a) <= g.attempts(t, a), f"ability {a}")
        yield R(
            g.And(g.base_triggers(t, a) >= 1, g.Not(exempt(g, "603.2c", t, a))),
            g.base_triggers(t, a) >= g.matches(t, a),
            f"ability {a}",
            witness=g.matches(t, a) >= 2,
        )


@clause(
    "603.2d",
    "an ability told to trigger additional times triggers that many times; the effect doesn't repeat itself",
    text_hash="d7af7dbf8c7e",
    scope="'triggers an additional time' effects are modelled as one kind: an artifact or creature entering"
    " (Panharmonicon)",
)
def additional_triggers(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        n = additional_times(g, t, a)
        yield R(
            g.counts_additional(t, a),
            g.triggers(t, a) == g.base_triggers(t, a) * (n + 1),
            f"ability {a}",
            witness=g.And(g.counts_additional(t, a), n >= 1, g.base_triggers(t, a) >= 1),
        )


@clause(
    "603.2e",
    "effects that refer to an object's triggered abilities don't refer to delayed triggered abilities",
    text_hash="c9c217d4495d",
)
def effects_skip_delayed(g, t: int) -> Iterator[Rule]:
    any_doubler = g.Or(*[g.And(g.doubler(x), m.on_battlefield(g, t, x)) for x in m.cards(g)])
    for _, a in delayed_abilities(g) + reflexive_abilities(g):
        yield R(
            True, g.Not(g.counts_additional(t, a)), f"ability {a}", witness=g.And(any_doubler, g.matches(t, a) >= 1)
        )


@clause(
    "603.2f",
    "'becomes' triggers fire only when the named change happens, not for a permanent entering in that state",
    text_hash="dba59ae3423b",
    scope="'becomes tapped', 'becomes untapped' and 'becomes blocked' of one permanent, and 'a land becomes tapped'",
)
def becomes_triggers(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield defines(g, t, a, BECOMES_TAPPED, _status_change(g, t, a, to_tapped=True))
        yield defines(g, t, a, BECOMES_UNTAPPED, _status_change(g, t, a, to_tapped=False))
        yield defines(g, t, a, BECOMES_BLOCKED, _becomes_blocked(g, t, a))
        yield defines(g, t, a, LAND_TAPPED, _lands_tapped(g, t, a))


def _lands_tapped(g, t, a):
    """Lands that were on the battlefield before and after and became tapped in the batch (not one entering tapped,
    603.2f), of those ability ``a``'s condition speaks of ("an Island an opponent controls": as they are now)."""

    def n(v):
        if t == 0:
            return 0
        tapped = [g.And(g.land_card(c), m.became_tapped(g, t, c), m.subject_matches(g, a, t, c)) for c in m.cards(g)]
        return g.If(m.can_trigger(g, t, v, a), g.count(tapped), 0)

    return n


def _becomes_blocked(g, t, a):
    """The creature "this" names becomes blocked in the batch: the event, not the state of being blocked."""
    subject = m.subject(g, a)

    def n(v):
        if t == 0:
            return 0
        return g.If(g.And(m.card_value(g, "blocked", t, subject), m.can_trigger(g, t, v, a)), 1, 0)

    return n


def _status_change(g, t, a, *, to_tapped: bool):
    """The permanent "this" names was on the battlefield before and after, and its status changed."""
    subject = m.subject(g, a)

    def n(v):
        if t == 0:
            return 0
        stayed, change = _stayed_and_changed(g, t, lambda name, u: m.card_value(g, name, u, subject), to_tapped)
        return g.If(g.And(g.And(*stayed), g.And(*change), m.can_trigger(g, t, v, a)), 1, 0)

    return n


def _stayed_and_changed(g, t, value, to_tapped: bool = True) -> tuple[list, list]:
    """A permanent (``value(name, moment)`` reads its variables) was on the battlefield before batch ``t`` and after,
    the same object, and became tapped (or untapped): the event, not a permanent entering in that state (603.2f).
    The conditions, in two lists: that it stayed, and the change."""
    stayed = [value("zone", t - 1) == BATTLEFIELD, value("zone", t) == BATTLEFIELD, value("since", t) != t]
    before, after = value("tapped", t - 1), value("tapped", t)
    return stayed, [g.Not(before), after] if to_tapped else [before, g.Not(after)]


def _hidden_all_along(g, t, a):
    """The object that has the ability (before the event for look-back triggers) was never visible."""
    if m.ability_class(g, a)[0] != "printed":
        return False
    c = m.source_card(g, a)
    if t == 0:
        return g.Not(m.visible(g, t, c))
    same = g.Not(m.entered(g, t, c))  # the card is the same object before and after (400.7)
    earlier, now = m.visible(g, t - 1, c), m.visible(g, t, c)
    seen_before_object = g.Or(earlier, g.And(same, now))
    seen_after_object = g.Or(now, g.And(same, earlier))
    return g.Not(g.If(g.look_back(t, a), seen_before_object, seen_after_object))


@clause(
    "603.2g",
    "an ability whose object is at no time visible to all players doesn't trigger",
    text_hash="d786f3497075",
    overrides={"603.2": _hidden_all_along},
)
def hidden_objects(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):
        hidden = _hidden_all_along(g, t, a)
        yield R(hidden, g.base_triggers(t, a) == 0, m.printed_about(g, a), witness=g.And(hidden, g.matches(t, a) >= 1))


@clause(
    "603.2h",
    "an ability triggers only if its trigger event actually occurs; prevented or replaced events trigger nothing",
    text_hash="684599a51bb5",
)
def actual_events_only(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield R(
            True, g.base_triggers(t, a) <= g.matches(t, a), f"ability {a}", witness=g.attempts(t, a) > g.matches(t, a)
        )


def _done_already(g, t, a):
    if m.ability_class(g, a)[0] != "printed" or t == 0:
        return False
    c = m.source_card(g, a)
    return g.And(g.once_each_turn(a), _done_by_controller(g, t, a, c), g.turn(t) == g.turn(t - 1))


def _done_by_controller(g, t: int, a: int, c: int):
    """The source's controller has taken the ability's action this turn: the controller as the trigger
    is judged, so before the event for a look-back trigger ("when you lose control of this").

    "Not yet taken" is asked as the event happens, and an action counts from the moment it is taken:
    one taken while the ability resolves in this very batch counts for the events of that resolution
    (the creature it puts onto the battlefield doesn't trigger it again).
    """
    controller = in_view(g, t, a, lambda v: g.controller(v, c))
    return m.select(g, [g.done_this_turn(t, a, p) for p in m.players(g)], controller)


def _already_done(g, t: int, *_object: int):
    """The resolving ability says "Do this only once each turn" and its controller took the action earlier
    this turn (``done_this_turn`` as it stood before this resolution)."""
    if t == 0:
        return False
    return g.Or(
        *[
            g.And(
                m.resolving_ability(g, t, a),
                g.once_each_turn(a),
                m.select(g, [g.done_this_turn(t - 1, a, p) for p in m.players(g)], top_before(g, t, "slot_controller")),
                g.turn(t) == g.turn(t - 1),
            )
            for _, a in m.printed_abilities(g)
        ]
    )


@clause(
    "603.2i",
    "'Do this only once each turn': triggers only if the action wasn't taken yet this turn, and isn't taken twice",
    text_hash="5c29582c6bc0",
    overrides={"603.2": _done_already, "608.2": _already_done},
)
def once_each_turn(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):
        done = _done_already(g, t, a)
        yield R(done, g.base_triggers(t, a) == 0, m.printed_about(g, a), witness=g.And(done, g.matches(t, a) >= 1))
    # The instruction limits the action itself: instances that triggered together each resolve (the trigger
    # condition is asked only as they trigger), but only the first to resolve takes the action.
    yield R(_already_done(g, t), g.Not(g.acts(t)), "resolving ability")


# --- 603.3 -------------------------------------------------------------------------


@clause(
    "603.3",
    "a triggered ability goes on top of the stack the next time a player would receive priority",
    text_hash="06131ddae5ad",
)
def put_on_stack(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield R(g.priority(t), g.pending(t, a) == 0, f"ability {a}", witness=g.And(g.priority(t), g.placed(t, a) >= 1))
        yield R(
            g.Not(g.priority(t)),
            g.And(g.placed(t, a) == 0, g.removed(t, a) == 0, g.skipped(t, a) == 0),
            f"ability {a}",
            witness=g.And(g.Not(g.priority(t)), g.pending(t, a) >= 1),
        )
        yield R(g.removed(t, a) >= 1, g.And(g.no_legal_choice(t, a), m.needs_choice(g, a)), f"ability {a}")


@clause(
    "603.3a",
    "a triggered ability is controlled by whoever controlled its source when it triggered",
    text_hash="6c1d687877c1",
)
def controller_of_trigger(g, t: int) -> Iterator[Rule]:
    for c, a in m.printed_abilities(g):
        who = in_view(g, t, a, lambda v, c=c: g.controller(v, c))
        yield R(g.base_triggers(t, a) >= 1, g.trigger_controller(t, a) == who, m.printed_about(g, a))


def _part(g, t, s):
    """1 for the first part of 603.3b, 2 for abilities triggering on abilities triggering."""
    src = g.slot_src(t, s)
    second = g.Or(*[g.And(src == m.ability_code(a), m.ability_kind(g, a) == ABILITY_TRIGGERS) for a in m.abilities(g)])
    return g.If(second, 2, 1)


@clause(
    "603.3b",
    "abilities go on the stack in APNAP order, in two parts: triggers on triggering go last",
    text_hash="d87b1ef3499c",
    scope="one round of placement; the state-based-action loop is the game model's",
)
def apnap_order(g, t: int) -> Iterator[Rule]:
    n_abilities = g.size("ability")
    for s1 in m.slots(g):
        for s2 in m.slots(g):
            if s2 <= s1:
                continue
            both = g.And(
                m.new_slot(g, t, s1),
                m.new_slot(g, t, s2),
                g.slot_src(t, s1) <= n_abilities,
                g.slot_src(t, s2) <= n_abilities,
            )
            p1, p2 = _part(g, t, s1), _part(g, t, s2)
            r1, r2 = m.apnap_rank(g, t, g.slot_controller(t, s1)), m.apnap_rank(g, t, g.slot_controller(t, s2))
            yield R(
                both,
                g.Or(p1 < p2, g.And(p1 == p2, r1 <= r2)),
                f"slots {s1}<{s2}",
                witness=g.And(both, g.slot_controller(t, s1) != g.slot_controller(t, s2)),
            )


@clause(
    "603.3c", "a modal triggered ability with no legal mode chosen is removed from the stack", text_hash="9917d1ab7bcd"
)
def modal_removed(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):
        none = g.And(g.modal(a), g.no_legal_choice(t, a), g.priority(t))
        yield R(none, g.placed(t, a) == 0, m.printed_about(g, a), witness=g.And(none, g.removed(t, a) >= 1))


@clause(
    "603.3d",
    "a triggered ability that needs a choice with no legal choice is removed from the stack",
    text_hash="17a89c0c9332",
    scope="the choice modelled is the choice of targets",
)
def no_legal_target_removed(g, t: int) -> Iterator[Rule]:
    # Any triggered ability that targets: an object's, a delayed one, a reflexive one.
    for a in m.abilities(g):
        none = g.And(m.targets(g, a), g.no_legal_choice(t, a), g.priority(t))
        about = m.printed_about(g, a) if m.ability_class(g, a)[0] == "printed" else f"ability {a}"
        yield R(none, g.placed(t, a) == 0, about, witness=g.And(none, g.removed(t, a) >= 1))


# --- 603.4 -------------------------------------------------------------------------


def _if_false_at_trigger(g, t, a):
    cls, _ = m.ability_class(g, a)
    if cls != "printed":
        return False
    # One about the object its event happened to is false at trigger for all of them (Pelt Collector, 2018-10-05:
    # "doesn't trigger at all").
    per_object = _if_held_at_trigger(g, t, a) == 0 if t > 0 else True
    return g.And(g.has_if(a), g.If(m.if_about_that(g, a), per_object, g.Not(g.cond(t, a))))


def _if_false_for_some(g, t, a):
    """An intervening "if" about the object its event happened to is false for some of them: it triggers for the
    others only (603.2c's once-per-occurrence is set aside)."""
    if m.ability_class(g, a)[0] != "printed" or t == 0:
        return False
    every = in_view(g, t, a, lambda v: g.count(m.event_object(g, t, a, v, c) for c in m.cards(g)))
    return g.And(m.if_about_that(g, a), _if_held_at_trigger(g, t, a) < every)


def _if_held_at_trigger(g, t, a):
    """The objects the event of batch ``t`` happened to, of those ability ``a``'s condition counts, whose intervening
    "if" is true then, each seen by each instance of the ability (113.2c); none where the ability can't trigger (it
    doesn't exist in the view its condition is judged in, as for its count of ``matches``)."""

    def held(v):
        true_of = g.count(g.And(m.event_object(g, t, a, v, c), g.cond_that(t, a, c)) for c in m.cards(g))
        return g.If(m.can_trigger(g, t, v, a), m.per_instance(g, true_of, m.instances_of(g, v, a)), 0)

    return in_view(g, t, a, held)


def _if_false_on_resolution(g, t):
    if t == 0:
        return False
    subject = top_before(g, t, "slot_subject")
    out = []
    for _, a in m.printed_abilities(g):
        false_of_it = g.Or(*[g.And(subject == c, g.Not(g.cond_that(t - 1, a, c))) for c in m.cards(g)])
        false_now = g.If(m.if_about_that(g, a), false_of_it, g.Not(g.cond(t - 1, a)))
        out.append(g.And(m.tries_to_resolve_ability(g, t, a), g.has_if(a), false_now))
    return g.Or(*out)


@clause(
    "603.4",
    "intervening 'if': checked when the event occurs and again on resolution, where a false one removes it",
    text_hash="92154cf411c5",
    overrides={"603.2": _if_false_at_trigger, "603.2c": _if_false_for_some, "608.1": _if_false_on_resolution},
)
def intervening_if(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):
        false_now = _if_false_at_trigger(g, t, a)
        yield R(
            false_now, g.base_triggers(t, a) == 0, m.printed_about(g, a), witness=g.And(false_now, g.matches(t, a) >= 1)
        )
        yield from _if_of_each_object(g, t, a)
    # "the ability is removed from the stack and does nothing": it doesn't resolve (608.1 steps aside).
    false_on_res = _if_false_on_resolution(g, t)
    yield R(false_on_res, g.removed_now(t), "resolving ability")


def _if_of_each_object(g, t: int, a: int) -> Iterator[Rule]:
    """An intervening "if" about the object its event happened to (Pelt Collector's "if that creature's power is
    greater than ~'s"): the ability triggers once for each object it is true of (unless another rule stops it), and
    each instance carries one of those objects (two from one batch, put on the stack together, different ones unless
    it triggered more times than there were such objects)."""
    about = m.if_about_that(g, a)
    if t == 0 or g.known_false(about):
        return
    held = _if_held_at_trigger(g, t, a)
    others = g.Or(exempt(g, "603.2", t, a, besides="603.4"), exempt(g, "603.2c", t, a, besides="603.4"))
    yield R(about, g.base_triggers(t, a) <= held, m.printed_about(g, a), witness=g.And(about, held < g.matches(t, a)))
    yield R(g.And(about, g.Not(others)), g.base_triggers(t, a) >= held, m.printed_about(g, a))

    code = m.ability_code(a)

    def true_then(label, c):
        return m.at_label(g, t, label, "cond_that", a, c, default=True)

    for s in m.slots(g):
        mine = g.And(about, m.new_slot(g, t, s), g.slot_src(t, s) == code)
        origin = g.slot_moment(t, s)
        yield R(
            mine,
            g.Or(*[g.And(g.slot_subject(t, s) == c, true_then(origin, c)) for c in m.cards(g)]),
            f"{m.printed_about(g, a)}, slot {s}",
        )

    def true_ones(label):
        counted = [m.at_label(g, t, label, "triggered_by", a, c, default=False) for c in m.cards(g)]
        return g.count(g.And(counted[c], true_then(label, c)) for c in m.cards(g))

    for s1, s2, apart in m.carried_apart(g, t, a, true_ones):
        yield R(
            g.And(about, apart),
            g.slot_subject(t, s1) != g.slot_subject(t, s2),
            f"{m.printed_about(g, a)}, slots {s1}<{s2}",
        )


# --- 603.5 -------------------------------------------------------------------------


def _option_declined(g, t, *_object):
    if t == 0:
        return False
    return g.Or(
        *[g.And(m.resolving_ability(g, t, a), g.optional(a), g.Not(g.may_use(t))) for c, a in m.printed_abilities(g)]
    )


@clause(
    "603.5",
    "optional ('may', 'unless') abilities go on the stack anyway; the choice is made on resolution",
    scope="'may' abilities; 'unless' is not modelled separately",
    text_hash="012030fa1290",
    overrides={"608.2": _option_declined},
)
def optional_abilities(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):
        yield R(
            g.optional(a),
            g.skipped(t, a) == 0,
            m.printed_about(g, a),
            witness=g.And(g.optional(a), g.pending(t, a) >= 1),
        )
    declined = _option_declined(g, t)
    yield R(declined, g.Not(g.acts(t)), "resolving ability")


# --- 603.6 -------------------------------------------------------------------------


def _enchanted_card_hidden(g, t, c):
    """An Aura's "enchanted permanent leaves" ability resolves in batch ``t`` and card ``c``, the card of the
    permanent it enchanted, is in a zone hidden from the ability's controller."""
    controller = top_before(g, t, "slot_controller")
    return g.Or(
        *[
            g.And(
                m.aura_leaves_resolving(g, t, x),
                top_before(g, t, "slot_object") == c,
                hidden_from(g, t, c, controller),
            )
            for x in m.cards(g)
            if x != c
        ]
    )


def _object_lost(g, t, *key):
    """A resolving zone-change ability can't find its object where it moved to, and its effect is what it does to
    that object (without ``other_effect``: the part that fails is all of it); with ``key`` (a card), also an Aura's
    ability can't find the enchanted permanent's card, which is in a hidden zone."""
    if t == 0:
        return False
    lost = []
    for c, a in m.printed_abilities(g):
        res = g.And(m.resolving_ability(g, t, a), m.acts_on_its_own_object(g, a))
        found = g.And(g.zone(t - 1, c) == top_before(g, t, "slot_zone"), found_where_it_moved(g, t, c))
        lost.append(g.And(res, g.Not(found), g.Not(g.other_effect(a))))
    if key:
        lost.append(_enchanted_card_hidden(g, t, key[0]))
    return g.Or(*lost)


@clause(
    "603.6",
    "zone-change abilities look for the object in the zone it moved to, and fail if it isn't there",
    text_hash="5f03460303b7",
    overrides={"608.2": _object_lost},
    scope="'this' enters or leaves, and the enchanted permanent's card an Aura's ability looks for (hidden zones);"
    " the part acting on the object is all of an effect or none of it (other_effect: Mulldrifter's 'draw two cards')",
)
def zone_change_object(g, t: int) -> Iterator[Rule]:
    lost = _object_lost(g, t)
    yield R(lost, g.Not(g.acts(t)), "resolving ability")
    if t == 0:
        return
    for c in m.cards(g):
        hidden = _enchanted_card_hidden(g, t, c)
        yield R(hidden, g.Not(g.affects(t, c)), f"card {c}")


def _enters_self(g, t, a):
    arrived = m.for_card(g, m.subject(g, a), lambda c: m.entered_battlefield(g, t, c))
    return lambda v: g.If(g.And(arrived, m.can_trigger(g, t, v, a)), 1, 0)


def _creature_enters(g, t, a):
    return lambda v: g.If(m.can_trigger(g, t, v, a), m.creature_enters_count(g, t, v, a), 0)


@clause(
    "603.6a",
    "enters abilities trigger on permanents entering; all permanents, newcomers included, are checked",
    text_hash="5740a048a5a3",
)
def enters_triggers(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield defines(g, t, a, ENTERS_SELF, _enters_self(g, t, a))
        yield defines(g, t, a, CREATURE_ENTERS, _creature_enters(g, t, a))


@clause(
    "603.6b",
    "continuous effects modify a permanent the moment it is on the battlefield, and not before",
    text_hash="1568172b3cab",
    scope="'All lands are creatures' and 'All creatures lose all abilities'",
)
def effects_on_newcomers(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        newcomer = m.entered_battlefield(g, t, c) if t > 0 else False
        yield R(
            newcomer,
            effective_characteristics(g, t, c),
            f"card {c}",
            witness=g.And(newcomer, g.Or(g.lands_are_creatures(t), g.creatures_lose_abilities(t))),
        )
        yield R(g.Not(m.on_battlefield(g, t, c)), printed_characteristics(g, t, c), f"card {c}")


@clause(
    "603.6c",
    "leaves-the-battlefield abilities trigger on a permanent leaving; 'from anywhere' ones are not such",
    text_hash="76d39ae46e30",
    scope="'dies', 'a land is put into a graveyard from the battlefield', 'this leaves', 'enchanted permanent leaves'",
)
def leaves_triggers(g, t: int) -> Iterator[Rule]:
    yield from leaves_matches(g, t)
    for _, a in m.printed_abilities(g):
        yield R(g.kind(a) == GRAVEYARD_FROM_ANYWHERE, g.Not(g.is_leaves_ability(t, a)), m.printed_about(g, a))


@clause(
    "603.6d",
    "'enters tapped' and 'enters with' are static abilities that apply as the permanent enters",
    text_hash="88e2e33f6e9c",
    scope="'enters tapped'",
)
def enters_tapped(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        arriving = g.And(m.entered_battlefield(g, t, c), g.enters_tapped(c)) if t > 0 else False
        yield R(arriving, g.tapped(t, c), f"card {c}")


def _enchanted_card_found(g, t):
    """As an Aura's "enchanted permanent leaves" ability resolves in batch ``t``, the card of the permanent it
    enchanted is the new object it became in the zone it moved to (603.6e): the same object since the ability
    triggered (400.7), in the zone its instance recorded.  Never on the battlefield: a permanent that left it and
    is there again went through another zone first (a flicker), and has left the zone it moved to."""
    y = top_before(g, t, "slot_object")
    return g.And(
        m.card_value(g, "since", t - 1, y) == top_before(g, t, "slot_moment"),
        m.card_value(g, "zone", t - 1, y) == top_before(g, t, "slot_zone"),
        top_before(g, t, "slot_zone") != BATTLEFIELD,
    )


def _aura_card_found(g, t, x):
    """... and the Aura card ``x`` is the new object it became in its owner's graveyard "after state-based actions
    have been checked" (603.6e): in the graveyard since before the ability was put on the stack, not a newer object
    that got there while the ability was on the stack (400.7).  The ability was on the stack already if, in the
    state before the batch in which the card arrived, a slot held it (the same ability, the same label: the instances
    of one label go on the stack together).  Any slot: objects below it may have left since (800.4a)."""
    before_arrival = g.since(t - 1, x) - 1
    waiting_on_stack = g.Or(
        *[
            g.And(
                g.earlier(before_arrival, t, "stack_size", default=0) > s,
                g.earlier(before_arrival, t, "slot_src", s, default=0) == top_before(g, t, "slot_src"),
                g.earlier(before_arrival, t, "slot_moment", s, default=0) == top_before(g, t, "slot_moment"),
            )
            for s in m.slots(g)
        ]
    )
    return g.And(g.zone(t - 1, x) == GRAVEYARD, g.Not(waiting_on_stack))


def _aura_not_found(g, t, *key):
    """An Aura's "enchanted permanent leaves" ability resolves and can't find, with ``key`` (a card), that card's
    object; without, either of its two objects, and it does nothing else (so it does nothing)."""
    if t == 0:
        return False
    out = []
    for x in m.cards(g):
        res = m.aura_leaves_resolving(g, t, x)
        if key:
            (c,) = key
            aura_lost = g.Not(_aura_card_found(g, t, x)) if c == x else False
            card_lost = g.And(top_before(g, t, "slot_object") == c, g.Not(_enchanted_card_found(g, t)))
            out.append(g.And(res, g.Or(aura_lost, card_lost)))
        else:
            # (one that also does something else, "and you gain 2 life", still does that: ``other_effect``)
            plain = g.Or(*[g.And(m.resolving_ability(g, t, a), g.Not(g.other_effect(a))) for a in m.printed_of(g, x)])
            out.append(g.And(res, plain, g.Not(_aura_card_found(g, t, x)), g.Not(_enchanted_card_found(g, t))))
    return g.Or(*out)


@clause(
    "603.6e",
    "an Aura's trigger on its permanent leaving can find that permanent's card where it went and the Aura card "
    "in the graveyard",
    text_hash="f84690b70ff2",
    overrides={"608.2": _aura_not_found},
    scope="both objects, each found or not on its own: the enchanted permanent's card as the new object in the "
    "zone it moved to, the Aura card in its owner's graveyard; found nowhere else",
)
def aura_leaves(g, t: int) -> Iterator[Rule]:
    # "Can find" is a permission: where an object is found, the general resolution rule (and 603.4 / 603.5 / 603.6)
    # decide whether the ability affects it; elsewhere that object can't be found, and isn't affected.
    if t == 0:
        return
    found = _enchanted_card_found(g, t)
    for x in m.cards(g):
        res = m.aura_leaves_resolving(g, t, x)
        aura_lost = g.And(res, g.Not(_aura_card_found(g, t, x)))
        yield R(aura_lost, g.Not(g.affects(t, x)), f"card {x}")
        for c in m.cards(g):
            if c != x:
                card_lost = g.And(res, top_before(g, t, "slot_object") == c, g.Not(found))
                yield R(card_lost, g.Not(g.affects(t, c)), f"card {x}, enchanted card {c}")


# --- 603.7 -------------------------------------------------------------------------


def _fired(g, t, d):
    return g.base_triggers(t, m.delayed(g, d)) >= 1


@clause("603.7", "an effect may create a delayed triggered ability that acts later", text_hash="94f0fef2c1d7")
def delayed_persist(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for d, _ in delayed_abilities(g):
        expires = g.And(g.d_duration(d), g.turn(t) != g.turn(t - 1))
        used = g.And(g.Not(g.d_duration(d)), _fired(g, t, d))
        yield R(
            g.And(g.registered(t - 1, d), g.Not(expires), g.Not(used)),
            g.registered(t, d),
            f"delayed {d}",
            witness=g.And(g.registered(t - 1, d), g.matches(t, m.delayed(g, d)) >= 1),
        )


def _creation_cause(g, t, d):
    src = g.d_source(d)
    on_bf = m.card_value(g, "zone", t, src) == BATTLEFIELD
    return g.If(
        g.d_cause(d) == SPELL_CAUSE,
        resolving_spell(g, t, src),
        g.If(
            g.d_cause(d) == ABILITY_CAUSE,
            resolving_ability_of(g, t, src),
            g.If(
                g.d_cause(d) == REPLACEMENT_CAUSE,
                g.And(on_bf, g.replacement_applied(t, d)),
                g.And(on_bf, g.action_taken(t, d)),
            ),
        ),
    )


@clause(
    "603.7a",
    "delayed abilities are created by resolving spells/abilities, replacements or allowed actions, "
    "and don't trigger before they exist",
    text_hash="3d6f5096c0ec",
    overrides={"603.2": just_created},
)
def delayed_creation(g, t: int) -> Iterator[Rule]:
    for d, a in delayed_abilities(g):
        yield R(m.delayed_created(g, t, d), _creation_cause(g, t, d), f"delayed {d}")
        fresh = just_created(g, t, a)
        yield R(
            fresh,
            g.base_triggers(t, a) == 0,
            f"delayed {d}",
            witness=g.And(m.delayed_created(g, t, d), g.matches(t, a) >= 1),
        )


def _once_only(g, t, a):
    cls, d = m.ability_class(g, a)
    return g.Not(g.d_duration(d)) if cls == "delayed" else False


def _duration_over(g, t, a):
    cls, d = m.ability_class(g, a)
    if cls != "delayed" or t == 0:
        return False
    return g.And(g.d_duration(d), g.turn(t) != g.turn(t - 1))


@clause(
    "603.7b",
    "a delayed ability without a duration triggers only once; one with a duration lasts for it",
    text_hash="0d8b514d1f8d",
    overrides={"603.2c": _once_only, "603.2": _duration_over},
)
def delayed_once(g, t: int) -> Iterator[Rule]:
    for d, a in delayed_abilities(g):
        fired = g.base_triggers(t, a) >= 1
        yield R(
            g.And(g.Not(g.d_duration(d)), fired),
            g.And(g.base_triggers(t, a) == 1, g.Not(g.registered(t, d))),
            f"delayed {d}",
            witness=g.And(g.Not(g.d_duration(d)), g.matches(t, a) >= 2),
        )
        over = _duration_over(g, t, a)
        yield R(
            over,
            g.And(g.Not(g.registered(t, d)), g.base_triggers(t, a) == 0),
            f"delayed {d}",
            witness=g.And(over, g.registered(t - 1, d)) if t > 0 else False,
        )


@clause(
    "603.7c",
    "a delayed ability affects each object it refers to that is still where it was expected, changed or not; no other",
    text_hash="b2935175f163",
    overrides={"608.2": delayed_object_gone},
)
def delayed_object(g, t: int) -> Iterator[Rule]:
    # Object by object: one that changed characteristics is still affected; one that is no longer in the zone it
    # was in when the ability was created -- or left and came back, a new object (400.7) -- is not.  An ability
    # that refers to no object is left to 608.2; one none of whose objects is found does nothing (608.2 is set
    # aside: ``delayed_object_gone``).
    if t == 0:
        return
    for d, a in delayed_abilities(g):
        res = m.resolving_ability(g, t, a)
        for c in m.cards(g):
            found = delayed_object_found(g, t, d, c)
            refers = g.And(res, g.d_refers(d, c))
            yield R(refers, g.affects(t, c) == found, f"delayed {d}, card {c}", witness=g.And(refers, g.Not(found)))


def _controller_rule(cause, who):
    def encode(g, t: int) -> Iterator[Rule]:
        for d, a in delayed_abilities(g):
            mine = g.d_cause(d) == cause
            yield R(g.And(m.delayed_created(g, t, d), mine), g.d_controller(t, d) == who(g, t, d), f"delayed {d}")
            yield R(
                g.And(mine, g.base_triggers(t, a) >= 1),
                g.trigger_controller(t, a) == g.d_controller(t, d),
                f"delayed {d}",
            )

    return encode


def _resolving_controller(g, t, d):
    return top_before(g, t, "slot_controller") if t > 0 else 0


def _source_controller_now(g, t, d):
    return m.card_value(g, "controller", t, g.d_source(d))


clause_603_7d = clause(
    "603.7d",
    "a delayed ability created by a spell is controlled by who controlled the spell as it resolved",
    text_hash="d984c8c2b2ff",
)(_controller_rule(SPELL_CAUSE, _resolving_controller))


def _ability_controller_rule(g, t: int) -> Iterator[Rule]:
    yield from _controller_rule(ABILITY_CAUSE, _resolving_controller)(g, t)
    if t == 0:
        return
    for r, a in reflexive_abilities(g):  # 603.12: reflexive triggers follow the rules for delayed ones
        yield R(
            g.base_triggers(t, a) >= 1,
            g.trigger_controller(t, a) == top_before(g, t, "slot_controller"),
            f"reflexive {r}",
        )


clause_603_7e = clause(
    "603.7e",
    "a delayed ability created by an ability is controlled by who controlled that ability as it resolved",
    text_hash="7c8dd7f587dc",
)(_ability_controller_rule)
clause_603_7f = clause(
    "603.7f",
    "a delayed ability created by a replacement is controlled by the static ability's controller",
    text_hash="26db6ccb64f7",
)(_controller_rule(REPLACEMENT_CAUSE, _source_controller_now))
clause_603_7g = clause(
    "603.7g",
    "a delayed ability created by an allowed action is controlled by the static ability's controller",
    text_hash="21cb562e8f4c",
)(_controller_rule(ACTION_CAUSE, _source_controller_now))


@clause(
    "603.7h",
    "a delayed ability that waits for N resolutions of its creator is created once, at that resolution",
    text_hash="43c5a613bf5c",
    scope="N from 1 to 7, the resolutions of the creating ability's object",
)
def created_on_nth(g, t: int) -> Iterator[Rule]:
    for d, _ in delayed_abilities(g):
        new = g.And(m.delayed_created(g, t, d), g.d_nth(d), g.d_cause(d) == ABILITY_CAUSE)
        yield R(new, _nth_resolution(g, t, g.d_source(d), g.d_n(d)), f"delayed {d}")
    # Gimli, Mournful Avenger (2023-06-16): "a second 'reflexive' ability triggers when its last ability resolves
    # for the third time in a turn": created and triggered at once, by that resolution.
    for r, a in reflexive_abilities(g):
        n = g.If(_nth_resolution(g, t, g.reflexive_from(r), g.r_n(r)), 1, 0) if t > 0 else 0
        yield R(g.r_n(r) >= 1, g.And(g.matches(t, a) == n, g.attempts(t, a) == n), f"reflexive {r}", witness=n >= 1)


_nth_resolution = m.nth_resolution


# --- 603.8 -------------------------------------------------------------------------


def _still_outstanding(g, t, a):
    """An instance of this object's ability is pending or on the stack and did not leave it during batch ``t``.

    For a printed ability, only instances of the *current* object count: a permanent that left
    and came back is a new object (400.7) whose ability is a new one, free to trigger.
    """
    if t == 0:
        return False
    is_state = m.ability_kind(g, a) == NO_CARDS_IN_HAND
    still_there = [g.And(m.survives(g, t, s), g.slot_src(t - 1, s) == m.ability_code(a)) for s in m.slots(g)]
    if m.ability_class(g, a)[0] != "printed":
        return g.And(is_state, g.count(still_there) + g.pending(t - 1, a) >= 1)
    since = g.since(t, m.source_card(g, a))
    on_stack = g.count(
        g.And(there, g.slot_moment(t - 1, s) >= since) for s, there in zip(m.slots(g), still_there, strict=False)
    )
    waiting = g.If(since < t, g.pending(t - 1, a), 0)
    return g.And(is_state, on_stack + waiting >= 1)


@clause(
    "603.8",
    "state triggers trigger when the state holds, and not again until the instance has left the stack",
    text_hash="8388045d3f6a",
    overrides={"603.2": _still_outstanding},
)
def state_triggers(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):

        def n(v, a=a):
            return g.If(g.And(m.can_trigger(g, t, v, a), m.hand_empty(g, v, m.source_controller(g, v, a))), 1, 0)

        if t == 0:
            yield R(m.ability_kind(g, a) == NO_CARDS_IN_HAND, g.And(g.matches(t, a) == n(0), g.attempts(t, a) == n(0)))
        else:
            yield defines(g, t, a, NO_CARDS_IN_HAND, n)
        busy = _still_outstanding(g, t, a)
        yield R(busy, g.base_triggers(t, a) == 0, f"ability {a}", witness=g.And(busy, g.matches(t, a) >= 1))
        # "Then, if ... the game state still matches its trigger condition, the ability will trigger again."
        again = g.And(
            m.ability_kind(g, a) == NO_CARDS_IN_HAND,
            g.Not(busy),
            g.matches(t, a) >= 1,
            g.Not(exempt(g, "603.2", t, a)),
        )
        yield R(again, g.base_triggers(t, a) >= 1, f"ability {a}")


# --- 603.9 -------------------------------------------------------------------------


@clause(
    "603.9",
    "'loses the game' abilities trigger when a player loses or leaves, except by a draw",
    text_hash="e6173b31687d",
)
def player_loses(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):

        def n(v, a=a):
            return g.If(
                m.can_trigger(g, t, v, a),
                g.count(g.And(g.leaves_game(t, p), g.Not(g.by_draw(t, p))) for p in m.players(g)),
                0,
            )

        yield defines(g, t, a, PLAYER_LOSES, n)


# --- 603.10 ------------------------------------------------------------------------

LOOK_BACK = {
    "603.10a": LEAVES_KINDS,
    "603.10b": (PHASES_OUT,),
    "603.10c": (UNATTACHED,),
    "603.10d": (LOSE_CONTROL, CONTROL_GAINED),
    "603.10e": (COUNTERED_SELF,),
    "603.10f": (PLAYER_LOSES,),
}
ALL_LOOK_BACK = tuple(k for kinds in LOOK_BACK.values() for k in kinds)


@clause("603.10", "triggers are normally judged on the game right after the event", text_hash="29e9d11e971d")
def judged_after(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        normal = g.And(g.Not(m.is_kind(g, a, ALL_LOOK_BACK)), g.Not(leaves_from_anywhere(g, t, a)))
        yield R(normal, g.Not(g.look_back(t, a)), f"ability {a}")


def _look_back_rule(number, summary, kinds, include_from_anywhere=False, *, text_hash):
    def encode(g, t: int) -> Iterator[Rule]:
        for a in m.abilities(g):
            mine = m.is_kind(g, a, kinds)
            if include_from_anywhere:
                mine = g.Or(mine, leaves_from_anywhere(g, t, a))
            yield R(mine, g.look_back(t, a), f"ability {a}", witness=g.And(mine, g.matches(t, a) >= 1))

    return clause(number, summary, text_hash=text_hash)(encode)


clause_603_10a = _look_back_rule(
    "603.10a", "leaves-the-battlefield abilities look back in time", LEAVES_KINDS, True, text_hash="fb6cdb122dd3"
)
clause_603_10b = _look_back_rule(
    "603.10b", "phasing-out abilities look back in time", (PHASES_OUT,), text_hash="9c132143124b"
)
clause_603_10c = _look_back_rule(
    "603.10c", "'becomes unattached' abilities look back in time", (UNATTACHED,), text_hash="c32fc3a206a0"
)
clause_603_10d = _look_back_rule(
    "603.10d",
    "abilities that trigger on losing control, or on an opponent gaining control from that player, look back in time",
    (LOSE_CONTROL, CONTROL_GAINED),
    text_hash="c634792be23b",
)
clause_603_10e = _look_back_rule(
    "603.10e", "'spell is countered' abilities look back in time", (COUNTERED_SELF,), text_hash="6b6b2996ef95"
)
clause_603_10f = _look_back_rule(
    "603.10f", "'loses the game' abilities look back in time", (PLAYER_LOSES,), text_hash="43b6ac5ca4e9"
)


# --- 603.12 ------------------------------------------------------------------------


@clause(
    "603.12",
    "reflexive triggers check the resolution that created them for the action, and only that",
    text_hash="d62622ab430e",
)
def reflexive_triggers(g, t: int) -> Iterator[Rule]:
    for r, a in reflexive_abilities(g):
        creator = g.reflexive_from(r)
        if t == 0:
            n = 0
        else:
            n = g.If(resolving_ability_of(g, t, creator), m.actions_taken(g, t), 0)
        # (One that waits for its creator's Nth resolution, ``r_n``, is 603.7h's.)
        yield R(g.r_n(r) == 0, g.And(g.matches(t, a) == n, g.attempts(t, a) == n), f"reflexive {r}", witness=n >= 1)


def _pays_any(g, t, a):
    cls, r = m.ability_class(g, a)
    return g.pay_any(r) if cls == "reflexive" else False


@clause(
    "603.12a",
    "a reflexive trigger on paying a cost 'one or more times' triggers only once",
    text_hash="880a7363f7cd",
    overrides={"603.2c": _pays_any},
)
def reflexive_once(g, t: int) -> Iterator[Rule]:
    for r, a in reflexive_abilities(g):
        yield R(
            g.And(g.pay_any(r), g.base_triggers(t, a) >= 1),
            g.base_triggers(t, a) == 1,
            f"reflexive {r}",
            witness=g.And(g.pay_any(r), g.matches(t, a) >= 2),
        )
