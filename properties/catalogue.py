"""The built-in properties: claims over whole traces that follow from rule 603.

Each property is ``claim(g, t)``, which must hold at every moment ``t`` of every
trace the clauses allow, and names the clauses it depends on; ``rule603 verify
--adequacy`` checks that dropping any one of them yields a counterexample.  Claims
speak of game events (a creature dies, a step begins, a permanent enters) and of
what ends up triggering and on the stack, not of any one clause's variables.

The same API serves user property files: ``from rule603 import prop``.
"""

from __future__ import annotations

from rule603 import prop
from rule603.models import game as m
from rule603.models.game import (
    ABILITY_CAUSE,
    ABILITY_TRIGGERS,
    ACTION_CAUSE,
    BATTLEFIELD,
    BECOMES_BLOCKED,
    BECOMES_TAPPED,
    COMBAT_DAMAGE_TO_PLAYER,
    CONTROL_GAINED,
    COUNTER,
    COUNTERED_SELF,
    CREATURE_DIES,
    CREATURE_ENTERS,
    ENCHANTED_LEAVES,
    END,
    END_STEP,
    ENTERS_SELF,
    GRAVEYARD,
    GRAVEYARD_FROM_ANYWHERE,
    HAND,
    LAND_TAPPED,
    LEAVES_SELF,
    LIBRARY,
    LOSE_CONTROL,
    NO_CARDS_IN_HAND,
    PHASES_OUT,
    PLAYER_LOSES,
    REPLACEMENT_CAUSE,
    SPELL_CAUSE,
    UNATTACHED,
    UPKEEP,
    YOUR_UPKEEP,
)

# --- helpers ------------------------------------------------------------------------

#: Trigger conditions judged on the game before the event (their controller is the one before it).
LOOKING_BACK = m.LEAVES_KINDS + (LOSE_CONTROL, CONTROL_GAINED, PHASES_OUT, UNATTACHED, PLAYER_LOSES, COUNTERED_SELF)


def unhindered(g, t: int, a: int):
    """No intervening 'if', 'Do this only once each turn', 'This ability triggers only once each turn' or activation
    prohibition on printed ability ``a``."""
    return g.And(
        g.Not(g.has_if(a)),
        g.Not(g.once_each_turn(a)),
        g.Not(g.triggers_once_each_turn(a)),
        g.Not(g.prohibited(t, m.printed_card(g, a))),
    )


def deaths(g, t: int):
    """Creatures (as they last existed on the battlefield) that died in batch ``t``."""
    return g.count(g.And(m.dies(g, t, x), g.eff_creature(t - 1, x)) for x in m.cards(g))


def names(g, a: int, x: int, v: int):
    """Printed ability ``a``'s condition about any creature (land, creature card) speaks of card ``x``'s object as it
    is at moment ``v``: "another" names every object but ``c``'s, "this" ``c``'s alone; "you control" a permanent
    ``c``'s controller controls at ``v``, "an opponent controls" one another player does (a card off the
    battlefield by its owner: it has no controller, 108.4a); "token", "nontoken" what it is (111.1); a subtype
    ("another Elf") one ``x``'s card has, as printed (205.3).  For a permanent that left the battlefield, ``v`` is the
    moment before (as it last existed, 603.10a)."""
    c = m.printed_card(g, a)
    relation, whose, token = g.subject_relation(a), g.subject_controller(a), g.subject_token(a)
    holder = g.If(g.zone(v, x) == BATTLEFIELD, g.controller(v, x), g.owner(x))
    mine = holder == g.controller(v, c)
    return g.And(
        relation != (m.ANOTHER_SUBJECT if x == c else m.THIS_SUBJECT),
        g.Or(
            whose == m.ANY_SUBJECT,
            g.And(whose == m.YOUR_SUBJECT, mine),
            g.And(whose == m.OPPONENTS_SUBJECT, g.Not(mine)),
        ),
        g.Or(token == m.ANY_SUBJECT, (token == m.TOKEN_SUBJECT) == g.token(x)),
        g.subject_subtype(a, x),
    )


def once_for_the_batch(g, a: int, n):
    """``n`` objects of one batch as printed ability ``a``'s condition counts them: "one or more" asks for one
    trigger per event, and one batch is one event (603.2c)."""
    return g.If(g.And(g.one_or_more(a), n >= 1), 1, n)


def deaths_named(g, t: int, a: int):
    """Creatures that died in batch ``t`` (as they last existed on the battlefield) that printed ability ``a``'s
    "whenever a creature dies" condition speaks of."""
    return g.count(g.And(m.dies(g, t, x), g.eff_creature(t - 1, x), names(g, a, x, t - 1)) for x in m.cards(g))


def present(g, t: int, a: int):
    """Printed ability ``a``'s card is a permanent on the battlefield, and the ability exists at ``t``."""
    return g.And(m.on_battlefield(g, t, m.printed_card(g, a)), m.functions(g, t, a))


# --- delayed triggered abilities (603.7) --------------------------------------------


@prop("delayed-fires-once", clauses=["603.7a", "603.7b"])
def delayed_fires_once(g, t):
    """A delayed triggered ability without a duration triggers at most once, and only for an event after its
    creation."""
    claims = []
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        fired = g.triggers(t, a) >= 1
        # Each earlier firing must be followed by a new creation before this one.
        once = g.And(
            *[
                g.Implies(g.triggers(u, a) >= 1, g.Or(*[m.delayed_created(g, w, d) for w in range(u + 1, t)]))
                for u in range(t)
            ]
        )
        after_creation = g.registered(t - 1, d) if t > 0 else False
        claims.append(g.Implies(g.And(g.Not(g.d_duration(d)), fired), g.And(g.triggers(t, a) == 1, once)))
        claims.append(g.Implies(fired, after_creation))
    return g.And(*claims)


@prop("delayed-duration-each-event", clauses=["603.2", "603.2c", "603.2e", "603.6c", "603.10a"])
def delayed_duration_each_event(g, t):
    """'Whenever a creature dies this turn' triggers once for each creature that dies while it exists."""
    if t == 0:
        return True
    claims = []
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        live = g.And(g.d_duration(d), g.d_kind(d) == CREATURE_DIES, g.registered(t - 1, d), g.registered(t, d))
        claims.append(g.Implies(live, g.triggers(t, a) == deaths(g, t)))
    return g.And(*claims)


@prop("delayed-duration-ends", clauses=["603.7a", "603.7b"])
def delayed_duration_ends(g, t):
    """A delayed triggered ability with the duration 'this turn' never triggers in a later turn than its creation."""
    claims = []
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        created_this_turn = g.Or(*[g.And(m.delayed_created(g, u, d), g.turn(u) == g.turn(t)) for u in range(t)])
        claims.append(g.Implies(g.And(g.d_duration(d), g.triggers(t, a) >= 1), created_this_turn))
    return g.And(*claims)


@prop("delayed-waits-for-next-end-step", clauses=["603.2", "603.2b", "603.7"])
def delayed_waits(g, t):
    """'At the beginning of the next end step' created earlier triggers when the next end step begins."""
    if t == 0:
        return True
    claims = []
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        ends_between = [g.And(m.begins(g, u), g.step(u) == END) for u in range(1, t)]
        waiting = [g.And(m.delayed_created(g, u, d), g.Not(g.Or(*ends_between[u:]))) for u in range(t)]
        fires = g.And(g.Not(g.d_duration(d)), g.d_kind(d) == END_STEP, g.Or(*waiting), m.begins(g, t), g.step(t) == END)
        claims.append(g.Implies(fires, g.triggers(t, a) == 1))
    return g.And(*claims)


@prop("delayed-object-changed-zones", clauses=["603.7c"])
def delayed_object_changed_zones(g, t):
    """A delayed ability affects each object it refers to that hasn't changed zones since it was created and isn't
    phased out (treated as though it doesn't exist, 702.26b), and none that has changed zones, even if it came back;
    once every one of them has, it does nothing to them.  One whose trigger is that object's own zone change ("when that
    creature dies this turn, return that card") looks instead for the object it became by the change its instance
    triggered on (the moment it is labelled with, 405.1): affected unless it changed zones again or is in a zone
    hidden from the ability's controller.  One that also does something else (``d_other_effect``) does that
    whatever becomes of its objects."""
    if t == 0:
        return True
    claims = []
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        # The resolving instance comes from the latest creation (a slot is reused only when empty); it triggered
        # at a moment at which the ability did trigger (its label, 405.1: several instances may wait).
        latest = [
            g.And(m.delayed_created(g, u, d), *[g.Not(m.delayed_created(g, w, d)) for w in range(u + 1, t)])
            for u in range(t)
        ]
        label = m.top(g, t - 1, "slot_moment")
        triggered = [g.And(g.triggers(u, a) >= 1, label == u) for u in range(1, t)]
        zone_change = g.Or(g.d_kind(d) == ENTERS_SELF, g.d_kind(d) == LEAVES_SELF)
        resolves = m.resolving_ability(g, t, a)
        there = {}
        for c in m.cards(g):
            since_created = g.Or(*[g.And(latest[u], g.since(t - 1, c) > u) for u in range(t)])
            since_triggered = g.Not(g.Or(*[g.And(triggered[u - 1], g.since(t - 1, c) == u) for u in range(1, t)]))
            hidden = g.Or(
                g.zone(t - 1, c) == LIBRARY,
                g.And(g.zone(t - 1, c) == HAND, g.owner(c) != g.d_controller(t - 1, d)),
            )
            gone = g.If(zone_change, g.Or(since_triggered, hidden), since_created)
            there[c] = g.And(g.Not(gone), g.Not(g.phased_out(t - 1, c)))
            claims.append(g.Implies(g.And(resolves, g.d_refers(d, c)), g.affects(t, c) == there[c]))
        refers = g.Or(*[g.d_refers(d, c) for c in m.cards(g)])
        none_there = g.And(*[g.Implies(g.d_refers(d, c), g.Not(there[c])) for c in m.cards(g)])
        # With none of them there it does nothing, but what it does besides ("then draw a card"), which it does.
        claims.append(g.Implies(g.And(resolves, refers, none_there), g.acts(t) == g.d_other_effect(d)))
    return g.And(*claims)


@prop("delayed-created-once-on-nth", clauses=["603.7h"])
def delayed_created_once(g, t):
    """A delayed ability waiting for an ability's Nth resolution is created at most once each turn by the ability of
    one object: a source that left and came back is a new object, whose ability counts its own (400.7)."""
    claims = []
    for d in g.range("delayed"):
        same = [
            m.card_value(g, "since", u, g.d_source(d)) == m.card_value(g, "since", t, g.d_source(d))
            for u in range(t + 1)
        ]
        creations = [g.And(m.delayed_created(g, u, d), g.turn(u) == g.turn(t), same[u]) for u in range(t + 1)]
        claims.append(g.Implies(g.And(g.d_nth(d), g.d_cause(d) == ABILITY_CAUSE), g.count(creations) <= 1))
    return g.And(*claims)


def _delayed_controller_prop(cause):
    def claim(g, t):
        claims = []
        for d in g.range("delayed"):
            a = m.delayed(g, d)
            resolver = [
                g.And(m.delayed_created(g, u, d), g.trigger_controller(t, a) == m.top(g, u - 1, "slot_controller"))
                for u in range(1, t)
            ]
            claims.append(g.Implies(g.And(g.d_cause(d) == cause, g.triggers(t, a) >= 1), g.Or(*resolver)))
        return g.And(*claims)

    return claim


def _delayed_static_controller_prop():
    def claim(g, t):
        claims = []
        for d in g.range("delayed"):
            a = m.delayed(g, d)
            static = g.Or(g.d_cause(d) == REPLACEMENT_CAUSE, g.d_cause(d) == ACTION_CAUSE)
            at_creation = [
                g.And(
                    m.delayed_created(g, u, d),
                    g.trigger_controller(t, a) == m.card_value(g, "controller", u, g.d_source(d)),
                )
                for u in range(t)
            ]
            claims.append(g.Implies(g.And(static, g.triggers(t, a) >= 1), g.Or(*at_creation)))
        return g.And(*claims)

    return claim


delayed_controller_spell = prop(
    "delayed-controller-spell",
    clauses=["603.7a", "603.7d"],
    summary="A delayed trigger made by a spell is controlled by whoever controlled the spell as it resolved.",
)(_delayed_controller_prop(SPELL_CAUSE))
delayed_controller_ability = prop(
    "delayed-controller-ability",
    clauses=["603.7a", "603.7e"],
    summary="A delayed trigger made by an ability is controlled by whoever controlled that ability as it resolved.",
)(_delayed_controller_prop(ABILITY_CAUSE))
delayed_controller_static = prop(
    "delayed-controller-static",
    clauses=["603.7a", "603.7f", "603.7g"],
    summary="A delayed trigger made through a static ability is controlled by that object's controller at that time.",
)(_delayed_static_controller_prop())


# --- state triggers (603.8) ---------------------------------------------------------


def _own_instances(g, t, a):
    """Instances of printed ability ``a`` made by the object its card is now (400.7), pending or on the stack."""
    since = g.since(t, m.printed_card(g, a))
    on_stack = g.count(
        g.And(g.var("slot_src", t, s) == m.ability_code(a), g.slot_moment(t, s) >= since) for s in m.slots(g)
    )
    # What waits is its own only if it triggered since the object arrived: at most that many (instances wait over
    # several batches without priority, while state-based actions are performed, 704.3).
    since_then = g.Sum([g.If(since <= u, g.triggers(u, a), 0) for u in range(t + 1)])
    waiting = g.If(g.pending(t, a) <= since_then, g.pending(t, a), since_then)
    return on_stack + waiting


@prop("state-trigger-single-instance", clauses=["603.8"])
def state_trigger_single(g, t):
    """A state trigger of an object never has two instances pending or on the stack at once (a permanent that
    left and came back is a new object, 400.7, with an ability of its own)."""
    printed = [
        g.Implies(g.kind(a) == NO_CARDS_IN_HAND, _own_instances(g, t, a) <= 1) for c, a in m.printed_abilities(g)
    ]
    delayed = [
        g.Implies(m.ability_kind(g, a) == NO_CARDS_IN_HAND, m.outstanding(g, t, a) <= 1)
        for a in (m.delayed(g, d) for d in g.range("delayed"))
    ]
    return g.And(*printed, *delayed)


@prop("state-trigger-retriggers", clauses=["603.8", "603.10"])
def state_trigger_retriggers(g, t):
    """Once its instance has left the stack, a state trigger triggers again if its source is still there and the
    state holds."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        holds = g.And(
            g.kind(a) == NO_CARDS_IN_HAND,
            present(g, t, a),
            unhindered(g, t, a),
            m.hand_empty(g, t, g.controller(t, c)),
            m.outstanding(g, t - 1, a) == 0,
        )
        claims.append(g.Implies(holds, g.triggers(t, a) == 1))
    return g.And(*claims)


# --- triggering (603.2) -------------------------------------------------------------


@prop("becomes-tapped-not-on-entry", clauses=["603.2f"])
def becomes_tapped_not_on_entry(g, t):
    """A 'becomes tapped' ability never triggers for its permanent entering the battlefield tapped."""
    return g.And(
        *[
            g.Implies(g.And(g.kind(a) == BECOMES_TAPPED, m.entered_battlefield(g, t, c)), g.triggers(t, a) == 0)
            for c, a in m.printed_abilities(g)
        ]
    )


@prop("land-tapped-not-on-entry", clauses=["603.2f"])
def land_tapped_not_on_entry(g, t):
    """'Whenever a land becomes tapped' doesn't trigger in a batch where no land that was already on the battlefield
    became tapped: a land entering tapped doesn't become tapped."""
    if t == 0:
        return True
    some_tapped = g.Or(
        *[
            g.And(g.land_card(x), m.same_permanent(g, t, x), g.Not(g.tapped(t - 1, x)), g.tapped(t, x))
            for x in m.cards(g)
        ]
    )
    return g.And(
        *[
            g.Implies(g.And(g.kind(a) == LAND_TAPPED, g.Not(some_tapped)), g.triggers(t, a) == 0)
            for c, a in m.printed_abilities(g)
        ]
    )


@prop("enters-tapped-untaps-first", clauses=["603.2f", "603.6d"])
def enters_tapped_untaps_first(g, t):
    """A permanent that 'enters tapped' must untap before its 'becomes tapped' ability can trigger."""
    claims = []
    for c, a in m.printed_abilities(g):
        # Untapped at a moment after it entered (or at moment 0, if it was there before the trace began).
        untapped_since = g.Or(
            *[
                g.And(g.Or(g.since(t, c) < u, g.And(u == 0, g.since(t, c) == 0)), g.Not(g.tapped(u, c)))
                for u in range(t)
            ]
        )
        claims.append(
            g.Implies(g.And(g.enters_tapped(c), g.kind(a) == BECOMES_TAPPED, g.triggers(t, a) >= 1), untapped_since)
        )
    return g.And(*claims)


@prop("becomes-tapped-despite-prohibition", clauses=["603.2", "603.2a", "603.2f"])
def triggers_despite_prohibition(g, t):
    """'Becomes tapped' triggers even while an effect stops its permanent's abilities being activated."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        taps = g.And(
            g.kind(a) == BECOMES_TAPPED,
            m.same_permanent(g, t, c),
            g.Not(g.tapped(t - 1, c)),
            g.tapped(t, c),
            present(g, t, a),
            g.Not(g.has_if(a)),
            g.Not(g.once_each_turn(a)),
            g.Not(g.triggers_once_each_turn(a)),
        )
        claims.append(g.Implies(taps, g.triggers(t, a) >= 1))
    return g.And(*claims)


@prop("dies-once-per-creature", clauses=["603.2", "603.2c", "603.2h", "603.6c", "603.10a"])
def dies_once_per_creature(g, t):
    """'Whenever a creature dies' triggers exactly once for each creature that died that it speaks of ('another',
    'you control', 'nontoken', 'this': judged as the creature last existed), once for them all if it says 'one or
    more', once per instance of the ability (113.2c), and not for replaced deaths."""
    if t == 0:
        return True
    claims = []
    for _, a in m.printed_abilities(g):
        watching = g.And(g.kind(a) == CREATURE_DIES, present(g, t - 1, a), unhindered(g, t, a))
        died = once_for_the_batch(g, a, deaths_named(g, t, a))
        claims.append(g.Implies(watching, g.triggers(t, a) == m.per_instance(g, died, g.instances(t - 1, a))))
    return g.And(*claims)


@prop("dies-seen-by-dying-artifact", clauses=["603.2", "603.6c", "603.10a"])
def dies_seen_by_dying(g, t):
    """A 'whenever a creature dies' permanent that dies in the same event still triggers for the creatures it speaks
    of (look back)."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        dying_too = g.And(
            g.kind(a) == CREATURE_DIES,
            present(g, t - 1, a),
            m.left_battlefield(g, t, c),
            unhindered(g, t, a),
            deaths_named(g, t, a) >= 1,
        )
        claims.append(g.Implies(dying_too, g.triggers(t, a) >= 1))
    return g.And(*claims)


@prop("prevented-damage-triggers-nothing", clauses=["603.2h"])
def prevented_damage(g, t):
    """Over a whole game, a 'whenever this is dealt damage' ability never has more instances put on the stack than
    times damage was actually dealt to its permanent (once per instance of the ability, 113.2c): prevented damage
    adds none."""
    claims = []
    for c, a in m.printed_abilities(g):
        stacked = g.Sum(g.placed(u, a) + g.removed(u, a) for u in range(t + 1))
        dealt = g.Sum(
            g.If(g.And(g.damage(u, c), g.Not(g.damage_prevented(u, c))), g.instances(u, a), 0) for u in range(t + 1)
        )
        claims.append(g.Implies(g.kind(a) == m.DEALT_DAMAGE, stacked <= dealt))
    return g.And(*claims)


@prop("hidden-card-never-triggers", clauses=["603.2g"])
def hidden_never_triggers(g, t):
    """A card that has stayed hidden from some player all game (unrevealed, in a hand or library) never has an
    instance of its ability waiting or on the stack."""
    claims = []
    for c, a in m.printed_abilities(g):
        hidden_so_far = g.And(*[g.Not(m.visible(g, u, c)) for u in range(t + 1)])
        claims.append(g.Implies(hidden_so_far, m.outstanding(g, t, a) == 0))
    return g.And(*claims)


@prop("once-each-turn-stops-triggering", clauses=["603.2i", "603.3a"])
def once_each_turn(g, t):
    """After a player has had a 'do this only once each turn' ability do its action, no instance of it
    triggers for that player again that turn."""
    if t == 0:
        return True
    return g.And(
        *[
            g.Implies(
                g.And(
                    g.once_each_turn(a),
                    g.Or(
                        *[g.And(g.done_this_turn(t - 1, a, p), g.trigger_controller(t, a) == p) for p in m.players(g)]
                    ),
                    g.turn(t) == g.turn(t - 1),
                ),
                g.triggers(t, a) == 0,
            )
            for c, a in m.printed_abilities(g)
        ]
    )


@prop("additional-trigger-counts-once", clauses=["603.2", "603.2d", "603.6a", "603.10"])
def additional_trigger_counts_once(g, t):
    """With N 'triggers an additional time' effects, an artifact's or creature's enters ability triggers exactly
    1+N times (for each instance of the ability, 113.2c), never more."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        enters = g.And(
            g.kind(a) == ENTERS_SELF,
            m.entered_battlefield(g, t, c),
            g.Or(g.eff_creature(t, c), g.artifact_card(c)),
            g.eff_ability(t, a),
            unhindered(g, t, a),
            g.Not(g.phased_out(t, c)),
        )
        # Counted here from the cards, independently of the 603.2d encoding.
        effects = g.count(
            g.And(
                g.doubler(x),
                m.on_battlefield(g, t, x),
                g.Not(g.phased_out(t, x)),  # a phased-out permanent is treated as though it doesn't exist (702.26b)
                g.eff_ability(t, x),
                g.controller(t, x) == g.controller(t, c),
            )
            for x in m.cards(g)
        )
        claims.append(g.Implies(enters, g.triggers(t, a) == m.per_instance(g, 1 + effects, g.instances(t, a))))
    return g.And(*claims)


@prop("additional-trigger-skips-delayed", clauses=["603.2e"])
def additional_trigger_skips_delayed(g, t):
    """'Triggers an additional time' never makes a delayed or reflexive ability trigger more than its events."""
    claims = []
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        claims.append(
            g.Implies(
                g.d_kind(d) == CREATURE_ENTERS,
                g.triggers(t, a) <= m.creature_enters_count(g, t, t) if t > 0 else g.triggers(t, a) == 0,
            )
        )
    for r in g.range("reflexive"):
        # Its events: its creator's actions, or the one resolution it waits for (603.7h).
        events = g.If(g.r_n(r) == 0, m.actions_taken(g, t), 1)
        claims.append(g.triggers(t, m.reflexive(g, r)) <= events)
    return g.And(*claims)


@prop("upkeep-trigger-each-upkeep", clauses=["603.2", "603.2b"])
def upkeep_trigger(g, t):
    """'At the beginning of your upkeep' triggers exactly once (once per instance, 113.2c) as each of its
    controller's upkeeps begins, if it was there as the upkeep began (not arriving in that batch, 513.2), and at
    no other time."""
    claims = []
    for c, a in m.printed_abilities(g):
        there = g.And(present(g, t - 1, a), present(g, t, a)) if t > 0 else False
        upkeep = g.And(m.begins(g, t), g.step(t) == UPKEEP, g.active(t) == g.controller(t, c), there)
        claims.append(
            g.Implies(
                g.And(g.kind(a) == YOUR_UPKEEP, unhindered(g, t, a), g.Not(g.from_hand(a))),
                g.triggers(t, a) == g.If(upkeep, g.instances(t, a), 0),
            )
        )
    return g.And(*claims)


@prop("blocked-trigger-per-instance", clauses=["603.2", "603.2c", "603.2f"])
def blocked_trigger_per_instance(g, t):
    """A 'becomes blocked' ability (flanking) triggers exactly once for each instance of it its creature has
    (113.2c) as that creature becomes blocked, and at no other time."""
    claims = []
    for c, a in m.printed_abilities(g):
        blocked = g.And(g.blocked(t, c), present(g, t, a))
        claims.append(
            g.Implies(
                g.And(g.kind(a) == BECOMES_BLOCKED, unhindered(g, t, a), g.Not(g.from_hand(a))),
                g.triggers(t, a) == g.If(blocked, g.instances(t, a), 0),
            )
        )
    return g.And(*claims)


@prop("intervening-if-both-times", clauses=["603.4"])
def intervening_if(g, t):
    """An intervening-'if' ability does its effect only if the condition was true when it triggered and as it
    resolves; one about the object its event happened to ("if that creature's power is greater"), true of the object
    its instance carries, both times."""
    if t == 0:
        return True
    claims = []
    subject = m.top(g, t - 1, "slot_subject")
    for _, a in m.printed_abilities(g):

        def holds(u, a=a):
            of_it = g.Or(*[g.And(subject == c, g.cond_that(u, a, c)) for c in m.cards(g)])
            return g.If(m.if_about_that(g, a), of_it, g.cond(u, a))

        when_triggered = g.Or(*[g.And(m.top(g, t - 1, "slot_moment") == u, holds(u)) for u in range(t)])
        claims.append(
            g.Implies(g.And(g.has_if(a), m.resolving_ability(g, t, a), g.acts(t)), g.And(holds(t - 1), when_triggered))
        )
    return g.And(*claims)


# --- entering and leaving (603.6) --------------------------------------------------


@prop("enters-sees-continuous-effects", clauses=["603.2", "603.6a", "603.6b", "603.10"])
def enters_with_effects(g, t):
    """With 'All lands are creatures', a land entering triggers 'whenever a creature enters' (one it speaks of: not
    itself for 'another', one its controller controls for 'you control', ...)."""
    if t == 0:
        return True
    claims = []
    for _, a in m.printed_abilities(g):
        land_arrives = g.Or(
            *[g.And(g.land_card(x), m.entered_battlefield(g, t, x), names(g, a, x, t)) for x in m.cards(g)]
        )
        watching = g.And(
            g.kind(a) == CREATURE_ENTERS, present(g, t, a), unhindered(g, t, a), g.lands_are_creatures(t), land_arrives
        )
        claims.append(g.Implies(watching, g.triggers(t, a) >= 1))
    return g.And(*claims)


@prop("enters-without-abilities", clauses=["603.6a", "603.6b"])
def enters_without_abilities(g, t):
    """With 'All creatures lose all abilities', a creature's own enters ability doesn't trigger."""
    return g.And(
        *[
            g.Implies(
                g.And(
                    g.kind(a) == ENTERS_SELF,
                    g.creature_card(c),
                    m.entered_battlefield(g, t, c),
                    g.creatures_lose_abilities(t),
                ),
                g.triggers(t, a) == 0,
            )
            for c, a in m.printed_abilities(g)
        ]
    )


@prop("enters-with-granted-ability", clauses=["603.2", "603.6a", "603.6b", "603.10"])
def enters_with_granted_ability(g, t):
    """A permanent entering while an effect grants it an enters ability triggers that ability; without the effect, it
    has no such ability and doesn't."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        arrives = g.And(
            g.kind(a) == ENTERS_SELF,
            g.granted(a),
            m.entered_battlefield(g, t, c),
            unhindered(g, t, a),
            g.Not(g.creatures_lose_abilities(t)),
            g.Not(g.phased_out(t, c)),
        )
        claims.append(g.Implies(arrives, (g.triggers(t, a) >= 1) == g.grant_ability(t)))
    return g.And(*claims)


@prop("newcomers-see-each-other", clauses=["603.2", "603.2c", "603.6a", "603.10"])
def newcomers_see_each_other(g, t):
    """A 'whenever a creature enters' permanent entering with others triggers for each of them it speaks of, itself
    included unless it says 'another' (once for them all if it says 'one or more')."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        arriving = g.And(
            g.kind(a) == CREATURE_ENTERS, m.entered_battlefield(g, t, c), present(g, t, a), unhindered(g, t, a)
        )
        named = g.count(
            g.And(m.entered_battlefield(g, t, x), g.eff_creature(t, x), names(g, a, x, t)) for x in m.cards(g)
        )
        claims.append(g.Implies(arriving, g.triggers(t, a) >= once_for_the_batch(g, a, named)))
    return g.And(*claims)


@prop("one-or-more-once-per-batch", clauses=["603.6a", "603.6c"])
def one_or_more_once_per_batch(g, t):
    """An ability that says 'one or more' ('whenever one or more other creatures you control die') triggers at most
    once per instance of it in one batch, however many creatures the batch has: the batch is one event (603.2c; the
    bound is 603.2c's or 603.2h's, each standing in for the other, so neither is named).  Combat damage is one event
    for each player dealt it (Storm the Vault's ruling), so "one or more creatures deal combat damage to a player"
    is left out."""
    claims = []
    for _, a in m.printed_abilities(g):
        # its instances as the batch began or as it ended (a dies ability looks back, 603.10a)
        held = [g.instances(u, a) for u in ((t - 1, t) if t else (t,))]
        batched = g.And(g.one_or_more(a), g.kind(a) != COMBAT_DAMAGE_TO_PLAYER)
        claims.append(g.Implies(batched, g.Or(*[g.base_triggers(t, a) <= n for n in held])))
    return g.And(*claims)


@prop("zone-change-loses-object", clauses=["603.6"])
def zone_change_loses_object(g, t):
    """An enters ability whose effect is what it does to its permanent (not one that also does something else,
    other_effect: Mulldrifter's "draw two cards") does nothing if that permanent left the battlefield before it
    resolved."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        still_there = g.And(m.on_battlefield(g, t - 1, c), g.since(t - 1, c) == m.top(g, t - 1, "slot_moment"))
        acting = g.And(g.kind(a) == ENTERS_SELF, g.Not(g.other_effect(a)), m.resolving_ability(g, t, a), g.acts(t))
        claims.append(g.Implies(acting, still_there))
    return g.And(*claims)


@prop("this-dies-only-into-a-graveyard", clauses=["603.6c"])
def this_dies_only_into_a_graveyard(g, t):
    """'When this creature dies' never triggers as its permanent leaves the battlefield for another zone than a
    graveyard (exiled, returned to a hand: Rukh Egg's ruling), nor as another creature dies."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        own = g.And(g.kind(a) == CREATURE_DIES, g.subject_relation(a) == m.THIS_SUBJECT)
        not_its_death = g.Or(g.Not(m.left_battlefield(g, t, c)), g.zone(t, c) != GRAVEYARD)
        claims.append(g.Implies(g.And(own, not_its_death), g.triggers(t, a) == 0))
    return g.And(*claims)


@prop("from-anywhere-does-not-look-back", clauses=["603.6c", "603.10"])
def from_anywhere(g, t):
    """A 'put into a graveyard from anywhere' permanent doesn't see the creatures that die along with it."""
    if t == 0:
        return True
    return g.And(
        *[
            g.Implies(
                g.And(
                    g.kind(a) == GRAVEYARD_FROM_ANYWHERE,
                    m.left_battlefield(g, t, c),
                    g.Not(g.from_hand(a)),
                    g.zone(t, c) != BATTLEFIELD,
                ),
                g.triggers(t, a) == 0,
            )
            for c, a in m.printed_abilities(g)
        ]
    )


@prop("aura-trigger-finds-aura", clauses=["603.6e"])
def aura_finds_aura(g, t):
    """An Aura's 'enchanted permanent leaves' ability affects the Aura card only where it can find it, in the
    graveyard as the object it became there by the time the ability was put on the stack, after state-based actions
    (there, a plain -- not optional, no 'if', not 'only once each turn' -- ability does affect it), and the
    enchanted permanent's card only as the new object it became in the zone it moved to."""
    if t == 0:
        return True
    claims = []
    # The moment the resolving ability was put on the stack: the moment an instance of its ability with its label
    # arrived there (the instances of one label arrive together; objects below may leave since, 800.4a).
    src, label = m.top(g, t - 1, "slot_src"), m.top(g, t - 1, "slot_moment")
    put_on_stack = [
        g.Or(*[g.And(m.new_slot(g, u, s), g.slot_src(u, s) == src, g.slot_moment(u, s) == label) for s in m.slots(g)])
        for u in range(t)
    ]
    for x in m.cards(g):
        resolves = m.aura_leaves_resolving(g, t, x)
        arrived_in_time = g.Or(*[g.And(put_on_stack[u], g.since(t - 1, x) <= u) for u in range(t)])
        in_graveyard = g.And(g.zone(t - 1, x) == GRAVEYARD, arrived_in_time)
        plain = g.And(
            *[
                g.Implies(
                    m.resolving_ability(g, t, a),
                    g.And(g.Not(g.optional(a)), g.Not(g.has_if(a)), g.Not(g.once_each_turn(a))),
                )
                for a in m.printed_of(g, x)
            ]
        )
        aura = g.And(g.Implies(g.affects(t, x), in_graveyard), g.Implies(g.And(in_graveyard, plain), g.affects(t, x)))
        claims.append(g.Implies(resolves, aura))
        for c in m.cards(g):
            if c != x:
                where_it_went = g.And(
                    m.top(g, t - 1, "slot_object") == c,
                    g.since(t - 1, c) == m.top(g, t - 1, "slot_moment"),
                    g.zone(t - 1, c) == m.top(g, t - 1, "slot_zone"),
                    g.zone(t - 1, c) != BATTLEFIELD,
                )
                claims.append(g.Implies(g.And(resolves, g.affects(t, c)), where_it_went))
    return g.And(*claims)


@prop("aura-sees-permanent-leave", clauses=["603.2", "603.6c", "603.10a"])
def aura_sees_leave(g, t):
    """An Aura's 'enchanted permanent leaves' ability triggers when that permanent leaves the battlefield."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        host_leaves = g.Or(*[g.And(g.attached_to(t - 1, c) == x, m.left_battlefield(g, t, x)) for x in m.cards(g)])
        claims.append(
            g.Implies(
                g.And(g.kind(a) == ENCHANTED_LEAVES, present(g, t - 1, a), unhindered(g, t, a), host_leaves),
                g.triggers(t, a) >= 1,
            )
        )
    return g.And(*claims)


# --- look back in time (603.10) -----------------------------------------------------


def _self_event_triggers(kind, event, where=present):
    def claim(g, t):
        if t == 0:
            return True
        return g.And(
            *[
                g.Implies(
                    g.And(g.kind(a) == kind, where(g, t - 1, a), unhindered(g, t, a), event(g, t, c)),
                    g.triggers(t, a) >= 1,
                )
                for c, a in m.printed_abilities(g)
            ]
        )

    return claim


phasing_looks_back = prop(
    "phasing-out-looks-back",
    clauses=["603.2", "603.10b"],
    summary="'Whenever this phases out' triggers when its permanent phases out.",
)(_self_event_triggers(PHASES_OUT, lambda g, t, c: g.And(g.Not(g.phased_out(t - 1, c)), g.phased_out(t, c))))

unattached_looks_back = prop(
    "unattached-looks-back",
    clauses=["603.2", "603.10c"],
    summary="'Whenever this becomes unattached' triggers even when it leaves the battlefield as it does.",
)(
    _self_event_triggers(
        UNATTACHED, lambda g, t, c: g.And(g.attached_to(t - 1, c) != m.attached_none(g), m.left_battlefield(g, t, c))
    )
)

countered_looks_back = prop(
    "countered-looks-back",
    clauses=["603.2", "603.10e"],
    summary="'When this spell is countered' triggers when the spell is countered.",
)(
    _self_event_triggers(
        COUNTERED_SELF,
        lambda g, t, c: g.And(
            g.countered_now(t), m.stack_size(g, t - 1) >= 1, m.top(g, t - 1, "slot_src") == m.spell_code(g, c)
        ),
        where=m.functions,
    )
)


@prop("lose-control-looks-back", clauses=["603.2", "603.3a", "603.10d"])
def lose_control(g, t):
    """'When you lose control of this' triggers, and is controlled by the player who lost control."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        lost = g.And(
            g.kind(a) == LOSE_CONTROL,
            m.same_permanent(g, t, c),
            present(g, t - 1, a),
            unhindered(g, t, a),
            g.controller(t - 1, c) != g.controller(t, c),
        )
        claims.append(
            g.Implies(lost, g.And(g.triggers(t, a) >= 1, g.trigger_controller(t, a) == g.controller(t - 1, c)))
        )
    return g.And(*claims)


@prop("control-gained-looks-back", clauses=["603.2", "603.3a", "603.10d"])
def control_gained(g, t):
    """'Whenever an opponent gains control of a permanent from you' triggers when another player gains control of its
    own permanent too (it looks back), once for each permanent taken from its controller, and is controlled by the
    player they were taken from."""
    if t == 0:
        return True
    claims = []
    for c, a in m.printed_abilities(g):
        you = g.controller(t - 1, c)
        taken = g.count(
            g.And(
                m.same_permanent(g, t, x),
                g.Not(g.phased_out(t - 1, x)),
                g.controller(t - 1, x) == you,
                g.controller(t, x) != you,
            )
            for x in m.cards(g)
        )
        watching = g.And(g.kind(a) == CONTROL_GAINED, present(g, t - 1, a), unhindered(g, t, a))
        triggered = g.triggers(t, a) == m.per_instance(g, taken, g.instances(t - 1, a))
        claims.append(g.Implies(watching, g.And(triggered, g.Implies(taken >= 1, g.trigger_controller(t, a) == you))))
    return g.And(*claims)


@prop("loses-game-looks-back", clauses=["603.2", "603.9", "603.10f"])
def loses_game(g, t):
    """'Whenever a player loses the game' triggers even when its controller is that player."""
    if t == 0:
        return True
    claims = []
    for _, a in m.printed_abilities(g):
        someone = g.Or(*[g.And(g.leaves_game(t, p), g.Not(g.by_draw(t, p))) for p in m.players(g)])
        claims.append(
            g.Implies(
                g.And(g.kind(a) == PLAYER_LOSES, present(g, t - 1, a), unhindered(g, t, a), someone),
                g.triggers(t, a) >= 1,
            )
        )
    return g.And(*claims)


@prop("draw-is-not-losing", clauses=["603.9"])
def draw_is_not_losing(g, t):
    """Players leaving the game because of a draw don't trigger 'whenever a player loses the game'."""
    all_draw = g.And(*[g.Implies(g.leaves_game(t, p), g.by_draw(t, p)) for p in m.players(g)])
    return g.And(
        *[
            g.Implies(g.And(g.kind(a) == PLAYER_LOSES, all_draw), g.triggers(t, a) == 0)
            for c, a in m.printed_abilities(g)
        ]
    )


# --- putting abilities on the stack (603.3) -----------------------------------------


def _new_ability_slots(g, t):
    return [(s, g.slot_src(t, s)) for s in m.slots(g)]


@prop("apnap-nonactive-resolves-first", clauses=["603.3a", "603.3b"])
def apnap(g, t):
    """Of abilities of both players' permanents put on the stack together, the non-active player's are on top."""
    claims = []
    for c1, a1 in m.printed_abilities(g):
        for c2, a2 in m.printed_abilities(g):
            if a1 == a2:
                continue
            for s1 in m.slots(g):
                for s2 in m.slots(g):
                    if s2 >= s1:
                        continue
                    # Wrong: the non-active player's c2 sits below (s2) the active player's c1 (s1).
                    wrong = g.And(
                        m.new_slot(g, t, s1),
                        m.new_slot(g, t, s2),
                        g.slot_src(t, s1) == m.ability_code(a1),
                        g.slot_src(t, s2) == m.ability_code(a2),
                        g.slot_moment(t, s1) == t,
                        g.slot_moment(t, s2) == t,
                        g.controller(t, c1) == g.active(t),
                        g.controller(t, c2) != g.active(t),
                        g.kind(a1) != ABILITY_TRIGGERS,
                        g.kind(a2) != ABILITY_TRIGGERS,
                        g.Not(m.is_kind(g, a1, LOOKING_BACK)),
                        g.Not(m.is_kind(g, a2, LOOKING_BACK)),
                    )
                    claims.append(g.Not(wrong))
    return g.And(*claims)


@prop("triggers-on-triggering-go-last", clauses=["603.2", "603.3b"])
def two_part(g, t):
    """When another ability triggers, 'whenever an ability triggers' also triggers and goes on the stack above it."""
    if t == 0:
        return True
    claims = []
    for _, a in m.printed_abilities(g):
        others = [b for _, b in m.printed_abilities(g) if b != a]
        watching = g.And(g.kind(a) == ABILITY_TRIGGERS, present(g, t, a), unhindered(g, t, a))
        someone = g.Or(*[g.And(g.triggers(t, b) >= 1, g.kind(b) != ABILITY_TRIGGERS) for b in others])
        claims.append(g.Implies(g.And(watching, someone), g.triggers(t, a) >= 1))
        for s1 in m.slots(g):
            for s2 in m.slots(g):
                if s2 >= s1:
                    continue
                below_other = g.And(
                    m.new_slot(g, t, s1),
                    m.new_slot(g, t, s2),
                    g.slot_src(t, s2) == m.ability_code(a),
                    g.kind(a) == ABILITY_TRIGGERS,
                    g.Or(
                        *[g.And(g.slot_src(t, s1) == m.ability_code(b), g.kind(b) != ABILITY_TRIGGERS) for b in others]
                    ),
                )
                claims.append(g.Not(below_other))
    return g.And(*claims)


@prop("trigger-controller-fixed-when-triggered", clauses=["603.3a"])
def controller_fixed(g, t):
    """An ability on the stack is controlled by whoever controlled its source when it triggered, whatever happened
    since."""
    claims = []
    for s in m.slots(g):
        for c, a in m.printed_abilities(g):
            at_trigger = g.Or(
                *[g.And(g.slot_moment(t, s) == u, g.slot_controller(t, s) == g.controller(u, c)) for u in range(t + 1)]
            )
            normal = g.Not(m.is_kind(g, a, LOOKING_BACK))
            claims.append(g.Implies(g.And(g.slot_src(t, s) == m.ability_code(a), normal), at_trigger))
    return g.And(*claims)


@prop("no-legal-choice-never-resolves", clauses=["603.3", "603.3c", "603.3d"])
def no_choice(g, t):
    """A modal or targeted ability with no legal choice when it would go on the stack is removed, not left waiting."""
    claims = []
    for _, a in m.printed_abilities(g):
        stuck = g.And(g.Or(g.modal(a), g.targeted(a)), g.no_legal_choice(t, a), g.priority(t))
        claims.append(g.Implies(stuck, g.And(g.placed(t, a) == 0, g.pending(t, a) == 0)))
    return g.And(*claims)


@prop("optional-still-goes-on-stack", clauses=["603.3", "603.5"])
def optional_on_stack(g, t):
    """An optional ('may') ability that triggered is put on the stack at the next priority, whatever its controller
    intends (unless it is a mana ability, which never uses the stack: 605.4a), if its controller is still in the
    game (800.4d)."""
    if t == 0:
        return True
    claims = []
    for _, a in m.printed_abilities(g):
        due = g.And(g.optional(a), g.Not(g.mana_ability(a)), g.priority(t), g.Not(g.no_legal_choice(t, a)))
        # ... unless the player who would control it has left the game (800.4d).
        left = [g.left_game(t, p) for p in m.players(g)]
        waited = g.If(m.select(g, left, g.waiting_controller(t - 1, a)), 0, g.pending(t - 1, a))
        fresh = g.If(m.select(g, left, g.trigger_controller(t, a)), 0, g.triggers(t, a))
        claims.append(g.Implies(due, g.placed(t, a) == waited + fresh))
    return g.And(*claims)


@prop("uncounterable-trigger-stays", clauses=["603.1a"])
def uncounterable(g, t):
    """A triggered ability that says it can't be countered is not countered by an effect that tries."""
    if t == 0:
        return True
    return g.And(
        *[
            g.Implies(
                g.And(
                    g.uncounterable(a),
                    m.stack_size(g, t - 1) >= 1,
                    m.top(g, t - 1, "slot_src") == m.ability_code(a),
                    g.leave(t) == COUNTER,
                ),
                g.Not(g.countered_now(t)),
            )
            for c, a in m.printed_abilities(g)
        ]
    )


# --- reflexive triggers (603.12) ----------------------------------------------------


@prop("reflexive-counts-own-actions", clauses=["603.2", "603.2c", "603.2e", "603.7h", "603.12", "603.12a"])
def reflexive_counts(g, t):
    """A reflexive trigger triggers once per action its creator took (once for 'one or more times'), never for
    other actions; one that waits for its creator's Nth resolution instead triggers at most once, and only as its
    creator resolves."""
    claims = []
    for r in g.range("reflexive"):
        a = m.reflexive(g, r)
        # (its creator is its card's first printed ability, which has the card's number: ``reflexive_from``)
        creator_resolving = g.Or(*[g.And(g.reflexive_from(r) == c, m.resolving_ability(g, t, c)) for c in m.cards(g)])
        n = m.actions_taken(g, t)
        expected = g.If(g.And(creator_resolving, n >= 1), g.If(g.pay_any(r), 1, n), 0)
        # ... and never when the creator did nothing (e.g. its "may" was declined).
        on_action = g.And(g.triggers(t, a) == expected, g.Implies(g.triggers(t, a) >= 1, g.acts(t)))
        on_resolution = g.And(g.triggers(t, a) <= 1, g.Implies(g.triggers(t, a) >= 1, creator_resolving))
        claims.append(g.If(g.r_n(r) == 0, on_action, on_resolution))
    return g.And(*claims)
