"""One expression layer for concrete and symbolic checking.

Clause and property definitions are written once, against a :class:`Backend`.
The concrete backend evaluates them on a recorded trace with plain Python values;
the z3 backend (``smt.py``, the only module that imports z3) lowers the very same
code to solver terms.  That is how conformance checking and verification can never
disagree about what a clause means.

Values are small non-negative integers (moments, counts, players, enum codes) and
booleans.  Python's ``==``, ``+``, ``-``, ``<`` and ``<=`` work on both kinds of value
(z3 overloads them), so definitions use them directly; the connectives that Python
cannot overload (``and``/``or``/``not``/``if``) go through the backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Expr = Any  # a Python bool/int (concrete) or a z3 term (symbolic)


class Backend:
    """The operations a definition may use; subclasses give them a meaning."""

    symbolic: bool = False

    def And(self, *xs: Expr) -> Expr:  # noqa: N802 - mirrors the logic operator names
        raise NotImplementedError

    def Or(self, *xs: Expr) -> Expr:  # noqa: N802
        raise NotImplementedError

    def Not(self, x: Expr) -> Expr:  # noqa: N802
        raise NotImplementedError

    def Implies(self, a: Expr, b: Expr) -> Expr:  # noqa: N802
        return self.Or(self.Not(a), b)

    def If(self, c: Expr, x: Expr, y: Expr) -> Expr:  # noqa: N802
        raise NotImplementedError

    def count(self, xs: Iterable[Expr]) -> Expr:
        """How many of the booleans ``xs`` are true."""
        raise NotImplementedError

    def Sum(self, xs: Iterable[Expr]) -> Expr:  # noqa: N802
        raise NotImplementedError

    def Min(self, x: Expr, y: Expr) -> Expr:  # noqa: N802
        return self.If(x <= y, x, y)

    def Distinct(self, xs: Sequence[Expr]) -> Expr:  # noqa: N802
        return self.And(*[xs[i] != xs[j] for i in range(len(xs)) for j in range(i + 1, len(xs))])

    def at_moment(self, when: Expr, now: int, value: Callable[[int], Expr], default: Expr) -> Expr:
        """``value(when)`` for a moment ``when`` (itself a value) among ``0..now-1``, else ``default``."""
        out = default
        for u in range(now):
            out = self.If(when == u, value(u), out)
        return out


class ConcreteBackend(Backend):
    """Evaluates definitions on concrete values: the engine-trace checker."""

    symbolic = False

    # And/Or short-circuit without building a flattened list: checking engine traces
    # evaluates them hundreds of thousands of times.
    def And(self, *xs: Expr) -> bool:  # noqa: N802
        for x in xs:
            if isinstance(x, (list, tuple)):
                if not all(x):
                    return False
            elif not x:
                return False
        return True

    def Or(self, *xs: Expr) -> bool:  # noqa: N802
        for x in xs:
            if isinstance(x, (list, tuple)):
                if any(x):
                    return True
            elif x:
                return True
        return False

    def Not(self, x: Expr) -> bool:  # noqa: N802
        return not x

    def If(self, c: Expr, x: Expr, y: Expr) -> Expr:  # noqa: N802
        return x if c else y

    def count(self, xs: Iterable[Expr]) -> int:
        return sum(1 for x in xs if x)

    def Sum(self, xs: Iterable[Expr]) -> int:  # noqa: N802
        return sum(int(x) for x in xs)

    def at_moment(self, when: Expr, now: int, value: Callable[[int], Expr], default: Expr) -> Expr:
        return value(when) if 0 <= when < now else default


def _flat(xs: Iterable[Expr]) -> list[Expr]:
    """Accept both ``And(a, b)`` and ``And([a, b])``, as z3 does."""
    out: list[Expr] = []
    for x in xs:
        if isinstance(x, (list, tuple)):
            out.extend(x)
        else:
            out.append(x)
    return out


CONCRETE = ConcreteBackend()
