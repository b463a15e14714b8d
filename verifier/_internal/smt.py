"""The z3 backend: the only module of rule603 that imports z3.

Everything symbolic lives behind this file: variable creation, the incremental
solver with assumption literals, models, unsat cores.  The encoding uses bit-vectors
of one small width and a ``QF_FD`` solver (z3's SAT core), which the design notes
measured several times faster than the same model over integers.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import z3

from .expr import Backend, Expr, _flat

WIDTH = 8  # every integer is a bit-vector of this width (a backend may have another); values stay below 2**(WIDTH-1)


@contextmanager
def steady_memory() -> Iterator[None]:
    """No cycle collection inside: only at the start, once.

    z3's search depends on where it allocates, and Python's cycle collector frees garbage at
    moments that depend on everything the process did before (a command line and a test reach
    the same solver calls with different histories).  Work that must give the same answer
    wherever it runs (a committed report) runs inside this; its own garbage waits until the end.
    """
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class SolverTime:
    """Seconds spent inside z3's checks, and how many checks (``solver_time``)."""

    seconds: float = 0.0
    checks: int = 0


_SOLVER_TIME: ContextVar[SolverTime | None] = ContextVar("rule603_solver_time", default=None)


@contextmanager
def solver_time() -> Iterator[SolverTime]:
    """Time every solver check made inside (``rule603 bench`` splits a run's time into the solver's and the rest)."""
    timer = SolverTime()
    token = _SOLVER_TIME.set(timer)
    try:
        yield timer
    finally:
        _SOLVER_TIME.reset(token)


def add_solver_time(seconds: float) -> None:
    """Count one check of ``seconds`` in the ``solver_time`` being measured, if any (another backend's too)."""
    timer = _SOLVER_TIME.get()
    if timer is not None:
        timer.seconds += seconds
        timer.checks += 1


class Z3Backend(Backend):
    """Lowers definitions to z3 terms, in its own z3 context.

    A private context per encoding keeps runs independent: the terms of one run
    cannot change the internal numbering, and so the search, of the next.
    """

    symbolic = True

    def __init__(self, ctx: z3.Context | None = None, width: int = WIDTH, *, fast_operators: bool = True) -> None:
        """``width``: the bit-vectors' width; a wider one is for counts beyond the model's ranges (the audit's
        check whether a deadlock rests on the model's room).  ``fast_operators`` off: z3's own classes, whose
        operators the fast ones must match (tests/test_smt_backend.py)."""
        self.width = width
        if ctx is None:
            # Free the contexts of earlier runs now, not while this one solves: z3's search
            # was seen to depend on memory being freed mid-run (two identical checks in one
            # process gave different counterexamples when an old context was collected).
            gc.collect()
        self.ctx = ctx or z3.Context()
        self._boolean, self._bitvector = _term_classes(self) if fast_operators else (z3.BoolRef, z3.BitVecRef)
        self._true = self._boolean(z3.BoolVal(True, self.ctx).ast, self.ctx)
        self._false = self._boolean(z3.BoolVal(False, self.ctx).ast, self.ctx)
        self._numerals: dict[int, Expr] = {}  # each integer's term, made once
        self._sort = z3.BitVecSort(width, self.ctx)

    # The connectives are built straight from z3's C API when every argument is a term of this backend's own
    # context: z3's Python functions first coerce and sort-check each argument, which cost most of the time
    # spent building an encoding.  The terms are the same ones (z3 shares equal terms; tests/test_smt_backend.py).

    def _own(self, x: Expr, kind: type) -> bool:
        """``x`` is a ``kind`` term of this backend's context (the C API may take it as it is)."""
        return isinstance(x, kind) and x.ctx is self.ctx

    def _junction(self, xs: tuple, absorbing: bool, make: Any, fallback: Any) -> Expr:
        """And (``absorbing`` False) or Or (True): a constant ``absorbing`` decides it, the other is dropped."""
        items = _flat(xs)
        if any(x is absorbing for x in items):
            return self._term(absorbing)
        items = [x for x in items if x is not (not absorbing)]
        if not items:
            return self._term(not absorbing)
        if not all(self._own(x, z3.BoolRef) for x in items):
            return fallback(items)
        asts = (z3.Ast * len(items))(*[x.ast for x in items])
        return self._boolean(make(self.ctx.ref(), len(items), asts), self.ctx)

    def And(self, *xs: Expr) -> Expr:  # noqa: N802
        return self._junction(xs, False, z3.Z3_mk_and, z3.And)

    def Or(self, *xs: Expr) -> Expr:  # noqa: N802
        return self._junction(xs, True, z3.Z3_mk_or, z3.Or)

    def Not(self, x: Expr) -> Expr:  # noqa: N802
        if isinstance(x, bool):
            return not x
        if self._own(x, z3.BoolRef):
            return self._boolean(z3.Z3_mk_not(self.ctx.ref(), x.ast), self.ctx)
        return z3.Not(x)

    def Implies(self, a: Expr, b: Expr) -> Expr:  # noqa: N802
        if isinstance(a, bool) and isinstance(b, bool):
            return (not a) or b
        a, b = self._term(a), self._term(b)
        if self._own(a, z3.BoolRef) and self._own(b, z3.BoolRef):
            return self._boolean(z3.Z3_mk_implies(self.ctx.ref(), a.ast, b.ast), self.ctx)
        return z3.Implies(a, b)

    def If(self, c: Expr, x: Expr, y: Expr) -> Expr:  # noqa: N802
        if isinstance(c, bool):
            return x if c else y
        x, y = self._term(x), self._term(y)
        if self._own(c, z3.BoolRef):
            for kind, made in ((z3.BitVecRef, self._bitvector), (z3.BoolRef, self._boolean)):
                if self._own(x, kind) and self._own(y, kind):  # one width per backend: bit-vectors share a sort
                    return made(z3.Z3_mk_ite(self.ctx.ref(), c.ast, x.ast, y.ast), self.ctx)
        return z3.If(c, x, y)

    def count(self, xs: Iterable[Expr]) -> Expr:
        return self.Sum([self.If(x, 1, 0) for x in xs])

    def Sum(self, xs: Iterable[Expr]) -> Expr:  # noqa: N802
        xs = list(xs)
        if all(isinstance(x, int) for x in xs):  # known before solving (a value a ruling's scenario fixes)
            return sum(xs)
        items = [self._term(x) for x in xs]
        if len(items) == 1:
            return items[0]
        if not all(self._own(x, z3.BitVecRef) for x in items):
            return z3.Sum(items)
        # z3.Sum of bit-vectors is ((0 + x0) + x1) + ...: the same term, built without its coercions.
        ctx, total = self.ctx, self._term(0).ast
        for x in items:
            total = z3.Z3_mk_bvadd(ctx.ref(), total, x.ast)
        return self._bitvector(total, ctx)

    def _term(self, x: Expr) -> Expr:
        if isinstance(x, bool):
            return self._true if x else self._false
        if isinstance(x, int):
            numeral = self._numerals.get(x)
            if numeral is None:
                numeral = self._numerals[x] = self._bitvector(z3.BitVecVal(x, self.width, self.ctx).ast, self.ctx)
            return numeral
        return x

    def substitute(self, term: Expr, values: Sequence[tuple[Expr, Expr]]) -> Expr:
        """``term`` with each variable replaced by a value or a term, and simplified (in z3, not rebuilt in
        Python)."""
        if isinstance(term, bool) or not values:
            return term
        return z3.simplify(z3.substitute(term, *[(var, self._term(value)) for var, value in values]))

    def is_boolean(self, x: Expr) -> bool:
        return isinstance(x, bool) or z3.is_bool(x)

    def identical(self, x: Expr, y: Expr) -> bool:
        """The same term (z3 shares equal terms, so this is a pointer comparison), not merely equivalent."""
        return self._term(x).eq(self._term(y))

    def int_var(self, name: str) -> Expr:
        return self._bitvector(z3.Z3_mk_const(self.ctx.ref(), z3.to_symbol(name, self.ctx), self._sort.ast), self.ctx)

    def bool_var(self, name: str) -> Expr:
        return self._boolean(z3.Bool(name, self.ctx).ast, self.ctx)

    def range_constraint(self, var: Expr, size: int) -> Expr:
        """``0 <= var < size`` for an enum- or index-valued variable."""
        return z3.ULT(var, z3.BitVecVal(size, self.width, self.ctx))


def _term_classes(backend: Z3Backend) -> tuple[type, type]:
    """The backend's Boolean and bit-vector terms: z3's classes, whose operators (``==``, ``!=``, ``+``, ``-``, ``*``,
    ``<`` ...) with a Python value or a term of the backend's context call z3's C API at once.  The definitions use
    Python's operators, and z3's own coerce and sort-check each operand, which cost more than a tenth of an audit.
    The terms are the very ones z3's operators build (tests/test_smt_backend.py), provided the left operand of a
    comparison is the backend's too: Python asks a subclass on the right first, so every term the backend or these
    operators make is of these classes."""
    ctx = backend.ctx

    def operand(other: object, kind: type) -> Any:
        """``other``'s term for the C API, or ``None`` where z3's own operator must take it."""
        if isinstance(other, (bool, int)):
            return backend._term(other).ast if isinstance(other, bool) == (kind is z3.BoolRef) else None
        return other.ast if isinstance(other, kind) and other.ctx is ctx else None

    def binary(kind: type, name: str, make: Any, result: Callable[[], type], swapped: bool = False) -> Any:
        def apply(self: Any, other: object) -> Any:
            ast = operand(other, kind)
            if ast is None:
                return getattr(kind, name)(self, other)
            return result()(make(ctx.ref(), *((ast, self.ast) if swapped else (self.ast, ast))), ctx)

        return apply

    def distinct(c: Any, a: Any, b: Any) -> Any:
        return z3.Z3_mk_distinct(c, 2, (z3.Ast * 2)(a, b))

    def comparisons(kind: type) -> dict[str, Any]:
        return {
            "__hash__": kind.__hash__,
            "__eq__": binary(kind, "__eq__", z3.Z3_mk_eq, lambda: boolean),
            "__ne__": binary(kind, "__ne__", distinct, lambda: boolean),
        }

    boolean = type("Boolean", (z3.BoolRef,), comparisons(z3.BoolRef))
    bv = z3.BitVecRef
    arithmetic = {
        f"__{name}__": binary(bv, f"__{name}__", make, lambda: bitvector, swapped=name.startswith("r"))
        for name, make in (
            ("add", z3.Z3_mk_bvadd),
            ("radd", z3.Z3_mk_bvadd),
            ("sub", z3.Z3_mk_bvsub),
            ("rsub", z3.Z3_mk_bvsub),
            ("mul", z3.Z3_mk_bvmul),
            ("rmul", z3.Z3_mk_bvmul),
        )
    } | {
        f"__{name}__": binary(bv, f"__{name}__", make, lambda: boolean)
        for name, make in (
            ("lt", z3.Z3_mk_bvslt),
            ("le", z3.Z3_mk_bvsle),
            ("gt", z3.Z3_mk_bvsgt),
            ("ge", z3.Z3_mk_bvsge),
        )
    }
    bitvector = type("BitVector", (bv,), comparisons(bv) | arithmetic)
    return boolean, bitvector


@dataclass(frozen=True)
class SolverLimits:
    """Per-check limits: wall clock always, z3's deterministic rlimit when set."""

    timeout_ms: int = 60_000
    rlimit: int = 0  # 0 means no resource limit
    seed: int = 0
    #: z3's rlimit for each probe while shrinking an answer (``verify.minimise``); 0: the probe's short
    #: wall-clock timeout decides instead, and which answer is kept may depend on the machine's speed.
    probe_rlimit: int = 0
    #: CaDiCaL's conflict budget for each proof it is given (``sat.py``), as the rlimit is z3's: with both set, a run
    #: proves and leaves undecided the same things on every machine.  0: no budget (the wall clock decides).
    conflicts: int = 0

    def shaping_answers(self) -> str:
        """The limits that can change an answer, not only whether there is one (the wall clock), as a cache key."""
        return f"rlimit {self.rlimit} seed {self.seed} probe {self.probe_rlimit} conflicts {self.conflicts}"


class Verdict:
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


class Solver:
    """An incremental solver whose checks take assumption literals.

    Constraints are added once, each guarded by the literal of the clause it encodes;
    turning clauses on and off is a matter of which literals are assumed, so learned
    clauses survive from one check to the next (in a ``restartable`` solver, until a check
    is cut short).
    """

    def __init__(self, limits: SolverLimits, ctx: z3.Context, *, restartable: bool = False) -> None:
        """``restartable``: keep every constraint added, so that after a check cut short the solver can start
        again from them (``_start_again``).  Off by default: holding on to the terms changes what z3 frees,
        and with it the search of the checks that follow, and so the committed reports."""
        self.limits = limits
        self.ctx = ctx
        self._solver = self._fresh()
        self._added: list[Expr] | None = [] if restartable else None
        self._for_now: list[int] = []  # indices in ``_added`` of the constraints added ``for_now``
        self._literals: dict[str, Expr] = {}
        self.reason_unknown = ""
        self.unknowns = 0  # checks that ended unknown: an answer built from several checks is whole only without one
        self._bit_blasted = False  # has z3's SAT core taken in the constraints (``dimacs``)?

    def literal(self, name: str) -> Expr:
        if name not in self._literals:
            self._literals[name] = z3.Bool(f"use[{name}]", self.ctx)
        return self._literals[name]

    def add(self, constraint: Expr, *, for_now: bool = False) -> None:
        """``for_now`` (a restartable solver only): until ``forget_for_now``."""
        if constraint is True:
            return
        if constraint is False:
            constraint = z3.BoolVal(False, self.ctx)
        self._solver.add(constraint)
        if self._added is not None:
            self._added.append(constraint)
            if for_now:
                self._for_now.append(len(self._added) - 1)
        else:
            assert not for_now, "only a restartable solver can forget"

    def forget_for_now(self) -> None:
        """Go on in a new solver with only the constraints not added ``for_now``: what a search learned about one
        question, and all the old solver learned, are gone; the terms stay made (the contradiction search asks
        each moment afresh, and building its encodings again cost more than many of its checks)."""
        assert self._added is not None
        gone = set(self._for_now)
        self._added = [c for i, c in enumerate(self._added) if i not in gone]
        self._for_now = []
        self._start_again()

    def fresh_literal(self, name: str) -> Expr:
        return z3.Bool(name, self.ctx)

    def at_most(self, bools: Sequence[Expr], bound: int) -> Expr:
        """At most ``bound`` of ``bools`` are true (a pseudo-Boolean constraint)."""
        terms = [b for b in bools if not isinstance(b, bool)]
        constant = sum(1 for b in bools if b is True)
        if not terms or bound < constant:
            return z3.BoolVal(constant <= bound, self.ctx)
        return z3.AtMost(*terms, bound - constant)

    def check(self, assumptions: Sequence[Expr], timeout_ms: int | None = None, rlimit: int | None = None) -> str:
        """Check under ``assumptions``; a shorter ``timeout_ms`` or another ``rlimit`` applies to this call only
        (z3 counts an rlimit from the start of each check)."""
        if timeout_ms is not None:
            self._solver.set("timeout", min(timeout_ms, self.limits.timeout_ms))
        if rlimit is not None:
            self._solver.set("rlimit", rlimit)
        started = time.perf_counter()
        try:
            result = self._solver.check(*assumptions)
        finally:
            add_solver_time(time.perf_counter() - started)
            if timeout_ms is not None:
                self._solver.set("timeout", self.limits.timeout_ms)
            if rlimit is not None:
                self._solver.set("rlimit", self.limits.rlimit)
        self._bit_blasted = True
        if result == z3.sat:
            return Verdict.SAT
        if result == z3.unsat:
            return Verdict.UNSAT
        self.reason_unknown = self._solver.reason_unknown()
        self.unknowns += 1
        if self._added is not None:
            self._start_again()
        return Verdict.UNKNOWN

    def dimacs(self) -> str:
        """The clauses of z3's SAT core, in DIMACS, each named Boolean variable's number in a comment (``c <var>
        <name>``).  Before its first check, z3 has bit-blasted nothing: check once first (what is added after that
        check, this call takes in itself)."""
        return self._solver.dimacs(True)

    @property
    def bit_blasted(self) -> bool:
        """Has this solver checked since it started (again), so that ``dimacs`` gives its constraints?"""
        return self._bit_blasted

    def _fresh(self) -> z3.Solver:
        solver = z3.SolverFor("QF_FD", ctx=self.ctx)
        solver.set("random_seed", self.limits.seed)
        solver.set("timeout", self.limits.timeout_ms)
        if self.limits.rlimit:
            solver.set("rlimit", self.limits.rlimit)
        return solver

    def _start_again(self) -> None:
        """After a check cut short (timeout, rlimit), go on in a new solver with the same constraints.

        z3 does not vouch for what an incremental solver answers after a cancelled check: the audit's
        ambiguity search was seen answering "sat" with a model that broke an asserted clause, in checks
        that followed one stopped by the rlimit, and never otherwise.  (The solver's own ``assertions()`` are
        not enough: they are what its preprocessing left, and models without its eliminations broke ranges.)
        What the old solver learned is lost."""
        assert self._added is not None
        solver = self._fresh()
        for constraint in self._added:
            solver.add(constraint)
        self._solver = solver
        self._bit_blasted = False

    def model_value(self, term: Expr) -> int | bool:
        if isinstance(term, (bool, int)):
            return term
        value = self._solver.model().eval(term, model_completion=True)
        if z3.is_bool(value):
            return z3.is_true(value)
        return value.as_long()

    def model_reader(self) -> Callable[[Expr], int | bool]:
        """A function giving a term's value in the current model (fetched once: fetching it is slow)."""
        model = self._solver.model()

        def read(term: Expr) -> int | bool:
            if isinstance(term, (bool, int)):  # a value fixed before solving
                return term
            value = model.eval(term, model_completion=True)
            return z3.is_true(value) if z3.is_bool(value) else value.as_long()

        return read

    def model_values(self) -> dict[str, int | bool]:
        """Every constant of the current model, by name, read at once through z3's C API (no term is made per
        value: reading a whole trace term by term was a tenth of the audit).  A constant the model leaves out is
        any value, as ``model_completion`` reads it: 0 or false."""
        ctx, model = self.ctx.ref(), self._solver.model()
        values: dict[str, int | bool] = {}
        for i in range(z3.Z3_model_get_num_consts(ctx, model.model)):
            decl = z3.Z3_model_get_const_decl(ctx, model.model, i)
            value = z3.Z3_model_get_const_interp(ctx, model.model, decl)
            name = z3.Z3_get_symbol_string(ctx, z3.Z3_get_decl_name(ctx, decl))
            if z3.Z3_get_sort_kind(ctx, z3.Z3_get_sort(ctx, value)) == z3.Z3_BOOL_SORT:
                values[name] = z3.Z3_get_bool_value(ctx, value) == z3.Z3_L_TRUE
            elif z3.Z3_get_ast_kind(ctx, value) == z3.Z3_NUMERAL_AST:
                values[name] = int(z3.Z3_get_numeral_string(ctx, value))
        return values

    def model_evaluator(self):
        """A function evaluating Boolean terms in the current model; it stays valid after later checks."""
        model = self._solver.model()
        return lambda term: term if isinstance(term, bool) else z3.is_true(model.eval(term, model_completion=True))

    def unsat_core_names(self) -> list[str]:
        names = {str(lit): name for name, lit in self._literals.items()}
        return sorted(names[str(x)] for x in self._solver.unsat_core() if str(x) in names)


def symbols(term: Expr) -> set[str]:
    """The names of the variables (uninterpreted constants) ``term`` mentions; none for a Python constant."""
    if isinstance(term, (bool, int)):
        return set()
    seen: set[int] = set()
    names: set[str] = set()
    todo = [term]
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            names.add(x.decl().name())
        elif z3.is_app(x):
            todo.extend(x.children())
    return names


def z3_version() -> str:
    return z3.get_version_string()
