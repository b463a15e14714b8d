"""Every committed report under reports/ is current: recorded with the fingerprint of what it was computed from.

Fast: nothing is regenerated here. A report is current when its record in reports/fingerprints.json
names the code, data, z3 version and command of this checkout, and its files are byte for byte the
ones recorded. tests/test_reports_regenerate.py (exhaustive) regenerates one audit and one diff in
full, so that regeneration is seen to be deterministic on every CI run.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rule603._internal import committed, regenerate
from rule603._internal import fingerprint as fingerprint_module
from rule603._internal.fingerprint import Manifest, closure, fingerprint
from rule603.cli import main

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = "rule603 reports --regenerate"


@pytest.mark.parametrize("status", committed.status(ROOT), ids=lambda s: s.report.name)
def test_committed_report_is_current(status):
    assert status.current, f"{status.report.name} is stale ({'; '.join(status.reasons)}): run `{REGENERATE}`"


def test_every_file_under_reports_is_written_by_a_listed_command():
    assert committed.strays(ROOT) == []


def test_the_manifest_records_no_report_that_is_not_listed():
    listed = {r.name for r in committed.committed_reports(ROOT)}
    assert set(Manifest.read(committed.manifest_path(ROOT)).records) <= listed


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A copy of the reports and scenarios, to tamper with, every report recorded as this code records it:
    a test sees its own tamper alone, whether or not the committed manifest is current (the first test's
    business)."""
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


def test_a_recorded_module_hash_that_differs_names_the_module(checkout):
    """As if the report had been computed by other code: the module is named."""
    path = committed.manifest_path(checkout)
    raw = json.loads(path.read_text(encoding="utf-8"))
    record = raw["reports"]["ruling 603.2-soul-warden"]["fingerprint"]
    record["code"]["rule603._internal.ruling"] = "0" * 16
    record["versions"]["z3"] = "4.0.0"
    path.write_text(json.dumps(raw), encoding="utf-8")
    reasons = _by_name(checkout, "ruling 603.2-soul-warden").reasons
    assert reasons == (
        f"z3 was 4.0.0, is {fingerprint('', []).versions['z3']}",
        "code changed: rule603._internal.ruling",
    )


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


def test_a_command_modules_edit_stales_only_the_reports_that_command_writes(checkout, edit):
    rulings = {r.name for r in committed.committed_reports(checkout) if r.name.startswith("ruling ")}
    edit("rule603.commands.audit")
    assert _stale(checkout) == {"audit": ("code changed: rule603.commands.audit",)}
    edit("rule603.commands.rule")
    assert _stale(checkout) == {name: ("code changed: rule603.commands.rule",) for name in rulings}


def test_an_edit_of_the_command_line_itself_stales_every_report_written_through_it(checkout, edit):
    reports = committed.committed_reports(checkout)
    through_cli = {r.name for r in reports if committed.CLI in r.entries}
    assert len(through_cli) == len(reports) - 1  # all but python-mtg's
    for module in ("rule603.cli", "rule603.commands.common"):
        edit(module)
        assert _stale(checkout) == {name: (f"code changed: {module}",) for name in through_cli}


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


def test_regenerating_one_report_writes_it_and_its_record(checkout, capsys):
    ruling = checkout / "reports" / "rulings" / "603.2-soul-warden.md"
    kept = ruling.read_text(encoding="utf-8")
    ruling.write_text("edited\n", encoding="utf-8")
    assert main(["reports", "--root", str(checkout), "--regenerate", "ruling 603.2-soul-warden"]) == 0
    assert ruling.read_text(encoding="utf-8") == kept
    assert _by_name(checkout, "ruling 603.2-soul-warden").current


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
