"""Rulings kept across runs: ``rule603 rule`` on a scenario it has ruled, with nothing changed, makes no solver call.

A ruling is kept in the user's cache (``checkcache``, folder ``rulings``, one folder per code version), keyed by
everything it was computed from: the hash of rule603's sources and edition data (the folder), z3's version, the
edition, the scenario file's text and the solver limits that shape an answer (resource limits, seed; not the wall
clock, which only decides whether there is one).  A ruling with an unknown answer or an undecided cut-off is never
kept: a longer limit may decide it.  ``RULE603_VERDICTS=off`` keeps and reads none (as for verdicts).

A kept ruling is checked again on loading, concretely, as far as a game can be: every game it shows (one for each
value of a ``depends`` answer) must obey every clause and play the scenario's script.  A forced answer is the
solver's proof that no game differs; that cannot be checked without the solver, and is keyed by the code that
proved it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from . import smt
from .bmc import fixed_by, violations
from .bounds import CutOff
from .checkcache import CheckStore
from .registry import Edition
from .ruling import Answer, Fixed, Ruling, decided, play_scenario_file, rule_played, scenario_files
from .schema import Schema
from .trace import Trace, from_json, to_json

FOLDER = "rulings"
_FORMAT = 2


def rule_scenario_file_kept(loaded: Any, limits: smt.SolverLimits, edition_name: str | None = None) -> tuple:
    """``ruling.rule_scenario_file``, answered from the kept ruling where there is one that stands (no solver
    call), else ruled and kept.  Gives ``(played, edition, ruling)``."""
    played, edition = play_scenario_file(loaded, edition_name)
    store = RulingStore.open(edition, loaded.text.encode(), limits)
    also_fixed = scenario_files().FIXED_BY_SCRIPT
    ruling = store.load(played, also_fixed) if store else None
    if ruling is None:
        ruling = rule_played(loaded, played, edition, limits)
        if store:
            store.keep(ruling)
    return played, edition, ruling


@dataclass(frozen=True)
class RulingStore:
    """The kept ruling of one scenario file's text, ruled in one edition under one set of limits."""

    store: CheckStore
    edition: Edition
    key: str

    @classmethod
    def open(cls, edition: Edition, scenario_text: bytes, limits: smt.SolverLimits) -> RulingStore | None:
        store = CheckStore.of_answers(FOLDER)
        if store is None:
            return None
        key = "|".join(
            [
                f"format {_FORMAT}",
                f"z3 {smt.z3_version()}",
                edition.name,
                limits.shaping_answers(),
                f"scenario {hashlib.sha256(scenario_text).hexdigest()}",
            ]
        )
        return cls(store, edition, key)

    @property
    def _schema(self) -> Schema:
        return Schema(tuple(self.edition.model.VARIABLES))

    def keep(self, ruling: Ruling) -> None:
        if not decided(ruling):
            return
        entry = {f.name: getattr(ruling, f.name) for f in fields(Ruling) if f.name not in ("answers", "cut_off")}
        entry["cut_off"] = None if ruling.cut_off is None else [asdict(c) for c in ruling.cut_off]
        entry["answers"] = [_answer_json(a, self._schema) for a in ruling.answers]
        self.store.save(self.key, json.dumps(entry).encode())

    def load(self, script: Trace, also_fixed: Sequence[Fixed] = ()) -> Ruling | None:
        """The kept ruling, if there is one and every game it shows still stands; else None (rule again)."""
        data = self.store.load(self.key)
        if data is None:
            return None
        try:
            entry = json.loads(data)
            answers = [_answer_from_json(a, self._schema) for a in entry.pop("answers")]
            cut_off = entry.pop("cut_off")
            cut_off = None if cut_off is None else [CutOff(**c) for c in cut_off]
            ruling = Ruling(answers=answers, cut_off=cut_off, **entry)
        except Exception:  # noqa: BLE001 - a damaged or foreign entry is a miss: ruled again
            return None
        return ruling if self._stands(ruling, script, also_fixed) else None

    def _stands(self, ruling: Ruling, script: Trace, also_fixed: Sequence[Fixed]) -> bool:
        clauses = [e.number for e in self.edition.encodings]
        games = [game for answer in ruling.answers for game in answer.games]
        plays = all(_plays(game, script, self._schema, also_fixed) for game in games)
        return plays and not any(violations(self.edition, game, clauses, first_only=True) for game in games)


def _plays(game: Trace, script: Trace, schema: Schema, also_fixed: Sequence[Fixed]) -> bool:
    """``game`` is a game of ``script``: as long, in the same universe, with the values the script fixes."""
    if game.length != script.length or game.universe != script.universe:
        return False
    have = game.flat_values()
    return all(have.get(key) == value for key, value in fixed_by(schema, script, also_fixed).items())


def _answer_json(answer: Answer, schema: Schema) -> dict[str, Any]:
    data = {f.name: getattr(answer, f.name) for f in fields(Answer) if f.name != "games"}
    return {**data, "games": [to_json(game, schema) for game in answer.games]}


def _answer_from_json(data: dict[str, Any], schema: Schema) -> Answer:
    games = [from_json(game, schema, "<kept ruling>") for game in data["games"]]
    return Answer(**{**data, "games": games})
