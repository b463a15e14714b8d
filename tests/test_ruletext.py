"""Tests for the Comprehensive Rules text parser and the shipped rule 603 data file."""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rule603._internal.ruletext import RuleClause, load_rules, parse_rules
from rule603.errors import InvalidArgument, Rule603Error, RuleTextError

DATA_FILE = pathlib.Path(__file__).resolve().parents[1] / "models/current/rule603.txt"

EXPECTED_NUMBERS = (
    ["603.1", "603.1a", "603.2"]
    + [f"603.2{c}" for c in "abcdefghi"]
    + ["603.3"]
    + [f"603.3{c}" for c in "abcd"]
    + ["603.4", "603.5", "603.6"]
    + [f"603.6{c}" for c in "abcde"]
    + ["603.7"]
    + [f"603.7{c}" for c in "abcdefgh"]
    + ["603.8", "603.9", "603.10"]
    + [f"603.10{c}" for c in "abcdefg"]
    + ["603.11", "603.12", "603.12a"]
)


@pytest.fixture(scope="module")
def doc():
    return load_rules(DATA_FILE)


def expected_hash(text: str, examples: tuple[str, ...]) -> str:
    payload = text + "\n" + "\n".join(examples)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]


def parse_error(text: str, **kwargs) -> RuleTextError:
    with pytest.raises(RuleTextError) as info:
        parse_rules(text, filename="t.txt", **kwargs)
    err = info.value
    assert "\n" not in str(err), "error messages must be one line"
    assert str(err).startswith(f"t.txt:{err.line}: ")
    return err


# --------------------------------------------------------------------------- data


def test_data_file_has_the_47_clauses_in_order(doc):
    assert len(EXPECTED_NUMBERS) == 47
    assert doc.numbers() == tuple(EXPECTED_NUMBERS)
    assert [c.number for c in doc.clauses] == EXPECTED_NUMBERS


def test_data_file_metadata_and_title(doc):
    assert doc.title == "Handling Triggered Abilities"
    assert doc.edition == "current"
    assert doc.source.startswith("Comprehensive Rules text of rule 603 as given in")
    assert "001_9f931470afde94c9.txt" in doc.source
    assert doc.date.startswith("after June 7, 2024 (")
    assert doc.filename == str(DATA_FILE)


def test_603_2c_has_its_one_example(doc):
    clause = doc.get("603.2c")
    assert clause.text.startswith("An ability triggers only once")
    assert len(clause.examples) == 1
    assert clause.examples[0].startswith("A permanent has an ability whose trigger")
    assert "\u201cWhenever a land is put into a graveyard from the battlefield, . . . .\u201d" in (clause.examples[0])


def test_603_10a_example_belongs_to_603_10a_not_603_10(doc):
    assert doc.get("603.10").examples == ()
    (example,) = doc.get("603.10a").examples
    assert example.startswith("Two creatures are on the battlefield")
    assert doc.get("603.10").text.endswith("The list of exceptions is as follows:")


def test_examples_are_attached_where_the_seed_puts_them(doc):
    with_examples = {c.number: len(c.examples) for c in doc.clauses if c.examples}
    assert with_examples == {
        "603.2c": 1,
        "603.2f": 1,
        "603.2h": 1,
        "603.4": 1,
        "603.6b": 1,
        "603.7a": 2,
        "603.7c": 1,
        "603.8": 1,
        "603.10a": 1,
        "603.11": 1,
        "603.12": 1,
    }
    assert doc.get("603.7a").examples[1].startswith("If an effect reads \u201cWhen this")


def test_data_file_text_is_kept_verbatim(doc):
    # Curly quotes, dashes and the ". . ." sequences survive unchanged.
    assert doc.get("603.1").text == (
        "Triggered abilities have a trigger condition and an effect. They are written as "
        "\u201c[When/Whenever/At] [trigger condition or event], [effect]. "
        "[Instructions (if any).]\u201d"
    )
    assert "rules 603.7d\u2013f." in doc.get("603.3a").text
    assert "only once\u2014the next time" in doc.get("603.7b").text
    assert "\u201cintervening \u2018if\u2019 clause\u201d rule" in doc.get("603.4").text
    # The seed has an opening quote where a closing one belongs; kept as given.
    assert (
        "\u201cWhen [this object] enters, . . . \u201c or \u201cWhenever a [type] enters, . . .\u201d"
        in doc.get("603.6a").text
    )


def test_data_file_line_numbers_point_at_the_clause(doc):
    lines = DATA_FILE.read_text(encoding="utf-8").split("\n")
    for clause in doc.clauses:
        assert lines[clause.line - 1].startswith(clause.number + (" " if clause.number[-1].isalpha() else ". "))


def test_data_file_hashes_match_the_documented_formula(doc):
    for clause in doc.clauses:
        assert clause.text_hash == expected_hash(clause.text, clause.examples)
        assert len(clause.text_hash) == 12
    assert len({c.text_hash for c in doc.clauses}) == 47


def test_get_unknown_number_raises_helpful_keyerror(doc):
    assert doc.get("603.2c.") is doc.get("603.2c")
    with pytest.raises(KeyError) as info:
        doc.get("603.2z")
    message = str(info.value)
    assert "603.2z" in message
    assert str(DATA_FILE) in message
    assert "47 clauses" in message


def test_prefix_narrows_to_one_rule(doc):
    narrowed = load_rules(DATA_FILE, prefix="603.2")
    assert narrowed.numbers() == ("603.2",) + tuple(f"603.2{c}" for c in "abcdefghi")
    assert narrowed.title == ""
    assert narrowed.get("603.2c") == doc.get("603.2c")


# ------------------------------------------------------------------------ summary


def test_summary_is_the_first_sentence(doc):
    assert doc.get("603.1").summary == "Triggered abilities have a trigger condition and an effect."
    assert doc.get("603.10a").summary == "Some zone-change triggers look back in time."
    # A quoted sentence ends after the closing quote.
    assert doc.get("603.2i").summary == (
        "A triggered ability may have an instruction followed by \u201cDo this only once each turn.\u201d"
    )


def test_summary_does_not_stop_at_ellipsis_or_rule_numbers():
    clause = parse_rules("603.1. Reads \u201centers with . . . ,\u201d as rule 603.7 says. Then more.").clauses[0]
    assert clause.summary == "Reads \u201centers with . . . ,\u201d as rule 603.7 says."


def test_long_summary_is_cut_with_ellipsis(doc):
    for clause in doc.clauses:
        assert len(clause.summary) <= 90
    summary = doc.get("603.2").summary
    assert summary.endswith("\u2026")
    assert doc.get("603.2").text.startswith(summary[:-1])
    words = " ".join(["word"] * 40)
    assert parse_rules(f"603.1. {words}").clauses[0].summary == " ".join(["word"] * 17) + "\u2026"


# ------------------------------------------------------------------------- hashing


def test_hash_is_stable_and_ignores_layout():
    a = parse_rules("603.1. An ability triggers.\nExample: One.\n").clauses[0]
    b = parse_rules("603.1.   An  ability\ttriggers.  \n\n  Example:   One. \n").clauses[0]
    assert a == dataclasses.replace(b, line=a.line)
    assert a.text_hash == b.text_hash == expected_hash("An ability triggers.", ("One.",))


def test_hash_changes_with_one_character():
    base = RuleClause("603.1", "An ability triggers once.", ("One.",), 1)
    assert dataclasses.replace(base, text="An ability triggers twice.").text_hash != base.text_hash
    assert dataclasses.replace(base, text="An ability triggers once!").text_hash != base.text_hash
    assert dataclasses.replace(base, examples=("One!",)).text_hash != base.text_hash
    assert dataclasses.replace(base, examples=()).text_hash != base.text_hash
    assert dataclasses.replace(base, line=99, number="603.9").text_hash == base.text_hash


@settings(max_examples=200, derandomize=True)
@given(
    text=st.text(alphabet="abcXYZ09 .,\u201c\u201d", min_size=1, max_size=40).filter(
        lambda s: s.strip() and s == " ".join(s.split())
    ),
    data=st.data(),
)
def test_hash_changes_when_any_single_character_changes(text, data):
    index = data.draw(st.integers(0, len(text) - 1))
    replacement = data.draw(st.sampled_from("abcXYZ09.,\u2019").filter(lambda c: c != text[index]))
    changed = text[:index] + replacement + text[index + 1 :]
    one = RuleClause("603.1", text, (), 1)
    assert one.text_hash == RuleClause("603.1", text, (), 7).text_hash
    assert RuleClause("603.1", changed, (), 1).text_hash != one.text_hash


# -------------------------------------------------------------------------- errors


def test_example_without_clause_is_an_error():
    err = parse_error("# comment\n\nExample: nothing above me.\n\n603.1. Rule.\n")
    assert err.line == 3
    assert "Example" in err.message and "after the rule or subrule" in err.message
    # A title line ends the clause above it, so an example right after it is orphaned.
    err = parse_error("603.1. Rule.\n\n604. Handling Static Abilities\nExample: orphan.\n")
    assert err.line == 4


def test_duplicate_clause_is_an_error():
    err = parse_error("603.1. One.\n\n603.1a Sub.\n\n603.1a Again.\n")
    assert err.line == 5
    assert "duplicate clause 603.1a" in err.message and "line 3" in err.message
    assert parse_error("603.1. One.\n603.1. Two.\n").line == 2


def test_unknown_metadata_key_is_an_error():
    err = parse_error("Source: somewhere\nAuthor: me\n\n603.1. Rule.\n")
    assert err.line == 2
    assert "'Author'" in err.message and "Source, Date, Edition" in err.message


def test_other_text_before_first_rule_is_an_error():
    err = parse_error("Source: x\n\nThese rules are effective now.\n603.1. Rule.\n")
    assert err.line == 3
    assert "before the first rule" in err.message
    assert parse_error("Date: a\nDate: b\n603.1. R.\n").line == 2
    assert parse_error("Edition:\n603.1. R.\n").line == 1


def test_clause_with_empty_text_is_an_error():
    assert parse_error("603.1.\n").line == 1
    err = parse_error("603.1. Rule.\n\n603.1a   \n")
    assert err.line == 3
    assert "603.1a has no text" in err.message
    assert parse_error("603.1. Rule.\nExample:\n").line == 2


def test_no_clause_for_prefix_is_an_error_on_line_0():
    err = parse_error("")
    assert err.line == 0
    assert "no clause found for 603" in err.message
    err = parse_error("601.2. Casting a spell.\n\n704.5a Something.\n")
    assert err.line == 0
    assert parse_error("603.1. Rule.\n", prefix="603.2").line == 0


def test_subrule_order_is_checked():
    err = parse_error("603.1. One.\n\n603.2a Orphan.\n")
    assert err.line == 3
    assert "no parent rule" in err.message and "603.2." in err.message
    err = parse_error("603.1. One.\n603.2. Two.\n603.1a Late.\n")
    assert err.line == 3
    assert "603.1a must come right after rule 603.1." in err.message
    err = parse_error("603.2. Two.\n603.1. One.\n")
    assert err.line == 2
    assert "out of order" in err.message
    err = parse_error("603.1. One.\n603.1b B.\n603.1a A.\n")
    assert err.line == 3


def test_subrule_letters_past_z_sort_after_z():
    letters = "abcdefghijkmnpqrstuvwxyz"
    lines = ["603.1. Rule."] + [f"603.1{c} Sub {c}." for c in letters] + ["603.1aa Sub aa."]
    doc = parse_rules("\n".join(lines))
    assert doc.numbers()[-2:] == ("603.1z", "603.1aa")
    assert parse_error("603.1. R.\n603.1aa A.\n603.1b B.\n").line == 3


def test_unrecognised_line_inside_prefix_is_an_error():
    err = parse_error("603.1. One.\nstray continuation\n")
    assert err.line == 2
    assert "after clause 603.1" in err.message
    err = parse_error("603.1. One.\n603.2 Missing dot.\n")
    assert err.line == 2
    assert "603.2 lacks the dot" in err.message


def test_error_is_part_of_the_error_tree():
    err = parse_error("603.1.\n")
    assert isinstance(err, Rule603Error)
    assert err.filename == "t.txt"
    with pytest.raises(InvalidArgument, match="prefix="):
        parse_rules("603.1. R.", prefix="rule 603")


def test_load_rules_reports_non_utf8_line(tmp_path):
    path = tmp_path / "cp1252.txt"
    path.write_bytes(b"603.1. Rule.\n\n603.1a It can\x92t.\n")
    with pytest.raises(RuleTextError) as info:
        load_rules(path)
    assert info.value.line == 3
    assert info.value.filename == str(path)


# ---------------------------------------------------------------- line endings, BOM


def test_crlf_and_bom_parse_like_lf(tmp_path, doc):
    text = DATA_FILE.read_text(encoding="utf-8")
    crlf = "\ufeff" + text.replace("\n", "\r\n")
    assert parse_rules(crlf, filename=doc.filename) == doc
    path = tmp_path / "crlf.txt"
    path.write_bytes(crlf.encode("utf-8"))
    loaded = load_rules(path)
    assert loaded.clauses == doc.clauses
    assert (loaded.title, loaded.source, loaded.date, loaded.edition) == (
        doc.title,
        doc.source,
        doc.date,
        doc.edition,
    )
    # Old Mac-style lone CR line endings too.
    assert parse_rules(text.replace("\n", "\r"), filename=doc.filename) == doc


# --------------------------------------------------------------- full-CR-like input

FULL_CR_LIKE = """\
1. Game Concepts

100. General

100.1. These Magic rules apply to any Magic game with two or more players.

100.1a A two-player game is a game that begins with only two players.

6. Spells, Abilities, and Effects

601. Casting Spells

601.2. To cast a spell is to take it from where it is and put it on the stack.

601.2a To propose the casting of a spell, a player first moves that card.
Example: A player casts a spell from the top of their library.

603. Handling Triggered Abilities

603.1. Triggered abilities have a trigger condition and an effect.

603.1a A triggered ability may include instructions after its effects.

603.2. Whenever a game event matches, that ability automatically triggers.

603.2c An ability triggers only once each time its trigger event occurs.
Example: Lands are destroyed.

603.20. A made-up rule that prefix 603.2 must not pick up.

704. State-Based Actions

704.5. The state-based actions are as follows:

704.5a If a player has 0 or less life, that player loses the game.
Example: Not an example of 603.20.

6030.1. A made-up section that prefix 603 must not pick up.

Glossary

Abandon
To turn a face-up ongoing scheme card face down.
"""


def test_full_cr_like_input_keeps_only_the_prefix():
    doc = parse_rules(FULL_CR_LIKE, prefix="603")
    assert doc.numbers() == ("603.1", "603.1a", "603.2", "603.2c", "603.20")
    assert doc.title == "Handling Triggered Abilities"
    assert doc.get("603.2c").examples == ("Lands are destroyed.",)
    assert doc.get("603.20").examples == ()
    assert doc.get("603.1").line == 20
    assert doc.source == doc.date == doc.edition == ""


def test_full_cr_like_input_other_prefixes():
    assert parse_rules(FULL_CR_LIKE, prefix="603.2").numbers() == ("603.2", "603.2c")
    assert parse_rules(FULL_CR_LIKE, prefix="603.2c").numbers() == ("603.2c",)
    assert parse_rules(FULL_CR_LIKE, prefix="603.").numbers()[0] == "603.1"
    casting = parse_rules(FULL_CR_LIKE, prefix="601")
    assert casting.title == "Casting Spells"
    assert casting.get("601.2a").examples == ("A player casts a spell from the top of their library.",)
    everything = parse_rules(FULL_CR_LIKE, prefix="")
    assert everything.numbers() == (
        "100.1",
        "100.1a",
        "601.2",
        "601.2a",
        "603.1",
        "603.1a",
        "603.2",
        "603.2c",
        "603.20",
        "704.5",
        "704.5a",
        "6030.1",
    )


def test_glossary_ends_the_rules():
    text = "603.1. Rule.\n\nGlossary\n\nAbandon\nTo turn a scheme face down.\n603.9. Not a rule.\n"
    assert parse_rules(text).numbers() == ("603.1",)
    assert parse_error("Glossary\n\n603.1. Rule.\n").line == 1


def test_errors_in_other_rules_do_not_matter():
    text = "603.1. Rule.\n\n704.5b\n704.5a Out of order and parentless.\n704.5a Duplicate.\nGlossary\n"
    assert parse_rules(text).numbers() == ("603.1",)


# --------------------------------------------------------------------- properties

SUBRULE_LETTERS = "abcdefghijkmnpqrstuvwxyz"  # the rules skip l and o
# Safe: no newlines; includes tabs and runs of spaces (collapsed), '#' and "Example:"
# inside the text (only a leading '#' / "Example:" is special), typographic quotes.
SAFE_ALPHABET = "abcdefgXYZ0123456789 \t.,;:()[]#-\u2019\u201c\u201d\u2014\u2013"
phrases = st.text(alphabet=SAFE_ALPHABET, min_size=1, max_size=60).filter(lambda s: s.split())


def collapse(s: str) -> str:
    return " ".join(s.split())


@st.composite
def documents(draw):
    """A well-formed rules document as a list of (number, text, examples)."""
    rules = sorted(draw(st.lists(st.integers(1, 40), min_size=1, max_size=6, unique=True)))
    entries = []
    for rule in rules:
        numbers = [f"603.{rule}"]
        letters = sorted(draw(st.lists(st.sampled_from(SUBRULE_LETTERS), unique=True, max_size=4)))
        numbers += [f"603.{rule}{letter}" for letter in letters]
        for number in numbers:
            entries.append((number, draw(phrases), draw(st.lists(phrases, max_size=3))))
    layout = {
        "header": draw(st.booleans()),
        "title": draw(st.booleans()),
        "noise": draw(st.booleans()),
        "blanks": draw(st.lists(st.integers(1, 3), min_size=len(entries), max_size=len(entries))),
        "example_gap": draw(st.integers(0, 1)),
        "comments": draw(st.booleans()),
    }
    return entries, layout


def render(entries, layout) -> tuple[str, list[int]]:
    """Render to the official layout; also return the expected line of each clause."""
    lines: list[str] = []
    clause_lines: list[int] = []
    if layout["header"]:
        lines += [
            "# generated",
            "Source: hypothesis",
            "Date: today",
            "Edition: test",
            "",
        ]
    if layout["noise"]:
        lines += [
            "602. Activating Abilities",
            "",
            "602.1. Noise rule.",
            "Example: noise example.",
            "",
        ]
    if layout["title"]:
        lines += ["603. Handling Triggered Abilities", ""]
    for (number, text, examples), blanks in zip(entries, layout["blanks"], strict=True):
        sep = " " if number[-1].isalpha() else ". "
        clause_lines.append(len(lines) + 1)
        lines.append(number + sep + text)
        for example in examples:
            lines += [""] * layout["example_gap"]
            lines.append("Example: " + example)
        if layout["comments"]:
            lines.append("# a comment between entries")
        lines += [""] * blanks
    if layout["noise"]:
        lines += [
            "604. Handling Static Abilities",
            "",
            "604.1. Noise.",
            "",
            "604.1a More noise.",
        ]
    return "\n".join(lines) + "\n", clause_lines


@settings(max_examples=200, derandomize=True)
@given(documents())
def test_round_trip_of_generated_documents(document):
    entries, layout = document
    text, clause_lines = render(entries, layout)
    doc = parse_rules(text, filename="gen.txt")
    assert doc.numbers() == tuple(number for number, _, _ in entries)
    assert [c.text for c in doc.clauses] == [collapse(t) for _, t, _ in entries]
    assert [c.examples for c in doc.clauses] == [tuple(collapse(e) for e in ex) for _, _, ex in entries]
    assert [c.line for c in doc.clauses] == clause_lines
    assert doc.title == ("Handling Triggered Abilities" if layout["title"] else "")
    assert (doc.source, doc.date, doc.edition) == (
        ("hypothesis", "today", "test") if layout["header"] else ("", "", "")
    )
    for clause in doc.clauses:
        assert clause.text_hash == expected_hash(clause.text, clause.examples)
        assert len(clause.summary) <= 90


@settings(max_examples=200, derandomize=True)
@given(documents(), st.booleans())
def test_crlf_rendering_parses_the_same(document, bom):
    entries, layout = document
    text, _ = render(entries, layout)
    crlf = ("\ufeff" if bom else "") + text.replace("\n", "\r\n")
    assert parse_rules(crlf, filename="gen.txt") == parse_rules(text, filename="gen.txt")


def test_official_full_file_layout_with_introduction_and_contents() -> None:
    """The official file: introduction, a contents list repeating titles and 'Glossary', then the rules."""
    text = "\n".join(
        [
            "\ufeffMagic: The Gathering Comprehensive Rules",
            "",
            "These rules are effective as of November 14, 2025.",
            "",
            "Introduction",
            "This document is the ultimate authority for Magic: The Gathering competitive game play.",
            "",
            "Contents",
            "",
            "1. Game Concepts",
            "100. General",
            "6. Spells, Abilities, and Effects",
            "603. Handling Triggered Abilities",
            "Glossary",
            "Credits",
            "",
            "1. Game Concepts",
            "",
            "100. General",
            "",
            "100.1. These Magic rules apply to any Magic game with two or more players.",
            "",
            "603. Handling Triggered Abilities",
            "",
            "603.1. Triggered abilities have a trigger condition and an effect.",
            "",
            "603.1a A triggered ability may include instructions after its effects.",
            "",
            "Glossary",
            "",
            "Abandon",
            "To turn a face-up ongoing scheme card face down.",
        ]
    )
    doc = parse_rules(text, filename="MagicCompRules.txt")
    assert doc.numbers() == ("603.1", "603.1a")
    assert doc.title == "Handling Triggered Abilities"
    assert doc.get("603.1").line == 25
