"""Parse the Comprehensive Rules plain-text format into numbered clauses.

The verifier ties every formal clause to the exact wording it was built from, so the
rule text has to be read from a file rather than pasted into Python: when Wizards of
the Coast change a word, the clause's :attr:`RuleClause.text_hash` changes and the
models built from the old wording can be flagged as stale.

The format is the one of the official ``MagicCompRules *.txt`` files::

    603. Handling Triggered Abilities          <- section title, not a clause

    603.2. Whenever a game event ...            <- rule: number, dot, space, text

    603.2c An ability triggers only once ...    <- subrule: letters, no dot
    Example: A permanent has an ability ...     <- belongs to the clause above

Our data files may add, before the first rule, a metadata header of ``Key: value``
lines (``Source``, ``Date``, ``Edition``) saying where the wording came from, and
``#`` comment lines anywhere.  Because the official file holds every rule of the
game, :func:`parse_rules` keeps only the clauses under a rule-number ``prefix``; the
lines of other rules are skipped without judging them, so a typo in rule 704 cannot
stop a check of rule 603.  A ``Glossary`` line after the rules ends the parse, as
the official file's glossary and credits are prose, not clauses.  Only metadata,
titles, comments and blank lines may precede the first rule, so the introduction
of the official file (its prose and "Contents" list) has to be cut off before
parsing: text there is more likely a broken data file than something to skip.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from dataclasses import dataclass

from ..errors import InvalidArgument, RuleTextError

__all__ = ["RuleClause", "RuleDocument", "load_rules", "parse_rules"]

#: The metadata keys a header may set, mapped to the RuleDocument field they fill.
#: ``Format`` names the reader (see :mod:`.editiontext`); it fills no field.
_METADATA_KEYS = {"Source": "source", "Date": "date", "Edition": "edition", "Language": "language", "Format": "format"}

# "603.2. text" -- a numbered rule.  The text group is optional so that an empty
# clause is reported as such instead of as an unrecognised line.
_RULE_RE = re.compile(r"(\d+)\.(\d+)\.(?:\s+(.*))?")
# "603.2a text" -- a subrule.  Letters, not one letter: the rules skip "l" and "o"
# and a long list could continue past "z".
_SUBRULE_RE = re.compile(r"(\d+)\.(\d+)([a-z]+)(?:\s+(.*))?")
# "603. Handling Triggered Abilities" (and chapter titles like "6. Spells, ...").
_TITLE_RE = re.compile(r"(\d+)\.(?:\s+(.*))?")
# "603.2 text" -- almost a rule; only used to give a better error message.
_DOTLESS_RE = re.compile(r"(\d+)\.(\d+)(?:\s.*)?")
# "Example: text", and the French translation's "Exemple : text" (French typography puts
# a space before the colon).
_EXAMPLE_RE = re.compile(r"(?:Example:|Exemple\s?:)(.*)")
_METADATA_RE = re.compile(r"([A-Za-z][A-Za-z0-9 _-]*?)\s*:\s*(.*)")
# "603", "603.2" or "603.2a"; a trailing dot is tolerated ("603.2.").
_PREFIX_RE = re.compile(r"(\d+)(?:\.(\d+)([a-z]+)?)?\.?")

# A sentence ends at . ! or ? (plus closing quotes/brackets) that follows a word --
# not a space or another dot, which rules out the ". . ." ellipsis of the rules --
# and is followed by whitespace or the end of the text.  "rule 603.7" is not an
# end because a digit follows the dot.
_SENTENCE_END_RE = re.compile(r"(?<=[^\s.])[.!?][\u201d\u2019\"')\]]*(?=\s|$)")

_SUMMARY_LIMIT = 90

#: Heading that follows the last numbered rule in the official file.
_END_OF_RULES = "Glossary"
_OFFICIAL_FIRST_LINE = "Magic: The Gathering Comprehensive Rules"

_Key = tuple[int, int, str]


def _collapse(text: str) -> str:
    """Collapse runs of whitespace to one space, so layout changes never change a hash."""
    return " ".join(text.split())


@dataclass(frozen=True)
class RuleClause:
    """One numbered rule or subrule together with the examples printed under it."""

    number: str
    text: str
    examples: tuple[str, ...]
    line: int
    # What a source prints next to the rule but is not its wording: the rulings
    # database's "[CompRules 2003/07/01]" tags and the rulings filed under the rule.
    notes: tuple[str, ...] = ()

    @property
    def text_hash(self) -> str:
        """Fingerprint of the wording, so a model can notice that its rule text changed.

        Examples are included because they are part of the official text and a changed
        example usually signals a changed reading of the rule.  Notes are not: they say
        where the wording was printed, and the same wording copied from two sources
        must hash alike.
        """
        payload = self.text + "\n" + "\n".join(self.examples)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]

    @property
    def summary(self) -> str:
        """The first sentence, at most 90 characters, for one-line reports and tables."""
        match = _SENTENCE_END_RE.search(self.text)
        sentence = self.text[: match.end()] if match else self.text
        if len(sentence) <= _SUMMARY_LIMIT:
            return sentence
        cut = sentence[: _SUMMARY_LIMIT - 1]
        space = cut.rfind(" ")
        if space >= _SUMMARY_LIMIT // 2:  # prefer a word boundary when one is near
            cut = cut[:space]
        return cut.rstrip(" ,;:") + "\u2026"


@dataclass(frozen=True)
class RuleDocument:
    """The clauses of one rule (or of any number prefix) from one rules file."""

    source: str
    date: str
    edition: str
    filename: str
    title: str
    clauses: tuple[RuleClause, ...]
    language: str = "en"  # ISO 639-1; the official rules are English, translations say so

    def get(self, number: str) -> RuleClause:
        """Return the clause ``number`` ("603.2a"; a trailing dot is ignored).

        Raises KeyError naming the file and the nearest known numbers, because a wrong
        clause id is usually a typo or a clause that exists only in another edition.
        """
        wanted = number.strip().rstrip(".")
        for clause in self.clauses:
            if clause.number == wanted:
                return clause
        known = self.numbers()
        close = difflib.get_close_matches(wanted, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        span = f"{known[0]} .. {known[-1]}" if known else "none"
        raise KeyError(f"no clause {number!r} in {self.filename} ({len(known)} clauses: {span}){hint}")

    def numbers(self) -> tuple[str, ...]:
        """The clause numbers in file order, e.g. ("603.1", "603.1a", ...)."""
        return tuple(clause.number for clause in self.clauses)


def _parse_prefix(prefix: str) -> tuple[str, ...]:
    """Split ``"603.2a"`` into ``("603", "2", "a")``; ``""`` keeps every rule."""
    if not isinstance(prefix, str):
        raise InvalidArgument(f"prefix={prefix!r}: expected a str such as '603'")
    prefix = prefix.strip()
    if prefix == "":
        return ()
    match = _PREFIX_RE.fullmatch(prefix)
    if match is None:
        raise InvalidArgument(f"prefix={prefix!r}: expected a rule number such as '603', '603.2' or '603.2a'")
    return tuple(part for part in match.groups() if part is not None)


def _matches(parts: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    """Component-wise prefix test, so "603.2" keeps 603.2a but not 603.20."""
    return parts[: len(prefix)] == prefix


def _order_key(section: str, rule: str, letters: str) -> _Key:
    """Sort key for clause numbers: 603.2 < 603.2a < 603.2z < 603.2aa < 603.3."""
    # len first so that "aa" sorts after "z"; "" (the rule itself) sorts first.
    return (int(section), int(rule), f"{len(letters):02d}{letters}")


def _split_lines(text: str) -> list[str]:
    """Split on LF, CRLF or lone CR only -- not on the exotic separators of splitlines().

    ``str.splitlines`` also breaks at U+2028, form feeds and the like, which would shift
    line numbers away from what an editor shows.
    """
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


class _Parser:
    """Line-by-line state machine; one instance parses one text.

    Only the clauses under the prefix are validated; lines belonging to other rules
    are skipped, so that the rules part of the official file serves any single rule.
    """

    def __init__(self, filename: str, prefix: tuple[str, ...]) -> None:
        self.filename = filename
        self.prefix = prefix
        self.metadata: dict[str, str] = {}
        self.metadata_line: dict[str, int] = {}
        self.title = ""
        self.title_line = 0
        self.seen_rule = False  # any rule or subrule yet, kept or not
        # Clause that "Example:" lines attach to: its index in self.numbers, -1 for a
        # clause outside the prefix, None at the start and right after a title line.
        self.current: int | None = None
        self.last_rule = ""  # the last "N.M." rule seen, kept or not
        self.seen_rules: set[str] = set()
        self.numbers: list[str] = []
        self.texts: list[str] = []
        self.lines: list[int] = []
        self.examples: list[list[str]] = []
        self.first_line: dict[str, int] = {}
        self.last_key: _Key | None = None
        # Set at the official file's "Glossary" heading, which ends the numbered rules;
        # glossary definitions are free prose and are not parsed.
        self.done = False
        # The official full file opens with an introduction and a table of contents
        # (which repeats every section title) before the first rule; that is skipped.
        self.official_preamble = False

    def error(self, line: int, message: str) -> RuleTextError:
        return RuleTextError(self.filename, line, message)

    def feed(self, lineno: int, raw: str) -> None:
        """Classify one line and hand it to the matching handler."""
        line = raw.strip()
        if self.done or not line or line.startswith("#"):
            return
        if self.seen_rule and line == _END_OF_RULES:
            self.done = True
            return
        match = _RULE_RE.fullmatch(line)
        if match:
            section, rule, text = match.groups()
            self.clause(lineno, section, rule, "", text)
            return
        match = _SUBRULE_RE.fullmatch(line)
        if match:
            section, rule, letters, text = match.groups()
            self.clause(lineno, section, rule, letters, text)
            return
        match = _TITLE_RE.fullmatch(line)
        if match:
            self.section_title(lineno, match.group(1), match.group(2))
            return
        match = _EXAMPLE_RE.fullmatch(line)
        if match:
            self.example(lineno, match.group(1))
            return
        if not self.seen_rule:
            self.header(lineno, line)
        else:
            self.other(lineno, line)

    def clause(self, lineno: int, section: str, rule: str, letters: str, text: str | None) -> None:
        """Record a rule ("603.2.") or subrule ("603.2a") line."""
        self.seen_rule = True
        parent = f"{section}.{rule}"
        number = parent + letters
        parts = (section, rule, letters) if letters else (section, rule)
        last_rule = self.last_rule
        if not letters:
            self.last_rule = parent
            self.seen_rules.add(parent)
        if not _matches(parts, self.prefix):
            self.current = -1
            return
        shown = number if letters else number + "."
        body = _collapse(text or "")
        if not body:
            raise self.error(
                lineno,
                f"clause {shown} has no text; expected the rule text after the number, "
                f"as in '{shown} Whenever a game event ...'",
            )
        if number in self.first_line:
            raise self.error(
                lineno,
                f"duplicate clause {number} (first on line {self.first_line[number]}); "
                "each rule number may appear only once",
            )
        if letters and parent not in self.seen_rules:
            raise self.error(
                lineno,
                f"subrule {number} has no parent rule; expected a line '{parent}. ...' before it",
            )
        if letters and last_rule != parent:
            raise self.error(
                lineno,
                f"subrule {number} must come right after rule {parent}. and its other "
                f"subrules, but the last rule before it is {last_rule}.",
            )
        key = _order_key(section, rule, letters)
        if self.last_key is not None and key < self.last_key:
            raise self.error(
                lineno,
                f"clause {number} is out of order after {self.numbers[-1]}; "
                "expected clause numbers in increasing order",
            )
        self.last_key = key
        self.first_line[number] = lineno
        self.current = len(self.numbers)
        self.numbers.append(number)
        self.texts.append(body)
        self.lines.append(lineno)
        self.examples.append([])

    def section_title(self, lineno: int, section: str, text: str | None) -> None:
        """Remember the title of the prefix's section; a title ends the clause above."""
        self.current = None
        if self.prefix != (section,):
            return
        title = _collapse(text or "")
        if not title:
            raise self.error(
                lineno,
                f"title line '{section}.' has no title; expected e.g. '{section}. Handling Triggered Abilities'",
            )
        if self.title and self.official_preamble and not self.numbers:
            pass  # the table of contents named this section; the body's title line follows
        elif self.title:
            raise self.error(
                lineno,
                f"second title for section {section} (first on line {self.title_line}); "
                "expected one title line per section",
            )
        self.title = title
        self.title_line = lineno

    def example(self, lineno: int, text: str) -> None:
        """Attach an "Example:" line to the clause directly above it."""
        if self.current is None:
            raise self.error(
                lineno,
                "'Example:' line has no clause above it; an example must come right "
                "after the rule or subrule it illustrates (e.g. after '603.2c ...')",
            )
        if self.current < 0:
            return  # example of a rule outside the prefix
        body = _collapse(text)
        if not body:
            raise self.error(
                lineno,
                f"'Example:' line for {self.numbers[self.current]} has no text; expected 'Example: <text>'",
            )
        self.examples[self.current].append(body)

    def header(self, lineno: int, line: str) -> None:
        """A line before the first rule: 'Key: value' metadata, or the official file's introduction."""
        if line.startswith(_OFFICIAL_FIRST_LINE):
            self.official_preamble = True
        if self.official_preamble:
            return
        match = _METADATA_RE.fullmatch(line)
        known = ", ".join(_METADATA_KEYS)
        if match is None:
            raise self.error(
                lineno,
                f"unexpected text before the first rule: {_shorten(line)!r}; expected "
                f"'Key: value' metadata ({known}), a title such as "
                "'603. Handling Triggered Abilities', a '#' comment or a blank line",
            )
        key, value = match.group(1), _collapse(match.group(2))
        if key not in _METADATA_KEYS:
            raise self.error(
                lineno,
                f"unknown metadata key {key!r}; expected one of {known}",
            )
        if key in self.metadata_line:
            raise self.error(
                lineno,
                f"metadata key {key!r} given twice (first on line "
                f"{self.metadata_line[key]}); expected each key at most once",
            )
        if not value:
            raise self.error(lineno, f"metadata key {key!r} has no value; expected '{key}: <value>'")
        if key == "Format" and value != "official":
            raise self.error(
                lineno,
                f"this file is in the {value!r} format, not the official plain text; "
                "read it with load_rule_text(), which picks the reader from this key",
            )
        self.metadata[_METADATA_KEYS[key]] = value
        self.metadata_line[key] = lineno

    def other(self, lineno: int, line: str) -> None:
        """A line after the first rule that is no rule, title or example.

        Tolerated among other rules (the official file ends with a glossary); inside
        the prefix it is almost always a typo in a rule number, so it is an error.
        """
        dotless = _DOTLESS_RE.fullmatch(line)
        if dotless and _matches(dotless.groups(), self.prefix):
            number = f"{dotless.group(1)}.{dotless.group(2)}"
            raise self.error(
                lineno,
                f"{number} lacks the dot after its number; expected '{number}. text' "
                f"for a rule or '{number}a text' for a subrule",
            )
        if self.current is not None and self.current >= 0:
            raise self.error(
                lineno,
                f"unrecognised line after clause {self.numbers[self.current]}: "
                f"{_shorten(line)!r}; expected a rule ('603.2. text'), a subrule "
                "('603.2a text'), an 'Example: text' line, a title or a blank line",
            )

    def document(self) -> RuleDocument:
        """Finish the parse; a prefix with no clause is an error (line 0: no line)."""
        if not self.numbers:
            wanted = ".".join(self.prefix[:2]) + "".join(self.prefix[2:]) or "any rule"
            raise self.error(
                0,
                f"no clause found for {wanted}; expected lines such as "
                f"'{wanted}.1. text' or '{wanted}a text' (is the prefix right?)"
                if self.prefix
                else "no clause found; expected lines such as '603.1. text'",
            )
        clauses = tuple(
            RuleClause(number, text, tuple(examples), line)
            for number, text, examples, line in zip(self.numbers, self.texts, self.examples, self.lines, strict=True)
        )
        return RuleDocument(
            source=self.metadata.get("source", ""),
            date=self.metadata.get("date", ""),
            edition=self.metadata.get("edition", ""),
            filename=self.filename,
            title=self.title,
            clauses=clauses,
            language=self.metadata.get("language", "en"),
        )


def _shorten(line: str, limit: int = 60) -> str:
    """Keep quoted offending lines short so error messages stay on one line."""
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def parse_rules(text: str, *, filename: str = "<string>", prefix: str = "603") -> RuleDocument:
    """Parse rules text and keep the clauses whose number starts with ``prefix``.

    ``prefix`` is matched by number components ("603" keeps 603.1 and 603.2a;
    "603.2" keeps 603.2 and 603.2a-i but not 603.20; "" keeps every rule).
    A leading BOM and CRLF or CR line endings are accepted, because the official
    files have shipped with both.  Raises :class:`RuleTextError` naming the line.
    """
    parser = _Parser(filename, _parse_prefix(prefix))
    for lineno, line in enumerate(_split_lines(text), start=1):
        parser.feed(lineno, line)
    return parser.document()


def load_rules(path: str | os.PathLike[str], *, prefix: str = "603") -> RuleDocument:
    """Read a UTF-8 rules file (a BOM is tolerated) and parse it with :func:`parse_rules`.

    Bytes that are not UTF-8 are reported as a :class:`RuleTextError` on their line,
    since old official files were published in Windows-1252 and that is a file
    problem, not a program bug.  A missing file raises the usual ``OSError``.
    """
    filename = str(path)
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RuleTextError(
            filename,
            line,
            f"byte 0x{data[exc.start]:02x} is not UTF-8; expected the rules text saved "
            "as UTF-8 (re-save it, e.g. from Windows-1252)",
        ) from None
    return parse_rules(text, filename=filename, prefix=prefix)
