"""Outputs people read name cards, players and delayed abilities as the scenario or the trace does.

A scenario file names everything; an engine's trace may name its members in ``#meta.names`` (docs/trace-format.md).
Where nothing is named (a counterexample the solver found), the model's labels c0, P0, d0 stand in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rule603._internal.schema import Names
from rule603.cli import main

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "examples" / "traces"


def _named(tmp_path: Path, name: str, names: object) -> Path:
    data = json.loads((TRACES / name).read_text(encoding="utf-8"))
    data["#meta"]["names"] = names
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_show_names_cards_and_players_as_the_trace_does(tmp_path, capsys):
    path = _named(tmp_path, "board-wipe.json", {"card": ["Blood Artist", "Grizzly Bears"], "player": ["Alice"]})
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Blood Artist: owner Alice, trigger creature_dies" in out and "Blood Artist ×2 [Alice]" in out
    assert "Grizzly Bears: owner Alice, trigger none" in out
    assert "c0" not in out and "P0" not in out


def test_a_trace_that_names_nothing_keeps_the_models_labels(capsys):
    assert main(["show", str(TRACES / "board-wipe.json")]) == 0
    assert "c0(creature_dies) ×2 [P0]" in capsys.readouterr().out


def test_check_names_the_objects_of_the_broken_rule(tmp_path, capsys):
    path = _named(tmp_path, "delayed-fires-twice.json", {"delayed": ["Obzedat's return"]})
    assert main(["check", str(path), "--format", "json"]) == 1
    (violation,) = json.loads(capsys.readouterr().out)["traces"][0]["violations"]
    # "about" keeps the model's indices for programs; "objects" names them for people, as the table does.
    assert (violation["about"], violation["objects"]) == ("delayed 0", "Obzedat's return")
    assert main(["check", str(path)]) == 1
    assert "Obzedat's return" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("names", "pointer", "words"),
    [
        (["Alice"], "/#meta/names", "expected an object of name lists"),
        ({"cards": ["Blood Artist"]}, "/#meta/names/cards", "names are given for card, player, delayed"),
        ({"card": ["a", "b", "c"]}, "/#meta/names/card", "at most 2 names"),
        ({"player": "Alice"}, "/#meta/names/player", "at most 2 names"),
        ({"card": ["Blood Artist", 7]}, "/#meta/names/card/1", "expected a name"),
        ({"card": ["  "]}, "/#meta/names/card/0", "expected a name"),
        ({"card": ["x" * 201]}, "/#meta/names/card/0", "expected a name"),
    ],
)
def test_bad_names_are_one_line_naming_the_pointer(tmp_path, capsys, names, pointer, words):
    path = _named(tmp_path, "board-wipe.json", names)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"at {pointer}: " in err and words in err, err


def test_an_about_names_each_named_member_and_leaves_the_rest():
    names = Names(cards=("Blood Artist",), players=("Alice", "Bob"), delayed=("return it",))
    assert names.about("delayed 0, card 0") == "return it, Blood Artist"
    assert names.about("card 1") == "card 1" and names.about("player 1") == "Bob"
    assert names.about("slots 0<1") == "slots 0<1"
    assert (Names().card(0), Names().player(1), Names().delayed_ability(0)) == ("c0", "P1", "d0")
