"""`rule603 audit`: what an edition's clauses say about each other, within the bound.

This is the first part of the audit: vacuity (a clause that never applies in a compliant
game) and redundancy (a clause whose requirement the other clauses already force), with the
precedence relations the encoding relies on.  Contradictions and ambiguities are not looked
for yet; the report says so rather than staying silent about them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .verify import Verifier

#: The kinds of finding the audit looks for today, and those it does not yet.
CHECKED = ("vacuity", "redundancy")
NOT_YET = ("contradiction", "ambiguity")


@dataclass(frozen=True)
class Finding:
    kind: str  # one of CHECKED
    clauses: tuple[str, ...]
    explanation: str  # in plain words, for a rules manager
    witness: str | None = None  # how to see it; None where the finding is an absence


@dataclass
class Audit:
    edition: str
    bound: int
    findings: list[Finding] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)  # (check, clause) the solver couldn't decide
    precedence: list[tuple[str, str]] = field(default_factory=list)  # (specific, general)

    def to_json(self) -> dict:
        return {
            "edition": self.edition,
            "bound": self.bound,
            "checked": list(CHECKED),
            "not_checked": list(NOT_YET),
            "findings": [
                {"kind": f.kind, "clauses": list(f.clauses), "witness": f.witness, "explanation": f.explanation}
                for f in self.findings
            ],
            "unknown": [{"check": check, "clause": number} for check, number in self.unknown],
            "precedence": [{"specific": s, "general": g} for s, g in self.precedence],
        }


def audit(verifier: Verifier, step: Callable[[str], None] = lambda _: None) -> Audit:
    """Every encoded clause of the verifier's edition: does it ever apply, and is it implied by the others?"""
    edition, k = verifier.edition, verifier.options.bound
    report = Audit(edition.name, k, precedence=edition.precedence())
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
            report.unknown.append(("vacuity", number))
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
            report.unknown.append(("redundancy", number))
    return report
