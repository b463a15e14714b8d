"""python-mtg 0.1.1 against rule 603: play its self-play games, turn them into traces, check them.

python-mtg (PyPI ``python-mtg``, github.com/yevbar/witchcraft) is a Magic engine written by
others: Datalog rules (``engine_rules.dl``, compiled to a shared library) derive what happens
and a Python driver (``mtg.driver``) applies it.  Its public API shows only decision points, and
one move can cast a spell, resolve it, apply several triggered abilities and cross many steps,
so this adapter watches the driver.  Install the optional extra (``pip install '.[python-mtg]'``)
and run::

    python -m rule603.engines.python_mtg report --output reports/python-mtg.md

How a game becomes traces:

1. **Play**, in child processes with ``PYTHONHASHSEED=0`` (the engine iterates Python sets
   while dealing): the engine's own self-play loop (``mtg.self_play``: uniform-random moves
   from the game's seeded RNG) on two micro decks of three nonland cards and seventeen basic
   lands.  The six nonland cards are *tracked*; lands are not (no tracked ability looks at
   one).  Wrappers around driver functions record a *frame*, the tracked part of the state,
   after every call that can change it, and, where the driver applies triggered abilities
   (``_apply_effects``), the instances it applies: the ability, its controller, and whether
   the engine evaluated the trigger on the game as it was before the batch (look-back).
2. **Moments**, derived from successive frames: frames with a card between zones are
   dropped, frames that change nothing are merged, the untap and cleanup steps are one moment
   each.  What happened in a batch (zone changes, a spell leaving the stack, a step
   beginning) is the difference between two moments.
3. **Windows** of at most 31 moments, starting with an empty stack outside the untap and
   cleanup steps, written in the published trace format (``docs/trace-format.md``) in two
   modes.  *Faithful*: what the engine did; every instance it applied is pending and never
   goes on the stack, and the window ends with its first trigger, because the model's turn
   structure cannot go on with an ability waiting forever.  *Normalised*: the adapter assumes
   each instance went on the stack as it triggered, in the engine's order of application
   (first applied on top), and resolved at once, one synthetic moment each; this lets the
   other clauses be checked over whole windows.
4. **Check** every window with :class:`rule603.TraceChecker`: every clause, every game-model rule.
5. **Report**: figures, violations by clause, the smallest violating window of each clause.

Every trace variable comes from the engine (its state, and the wrappers for instances,
controllers and look-back) or from an assumption in :data:`ASSUMPTIONS`; the clauses that only
an assumption feeds are in :data:`NOT_CHECKABLE`.  The number of instances the engine applied
in a batch is its own claim of how many occurrences matched, so ``matches``, ``attempts``,
``base_triggers`` and ``triggers`` all hold it, and the clauses that define the trigger
conditions (603.2b, 603.6a, 603.6c) compare the engine's firing with the events in the trace.

Pinned to python-mtg 0.1.1: the wrappers use driver internals, not its API.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rule603 import TRACE_FORMAT, Trace, TraceChecker, Universe, write_atomically
from rule603.models import game

if TYPE_CHECKING:
    from rule603 import Finding

ENGINE, ENGINE_VERSION = "python-mtg", "0.1.1"
MODULE = "rule603.engines.python_mtg"
EDITION = "current"
INSTALL_HINT = "pip install '.[python-mtg]' (or pip install python-mtg==0.1.1)"

DEFAULT_GAMES = 24  # 20 to 50 s on two cores (depending on load), playing and checking
DEFAULT_SEED = 0
MAX_MOMENTS = 31  # a window's length: the model's moment numbers reach 31
SLOTS = 4  # stack slots in every trace (one trace shape: the checks are compiled once)
MAX_MOVES = 4000  # as mtg.self_play

FAITHFUL, NORMALISED = "faithful", "normalised"
MODES = (FAITHFUL, NORMALISED)


class AdapterError(Exception):
    """python-mtg is missing or another version, or did something the adapter cannot represent."""


# =============================================================================================
# The decks, and how the engine's reading of a trigger maps onto the model's KINDS.
# =============================================================================================


@dataclass(frozen=True)
class DeckCard:
    name: str
    kind: str  # the KIND its triggered ability maps to (checked against the engine's facts)


DECKS: dict[str, tuple[DeckCard, ...]] = {
    "alice": (
        DeckCard("Clockwork Fox", "leaves_self"),
        DeckCard("Nyx-Fleece Ram", "your_upkeep"),
        DeckCard("Carnival of Souls", "creature_enters"),
    ),
    "bob": (
        DeckCard("Venerable Monk", "enters_self"),
        DeckCard("Moonlit Wake", "creature_dies"),
        DeckCard("Shock", "none"),
    ),
}
#: The decks' artifacts (Oracle type line "Artifact Creature — Fox").
ARTIFACTS = frozenset({"Clockwork Fox"})
#: The decks' zone-change abilities whose effect is not done to the object that changed zones (``other_effect``).
ACTS_ELSEWHERE = frozenset({"Clockwork Fox", "Venerable Monk"})
LANDS: dict[str, dict[str, int]] = {"alice": {"Plains": 9, "Swamp": 8}, "bob": {"Mountain": 9, "Plains": 8}}
PLAYERS = tuple(DECKS)


def decklists() -> dict[str, list[str]]:
    """The decks as python-mtg takes them: one card name per copy."""
    return {
        player: [c.name for c in DECKS[player]] + [land for land, n in LANDS[player].items() for _ in range(n)]
        for player in PLAYERS
    }


@dataclass(frozen=True)
class EngineEvent:
    """An event key of the engine (its reading of a trigger phrase), as a KIND of the model."""

    kind: str
    judged_before: bool  # where the driver evaluates it: on the game before the event, or after
    note: str  # how the engine's event relates to the KIND


#: The engine's event keys (``event_map`` in its ``engine_rules.dl``) this adapter can map.
ENGINE_EVENTS: dict[str, EngineEvent] = {
    "etb_self": EngineEvent("enters_self", False, "the same condition"),
    "other_creature_etb": EngineEvent(
        "creature_enters",
        False,
        "the engine reads 'a creature' and 'another creature' alike and never counts the source itself: the "
        "same condition only for a source that is not a creature and says 'a creature'",
    ),
    "other_creature_dies": EngineEvent(
        "creature_dies",
        True,
        "as for entering: the same condition only for a source that is not a creature and says 'a creature'",
    ),
    "leaves_self": EngineEvent(
        "leaves_self",
        True,
        "the engine's 'leaves' is dying or being sacrificed; nothing in the decks exiles or bounces",
    ),
    "dies_self": EngineEvent("leaves_self", True, "'when this dies' is narrower than 'when this leaves'"),
    "upkeep": EngineEvent("your_upkeep", False, "the same condition"),
    "becomes_tapped": EngineEvent("becomes_tapped", False, "the same condition"),
}

#: The engine's twelve steps are the model's (500.1).
STEP_OF = {step: step for step in game.STEPS}
NO_PRIORITY_STEPS = ("untap", "cleanup")  # also the steps that are one moment each
LEAVES_KINDS = ("creature_dies", "leaves_self", "enchanted_leaves")  # 603.6c

# =============================================================================================
# What the engine does not give, what the adapter assumes instead, and what that leaves checkable.
# =============================================================================================

#: Every value not taken from the engine, and what it stands on.  Keys name trace variables.
ASSUMPTIONS: dict[str, str] = {
    "priority": "A player would receive priority at every moment outside the untap and cleanup steps (the "
    "rules' view). python-mtg gives nobody priority in the upkeep, draw, combat and end steps, and the "
    "non-active player only its automatic instant responses.",
    "matches, attempts, base_triggers, triggers": "All four are the number of instances the engine applied in "
    "the batch: its own claim of how many occurrences matched. The engine has no separate notion of "
    "occurrences, prevented events or triggering an additional time.",
    "look_back": "Measured where the ability triggered: true when the engine evaluated the trigger on a state "
    "that differs from the game after the batch. Elsewhere, the engine's judging for the event key, read from "
    "its driver (dies and leaves are evaluated before the zone change, the rest after); every measurement so "
    "far agrees with it.",
    "placed, pending, stack slots of abilities, resolutions, done_this_turn, acts (normalised)": "Each instance "
    "goes on the stack at the moment it triggered, in the engine's order of application (first applied on "
    "top), and resolves at once: one synthetic moment each, with leave=resolve and acts=true (the engine did "
    "apply its effect) and nothing else changing. python-mtg never puts a triggered ability on the stack.",
    "pending (faithful)": "Every instance the engine applied stays pending: it never goes on the stack. The "
    "window ends with the first batch in which an ability triggers.",
    "leave": "A spell that leaves the stack resolved (the decks have no counterspells; a spell that fizzles "
    "also counts as resolving). Read off successive states.",
    "since": "A card that changed zones between two moments is a new object from the later one (400.7). The "
    "engine keeps one id across zones, so a card leaving and coming back within one batch would be missed "
    "(nothing in the decks does that).",
    "damage, damage_prevented, dies_replaced, lethal, no_life, left_game": "Never set: the engine keeps no damage"
    " or life the adapter reads, and nothing in the decks replaces dying; a trace ends as a player loses.",
    "leaves_game, by_draw, dropped, ceased": "Never set: a trace ends with the batch in which a player loses, and "
    "python-mtg does not remove the loser's objects (800.4a) or abilities (800.4d).",
    "revealed, phased_out, prohibited, cond, may_use, actions_by_effect, actions_other, no_legal_choice, "
    "prohibition_applies, removed, skipped": "False or 0: nothing in the decks reveals, phases, prohibits, or "
    "has an intervening 'if', a 'may', modes or targets in a triggered ability.",
    "lands_are_creatures, creatures_lose_abilities, grant_ability, eff_creature, eff_ability": "No continuous "
    "effect changes a tracked card (no window covers a moment where the engine holds one that could): "
    "eff_creature is the printed type, eff_ability is true.",
    "counts_additional, is_leaves_ability": "The model's own reading of the card text (113.3, 603.6c): false, as "
    "no card in the decks makes an ability trigger an additional time; abilities of the leaves kinds.",
    "delayed and reflexive abilities": "None: one of each in the universe, never created (python-mtg has delayed "
    "triggers only for the Pact cycle and reflexive ones only as 'if you do').",
    "countered_now, removed_now, targets_illegal, instruction_works": "False: nothing is countered or removed "
    "from the stack, nothing targets, and no ability says it can't be countered.",
    "controller": "The engine's printed_control on the battlefield and the stack (nothing in the decks changes "
    "control), the owner elsewhere.",
    "players, turns": "The player active at a window's first moment is player 0; turns count from 1.",
    "step": "The engine's step, as it is: the model has the same twelve (500.1).",
    "extra_turn, extra_step, unfinished": "False: nothing in the decks adds turns, phases or steps, and each "
    "resolution is one batch (the engine reports its events together).",
    "token, legend_name": "False and 0: the tracked cards are the decks' cards, none of them legendary (the "
    "adapter tracks no tokens).",
}

#: Clauses that are checked, and where their evidence comes from.
CHECKED: dict[str, str] = {
    "603.2b": "the engine's upkeep instances against the upkeep beginning and the source being on the battlefield",
    "603.2g": "instances of abilities whose card was in a library or hand all along",
    "603.3": "faithful windows only: the engine's instances never go on the stack (in normalised windows "
    "placement is assumed)",
    "603.3a": "the controller of each instance (the engine's row) against its source's controller",
    "603.3b": "normalised windows only: the engine's order of application, read as the order on the stack",
    "603.6a": "the engine's enters instances against the cards entering and the source being on the battlefield",
    "603.6c": "the engine's dies and leaves instances against the cards leaving and the source being on the "
    "battlefield before",
    "603.10": "look_back of the abilities judged after the event (measured where they trigger)",
    "603.10a": "look_back of the dies and leaves abilities (measured where they trigger)",
}

#: Clauses these games cannot check for real, and why.
NOT_CHECKABLE: dict[str, str] = {
    "603.1a": "No triggered ability in the decks says it can't be countered, and python-mtg never puts one on the "
    "stack.",
    "603.2": "matches is the engine's own count of instances, so 'it triggers when it matches' holds by "
    "construction. A missed or extra trigger shows under the clause that defines the condition (603.2b, "
    "603.6a, 603.6c).",
    "603.2a": "Nothing in the decks precludes activating abilities (prohibited is always false).",
    "603.2c": "attempts, matches and base_triggers are the same engine count, so 'once per occurrence' holds by "
    "construction; one instance for several occurrences shows under 603.6a or 603.6c.",
    "603.2d": "No 'triggers an additional time' effects (python-mtg has them for tokens and counters only).",
    "603.2e": "No 'triggers an additional time' effects, and no delayed abilities.",
    "603.2f": "No 'becomes tapped' ability in the decks: python-mtg taps creatures only to pay mana or for "
    "teamwork (attacking does not tap), and the lands with this trigger (City of Brass) have an effect the "
    "engine does not apply, so their firing is not where the adapter reads instances.",
    "603.2h": "The engine keeps no damage and no prevention; attempts equals matches by construction.",
    "603.2i": "python-mtg ignores 'Do this only once each turn' (its modifier is never read); no such card in the "
    "decks.",
    "603.3c": "No modal triggered ability in the decks.",
    "603.3d": "No targeted triggered ability in the decks (python-mtg picks targets itself).",
    "603.4": "python-mtg drops the effect of a triggered ability with an intervening 'if'; no such card in the decks.",
    "603.5": "python-mtg drops 'may' effects of triggered abilities; no such card in the decks.",
    "603.6": "The synthetic resolution comes right after the trigger, so a zone-change ability always finds its "
    "object: only the assumption feeds this clause.",
    "603.6b": "No continuous effect changes a tracked card (eff_creature and eff_ability follow the printed card).",
    "603.6d": "No 'enters tapped' card among the tracked cards (python-mtg ignores 'enters tapped' on land drops).",
    "603.6e": "No Auras.",
    **{
        number: "No delayed triggered abilities (python-mtg has them only for the Pact cycle)."
        for number in ("603.7", "603.7a", "603.7b", "603.7c", "603.7d", "603.7e", "603.7f", "603.7g", "603.7h")
    },
    "603.8": "python-mtg has no state triggers.",
    "603.9": "No card's trigger phrase maps to the engine's player_loses_game key, and losses are not recorded.",
    "603.10b": "No card's trigger phrase maps to the engine's phased_out_self key.",
    "603.10c": "python-mtg has no 'becomes unattached' triggers.",
    "603.10d": "python-mtg has no 'lose control' triggers.",
    "603.10e": "No card's trigger phrase maps to the engine's countered_self key.",
    "603.10f": "No card's trigger phrase maps to the engine's player_loses_game key.",
    "603.12": "Reflexive triggers exist only as 'if you do', declined by default; none in the decks.",
    "603.12a": "No reflexive triggers.",
}

#: Card text that would not match its KIND (left out of the decks for that reason), and the adapter's approximations.
FALSE_ALARM_SOURCES: dict[str, str] = {
    "'another creature' (Soul Warden, Poison-Tip Archer)": "the model plays 'another' (subject_relation), but the "
    "adapter maps the engine's event keys, which read 'a creature' and 'another creature' alike, not the cards' "
    "words: left out of the decks with the next.",
    "'a creature' on a creature (Vein Ripper)": "python-mtg never counts the source itself: a real deviation, "
    "which the decks avoid by giving these kinds to enchantments.",
    "'when this dies' (Tattered Mummy, Tarpan)": "the engine's dies_self key is mapped to leaves_self, which also "
    "counts exile and bounce (nothing in the decks exiles or bounces); the model's 'when this dies' is "
    "creature_dies with subject_relation 'this'.",
    "'your end step' (God-Pharaoh's Statue)": "the model's end_step is every end step; python-mtg's cards with "
    "'each end step' all have conditions it drops, so no end-step card is in the decks.",
    "the second main phase read as combat": "harmless here (no ability looks at either), wrong for 'beginning of "
    "combat' or second-main-phase triggers.",
    "the priority assumption": "a trigger in a step where python-mtg gives nobody priority (upkeep, combat) "
    "counts as waiting at a priority moment: 603.3 is reported there too.",
}

#: What a violated clause says about python-mtg.
FINDINGS: dict[str, str] = {
    "603.2b": "upkeep abilities trigger while their card is not on the battlefield: the engine derives control "
    "from printed_control, which holds in every zone.",
    "603.2g": "abilities of cards in a library or hand trigger (the same cause).",
    "603.3": "triggered abilities never go on the stack: the driver applies their effects at once "
    "(`_apply_effects`), and no player gets priority in between.",
    "603.3a": "an instance's controller differs from its source's controller when it triggered.",
    "603.3b": "simultaneous instances are applied sorted by ability id, not in APNAP order: read as the stack, "
    "the active player's instance would resolve first.",
    "603.6a": "'a creature enters' abilities trigger while their card is not on the battlefield (the same cause).",
    "603.6c": "dies and leaves abilities are missed when a spell's damage kills a creature (the driver moves it "
    "straight to the graveyard; Shock is the only such spell in the decks), trigger once for several creatures "
    "dying together ('count differs'), and trigger while their card is not on the battlefield.",
    "603.10": "an ability judged after the event was evaluated before it.",
    "603.10a": "a dies or leaves ability was evaluated after the event.",
}
#: Clauses whose violations compare the engine's instances with the events: their causes are broken down.
CONDITION_CLAUSES = ("603.2b", "603.2g", "603.6a", "603.6c")


# =============================================================================================
# Playing a game (in a child process: only this part imports python-mtg).
# =============================================================================================

ZONE_RELATIONS = (
    ("in_library", "library"),
    ("in_hand", "hand"),
    ("on_battlefield", "battlefield"),
    ("graveyard", "graveyard"),
    ("exile", "exile"),
    ("command_zone", "command"),
)
#: Continuous effects that could change a tracked card's types, abilities or controller.
EFFECTS_THAT_MATTER = ("eff_add_type", "eff_remove_type", "eff_copy", "eff_text_change", "eff_gain_control")
#: Driver functions after which the tracked part of the state may have changed.  The driver calls them as
#: module globals, so replacing the module's attributes catches its internal calls too.
HOOKED = (
    "_apply_outputs",
    "_apply_effects",
    "_stack_push",
    "_stack_remove",
    "_resolve_top",
    "_put_land_in_play",
    "_draw",
    "_tap",
    "_sacrifice",
    "_to_graveyard",
    "_fire_tap_triggers",
    "_fire_cast_triggers",
    "_end_of_turn",
)


def python_mtg_available() -> bool:
    return importlib.util.find_spec("mtg") is not None


def require_python_mtg() -> None:
    """python-mtg must be installed, in the pinned version."""
    if not python_mtg_available():
        raise AdapterError(f"python-mtg is not installed: {INSTALL_HINT}")
    version = metadata.version("python-mtg")
    if version != ENGINE_VERSION:
        raise AdapterError(f"python-mtg {version} is installed; this adapter is pinned to {ENGINE_VERSION}")


def _import_mtg() -> tuple[Any, Any, Any]:
    require_python_mtg()
    import mtg
    from mtg import driver
    from mtg.engine import game as setup

    return mtg, driver, setup


class _Recorder:
    """Wraps driver functions; records a frame (the tracked part of the state) after each call."""

    def __init__(self, driver: Any, cards: list[str], abilities: dict[str, int]) -> None:
        self.driver = driver
        self.cards = cards
        self.index = {c: i for i, c in enumerate(cards)}
        self.abilities = abilities  # the engine's ability id -> tracked card
        self.frames: list[dict[str, Any]] = []
        # Recent rule evaluations that derived instances of tracked abilities: (ability ids, state evaluated).
        self.evaluated: deque[tuple[frozenset[str], dict[str, Any]]] = deque(maxlen=16)
        self.originals: dict[str, Callable[..., Any]] = {}

    def install(self) -> None:
        self.originals["run"] = self.driver.run
        self.driver.run = self._run
        for name in HOOKED:
            self.originals[name] = getattr(self.driver, name)
            setattr(self.driver, name, self._wrap(name, self.originals[name]))

    def uninstall(self) -> None:
        for name, original in self.originals.items():
            setattr(self.driver, name, original)

    def frame(self, state: dict[str, Any], fired: list[list[Any]] | None = None) -> dict[str, Any]:
        zone = ["none"] * len(self.cards)  # "none": the driver is moving it (in no zone for a moment)
        for relation, name in ZONE_RELATIONS:
            for row in state.get(relation, ()):
                if row[-1] in self.index:
                    zone[self.index[row[-1]]] = name
        stack, untracked = [], False
        for obj, _position in sorted(state.get("on_stack", ()), key=lambda row: row[1]):
            i = self.index.get(obj)
            if i is None:
                untracked = True
            elif zone[i] != "battlefield":  # a resolving permanent is on both for a moment: it has entered
                zone[i] = "stack"
                stack.append([i, state.get("_stack_info", {}).get(obj)])
        control: dict[str, list[str]] = {}
        for player, card in state.get("printed_control", ()):
            control.setdefault(card, []).append(player)
        attached = {self.index[a]: self.index.get(h) for a, h in state.get("attached_to", ()) if a in self.index}
        return {
            "turn": state.get("_turn", 0),
            "active": next(iter(state["active_player"]))[0],
            "step": next(iter(state["current_step"]))[0],
            "zone": zone,
            "controller": [control[c][0] if len(control.get(c, ())) == 1 else "?" for c in self.cards],
            "tapped": [(c,) in state.get("tapped", ()) for c in self.cards],
            "attached": [attached.get(i) for i in range(len(self.cards))],
            "stack": stack,
            "fired": fired or [],
            "untracked_on_stack": untracked,
            "effects_on_tracked": any(
                len(row) > 1 and row[1] in self.index for name in EFFECTS_THAT_MATTER for row in state.get(name, ())
            ),
            "over": bool(state.get("_loser")),
        }

    def _run(self, state: dict[str, Any], outputs: list[str]) -> dict[str, Any]:
        """``driver.run``: remember the state on which triggered instances were derived (look-back)."""
        out = self.originals["run"](state, outputs)
        rows = list(out.get("pending", ())) + list(out.get("pending_dyn", ()))
        mine = frozenset(row[0] for row in rows if row[0] in self.abilities)
        if mine:
            self.evaluated.append((mine, self.frame(state)))
        return out

    def _instances(self, state: dict[str, Any], pending: Iterable[tuple]) -> list[list[Any]]:
        """The tracked instances one ``_apply_effects`` call applies, in its order (sorted rows)."""
        now = _view(self.frame(state))
        instances: dict[str, list[Any]] = {}
        for row in sorted(pending):
            ability, controller = row[0], row[5]  # (ability, effect, amount, target, source, controller)
            if ability not in self.abilities or ability in instances:
                continue  # one instance however many effect rows it has
            seen = next((frame for ids, frame in reversed(self.evaluated) if ability in ids), None)
            before = None if seen is None else _view(seen) != now
            instances[ability] = [self.abilities[ability], controller, before]
        return list(instances.values())

    def _wrap(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            state = args[0]
            if name == "_apply_effects" and len(args) > 1:
                fired = self._instances(state, args[1])
                if fired:  # the batch that made them trigger, as it stands when the engine applies them
                    self.frames.append(self.frame(state, fired))
            try:
                return original(*args, **kwargs)
            finally:
                self.frames.append(self.frame(state))

        return wrapper


def _view(frame: dict[str, Any]) -> tuple:
    """What look-back compares: the tracked cards and the step."""
    return tuple(tuple(frame[k]) for k in ("zone", "controller", "tapped", "attached")) + (frame["step"],)


def _engine_file(*parts: str) -> Path:
    _, driver, _ = _import_mtg()
    return Path(driver.__file__).parent.joinpath(*parts)


@lru_cache(maxsize=1)
def _event_map() -> dict[str, str]:
    """The engine's trigger phrase -> event key table (its ``event_map`` facts)."""
    rules = _engine_file("_datalog", "engine_rules.dl").read_text(encoding="utf-8")
    return dict(re.findall(r'event_map\("([^"]*)", "([^"]*)"\)', rules))


@lru_cache(maxsize=1)
def _oracle_text() -> dict[str, str]:
    """The printed text of the decks' cards, from the engine's own card corpus."""
    corpus = json.loads(_engine_file("_data", "oracle_corpus.json").read_text(encoding="utf-8"))
    wanted = {c.name for cards in DECKS.values() for c in cards}
    return {c["name"]: c.get("text") or "" for c in corpus if c.get("name") in wanted}


def _tracked_cards(state: dict[str, Any], name_of: Callable[[str], str]) -> list[dict[str, Any]]:
    """The nonland cards and what the engine's facts say about them, by owner then id."""
    slug = dict(state.get("instance_of", ()))
    types: dict[str, set[str]] = {}
    for card, kind in state.get("printed_type", ()):
        types.setdefault(card, set()).add(kind)
    owner = {c: p for p, c in state.get("printed_control", ())}
    owner.update({c: p for relation in ("in_library", "in_hand") for p, c in state.get(relation, ())})
    cards = []
    for c in sorted((c for c in slug if "land" not in types.get(c, ())), key=lambda c: (owner[c], c)):
        s = slug[c]
        triggered = sorted(a for card, a, kind in state.get("card_ability", ()) if card == s and kind == "triggered")
        if len(triggered) > 1:
            raise AdapterError(f"{name_of(c)} has {len(triggered)} triggered abilities; the model has one per card")
        aid = triggered[0] if triggered else None
        phrase = next((p for card, a, p in state.get("ability_trigger", ()) if card == s and a == aid), "")
        effects = sorted([str(x) for x in row[3:]] for row in state.get("card_effect", ()) if row[:2] == (s, aid))
        modifiers = [row[2] for row in state.get("ability_modifier", ()) if row[:2] == (s, aid)]
        cards.append(
            {
                "id": c,
                "name": name_of(c),
                "owner": owner[c],
                "creature": "creature" in types.get(c, ()),
                "land": "land" in types.get(c, ()),
                **{kind: kind in types.get(c, ()) for kind in ("enchantment", "instant", "sorcery")},
                "ability": None if aid is None else f"{c}_{aid}",
                "phrase": phrase,
                "event": _event_map().get(phrase, "") if phrase else "",
                "effects": effects,
                "once_each_turn": "triggers_once_per_turn" in modifiers,
                "enters_tapped": any(row[0] == s for row in state.get("card_enters_tapped", ())),
                "text": _oracle_text().get(name_of(c), ""),
            }
        )
    return cards


def record_game(seed: int) -> dict[str, Any]:
    """Play one seeded self-play game; return its record (JSON-able): the tracked cards and the frames."""
    mtg, driver, setup = _import_mtg()
    if os.environ.get("PYTHONHASHSEED") != "0":
        raise AdapterError("games replay identically only with PYTHONHASHSEED=0: use play_games()")
    driver.clear_cache()  # the in-process engine keeps the previous game's facts otherwise
    g = mtg.Game(decklists(), variant="two-player", seed=seed)  # as mtg.self_play
    cards = _tracked_cards(g.state, g.name)
    recorder = _Recorder(
        driver, [c["id"] for c in cards], {c["ability"]: i for i, c in enumerate(cards) if c["ability"]}
    )
    recorder.frames.append(recorder.frame(g.state))
    recorder.install()
    moves = 0
    try:
        # mtg.self_play's loop and policy, written out to keep the Game: uniform-random over the legal moves,
        # drawn from the game's own seeded RNG.
        while moves < MAX_MOVES and not g.is_game_over():
            legal = g.legal_moves
            if not legal:
                break
            g.push(setup.random_policy(g.state, "action", legal, legal[0]), checked=False)
            recorder.frames.append(recorder.frame(g.state))
            moves += 1
    finally:
        recorder.uninstall()
    outcome = g.outcome()
    return {
        "seed": seed,
        "cards": cards,
        "frames": recorder.frames,
        "moves": moves,
        "turns": g.turn_number,
        "outcome": f"{outcome[0]} won ({outcome[1]})" if outcome else "unfinished",
    }


def _record_main(seeds: Sequence[int]) -> int:
    """The child process: one JSON line per game on stdout (what the engine prints goes nowhere)."""
    out = sys.stdout
    with open(os.devnull, "w", encoding="utf-8") as devnull, contextlib.redirect_stdout(devnull):
        for seed in seeds:
            out.write(json.dumps(record_game(seed), separators=(",", ":")) + "\n")
            out.flush()
    return 0


def play_games(
    seeds: Iterable[int], *, jobs: int = 2, progress: Callable[[int, int], None] | None = None
) -> list[GameRecord]:
    """Play the seeded games in ``jobs`` child processes with ``PYTHONHASHSEED=0``; records in seed order."""
    require_python_mtg()
    seeds = list(seeds)
    jobs = max(1, min(jobs, len(seeds)))
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    records: dict[int, dict[str, Any]] = {}
    errors: list[str] = []
    lock = threading.Lock()

    def play(chunk: list[int]) -> None:
        command = [sys.executable, "-m", MODULE, "_record", *map(str, chunk)]
        with tempfile.TemporaryFile("w+", encoding="utf-8") as stderr:  # a file: a full pipe can't block the child
            with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env) as child:
                assert child.stdout is not None
                for line in child.stdout:
                    record = json.loads(line)
                    with lock:
                        records[record["seed"]] = record
                        if progress:
                            progress(len(records), len(seeds))
            stderr.seek(0)
            message = stderr.read().strip()
        if child.returncode != 0:
            errors.append(message.splitlines()[-1] if message else f"exit status {child.returncode}")

    threads = [threading.Thread(target=play, args=(seeds[i::jobs],)) for i in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise AdapterError(f"a python-mtg game failed: {errors[0]}")
    return [GameRecord.of(records[s]) for s in seeds]


# =============================================================================================
# From frames to moments (plain Python from here on: no python-mtg needed).
# =============================================================================================


@dataclass(frozen=True)
class CardInfo:
    """A tracked card, as the engine's facts describe it."""

    id: str
    name: str
    owner: str
    creature: bool
    land: bool
    phrase: str  # the engine's reading of its trigger phrase
    event: str  # the engine's event key for that phrase
    effects: tuple[tuple[str, ...], ...]  # (seq, verb, amount, target, extra, condition) rows
    once_each_turn: bool
    enters_tapped: bool
    text: str
    enchantment: bool = False
    instant: bool = False
    sorcery: bool = False

    @classmethod
    def of(cls, data: dict[str, Any]) -> CardInfo:
        fields_ = {k: v for k, v in data.items() if k != "ability"}
        return cls(**{**fields_, "effects": tuple(tuple(e) for e in data["effects"])})

    @property
    def kind(self) -> str:
        if not self.event:
            return "none"
        if self.event not in ENGINE_EVENTS:
            raise AdapterError(f"{self.name}: the engine's event {self.event!r} maps onto no KIND of the model")
        return ENGINE_EVENTS[self.event].kind

    @property
    def judged_before(self) -> bool:
        return bool(self.event) and ENGINE_EVENTS[self.event].judged_before

    # The flags of its ability, from the condition and target columns of its effect rows.
    @property
    def has_if(self) -> bool:
        return any(e[-1] not in ("-", "") and not e[-1].startswith("may") for e in self.effects)

    @property
    def optional(self) -> bool:
        return any(e[-1].startswith("may") for e in self.effects)

    @property
    def targeted(self) -> bool:
        return any(e[3].startswith("target") or e[3] == "any_target" for e in self.effects)

    @property
    def modal(self) -> bool:
        return any(e[1] == "modal_trigger" for e in self.effects)


@dataclass(frozen=True)
class Fired:
    """One triggered instance the engine applied."""

    card: int
    controller: str
    judged_before: bool | None  # the engine evaluated it on the game before the batch (None: not seen)


@dataclass(frozen=True)
class Frame:
    """The tracked part of the engine's state after one driver call."""

    turn: int
    active: str
    step: str  # the engine's step
    zone: tuple[str, ...]  # per tracked card
    controller: tuple[str, ...]
    tapped: tuple[bool, ...]
    attached: tuple[int | None, ...]
    stack: tuple[tuple[int, str], ...]  # tracked objects on the stack, bottom first: (card, controller)
    fired: tuple[Fired, ...]
    untracked_on_stack: bool
    effects_on_tracked: bool
    over: bool

    @classmethod
    def of(cls, data: dict[str, Any]) -> Frame:
        if data["step"] not in STEP_OF:
            raise AdapterError(f"python-mtg step {data['step']!r} is not one the adapter knows")
        return cls(
            **{
                **data,
                **{k: tuple(data[k]) for k in ("zone", "controller", "tapped", "attached")},
                "stack": tuple((i, who) for i, who in data["stack"]),
                "fired": tuple(Fired(*f) for f in data["fired"]),
            }
        )

    @property
    def model_step(self) -> str:
        return STEP_OF[self.step]

    def key(self) -> tuple:
        """What successive frames are compared on (the model's step, not the engine's)."""
        return (self.turn, self.active, self.model_step, self.zone, self.controller, self.tapped, self.attached) + (
            self.stack,
        )


@dataclass(frozen=True)
class GameRecord:
    seed: int
    cards: tuple[CardInfo, ...]
    frames: tuple[Frame, ...]
    moves: int
    turns: int
    outcome: str

    @classmethod
    def of(cls, data: dict[str, Any]) -> GameRecord:
        if len(data["cards"]) > game.MAX_COUNT:
            raise AdapterError(f"seed {data['seed']}: {len(data['cards'])} tracked cards; traces hold at most 6")
        cards = tuple(CardInfo.of(c) for c in data["cards"])
        meant = {c.name: c.kind for deck in DECKS.values() for c in deck}
        for c in cards:
            if c.kind != meant.get(c.name):
                raise AdapterError(f"python-mtg reads {c.name}'s trigger as {c.kind}, not {meant.get(c.name)}")
        return cls(
            data["seed"],
            cards,
            tuple(Frame.of(f) for f in data["frames"]),
            data["moves"],
            data["turns"],
            data["outcome"],
        )


@dataclass
class Moment:
    """The game after one batch of events, and the instances the engine applied in that batch."""

    state: Frame
    fired: list[Fired] = field(default_factory=list)

    @property
    def representable(self) -> bool:
        """The model can hold it: nothing untracked on the stack, no effect on a tracked card, controllers known."""
        s = self.state
        return not (s.untracked_on_stack or s.effects_on_tracked or "?" in s.controller)


def engine_moments(record: GameRecord) -> list[Moment]:
    """The game's moments, derived from successive frames."""
    moments: list[Moment] = []
    for frame in record.frames:
        if frame.over:
            break  # the batch in which a player lost is in already; after it the game is over
        if "none" in frame.zone:
            continue  # a card between zones: not a state the game is ever in
        last = moments[-1] if moments else None
        if last is not None and frame.key() == last.state.key():
            if frame.fired and last.fired:
                moments.append(Moment(frame, list(frame.fired)))  # another round of triggers, nothing else new
            else:
                last.fired += frame.fired
            continue
        if last is not None and _same_untap_or_cleanup(last, frame) and not (frame.fired or last.fired):
            last.state = frame  # the untap and cleanup steps are one moment each
            continue
        moments.append(Moment(frame, list(frame.fired)))
    return moments


def _same_untap_or_cleanup(last: Moment, frame: Frame) -> bool:
    return frame.model_step in NO_PRIORITY_STEPS and (frame.turn, frame.model_step) == (
        last.state.turn,
        last.state.model_step,
    )


# =============================================================================================
# Windows.
# =============================================================================================


@dataclass(frozen=True)
class Step:
    """One trace moment: an engine moment, or the k-th synthetic resolution after it (normalised)."""

    moment: int
    resolution: int | None = None


@dataclass(frozen=True)
class Window:
    seed: int
    mode: str
    steps: tuple[Step, ...]
    cards: tuple[int, ...]  # the tracked cards it holds (indices into the game's cards)

    @property
    def length(self) -> int:
        return len(self.steps)

    @property
    def name(self) -> str:
        return f"seed{self.seed}-m{self.steps[0].moment:03d}-{self.steps[-1].moment:03d}-{self.mode}"


def _can_start(m: Moment) -> bool:
    """A trace starts where a player would receive priority, with nothing on the stack or waiting."""
    return m.representable and not m.fired and not m.state.stack and m.state.model_step not in NO_PRIORITY_STEPS


def _fits(m: Moment) -> bool:
    if not m.representable:
        return False
    if m.fired and m.state.model_step in NO_PRIORITY_STEPS:
        return False  # instances waiting through the untap or cleanup step: not modelled here
    return len(m.state.stack) + len(m.fired) <= SLOTS and len(m.fired) <= game.MAX_COUNT


def layout(moments: Sequence[Moment], start: int, mode: str, limit: int = MAX_MOMENTS) -> list[Step]:
    """The trace moments of a window that starts at engine moment ``start``."""
    steps: list[Step] = []
    for i in range(start, len(moments)):
        m = moments[i]
        resolutions = len(m.fired) if mode == NORMALISED else 0
        if not _fits(m) or len(steps) + 1 + resolutions > limit:
            break
        steps += [Step(i)] + [Step(i, k) for k in range(resolutions)]
        if mode == FAITHFUL and m.fired:
            break  # the instances wait forever: the model's next step could not begin
    return steps


def cards_involved(moments: Sequence[Moment], steps: Sequence[Step], n_cards: int) -> tuple[int, ...]:
    """Cards outside the library at some moment, or whose ability fires (the others change nothing)."""
    out: set[int] = set()
    for s in steps:
        m = moments[s.moment]
        out.update(c for c in range(n_cards) if m.state.zone[c] != "library")
        out.update(f.card for f in m.fired)
    return tuple(sorted(out))


def windows(record: GameRecord, moments: Sequence[Moment]) -> list[Window]:
    """Consecutive normalised windows over the game, and a faithful one for each that has a trigger.

    Every window holds all the tracked cards: one trace shape, so the checks are compiled once
    (examples are cut down to the cards they involve).
    """
    every_card = tuple(range(len(record.cards)))
    out: list[Window] = []
    i = 0
    while i < len(moments):
        steps = layout(moments, i, NORMALISED) if _can_start(moments[i]) else []
        if len(steps) < 2:
            i += 1
            continue
        following = i + 1 + max(s.moment - i for s in steps)
        if following < len(moments) and _fits(moments[following]):  # cut by the length limit
            # End at the last quiet moment and start the next window there, so that no batch falls between
            # two windows (a window's first moment is a state, its events are not checked).
            quiet = next((m for m in range(following - 1, i, -1) if _can_start(moments[m])), None)
            if quiet is not None:
                steps = steps[: steps.index(Step(quiet)) + 1]
                following = quiet
        out.append(Window(record.seed, NORMALISED, tuple(steps), every_card))
        faithful = layout(moments, i, FAITHFUL)
        if moments[faithful[-1].moment].fired:
            out.append(Window(record.seed, FAITHFUL, tuple(faithful), every_card))
        i = following
    return out


# =============================================================================================
# A window as a trace in the published format.
# =============================================================================================


@dataclass(frozen=True)
class _Slot:
    """An object on the stack, as the trace's slot variables hold it."""

    src: int = 0  # 0 empty, 1 + ability, 1 + abilities + card for a spell
    controller: int = 0
    moment: int = 0
    zone: str = "library"
    object: int = 0  # for an ability: the card whose zone change it looks for (its own: no Auras here)


class _WindowTrace:
    """Writes one window's trace, moment by moment, from the engine's moments."""

    def __init__(self, record: GameRecord, moments: Sequence[Moment], window: Window) -> None:
        self.record, self.moments, self.window = record, moments, window
        self.cards = [record.cards[c] for c in window.cards]
        self.local = {c: j for j, c in enumerate(window.cards)}
        self.n = len(self.cards)
        self.universe: Universe = game.universe(player=2, card=self.n, delayed=1, reflexive=1, slot=SLOTS)
        self.abilities = self.universe.size("ability")
        self.first = moments[window.steps[0].moment].state
        other = next(p for p in PLAYERS if p != self.first.active)
        self.player = {self.first.active: 0, other: 1}  # the player active at the start is player 0
        # What the trace carries from one moment to the next.
        self.states: list[dict[str, Any]] = []
        self.since = [0] * self.n
        self.on_stack: list[_Slot] = []  # normalised: instances waiting to resolve, bottom first
        self.pending = [0] * self.abilities
        self.resolutions = [0] * self.n
        self.done = [[False, False] for _ in range(self.n)]  # per card, per player (603.2i)

    def constants(self) -> dict[str, Any]:
        cards, n = self.cards, self.n
        return {
            "owner": [self.player[c.owner] for c in cards],
            "kind": [c.kind for c in cards],
            "creature_card": [c.creature for c in cards],
            "land_card": [c.land for c in cards],
            "artifact_card": [c.name in ARTIFACTS for c in cards],
            "enchantment_card": [c.enchantment for c in cards],
            "instant_card": [c.instant for c in cards],
            "sorcery_card": [c.sorcery for c in cards],
            "has_if": [c.has_if for c in cards],
            "optional": [c.optional for c in cards],
            "modal": [c.modal for c in cards],
            "targeted": [c.targeted for c in cards],
            "once_each_turn": [c.once_each_turn for c in cards],
            "from_hand": [False] * n,
            "enters_tapped": [c.enters_tapped for c in cards],
            "doubler": [False] * n,
            # 603.6: both zone-change abilities in the decks do nothing to the creature that moved ("When this
            # creature leaves the battlefield, you draw two cards ..."; "When this creature enters, you gain 2 life").
            "other_effect": [c.name in ACTS_ELSEWHERE for c in cards],
            # No ability in the decks does something to its own card but as 603.6 says (gain life, lose life).
            "acts_on_this": [False] * n,
            "acts_on_that": [False] * n,
            "if_about_that": [False] * n,
            "granted": [False] * n,
            "uncounterable": [False] * n,
            "mana_ability": [False] * n,
            "aura": [False] * n,  # ASSUMPTIONS["603.6e"]: no Auras
            "final_chapter": [0] * n,
            "token": [False] * n,  # ASSUMPTIONS["token, legend_name"]
            "legend_name": [0] * n,
            # The engine's event keys read 'a creature' and 'another creature' alike (FALSE_ALARM_SOURCES): no filter.
            **{f: ["any"] * n for f in game.SUBJECT_FILTERS},
            "subject_subtype": [[True] * n for _ in range(n)],  # nor a subtype
            "one_or_more": [False] * n,  # no card of the decks says "one or more"
            "triggers_once_each_turn": [False] * n,  # nor "This ability triggers only once each turn"
            "reflexive_from": [0],
            "pay_any": [False],
            "r_targeted": [False],
            "r_n": [0],
            "d_kind": ["none"],
            "d_duration": [False],
            "d_cause": ["action"],  # (never created: no allowed action of the decks creates one)
            "d_source": [0],
            "d_refers": [[False] * n],
            "d_nth": [False],
            "d_n": [2],
            "d_other_effect": [False],
            "d_targeted": [False],
            "d_moves_to": ["none"],
            "moves_to": ["none"] * n,  # no ability of the decks moves a card (gain life, draw cards)
        }

    def document(self) -> dict[str, Any]:
        for t, step in enumerate(self.window.steps):
            self.states.append(self.state(t, step))
        game.waiting_bookkeeping(self.states, self.n, no_zone=game.ZONES[0])  # the model's, not the engine's
        # (a record the reader computes by the model's own definition, once_triggered_object, is left to it)
        per_moment = [v.name for v in game.VARIABLES if v.per_moment and v.completed_by is None]
        constants = self.constants()
        return {
            "#meta": {
                "engine": f"{ENGINE} {ENGINE_VERSION}",
                "seed": self.record.seed,
                "mode": self.window.mode,
                "engine_moments": [self.window.steps[0].moment, self.window.steps[-1].moment],
                "cards": [c.name for c in self.cards],
                # rule603's outputs (show, check) name the cards as the engine does.
                "names": {"card": [c.name for c in self.cards]},
                "format": "ITF",
                "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                "rule603": TRACE_FORMAT,
                "edition": EDITION,
                "universe": dict(self.universe.sizes),
            },
            "params": [],
            "vars": per_moment,
            "constants": {v.name: constants[v.name] for v in game.VARIABLES if not v.per_moment},
            "states": [{"#meta": {"index": t}, **{k: s[k] for k in per_moment}} for t, s in enumerate(self.states)],
        }

    def state(self, t: int, step: Step) -> dict[str, Any]:
        frame = self.moments[step.moment].state
        zone = [frame.zone[c] for c in self.window.cards]
        prev = self.states[-1] if self.states else None
        turn = frame.turn - self.first.turn + 1
        if prev is not None:
            self.since = [t if zone[j] != prev["zone"][j] else self.since[j] for j in range(self.n)]  # 400.7
            if turn != prev["turn"]:
                self.resolutions, self.done = [0] * self.n, [[False, False] for _ in range(self.n)]
            # A new object's ability has resolved no times (603.7h counts for the object).
            self.resolutions = [0 if self.since[j] == t else r for j, r in enumerate(self.resolutions)]
        controller = [
            self.player[frame.controller[c]]
            if zone[j] in ("battlefield", "stack")
            else self.player[self.cards[j].owner]
            for j, c in enumerate(self.window.cards)
        ]
        fired = self.moments[step.moment].fired if step.resolution is None else []
        return {
            "turn": turn,
            "active": self.player[frame.active],
            "step": frame.model_step,
            "priority": frame.model_step not in NO_PRIORITY_STEPS,  # ASSUMPTIONS["priority"]
            "extra_turn": False,  # ASSUMPTIONS["extra_turn, extra_step, unfinished"]
            "extra_step": False,
            "unfinished": False,
            **self._objects(frame, zone, controller),
            **self._events(),
            **self._triggers(t, fired, zone, controller),
            **self._stack(t, step, frame, prev, fired, zone),
        }

    def _objects(self, frame: Frame, zone: list[str], controller: list[int]) -> dict[str, Any]:
        n, cards = self.n, self.window.cards
        return {
            "zone": zone,
            "since": list(self.since),
            "controller": controller,
            "tapped": [frame.tapped[c] and zone[j] == "battlefield" for j, c in enumerate(cards)],
            "revealed": [False] * n,
            "phased_out": [False] * n,
            "attached_to": [n if frame.attached[c] is None else self.local.get(frame.attached[c], n) for c in cards],
            "prohibited": [False] * n,
            "lore": [0] * n,  # no Sagas in the micro decks
            "cond": [False] * n,
            "cond_that": [[True] * n for _ in range(n)],  # no intervening "if" about another object in the decks
            "lands_are_creatures": False,
            "creatures_lose_abilities": False,
            "grant_ability": False,
            "eff_creature": [c.creature for c in self.cards],
            "eff_ability": [True] * n,
        }

    def _events(self) -> dict[str, Any]:
        """What the engine does not record (ASSUMPTIONS): no damage, nobody leaves the game, no choices."""
        n = self.n
        return {
            "damage": [False] * n,
            "damage_prevented": [False] * n,
            "dies_replaced": [False] * n,
            "deals_damage": [False] * n,
            "combat_damage_to": [[False, False] for _ in range(n)],
            "blocked": [False] * n,
            "was_blocked": [False] * n,
            "instances": [1] * n,
            "tapped_for_mana": [False] * n,
            "revealed_first_draw": [False] * n,
            "leaves_game": [False, False],
            "by_draw": [False, False],
            "left_game": [False, False],
            "no_life": [False, False],  # ASSUMPTIONS["damage, ..."]: the window ends as a player loses
            "lethal": [False] * n,
            "may_use": False,
            "actions_by_effect": 0,
            "actions_other": 0,
            "replacement_applied": [False],
            "action_taken": [False],
            "no_legal_choice": [False] * self.abilities,
        }

    def _triggers(self, t: int, fired: Sequence[Fired], zone: list[str], controller: list[int]) -> dict[str, Any]:
        triggers = [0] * self.abilities
        # Where nothing triggers, trigger_controller is free: the source's controller is as good as any.
        trigger_controller = controller + [0, 0]
        look_back = [c.judged_before for c in self.cards] + [False, False]
        for f in fired:
            j = self.local[f.card]
            triggers[j] += 1  # the engine's count is its claim of the matches (ASSUMPTIONS)
            trigger_controller[j] = self.player[f.controller]  # the controller in the engine's row
            if f.judged_before is not None:
                look_back[j] = f.judged_before  # measured
        kinds = [c.kind for c in self.cards]
        return {
            "look_back": look_back,
            "matches": list(triggers),
            "attempts": list(triggers),
            "base_triggers": list(triggers),
            "triggers": triggers,
            "trigger_controller": trigger_controller,
            "removed": [0] * self.abilities,
            "skipped": [0] * self.abilities,
            "dropped": [0] * self.abilities,
            "prohibition_applies": [False] * self.abilities,
            # 113.3: no 'triggers an additional time' effect in the decks refers to any ability.
            "counts_additional": [False] * self.abilities,
            "is_leaves_ability": [k in LEAVES_KINDS for k in kinds],
            "registered": [False],
            "d_controller": [0],
            "d_stamp": [[0] * len(kinds)],
            "d_zone": [["library"] * len(kinds)],
        }

    def _stack(
        self, t: int, step: Step, frame: Frame, prev: dict[str, Any] | None, fired: Sequence[Fired], zone: list[str]
    ) -> dict[str, Any]:
        spells = [
            _Slot(1 + self.abilities + self.local[c], self.player[who]) for c, who in frame.stack if c in self.local
        ]
        placed = [0] * self.abilities
        leave, acts = "none", False
        if step.resolution is not None:  # the synthetic resolution of the top instance (normalised)
            top = self.on_stack.pop()
            leave, acts = "resolve", True
            if self.since[top.src - 1] <= top.moment < t:  # the current object's ability (400.7)
                self.resolutions[top.src - 1] += 1
            self.done[top.src - 1][top.controller] = True
        elif prev is not None and prev["stack_size"]:
            before = list(zip(prev["slot_src"], prev["slot_controller"], strict=True))[: prev["stack_size"]]
            now = [(s.src, s.controller) for s in spells]
            if now[: len(before)] != before:
                leave = "resolve"  # the top spell left the stack (ASSUMPTIONS["leave"])
                if now[: len(before) - 1] != before[:-1]:
                    raise AdapterError(f"{self.window.name}: two objects left the stack in one batch")
        if self.window.mode == NORMALISED:
            for f in reversed(fired):  # the engine applied the first one first: it is on top
                j = self.local[f.card]
                self.on_stack.append(_Slot(1 + j, self.player[f.controller], t, zone[j], j))
                placed[j] += 1
        triggers = [0] * self.abilities
        for f in fired:
            triggers[self.local[f.card]] += 1
        self.pending = [p + x - y for p, x, y in zip(self.pending, triggers, placed, strict=True)]
        slots = spells + self.on_stack
        if len(slots) > SLOTS:
            raise AdapterError(f"{self.window.name}: {len(slots)} objects on the stack, more than {SLOTS} slots")
        slots += [_Slot()] * (SLOTS - len(slots))
        return {
            "leave": leave,
            "pending": list(self.pending),
            "placed": placed,
            "resolutions": list(self.resolutions),
            "done_this_turn": [list(per_player) for per_player in self.done],
            "stack_size": sum(1 for s in slots if s.src),
            "ceased": 0,
            "slot_src": [s.src for s in slots],
            "slot_controller": [s.controller for s in slots],
            "slot_moment": [s.moment for s in slots],
            "slot_zone": [s.zone for s in slots],
            "slot_object": [s.object for s in slots],
            "countered_now": False,
            "removed_now": False,
            "targets_illegal": False,
            "instruction_works": False,
            "acts": acts,
            "affects": [False] * self.n,  # ASSUMPTIONS["603.6e"]: no Auras; no delayed abilities
        }


def trace_document(record: GameRecord, moments: Sequence[Moment], window: Window) -> dict[str, Any]:
    """The window as a trace in the published format (``docs/trace-format.md``), values by name."""
    return _WindowTrace(record, moments, window).document()


def to_trace(document: dict[str, Any]) -> Trace:
    """A trace document as a :class:`rule603.Trace` (values as codes), for the step table."""
    specs = {v.name: v for v in game.VARIABLES}

    def code(name: str, value: Any) -> Any:
        if isinstance(value, list):
            return [code(name, v) for v in value]
        return specs[name].values.index(value) if specs[name].kind == "enum" else value

    meta = document["#meta"]
    params = {k: code(k, v) for k, v in document["constants"].items()}
    states = tuple({k: code(k, v) for k, v in s.items() if k != "#meta"} for s in document["states"])
    return Trace(meta["edition"], Universe(dict(meta["universe"])), params, states, {"seed": meta["seed"]})


# =============================================================================================
# Checking.
# =============================================================================================


def clause_order(number: str) -> tuple:
    """603.1a < 603.2 < 603.2a < 603.10 < 603.10a < 603.12."""
    return tuple((int(d or 0), s) for d, s in re.findall(r"(\d*)([a-z]*)", number) if d or s)


@dataclass
class GameTraces:
    """One game: its record, its moments and its windows."""

    record: GameRecord
    moments: list[Moment]
    windows: list[Window]

    @classmethod
    def of(cls, record: GameRecord) -> GameTraces:
        moments = engine_moments(record)
        return cls(record, moments, windows(record, moments))

    def document(self, window: Window) -> dict[str, Any]:
        return trace_document(self.record, self.moments, window)

    def documents(self) -> Iterator[tuple[Window, dict[str, Any]]]:
        for window in self.windows:
            yield window, self.document(window)


@dataclass(frozen=True)
class Checked:
    window: Window
    document: dict[str, Any]
    findings: tuple[Finding, ...]

    @property
    def conforms(self) -> bool:
        return not self.findings

    def clauses(self) -> list[str]:
        return sorted({f.clause for f in self.findings}, key=clause_order)


def what_happened(document: dict[str, Any], finding: Finding) -> str:
    """For a trigger-condition clause: where the engine's instance came from, or that it missed or miscounted."""
    if finding.clause not in CONDITION_CLAUSES or not finding.about[-1].isdigit():
        return ""
    j, t = int(finding.about.split()[-1]), finding.moment
    state = document["states"][t]
    view = t - 1 if t > 0 and state["look_back"][j] else t
    source_zone = document["states"][view]["zone"][j]
    if state["triggers"][j] == 0:
        return "missed"
    return f"from the {source_zone}" if source_zone != "battlefield" else "count differs"


def cause(document: dict[str, Any], finding: Finding) -> str:
    """What an example shows: ``what_happened`` with the zones outside the battlefield taken together."""
    happened = what_happened(document, finding)
    return "outside the battlefield" if happened.startswith("from the ") else happened


@dataclass(frozen=True)
class Example:
    """The smallest window that breaks a clause (in one way): fewest moments, then fewest cards."""

    clause: str
    cause: str  # see cause(); "" for clauses that are not about trigger conditions
    window: Window
    document: dict[str, Any]
    finding: Finding  # the first such violation in it

    def size(self) -> tuple:
        return (self.window.length, len(self.window.cards), self.window.seed, self.window.steps[0].moment)

    def file(self, main: bool) -> str:
        return f"{self.clause}.json" if main else f"{self.clause}-{self.cause.replace(' ', '-')}.json"


def smallest_example(checker: TraceChecker, traces: GameTraces, checked: Checked, finding: Finding) -> Example:
    """Cut a violating window down: end it at the violation, start it as late as still shows it."""
    key = (finding.clause, cause(checked.document, finding))
    target = checked.window.steps[finding.moment]
    begin = checked.window.steps[0].moment
    for start in reversed([i for i in range(begin, target.moment + 1) if _can_start(traces.moments[i])]):
        steps = layout(traces.moments, start, checked.window.mode)
        if target not in steps:
            continue
        steps = steps[: steps.index(target) + 1]
        cards = cards_involved(traces.moments, steps, len(traces.record.cards))
        window = Window(checked.window.seed, checked.window.mode, tuple(steps), cards)
        document = traces.document(window)
        found = [f for f in checker.check(document, window.name).violations if (f.clause, cause(document, f)) == key]
        if found:
            return Example(*key, window, document, found[0])
    return Example(*key, checked.window, checked.document, finding)


@dataclass
class Run:
    """What one run played and found."""

    games: list[GameTraces]
    checked: list[Checked]
    examples: dict[tuple[str, str], Example]  # by (clause, cause)

    def mode(self, mode: str) -> list[Checked]:
        return [c for c in self.checked if c.window.mode == mode]

    def game(self, seed: int) -> GameTraces:
        return next(g for g in self.games if g.record.seed == seed)

    def examples_of(self, clause: str) -> list[Example]:
        """The clause's examples, smallest first: the first is the clause's example, the others other causes."""
        return sorted((e for (cl, _), e in self.examples.items() if cl == clause), key=Example.size)


def check_games(games: Sequence[GameTraces], *, progress: Callable[[int, int], None] | None = None) -> Run:
    """Check every window of every game, and find the smallest example of each violated clause (and cause)."""
    checker = TraceChecker(EDITION, all_violations=True)
    checked: list[Checked] = []
    total = sum(len(g.windows) for g in games)
    for g in games:
        for window, document in g.documents():
            checked.append(Checked(window, document, checker.check(document, window.name).violations))
            if progress:
                progress(len(checked), total)
    run = Run(list(games), checked, {})
    for c in checked:
        firsts: dict[tuple[str, str], Finding] = {}
        for f in c.findings:
            firsts.setdefault((f.clause, cause(c.document, f)), f)
        for key, finding in sorted(firsts.items(), key=lambda kv: (clause_order(kv[0][0]), kv[0][1])):
            best = run.examples.get(key)
            if best is not None and best.size()[:2] <= (2, 1):
                continue  # nothing smaller exists
            candidate = smallest_example(checker, run.game(c.window.seed), c, finding)
            if best is None or candidate.size() < best.size():
                run.examples[key] = candidate
    return run


# =============================================================================================
# The report.
# =============================================================================================


@lru_cache(maxsize=1)
def load_edition() -> Any:
    """The current edition: its clause list and summaries, and what the step tables need."""
    from rule603 import load_edition as load

    return load(EDITION)


def render(document: dict[str, Any]) -> str:
    """A trace document as ``rule603 show`` prints it."""
    from rule603._internal.report import render_trace

    return render_trace(load_edition(), to_trace(document))


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    return lines + ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]


def _causes(checked: Sequence[Checked], clause: str) -> str:
    happened = Counter(what_happened(c.document, f) for c in checked for f in c.findings if f.clause == clause)
    return ", ".join(f"{what} {n}" for what, n in sorted(happened.items(), key=lambda kv: (-kv[1], kv[0])) if what)


class _Report:
    """The Markdown report, section by section (deterministic: no timings)."""

    def __init__(self, run: Run, games: int, seed: int, output: str) -> None:
        self.run, self.games, self.seed, self.output = run, games, seed, output
        self.edition = load_edition()
        self.summary = {e.number: e.summary for e in self.edition.encodings}
        self.examples_dir = Path(output).with_suffix("").name  # next to the report
        self.by_mode = {mode: run.mode(mode) for mode in MODES}
        self.violated = sorted({f.clause for c in run.checked for f in c.findings}, key=clause_order)
        self.model_rules = {f.clause for c in run.checked for f in c.findings if f.kind != "clause"}

    def text(self) -> str:
        sections = [self.head(), self.figures(), self.violations(), self.decks(), self.examples()]
        sections += [self.false_alarms(), self.clauses(), self.assumptions()]
        return "\n\n".join("\n".join(s) for s in sections) + "\n"

    def head(self) -> list[str]:
        return [
            f"# {ENGINE} {ENGINE_VERSION} against rule 603",
            "",
            f"Generated by `python -m {MODULE} report --games {self.games} --seed {self.seed} --output "
            f"{self.output}`; do not edit it by hand (a test regenerates it and fails when it is out of date).",
            "",
            f"[python-mtg](https://pypi.org/project/python-mtg/{ENGINE_VERSION}/) is a Magic engine written by others. "
            f"{self.games} of its self-play games (seeds {self.seed} to {self.seed + self.games - 1}, its own "
            "uniform-random policy) were recorded through wrappers around its driver, cut into trace windows and "
            "checked with `rule603.TraceChecker` against every encoded clause of rule 603 and every game-model "
            "rule. The adapter, and how each trace variable is obtained, is `engines/python_mtg.py`.",
        ]

    def figures(self) -> list[str]:
        modes = [self.by_mode[m] for m in MODES]
        n_moments = sum(len(g.moments) for g in self.run.games)
        checked_games = len({c.window.seed for c in self.run.checked})
        covered = len({(c.window.seed, s.moment) for c in self.by_mode[NORMALISED] for s in c.window.steps})
        return [
            "## Figures",
            "",
            *_table(
                ["", "faithful", "normalised"],
                [
                    ["games checked", *(len({c.window.seed for c in m}) for m in modes)],
                    ["windows", *(len(m) for m in modes)],
                    ["moments checked", *(sum(c.window.length for c in m) for m in modes)],
                    ["of which synthetic (assumed resolutions)", *(_synthetic(m) for m in modes)],
                    ["conforming windows", *(sum(c.conforms for c in m) for m in modes)],
                    ["violations (clause instances)", *(sum(len(c.findings) for c in m) for m in modes)],
                ],
            ),
            "",
            f"{checked_games} of {self.games} games gave windows. The games have {n_moments} moments (batches of "
            f"events), {sum(g.record.turns for g in self.run.games)} turns and "
            f"{sum(g.record.moves for g in self.run.games)} moves in all; {covered} of the moments are in normalised "
            "windows (consecutive windows share a quiet moment, with no trigger and an empty stack: the last of one "
            "is the first of the next)."
            + (
                ""
                if covered == n_moments
                else " The others are untap or cleanup steps between windows, or moments the model can't hold (an "
                "untracked object on the stack, an effect on a tracked card)."
            ),
            "",
            "- **Faithful** windows record what the engine did: each instance it applied is pending and never goes "
            "on the stack. Such a window ends with its first batch in which an ability triggers; there is one for "
            "each normalised window with a trigger, starting where it starts.",
            "- **Normalised** windows cover the games: the adapter assumes each instance went on the stack as it "
            "triggered, in the engine's order of application, and resolved at once, adding one synthetic moment "
            "for each. Findings about placement and resolution (603.3, 603.3b, 603.6) rest on that assumption; "
            "the others compare the engine's instances with the events of the game.",
        ]

    def violations(self) -> list[str]:
        counts = {mode: _counts(self.by_mode[mode]) for mode in MODES}
        rows = []
        for cl in self.violated:
            label = f"{cl} (game model: an adapter error)" if cl in self.model_rules else cl
            cause_mode = NORMALISED if counts[NORMALISED][0][cl] else FAITHFUL
            rows.append(
                [
                    f"[{label}](#{cl.replace('.', '')})",
                    self.summary.get(cl, self.run.examples_of(cl)[0].finding.summary),
                    *(f"{counts[m][0][cl]} in {counts[m][1][cl]} windows" if counts[m][0][cl] else "-" for m in MODES),
                    _causes(self.by_mode[cause_mode], cl) if cl in CONDITION_CLAUSES else "",
                ]
            )
        headers = ["clause", "summary", "faithful", "normalised", "what the engine did (normalised windows)"]
        lines = ["## Violations by clause", ""] + (_table(headers, rows) if rows else ["None."])
        lines += ["", "What they say about python-mtg:", ""]
        return lines + [f"- **{cl}**: {FINDINGS.get(cl, 'see the example below.')}" for cl in self.violated]

    def decks(self) -> list[str]:
        cards = {c.name: c for c in self.run.games[0].record.cards} if self.run.games else {}
        rows = []
        for player in PLAYERS:
            for deck_card in DECKS[player]:
                c = cards.get(deck_card.name)
                if c is None:
                    continue
                fidelity = ENGINE_EVENTS[c.event].note if c.event else "no triggered ability"
                rows.append([player, c.name, c.text, c.phrase or "-", c.event or "-", c.kind, fidelity])
            lands = ", ".join(f"{n} {land}" for land, n in LANDS[player].items())
            rows.append([player, lands, "basic lands, not tracked", "-", "-", "-", "-"])
        return [
            "## Decks",
            "",
            "Micro decks, so that all six nonland cards fit in every trace (the model holds six) and every creature "
            "that can enter or die is tracked. Each card's triggered ability maps onto a KIND of the model through "
            "the engine's own reading of its trigger phrase:",
            "",
            *_table(["player", "card", "text", "engine phrase", "engine event", "KIND", "fidelity"], rows),
        ]

    def examples(self) -> list[str]:
        lines = [
            "## Examples",
            "",
            "For each violated clause, the smallest window that shows it (fewest moments, then fewest cards; cards "
            "that stay in the library all along and never trigger are left out), saved as a trace in "
            f"`{self.examples_dir}/` next to this report (`rule603 show FILE` prints it). For the trigger-condition "
            "clauses, also the smallest window of each other thing the engine did (a trigger outside the "
            "battlefield, a missed trigger, a wrong count). The values are those the clause read at its first "
            "violation there.",
        ]
        for cl in self.violated:
            main, *others = self.run.examples_of(cl)
            lines += ["", f"### {cl}", "", *self._example(main, main=True)]
            for ex in others:
                lines += ["", f"{cl}, {ex.cause}:", "", *self._example(ex, main=False)]
        return lines

    def _example(self, ex: Example, *, main: bool) -> list[str]:
        w, f = ex.window, ex.finding
        names = self.run.game(w.seed).record.cards
        cards = ", ".join(f"c{j} {names[c].name}" for j, c in enumerate(w.cards))
        path = f"{self.examples_dir}/{ex.file(main)}"
        what = f" What the engine did: {what_happened(ex.document, f)}." if ex.cause else ""
        return [
            f"[`{path}`]({path}): seed {w.seed}, {w.mode}, engine moments {w.steps[0].moment} to "
            f"{w.steps[-1].moment}; {w.length} moments, {len(w.cards)} cards ({cards}).",
            "",
            f"First violation: moment {f.moment}, **{f.clause}** ({f.kind}), {f.summary} ({f.about}).{what}",
            "Values: " + ", ".join(f"`{k} = {v}`" for k, v in f.values.items()) + ".",
            "",
            "```",
            render(ex.document),
            "```",
        ]

    def false_alarms(self) -> list[str]:
        return [
            "## Known false-alarm sources",
            "",
            "No card in the decks has text that differs from its KIND. Card text that would, left out for that "
            "reason, and the adapter's own approximations:",
            "",
        ] + [f"- {k}: {v}" for k, v in FALSE_ALARM_SOURCES.items()]

    def clauses(self) -> list[str]:
        not_modelled = ", ".join(nm.number for nm in self.edition.not_modelled)
        unclassified = sorted(set(self.summary) - set(CHECKED) - set(NOT_CHECKABLE), key=clause_order)
        lines = ["## Clauses", "", "Checked, and where the evidence comes from:", ""]
        lines += _table(
            ["clause", "summary", "evidence"], [[k, self.summary.get(k, ""), v] for k, v in CHECKED.items()]
        )
        lines += ["", "Not checkable with these games, and why:", ""]
        rows = [[k, self.summary.get(k, ""), NOT_CHECKABLE[k]] for k in sorted(NOT_CHECKABLE, key=clause_order)]
        rows += [[k, self.summary[k], "not classified by the adapter yet"] for k in unclassified]
        lines += _table(["clause", "summary", "reason"], rows)
        return lines + [
            "",
            f"Not modelled by rule603 itself: {not_modelled}. The game-model rules are checked on every trace too; "
            "a violation of one of them would be an error of the adapter, not a finding about the engine.",
        ]

    def assumptions(self) -> list[str]:
        return [
            "## Assumptions",
            "",
            "What the engine does not give, and what the adapter puts in its place:",
            "",
            *_table(["variables", "assumption"], ASSUMPTIONS.items()),
        ]


def _synthetic(checked: Sequence[Checked]) -> int:
    return sum(1 for c in checked for s in c.window.steps if s.resolution is not None)


def _counts(checked: Sequence[Checked]) -> tuple[Counter[str], Counter[str]]:
    """Violations (clause instances) and violating windows, by clause."""
    instances: Counter[str] = Counter()
    windows_: Counter[str] = Counter()
    for c in checked:
        instances.update(f.clause for f in c.findings)
        windows_.update(c.clauses())
    return instances, windows_


def report(run: Run, *, games: int, seed: int, output: str) -> str:
    """The Markdown report; ``output`` is the report's path as given on the command line."""
    return _Report(run, games, seed, output).text()


# =============================================================================================
# The command line.
# =============================================================================================


def _progress(what: str) -> Callable[[int, int], None]:
    def show(done: int, total: int) -> None:
        if done == total or done % max(1, total // 4) == 0:
            print(f"{what} {done}/{total}", file=sys.stderr, flush=True)

    return show


def generate(games: int, seed: int, *, jobs: int = 2, quiet: bool = False) -> Run:
    """Play, cut and check ``games`` games from ``seed`` on; timings go to stderr."""
    started = time.perf_counter()
    records = play_games(range(seed, seed + games), jobs=jobs, progress=None if quiet else _progress("played games"))
    played = time.perf_counter()
    run = check_games([GameTraces.of(r) for r in records], progress=None if quiet else _progress("checked windows"))
    if not quiet:
        print(
            f"played {games} games in {played - started:.1f} s; checked {len(run.checked)} windows and found "
            f"{len(run.examples)} examples in {time.perf_counter() - played:.1f} s",
            file=sys.stderr,
        )
    return run


def write_report(run: Run, *, games: int, seed: int, output: Path, overwrite: bool = False) -> None:
    """The report at ``output``, the examples in the directory of the same name next to it."""
    examples = output.with_suffix("")
    for path in (output, examples):
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists; pass --overwrite to replace it")
    text = report(run, games=games, seed=seed, output=output.as_posix())
    examples.mkdir(parents=True, exist_ok=True)
    for stale in examples.glob("*.json"):
        stale.unlink()
    for clause in {cl for cl, _ in run.examples}:
        for i, example in enumerate(run.examples_of(clause)):
            text_ = json.dumps(example.document, indent=1) + "\n"
            write_atomically(examples / example.file(main=i == 0), text_)
    write_atomically(output, text)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["_record"]:  # the child process of play_games
        return _record_main([int(a) for a in args[1:]])
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rep = commands.add_parser("report", help="play seeded self-play games, check them, write the Markdown report")
    rep.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"games to play (default {DEFAULT_GAMES})")
    rep.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the first game's seed (default {DEFAULT_SEED})")
    rep.add_argument("--output", type=Path, required=True, help="the report; examples go in a directory next to it")
    rep.add_argument("--overwrite", action="store_true", help="replace an existing report and its examples")
    rep.add_argument("--jobs", type=int, default=2, help="processes that play games (default 2)")
    ns = parser.parse_args(args)
    try:
        if ns.games < 1 or ns.seed < 0 or ns.jobs < 1:
            raise AdapterError("--games and --jobs must be at least 1, --seed at least 0")
        for path in (ns.output, ns.output.with_suffix("")):
            if path.exists() and not ns.overwrite:
                raise FileExistsError(f"{path} exists; pass --overwrite to replace it")
        run = generate(ns.games, ns.seed, jobs=ns.jobs)
        write_report(run, games=ns.games, seed=ns.seed, output=ns.output, overwrite=ns.overwrite)
    except (AdapterError, FileExistsError) as e:
        print(f"rule603: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {ns.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
