"""``rule603 clauses``: the clauses of an edition (number, summary, status, text hash), or its precedence."""

from __future__ import annotations

import argparse

from .._internal.catalogue import load_edition
from .._internal.registry import ClauseEncoding, Edition
from .common import ExitCode, print_rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default="current")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument("--precedence", action="store_true", help="list the 'specific beats general' relations instead")


def run(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    if args.precedence:
        rows = [{"specific": s, "general": g} for s, g in edition.precedence()]
        print_rows(rows, args.format, "specific rule beats general rule")
        return ExitCode.OK
    rows = []
    for clause in edition.rules.clauses:
        status = edition.status(clause.number)
        enc = edition.by_number.get(clause.number)
        reason = next((nm.reason for nm in edition.not_modelled if nm.number == clause.number), "")
        rows.append(
            {
                "clause": clause.number,
                "summary": enc.summary if enc else clause.summary,
                "status": status,
                **({"encoding": _how(enc)} if args.edition != "current" else {}),
                "text hash": clause.text_hash,
                **({"note": reason or enc.scope} if args.format == "json" else {}),
            }
        )
    print_rows(rows, args.format)
    if args.format != "json":
        encoded = sum(r["status"] == "encoded" for r in rows)
        print(
            f"\n{encoded}/{len(rows)} clauses encoded, {len(edition.not_modelled)} not modelled "
            f"({', '.join(nm.number for nm in edition.not_modelled)}); source: {edition.rules.source}"
        )
        _print_absent_features(edition)
    return ExitCode.OK


def _print_absent_features(edition: Edition) -> None:
    """The game features the edition's text does not govern, under the clause table (nothing when it has all)."""
    if not edition.absent:
        return
    print(f"\ngame features absent from the {edition.name} game (switched off by the game-model rule model.features):")
    for feature, reason in edition.absent:
        print(f"  {feature.name} ({feature.words}; current {feature.governed_by}): {reason}")


def _how(enc: ClauseEncoding | None) -> str:
    """'reuses 603.2f' or 'own': the short form of an older edition's encoding origin."""
    if enc is None:
        return ""
    return enc.origin.replace("reuses current ", "reuses ").replace("own encoding ", "own: ")
