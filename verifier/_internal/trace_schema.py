"""The published description of the trace format, generated from the variable declarations.

:func:`json_schema` gives a JSON Schema (draft 2020-12) for traces of the current version and
:func:`variables_markdown` the table of variables in ``docs/trace-format.md``; both are
derived from the model's ``VARIABLES``, so they cannot drift from what
:mod:`rule603._internal.trace` writes and reads.  The committed copies are regenerated
with ``rule603 schema --output docs/rule603-trace-5.schema.json --overwrite`` and
checked by ``tests/test_trace_schema.py``.

JSON Schema cannot relate one part of a document to another, so what depends on
``#meta.universe`` (the length of each list, and the largest value of a variable that
names a player or a card) is left to the loader, which checks it and names the JSON
pointer of the first problem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .documents import write_atomically
from .schema import ENV, RULE, Schema, VarSpec
from .trace import FORMAT, MAX_MOMENTS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ITF_ADR = "https://apalache-mc.org/docs/adr/015adr-trace.html"
SCHEMA_FILE = f"docs/{FORMAT.replace('/', '-')}.schema.json"
REGENERATE = f"rule603 schema --output {SCHEMA_FILE} --overwrite"

_ROLE_TEXT = {ENV: "environment (what players and effects do)", RULE: "rule (what the rules force)"}

_BIGINT = {
    "type": "object",
    "description": (
        'ITF\'s big-integer form {"#bigint": "digits"}, accepted wherever an integer is; rule603 writes plain '
        "JSON integers.  The variable's largest value applies to it too (checked by the loader)."
    ),
    "properties": {"#bigint": {"type": "string", "pattern": "^[0-9]+$"}},
    "required": ["#bigint"],
    "additionalProperties": False,
}


def dimensions(schema: Schema) -> list[str]:
    """The universe's domains the variables are indexed by or range over, sorted."""
    return sorted({d for spec in schema.specs for d in spec.dims + ((spec.max_dim,) if spec.max_dim else ())})


def value_range(spec: VarSpec) -> str:
    """The values of one element of ``spec``, in words (``0..31``, ``0..player-1``, enum names)."""
    if spec.kind == "bool":
        return "boolean"
    if spec.kind == "enum":
        return "one of " + ", ".join(spec.values)
    top = f"{spec.max_dim}-1" if spec.max_dim else str(spec.max)
    return f"integer 0..{top}"


def _leaf(spec: VarSpec) -> dict[str, Any]:
    if spec.kind == "bool":
        return {"type": "boolean"}
    if spec.kind == "enum":
        return {"type": "string", "enum": list(spec.values)}
    number: dict[str, Any] = {"type": "integer", "minimum": 0}
    if spec.max_dim:
        number["description"] = f"at most #meta.universe.{spec.max_dim} - 1 (checked by the loader)"
    else:
        number["maximum"] = spec.max
    return {"anyOf": [number, {"$ref": "#/$defs/bigint"}]}


def _describe(spec: VarSpec) -> str:
    when = "Per moment" if spec.per_moment else "Constant over the trace"
    shape = (
        "; ".join(
            f"{'a list' if i == 0 else 'each element a list'} with one entry per {d} (#meta.universe.{d} entries)"
            for i, d in enumerate(spec.dims)
        )
        if spec.dims
        else "a single value"
    )
    absent = ""
    if spec.absent_means is not None:
        where = "from every state " if spec.per_moment else ""
        absent = (
            f" May be absent {where}(added within this version): then {json.dumps(spec.absent_means)} in every entry."
        )
    if spec.completed_by is not None:
        absent = " May be absent from every state (added within this version): then the reader computes it."
    return f"{spec.doc}. Role: {_ROLE_TEXT[spec.role]}. {when}; {shape}; values: {value_range(spec)}.{absent}"


def _variable(spec: VarSpec) -> dict[str, Any]:
    node = _leaf(spec)
    for dim in reversed(spec.dims):
        node = {"type": "array", "items": node, "description": f"one entry per {dim}"}
    return {**node, "description": _describe(spec)}


def json_schema(schema: Schema) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) for ``rule603-trace/3`` traces of the variables in ``schema``."""
    per_moment = [s for s in schema.specs if s.per_moment]
    constants = [s for s in schema.specs if not s.per_moment]
    printed = [s.name for s in constants if s.printed]  # decided by #meta.oracle where a document gives it
    text = {"type": "string", "minLength": 1, "maxLength": 1000, "pattern": "\\S"}  # one printed triggered ability
    dims = dimensions(schema)
    size = {"type": "integer", "minimum": 0}
    return {
        "$schema": DRAFT,
        "title": f"rule603 trace ({FORMAT})",
        "description": (
            f"A trace of the rule 603 game model in the shape of Apalache's Informal Trace Format (ITF, {ITF_ADR}); "
            "see docs/trace-format.md.  What this schema cannot express: the length of every list and the largest "
            "value of a variable that names a player or a card depend on the sizes in #meta.universe, which plain "
            "JSON Schema cannot relate to other values of the document, so both are left to the loader "
            "(rule603 show, rule603._internal.trace.from_json), which checks them and names the JSON pointer of the "
            "first problem.  Nor can it express the model's constraints between the sizes (in the game model: "
            "printed a multiple of card, ability = printed + delayed + reflexive, at least one player), which rule603 "
            "show checks, "
            "or that #meta.index equals the state's position.  Integers are JSON integers without a fractional part; "
            "the loader rejects 1.0, which JSON Schema counts as an integer.  Keys not described here are allowed "
            f"and ignored.  Generated from the model's variable declarations: {REGENERATE}"
        ),
        "type": "object",
        "required": ["#meta", "vars", "constants", "states"],
        "properties": {
            "#meta": {
                "type": "object",
                "description": (
                    "About the trace.  Besides the keys below a writer may add its own (a counterexample has "
                    "property, clauses and violated_at); readers keep them and rule603 ignores them."
                ),
                "required": ["format", "rule603", "edition", "universe"],
                "dependentRequired": {"subtypes": ["oracle"]},
                "properties": {
                    "format": {"const": "ITF", "description": "ITF's format tag."},
                    "format-description": {"type": "string", "description": f"where ITF is described: {ITF_ADR}"},
                    "rule603": {
                        "const": FORMAT,
                        "description": "The rule603 format and its version; a reader accepts only its own.",
                    },
                    "edition": {
                        "type": "string",
                        "description": "The edition of the rules the trace was produced for, e.g. current.",
                    },
                    "universe": {
                        "type": "object",
                        "description": (
                            "The finite sizes the trace is bounded by.  They give the length of every list: a "
                            "variable indexed by card has #meta.universe.card entries."
                        ),
                        "required": dims,
                        "properties": {
                            d: {**size, "description": f"size of the {d} domain: a list indexed by {d} has this many"}
                            for d in dims
                        },
                        "additionalProperties": size,
                    },
                    "names": {
                        "type": "object",
                        "description": (
                            "Optional: what the engine calls its cards, players and delayed abilities, by index, so "
                            "that rule603's outputs name them so.  A list may be shorter than its domain (the rest "
                            "keep rule603's labels c0, P0, d0), never longer (checked by the loader)."
                        ),
                        "properties": {
                            d: {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}}
                            for d in ("card", "player", "delayed")
                        },
                        "additionalProperties": False,
                    },
                    "oracle": {
                        "type": "array",
                        "items": {
                            "oneOf": [
                                {"type": "null"},
                                text,
                                {"type": "array", "items": text, "minItems": 1, "maxItems": 3},
                            ]
                        },
                        "description": (
                            "Optional: each card's printed triggered ability, by index (null: none), as printed "
                            "('Whenever another creature you control dies, ...'), or a list of them for a card with "
                            "several (its slots in order: printed ability c, then card + c, ...; at most "
                            "#meta.universe.printed / card).  The constants they decide may then "
                            f"be left out ({', '.join(printed)}); those given must agree with it (checked by the "
                            "loader, which also says which words of a text it did not understand)."
                        ),
                    },
                    "subtypes": {
                        "type": "array",
                        "items": {"type": "array", "items": {"type": "string", "minLength": 1}},
                        "description": (
                            "Optional, with oracle: each card's printed subtypes ('Elf'), one list per card, for a "
                            "text that names a subtype ('whenever another Elf you control enters')."
                        ),
                    },
                },
            },
            "params": {
                "type": "array",
                "maxItems": 0,
                "description": (
                    "ITF's parameters: always empty, since values constant over the trace are under constants."
                ),
            },
            "vars": {
                "type": "array",
                "items": {"type": "string"},
                "uniqueItems": True,
                "description": "The names of the per-moment variables, which every state holds.",
            },
            "constants": {
                "type": "object",
                "description": "The values constant over the trace (the cards' text, the delayed abilities).",
                "required": [s.name for s in constants if s.absent_means is None and not s.printed],
                "properties": {s.name: _variable(s) for s in constants},
            },
            "states": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_MOMENTS,
                "description": (
                    "One state per moment: the state after the batch of events since the previous moment; at most "
                    f"{MAX_MOMENTS} (a longer game is checked as windows of consecutive moments, each a trace)."
                ),
                "items": {
                    "type": "object",
                    "required": [
                        "#meta",
                        *(s.name for s in per_moment if s.completed_by is None and s.absent_means is None),
                    ],
                    "properties": {
                        "#meta": {
                            "type": "object",
                            "required": ["index"],
                            "properties": {
                                "index": {
                                    "type": "integer",
                                    "minimum": 0,
                                    "description": "the moment: the state's position in states",
                                }
                            },
                        },
                        **{s.name: _variable(s) for s in per_moment},
                    },
                },
            },
        },
        # A document that doesn't give its cards' printed texts gives what they would decide.
        "if": {"properties": {"#meta": {"not": {"required": ["oracle"]}}}},
        "then": {
            "properties": {
                "constants": {"required": [s.name for s in constants if s.printed and s.absent_means is None]}
            }
        },
        "$defs": {"bigint": _BIGINT},
    }


def schema_text(schema: Schema) -> str:
    """The schema as the committed file holds it: sorted keys, two-space indent, one final newline."""
    return json.dumps(json_schema(schema), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def current_schema() -> Schema:
    """The variables of the current edition's game model."""
    from .catalogue import load_edition

    return Schema(tuple(load_edition("current").model.VARIABLES))


def write_schema(path: Path, schema: Schema | None = None) -> None:
    """Write the JSON Schema of the trace format (of the current edition unless ``schema`` is given)."""
    write_atomically(path, schema_text(schema or current_schema()))


# --------------------------------------------------------------------------- documentation


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def variables_markdown(schema: Schema) -> str:
    """A Markdown table of every variable: name, per moment or constant, index domains, values, role, meaning."""
    lines = [
        "| Variable | When | Indexed by | Values | Role | Description |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for spec in schema.specs:
        if spec.kind == "enum":
            values = "one of " + ", ".join(f"`{v}`" for v in spec.values)
        else:
            values = value_range(spec)
        lines.append(
            "| "
            + " | ".join(
                [
                    f"`{spec.name}`",
                    "per moment" if spec.per_moment else "constant",
                    ", ".join(spec.dims) if spec.dims else "-",
                    values,
                    spec.role,
                    _cell(spec.doc),
                ]
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def marker(name: str, end: bool = False) -> str:
    return f"<!-- {name}:{'end' if end else 'begin'} -->"


def read_block(text: str, name: str) -> str:
    """The text between ``<!-- name:begin -->`` and ``<!-- name:end -->`` (each on its own line)."""
    begin, end = marker(name) + "\n", marker(name, end=True)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"expected one {marker(name)} ... {end} block")
    return text[text.index(begin) + len(begin) : text.index(end)]


def replace_block(text: str, name: str, content: str) -> str:
    """``text`` with the block ``name`` (see :func:`read_block`) replaced by ``content``."""
    old = read_block(text, name)
    begin = marker(name) + "\n"
    start = text.index(begin) + len(begin)
    return text[:start] + content + text[start + len(old) :]


def pretty_json(value: Any, width: int = 100, _indent: int = 0, _column: int | None = None) -> str:
    """JSON laid out for reading: whatever fits in ``width`` on one line, lists of scalars wrapped."""
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    column = _indent if _column is None else _column
    if column + len(flat) <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (_indent + 1)
    close = " " * _indent + ("}" if isinstance(value, dict) else "]")
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            head = json.dumps(key, ensure_ascii=False) + ": "
            items.append(pad + head + pretty_json(item, width, _indent + 1, _indent + 1 + len(head)))
        return "{\n" + ",\n".join(items) + "\n" + close
    if any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(pad + pretty_json(v, width, _indent + 1) for v in value) + "\n" + close
    lines, line = [], ""
    for v in value:
        part = json.dumps(v, ensure_ascii=False)
        if line and len(pad) + len(line) + len(", ") + len(part) + 1 > width:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {part}" if line else part
    lines.append(line)
    return "[\n" + "\n".join(pad + x for x in lines) + "\n" + close
