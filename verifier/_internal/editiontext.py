"""Readers for the other formats rule 603's older editions were published in.

Each edition is kept in the format its source printed it in, so that a fresh copy of
such a page can be read again without hand-editing; every reader yields the one clause
model of :mod:`.ruletext` (:class:`RuleDocument` of :class:`RuleClause`).  Three
formats are known:

``official``
    The Comprehensive Rules plain text (``603.2c An ability ...``), read by
    :func:`.ruletext.parse_rules`.  Web pages that quote the official text, such as the
    French page with the battlefield-era rule in both languages, are this format once
    the page around the quote is cut off.

``rulings``
    The rulings database of the Gaming Resource Library (Crystal Keep), 2003-2008: a
    title ``410 - Handling Triggered Abilities`` and one entry per clause,
    ``- 410.6 - text [CompRules 2003/07/01]`` (2004) or ``• 404.1 - text [...]``
    (2008), wrapped over several lines, with ``Example:`` lines inside.  The bracketed
    tag names the Comprehensive Rules release the wording comes from: it is kept as
    a note of the clause, not as wording.  Entries such as ``410.Ruling.1`` are
    rulings filed under the rule; each becomes a note of the clause it names
    ("Rule 410.10a"), or of the clause above it when it names none.

``wiki``
    The MTG Wiki's quotation: after a line ``From the Comprehensive Rules (June 7,
    2024—Modern Horizons 3)`` the title and every clause as nested bullets
    (``  • 603. ...``, ``    • 603.1. ...``, ``      • 603.1a ...``), examples as
    indented lines.  The quotation ends at the first unindented line; the worked
    examples the wiki adds after it are not part of the rule.

A data file in the ``rulings`` or ``wiki`` format may start with a header of ``#``
comments and ``Key: value`` lines (``Source``, ``Date``, ``Edition``, ``Language``,
``Format``) closed by a line ``---``; everything after it is the page as saved.  The
header's ``Date`` wins over the date the page states.  A file in the official format
keeps its header as :mod:`.ruletext` describes, ``Format: official`` being optional.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

from ..errors import RuleTextError
from .ruletext import (
    _DOTLESS_RE,
    _METADATA_KEYS,
    _METADATA_RE,
    _SUBRULE_RE,
    RuleDocument,
    _collapse,
    _parse_prefix,
    _Parser,
    _shorten,
    _split_lines,
    parse_rules,
)

__all__ = ["READERS", "load_rule_text", "read_rule_text"]

READERS = ("official", "rulings", "wiki")

_HEADER_END = "---"

# --- rulings database ------------------------------------------------------------------

# "410 - Handling Triggered Abilities"
_RULINGS_TITLE_RE = re.compile(r"(\d+)\s+-\s+(\S.*)")
# "- 410.9a - text" or "• 404.1 - text": bullet, number, " - ", text.
_RULINGS_ENTRY_RE = re.compile(r"[-•]\s+(\d+)\.(\d+)([a-z]*)\s+-(?:\s+(.*))?")
# "- 410.Ruling.1 - text": a ruling filed under the rule, not a clause.
_RULINGS_RULING_RE = re.compile(r"[-•]\s+(\d+)\.Ruling\.(\d+)\s+-(?:\s+(.*))?")
# Any other line opening with a bullet and a number: a malformed entry.
_RULINGS_BULLET_RE = re.compile(r"[-•]\s*\d.*")
# "[CompRules 2003/07/01]", "[Jordan 2003/07/27]": where and when the wording was printed.
_TAG_RE = re.compile(r"\[([A-Z][A-Za-z]*) (\d{4}/\d{2}/\d{2})\]")
_RELEASE_RE = re.compile(r"This search based on the (.+?) release of the Rulings\.?")
# The database's page furniture, printed around the entries.
_RULINGS_CHROME = ("This search based on", "New Search", "Go To:", "The Gaming Resource Library", "Copyright ")
_RULE_REF_RE = re.compile(r"Rule (\d+\.\d+[a-z]*)")

# --- MTG Wiki --------------------------------------------------------------------------

_WIKI_FROM_RE = re.compile(r"From the Comprehensive Rules \((.+)\)")
_WIKI_BULLET_RE = re.compile(r"(\s*)•\s*(.*)")
_WIKI_TITLE_RE = re.compile(r"(\d+)\.\s+\S.*")
_WIKI_RULE_RE = re.compile(r"\d+\.\d+\.(?:\s.*)?")


@dataclass
class _Header:
    """The ``Key: value`` lines before ``---``, and where the page text starts."""

    metadata: dict[str, str] = field(default_factory=dict)
    body_start: int = 0  # index into the lines of the first line of the page


def read_rule_text(
    text: str, *, filename: str = "<string>", reader: str | None = None, prefix: str | None = None
) -> RuleDocument:
    """Parse rule text in any known format into a :class:`RuleDocument`.

    ``reader`` is one of :data:`READERS`; by default the file's ``Format:`` header key
    decides, and a file without one is official plain text.  ``prefix`` selects the
    rule of an official file (default "603"); the other formats hold one rule, named
    by their title line, and a ``prefix`` given for them must match it.
    """
    lines = _split_lines(text)
    chosen = reader or _declared_format(lines) or "official"
    if chosen not in READERS:
        raise RuleTextError(filename, 0, f"unknown format {chosen!r}; expected one of {', '.join(READERS)}")
    if chosen == "official":
        return parse_rules(text, filename=filename, prefix=prefix or "603")
    header = _read_header(lines, filename)
    if chosen == "rulings":
        document = _RulingsReader(filename).read(lines, header.body_start)
    else:
        document = _WikiReader(filename).read(lines, header.body_start)
    if prefix is not None and document.clauses and not document.clauses[0].number.startswith(prefix.rstrip(".")):
        raise RuleTextError(filename, 0, f"this page holds rule {document.numbers()[0].split('.')[0]}, not {prefix}")
    meta = header.metadata
    return replace(
        document,
        source=meta.get("source", document.source),
        date=meta.get("date", document.date),
        edition=meta.get("edition", document.edition),
        language=meta.get("language", document.language),
    )


def load_rule_text(
    path: str | os.PathLike[str], *, reader: str | None = None, prefix: str | None = None
) -> RuleDocument:
    """Read a UTF-8 file and parse it with :func:`read_rule_text`."""
    filename = str(path)
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RuleTextError(
            filename, line, f"byte 0x{data[exc.start]:02x} is not UTF-8; expected the page saved as UTF-8"
        ) from None
    return read_rule_text(text, filename=filename, reader=reader, prefix=prefix)


def _declared_format(lines: list[str]) -> str | None:
    """The ``Format:`` key among the leading header lines, if any."""
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _METADATA_RE.fullmatch(line)
        if match is None or match.group(1) not in _METADATA_KEYS:
            return None
        if match.group(1) == "Format":
            return _collapse(match.group(2))
    return None


def _read_header(lines: list[str], filename: str) -> _Header:
    """Split off the ``Key: value`` header closed by ``---``; a page without one has none.

    A header that is not closed is an error rather than page text, because its keys
    would otherwise be dropped without a word.
    """
    header = _Header()
    first_line: dict[str, int] = {}
    for index, raw in enumerate(lines):
        line = raw.strip()
        lineno = index + 1
        if line == _HEADER_END:
            header.body_start = index + 1
            return header
        if not line or line.startswith("#"):
            continue
        match = _METADATA_RE.fullmatch(line)
        key = match.group(1) if match else None
        if key not in _METADATA_KEYS:
            if first_line:
                raise RuleTextError(
                    filename,
                    lineno,
                    f"expected a '{_HEADER_END}' line to end the header (opened on line "
                    f"{min(first_line.values())}) before the page text {_shorten(line)!r}",
                )
            return _Header()  # no header: the whole file is the page
        value = _collapse(match.group(2))
        if key in first_line:
            raise RuleTextError(filename, lineno, f"metadata key {key!r} given twice (first on line {first_line[key]})")
        if not value:
            raise RuleTextError(filename, lineno, f"metadata key {key!r} has no value; expected '{key}: <value>'")
        first_line[key] = lineno
        header.metadata[_METADATA_KEYS[key]] = value
    if first_line:
        raise RuleTextError(filename, len(lines), f"the header has no '{_HEADER_END}' line and no page text follows it")
    return _Header()


def _strip_tags(text: str) -> tuple[str, list[str]]:
    """Take the "[CompRules 2003/07/01]" tags out of ``text``; return the wording and the tags."""
    tags = [f"{name} {date}" for name, date in _TAG_RE.findall(text)]
    return _collapse(_TAG_RE.sub(" ", text)), tags


@dataclass
class _Entry:
    """One database entry being collected: its parts, each a list of lines."""

    lineno: int
    number: tuple[str, str, str] | None  # (section, rule, letters); None for a ruling
    label: str  # "410.6" or "410.Ruling.1"
    parts: list[tuple[int, list[str]]]  # (line, lines); parts[0] is the rule text, then examples


class _RulingsReader:
    """The Gaming Resource Library's rulings pages (2004: "- 410.6 - ...", 2008: "• 404.1 - ...")."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.parser: _Parser | None = None
        self.section = ""
        self.date = ""
        self.entry: _Entry | None = None
        self.notes: dict[str, list[str]] = {}
        self.rulings: list[_Entry] = []

    def error(self, line: int, message: str) -> RuleTextError:
        return RuleTextError(self.filename, line, message)

    def read(self, lines: list[str], start: int) -> RuleDocument:
        for index in range(start, len(lines)):
            self.feed(index + 1, lines[index].strip())
        self.finish_entry()
        if self.parser is None:
            raise self.error(0, "no title line such as '410 - Handling Triggered Abilities'; is this a rulings page?")
        if not self.parser.numbers:
            raise self.error(0, f"no entry for rule {self.section}; expected lines such as '- {self.section}.1 - text'")
        self.file_rulings()
        document = self.parser.document()
        clauses = tuple(replace(c, notes=tuple(self.notes.get(c.number, ()))) for c in document.clauses)
        return replace(document, clauses=clauses, date=self.date)

    def feed(self, lineno: int, line: str) -> None:
        release = _RELEASE_RE.fullmatch(line)
        if release and not self.date:
            self.date = _collapse(release.group(1)) + " (release of the Rulings)"
        if line.startswith(_RULINGS_CHROME) or line.strip("|=") == "":
            self.finish_entry()  # the page's furniture or a blank line: no wording continues past it
            return
        if self.parser is None:
            title = _RULINGS_TITLE_RE.fullmatch(line)
            if title:
                self.start(lineno, title.group(1), title.group(2))
            elif _RULINGS_ENTRY_RE.fullmatch(line):
                raise self.error(lineno, "entry before the rule's title line; expected e.g. '410 - Handling ...' first")
            return  # page text before the title
        self.body_line(lineno, line)

    def start(self, lineno: int, section: str, title: str) -> None:
        self.section = section
        self.parser = _Parser(self.filename, _parse_prefix(section))
        self.parser.title = _collapse(title)
        self.parser.title_line = lineno

    def body_line(self, lineno: int, line: str) -> None:
        entry = _RULINGS_ENTRY_RE.fullmatch(line)
        if entry:
            section, rule, letters, text = entry.groups()
            if section != self.section:
                raise self.error(
                    lineno, f"entry {section}.{rule}{letters} is not part of rule {self.section} (the title's rule)"
                )
            self.finish_entry()
            self.entry = _Entry(
                lineno, (section, rule, letters), f"{section}.{rule}{letters}", [(lineno, [text or ""])]
            )
            return
        ruling = _RULINGS_RULING_RE.fullmatch(line)
        if ruling:
            self.finish_entry()
            label = f"{ruling.group(1)}.Ruling.{ruling.group(2)}"
            self.entry = _Entry(lineno, None, label, [(lineno, [ruling.group(3) or ""])])
            return
        if _RULINGS_BULLET_RE.fullmatch(line):
            raise self.error(
                lineno,
                f"malformed entry {_shorten(line)!r}; expected '- {self.section}.6 - text' "
                "(bullet, number, ' - ', text)",
            )
        if self.entry is None:
            raise self.error(
                lineno,
                f"text outside any entry: {_shorten(line)!r}; expected an entry such as '- {self.section}.1 - text'",
            )
        if line.startswith("Example:"):
            self.entry.parts.append((lineno, [line.removeprefix("Example:")]))
        else:
            self.entry.parts[-1][1].append(line)  # a wrapped line continues the part above

    def finish_entry(self) -> None:
        entry, self.entry = self.entry, None
        if entry is None:
            return
        if entry.number is None:
            self.rulings.append(entry)
            return
        assert self.parser is not None
        notes: list[str] = []
        (text_line, text_lines), *examples = entry.parts
        text, tags = _strip_tags(" ".join(text_lines))
        notes += tags
        self.parser.clause(text_line, *entry.number, text)
        for count, (line, example_lines) in enumerate(examples, start=1):
            example, tags = _strip_tags(" ".join(example_lines))
            notes += [f"Example {count}: {tag}" for tag in tags]
            self.parser.example(line, example)
        self.notes[entry.label] = notes

    def file_rulings(self) -> None:
        """Attach each ruling to the clause it names, else to the clause printed above it."""
        assert self.parser is not None
        numbers = self.parser.numbers
        for ruling in self.rulings:
            text = _collapse(" ".join(" ".join(lines) for _, lines in ruling.parts))
            if not text:
                raise self.error(ruling.lineno, f"ruling {ruling.label} has no text")
            named = [n for n in _RULE_REF_RE.findall(text) if n in numbers]
            above = [n for n, line in zip(numbers, self.parser.lines, strict=True) if line < ruling.lineno]
            target = named[0] if named else (above[-1] if above else numbers[0])
            self.notes.setdefault(target, []).append(f"{ruling.label}: {text}")


class _WikiReader:
    """The MTG Wiki's nested-bullet quotation of a rule."""

    def __init__(self, filename: str) -> None:
        self.filename = filename

    def error(self, line: int, message: str) -> RuleTextError:
        return RuleTextError(self.filename, line, message)

    def read(self, lines: list[str], start: int) -> RuleDocument:
        title_index, date = self.find_title(lines, start)
        bullet = _WIKI_BULLET_RE.fullmatch(lines[title_index])
        assert bullet is not None
        section = _WIKI_TITLE_RE.fullmatch(bullet.group(2).strip())
        assert section is not None
        parser = _Parser(self.filename, _parse_prefix(section.group(1)))
        depth_of = {"title": len(bullet.group(1).expandtabs()), "rule": -1}
        for index in range(title_index, len(lines)):
            raw = lines[index]
            if raw.strip() and not raw[0].isspace():
                break  # the quotation ends at the first unindented line
            self.line(parser, depth_of, index + 1, raw)
        document = parser.document()
        return replace(document, date=date)

    def find_title(self, lines: list[str], start: int) -> tuple[int, str]:
        """The line of the rule's title bullet, and the date the "From the ..." line above it gives."""
        date = ""
        for index in range(start, len(lines)):
            line = lines[index].strip()
            source = _WIKI_FROM_RE.fullmatch(line)
            if source:  # "June 7, 2024—Modern Horizons 3" reads "June 7, 2024 (Modern Horizons 3)"
                day, _, name = _collapse(source.group(1)).partition("\u2014")
                date = f"{day.strip()} ({name.strip()})" if name else day
                continue
            bullet = _WIKI_BULLET_RE.fullmatch(lines[index])
            if bullet and _WIKI_TITLE_RE.fullmatch(bullet.group(2).strip()):
                return index, date
        raise self.error(
            0, "no quoted rule found; expected a bullet line such as '  • 603. Handling Triggered Abilities'"
        )

    def line(self, parser: _Parser, depth_of: dict[str, int], lineno: int, raw: str) -> None:
        """Check one bullet's nesting, then read its text as an official-format line."""
        bullet = _WIKI_BULLET_RE.fullmatch(raw)
        if bullet is None:
            parser.feed(lineno, raw)  # an example (indented) or a blank line
            return
        depth = len(bullet.group(1).expandtabs())
        text = bullet.group(2).strip()
        if _WIKI_RULE_RE.fullmatch(text):
            if depth <= depth_of["title"]:
                raise self.error(lineno, f"rule {text.split()[0]} is not nested under the title bullet")
            depth_of["rule"] = depth
        elif not _WIKI_TITLE_RE.fullmatch(text) and not _SUBRULE_RE.fullmatch(text):
            dotless = _DOTLESS_RE.fullmatch(text)
            hint = f"; {text.split()[0]} lacks the dot after its number" if dotless else ""
            raise self.error(
                lineno,
                f"bullet {_shorten(text)!r} is no rule ('603.1. text'), subrule ('603.1a text') or title{hint}",
            )
        elif not _WIKI_TITLE_RE.fullmatch(text) and depth <= depth_of["rule"]:
            raise self.error(
                lineno,
                f"{_shorten(text.split()[0] if text else text)} is not nested under its rule; "
                "expected a subrule bullet indented deeper than the rule above it",
            )
        parser.feed(lineno, text)
