"""``rule603 clauses``: the clauses of an edition (number, summary, status, text hash), or its precedence."""

from __future__ import annotations

import argparse

from .._internal.catalogue import load_edition
from .._internal.registry import ClauseEncoding, Edition
from .common import ExitCode, print_rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default="current")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    listing = p.add_mutually_exclusive_group()
    listing.add_argument(
        "--precedence", action="store_true", help="list the 'specific beats general' relations instead"
    )
    listing.add_argument(
        "--game-rules",
        action="store_true",
        help="list the rules of the game outside 603 the model relies on (704, 500-514, 608.2, ...) instead",
    )


def run(args: argparse.Namespace) -> ExitCode:
    edition = load_edition(args.edition)
    if args.game_rules:
        return _game_rules(edition, args.format)
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


def _game_rules(edition: Edition, fmt: str) -> ExitCode:
    """The rules of the game outside rule 603 that every trace obeys, each named like a clause (its number in
    the Comprehensive Rules, or ``model.*`` for the model's own bookkeeping and bounds), always in force."""
    rows = [{"rule": ax.number, "summary": ax.summary} for ax in sorted(edition.axioms, key=_rule_order)]
    print_rows(rows, fmt)
    if fmt != "json":
        text = sum(r["rule"].startswith(CARD_TEXT) for r in rows)
        own = sum(r["rule"].startswith(MODEL_OWN) for r in rows)
        print(
            f"\n{len(rows) - text - own} rules of the game outside 603, {text} of cards' printed text and {own} of "
            "the model's own, always in force; a check or ruling names them like clauses"
        )
    return ExitCode.OK


#: Game rules named otherwise than by a rule number: what a card's printed text says ("This ability triggers only
#: once each turn"), and the model's own bookkeeping and bounds.
CARD_TEXT, MODEL_OWN = "text.", "model."


def _rule_order(ax: ClauseEncoding) -> tuple:
    """Rule numbers in the Comprehensive Rules' order (113.2c before 500.1 before 608.2b), then the rules of
    cards' printed text, then the model's own; any other name after the numbered rules, by name."""
    number = ax.number
    for rank, prefix in ((2, CARD_TEXT), (3, MODEL_OWN)):
        if number.startswith(prefix):
            return (rank, 0, 0, number)
    rule_part, _, sub = number.partition(".")
    if not rule_part.isdigit():
        return (1, 0, 0, number)
    digits = "".join(ch for ch in sub if ch.isdigit())
    return (0, int(rule_part), int(digits or 0), sub)


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
