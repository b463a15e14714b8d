"""Cards described once, by their printed text (``#meta.oracle``, models/printed.py): a trace that gives its cards'
texts may leave out what they decide, must agree with them where it does not, and a text the model can't play is
one line at its JSON pointer."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from rule603._internal.schema import Schema
from rule603._internal.trace import from_json, to_json
from rule603.engines.scenario_file import load, play
from rule603.errors import TraceFormatError
from rule603.models import game
from rule603.models.printed import DECIDED

SCHEMA = Schema(tuple(game.VARIABLES))
SCENARIOS = Path(__file__).parent.parent / "scenarios"
WITH_TEXTS = sorted(
    p for p in SCENARIOS.glob("*.toml") if any(o.get("oracle") for o in tomllib.loads(p.read_text())["objects"])
)


def _described(path: Path) -> tuple[dict, dict]:
    """A scenario file's game as a trace document, and the same document with its cards' printed texts instead of
    the constants they decide."""
    loaded = load(path)
    played = play(loaded)
    document = to_json(played, SCHEMA)
    by_name = {o["name"]: o for o in tomllib.loads(path.read_text())["objects"]}
    # A copy has the printed text of what it copies, and its name (707.2): the name its text uses for "this".
    by_name.update({n: by_name[o["copy_of"]] for n, o in by_name.items() if "copy_of" in o})
    cards = [by_name.get(name, {}) for name in loaded.objects]
    cards += [{}] * (played.universe.size("card") - len(cards))  # (cards the file adds itself have no text)
    described = copy.deepcopy(document)
    described["#meta"]["names"] = {"card": [o.get("card_name", o.get("name", f"c{c}")) for c, o in enumerate(cards)]}
    described["#meta"]["oracle"] = [o.get("oracle") for o in cards]
    described["#meta"]["subtypes"] = [o.get("subtypes", []) for o in cards]
    for name in DECIDED:
        described["constants"].pop(name, None)
    return document, described


def test_the_scenarios_with_printed_texts_are_many():
    assert len(WITH_TEXTS) >= 20  # (the test below would pass on none)


@pytest.mark.parametrize("path", WITH_TEXTS, ids=[p.stem for p in WITH_TEXTS])
def test_a_trace_that_gives_its_cards_texts_reads_as_the_one_that_gives_their_constants(path):
    document, described = _described(path)
    assert any(described["#meta"]["oracle"])
    assert from_json(described, SCHEMA).params == from_json(document, SCHEMA).params
    both = copy.deepcopy(document)
    both["#meta"].update({k: described["#meta"][k] for k in ("names", "oracle", "subtypes")})
    assert from_json(both, SCHEMA).params == from_json(document, SCHEMA).params  # the two agree


def _guttersnipe() -> tuple[dict, dict]:
    return _described(SCENARIOS / "603.2-guttersnipe-instant-or-sorcery-spell.toml")


def _error(document: dict) -> TraceFormatError:
    with pytest.raises(TraceFormatError) as caught:
        from_json(document, SCHEMA, "game.json")
    return caught.value


def test_a_constant_the_text_contradicts_is_refused_at_its_entry():
    document, described = _guttersnipe()
    both = copy.deepcopy(document)
    both["#meta"]["oracle"] = described["#meta"]["oracle"]
    both["constants"]["subject_type"][0] = "noncreature"  # Guttersnipe's text says "an instant or sorcery spell"
    error = _error(both)
    assert error.pointer == "/constants/subject_type/0"
    assert "'noncreature', but the card's printed text (#meta/oracle/0) says 'instant_or_sorcery'" in str(error)
    both["constants"]["subject_type"][0] = "instant_or_sorcery"
    both["constants"]["optional"][1] = False  # Mesa Enchantress: "you may draw a card"
    assert _error(both).pointer == "/constants/optional/1"


def test_a_text_the_model_cannot_play_or_read_is_one_line_at_its_pointer():
    _, described = _guttersnipe()
    described["#meta"]["oracle"][0] = "Whenever you cast a planeswalker spell, draw a card."
    error = _error(described)
    assert error.pointer == "/#meta/oracle/0" and "cannot play this condition yet" in str(error)
    assert "with the same event it plays" in str(error) and "\n" not in str(error)
    described["#meta"]["oracle"][0] = "Whenever you frobnicate, draw a card."
    error = _error(described)
    assert error.pointer == "/#meta/oracle/0" and "not understood: " in str(error) and "frobnicate" in str(error)


def test_a_text_that_names_a_subtype_needs_the_cards_subtypes():
    _, described = _guttersnipe()
    described["#meta"]["oracle"][0] = "Whenever another Elf you control dies, you gain 1 life."
    subtypes = described["#meta"].pop("subtypes")
    error = _error(described)
    assert error.pointer == "/#meta/oracle/0" and "#meta.subtypes" in str(error)
    subtypes[2] = ["Elf", "Warrior"]  # Grizzly Bears, for the sake of the test
    described["#meta"]["subtypes"] = subtypes
    kinds = game.KINDS
    trace = from_json(described, SCHEMA)
    assert kinds[trace.params["kind"][0]] == "creature_dies"
    assert trace.params["subject_subtype"][0] == [c == 2 for c in range(len(subtypes))]
    assert trace.params["subject_subtype"][1] == [True] * len(subtypes)  # Mesa Enchantress names none


@pytest.mark.parametrize(
    ("where", "value", "pointer"),
    [
        ("oracle", "Whenever a creature dies, draw.", "/#meta/oracle"),
        ("oracle", ["When this creature enters, draw."] * 9, "/#meta/oracle"),
        ("oracle", [""] + [None] * 5, "/#meta/oracle/0"),
        ("subtypes", [["Elf"]], "/#meta/subtypes"),
        ("subtypes", [["Elf"], [3], [], [], [], []], "/#meta/subtypes/1"),
    ],
)
def test_malformed_texts_and_subtypes_are_refused_at_their_pointer(where, value, pointer):
    _, described = _guttersnipe()
    described["#meta"][where] = value
    assert _error(described).pointer == pointer


def test_show_reads_a_trace_described_by_its_texts_and_refuses_one_that_contradicts_them(tmp_path):
    document, described = _guttersnipe()
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(described))
    described["constants"]["kind"] = ["creature_dies"] + ["none"] * (len(document["constants"]["kind"]) - 1)
    bad.write_text(json.dumps(described))
    ran = [
        subprocess.run([sys.executable, "-m", "rule603.cli", "show", str(p)], capture_output=True, text=True)
        for p in (good, bad)
    ]
    assert ran[0].returncode == 0 and "Guttersnipe" in ran[0].stdout
    assert ran[1].returncode == 2 and ran[1].stdout == ""
    assert ran[1].stderr.count("\n") == 1 and "at /constants/kind/0: 'creature_dies', but" in ran[1].stderr


def test_a_second_ability_in_a_text_is_refused_not_dropped():
    _, described = _guttersnipe()
    described["#meta"]["oracle"][0] = (
        "When this creature enters, draw a card.\nWhenever a creature dies, you gain 1 life."
    )
    error = _error(described)
    assert error.pointer == "/#meta/oracle/0" and "one triggered ability per card" in str(error)
    described["#meta"]["oracle"][0] = "When this creature enters, draw a card. When this creature dies, draw a card."
    assert _error(described).pointer == "/#meta/oracle/0"
    # What the effect creates is part of it: a reflexive or a delayed ability.
    described["#meta"]["oracle"][0] = (
        "When this creature enters, you may sacrifice a creature. When you do, draw a card."
    )
    assert game.KINDS[from_json(described, SCHEMA).params["kind"][0]] == "enters_self"


def test_subtypes_are_written_as_printed():
    _, described = _guttersnipe()
    described["#meta"]["subtypes"][1] = ["elf"]
    assert _error(described).pointer == "/#meta/subtypes/1"


def test_a_card_without_a_text_keeps_what_the_document_gives_and_else_has_no_ability():
    document, described = _guttersnipe()
    described["constants"]["kind"] = copy.deepcopy(document["constants"]["kind"])
    described["constants"]["kind"][2] = "enters_self"  # Grizzly Bears: no text, the constant decides
    assert game.KINDS[from_json(described, SCHEMA).params["kind"][2]] == "enters_self"
    del described["constants"]["kind"]
    described["#meta"]["oracle"] = [None] * len(document["constants"]["kind"])
    assert set(from_json(described, SCHEMA).params["kind"]) == {game.KINDS.index("none")}
    described["#meta"]["oracle"] = []
    assert set(from_json(described, SCHEMA).params["kind"]) == {game.KINDS.index("none")}


def test_the_reader_names_what_is_malformed_before_any_text_is_compared():
    document, described = _guttersnipe()
    wrong_kind = copy.deepcopy(described)
    wrong_kind["constants"]["kind"] = [3] + document["constants"]["kind"][1:]
    error = _error(wrong_kind)
    assert error.pointer == "/constants/kind/0" and "expected one of" in str(error)
    bad_name = copy.deepcopy(described)
    bad_name["#meta"]["names"]["card"][0] = 7
    assert _error(bad_name).pointer == "/#meta/names/card/0"
    many = copy.deepcopy(described)
    many["#meta"]["universe"]["card"] = 100_000  # a universe its lists don't have: no text is read for it
    assert _error(many).pointer.startswith("/constants/")


SOLEMN = [
    "When this creature enters, you may search your library for a basic land card, put that card onto the battlefield"
    " tapped, then shuffle.",
    "When this creature dies, you may draw a card.",
]


def _two_slot_constants(oracle: list, **given: list) -> dict:
    from rule603.models.printed import constants_from_text

    universe = game.universe(card=2, printed=4)
    meta = {"names": {"card": ["Solemn Simulacrum", "Grizzly Bears"]}, "oracle": oracle}
    return constants_from_text(meta, {"owner": [0, 1], **given}, universe, "game.json")


def test_a_card_with_two_printed_abilities_gives_both_and_each_card_has_no_other():
    constants = _two_slot_constants([SOLEMN, "When this creature dies, draw a card."])
    # Printed ability p is card p % 2's: Solemn's are 0 and 2, the Bears' 1 and 3 (none: its text says one).
    assert constants["kind"] == ["enters_self", "creature_dies", "creature_dies", "none"]
    assert constants["subject_relation"] == ["any", "this", "this", "any"]
    assert constants["optional"] == [True, False, True, False]
    assert constants["subject_subtype"] == [[True, True]] * 4


def test_a_list_of_texts_is_checked_entry_by_entry():
    error = _error_of(lambda: _two_slot_constants([[SOLEMN[0], "Flying"]]))
    assert error.pointer == "/#meta/oracle/0/1"
    error = _error_of(lambda: _two_slot_constants([[*SOLEMN, SOLEMN[1]]]))
    assert error.pointer == "/#meta/oracle/0" and "1 to 2 of them" in str(error)
    error = _error_of(lambda: _two_slot_constants([SOLEMN], kind=["enters_self", "none", "none", "none"]))
    assert error.pointer == "/constants/kind/2" and "(#meta/oracle/0/1) says 'creature_dies'" in str(error)
    error = _error_of(lambda: _two_slot_constants([SOLEMN[0]], kind=["enters_self", "none", "creature_dies", "none"]))
    assert error.pointer == "/constants/kind/2" and "says 'none'" in str(error)


def _error_of(call) -> TraceFormatError:
    with pytest.raises(TraceFormatError) as caught:
        call()
    return caught.value
