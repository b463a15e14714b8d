"""Encodings per edition: the reviewed decisions, renumbering, staleness, edition-specific behaviour, --add."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rule603.models.editions as index
from rule603._internal import editions as ed
from rule603._internal.bmc import violations
from rule603._internal.catalogue import load_edition
from rule603._internal.editions import REUSE, EditionText, find_edition, load_decisions
from rule603.cli import ExitCode, main
from rule603.models.current import edition as current_edition
from tracebuilder import TraceBuilder

OLDER = ("2024-06", "battlefield-en", "battlefield-fr", "2008", "2004")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "MagicCompRules-fixture.txt"
CURRENT = current_edition()


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fresh_editions():
    """Editions are cached per id; a test that swaps a text file starts and ends with empty caches."""
    index.edition.cache_clear()
    yield
    index.edition.cache_clear()


# --- every edition, every clause -------------------------------------------------------------


@pytest.mark.parametrize("name", OLDER)
def test_every_clause_is_encoded_or_not_modelled(name):
    edition = load_edition(name)
    statuses = {n: edition.status(n) for n in edition.rules.numbers()}
    assert set(statuses.values()) <= {"encoded", "not modelled"}, statuses
    # The current game rules, plus the one that switches off the features the edition lacks, if any.
    numbers = [ax.number for ax in edition.axioms]
    assert numbers == [ax.number for ax in CURRENT.axioms] + (["model.features"] if edition.absent else [])
    assert edition.model is CURRENT.model


@pytest.mark.parametrize("name", OLDER)
def test_decisions_name_real_encodings_and_say_what_changes(name):
    """A reuse names an encoded current clause the alignment links to; a changed wording or own encoding has a note."""
    edition = load_edition(name)
    own = index.own_encodings()
    for d in load_decisions(index.decision_file(name)):
        assert d.number in edition.rules.numbers()
        if d.kind == REUSE:
            assert d.target in CURRENT.by_number, d
            assert d.number in edition.local(d.target), f"{name} {d.number}: the alignment does not link {d.target}"
            changed = CURRENT.by_number[d.target].text_hash != d.text_hash
            assert d.note or not changed, f"{name} {d.number}: reused across a wording change without a note"
        elif d.kind == ed.OWN:
            assert d.target in own and d.note, d
        else:
            assert len(d.target) > 20, d  # a reason a reader can act on


def test_decision_table_counts():
    """The decision table in short; it changes only with a reviewed decision file."""

    def counts(name):
        kinds = [d.kind for d in load_decisions(index.decision_file(name))]
        return {k: kinds.count(k) for k in (REUSE, ed.OWN, ed.NOT_MODELLED)}

    assert counts("2024-06") == {REUSE: 44, ed.OWN: 0, ed.NOT_MODELLED: 3}
    assert counts("battlefield-en") == counts("battlefield-fr") == {REUSE: 27, ed.OWN: 3, ed.NOT_MODELLED: 2}
    assert counts("2008") == {REUSE: 2, ed.OWN: 6, ed.NOT_MODELLED: 2}
    assert counts("2004") == {REUSE: 9, ed.OWN: 6, ed.NOT_MODELLED: 5}


def test_a_reused_encoding_is_renumbered_and_keeps_its_function():
    e2004 = load_edition("2004")
    enc = e2004.by_number["410.6"]
    assert (
        enc.fn is CURRENT.by_number["603.2c"].fn
        and enc.text_hash == find_edition("2004").document().get("410.6").text_hash
    )
    assert enc.origin == "reuses current 603.2c"
    # Precedence is re-keyed to the edition's numbers: the intervening "if" steps over 410.2, not 603.2.
    assert set(e2004.by_number["410.8"].overrides) == {"410.2", "608.2"}
    assert ("101.2", "410.2") in e2004.precedence()
    # 2008's 404.2 stands for both 603.2 and 603.2c: re-keyed, 404.4b's two exceptions share the key 404.2,
    # so each is kept under the current number it was written against, for ``exempt`` to find.
    e404_4b = load_edition("2008").by_number["404.4b"]
    assert set(e404_4b.overrides) == {"404.2"}
    assert e404_4b.as_written is not None and set(e404_4b.as_written) == {"603.2", "603.2c"}
    assert ("603.2e", "603.2") in load_edition("battlefield-en").precedence()


def test_exempt_speaks_the_editions_numbers():
    """2004: with 410.8 on, a false intervening 'if' keeps 410.2 from requiring the ability to trigger."""
    b = TraceBuilder()
    b.const("kind", "dealt_damage", 0).const("has_if", True, 0).move(0, 0, "battlefield")
    trace = b.at(1, "matches", 1, 0).at(1, "attempts", 1, 0).build()
    e2004 = load_edition("2004")
    assert [(v.moment, v.clause) for v in violations(e2004, trace, ["410.2"], include_axioms=False)] == [(1, "410.2")]
    assert violations(e2004, trace, ["410.2", "410.8"], include_axioms=False) == []
    assert violations(CURRENT, trace, ["603.2", "603.4"], include_axioms=False) == []


# --- a changed word makes exactly that clause stale ---------------------------------------------


def test_changing_one_word_of_an_edition_makes_that_clause_stale(tmp_path, monkeypatch, capsys, fresh_editions):
    text = (index.HERE / "battlefield-en.txt").read_text(encoding="utf-8")
    old = "The choice is made when the ability resolves."
    assert text.count(old) == 1
    copy = tmp_path / "battlefield-en.txt"
    copy.write_text(text.replace(old, "The choice is made as the ability resolves."), encoding="utf-8")
    swapped = tuple(EditionText(t.id, copy) if t.id == "battlefield-en" else t for t in index.EDITIONS)
    monkeypatch.setattr(index, "EDITIONS", swapped)
    edition = load_edition("battlefield-en")
    stale = [n for n in edition.rules.numbers() if edition.status(n) == "stale"]
    assert stale == ["603.5"]
    code, out, _ = run(capsys, "clauses", "--edition", "battlefield-en", "--format", "json")
    rows = {r["clause"]: r for r in json.loads(out)}
    assert code == 0 and [n for n, r in rows.items() if r["status"] == "stale"] == ["603.5"]
    assert "reuses current 603.5: typography only" in rows["603.5"]["note"]


# --- edition-specific behaviour ---------------------------------------------------------------------


def _placed_together(order: tuple[int, int]) -> TraceBuilder:
    """Player 0 (active) has 'whenever an ability triggers', player 1 a damage trigger; both go on the stack at 1."""
    b = TraceBuilder()
    b.const("owner", 1, 1).from_(0, "controller", 1, 1)
    b.const("kind", "ability_triggers", 0).const("kind", "dealt_damage", 1)
    for c in (0, 1):
        b.const("creature_card", True, c).move(0, c, "battlefield")
    return b.stack(1, *[b.ability(c) for c in order], controller=order, moment=1, zone="battlefield")


def test_apnap_in_one_part_or_two():
    """The current 603.3b holds 'triggers on triggering' back for a second part; the battlefield edition does not."""
    nap_first, ap_first = _placed_together((1, 0)).build(), _placed_together((0, 1)).build()
    battlefield = load_edition("battlefield-en")

    def broken(edition, trace):
        return [(v.moment, v.clause, v.about) for v in violations(edition, trace, ["603.3b"], include_axioms=False)]

    assert broken(CURRENT, nap_first) == [] and broken(battlefield, nap_first) == [(1, "603.3b", "slots 0<1")]
    assert broken(battlefield, ap_first) == [] and broken(CURRENT, ap_first) == [(1, "603.3b", "slots 0<1")]


@pytest.mark.parametrize("looks_back", [True, False])
def test_a_countered_spell_looks_back_only_since_603_10e(looks_back):
    b = TraceBuilder().const("kind", "countered_self", 0)
    trace = b.from_(0, "look_back", looks_back, 0).build()
    now = violations(CURRENT, trace, ["603.10e"], include_axioms=False)
    then = violations(load_edition("battlefield-en"), trace, ["603.6d"], include_axioms=False)
    assert (now == []) == looks_back and (then == []) != looks_back


def test_2008_creates_delayed_abilities_only_on_resolution():
    """A delayed ability created by a replacement effect: allowed by 603.7a (current and battlefield), not by 404.4a."""
    b = TraceBuilder(moments=2)
    b.move(0, 0, "battlefield").const("d_cause", "replacement", 0).const("d_source", 0, 0)
    trace = b.at(1, "registered", True, 0).at(1, "replacement_applied", True, 0).build()
    assert violations(CURRENT, trace, ["603.7a"], include_axioms=False) == []
    assert violations(load_edition("battlefield-en"), trace, ["603.7a"], include_axioms=False) == []
    found = violations(load_edition("2008"), trace, ["404.4a"], include_axioms=False)
    assert [(v.moment, v.clause) for v in found] == [(1, "404.4a")]


def test_2008_404_4b_sets_aside_what_404_2_says_as_603_2c_does():
    """A delayed ability without a duration meets its trigger event twice in one batch and triggers once: 404.4b
    (today's 603.7b) sets aside 404.2's "each time its trigger event occurs", the part 603.2c says today."""
    b = TraceBuilder(moments=3)
    delayed = b.size("card")  # the first delayed ability's index
    b.const("d_kind", "creature_dies", 0).at(1, "registered", True, 0)
    for name, value in (("matches", 2), ("attempts", 2), ("base_triggers", 1), ("triggers", 1)):
        b.at(2, name, value, delayed)
    trace = b.build()
    e2008 = load_edition("2008")
    assert [(v.moment, v.clause) for v in violations(e2008, trace, ["404.2"], include_axioms=False)] == [(2, "404.2")]
    assert violations(e2008, trace, ["404.2", "404.4b"], include_axioms=False) == []
    assert violations(CURRENT, trace, ["603.2", "603.2c", "603.7b"], include_axioms=False) == []


# --- verify in an older edition ----------------------------------------------------------------------


def test_verify_in_an_older_edition_renumbers_or_says_not_applicable(capsys):
    code, out, _ = run(
        capsys,
        *("verify", "--edition", "battlefield-en", "--bound", "3", "--format", "json"),
        *("--property", "hidden-card-never-triggers", "--property", "countered-looks-back"),
    )
    props = {p["id"]: p for p in json.loads(out)["properties"]}
    assert props["hidden-card-never-triggers"]["clauses"] == ["603.2e"]  # current 603.2g
    assert props["hidden-card-never-triggers"]["verdict"] == "holds"
    assert props["countered-looks-back"]["verdict"] == "not applicable"
    assert props["countered-looks-back"]["reason"] == "603.10e: no counterpart in battlefield-en"
    assert code == ExitCode.OK


def test_verify_table_counts_not_applicable_apart(capsys):
    code, out, _ = run(capsys, "verify", "--edition", "2008", "--bound", "2", "--property", "countered-looks-back")
    assert "not applicable (603.10e: no counterpart in 2008)" in out
    assert "0 hold, 0 violated, 0 unknown, 1 not applicable" in out and code == ExitCode.OK


# --- adding an edition from an official file ------------------------------------------------------


@pytest.fixture
def scratch_index(tmp_path, monkeypatch, fresh_editions):
    """`editions --add` writes into a temporary folder, and the index lists what is written there."""
    monkeypatch.setattr(ed, "editions_folder", lambda: tmp_path)
    return tmp_path


def test_add_copies_rule_603_and_shows_what_is_stale(capsys, scratch_index, monkeypatch):
    code, out, err = run(capsys, "editions", "--add", str(FIXTURE), "--id", "2025-04")
    assert code == ExitCode.OK and err == ""
    assert "1 stale (603.2h)" in out and "43 unchanged" in out
    copied = (scratch_index / "2025-04.txt").read_text(encoding="utf-8")
    assert "Date: April 18, 2025" in copied and "Edition: 2025-04" in copied
    assert "604.1." not in copied and "100.1." not in copied and "Glossary" not in copied
    # Loaded, the edition has the current encodings by number: exactly the changed clause is stale.
    monkeypatch.setattr(index, "EDITIONS", (*index.EDITIONS, EditionText("2025-04", scratch_index / "2025-04.txt")))
    edition = load_edition("2025-04")
    assert [n for n in edition.rules.numbers() if edition.status(n) == "stale"] == ["603.2h"]
    assert sum(edition.status(n) == "encoded" for n in edition.rules.numbers()) == 43
    # Never overwritten without --overwrite.
    code, _, err = run(capsys, "editions", "--add", str(FIXTURE), "--id", "2025-04")
    assert code == ExitCode.USAGE and "exists; add --overwrite" in err and err.count("\n") == 1
    code, _, _ = run(
        capsys, "editions", "--add", str(FIXTURE), "--id", "2025-04", "--overwrite", "--date", "2025-04-18"
    )
    assert code == ExitCode.OK and "Date: 2025-04-18\n" in (scratch_index / "2025-04.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["editions", "--add", "FIXTURE"], "--add FILE needs --id ID"),
        (["editions", "--add", "FIXTURE", "--id", "current"], "--id current: lower-case letters"),
        (["editions", "--add", "missing.txt", "--id", "x"], "--add missing.txt: cannot read it"),
        (["editions", "--add", "NO603", "--id", "x"], "no rule 603.1 in it"),
        (["editions", "--id", "x"], "--id, --date and --overwrite go with --add FILE"),
    ],
)
def test_add_mistakes_are_one_line(capsys, scratch_index, argv, message):
    no603 = scratch_index / "other.txt"
    no603.write_text("604. Handling Static Abilities\n\n604.1. Static abilities do something.\n", encoding="utf-8")
    argv = [str(FIXTURE) if a == "FIXTURE" else str(no603) if a == "NO603" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.USAGE and out == "" and message in err and err.count("\n") == 1


def test_the_fixture_is_the_current_rule_with_one_word_changed():
    """The fixture stays a faithful 'new release': same clauses as the current text, one of them reworded."""
    from rule603._internal.ruletext import parse_rules

    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    start, end = ed._rule_603_lines(lines, FIXTURE)
    doc = parse_rules("\n".join(lines[start:end]))
    assert doc.numbers() == CURRENT.rules.numbers()
    assert [c.number for c in doc.clauses if c.text_hash != CURRENT.rules.get(c.number).text_hash] == ["603.2h"]
