"""What a committed report was computed from, recorded so that ``rule603 reports`` can tell it is current.

Regenerating every report takes far longer than a test run, so each report is recorded in
``reports/fingerprints.json`` with the fingerprint of everything it was computed from:

- ``code``: one hash of every module of rule603 its generator can import (the static import closure
  of its entry modules, function-level imports included), each module by the hash of its source. The
  command line's own subcommand modules are the one exception (``DISPATCH``): it imports only the one
  that runs, so a report counts the command line's file and its command's module, not every command's;
- ``editions``: one hash of the edition texts, alignments and encoding decisions the package ships;
- ``inputs``: the report's own input files (a scenario file), each by its hash, so that a changed one
  is named;
- ``versions``: the solver's full version, since verdicts depend on it, and the version of any
  third-party engine the report is about;
- ``command``: the command that writes it, which carries its bound and limits.

The two hashes of many files are each the hash of the canonical JSON of the sorted ``{name: hash}``
map (``combined``), so that a manifest written when every module and data file was listed by name
converts exactly (``Fingerprint.from_json``): a report current under the old manifest stays current.

A report whose recorded fingerprint differs from the checkout's is stale, and the difference is
named (the code, the edition texts, which input files, the solver). The hash of each file's content is
recorded too, so a hand edit shows as well. Nothing here runs a generator: that is the command line's job.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Rule603Error
from . import smt

PACKAGE = "rule603"
MANIFEST = "fingerprints.json"
# The data the package ships that reports are computed from (edition texts, alignments,
# encoding decisions), by package.
DATA_PACKAGES = ("rule603.models.current", "rule603.models.editions")
DATA_SUFFIXES = (".txt", ".json", ".toml")
# The command line names each subcommand's module in a table and imports only the one given
# (``rule603.cli``): those names are not followed from it, so that a command's module counts for the
# reports that command writes and not for every report. The command line's own file, and what it
# imports itself (``main``, the parser, ``rule603.commands.common``), still count for each. Each report
# names its command's module among its entries instead (``committed.py``); tests/test_report_fingerprints.py
# checks them against the table, and that running a command loads no rule603 module outside its closure.
DISPATCH = {"rule603.cli": "rule603.commands."}


def digest(data: bytes) -> str:
    """A short content hash: 16 hex digits of SHA-256 tell files apart without bloating the manifest."""
    return hashlib.sha256(data).hexdigest()[:16]


@functools.cache
def _spec(module: str) -> importlib.machinery.ModuleSpec | None:
    """Looked up once a module: the closure asks for each module's source and whether it is a package, and
    where rule603's modules are does not change under a process."""
    try:
        return importlib.util.find_spec(module)
    except ImportError:  # ``rule603.errors.Rule603Error``: a name in a module, not a module
        return None


def _source(module: str) -> Path | None:
    spec = _spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _is_package(module: str) -> bool:
    spec = _spec(module)
    return spec is not None and spec.submodule_search_locations is not None


def _imports(module: str, source: Path) -> frozenset[str]:
    """The rule603 modules ``module`` imports anywhere in its text (inside functions too)."""
    return _imports_in(module, source.read_bytes(), str(source))


@functools.cache
def _imports_in(module: str, text: bytes, filename: str) -> frozenset[str]:
    """Kept by the text itself: every report's closure walks the same modules, and parsing them is most of the
    time it takes to list the stale reports; an edited module is new text, so it is read again."""
    tree = ast.parse(text, filename=filename)
    package = module if _is_package(module) else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (
                importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                if node.level
                else node.module
            )
            if base is None:
                continue
            found.add(base)
            # ``from . import audit`` names a module; ``from .audit import Audit`` a name in one.
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(PACKAGE + "."):
            # A module imported by name (``importlib.import_module(CATALOGUE)``); a string that only
            # looks like one is no module and is passed over by ``closure``.
            if not _dispatched(module, node.value):
                found.add(node.value)
    return frozenset(name for name in found if name == PACKAGE or name.startswith(PACKAGE + "."))


def _dispatched(module: str, named: str) -> bool:
    """Whether ``named`` is a subcommand's module that ``module`` imports only when that subcommand runs."""
    prefix = DISPATCH.get(module)
    return prefix is not None and named.startswith(prefix)


def closure(entries: Iterable[str]) -> dict[str, Path]:
    """Every rule603 module reachable from ``entries`` by imports, with its source file, sorted by name.

    Packages on the way count too (their ``__init__`` runs on import). A name that is not a module
    (``from .audit import Audit``) is passed over.
    """
    seen: dict[str, Path] = {}
    todo = list(entries)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        source = _source(name)
        if source is None:
            continue
        seen[name] = source
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += sorted(_imports(name, source) - seen.keys())
    return dict(sorted(seen.items()))


def package_data() -> dict[str, Path]:
    """The edition texts and the reviewed data the package ships, by package-relative name."""
    files: dict[str, Path] = {}
    for package in DATA_PACKAGES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        for folder in spec.submodule_search_locations:
            for path in sorted(Path(folder).iterdir()):
                if path.suffix in DATA_SUFFIXES:
                    files[f"{package}/{path.name}"] = path
    return dict(sorted(files.items()))


def combined(digests: Mapping[str, str]) -> str:
    """One hash of many named hashes: the digest of the canonical JSON of the map, sorted by name.

    Canonical (sorted keys, no spaces) so that the same map gives the same hash however it was built, and an
    older manifest's per-module or per-file map converts to exactly the hash this code computes."""
    return digest(json.dumps(dict(digests), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())


def _is_package_data(name: str) -> bool:
    return name.partition("/")[0] in DATA_PACKAGES


@dataclass(frozen=True)
class Fingerprint:
    """What one report was computed from; equal fingerprints mean the same computation."""

    command: str
    versions: Mapping[str, str]
    # ``combined`` of the hash of each module in the closure of ``entries``.
    code: str
    # ``combined`` of the hash of each file of ``package_data``.
    editions: str
    # The report's own input files, each by its hash, by repository-relative path.
    inputs: Mapping[str, str]
    # The modules ``code`` is the closure of, sorted; kept so that a stale report says when what it starts
    # from changed. Empty in a record written before they were kept.
    entries: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "entries": list(self.entries),
            "versions": dict(self.versions),
            "code": self.code,
            "editions": self.editions,
            "inputs": dict(self.inputs),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Fingerprint:
        """Read a record's fingerprint, in this format or the older one (``code`` and ``data`` by name)."""
        code = obj["code"]
        if isinstance(code, Mapping):  # the older format: every module by name
            code = combined(code)
        if "editions" in obj:
            editions, inputs = obj["editions"], dict(obj["inputs"])
        else:  # the older format: the package data and the inputs in one map
            data = obj["data"]
            editions = combined({k: v for k, v in data.items() if _is_package_data(k)})
            inputs = {k: v for k, v in data.items() if not _is_package_data(k)}
        if not isinstance(code, str) or not isinstance(editions, str):
            raise TypeError("code and editions are each one hash")
        return cls(obj["command"], dict(obj["versions"]), code, editions, inputs, tuple(obj.get("entries", ())))

    def differences(self, other: Fingerprint) -> list[str]:
        """What differs from ``other`` (the recorded one), in words; empty when nothing does."""
        out = []
        if self.command != other.command:
            out.append(f"command was `{other.command}`")
        if self.entries != other.entries:
            was = f"were {', '.join(other.entries)}" if other.entries else "not recorded (an older manifest)"
            out.append(f"entry modules {was}; are {', '.join(self.entries)}")
        for name in sorted(self.versions.keys() | other.versions.keys()):
            was, now = other.versions.get(name, "absent"), self.versions.get(name, "absent")
            if was != now:
                out.append(f"{name} was {was}, is {now}")
        if self.code != other.code:
            out.append(f"code changed (rule603's code hash was {other.code}, is {self.code})")
        if self.editions != other.editions:
            out.append(f"edition texts changed (their hash was {other.editions}, is {self.editions})")
        out += _changed("data", self.inputs, other.inputs)
        return out


def _changed(kind: str, now: Mapping[str, str], then: Mapping[str, str]) -> list[str]:
    changed = sorted(k for k in now.keys() & then.keys() if now[k] != then[k])
    added, gone = sorted(now.keys() - then.keys()), sorted(then.keys() - now.keys())
    out = []
    for word, names in (("changed", changed), ("new", added), ("gone", gone)):
        if names:
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            out.append(f"{kind} {word}: {shown}")
    return out


def fingerprint(
    command: str, entries: Sequence[str], inputs: Mapping[str, Path] | None = None, engines: Sequence[str] = ()
) -> Fingerprint:
    """The fingerprint of a report written by ``command`` from ``entries``' code and ``inputs``.

    ``engines``: the distributions of third-party engines the report is about, by name.
    """
    starts = tuple(sorted(set(entries)))
    files = {name: digest(path.read_bytes()) for name, path in sorted((inputs or {}).items())}
    versions = {"z3": smt.z3_version(), **{name: _version(name) for name in engines}}
    return Fingerprint(command, versions, _code(starts), editions(), files, starts)


def editions() -> str:
    """The hash of the edition texts, alignments and encoding decisions the package ships (``combined``)."""
    return combined({name: digest(path.read_bytes()) for name, path in package_data().items()})


@functools.cache
def _code(entries: tuple[str, ...]) -> str:
    """The hash of the closure's modules (``combined``); kept for the process, since rule603's source does not
    change under it (the status of every report would otherwise read the same modules once a report)."""
    return combined({name: digest(path.read_bytes()) for name, path in closure(entries).items()})


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


@dataclass(frozen=True)
class Record:
    """One manifest entry: a report's files (with their content hashes) and its fingerprint."""

    files: Mapping[str, str]
    fingerprint: Fingerprint

    def to_json(self) -> dict[str, Any]:
        return {"files": dict(self.files), "fingerprint": self.fingerprint.to_json()}


@dataclass
class Manifest:
    """``reports/fingerprints.json``: every committed report, by name."""

    records: dict[str, Record] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """The manifest at ``path`` (empty if there is none), in this format or the older one, which ``write``
        rewrites in this one."""
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                {
                    name: Record(dict(r["files"]), Fingerprint.from_json(r["fingerprint"]))
                    for name, r in raw["reports"].items()
                }
            )
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise Rule603Error(
                f"{path}: not a manifest this version reads ({type(e).__name__}: {e}); "
                "delete it and run `rule603 reports --regenerate --all`"
            ) from None

    def write(self, path: Path) -> None:
        body = {
            "about": "What each committed report was computed from; written by `rule603 reports --regenerate`, "
            "read by `rule603 reports` and tests/test_report_fingerprints.py. Do not edit by hand.",
            "reports": {name: self.records[name].to_json() for name in sorted(self.records)},
        }
        # Whole or not at all: a regeneration writes it after each report, and may be interrupted at any time.
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(partial, path)
