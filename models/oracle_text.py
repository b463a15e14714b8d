"""Reading a triggered ability's printed (Oracle) text into a trigger condition (``models.conditions``).

Rule 603.1 says how a triggered ability is written: "[When/Whenever/At] [trigger event or trigger
condition], [effect]."  :func:`read_trigger` reads the first part into a
:class:`~rule603.models.conditions.Condition` and the modifiers rule 603 cares about out of the
rest: an intervening "if" right after the trigger (603.4), "you may" and "unless" (603.5), targets
and modes (603.3c-d), "Do this only once each turn." (603.2i).

It reads the printed forms listed in ``docs/scenario-format.md`` (each one covered by a test with a
real card's text) and nothing else: words it cannot place are returned in ``not_understood``, never
guessed at, so that a scenario file can say exactly which words of a card it did not understand.
Older wordings are read too: "enters the battlefield", "comes into play", "from play".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .conditions import (
    MODIFIER_FLAGS,
    PRESETS,
    SUBTYPE_PLURALS,
    THIS,
    Condition,
    ConditionError,
    Event,
    ModelPoint,
    Subject,
    beginning_of,
    describe,
    model_point,
    zone_change,
)


@dataclass(frozen=True)
class Reading:
    """What :func:`read_trigger` made of a triggered ability's text."""

    condition: Condition | None
    #: the effect's words, after the trigger condition (and its intervening "if")
    effect: str
    #: the words it could not place, each a phrase of the text as printed; empty when it read everything
    not_understood: tuple[str, ...] = ()

    @property
    def understood(self) -> bool:
        return self.condition is not None and not self.not_understood


class _Unread(Exception):
    """Words of the condition the reader cannot place."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


_NUMERALS = ("I", "II", "III", "IV", "V", "VI")
_NUMERAL = "(?:" + "|".join(_NUMERALS) + ")"
_CHAPTER = re.compile(rf"^({_NUMERAL}(?:\s*,\s*{_NUMERAL})*)\s*[—-]+\s*(.*)$")


#: The longest trigger condition looked for, in characters (printed ones are under 100).  The reader tries the
#: text before each comma within it, so a long text of commas costs no more than a short one.
MAX_CONDITION = 200


def read_trigger(text: str, name: str = "") -> Reading:
    """Read one triggered ability's text; ``name`` is the card's name, which the text may use for "this"."""
    return _named(_read(_normalize(text, name)), name)


def _read(text: str) -> Reading:
    chapter = _CHAPTER.match(text)
    if chapter:  # a Saga's chapter ability (714.2b)
        return Reading(*_modifiers(PRESETS["chapter"], chapter.group(2)))  # type: ignore[arg-type]
    head = re.match(r"^(when|whenever|at)\s+(.*)$", text, re.IGNORECASE)
    if not head:
        first = text.split(" ", 1)[0] if text else "(nothing)"
        return Reading(None, text, (f"{first}: a triggered ability begins with 'When', 'Whenever' or 'At' (603.1)",))
    word, rest = head.group(1).lower(), head.group(2)
    condition, effect, unread = _split(word, rest)
    if condition is None:
        return Reading(None, effect, unread)
    condition, effect = _modifiers(condition, effect)
    return Reading(condition, effect, unread)


def _named(reading: Reading, name: str) -> Reading:
    """The words not understood as printed: the card's own name where the reader wrote "~"."""
    words = tuple(w.replace("~", name or "this") for w in reading.not_understood)
    return replace(reading, not_understood=words)


def _normalize(text: str, name: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2014", "—").replace("\u2013", "—").strip()
    text = re.sub(r"\s+", " ", text)
    if name:
        text = re.sub(rf"\b{re.escape(name)}\b", "~", text)
        short = name.split(",")[0]  # "Tolsimir, Friend to Wolves" is "Tolsimir" in its own text
        if short != name:
            text = re.sub(rf"\b{re.escape(short)}\b", "~", text)
    return text.replace("CARDNAME", "~")


def _split(word: str, rest: str) -> tuple[Condition | None, str, tuple[str, ...]]:
    """The trigger condition ends at a comma; a type list ("an artifact, creature, or enchantment") has commas
    too, so the condition is the longest part before a comma that reads in full (an effect's words never make
    one: "destroy target artifact, creature, or enchantment" is no event)."""
    commas = [m.start() for m in re.finditer(",", rest[: MAX_CONDITION + 1])]
    if not commas:
        where = "" if len(rest) <= MAX_CONDITION else f" within its first {MAX_CONDITION} characters"
        return None, rest, (f"{rest[:MAX_CONDITION]}: no comma{where} ends the trigger condition (603.1)",)
    first_error = several = ""
    found: tuple[Condition, str] | None = None
    for at in commas:
        phrase, after = rest[:at].strip(), rest[at + 1 :].strip()
        try:
            condition = _condition(word, phrase).check()
        except _Unread as e:
            first_error = first_error or e.words
            continue
        except ConditionError as e:
            first_error = first_error or f"{phrase}: {e}"
            continue
        if after.lower().startswith("or "):  # "Whenever another creature dies, or a creature card is put ..."
            several = (
                several
                or f"{after.split(',')[0]}: several trigger conditions joined by 'or' are not in the language yet"
            )
            continue
        found = condition, after
    if found is not None:
        return found[0], found[1], ()
    return None, rest[commas[0] + 1 :].strip(), (several or first_error,)


def _modifiers(c: Condition, effect: str) -> tuple[Condition, str]:
    lower = effect.lower()
    if lower.startswith("if "):  # an intervening "if" clause (603.4) follows the trigger at once
        clause, _, effect = effect[3:].partition(", ")
        c = replace(c, intervening_if=c.intervening_if or clause.strip())
        lower = effect.lower()
    once = re.search(r"\s*do this only once each turn\.?", lower)
    if once:
        effect = (effect[: once.start()] + effect[once.end() :]).strip()
    limit = re.search(r"\s*this ability triggers only once each turn\.?", effect.lower())
    if limit:
        effect = (effect[: limit.start()] + effect[limit.end() :]).strip()
    # A reflexive "When you do, ..." or a delayed "at the beginning of the next end step, ..." the effect creates is
    # an ability of its own, with its own targets and choices (603.12, 603.7): not this one's.
    lower = _CREATED_ABILITY.split(effect.lower(), maxsplit=1)[0]
    return (
        replace(
            c,
            once_each_turn=bool(once),
            triggers_once_each_turn=bool(limit),
            optional=_optional(lower),
            targets=bool(re.search(r"\btargets?\b", lower)),
            modal=bool(re.search(r"\bchoose (one|two|three|one or more|any number)\b", lower)),
        ),
        effect,
    )


def _optional(effect: str) -> bool:
    """603.5: the effect says "may" or "unless" -- but not in a sentence of its own that begins with "If" ("If there
    are four or more chorus counters on ~, you may cast the discarded card"): a choice within the effect, not of
    whether to do it."""
    sentences = re.split(r"(?<=\.)\s+", effect)
    return any(re.search(r"\b(may|unless)\b", x) and not x.startswith("if ") for x in sentences)


#: Where the words of an ability the effect creates begin: reflexive (603.12) or delayed (603.7).
_CREATED_ABILITY = re.compile(r"(?:^|[.,]\s+)(?:when you do\b|at the beginning of (?:the|your) next\b)")
#: This object in an effect's words: the card's name (written "~") or "this creature" and the like.
_THIS_OBJECT = r"(?:~|this (?:creature|permanent|card|artifact|enchantment|land|vehicle|saga))"
#: Instructions that do something to an object, up to the object's words ("put a +1/+1 counter on").
_ACTING = (
    r"(?:put (?:a|an|one|two|three|x|that many) [^.,]*?counters? on|put|return|exile|shuffle|tap|untap|sacrifice"
    r"|destroy"
    r"|transform|regenerate|attach [^.,]*? to|gain control of|counter)\s+"
)
#: Effects that change an object, after its words, to the end of what they say of it ("this creature gets +1/+0 and
#: gains flying until end of turn"; not "... and you draw a card").
_CHANGED = (
    r"\s+(?:gets|gains|loses|becomes|phases out|can't be blocked|endures)\b"
    r"(?:[^.,]|,(?! then))*?(?=\.|, then| and (?:you|each|target|that|its|draw|create)\b|$)"
)
#: Instructions of an effect, to tell what else it does once the parts acting on this object are set aside ("gain"
#: of life; "counter" of a spell, not the noun).
_INSTRUCTION = re.compile(
    r"\b(?:draws?|discards?|creates?|gains?|loses?|deals?|exiles?|returns?|puts?|search(?:es)?|scry|surveil|mills?"
    r"|adds?|destroys?|sacrifices?|taps?|untaps?|counter (?:target|that|it|each|all)|cast|looks?|reveals?"
    r"|shuffles?|attach(?:es)?|fights?|chooses?|investigates?|proliferates?)\b"
)
#: Objects an effect may name before an "it" that then means one of them, not this object.
_OTHER_OBJECT = re.compile(r"\b(?:target|that|those|another|card|cards|token|tokens|copy|each)\b")


def _what_it_acts_on(c: Condition, effect: str, point: ModelPoint) -> list[str]:
    """Does the effect do something to this object (``acts_on_this``), to the object the event happened to
    (``acts_on_that``: "whenever another creature dies, exile it"), and, if it does something to an object, something
    else as well (``other_effect``)?  "It" is this object where the condition's subject is or the effect named it,
    until the effect names another; otherwise it is the object the event happened to.  Words that only read an object
    ("~ deals 2 damage", "equal to ~'s power": 608.2h's last known information) don't act on it."""
    effect, spans, that = _acting_spans(c, effect, point)
    rest = effect
    for begin, end in sorted(spans + that, reverse=True):
        rest = rest[:begin] + " " + rest[end:]
    # Said only of an ability that does something to an object: this one, the one its event happened to, or the one
    # whose zone change it triggers on (603.6); the others do what they say whatever becomes of their source.
    own = c.event.kind == "zone_change" and c.subject == THIS
    # An object that can't get endure's counters gets a Spirit token instead (701.63a): that part is done anyway.
    endures = bool(re.search(r"\bendures?\b", effect))
    more = (bool(spans or that) or own) and (bool(_INSTRUCTION.search(rest)) or endures)
    return ["acts_on_this"] * bool(spans) + ["acts_on_that"] * bool(that) + ["other_effect"] * more


_OWNERS = r"(?:its|their) owner(?:'s|s'|s)?"
#: What may follow a move the model makes: the end of the instruction, or a part not about where it goes ("with a
#: -1/-1 counter on it", "and draw a card") -- not "tapped", "face down", "transformed", "attached to".
_THEN = r"(?=[.,;]| with\b| and\b| at\b| then\b|$)"
#: Where an instruction moves the object it acts on, by its verb and the words after the object (``moves_to``): its
#: owner's hand, the battlefield under its owner's control or its controller's ("under your control"), its owner's
#: graveyard, exile, its owner's library.  Not "tapped", "attached to": the model's moves don't say those.
_MOVES = (
    (r"return", rf"(?: from [^.,]*?)? to {_OWNERS} hands?", "hand"),
    (
        r"return|put",
        rf"(?: from [^.,]*?)? (?:to|onto) the battlefield(?: under {_OWNERS} control)?{_THEN}",
        "battlefield",
    ),
    (
        r"return|put",
        rf"(?: from [^.,]*?)? (?:to|onto) the battlefield under your control{_THEN}",
        "battlefield under your control",
    ),
    (r"put", rf"(?: from [^.,]*?)? into {_OWNERS} graveyards?", "graveyard"),
    (r"destroy|sacrifice", r"", "graveyard"),
    (r"exile", r"", "exile"),
    (r"put", rf"(?: from [^.,]*?)? on (?:the )?(?:top|bottom) of {_OWNERS} librar(?:y|ies)", "library"),
    (r"shuffle", rf" into {_OWNERS} librar(?:y|ies)", "library"),
)


def where_it_moves(c: Condition, effect: str, point: ModelPoint) -> str:
    """Where the effect moves the object it acts on, as ``moves_to`` says it ("return it to its owner's hand":
    "hand"), or "" where it moves none, says a move the model doesn't make, or moves it twice ("exile it, then return
    it to the battlefield")."""
    effect, spans, that = _acting_spans(c, effect, point)
    found = set()
    for begin, end in spans + that:
        for verbs, after, destination in _MOVES:
            moved = re.match(after, effect[end:])
            if re.match(rf"(?:{verbs})\b", effect[begin:]) and moved:
                # ... now, not "at the beginning of the next end step" (a delayed ability's move, 603.7)
                later = re.match(r"[^.;]*?\bat (?:the beginning of|end of)\b", effect[end + moved.end() :])
                found.add("" if later else destination)
                break
        else:
            found.add("")  # an instruction acting on it that isn't a move the model makes
    return found.pop() if len(found) == 1 else ""


def _acting_spans(c: Condition, effect: str, point: ModelPoint) -> tuple[str, list, list]:
    """The effect's own words, lowercased, and the spans of its instructions acting on this object and on the
    object(s) its event happened to."""
    # Its own words only: not those of a reflexive or delayed ability it creates (603.12, 603.7); nor what it
    # offers to pay ("unless you pay {2}").
    effect = _CREATED_ABILITY.split(effect.lower(), maxsplit=1)[0]
    effect = re.sub(r"\bunless [^.]*", " ", effect)
    acting = re.compile(rf"{_ACTING}{_THIS_OBJECT}(?!\w)|(?<!\w){_THIS_OBJECT}{_CHANGED}")
    spans = [m.span() for m in acting.finditer(effect)]
    that: list[tuple[int, int]] = []
    # "It" after this object's words, or in an ability about this object, before any other object is named.
    it = re.compile(rf"{_ACTING}it(?!\w)|(?<!\w)it{_CHANGED}")
    for m in it.finditer(effect):
        before = effect[: m.start()]
        named = c.subject == THIS or re.search(rf"(?<!\w){_THIS_OBJECT}(?!\w)", before)
        if named and not _OTHER_OBJECT.search(before):
            spans.append(m.span())
        elif not named and not _OTHER_OBJECT.search(before):
            that.append(m.span())
    if _names_the_event_object(point):
        that += [m.span() for m in _ACTING_ON_THAT.finditer(effect)]
    elif _names_the_event_objects(point):
        # "Return them": each object of the batch -- unless the effect named other objects first ("create two tokens
        # and tap them", "reveal the top three cards ... exile them").
        them = _ACTING_ON_THEM.finditer(effect)
        that = [m.span() for m in them if not _OTHER_OBJECTS.search(effect[: m.start()])]
    else:
        that = []
    return effect, spans, that


#: The object the event happened to, named in an effect's words ("that creature", "that card").
_THAT_OBJECT = r"(?:that (?:creature|card|permanent|land|token|spell))"
_ACTING_ON_THAT = re.compile(rf"{_ACTING}{_THAT_OBJECT}(?!\w)|(?<!\w){_THAT_OBJECT}{_CHANGED}")
#: The objects of a "one or more" event, named in an effect's words ("them", "those creatures", "each of them").
_THOSE_OBJECTS = r"(?:(?:each of )?them|those (?:creatures|cards|permanents|lands|tokens|spells))"
#: Objects an effect may name before a "them" that then means those, not the objects of the event.
_OTHER_OBJECTS = re.compile(r"\b(?:target|another|cards?|tokens?|cop(?:y|ies)|creatures|permanents|lands|spells)\b")
_ACTING_ON_THEM = re.compile(rf"{_ACTING}{_THOSE_OBJECTS}(?!\w)|(?<!\w)(?:they|{_THOSE_OBJECTS}){_CHANGED}")
#: Words of an intervening "if" that speak of the object the event happened to.
_SPEAKS_OF_THAT = r"^(?:it|its|it's|that (?:creature|card|permanent|land|token|spell)(?:'s)?)\b"
#: The model's conditions about any object of a kind, each object triggering once: "it" is that object.
_EVENT_OBJECT_KINDS = (
    "creature_enters",
    "creature_dies",
    "land_to_graveyard",
    "graveyard_from_anywhere",
    "land_tapped",
    "spell_cast",
    "combat_damage_to_player",
)


def _names_the_event_objects(point: ModelPoint) -> bool:
    """The condition, as the model plays it, is about "one or more" objects of a kind, one trigger for them all: its
    effect's "them" or "those creatures" are the objects the event happened to (``acts_on_that`` on each).  Not
    combat damage to players, which triggers once for each player (``game.THEM_KINDS``)."""
    them_kinds = [k for k in _EVENT_OBJECT_KINDS if k != "combat_damage_to_player"]
    return point.kind in them_kinds and point.relation != "this" and point.one_or_more


def _names_the_event_object(point: ModelPoint) -> bool:
    """The condition, as the model plays it, is about any object of a kind, one trigger per object: its effect's "it"
    or "that creature" is the object the event happened to (``acts_on_that``)."""
    return point.kind in _EVENT_OBJECT_KINDS and point.relation != "this" and not point.one_or_more


# --- "at the beginning of ..." -----------------------------------------------------------------------------------

_STEP_WORDS = {
    "upkeep": "upkeep",
    "draw step": "draw",
    "precombat main phase": "precombat_main",
    "first main phase": "precombat_main",
    "main phase": "precombat_main",
    "combat": "beginning_of_combat",
    "postcombat main phase": "postcombat_main",
    "second main phase": "postcombat_main",
    "end step": "end",
    "end phase": "end",  # older wording: "at the end of turn" / "end phase" meant the end step
    "cleanup step": "cleanup",
}
_WHOSE_STEP = (
    (r"your (next )?", "you"),
    (r"each opponent's (next )?", "opponent"),
    (r"each player's (next )?", "any"),
    (r"(each|the|the next) ", "any"),
    (r"", "any"),  # "at the beginning of combat on your turn", older "at the beginning of upkeep"
)


def _beginning(phrase: str) -> Condition:
    m = re.fullmatch(r"(?:at )?end of combat(?: on your turn)?", phrase)
    if m:  # "At end of combat": as the end of combat step begins (511)
        return beginning_of("end_of_combat", "you" if phrase.endswith("your turn") else "any")
    m = re.fullmatch(r"the beginning of (.*)", phrase)
    if not m:
        raise _Unread(f"{phrase}: 'At' is followed by 'the beginning of' a step or phase, or 'end of combat'")
    what = m.group(1)
    on_your_turn = what.endswith(" on your turn")
    if on_your_turn:
        what = what[: -len(" on your turn")]
    for pattern, turn in _WHOSE_STEP:
        whose = re.match(pattern, what)
        if whose and what[whose.end() :] in _STEP_WORDS:
            turn = "you" if on_your_turn else turn
            return beginning_of(_STEP_WORDS[what[whose.end() :]], turn)
    raise _Unread(f"{what}: not a step or phase this reader knows ({', '.join(sorted(_STEP_WORDS))})")


# --- subjects ------------------------------------------------------------------------------------------------------

_TYPE_WORDS = {
    "artifact": "artifact",
    "creature": "creature",
    "enchantment": "enchantment",
    "land": "land",
    "planeswalker": "planeswalker",
    "battle": "battle",
    "instant": "instant",
    "sorcery": "sorcery",
    "aura": "aura",
    "equipment": "equipment",
    "saga": "saga",
}
_PLURALS = {"sorceries": "sorcery", "auras": "aura"}
_THIS_WORDS = ("~", "this", "it")
_THIS_NOUNS = ("creature", "permanent", "artifact", "enchantment", "land", "aura", "saga", "equipment", "spell")
_CONTROLLED = (
    (" you control", "controller", "you"),
    (" you don't control", "controller", "opponent"),
    (" an opponent controls", "controller", "opponent"),
    (" your opponents control", "controller", "opponent"),
    (" you own", "owner", "you"),
    (" an opponent owns", "owner", "opponent"),
    (" you own but don't control", None, None),
)
_PLAYERS = {
    "you": "you",
    "a player": "any",
    "each player": "any",
    "an opponent": "opponent",
    "one of your opponents": "opponent",
    "each opponent": "opponent",
}


def _type_word(word: str) -> str | None:
    word = _PLURALS.get(word, word)
    if word in _TYPE_WORDS:
        return _TYPE_WORDS[word]
    if word.endswith("s") and word[:-1] in _TYPE_WORDS:
        return _TYPE_WORDS[word[:-1]]
    return None


_SUBTYPE_SINGULARS = {plural: singular for singular, plural in SUBTYPE_PLURALS.items()}


def _subtype(word: str, plural: bool) -> str:
    """A subtype as printed on a type line: singular ("Elves" -> "Elf"); a singular word that ends in "s"
    ("Octopus", "Pegasus") is left alone, since only a plural phrase ("one or more") loses its "s"."""
    word = word.capitalize()
    if word in _SUBTYPE_SINGULARS:
        return _SUBTYPE_SINGULARS[word]
    return word[:-1] if plural and word.endswith("s") and not word.endswith("ss") else word


def _subject(phrase: str, *, noun: str = "permanent", subtypes: frozenset[str] = frozenset()) -> tuple[Subject, bool]:
    """The object a phrase names, and whether it says "one or more"; ``subtypes`` are the words of the text
    printed with a capital letter ("Elemental", "Zombie"), which Oracle text uses for subtypes only."""
    p = phrase.strip()
    if p in _THIS_WORDS or any(p == f"this {n}" for n in _THIS_NOUNS):
        return THIS, False
    for relation in ("enchanted", "equipped"):
        if re.fullmatch(rf"{relation} (creature|permanent|land|artifact)", p):
            return Subject(relation), False
    m = re.fullmatch(r"(?:~|this \w+) or another (.*)", p)
    if m:  # "Blood Artist or another creature": any creature, this one included
        return _described(m.group(1), "any", phrase, noun, subtypes), False
    for article, relation, batch in (
        ("one or more other ", "another", True),
        ("one or more ", "any", True),
        ("another ", "another", False),
        ("an ", "any", False),
        ("a ", "any", False),
    ):
        if p.startswith(article):
            return _described(p[len(article) :], relation, phrase, noun, subtypes, plural=batch), batch
    raise _Unread(f"{phrase}: not an object this reader knows ('this', 'a/another/one or more [type]')")


def _described(
    words: str, relation: str, phrase: str, noun: str, subtypes: frozenset[str] = frozenset(), *, plural: bool = False
) -> Subject:
    """ "nontoken artifact or creature card an opponent controls": the object's filter."""
    controller = owner = "any"
    for suffix, field_, who in _CONTROLLED:
        if words.endswith(suffix):
            if field_ is None:
                raise _Unread(f"{suffix.strip()}: owner and controller together are not in the language")
            words = words[: -len(suffix)]
            controller, owner = (who, owner) if field_ == "controller" else (controller, who)
            break
    token: bool | None = None
    types: list[str] = []
    not_types: list[str] = []
    status: list[str] = []
    unread: list[str] = []
    for word in re.split(r",? or |, |\s+", words):
        if not word:
            continue
        if word in ("nontoken", "card", "cards"):
            token = False
        elif word in ("token", "tokens"):
            token = True
        elif word in ("attacking", "blocking", "tapped", "untapped"):
            status.append(word)
        elif word in ("permanent", "permanents", "object", "objects", "spell", "spells", noun, noun + "s"):
            pass  # "a permanent": any permanent, which every object on the battlefield is
        elif word.startswith("non") and _type_word(word[3:].lstrip("-")):
            not_types.append(_type_word(word[3:].lstrip("-")))  # type: ignore[arg-type]
        elif _type_word(word):
            types.append(_type_word(word))  # type: ignore[arg-type]
        elif word in subtypes:
            types.append(_subtype(word, plural))
        else:
            unread.append(word)
    if unread:
        raise _Unread(f"{' '.join(unread)}: in '{phrase}', not a type, 'token', 'nontoken', a status or whose")
    return Subject(relation, tuple(types), tuple(not_types), token, controller, owner, tuple(status))


def _player(phrase: str) -> str:
    if phrase in _PLAYERS:
        return _PLAYERS[phrase]
    raise _Unread(f"{phrase}: not a player this reader knows ({', '.join(_PLAYERS)})")


# --- events --------------------------------------------------------------------------------------------------------

_GRAVEYARD_OWNER = {"a": "any", "your": "you", "an opponent's": "opponent", "its owner's": "any", "their": "any"}


#: Verbs that are the whole event, of an object and of a player.
_OBJECT_VERBS = {
    r"becomes? tapped": "becomes_tapped",
    r"becomes? untapped": "becomes_untapped",
    r"(?:is|are) tapped for mana": "tapped_for_mana",
    r"attacks?": "attacks",
    r"blocks?": "blocks",
    r"becomes? blocked": "becomes_blocked",
    r"(?:is|are) countered": "countered",
    r"phases? out": "phases_out",
    r"phases? in": "phases_in",
    r"becomes? unattached": "unattached",
}
_PLAYER_VERBS = {
    r"draws? (a|one or more) cards?": "draws",
    r"discards? (a|one or more) cards?": "discards",
    r"gains? life": "gains_life",
    r"loses? life": "loses_life",
    r"loses? the game": "loses_game",
}


def _plain(verbs: dict[str, str], verb: str) -> str | None:
    return next((kind for pattern, kind in verbs.items() if re.fullmatch(pattern, verb)), None)


def _object_event(verb: str, subject: Subject, batch: bool) -> Condition | None:
    """The condition for "[subject] [verb]", or None if the verb is not one this reader knows."""
    v = verb
    under = re.fullmatch(
        r"(enters?|enter|comes? into play)(?: the battlefield)?(?: under (your|an opponent's) control)?", v
    )
    if under:
        if under.group(2):
            subject = replace(subject, controller="you" if under.group(2) == "your" else "opponent")
        return zone_change(None, "battlefield", subject, one_or_more=batch)
    if re.fullmatch(r"dies|die", v):
        return zone_change("battlefield", "graveyard", subject, one_or_more=batch)
    if re.fullmatch(r"leaves? (the battlefield|play)", v):
        return zone_change("battlefield", None, subject, one_or_more=batch)
    put = re.fullmatch(
        r"(?:is|are) put into (a|your|an opponent's|its owner's|their) graveyards?"
        r"(?: from (the battlefield|play|anywhere))?",
        v,
    )
    if put:
        origin = None if put.group(2) in (None, "anywhere") else "battlefield"
        owner = _GRAVEYARD_OWNER[put.group(1)]
        if owner != "any":
            subject = replace(subject, owner=owner)
        return zone_change(origin, "graveyard", subject, one_or_more=batch)
    left = re.fullmatch(r"leaves? (your|a|an opponent's) graveyard", v)
    if left:
        owner = _GRAVEYARD_OWNER[left.group(1)]
        subject = replace(subject, owner=owner) if owner != "any" else subject
        return zone_change("graveyard", None, subject, one_or_more=batch)
    if re.fullmatch(r"(?:is|are) (exiled|put into exile)", v):
        return zone_change(None, "exile", subject, one_or_more=batch)
    if re.fullmatch(r"(?:is|are) returned to (its|their) owners?'s? hands?", v):
        return zone_change("battlefield", "hand", subject, one_or_more=batch)
    kind = _plain(_OBJECT_VERBS, v)
    if kind:
        return Condition(Event(kind), subject, one_or_more=batch)
    dealt = re.fullmatch(r"(?:is|are) dealt (combat )?damage", v)
    if dealt:
        return Condition(Event("dealt_damage", combat=True if dealt.group(1) else None), subject, one_or_more=batch)
    deals = re.fullmatch(
        r"deals? (combat )?damage(?: to (a player|an opponent|one of your opponents|you|a creature|a permanent))?", v
    )
    if deals:
        to = {None: "any", "a player": "player", "an opponent": "opponent", "one of your opponents": "opponent"}.get(
            deals.group(2), (deals.group(2) or "").split(" ")[-1]
        )
        combat = True if deals.group(1) else None
        return Condition(Event("deals_damage", combat=combat, to=to), subject, one_or_more=batch)
    return None


def _player_event(verb: str, player: str, subtypes: frozenset[str]) -> Condition | None:
    kind = _plain(_PLAYER_VERBS, verb)
    if kind:
        return Condition(Event(kind), player=player)
    if re.fullmatch(r"(have|has) no cards in hand", verb):
        return Condition(Event("state", state="no_cards_in_hand"), player=player)
    controls_no = re.fullmatch(r"controls? no (.*)", verb)
    if controls_no:
        subject = _described(controls_no.group(1), "any", verb, "permanent", subtypes)
        return Condition(Event("state", state="controls_no"), subject, player=player)
    acts = re.fullmatch(r"(casts?|copies|copy|loses? control of|gains? control of|reveals?) (.*?)( this way)?", verb)
    if not acts:
        return None
    act, what, this_way = acts.group(1), acts.group(2), acts.group(3)
    if act.startswith(("cast", "cop")):
        subject, batch = _subject(what, noun="spell", subtypes=subtypes)
        if not re.search(r"\bspells?\b", what) and subject != THIS:
            raise _Unread(f"{what}: what is cast is a spell ('a creature spell', 'this spell')")
        return Condition(Event("cast" if act.startswith("cast") else "copied"), subject, player, one_or_more=batch)
    if act.startswith("reveal"):
        if not this_way:
            raise _Unread(f"{verb}: only 'reveal ... this way' (linked to the card's own reveal, 607.2)")
        subject, batch = _subject(what, noun="card", subtypes=subtypes)
        return Condition(Event("reveals"), subject, player, one_or_more=batch)
    kind = "control_lost" if act.startswith("lose") else "control_gained"
    # "gains control of a permanent from you" / "a permanent you controlled" (603.10d): one its controller controlled
    # until then, judged as it was before the event
    from_you = re.fullmatch(r"(.*?) (?:from you|you controlled)", what) if kind == "control_gained" else None
    subject, batch = _subject(from_you.group(1) if from_you else what, subtypes=subtypes)
    if from_you:
        subject = replace(subject, controller="you")
    return Condition(Event(kind), subject, player, one_or_more=batch)


def _ability_triggers(phrase: str) -> Condition | None:
    m = re.fullmatch(r"(another|an?) (triggered )?ability triggers", phrase)
    if not m:
        return None
    return Condition(Event("ability_triggers"), Subject("another" if m.group(1) == "another" else "any"))


def _counters(phrase: str, subtypes: frozenset[str]) -> Condition | None:
    m = re.fullmatch(r"(?:one or more|a|an) (?:([+\-\w/]+) )?counters? (?:is|are) put on (.*)", phrase)
    if not m:
        return None
    counter = m.group(1)
    subject, batch = _subject(m.group(2), subtypes=subtypes)
    return Condition(Event("counters_put", counter=counter), subject)


def _condition(word: str, phrase: str) -> Condition:
    """The condition of "[When/Whenever/At] [phrase]"; :class:`_Unread` names the words it could not place."""
    p = phrase.lower().strip()
    if word == "at":
        return _beginning(p)
    subtypes = frozenset(w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", phrase) if not _type_word(w.lower()))
    found = _ability_triggers(p) or _counters(p, subtypes)
    if found is not None:
        return found
    joined = re.search(rf"\b({_EVENT_VERBS}) or ({_EVENT_VERBS}|is|are)\b", p)
    if joined:
        raise _Unread(f"{p[joined.start() :]}: two events joined by 'or' are not in the language yet")
    words = p.split(" ")
    found = _event(words, subtypes)
    if found is not None:
        return found
    for end in range(len(words) - 1, 1, -1):  # the longest start of the phrase that is an event: the rest is unread
        if _event(words[:end], subtypes) is not None:
            raise _Unread(f"{' '.join(words[end:])}: in '{phrase}', words after the event this reader does not know")
    raise _Unread(f"{phrase}: no event this reader knows")


_EVENT_VERBS = r"enters|dies|leaves|attacks|blocks|becomes \w+|deals|draws|discards|casts|gains|loses"


def _event(words: list[str], subtypes: frozenset[str]) -> Condition | None:
    """ "[who] [verb ...]" where the verb is one this reader knows, the longest verb first; the words before it
    must name a player or an object, or :class:`_Unread` says they don't."""
    for i in range(1, len(words)):
        who, verb = " ".join(words[:i]), " ".join(words[i:])
        if who in _PLAYERS:
            found = _player_event(verb, _player(who), subtypes)
            if found is not None:
                return found
        if _object_event(verb, Subject(), False) is not None:
            subject, batch = _subject(who, subtypes=subtypes)
            return _object_event(verb, subject, batch)
    return None


@dataclass(frozen=True)
class PrintedAbility:
    """A triggered ability given as its printed text, as the game model plays it: its condition's point of the model
    and the ability flags the text says (``models.game.CARD_FLAGS``: "may", a target, an intervening "if", ...)."""

    point: ModelPoint
    flags: tuple[str, ...]
    moves_to: str = ""  # where its effect moves the object it acts on (models.game.DESTINATIONS), "" for none


#: A second triggered ability after the first one's sentence.  Abilities its effect creates are part of it: a
#: reflexive "When you do, ...", a delayed "When that creature dies, ..." or "At the beginning of the next end step".
_SECOND_ABILITY = re.compile(
    r"[.)]\s+(?:Whenever\b"
    r"|At the beginning of (?!(?:the|your|that player's) next\b)"
    r"|When (?!(?:you|that|it|they|those|the)\b))"
)


class NotPlayable(ValueError):
    """A printed text the reader does not understand, or whose condition the game model cannot play (one line)."""


def printed_ability(text: str, name: str = "") -> PrintedAbility:
    """How the game model plays a card's printed triggered ability ``text`` (``name``: the card's, for "this");
    :class:`NotPlayable` says why it can't, naming the words not understood or the conditions it plays instead."""
    if "\n" in text.strip() or _SECOND_ABILITY.search(text):
        raise NotPlayable("the game model plays one triggered ability per card: give the one the questions are about")
    reading = read_trigger(text, name)
    if reading.not_understood or reading.condition is None:
        raise NotPlayable("not understood: " + "; ".join(reading.not_understood))
    c = reading.condition
    point = model_point(c)
    if point is None:
        raise NotPlayable(f"'{describe(c)}': the game model cannot play this condition yet{_nearest(c)}")
    preset = PRESETS[point.kind]
    own_if = preset.intervening_if if preset is not None else ""
    flags = [flag for field_, flag in MODIFIER_FLAGS.items() if getattr(c, field_) and field_ != "intervening_if"]
    if c.intervening_if and c.intervening_if != own_if:
        flags.append("has_if")
        # "if that creature's power is greater than ~'s", "if it doesn't have the same name as ...": asked of each
        # object the event happened to (603.4).
        if _names_the_event_object(point) and re.search(_SPEAKS_OF_THAT, c.intervening_if.lower()):
            flags.append("if_about_that")
    acts = _what_it_acts_on(c, reading.effect, point)
    return PrintedAbility(point, tuple(flags + acts), where_it_moves(c, reading.effect, point))


def _nearest(c: Condition) -> str:
    """The model's conditions with the same event, to say how the one read differs from what it can play."""
    presets = [(k, p) for k, p in PRESETS.items() if p is not None]
    same = [k for k, p in presets if p.event == c.event] or [k for k, p in presets if p.event.kind == c.event.kind]
    if not same:
        return f" (no trigger kind of the model has the event {c.event.kind})"
    shown_ = ", ".join(f"'{describe(PRESETS[k])}' ({k})" for k in same)
    return f"; with the same event it plays {shown_}"
