"""The published trace format: docs/rule603-trace-5.schema.json and docs/trace-format.md.

The schema and the table of variables are generated from the model's declarations; these
tests fail when the committed copies are stale, check that real traces (a counterexample
of the verifier, the writer's output for random traces, the documentation's example)
validate against the committed schema, and that hand-broken traces are rejected by it and
by the loader alike.  ``python tests/test_trace_schema.py`` regenerates all three.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from rule603 import prop
from rule603._internal.bmc import claim_fails_at, violations
from rule603._internal.catalogue import load_edition
from rule603._internal.trace import FORMAT, Trace, from_json, to_json
from rule603._internal.trace_schema import (
    REGENERATE,
    SCHEMA_FILE,
    current_schema,
    json_schema,
    pretty_json,
    read_block,
    replace_block,
    schema_text,
    variables_markdown,
    write_schema,
)
from rule603._internal.verify import VIOLATED, Options, Verifier
from rule603.errors import TraceFormatError
from rule603.models import game as m

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / SCHEMA_FILE
DOC_PATH = ROOT / "docs" / "trace-format.md"
SCHEMA = current_schema()
REGENERATE_DOCS = "python tests/test_trace_schema.py"


@prop("dies-at-most-once-per-batch", clauses=["603.2c"])
def dies_at_most_once(g, t):
    """Wrong on purpose: a 'dies' ability triggers once per creature, so twice for two."""
    return g.And(*[g.Implies(g.kind(c) == m.CREATURE_DIES, g.triggers(t, c) <= 1) for c in m.cards(g)])


def counterexample_meta() -> dict[str, Any]:
    """The metadata a counterexample to ``dies_at_most_once`` carries (see ``rule603 verify --save-traces``)."""
    return {"property": dies_at_most_once.id, "clauses": list(dies_at_most_once.clauses), "violated_at": 1}


def _target(doc: dict, pointer: str) -> tuple[Any, Any]:
    """The container of the value at JSON pointer ``pointer`` in ``doc``, and its key there."""
    *parents, last = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]
    for p in parents:
        doc = doc[p]
    return doc, last


def _set(pointer: str, value: Any) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        container, key = _target(doc, pointer)
        container[key] = value

    return change


def _delete(pointer: str) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        container, key = _target(doc, pointer)
        del container[key]

    return change


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    published = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(published)
    return jsonschema.Draft202012Validator(published)


@pytest.fixture(scope="module")
def counterexample() -> dict[str, Any]:
    """A counterexample of the verifier, as ``rule603 verify --save-traces`` writes it."""
    edition = load_edition("current")
    verifier = Verifier(edition, edition.model.universe(card=2, slot=1), Options(bound=2))
    result = verifier.check(dies_at_most_once)
    assert result.verdict == VIOLATED and result.trace is not None
    assert result.violated_at == 1
    return json.loads(json.dumps(to_json(result.trace, SCHEMA, counterexample_meta())))


def pointer_of(error) -> str:
    return "".join(f"/{p}" for p in error.absolute_path)


# --------------------------------------------------------------------------- 1. the committed files are current


def test_committed_schema_is_current() -> None:
    assert SCHEMA_PATH.exists(), f"{SCHEMA_FILE} is missing: generate it with `{REGENERATE}`"
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(SCHEMA), (
        f"{SCHEMA_FILE} differs from the variable declarations: regenerate it with `{REGENERATE}` "
        f"(or `{REGENERATE_DOCS}`), and if anything but descriptions changed, bump the format tag "
        "(see 'Versions' in docs/trace-format.md)"
    )


def test_schema_output_is_deterministic(tmp_path) -> None:
    path = tmp_path / "schema.json"
    write_schema(path)
    assert path.read_text(encoding="utf-8") == schema_text(SCHEMA) == schema_text(current_schema())
    assert json.loads(path.read_text(encoding="utf-8")) == json_schema(SCHEMA)


def test_schema_describes_every_variable() -> None:
    schema = json_schema(SCHEMA)
    constants = schema["properties"]["constants"]
    state = schema["properties"]["states"]["items"]
    required = [s.name for s in SCHEMA.specs if not s.per_moment and s.absent_means is None]
    # A document that gives its cards' printed texts (#meta.oracle) may leave out what they decide; any other gives it.
    assert constants["required"] == [name for name in required if not SCHEMA.spec(name).printed]
    assert schema["if"] == {"properties": {"#meta": {"not": {"required": ["oracle"]}}}}
    unless_printed = schema["then"]["properties"]["constants"]["required"]
    assert unless_printed == [name for name in required if SCHEMA.spec(name).printed] and "kind" in unless_printed
    assert "other_effect" not in constants["required"]  # added within version 4: absent means false
    added = [s.name for s in SCHEMA.specs if s.per_moment and (s.completed_by or s.absent_means is not None)]
    assert state["required"] == ["#meta", *(s.name for s in SCHEMA.specs if s.per_moment and s.name not in added)]
    assert "combat_damage_to" in added  # added within version 4: absent from every state means false
    assert "once_triggered_object" not in state["required"]  # added within version 4: the reader computes it
    for spec in SCHEMA.specs:
        node = (state if spec.per_moment else constants)["properties"][spec.name]
        assert node["description"].startswith(spec.doc)
        assert f"Role: {spec.role}" in node["description"]
    assert schema["properties"]["#meta"]["properties"]["rule603"]["const"] == FORMAT
    assert "cannot" in schema["description"] and "loader" in schema["description"]


def test_only_a_trace_that_gives_its_cards_texts_may_leave_out_what_they_decide(validator) -> None:
    document = to_json(example_trace(), SCHEMA)
    del document["constants"]["kind"]
    assert any("'kind' is a required property" in e.message for e in validator.iter_errors(document))
    document["#meta"]["oracle"] = ["When this creature enters, draw a card."]
    assert not list(validator.iter_errors(document))
    document["#meta"]["oracle"] = [3]
    assert list(validator.iter_errors(document))
    document["#meta"]["oracle"] = [["When this creature enters, draw a card.", "When this creature dies, draw a card."]]
    assert not list(validator.iter_errors(document))  # a card with two printed triggered abilities
    for wrong in ([[]], [["When this creature enters, draw a card.", None]], [[" "]]):
        document["#meta"]["oracle"] = wrong
        assert list(validator.iter_errors(document)), wrong


def test_variables_table_is_current() -> None:
    doc = DOC_PATH.read_text(encoding="utf-8")
    assert read_block(doc, "variables") == variables_markdown(SCHEMA), (
        f"the table of variables in docs/trace-format.md is stale: regenerate it with `{REGENERATE_DOCS}`"
    )


def test_variables_table_has_a_row_per_variable() -> None:
    rows = [line for line in variables_markdown(SCHEMA).splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [s.name for s in SCHEMA.specs]


# --------------------------------------------------------------------------- 2. real traces validate


def test_counterexample_validates(validator, counterexample) -> None:
    assert list(validator.iter_errors(counterexample)) == []
    from_json(counterexample, SCHEMA)  # and the loader agrees


def test_example_is_current_valid_and_legal(validator) -> None:
    doc = DOC_PATH.read_text(encoding="utf-8")
    assert read_block(doc, "example") == example_markdown(), (
        f"the example trace in docs/trace-format.md is stale: regenerate it with `{REGENERATE_DOCS}`"
    )
    data = doc_example()
    assert list(validator.iter_errors(data)) == []
    trace = from_json(data, SCHEMA, "example")
    assert to_json(trace, SCHEMA) == data  # written exactly as rule603 writes it
    assert trace.length == 2
    # The story the documentation tells is a legal game that breaks the wrong claim at moment 1.
    edition = load_edition("current")
    every_clause = [enc.number for enc in edition.encodings]
    assert violations(edition, trace, every_clause) == []
    assert claim_fails_at(edition, trace, dies_at_most_once, every_clause) == [1]


def doc_example() -> dict[str, Any]:
    doc = DOC_PATH.read_text(encoding="utf-8")
    return json.loads(read_block(doc, "example").removeprefix("```json\n").removesuffix("```\n"))


# The changes to the example behind the error messages the documentation shows.
DOC_ERRORS = {
    "enum": ("/states/1/zone/0", "Graveyard"),
    "bool": ("/states/1/priority", 0),
    "int": ("/states/0/turn", 32),
    "player": ("/states/1/controller/1", 2),
    "length": ("/states/1/zone", ["graveyard", "graveyard", "library"]),
    "missing": ("/states/1/since", None),
    "tag": ("/#meta/rule603", "rule603-trace/1"),
    "bigint": ("/states/0/turn", {"#bigint": "one"}),
}


@pytest.mark.parametrize(("path", "value"), DOC_ERRORS.values(), ids=DOC_ERRORS.keys())
def test_error_messages_in_doc_are_real(path: str, value: Any) -> None:
    data = doc_example()
    (_delete(path) if value is None else _set(path, value))(data)
    with pytest.raises(TraceFormatError) as info:
        from_json(data, SCHEMA, "trace.json")
    assert f"\n{info.value}\n" in DOC_PATH.read_text(encoding="utf-8")


def test_writer_output_validates(validator) -> None:
    from test_trace_format import traces  # the round-trip tests' random traces

    @settings(max_examples=30, derandomize=True, deadline=None)
    @given(traces())
    def check(trace: Trace) -> None:
        data = json.loads(json.dumps(to_json(trace, SCHEMA)))
        assert list(validator.iter_errors(data)) == []

    check()


# --------------------------------------------------------------------------- 3. broken traces are rejected


# (name, change, where the loader complains, or None where only the schema checks it)
BROKEN: list[tuple[str, Callable[[dict], None], str | None]] = [
    ("wrong enum name", _set("/states/1/zone/0", "Graveyard"), "/states/1/zone/0"),
    ("enum code instead of name", _set("/states/0/step", 3), "/states/0/step"),
    ("enum name of another variable", _set("/constants/kind/1", "graveyard"), "/constants/kind/1"),
    ("missing state variable", _delete("/states/1/zone"), "/states/1/zone"),
    ("missing constant", _delete("/constants/owner"), "/constants/owner"),
    ("wrong rule603 tag", _set("/#meta/rule603", "rule603-trace/1"), "/#meta/rule603"),
    ("missing universe size", _delete("/#meta/universe/slot"), "/#meta/universe/slot"),
    ("negative universe size", _set("/#meta/universe/card", -1), "/#meta/universe/card"),
    ("integer above its maximum", _set("/states/0/turn", 32), "/states/0/turn"),
    ("negative integer", _set("/states/1/since/0", -1), "/states/1/since/0"),
    ("boolean for an integer", _set("/states/1/stack_size", True), "/states/1/stack_size"),
    ("string for an integer", _set("/constants/owner/0", "0"), "/constants/owner/0"),
    ("bigint that is not digits", _set("/states/0/turn", {"#bigint": "one"}), "/states/0/turn"),
    ("integer for a boolean", _set("/states/0/priority", 1), "/states/0/priority"),
    ("scalar for a list", _set("/states/0/zone", "battlefield"), "/states/0/zone"),
    ("empty states", _set("/states", []), "/states"),
    ("no states", _delete("/states"), "/states"),
    # Checked by the schema only: the loader does not need them to read the values.
    ("wrong format tag", _set("/#meta/format", "itf"), None),
    ("missing format tag", _delete("/#meta/format"), None),
    ("missing edition", _delete("/#meta/edition"), None),
    ("missing state index", _delete("/states/1/#meta"), None),
    ("ITF parameters", _set("/params", ["owner"]), None),
    ("missing vars", _delete("/vars"), None),
]


@pytest.mark.parametrize(("change", "loader_pointer"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_trace_rejected(validator, counterexample, change, loader_pointer) -> None:
    doc = copy.deepcopy(counterexample)
    change(doc)
    errors = list(validator.iter_errors(doc))
    assert errors, "the schema accepts a broken trace"
    if loader_pointer is None:
        from_json(doc, SCHEMA)
        return
    with pytest.raises(TraceFormatError) as info:
        from_json(doc, SCHEMA, "trace.json")
    assert info.value.pointer == loader_pointer
    # The schema complains at the same place, or at the object that misses the key.
    assert any(loader_pointer.startswith(pointer_of(e)) for e in errors), [pointer_of(e) for e in errors]


def test_wrong_list_length_is_left_to_the_loader(validator, counterexample) -> None:
    """What JSON Schema cannot say: the lengths depend on #meta.universe."""
    doc = copy.deepcopy(counterexample)
    doc["states"][1]["zone"].append("library")
    assert list(validator.iter_errors(doc)) == []
    with pytest.raises(TraceFormatError) as info:
        from_json(doc, SCHEMA, "trace.json")
    assert info.value.pointer == "/states/1/zone"
    assert info.value.message.startswith("expected a list of 2 values (one per card)")


@pytest.mark.parametrize(
    "change",
    [
        _set("/states/0/turn", {"#bigint": "1"}),
        _set("/#meta/engine", "my-engine 0.1"),
        _delete("/params"),
        _set("/states/0/#meta/note", "free text"),
    ],
    ids=["bigint", "extra meta", "no params", "state meta"],
)
def test_accepted_variants(validator, counterexample, change) -> None:
    doc = copy.deepcopy(counterexample)
    change(doc)
    assert list(validator.iter_errors(doc)) == []
    from_json(doc, SCHEMA)


# --------------------------------------------------------------------------- the example and regeneration


def example_trace() -> Trace:
    """Two creatures die at once; card 1's 'Whenever a creature dies' triggers twice."""
    from tracebuilder import TraceBuilder

    b = TraceBuilder(moments=2, card=2, slot=1)
    b.const("creature_card", True, 0).const("creature_card", True, 1).const("kind", "creature_dies", 1)
    b.move(0, 0, "battlefield").move(0, 1, "battlefield")
    b.move(1, 0, "graveyard").move(1, 1, "graveyard")
    b.from_(0, "is_leaves_ability", True, 1).from_(0, "look_back", True, 1)
    for name in ("matches", "attempts", "base_triggers", "triggers", "pending"):
        b.at(1, name, 2, 1)
    return b.at(1, "priority", False).build()


def example_markdown() -> str:
    data = to_json(example_trace(), SCHEMA, counterexample_meta())
    return "```json\n" + pretty_json(data) + "\n```\n"


def regenerate() -> None:
    write_schema(SCHEMA_PATH, SCHEMA)
    doc = DOC_PATH.read_text(encoding="utf-8")
    doc = replace_block(doc, "variables", variables_markdown(SCHEMA))
    doc = replace_block(doc, "example", example_markdown())
    DOC_PATH.write_text(doc, encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    regenerate()
    print(f"wrote {SCHEMA_PATH.relative_to(ROOT)} and the generated parts of {DOC_PATH.relative_to(ROOT)}")


def test_a_constant_added_within_the_version_may_be_absent_and_means_what_older_documents_meant() -> None:
    """A version 4 document written before ``other_effect`` existed is read with it false for every card (what
    it meant then); any other missing constant is still named."""
    data = json.loads((ROOT / "examples" / "traces" / "board-wipe.json").read_text(encoding="utf-8"))
    del data["constants"]["other_effect"]
    trace = from_json(data, SCHEMA, "old.json")
    assert trace.params["other_effect"] == [False] * trace.universe.size("card")
    # ... and the two added within version 5 the same way.
    for name in ("acts_on_this", "acts_on_that", "if_about_that", "d_other_effect", "d_targeted", "r_targeted"):
        del data["constants"][name]
    again = from_json(data, SCHEMA, "old.json")
    printed = [False] * again.universe.size("printed")
    assert again.params["acts_on_this"] == again.params["acts_on_that"] == again.params["if_about_that"] == printed
    assert again.params["d_other_effect"] == again.params["d_targeted"] == [False] * again.universe.size("delayed")
    assert again.params["r_targeted"] == [False] * again.universe.size("reflexive")
    # A per-moment environment variable added within the version: absent, what documents meant before it.
    for state in data["states"]:
        del state["cond_that"]
    cards = again.universe.size("card")
    assert all(s["cond_that"] == [[True] * cards] * len(printed) for s in from_json(data, SCHEMA, "old.json").states)
    del data["constants"]["enters_tapped"]
    with pytest.raises(TraceFormatError, match="/constants/enters_tapped"):
        from_json(data, SCHEMA, "old.json")


def test_a_reflexive_abilitys_constants_added_within_the_version_may_be_absent() -> None:
    """Gimli's reflexive ability waits for the third resolution and targets (``r_n`` 3, ``r_targeted``); a document
    without the two is read as before they existed: on its creator's action (0), not targeting."""
    from rule603.engines.scenario_file import load, play

    data = to_json(play(load(str(ROOT / "scenarios" / "603.7h-gimli-third-resolution.toml"))), SCHEMA)
    assert data["constants"]["r_n"] == [3] and data["constants"]["r_targeted"] == [True]
    del data["constants"]["r_n"], data["constants"]["r_targeted"]
    old = from_json(data, SCHEMA, "old.json")
    assert old.params["r_n"] == [0] and old.params["r_targeted"] == [False]
