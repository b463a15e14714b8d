"""What a committed report was computed from, stated in the report itself.

``rule603 reports --regenerate`` stamps each file a report's command wrote, once the command has succeeded and
before its record is written (so the record's file hashes are those of the stamped files). The stamp states the
commit of the checkout, the hash of rule603's code and of the edition texts (the same hashes as the report's
record in ``reports/fingerprints.json``), the versions of z3 (and of the engine a report is about), the exact
command, which carries its bound and limits, and the date. Where it goes depends on the file's suffix:

- ``.md``: a one-line blockquote at the very top, then a blank line;
- ``.html``: a ``<p class="provenance">`` right after the ``<body>`` tag;
- ``.json``: a key ``provenance`` first in the top-level object, or first in ``#meta`` in a trace (ITF puts what
  a writer adds in ``#meta``; its other readers need not accept more keys at the top), the rest dumped again
  as the file was;
- any other file is left as it is.

``strip`` removes a stamp exactly, so that a regenerated report can be compared byte for byte with a committed
one by their unstamped bodies; stamping a stamped file replaces its stamp.
"""

from __future__ import annotations

import datetime
import html
import json
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .documents import write_atomically
from .fingerprint import Fingerprint

KEY = "provenance"
# Changes there are the regeneration's own doing (other reports being written beside this one), not a change to
# what the report was computed from.
REPORTS = "reports"
UNKNOWN_COMMIT = "unknown (not a git checkout)"
DIRTY = " + uncommitted changes"

_MD = re.compile(r"\A> Computed from commit [^\n]*\n\n")
# Up to the first ``</p>``: the stamp's text is escaped, and the page may go on along the same line.
_HTML = re.compile(r'(<body\b[^>]*>)\n<p class="provenance">[^\n]*?</p>', re.IGNORECASE)
_BODY = re.compile(r"<body\b[^>]*>", re.IGNORECASE)


@dataclass(frozen=True)
class Provenance:
    """What one report was computed from, as its files state it."""

    commit: str
    code: str
    editions: str
    versions: Mapping[str, str]
    command: str
    date: str

    @classmethod
    def of(cls, root: Path, fingerprint: Fingerprint, today: datetime.date | None = None) -> Provenance:
        """The provenance of a report just written under ``root`` with ``fingerprint`` (the checkout's now)."""
        today = today or datetime.datetime.now(datetime.timezone.utc).date()
        return cls(
            commit(root),
            fingerprint.code,
            fingerprint.editions,
            dict(fingerprint.versions),
            fingerprint.command,
            today.isoformat(),
        )

    def _versions(self) -> str:
        # z3 first: every report depends on it; an engine's version after it.
        names = sorted(self.versions, key=lambda name: (name != "z3", name))
        return " and ".join(f"{name} {self.versions[name]}" for name in names)

    def sentence(self, command: str) -> str:
        """The stamp in words, with ``command`` as its format shows code."""
        return (
            f"Computed from commit {self.commit} (rule603 code {self.code}, edition texts {self.editions}), "
            f"{self._versions()}, by {command} on {self.date}."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "code": self.code,
            "editions": self.editions,
            "versions": dict(self.versions),
            "command": self.command,
            "date": self.date,
        }


def commit(root: Path) -> str:
    """The checkout's commit (short), marked when files outside ``reports/`` differ from it."""
    head = _git(root, "rev-parse", "--short", "HEAD")
    if head is None:
        return UNKNOWN_COMMIT
    changes = _git(root, "status", "--porcelain", "--", ".", f":(exclude){REPORTS}")
    return head.strip() + (DIRTY if changes is None or changes.strip() else "")


def _git(root: Path, *words: str) -> str | None:
    try:
        done = subprocess.run(["git", *words], cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError:  # no git installed
        return None
    return done.stdout if done.returncode == 0 else None


def stamp(text: str, suffix: str, provenance: Provenance) -> str:
    """``text`` (a file with ``suffix``) stamped with ``provenance``, any earlier stamp replaced."""
    body = strip(text, suffix)
    if suffix == ".md":
        return _md(provenance) + body
    if suffix == ".html":
        return _stamp_html(body, provenance)
    if suffix == ".json":
        return _stamp_json(body, provenance)
    return body


def strip(text: str, suffix: str) -> str:
    """``text`` (a file with ``suffix``) without its stamp; unchanged when it has none."""
    if suffix == ".md":
        return _MD.sub("", text, count=1)
    if suffix == ".html":
        return _HTML.sub(r"\1", text, count=1)
    if suffix == ".json":
        return _strip_json(text)
    return text


def stamp_files(paths: Iterable[Path], provenance: Provenance) -> None:
    """Stamp each file in place (those of a suffix with no stamp are left alone)."""
    for path in paths:
        text = path.read_text(encoding="utf-8")
        stamped = stamp(text, path.suffix, provenance)
        if stamped != text:
            write_atomically(path, stamped)


def _code_span(text: str) -> str:
    # A code span's fence must be longer than any run of backticks inside it.
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


def _md(provenance: Provenance) -> str:
    return f"> {provenance.sentence(_code_span(provenance.command))}\n\n"


def _stamp_html(body: str, provenance: Provenance) -> str:
    tag = _BODY.search(body)
    if tag is None:  # not a page of ours: nowhere to say it
        return body
    shown = html.escape(provenance.sentence("\0")).replace("\0", f"<code>{html.escape(provenance.command)}</code>")
    return f'{body[: tag.end()]}\n<p class="provenance">{shown}</p>{body[tag.end() :]}'


# --- JSON: dumped again as the file was dumped, so that removing the key gives the file back byte for byte ----


@dataclass(frozen=True)
class _Layout:
    indent: int | None
    ensure_ascii: bool
    end: str

    @classmethod
    def of(cls, text: str) -> _Layout:
        lines = text.splitlines()
        indent = len(lines[1]) - len(lines[1].lstrip(" ")) if len(lines) > 1 else None
        return cls(indent or None, text.isascii(), text[len(text.rstrip("\n")) :])

    def dump(self, obj: Any) -> str:
        return json.dumps(obj, indent=self.indent, ensure_ascii=self.ensure_ascii) + self.end


def _target(obj: Any) -> dict[str, Any] | None:
    """The object the stamp goes in: a trace's ``#meta``, else the top level; None if the top level is no object."""
    if not isinstance(obj, dict):
        return None
    meta = obj.get("#meta")
    return meta if isinstance(meta, dict) else obj


def _stamp_json(body: str, provenance: Provenance) -> str:
    layout = _Layout.of(body)
    obj = json.loads(body)
    target = _target(obj)
    if target is None:
        return body
    if layout.dump(obj) != body:
        # A stamp that ``strip`` could not take off exactly would spoil every comparison with a fresh copy.
        raise ValueError("not laid out as json.dumps lays it out, so a stamp could not be stripped exactly")
    stamped = {KEY: provenance.to_json(), **target}
    target.clear()
    target.update(stamped)
    return layout.dump(obj)


def _strip_json(text: str) -> str:
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    target = _target(obj)
    if target is None or KEY not in target:
        return text
    del target[KEY]
    return _Layout.of(text).dump(obj)
