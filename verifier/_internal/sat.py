"""CaDiCaL on z3's bit-blasted encoding: the only module of rule603 that imports pysat.

The catalogue's checks are proofs: at the bound, every property that holds is an unsatisfiable query, and z3's
own SAT core spends most of the catalogue's time on them.  CaDiCaL 1.9.5 (through pysat) decides the same
queries three to four times faster (docs/performance.md).  z3 still builds the encoding and bit-blasts it; its
clauses, read once in DIMACS, go to CaDiCaL with the literals every catalogue check assumes (each moment, each
clause) as unit clauses, and each property's goal is one assumption.  The audit's ambiguity search and the diff's
catalogue verdicts use it the same way, under a conflict budget (``SolverLimits.conflicts``).

Only "unsatisfiable" is taken from CaDiCaL, as a verdict that the property holds.  An answer "satisfiable" is
given back to z3, which finds and shrinks the counterexample over the named variables: z3's incremental SAT
solver may have eliminated variables its checks do not assume, and with them a goal's literal, so that CaDiCaL
could find a goal satisfiable that is not; never the reverse (a formula without an eliminated variable is
satisfiable exactly when the original is, whatever the variables it keeps are given).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from pysat.solvers import Cadical195

from .smt import add_solver_time

SOLVER = "cadical195"
#: CaDiCaL's own "--unsat" configuration: no stable-mode phases and no local search, which serve satisfiable
#: formulas; the catalogue's checks are proofs (the whole catalogue at bound 8: 0.8 times the default's time).
PROOF_CONFIGURATION = {"stabilize": 0, "walk": 0}
#: conflicts between two looks at the wall clock (a few hundredths of a second to a second)
ROUND = 20_000


def solver_version() -> str:
    """What decides the catalogue's proofs, for the verdict cache's key."""
    try:
        return f"{SOLVER} (python-sat {version('python-sat')})"
    except PackageNotFoundError:  # pragma: no cover - pysat imported, but not installed as a distribution
        return SOLVER


class Undecided(Exception):
    """CaDiCaL stopped before an answer (the wall clock or the conflict budget)."""


class CnfSolver:
    """z3's clauses under CaDiCaL, with ``units`` asserted; checks assume named literals."""

    def __init__(self, dimacs: str, units: Sequence[str]) -> None:
        clauses, self._names = _parse(dimacs)
        self._solver = Cadical195()
        self._solver.configure(PROOF_CONFIGURATION)  # before any clause, as CaDiCaL requires
        self._solver.append_formula(clauses)
        for name in units:
            var = self._names.get(name)
            if var is not None:  # a literal z3 folded away guards nothing
                self._solver.add_clause([var])

    def knows(self, name: str) -> bool:
        return name in self._names

    def unsatisfiable(self, name: str | Sequence[str], timeout_ms: int, conflicts: int = 0) -> bool:
        """Is the formula unsatisfiable with ``name`` (or each of several names) true?  ``conflicts``: a budget (0:
        none), for a result that does not depend on the machine's speed.  Raises ``Undecided`` when stopped first.

        pysat cannot interrupt CaDiCaL, so the wall clock is looked at between rounds of ``ROUND`` conflicts;
        CaDiCaL keeps what it learned from one round to the next."""
        assumed = [self._names[n] for n in ([name] if isinstance(name, str) else name)]
        started = time.perf_counter()
        deadline = started + timeout_ms / 1000
        left = conflicts
        try:
            while True:
                this_round = min(left, ROUND) if conflicts else ROUND
                self._solver.conf_budget(this_round)
                answer = self._solver.solve_limited(assumptions=assumed)
                if answer is not None:
                    return not answer
                left -= this_round
                if (left <= 0) if conflicts else time.perf_counter() >= deadline:
                    raise Undecided("CaDiCaL stopped before an answer")
        finally:
            add_solver_time(time.perf_counter() - started)

    def proves(self, name: str | Sequence[str], timeout_ms: int, conflicts: int = 0) -> bool:
        """Whether CaDiCaL proves the formula unsatisfiable with ``name`` (or each of several names) true, within
        the budget.  False means not proved: a name the copy does not know (z3 eliminated it), a satisfiable
        formula, or a search stopped first; z3 is asked instead."""
        names = [name] if isinstance(name, str) else list(name)
        if not all(self.knows(n) for n in names):
            return False
        try:
            return self.unsatisfiable(names, timeout_ms, conflicts)
        except Undecided:
            return False


def _parse(dimacs: str) -> tuple[list[list[int]], dict[str, int]]:
    """The clauses of a DIMACS text, and the variables z3 named in its comments (``c <var> <name>``)."""
    clauses: list[list[int]] = []
    names: dict[str, int] = {}
    for line in dimacs.splitlines():
        if not line or line[0] == "p":
            continue
        if line[0] == "c":
            _, var, name = line.split(" ", 2)
            names[name] = int(var)
            continue
        clauses.append([int(x) for x in line.split()[:-1]])
    return clauses, names
