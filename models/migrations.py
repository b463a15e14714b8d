"""Older trace documents rewritten in the current trace format (``rule603 migrate``).

Each step takes a JSON document of one version to the next, saying in the game's words what
changed; ``migrate`` applies them in turn.  A step only rewrites what the older version wrote:
it never decides what the older model could not express (a trace of version 3 has no extra
turns, so every moment gets ``extra_turn = false``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .game import ZONES, waiting_bookkeeping

CURRENT = "rule603-trace/5"

#: Per-moment variables version 4 added, and their value in a game written before them.
ADDED_IN_4 = {
    "targets_illegal": False,  # no ability lost all its targets as it tried to resolve (608.2b)
    "removed_now": False,  # version 3 had no removal on resolution: a false 'if' resolved doing nothing
    "extra_turn": False,
    "extra_step": False,
    "unfinished": False,  # version 3 knew no resolution spanning batches (608.2c)
}
#: ... and per card or per player (a list of the universe's size), and the constants.
ADDED_PER_CARD_IN_4 = {"lethal": False}  # version 3 knew no damage beyond "dealt damage"
ADDED_PER_PLAYER_IN_4 = {"no_life": False}
#: Version 3 knew no Auras as such, no tokens and no legendary permanents (its games have none).
ADDED_CONSTANTS_IN_4 = {"aura": False, "token": False, "legend_name": 0}
ADDED_WAITING = ("waiting_since", "waiting_controller", "waiting_zone", "waiting_object")  # see _waiting_3_to_4


def _steps_3_to_4(states: list[dict[str, Any]]) -> None:
    """Version 3's seven steps as version 4's twelve (500.1).

    ``main`` is the precombat main phase.  Version 3's one ``combat`` step becomes the declare attackers
    step until creatures become blocked, and the declare blockers step from then on (509.1h: blockers are
    declared as that step begins).
    """
    blocked_in_this_combat = False
    steps = [state.get("step") for state in states]
    for t, state in enumerate(states):
        step = steps[t]
        new_combat = t == 0 or step != steps[t - 1] or state.get("turn") != states[t - 1].get("turn")
        if step == "main":
            state["step"] = "precombat_main"
        elif step == "combat":
            if new_combat:
                blocked_in_this_combat = False
            blocked_in_this_combat = blocked_in_this_combat or any(state.get("blocked") or [])
            state["step"] = "declare_blockers" if blocked_in_this_combat else "declare_attackers"


def _waiting_3_to_4(states: list[Any], cards: object, enchanted_leaves: list[bool]) -> None:
    """Version 4's record of what waiting instances remember (``model.pending``), from the triggers; left out of a
    document too broken to read it from (the reader then names what is missing)."""
    needed = ("triggers", "trigger_controller", "zone", "attached_to")
    readable = all(
        isinstance(s, dict) and all(isinstance(s.get(k), list) for k in needed) and not set(ADDED_WAITING) & set(s)
        for s in states
    )
    if readable and isinstance(cards, int):
        try:
            waiting_bookkeeping(states, cards, no_zone=ZONES[0], enchanted_leaves=enchanted_leaves)
        except (IndexError, TypeError):
            pass


def _objects_3_to_4(states: list[Any], constants: dict[str, Any], cards: int) -> None:
    """Version 4 follows each object a resolving ability does something to (``affects``, ``slot_object``) and lets
    a delayed ability refer to any number of objects (``d_refers``, and ``d_stamp``/``d_zone`` per card).

    A version 3 delayed ability refers to exactly its ``d_object``; what it affected is that object where it
    ``acts``.  An Aura's "enchanted permanent leaves" ability (603.6e) looked only for the Aura card: where it
    ``acts`` it affected the Aura card, and also the enchanted permanent's card where version 4 finds that one
    (the new object in the zone it moved to, which its instance now records: ``slot_object``, ``slot_zone``).
    Where version 3 says such an ability did nothing although version 4 would find that card, the migrated trace
    says so too, and the checker names the rule it breaks: version 3 never said what happened to that card.
    Parts of a document too broken to read are left as they are (the reader then names them).
    """
    objects = constants.get("d_object")
    kinds = constants.get("kind")
    if not (isinstance(objects, list) and all(isinstance(o, int) and 0 <= o < cards for o in objects)):
        return
    constants["d_refers"] = [[c == o for c in range(cards)] for o in objects]
    del constants["d_object"]
    auras = [k == "enchanted_leaves" for k in kinds] if isinstance(kinds, list) else [False] * cards
    for state in states:
        if not isinstance(state, dict):
            continue
        for name, blank in (("d_stamp", 0), ("d_zone", ZONES[0])):
            row = state.get(name)
            if isinstance(row, list) and len(row) == len(objects):
                state[name] = [
                    [v if c == o else blank for c in range(cards)] for v, o in zip(row, objects, strict=True)
                ]
    for t, state in enumerate(states):
        if not isinstance(state, dict):
            continue
        try:
            _slot_objects_3_to_4(states, t, cards, auras)
            state.setdefault("affects", _affects_3_to_4(states, t, cards, objects, auras))
        except (IndexError, TypeError, KeyError, ValueError):
            state.setdefault("affects", [False] * cards)


def _slot_objects_3_to_4(states: list[Any], t: int, cards: int, auras: list[bool]) -> None:
    state = states[t]
    objects, zones = [], list(state["slot_zone"])
    for s, code in enumerate(state["slot_src"]):
        a = code - 1
        if not 0 <= a < cards:  # empty, a spell, a delayed or reflexive ability
            objects.append(0)
            continue
        obj, moment = a, state["slot_moment"][s]
        host = states[moment - 1]["attached_to"][a] if moment >= 1 else cards
        if auras[a] and isinstance(host, int) and 0 <= host < cards:
            obj = host
            zones[s] = states[moment]["zone"][host]  # where the enchanted permanent's card went (603.6e)
        objects.append(obj)
    state["slot_object"] = objects
    state["slot_zone"] = zones


def _affects_3_to_4(states: list[Any], t: int, cards: int, objects: list[int], auras: list[bool]) -> list[bool]:
    out = [False] * cards
    state = states[t]
    if t == 0 or not state.get("acts") or state.get("leave") != "resolve":
        return out
    before = states[t - 1]
    size = before["stack_size"]
    if not size:
        return out
    a = before["slot_src"][size - 1] - 1
    if cards <= a < cards + len(objects):
        out[objects[a - cards]] = True  # version 3's "does its effect" was to this one object (603.7c)
    elif 0 <= a < cards and auras[a]:
        out[a] = True  # the Aura card, found in the graveyard
        y, zone, moment = (
            before["slot_object"][size - 1],
            before["slot_zone"][size - 1],
            before["slot_moment"][size - 1],
        )
        if y != a and zone != "battlefield" and before["zone"][y] == zone and before["since"][y] == moment:
            out[y] = True
    return out


def _filled(value: object, size: object) -> list:
    """``size`` copies of ``value`` (none where the document's universe gives no number)."""
    return [value] * size if isinstance(size, int) else []


def _3_to_4(doc: dict[str, Any]) -> dict[str, Any]:
    sizes = doc["#meta"].get("universe") if isinstance(doc["#meta"].get("universe"), dict) else {}
    cards, players = sizes.get("card", 0), sizes.get("player", 0)
    states = doc.get("states")
    if isinstance(states, list):
        originals = [dict(s) if isinstance(s, dict) else s for s in states]
        _steps_3_to_4([s for s in originals if isinstance(s, dict)])
        left = _filled(False, players)
        for state in originals:
            if isinstance(state, dict):
                for name, value in ADDED_IN_4.items():
                    state.setdefault(name, value)
                for name, value in ADDED_PER_CARD_IN_4.items():
                    state.setdefault(name, _filled(value, cards))
                for name, value in ADDED_PER_PLAYER_IN_4.items():
                    state.setdefault(name, _filled(value, players))
                # 800.4a's memory, which version 3 left to the reader: who has left the game by now
                leaving = state.get("leaves_game")
                if isinstance(leaving, list) and len(leaving) == len(left):
                    left = [a or bool(b) for a, b in zip(left, leaving, strict=True)]
                state.setdefault("left_game", list(left))
        constants = doc.get("constants")
        kinds = constants.get("kind") if isinstance(constants, dict) else None
        auras = [k == "enchanted_leaves" for k in kinds] if isinstance(kinds, list) else None
        _waiting_3_to_4(originals, cards, auras or [])
        if isinstance(constants, dict) and isinstance(cards, int):
            _objects_3_to_4(originals, constants, cards)
        doc["states"] = originals
    constants = doc.get("constants")
    if isinstance(constants, dict):
        for name, value in ADDED_CONSTANTS_IN_4.items():
            constants.setdefault(name, _filled(value, cards))
    names = doc.get("vars")
    if isinstance(names, list):
        added = [*ADDED_IN_4, *ADDED_PER_CARD_IN_4, *ADDED_PER_PLAYER_IN_4, "left_game", *ADDED_WAITING]
        added += ["slot_object", "affects"]
        doc["vars"] = names + [n for n in added if n not in names]
    doc["#meta"]["rule603"] = "rule603-trace/4"
    return doc


def _4_to_5(doc: dict[str, Any]) -> dict[str, Any]:
    """Version 5 numbers printed triggered abilities apart from cards (``#meta.universe.printed``), so that a card can
    have several.  Version 4 had one per card, with the card's index: its lists already have one entry per printed
    ability, and only the size is added."""
    sizes = doc["#meta"].get("universe")
    if isinstance(sizes, dict) and "card" in sizes:
        sizes.setdefault("printed", sizes["card"])
    doc["#meta"]["rule603"] = "rule603-trace/5"
    return doc


#: version tag -> the step to the next version
STEPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"rule603-trace/3": _3_to_4, "rule603-trace/4": _4_to_5}


def can_migrate(version: object) -> bool:
    return isinstance(version, str) and version in STEPS


def migrate(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` (a trace of an older version) in the current version; a document already current is returned as is."""
    out = copy.deepcopy(doc)
    while isinstance(out.get("#meta"), dict) and can_migrate(out["#meta"].get("rule603")):
        out = STEPS[out["#meta"]["rule603"]](out)
    return out
