"""Game features some editions of the rule don't govern, each with the constraint that switches it off.

Every edition is verified on the current game model (models/game.py).  Some parts of that
model only exist because a clause of the current rule governs them: reflexive abilities
(603.12), "triggers an additional time" (603.2d), "Do this only once each turn" (603.2i), ...
An older edition without such a clause says nothing about them, so the model leaves them
unconstrained there -- a reflexive ability would trigger out of nothing -- and every
counterexample built on that is noise for a rules manager.

Which features an edition lacks is a reviewed decision, committed as data in the edition's
``encodings-<id>.toml`` (``[features]``: name = reason).  The edition is then built with the
game-model rule ``model.features`` (see ``rule603._internal.editions.build_edition``), which
forces each absent feature off with the function defined here, once, in the game's words.
The current edition has every feature.
"""

from __future__ import annotations

from collections.abc import Iterator

from rule603 import Rule
from rule603._internal.registry import GameFeature

from . import game as m

R = Rule


def _never_triggers(g, t: int, a: int):
    """Ability ``a`` matches nothing and triggers nothing: it is not part of this game."""
    return g.And(g.matches(t, a) == 0, g.attempts(t, a) == 0, g.base_triggers(t, a) == 0, g.triggers(t, a) == 0)


def _no_kinds(g, t: int, kinds: tuple[int, ...]) -> Iterator[Rule]:
    """No card and no delayed ability has one of these trigger conditions (constants: said once, at moment 0)."""
    if t > 0:
        return
    for _, a in m.printed_abilities(g):
        yield R(True, g.And(*[g.kind(a) != k for k in kinds]), m.printed_about(g, a))
    for d in g.range("delayed"):
        yield R(True, g.And(*[g.d_kind(d) != k for k in kinds]), f"delayed {d}")


def reflexive_off(g, t: int) -> Iterator[Rule]:
    # No resolving ability creates a reflexive one; without 603.12 nothing else would stop one
    # from triggering out of nothing, so it is said of its triggering too.
    for r in g.range("reflexive"):
        a = m.reflexive(g, r)
        if t == 0:
            yield R(True, g.Not(g.pay_any(r)), f"reflexive {r}")
        yield R(True, _never_triggers(g, t, a), f"reflexive {r}")


def additional_triggers_off(g, t: int) -> Iterator[Rule]:
    # No permanent has the static ability, and so every ability triggers exactly its base count:
    # without 603.2d nothing else ties ``triggers`` to ``base_triggers`` for the abilities such an
    # effect would refer to (113.3 says which those are, in every edition).
    if t == 0:
        for c in m.cards(g):
            yield R(True, g.Not(g.doubler(c)), f"card {c}")
    for a in m.abilities(g):
        yield R(True, g.triggers(t, a) == g.base_triggers(t, a), f"ability {a}")


def once_each_turn_off(g, t: int) -> Iterator[Rule]:
    if t == 0:
        for _, a in m.printed_abilities(g):
            yield R(True, g.Not(g.once_each_turn(a)), m.printed_about(g, a))


def nth_resolution_off(g, t: int) -> Iterator[Rule]:
    if t == 0:
        for d in g.range("delayed"):
            yield R(True, g.Not(g.d_nth(d)), f"delayed {d}")


def delayed_off(g, t: int) -> Iterator[Rule]:
    # No delayed ability is ever created, so none triggers; its constants take their 'none' values
    # so that a counterexample does not describe one.
    for d in g.range("delayed"):
        a = m.delayed(g, d)
        if t == 0:
            yield R(True, g.And(g.d_kind(d) == m.NONE, g.Not(g.d_nth(d)), g.Not(g.d_duration(d))), f"delayed {d}")
        yield R(True, g.And(g.Not(g.registered(t, d)), _never_triggers(g, t, a)), f"delayed {d}")


def becomes_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, (m.BECOMES_TAPPED, m.BECOMES_UNTAPPED, m.BECOMES_BLOCKED, m.LAND_TAPPED))


def loses_game_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, (m.PLAYER_LOSES,))


def state_triggers_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, (m.NO_CARDS_IN_HAND,))


def enters_triggers_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, m.ENTERS_KINDS)


def leaves_triggers_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, m.LEAVES_KINDS)


def look_back_triggers_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, (m.PHASES_OUT, m.LOSE_CONTROL, m.UNATTACHED))


def control_gained_triggers_off(g, t: int) -> Iterator[Rule]:
    yield from _no_kinds(g, t, (m.CONTROL_GAINED,))


def chapter_abilities_off(g, t: int) -> Iterator[Rule]:
    # No card is a Saga; 714.3 then leaves it without chapters or lore counters.
    yield from _no_kinds(g, t, (m.CHAPTER,))


FEATURES: dict[str, GameFeature] = {
    f.name: f
    for f in (
        GameFeature(
            "reflexive_abilities",
            "reflexive triggered abilities ('When you do, ...')",
            "603.12, 603.12a",
            reflexive_off,
        ),
        GameFeature(
            "additional_triggers",
            "effects that make an ability trigger an additional time",
            "603.2d, 603.2e",
            additional_triggers_off,
        ),
        GameFeature("once_each_turn", "abilities that say 'Do this only once each turn'", "603.2i", once_each_turn_off),
        GameFeature(
            "nth_resolution",
            "delayed abilities created as their creator resolves for the Nth time in a turn",
            "603.7h",
            nth_resolution_off,
        ),
        GameFeature("delayed_abilities", "delayed triggered abilities", "603.7-603.7h", delayed_off),
        GameFeature(
            "becomes_triggers",
            "'becomes tapped', 'becomes untapped' and 'becomes blocked' triggers",
            "603.2f",
            becomes_off,
        ),
        GameFeature("loses_game_triggers", "'whenever a player loses the game' triggers", "603.9", loses_game_off),
        GameFeature(
            "state_triggers", "state triggers ('Whenever you have no cards in hand')", "603.8", state_triggers_off
        ),
        GameFeature("enters_triggers", "enters-the-battlefield abilities", "603.6a", enters_triggers_off),
        GameFeature("leaves_triggers", "leaves-the-battlefield abilities", "603.6c, 603.10a", leaves_triggers_off),
        GameFeature(
            "look_back_triggers",
            "abilities that trigger when a permanent phases out, when a player loses control of it, or when it "
            "becomes unattached",
            "603.10b, 603.10c, 603.10d",
            look_back_triggers_off,
        ),
        GameFeature(
            "control_gained_triggers",
            "abilities that trigger when an opponent gains control of a permanent from their controller",
            "603.10d",
            control_gained_triggers_off,
        ),
        GameFeature("chapter_abilities", "Sagas and their chapter abilities", "714.2b, 714.3", chapter_abilities_off),
    )
}
