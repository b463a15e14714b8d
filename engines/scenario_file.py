"""Scenario files: a board, a script of actions and the questions to ask, written by people in TOML.

A file names everything (players, objects, delayed and reflexive abilities) and refers to
them by name; :func:`load` turns it into a :class:`~rule603.engines.scenario.Scenario` with
numbers, plus the questions.  Every mistake is one :class:`ScenarioFileError` naming the
file, the line and the field.  The format is documented in ``docs/scenario-format.md``::

    title = "603.10a: a creature that sees others die sees itself die too"

    [[players]]
    name = "Alice"            # the first player is the active one

    [[players]]
    name = "Bob"

    [[objects]]
    name = "Blood Artist"
    types = ["creature"]
    zone = "battlefield"
    owner = "Alice"
    trigger = "creature_dies"  # "Whenever a creature dies, ..."

    [[objects]]
    name = "Grizzly Bears"
    types = ["creature"]
    zone = "battlefield"
    owner = "Bob"

    [[actions]]
    destroy = ["Blood Artist", "Grizzly Bears"]   # one batch: a board wipe

    [[questions]]
    id = "how-many"
    ask = "how_many_times"
    ability = "Blood Artist"
    at = 1
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rule603 import InvalidArgument
from rule603._internal.documents import DocumentError, parse_toml, read_document, shown
from rule603.models import conditions, game, oracle_text

from .scenario import (
    ABILITY_LIST_FIELDS,
    CARD_LIST_FIELDS,
    DESTINATIONS,
    EFFECTS,
    MAX_CARDS,
    START_ZONES,
    TOKEN_START_ZONES,
    Action,
    Card,
    DelayedAbility,
    PrintedAbility,
    ReflexiveAbility,
    Scenario,
    check_scenario,
)


class ScenarioFileError(InvalidArgument):
    """A scenario file that can't be read as written: names the file, the line and the field."""

    __module__ = "rule603.engines.scenario_file"

    def __init__(self, file: str, line: int | None, where: str, message: str) -> None:
        self.file, self.line, self.where, self.message = file, line, where, message
        place = f"{file}:{line}" if line else file
        super().__init__(f"{place}: {where}: {message}" if where else f"{place}: {message}")


#: What a question may ask, and the fields it needs besides ``id`` and ``ask``.
#: Questions of one scenario file: each costs solver calls; the rule's own examples ask at most a handful.
MAX_QUESTIONS = 64
QUESTIONS = {
    "does_trigger": ("ability",),  # does X trigger (at moment ``at``, or at all)
    "how_many_times": ("ability",),  # how many times does X trigger
    "controller": ("ability",),  # who controls X's instances
    "stack_order": ("ability", "other"),  # is X put on the stack before (below) Y
    "put_on_stack": ("ability",),  # is X put on the stack (and left there: not removed, 603.3c-d; nor dropped, 800.4d)
    "does_something": ("ability",),  # does X do what it says when it resolves
    "affects": ("ability", "object"),  # does X, resolving, affect that object (603.6e, 603.7c: each on its own)
    "resolves": ("ability",),  # does X resolve (not countered, not removed from the stack: 603.4, 608.2b)
    "resolutions": ("ability",),  # how many times has X (a printed ability) resolved this turn, at ``at``
    "zone": ("object",),  # where is the object after the script (or at ``at``)
}
#: The model's flag for each card type a file may list (``models.game.CARD_FLAGS``; an Aura is an enchantment).
CARD_TYPE_FLAGS = {
    "creature": "creature_card",
    "land": "land_card",
    "aura": "aura",
    "artifact": "artifact_card",
    "enchantment": "enchantment_card",
    "instant": "instant_card",
    "sorcery": "sorcery_card",
}
TYPES = tuple(CARD_TYPE_FLAGS)
SUPERTYPES = ("legendary",)  # the legend rule (704.5j): the only supertype the model follows
#: Yes/no parts of a triggered ability, in the file's words, and the model's card flag for each.
ABILITY_FLAGS = {
    "intervening_if": "has_if",
    "may": "optional",
    "unless": "optional",  # 603.5: "unless" is dealt with on resolution, just as "may" is
    "modal": "modal",
    "targeted": "targeted",
    "once_each_turn": "once_each_turn",
    "triggers_once_each_turn": "triggers_once_each_turn",
    "works_from_hand": "from_hand",
    "cant_be_countered": "uncounterable",
    "granted_by_effect": "granted",
    "mana_ability": "mana_ability",
    "other_effect": "other_effect",
    "acts_on_this": "acts_on_this",
    "acts_on_that": "acts_on_that",
    "if_about_that": "if_about_that",
}
#: Static abilities, in the file's words.
STATIC_FLAGS = {"enters_tapped": "enters_tapped", "triggers_additional_time": "doubler"}
ONE_OBJECT = ("cast", "play_land")


#: What a script decides besides its events: which objects are new (400.7) and which delayed
#: abilities its effects create (the game model's SCENARIO_DECIDES, where it is explained).
FIXED_BY_SCRIPT = game.SCENARIO_DECIDES
FLAGS = ("next_turn", "extra_step", "resolve", "counter", "decline", "targets_illegal", "draw_game", "unfinished")


@dataclass(frozen=True)
class Question:
    id: str
    ask: str
    ability: int | None = None  # an ability number (a card's first printed ability has the card's number)
    other: int | None = None
    object: int | None = None
    at: int | None = None  # the moment asked about (None: any moment / the end)
    line: int | None = None
    expect: str | None = None  # what the rule's own text says the answer is, e.g. "always 2" (checked by tests)
    #: clauses of rule 603 the answer can't do without, as the rule's text says (checked like ``expect``)
    expect_needed: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScenarioFile:
    """A loaded scenario file: the scenario, the questions, and the names of everything."""

    path: str
    title: str
    scenario: Scenario
    questions: tuple[Question, ...]
    players: tuple[str, ...]
    objects: tuple[str, ...]
    #: by ability number: the printed abilities (each object's first, then "Name #2", ...), delayed, reflexive
    abilities: tuple[str, ...]
    edition: str = "current"
    lines: Mapping[tuple, int] = field(default_factory=dict, compare=False, repr=False)
    text: str = field(default="", compare=False, repr=False)  # as read: what a kept ruling is filed under


# --- where things are written: TOML has no positions, so the text is scanned ---------------

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\s\"-]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def _key_lines(text: str) -> dict[tuple, int]:
    """(table, index, key) -> line for ``key = ...`` lines; (table, index) -> line of ``[[table]]``."""
    lines: dict[tuple, int] = {}
    counts: dict[str, int] = {}
    table, index = "", -1
    for number, raw in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(raw)
        if header:
            name = header.group(2).replace(" ", "")
            if header.group(1) == "[[":
                index = counts.get(name, -1) + 1
                counts[name] = index
                table = name
                lines[(table, index)] = number
            else:  # [objects.ability] continues the last [[objects]]
                table = name
                index = counts.get(name.split(".")[0], 0)
                lines[(table, index)] = number
            continue
        key = _KEY.match(raw)
        if key:
            lines.setdefault((table, index, key.group(1)), number)
    return lines


# --- reading ------------------------------------------------------------------------------


class _Reader:
    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = _key_lines(text)

    def fail(self, table: str, index: int, key: str, message: str) -> None:
        # An inline table's keys ("subject.relation") are on its own key's line.
        line = (
            self.lines.get((table, index, key))
            or self.lines.get((table, index, key.split(".")[0]))
            or self.lines.get((table, index))
        )
        where = f"{table}[{index}].{key}" if index >= 0 and key else (f"{table}.{key}" if table else key)
        if index >= 0 and not key:
            where = f"{table}[{index}]"
        raise ScenarioFileError(self.path, line, where, message)

    def only(self, table: str, index: int, data: Mapping[str, Any], allowed: Iterable[str]) -> None:
        allowed = tuple(allowed)
        for key in data:
            if key not in allowed:
                close = [a for a in allowed if a.startswith(key[:3])]
                hint = f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(allowed)}"
                self.fail(table, index, key, f"unknown field{hint}")

    def kind(self, table: str, index: int, key: str, value: Any, expected: type | tuple) -> Any:
        if value is None:
            self.fail(table, index, key, "missing")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            names = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
            self.fail(table, index, key, f"expected {names}, got {shown(value)}")
        return value

    def one_of(self, table: str, index: int, key: str, value: Any, allowed: Iterable[str]) -> str:
        allowed = tuple(allowed)
        if value is None:
            self.fail(table, index, key, f"missing: one of {', '.join(allowed)}")
        if value not in allowed:
            self.fail(table, index, key, f"{shown(value)} is not one of {', '.join(allowed)}")
        return value


def load(path: str | Path) -> ScenarioFile:
    """Read a scenario file; any mistake raises :class:`ScenarioFileError` (file, line, field)."""
    name = str(path)
    try:
        text = read_document(path)
        data = parse_toml(text)
    except FileNotFoundError:
        raise ScenarioFileError(name, None, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioFileError(name, None, "", f"cannot be read as UTF-8 text ({e})") from None
    except DocumentError as e:
        raise ScenarioFileError(name, e.line, "", e.message) from None
    return _build(_Reader(name, text), data)


def _build(r: _Reader, data: dict[str, Any]) -> ScenarioFile:
    r.only(
        "",
        -1,
        data,
        (
            "title",
            "edition",
            "step",
            "effects",
            "players",
            "objects",
            "delayed",
            "reflexive",
            "actions",
            "questions",
            "slots",
        ),
    )
    players = _players(r, data.get("players", []))
    object_names = _names(r, "objects", data.get("objects", []))
    objects, copied_names = _copies(r, data.get("objects", []), object_names)
    delayed_names = _names(r, "delayed", data.get("delayed", []))
    reflexive_names = _names(r, "reflexive", data.get("reflexive", []))
    everything = set(players)
    for table, names in (("objects", object_names), ("delayed", delayed_names), ("reflexive", reflexive_names)):
        for i, n in enumerate(names):
            if n in everything:
                r.fail(table, i, "name", f"{shown(n)} names two things; names must be unique")
            everything.add(n)
    legend_names = _legend_names(r, objects, object_names)
    cards = tuple(
        _card(r, i, o, players, object_names, legend_names[i], copied_names[i]) for i, o in enumerate(objects)
    )
    for i, card in enumerate(cards):
        texts = [card.ability(nth) for nth in range(1 + len(card.more))]
        works_off_the_battlefield = card.has("from_hand") or any(
            x.subject_relation == "this" and x.trigger == "spell_cast" for x in texts
        )
        if copied_names[i] is not None and works_off_the_battlefield:
            why = "a copy here has the copied text in every zone: not an ability that works off the battlefield"
            r.fail("objects", i, "copy_of", why)
    fillers = _unnamed_hand_cards(r, data.get("players", []), players, cards)
    for name, _ in fillers:
        if name in everything:
            i = object_names.index(name)
            r.fail("objects", i, "name", f"{shown(name)} is the name of a card hand_size adds; choose another")
    object_names += [name for name, _ in fillers]
    cards += tuple(card for _, card in fillers)
    delayed = tuple(_delayed(r, i, d, object_names) for i, d in enumerate(data.get("delayed", [])))
    reflexive = tuple(_reflexive(r, i, x, object_names) for i, x in enumerate(data.get("reflexive", [])))
    printed = _printed_names(r, cards, object_names, everything)
    abilities = printed + tuple(delayed_names) + tuple(reflexive_names)
    effects = tuple(
        r.one_of("", -1, "effects", e, EFFECTS) for e in r.kind("", -1, "effects", data.get("effects", []), list)
    )
    step = r.one_of("", -1, "step", data.get("step", "precombat_main"), tuple(s for s in game.STEPS if s != "untap"))
    actions = tuple(
        _action(r, i, a, players, (object_names, printed, abilities), delayed_names)
        for i, a in enumerate(r.kind("", -1, "actions", data.get("actions", []), list))
    )
    prohibited = tuple(c for c, o in enumerate(objects) if o.get("prohibited", False))
    scenario = Scenario(
        cards=cards,
        actions=actions,
        players=len(players),
        delayed=delayed,
        reflexive=reflexive,
        slots=r.kind("", -1, "slots", data.get("slots", 5), int),
        step=step,
        effects=effects,
        prohibited=prohibited,
        description=r.kind("", -1, "title", data.get("title", ""), str),
    )
    try:
        check_scenario(scenario)
    except InvalidArgument as e:
        _fail_at_object(r, str(e))
    asked = r.kind("", -1, "questions", data.get("questions", []), list)
    if len(asked) > MAX_QUESTIONS:  # each is answered by the solver: refused before any work, not minutes later
        r.fail("", -1, "questions", f"{len(asked)} questions: a scenario file asks at most {MAX_QUESTIONS}")
    questions = tuple(_question(r, i, q, abilities, object_names, len(printed)) for i, q in enumerate(asked))
    return ScenarioFile(
        r.path,
        scenario.description,
        scenario,
        questions,
        players,
        tuple(object_names),
        abilities,
        r.one_of("", -1, "edition", data.get("edition", "current"), ("current",)),
        r.lines,
        r.text,
    )


def _printed_names(r: _Reader, cards: tuple[Card, ...], objects: list[str], taken: set[str]) -> tuple[str, ...]:
    """The printed triggered abilities' names, by printed ability number: a card's first by the card's name, its
    second as "Solemn Simulacrum #2", and so on (every card has as many slots as the one with the most)."""
    per_card = 1 + max((len(card.more) for card in cards), default=0)
    names = tuple(name if not nth else f"{name} #{nth + 1}" for nth in range(per_card) for name in objects)
    for a, name in enumerate(names[len(objects) :], start=len(objects)):
        c, nth = a % len(objects), a // len(objects)
        if nth <= len(cards[c].more) and name in taken:  # (a slot the card doesn't use is never asked about)
            r.fail("objects", c, "name", f"its ability {nth + 1} is {shown(name)}, the name of something else")
    return names


#: The scenario's card fields that this file spells differently.
_FILE_FIELDS = {"final_chapter": "chapters", "flags": "ability", "legend_name": "supertypes"}


def _fail_at_object(r: _Reader, message: str) -> None:
    """A scenario check's "card N: field: why" as the file's objects[N].field, with its line."""
    found = re.match(r"card (\d+): (?:([a-z_]+): )?(.*)", message)
    if found is None:
        r.fail("", -1, "", message)
    index, field, why = int(found.group(1)), found.group(2) or "", found.group(3)
    r.fail("objects", index, _FILE_FIELDS.get(field, field), why)


def _names(r: _Reader, table: str, items: Any) -> list[str]:
    r.kind("", -1, table, items, list)
    names = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            r.fail(table, i, "", "expected a table")
        if "name" not in item:
            r.fail(table, i, "", "missing field 'name'")
        names.append(r.kind(table, i, "name", item["name"], str))
    return names


def _players(r: _Reader, items: Any) -> tuple[str, ...]:
    names = _names(r, "players", items)
    if not 1 <= len(names) <= 4:
        r.fail("", -1, "players", f"{len(names)} players: the model plays 1 to 4")
    for i, p in enumerate(items):
        r.only("players", i, p, ("name", "life", "hand_size", "active"))
        r.kind("players", i, "life", p.get("life", 20), int)
        if p.get("active", i == 0) != (i == 0):
            r.fail("players", i, "active", "the first player listed is the active one; list the active player first")
    if len(set(names)) != len(names):
        r.fail("players", len(names) - 1, "name", "two players have the same name")
    return tuple(names)


def _unnamed_hand_cards(
    r: _Reader, items: list[dict[str, Any]], players: tuple[str, ...], cards: tuple[Card, ...]
) -> list[tuple[str, Card]]:
    """A player's ``hand_size`` beyond the objects named in their hand: plain cards, named
    "Alice's card 1", ... (the model knows a hand only by the cards in it)."""
    out: list[tuple[str, Card]] = []
    for p, item in enumerate(items):
        if "hand_size" not in item:
            continue
        size = r.kind("players", p, "hand_size", item["hand_size"], int)
        named = sum(1 for c in cards if c.owner == p and c.zone == "hand")
        room = MAX_CARDS - len(cards) - len(out)  # the model plays a few cards in all
        if not named <= size <= named + room:
            r.fail(
                "players",
                p,
                "hand_size",
                f"{shown(size)}: {named} named object(s) are in this hand, "
                f"and the model has room for {room} more card(s)",
            )
        out += [(f"{players[p]}'s card {k + 1}", Card(owner=p, zone="hand")) for k in range(size - named)]
    return out


def _ref(
    r: _Reader, table: str, index: int, key: str, value: Any, names: list[str] | tuple[str, ...], what: str
) -> int:
    r.kind(table, index, key, value, str)
    if value not in names:
        known = ", ".join(shown(n) for n in names) or "none"
        r.fail(table, index, key, f"no {what} named {shown(value)} (known: {known})")
    return list(names).index(value)


#: What an object that is a copy of another takes from it: the copiable values of 707.2 the model has (card types,
#: subtypes, supertypes, its name where the legend rule reads it, the printed triggered ability and statics).
COPIED = (
    "types",
    "subtypes",
    "supertypes",
    "card_name",
    "trigger",
    "subject",
    "oracle",
    "ability",
    "static",
    "chapters",
)


def _copies(r: _Reader, objects: Any, names: list[str]) -> tuple[list[Any], list[str | None]]:
    """The objects, each with ``copy_of`` given the copiable values of the object it copies, as printed (707.2:
    Clone, "create a token that's a copy of"); and for each copy, the name its copied text uses for "this"."""
    if not isinstance(objects, list):
        return objects, []
    out, text_names = list(objects), [None] * len(objects)
    for i, o in enumerate(objects):
        if not isinstance(o, dict) or "copy_of" not in o:
            continue
        original = _ref(r, "objects", i, "copy_of", o["copy_of"], names, "object")
        source = objects[original]
        if original == i or not isinstance(source, dict) or "copy_of" in source:
            r.fail("objects", i, "copy_of", "a copy copies an object with its own printed text: not itself, not a copy")
        for key in COPIED:
            if key in o:
                r.fail("objects", i, key, f"a copy takes its {key} from {names[original]!r} (707.2): leave it out")
        out[i] = {**o, **{key: source[key] for key in COPIED if key in source}}
        del out[i]["copy_of"]
        if "legendary" in source.get("supertypes", ()) and "card_name" not in source:
            out[i]["card_name"] = names[original]  # the same name: the legend rule sees two of it (704.5j)
        text_names[i] = source.get("card_name", names[original])
    return out, text_names


def _legend_names(r: _Reader, objects: list[dict[str, Any]], names: list[str]) -> list[int]:
    """Each object's ``legend_name``: 0 unless it is legendary; legendary objects with the same name in the game
    (``card_name``, by default the object's own ``name``) get the same number, the others different ones, in the
    order listed.  (Names in the file are unique handles: two copies of one legendary card are two objects with
    one ``card_name``.)"""
    numbers: dict[str, int] = {}
    out = []
    for i, o in enumerate(objects):
        supertypes = r.kind("objects", i, "supertypes", o.get("supertypes", []), list)
        for x in supertypes:
            r.one_of("objects", i, "supertypes", x, SUPERTYPES)
        card = r.kind("objects", i, "card_name", o.get("card_name", names[i]), str)
        if "card_name" in o and "legendary" not in supertypes:
            r.fail(
                "objects",
                i,
                "card_name",
                'only the legend rule reads names in this model: add supertypes = ["legendary"], or leave it out',
            )
        out.append(numbers.setdefault(card, len(numbers) + 1) if "legendary" in supertypes else 0)
    return out


def _card(
    r: _Reader,
    i: int,
    o: dict[str, Any],
    players: tuple[str, ...],
    names: list[str],
    legend_name: int = 0,
    text_name: str | None = None,
) -> Card:
    fields_ = (
        "name",
        "card_name",
        "token",
        "types",
        "subtypes",
        "supertypes",
        "zone",
        "owner",
        "controller",
        "tapped",
        "attached_to",
        "revealed",
        "trigger",
        "subject",
        "oracle",
        "ability",
        "static",
        "condition",
        "prohibited",
        "permanent",
        "instances",
        "chapters",
        "lore",
        "copy_of",
    )
    r.only("objects", i, o, fields_)
    types = r.kind("objects", i, "types", o.get("types", []), list)
    for t in types:
        r.one_of("objects", i, "types", t, TYPES)
    flags = [flag for word, flag in CARD_TYPE_FLAGS.items() if word in types]
    # Per printed ability, in the order printed (a list where the card has several): its flags, its intervening
    # 'if' condition at the start, its instances.
    ability_tables = _each_ability(r, i, o, "ability", {}, dict)
    conditions_ = _each_ability(r, i, o, "condition", True, bool)
    instances = [_instances(r, "objects", i, "instances", n) for n in _each_ability(r, i, o, "instances", 1, int)]
    ability = ability_tables[0]
    flags += _ability_flags(r, i, ability)
    moves_to = [_moves_to(r, "objects.ability", i, table) for table in ability_tables]
    trigger = r.one_of("objects", i, "trigger", o.get("trigger", "none"), game.KINDS)
    if "oracle" in o and ("trigger" in o or "subject" in o):
        r.fail("objects", i, "oracle", "give the triggered ability as 'trigger' or as its printed text, not both")
    point = _subject(r, i, o.get("subject", {}), trigger)
    more: list[PrintedAbility] = []
    if "oracle" in o:
        named = text_name or o.get("card_name", o.get("name", ""))  # what its text calls it
        texts = _oracle_texts(r, i, o["oracle"])
        for n, table in enumerate(ability_tables):
            for key in (k for k in PRINTED_ABILITY_KEYS if k in table):
                why = "the printed text ('oracle') says whether it has this: leave it out"
                table_name, where = ("objects.ability", key) if n == 0 else ("objects", f"ability[{n}].{key}")
                r.fail(table_name, i, where, why)
        points = [_printed_trigger(r, i, text, named) for text in texts]
        for key, given in (("ability", ability_tables), ("condition", conditions_), ("instances", instances)):
            if len(given) > len(texts):
                r.fail("objects", i, key, f"{len(given)} entries for {len(texts)} printed triggered abilities")
        for point, _, _ in points:
            if point.relation == "this" and "creature" not in types:
                r.fail("objects", i, "oracle", "the game model plays 'when this ... dies' of a creature only (700.4)")
        (point, printed_flags, _), *others = points
        moves_to = [where for _, _, where in points]  # what the text says (the tables can't say it: refused above)
        trigger = point.kind
        flags += printed_flags
        more = [
            replace(
                _printed_ability(p, f + _ability_flags(r, i, ability_tables[n] if n < len(ability_tables) else {})),
                condition=conditions_[n] if n < len(conditions_) else True,
                instances=instances[n] if n < len(instances) else 1,
                moves_to=moves_to[n] if n < len(moves_to) else "",
            )
            for n, (p, f, _) in enumerate(others, start=1)
        ]
    elif max(len(ability_tables), len(conditions_), len(instances)) > 1:
        r.fail("objects", i, "ability", "a list (one per ability) goes with a list of printed texts, 'oracle'")
    flags += ["one_or_more"] * point.one_or_more
    for n, (kind, relation, abilities_flags) in enumerate(
        [(trigger, point.relation, flags), *[(p.trigger, p.subject_relation, p.flags) for p in more]]
    ):
        _acts_on_that_applies(r, i, n, kind, relation, abilities_flags)
    static = r.kind("objects", i, "static", o.get("static", {}), dict)
    r.only("objects.static", i, static, tuple(STATIC_FLAGS))
    flags += [
        flag for key, flag in STATIC_FLAGS.items() if r.kind("objects.static", i, key, static.get(key, False), bool)
    ]
    owner = _ref(r, "objects", i, "owner", o.get("owner", players[0]), players, "player")
    controller = o.get("controller")
    attached = o.get("attached_to")
    permanent_default = not ({"instant", "sorcery"} & set(types))
    # A token (111.1) is on the battlefield from the start, or outside the game until an action creates it.
    token = r.kind("objects", i, "token", o.get("token", False), bool)
    zones = START_ZONES + TOKEN_START_ZONES[1:] if token else START_ZONES
    return Card(
        owner=owner,
        trigger=trigger,
        flags=tuple(flags),
        zone=r.one_of("objects", i, "zone", o.get("zone", "outside" if token else "library"), zones),
        token=token,
        legend_name=legend_name,
        controller=None if controller is None else _ref(r, "objects", i, "controller", controller, players, "player"),
        tapped=r.kind("objects", i, "tapped", o.get("tapped", False), bool),
        attached_to=None if attached is None else _ref(r, "objects", i, "attached_to", attached, names, "object"),
        permanent=r.kind("objects", i, "permanent", o.get("permanent", permanent_default), bool),
        condition=conditions_[0],
        revealed=r.kind("objects", i, "revealed", o.get("revealed", False), bool),
        instances=instances[0],
        final_chapter=r.kind("objects", i, "chapters", o.get("chapters", 0), int),
        lore=r.kind("objects", i, "lore", o.get("lore", 0), int),
        subject_relation=point.relation,
        subject_controller=point.controller,
        subject_token=point.token,
        subject_type=point.type,
        subject_subtypes=point.subtypes,
        subtypes=_subtypes(r, i, "subtypes", o.get("subtypes", [])),
        more=tuple(more),
        moves_to=moves_to[0],
    )


def _moves_to(r: _Reader, table: str, i: int, t: dict[str, Any]) -> str:
    """Where the ability's effect moves each object it acts on and finds ("return it to its owner's hand"):
    one of ``DESTINATIONS``, or "" where the script's actions say it."""
    if "moves_to" not in t:
        return ""
    return r.one_of(table, i, "moves_to", t["moves_to"], DESTINATIONS)


def _each_ability(r: _Reader, i: int, o: dict[str, Any], key: str, default: Any, kind: type) -> list[Any]:
    """An object's ``key`` for each of its printed triggered abilities: a value (the first's), or a list of them in
    the order printed."""
    value = o.get(key, default)
    listed = value if isinstance(value, list) else [value]
    if not listed:
        r.fail("objects", i, key, "an empty list: give one entry per printed triggered ability")
    return [r.kind("objects", i, key, x, kind) for x in listed]


def _acts_on_that_applies(r: _Reader, i: int, n: int, kind: str, relation: str, flags: list[str]) -> None:
    """``acts_on_that`` ("exile it") and ``if_about_that`` ("if that creature's power is greater") name the object a
    condition about any object of a kind happened to, not "this" object (603.6's own): one trigger per object; with
    "one or more" (one trigger for them all) ``acts_on_that`` acts on each of them ("return them"), and an "if"
    has no one object to ask; ``if_about_that`` is said of an intervening "if"."""
    for key in ("acts_on_that", "if_about_that"):
        if key not in flags:
            continue
        where = ("objects", f"ability.{key}" if n == 0 else f"ability[{n}].{key}")
        about_any = [game.KINDS[k] for k in game.FILTERED_KINDS]
        if kind not in about_any:
            r.fail(where[0], i, where[1], f"for a condition about any object of a kind ({', '.join(about_any)})")
        if relation == "this":
            r.fail(where[0], i, where[1], "'when this ... dies' is about its own object as 603.6 says: leave it out")
        if "one_or_more" in flags and key == "if_about_that":
            r.fail(where[0], i, where[1], "'one or more' triggers once for them all: no one object is 'it'")
        if "one_or_more" in flags and kind == "combat_damage_to_player":
            why = "it triggers once for each player dealt damage, each about its own creatures: not in the model yet"
            r.fail(where[0], i, where[1], f"'one or more creatures deal combat damage to a player ... them': {why}")
        if key == "if_about_that" and "has_if" not in flags:
            r.fail(where[0], i, where[1], "it says what an intervening 'if' is about: give intervening_if = true too")


def _ability_flags(r: _Reader, i: int, table: dict[str, Any]) -> list[str]:
    """The flags an ``[objects.ability]`` table sets ("may" and "unless" are one flag, 603.5: listed once)."""
    r.only("objects.ability", i, table, (*ABILITY_FLAGS, "moves_to"))
    keys = [key for key in ABILITY_FLAGS if r.kind("objects.ability", i, key, table.get(key, False), bool)]
    return list(dict.fromkeys(ABILITY_FLAGS[key] for key in keys))


def _printed_ability(point: conditions.ModelPoint, flags: list[str]) -> PrintedAbility:
    """A card's second or later printed triggered ability, as its text says."""
    return PrintedAbility(
        point.kind,
        tuple(dict.fromkeys([*flags, *["one_or_more"] * point.one_or_more])),
        subject_relation=point.relation,
        subject_controller=point.controller,
        subject_token=point.token,
        subject_type=point.type,
        subject_subtypes=point.subtypes,
    )


def _subtypes(r: _Reader, i: int, key: str, value: Any) -> tuple[str, ...]:
    """Subtypes as printed on a type line (205.3): capitalized words, "Elf", "Island"."""
    listed = r.kind("objects", i, key, value, list)
    for x in listed:
        if not conditions.printed_subtype(x):
            r.fail("objects", i, key, f"{x!r}: a subtype as printed, capitalized ('Elf', 'Island')")
    return tuple(listed)


#: ``[objects.ability]`` keys that the printed text says, given ``oracle``.
PRINTED_ABILITY_KEYS = (
    "intervening_if",
    "may",
    "unless",
    "modal",
    "targeted",
    "once_each_turn",
    "triggers_once_each_turn",
    "other_effect",
    "acts_on_this",
    "acts_on_that",
    "if_about_that",
    "moves_to",
)


def _oracle_texts(r: _Reader, i: int, value: Any) -> list[str]:
    """``oracle``: a card's printed triggered ability, or a list of them in the order printed (1 to 3)."""
    texts = value if isinstance(value, list) else [value]
    if not 1 <= len(texts) <= game.MAX_PRINTED_PER_CARD:
        most = game.MAX_PRINTED_PER_CARD
        r.fail("objects", i, "oracle", f"{len(texts)} texts: a card has 1 to {most} printed triggered abilities here")
    return [r.kind("objects", i, "oracle", text, str) for text in texts]


def _printed_trigger(r: _Reader, i: int, text: str, name: str) -> tuple[conditions.ModelPoint, list[str], str]:
    """How the model plays a triggered ability given as its printed text, and its ability flags."""
    try:
        printed = oracle_text.printed_ability(text, name)
    except oracle_text.NotPlayable as e:
        r.fail("objects", i, "oracle", str(e))
    return printed.point, list(printed.flags), printed.moves_to


def _subject(r: _Reader, i: int, value: Any, trigger: str) -> conditions.ModelPoint:
    """``subject = { relation = "another", controller = "you", token = "nontoken", one_or_more = true }``: what narrows
    down the object a condition about any object of a kind speaks of (``trigger`` one of game.FILTERED_KINDS), and
    whether it says "one or more" of them."""
    table = r.kind("objects", i, "subject", value, dict)
    parts = {f.removeprefix("subject_"): values for f, values in game.SUBJECT_VALUES.items()}
    for key in table:
        if key not in (*parts, "one_or_more", "subtypes"):
            known = f"{', '.join(parts)}, one_or_more, subtypes"
            r.fail("objects", i, f"subject.{key}", f"unknown field; known: {known}")
    if table and game.KINDS.index(trigger) not in game.FILTERED_KINDS:
        filtered = ", ".join(game.KINDS[k] for k in game.FILTERED_KINDS)
        r.fail("objects", i, "subject", f"only a trigger about any object of a kind ({filtered}) has a subject")
    chosen = [r.one_of("objects", i, f"subject.{k}", table.get(k, "any"), values) for k, values in parts.items()]
    for key, value in zip(parts, chosen, strict=True):
        if not game.takes_filter(game.KINDS.index(trigger), f"subject_{key}", value):
            r.fail("objects", i, f"subject.{key}", f"{value!r}: {game.filter_refused(f'subject_{key}')}")
    several = r.kind("objects", i, "subject.one_or_more", table.get("one_or_more", False), bool)
    if several and chosen[0] == "this":
        r.fail("objects", i, "subject.one_or_more", "'one or more' speaks of several objects, not of 'this' one")
    subtypes = _subtypes(r, i, "subject.subtypes", table.get("subtypes", []))
    if subtypes and chosen[0] == "this":
        r.fail("objects", i, "subject.subtypes", "'this' names one object: it has no subtype filter")
    preset = conditions.PRESETS[trigger]
    for x in subtypes:
        kind_of = conditions.subtype_card_type(x)
        if preset is not None and kind_of not in preset.subject.types:
            r.fail("objects", i, "subject.subtypes", f"{x!r} is a {kind_of} type (205.3); {trigger} speaks of another")
    return conditions.ModelPoint(trigger, *chosen, one_or_more=several, subtypes=subtypes)


def _instances(r: _Reader, table: str, i: int, key: str, value: Any) -> int:
    """A count of instances of an object's triggered ability (113.2c): 1 to 3 in the model."""
    n = r.kind(table, i, key, value, int)
    if not 1 <= n <= 3:
        r.fail(table, i, key, f"{shown(n)}: an object has 1 to 3 instances of its triggered ability in the model")
    return n


def _delayed(r: _Reader, i: int, d: dict[str, Any], objects: list[str]) -> DelayedAbility:
    r.only(
        "delayed",
        i,
        d,
        (
            "name",
            "trigger",
            "created_by",
            "source",
            "refers_to",
            "duration",
            "on_second_resolution",
            "on_resolution",
            "other_effect",
            "targeted",
            "moves_to",
        ),
    )
    duration = d.get("duration", "none")
    r.one_of("delayed", i, "duration", duration, ("none", "this turn"))
    source = _ref(r, "delayed", i, "source", d.get("source"), objects, "object")
    trigger = r.one_of("delayed", i, "trigger", d.get("trigger"), game.KINDS[1:])
    names_one = game.KINDS.index(trigger) in game.NAMES_AN_OBJECT
    nth = _nth_resolution(r, i, d)
    if "moves_to" in d and not d.get("refers_to", names_one):
        r.fail("delayed", i, "moves_to", "it moves the objects it refers to: name them (refers_to)")
    return DelayedAbility(
        trigger=trigger,
        cause=r.one_of("delayed", i, "created_by", d.get("created_by", "spell"), game.CAUSES),
        source=source,
        refers_to=_refers_to(r, i, d.get("refers_to", [objects[source]] if names_one else []), objects, trigger),
        duration=duration == "this turn",
        nth=nth > 0,
        n=nth or 2,
        other_effect=r.kind("delayed", i, "other_effect", d.get("other_effect", False), bool),
        targeted=r.kind("delayed", i, "targeted", d.get("targeted", False), bool),
        moves_to=_moves_to(r, "delayed", i, d),
    )


def _nth_resolution(r: _Reader, i: int, d: dict[str, Any], table: str = "delayed") -> int:
    """603.7h: ``on_resolution = N`` (created on its creator's Nth resolution this turn, 1 to 7), or the older
    ``on_second_resolution = true`` of a delayed ability (N = 2); 0 for neither."""
    second = r.kind(table, i, "on_second_resolution", d.get("on_second_resolution", False), bool)
    if "on_resolution" not in d:
        return 2 if second else 0
    n = r.kind(table, i, "on_resolution", d["on_resolution"], int)
    if not 1 <= n <= 7:
        r.fail(table, i, "on_resolution", f"{shown(n)}: the model counts 1 to 7 resolutions of one ability a turn")
    if "on_second_resolution" in d:
        r.fail(table, i, "on_resolution", "give on_resolution or on_second_resolution, not both")
    return n


def _refers_to(r: _Reader, i: int, value: Any, objects: list[str], trigger: str) -> tuple[int, ...]:
    """The objects a delayed ability refers to (603.7c): one name, a list of names, or an empty list for none."""
    items = value if isinstance(value, list) else [value]
    cards = tuple(_ref(r, "delayed", i, "refers_to", x, objects, "object") for x in items)
    if len(set(cards)) != len(cards):
        r.fail("delayed", i, "refers_to", "names the same object twice")
    if game.KINDS.index(trigger) in game.NAMES_AN_OBJECT and len(cards) != 1:
        r.fail(
            "delayed",
            i,
            "refers_to",
            f"trigger {trigger!r} names an object ('this'): the ability refers to exactly that one, not {len(cards)}",
        )
    return cards


def _reflexive(r: _Reader, i: int, x: dict[str, Any], objects: list[str]) -> ReflexiveAbility:
    r.only("reflexive", i, x, ("name", "created_by", "when_paid_one_or_more_times", "targeted", "on_resolution"))
    pay_any = r.kind("reflexive", i, "when_paid_one_or_more_times", x.get("when_paid_one_or_more_times", False), bool)
    nth = _nth_resolution(r, i, x, "reflexive")
    if nth and pay_any:
        r.fail("reflexive", i, "on_resolution", "it triggers on a resolution, not on paying a cost: leave one out")
    return ReflexiveAbility(
        created_by=_ref(r, "reflexive", i, "created_by", x.get("created_by"), objects, "object"),
        pay_any=pay_any,
        targeted=r.kind("reflexive", i, "targeted", x.get("targeted", False), bool),
        on_resolution=nth,
    )


def _action(
    r: _Reader,
    i: int,
    a: Any,
    players: tuple[str, ...],
    named: tuple[list[str], tuple[str, ...], tuple[str, ...]],
    delayed: list[str],
) -> Action:
    """One ``[[actions]]`` table; ``named``: the objects' names, the printed abilities' (for the fields about an
    ability: its condition, its instances) and every ability's (for its choices: delayed and reflexive ones too)."""
    objects, printed, every = named
    if not isinstance(a, dict):
        r.fail("actions", i, "", "expected a table")
    allowed = (
        CARD_LIST_FIELDS
        + ONE_OBJECT
        + FLAGS
        + (
            "step",
            "priority",
            "extra_turn",
            "create_delayed",
            "gain_control",
            "put_onto_battlefield_under",
            "attach",
            "combat_damage",
            "instances",
            "condition_true_for",
            "condition_false_for",
            "lose",
            "no_life",
            "effects_on",
            "effects_off",
            "actions_by_effect",
            "actions_other",
        )
    )
    r.only("actions", i, a, allowed)
    values: dict[str, Any] = {}
    for key in CARD_LIST_FIELDS:
        if key in a:
            items = a[key] if isinstance(a[key], list) else [a[key]]
            names, what = (printed, "ability") if key in ABILITY_LIST_FIELDS else (objects, "object")
            names = every if key == "no_legal_choice" else names
            values[key] = tuple(_ref(r, "actions", i, key, x, names, what) for x in items)
    for key in ONE_OBJECT:
        if key in a:
            values[key] = _ref(r, "actions", i, key, a[key], objects, "object")
    for key in FLAGS + ("priority",):
        if key in a:
            values[key] = r.kind("actions", i, key, a[key], bool)
    if "step" in a:
        added = a.get("extra_step") is True  # an added beginning phase has an untap step (500.8)
        values["step"] = r.one_of(
            "actions", i, "step", a["step"], tuple(s for s in game.STEPS if s != "untap" or added)
        )
    if "create_delayed" in a:
        items = a["create_delayed"] if isinstance(a["create_delayed"], list) else [a["create_delayed"]]
        values["create_delayed"] = tuple(
            _ref(r, "actions", i, "create_delayed", x, delayed, "delayed ability") for x in items
        )
    if "extra_turn" in a:  # an extra turn begins, taken by this player (500.7)
        values["extra_turn"] = _ref(r, "actions", i, "extra_turn", a["extra_turn"], players, "player")
        values["next_turn"] = True
    for key in ("lose", "no_life"):
        if key in a:
            items = a[key] if isinstance(a[key], list) else [a[key]]
            values[key] = tuple(_ref(r, "actions", i, key, x, players, "player") for x in items)
    pairs_of = (
        ("gain_control", players),
        ("put_onto_battlefield_under", players),
        ("attach", objects),
        ("combat_damage", players),
    )
    for key, second in pairs_of:
        what = "object" if key == "attach" else "player"
        if key in a:
            pairs = r.kind("actions", i, key, a[key], dict)
            values[key] = tuple(
                (_ref(r, "actions", i, key, k, objects, "object"), _ref(r, "actions", i, key, v, second, what))
                for k, v in pairs.items()
            )
    if "instances" in a:
        counts = r.kind("actions", i, "instances", a["instances"], dict)
        values["instances"] = tuple(
            (_ref(r, "actions", i, "instances", k, printed, "ability"), _instances(r, "actions", i, "instances", v))
            for k, v in counts.items()
        )
    for key in ("condition_true_for", "condition_false_for"):  # { "Pelt Collector" = ["Merry", "Pippin"] }
        if key in a:
            table = r.kind("actions", i, key, a[key], dict)
            values[key] = tuple(
                (_ref(r, "actions", i, key, k, printed, "ability"), _ref(r, "actions", i, key, x, objects, "object"))
                for k, v in table.items()
                for x in (v if isinstance(v, list) else [v])
            )
    for key, on in (("effects_on", True), ("effects_off", False)):
        for e in r.kind("actions", i, key, a.get(key, []), list):
            values[r.one_of("actions", i, key, e, EFFECTS)] = on
    for key in ("actions_by_effect", "actions_other"):
        if key in a:
            values[key] = r.kind("actions", i, key, a[key], int)
    return Action(**values)


def _question(r: _Reader, i: int, q: Any, abilities: tuple[str, ...], objects: list[str], n_printed: int) -> Question:
    if not isinstance(q, dict):
        r.fail("questions", i, "", "expected a table")
    r.only("questions", i, q, ("id", "ask", "ability", "other", "object", "at", "expect", "expect_needed"))
    ask = r.one_of("questions", i, "ask", q.get("ask"), tuple(QUESTIONS))
    for needed in QUESTIONS[ask]:
        if needed not in q:
            r.fail("questions", i, "", f"ask = {ask!r} needs the field {needed!r}")
    if ask == "resolutions" and q["ability"] not in abilities[:n_printed]:
        r.fail("questions", i, "ability", "the model counts the resolutions of an object's own triggered ability only")
    at = q.get("at")
    if at is not None and not 0 <= r.kind("questions", i, "at", at, int):
        r.fail("questions", i, "at", f"moment {shown(at)}: moments count from 0")
    return Question(
        id=r.kind("questions", i, "id", q.get("id", f"q{i + 1}"), str),
        ask=ask,
        ability=_ref(r, "questions", i, "ability", q["ability"], abilities, "ability") if "ability" in q else None,
        other=_ref(r, "questions", i, "other", q["other"], abilities, "ability") if "other" in q else None,
        object=_ref(r, "questions", i, "object", q["object"], objects, "object") if "object" in q else None,
        at=at,
        line=r.lines.get(("questions", i)),
        expect=r.kind("questions", i, "expect", q["expect"], str) if "expect" in q else None,
        expect_needed=_clause_numbers(r, i, q.get("expect_needed", [])),
    )


def _clause_numbers(r: _Reader, i: int, numbers: Any) -> tuple[str, ...]:
    for n in r.kind("questions", i, "expect_needed", numbers, list):
        if not isinstance(n, str) or not re.fullmatch(r"603\.\d+[a-z]?", n):
            r.fail("questions", i, "expect_needed", f'{shown(n)} is not a clause of rule 603 (say "603.2i")')
    return tuple(numbers)


def play(loaded: ScenarioFile):
    """The reference engine's trace of the script; an impossible action names its line in the file."""
    from .reference import run

    try:
        return run(loaded.scenario)
    except InvalidArgument as e:
        message = _named_cards(str(e), loaded.objects)
        match = re.match(r"action (\d+): (.*)", message)
        if match is None:
            raise ScenarioFileError(loaded.path, None, "", message) from None
        index = int(match.group(1)) - 1
        line = loaded.lines.get(("actions", index))
        raise ScenarioFileError(loaded.path, line, f"actions[{index}]", match.group(2)) from None


def _named_cards(message: str, objects: tuple[str, ...]) -> str:
    """The engine's "card 3" as the file names it: "'Grizzly Bears'"."""
    return re.sub(r"\bcard (\d+)\b", lambda m: f"{objects[int(m[1])]!r}" if int(m[1]) < len(objects) else m[0], message)


# --- questions as terms over the trace ------------------------------------------------------------


def asks(loaded: ScenarioFile, played) -> list:
    """Each question as a :class:`rule603.Ask`: the asked value as a term over the game trace.

    ``played`` is the reference engine's trace of the script; where a question gives no
    moment, it picks the moment the question is about from it (where the ability triggered,
    resolved or went on the stack).
    """
    from rule603 import Ask

    out = []
    for i, q in enumerate(loaded.questions):
        if q.at is not None and q.at >= played.length:
            where = f"questions[{i}].at"
            # The script's actions make a moment each, and state-based actions one more wherever they are due.
            message = f"moment {shown(q.at)}: the game has moments 0 to {played.length - 1}"
            raise ScenarioFileError(loaded.path, q.line, where, message)
        value, boolean, text = _term(loaded, played, q)
        labels = {"controller": (*loaded.players, NO_INSTANCE), "zone": game.ZONES}.get(q.ask, ())
        out.append(Ask(q.id, text, value, boolean, tuple(labels)))
    return out


NO_INSTANCE = "no instance"  # the answer to "who controls it" in a game where it doesn't trigger


def _moments(played, q: Question, test) -> list[int]:
    if q.at is not None:
        return [q.at]
    return [t for t in range(1, played.length) if test(played.states[t])] or list(range(1, played.length))


def _term(loaded: ScenarioFile, played, q: Question):
    names = loaded.abilities
    n = played.length
    a, b = q.ability, q.other
    where = f" at moment {q.at}" if q.at is not None else ""
    if q.ask == "does_trigger":
        ts = _moments(played, q, lambda s: True)
        return (lambda g: g.Or(*[g.triggers(t, a) >= 1 for t in ts])), True, f"Does {names[a]} trigger{where}?"
    if q.ask == "how_many_times":
        ts = _moments(played, q, lambda s: True)
        return (
            (lambda g: g.Sum([g.triggers(t, a) for t in ts])),
            False,
            f"How many times does {names[a]} trigger{where}?",
        )
    if q.ask == "controller":
        ts = _moments(played, q, lambda s: s["triggers"][a] >= 1)
        text = f"Who controls {names[a]}'s triggered instances{where}?"
        # In a game where it doesn't trigger there, nothing is controlled: "no instance", not whoever the
        # unconstrained variable names.
        nobody = len(loaded.players)
        return (lambda g: g.If(g.triggers(ts[0], a) >= 1, g.trigger_controller(ts[0], a), nobody)), False, text
    if q.ask == "put_on_stack":
        text = (
            f"Is {names[a]} put on the stack and left there (not removed, 603.3c-d; its controller still in the game,"
            f" 800.4d){where}?"
        )
        ts = [q.at] if q.at is not None else list(range(n))
        return (lambda g: g.Or(*[g.placed(t, a) >= 1 for t in ts])), True, text
    if q.ask == "does_something":
        text = f"Does {names[a]} do what it says when it resolves{where}?"
        ts = [q.at] if q.at is not None else list(range(1, n))
        return (lambda g: g.Or(*[g.And(game.resolving_ability(g, t, a), g.acts(t)) for t in ts])), True, text
    if q.ask == "affects":
        c = q.object
        text = f"Does {names[a]} affect {loaded.objects[c]} when it resolves{where}?"
        ts = [q.at] if q.at is not None else list(range(1, n))
        return (lambda g: g.Or(*[g.And(game.resolving_ability(g, t, a), g.affects(t, c)) for t in ts])), True, text
    if q.ask == "resolves":
        text = f"Does {names[a]} resolve (rather than being countered or removed from the stack){where}?"
        ts = [q.at] if q.at is not None else list(range(1, n))
        return (lambda g: g.Or(*[game.resolving_ability(g, t, a) for t in ts])), True, text
    if q.ask == "resolutions":
        t = q.at if q.at is not None else n - 1
        text = f"How many times has {names[a]} resolved this turn, at moment {t}?"
        return (lambda g: g.resolutions(t, a)), False, text
    if q.ask == "stack_order":
        ts = _moments(played, q, lambda s: s["placed"][a] >= 1 and s["placed"][b] >= 1)
        text = f"Is {names[a]} put on the stack before (below) {names[b]}{where}?"

        def below(g):
            slots = list(game.slots(g))
            return g.Or(
                *[
                    g.And(g.slot_src(t, s1) == game.ability_code(a), g.slot_src(t, s2) == game.ability_code(b))
                    for t in ts
                    for s1 in slots
                    for s2 in slots
                    if s1 < s2
                ]
            )

        return below, True, text
    c = q.object
    t = q.at if q.at is not None else n - 1
    return (lambda g: g.zone(t, c)), False, f"Where is {loaded.objects[c]} at moment {t}?"
