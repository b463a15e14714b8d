"""The editions of the rule text: each reader on its seed, malformed pages, the CLI, the alignments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rule603._internal.editions import (
    KINDS,
    align,
    committed_alignments,
    edition_texts,
    find_edition,
    mechanical_kind,
    propose,
)
from rule603._internal.editiontext import read_rule_text
from rule603.cli import ExitCode, main
from rule603.errors import RuleTextError

EDITIONS = Path(__file__).resolve().parents[1] / "models" / "editions"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def doc(edition_id):
    return find_edition(edition_id).document()


# --- each reader on its seed-derived data file ------------------------------------------


def test_rulings_2004_reads_rule_410_with_its_tags_and_ruling():
    d = doc("2004")
    assert d.numbers()[:3] == ("410.1", "410.2", "410.3") and len(d.clauses) == 20
    assert d.title == "Handling Triggered Abilities" and d.language == "en" and d.date.startswith("2004-01-15")
    six = d.get("410.6")
    # Wrapped over three lines in the seed; the tag after the example is not wording.
    assert six.text == (
        "An ability triggers only once each time its trigger event occurs. However, it can trigger "
        "repeatedly if one event contains multiple occurrences. See also Rule 410.9."
    )
    assert six.examples == (
        'A permanent has an ability whose trigger condition reads, "Whenever a land is put into a graveyard '
        'from play, ...." If someone plays a spell that destroys all lands, the ability will trigger once for '
        "each land put into the graveyard during the spell's resolution.",
    )
    assert six.notes == ("Example 1: CompRules 2003/07/01",)
    assert d.get("410.10c").notes == ("CompRules 2003/10/01",)
    # The ruling names 410.10a, so it is filed there, not under 410.11 where it is printed.
    assert any(n.startswith("410.Ruling.1: Cards that are not in play") for n in d.get("410.10a").notes)
    assert not any("Ruling" in n for n in d.get("410.11").notes)
    assert "CompRules" not in "".join(c.text + "".join(c.examples) for c in d.clauses)


def test_rulings_2008_reads_rule_404_bullets():
    d = doc("2008")
    assert d.numbers() == (
        "404.1",
        "404.2",
        "404.3",
        "404.4",
        "404.4a",
        "404.4b",
        "404.4c",
        "404.4d",
        "404.4e",
        "404.5",
    )
    assert d.title == "Triggered Abilities" and d.date.startswith("2008-03-17")
    assert d.get("404.4b").text == (
        "A delayed triggered ability will trigger only once--the next time its trigger event occurs--unless it has "
        'a stated duration, such as "this turn."'
    )
    assert len(d.get("404.4a").examples) == 2 and len(d.get("404.5").examples) == 2
    assert d.get("404.4e").notes == ("CompRules 2007/10/01",)


def test_wiki_2024_reads_the_quotation_and_not_the_worked_examples():
    d = doc("2024-06")
    assert len(d.clauses) == 47 and d.numbers()[0] == "603.1" and d.numbers()[-1] == "603.12a"
    assert d.date.startswith("2024-06-07")
    assert d.get("603.2i").text == (
        "A triggered ability may have an instruction followed by \u201cDo this only once each turn.\u201d This "
        "ability triggers only if its source\u2019s controller has not yet taken the indicated action that turn."
    )
    assert d.get("603.7a").examples[1].startswith("If an effect reads \u201cWhen this creature becomes untapped\u201d")
    assert "Drekavac" not in " ".join(c.text + " ".join(c.examples) for c in d.clauses)


def test_wiki_text_equals_the_current_text_where_the_rule_did_not_change():
    """Two sources of (nearly) one edition: where the wording is equal, the hashes are too."""
    wiki, current = doc("2024-06"), doc("current")
    assert wiki.get("603.3b").text_hash == current.get("603.3b").text_hash
    assert wiki.get("603.6a").text_hash != current.get("603.6a").text_hash  # "enters the battlefield" -> "enters"


def test_battlefield_english_and_french_from_the_one_page():
    en, fr = doc("battlefield-en"), doc("battlefield-fr")
    assert en.numbers() == fr.numbers() and len(en.clauses) == 32
    assert (en.language, fr.language) == ("en", "fr")
    assert fr.title == "Gérer les capacités déclenchées"
    assert en.get("603.2d").text.startswith('Some trigger events use the word "becomes" (for example, "becomes tapped"')
    assert fr.get("603.2f").examples == (
        "Une capacité qui se déclenche quand des blessures sont infligées ne se déclenchera pas si les blessures "
        "sont prévenues.",
    )
    assert len(fr.get("603.7a").examples) == 2  # "Exemple :" lines are examples


def test_every_edition_lists_source_date_and_language():
    for text in edition_texts():
        d = text.document()
        assert d.source and d.date and d.language in ("en", "fr"), text.id
        assert d.edition == text.id, text.id


# --- malformed pages: one line naming the file and the line ---------------------------


RULINGS_HEAD = "Format: rulings\n---\n410 - Handling Triggered Abilities\n"


@pytest.mark.parametrize(
    "text, line, words",
    [
        (RULINGS_HEAD + "- 410.1 text without the dash\n", 4, "malformed entry"),
        (RULINGS_HEAD + "- 410.1 - One. [CompRules 2003/07/01]\n- 411.2 - Two.\n", 5, "not part of rule 410"),
        (RULINGS_HEAD + "- 410.2 - Two.\n- 410.1 - One.\n", 5, "out of order"),
        (RULINGS_HEAD + "- 410.1 - One.\n- 410.1 - Again.\n", 5, "duplicate clause 410.1"),
        (RULINGS_HEAD + "- 410.1a - Sub without parent.\n", 4, "no parent rule"),
        (RULINGS_HEAD + "stray words\n", 4, "text outside any entry"),
        ("Format: rulings\n---\n- 410.1 - One.\n410 - Handling\n", 3, "before the rule's title"),
        ("Format: rulings\nSource: x\nDate: y\nThis search based on\n", 4, "'---' line to end the header"),
        ("Format: rulings\nSource: x\nSource: y\n---\n", 3, "given twice"),
        ("Format: rulings\n---\nnothing here\n", 0, "no title line"),
    ],
)
def test_rulings_errors_name_file_and_line(text, line, words):
    with pytest.raises(RuleTextError) as info:
        read_rule_text(text, filename="page.txt")
    err = info.value
    assert (err.filename, err.line) == ("page.txt", line) and words in err.message
    assert "\n" not in str(err) and str(err).startswith(f"page.txt:{line}: ")


WIKI_HEAD = (
    "Format: wiki\n---\nFrom the Comprehensive Rules (June 7, 2024\u2014Modern Horizons 3)\n\n  \u2022 603. Handling\n"
)


@pytest.mark.parametrize(
    "body, line, words",
    [
        ("  \u2022 603.1. Rule at the title's depth.\n", 6, "not nested under the title"),
        ("    \u2022 603.1. Rule.\n    \u2022 603.1a Sub at the rule's depth.\n", 7, "not nested under its rule"),
        ("    \u2022 603.1. Rule.\n      stray text\n", 7, "unrecognised line after clause 603.1"),
        ("    \u2022 603.1 Rule without its dot.\n", 6, "lacks the dot"),
    ],
)
def test_wiki_errors_name_file_and_line(body, line, words):
    with pytest.raises(RuleTextError) as info:
        read_rule_text(WIKI_HEAD + body, filename="wiki.txt")
    assert (info.value.line, words in info.value.message) == (line, True), info.value.message


def test_wiki_page_without_a_quotation_and_an_unknown_format():
    with pytest.raises(RuleTextError, match="no quoted rule found"):
        read_rule_text("Format: wiki\n---\nJust prose.\n", filename="w.txt")
    with pytest.raises(RuleTextError, match="unknown format 'html'"):
        read_rule_text("Format: html\n603.1. Rule.\n", filename="w.txt")
    with pytest.raises(RuleTextError, match="read it with load_rule_text"):
        from rule603._internal.ruletext import parse_rules

        parse_rules("Format: wiki\n603.1. Rule.\n", filename="w.txt")


def test_a_fresh_page_is_read_without_a_header(tmp_path):
    """A saved rulings page, as is, with only the reader named: the page's own date is used."""
    page = (EDITIONS / "2004.txt").read_text(encoding="utf-8").split("---\n", 1)[1]
    d = read_rule_text(page, filename="fresh.txt", reader="rulings")
    assert len(d.clauses) == 20 and d.date == "January 15, 2004 (release of the Rulings)" and d.source == ""


# --- the command line ------------------------------------------------------------------


def test_editions_json(capsys):
    code, out, _ = run(capsys, "editions", "--format", "json")
    data = json.loads(out)
    assert code == ExitCode.OK
    rows = {r["id"]: r for r in data["editions"]}
    assert list(rows) == ["2004", "2008", "battlefield-en", "battlefield-fr", "2024-06", "current"]
    assert {k: rows["2004"][k] for k in ("language", "clauses", "rule")} == {
        "language": "en",
        "clauses": 20,
        "rule": "410",
    }
    assert rows["battlefield-fr"]["language"] == "fr" and rows["2008"]["clauses"] == 10
    assert {r["id"]: r["encoded"] for r in data["editions"]} == {
        **{e: "reviewed" for e in ("2004", "2008", "battlefield-en", "battlefield-fr", "2024-06")},
        "current": "own module",
    }
    assert rows["2024-06"]["date"].startswith("2024-06-07") and rows["current"]["clauses"] == 47


def test_editions_table_and_markdown(capsys):
    code, out, _ = run(capsys, "editions")
    assert code == 0 and "battlefield-fr" in out and "models/editions/2008.txt" in out
    line_2004 = next(line for line in out.splitlines() if line.startswith("2004 "))
    assert line_2004.split()[:5] == ["2004", "2004-01-15", "en", "410", "20"]
    code, out, _ = run(capsys, "editions", "--format", "markdown")
    assert code == 0 and "| battlefield-en" in out


def test_align_table_and_json(capsys):
    code, out, _ = run(capsys, "editions", "--align", "battlefield-en", "2024-06")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("603.2d "))
    assert row.split()[:3] == ["603.2d", "603.2f", "renumbered+reworded"]
    code, out, _ = run(capsys, "editions", "--align", "battlefield-fr", "battlefield-en", "--format", "json")
    data = json.loads(out)
    assert code == 0 and {x["kind"] for x in data["links"]} == {"translation"}
    assert all(x["similarity"] is None for x in data["links"]) and len(data["links"]) == 32


def test_align_reversed_and_composed(capsys):
    back = align("2024-06", "battlefield-en")
    assert [(x.a, x.b, x.kind) for x in back.links if x.a == "603.2f"] == [("603.2f", "603.2d", "renumbered+reworded")]
    assert {x.kind for x in back.links if x.a == "603.12"} == {"removed"}
    composed = align("2004", "current")
    rows = {(x.a, x.b): x.kind for x in composed.links}
    assert rows["410.7", "603.2h"] == "renumbered+reworded"  # 410.7 -> 603.2f -> 603.2h, typography changed
    assert ("410.9", None) in rows and rows["410.9", None] == "removed"
    assert {x.b for x in composed.links if x.a == "410.2"} == {"603.2", "603.2b", "603.3", "603.3a"}
    covered_b = {x.b for x in composed.links}
    assert set(doc("current").numbers()) <= covered_b


@pytest.mark.parametrize(
    "argv, message",
    [
        (["editions", "--align", "2004", "1999"], "--align 1999: unknown edition; known: 2004, 2008"),
        (["editions", "--align", "current", "current"], "name two different editions"),
        (["clauses", "--edition", "1999"], "--edition 1999: unknown edition; known: 2004, 2008, battlefield-en"),
        (["clauses", "--edition", "2024-6"], "Did you mean 2024-06?"),
    ],
)
def test_editions_usage_errors_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.USAGE and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


# --- the reviewed alignments -----------------------------------------------------------


def test_every_committed_alignment_covers_both_editions_exactly():
    found = committed_alignments()
    assert {(al.a, al.b) for al in found} == {
        ("2004", "battlefield-en"),
        ("2008", "battlefield-en"),
        ("battlefield-fr", "battlefield-en"),
        ("battlefield-en", "2024-06"),
        ("2024-06", "current"),
    }
    for al in found:
        assert Path(al.path).name == f"align-{al.a}-{al.b}.json"
        assert al.problems(doc(al.a), doc(al.b)) == []


def test_alignment_kinds_agree_with_numbers_and_wording():
    """'same', 'reworded', 'renumbered' are facts a reviewer cannot overrule; split/merged must be many-to-one."""
    for al in committed_alignments():
        da, db = doc(al.a), doc(al.b)
        for x in al.links:
            assert x.kind in KINDS
            if x.kind in ("same", "reworded", "renumbered", "renumbered+reworded"):
                assert mechanical_kind(da.get(x.a), db.get(x.b)) == x.kind, (al.path, x)
            if x.kind == "split":
                assert sum(y.a == x.a for y in al.links) > 1, (al.path, x)
            if x.kind == "merged":
                assert sum(y.b == x.b for y in al.links) > 1, (al.path, x)
            if x.kind == "translation":
                assert da.language != db.language, (al.path, x)


def test_coverage_check_reports_a_missing_and_an_unknown_clause():
    al = next(a for a in committed_alignments() if a.a == "2024-06")
    broken = type(al)(al.a, al.b, al.links[1:] + (type(al.links[0])("603.99", "603.1", "same"),), path="x.json")
    problems = broken.problems(doc("2024-06"), doc("current"))
    assert "x.json: 603.1 of 2024-06 is neither aligned nor marked removed" in problems
    assert any("603.99 is no clause of 2024-06" in p for p in problems)


def test_propose_finds_the_renumbering_the_review_kept():
    links = propose(doc("battlefield-en"), doc("2024-06"))
    assert ("603.2d", "603.2f") in {(x.a, x.b) for x in links}
    assert ("603.6e", "603.6d") in {(x.a, x.b) for x in links}


# --- installed layout ------------------------------------------------------------------


def test_the_data_files_are_package_data():
    """pyproject ships the *.txt and *.json of models/editions, and the index names only files that exist."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    config = tomllib.loads((EDITIONS.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "rule603.models.editions" in config["packages"]
    patterns = config["package-data"]["rule603.models.editions"]
    shipped = {p.name for pattern in patterns for p in EDITIONS.glob(pattern)}
    for text in edition_texts():
        assert text.path.is_file(), text.path
        if text.path.parent.name == "editions":
            assert text.path.name in shipped
    assert {Path(al.path).name for al in committed_alignments()} <= shipped


def test_adding_an_endless_or_huge_file_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    """``editions --add /dev/zero`` read until memory ran out (issue 40): at most MAX_BYTES are read now."""
    from rule603._internal import documents, editions

    monkeypatch.setattr(editions, "editions_folder", lambda: tmp_path)
    monkeypatch.setattr(documents, "MAX_BYTES", 1000)
    huge = tmp_path / "rules.txt"
    huge.write_text("603. Handling Triggered Abilities\n" * 100, encoding="utf-8")
    for source in (str(huge), "/dev/zero"):
        assert main(["editions", "--add", source, "--id", "huge"]) == ExitCode.USAGE
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--add {source}: larger than" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules.txt"]  # nothing added
