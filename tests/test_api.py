"""The public API, the registries, and the engine's boundaries."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import pytest
import rule603
from rule603 import InvalidArgument, InvalidDefinition, prop
from rule603._internal.registry import ClauseEncoding, Edition, NotModelled, clause

ROOT = Path(__file__).resolve().parents[1]


def test_all_lists_exactly_the_public_names():
    public = {
        name
        for name, value in vars(rule603).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    }
    assert set(rule603.__all__) == public


def test_only_one_module_imports_z3():
    importers = []
    for folder in ("verifier", "models", "properties"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                )
                if any(n == "z3" or n.startswith("z3.") for n in names):
                    importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["verifier/_internal/smt.py"]


@pytest.mark.parametrize("bad", ["Bad Id", "", "x_y", 3])
def test_prop_rejects_bad_ids(bad):
    with pytest.raises(InvalidArgument, match="prop"):
        prop(bad, clauses=["603.2"])


@pytest.mark.parametrize("clauses", [[], "603.2", ["603.2x1"]])
def test_prop_rejects_bad_clause_lists(clauses):
    with pytest.raises(InvalidArgument):
        prop("fine-id", clauses=clauses)


def test_clause_rejects_malformed_number():
    with pytest.raises(InvalidArgument, match="603.2a"):
        clause("six-oh-three", "x", text_hash="")


def test_edition_rejects_a_clause_registered_twice(edition):
    enc = edition.encodings[0]
    with pytest.raises(InvalidDefinition, match=f"{enc.number} is registered twice"):
        Edition("dup", edition.rules, (enc, enc), (), edition.axioms, edition.model)


def test_edition_rejects_encoding_of_unknown_clause(edition):
    fake = ClauseEncoding("603.99", "no such clause", "", lambda g, t: [])
    with pytest.raises(InvalidDefinition, match="603.99"):
        Edition("bad", edition.rules, (fake,), (), edition.axioms, edition.model)


def test_edition_rejects_clause_both_encoded_and_not_modelled(edition):
    enc = edition.encodings[0]
    with pytest.raises(InvalidDefinition, match="both encoded and listed as not modelled"):
        Edition("bad", edition.rules, (enc,), (NotModelled(enc.number, "x"),), edition.axioms, edition.model)


def test_every_clause_is_encoded_or_justified(edition):
    statuses = {n: edition.status(n) for n in edition.rules.numbers()}
    assert len(statuses) == 47
    assert sum(s == "encoded" for s in statuses.values()) == 44
    assert sorted(n for n, s in statuses.items() if s == "not modelled") == ["603.1", "603.10g", "603.11"]
    assert all(len(nm.reason) > 40 for nm in edition.not_modelled)


def test_no_encoding_is_stale(edition):
    """Each encoding was written from the clause text now in the data file."""
    stale = [enc.number for enc in edition.encodings if enc.text_hash != edition.rules.get(enc.number).text_hash]
    assert stale == []


def test_a_changed_clause_text_marks_its_encoding_stale(edition):
    from rule603._internal.ruletext import parse_rules

    text = (
        edition.rules_path.read_text(encoding="utf-8")
        if hasattr(edition, "rules_path")
        else (ROOT / "models/current/rule603.txt").read_text(encoding="utf-8")
    )
    changed = parse_rules(
        text.replace(
            "An event that’s prevented or replaced won’t trigger anything.",
            "An event that’s prevented won’t trigger anything.",
        )
    )
    ed = Edition("changed", changed, edition.encodings, edition.not_modelled, edition.axioms, edition.model)
    assert ed.status("603.2h") == "stale"
    assert ed.status("603.2c") == "encoded"


def test_catalogue_is_large_and_names_encoded_clauses(edition, catalogue):
    assert len(catalogue) >= 30
    assert len({p.id for p in catalogue}) == len(catalogue)
    for p in catalogue:
        assert p.clauses and all(edition.status(c) == "encoded" for c in p.clauses), p.id
    covered = {c for p in catalogue for c in p.clauses}
    assert covered == {enc.number for enc in edition.encodings}


def test_precedence_relations_are_named(edition):
    pairs = set(edition.precedence())
    assert ("603.2g", "603.2") in pairs
    assert ("603.7b", "603.2c") in pairs
    assert ("101.2", "603.2") in pairs
