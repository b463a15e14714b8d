"""``rule603 migrate``: traces of an older version of the trace format, rewritten in the current one."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .._internal.documents import DocumentError, parse_json, read_document, shown
from .._internal.schema import Schema
from .._internal.trace import FORMAT, OLDER_FORMATS, from_json
from ..errors import TraceFormatError
from ..models import game
from ..models.migrations import can_migrate, migrate
from .common import ExitCode, UsageError, out_files, path, writable, write_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("traces", nargs="+", metavar="TRACE", type=path(""), help="JSON trace files of an older version")
    p.add_argument("--out", metavar="DIR", type=path("--out"), help="write each migrated trace into DIR")
    p.add_argument(
        "--overwrite", action="store_true", help="replace files: in DIR with --out, the traces themselves without it"
    )


def run(args: argparse.Namespace) -> ExitCode:
    if not args.out and not args.overwrite:
        raise UsageError("rule603 migrate: give --out DIR, or --overwrite to rewrite the traces in place")
    documents = [(name, _read(name)) for name in args.traces]
    if args.out:
        targets = out_files(args.out, [Path(name).name for name in args.traces], overwrite=args.overwrite)
        if len(set(targets)) != len(targets):
            raise UsageError(f"--out {args.out}: two traces of the same file name would be written to one file")
    else:
        targets = [Path(name) for name in args.traces]
        for target in targets:
            writable(target, f"{target}:", True, "")
    # Every trace migrated and read back as a trace of the current version before any file is written: a value
    # the new version can't carry is refused, and no trace is replaced by one rule603 would then call unreadable.
    migrated = [(name, doc["#meta"]["rule603"], _migrated(name, doc)) for name, doc in documents]
    for (name, old, new), target in zip(migrated, targets, strict=True):
        write_text(target, new, str(target))
        print(f"{name}: {old} -> {FORMAT}: {target}")
    return ExitCode.OK


def _migrated(name: str, doc: dict) -> str:
    """``doc`` in the current version, as the text to write; refused (one line, the JSON pointer) if unreadable."""
    new = migrate(doc)
    try:
        from_json(parse_json(json.dumps(new)), Schema(tuple(game.VARIABLES)), name)
    except (TraceFormatError, DocumentError, ValueError) as e:
        where = f" at {e.pointer}" if isinstance(e, TraceFormatError) and e.pointer else ""
        message = e.message if isinstance(e, TraceFormatError) else str(e)
        raise UsageError(f"{name}:{where}: cannot be migrated: {message}") from None
    return json.dumps(new, indent=1, ensure_ascii=False) + "\n"


def _read(name: str) -> dict:
    """A trace document of a version ``migrate`` rewrites: anything else is the user's mistake, named."""
    try:
        doc = parse_json(read_document(name))
    except FileNotFoundError:
        raise UsageError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError, DocumentError) as e:
        raise UsageError(f"{name}: {e}") from None
    meta = doc.get("#meta") if isinstance(doc, dict) else None
    version = meta.get("rule603") if isinstance(meta, dict) else None
    if version == FORMAT:
        raise UsageError(f"{name}: at /#meta/rule603: already {FORMAT}; nothing to migrate")
    if not can_migrate(version):
        known = ", ".join(OLDER_FORMATS)
        raise UsageError(
            f"{name}: at /#meta/rule603: {shown(version)} is no version rule603 migrates (it reads {known})"
        )
    return doc
