"""Verdicts kept across runs: ``rule603 verify`` with nothing changed makes no solver call.

A decided verdict (holds, or violated with its counterexample) and the cut-off probe's findings are kept in
the user's cache (``checkcache``, folder ``verdicts``), keyed by everything they were computed from: the hash
of rule603's sources and edition data (the built-in properties are among the sources), z3's version, the
edition, the universe, the bound, the solver limits that shape an answer (resource limits, seed; not the wall
clock, which only decides whether there is one), whether counterexamples are shrunk and what proves the
properties that hold (``--sat``).  An unknown verdict is
never kept: a longer limit may decide it.  A property from the user's own file is never kept either: its code
is not part of the key.

A kept counterexample is checked again on loading, concretely (every clause, and the claim), as the solver's
are: a cached verdict is never taken on trust.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from . import smt
from .bounds import CutOff
from .checkcache import CheckStore, package_folder
from .registry import Edition, Property
from .schema import Schema, Universe
from .trace import from_json, to_json
from .verify import HOLDS, VIOLATED, CheckResult, Options, counterexample_problem

FOLDER = "verdicts"
_FORMAT = 1


@dataclass(frozen=True)
class VerdictStore:
    """The verdicts of one edition, universe and set of options."""

    store: CheckStore
    edition: Edition
    universe: Universe
    options: Options

    @classmethod
    def open(cls, edition: Edition, universe: Universe, options: Options) -> VerdictStore | None:
        store = CheckStore.of_answers(FOLDER)
        return None if store is None else cls(store, edition, universe, options)

    def _key(self, what: str) -> str:
        limits = self.options.limits
        return "|".join(
            [
                f"format {_FORMAT}",
                f"z3 {smt.z3_version()}",
                self.edition.name,
                repr(sorted(self.universe.sizes.items())),
                f"bound {self.options.bound}",
                limits.shaping_answers(),
                f"minimise {self.options.minimise}",
                f"sat {self.options.sat}",  # which path found a counterexample (``Verifier.prepare``)
                what,
            ]
        )

    def known(self, props: Sequence[Property]) -> dict[str, CheckResult]:
        """The kept verdicts of ``props`` that still stand, by property id."""
        found = {}
        for prop in props:
            result = self._load(prop)
            if result is not None:
                found[prop.id] = result
        return found

    @functools.cached_property
    def _schema(self) -> Schema:
        return Schema(tuple(self.edition.model.VARIABLES))

    def keep(self, results: Sequence[CheckResult]) -> None:
        for r in results:
            if r.verdict not in (HOLDS, VIOLATED) or not _builtin(r.property) or r.cached:
                continue
            entry = {
                "verdict": r.verdict,
                "bound": r.bound,
                "seconds": r.seconds,
                "violated_at": r.violated_at,
                "trace": None if r.trace is None else to_json(r.trace, self._schema),
            }
            self.store.save(self._key(_property_key(r.property)), json.dumps(entry).encode())

    def _load(self, prop: Property) -> CheckResult | None:
        if not _builtin(prop):
            return None
        data = self.store.load(self._key(_property_key(prop)))
        if data is None:
            return None
        try:
            entry = json.loads(data)
            where = "<cached counterexample>"
            trace = None if entry["trace"] is None else from_json(entry["trace"], self._schema, where)
            result = CheckResult(
                prop, entry["verdict"], entry["bound"], entry["seconds"], trace, entry["violated_at"], cached=True
            )
        except Exception:  # noqa: BLE001 - a damaged or foreign entry is a miss: checked again
            return None
        return result if self._stands(result) else None

    def _stands(self, r: CheckResult) -> bool:
        """A kept counterexample obeys every clause and breaks the claim where it says (as a fresh one must)."""
        if r.verdict == HOLDS:
            return r.trace is None
        if r.trace is None or r.violated_at is None:
            return False
        enabled = [e.number for e in self.edition.encodings]
        seconds = self.options.claim_seconds
        return not counterexample_problem(self.edition, r.property, r.trace, enabled, r.violated_at, seconds)

    def cut_off(self) -> list[CutOff] | None:
        """The cut-off probe's kept findings, or None."""
        data = self.store.load(self._key("cut-off probe"))
        if data is None:
            return None
        try:
            return [CutOff(**found) for found in json.loads(data)]
        except Exception:  # noqa: BLE001 - a damaged or foreign entry is a miss
            return None

    def keep_cut_off(self, found: Sequence[CutOff]) -> None:
        if not any(c.unknown for c in found):
            self.store.save(self._key("cut-off probe"), json.dumps([asdict(c) for c in found]).encode())


def _builtin(prop: Property) -> bool:
    """A property of the built-in catalogue, whose code the key's hash covers."""
    where = prop.source.rsplit(":", 1)[0]
    try:
        return Path(where).resolve().is_relative_to(package_folder("rule603.properties").resolve())
    except (OSError, ValueError):
        return False


def _property_key(prop: Property) -> str:
    return f"property {prop.id} {prop.source} {','.join(prop.clauses)}"
