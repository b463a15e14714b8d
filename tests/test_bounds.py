"""Bounds say what they cut off: a verdict, a ruling and a check name the games the model's bounds leave out.

The expectations come from the game, not from the probe: an ability can trigger again while earlier instances
of it wait only from the third moment on (it triggers, waits, triggers again), and the probe must not find it
sooner; a game within every bound is cut off by none.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from limits import TEST_TIMEOUT_MS
from rule603 import MODEL_BOUND, TraceChecker, load_edition
from rule603._internal import smt
from rule603._internal.bmc import Encoding, violations
from rule603._internal.bounds import cut_off_text, cut_offs
from rule603._internal.ruling import rule
from rule603._internal.schema import Schema
from rule603._internal.trace import Trace, to_json
from rule603.cli import main
from rule603.engines import scenario_file

ED = load_edition("current")
CLAUSES = [e.number for e in ED.encodings]
LIMITS = smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS)
ROOT = Path(__file__).resolve().parent.parent


def _past_model_pending(moments: int, bound: str = "model.pending") -> Trace | None:
    """A game that obeys every clause and game rule but the model bound ``bound``, which it breaks at its last
    moment only: the model's own encoding with the model bounds set aside there."""
    enc = Encoding(ED, ED.model.universe(), LIMITS, room_apart=(MODEL_BOUND,))
    enc.extend(moments)
    g, t = enc.g, moments - 1
    rules = [r for ax in ED.axioms if ax.number == bound for r in ax.rules(g, t) if r.room == MODEL_BOUND]
    broken = [g.And(r.applies, g.Not(r.requires)) for r in rules]
    answer = enc.check(moments, CLAUSES, g.And(g.Or(*broken), *enc.room_literals[:t]), f"past {bound}")
    return enc.extract(moments) if answer == smt.Verdict.SAT else None


def test_the_waiting_instances_bound_is_first_passed_at_the_third_moment():
    assert "model.pending" not in [c.bound for c in cut_offs(ED, ED.model.universe(), LIMITS, 2, CLAUSES)]
    found = {c.bound: c for c in cut_offs(ED, ED.model.universe(), LIMITS, 3, CLAUSES)}
    assert found["model.pending"].moment == 2 and not found["model.pending"].unknown
    assert "model.delayed_reuse" not in found


def test_a_delayed_ability_created_again_while_its_instances_wait_is_first_found_at_the_fourth_moment():
    """A resolution creates it (moment 1, the earliest a resolution can be), it triggers (2), and another
    resolution creates it again while that instance waits or is on the stack (3)."""
    found = {c.bound: c for c in cut_offs(ED, ED.model.universe(), LIMITS, 4, CLAUSES)}
    assert found["model.delayed_reuse"].moment == 3 and not found["model.delayed_reuse"].unknown
    assert "(model.delayed_reuse; from moment 3)" in cut_off_text(list(found.values()), "within bound 4", ED)


def test_the_verdict_line_names_each_bound_and_when_it_is_first_passed():
    cut = cut_offs(ED, ED.model.universe(), LIMITS, 3, CLAUSES)
    text = cut_off_text(cut, "within bound 3", ED)
    assert text.startswith("Cut off: the model leaves out games within bound 3 with ")
    assert "more than 3 objects on the stack (stack_size; from moment" in text
    assert "(model.pending; from moment 2)" in text
    # The rules set no limit on lore counters (proliferate adds them): a game can start with a Saga holding 5, and
    # the model holds at most 4.
    assert "more than 4 lore counters on one permanent (lore; from moment 0)" in text
    assert cut_off_text([], "within bound 3", ED).startswith("Cut off: none.")


def test_a_game_past_the_bound_breaks_no_clause_and_check_says_it_is_cut_off():
    game = _past_model_pending(3)
    assert game is not None
    found = violations(ED, game, CLAUSES)
    assert {(v.moment, v.clause) for v in found} == {(2, "model.pending")}  # the bound (for one or more abilities)
    result = TraceChecker("current").check(game)
    assert result.cut_off and not result.violates and not result.conforms
    assert {(v.moment, v.clause, v.kind) for v in result.violations} == {(2, "model.pending", "model bound")}


def test_a_trace_creating_a_delayed_ability_again_while_its_instance_waits_is_cut_off_not_a_violation():
    game = _past_model_pending(4, "model.delayed_reuse")
    assert game is not None
    result = TraceChecker("current").check(game)
    assert result.cut_off and not result.violates
    assert {(v.moment, v.clause, v.kind) for v in result.violations} == {(3, "model.delayed_reuse", "model bound")}


def test_rule603_check_reports_a_cut_off_trace_with_exit_status_3(tmp_path, capsys):
    game = _past_model_pending(3)
    assert game is not None
    target = tmp_path / "past.json"
    target.write_text(json.dumps(to_json(game, Schema(tuple(ED.model.VARIABLES)))))
    code = main(["check", str(target)])
    out = capsys.readouterr().out
    assert code == 3
    assert "cut off at moment 2" in out and "model.pending" in out
    assert "0 conform, 0 break a clause, 1 cut off by a bound of the model" in out
    assert main(["check", "--format", "json", str(target)]) == 3
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["cut_off"], summary["violating"], summary["violations_by_clause"]) == (1, 0, {})


def test_a_trace_breaking_a_clause_before_the_bound_is_a_violation_not_a_cut_off(tmp_path, capsys):
    game = _past_model_pending(3)
    assert game is not None
    data = to_json(game, Schema(tuple(ED.model.VARIABLES)))
    # Moment 1's triggered instances are dropped: the batch's abilities no longer trigger (603.2) a moment
    # before the bound is passed.
    data["states"][1]["triggers"] = [0] * len(data["states"][1]["triggers"])
    target = tmp_path / "bad.json"
    target.write_text(json.dumps(data))
    assert main(["check", str(target)]) == 1
    assert "cut off" not in capsys.readouterr().out


def test_a_ruling_within_every_bound_says_none_is_cut_off():
    loaded = scenario_file.load(ROOT / "scenarios" / "603.3b-apnap.toml")
    played = scenario_file.play(loaded)
    asks = scenario_file.asks(loaded, played)
    ruling = rule(ED, played, asks, LIMITS, also_fixed=scenario_file.FIXED_BY_SCRIPT, cut_off=True)
    assert ruling.consistent and ruling.cut_off == []


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_rule603_rule_states_what_the_bounds_cut_off(tmp_path, capsys, fmt):
    scenario = ROOT / "scenarios" / "603.3b-apnap.toml"
    assert main(["rule", str(scenario), "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        assert json.loads(out)["cut_off"] == []
    else:
        assert "Cut off: none. No game of this scenario goes past the bounds the solver probes" in out


@pytest.mark.parametrize(
    "name, value, capacity",
    [
        ("triggers", 7, "capacity of 6 instances of one ability in one batch"),  # seven times in one batch
        ("lore", 5, "capacity of 4 lore counters on one permanent"),
    ],
)
def test_a_trace_with_more_than_the_model_holds_is_refused_naming_the_capacity(tmp_path, capsys, name, value, capacity):
    data = json.loads((ROOT / "examples" / "traces" / "board-wipe.json").read_text())
    data["states"][1][name][0] = value
    target = tmp_path / "beyond.json"
    target.write_text(json.dumps(data))
    assert main(["check", str(target)]) == 5
    out = " ".join(capsys.readouterr().out.split())
    assert f"/states/1/{name}/0" in out and capacity in out


def test_a_batch_that_jumps_past_the_capacity_is_found():
    """With one card, no batch holds exactly 7 or 8 instances of its ability, but one can hold 9 (three instances
    of the ability, each seeing three occurrences, 113.2c): the probe must not need a game one count past."""
    cut = cut_offs(ED, ED.model.universe(card=1), LIMITS, 2, CLAUSES)
    found = {c.bound: c for c in cut}
    assert found["triggers"].moment == 1 and found["triggers"].limit == 6 and not found["triggers"].unknown


def test_an_engine_bug_that_breaks_a_rule_beside_the_bound_is_a_violation_not_a_cut_off():
    """An ability triggers again while instances of it wait: the engine gives the new instances the wrong
    controller (603.3a).  That wrong controller is also what makes the instances unlike the waiting ones, so the
    model's bound is passed too; the verdict must be the rule the engine broke."""
    enc = Encoding(ED, ED.model.universe(), LIMITS)
    enc.extend(3)
    g = enc.g
    abilities = range(ED.model.universe().size("ability"))
    again = g.Or(*[g.And(g.pending(1, a) >= 1, g.Not(g.priority(2)), g.triggers(2, a) >= 1) for a in abilities])
    assert enc.check(3, CLAUSES, again, "triggers again while waiting") == smt.Verdict.SAT
    data = to_json(enc.extract(3), Schema(tuple(ED.model.VARIABLES)))
    assert TraceChecker("current").check(json.loads(json.dumps(data))).conforms
    s1, s2 = data["states"][1], data["states"][2]
    a = next(a for a in abilities if s1["pending"][a] >= 1 and s2["triggers"][a] >= 1)
    s2["trigger_controller"][a] = 1 - s2["trigger_controller"][a]
    result = TraceChecker("current").check(data)
    assert result.violates and not result.cut_off
    assert (2, "603.3a") in [(v.moment, v.clause) for v in result.violations]
