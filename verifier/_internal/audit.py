"""`rule603 audit`: what an edition's clauses say about each other, within the bound.

Four checks, with the precedence relations the encoding relies on:

- vacuity: a clause that never applies in a compliant game;
- redundancy: a clause whose requirement the other clauses already force;
- contradiction: a reachable situation where the game rules alone could go on but the clauses
  leave no way to (``contradiction.py``);
- ambiguity: one scenario, two compliant games that differ in an observable outcome that is
  no player's choice (``ambiguity.py``).  Pairs that differ only in what the model leaves to
  rule variables though a scenario decides it (object identity after a flicker, which delayed
  abilities an effect creates) are modelling artefacts: listed apart, not counted as findings.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from . import smt
from .ambiguity import Ambiguity, AmbiguitySearch, Undetermined
from .bmc import concrete_game
from .contradiction import MAX_ROUNDS, Artefact, Deadlock, DeadlockSearch, Undecided
from .registry import Edition
from .report import render_trace
from .trace import Trace
from .verify import Verifier, cadical_budget, proves_by_cadical

#: The audit's default limits.  Its reports are committed and checked current, so what decides an
#: undecided check or which witness is kept must not be the machine's speed: z3's rlimit (counted per
#: check, the same on every machine for one z3 version) decides, and the wall clock (600 s, some fifteen
#: times what the rlimit takes here) is only a safety net.  200 million is about 40 s of solving on the machine the
#: figures in docs/audit.md come from; each probe while shrinking a witness gets 25 million.
#: CaDiCaL, which proves first that a moment has no ambiguity, stops after two million conflicts.
AUDIT_LIMITS = smt.SolverLimits(timeout_ms=600_000, rlimit=200_000_000, probe_rlimit=25_000_000, conflicts=2_000_000)

#: The kinds of finding the audit looks for today, and those it does not yet.
CHECKED = ("vacuity", "redundancy", "contradiction", "ambiguity")
NOT_YET: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    kind: str  # one of CHECKED
    clauses: tuple[str, ...]
    explanation: str  # in plain words, for a rules manager
    witness: str | None = None  # how to see it; None where the finding is an absence
    rules: tuple[str, ...] = ()  # game rules outside 603 taking part (a contradiction's core)
    games: tuple[Trace, ...] = field(default=(), compare=False, repr=False)  # an ambiguity's, for later editions


@dataclass
class Audit:
    edition: str
    bound: int
    findings: list[Finding] = field(default_factory=list)
    unknown: list[tuple[str, str, str]] = field(default_factory=list)  # (check, clause or what, reason)
    precedence: list[tuple[str, str]] = field(default_factory=list)  # (specific, general)
    artefacts: list[Finding] = field(default_factory=list)  # ambiguities of the model, not of the text
    seconds: dict[str, float] = field(default_factory=dict)  # per check
    rlimit: int = 0  # z3's resource limit per solver call (0: none, the wall clock decides)
    conflicts: int = 0  # CaDiCaL's conflict budget per proof (0: none, or CaDiCaL not used)

    def to_json(self) -> dict:
        return {
            "edition": self.edition,
            "bound": self.bound,
            "checked": list(CHECKED),
            "not_checked": list(NOT_YET),
            "findings": [_finding_json(f) for f in self.findings],
            "unknown": [{"check": check, "clause": what, "reason": why} for check, what, why in self.unknown],
            "precedence": [{"specific": s, "general": g} for s, g in self.precedence],
            "artefacts": [_finding_json(f) for f in self.artefacts],
        }


def _finding_json(f: Finding) -> dict:
    return {
        "kind": f.kind,
        "clauses": list(f.clauses),
        **({"rules": list(f.rules)} if f.rules else {}),
        "witness": f.witness,
        "explanation": f.explanation,
    }


def audit(
    verifier: Verifier,
    step: Callable[[str], None] = lambda _: None,
    *,
    only: Sequence[str] = CHECKED,
    refinements: int = MAX_ROUNDS,
) -> Audit:
    """The checks named in ``only`` (all by default) on the verifier's edition, the contradiction search giving up
    at a moment after ``refinements``; ``step`` announces each piece of work (a clause; a moment of the contradiction
    search, of the ambiguity search and of its search for modelling artefacts) for a progress display."""
    report = Audit(
        verifier.edition.name,
        verifier.options.bound,
        precedence=verifier.edition.precedence(),
        rlimit=verifier.options.limits.rlimit,
        conflicts=cadical_budget(verifier.options),
    )
    with smt.steady_memory():  # the same findings from the command line and from a test
        for check, run in (
            ("vacuity", _clauses),
            ("contradiction", partial(_contradictions, refinements=refinements)),
            ("ambiguity", _ambiguities),
        ):
            if check in only or (check == "vacuity" and "redundancy" in only):
                started = time.perf_counter()
                run(verifier, report, step)
                report.seconds[check] = round(time.perf_counter() - started, 1)
    return report


def steps(verifier: Verifier) -> int:
    """How many times ``audit`` calls ``step``."""
    return len(verifier.all_clauses) + verifier.options.bound + verifier.options.bound - 1


def _clauses(verifier: Verifier, report: Audit, step: Callable[[str], None]) -> None:
    """Vacuity and redundancy, clause by clause."""
    k = verifier.options.bound
    for number in verifier.all_clauses:
        step(number)
        applies = verifier.non_vacuous(number)
        if applies == "no":
            report.findings.append(
                Finding(
                    "vacuity",
                    (number,),
                    f"{number} never applies in a game of up to {k} moments that obeys every clause: nothing it "
                    "says can make a difference there.",
                )
            )
        elif applies == "unknown":
            report.unknown.append(("vacuity", number, "the solver could not decide"))
        implied = verifier.redundant(number)
        if implied == "yes":
            report.findings.append(
                Finding(
                    "redundancy",
                    (number,),
                    f"the other clauses already force what {number} requires in every game of up to {k} moments: "
                    "leaving it out changes no compliant game.",
                    witness=f"rule603 verify --adequacy shows where {number} applies; no game breaks it "
                    "while obeying the others",
                )
            )
        elif implied == "unknown":
            report.unknown.append(("redundancy", number, "the solver could not decide"))


def _contradictions(verifier: Verifier, report: Audit, step: Callable[[str], None], *, refinements: int) -> None:
    """The first contradiction at each moment, one finding for each distinct core; capacity artefacts
    (one for each distinct core) apart."""
    edition, k = verifier.edition, verifier.options.bound
    search = DeadlockSearch(edition, verifier.encoding.universe, verifier.options.limits, refinements)
    cores: set[tuple[str, ...]] = set()
    artefact_cores: set[tuple[tuple[str, ...], bool]] = set()

    def artefact(found: Artefact) -> None:
        if (found.core, found.settled) not in artefact_cores:
            artefact_cores.add((found.core, found.settled))
            report.artefacts.append(_capacity(edition, found))

    for t in range(k):
        step(f"contradictions at moment {t}")
        found = search.at(t, artefact=artefact)
        if isinstance(found, Undecided):
            report.unknown.append(("contradiction", f"moment {found.moment}", found.reason))
        elif isinstance(found, Deadlock) and found.core not in cores:
            cores.add(found.core)
            report.findings.append(_contradiction(edition, found))


def _capacity(edition: Edition, found: Artefact) -> Finding:
    clauses = tuple(n for n in found.core if n in edition.by_number)
    rules = tuple(n for n in found.core if n not in edition.by_number)
    t = found.moment
    if found.settled:
        explanation = (
            f"At moment {t} of the game below, {', '.join(found.core)} leave no way on, but {found.reason}. "
            "That is the bound of the model, not a fault of the text; the search went on past it."
        )
    else:
        explanation = (
            f"At moment {t} of the game below, {', '.join(found.core)} leave no way on, and {found.reason}. "
            "Whether it is the bound of the model or a fault of the text, the check cannot tell, so it is not "
            "named a contradiction; the search went on past it, and this moment's check is undecided at best."
        )
    return Finding("contradiction", clauses, explanation, render(edition, found.situation), rules)


def _contradiction(edition: Edition, found: Deadlock) -> Finding:
    clauses = tuple(n for n in found.core if n in edition.by_number)
    rules = tuple(n for n in found.core if n not in edition.by_number)
    t = found.moment
    demands = "; ".join(f"{n} demands: {edition.by_number[n].summary}" for n in clauses)
    outside = f", with the game rules outside 603 {', '.join(rules)}" if rules else ""
    explanation = (
        f"After {t} moment(s) of a game that obeyed every clause, the events of moment {t} below leave the game "
        f"rules alone a way to go on, but {', '.join(clauses)}{outside} together forbid every way: a rules-abiding "
        f"game cannot get past this point. {demands}."
    )
    witness = render(edition, found.situation) + (
        f"\n(moment {t}'s triggers and stack are what the game rules alone would allow; {', '.join(found.core)} "
        "rule out every alternative)"
    )
    return Finding("contradiction", clauses, explanation, witness, rules)


def _ambiguities(verifier: Verifier, report: Audit, step: Callable[[str], None]) -> None:
    """One pair of games per observable behaviour, if the rules leave it open; artefacts apart (for the behaviours
    proved to have no pair: two games of different scripts, see ``AmbiguitySearch.find_with_artefacts``)."""
    edition, k = verifier.edition, verifier.options.bound
    universe, limits = verifier.encoding.universe, verifier.options.limits
    search = AmbiguitySearch(edition, universe, limits, k, cadical=proves_by_cadical(verifier.options))
    strict, loose = search.find_with_artefacts(progress=lambda t: step(f"ambiguities at moment {t}"))
    _record(report, edition, strict, artefact=False)
    _record(report, edition, loose, artefact=True)


def _record(
    report: Audit, edition: Edition, answers: dict[str, Ambiguity | Undetermined | None], *, artefact: bool
) -> None:
    """Each behaviour's answer in the report: a finding (or an artefact), an undecided check, or nothing."""
    for behaviour, found in answers.items():
        if isinstance(found, Undetermined):
            report.unknown.append(("ambiguity (artefacts)" if artefact else "ambiguity", behaviour, found.reason))
        elif isinstance(found, Ambiguity):
            finding = _ambiguity(edition, found, artefact=artefact)
            (report.artefacts if artefact else report.findings).append(finding)


def _ambiguity(edition: Edition, found: Ambiguity, *, artefact: bool) -> Finding:
    one, other = (
        edition.model.observed_value(concrete_game(edition, trace, []), found.what, value)
        for trace, value in zip(found.games, found.values, strict=True)
    )
    how = "; ".join(found.differing) or "only in what the model leaves unsaid"
    if artefact:
        cause = (
            "The two games differ only in what the model leaves to rule variables though a scenario decides it "
            "(whether a permanent left and returned within one batch, which delayed abilities an effect "
            "creates): a modelling artefact, not a gap in the text."
        )
    else:
        cause = (
            "Both games play the same scenario, make the same choices (including each player's order for their "
            f"own triggers, 603.3b), and obey every clause: the rules leave this open. The clauses that apply "
            f"where the games part ({', '.join(found.clauses) or 'none'}) admit both."
        )
    explanation = (
        f"{found.behaviour}: {found.what} is {one} in game 1 and {other} in game 2. They first look "
        f"different at moment {found.moment} ({how}). {cause}"
    )
    witness = f"game 1:\n{render(edition, found.games[0])}\ngame 2:\n{render(edition, found.games[1])}"
    return Finding("ambiguity", found.clauses, explanation, witness, games=found.games)


def render(edition: Edition, trace: Trace) -> str:
    """A trace as its cards and a step table, as every other output shows traces."""
    return render_trace(edition, trace, "github")
