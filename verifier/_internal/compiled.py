"""Fast concrete checking: the clause definitions compiled to straight-line Python.

Checking an engine's traces evaluates every clause instance at every moment.  Run
through the concrete backend, that is hundreds of thousands of small Python calls per
trace.  Here the *same* definitions are instead run once per moment against a third
backend that records an expression graph (hash-consed, so shared subterms are computed
once, and constant-folded, so disabled clauses and impossible cases disappear).  The
graph is emitted as one Python function per moment that reads the trace's values from a
flat list.  The function is compiled once per universe, moment and clause selection
and reused for every trace of that shape.

The interpreted path (:func:`bmc.violations`) stays the reference semantics; the tests
check that both report the same violations on every trace they see.
"""

from __future__ import annotations

import marshal
import time
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from .checkcache import CheckStore
from .expr import Backend, Expr, _flat
from .registry import ClauseEncoding, Edition
from .schema import Game, Schema, Universe, VarSpec
from .trace import Trace


class _Node:
    """A recorded operation; ``kind`` is ``"bool"`` or ``"int"``."""

    __slots__ = ("id", "op", "args", "kind", "rec")

    def __init__(self, rec: _Recorder, op: str, args: tuple, kind: str) -> None:
        self.rec, self.op, self.args, self.kind = rec, op, args, kind
        self.id = -1

    # Python operators record nodes, exactly as z3 terms overload them.
    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        return self.rec.compare("==", self, other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        return self.rec.compare("!=", self, other)

    def __lt__(self, other: Any) -> Any:
        return self.rec.compare("<", self, other)

    def __le__(self, other: Any) -> Any:
        return self.rec.compare("<=", self, other)

    def __gt__(self, other: Any) -> Any:
        return self.rec.compare(">", self, other)

    def __ge__(self, other: Any) -> Any:
        return self.rec.compare(">=", self, other)

    def __add__(self, other: Any) -> Any:
        return self.rec.arith("+", self, other)

    def __radd__(self, other: Any) -> Any:
        return self.rec.arith("+", other, self)

    def __sub__(self, other: Any) -> Any:
        return self.rec.arith("-", self, other)

    def __rsub__(self, other: Any) -> Any:
        return self.rec.arith("-", other, self)

    def __mul__(self, other: Any) -> Any:
        return self.rec.arith("*", self, other)

    def __rmul__(self, other: Any) -> Any:
        return self.rec.arith("*", other, self)

    def __bool__(self) -> bool:
        raise TypeError("a trace value was used in Python 'if'/'and'/'or'; use g.If/g.And/g.Or")

    __hash__ = None  # type: ignore[assignment]


class _NotGeneric(Exception):
    """A definition used the moment in a way generic code cannot follow (compile per moment instead)."""


class _Moment(int):
    """The moment being checked, in code compiled once for every moment from 1 on: ``T + delta``.

    Wherever it reaches a trace value it stays symbolic (the runtime argument ``T``).  A
    Python-level decision on it (``if t == 0``) is allowed only when it comes out the same
    for every ``T >= 1``; anything else (``t >= 3``, ``range(t)``, indexing by it,
    arithmetic beyond adding a constant) raises :class:`_NotGeneric`, and that edition is
    then compiled moment by moment instead.
    """

    delta: int

    def __new__(cls, value: int, delta: int) -> _Moment:
        obj = int.__new__(cls, value)
        obj.delta = delta
        return obj

    def __add__(self, k: Any) -> Any:
        if type(k) is int:
            return _Moment(int.__add__(self, k), self.delta + k)
        if isinstance(k, int):
            raise _NotGeneric(f"moment + {k!r}")
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, k: Any) -> Any:
        if type(k) is int:
            return _Moment(int.__sub__(self, k), self.delta - k)
        if isinstance(k, int):
            raise _NotGeneric(f"moment - {k!r}")
        return NotImplemented

    def _decide(self, op: str, k: Any) -> Any:
        if isinstance(k, _Moment):  # both move with T: the difference is constant
            return _FOLD[op](self.delta, k.delta)
        if type(k) is not int:
            return NotImplemented
        low = 1 + self.delta  # the smallest value T + delta takes in generic code
        if op in ("==", "!="):
            if k >= low:
                raise _NotGeneric(f"moment {op} {k}")
            return op == "!="
        at_low, far = _FOLD[op](low, k), _FOLD[op](low + 10_000, k)
        if at_low != far:  # monotone in T: the same at both ends means the same everywhere
            raise _NotGeneric(f"moment {op} {k}")
        return at_low

    def __eq__(self, k: object) -> Any:  # type: ignore[override]
        return self._decide("==", k)

    def __ne__(self, k: object) -> Any:  # type: ignore[override]
        return self._decide("!=", k)

    def __lt__(self, k: Any) -> Any:
        return self._decide("<", k)

    def __le__(self, k: Any) -> Any:
        return self._decide("<=", k)

    def __gt__(self, k: Any) -> Any:
        return self._decide(">", k)

    def __ge__(self, k: Any) -> Any:
        return self._decide(">=", k)

    def __hash__(self) -> int:
        return hash(("moment", self.delta))

    def _refuse(self, *_: Any) -> Any:
        raise _NotGeneric("the moment used as a number (index, range, arithmetic beyond +/- a constant)")

    __rsub__ = __mul__ = __rmul__ = __floordiv__ = __mod__ = __neg__ = __truediv__ = _refuse
    __index__ = __int__ = __abs__ = __float__ = _refuse


def _key(x: Any) -> Any:
    if isinstance(x, _Node):
        return x.id
    if isinstance(x, _Moment):
        return ("moment", x.delta)
    return (type(x).__name__, x)  # True and 1 are different constants here


_FOLD = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}


class _Recorder(Backend):
    """The backend that builds the graph; every node is created once (hash-consing)."""

    symbolic = True

    def __init__(self) -> None:
        self.nodes: list[_Node] = []
        self._memo: dict[Any, _Node] = {}

    def node(self, op: str, args: tuple, kind: str) -> _Node:
        key = (op, tuple(_key(a) for a in args))
        found = self._memo.get(key)
        if found is None:
            found = _Node(self, op, args, kind)
            found.id = len(self.nodes)
            self.nodes.append(found)
            self._memo[key] = found
        return found

    def var(self, slot: tuple, kind: str) -> _Node:
        return self.node("var", (slot,), kind)

    def at_moment(self, when: Any, now: Any, value: Any, default: Any) -> Any:
        if not isinstance(when, _Node) and not isinstance(now, _Moment):
            return value(when) if 0 <= when < now else default
        if isinstance(now, int) and not isinstance(now, _Moment) and now <= 0:
            return default
        # The value at one moment before ``now`` says where the variable sits in a moment's block; the code
        # steps from there to moment ``when`` (checked to lie in 0..now-1 as it runs).
        ref = value(now - 1)
        if not isinstance(ref, _Node) or ref.op != "var":
            raise _NotGeneric("at_moment of something other than a variable")
        return self.node("at", (when, now, ref.args[0], default), ref.kind)

    def compare(self, op: str, a: Any, b: Any) -> Any:
        if not isinstance(a, _Node) and not isinstance(b, _Node):
            return _FOLD[op](a, b)
        return self.node(op, (a, b), "bool")

    def arith(self, op: str, a: Any, b: Any) -> Any:
        if not isinstance(a, _Node) and not isinstance(b, _Node):
            return _FOLD[op](a, b)
        return self.node(op, (a, b), "int")

    def And(self, *xs: Expr) -> Expr:  # noqa: N802
        items = []
        for x in _flat(xs):
            if isinstance(x, _Node):
                items.append(x)
            elif not x:
                return False
        if not items:
            return True
        return items[0] if len(items) == 1 and items[0].kind == "bool" else self.node("and", tuple(items), "bool")

    def Or(self, *xs: Expr) -> Expr:  # noqa: N802
        items = []
        for x in _flat(xs):
            if isinstance(x, _Node):
                items.append(x)
            elif x:
                return True
        if not items:
            return False
        return items[0] if len(items) == 1 and items[0].kind == "bool" else self.node("or", tuple(items), "bool")

    def Not(self, x: Expr) -> Expr:  # noqa: N802
        if not isinstance(x, _Node):
            return not x
        return self.node("not", (x,), "bool")

    def If(self, c: Expr, x: Expr, y: Expr) -> Expr:  # noqa: N802
        if not isinstance(c, _Node):
            return x if c else y
        kind = "bool" if all(_kind(v) == "bool" for v in (x, y)) else "int"
        return self.node("if", (c, x, y), kind)

    def count(self, xs: Iterable[Expr]) -> Expr:
        return self.Sum([self.If(x, 1, 0) for x in xs])

    def Sum(self, xs: Iterable[Expr]) -> Expr:  # noqa: N802
        total: Any = 0
        terms = []
        for x in xs:
            if isinstance(x, _Node):
                terms.append(x)
            else:
                total += int(x)
        if not terms:
            return total
        if total:
            terms.append(total)
        return terms[0] if len(terms) == 1 and terms[0].kind == "int" else self.node("sum", tuple(terms), "int")


def _kind(x: Any) -> str:
    if isinstance(x, _Node):
        return x.kind
    return "bool" if isinstance(x, bool) else "int"


# --- layout of a trace's values in one flat list ---------------------------------------


@dataclass(frozen=True)
class _Layout:
    """Where each value of a trace of this universe sits in the flat list."""

    constants: dict[tuple[str, tuple[int, ...]], int]
    per_moment: dict[tuple[str, tuple[int, ...]], int]  # offset within one moment's block
    block: int  # values per moment
    inverse_constants: list[tuple[str, tuple[int, ...]]]  # slot -> (name, index): dicts keep insertion order
    inverse_per_moment: list[tuple[str, tuple[int, ...]]]

    @classmethod
    def of(cls, schema: Schema, universe: Universe) -> _Layout:
        constants: dict[tuple[str, tuple[int, ...]], int] = {}
        per_moment: dict[tuple[str, tuple[int, ...]], int] = {}
        for spec in schema.specs:
            target = per_moment if spec.per_moment else constants
            for idx in universe.indices(spec.dims):
                target[spec.name, idx] = len(target)
        return cls(constants, per_moment, len(per_moment), list(constants), list(per_moment))

    def slot(self, spec: VarSpec, index: tuple[int, ...]) -> tuple:
        """Where a value sits: ``("abs", i)``, or ``("rel", delta, offset)`` in moment ``T + delta``'s block."""
        if not spec.per_moment:
            return ("abs", self.constants[spec.name, index])
        t, *rest = index
        offset = self.per_moment[spec.name, tuple(rest)]
        if isinstance(t, _Moment):
            return ("rel", t.delta, offset)
        return ("abs", len(self.constants) + t * self.block + offset)

    def resolve(self, tag: tuple, moment: int) -> int:
        """The list index of a slot tag when the code runs for ``moment``."""
        if tag[0] == "abs":
            return tag[1]
        return len(self.constants) + (moment + tag[1]) * self.block + tag[2]

    def base(self, moment: int) -> int:
        return len(self.constants) + moment * self.block

    def name_of(self, slot: int) -> tuple[str, tuple[int, ...]]:
        """The ``(name, index)`` at a slot; per-moment indices start with the moment."""
        if slot < len(self.constants):
            return self.inverse_constants[slot]
        t, offset = divmod(slot - len(self.constants), self.block)
        name, index = self.inverse_per_moment[offset]
        return name, (t, *index)

    def flatten(self, trace: Trace, schema: Schema) -> list[Any]:
        values: list[Any] = []
        for spec in schema.specs:
            if not spec.per_moment:
                _append_leaves(values, trace.params[spec.name])
        for state in trace.states:
            for spec in schema.specs:
                if spec.per_moment:
                    _append_leaves(values, state[spec.name])
        return values


def _append_leaves(out: list[Any], value: Any) -> None:
    if not isinstance(value, list):
        out.append(value)
    elif not value or not isinstance(value[0], list):
        out.extend(value)  # one dimension: the common case
    else:
        for v in value:
            _append_leaves(out, v)


# --- code generation -----------------------------------------------------------------


@dataclass(frozen=True)
class _Emitter:
    """Python source for nodes; ``block`` is the number of values per moment.

    A node in ``inline`` is written into the one expression that uses it instead of computed beforehand,
    so that Python's ``and``, ``or`` and ``if`` skip it whenever its value cannot matter: most clause
    instances do not apply at most moments, and what only they would read is then never computed.
    """

    block: int
    inline: frozenset[int] = frozenset()

    def operand(self, x: Any) -> str:
        if isinstance(x, _Node):
            if x.op != "var":
                return f"({self.node(x)})" if x.id in self.inline else f"n{x.id}"
            tag = x.args[0]
            return f"v[{tag[1]}]" if tag[0] == "abs" else f"v[B + {tag[1] * self.block + tag[2]}]"
        if isinstance(x, _Moment):
            return f"(T + {x.delta})"
        return repr(int(x)) if isinstance(x, int) and not isinstance(x, bool) else repr(x)

    def as_bool(self, x: Any) -> str:
        """Python truth of an operand, as a bool (the concrete backend returns bools from And/Or/Not)."""
        text = self.operand(x)
        return text if _kind(x) == "bool" else f"bool({text})"

    def node(self, node: _Node) -> str:
        op, args = node.op, node.args
        if op in _FOLD:
            return f"{self.operand(args[0])} {op} {self.operand(args[1])}"
        if op == "and":
            return "(" + " and ".join(self.as_bool(a) for a in args) + ")"
        if op == "or":
            return "(" + " or ".join(self.as_bool(a) for a in args) + ")"
        if op == "not":
            return f"not {self.operand(args[0])}"
        if op == "if":
            return f"({self.operand(args[1])} if {self.operand(args[0])} else {self.operand(args[2])})"
        if op == "sum":
            return " + ".join(self.operand(a) for a in args)
        if op == "at":
            when, now, tag, default = (self.operand(args[0]), self.operand(args[1]), args[2], self.operand(args[3]))
            # ``tag`` is the value at moment now - 1: step back (now - 1 - when) blocks from it.
            base = f"{tag[1]}" if tag[0] == "abs" else f"B + {tag[1] * self.block + tag[2]}"
            return f"(v[{base} - ({now} - 1 - {when}) * {self.block}] if 0 <= {when} < {now} else {default})"
        raise AssertionError(op)


def _needed(roots: Sequence[Any], known: AbstractSet[int] = frozenset()) -> list[_Node]:
    """The non-variable nodes the roots depend on, in dependency order, short of the ``known`` ones (computed
    already: what they depend on is not followed either)."""
    seen: set[int] = set()
    order: list[_Node] = []
    stack = [(r, False) for r in roots if isinstance(r, _Node)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node.id in seen or node.id in known or node.op == "var":
            continue
        seen.add(node.id)
        stack.append((node, True))
        stack.extend((a, False) for a in node.args if isinstance(a, _Node) and a.id not in seen)
    return order


_INLINE_DEPTH = 40  # nested inlined expressions, well below the parser's limit on nesting


def _used_once(order: Sequence[_Node], roots: Sequence[Any]) -> frozenset[int]:
    """The nodes read by exactly one expression, which can be written into it (at most ``_INLINE_DEPTH`` deep)."""
    uses: dict[int, int] = {}
    read = [a for node in order for a in node.args] + list(roots)
    for a in read:
        if isinstance(a, _Node) and a.op != "var":
            uses[a.id] = uses.get(a.id, 0) + 1
    depth: dict[int, int] = {}
    inline: set[int] = set()
    for node in order:  # children first
        d = 1 + max((depth[a.id] for a in node.args if isinstance(a, _Node) and a.id in inline), default=0)
        depth[node.id] = d
        if uses.get(node.id) == 1 and d < _INLINE_DEPTH:
            inline.add(node.id)
    return frozenset(inline)


@dataclass(frozen=True)
class _Instance:
    family: str
    about: str
    room: str = ""  # ``Rule.room``: a bound of the model, not a rule of the game


@dataclass(frozen=True)
class Broken:
    """A clause instance a trace breaks, with the values it reads (``(name, index)`` keys)."""

    moment: int
    clause: str
    about: str
    reads: tuple[tuple[str, tuple[int, ...]], ...]
    room: str = ""  # the instance is a bound of the model (``Rule.room``): the trace goes past it


@dataclass(frozen=True)
class _Reads:
    """Which trace values each instance reads: the shape of the compiled graph, without its operations.

    Kept apart from the graph so that a check loaded from the cache explains its violations as one just
    compiled does.  ``children[n]``/``slots[n]``: the nodes and the slot tags node ``n`` reads directly;
    ``roots[i]``: the same for instance ``i``'s (applies, requires).
    """

    children: tuple[tuple[int, ...], ...]
    slots: tuple[tuple[tuple, ...], ...]
    roots: tuple[tuple[tuple[int, ...], tuple[tuple, ...]], ...]

    @classmethod
    def of(cls, order: Sequence[_Node], roots: Sequence[tuple[Any, Any]]) -> _Reads:
        position = {node.id: i for i, node in enumerate(order)}

        def split(args: Iterable[Any]) -> tuple[tuple[int, ...], tuple[tuple, ...]]:
            nodes = [a for a in args if isinstance(a, _Node)]
            return (
                tuple(position[a.id] for a in nodes if a.op != "var"),
                tuple(a.args[0] for a in nodes if a.op == "var"),
            )

        shapes = [split(node.args) for node in order]
        return cls(tuple(c for c, _ in shapes), tuple(s for _, s in shapes), tuple(split(pair) for pair in roots))

    def of_instance(self, i: int) -> list[tuple]:
        nodes, tags = self.roots[i]
        found = set(tags)
        seen: set[int] = set()
        stack = list(nodes)
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                found.update(self.slots[n])
                stack.extend(self.children[n])
        return sorted(found)


@dataclass
class _MomentCheck:
    """Compiled checks: ``run(values, T, B)`` gives the indices of the instances broken at moment ``T``.

    ``B`` is where moment ``T``'s values start.  Generic checks serve every moment from
    ``first`` on; the others serve one moment.  ``code`` is what ``run`` was made from (for the cache).
    """

    instances: list[_Instance]
    explain: _Reads | bytes  # bytes: as read from the cache, unpacked when a violation is first explained
    code: Any
    first: int  # the earliest moment this code may run for (it reads moment T + min_delta >= 0)
    run: Any = field(init=False, default=None)

    def __post_init__(self) -> None:
        if self.code is not None:
            namespace: dict[str, Any] = {}
            exec(self.code, namespace)  # noqa: S102 - code generated by _compile_moment
            self.run = namespace["check"]

    def reads(self, i: int) -> list[tuple]:
        """The slot tags instance ``i`` reads."""
        explain = self.explain  # read once: another thread may unpack it meanwhile
        if isinstance(explain, bytes):
            explain = self.explain = _Reads(*marshal.loads(explain))  # noqa: S302 - our own cache
        return explain.of_instance(i)

    def to_bytes(self) -> bytes:
        instances = tuple((x.family, x.about, x.room) for x in self.instances)
        e = self.explain
        explain = e if isinstance(e, bytes) else marshal.dumps((e.children, e.slots, e.roots))
        return marshal.dumps((_FORMAT, self.code, instances, self.first, explain))

    @classmethod
    def from_bytes(cls, data: bytes) -> _MomentCheck:
        form, *rest = marshal.loads(data)  # noqa: S302 - our own cache
        if form != _FORMAT:
            raise ValueError(f"cache entry of format {form!r}")
        code, instances, first, explain = rest
        if not isinstance(explain, bytes):
            raise ValueError("cache entry without its explanation")
        return cls([_Instance(*x) for x in instances], explain, code, first)


_FORMAT = 2  # of a cached check (``_MomentCheck.to_bytes``)


def _compile_moment(rules: list[tuple[_Instance, Any, Any]], block: int) -> _MomentCheck:
    live = [(inst, a, r) for inst, a, r in rules if not (a is False or r is True)]
    roots = [x for _, a, r in live for x in (a, r)]
    order = _needed(roots)
    inline = _used_once(order, roots)
    emit = _Emitter(block, inline)
    lines = ["def check(v, T, B):", "    broken = []"]
    # What the instances' conditions read is computed first; what only a requirement reads, under its condition.
    up_front = {node.id for node in _needed([a for _, a, _ in live])}
    lines += [f"    n{node.id} = {emit.node(node)}" for node in order if node.id in up_front and node.id not in inline]
    for i, (_, applies, requires) in enumerate(live):
        later = [node for node in _needed([requires], up_front) if node.id not in inline]
        if not later:
            lines.append(f"    if {emit.as_bool(applies)} and not {emit.operand(requires)}: broken.append({i})")
            continue
        lines.append(f"    if {emit.as_bool(applies)}:")
        lines += [f"        n{node.id} = {emit.node(node)}" for node in later]
        lines.append(f"        if not {emit.operand(requires)}: broken.append({i})")
    lines.append("    return broken")
    code = compile("\n".join(lines), "<rule603 compiled check>", "exec")
    deltas = [
        a.args[0][1]
        for node in order
        for a in node.args
        if isinstance(a, _Node) and a.op == "var" and a.args[0][0] == "rel"
    ]
    deltas += [
        x.args[0][1]
        for _, a, r in live
        for x in (a, r)
        if isinstance(x, _Node) and x.op == "var" and x.args[0][0] == "rel"
    ]
    first = -min(deltas, default=0)
    explain = _Reads.of(order, [(a, r) for _, a, r in live])
    return _MomentCheck([inst for inst, _, _ in live], explain, code, first)


@dataclass
class CompiledChecker:
    """Checks traces of one edition against a fixed set of clauses (plus the game-model axioms).

    Compiled moment functions are cached per universe and moment, so a batch of traces of
    the same shape pays the compilation once.
    """

    edition: Edition
    enabled: tuple[str, ...]
    include_axioms: bool = True
    store: CheckStore | None = None  # the user's cache across runs; only for an edition as the package ships it
    schema: Schema = field(init=False)
    compile_seconds: float = field(init=False, default=0.0)  # spent getting compiled checks (built or loaded)
    _cache: dict[tuple, Any] = field(init=False, default_factory=dict)  # compiled checks (see _checks_for)
    _layouts: dict[tuple[tuple[str, int], ...], _Layout] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.schema = Schema(tuple(self.edition.model.VARIABLES))

    def families(self) -> list[ClauseEncoding]:
        axioms = list(self.edition.axioms) if self.include_axioms else []
        return [self.edition.by_number[n] for n in self.enabled] + axioms  # as bmc.violations orders them

    def violations(self, trace: Trace, *, first_only: bool = False, first_moment: bool = False) -> list[Broken]:
        """Every broken clause instance, in moment order (as :func:`bmc.violations` orders them).

        ``first_only`` stops at the first one; ``first_moment`` gives every instance broken at the
        first moment that breaks any (several clauses often fail together there, and the most
        telling one need not come first).
        """
        key = tuple(sorted(trace.universe.sizes.items()))
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = _Layout.of(self.schema, trace.universe)
        values = layout.flatten(trace, self.schema)
        rank = {number: i for i, number in enumerate(fam.number for fam in self.families())}
        found: list[Broken] = []
        for t in range(trace.length):
            broken = [
                (check, i)
                for check in self._checks_for(key, trace.universe, layout, t)
                for i in check.run(values, t, layout.base(t))
            ]
            broken.sort(key=lambda hit: rank[hit[0].instances[hit[1]].family])  # stable: each family's own order
            for check, i in broken:
                inst = check.instances[i]
                reads = tuple(layout.name_of(layout.resolve(tag, t)) for tag in check.reads(i))
                found.append(Broken(t, inst.family, inst.about, reads, inst.room))
                if first_only:
                    return found
            if first_moment and found:
                return found
        return found

    def _checks_for(self, key, universe: Universe, layout: _Layout, t: int) -> list[_MomentCheck]:
        """The compiled checks for moment ``t``: the generic one where it applies and, beside it, one of this
        moment's own for the families generic code cannot follow (a loop over the earlier moments, say);
        else one of its own for every family."""
        if t >= 1:
            plan = self._cache.get((key, "generic"))
            if plan is None:
                plan = self._cache[(key, "generic")] = self._stored_plan(key, universe, layout)
            generic, per_moment = plan
            if generic.run is not None and t >= generic.first:
                if not per_moment:
                    return [generic]
                own = self._cache.get((key, "per moment", t))
                if own is None:
                    numbers = ",".join(fam.number for fam in per_moment)
                    own = self._cache[(key, "per moment", t)] = self._stored(
                        f"{key}|moment {t}|{numbers}", lambda: self._build(universe, layout, t, per_moment)
                    )
                return [generic, own]
        check = self._cache.get((key, t))
        if check is None:
            check = self._cache[(key, t)] = self._stored(
                f"{key}|moment {t}", lambda: self._build(universe, layout, t, self.families())
            )
        return [check]

    def _store_key(self, what: str) -> str:
        return f"{self.edition.name}|{','.join(self.enabled)}|axioms={self.include_axioms}|{what}"

    def _stored(
        self,
        what: str,
        build: Callable[[], Any],
        to_bytes: Callable[[Any], bytes] = _MomentCheck.to_bytes,
        from_bytes: Callable[[bytes], Any] = _MomentCheck.from_bytes,
    ) -> Any:
        """What ``build`` gives, from the user's cache (``checkcache``) when it holds it, else built and saved
        there; the time it takes counts as compiling (``compile_seconds``)."""
        started = time.perf_counter()
        try:
            if self.store is not None:
                data = self.store.load(self._store_key(what))
                if data is not None:
                    try:
                        return from_bytes(data)
                    except Exception:  # noqa: BLE001 - a damaged or foreign entry is a miss, rebuilt below
                        pass
            built = build()
            if self.store is not None:
                self.store.save(self._store_key(what), to_bytes(built))
            return built
        finally:
            self.compile_seconds += time.perf_counter() - started

    def _stored_plan(self, key, universe: Universe, layout: _Layout) -> tuple[_MomentCheck, list[ClauseEncoding]]:
        """``_generic``'s answer, through the user's cache: the families it leaves per moment by number."""
        by_number = {fam.number: fam for fam in self.families()}

        def to_bytes(plan: tuple[_MomentCheck, list[ClauseEncoding]]) -> bytes:
            return marshal.dumps((tuple(fam.number for fam in plan[1]), plan[0].to_bytes()))

        def from_bytes(data: bytes) -> tuple[_MomentCheck, list[ClauseEncoding]]:
            numbers, check = marshal.loads(data)  # noqa: S302 - our own cache
            return _MomentCheck.from_bytes(check), [by_number[n] for n in numbers]

        return self._stored(f"{key}|generic", lambda: self._generic(universe, layout), to_bytes, from_bytes)

    def _generic(self, universe: Universe, layout: _Layout) -> tuple[_MomentCheck, list[ClauseEncoding]]:
        """Code compiled once for every moment, for the families that allow it, and the families that don't."""
        families = self.families()
        try:
            return self._build(universe, layout, _Moment(GENERIC_MOMENT, 0), families), []
        except _NotGeneric:
            pass
        per_moment = []
        for fam in families:
            try:
                self._record(universe, layout, _Moment(GENERIC_MOMENT, 0), [fam])
            except _NotGeneric:
                per_moment.append(fam)
        generic = [fam for fam in families if fam not in per_moment]
        if not generic:
            return _MomentCheck([], _Reads((), (), ()), None, -1), per_moment  # every family needs one per moment
        return self._build(universe, layout, _Moment(GENERIC_MOMENT, 0), generic), per_moment

    def _build(self, universe: Universe, layout: _Layout, t: int, families: Sequence[ClauseEncoding]) -> _MomentCheck:
        return _compile_moment(self._record(universe, layout, t, families), layout.block)

    def _record(
        self, universe: Universe, layout: _Layout, t: int, families: Sequence[ClauseEncoding]
    ) -> list[tuple[_Instance, Any, Any]]:
        rec = _Recorder()
        schema = self.schema
        on = frozenset(self.enabled)

        seen: dict[tuple, Any] = {}  # the definitions read the same values over and over

        def lookup(name: str, index: tuple[int, ...]) -> Any:
            # Keyed without the moment objects themselves: comparing one with a plain number decides on it.
            key = (name, *(("moment", i.delta) if isinstance(i, _Moment) else (type(i).__name__, i) for i in index))
            found = seen.get(key)
            if found is None:
                spec = schema.check_index(name, index, universe, t + 1)
                found = seen[key] = rec.var(layout.slot(spec, index), spec.kind if spec.kind == "bool" else "int")
            return found

        g = Game(rec, schema, universe, lookup, lambda n: n in on, t + 1)
        g.edition = self.edition
        return [
            (_Instance(fam.number, rule.about, rule.room), rule.applies, rule.requires)
            for fam in families
            for rule in fam.rules(g, t)
        ]


#: The moment the generic code is recorded at.  Python-level decisions in definitions see
#: this value (so ``t == 0`` is false); anything else about the moment stays symbolic.
GENERIC_MOMENT = 9
