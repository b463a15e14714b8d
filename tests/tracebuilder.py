"""A small builder for hand-written concrete traces of the rule 603 game model.

``TraceBuilder(moments=2, **sizes)`` starts from an idle game and lets a test say
only what differs from it::

    b = TraceBuilder(moments=2)
    b.const("kind", "dealt_damage", 0).const("creature_card", True, 0)
    b.move(0, 0, "battlefield")          # card 0 is on the battlefield from moment 0 on
    b.at(1, "damage", True, 0)           # moment 1 only
    b.from_(1, "look_back", True, 0)     # moments 1..end
    trace = b.build()

The idle game: every card in its owner's library (owner and controller 0), untapped,
not revealed, unattached (``attached_to`` = number of cards), with no triggered
ability (kind ``"none"``); turn 1, player 0 active, the main step, priority at every
moment, an empty stack; ``since`` 0 everywhere; ``eff_creature`` equal to
``creature_card`` and ``eff_ability`` true; every other flag false, every count 0,
every enum its first value (``d_kind`` ``"none"``, ``d_cause`` ``"spell"``, ``leave``
``"none"``, zones ``"library"``).  The idle game is not meant to satisfy every axiom
in every variation: tests that need an axiom-clean trace say so and check it.

Values are given as Python bools and ints, or for enums by name (``"battlefield"``,
``"creature_dies"``) or by code.  Per-moment settings are replayed in call order on
top of the defaults when :meth:`build` runs, so constants (e.g. ``creature_card``,
which the ``eff_creature`` default follows) may be set in any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rule603._internal.trace import Trace
from rule603.models import game

_SPECS = {spec.name: spec for spec in game.VARIABLES}


class TraceBuilder:
    """Builds a :class:`Trace` of the ``current`` edition over ``game.universe(**sizes)``."""

    def __init__(self, moments: int = 2, **sizes: int) -> None:
        if moments < 1:
            raise ValueError("a trace has at least one moment")
        self.moments = moments
        self.universe = game.universe(**sizes)
        self._params: dict[str, Any] = {
            spec.name: self._nested(spec.dims, lambda _idx, s=spec: self._default_const(s))
            for spec in game.VARIABLES
            if not spec.per_moment
        }
        self._ops: list[tuple[int, int, str, Any, tuple[int, ...]]] = []  # (first, last, name, code, index)

    # --- sizes and codes ---------------------------------------------------------
    def size(self, dim: str) -> int:
        return self.universe.size(dim)

    def delayed(self, d: int) -> int:
        """Ability index of delayed triggered ability ``d``."""
        return self.size("card") + d

    def reflexive(self, r: int) -> int:
        """Ability index of reflexive triggered ability ``r``."""
        return self.size("card") + self.size("delayed") + r

    @staticmethod
    def ability(a: int) -> int:
        """Stack slot code of an instance of ability ``a`` (a printed ability of card c is ability c)."""
        return 1 + a

    def spell(self, c: int) -> int:
        """Stack slot code of card ``c`` as a spell."""
        return 1 + self.size("ability") + c

    # --- setting values ----------------------------------------------------------
    def const(self, name: str, value: Any, *index: int) -> TraceBuilder:
        """Set constant ``name[index]`` (e.g. ``const("kind", "creature_dies", 0)``)."""
        spec = self._spec(name, per_moment=False)
        code = self._code(spec, value)
        self._check_index(spec, index)
        if not index:
            self._params[name] = code
        else:
            target = self._params[name]
            for i in index[:-1]:
                target = target[i]
            target[index[-1]] = code
        return self

    def at(self, t: int, name: str, value: Any, *index: int) -> TraceBuilder:
        """Set per-moment ``name[index]`` at moment ``t`` only."""
        return self._set(t, t, name, value, index)

    def from_(self, t: int, name: str, value: Any, *index: int) -> TraceBuilder:
        """Set per-moment ``name[index]`` at moments ``t`` .. the last one."""
        return self._set(t, self.moments - 1, name, value, index)

    # --- helpers for common events ----------------------------------------------
    def move(self, t: int, card: int, zone: str | int) -> TraceBuilder:
        """Card ``card`` is in ``zone`` from moment ``t`` on, a new object since ``t`` (400.7)."""
        self.from_(t, "zone", zone, card)
        return self.from_(t, "since", t, card)

    def stack(
        self,
        t: int,
        *codes: int,
        controller: int | Sequence[int] = 0,
        moment: int | Sequence[int] = 0,
        zone: str | int | Sequence[str | int] = "library",
        obj: int | Sequence[int] = 0,
    ) -> TraceBuilder:
        """The stack at moment ``t`` holds ``codes``, bottom first (see :meth:`ability`, :meth:`spell`).

        ``controller``, ``moment``, ``zone`` and ``obj`` give ``slot_controller``, ``slot_moment``,
        ``slot_zone`` and ``slot_object``: one value for every object, or one per object.  Slots above are
        emptied.
        """
        if len(codes) > self.size("slot"):
            raise ValueError(f"{len(codes)} objects do not fit in {self.size('slot')} stack slots")

        def per_slot(value: Any) -> list[Any]:
            if isinstance(value, (list, tuple)):
                if len(value) != len(codes):
                    raise ValueError(f"expected one value per stack object, got {value!r}")
                return list(value)
            return [value] * len(codes)

        filled = list(zip(codes, per_slot(controller), per_slot(moment), per_slot(zone), per_slot(obj), strict=True))
        self.at(t, "stack_size", len(codes))
        for s in range(self.size("slot")):
            src, ctrl, when, where, what = filled[s] if s < len(filled) else (0, 0, 0, 0, 0)
            self.at(t, "slot_src", src, s)
            self.at(t, "slot_controller", ctrl, s)
            self.at(t, "slot_moment", when, s)
            self.at(t, "slot_zone", where, s)
            self.at(t, "slot_object", what, s)
        return self

    def resolves(self, t: int, code: int, controller: int = 0) -> TraceBuilder:
        """The object ``code`` is alone on the stack at ``t - 1`` and resolves during batch ``t``."""
        if t < 1:
            raise ValueError("nothing resolves before moment 1")
        self.stack(t - 1, code, controller=controller)
        return self.at(t, "leave", "resolve")

    # --- the result ----------------------------------------------------------------
    def build(self) -> Trace:
        params = {name: _copy(value) for name, value in self._params.items()}
        states = []
        for _ in range(self.moments):
            state = {}
            for spec in game.VARIABLES:
                if spec.per_moment:
                    state[spec.name] = self._nested(spec.dims, lambda idx, s=spec: self._default_var(s, idx, params))
            states.append(state)
        for first, last, name, code, index in self._ops:
            for t in range(first, last + 1):
                if not index:
                    states[t][name] = code
                    continue
                target = states[t][name]
                for i in index[:-1]:
                    target = target[i]
                target[index[-1]] = code
        # What waiting instances remember (model.pending) follows from the triggers, unless a case says otherwise.
        said = {name for _, _, name, _, _ in self._ops}
        if not said & {"waiting_since", "waiting_controller", "waiting_zone", "waiting_object"}:
            auras = [k == game.ENCHANTED_LEAVES for k in params["kind"]]
            cards, printed = self.universe.size("card"), self.universe.size("printed")
            game.waiting_bookkeeping(states, cards, enchanted_leaves=auras, n_printed=printed)
        return Trace("current", self.universe, params, tuple(states), {})

    # --- internals -----------------------------------------------------------------
    def _set(self, first: int, last: int, name: str, value: Any, index: tuple[int, ...]) -> TraceBuilder:
        spec = self._spec(name, per_moment=True)
        if not 0 <= first < self.moments:
            raise ValueError(f"moment {first} is outside 0..{self.moments - 1}")
        self._check_index(spec, index)
        self._ops.append((first, last, name, self._code(spec, value), tuple(index)))
        return self

    @staticmethod
    def _spec(name: str, *, per_moment: bool):
        spec = _SPECS.get(name)
        if spec is None:
            raise KeyError(f"the trace has no variable {name!r}")
        if spec.per_moment != per_moment:
            how = "per moment: use at() or from_()" if spec.per_moment else "a constant: use const()"
            raise ValueError(f"{name!r} is {how}")
        return spec

    def _check_index(self, spec, index: tuple[int, ...]) -> None:
        if len(index) != len(spec.dims):
            raise ValueError(f"{spec.name} takes {len(spec.dims)} index(es) {spec.dims}, got {index!r}")
        for dim, i in zip(spec.dims, index, strict=True):
            if not 0 <= i < self.size(dim):
                raise ValueError(f"{spec.name}: {dim} index {i} is outside 0..{self.size(dim) - 1}")

    def _code(self, spec, value: Any) -> Any:
        if spec.kind == "bool":
            if not isinstance(value, bool):
                raise TypeError(f"{spec.name} is a boolean, got {value!r}")
            return value
        if spec.kind == "enum":
            code = spec.values.index(value) if isinstance(value, str) else value
            top = len(spec.values) - 1
        else:
            code = value
            top = self.size(spec.max_dim) - 1 if spec.max_dim else spec.max
        if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code <= top:
            raise ValueError(f"{spec.name}: {value!r} is not a value in 0..{top}")
        return code

    def _nested(self, dims: tuple[str, ...], fill, idx: tuple[int, ...] = ()) -> Any:
        if not dims:
            return fill(idx)
        return [self._nested(dims[1:], fill, idx + (i,)) for i in range(self.size(dims[0]))]

    @staticmethod
    def _default_const(spec) -> Any:
        if spec.kind == "bool" and spec.absent_means is True:  # what a document without it means ("names none")
            return True
        return False if spec.kind == "bool" else 0

    def _default_var(self, spec, idx: tuple[int, ...], params: dict[str, Any]) -> Any:
        name = spec.name
        if name == "eff_creature":
            return params["creature_card"][idx[0]]
        if name in ("eff_ability", "priority"):
            return True
        if name == "instances":
            return 1
        if name == "attached_to":
            return self.size("card")
        if name == "turn":
            return 1
        if name == "step":
            return game.MAIN
        return False if spec.kind == "bool" else 0


def _copy(value: Any) -> Any:
    return [_copy(v) for v in value] if isinstance(value, list) else value
