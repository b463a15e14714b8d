"""The command line: formats, exit statuses, and one-line errors for user mistakes."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from rule603.cli import ExitCode, main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_clauses_lists_all_47_with_status_and_hash(capsys, edition):
    code, out, _ = run(capsys, "clauses", "--format", "json")
    rows = json.loads(out)
    assert code == ExitCode.OK
    assert [r["clause"] for r in rows] == list(edition.rules.numbers())
    assert sum(r["status"] == "encoded" for r in rows) == 44
    assert {r["clause"]: r["text hash"] for r in rows}["603.2h"] == edition.rules.get("603.2h").text_hash


def test_clauses_table_and_precedence(capsys):
    code, out, _ = run(capsys, "clauses")
    assert code == 0 and "44/47 clauses encoded" in out and "603.10g" in out
    code, out, _ = run(capsys, "clauses", "--precedence", "--format", "markdown")
    assert code == 0 and "| 603.2g" in out


def test_verify_json_shape(capsys):
    code, out, _ = run(capsys, "verify", "--property", "delayed-fires-once", "--bound", "4", "--format", "json")
    data = json.loads(out)
    assert code == ExitCode.OK
    (item,) = data["properties"]
    assert {k: item[k] for k in ("id", "verdict", "clauses", "bound")} == {
        "id": "delayed-fires-once",
        "verdict": "holds",
        "clauses": ["603.7a", "603.7b"],
        "bound": 4,
    }
    assert isinstance(item["seconds"], float)


def test_verify_markdown(capsys):
    code, out, _ = run(capsys, "verify", "--property", "draw-is-not-losing", "--bound", "3", "--format", "markdown")
    assert code == 0 and "| draw-is-not-losing" in out and "holds (to bound 3)" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["verify", "--property", "no-such-thing"], "--property no-such-thing: no such property"),
        (["verify", "--property", "delayed-fires-onc"], "Did you mean delayed-fires-once"),
        (["verify", "--bound", "0"], "--bound 0: must be between 1 and 30"),
        (["verify", "--bound", "31"], "--bound 31: must be between 1 and 30"),
        (["verify", "--bound", "eight"], "--bound eight: must be between 1 and 30"),
        (["verify", "--players", "9"], "--players 9"),
        (["verify", "--edition", "1999"], "--edition 1999: unknown edition"),
        (["verify", "--property-file", "does/not/exist.py"], "--property-file does/not/exist.py: no such file"),
        (["frobnicate"], "invalid choice"),
        (["verify", "--timeout", "nan"], "--timeout nan: must be a positive number"),
        (["verify", "--rlimit", "-1"], "--rlimit -1"),
        (["verify", "--no-builtin"], "--no-builtin: nothing left to check"),
        (["bench", "--bounds", "4,x"], "--bounds 4,x"),
        (["bench", "--bounds", "4,,6"], "--bounds 4,,6: expected comma-separated whole numbers"),
        (["bench", "--bounds", "4,6,"], "--bounds 4,6,: expected comma-separated whole numbers"),
        (["bench", "--timeout", "-1"], "--timeout -1: must be a positive number"),
        (["bench", "--rule", "no/such.toml"], "--rule no/such.toml: no such file"),
        (["bench", "--check", "5", "--rule"], "--check and --rule: one benchmark at a time"),
        (["bench", "--rule", "--reports"], "--rule and --reports: one benchmark at a time"),
        (["bench", "--check", "5", "--players", "3"], "--players, --cards, --slots, --abilities: for the catalogue"),
        (["diff", "2004", "2008", "--timeout", "0"], "--timeout 0: must be a positive number"),
        (["rule", "scenarios/603.10-humility-enters.toml", "--timeout", "inf"], "--timeout inf: must be a positive"),
    ],
)
def test_user_mistakes_get_one_line_and_status_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.USAGE
    assert message in err
    assert err.count("\n") == 1 and err.startswith("rule603")
    assert "Traceback" not in err and out == ""


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_property_file_that_fails_to_import_names_file_and_line(capsys, tmp_path):
    path = write(
        tmp_path,
        "broken.py",
        """\
        from rule603 import prop

        x = 1 / 0
        """,
    )
    code, _, err = run(capsys, "verify", "--property-file", str(path))
    assert code == ExitCode.USAGE
    assert f"Error while importing property file '{path}' (line 3): ZeroDivisionError" in err


def test_property_file_with_syntax_error(capsys, tmp_path):
    path = write(tmp_path, "syntax.py", "def oops(:\n")
    code, _, err = run(capsys, "verify", "--property-file", str(path))
    assert code == ExitCode.USAGE and "(line 1): SyntaxError" in err


def test_property_naming_an_unknown_clause(capsys, tmp_path):
    path = write(
        tmp_path,
        "unknown_clause.py",
        """\
        from rule603 import prop

        @prop("needs-a-ghost", clauses=["603.42"])
        def ghost(g, t):
            return True
        """,
    )
    code, _, err = run(capsys, "verify", "--property-file", str(path), "--no-builtin")
    assert code == ExitCode.USAGE and "clause 603.42: no such clause" in err


VIOLATED_FILE = """\
    from rule603 import prop
    from rule603.models import game as m

    @prop("dies-at-most-once", clauses=["603.2c"])
    def dies_at_most_once(g, t):
        "Wrong on purpose."
        return g.And(*[g.Implies(g.kind(c) == m.CREATURE_DIES, g.triggers(t, c) <= 1) for c in m.cards(g)])
    """


def test_user_property_violated_saved_and_shown(capsys, tmp_path):
    path = write(tmp_path, "mine.py", VIOLATED_FILE)
    out_dir = tmp_path / "traces"
    code, out, _ = run(
        capsys, "verify", "--property-file", str(path), "--no-builtin", "--bound", "4", "--save-traces", str(out_dir)
    )
    assert code == ExitCode.VIOLATED
    assert "VIOLATED at moment 1" in out and "Counterexample to dies-at-most-once" in out
    saved = out_dir / "dies-at-most-once.itf.json"
    trace = json.loads(saved.read_text(encoding="utf-8"))
    assert trace["#meta"]["property"] == "dies-at-most-once" and len(trace["states"]) == 2

    # Nothing the user has is overwritten without being asked.
    before = saved.read_text(encoding="utf-8")
    code, _, err = run(
        capsys, "verify", "--property-file", str(path), "--no-builtin", "--bound", "4", "--save-traces", str(out_dir)
    )
    assert code == ExitCode.USAGE and "--overwrite" in err
    assert saved.read_text(encoding="utf-8") == before

    code, out, _ = run(capsys, "show", str(saved))
    assert code == 0 and "(dies)" in out and "creature_dies" in out


def test_json_output_carries_the_counterexample(capsys, tmp_path):
    path = write(tmp_path, "mine.py", VIOLATED_FILE)
    code, out, _ = run(
        capsys, "verify", "--property-file", str(path), "--no-builtin", "--bound", "3", "--format", "json"
    )
    item = json.loads(out)["properties"][0]
    assert code == 1 and item["verdict"] == "violated" and item["violated_at"] == 1
    assert item["counterexample"]["#meta"]["format"] == "ITF"


def test_resource_limit_gives_unknown_and_status_3(capsys):
    code, out, _ = run(
        capsys, "verify", "--property", "dies-once-per-creature", "--bound", "5", "--rlimit", "1", "--format", "json"
    )
    item = json.loads(out)["properties"][0]
    assert code == ExitCode.UNKNOWN and item["verdict"] == "unknown" and item["reason"]


def test_show_rejects_a_bad_trace_with_its_pointer(capsys, tmp_path):
    path = write(tmp_path, "bad.json", '{"#meta": {"rule603": "rule603-trace/5", "universe": {}}}')
    code, _, err = run(capsys, "show", str(path))
    assert code == ExitCode.USAGE and "at /#meta/universe/" in err


def test_adequacy_json_totals(capsys):
    code, out, _ = run(
        capsys,
        "verify",
        "--adequacy",
        "--bound",
        "4",
        "--format",
        "json",
        "--property",
        "dies-once-per-creature",
        "--property",
        "upkeep-trigger-each-upkeep",
    )
    data = json.loads(out)
    assert data["properties_confirmed"] == data["properties_total"] == 2
    assert data["clauses_total"] == 44 and data["clauses_non_vacuous"] == 44
    assert data["clauses_covered"] == len({c for p in data["properties"] for c in p["clauses"]})
    assert code == ExitCode.VIOLATED  # not every clause is covered by these two properties alone


def test_properties_listing(capsys, catalogue):
    code, out, _ = run(capsys, "properties", "--format", "json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [p.id for p in catalogue]


@pytest.mark.parametrize(
    "body, message",
    [
        ("return (g.turn(0) == 1) and (g.triggers(t, 0) == 99)", "is False on a concrete trace but True to the solver"),
        ("return 1 / 0", "its claim raised ZeroDivisionError"),
        ("return None", "must be a boolean"),
        ("return g.zone(t, 5) == 0", "card index 5 is outside 0..2"),
        ("return g.no_such_variable(t) == 0", "no variable 'no_such_variable'"),
    ],
)
def test_broken_claims_are_definition_errors(capsys, tmp_path, body, message):
    """A claim that would mean different things concretely and symbolically never gets a verdict."""
    path = write(
        tmp_path,
        "claims.py",
        f"""\
        from rule603 import prop

        @prop("broken", clauses=["603.2c"])
        def broken(g, t):
            {body}
        """,
    )
    code, out, err = run(capsys, "verify", "--property-file", str(path), "--no-builtin", "--bound", "3")
    assert code == ExitCode.USAGE and message in err and out == ""
    assert f"property broken ({path}:3)" in err  # where its definition starts


def test_property_file_that_exits_is_reported(capsys, tmp_path):
    path = write(tmp_path, "exits.py", "import sys\nsys.exit(5)\n")
    code, _, err = run(capsys, "verify", "--property-file", str(path))
    assert code == ExitCode.USAGE and "SystemExit" in err


def test_save_traces_bad_path_fails_before_the_run(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, out, err = run(capsys, "verify", "--save-traces", str(blocker / "sub"))
    assert code == ExitCode.USAGE and "cannot create it" in err and out == ""


def test_show_rejects_an_inconsistent_universe(capsys, tmp_path):
    path = write(tmp_path, "mine.py", VIOLATED_FILE)
    out_dir = tmp_path / "t"
    run(capsys, "verify", "--property-file", str(path), "--no-builtin", "--bound", "3", "--save-traces", str(out_dir))
    saved = out_dir / "dies-at-most-once.itf.json"
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["#meta"]["universe"]["ability"] = 9
    saved.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(capsys, "show", str(saved))
    # Either the size check or the first list of the wrong length names the problem.
    assert code == ExitCode.USAGE and ("/#meta/universe/ability" in err or "(one per ability)" in err)
    assert err.count("\n") == 1


@pytest.mark.parametrize("edition", ["current", "2004", "2008", "battlefield-en", "battlefield-fr", "2024-06"])
def test_the_game_rules_of_every_edition_are_listed_in_rule_order(capsys, edition):
    code, out, err = run(capsys, "clauses", "--game-rules", "--edition", edition, "--format", "json")
    assert code == 0 and err == ""
    rules = [row["rule"] for row in json.loads(out)]
    numbered = [r for r in rules if r[0].isdigit()]
    assert rules == numbered + sorted(r for r in rules if r.startswith("text.")) + sorted(
        r for r in rules if r.startswith("model.")
    )
    assert "704.3" in numbered and numbered.index("113.3") < numbered.index("704.3")


def test_game_rules_and_precedence_are_two_listings_not_one(capsys):
    code, _, err = run(capsys, "clauses", "--precedence", "--game-rules")
    assert code == 2 and err.count("\n") == 1 and "not allowed with argument --precedence" in err


def test_bench_times_the_catalogue_in_the_universe_asked_for(capsys, tmp_path):
    out = tmp_path / "bench.json"
    argv = ["bench", "--bounds", "2", "--players", "3", "--cards", "2", "--property", "dies-once-per-creature"]
    code, printed, _ = run(capsys, *argv, "--jobs", "1", "--output", str(out))
    figures = json.loads(out.read_text(encoding="utf-8"))
    [timed] = figures["runs"]
    assert code == ExitCode.OK and (timed["universe"]["player"], timed["universe"]["card"]) == (3, 2)
    assert timed["verdicts"] == {"dies-once-per-creature": "holds"}


def test_bench_gives_each_card_the_printed_abilities_asked_for(capsys, tmp_path):
    out = tmp_path / "bench.json"
    argv = ["bench", "--bounds", "2", "--cards", "2", "--abilities", "2", "--property", "dies-once-per-creature"]
    code, _, _ = run(capsys, *argv, "--jobs", "1", "--output", str(out))
    [timed] = json.loads(out.read_text(encoding="utf-8"))["runs"]
    assert code == ExitCode.OK and (timed["universe"]["printed"], timed["universe"]["ability"]) == (4, 6)
    assert timed["verdicts"] == {"dies-once-per-creature": "holds"}
    code, _, err = run(capsys, "verify", "--abilities", "4")
    assert code == 2 and "--abilities" in err and err.count("\n") == 1


def test_bench_reports_regenerates_into_a_scratch_copy_and_times_each_report(capsys, tmp_path, monkeypatch):
    """``bench --reports``: the report commands run as ``rule603 reports --regenerate`` runs them, but in a scratch
    copy: the checkout's reports are left as they are.  Two rulings stand in for the whole list here."""
    from rule603._internal import committed

    every = committed.committed_reports
    wanted = {"ruling 603.10-humility-enters", "ruling 603.3b-apnap"}
    monkeypatch.setattr(committed, "committed_reports", lambda root: [r for r in every(root) if r.name in wanted])
    before = {p: p.read_bytes() for p in Path("reports/rulings").glob("603.10-humility-enters.*")}
    out = tmp_path / "bench.json"
    code, printed, _ = run(capsys, "bench", "--reports", "--jobs", "2", "--output", str(out))
    assert code == ExitCode.OK and "2 reports in" in printed
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert sorted(r["report"] for r in figures["reports"]) == sorted(wanted)
    assert all(r["ok"] and r["seconds"] > 0 for r in figures["reports"]) and figures["wall_seconds"] > 0
    assert {p: p.read_bytes() for p in before} == before


def test_bench_rule_times_each_scenario_and_splits_off_the_solvers_share(capsys, tmp_path):
    """``bench --rule``: each scenario ruled as ``rule603 rule`` rules it; the time inside z3's checks is part of
    the scenario's own (never more), and the figures are written as JSON."""
    scenarios = ["scenarios/603.2i-lose-control-looks-back.toml", "scenarios/603.10-humility-enters.toml"]
    out = tmp_path / "bench.json"
    code, printed, _ = run(capsys, "bench", "--rule", *scenarios, "--jobs", "1", "--output", str(out))
    assert code == ExitCode.OK
    figures = json.loads(out.read_text(encoding="utf-8"))
    rows = {r["scenario"]: r for r in figures["rulings"]}
    assert sorted(rows) == sorted(Path(s).stem for s in scenarios)
    for row in rows.values():
        assert 0 < row["solver_seconds"] <= row["seconds"] and row["solver_checks"] >= 1 and row["unknown"] == 0
        assert row["other_seconds"] == pytest.approx(row["seconds"] - row["solver_seconds"], abs=0.002)
    assert figures["scenarios"] == 2 and figures["slowest_seconds"] == max(r["seconds"] for r in rows.values())
    assert "2 scenarios: median" in printed
