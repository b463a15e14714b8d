"""The compiled trace checker reports exactly what the interpreted definitions report.

The interpreted path (the concrete backend) is the reference semantics; the compiled
path is the same definitions recorded and emitted as Python.  They are compared on
every hand-written clause case (accepted and rejected), on perturbed copies of them
(which break many clauses and axioms at once), and with each clause alone.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rule603._internal.bmc import violations
from rule603._internal.compiled import CompiledChecker
from rule603._internal.trace import Trace
from test_clauses import CASES, ED

ALL = tuple(e.number for e in ED.encodings)
CHECKER = CompiledChecker(ED, ALL)


def _compiled(checker: CompiledChecker, trace: Trace, **kw) -> list[tuple[int, str, str]]:
    return [(b.moment, b.clause, b.about) for b in checker.violations(trace, **kw)]


def _interpreted(trace: Trace, enabled=ALL, include_axioms: bool = True) -> list[tuple[int, str, str]]:
    return [(v.moment, v.clause, v.about) for v in violations(ED, trace, enabled, include_axioms=include_axioms)]


def _traces() -> list[Trace]:
    return [CASES[n].build(bad).build() for n in sorted(CASES) for bad in (False, True)]


TRACES = _traces()


@pytest.mark.parametrize("index", range(len(TRACES)))
def test_same_violations_on_clause_cases(index: int):
    trace = TRACES[index]
    assert _compiled(CHECKER, trace) == _interpreted(trace)


@pytest.mark.parametrize("number", sorted(CASES))
def test_same_violations_with_one_clause(number: str):
    checker = CompiledChecker(ED, (number,), include_axioms=False)
    for bad in (False, True):
        trace = CASES[number].build(bad).build()
        assert _compiled(checker, trace) == _interpreted(trace, (number,), include_axioms=False)


def test_first_only_is_the_first():
    trace = CASES["603.2c"].build(True).build()
    assert _compiled(CHECKER, trace, first_only=True) == _interpreted(trace)[:1]


@st.composite
def perturbed(draw) -> Trace:
    """A clause case with a few values changed at random, within their domains."""
    trace = draw(st.sampled_from(TRACES))
    states = copy.deepcopy([dict(s) for s in trace.states])
    params = copy.deepcopy(dict(trace.params))
    specs = [s for s in ED.model.VARIABLES]
    schema_max = {s.name: (1 if s.kind == "bool" else len(s.values) - 1 if s.kind == "enum" else None) for s in specs}
    for _ in range(draw(st.integers(1, 6))):
        spec = draw(st.sampled_from(specs))
        top = schema_max[spec.name]
        if top is None:
            top = trace.universe.size(spec.max_dim) - 1 if spec.max_dim else min(spec.max, 8)
        target = params if not spec.per_moment else states[draw(st.integers(0, trace.length - 1))]
        holder, key = target, spec.name
        for dim in spec.dims:
            holder, key = holder[key], draw(st.integers(0, trace.universe.size(dim) - 1))
        value = draw(st.integers(0, top))
        holder[key] = bool(value) if spec.kind == "bool" else value
    return Trace(trace.edition, trace.universe, params, tuple(states))


@settings(max_examples=300, derandomize=True, deadline=None)
@given(perturbed())
def test_same_violations_on_perturbed_traces(trace: Trace):
    assert _compiled(CHECKER, trace) == _interpreted(trace)


def test_a_violation_names_the_values_it_reads():
    trace = CASES["603.2c"].build(True).build()
    (broken,) = CompiledChecker(ED, ("603.2c",), include_axioms=False).violations(trace)
    names = {name for name, _ in broken.reads}
    assert {"triggers", "base_triggers"} & names, broken.reads
    assert all(index[0] <= broken.moment for name, index in broken.reads if name in ("triggers", "zone"))


# --- long traces: the generic code, compiled once for every moment from 1 on ----------------


@st.composite
def engine_traces(draw) -> Trace:
    """A reference-engine trace (up to 16 moments), sometimes with a few values changed."""
    from rule603.engines.reference import run
    from rule603.engines.strategies import scenarios

    trace = run(draw(scenarios(max_actions=15)))
    if trace.length < 2 or not draw(st.booleans()):
        return trace
    states = copy.deepcopy([dict(s) for s in trace.states])
    for _ in range(draw(st.integers(1, 4))):
        t = draw(st.integers(1, trace.length - 1))
        name = draw(st.sampled_from(["zone", "tapped", "triggers", "pending", "since", "stack_size", "slot_moment"]))
        value = states[t][name]
        if isinstance(value, list):
            i = draw(st.integers(0, len(value) - 1))
            value[i] = (not value[i]) if isinstance(value[i], bool) else draw(st.integers(0, 3))
        else:
            states[t][name] = draw(st.integers(0, 3))
    return Trace(trace.edition, trace.universe, trace.params, tuple(states))


@settings(max_examples=5, derandomize=True, deadline=None)  # 200 more in the exhaustive suite's test below
@given(engine_traces())
def test_same_violations_on_long_engine_traces(trace: Trace):
    assert _compiled(CHECKER, trace) == _interpreted(trace)


@pytest.mark.exhaustive
@settings(max_examples=200, derandomize=True, deadline=None)
@given(engine_traces())
def test_same_violations_on_many_long_engine_traces(trace: Trace):
    assert _compiled(CHECKER, trace) == _interpreted(trace)


# --- definitions that decide on the moment: compiled moment by moment, never wrongly --------------


def _edition_with(extra) -> tuple:
    """The current edition with ``extra(g, t)``'s rules added to its first clause."""
    import dataclasses

    first = ED.encodings[0]

    def fn(g, t):
        yield from first.fn(g, t)
        yield from extra(g, t)

    encoding = dataclasses.replace(first, fn=fn)
    return dataclasses.replace(ED, encodings=(encoding, *ED.encodings[1:])), first.number


def _from_moment_three(g, t):
    from rule603 import Rule

    if t >= 3:  # the same for no single piece of generic code
        yield Rule(True, False, "from moment 3")


def _ever_on_battlefield(g, t):
    from rule603 import Rule
    from rule603.models import game

    for c in game.cards(g):
        seen = g.Or(*[g.zone(u, c) == game.BATTLEFIELD for u in range(t)])  # range(t): not generic either
        yield Rule(g.And(g.zone(t, c) == game.GRAVEYARD, seen), False, f"card {c} was on the battlefield")


@pytest.mark.parametrize("extra", [_from_moment_three, _ever_on_battlefield])
def test_decisions_on_the_moment_fall_back_to_one_function_per_moment(extra):
    from rule603.engines.reference import sample_traces

    edition, number = _edition_with(extra)
    checker = CompiledChecker(edition, (number,), include_axioms=False)
    long_traces = [t for t in sample_traces(60) if t.length >= 10]
    assert long_traces
    for trace in long_traces:
        expected = [(v.moment, v.clause, v.about) for v in violations(edition, trace, [number], include_axioms=False)]
        assert _compiled(checker, trace) == expected
    assert any(_compiled(checker, trace) for trace in long_traces)


def test_every_clause_and_game_rule_compiles_once_for_all_moments():
    # A definition that decides on the moment (a loop over the earlier moments, say) makes every trace
    # shape compile moment by moment instead: `rule603 check` once ran seven times slower for that.
    checker = CompiledChecker(ED, ALL)
    trace = CASES["603.2h"].build(False).build()
    assert checker.violations(trace) == []
    key = tuple(sorted(trace.universe.sizes.items()))
    generic, per_moment = checker._cache[(key, "generic")]
    assert generic.run is not None and generic.first == 1 and per_moment == []


def test_only_the_families_generic_code_cannot_follow_are_compiled_moment_by_moment():
    """A family that loops over the earlier moments, among all the others, is compiled for each moment on its own;
    every other family stays in the code compiled once (every family compiled per moment made ``rule603 check``
    seven times slower), and the violations come in the interpreter's order all the same."""
    import dataclasses

    from rule603 import Rule
    from rule603.engines.reference import sample_traces
    from rule603.models import game

    def with_rules(encoding, extra):
        def fn(g, t):
            yield from encoding.fn(g, t)
            yield from extra(g, t)

        return dataclasses.replace(encoding, fn=fn)

    def in_graveyard(g, t):  # generic, and broken wherever the looping rule is: the merge order shows
        for c in game.cards(g):
            yield Rule(g.zone(t, c) == game.GRAVEYARD, False, f"card {c} in a graveyard")

    middle = len(ED.encodings) // 2  # in the middle, between two generic families broken at the same moments
    looping = ED.encodings[middle]
    encodings = list(ED.encodings)
    encodings[middle] = with_rules(looping, _ever_on_battlefield)
    encodings[0] = with_rules(encodings[0], in_graveyard)
    encodings[-1] = with_rules(encodings[-1], in_graveyard)
    edition = dataclasses.replace(ED, encodings=tuple(encodings))
    numbers = tuple(e.number for e in edition.encodings)
    checker = CompiledChecker(edition, numbers)
    traces = [t for t in sample_traces(60) if t.length >= 10]
    for trace in traces:
        expected = [(v.moment, v.clause, v.about) for v in violations(edition, trace, numbers)]
        assert _compiled(checker, trace) == expected
    assert any(_compiled(checker, trace) for trace in traces)
    for key, plan in checker._cache.items():
        if key[1] == "generic":
            generic, per_moment = plan
            assert [fam.number for fam in per_moment] == [looping.number]
            assert looping.number not in {inst.family for inst in generic.instances}
            assert len({inst.family for inst in generic.instances}) > 20
            whole = [k[1] for k in checker._cache if k[0] == key[0] and isinstance(k[1], int)]
            assert all(t < generic.first for t in whole)  # every family per moment only before generic code applies


def _died_by_earlier(g, t):
    """A card in a graveyard whose zone just before it got there was the battlefield: `g.earlier` reads the
    moment a value of the trace names, with no loop over the earlier moments."""
    from rule603 import Rule
    from rule603.models import game

    for c in game.cards(g):
        before = g.earlier(g.since(t, c) - 1, t, "zone", c, default=game.LIBRARY)
        yield Rule(g.zone(t, c) == game.GRAVEYARD, before != game.BATTLEFIELD, f"card {c} died")


def test_a_value_at_a_moment_the_trace_names_compiles_once_and_agrees():
    from rule603.engines.reference import sample_traces

    edition, number = _edition_with(_died_by_earlier)
    checker = CompiledChecker(edition, (number,), include_axioms=False)
    traces = [t for t in sample_traces(60) if t.length >= 6]
    for trace in traces:
        expected = [(v.moment, v.clause, v.about) for v in violations(edition, trace, [number], include_axioms=False)]
        assert _compiled(checker, trace) == expected
    assert any(_compiled(checker, trace) for trace in traces)  # some card did die
    plans = [plan for key, plan in checker._cache.items() if key[1] == "generic"]
    assert plans and all(generic.run is not None and not per_moment for generic, per_moment in plans)
