"""Pieces every edition's clause encodings share: which abilities there are, what a trigger
condition matches, what is resolving, and what a delayed ability finds.

They speak of the game model (models/game.py), not of any one edition's wording, so the
current encodings (models/current/clauses.py) and the older editions' own ones
(models/editions/encodings.py) use the same definitions: a change to what the model can
express (several instances of an ability, say) reaches every edition at once.
"""

from __future__ import annotations

from rule603 import Rule

from . import game as m
from .axioms import in_view
from .game import (
    CREATURE_DIES,
    GRAVEYARD_FROM_ANYWHERE,
    LAND_TO_GRAVEYARD,
    LEAVES_KINDS,
    LEAVES_SELF,
    ZONE_CHANGE_SELF_KINDS,
)

R = Rule
found_where_it_moved = m.found_where_it_moved
hidden_from = m.hidden_from


def delayed_abilities(g):
    return [(d, m.delayed(g, d)) for d in g.range("delayed")]


def reflexive_abilities(g):
    return [(r, m.reflexive(g, r)) for r in g.range("reflexive")]


def top_before(g, t, name):
    return m.top(g, t - 1, name)


def defines(g, t, a, kind, count_in_view, attempts_in_view=None):
    """``matches``/``attempts`` of ability ``a`` when it has trigger condition ``kind``."""
    has_kind = m.ability_kind(g, a) == kind
    if g.known_false(has_kind):
        return R(False, True)
    if t == 0:
        return R(has_kind, g.And(g.matches(t, a) == 0, g.attempts(t, a) == 0), f"ability {a}")

    def each_instance(count):  # "one or more" counts the batch once (603.2c); each instance triggers (113.2c)
        return lambda v: m.per_instance(g, m.batched(g, a, count(v)), m.instances_of(g, v, a))

    n = in_view(g, t, a, each_instance(count_in_view))
    n_att = n if attempts_in_view is None else in_view(g, t, a, each_instance(attempts_in_view))
    return R(
        has_kind,
        g.And(g.matches(t, a) == n, g.attempts(t, a) == n_att),
        f"ability {a}",
        witness=g.And(has_kind, n >= 1),
    )


def leaves_counts(g, t, a, kind):
    subject = m.subject(g, a)
    if kind in (CREATURE_DIES, LAND_TO_GRAVEYARD):
        # "Whenever a creature dies" / "a land is put into a graveyard from the battlefield":
        # a creature as it was in the view (603.10a looks back); being a land is printed.  "Another", "you
        # control", "nontoken" narrow it down, judged in the same view (the controller as it last existed).
        def counted(v, c):
            return m.leaving_object_of(g, kind, a, v, c)

        def n(v):
            return g.If(
                m.can_trigger(g, t, v, a), g.count(g.And(m.dies(g, t, c), counted(v, c)) for c in m.cards(g)), 0
            )

        def att(v):
            return g.If(
                m.can_trigger(g, t, v, a),
                g.count(g.And(g.Or(m.dies(g, t, c), g.dies_replaced(t, c)), counted(v, c)) for c in m.cards(g)),
                0,
            )

        return n, att
    if kind == LEAVES_SELF:
        left = m.for_card(g, subject, lambda c: m.left_battlefield(g, t, c))

        def n(v):
            return g.If(g.And(left, m.can_trigger(g, t, v, a)), 1, 0)

        return n, None

    def n(v):  # enchanted permanent leaves
        return g.If(
            m.can_trigger(g, t, v, a),
            g.count(
                g.And(m.card_value(g, "attached_to", t - 1, subject) == x, m.left_battlefield(g, t, x))
                for x in m.cards(g)
            ),
            0,
        )

    return n, None


def leaves_matches(g, t: int):
    """What each leaves-the-battlefield trigger condition matches in batch ``t`` (none at moment 0, and
    none for a reflexive ability, whose condition is its creator's action)."""
    for a in m.abilities(g):
        if t == 0 or m.ability_class(g, a)[0] == "reflexive":
            for kind in LEAVES_KINDS:
                yield R(m.ability_kind(g, a) == kind, g.And(g.matches(t, a) == 0, g.attempts(t, a) == 0))
            continue
        for kind in LEAVES_KINDS:
            n, att = leaves_counts(g, t, a, kind)
            yield defines(g, t, a, kind, n, att)


def leaves_from_anywhere(g, t, a):
    if m.ability_class(g, a)[0] != "printed":
        return False
    return g.And(g.kind(a) == GRAVEYARD_FROM_ANYWHERE, g.is_leaves_ability(t, a))


resolving_spell = m.resolving_spell
resolving_ability_of = m.resolving_ability_of


def just_created(g, t, a):
    cls, d = m.ability_class(g, a)
    if cls != "delayed" or t == 0:
        return False
    return g.Not(g.registered(t - 1, d))


def delayed_object_found(g, t, d, c):
    """As delayed ability ``d`` resolves in batch ``t``, card ``c``'s object it refers to is where it is expected to
    be (603.7c).  For most, that is the object it was created for, in the zone it was in then (400.7).  For one
    whose trigger is that object's own zone change ("when that creature dies this turn, return that card"), it is
    the new object that card became in the zone it moved to as the ability triggered, not hidden from the
    ability's controller: a zone-change trigger (603.6).  A phased-out permanent is treated as though it doesn't
    exist (702.26b): it is not found."""
    created_for = g.And(
        g.since(t - 1, c) == g.d_stamp(t - 1, d, c),
        g.zone(t - 1, c) == g.d_zone(t - 1, d, c),
        g.Not(g.phased_out(t - 1, c)),
    )
    zone_change = g.Or(*[g.d_kind(d) == k for k in ZONE_CHANGE_SELF_KINDS])
    return g.If(zone_change, found_where_it_moved(g, t, c), created_for)


def delayed_object_gone(g, t, *key):
    """In batch ``t`` a delayed ability resolves that can't affect an object it refers to: with ``key`` (a card),
    that card's object is no longer where it was expected to be; without, none of the objects it refers to is
    (so it does nothing), it refers to at least one (one that refers to none does its effect, 608.2), and it does
    nothing else (``d_other_effect``: "then draw a card" is still done)."""
    if t == 0:
        return False
    out = []
    for d, a in delayed_abilities(g):
        res = m.resolving_ability(g, t, a)
        if key:
            (c,) = key
            out.append(g.And(res, g.d_refers(d, c), g.Not(delayed_object_found(g, t, d, c))))
            continue
        refs = [g.d_refers(d, c) for c in m.cards(g)]
        found = [g.And(g.d_refers(d, c), delayed_object_found(g, t, d, c)) for c in m.cards(g)]
        out.append(g.And(res, g.Or(*refs), g.Not(g.Or(*found)), g.Not(g.d_other_effect(d))))
    return g.Or(*out)
