"""Variables of a trace: their names, domains, and who decides their values.

A model declares its variables once as :class:`VarSpec` s.  The same declaration
creates z3 variables for bounded model checking, reads values out of a JSON trace
for concrete checking, and renders values for people (enum codes as names).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from ..errors import InvalidArgument, InvalidDefinition
from .expr import Backend, Expr

#: Who decides a variable's value.  Environment variables are what players and
#: effects do; rule variables are what the rules then force.
ENV = "environment"
RULE = "rule"
ROLES = (ENV, RULE)


@dataclass(frozen=True)
class Names:
    """What a scenario calls its cards, players and delayed abilities, by index.  Every output a person reads names
    things so; where there is no name (a counterexample, an engine's trace), the model's labels ``c0``, ``P0``,
    ``d0`` stand in."""

    cards: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    delayed: tuple[str, ...] = ()

    def card(self, c: int) -> str:
        return self.cards[c] if 0 <= c < len(self.cards) else f"c{c}"

    def player(self, p: int) -> str:
        return self.players[p] if 0 <= p < len(self.players) else f"P{p}"

    def delayed_ability(self, d: int) -> str:
        return self.delayed[d] if 0 <= d < len(self.delayed) else f"d{d}"

    def named_card(self, c: int) -> bool:
        return 0 <= c < len(self.cards)

    def about(self, text: str) -> str:
        """A rule instance's ``about`` ("card 2", "delayed 0, card 1") with each named member by its name."""
        lists = {"card": self.cards, "player": self.players, "delayed": self.delayed}

        def name(match: re.Match[str]) -> str:
            listed, i = lists[match.group(1)], int(match.group(2))
            return listed[i] if i < len(listed) else match.group(0)

        return _ABOUT.sub(name, text)


#: How clause encodings name the objects of a rule instance (``Rule.about``).
_ABOUT = re.compile(r"\b(card|player|delayed) (\d+)\b")


#: No names: the model's own labels.
MODEL_LABELS = Names()


@dataclass(frozen=True)
class VarSpec:
    """One variable family, e.g. ``zone`` indexed by moment and card."""

    name: str
    dims: tuple[str, ...] = ()  # index domains, e.g. ("card",)
    kind: str = "bool"  # "bool", "int" or "enum"
    values: tuple[str, ...] = ()  # names of the codes, for kind == "enum"
    max: int = 1  # largest value, for kind == "int"; a dimension name is allowed via max_dim
    max_dim: str = ""  # the value ranges over this domain (0 .. size-1), e.g. a player
    per_moment: bool = True
    role: str = ENV
    doc: str = ""
    # A constant, or a per-moment environment variable, added to a trace version after its first release: its value
    # (in every entry, at every moment) in a document that doesn't have it (in any state), which is what every
    # document written before it meant.  None: the document must have it.
    absent_means: bool | int | str | None = None
    #: A per-moment rule variable added within a trace version: a document without it (in every state) gets the
    #: value this definition gives, ``completed_by(g, t, *index)``, moment by moment from the values before (the
    #: very definition the game model's rule holds it to).  None: the document must have it.
    completed_by: Callable[..., Any] | None = None
    #: a value above ``max`` is a game beyond the model's capacity, not a malformed one: what to say when a trace
    #: has one (e.g. "the model's capacity: 6 instances of one ability in one batch")
    beyond: str = ""
    #: A constant a card's printed text decides: a document that gives the cards' texts (``#meta.oracle``) may leave
    #: it out, and what it gives must agree with them.
    printed: bool = False

    def codes(self) -> dict[str, int]:
        """Enum name to code."""
        return {name: i for i, name in enumerate(self.values)}

    def __post_init__(self) -> None:
        if self.kind not in ("bool", "int", "enum"):
            raise InvalidDefinition(f"VarSpec {self.name!r}: kind={self.kind!r} is not bool, int or enum.")
        if self.role not in ROLES:
            raise InvalidDefinition(f"VarSpec {self.name!r}: role={self.role!r} is not one of {ROLES}.")
        if self.kind == "enum" and not self.values:
            raise InvalidDefinition(f"VarSpec {self.name!r}: an enum needs values=(...).")
        if self.absent_means is not None and self.per_moment and self.role != ENV:
            raise InvalidDefinition(
                f"VarSpec {self.name!r}: only a constant or an environment variable may be absent from a document "
                "(a rule variable added within a version is completed_by its definition)."
            )
        if self.completed_by is not None and not (self.per_moment and self.role == RULE):
            raise InvalidDefinition(
                f"VarSpec {self.name!r}: only a per-moment rule variable is completed by a definition."
            )


@dataclass(frozen=True)
class Universe:
    """The finite sizes a trace is bounded by (players, cards, stack slots, ...)."""

    sizes: Mapping[str, int]

    def size(self, dim: str) -> int:
        try:
            return self.sizes[dim]
        except KeyError:
            raise InvalidArgument(f"Unknown domain {dim!r}; known: {sorted(self.sizes)}") from None

    def indices(self, dims: Sequence[str]) -> Iterator[tuple[int, ...]]:
        return product(*(range(self.size(d)) for d in dims))


@dataclass(frozen=True)
class Schema:
    specs: tuple[VarSpec, ...]
    by_name: Mapping[str, VarSpec] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        names: dict[str, VarSpec] = {}
        for spec in self.specs:
            if spec.name in names:
                raise InvalidDefinition(f"Variable {spec.name!r} is declared twice, which is not allowed.")
            names[spec.name] = spec
        object.__setattr__(self, "by_name", names)

    def spec(self, name: str) -> VarSpec:
        try:
            return self.by_name[name]
        except KeyError:
            raise InvalidArgument(f"Unknown trace variable {name!r}.") from None

    def check_index(self, name: str, index: tuple, universe: Universe, moments: int) -> VarSpec:
        """The spec of ``name``, after checking that ``index`` addresses one of its values."""
        spec = self.spec(name)
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in index):
            raise InvalidDefinition(
                f"{name}{list(index)}: indices must be Python ints; to pick a value by a symbolic index, "
                "use the model's select() or card_value()."
            )
        dims = (("moment",) if spec.per_moment else ()) + spec.dims
        if len(index) != len(dims):
            raise InvalidDefinition(f"{name}{list(index)}: expected {len(dims)} index(es) {dims}.")
        for dim, i in zip(dims, index, strict=True):
            size = moments if dim == "moment" else universe.size(dim)
            if not 0 <= i < size:
                raise InvalidDefinition(f"{name}{list(index)}: {dim} index {i} is outside 0..{size - 1}.")
        return spec

    def max_value(self, spec: VarSpec, universe: Universe) -> int:
        if spec.kind == "bool":
            return 1
        if spec.kind == "enum":
            return len(spec.values) - 1
        if spec.max_dim:
            return universe.size(spec.max_dim) - 1
        return spec.max


class Game:
    """What a clause or property sees: the backend's operations and the variables.

    ``g.zone(t, c)`` is the zone of card ``c`` at moment ``t``; constants drop the
    moment (``g.owner(c)``).  ``g.enabled(number)`` is true when a clause takes part
    (a z3 literal symbolically, a plain bool concretely); the precedence relation
    between clauses uses it.
    """

    def __init__(
        self,
        backend: Backend,
        schema: Schema,
        universe: Universe,
        lookup: Callable[[str, tuple[int, ...]], Expr],
        enabled: Callable[[str], Expr],
        moments: int,
    ) -> None:
        self.b = backend
        self.schema = schema
        self.universe = universe
        self.moments = moments
        # How the outputs people read name cards and players (``describe``); set by ``concrete_game``.
        self.names = MODEL_LABELS
        self._lookup = lookup
        self._enabled = enabled
        self._accessors: dict[str, Callable[..., Expr]] = {}
        # The logic operators, re-exported so definitions read g.And(...), g.If(...); bound
        # directly to the backend because concrete checking calls them in its inner loop.
        self.And: Callable[..., Expr] = backend.And
        self.Or: Callable[..., Expr] = backend.Or
        self.Not: Callable[[Expr], Expr] = backend.Not
        self.Implies: Callable[[Expr, Expr], Expr] = backend.Implies
        self.If: Callable[[Expr, Expr, Expr], Expr] = backend.If

    def known_false(self, x: Expr) -> bool:
        """True when ``x`` is false before any solving (always, for a false concrete value).

        A definition may skip building a rule whose ``applies`` is known false: such a rule
        requires nothing.  Concrete checking skips most rules this way.
        """
        return x is False or (not self.b.symbolic and not x)

    def lazy_if(self, c: Expr, then: Callable[[], Expr], otherwise: Callable[[], Expr]) -> Expr:
        """``If(c, then(), otherwise())``, building only the branch taken when ``c`` is concrete."""
        if not self.b.symbolic or isinstance(c, bool):  # (a symbolic game's value may be fixed before solving)
            return then() if c else otherwise()
        return self.b.If(c, then(), otherwise())

    def count(self, xs: Any) -> Expr:
        return self.b.count(list(xs))

    def Sum(self, xs: Any) -> Expr:  # noqa: N802
        return self.b.Sum(list(xs))

    def size(self, dim: str) -> int:
        return self.universe.size(dim)

    def range(self, dim: str) -> range:
        return range(self.universe.size(dim))

    def enabled(self, number: str) -> Expr:
        return self._enabled(number)

    def var(self, name: str, *index: int) -> Expr:
        return self._lookup(name, tuple(index))

    def earlier(self, when: Expr, now: int, name: str, *index: int, default: Expr = 0) -> Expr:
        """The per-moment variable ``name`` at the moment ``when`` (a value of the trace, such as an instance's
        label), one of the moments before ``now``; ``default`` when ``when`` is not one of them.

        The definition stays the same at every moment (no loop over the earlier ones), so compiled checking
        keeps one piece of code for all of them."""
        return self.b.at_moment(when, now, lambda u: self._lookup(name, (u, *index)), default)

    def __getattr__(self, name: str) -> Callable[..., Expr]:
        if name.startswith("_"):
            raise AttributeError(name)
        accessors = self.__dict__.get("_accessors")
        if accessors is None:
            raise AttributeError(name)
        if name not in accessors:
            if name not in self.schema.by_name:
                raise InvalidDefinition(f"The trace has no variable {name!r}; see VARIABLES in the game model.")
            lookup = self._lookup
            accessors[name] = lambda *index: lookup(name, index)
        # Cached on the instance: later reads skip __getattr__ (checking traces is hot).
        self.__dict__[name] = accessors[name]
        return accessors[name]
