"""Tests for the JSON (ITF-shaped) trace format: round trips, shape, and error pointers."""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rule603._internal.schema import Schema, Universe, VarSpec
from rule603._internal.trace import FORMAT, Trace, dump, from_json, load, to_json
from rule603.errors import TraceFormatError
from rule603.models import game

SCHEMA = Schema(tuple(game.VARIABLES))
PER_MOMENT = [s for s in SCHEMA.specs if s.per_moment]
CONSTANTS = [s for s in SCHEMA.specs if not s.per_moment]
RESERVED_META = ("format", "format-description", "rule603", "edition", "universe")

SETTINGS = settings(max_examples=100, derandomize=True, deadline=None)


# --------------------------------------------------------------------------- strategies


def universes() -> st.SearchStrategy[Universe]:
    return st.builds(
        game.universe,
        player=st.integers(2, 4),
        card=st.integers(1, 4),
        delayed=st.integers(1, 2),
        reflexive=st.integers(1, 2),
        slot=st.integers(1, 3),
    )


def value_of(spec: VarSpec, universe: Universe) -> st.SearchStrategy[Any]:
    """A valid value of ``spec``: a code, or lists of codes nested per ``spec.dims``."""
    shape = tuple(universe.size(d) for d in spec.dims)
    return _value_strategy(spec.name, shape, SCHEMA.max_value(spec, universe))


@functools.cache
def _value_strategy(name: str, shape: tuple[int, ...], top: int) -> st.SearchStrategy[Any]:
    """A whole variable is one integer draw whose digits (base ``top + 1``) are the codes: far
    fewer draws than one per element, and it still shrinks towards all-false / all-zero.
    (Cached: building strategies afresh for every draw dominates the run time.)"""
    is_bool = SCHEMA.spec(name).kind == "bool"
    n = math.prod(shape)

    def decode(number: int) -> Any:
        codes = []
        for _ in range(n):
            number, code = divmod(number, top + 1)
            codes.append(bool(code) if is_bool else code)
        return nest(codes, list(shape))

    return st.integers(0, (top + 1) ** n - 1).map(decode)


def nest(flat: list[Any], shape: list[int]) -> Any:
    if not shape:
        return flat[0]
    step = len(flat) // shape[0]
    return [nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


meta_extras = st.dictionaries(
    st.sampled_from(["engine", "property", "note", "seed"]),
    st.one_of(st.integers(-5, 10**6), st.text(max_size=8), st.booleans(), st.none()),
    max_size=3,
)


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    universe = draw(universes())
    moments = draw(st.integers(1, 5))
    params = {spec.name: draw(value_of(spec, universe)) for spec in CONSTANTS}
    states = tuple({spec.name: draw(value_of(spec, universe)) for spec in PER_MOMENT} for _ in range(moments))
    edition = draw(st.text(max_size=12))
    meta = draw(meta_extras)
    return Trace(edition, universe, params, states, meta)


# --------------------------------------------------------------------------- helpers


def assert_same(actual: Any, expected: Any, where: str = "") -> None:
    """Equal, and of the same type all the way down (so True is not accepted for 1)."""
    assert type(actual) is type(expected), f"{where}: {type(actual).__name__} != {type(expected).__name__}"
    if isinstance(expected, list):
        assert len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_same(a, e, f"{where}/{i}")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def assert_traces_equal(actual: Trace, expected: Trace) -> None:
    assert actual.edition == expected.edition
    assert dict(actual.universe.sizes) == dict(expected.universe.sizes)
    assert dict(actual.meta) == dict(expected.meta)
    assert set(actual.params) == {s.name for s in CONSTANTS}
    for name in actual.params:
        assert_same(actual.params[name], expected.params[name], f"/constants/{name}")
    assert len(actual.states) == len(expected.states)
    for t, (got, want) in enumerate(zip(actual.states, expected.states, strict=True)):
        assert set(got) == {s.name for s in PER_MOMENT}
        for name in got:
            assert_same(got[name], want[name], f"/states/{t}/{name}")
    assert actual == expected


def expected_encoding(spec: VarSpec, value: Any) -> Any:
    if isinstance(value, list):
        return [expected_encoding(spec, v) for v in value]
    if spec.kind == "enum":
        return spec.values[value]
    return value


def leaf_paths(value: Any, prefix: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaf_paths(v, (*prefix, i))]
    return [prefix]


def list_paths(value: Any, prefix: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    if not isinstance(value, list):
        return []
    return [prefix] + [p for i, v in enumerate(value) for p in list_paths(v, (*prefix, i))]


def get_at(value: Any, path: tuple[int, ...]) -> Any:
    for i in path:
        value = value[i]
    return value


def set_at(container: dict[str, Any], name: str, path: tuple[int, ...], new: Any) -> None:
    if not path:
        container[name] = new
        return
    target = container[name]
    for i in path[:-1]:
        target = target[i]
    target[path[-1]] = new


def pointer(base: str, path: tuple[int, ...]) -> str:
    return base + "".join(f"/{i}" for i in path)


def blank(spec: VarSpec, universe: Universe) -> Any:
    """All-false / all-zero value of ``spec``: nested lists, one level per dimension."""
    value: Any = False if spec.kind == "bool" else 0
    for dim in reversed(spec.dims):
        value = [value if not isinstance(value, list) else list(value) for _ in range(universe.size(dim))]
    return value


def blank_trace(universe: Universe, moments: int, edition: str = "e") -> Trace:
    params = {s.name: blank(s, universe) for s in CONSTANTS}
    states = tuple({s.name: blank(s, universe) for s in PER_MOMENT} for _ in range(moments))
    return Trace(edition, universe, params, states)


def raises_at(data: Any, expected_pointer: str, source: str = "<trace>") -> TraceFormatError:
    with pytest.raises(TraceFormatError) as info:
        from_json(data, SCHEMA, source)
    err = info.value
    assert err.pointer == expected_pointer, err
    assert err.source == source
    assert str(err).startswith(f"{source}: at {expected_pointer or '/'}: ")
    return err


# --------------------------------------------------------------------------- 1. round trip


@SETTINGS
@given(traces())
def test_round_trip(trace: Trace) -> None:
    data = to_json(trace, SCHEMA)
    assert_traces_equal(from_json(data, SCHEMA), trace)

    text = json.dumps(data, allow_nan=False)  # plain JSON, nothing Python-only
    reloaded = json.loads(text)
    assert reloaded == data
    assert_traces_equal(from_json(reloaded, SCHEMA), trace)
    # encoding is deterministic: a second trip gives the same document
    assert json.dumps(to_json(from_json(reloaded, SCHEMA), SCHEMA), sort_keys=True) == json.dumps(data, sort_keys=True)


# --------------------------------------------------------------------------- 2. ITF shape


@SETTINGS
@given(traces())
def test_itf_shape(trace: Trace) -> None:
    data = to_json(trace, SCHEMA)
    assert set(data) == {"#meta", "params", "vars", "constants", "states"}
    meta = data["#meta"]
    assert meta["format"] == "ITF"
    assert meta["rule603"] == FORMAT == "rule603-trace/5"
    assert meta["edition"] == trace.edition
    assert meta["universe"] == dict(trace.universe.sizes)
    assert meta["universe"]["ability"] == sum(trace.universe.sizes[d] for d in ("printed", "delayed", "reflexive"))
    assert set(meta) == set(RESERVED_META) | set(trace.meta)
    for key, value in trace.meta.items():
        assert meta[key] == value
    assert data["params"] == []
    assert data["vars"] == [s.name for s in PER_MOMENT]
    assert "zone" in data["vars"] and "owner" not in data["vars"]
    assert list(data["constants"]) == [s.name for s in CONSTANTS]
    for spec in CONSTANTS:
        assert_same(data["constants"][spec.name], expected_encoding(spec, trace.params[spec.name]), spec.name)
    assert len(data["states"]) == trace.length
    for t, state in enumerate(data["states"]):
        assert state["#meta"] == {"index": t}
        assert type(state["#meta"]["index"]) is int
        assert list(state) == ["#meta", *data["vars"]]
        for spec in PER_MOMENT:
            encoded = state[spec.name]
            assert_same(encoded, expected_encoding(spec, trace.states[t][spec.name]), f"{t}/{spec.name}")
            n = math.prod(trace.universe.size(d) for d in spec.dims)
            assert len(leaf_paths(encoded)) == n


def test_itf_concrete_values() -> None:
    universe = game.universe(player=2, card=1, delayed=1, reflexive=1, slot=1)
    base = blank_trace(universe, 1)
    params = dict(base.params)
    params["kind"] = [game.CREATURE_DIES]
    params["owner"] = [1]
    state = dict(base.states[0])
    state["zone"] = [game.GRAVEYARD]
    state["step"] = game.END
    state["turn"] = 7
    state["leaves_game"] = [False, True]
    trace = Trace("2025-11-14", universe, params, (state,))
    data = to_json(trace, SCHEMA, extra_meta={"engine": "test"})
    assert data["#meta"]["edition"] == "2025-11-14"
    assert data["#meta"]["engine"] == "test"
    sizes = {"player": 2, "card": 1, "delayed": 1, "reflexive": 1, "slot": 1, "printed": 1, "ability": 3}
    assert data["#meta"]["universe"] == sizes
    assert data["constants"]["kind"] == ["creature_dies"]
    assert data["constants"]["owner"] == [1]
    assert data["constants"]["d_cause"] == ["spell"]
    s0 = data["states"][0]
    assert s0["zone"] == ["graveyard"]
    assert s0["step"] == "end"
    assert s0["turn"] == 7
    assert s0["leave"] == "none"
    assert s0["leaves_game"] == [False, True]
    assert s0["slot_zone"] == ["library"]
    back = from_json(data, SCHEMA)
    assert back.meta == {"engine": "test"}
    assert back.states[0]["zone"] == [game.GRAVEYARD]
    assert back.params["kind"] == [game.CREATURE_DIES]


# --------------------------------------------------------------------------- 3. error pointers


def wrong_leaf(spec: VarSpec) -> st.SearchStrategy[Any]:
    """A JSON value that is not a valid leaf for ``spec``."""
    if spec.kind == "bool":
        return st.sampled_from([0, 1, "true", None, [], {}])
    if spec.kind == "int":
        return st.sampled_from([-1, -7, True, False, "3", 1.0, 2.5, None, [], {}])
    return st.sampled_from([0, 1, True, None, "", "no-such-name", spec.values[0].upper(), [], {}])


@SETTINGS
@given(traces(), st.data())
def test_error_wrong_leaf(trace: Trace, data: st.DataObject) -> None:
    doc = json.loads(json.dumps(to_json(trace, SCHEMA)))
    in_state = data.draw(st.booleans(), label="in_state")
    if in_state:
        t = data.draw(st.integers(0, trace.length - 1), label="t")
        spec = data.draw(st.sampled_from(PER_MOMENT), label="spec")
        container, base = doc["states"][t], f"/states/{t}/{spec.name}"
    else:
        spec = data.draw(st.sampled_from(CONSTANTS), label="spec")
        container, base = doc["constants"], f"/constants/{spec.name}"
    path = data.draw(st.sampled_from(leaf_paths(container[spec.name])), label="path")
    set_at(container, spec.name, path, data.draw(wrong_leaf(spec), label="bad"))
    err = raises_at(doc, pointer(base, path))
    expected = {"bool": "expected true or false", "int": "expected a non-negative integer", "enum": "expected one of"}
    assert err.message.startswith(expected[spec.kind])


@SETTINGS
@given(traces(), st.data())
def test_error_enum_name(trace: Trace, data: st.DataObject) -> None:
    doc = to_json(trace, SCHEMA)
    t = data.draw(st.integers(0, trace.length - 1), label="t")
    spec = data.draw(st.sampled_from([s for s in PER_MOMENT if s.kind == "enum"]), label="spec")
    path = data.draw(st.sampled_from(leaf_paths(doc["states"][t][spec.name])), label="path")
    other = [v for s in SCHEMA.specs if s.kind == "enum" for v in s.values if v not in spec.values]
    bad = data.draw(st.sampled_from(["", "Battlefield", "zone", *other]), label="bad")
    set_at(doc["states"][t], spec.name, path, bad)
    err = raises_at(doc, pointer(f"/states/{t}/{spec.name}", path))
    assert repr(bad) in err.message
    assert repr(list(spec.values)) in err.message


@SETTINGS
@given(traces(), st.data())
def test_error_list_length(trace: Trace, data: st.DataObject) -> None:
    doc = to_json(trace, SCHEMA)
    t = data.draw(st.integers(0, trace.length - 1), label="t")
    spec = data.draw(st.sampled_from([s for s in PER_MOMENT if s.dims]), label="spec")
    path = data.draw(st.sampled_from(list_paths(doc["states"][t][spec.name])), label="path")
    current = get_at(doc["states"][t][spec.name], path)
    change = data.draw(st.sampled_from(["longer", "shorter", "empty", "scalar"]), label="change")
    new = {
        "longer": [*current, current[0]],
        "shorter": current[:-1],
        "empty": [],
        "scalar": current[0],
    }[change]
    set_at(doc["states"][t], spec.name, path, new)
    err = raises_at(doc, pointer(f"/states/{t}/{spec.name}", path))
    dim = spec.dims[len(path)]
    assert err.message.startswith(f"expected a list of {trace.universe.size(dim)} values (one per {dim})")


@SETTINGS
@given(traces(), st.data())
def test_error_missing_variable(trace: Trace, data: st.DataObject) -> None:
    doc = to_json(trace, SCHEMA)
    if data.draw(st.booleans(), label="in_state"):
        t = data.draw(st.integers(0, trace.length - 1), label="t")
        # (a variable added within the version may be absent from every state: read below, completed or defaulted)
        named = [s.name for s in PER_MOMENT if trace.length > 1 or (s.completed_by is None and s.absent_means is None)]
        name = data.draw(st.sampled_from(named), label="name")
        del doc["states"][t][name]
        expected = f"/states/{t}/{name}"
    else:
        # (a constant added within the version may be absent: tests/test_trace_schema.py reads one without it)
        name = data.draw(st.sampled_from([s.name for s in CONSTANTS if s.absent_means is None]), label="name")
        del doc["constants"][name]
        expected = f"/constants/{name}"
    err = raises_at(doc, expected)
    assert err.message == "missing"


@SETTINGS
@given(traces(), st.data())
def test_error_document_level(trace: Trace, data: st.DataObject) -> None:
    doc = to_json(trace, SCHEMA)
    t = data.draw(st.integers(0, trace.length - 1), label="t")
    corruption = data.draw(
        st.sampled_from(
            [
                "no-meta",
                "meta-not-object",
                "no-tag",
                "wrong-tag",
                "old-tag",
                "no-universe",
                "negative-size",
                "constants-not-object",
                "no-states",
                "empty-states",
                "state-not-object",
                "not-object",
            ]
        ),
        label="corruption",
    )
    expected = {
        "no-meta": "/#meta",
        "meta-not-object": "/#meta",
        "no-tag": "/#meta/rule603",
        "wrong-tag": "/#meta/rule603",
        "old-tag": "/#meta/rule603",
        "no-universe": "/#meta/universe",
        "negative-size": "/#meta/universe/card",
        "constants-not-object": "/constants",
        "no-states": "/states",
        "empty-states": "/states",
        "state-not-object": f"/states/{t}",
        "not-object": "",
    }[corruption]
    if corruption == "no-meta":
        del doc["#meta"]
    elif corruption == "meta-not-object":
        doc["#meta"] = ["ITF"]
    elif corruption == "no-tag":
        del doc["#meta"]["rule603"]
    elif corruption == "wrong-tag":
        doc["#meta"]["rule603"] = "rule603-trace/6"
    elif corruption == "old-tag":
        doc["#meta"]["rule603"] = "rule603-trace/2"
    elif corruption == "no-universe":
        del doc["#meta"]["universe"]
    elif corruption == "negative-size":
        doc["#meta"]["universe"]["card"] = -1
    elif corruption == "constants-not-object":
        doc["constants"] = []
    elif corruption == "no-states":
        del doc["states"]
    elif corruption == "empty-states":
        doc["states"] = []
    elif corruption == "state-not-object":
        doc["states"][t] = None
    else:
        doc = [doc]
    err = raises_at(doc, expected, source="trace.json")
    if corruption in ("wrong-tag", "old-tag"):
        assert repr(FORMAT) in err.message
        assert repr(doc["#meta"]["rule603"]) in err.message


def test_error_pointer_example() -> None:
    """The example from the documentation: a zone value at moment 1, card 0."""
    doc = to_json(blank_trace(game.universe(player=2, card=2), 2), SCHEMA)
    assert doc["states"][1]["zone"] == ["library", "library"]
    doc["states"][1]["zone"][0] = "the moon"
    err = raises_at(doc, "/states/1/zone/0")
    assert str(err) == (
        "<trace>: at /states/1/zone/0: expected one of ['library', 'hand', 'battlefield', 'graveyard', 'exile', "
        "'stack', 'command', 'outside'], got 'the moon'"
    )


# --------------------------------------------------------------------------- 4. files


@settings(
    max_examples=100, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(trace=traces())
def test_dump_load(tmp_path, trace: Trace) -> None:
    path = tmp_path / "trace.json"
    dump(trace, SCHEMA, path)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == to_json(trace, SCHEMA)
    assert_traces_equal(load(path, SCHEMA), trace)
    assert_traces_equal(load(str(path), SCHEMA), trace)  # a str path works too


def test_dump_extra_meta(tmp_path) -> None:
    trace = blank_trace(game.universe(), 3, edition="ed")
    path = tmp_path / "t.json"
    dump(trace, SCHEMA, path, extra_meta={"property": "p-1", "seed": 3})
    back = load(path, SCHEMA)
    assert back.meta == {"property": "p-1", "seed": 3}
    assert back.params == trace.params and back.states == trace.states


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", 1),
        ("not json\n", 1),
        ('{\n "#meta": {},\n "states": [\n  1,\n  oops\n ]\n}\n', 5),
        ('{\n "#meta": {"format": "ITF"},\n', 3),
        ("{'single': 'quotes'}", 1),
    ],
)
def test_load_not_json(tmp_path, text: str, line: int) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TraceFormatError) as info:
        load(path, SCHEMA)
    err = info.value
    assert err.source == str(path)
    assert err.pointer == ""
    assert err.message.startswith("not JSON: ")
    assert re.search(rf" at line {line} column \d+$", err.message)  # as rule603 check says it
    assert str(err).startswith(f"{path}: at /: not JSON")


def test_load_valid_json_bad_shape_names_file(tmp_path) -> None:
    path = tmp_path / "shape.json"
    path.write_text('{"#meta": {"rule603": "rule603-trace/5"}}\n', encoding="utf-8")
    with pytest.raises(TraceFormatError) as info:
        load(path, SCHEMA)
    assert info.value.source == str(path)
    assert info.value.pointer == "/#meta/universe"


def _without_the_record(trace: Trace) -> tuple[dict, list]:
    doc = to_json(trace, SCHEMA)
    return doc, [state.pop("once_triggered_object") for state in doc["states"]]


def test_a_rule_variable_added_within_the_version_is_computed_when_a_document_lacks_it():
    """``once_triggered_object`` may be absent from every state (a document written before it): the reader
    computes it by the game model's definition, and gets what the reference engine, which keeps its own record
    of the object that triggered, writes.  Absent from some states only, it is missing there."""
    from rule603.engines import scenario_file
    from rule603.engines.reference import sample_traces

    vraan = scenario_file.play(scenario_file.load("scenarios/603.2c-vraan-triggers-only-once-each-turn.toml"))
    doc, written = _without_the_record(vraan)
    assert any(any(v) for v in written)  # Vraan's ability did trigger (once)
    assert [state["once_triggered_object"] for state in from_json(doc, SCHEMA).states] == written
    for trace in sample_traces(40):
        doc, written = _without_the_record(trace)
        assert [state["once_triggered_object"] for state in from_json(doc, SCHEMA).states] == written
    doc, written = _without_the_record(vraan)
    doc["states"][0]["once_triggered_object"] = written[0]
    assert raises_at(doc, "/states/1/once_triggered_object").message == "missing"


def test_an_environment_variable_added_within_the_version_means_what_documents_before_it_meant():
    """``combat_damage_to`` may be absent from every state (a document written before it): no creature dealt combat
    damage to a player.  Absent from some states only, it is missing there."""
    from rule603.engines import scenario_file

    storm = scenario_file.play(scenario_file.load("scenarios/603.2c-storm-the-vault-one-or-more.toml"))
    doc = to_json(storm, SCHEMA)
    assert any(any(any(row) for row in state["combat_damage_to"]) for state in doc["states"])
    kept = doc["states"][0]["combat_damage_to"]
    for state in doc["states"]:
        del state["combat_damage_to"]
    read = from_json(doc, SCHEMA)
    assert all(not any(any(row) for row in state["combat_damage_to"]) for state in read.states)
    assert read.states[1]["deals_damage"] == storm.states[1]["deals_damage"]  # the rest as written
    doc["states"][0]["combat_damage_to"] = kept
    assert raises_at(doc, "/states/1/combat_damage_to").message == "missing"


# --------------------------------------------------------------------------- the quick state reader


@SETTINGS
@given(traces(), st.data())
def test_the_quick_state_reader_reads_what_the_careful_one_reads_or_hands_over(trace: Trace, data: st.DataObject):
    """The generated per-universe reader (``trace._state_reader``) must give the careful loop's values for every
    state it accepts, and hand over (None) every state the careful loop refuses: one value of one state is
    replaced by a right or a wrong one (a bigint, a bool for an int, a name of another enum, a list too short)."""
    from rule603._internal.trace import _decode_state, _state_reader

    doc = json.loads(json.dumps(to_json(trace, SCHEMA)))
    t = data.draw(st.integers(0, trace.length - 1), label="t")
    state = doc["states"][t]
    spec = data.draw(st.sampled_from(PER_MOMENT), label="spec")
    path = data.draw(st.sampled_from(leaf_paths(state[spec.name])), label="path")
    replacement = data.draw(
        st.one_of(
            wrong_leaf(spec),
            value_of(spec, trace.universe),  # a whole valid value where a leaf was: a list in a list
            st.sampled_from([0, 1, 2, 63, 64, 255, 10**6, {"#bigint": "1"}, [0], [[False]], "stack", "hand"]),
        ),
        label="replacement",
    )
    if data.draw(st.booleans(), label="drop instead"):
        del state[spec.name]
    else:
        set_at(state, spec.name, path, replacement)
    per_moment = [(s, SCHEMA.max_value(s, trace.universe) if s.kind == "int" else None) for s in PER_MOMENT]
    quick = _state_reader(tuple(per_moment), tuple(sorted(trace.universe.sizes.items())), frozenset())(state)
    try:
        careful = _decode_state(state, t, per_moment, [], trace.universe, "<trace>")
    except TraceFormatError:
        assert quick is None
        return
    assert quick is None or quick == careful
