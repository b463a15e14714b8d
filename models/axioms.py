"""Rules of the game outside rule 603 that every trace obeys.

These are not under test: they are the game in which rule 603 operates (object
identity, turn structure, the stack, continuous effects on permanents that stay on
the battlefield).  Each family carries the number of the rule it stands for, and is
always on; only rule 603's clauses get assumption literals.
"""

from __future__ import annotations

from collections.abc import Iterator

from rule603 import MODEL_BOUND, SLOTS, ClauseEncoding, Rule, exempt

from . import game as m
from .game import (
    BATTLEFIELD,
    BEGINNING_OF_COMBAT,
    CLEANUP,
    COMBAT_DAMAGE,
    COUNTER,
    DECLARE_BLOCKERS,
    EXILE,
    GRAVEYARD,
    HAND,
    LIBRARY,
    MAIN,
    NO_LEAVE,
    OUTSIDE,
    RESOLVE,
    STACK,
    UNTAP,
    UPKEEP,
    in_view,
)

R = Rule


def _axiom(number: str, summary: str, overrides=None):
    """A rule of the game outside 603; ``number`` is the rule it stands for (or a model name)."""
    return lambda fn: ClauseEncoding(number, summary, "", fn, dict(overrides or {}))


def _source_gone(g, t: int, *key: int):
    """With ``key`` (a card): the printed ability resolving in batch ``t`` does something to that card's object, and
    the object is gone: the card has moved since (400.7), or it is phased out (702.26b).  Its source
    (``acts_on_this``) is the object it was as the ability triggered -- before the event for a look-back trigger,
    after it otherwise; the object its event happened to (``acts_on_that``) is the one that card became in the zone
    it moved to (603.6), or the one it was for an event that doesn't move it (``m.found_as_it_was``).  A card both
    name ("whenever a creature dies, put a +1/+1 counter on this creature and exile it", of its own death) is gone
    only if neither finds it."""
    if t == 0 or not key:
        return False
    (c,) = key
    moment = m.top(g, t - 1, "slot_moment")
    stamp = g.since(t - 1, c)
    this_named, this_found = [], []
    for a in m.printed_of(g, c):
        looked_back = g.earlier(moment, t, "look_back", a, default=False)
        same = g.Or(stamp < moment, g.And(stamp == moment, g.Not(looked_back)))
        this_named.append(g.And(m.resolving_ability(g, t, a), m.acts_on_this(g, a)))
        this_found.append(g.And(this_named[-1], same, g.Not(g.phased_out(t - 1, c))))
    that = [g.And(m.resolving_ability(g, t, a), m.event_object_named(g, t, a, c)) for a in range(m.printed_count(g))]
    that_named = g.Or(*that)
    that_found = g.Or(*[g.And(x, m.found_as_it_was(g, t, a, c)) for a, x in enumerate(that)])
    return g.And(g.Or(*this_named, that_named), g.Not(g.Or(*this_found, that_found)))


@_axiom(
    "400.7",
    "an object that moves from one zone to another becomes a new object: an effect that refers to the old one can't"
    " find it",
    overrides={"608.2": _source_gone},
)
def object_identity(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        if t == 0:
            yield R(True, g.since(t, c) == 0, f"card {c}")
            continue
        moved = g.zone(t, c) != g.zone(t - 1, c)
        yield R(True, g.Or(g.since(t, c) == g.since(t - 1, c), g.since(t, c) == t), f"card {c}")
        yield R(moved, g.since(t, c) == t, f"card {c}")
        # A spell leaves the stack as a whole action of its own (it resolves, is countered, ...) and is not back in
        # the same batch: on the stack at both moments, it is the same object.
        spell = g.And(g.zone(t - 1, c) == STACK, g.zone(t, c) == STACK)
        yield R(spell, g.since(t, c) == g.since(t - 1, c), f"card {c}")
        # An ability that does something to its source ("put a +1/+1 counter on this creature") does nothing to it
        # once it has moved: the card is a new object the ability doesn't refer to.
        yield R(_source_gone(g, t, c), g.Not(g.affects(t, c)), f"card {c}")


@_axiom(
    "500.1",
    "turns follow each other and steps advance in order; the next player takes the next turn unless it is an extra"
    " one (500.7); an effect may add phases and steps (500.8-500.10)",
)
def turn_structure(g, t: int) -> Iterator[Rule]:
    n = g.size("player")
    if t == 0:
        yield R(True, g.And(g.turn(t) == 1, g.active(t) == 0, g.step(t) != UNTAP, g.Not(g.extra_turn(t))))
        yield R(True, g.Not(g.extra_step(t)))
        return
    new_turn = g.turn(t) == g.turn(t - 1) + 1
    yield R(True, g.Or(g.turn(t) == g.turn(t - 1), new_turn))
    # The untap step is one moment: nothing waits in it (the rest of a turn in which nothing happens may be left
    # out, "model.steps").
    yield R(g.And(g.step(t - 1) == UNTAP, g.Not(new_turn)), g.step(t) != UNTAP)
    next_player = g.If(g.active(t - 1) == n - 1, 0, g.active(t - 1) + 1)
    yield R(new_turn, g.step(t) == UNTAP)
    yield R(g.And(new_turn, g.Not(g.extra_turn(t))), g.active(t) == next_player)
    yield R(g.Not(new_turn), g.And(g.active(t) == g.active(t - 1), g.Not(g.extra_turn(t))))
    # Within a turn, steps move forward; only added phases and steps (and the turn's return to its order
    # after them) go back, as does 514.3a's "another cleanup step".
    again = g.And(g.step(t - 1) == CLEANUP, g.step(t) == CLEANUP)
    yield R(g.And(g.Not(new_turn), g.Not(g.extra_step(t)), g.Not(again)), g.step(t) >= g.step(t - 1))
    # 505.1a: only the first main phase of a turn is its precombat main phase; an added one is postcombat.
    yield R(g.extra_step(t), g.And(g.Not(new_turn), g.step(t) != MAIN))
    # A step ends only when the stack is empty and nothing waits to go on it; in the untap step
    # nobody receives priority, so what triggers there waits for the upkeep (502.4).
    nothing_waits = g.And(*[g.pending(t - 1, a) == 0 for a in m.abilities(g)])
    idle = g.And(m.stack_size(g, t - 1) == 0, g.Or(nothing_waits, g.step(t - 1) == UNTAP))
    yield R(m.begins(g, t), idle)
    # ... and only once every player has passed: after a moment with priority (704.3 keeps it from them while
    # state-based actions are due, and a resolution's batches have none), or from the untap or cleanup step.
    yield R(m.begins(g, t), g.Or(g.priority(t - 1), g.step(t - 1) == UNTAP, g.step(t - 1) == CLEANUP))
    # 514.3a: once players have received priority in a cleanup step, another cleanup step follows: the turn
    # ends only from a cleanup moment without priority.
    yield R(g.And(new_turn, g.step(t - 1) == CLEANUP), g.Not(g.priority(t - 1)))


@_axiom(
    "model.steps",
    "a trace may leave out steps in which nothing happens, but not one at whose beginning an ability would trigger",
)
def left_out_steps(g, t: int) -> Iterator[Rule]:
    # A trace jumps from step to step: the steps in between, each a moment of the real game, are left out.
    # That is sound only where nothing would have happened in them; for rule 603, where no "at the beginning
    # of" ability (nor a Saga's lore counter, 714.3b) waited for them.
    if t == 0:
        return
    same_turn = g.turn(t) == g.turn(t - 1)
    for s in range(UPKEEP, CLEANUP + 1):
        skipped = g.Or(
            g.And(same_turn, g.Not(g.extra_step(t)), g.step(t - 1) < s, s < g.step(t)),
            g.And(g.Not(same_turn), g.step(t - 1) < s),  # the rest of the turn that ended
        )
        waiting = [_waits_for(g, t - 1, a, s) for a in m.abilities(g)]
        if s == MAIN:
            waiting += [
                g.And(g.kind(a) == m.CHAPTER, m.on_battlefield(g, t - 1, c), g.controller(t - 1, c) == g.active(t - 1))
                for c, a in m.printed_abilities(g)
            ]
        yield R(skipped, g.Not(g.Or(*waiting)), f"step {m.STEPS[s]}")


def _waits_for(g, t: int, a: int, step: int):
    """Ability ``a`` exists at ``t`` and would trigger at the beginning of ``step`` of the current turn."""
    out = []
    for kind, (s, yours) in m.BEGINNING_KINDS.items():
        if s != step:
            continue
        mine = m.source_controller(g, t, a) == g.active(t) if yours else True
        out.append(g.And(m.ability_kind(g, a) == kind, mine, m.exists(g, t, a)))
    return g.Or(*out)


@_axiom(
    "117.3",
    "players receive priority in every step but the untap step, and in the cleanup step only once something"
    " has triggered or a state-based action was performed there (514.3a); no long stretch without priority",
)
def priority_moments(g, t: int) -> Iterator[Rule]:
    yield R(g.step(t) == UNTAP, g.Not(g.priority(t)))
    if t == 0:
        yield R(True, g.priority(t))
        return
    # ... unless state-based actions are due first (704.3): then another batch, performing them, follows.
    sba = m.state_based_actions_due(g, t)
    # ... or a resolution goes on (608.2c: its next instruction's events are the next batch).
    going_on_resolving = g.unfinished(t)
    outside = g.And(g.step(t) != UNTAP, g.step(t) != CLEANUP)
    yield R(g.And(g.Not(g.priority(t - 1)), outside, g.Not(sba), g.Not(going_on_resolving)), g.priority(t))
    # 514.3a: in the cleanup step players receive priority only once abilities have triggered there or
    # state-based actions were performed, and then they do.  The abilities trigger (or the state-based actions
    # fall due) in a batch without priority; the next batch is the one in which the active player receives it.
    in_cleanup = g.step(t) == CLEANUP
    waiting = g.Or(*[g.pending(t - 1, a) >= 1 for a in m.abilities(g)])
    performed = g.And(m.state_based_actions_due(g, t - 1), m.state_based_actions_performed(g, t))
    # Once they have it, they keep it while they act; all passing with the stack empty is another cleanup step,
    # a moment without priority again.
    going_on = g.And(g.priority(t - 1), g.step(t - 1) == CLEANUP)
    yield R(g.And(in_cleanup, g.priority(t)), g.Or(waiting, performed, m.stack_size(g, t - 1) >= 1, going_on))
    yield R(g.And(in_cleanup, g.Or(waiting, performed), g.Not(sba), g.Not(going_on_resolving)), g.priority(t))


@_axiom(
    "704.3",
    "whenever a player would receive priority, state-based actions are performed first, all at once; the check repeats",
)
def state_based_actions(g, t: int) -> Iterator[Rule]:
    # Here, not during a resolution (704.4): a batch after which a state-based action is due gives nobody
    # priority; the next batch performs them (704.5a, d, f-g, j, m say what each does), and so on until none is due,
    # and only then do the abilities that triggered meanwhile go on the stack (603.3b's loop).
    yield R(m.state_based_actions_due(g, t), g.Not(g.priority(t)))
    for c in m.cards(g):
        # Damage is marked on permanents, and lethal damage is a creature's; the creature as the printed types and
        # the continuous effects make it (613.1), judged from the environment alone (see m.lethal_damage_due).
        creature = g.Or(g.creature_card(c), g.And(g.land_card(c), g.lands_are_creatures(t)))
        yield R(g.lethal(t, c), g.And(m.on_battlefield(g, t, c), creature), f"card {c}")
    for p in m.players(g):
        yield R(g.no_life(t, p), g.Not(g.left_game(t, p)), f"player {p}")


@_axiom("704.5g", "a creature with lethal damage marked on it (or toughness 0 or less, 704.5f) goes to the graveyard")
def lethal_damage(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for c in m.cards(g):
        # Model bound: nothing regenerates and nothing is indestructible; a replacement effect may still send it
        # elsewhere (dies_replaced).
        destroyed = g.And(m.left_battlefield(g, t, c), g.Or(g.zone(t, c) == GRAVEYARD, g.dies_replaced(t, c)))
        yield R(g.And(m.lethal_damage_due(g, t - 1, c), m.state_based_actions_performed(g, t)), destroyed, f"card {c}")


@_axiom("704.5a", "a player with 0 or less life loses the game")
def no_life_left(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for p in m.players(g):
        yield R(g.And(g.no_life(t - 1, p), m.state_based_actions_performed(g, t)), g.leaves_game(t, p), f"player {p}")


@_axiom("704.5m", "an Aura attached to nothing goes to its owner's graveyard")
def unattached_auras(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for c in m.cards(g):
        gone = g.And(m.left_battlefield(g, t, c), g.zone(t, c) == GRAVEYARD)
        yield R(g.And(m.aura_unattached_due(g, t - 1, c), m.state_based_actions_performed(g, t)), gone, f"card {c}")


@_axiom("704.5d", "a token in a zone other than the battlefield ceases to exist (111.7)")
def tokens_cease_to_exist(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for c in m.cards(g):
        # 111.7: it has left the battlefield (and triggered what it triggered there, 603.6c, 603.10a); the next
        # state-based actions take it out of the game, where it no longer exists ("outside").
        ceases = g.And(m.token_ceases_due(g, t - 1, c), m.state_based_actions_performed(g, t))
        yield R(ceases, g.zone(t, c) == OUTSIDE, f"card {c}")
        # A token leaves the game only so, or with its owner (800.4a).
        arrives = g.And(g.zone(t, c) == OUTSIDE, g.zone(t - 1, c) != OUTSIDE)
        yield R(g.And(g.token(c), arrives), g.Or(ceases, _owner_leaves(g, t, c)), f"card {c}")


@_axiom(
    "704.5j",
    "the legend rule: of two or more legendary permanents with the same name controlled by one player, that player"
    " keeps one; the rest go to their owners' graveyards",
)
def legend_rule(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for c in m.cards(g):
        # The permanents with c's name under c's controller, c among them: all but one (the one its controller
        # chooses) are put into their owners' graveyards.  All state-based actions happen at once (704.3), so the
        # one kept may leave at the same time for another reason (lethal damage, 704.5g) -- or its owner leaves
        # the game (704.5a), taking along what they own (800.4a); a replacement effect may send a creature
        # elsewhere instead of the graveyard (dies_replaced), as for 704.5g.
        members = [m.legend_here(g, t - 1, c) if x == c else m.same_legend(g, t - 1, c, x) for x in m.cards(g)]
        put_away = [
            g.Or(
                g.And(m.left_battlefield(g, t, x), g.Or(g.zone(t, x) == GRAVEYARD, g.dies_replaced(t, x))),
                _owner_leaves(g, t, x),
            )
            for x in m.cards(g)
        ]
        kept = g.count(g.And(member, g.Not(away)) for member, away in zip(members, put_away, strict=True))
        yield R(g.And(m.legend_rule_due(g, t - 1, c), m.state_based_actions_performed(g, t)), kept <= 1, f"card {c}")


@_axiom("111.1", "a token enters the game only by being created: on the battlefield, under its owner's control (111.2)")
def token_creation(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        if t == 0:
            # Before the game shown begins it was created, or it is yet to be.
            yield R(g.token(c), g.Or(m.on_battlefield(g, t, c), g.zone(t, c) == OUTSIDE), f"card {c}")
            continue
        created = g.And(g.token(c), g.zone(t - 1, c) == OUTSIDE, g.zone(t, c) != OUTSIDE)
        in_game = g.Not(m.select(g, [g.left_game(t, p) for p in m.players(g)], g.owner(c)))
        yield R(
            created,
            g.And(m.on_battlefield(g, t, c), g.controller(t, c) == g.owner(c), in_game),
            f"card {c}",
        )


@_axiom("111.8", "a token that has left the battlefield can't move to another zone or come back onto the battlefield")
def tokens_stay_gone(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for c in m.cards(g):
        token = g.token(c)
        # Not back onto the battlefield: a token enters it only from outside the game (created, 111.1), so one
        # exiled and returned at once (a flicker) stays in exile.
        yield R(g.And(token, m.entered_battlefield(g, t, c)), g.zone(t - 1, c) == OUTSIDE, f"card {c}")
        # Nor to another zone: "it remains in its current zone instead", the same object, until it ceases to exist.
        gone = g.And(token, g.zone(t - 1, c) != BATTLEFIELD, g.zone(t - 1, c) != OUTSIDE)
        stays = g.And(g.zone(t, c) == g.zone(t - 1, c), g.since(t, c) == g.since(t - 1, c))
        yield R(gone, g.Or(stays, g.zone(t, c) == OUTSIDE), f"card {c}")


@_axiom("304.4", "an instant or sorcery card can't enter the battlefield: it is never a permanent (307.4)")
def nonpermanent_cards(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        yield R(g.Or(g.instant_card(c), g.sorcery_card(c)), g.zone(t, c) != BATTLEFIELD, f"card {c}")


@_axiom(
    "110.2",
    "status and attachments exist only on the battlefield; control follows ownership elsewhere, and a permanent's"
    " control changes by effects, at any time (during a resolution, or as an effect ends in the cleanup step)",
)
def permanents(g, t: int) -> Iterator[Rule]:
    none = m.attached_none(g)
    for c in m.cards(g):
        on_bf = m.on_battlefield(g, t, c)
        yield R(g.Not(on_bf), g.And(g.Not(g.tapped(t, c)), g.Not(g.phased_out(t, c)), g.attached_to(t, c) == none))
        yield R(True, g.attached_to(t, c) <= none)
        yield R(g.And(g.zone(t, c) != BATTLEFIELD, g.zone(t, c) != STACK), g.controller(t, c) == g.owner(c))
        for x in m.cards(g):
            yield R(g.attached_to(t, c) == x, g.And(x != c, m.on_battlefield(g, t, x)) if x != c else False)
        to_players = [g.combat_damage_to(t, c, p) for p in m.players(g)]
        if t == 0:
            yield R(True, g.And(g.Not(g.damage(t, c)), g.Not(g.dies_replaced(t, c)), g.Not(g.deals_damage(t, c))))
            yield R(True, g.Not(g.Or(*to_players)), f"card {c}")
            continue
        # Combat damage to a player (510.2): dealt by a creature of the active player, the attacking player (506.2),
        # to one other player it attacks (508.1b), as a combat damage step begins: with the stack empty, before
        # anything resolves (510.1-510.3; a second step for first strike, 510.4, is another such batch).
        combat = g.And(
            g.deals_damage(t, c),
            g.eff_creature(t - 1, c),
            g.step(t) == COMBAT_DAMAGE,
            m.stack_size(g, t - 1) == 0,
            g.leave(t) == NO_LEAVE,
            g.controller(t - 1, c) == g.active(t),
        )
        for p, to_p in enumerate(to_players):
            yield R(to_p, g.And(combat, g.active(t) != p), f"card {c}, player {p}")
            for other in to_players[p + 1 :]:
                yield R(to_p, g.Not(other), f"card {c}, player {p}")
        yield R(g.damage(t, c), g.And(m.on_battlefield(g, t - 1, c), g.eff_creature(t - 1, c)), f"card {c}")
        # Damage dealt by a spell is part of its resolution, which the model doesn't follow: only
        # a permanent that is there (phased in) deals damage here.
        yield R(g.deals_damage(t, c), g.And(m.on_battlefield(g, t - 1, c), g.Not(g.phased_out(t - 1, c))), f"card {c}")
        yield R(g.damage_prevented(t, c), g.damage(t, c), f"card {c}")
        yield R(g.dies_replaced(t, c), g.And(m.left_battlefield(g, t, c), g.zone(t, c) != GRAVEYARD), f"card {c}")


@_axiom("509.1h", "an attacking creature becomes blocked as blockers are declared, as the declare blockers step begins")
def becoming_blocked(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        if t == 0:
            yield R(True, g.And(g.Not(g.blocked(t, c)), g.Not(g.was_blocked(t, c))), f"card {c}")
            continue
        # 509.1h: as blockers are declared, at the beginning of the declare blockers step (a batch of it).
        in_combat = g.And(m.begins(g, t), g.step(t) == DECLARE_BLOCKERS, g.turn(t) == g.turn(t - 1))
        stays = g.And(m.on_battlefield(g, t, c), g.Not(m.entered(g, t, c)), g.Not(g.phased_out(t - 1, c)))
        yield R(g.blocked(t, c), g.And(in_combat, stays, g.eff_creature(t - 1, c)), f"card {c}")
        # Blockers are declared once a combat: the same creature doesn't become blocked again until a new
        # combat phase begins (an additional one, 500.8).  Remembered moment to moment (not by looking at
        # every earlier moment) so that one definition serves every moment.
        new_combat = g.And(m.begins(g, t), g.step(t) == BEGINNING_OF_COMBAT)
        earlier = g.And(
            g.turn(t) == g.turn(t - 1), g.Not(new_combat), g.Not(m.entered(g, t, c)), g.was_blocked(t - 1, c)
        )
        yield R(g.blocked(t, c), g.Not(earlier), f"card {c}")
        yield R(True, g.was_blocked(t, c) == g.Or(g.blocked(t, c), earlier), f"card {c}")


@_axiom("113.2c", "an object may have several instances of one ability; each triggers separately")
def ability_instances(g, t: int) -> Iterator[Rule]:
    for c, a in m.printed_abilities(g):
        yield R(True, g.instances(t, a) >= 1, m.printed_about(g, a))
        # Model bound: only effects on permanents give an object more instances (flanking granted by
        # Cavalry Master, Genju's animation); elsewhere an object has the one its card prints.
        yield R(g.Not(m.on_battlefield(g, t, c)), g.instances(t, a) == 1, m.printed_about(g, a))
        # Model bound: 603.8 follows "the ability" of a state trigger as one; several instances of
        # one would each need their own "has it left the stack yet".
        yield R(g.kind(a) == m.NO_CARDS_IN_HAND, g.instances(t, a) == 1, m.printed_about(g, a))
        # Model bound: what an ability's resolutions did this turn (603.2i's action taken, 603.7h's count)
        # is remembered per ability, not per instance, so an ability with such a memory is followed as one instance.
        # (a delayed ability an ability creates comes from its card's first printed ability, which has the card's
        # number: ``d_source``)
        nth = [g.And(g.d_nth(d), g.d_source(d) == c, g.d_cause(d) == m.ABILITY_CAUSE) for d in g.range("delayed")]
        counted = g.Or(g.once_each_turn(a), *(nth if a == c else []))
        yield R(counted, g.instances(t, a) == 1, m.printed_about(g, a))


@_axiom("702.26b", "a phased-out permanent is treated as though it doesn't exist: nothing moves it")
def phased_out_permanents(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    for c in m.cards(g):
        hidden_away = g.And(m.on_battlefield(g, t - 1, c), g.phased_out(t - 1, c))
        stays = g.And(m.on_battlefield(g, t, c), g.Not(m.entered(g, t, c)))
        # Only its owner leaving the game takes it along (800.4a), and that isn't "leaving the battlefield".
        yield R(hidden_away, g.Or(stays, g.zone(t, c) == OUTSIDE), f"card {c}")


@_axiom(
    "800.4a",
    "when a player leaves the game, all objects they own leave it too, the abilities they control on the stack cease"
    " to exist, and nothing stays under their control",
)
def leaving_the_game(g, t: int) -> Iterator[Rule]:
    for p in m.players(g):
        if t == 0:
            yield R(True, g.And(g.Not(g.leaves_game(t, p)), g.Not(g.by_draw(t, p)), g.Not(g.left_game(t, p))))
            continue
        yield R(g.by_draw(t, p), g.leaves_game(t, p))
        yield R(True, g.left_game(t, p) == g.Or(g.left_game(t - 1, p), g.leaves_game(t, p)), f"player {p}")
        yield R(g.leaves_game(t, p), g.Not(g.left_game(t - 1, p)), f"player {p}")  # a player leaves once
        for c in m.cards(g):
            yield R(g.And(g.leaves_game(t, p), g.owner(c) == p), g.zone(t, c) == OUTSIDE, f"player {p}, card {c}")
            # The effects that gave them control of others' permanents end; one still theirs is exiled (800.4a,
            # 800.4b): nothing in the game is controlled by a player who has left it.
            in_play = g.Or(g.zone(t, c) == BATTLEFIELD, g.zone(t, c) == STACK)
            yield R(g.And(g.left_game(t, p), in_play), g.controller(t, c) != p, f"player {p}, card {c}")
        # A spell they control and don't own is exiled (800.4a: "objects still controlled by that player").
        for s in m.slots(g):
            for c in m.cards(g):
                theirs = g.And(g.slot_src(t - 1, s) == m.spell_code(g, c), g.slot_controller(t - 1, s) == p)
                exiled = g.And(g.leaves_game(t, p), theirs, g.owner(c) != p, g.Not(_owner_leaves(g, t, c)))
                yield R(exiled, g.zone(t, c) == EXILE, f"player {p}, slot {s}, card {c}")
        # Their abilities on the stack cease to exist (800.4a); none of theirs is put on it (800.4d).
        # (``ceased`` counts the objects taken along; 405.1 closes up the stack above them.)
        for s in m.slots(g):
            yield R(
                g.And(g.left_game(t, p), g.slot_src(t, s) != 0), g.slot_controller(t, s) != p, f"player {p}, slot {s}"
            )
    yield R(True, g.ceased(t) == m.ceased_value(g, t))
    for c in m.cards(g):
        # A card is in the game from the start; a token may be yet to be created (111.1 says how it arrives, and
        # 704.5d how else it leaves).
        card = g.Not(g.token(c))
        if t == 0:
            yield R(card, g.zone(t, c) != OUTSIDE)
        else:
            arrives = g.And(g.zone(t, c) == OUTSIDE, g.zone(t - 1, c) != OUTSIDE)
            yield R(g.And(card, arrives), _owner_leaves(g, t, c), f"card {c}")
            yield R(g.And(card, g.zone(t - 1, c) == OUTSIDE), g.zone(t, c) == OUTSIDE, f"card {c}")


@_axiom(
    "800.4d",
    "a triggered ability that would be controlled by a player who has left the game isn't put on the stack",
)
def left_players_abilities(g, t: int) -> Iterator[Rule]:
    left = [g.left_game(t, p) for p in m.players(g)]
    if t == 0:
        yield R(True, g.And(*[g.dropped(t, a) == 0 for a in m.abilities(g)]))
        return
    for a in m.abilities(g):
        # The instances that would go on the stack now: those that waited, under the controller they triggered
        # with, and those that trigger in this batch (603.3, 603.3a); a delayed ability's is its creator (603.7d-f).
        waited = g.If(m.select(g, left, g.waiting_controller(t - 1, a)), g.pending(t - 1, a), 0)
        fresh = g.If(m.select(g, left, g.trigger_controller(t, a)), g.triggers(t, a), 0)
        put_now = g.And(g.priority(t), g.Not(_mana_ability(g, a)))  # (a mana ability never goes on it, 605.4a)
        yield R(True, g.dropped(t, a) == g.If(put_now, waited + fresh, 0), f"ability {a}")


def _owner_leaves(g, t: int, c: int):
    """The owner of ``c`` leaves the game in batch ``t`` (800.4a takes ``c`` along)."""
    return m.select(g, [g.leaves_game(t, p) for p in m.players(g)], g.owner(c))


@_axiom("613.1", "continuous effects apply to permanents that stay on the battlefield")
def continuous_effects(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        stays = g.And(m.on_battlefield(g, t, c), g.Not(m.entered(g, t, c))) if t > 0 else m.on_battlefield(g, t, c)
        yield R(stays, effective_characteristics(g, t, c), f"card {c}")


def effective_characteristics(g, t: int, c: int):
    """A permanent's characteristics with this moment's continuous effects applied.

    Layer order is simplified: "lose all abilities" is taken to be the later effect, so
    it beats a granted ability.
    """
    creature = g.Or(g.creature_card(c), g.And(g.land_card(c), g.lands_are_creatures(t)))
    lost = g.And(g.creatures_lose_abilities(t), creature)
    return g.And(
        g.eff_creature(t, c) == creature,
        *[
            g.eff_ability(t, a) == g.And(g.If(g.granted(a), g.grant_ability(t), True), g.Not(lost))
            for a in m.printed_of(g, c)
        ],
    )


def printed_characteristics(g, t: int, c: int):
    """Off the battlefield a card has only what is printed on it."""
    return g.And(
        g.eff_creature(t, c) == g.creature_card(c),
        *[g.eff_ability(t, a) == g.Not(g.granted(a)) for a in m.printed_of(g, c)],
    )


SLOT_ATTRIBUTES = ("slot_src", "slot_controller", "slot_moment", "slot_zone", "slot_object", "slot_subject")


@_axiom(
    "405.1",
    "the stack: objects are added on top and leave from the top (or with a player leaving the game, 800.4a); each card"
    " on it is a spell",
)
def stack(g, t: int) -> Iterator[Rule]:
    size = m.stack_size(g, t)
    yield R(True, size <= g.size("slot"), room=SLOTS)
    last_code = m.spell_code(g, g.size("card") - 1)
    for s in m.slots(g):
        yield R(True, g.And((g.slot_src(t, s) == 0) == (size <= s), g.slot_src(t, s) <= last_code), f"slot {s}")
        empty = g.And(
            g.slot_controller(t, s) == 0,
            g.slot_moment(t, s) == 0,
            g.slot_zone(t, s) == 0,
            g.slot_object(t, s) == 0,
            g.slot_subject(t, s) == 0,
        )
        yield R(g.slot_src(t, s) == 0, empty, f"slot {s}")
    for c in m.cards(g):
        code = m.spell_code(g, c)
        yield R(True, (g.zone(t, c) == STACK) == g.Or(*[g.slot_src(t, s) == code for s in m.slots(g)]), f"card {c}")
        # A card on the stack is one object, one spell (112.1, 601.2a: casting moves that card to the
        # stack); the model has no copies of spells (707.10), so no two slots hold the same card.
        for s1 in m.slots(g):
            for s2 in m.slots(g):
                if s1 < s2:
                    yield R(g.slot_src(t, s1) == code, g.slot_src(t, s2) != code, f"card {c}, slots {s1}<{s2}")
    if t == 0:
        yield R(
            True,
            g.And(size == 0, g.leave(t) == NO_LEAVE, g.Not(g.countered_now(t)), g.Not(g.removed_now(t))),
        )
        yield R(True, g.Not(g.targets_illegal(t)))
        return
    yield R(g.leave(t) != NO_LEAVE, g.And(m.stack_size(g, t - 1) >= 1, g.priority(t - 1)))
    kept = m.kept(g, t)
    yield R(True, size >= kept)
    for s0 in m.slots(g):
        # Each object still there keeps its place, below the new ones; those a player leaving the game took
        # along (800.4a) leave a gap the ones above them close.
        below = m.survivors_below(g, t, s0)
        for s in m.slots(g):
            if s <= s0:
                same = g.And(*[g.var(name, t, s) == g.var(name, t - 1, s0) for name in SLOT_ATTRIBUTES])
                yield R(g.And(m.survives(g, t, s0), below == s), same, f"slot {s0} to {s}")
    for s in m.slots(g):
        new = m.new_slot(g, t, s)
        src = g.slot_src(t, s)
        # A new object is a spell being cast (its card arrives on the stack) or a triggered ability.
        for c in m.cards(g):
            yield R(
                g.And(new, src == m.spell_code(g, c)),
                # Cast by a player who had priority before the batch (117.1a) and has it after.
                g.And(
                    g.zone(t - 1, c) != STACK,
                    g.slot_controller(t, s) == g.controller(t, c),
                    g.priority(t - 1),
                    g.priority(t),
                ),
                f"slot {s}",
            )
        # An ability goes on the stack in the batch it triggered in, or, having waited, in the first batch after
        # it in which a player would receive priority (603.3): its instance is labelled with the batch it
        # triggered in, and keeps the controller (603.3a) and the zone of its object (603.6) of that moment.
        for a in m.abilities(g):
            origin = g.slot_moment(t, s)
            now = g.And(
                origin == t,
                g.slot_controller(t, s) == g.trigger_controller(t, a),
                g.slot_zone(t, s) == _source_zone(g, t, a),
                g.slot_object(t, s) == _source_object(g, t, a),
            )
            # ... a batch since the first of those that wait in which it did trigger (405.1's label is exact).
            triggered_then = g.earlier(origin, t, "triggers", a) >= 1
            waited = g.And(
                origin >= g.waiting_since(t - 1, a),
                triggered_then,
                g.slot_controller(t, s) == g.waiting_controller(t - 1, a),
                g.slot_zone(t, s) == g.waiting_zone(t - 1, a),
                g.slot_object(t, s) == g.waiting_object(t - 1, a),
            )
            yield R(g.And(new, src == m.ability_code(a)), g.Or(now, waited), f"slot {s}, ability {a}")
            yield R(g.And(new, src == m.ability_code(a)), _carries_its_object(g, t, s, a), f"slot {s}, ability {a}")
    # A spell cast in this batch was cast before the abilities that go on the stack as a player
    # next receives priority (117.3), so it is below them.
    n_codes = g.size("ability")
    for s1 in m.slots(g):
        for s2 in m.slots(g):
            if s1 < s2:
                yield R(
                    g.And(m.new_slot(g, t, s1), m.new_slot(g, t, s2), g.slot_src(t, s1) <= n_codes),
                    g.slot_src(t, s2) <= n_codes,
                    f"slots {s1}<{s2}",
                )
    yield from _one_instance_per_object(g, t)
    for a in m.abilities(g):
        mine = m.new_instance_slots(g, t, a)
        yield R(True, g.placed(t, a) == g.count(mine), f"ability {a}", room=SLOTS)  # (no more than the slots)
        # Each new instance is labelled with the batch it triggered in, within that batch's count.
        yield R(
            True,
            g.count(g.And(x, g.slot_moment(t, s) == t) for s, x in enumerate(mine)) <= g.triggers(t, a),
            f"ability {a}",
        )
        yield R(
            True,
            g.count(g.And(x, g.slot_moment(t, s) < t) for s, x in enumerate(mine)) <= g.pending(t - 1, a),
            f"ability {a}",
        )
    # The top object leaves only by resolving or by being countered.
    uncounterable_top = g.Or(
        *[
            g.And(m.top(g, t - 1, "slot_src") == m.ability_code(a), g.uncounterable(a))
            for _, a in m.printed_abilities(g)
        ]
    )
    yield R(
        True,
        g.countered_now(t) == g.And(g.leave(t) == COUNTER, g.Not(g.And(uncounterable_top, g.instruction_works(t)))),
    )
    for c in m.cards(g):
        top_is_spell = g.And(m.stack_size(g, t - 1) >= 1, m.top(g, t - 1, "slot_src") == m.spell_code(g, c))
        # (Unless its owner leaves the game in that batch, taking the card along: 800.4a.)
        top_is_spell = g.And(top_is_spell, g.Not(_owner_leaves(g, t, c)))
        yield R(
            g.And(top_is_spell, g.leave(t) == RESOLVE),
            g.Or(g.zone(t, c) == BATTLEFIELD, g.zone(t, c) == GRAVEYARD),
            f"card {c}",
        )
        yield R(g.And(top_is_spell, g.countered_now(t)), g.zone(t, c) == GRAVEYARD, f"card {c}")
        yield R(g.And(g.zone(t, c) == STACK, g.zone(t - 1, c) != STACK), g.zone(t - 1, c) == HAND, f"card {c}")


def _top_is_ability(g, t: int):
    return g.Or(*[m.tries_to_resolve_ability(g, t, a) for a in m.abilities(g)])


@_axiom("608.1", "when every player passes in succession, the top object resolves")
def top_resolves(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    # Only a rule takes the object off the stack without resolving it: 603.4 and 608.2b say when.
    yield R(g.removed_now(t), _top_is_ability(g, t))
    yield R(g.Not(exempt(g, "608.1", t)), g.Not(g.removed_now(t)))


def _all_targets_illegal(g, t: int):
    return g.And(g.targets_illegal(t), _top_is_ability(g, t))


@_axiom(
    "608.2b",
    "an ability whose targets are all illegal as it tries to resolve doesn't resolve: it is removed from the stack",
    overrides={"608.1": _all_targets_illegal},
)
def illegal_targets(g, t: int) -> Iterator[Rule]:
    if t == 0:
        return
    # Only an ability that targets has targets to lose (the model's spells have none): printed, delayed, reflexive.
    targeted_top = g.Or(*[g.And(m.tries_to_resolve_ability(g, t, a), m.targets(g, a)) for a in m.abilities(g)])
    yield R(g.targets_illegal(t), targeted_top)
    yield R(_all_targets_illegal(g, t), g.removed_now(t))


@_axiom(
    "608.2c",
    "the instructions are followed in the order written: a resolution's later events are later batches, with no"
    " priority in between",
)
def instructions_followed(g, t: int) -> Iterator[Rule]:
    # Each instruction's events happen in order, each a batch in which abilities trigger (603.2), so a
    # resolution whose events are in order spans batches: the one in which the object leaves the stack, then
    # one per later instruction.  A turn-based action (703.4) may span batches the same way.  Nobody receives
    # priority until it is finished (117.3's rule then resumes), so nothing is cast, nothing resolves, no step
    # begins and nothing goes on the stack in between (603.3: what triggered waits).
    if t == 0:
        yield R(True, g.Not(g.unfinished(t)))
        return
    # After the top object left by resolving -- also one that 603.4 or 608.2b then removes: the model does not
    # know an ability's instructions, so it cannot tell one that has none left; tied to the removal here, the
    # environment's choice would contradict 603.4 (the audit found that).  A bound that lets in more games.
    resolves_now = g.And(g.leave(t) == RESOLVE, m.stack_size(g, t - 1) >= 1)
    yield R(g.unfinished(t), g.Or(resolves_now, g.unfinished(t - 1), m.begins(g, t)))
    yield R(g.unfinished(t), g.Not(g.priority(t)))
    yield R(g.unfinished(t - 1), g.And(g.Not(m.begins(g, t)), g.turn(t) == g.turn(t - 1)))


@_axiom("608.2", "a resolving ability does what its effect says")
def resolution(g, t: int) -> Iterator[Rule]:
    resolving_any = g.Or(*[m.resolving_ability(g, t, a) for a in m.abilities(g)])
    yield R(g.Not(resolving_any), g.Not(g.acts(t)))
    # An ability whose effect is what it does to its objects acts only if some object it names can be affected:
    # each object may be set aside by a different clause (the enchanted card hidden, 603.6; the Aura card not in
    # the graveyard, 603.6e), so "none can be" is not any one clause's exception.
    # One that also does something else (``other_effect``) does that part whatever becomes of its objects.
    some_can = g.Or(*[g.And(m.names_object(g, t, c), g.Not(exempt(g, "608.2", t, c))) for c in m.cards(g)])
    more = m.also_does_something_else(g, t)
    yield R(
        g.And(resolving_any, g.Not(exempt(g, "608.2", t)), g.Or(g.Not(m.names_objects(g, t)), some_can, more)),
        g.acts(t),
    )
    # What it does to objects, object by object: each object its effect names is affected, unless a rule says
    # that one can't be (603.6e, 603.7c: ``exempt`` with the card), or the whole ability does nothing (603.4, 603.5,
    # 603.6, 608.2c); nothing else is.  An ability whose effect is what it does to its objects does something only
    # if it affects one of them ("return the exiled cards" with none left in exile does nothing).
    for c in m.cards(g):
        named = m.names_object(g, t, c)
        yield R(g.And(named, g.Not(exempt(g, "608.2", t, c))), g.affects(t, c), f"card {c}")
        yield R(g.affects(t, c), g.And(named, g.acts(t)), f"card {c}")
    yield R(g.And(m.names_objects(g, t), g.acts(t), g.Not(more)), g.Or(*[g.affects(t, c) for c in m.cards(g)]))
    # The instructed action (e.g. "you may sacrifice a creature") is part of the effect: an ability that
    # does nothing takes it no times (``m.actions_taken``).  ``actions_by_effect`` is how many times the
    # effect would take it, a choice made whatever the rules then decide ``acts`` to be; tied to ``acts``
    # here, it would let the environment contradict a clause that stops the effect (603.5, 603.6e, 603.7c).
    # Without an ability that tries to resolve there is no such choice; one that a rule then removes from the
    # stack (603.4, 608.2b) takes it no times either, through ``acts`` -- tied to its removal here, the
    # environment's choice would contradict 603.4 (the audit found that).
    trying_any = g.Or(*[m.tries_to_resolve_ability(g, t, a) for a in m.abilities(g)])
    yield R(g.Not(trying_any), g.actions_by_effect(t) == 0)
    if t == 0:
        return
    # Where its text says it moves the objects it acts on ("return it to its owner's hand": ``moves_to``), each it
    # finds goes; one it doesn't find stays where it is (400.7), which the script's events say.
    dest = m.effect_destination(g, t)
    zone = m.destination_zone(g, dest)
    for c in m.cards(g):
        moved = m.moved_by_effect(g, t, c, dest)
        yield R(moved, g.zone(t, c) == zone, f"card {c}")
        # "Under your control": the ability's controller's, not its owner's (110.2).
        yours = g.And(moved, dest == m.YOUR_BATTLEFIELD, g.zone(t - 1, c) != m.BATTLEFIELD)
        yield R(yours, g.controller(t, c) == m.top(g, t - 1, "slot_controller"), f"card {c}")


@_axiom("model.pending", "bookkeeping: triggered instances wait until they are put on the stack")
def bookkeeping(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        if t == 0:
            yield R(
                True,
                g.And(
                    g.waiting_since(t, a) == 0,
                    g.waiting_controller(t, a) == 0,
                    g.waiting_zone(t, a) == 0,
                    g.waiting_object(t, a) == 0,
                    g.triggers(t, a) == 0,
                    _none_waits_or_goes_on(g, t, a),
                ),
                f"ability {a}",
            )
            continue
        yield R(
            g.Not(_mana_ability(g, a)),
            g.pending(t, a) + g.placed(t, a) + g.removed(t, a) + g.skipped(t, a) + g.dropped(t, a)
            == g.pending(t - 1, a) + g.triggers(t, a),
            f"ability {a}",
        )
        # What its waiting instances remember of the batch they triggered in (405.1 labels them with it), carried
        # moment to moment so that no definition looks back over every earlier moment.
        # Instances that trigger while earlier ones wait join them (a resolution's events in order, state-based
        # actions performed meanwhile): the ability remembers the first batch of those that wait.
        fresh = g.And(g.triggers(t, a) >= 1, g.pending(t - 1, a) == 0)
        yield R(
            True,
            g.And(
                g.waiting_since(t, a) == g.If(fresh, t, g.waiting_since(t - 1, a)),
                g.waiting_controller(t, a) == g.If(fresh, g.trigger_controller(t, a), g.waiting_controller(t - 1, a)),
                g.waiting_zone(t, a) == g.If(fresh, _source_zone(g, t, a), g.waiting_zone(t - 1, a)),
                g.waiting_object(t, a) == g.If(fresh, _source_object(g, t, a), g.waiting_object(t - 1, a)),
            ),
            f"ability {a}",
        )
        # Model bound: the instances of one ability that wait at once have one controller and one zone of their
        # source, which stayed the same object (an ability whose source moves or changes control between two
        # batches in which it triggers, with no priority between them, is beyond the model); each waiting
        # instance is labelled with a batch since the first of them (405.1).  Marked as room: the audit sets it
        # aside to tell the model's limits from the rules'.
        yield R(
            g.And(g.pending(t - 1, a) >= 1, g.Not(g.priority(t)), g.triggers(t, a) >= 1),
            _joins_the_waiting(g, t, a),
            f"ability {a}",
            room=MODEL_BOUND,
        )
        # Only a printed optional ability could be left off the stack; 603.5 says whether it is.
        optional = g.optional(a) if m.ability_class(g, a)[0] == "printed" else False
        yield R(g.Not(optional), g.skipped(t, a) == 0, f"ability {a}")
        yield R(g.Not(g.counts_additional(t, a)), g.triggers(t, a) == g.base_triggers(t, a), f"ability {a}")
    for _, a in m.printed_abilities(g):
        for x in m.cards(g):  # the objects its event happened to, for one that acts on them
            yield R(True, g.triggered_by(t, a, x) == m.triggered_by_value(g, t, a, x), f"ability {a}, card {x}")
        res = m.resolving_ability(g, t, a)
        if t == 0:
            yield R(True, g.And(g.resolutions(t, a) == 0, *[g.Not(g.done_this_turn(t, a, p)) for p in m.players(g)]))
            continue
        same_turn = g.turn(t) == g.turn(t - 1)
        before = m.resolutions_carried(g, t, a)
        yield R(True, g.resolutions(t, a) == before + g.If(m.resolution_counted(g, t, a), 1, 0), m.printed_about(g, a))
        # The action is taken by whoever controls the ability as it resolves (603.2i asks about that player).
        for p in m.players(g):
            took = g.And(res, g.acts(t), m.top(g, t - 1, "slot_controller") == p)
            yield R(
                True,
                g.done_this_turn(t, a, p) == g.Or(g.And(same_turn, g.done_this_turn(t - 1, a, p)), took),
                m.printed_about(g, a),
            )
    for d in g.range("delayed"):
        if t == 0:
            yield R(True, g.Not(g.registered(t, d)))
            continue
        created = m.delayed_created(g, t, d)
        # What a delayed ability refers to is fixed when it is created, and stays with its instances: each object
        # it refers to, as it is then (400.7), and where it is then, the zone it is expected to be in (603.7c).
        yield R(g.Not(created), g.d_controller(t, d) == g.d_controller(t - 1, d), f"delayed {d}")
        for c in m.cards(g):
            kept = g.And(g.d_stamp(t, d, c) == g.d_stamp(t - 1, d, c), g.d_zone(t, d, c) == g.d_zone(t - 1, d, c))
            now = g.If(
                g.d_refers(d, c),
                g.And(g.d_stamp(t, d, c) == g.since(t, c), g.d_zone(t, d, c) == g.zone(t, c)),
                g.And(g.d_stamp(t, d, c) == 0, g.d_zone(t, d, c) == LIBRARY),
            )
            yield R(True, g.If(created, now, kept), f"delayed {d}, card {c}")


@_axiom(
    "model.delayed_reuse", "bookkeeping: a delayed ability is created again only once its earlier instances are gone"
)
def delayed_reuse(g, t: int) -> Iterator[Rule]:
    # Model bound: the model holds one delayed ability per slot, and its instances are counted as that ability's,
    # so a second one created while instances of the first wait or are on the stack is beyond the model (one
    # created while the first still exists cannot even be written: ``registered`` is on).  Marked as room.
    if t == 0:
        return
    for d in g.range("delayed"):
        yield R(
            m.delayed_created(g, t, d),
            m.outstanding(g, t - 1, m.delayed(g, d)) == 0,
            f"delayed {d}",
            room=MODEL_BOUND,
        )
        # ... and so is its creator's text creating it again while the first still exists.
        yield R(m.made_by_its_creator(g, t, d), g.Not(g.registered(t - 1, d)), f"delayed {d}", room=MODEL_BOUND)


@_axiom(
    "text.creates_delayed",
    "a spell or ability whose text creates a delayed triggered ability creates it as it resolves (608.2)",
)
def creates_delayed(g, t: int) -> Iterator[Rule]:
    # "At the beginning of the next end step, return that card": the card's text, not the script, creates it
    # (603.7a, 603.7d-e); an ability does so when it does what it says, and one that waits for its creator's Nth
    # resolution only then (603.7h).  A replacement effect or an allowed action creates one as the script says.
    if t == 0:
        return
    for d in g.range("delayed"):
        made = g.And(m.made_by_its_creator(g, t, d), g.Not(g.registered(t - 1, d)))
        yield R(made, m.delayed_created(g, t, d), f"delayed {d}")
        # ... and only as it resolves: an ability that did nothing (removed, declined, its object gone) creates none.
        # (Which of its resolutions, for one that waits for the Nth, is 603.7h's to say.)
        by_text = g.Or(g.d_cause(d) == m.SPELL_CAUSE, g.d_cause(d) == m.ABILITY_CAUSE)
        yield R(g.And(by_text, m.delayed_created(g, t, d)), m.creator_does_it(g, t, d), f"delayed {d}")


@_axiom(
    "model.delayed",
    "a delayed ability whose trigger condition names an object ('when that creature leaves the battlefield') refers"
    " to that one object",
)
def delayed_subject(g, t: int) -> Iterator[Rule]:
    # Model bound: the trigger condition's "this" is the object the ability refers to (``m.subject``); an ability
    # that watches one object and does something to others ("when that creature leaves, return the exiled card")
    # is beyond the model.
    if t > 0:
        return
    for d in g.range("delayed"):
        names_one = m.is_kind(g, m.delayed(g, d), m.NAMES_AN_OBJECT)
        yield R(names_one, g.count(g.d_refers(d, c) for c in m.cards(g)) == 1, f"delayed {d}")


def _carries_its_object(g, t: int, s: int, a: int):
    """A new instance of ``a`` in slot ``s`` carries the object its event happened to, if it acts on that
    (``acts_on_that``) or its intervening "if" speaks of it (``if_about_that``): one whose event its condition
    counted in the batch it triggered in (``triggered_by``).  Any other carries none."""
    if m.ability_class(g, a)[0] != "printed":
        return g.slot_subject(t, s) == 0
    origin = g.slot_moment(t, s)
    counted = [m.at_label(g, t, origin, "triggered_by", a, c, default=False) for c in m.cards(g)]
    carries = g.Or(*[g.And(g.slot_subject(t, s) == c, counted[c]) for c in m.cards(g)])
    return g.If(m.carries_its_object(g, a), carries, g.slot_subject(t, s) == 0)


def _one_instance_per_object(g, t: int) -> Iterator[Rule]:
    """603.2c: an ability that acts on the object its event happened to triggers once for each such object, so two
    of its instances from one batch, put on the stack together, carry different objects -- unless it triggered more
    times than there were objects then (113.2c's instances, 603.2d's "additional time").  Instances of one batch put
    on the stack at different times are not compared (a model bound: docs/model.md)."""

    for a in range(m.printed_count(g)):

        def objects(label, a=a):
            return g.count(m.at_label(g, t, label, "triggered_by", a, c, default=False) for c in m.cards(g))

        for s1, s2, apart in m.carried_apart(g, t, a, objects):
            yield R(
                g.And(m.carries_its_object(g, a), apart),
                g.slot_subject(t, s1) != g.slot_subject(t, s2),
                f"ability {a}, slots {s1}<{s2}",
            )


def _joins_the_waiting(g, t: int, a: int):
    """Instances of ``a`` triggering at ``t`` are like those that wait: same controller, same object in the
    same zone (603.3a, 603.6)."""
    same = [
        g.trigger_controller(t, a) == g.waiting_controller(t - 1, a),
        _source_zone(g, t, a) == g.waiting_zone(t - 1, a),
        _source_object(g, t, a) == g.waiting_object(t - 1, a),
    ]
    if m.ability_class(g, a)[0] == "printed":
        same.append(g.since(t, m.source_card(g, a)) <= g.waiting_since(t - 1, a))
    return g.And(*same)


def _mana_ability(g, a: int):
    return g.mana_ability(a) if m.ability_class(g, a)[0] == "printed" else False


@_axiom("605.1b", "a triggered mana ability triggers from a mana ability, has no target, and could add mana")
def triggered_mana_abilities(g, t: int) -> Iterator[Rule]:
    if t > 0:
        return
    for _, a in m.printed_abilities(g):
        yield R(
            g.mana_ability(a),
            # Model bound: a mana ability's resolution isn't followed, so nothing would remember its
            # "do this only once each turn".
            g.And(
                g.kind(a) == m.ENCHANTED_TAPPED_FOR_MANA,
                g.Not(g.targeted(a)),
                g.Not(g.modal(a)),
                g.Not(g.once_each_turn(a)),
            ),
            m.printed_about(g, a),
        )


def _none_waits_or_goes_on(g, t: int, a: int):
    """No instance of ability ``a`` waits at ``t``, nor is put on the stack, removed, skipped or dropped then."""
    return g.And(*[g.var(name, t, a) == 0 for name in ("pending", "placed", "removed", "skipped", "dropped")])


@_axiom("605.4a", "a triggered mana ability resolves at once: it never waits for priority or uses the stack")
def mana_abilities_resolve_at_once(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):
        yield R(
            g.mana_ability(a),
            _none_waits_or_goes_on(g, t, a),
            m.printed_about(g, a),
        )


@_axiom("106.12", "to tap a permanent for mana is to activate its mana ability with {T} in its cost")
def tapping_for_mana(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        if t == 0:
            yield R(True, g.Not(g.tapped_for_mana(t, c)), f"card {c}")
            continue
        stays = m.same_permanent(g, t, c)
        becomes_tapped = g.And(g.Not(g.tapped(t - 1, c)), g.tapped(t, c), g.Not(g.phased_out(t - 1, c)))
        yield R(g.tapped_for_mana(t, c), g.And(stays, becomes_tapped), f"card {c}")


@_axiom("714.3", "a Saga enters with a lore counter and gets another as its controller's main phase begins")
def lore_counters(g, t: int) -> Iterator[Rule]:
    for c in m.cards(g):
        chapters = [g.kind(a) == m.CHAPTER for a in m.printed_of(g, c)]
        saga = g.Or(*chapters)
        if t == 0:
            yield R(True, (g.final_chapter(c) >= 1) == saga, f"card {c}")  # 714.2d: its chapters
        # Counters exist on permanents only (122.2); the model puts lore counters on Sagas only.
        yield R(g.Or(g.Not(m.on_battlefield(g, t, c)), g.Not(saga)), g.lore(t, c) == 0, f"card {c}")
        if t == 0:
            continue
        # 714.3a: as it enters (an effect that adds counters as it enters may give more).
        yield R(g.And(saga, m.entered_battlefield(g, t, c)), g.lore(t, c) >= 1, f"card {c}")
        stays = m.same_permanent(g, t, c)
        # Model bound: nothing removes lore counters.
        yield R(stays, g.lore(t, c) >= g.lore(t - 1, c), f"card {c}")
        # 714.3b: a turn-based action as its controller's precombat main phase begins, for a Saga with
        # one or more chapter abilities (one that has lost them gets no counter).
        main_begins = g.And(m.begins(g, t), g.step(t) == MAIN, g.active(t) == g.controller(t, c))
        yield R(
            g.And(
                stays,
                main_begins,
                g.Not(g.phased_out(t - 1, c)),
                g.Or(*[g.And(x, g.eff_ability(t - 1, a)) for x, a in zip(chapters, m.printed_of(g, c), strict=True)]),
            ),
            g.lore(t, c) >= g.lore(t - 1, c) + 1,
            f"card {c}",
        )


@_axiom("607.2", "a linked 'this way' trigger sees what its linked static ability did: the first draw it revealed")
def revealing_first_draws(g, t: int) -> Iterator[Rule]:
    for x in m.cards(g):
        if t == 0:
            yield R(True, g.Not(g.revealed_first_draw(t, x)), f"card {x}")
            continue
        drawn = g.And(g.zone(t - 1, x) == LIBRARY, g.zone(t, x) == HAND)
        # The static ability is printed with its linked trigger (603.11), so such a card has both.
        revealer = g.Or(
            *[
                g.And(
                    g.kind(a) == m.REVEALS_LAND_THIS_WAY,
                    m.on_battlefield(g, t - 1, s),
                    m.functions(g, t - 1, a),
                    g.controller(t - 1, s) == g.owner(x),
                )
                for s, a in m.printed_abilities(g)
            ]
        )
        yield R(g.revealed_first_draw(t, x), g.And(drawn, revealer), f"card {x}")


def triggered_this_turn(g, t: int, a: int):
    """Printed ability ``a`` triggered in an earlier batch of this turn, as the ability of the same object (a new
    object has a new ability, 400.7): each batch's object is the one its condition is judged on (look-back).  Read
    from the record carried from moment to moment (``once_triggered_object``), not from the earlier moments."""
    if m.ability_class(g, a)[0] != "printed" or t == 0:
        return False
    c = m.source_card(g, a)
    now = in_view(g, t, a, lambda v: g.since(v, c))
    return g.And(g.turn(t) == g.turn(t - 1), g.once_triggered_object(t - 1, a) == now + 1)


def _limited(g, t: int, a: int):
    return m.ability_class(g, a)[0] == "printed" and g.triggers_once_each_turn(a)


def _triggered_already(g, t: int, a: int):
    return g.And(_limited(g, t, a), triggered_this_turn(g, t, a))


@_axiom(
    "text.triggers_once_each_turn",
    "'This ability triggers only once each turn': once a turn, for one occurrence however many the event has",
    overrides={"603.2": _triggered_already, "603.2c": _limited},
)
def triggers_once_each_turn(g, t: int) -> Iterator[Rule]:
    for _, a in m.printed_abilities(g):  # the record of which object triggered this turn, carried moment to moment
        yield R(True, g.once_triggered_object(t, a) == m.once_triggered_value(g, t, a), m.printed_about(g, a))
    for a in m.abilities(g):
        if m.ability_class(g, a)[0] != "printed":
            continue
        limited = _limited(g, t, a)
        yield R(limited, g.base_triggers(t, a) <= 1, f"ability {a}", witness=g.And(limited, g.matches(t, a) >= 2))
        # (the model remembers one instance's triggering: such an object has one instance of its ability)
        yield R(limited, g.instances(t, a) == 1, f"ability {a}")
        if t >= 1:
            already = _triggered_already(g, t, a)
            yield R(already, g.base_triggers(t, a) == 0, f"ability {a}", witness=g.And(already, g.matches(t, a) >= 1))


@_axiom("113.3", "what each trigger condition means, for conditions rule 603 does not define")
def trigger_conditions(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        for kind in PLAIN_KINDS:
            has_kind = m.ability_kind(g, a) == kind
            if g.known_false(has_kind):
                continue
            actual, attempted = plain_occurrences(g, t, a, kind)
            instances = in_view(g, t, a, lambda v, a=a: m.instances_of(g, v, a))
            actual, attempted = m.per_instance(g, actual, instances), m.per_instance(g, attempted, instances)
            yield R(
                has_kind,
                g.And(g.matches(t, a) == actual, g.attempts(t, a) == attempted),
                f"ability {a}",
            )
        if m.ability_class(g, a)[0] != "reflexive":  # reflexive triggers are defined by 603.12
            yield R(m.ability_kind(g, a) == m.NONE, g.And(g.matches(t, a) == 0, g.attempts(t, a) == 0), f"ability {a}")
        # The additional-trigger effect's own text: where such an effect applies (a permanent with it, under
        # the ability's controller), it refers to the abilities a permanent has, when an artifact or a creature
        # entering makes them trigger.  Without one, no effect refers to anything, and 603.2d has nothing to
        # say.  Whether it also refers to delayed abilities is the question 603.2e answers.
        if m.ability_class(g, a)[0] == "printed":
            c = m.source_card(g, a)
            entering = g.Or(
                g.kind(a) == m.CREATURE_ENTERS,
                g.And(g.kind(a) == m.ENTERS_SELF, g.Or(g.eff_creature(t, c), g.artifact_card(c))),
            )
            refers = g.And(entering, m.on_battlefield(g, t, c), additional_times(g, t, a) >= 1)
            yield R(True, g.counts_additional(t, a) == refers, f"ability {a}")
    for _, a in m.printed_abilities(g):
        if t == 0:  # only a condition about any object of a kind can narrow that object down
            unfiltered = g.And(
                *[g.var(f, a) == m.ANY_SUBJECT for f in m.SUBJECT_FILTERS],
                *[g.subject_subtype(a, x) for x in m.cards(g)],
            )
            yield R(g.Not(m.is_kind(g, a, m.FILTERED_KINDS)), unfiltered, m.printed_about(g, a))
            # "One or more" speaks of several objects of a kind: never of "this" one.
            several = g.And(m.is_kind(g, a, m.FILTERED_KINDS), g.subject_relation(a) != m.THIS_SUBJECT)
            yield R(g.one_or_more(a), several, m.printed_about(g, a))
            for kind, never in m.FILTERS_NOT_TAKEN.items():
                taken = g.And(*[g.var(f, a) != m.SUBJECT_VALUES[f].index(v) for f, vs in never.items() for v in vs])
                yield R(g.kind(a) == kind, taken, m.printed_about(g, a))
        # 603.6c says what a leaves-the-battlefield ability is; for 'from anywhere' it answers no.
        yield R(
            g.kind(a) != m.GRAVEYARD_FROM_ANYWHERE,
            g.is_leaves_ability(t, a) == m.is_kind(g, a, m.LEAVES_KINDS),
            m.printed_about(g, a),
        )


def _prohibition_stops(g, t: int, a: int):
    return g.And(m.card_value(g, "prohibited", t, m.source_card(g, a)), g.prohibition_applies(t, a))


@_axiom(
    "101.2",
    "a 'can't' effect beats a rule that says something happens, where the 'can't' applies",
    overrides={"603.2": _prohibition_stops},
)
def cant_beats_can(g, t: int) -> Iterator[Rule]:
    for a in m.abilities(g):
        yield R(_prohibition_stops(g, t, a), g.base_triggers(t, a) == 0, f"ability {a}")


PLAIN_KINDS = (
    m.DEALT_DAMAGE,
    m.DEALS_DAMAGE,
    m.ENCHANTED_TAPPED_FOR_MANA,
    m.CHAPTER,
    m.REVEALS_LAND_THIS_WAY,
    m.GRAVEYARD_FROM_ANYWHERE,
    m.COUNTERED_SELF,
    m.LOSE_CONTROL,
    m.PHASES_OUT,
    m.UNATTACHED,
    m.ABILITY_TRIGGERS,
    m.SPELL_CAST,
    m.COMBAT_DAMAGE_TO_PLAYER,
    m.CONTROL_GAINED,
)


def _source_object(g, u: int, a: int):
    """The card whose zone change ability ``a``, triggering in batch ``u``, looks for (603.6): its own card; for an
    Aura's "when enchanted permanent leaves", the card of the permanent it was attached to before the batch (603.6e).
    0 for a delayed or reflexive ability."""
    if m.ability_class(g, a)[0] != "printed":
        return 0
    x = m.printed_card(g, a)
    if u == 0:
        return x
    host = g.attached_to(u - 1, x)
    return g.If(g.And(g.kind(a) == m.ENCHANTED_LEAVES, host < g.size("card")), host, x)


def _source_zone(g, u: int, a: int):
    """Zone the ability's object was in at moment ``u``, as it triggered (603.6: where it moved to)."""
    if m.ability_class(g, a)[0] != "printed":
        return 0
    return m.card_value(g, "zone", u, _source_object(g, u, a))


def additional_times(g, t: int, a: int):
    """How many 'triggers an additional time' effects apply to ``a``'s triggering at ``t``."""
    you = m.source_controller(g, t, a)
    return g.count(
        g.And(
            g.doubler(x),
            m.on_battlefield(g, t, x),
            g.Not(g.phased_out(t, x)),  # a phased-out permanent is treated as though it does not exist (702.26b)
            g.eff_ability(t, x),  # (the card's abilities, as its first triggered ability has them: 613.1f's loss)
            g.controller(t, x) == you,
        )
        for x in m.cards(g)
    )


def _combat_damage_to_players(g, t: int, a: int, v: int):
    """The creatures ability ``a``'s condition speaks of that deal combat damage to a player in batch ``t`` (each to
    one player); with "one or more", the players they deal it to: one combat damage event to each player (Storm the
    Vault's ruling, 2018-01-19: it triggers again for damage to more than one player at once)."""

    def to(c, p):
        return g.And(g.combat_damage_to(t, c, p), m.subject_matches(g, a, v, c))

    creatures = g.count(g.Or(*[to(c, p) for p in m.players(g)]) for c in m.cards(g))
    if m.ability_class(g, a)[0] != "printed":
        return creatures
    players = g.count(g.Or(*[to(c, p) for c in m.cards(g)]) for p in m.players(g))
    return g.If(g.one_or_more(a), players, creatures)


def plain_occurrences(g, t: int, a: int, kind: int):
    """(actual, attempted) occurrences matching a trigger condition rule 603 leaves to the card."""
    if t == 0:
        return 0, 0
    cls, i = m.ability_class(g, a)
    src = m.subject(g, a)
    if cls == "reflexive":
        return 0, 0

    def exists_in(v):
        return m.can_trigger(g, t, v, a)

    def mine(name):  # the source card's variable at t-1 and t
        return m.card_value(g, name, t - 1, src), m.card_value(g, name, t, src)

    if kind == m.DEALT_DAMAGE:
        dmg, prevented = m.card_value(g, "damage", t, src), m.card_value(g, "damage_prevented", t, src)
        ok = in_view(g, t, a, exists_in)
        return g.If(g.And(ok, dmg, g.Not(prevented)), 1, 0), g.If(g.And(ok, dmg), 1, 0)
    if kind == m.DEALS_DAMAGE:
        dealt = g.If(g.And(in_view(g, t, a, exists_in), m.card_value(g, "deals_damage", t, src)), 1, 0)
        return dealt, dealt
    if kind == m.ENCHANTED_TAPPED_FOR_MANA:  # "Whenever enchanted land is tapped for mana"
        host = m.card_value(g, "attached_to", t, src)
        tapped = g.count(g.And(host == x, g.tapped_for_mana(t, x)) for x in m.cards(g))
        n = g.If(in_view(g, t, a, exists_in), tapped, 0)
        return n, n
    if kind == m.CHAPTER:  # 714.2b: as lore counters reach a chapter number, that chapter's ability triggers
        before = g.If(m.for_card(g, src, lambda c: m.entered(g, t, c)), 0, m.card_value(g, "lore", t - 1, src))
        now, final = m.card_value(g, "lore", t, src), m.card_value(g, "final_chapter", None, src)
        reached = g.count(g.And(n <= final, before < n, n <= now) for n in range(1, m.MAX_CHAPTER + 1))
        n = g.If(in_view(g, t, a, exists_in), reached, 0)
        return n, n
    if kind == m.REVEALS_LAND_THIS_WAY:  # "Whenever you reveal a land card this way" (linked, 607.2)
        # The static ability its trigger is linked to is the card's own: it must have been there, on the
        # battlefield, as the card was drawn (a delayed or reflexive ability has no such static ability).
        revealed = m.ability_class(g, a)[0] == "printed" and g.And(
            m.on_battlefield(g, t - 1, src), m.functions(g, t - 1, a)
        )

        def lands(v):
            you = m.source_controller(g, v, a)
            shown = g.count(g.And(g.revealed_first_draw(t, x), g.land_card(x), g.owner(x) == you) for x in m.cards(g))
            return g.If(g.And(exists_in(v), revealed), shown, 0)

        n = in_view(g, t, a, lands)
        return n, n
    if kind == m.GRAVEYARD_FROM_ANYWHERE:

        def count(v):
            return g.If(
                exists_in(v),
                g.count(m.event_object_of(g, kind, t, v, a, c) for c in m.cards(g)),
                0,
            )

        n = in_view(g, t, a, lambda v: m.batched(g, a, count(v)))
        return n, n
    if kind == m.SPELL_CAST:  # each card put on the stack in the batch: cast (601.2a), and cast once (601.2i)

        def cast(v):
            spells = g.count(
                g.And(m.spell_put_on_stack(g, t, c), m.subject_matches(g, a, v, c, on_stack=True)) for c in m.cards(g)
            )
            return g.If(exists_in(v), spells, 0)

        n = in_view(g, t, a, lambda v: m.batched(g, a, cast(v)))
        return n, n
    if kind == m.COMBAT_DAMAGE_TO_PLAYER:
        n = in_view(g, t, a, lambda v: g.If(exists_in(v), _combat_damage_to_players(g, t, a, v), 0))
        return n, n
    if kind == m.COUNTERED_SELF:
        hit = g.Or(
            *[
                g.And(
                    src == c,
                    g.countered_now(t),
                    m.stack_size(g, t - 1) >= 1,
                    m.top(g, t - 1, "slot_src") == m.spell_code(g, c),
                )
                for c in m.cards(g)
            ]
        )
        n = g.If(g.And(hit, in_view(g, t, a, exists_in)), 1, 0)
        return n, n
    if kind == m.LOSE_CONTROL:
        (c0, c1), (z0, z1) = mine("controller"), mine("zone")
        same = g.And(z0 == BATTLEFIELD, z1 == BATTLEFIELD, m.card_value(g, "since", t, src) != t)
        # Its controller loses control of it as another player gains control, and as it leaves the battlefield
        # (Gustha's Scepter's ruling).  "You" is the ability's controller in the view: the old controller looking back.
        left = m.for_card(g, src, lambda c: m.left_battlefield(g, t, c))
        n = g.If(
            g.And(
                g.Or(g.And(same, c0 != c1), left),
                in_view(g, t, a, exists_in),
                # "You": the ability's controller (a delayed ability's own, 603.7d-f) is who controlled it.
                in_view(g, t, a, lambda v: m.source_controller(g, v, a)) == c0,
            ),
            1,
            0,
        )
        return n, n
    if kind == m.CONTROL_GAINED:
        # "Whenever an opponent gains control of a permanent from you": each permanent that stayed (the same object,
        # not phased out) and went from the ability's controller, as it was before the event (603.10d looks back),
        # to another player -- every other player is an opponent (102.2).
        def gained(v):
            you = m.source_controller(g, v, a)
            return g.count(
                g.And(
                    m.same_permanent(g, t, x),
                    g.Not(g.phased_out(t - 1, x)),
                    g.controller(t - 1, x) == you,
                    g.controller(t, x) != you,
                )
                for x in m.cards(g)
            )

        n = in_view(g, t, a, lambda v: g.If(exists_in(v), gained(v), 0))
        return n, n
    if kind == m.PHASES_OUT:
        p0, p1 = mine("phased_out")
        n = g.If(g.And(g.Not(p0), p1, in_view(g, t, a, exists_in)), 1, 0)
        return n, n
    if kind == m.UNATTACHED:
        none = m.attached_none(g)
        a0, a1 = mine("attached_to")
        n = g.If(
            # Moved to another permanent, it became unattached from the first (Grafted Exoskeleton's ruling).
            g.And(a0 != none, g.Or(a1 != a0, m.card_value(g, "since", t, src) == t), in_view(g, t, a, exists_in)),
            1,
            0,
        )
        return n, n
    if kind == m.ABILITY_TRIGGERS:
        # Other abilities triggering, of any class; abilities of this same kind are left out so
        # that two of them cannot trigger each other from nothing.
        others = g.Sum(
            g.If(m.ability_kind(g, b) != m.ABILITY_TRIGGERS, g.triggers(t, b), 0) for b in m.abilities(g) if b != a
        )
        n = g.If(in_view(g, t, a, exists_in), others, 0)
        return n, n
    raise AssertionError(kind)
