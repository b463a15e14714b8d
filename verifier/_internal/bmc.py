"""Bounded model checking: one incremental solver, assumption literals, no push/pop.

The encoding of moment ``t`` is added once, guarded by the literal ``moment[t]``;
every clause instance is further guarded by its clause's literal.  A check at depth
``k`` assumes the first ``k`` moment literals and the literals of the enabled clauses,
so the same solver (and everything it has learned) serves every property, every
depth, and every subset of clauses.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidDefinition, Rule603Error
from . import smt, usercode
from .expr import CONCRETE, Expr
from .registry import MODEL_BOUND, ClauseEncoding, Edition, Property
from .schema import ENV, MODEL_LABELS, Game, Names, Schema, Universe, VarSpec
from .trace import Trace


@dataclass(frozen=True)
class Violation:
    moment: int
    clause: str
    about: str


MAX_MOMENTS = 64  # symbolic moments are created on demand; this only catches nonsense such as -1


class Encoding:
    """The symbolic trace of one edition over one universe, extended moment by moment."""

    def __init__(
        self,
        edition: Edition,
        universe: Universe,
        limits: smt.SolverLimits,
        *,
        track_axioms: bool = False,
        twin_of: Encoding | None = None,
        variables: Sequence[VarSpec] | None = None,
        restartable: bool = False,
        width: int = smt.WIDTH,
        room_apart: Collection[str] = (),
        keep_bounds: bool = False,
        fixed: Mapping[tuple[str, tuple[int, ...]], int | bool] | None = None,
    ) -> None:
        """``track_axioms``: guard each game-model rule with its own literal too (``axiom_literals``), so that
        an unsat core can name the rules outside 603 that decide something; they must then be assumed.

        ``twin_of``: a second trace in ``twin_of``'s solver that plays the same scenario (it shares every
        environment variable and constant) and has rule variables of its own (named ``twin.``...).  Clause,
        moment and axiom literals are the solver's by name, so both traces obey the same clauses.  The
        audit compares the two to find situations the rules leave undetermined.

        ``variables``: the model's variables with other ranges (the contradiction search's roomier model);
        by default the model's own ``VARIABLES``.

        ``restartable``: the solver starts again from its constraints after a check cut short
        (``smt.Solver``); for searches that go on after an unknown answer (the audit's).

        ``width``: the integers' bit width, for ``variables`` with ranges the default width cannot add up (a twin
        has its original's).

        ``room_apart``: the game rules' instances that are bounds of the model of these kinds (``Rule.room``:
        ``SLOTS``, ``MODEL_BOUND``) are guarded by ``room_literals[t]`` too, so that a check can leave a moment
        without those bounds.

        ``keep_bounds``: keep, per moment, each game rule's "a model bound is broken" (its ``MODEL_BOUND``
        instances, ``model_bounds_broken[t][number]``), for ``bounds.cut_offs``, rather than build them again.

        ``fixed``: variables whose value is known before solving (a ruling's scenario, ``fixed_by``), as Python
        values: the definitions then fold in Python what the scenario decides, and the solver sees only what the
        rules leave open."""
        self.edition = edition
        self.universe = universe
        self.schema = Schema(tuple(edition.model.VARIABLES if variables is None else variables))
        self._twin_of = twin_of
        self._prefix = "" if twin_of is None else "twin."
        if twin_of is None:
            self.backend = smt.Z3Backend(width=width)
            self.solver = smt.Solver(limits, self.backend.ctx, restartable=restartable)
        else:
            self.backend, self.solver = twin_of.backend, twin_of.solver
        self._vars: dict[tuple[str, tuple[int, ...]], Expr] = {}
        self._fixed = dict(fixed or {})
        self._by_label: dict[str, tuple[str, tuple[int, ...]]] = {}
        self.g = Game(self.backend, self.schema, universe, self._lookup, self.solver.literal, 0)
        self.g.edition = edition
        self.moment_literals: list[Expr] = []
        self._room_apart = frozenset(room_apart)
        self.room_literals: list[Expr] = []
        self._keep_bounds = keep_bounds
        self.model_bounds_broken: list[dict[str, Expr]] = []
        self.axiom_literals: dict[str, Expr] = (
            {ax.number: self.solver.literal(ax.number) for ax in edition.axioms} if track_axioms else {}
        )
        self.witness: dict[str, list[Expr]] = {enc.number: [] for enc in edition.encodings}
        self._constants_done = False

    # --- variables --------------------------------------------------------------
    def _lookup(self, name: str, index: tuple[int, ...]) -> Expr:
        key = (name, index)
        var = self._vars.get(key)
        if var is None:
            if key in self._fixed:
                return self._fixed[key]
            spec = self.schema.check_index(name, index, self.universe, MAX_MOMENTS)
            if self._twin_of is not None and spec.role == ENV:
                return self._twin_of._lookup(name, index)  # the same scenario: one variable for both
            var = self._make(spec, index)
        return var

    def lookup(self, name: str, index: tuple[int, ...]) -> Expr:
        """The variable ``name[index]`` of this trace (a twin's environment variables are its original's)."""
        return self._lookup(name, index)

    def variables(self) -> Iterator[tuple[tuple[str, tuple[int, ...]], Expr]]:
        """Every variable this trace has made so far, as ``((name, index), variable)``."""
        return iter(list(self._vars.items()))

    def mentioned(self, term: Expr) -> set[tuple[str, tuple[int, ...]]]:
        """The variables of this trace that ``term`` mentions, as ``(name, index)``."""
        if len(self._by_label) != len(self._vars):
            self._by_label = {var.decl().name(): key for key, var in self._vars.items()}
        return {self._by_label[s] for s in smt.symbols(term) if s in self._by_label}

    def _make(self, spec: VarSpec, index: tuple[int, ...]) -> Expr:
        label = self._label(spec.name, index)
        if spec.kind == "bool":
            var = self.backend.bool_var(label)
        else:
            var = self.backend.int_var(label)
            self.solver.add(self.backend.range_constraint(var, self.schema.max_value(spec, self.universe) + 1))
        self._vars[(spec.name, index)] = var
        return var

    def _declare_moment(self, t: int | None) -> None:
        for spec in self.schema.specs:
            if spec.per_moment != (t is not None):
                continue
            for idx in self.universe.indices(spec.dims):
                self._lookup(spec.name, ((t,) if t is not None else ()) + idx)

    # --- encoding ---------------------------------------------------------------
    @property
    def depth(self) -> int:
        return len(self.moment_literals)

    def extend(self, moments: int) -> None:
        if not self._constants_done:
            self._declare_moment(None)
            self._constants_done = True
        while self.depth < moments:
            self._encode_moment(self.depth)

    def _encode_moment(self, t: int) -> None:
        self._declare_moment(t)
        alive = self.solver.literal(f"moment[{t}]")
        self.moment_literals.append(alive)
        g = self.g
        room = self.solver.literal(f"room[{t}]") if self._room_apart else None
        if room is not None:
            self.room_literals.append(room)
        bounds: dict[str, Expr] = {}
        for axiom in self.edition.axioms:
            on = g.And(alive, self.axiom_literals[axiom.number]) if self.axiom_literals else alive
            broken = []
            for rule in axiom.rules(g, t):
                guard = g.And(on, room) if room is not None and rule.room in self._room_apart else on
                self.solver.add(g.Implies(guard, g.Implies(rule.applies, rule.requires)))
                if self._keep_bounds and rule.room == MODEL_BOUND:
                    broken.append(g.And(rule.applies, g.Not(rule.requires)))
            if broken:
                bounds[axiom.number] = g.Or(*broken)
        if self._keep_bounds:
            self.model_bounds_broken.append(bounds)
        for enc in self.edition.encodings:
            lit = self.solver.literal(enc.number)
            fires = []
            for rule in enc.rules(g, t):
                self.solver.add(g.Implies(alive, g.Implies(lit, g.Implies(rule.applies, rule.requires))))
                fires.append(rule.fires())
            self.witness[enc.number].append(g.Or(*fires))

    def broken(self, number: str, depth: int) -> Expr:
        """Clause ``number`` is broken at some moment below ``depth``.

        Its rules are built again here rather than kept from encoding: holding on to their terms
        would change what z3 collects and so the order of its search, and with it which of several
        minimal cores a ruling names.
        """
        return self.broken_by(self.g, number, depth)

    def seen_by(self, edition: Edition) -> Game:
        """This symbolic trace as ``edition``'s rules see it, every one of its clauses in force
        (when every clause of this encoding's own edition is: its checks must assume them all).

        ``rule603 diff`` asks whether a game one edition allows breaks a clause of another: the
        other edition's rules are built over this encoding's variables, outside its solver.
        """
        # A clause both editions number alike is named by this solver's own literal, which every check
        # that compares the editions assumes: the same rule then becomes the very term already asserted,
        # and the solver sees at once that no game breaks it.  Any other clause is simply in force.
        own = self.edition.by_number

        def enabled(number: str) -> Expr:
            return self.solver.literal(number) if number in own else True

        g = Game(self.backend, self.schema, self.universe, self._lookup, enabled, 0)
        g.edition = edition
        return g

    def broken_by(self, g: Game, number: str, depth: int) -> Expr:
        """Clause ``number`` of ``g.edition`` is broken at some moment below ``depth`` of this trace."""
        enc = g.edition.by_number[number]
        return g.Or(*[g.And(r.applies, g.Not(r.requires)) for t in range(depth) for r in enc.rules(g, t)])

    # --- checking ---------------------------------------------------------------
    def assumptions(self, depth: int, enabled: Iterable[str]) -> list[Expr]:
        return self.moment_literals[:depth] + [self.solver.literal(n) for n in enabled]

    def check(self, depth: int, enabled: Iterable[str], goal: Expr, label: str) -> str:
        """Is there a trace of ``depth`` moments, obeying ``enabled``, where ``goal`` holds?"""
        self.extend(depth)
        lit = self.solver.fresh_literal(label)
        self.solver.add(self.g.Implies(lit, goal))
        return self.solver.check(self.assumptions(depth, enabled) + [lit])

    def check_with(
        self,
        depth: int,
        enabled: Iterable[str],
        literals: Sequence[Expr],
        timeout_ms: int | None = None,
        rlimit: int | None = None,
    ) -> str:
        return self.solver.check(self.assumptions(depth, enabled) + list(literals), timeout_ms, rlimit)

    def variable_reader(self) -> Callable[[str, tuple[int, ...]], int | bool]:
        """The current model's value of each variable ``name[index]``, the model read once."""
        model = self.solver.model_values()

        def value(name: str, index: tuple[int, ...]) -> int | bool:
            var = self._lookup(name, index)
            if isinstance(var, (bool, int)):  # a value fixed before solving
                return var
            return model.get(self._label(name, index), False if self.schema.spec(name).kind == "bool" else 0)

        return value

    def extract(self, depth: int, value: Callable[[str, tuple[int, ...]], int | bool] | None = None) -> Trace:
        """The current model (as ``value`` reads it, if given) as a concrete trace of ``depth`` moments."""
        value = value or self.variable_reader()
        params: dict[str, Any] = {}
        for spec in self.schema.specs:
            if not spec.per_moment:
                params[spec.name] = _nest(spec, self.universe, lambda idx, s=spec: value(s.name, idx), ())
        states = []
        for t in range(depth):
            state = {}
            for spec in self.schema.specs:
                if spec.per_moment:
                    state[spec.name] = _nest(spec, self.universe, lambda idx, s=spec: value(s.name, idx), (t,))
            states.append(state)
        return Trace(self.edition.name, self.universe, params, tuple(states))

    def _label(self, name: str, index: tuple[int, ...]) -> str:
        """The name of the variable ``name[index]`` in the solver (a twin's environment variables are its
        original's)."""
        if self._twin_of is not None and self.schema.spec(name).role == ENV:
            return self._twin_of._label(name, index)
        return f"{self._prefix}{name}[{','.join(map(str, index))}]"


def _nest(spec: VarSpec, universe: Universe, read, prefix: tuple[int, ...]) -> Any:
    def build(dims: tuple[str, ...], idx: tuple[int, ...]) -> Any:
        if not dims:
            v = read(prefix + idx)
            return bool(v) if spec.kind == "bool" else int(v)
        return [build(dims[1:], idx + (i,)) for i in range(universe.size(dims[0]))]

    return build(spec.dims, ())


def fixed_by(schema: Schema, script: Trace, also_fixed: Sequence[Any] = ()) -> dict[tuple[str, tuple[int, ...]], Any]:
    """The values ``script`` fixes (its environment and the rule variables named in ``also_fixed``), keyed as an
    encoding's variables are: ``Encoding(fixed=...)``."""
    names = {f for f in also_fixed if isinstance(f, str)}
    table = script.flat_values()
    kinds = {s.name: s.kind for s in schema.specs if s.role == ENV or s.name in names}
    open_ = left_open(script)
    return {
        key: bool(value) if kinds[key[0]] == "bool" else int(value)
        for key, value in table.items()
        if key[0] in kinds and key not in open_
    }


#: The variables of a card at a moment that a played script can leave to the rules (``left_open``).
LEFT_OPEN_NAMES = ("zone", "since", "controller", "tapped")


def left_open(script: Trace) -> frozenset[tuple[str, tuple[int, ...]]]:
    """The values ``script`` leaves to the rules though it states them: a card's zone, object, controller and tapped
    status where an effect it played moved what it found (``#meta`` ``left_to_rules``, ``[moment, card]`` pairs), the
    rules saying whether it did, but the zone where the script's next event naming the card says it
    (``zone_kept_by_script``); its object alone where it stays put after (``object_left_to_rules``)."""
    cells = script.meta.get("left_to_rules", ())
    kept = script.meta.get("object_left_to_rules", ())
    zones = {("zone", (t, c)) for t, c in script.meta.get("zone_kept_by_script", ())}
    opened = [(name, (t, c)) for t, c in cells for name in LEFT_OPEN_NAMES] + [("since", (t, c)) for t, c in kept]
    return frozenset(opened) - zones


def scenario_equalities(enc: Encoding, script: Trace, also_fixed: Sequence[Any] = ()) -> Iterator[Expr]:
    """``enc``'s trace plays ``script``'s scenario: one equality at a time, for each environment value
    (what players and effects do), each rule variable named in ``also_fixed`` and each term of the
    functions in it (``fn(g, t)`` -> terms), against their values in ``script``."""
    g = enc.g
    names = {f for f in also_fixed if isinstance(f, str)}
    open_ = left_open(script)
    for spec in enc.schema.specs:
        if spec.role != ENV and spec.name not in names:
            continue
        for idx in script.universe.indices(spec.dims):
            keys = [(t, *idx) for t in range(script.length)] if spec.per_moment else [idx]
            for key in keys:
                if (spec.name, key) not in open_:
                    yield g.var(spec.name, *key) == script.value(spec.name, key, spec.per_moment)
    for t, c in script.meta.get("left_to_rules", ()):
        yield from enc.edition.model.left_to_the_rules(g, t, c)
    for t, c in script.meta.get("object_left_to_rules", ()):
        yield from enc.edition.model.stays_put(g, t, c)
    played = concrete_game(enc.edition, script, [])
    for terms in (f for f in also_fixed if not isinstance(f, str)):
        for t in range(script.length):
            for term, value in zip(terms(g, t), terms(played, t), strict=True):
                yield term == value


# --- concrete evaluation: the same definitions on a recorded trace ----------------


def concrete_game(edition: Edition, trace: Trace, enabled: Iterable[str], names: Names = MODEL_LABELS) -> Game:
    schema = Schema(tuple(edition.model.VARIABLES))
    on = frozenset(enabled)
    table = trace.flat_values()

    def lookup(name: str, index: tuple[int, ...]) -> Any:
        try:
            return table[name, index]
        except (KeyError, TypeError):
            # Not a value of the trace: let the schema say precisely what is wrong.
            schema.check_index(name, index, trace.universe, trace.length)
            raise

    g = Game(CONCRETE, schema, trace.universe, lookup, lambda n: n in on, trace.length)
    g.edition = edition
    g.names = names
    return g


def violations(
    edition: Edition, trace: Trace, enabled: Iterable[str], *, first_only: bool = False, include_axioms: bool = True
) -> list[Violation]:
    """Every (moment, clause) whose rule instance the trace breaks, in moment order."""
    enabled = list(enabled)
    g = concrete_game(edition, trace, enabled)
    # Rule 603's clauses first: at a moment where an engine breaks both a clause and a rule of
    # the game model, the clause is the finding that names the bug.
    families: list[ClauseEncoding] = [edition.by_number[n] for n in enabled] + (
        list(edition.axioms) if include_axioms else []
    )
    found: list[Violation] = []
    for t in range(trace.length):
        for fam in families:
            for rule in fam.rules(g, t):
                if rule.applies and not rule.requires:
                    found.append(Violation(t, fam.number, rule.about))
                    if first_only:
                        return found
    return found


def claim_fails_at(
    edition: Edition, trace: Trace, prop: Property, enabled: Iterable[str], seconds: float = usercode.CLAIM_SECONDS
) -> list[int]:
    g = concrete_game(edition, trace, enabled)
    return [t for t in range(trace.length) if not claim_at(prop, g, t, is_concrete_boolean, seconds)]


def claim_at(prop: Property, g, t: int, is_boolean: Callable[[object], bool], seconds: float = usercode.CLAIM_SECONDS):
    """``prop``'s claim at moment ``t``; a claim that raises, runs longer than ``seconds`` or is not a boolean
    is a definition error."""
    try:
        with usercode.time_limit(seconds, f"property {prop.id} ({prop.source}): its claim at moment {t}"):
            value = prop.claim(g, t)
    except usercode.OverTime:
        raise InvalidDefinition(
            f"property {prop.id} ({prop.source}): its claim ran for more than {seconds:g} s at moment {t} "
            "(the limit for one claim, --claim-timeout). Hint: a claim builds one formula per moment; "
            "it must not wait or loop."
        ) from None
    except Rule603Error as e:
        raise InvalidDefinition(f"property {prop.id} ({prop.source}): {e}") from e
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # the user's code may raise anything, even SystemExit(0): their definition's problem
        # The usual mistake, Python's and/or/not/if on a symbolic value, raises an Exception.
        hint = " Hint: use g.And/g.Or/g.Not/g.If on trace values, never Python and/or/not/if."
        hint = hint if isinstance(e, Exception) else ""
        raise InvalidDefinition(
            f"property {prop.id} ({prop.source}): its claim raised {type(e).__name__}: "
            f"{usercode.exception_text(e)} at moment {t}.{hint}"
        ) from e
    if not is_boolean(value):
        raise InvalidDefinition(
            f"property {prop.id} ({prop.source}): its claim must be a boolean (e.g. g.And(...), x == y) but "
            f"returned {type(value).__name__} at moment {t}."
        )
    return value


def is_concrete_boolean(value: object) -> bool:
    """What a claim must return on a concrete trace."""
    return isinstance(value, bool)
