"""The one trace format: counterexamples, engine traces and scenario outcomes.

A trace is written in Apalache's ITF shape: ``#meta`` (with ``format: "ITF"``, the
rule603 format tag, the edition and the universe's sizes), ``vars`` (the names of
the per-moment variables) and ``states`` (one map of variable to value per moment,
each with ``#meta.index``).  Values constant over the trace (the cards' printed text,
the delayed abilities' definitions) are kept apart under ``constants``, since ITF
parameters would have to repeat in every state; ``params`` is therefore empty.
Values are plain JSON: booleans, integers (ITF's ``{"#bigint": "n"}`` is accepted on
reading), enum names as strings, and lists for variables indexed by card, player,
ability or slot.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TraceFormatError
from .documents import DocumentError, parse_json, read_document, shown, write_atomically
from .expr import CONCRETE
from .schema import MODEL_LABELS, Game, Names, Schema, Universe, VarSpec

FORMAT = "rule603-trace/5"
#: Versions ``rule603 migrate`` rewrites in this one (rule603.models.migrations).
OLDER_FORMATS = ("rule603-trace/3", "rule603-trace/4")
#: The game model's reader of ``#meta.oracle``, the cards' printed triggered abilities.
PRINTED_TEXTS = "rule603.models.printed"
_MISSING = object()


@dataclass(frozen=True)
class Trace:
    """Values of every variable at moments ``0..len(states)-1``, as codes (ints/bools)."""

    edition: str
    universe: Universe
    params: Mapping[str, Any]
    states: tuple[Mapping[str, Any], ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def length(self) -> int:
        return len(self.states)

    def value(self, name: str, index: tuple[int, ...], per_moment: bool) -> Any:
        if per_moment:
            t, *rest = index
            value = self.states[t][name]
        else:
            rest = list(index)
            value = self.params[name]
        for i in rest:
            value = value[i]
        return value

    def flat_values(self) -> dict[tuple[str, tuple[int, ...]], Any]:
        """Every value keyed by ``(name, index)``, the moment first for per-moment variables.

        Built once per trace, so that checking a trace reads values with one dict lookup.
        """
        table: dict[tuple[str, tuple[int, ...]], Any] = {}

        def walk(name: str, value: Any, index: tuple[int, ...]) -> None:
            if isinstance(value, list):
                for i, v in enumerate(value):
                    walk(name, v, index + (i,))
            else:
                table[name, index] = value

        for name, value in self.params.items():
            walk(name, value, ())
        for t, state in enumerate(self.states):
            for name, value in state.items():
                walk(name, value, (t,))
        return table


def _encode_value(spec: VarSpec, value: Any) -> Any:
    if isinstance(value, list):
        return [_encode_value(spec, v) for v in value]
    if spec.kind == "enum":
        return spec.values[value]
    if spec.kind == "bool":
        return bool(value)
    return int(value)


def _decode_leaves_fast(spec: VarSpec, values: list, top: int | None) -> list | None:
    """The codes of a list of plain, valid leaves; None if any needs the careful path (which names the problem).

    Checking engine traces reads thousands of such lists per trace.
    """
    if spec.kind == "bool":
        return values if all(type(v) is bool for v in values) else None
    if spec.kind == "enum":
        codes = spec.codes()
        try:
            return [codes[v] for v in values]
        except (KeyError, TypeError):
            return None
    limit = top if top is not None else float("inf")
    return values if all(type(v) is int and 0 <= v <= limit for v in values) else None


def _decode_value(
    spec: VarSpec,
    value: Any,
    universe: Universe,
    dims: tuple[str, ...],
    where: str,
    source: str,
    top: int | None = None,
) -> Any:
    if dims:
        size = universe.size(dims[0])
        if not isinstance(value, list) or len(value) != size:
            raise TraceFormatError(
                source, where, f"expected a list of {size} values (one per {dims[0]}), got {shown(value)}"
            )
        if len(dims) == 1:
            fast = _decode_leaves_fast(spec, value, top)
            if fast is not None:
                return fast
        return [_decode_value(spec, v, universe, dims[1:], f"{where}/{i}", source, top) for i, v in enumerate(value)]
    if spec.kind == "enum":
        if value not in spec.values:
            raise TraceFormatError(source, where, f"expected one of {list(spec.values)}, got {shown(value)}")
        return spec.values.index(value)
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise TraceFormatError(source, where, f"expected true or false, got {shown(value)}")
        return value
    if isinstance(value, dict) and set(value) == {"#bigint"} and isinstance(value["#bigint"], str):
        value = _bigint(value["#bigint"], where, source)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (top is not None and value > top):
        limit = f" at most {top}" if top is not None else ""
        beyond = f" (beyond {spec.beyond}: a game that needs more is not in the model)" if spec.beyond else ""
        raise TraceFormatError(source, where, f"expected a non-negative integer{limit}, got {shown(value)}{beyond}")
    return value


_BIGINT_DIGITS = 100  # far beyond any value of the model, and short enough for int() to convert


def _decode_state(
    state: dict,
    t: int,
    per_moment: list[tuple[VarSpec, int | None]],
    completed: list[VarSpec],
    universe: Universe,
    source: str,
) -> dict[str, Any]:
    """One state's values, each checked, the first problem named by its JSON pointer."""
    decoded = {}
    for spec, top in per_moment:
        value = state.get(spec.name, _MISSING)
        if value is _MISSING:
            if spec in completed:
                continue
            raise TraceFormatError(source, f"/states/{t}/{spec.name}", "missing")
        where = f"/states/{t}/{spec.name}"
        decoded[spec.name] = _decode_value(spec, value, universe, spec.dims, where, source, top)
    return decoded


@functools.lru_cache(maxsize=64)
def _state_reader(
    per_moment: tuple[tuple[VarSpec, int | None], ...], sizes: tuple[tuple[str, int], ...], completed: frozenset[str]
) -> Any:
    """A function reading one state whose every value is plain and valid, as the careful loop of :func:`from_json`
    would; None for anything else (a missing or malformed value, a ``#bigint``), which the careful loop then reads
    and names.  Generated once per universe: checking engine traces reads millions of values."""
    size = dict(sizes)
    lines = ["def read(state):", "  try:", "    out = {}"]
    constants: dict[str, Any] = {"MISSING": _MISSING}
    for n, (spec, top) in enumerate(per_moment):
        if spec.name in completed:
            lines.append(f"    if {spec.name!r} in state: return None")
            continue
        if spec.kind == "enum":
            constants[f"C{n}"] = spec.codes()
        lines.append(f"    x = state.get({spec.name!r}, MISSING)")
        checks, value = _plain(spec, top, n, [size[d] for d in spec.dims], "x")
        if checks:
            lines.append(f"    if not ({' and '.join(checks)}): return None")
        lines.append(f"    out[{spec.name!r}] = {value}")
    lines += ["    return out", "  except (KeyError, TypeError):", "    return None"]
    exec(compile("\n".join(lines), "<rule603 state reader>", "exec"), constants)  # noqa: S102 - generated above
    return constants["read"]


def _plain(spec: VarSpec, top: int | None, n: int, shape: list[int], x: str) -> tuple[list[str], str]:
    """The tests that ``x`` is a plain valid value of this shape, and the expression of its decoded value."""
    if shape:
        checks = [f"type({x}) is list", f"len({x}) == {shape[0]}"]
        parts = [_plain(spec, top, n, shape[1:], f"{x}[{i}]") for i in range(shape[0])]
        checks += [c for part, _ in parts for c in part]
        if spec.kind == "enum" or len(shape) > 1:
            return checks, "[" + ", ".join(value for _, value in parts) + "]"
        return checks, x
    if spec.kind == "enum":
        return [], f"C{n}[{x}]"  # an unknown name or an unhashable value: KeyError or TypeError
    if spec.kind == "bool":
        return [f"type({x}) is bool"], x
    upper = f" <= {top}" if top is not None else ""
    return [f"type({x}) is int", f"0 <= {x}{upper}"], x


def _bigint(digits: str, where: str, source: str) -> int:
    """ITF's ``{"#bigint": "digits"}``; a string of thousands of digits is out of range, not unreadable."""
    if not re.fullmatch(r"-?[0-9]+", digits):
        raise TraceFormatError(source, where, f"#bigint must hold digits, got {shown(digits)}")
    if len(digits) > _BIGINT_DIGITS:
        raise TraceFormatError(source, where, f"expected a non-negative integer, got a #bigint of {len(digits)} digits")
    return int(digits)


def to_json(trace: Trace, schema: Schema, extra_meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    per_moment = [s for s in schema.specs if s.per_moment]
    constants = [s for s in schema.specs if not s.per_moment]
    meta = {
        **dict(trace.meta),
        **dict(extra_meta or {}),
        # The fixed keys come last, so that no extra metadata can replace them.
        "format": "ITF",
        "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
        "rule603": FORMAT,
        "edition": trace.edition,
        "universe": dict(trace.universe.sizes),
    }
    return {
        "#meta": meta,
        "params": [],  # ITF parameters must repeat in every state; rule603 keeps constants apart
        "vars": [s.name for s in per_moment],
        "constants": {s.name: _encode_value(s, trace.params[s.name]) for s in constants},
        "states": [
            {"#meta": {"index": t}, **{s.name: _encode_value(s, state[s.name]) for s in per_moment}}
            for t, state in enumerate(trace.states)
        ],
    }


def _absent(spec: VarSpec, universe: Universe) -> Any:
    """The JSON value of a variable a document doesn't have (``VarSpec.absent_means``), in every entry."""
    value: Any = spec.absent_means
    for dim in reversed(spec.dims):
        value = [value] * universe.size(dim)
    return value


def from_json(data: Any, schema: Schema, source: str = "<trace>") -> Trace:
    """Read a JSON trace; a problem names the JSON pointer where it is."""
    if not isinstance(data, dict):
        raise TraceFormatError(source, "", "a trace is a JSON object with #meta, vars and states")
    meta = data.get("#meta")
    if not isinstance(meta, dict):
        raise TraceFormatError(source, "/#meta", "missing or not an object")
    if meta.get("rule603") != FORMAT:
        hint = ""
        if isinstance(meta.get("rule603"), str) and meta["rule603"] in OLDER_FORMATS:
            hint = " (an older version: 'rule603 migrate FILE --out DIR' rewrites it in this one)"
        raise TraceFormatError(source, "/#meta/rule603", f"expected {FORMAT!r}, got {shown(meta.get('rule603'))}{hint}")
    sizes = meta.get("universe")
    if not isinstance(sizes, dict):
        raise TraceFormatError(source, "/#meta/universe", "expected an object of domain sizes")
    for dim, size in sizes.items():
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise TraceFormatError(
                source, f"/#meta/universe/{dim}", f"expected a non-negative integer, got {shown(size)}"
            )
    needed = sorted({d for spec in schema.specs for d in spec.dims + ((spec.max_dim,) if spec.max_dim else ())})
    for dim in needed:
        if dim not in sizes:
            raise TraceFormatError(source, f"/#meta/universe/{dim}", "missing")
    universe = Universe(dict(sizes))
    constants = data.get("constants", {})
    if not isinstance(constants, dict):
        raise TraceFormatError(source, "/constants", "expected an object")
    if "names" in meta:  # (before the texts, which may name their cards)
        _check_names(meta["names"], universe, source)
    if "oracle" in meta:  # the cards' printed texts decide some constants (models/printed.py)
        printed = importlib.import_module(PRINTED_TEXTS)
        constants = printed.constants_from_text(meta, constants, universe, source)
    params: dict[str, Any] = {}
    for spec in schema.specs:
        if spec.per_moment:
            continue
        if spec.name not in constants and spec.absent_means is None:
            raise TraceFormatError(source, f"/constants/{spec.name}", "missing")
        params[spec.name] = _decode_value(
            spec,
            constants[spec.name] if spec.name in constants else _absent(spec, universe),
            universe,
            spec.dims,
            f"/constants/{spec.name}",
            source,
            schema.max_value(spec, universe) if spec.kind == "int" else None,
        )
    states_in = data.get("states")
    if not isinstance(states_in, list) or not states_in:
        raise TraceFormatError(source, "/states", "expected a non-empty list of states")
    if len(states_in) > MAX_MOMENTS:
        raise TraceFormatError(
            source,
            "/states",
            f"{len(states_in)} moments: a trace holds at most {MAX_MOMENTS}; split a long game "
            "into windows of consecutive moments, each a trace",
        )
    per_moment = [
        (spec, schema.max_value(spec, universe) if spec.kind == "int" else None)
        for spec in schema.specs
        if spec.per_moment
    ]
    # A variable added within this version, when a document has it in no state at all: a rule variable is completed
    # by its definition, an environment variable takes the value every document before it meant.
    nowhere = [spec for spec, _ in per_moment if not any(isinstance(x, dict) and spec.name in x for x in states_in)]
    completed = [spec for spec in nowhere if spec.completed_by is not None or spec.absent_means is not None]
    states = []
    quick = _state_reader(tuple(per_moment), tuple(sorted(sizes.items())), frozenset(s.name for s in completed))
    for t, state in enumerate(states_in):
        if not isinstance(state, dict):
            raise TraceFormatError(source, f"/states/{t}", "expected an object")
        states.append(quick(state) or _decode_state(state, t, per_moment, completed, universe, source))
    for spec in completed:
        if spec.absent_means is not None:
            value = _decode_value(spec, _absent(spec, universe), universe, spec.dims, f"/states/0/{spec.name}", source)
            for state in states:
                state[spec.name] = copy.deepcopy(value)
    if any(spec.completed_by is not None for spec in completed):
        _complete([s for s in completed if s.completed_by is not None], states, params, universe, schema)
    extra = {
        k: v for k, v in meta.items() if k not in ("format", "format-description", "rule603", "edition", "universe")
    }
    return Trace(str(meta.get("edition", "")), universe, params, tuple(states), extra)


def _complete(
    specs: list[VarSpec], states: list[dict[str, Any]], params: dict, universe: Universe, schema: Schema
) -> None:
    """Each of ``specs`` filled in, moment by moment, by its definition (``VarSpec.completed_by``) evaluated on the
    document's own values: at ``t`` it reads moments up to ``t``, and its own values before ``t``."""

    def lookup(name: str, index: tuple[int, ...]) -> Any:
        value, index = (states[index[0]][name], index[1:]) if schema.spec(name).per_moment else (params[name], index)
        for i in index:
            value = value[i]
        return value

    g = Game(CONCRETE, schema, universe, lookup, lambda _: True, len(states))
    for t, state in enumerate(states):
        for spec in specs:
            define = spec.completed_by
            assert define is not None
            state[spec.name] = _filled(spec.dims, universe, lambda *idx, d=define, t=t: d(g, t, *idx))


def _filled(dims: tuple[str, ...], universe: Universe, value: Any, index: tuple[int, ...] = ()) -> Any:
    if not dims:
        return value(*index)
    return [_filled(dims[1:], universe, value, index + (i,)) for i in range(universe.size(dims[0]))]


#: Moments of one trace: refused past this before anything is decoded.  A game long past it is checked as windows
#: of consecutive moments (as the python-mtg adapter does); checking time grows with the moments.
MAX_MOMENTS = 1000


#: ``#meta.names``: what the engine calls the members of these domains, by index (optional, each list too).
NAMED_DOMAINS = ("card", "player", "delayed")


def _check_names(names: Any, universe: Universe, source: str) -> None:
    if not isinstance(names, dict):
        raise TraceFormatError(source, "/#meta/names", f"expected an object of name lists, got {shown(names)}")
    for domain, listed in names.items():
        where = f"/#meta/names/{domain}"
        if domain not in NAMED_DOMAINS:
            raise TraceFormatError(source, where, f"names are given for {', '.join(NAMED_DOMAINS)}, not {domain!r}")
        if not isinstance(listed, list) or len(listed) > universe.sizes.get(domain, 0):
            size = universe.sizes.get(domain, 0)
            raise TraceFormatError(source, where, f"expected a list of at most {size} names (#meta.universe.{domain})")
        for i, name in enumerate(listed):
            if not isinstance(name, str) or not name.strip() or len(name) > 200:
                why = f"expected a name (1 to 200 characters), got {shown(name)}"
                raise TraceFormatError(source, f"{where}/{i}", why)


def trace_names(trace: Trace) -> Names:
    """The names ``#meta.names`` gives (checked when the trace was read); the model's labels for the rest."""
    names = trace.meta.get("names")
    if not isinstance(names, dict):
        return MODEL_LABELS
    return Names(*(tuple(names.get(domain, ())) for domain in NAMED_DOMAINS))


def dump(trace: Trace, schema: Schema, path: Path, extra_meta: Mapping[str, Any] | None = None) -> None:
    write_atomically(path, json.dumps(to_json(trace, schema, extra_meta), indent=1) + "\n")


def load(path: Path, schema: Schema) -> Trace:
    try:
        text = read_document(path)
    except FileNotFoundError:
        raise TraceFormatError(str(path), "", "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TraceFormatError(str(path), "", f"cannot be read as UTF-8 text: {e}") from None
    except DocumentError as e:
        raise TraceFormatError(str(path), "", str(e)) from None
    return from_json(parse(text, str(path)), schema, str(path))


def parse(text: str, source: str) -> Any:
    """The JSON value of a trace's text; not JSON, nested too deeply or with a number of thousands of digits:
    :class:`TraceFormatError` naming the line."""
    try:
        return parse_json(text)
    except DocumentError as e:
        raise TraceFormatError(source, "", str(e)) from None


def trace_to_json(trace: Trace, extra_meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A trace as the JSON object of the published format, with its edition's variables."""
    from .catalogue import load_edition

    schema = Schema(tuple(load_edition(trace.edition).model.VARIABLES))
    return to_json(trace, schema, extra_meta)
