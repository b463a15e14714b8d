"""Game features per edition: which ones an edition's text does not govern, and switching them off."""

from __future__ import annotations

from pathlib import Path

import pytest
import rule603.models.editions as index
from rule603._internal.bmc import violations
from rule603._internal.catalogue import builtin_properties, load_edition
from rule603._internal.editions import build_edition, load_absent_features, load_decisions, localise
from rule603._internal.verify import Options, Verifier
from rule603.cli import ExitCode, main
from rule603.errors import InvalidDefinition
from rule603.models.current import edition as current_edition
from rule603.models.features import FEATURES
from tracebuilder import TraceBuilder

CURRENT = current_edition()
IDS = [text.id for text in index.EDITIONS]


@pytest.fixture
def fresh_editions():
    index.edition.cache_clear()
    yield
    index.edition.cache_clear()


def _without(name: str, *present: str):
    """Edition ``name`` built with its reviewed decisions, but with the features ``present`` switched back on."""
    path = index.decision_file(name)
    absent = tuple((f, why) for f, why in load_absent_features(path, FEATURES) if f.name not in present)
    return build_edition(name, load_decisions(path), CURRENT, index.own_encodings(), absent)


def _verdict(edition, property_id: str, bound: int = 3) -> str:
    (prop,), _ = localise([p for p in builtin_properties() if p.id == property_id], edition)
    return Verifier(edition, edition.model.universe(), Options(bound=bound, minimise=False)).check(prop).verdict


# --- the reviewed data ----------------------------------------------------------------------------


def test_which_editions_lack_which_features():
    """The reviewed tables in short; each feature is named in the game's words and has a reason."""
    absent = {name: [f.name for f, _ in load_edition(name).absent] for name in IDS}
    assert absent == {
        "2004": [
            "reflexive_abilities",
            "additional_triggers",
            "once_each_turn",
            "delayed_abilities",
            "becomes_triggers",
            "loses_game_triggers",
            "chapter_abilities",
            "control_gained_triggers",
        ],
        "2008": [
            "reflexive_abilities",
            "additional_triggers",
            "once_each_turn",
            "nth_resolution",
            "state_triggers",
            "enters_triggers",
            "leaves_triggers",
            "look_back_triggers",
            "becomes_triggers",
            "loses_game_triggers",
            "chapter_abilities",
            "control_gained_triggers",
        ],
        "battlefield-en": [
            "reflexive_abilities",
            "additional_triggers",
            "once_each_turn",
            "nth_resolution",
            "control_gained_triggers",
        ],
        "battlefield-fr": [
            "reflexive_abilities",
            "additional_triggers",
            "once_each_turn",
            "nth_resolution",
            "control_gained_triggers",
        ],
        "2024-06": ["control_gained_triggers"],
        "current": [],
    }
    for name in IDS:
        for _, reason in load_edition(name).absent:
            assert reason.startswith(("not in this text's game: ", "outside this text: ")), reason


def test_the_current_edition_has_the_whole_game_and_2024_06_all_but_the_newest_trigger():
    """No switch-off rule where every feature exists; 2024-06 lacks only what its 603.10d does not say (a player's
    opponent gaining control of an object from that player)."""
    assert CURRENT.absent == () and "model.features" not in [ax.number for ax in CURRENT.axioms]
    e2024 = load_edition("2024-06")
    assert [f.name for f, _ in e2024.absent] == ["control_gained_triggers"]
    assert [ax.number for ax in e2024.axioms] == [ax.number for ax in CURRENT.axioms] + ["model.features"]


def test_the_switch_off_rule_names_the_edition_and_its_features():
    (rule,) = [ax for ax in load_edition("battlefield-en").axioms if ax.number == "model.features"]
    assert rule.summary.startswith("the game of edition battlefield-en has none of these: reflexive triggered")
    assert "trigger an additional time" in rule.summary


# --- a mistake in the table is one line -----------------------------------------------------------------


def _with_row(tmp_path: Path, row: str) -> Path:
    text = index.decision_file("2004").read_text(encoding="utf-8")
    copy = tmp_path / "encodings-2004.toml"
    copy.write_text(text.replace("[features]\n", f"[features]\n{row}\n", 1), encoding="utf-8")
    return copy


def test_an_unknown_feature_name_is_refused_with_file_line_and_row(tmp_path):
    copy = _with_row(tmp_path, 'reflexive_ability = "not in this text\'s game: a reason long enough"')
    with pytest.raises(InvalidDefinition) as err:
        load_absent_features(copy, FEATURES)
    line = copy.read_text(encoding="utf-8").splitlines().index("[features]") + 2
    assert str(err.value).startswith(f"{copy}:{line}: [features] reflexive_ability: no such game feature; known: ")
    assert str(err.value).endswith("Did you mean reflexive_abilities?")


def test_a_feature_without_a_reason_is_refused(tmp_path):
    for value in ('""', "3", '"absent"'):
        with pytest.raises(InvalidDefinition, match=r"\[features\] nth_resolution: give the reason"):
            load_absent_features(_with_row(tmp_path, f"nth_resolution = {value}"), FEATURES)


def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path, monkeypatch, capsys, fresh_editions):
    copy = _with_row(tmp_path, 'instances = "not in this text\'s game: a reason long enough"')
    monkeypatch.setattr(index, "decision_file", lambda name: copy if name == "2004" else tmp_path / "none.toml")
    code = main(["clauses", "--edition", "2004"])
    out, err = capsys.readouterr()
    assert code == ExitCode.USAGE
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "encodings-2004.toml:" in err and "[features] instances: no such game feature" in err


# --- switching a feature off --------------------------------------------------------------------------


def _reflexive_trace() -> TraceBuilder:
    """Reflexive ability 0 triggers at moment 1 (nothing else happens)."""
    b = TraceBuilder(moments=2)
    r0 = b.size("card") + b.size("delayed")
    return b.at(1, "matches", 1, r0).at(1, "attempts", 1, r0).at(1, "base_triggers", 1, r0).at(1, "triggers", 1, r0)


@pytest.mark.parametrize(
    ("what", "build"),
    [
        ("a reflexive ability triggers", _reflexive_trace),
        ("a doubler", lambda: TraceBuilder().const("doubler", True, 1)),
        ("'only once each turn'", lambda: TraceBuilder().const("once_each_turn", True, 0)),
        ("created on the Nth resolution", lambda: TraceBuilder().const("d_nth", True, 0)),
        ("an ability triggering more than its base count", lambda: TraceBuilder().at(1, "triggers", 1, 0)),
    ],
)
def test_a_trace_using_an_absent_feature_breaks_the_switch_off_rule(what, build):
    trace = build().build()
    found = {v.clause for v in violations(load_edition("battlefield-en"), trace, [])}
    assert "model.features" in found, what
    assert "model.features" not in {v.clause for v in violations(CURRENT, trace, [])}, what


def test_2004_has_no_delayed_abilities_and_no_becomes_or_loses_game_conditions():
    e2004 = load_edition("2004")
    for build in (
        lambda b: b.at(1, "registered", True, 0),
        lambda b: b.const("d_kind", "end_step", 0),
        lambda b: b.const("kind", "becomes_untapped", 2),
        lambda b: b.const("kind", "player_loses", 2),
    ):
        trace = build(TraceBuilder()).build()
        assert "model.features" in {v.clause for v in violations(e2004, trace, [])}
        assert "model.features" not in {v.clause for v in violations(load_edition("battlefield-en"), trace, [])}


def test_2008_has_no_abilities_that_must_look_back_when_a_permanent_phases_out_changes_control_or_unattaches():
    e2008 = load_edition("2008")
    for kind in ("phases_out", "lose_control", "unattached"):
        trace = TraceBuilder().const("kind", kind, 2).build()
        assert "model.features" in {v.clause for v in violations(e2008, trace, [])}, kind
        assert "model.features" not in {v.clause for v in violations(load_edition("battlefield-en"), trace, [])}, kind


def test_editions_older_than_rule_714_have_no_sagas():
    """2004 and 2008 predate Sagas; battlefield-en is undated, so its game keeps them."""
    trace = TraceBuilder().const("kind", "chapter", 2).const("final_chapter", 1, 2).build()
    for name in ("2004", "2008"):
        assert "model.features" in {v.clause for v in violations(load_edition(name), trace, [])}, name
    for name in ("battlefield-en", "current"):
        assert "model.features" not in {v.clause for v in violations(load_edition(name), trace, [])}, name


def test_absence_removes_the_counterexamples_that_depended_on_it():
    """battlefield-en: without 603.2d nothing ties how often an ability triggers to its base count, so an
    'enters' ability could trigger out of nothing.  With the feature switched off the property holds; with it
    switched back on (every other feature still off) the old counterexample returns."""
    assert _verdict(load_edition("battlefield-en"), "enters-without-abilities") == "holds"
    assert _verdict(_without("battlefield-en", "additional_triggers"), "enters-without-abilities") == "violated"
    # A genuine difference of the text survives: 603.3b in one part lets 'triggers on triggering' go below.
    assert _verdict(load_edition("battlefield-en"), "triggers-on-triggering-go-last", bound=2) == "violated"


def test_clauses_lists_the_absent_features_under_the_table(capsys):
    assert main(["clauses", "--edition", "battlefield-en"]) == 0
    out = capsys.readouterr().out
    tail = out.split("game features absent from the battlefield-en game", 1)[1]
    assert "reflexive_abilities (reflexive triggered abilities ('When you do, ...'); current 603.12, 603.12a)" in tail
    assert main(["clauses", "--edition", "current"]) == 0
    assert "game features absent" not in capsys.readouterr().out
