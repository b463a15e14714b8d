"""The z3 backend builds its connectives and comparisons from z3's C API: the terms must be the very ones z3's own
functions build (same term, of z3's Python class or the backend's subclass of it), or the solver's search, and with
it every counterexample, would change."""

from __future__ import annotations

import functools

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st
from rule603._internal import smt
from rule603._internal.bmc import Encoding
from rule603._internal.catalogue import builtin_properties, load_edition
from rule603._internal.smt import Z3Backend
from rule603._internal.verify import Options, Verifier

OPERATIONS = ("And", "Or", "Not", "Implies", "If", "Sum")
BACKEND = Z3Backend()  # one context for every example (making one collects garbage, which is slow)
VARIABLES = {("bool", i): z3.Bool(f"b{i}", BACKEND.ctx) for i in range(4)} | {
    ("bv", i): z3.BitVec(f"v{i}", BACKEND.width, BACKEND.ctx) for i in range(4)
}


def _reference(op: str, args: list, width: int, ctx: z3.Context):
    """What z3's own functions build from the same arguments (the backend's code before the C API)."""

    def term(x):
        if isinstance(x, bool):
            return z3.BoolVal(x, ctx)
        return z3.BitVecVal(x, width, ctx) if isinstance(x, int) else x

    if op in ("And", "Or"):
        if any(x is (op == "Or") for x in args):
            return z3.BoolVal(op == "Or", ctx)
        items = [x for x in args if not isinstance(x, bool)]
        if not items:
            return z3.BoolVal(op == "And", ctx)
        return (z3.And if op == "And" else z3.Or)(items)
    if op == "Not":
        return args[0] if isinstance(args[0], bool) else z3.Not(args[0])
    if op == "Implies":
        return z3.Implies(term(args[0]), term(args[1]))
    if op == "If":
        return z3.If(args[0], term(args[1]), term(args[2]))
    if all(isinstance(x, int) for x in args):  # known before solving: added up in Python
        return sum(args)
    items = [term(x) for x in args]
    return items[0] if len(items) == 1 else z3.Sum(items)


@st.composite
def calls(draw):
    op = draw(st.sampled_from(OPERATIONS))
    booleans = st.one_of(st.booleans(), st.integers(0, 3).map(lambda i: ("bool", i)))
    numbers = st.one_of(st.integers(0, 20), st.integers(0, 3).map(lambda i: ("bv", i)))
    if op in ("And", "Or"):
        return op, draw(st.lists(booleans, min_size=1, max_size=5))
    if op == "Not":
        return op, [draw(st.integers(0, 3).map(lambda i: ("bool", i)))]
    if op == "Implies":
        return op, [("bool", draw(st.integers(0, 3))), draw(booleans)]
    if op == "If":
        branch = draw(st.sampled_from([booleans, numbers]))
        return op, [("bool", draw(st.integers(0, 3))), draw(branch), draw(branch)]
    return op, draw(st.lists(numbers, min_size=1, max_size=5))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(calls())
def test_the_c_api_builds_the_same_terms_as_z3s_functions(call):
    op, spec = call
    g = BACKEND
    args = [VARIABLES[x] if isinstance(x, tuple) else x for x in spec]
    got = getattr(g, op)(args) if op in ("And", "Or", "Sum") else getattr(g, op)(*args)
    want = _reference(op, args, g.width, g.ctx)
    if isinstance(want, (bool, int)):
        assert type(got) is type(want) and got == want, (op, spec)
        return
    assert isinstance(got, type(want)), (op, spec)
    assert got.eq(want), (op, spec, got, want)


@st.composite
def comparisons(draw):
    kind = draw(st.sampled_from(["bool", "bv"]))
    constant = st.booleans() if kind == "bool" else st.integers(-1, 300)
    other = st.one_of(constant, st.integers(0, 3).map(lambda i: (kind, i)))
    return draw(st.sampled_from(["==", "!="])), (kind, draw(st.integers(0, 3))), draw(other), draw(st.booleans())


@settings(max_examples=300, deadline=None, derandomize=True)
@given(comparisons())
def test_the_backends_variables_compare_as_z3s_own_terms_do(call):
    """``==`` and ``!=`` on the backend's own variables (its fast path), against the same on z3's plain terms, each
    way round."""
    op, (kind, i), other, flipped = call
    make = BACKEND.bool_var if kind == "bool" else BACKEND.int_var

    def mine(x):
        return make(f"{'b' if kind == 'bool' else 'v'}{x[1]}") if isinstance(x, tuple) else x

    def plain(x):
        return VARIABLES[x] if isinstance(x, tuple) else x

    compare = (lambda x, y: x == y) if op == "==" else (lambda x, y: x != y)
    pair = (other, (kind, i)) if flipped else ((kind, i), other)
    got, want = compare(*map(mine, pair)), compare(*map(plain, pair))
    assert isinstance(got, z3.BoolRef) and got.eq(want), (call, got, want)


EDITIONS = ("2004", "2008", "battlefield-en", "battlefield-fr", "2024-06", "current")


def _encoding_text(edition_name: str, bound: int) -> str:
    """Every constraint the catalogue's and the audit's encodings of ``edition_name`` hold at ``bound``, as z3
    prints them: the encoding with every game rule tracked, its twin, the catalogue's goals, and the roomier
    universe's encoding in wider bit-vectors."""
    edition = load_edition(edition_name)
    universe = edition.model.universe()
    options = Options(bound=bound, limits=smt.SolverLimits(), sat="z3")
    verifier = Verifier(edition, universe, options)
    verifier.encoding.extend(bound)
    for prop in builtin_properties() if edition_name == "current" else []:
        for t in range(bound):
            verifier.encoding.solver.add(verifier._claim_term(prop, t))
    twin = Encoding(edition, universe, options.limits, twin_of=verifier.encoding)
    twin.extend(bound)
    roomy = Encoding(edition, universe, options.limits, variables=edition.model.roomy_variables(1000), width=16)
    roomy.extend(bound)
    return "\n".join(enc.solver._solver.sexpr() for enc in (verifier.encoding, roomy))


@pytest.mark.parametrize(
    "edition_name",
    [pytest.param(name, marks=[] if name == "current" else [pytest.mark.exhaustive]) for name in EDITIONS],
)
def test_every_editions_encoding_is_the_same_with_the_fast_operators(edition_name, monkeypatch):
    """The backend's operators (``_term_classes``) against z3's own, over whole encodings: a comparison built the
    other way round, or a term of another sort, would show in z3's text of the solver."""
    bound = 4
    fast = _encoding_text(edition_name, bound)
    monkeypatch.setattr(smt, "Z3Backend", functools.partial(smt.Z3Backend, fast_operators=False))
    assert _encoding_text(edition_name, bound) == fast


def _read_term_by_term(enc: Encoding, depth: int) -> dict:
    """The model's trace as ``Encoding.extract`` read it before reading the model at once: each variable's term
    evaluated with model completion."""
    read = enc.solver.model_reader()
    values = {}
    for (name, index), _ in enc.variables():
        if not enc.schema.spec(name).per_moment or index[0] < depth:
            values[name, index] = read(enc.lookup(name, index))
    return values


def test_a_trace_read_at_once_is_the_trace_read_term_by_term():
    # Several games (each asks for one more object on the stack at the last moment), in an encoding and its twin,
    # and one with values fixed before solving: every variable reads alike both ways.
    edition = load_edition("current")
    universe = edition.model.universe()
    limits = smt.SolverLimits()
    enc = Encoding(edition, universe, limits, track_axioms=True)
    twin = Encoding(edition, universe, limits, twin_of=enc)
    depth = 3
    enc.extend(depth)
    twin.extend(depth)
    for size in range(3):
        lit = enc.solver.fresh_literal(f"stack{size}")
        enc.solver.add(enc.g.Implies(lit, enc.g.stack_size(depth - 1) >= size))
        assert enc.check_with(depth, [e.number for e in edition.encodings], [lit]) == smt.Verdict.SAT
        for side in (enc, twin):
            trace = side.extract(depth)
            flat = trace.flat_values()
            expected = _read_term_by_term(side, depth)
            assert {k: flat[k] for k in expected} == {
                k: int(v) if not isinstance(v, bool) else v for k, v in expected.items()
            }
