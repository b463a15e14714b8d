"""The z3 backend builds its connectives from z3's C API: the terms must be the very ones z3's own functions build
(same term, same Python class), or the solver's search, and with it every counterexample, would change."""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st
from rule603._internal.smt import Z3Backend

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
    assert type(got) is type(want), (op, spec)
    assert got.eq(want), (op, spec, got, want)


def test_terms_of_two_contexts_are_refused_as_z3_refuses_them():
    """A term of another z3 context takes z3's own (checking) path, which refuses to mix contexts."""
    g = Z3Backend()
    other = z3.Bool("x", z3.Context())
    try:
        g.And(z3.Bool("y", g.ctx), other)
    except z3.Z3Exception:
        return
    raise AssertionError("mixing contexts was not refused")
