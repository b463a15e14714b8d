"""``rule603 editions``: the editions of the rule text held, how two correspond, or a new one added."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabulate import tabulate

from .._internal.catalogue import how_encoded
from .._internal.editions import KINDS, Alignment, add_edition, align, edition_texts, find_edition, similarity
from .common import ExitCode, UsageError, path, print_rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument(
        "--align", nargs=2, metavar=("A", "B"), help="the reviewed clause alignment from edition A to edition B"
    )
    p.add_argument(
        "--add",
        metavar="FILE",
        type=lambda text: Path(path("--add")(text)),
        help="copy rule 603 of an official MagicCompRules .txt file as edition --id",
    )
    p.add_argument("--id", help="with --add: the new edition's id (file models/editions/ID.txt)")
    p.add_argument("--date", help="with --add: its date (default: the file's 'effective as of' date)")
    p.add_argument("--overwrite", action="store_true", help="with --add: replace an edition of that id")


def run(args: argparse.Namespace) -> ExitCode:
    if args.add is not None:
        return _add_edition(args)
    if args.id or args.date or args.overwrite:
        raise UsageError("--id, --date and --overwrite go with --add FILE")
    if args.align:
        return _print_alignment(align(*args.align), args.format)
    rows = []
    for text in edition_texts():
        doc = text.document()
        rows.append(
            {
                "id": text.id,
                "date": doc.date,
                "language": doc.language,
                "rule": text.rule,
                "clauses": len(doc.clauses),
                "encoded": how_encoded(text.id),
                "title": doc.title,
                "source": doc.source,
                "file": f"models/{text.path.parent.name}/{text.path.name}",
            }
        )
    if args.format == "json":
        print(json.dumps({"editions": rows}, indent=1, ensure_ascii=False))
        return ExitCode.OK
    table = [
        # Short forms for the table; the full date and source are in the file header and the JSON.
        [r["id"], _before_parenthesis(r["date"]), r["language"], r["rule"], r["clauses"], r["encoded"], r["file"]]
        for r in rows
    ]
    headers = ["edition", "date", "language", "rule", "clauses", "encoded", "file"]
    print(tabulate(table, headers=headers, tablefmt="github" if args.format == "markdown" else "simple"))
    return ExitCode.OK


def _add_edition(args: argparse.Namespace) -> ExitCode:
    """Copy rule 603 of an official file as a new edition and show what must be re-encoded for it."""
    if not args.id:
        raise UsageError("--add FILE needs --id ID, the new edition's name (e.g. --id 2025-04)")
    added = add_edition(args.add, args.id, date=args.date, overwrite=args.overwrite)
    rows = list(added.rows)
    if args.format == "json":
        print(json.dumps({"edition": args.id, "file": str(added.path), "clauses": rows}, indent=1, ensure_ascii=False))
        return ExitCode.OK
    print(f"added edition {args.id}: {len(added.document.clauses)} clauses of rule 603, dated {added.document.date}")
    print(f"file: {_shown_path(added.path)}\n")
    print_rows([r for r in rows if r["status"] != "encoded"], args.format)  # what needs a reader's attention
    counts = {s: sum(r["status"] == s for r in rows) for s in ("encoded", "stale", "new: not encoded", "gone")}
    stale = ", ".join(r["clause"] for r in rows if r["status"] == "stale") or "none"
    print(
        f"\nagainst the current encodings: {counts['encoded']} unchanged, {counts['stale']} stale ({stale}), "
        f"{counts['new: not encoded']} new, {counts['gone']} gone; "
        f"'rule603 clauses --edition {args.id}' lists it with the current encodings by number"
    )
    return ExitCode.OK


def _shown_path(file: Path) -> str:
    """models/editions/ID.txt rather than an install path."""
    return f"models/{file.parent.name}/{file.name}" if file.parent.parent.name == "models" else str(file)


def _before_parenthesis(text: str) -> str:
    return text.split(" (", 1)[0]


def _print_alignment(alignment: Alignment, fmt: str) -> ExitCode:
    doc_a = find_edition(alignment.a).document()
    doc_b = find_edition(alignment.b).document()
    rows = []
    for link in alignment.links:
        # Similarity says nothing across languages; it is left out rather than shown as 0.
        same_language = doc_a.language == doc_b.language
        score = similarity(doc_a.get(link.a), doc_b.get(link.b)) if link.a and link.b and same_language else None
        rows.append(
            {alignment.a: link.a, alignment.b: link.b, "kind": link.kind, "similarity": score, "note": link.note}
        )
    if fmt == "json":
        links = [
            {"a": r[alignment.a], "b": r[alignment.b], **{k: r[k] for k in ("kind", "similarity", "note")}}
            for r in rows
        ]
        data = {"a": alignment.a, "b": alignment.b, "review": alignment.review, "links": links}
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return ExitCode.OK
    print(f"{alignment.a} -> {alignment.b} ({alignment.review})")
    table = [["" if v is None else (f"{v:.2f}" if isinstance(v, float) else v) for v in r.values()] for r in rows]
    print(
        tabulate(
            table,
            headers=list(rows[0]) if rows else [],
            tablefmt="github" if fmt == "markdown" else "simple",
            maxcolwidths=[None, None, None, None, 70],
            disable_numparse=True,
        )
    )
    counts = {kind: sum(r["kind"] == kind for r in rows) for kind in KINDS}
    print("\n" + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n))
    return ExitCode.OK
