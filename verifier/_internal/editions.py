"""The editions of the rule text the project holds, and how their clauses correspond.

An edition here is text only: which clauses a source printed, in its own numbering
(410.6 in 2004, 404.1 in 2008, 603.x since 2009).  Encodings are a separate matter
(:mod:`.catalogue`); an edition may have text and no encodings yet.

A clause alignment between two editions says, for every clause of the older one, what
became of it in the newer one.  It is data, reviewed by a person and committed as
``models/editions/align-<A>-<B>.json``: similarity proposes, a reader decides (a
renumbered clause with a reworded example reads as "removed" plus "new" to difflib).
:func:`propose` computes the candidate a reviewer starts from; the committed file is
the source of truth, and the similarity shown next to it is recomputed from the texts.

Editions that no committed file joins are aligned by composing the committed pairs
along the one path that joins them (each pair may be read in either direction);
:func:`align` says which pairs exist when there is none.
"""

from __future__ import annotations

import difflib
import importlib
import json
import re
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import InvalidArgument, InvalidDefinition, RuleTextError
from .documents import DocumentError, clipped, parse_toml, read_capped, shown, write_atomically
from .editiontext import load_rule_text
from .registry import ClauseEncoding, Edition, GameFeature, NotModelled, Property
from .ruletext import RuleClause, RuleDocument, _split_lines, parse_rules

__all__ = [
    "KINDS",
    "Added",
    "Alignment",
    "Decision",
    "EditionText",
    "Link",
    "add_edition",
    "align",
    "build_edition",
    "features_axiom",
    "edition_texts",
    "find_edition",
    "propose",
    "similarity",
]

INDEX = "rule603.models.editions"

#: What became of a clause.  ``renumbered+reworded`` is a clause that moved and changed.
KINDS = (
    "same",
    "reworded",
    "renumbered",
    "renumbered+reworded",
    "split",
    "merged",
    "new",
    "removed",
    "translation",
)
# The kinds a reviewer cannot choose freely: they follow from the numbers and the hashes.
_MECHANICAL = ("same", "reworded", "renumbered", "renumbered+reworded")


@dataclass(frozen=True)
class EditionText:
    """One edition's rule text: an id a rules manager reads ("2004") and its data file."""

    id: str
    path: Path

    def document(self) -> RuleDocument:
        return _load(self.path)

    @property
    def rule(self) -> str:
        """The rule number the edition prints ("410", "404", "603")."""
        return self.document().clauses[0].number.split(".")[0]


@cache
def _load(path: Path) -> RuleDocument:
    # Cached per path: the files are package data and do not change while we run.
    return load_rule_text(path)


def edition_texts() -> tuple[EditionText, ...]:
    """Every edition, oldest first (the order of the index in models/editions)."""
    return tuple(importlib.import_module(INDEX).EDITIONS)


def find_edition(name: str, option: str = "--edition") -> EditionText:
    for text in edition_texts():
        if text.id == name:
            return text
    known = ", ".join(t.id for t in edition_texts())
    close = difflib.get_close_matches(name, [t.id for t in edition_texts()], n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    raise InvalidArgument(f"{option} {name}: unknown edition; known: {known}.{hint}")


# --- alignments ---------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """One row of an alignment: clause ``a`` of the older edition became clause ``b``."""

    a: str | None  # None: ``b`` is new
    b: str | None  # None: ``a`` was removed
    kind: str
    note: str = ""


@dataclass(frozen=True)
class Alignment:
    """The reviewed correspondence between the clauses of editions ``a`` and ``b``."""

    a: str
    b: str
    links: tuple[Link, ...]
    review: str = ""  # who reviewed it, and how
    path: str = ""

    def reversed(self) -> Alignment:
        """The same correspondence read from ``b`` to ``a`` (new and removed swap, split and merged too)."""
        swap = {"new": "removed", "removed": "new", "split": "merged", "merged": "split"}
        links = tuple(Link(x.b, x.a, swap.get(x.kind, x.kind), x.note) for x in self.links)
        return Alignment(self.b, self.a, links, self.review, self.path)

    def problems(self, doc_a: RuleDocument, doc_b: RuleDocument) -> list[str]:
        """Every way the alignment fails to cover the two texts exactly; empty when it does."""
        where = self.path or f"{self.a}->{self.b}"
        out: list[str] = []
        numbers_a, numbers_b = set(doc_a.numbers()), set(doc_b.numbers())
        for i, link in enumerate(self.links):
            if link.kind not in KINDS:
                out.append(f"{where}: links[{i}]: kind {link.kind!r} is not one of {', '.join(KINDS)}")
            if link.a is not None and link.a not in numbers_a:
                out.append(f"{where}: links[{i}]: {link.a} is no clause of {self.a}")
            if link.b is not None and link.b not in numbers_b:
                out.append(f"{where}: links[{i}]: {link.b} is no clause of {self.b}")
            if (link.a is None) != (link.kind == "new") or (link.b is None) != (link.kind == "removed"):
                out.append(f"{where}: links[{i}]: kind {link.kind} needs " + _shape(link.kind))
        covered_a = {x.a for x in self.links}
        covered_b = {x.b for x in self.links}
        out += [
            f"{where}: {n} of {self.a} is neither aligned nor marked removed"
            for n in doc_a.numbers()
            if n not in covered_a
        ]
        out += [
            f"{where}: {n} of {self.b} is neither aligned nor marked new" for n in doc_b.numbers() if n not in covered_b
        ]
        return out


def _shape(kind: str) -> str:
    if kind == "new":
        return "no 'a' clause and a 'b' clause"
    if kind == "removed":
        return "an 'a' clause and no 'b' clause"
    return "both an 'a' and a 'b' clause"


def load_alignment(path: Path) -> Alignment:
    """Read one ``align-<A>-<B>.json``; a malformed file is named with the offending key."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        links = tuple(Link(row.get("a"), row.get("b"), row["kind"], row.get("note", "")) for row in data["links"])
        return Alignment(data["a"], data["b"], links, data.get("review", ""), str(path))
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidDefinition(f"{path}: not an alignment file ({type(exc).__name__}: {exc})") from None


def committed_alignments() -> tuple[Alignment, ...]:
    """Every committed alignment, ordered by file name."""
    folder = Path(importlib.import_module(INDEX).__file__).parent
    return tuple(load_alignment(p) for p in sorted(folder.glob("align-*.json")))


# --- similarity and the candidate a reviewer starts from ------------------------------

_TYPOGRAPHY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u2014": "-", "\u2013": "-"})


def _normal(text: str) -> str:
    """Wording without typography: curly quotes, dashes and ". . ." spacing differ between sources."""
    text = text.translate(_TYPOGRAPHY).replace(" -- ", "-").replace("--", "-").replace(". . .", "...")
    return " ".join(text.lower().split())


def similarity(a: RuleClause, b: RuleClause) -> float:
    """How alike two clauses' rule texts are, from 0 to 1 (difflib's ratio, typography ignored)."""
    return round(difflib.SequenceMatcher(None, _normal(a.text), _normal(b.text), autojunk=False).ratio(), 2)


def mechanical_kind(a: RuleClause, b: RuleClause) -> str:
    """The kind the numbers and the wording alone decide (examples are part of the wording)."""
    renumbered = a.number != b.number
    reworded = a.text_hash != b.text_hash
    if renumbered and reworded:
        return "renumbered+reworded"
    return "renumbered" if renumbered else "reworded" if reworded else "same"


def _tail(number: str) -> str:
    """'603.2d' -> '2d': the part that survives a change of rule number."""
    return number.split(".", 1)[1]


def propose(doc_a: RuleDocument, doc_b: RuleDocument, *, cutoff: float = 0.5) -> list[Link]:
    """A candidate alignment: each clause of A to the most similar clause of B.

    Translations (different languages) align by number.  Otherwise a clause keeps its
    best match at or above ``cutoff`` (a same-numbered clause gets a small head start,
    as most clauses keep their number); a B clause matched twice is "merged", an
    unmatched clause "removed" or "new".  It is only a start: review it.
    """
    if doc_a.language != doc_b.language:
        by_number = {c.number: c for c in doc_b.clauses}
        links = [Link(c.number, c.number if c.number in by_number else None, "translation") for c in doc_a.clauses]
        links = [x if x.b else Link(x.a, None, "removed") for x in links]
        linked = {x.b for x in links}
        return links + [Link(None, n, "new") for n in doc_b.numbers() if n not in linked]
    best: dict[str, RuleClause] = {}
    for a in doc_a.clauses:
        scored = [(similarity(a, b) + (0.05 if _tail(a.number) == _tail(b.number) else 0), b) for b in doc_b.clauses]
        score, b = max(scored, key=lambda pair: pair[0])
        if score >= cutoff:
            best[a.number] = b
    targets = [b.number for b in best.values()]
    links: list[Link] = []
    for a in doc_a.clauses:
        if a.number not in best:
            links.append(Link(a.number, None, "removed"))
            continue
        b = best[a.number]
        kind = "merged" if targets.count(b.number) > 1 else mechanical_kind(a, b)
        links.append(Link(a.number, b.number, kind))
    return links + [Link(None, n, "new") for n in doc_b.numbers() if n not in targets]


# --- aligning any two editions --------------------------------------------------------


def align(a: str, b: str) -> Alignment:
    """The alignment from edition ``a`` to ``b``: committed, reversed, or composed along the path joining them."""
    find_edition(a, "--align")
    find_edition(b, "--align")
    if a == b:
        raise InvalidArgument(f"--align {a} {b}: name two different editions")
    steps = _path(a, b)
    result = steps[0]
    for step in steps[1:]:
        result = _compose(result, step)
    return result


def _path(a: str, b: str) -> list[Alignment]:
    """The committed alignments (read forwards or backwards) on the shortest path from a to b."""
    edges: dict[str, list[Alignment]] = {}
    for al in committed_alignments():
        edges.setdefault(al.a, []).append(al)
        edges.setdefault(al.b, []).append(al.reversed())
    came: dict[str, Alignment | None] = {a: None}
    queue = deque([a])
    while queue:
        here = queue.popleft()
        for step in edges.get(here, []):
            if step.b not in came:
                came[step.b] = step
                queue.append(step.b)
    if b not in came:
        pairs = ", ".join(f"{al.a}->{al.b}" for al in committed_alignments()) or "none"
        raise InvalidArgument(f"--align {a} {b}: no reviewed alignment joins these editions; committed pairs: {pairs}")
    path: list[Alignment] = []
    node = b
    while (step := came[node]) is not None:
        path.append(step)
        node = step.a
    return path[::-1]


def _compose(first: Alignment, second: Alignment) -> Alignment:
    """A->C from A->B and B->C: follow each clause through B; kinds recomputed from the texts."""
    doc_a = find_edition(first.a).document()
    doc_c = find_edition(second.b).document()
    onward: dict[str, list[str]] = {}
    for link in second.links:
        if link.a is not None and link.b is not None:
            onward.setdefault(link.a, []).append(link.b)
    via: dict[tuple[str, str], list[str]] = {}  # (a, c) -> the B clauses between them
    for link in first.links:
        if link.a is not None and link.b is not None:
            for c in onward.get(link.b, []):
                via.setdefault((link.a, c), []).append(link.b)
    rows: list[Link] = []
    for a in doc_a.numbers():
        ends = [c for (x, c) in via if x == a]
        if not ends:
            rows.append(Link(a, None, "removed", f"no clause of {second.b} through {first.b}; composed"))
        for c in ends:
            kind = _composed_kind(doc_a, doc_c, a, c, via)
            rows.append(Link(a, c, kind, f"via {', '.join(via[a, c])} in {first.b}; composed, not reviewed"))
    reached = {c for (_, c) in via}
    rows += [
        Link(None, c, "new", f"not reached from {first.a} through {first.b}")
        for c in doc_c.numbers()
        if c not in reached
    ]
    return Alignment(
        first.a, second.b, tuple(rows), f"composed from {Path(first.path).name} and {Path(second.path).name}"
    )


def _composed_kind(
    doc_a: RuleDocument, doc_c: RuleDocument, a: str, c: str, via: dict[tuple[str, str], list[str]]
) -> str:
    if sum(x == a for x, _ in via) > 1:
        return "split"
    if sum(y == c for _, y in via) > 1:
        return "merged"
    if doc_a.language != doc_c.language:
        return "translation"
    return mechanical_kind(doc_a.get(a), doc_c.get(c))


# --- encodings per edition ----------------------------------------------------------------
#
# An older edition is encoded clause by clause, by a reviewed decision committed as data
# (models/editions/encodings-<id>.toml): reuse the current encoding of a clause that means
# the same, use an edition-specific one where the meaning differs, or list the clause as not
# modelled.  Every decision records the text hash of the edition's clause it was reviewed
# against, so a later change of the text marks that clause stale.

REUSE, OWN, NOT_MODELLED = "reuse", "own", "not modelled"


@dataclass(frozen=True)
class Decision:
    """What encodes one clause of one edition, and why."""

    number: str  # the clause in the edition's own numbering
    kind: str  # REUSE, OWN or NOT_MODELLED
    text_hash: str = ""  # the edition's clause text the decision was reviewed against
    target: str = ""  # REUSE: the current clause; OWN: the encoding's name; NOT_MODELLED: the reason
    note: str = ""  # what changes in behaviour, or why the change is wording only


def load_decisions(path: Path) -> tuple[Decision, ...]:
    """Read ``encodings-<id>.toml``; a malformed row is one line naming the file and the row."""
    data = _toml(path, path.read_text(encoding="utf-8"))
    rows = data.get("clause")
    if not isinstance(rows, list) or not rows:
        raise InvalidDefinition(f"{path}: no [[clause]] rows")
    return tuple(_decision(path, i, row) for i, row in enumerate(rows))


def _decision(path: Path, i: int, row: dict) -> Decision:
    where = f"{path}: clause[{i}]"
    kinds = [k for k in ("reuse", "own", "not_modelled") if k in row]
    if "number" not in row or len(kinds) != 1:
        raise InvalidDefinition(f"{where}: needs 'number' and exactly one of reuse, own, not_modelled")
    kind = {"reuse": REUSE, "own": OWN, "not_modelled": NOT_MODELLED}[kinds[0]]
    if kind != NOT_MODELLED and not row.get("text_hash"):
        raise InvalidDefinition(f"{where} ({row['number']}): an encoded clause needs its reviewed text_hash")
    return Decision(row["number"], kind, row.get("text_hash", ""), row[kinds[0]], row.get("note", ""))


def load_absent_features(path: Path, known: Mapping[str, GameFeature]) -> tuple[tuple[GameFeature, str], ...]:
    """The ``[features]`` table of ``encodings-<id>.toml``: each game feature the edition lacks, with why.

    A row is ``name = "reason"``; an unknown name or an empty reason is one line naming the file,
    the line and the row.  No table: the edition has every feature of the game model.
    """
    text = path.read_text(encoding="utf-8")
    table = _toml(path, text).get("features", {})
    if not isinstance(table, dict):
        raise InvalidDefinition(f"{path}: 'features' must be a table of name = \"reason\" rows")
    out = []
    for name, reason in table.items():
        where = f"{path}:{_line_of(text, name)}: [features] {name}"
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" Did you mean {close[0]}?" if close else ""
            raise InvalidDefinition(f"{where}: no such game feature; known: {', '.join(known)}.{hint}")
        if not isinstance(reason, str) or len(reason.strip()) < 20:
            raise InvalidDefinition(f"{where}: give the reason, citing the edition's text, as a string")
        out.append((known[name], reason.strip()))
    return tuple(out)


def _toml(path: Path, text: str) -> dict:
    try:
        return parse_toml(text)
    except DocumentError as exc:
        raise InvalidDefinition(f"{path}: not a TOML file ({exc})") from None


def _line_of(text: str, key: str) -> int:
    """The line a key is written on, for error messages (tomllib gives no positions); 0 if not found."""
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    return next((i for i, line in enumerate(text.splitlines(), 1) if pattern.match(line)), 0)


def features_axiom(name: str, absent: Sequence[tuple[GameFeature, str]]) -> ClauseEncoding:
    """The game-model rule ``model.features`` of edition ``name``: every absent feature switched off."""
    words = "; ".join(f.words for f, _ in absent)

    def off(g: Any, t: int) -> Iterator[Any]:
        for feature, _ in absent:
            yield from feature.off(g, t)

    return ClauseEncoding("model.features", f"the game of edition {name} has none of these: {words}", "", off)


def provisional_decisions(rules: RuleDocument, current: Any) -> tuple[Decision, ...]:
    """Decisions for an edition nobody has reviewed yet: every current encoding, by clause number.

    Each carries the hash of the *current* text it was written from, so every clause whose
    wording differs shows as stale: the list of what must be re-encoded for a new release.
    """
    out = []
    for number in rules.numbers():
        if number in current.by_number:
            enc = current.by_number[number]
            out.append(Decision(number, REUSE, enc.text_hash, number, "not reviewed: the current encoding by number"))
        for nm in current.not_modelled:
            if nm.number == number:
                out.append(Decision(number, NOT_MODELLED, "", nm.reason, "not reviewed: as in the current edition"))
    return tuple(out)


def aligned_clauses(a: str, b: str, a_numbers: Sequence[str], b_numbers: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each clause of edition ``a`` that the reviewed alignment joins to edition ``b`` -> the clauses joined to it.

    Editions no alignment reaches (one just added) are matched by clause number.
    """
    try:
        links = align(a, b).links
    except InvalidArgument:
        theirs = set(b_numbers)
        return {n: (n,) for n in a_numbers if n in theirs}
    out: dict[str, tuple[str, ...]] = {}
    for link in links:
        if link.a is not None and link.b is not None:
            out[link.a] = (*out.get(link.a, ()), link.b)
    return out


def counterparts(name: str, current: Any) -> dict[str, tuple[str, ...]]:
    """Each current clause -> the clauses of edition ``name`` that stand for it (none: an empty tuple)."""
    out: dict[str, tuple[str, ...]] = dict.fromkeys(current.rules.numbers(), ())
    out.update(aligned_clauses("current", name, current.rules.numbers(), find_edition(name).document().numbers()))
    return out


def build_edition(
    name: str,
    decisions: Sequence[Decision],
    current: Edition,
    own: Mapping[str, ClauseEncoding],
    absent: Sequence[tuple[GameFeature, str]] = (),
) -> Edition:
    """The encoded edition ``name``: current encodings renumbered, edition-specific ones, and the rest.

    A reused encoding keeps its function, takes the edition's clause number and the hash it
    was reviewed against; every ``overrides`` key (a current number) is re-keyed to the
    edition's counterparts, and dropped where the edition has none (the general rule it
    steps aside from does not exist there).  Those keys say which of the edition's clauses it sets
    aside (``precedence``); ``exempt`` finds each exception under the current number it was written
    against (``as_written``), since two current clauses may share one counterpart (2008's 404.2 stands
    for 603.2 and 603.2c, and 603.7b has an exception to each).  The game model and its axioms are the current ones,
    plus, where the edition lacks game features (``absent``), the rule ``model.features`` that
    switches them off.
    """
    rules = find_edition(name).document()
    parts = counterparts(name, current)

    def rekeyed(enc: ClauseEncoding) -> dict:
        # A general clause of rule 603 becomes this edition's counterparts; a game-model rule (608.2) stays.
        return {local: fn for general, fn in enc.overrides.items() for local in parts.get(general, (general,))}

    encodings, not_modelled = [], []
    for d in decisions:
        if d.kind == NOT_MODELLED:
            not_modelled.append(NotModelled(d.number, d.target))
            continue
        enc = _source_encoding(name, d, current, own)
        overrides = rekeyed(enc)
        origin = f"reuses current {d.target}" if d.kind == REUSE else f"own encoding {d.target}"
        note = f"{origin}: {d.note}" if d.note else origin
        scope = f"{enc.scope}; {note}" if enc.scope else note
        encodings.append(
            replace(
                enc,
                number=d.number,
                text_hash=d.text_hash,
                overrides=overrides,
                as_written=enc.overrides,
                scope=scope,
                origin=origin,
            )
        )
    return Edition(
        name=name,
        rules=rules,
        encodings=tuple(encodings),
        not_modelled=tuple(not_modelled),
        axioms=tuple(replace(ax, overrides=rekeyed(ax), as_written=ax.overrides) for ax in current.axioms)
        + ((features_axiom(name, absent),) if absent else ()),
        model=current.model,
        counterparts=parts,
        absent=tuple(absent),
    )


def _source_encoding(name: str, d: Decision, current: Any, own: Mapping[str, Any]) -> Any:
    if d.kind == REUSE:
        if d.target not in current.by_number:
            raise InvalidDefinition(f"{name}: {d.number} reuses {d.target}, which the current edition does not encode")
        return current.by_number[d.target]
    if d.target not in own:
        known = ", ".join(sorted(own))
        raise InvalidDefinition(f"{name}: {d.number}: no edition-specific encoding named {d.target}; known: {known}")
    return own[d.target]


# --- properties in an older edition ---------------------------------------------------------


def localise(props: Sequence[Property], edition: Edition) -> tuple[list[Property], list[tuple[Property, str]]]:
    """The properties that apply in ``edition``, with their clauses in its numbering, and the others with why.

    Properties cite current clause numbers.  In an older edition each cited clause becomes
    its counterparts there; a property is not applicable when a cited clause has none (the
    rule it depends on does not exist in that edition) or when a counterpart is not encoded
    (not modelled, or stale: its encoding no longer matches the text).  It is then reported
    as such, never checked against a weaker set of rules and never counted as holding.
    """
    applicable: list[Property] = []
    not_applicable: list[tuple[Property, str]] = []
    for p in props:
        local: list[str] = []
        why = ""
        for number in p.clauses:
            there = edition.local(number)
            if not there:
                why = f"{number}: no counterpart in {edition.name}"
                break
            bad = [n for n in there if edition.status(n) != "encoded"]
            if bad:
                why = f"{number}: {bad[0]} is {edition.status(bad[0])} in {edition.name}"
                break
            local += [n for n in there if n not in local]
        if why:
            not_applicable.append((p, why))
        else:
            applicable.append(p if tuple(local) == p.clauses else replace(p, clauses=tuple(local)))
    return applicable, not_applicable


# --- adding an edition from an official Comprehensive Rules file -----------------------------

_EDITION_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_SECTION = re.compile(r"^(\d{3})\. \S")
_EFFECTIVE = re.compile(r"effective as of ([A-Z][a-z]+ \d{1,2}, \d{4})")


@dataclass(frozen=True)
class Added:
    """An edition just copied from an official file, and how the current encodings fare against it."""

    path: Path
    document: RuleDocument
    rows: tuple[dict[str, str], ...]  # clause, status, summary


def add_edition(source: Path, edition_id: str, *, date: str | None = None, overwrite: bool = False) -> Added:
    """Copy rule 603 of an official ``MagicCompRules *.txt`` file into ``models/editions/<id>.txt``.

    The copy is the rule's lines as printed, behind a header naming the file and the date
    (``--date``, else the file's "effective as of" date).  Nothing is overwritten unless
    ``overwrite``.  The rows say, for each clause, whether the current encoding of that
    number still matches its text (``encoded``), must be re-encoded (``stale``), or whether
    the clause is new or gone.
    """
    if not _EDITION_ID.fullmatch(edition_id) or edition_id == "current" or len(edition_id) > 64:
        raise InvalidArgument(
            f"--id {clipped(edition_id)}: lower-case letters, digits and '-' (not 'current'), at most 64, e.g. 2025-04"
        )
    if date is not None and (not date.strip() or not date.isprintable() or len(date) > 100):
        raise InvalidArgument(f"--date {shown(date)}: one line of text, e.g. 'April 18, 2025'")
    try:
        text = read_capped(source).decode("utf-8-sig")
    except OSError as exc:
        raise InvalidArgument(f"--add {source}: cannot read it ({exc.strerror})") from None
    except DocumentError as exc:
        raise InvalidArgument(f"--add {source}: {exc}") from None
    except UnicodeDecodeError:
        raise InvalidArgument(f"--add {source}: not UTF-8; save the rules text as UTF-8") from None
    lines = _split_lines(text)  # as the parser splits them, so that line numbers are the file's
    start, end = _rule_603_lines(lines, source)
    effective = _EFFECTIVE.search(text)
    when = date or (effective.group(1) if effective else "unknown (the file names no effective date)")
    target = editions_folder() / f"{edition_id}.txt"
    name = " ".join(source.name.split())  # one line in the header whatever the file is called
    header = [
        f"# Rule 603 copied by 'rule603 editions --add' from {name}, lines as printed.",
        f"Source: {name}",
        f"Date: {when}",
        f"Edition: {edition_id}",
        "Language: en",
        "Format: official",
        "",
    ]
    content = "\n".join(header + lines[start:end]) + "\n"
    try:
        document = parse_rules(content, filename=str(source))
    except RuleTextError as exc:
        # Line n of the copy is line n - len(header) + start of the user's file: name theirs, not the copy.
        line = exc.line - len(header) + start
        if line <= start:  # the header, made from --date and the file's name (checked above), or no line
            raise InvalidArgument(f"--add {source}: {exc.message}") from None
        raise RuleTextError(str(source), line, exc.message) from None
    try:
        if target.exists() and not overwrite:
            raise InvalidArgument(f"--id {edition_id}: {target} exists; add --overwrite to replace it")
        write_atomically(target, content)
    except OSError as exc:
        raise InvalidArgument(f"--id {edition_id}: cannot write {target} ({exc.strerror})") from None
    _load.cache_clear()
    return Added(target, replace(document, filename=str(target)), tuple(_against_current(document)))


def editions_folder() -> Path:
    """Where the edition texts live (models/editions; tests point it elsewhere)."""
    return Path(importlib.import_module(INDEX).__file__).parent


def _rule_603_lines(lines: list[str], source: Path) -> tuple[int, int]:
    """Where rule 603 is in the rules proper, ``lines[start:end]``: from its title before '603.1.' to the next
    rule's title."""
    first = next((i for i, line in enumerate(lines) if line.startswith("603.1. ")), None)
    if first is None:
        raise InvalidArgument(f"--add {source}: no rule 603.1 in it; expected an official MagicCompRules text file")
    start = max((i for i in range(first) if lines[i].startswith("603. ")), default=first)
    end = next(
        (i for i in range(first, len(lines)) if (m := _SECTION.match(lines[i])) and m.group(1) != "603"),
        len(lines),
    )
    end = next((i for i in range(first, end) if lines[i].strip() == "Glossary"), end)
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def _against_current(document: RuleDocument) -> list[dict[str, str]]:
    """Each clause of the new text against the current encoding of the same number."""
    current = importlib.import_module("rule603.models.current").edition()
    rows = []
    for clause in document.clauses:
        enc = current.by_number.get(clause.number)
        if enc is None:
            listed = any(nm.number == clause.number for nm in current.not_modelled)
            status = "not modelled" if listed else "new: not encoded"
        else:
            status = "encoded" if enc.text_hash == clause.text_hash else "stale"
        rows.append({"clause": clause.number, "status": status, "summary": enc.summary if enc else clause.summary})
    new_numbers = set(document.numbers())
    for number in current.rules.numbers():
        if number not in new_numbers:
            rows.append({"clause": number, "status": "gone", "summary": current.rules.get(number).summary})
    return rows
