"""`rule603 audit`: contradictions, ambiguities, vacuous and redundant clauses are found, and only they."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from limits import TEST_TIMEOUT_MS
from rule603 import Rule
from rule603._internal import smt
from rule603._internal.ambiguity import Ambiguity, AmbiguitySearch
from rule603._internal.audit import Audit, _ambiguity, _capacity, audit
from rule603._internal.auditreport import audit_markdown
from rule603._internal.bmc import Encoding, violations
from rule603._internal.contradiction import Deadlock, DeadlockSearch
from rule603._internal.schema import ENV
from rule603._internal.verify import Options, Verifier
from rule603.cli import main
from test_clauses import ED

OPTIONS = Options(bound=4, limits=smt.SolverLimits(timeout_ms=TEST_TIMEOUT_MS))


def _with(number: str, fn) -> object:
    """The current edition with clause ``number`` encoded by ``fn`` instead."""
    encodings = tuple(dataclasses.replace(e, fn=fn) if e.number == number else e for e in ED.encodings)
    return dataclasses.replace(ED, encodings=encodings)


def _findings(edition, bound: int = OPTIONS.bound) -> set[tuple[str, tuple[str, ...]]]:
    options = dataclasses.replace(OPTIONS, bound=bound)
    report = audit(Verifier(edition, edition.model.universe(), options), only=("vacuity", "redundancy"))
    assert report.unknown == []
    return {(f.kind, f.clauses) for f in report.findings}


def _audit(edition, only: tuple[str, ...], bound: int):
    return audit(Verifier(edition, edition.model.universe(), dataclasses.replace(OPTIONS, bound=bound)), only=only)


def test_the_current_edition_has_no_vacuous_or_redundant_clause_at_a_small_bound():
    assert _findings(ED) == set()


def test_a_clause_that_says_what_another_says_is_redundant_and_so_is_the_other():
    twice = _with("603.2h", ED.by_number["603.2c"].fn)  # 603.2h encoded as a second copy of 603.2c
    assert {("redundancy", ("603.2h",)), ("redundancy", ("603.2c",))} <= _findings(twice, bound=3)


def test_a_clause_that_never_applies_is_vacuous():
    def never(g, t):
        yield Rule(False, False, "nothing")

    found = _findings(_with("603.9", never), bound=3)
    assert ("vacuity", ("603.9",)) in found
    assert ("redundancy", ("603.9",)) in found  # what never applies can't be broken either


@pytest.mark.exhaustive  # two minutes: the whole audit, here and in a worker process
def test_the_command_line_prints_findings_as_json_and_a_worker_process_finds_the_same(capsys):
    """`--jobs` audits editions in worker processes: what it finds must not depend on where it runs (nor on what
    the process did before: here, another audit first)."""
    from concurrent.futures import ProcessPoolExecutor

    from rule603.cli import _parser
    from rule603.commands.audit import audit_quietly

    audit(Verifier(ED, ED.model.universe(), Options(bound=2)), only=("vacuity",))
    code = main(["audit", "--bound", "2", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert (report["edition"], report["bound"]) == ("current", 2)
    assert report["checked"] == ["vacuity", "redundancy", "contradiction", "ambiguity"]
    assert report["not_checked"] == []
    assert code == (1 if report["findings"] else 3 if report["unknown"] else 0)
    for finding in report["findings"]:
        assert set(finding) >= {"kind", "clauses", "witness", "explanation"}
        assert finding["kind"] in report["checked"]
    assert {"specific": "603.8", "general": "603.2"} in report["precedence"]
    with ProcessPoolExecutor(max_workers=1) as pool:
        there = pool.submit(audit_quietly, _parser().parse_args(["audit", "--bound", "2"]), "current").result()
    assert {k: v for k, v in report.items() if k != "seconds"} == json.loads(json.dumps(there.to_json()))


def test_reports_are_not_overwritten_unless_asked(tmp_path, capsys):
    (tmp_path / "audit-current.md").write_text("mine", encoding="utf-8")
    assert main(["audit", "--bound", "2", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--overwrite" in err
    assert (tmp_path / "audit-current.md").read_text(encoding="utf-8") == "mine"
    assert main(["audit", "--all", "--edition", "2004"]) == 2


def _impossible_identity(g, t):
    # A toy clause no game can obey at moment 1: it demands that card 0 entered its zone at a moment to
    # come (a rule variable the game rules decide otherwise).
    yield Rule(t == 1, g.since(t, 0) == 31, "toy")


def _no_priority_at_start(g, t):
    # A toy clause about what can happen (priority is the environment's), not how the rules respond.
    yield Rule(g.And(t == 1, g.priority(t)), False, "toy")


def test_a_clause_that_no_game_can_obey_is_a_contradiction():
    report = _audit(_with("603.9", _impossible_identity), ("contradiction",), 2)
    assert [(f.kind, f.clauses) for f in report.findings] == [("contradiction", ("603.9",))]
    assert "moment 1" in report.findings[0].explanation


@pytest.mark.exhaustive  # over a minute: the whole audit
def test_a_clause_that_only_says_what_can_happen_shapes_the_situation_and_is_no_contradiction():
    report = _audit(_with("603.9", _no_priority_at_start), ("contradiction",), 2)
    assert not any("603.9" in f.clauses for f in report.findings)  # (without the real 603.9, others may show)


def test_a_contradiction_is_reached_by_a_game_that_obeys_every_clause_so_far():
    # (The current edition's own deadlock at moment 1 was the model's capacity: nine trigger instances.)
    edition = _with("603.9", _impossible_identity)
    search = DeadlockSearch(edition, edition.model.universe(), OPTIONS.limits)
    found = search.at(1)
    assert isinstance(found, Deadlock)
    prefix = dataclasses.replace(found.situation, states=found.situation.states[: found.moment])
    assert violations(edition, prefix, [e.number for e in edition.encodings]) == []
    # and the game rules alone let moment 1 go on (the search found their own rule values for it)
    assert violations(edition, found.situation, []) == []


def test_a_clause_that_no_longer_forces_triggering_makes_it_ambiguous():
    def never(g, t):
        yield Rule(False, False, "nothing")

    # Without 603.2 the rules still allow an ability to trigger (603.2c counts occurrences) but no longer force it.
    assert AmbiguitySearch(ED, ED.model.universe(), OPTIONS.limits, 2).find("what triggers") is None
    edition = _with("603.2", never)
    search = AmbiguitySearch(edition, edition.model.universe(), OPTIONS.limits, 2)
    found = search.find("what triggers")
    assert isinstance(found, Ambiguity) and found.values[0] != found.values[1]
    # Both games obey every clause and play one scenario: the same environment throughout.
    one, other = found.games
    clauses = [e.number for e in edition.encodings]
    assert violations(edition, one, clauses) == [] and violations(edition, other, clauses) == []
    for spec in search.one.schema.specs:
        if spec.role == ENV:
            assert one.params.get(spec.name) == other.params.get(spec.name)
            assert [s.get(spec.name) for s in one.states] == [s.get(spec.name) for s in other.states]


def test_a_later_edition_that_tells_an_ambiguitys_games_apart_names_the_clause_one_of_them_breaks():
    def never(g, t):
        yield Rule(False, False, "nothing")

    # The weakened edition leaves triggering open; the current edition's 603.2 forces it, so it rules out
    # the game in which the ability does not trigger, and only that one.
    weakened = dataclasses.replace(_with("603.2", never), name="weakened")  # no alignment joins it to current
    found = AmbiguitySearch(weakened, weakened.model.universe(), OPTIONS.limits, 2).find("what triggers")
    assert isinstance(found, Ambiguity)
    report = Audit("weakened", 2, findings=[_ambiguity(weakened, found, artefact=False)])
    text = audit_markdown(report, weakened, {"current": (Audit("current", 2), ED)}, "rule603 audit")
    silent = 1 + [bool(v) for v in found.values].index(False)
    assert f"game {silent} alone breaks 603.2 at moment" in text and "tell the two games apart" in text
    assert f"game {3 - silent} alone breaks" not in text and "both games break" not in text
    # A later clause that no game obeys is broken by both, and is not what tells them apart.
    broken_by_all = _with("603.6b", lambda g, t: iter([Rule(True, False, "always")]))
    text = audit_markdown(report, weakened, {"current": (Audit("current", 2), broken_by_all)}, "rule603 audit")
    assert "both games break 603.6b at moment 0 (always)" in text
    assert f"game {silent} alone breaks 603.2 at moment" in text and "tell the two games apart" not in text
    # Replayed under the edition that found them, both games obey every clause.
    text = audit_markdown(report, weakened, {"weakened": (Audit("weakened", 2), weakened)}, "rule603 audit")
    assert "both games obey its clauses" in text and "breaks" not in text


def test_an_unknown_edition_is_one_line(capsys):
    assert main(["audit", "--edition", "1999"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--edition 1999" in err


def test_too_small_a_bound_shows_as_vacuity_not_as_silence():
    # 603.7c needs a delayed ability created, then triggered, then resolving: three moments are too few for that.
    # (603.7h, once N was 2 alone, was the example; with N = 1 it is reachable in three.)
    report = _audit(ED, ("vacuity",), 3)
    assert ("vacuity", ("603.7c",)) in {(f.kind, f.clauses) for f in report.findings}


#: A situation the contradiction search met at moment 2 of the current edition (round 209 of 400, 2026-11-26): a batch
#: with no priority after it that triggers 16 instances (abilities with three instances each, additional-trigger
#: effects, a reflexive ability six times), more than 3 stack slots or one batch's counts hold.
CROWDED = Path(__file__).resolve().parent / "fixtures" / "audit" / "crowded-batch.itf.json"


def _pinned_to_the_crowded_batch(monkeypatch) -> None:
    """The contradiction search proposes only ``CROWDED``'s situation, judged again with no more room than the
    model's own (3 stack slots)."""
    from rule603._internal import contradiction
    from rule603._internal.schema import Schema
    from rule603._internal.trace import load

    monkeypatch.setattr(contradiction, "CAPACITY_ROOM", 3)
    values = load(CROWDED, Schema(tuple(ED.model.VARIABLES))).flat_values()
    shaping = DeadlockSearch._shaping

    def pinned(search, t):
        yield from shaping(search, t)
        yield from (var == values[key] for key, var in search.search.variables() if search._fixed(key, t))

    monkeypatch.setattr(DeadlockSearch, "_shaping", pinned)


def test_a_deadlock_more_room_might_end_is_not_named_a_contradiction(monkeypatch):
    # With no more room to judge a deadlock again than the model's own (3 stack slots), the crowded batch is stuck.
    # The larger universe has the deadlock too, but it rests on the room (405.1 ties instances to slots, and the
    # counts of one batch are bounded), so it is no contradiction: the search goes on past it.  The search is pinned
    # to that situation: which of 400 free proposals meets one is the solver's path, not the rules'.
    _pinned_to_the_crowded_batch(monkeypatch)
    met = []
    found = DeadlockSearch(ED, ED.model.universe(), OPTIONS.limits, max_rounds=3).at(2, artefact=met.append)
    assert not isinstance(found, Deadlock)
    # It rests on the model's room: more might end it.  It is shown, and it is why the check is undecided.
    assert [a.settled for a in met] == [False] and "more room" in met[0].reason
    assert "1 situation(s) that do not go on" in found.reason and "more room might end them" in found.reason
    assert "cannot tell" in _capacity(ED, met[0]).explanation


@pytest.mark.exhaustive  # about 8 s; the README test command stays within five minutes
def test_a_situation_pinned_in_the_roomier_encodings_never_shares_its_literal_with_another(monkeypatch):
    # The roomier encodings outlive a moment's search: a pin's literal reused for another situation would assume
    # both at once, and a situation that fits would read as one that does not.
    from rule603._internal import contradiction

    labels = []
    pin = contradiction._pin

    def recorded(enc, label, proposal, **kwargs):
        labels.append(label)
        return pin(enc, label, proposal, **kwargs)

    monkeypatch.setattr(contradiction, "_pin", recorded)
    _pinned_to_the_crowded_batch(monkeypatch)  # a deadlock judged by both roomier encodings
    search = DeadlockSearch(ED, ED.model.universe(), OPTIONS.limits, max_rounds=2)
    search.at(2)
    search.at(2)  # the same moment asked again: new solvers for it, the same roomier ones
    kept = [label for label in labels if not label.startswith("situation")]
    assert kept and len(set(kept)) == len(kept)


def _countered_at_once(g, t):
    # A toy clause no game can obey at moment 1: the top of the stack is countered, but the stack starts empty (405.1).
    yield Rule(t == 1, g.countered_now(t), "toy")


@pytest.mark.exhaustive  # about 8-16 s; the README test command stays within five minutes
def test_a_contradiction_the_stacks_rules_take_part_in_is_still_one():
    # The third judgement sets aside only what holds the stack to the model's slots, not the rest of 405.1: else this
    # contradiction, whose core has 405.1, would be taken for a want of room.
    edition = _with("603.9", _countered_at_once)
    found = DeadlockSearch(edition, edition.model.universe(), OPTIONS.limits).at(1)
    assert isinstance(found, Deadlock) and {"405.1", "603.9"} <= set(found.core)


def test_nine_chapter_triggers_exceed_the_model_but_not_its_roomy_variant():
    # A Saga entering with three lore counters and three instances of its chapter ability triggers nine
    # times (714.2b, 113.2c): more than the model counts (MAX_COUNT), so only the roomier model used to judge
    # deadlocks again has a game for it.  The audit's contradictions at moments 1, 3 and 5 were of this kind.
    m = ED.model

    def games(universe, variables=None):
        enc = Encoding(ED, universe, OPTIONS.limits, variables=variables)
        enc.extend(2)
        g = enc.g
        saga = enc.solver.fresh_literal("saga")
        enc.solver.add(
            g.Implies(
                saga,
                g.And(
                    g.kind(0) == m.CHAPTER,
                    g.final_chapter(0) == 3,
                    g.owner(0) == 0,
                    g.controller(1, 0) == 0,
                    g.zone(0, 0) == m.GRAVEYARD,
                    g.zone(1, 0) == m.BATTLEFIELD,
                    g.lore(1, 0) == 3,
                    g.instances(1, 0) == 3,
                    g.Not(g.priority(1)),
                    g.Not(g.phased_out(1, 0)),
                    g.Not(g.creatures_lose_abilities(1)),
                    *[g.Not(g.var(f, 0)) for f in m.CARD_FLAGS],
                ),
            )
        )
        return enc.check_with(2, [e.number for e in ED.encodings], [saga])

    assert games(m.universe()) == smt.Verdict.UNSAT
    assert games(m.universe(slot=12), m.roomy_variables(12)) == smt.Verdict.SAT


def test_a_card_is_one_spell_on_the_stack():
    # 405.1 (axioms.py `stack`): without "no two slots hold the same card", one card could be cast as two spells,
    # and the ambiguity search found "one game has spell c2 twice on the stack, the other once".
    enc = Encoding(ED, ED.model.universe(), OPTIONS.limits)
    enc.extend(2)
    g = enc.g
    code = ED.model.spell_code(g, 0)
    twice = enc.solver.fresh_literal("twice")
    enc.solver.add(g.Implies(twice, g.And(g.stack_size(1) >= 2, g.slot_src(1, 0) == code, g.slot_src(1, 1) == code)))
    once = enc.solver.fresh_literal("once")
    enc.solver.add(g.Implies(once, g.And(g.stack_size(1) >= 1, g.slot_src(1, 0) == code)))
    assert enc.check_with(2, [], [once]) == smt.Verdict.SAT  # the game rules allow a spell at all
    assert enc.check_with(2, [], [twice]) == smt.Verdict.UNSAT


@pytest.mark.exhaustive  # slow (over 10 s); the README test command stays within five minutes
def test_the_order_a_player_puts_their_own_triggers_in_is_their_choice_not_an_ambiguity(monkeypatch):
    # 603.3b: a player puts their own triggers on the stack in any order.  Two games of one scenario that differ
    # only in that order are not an ambiguity; without "same choices, same order" the search reports exactly that.
    from rule603._internal import ambiguity

    assert AmbiguitySearch(ED, ED.model.universe(), OPTIONS.limits, 2).find("stack order") is None
    monkeypatch.setattr(ambiguity, "_same_order", lambda one, other, t: [])
    found = AmbiguitySearch(ED, ED.model.universe(), OPTIONS.limits, 2).find("stack order")
    assert isinstance(found, Ambiguity) and found.moment == 1
    one, other = found.games
    # the same objects, put on the stack at moment 1 in another order
    stack = [sorted(state["slot_src"][: state["stack_size"]]) for state in (one.states[1], other.states[1])]
    assert stack[0] == stack[1] and one.states[1]["slot_src"] != other.states[1]["slot_src"]


@pytest.mark.exhaustive  # about 30 s: every behaviour at four moments, across scripts, twice
def test_asking_of_the_last_moments_alone_finds_what_asking_of_the_whole_game_finds(monkeypatch):
    # The cheaper first checks (a free state before the last moments of history) may only prove that no pair
    # exists; the answers must be those of the whole-game checks alone.  Asked across scripts, where real pairs
    # exist: where none exists (the same script) the whole game's answer could not show a wrong denial.
    from rule603._internal import ambiguity

    def answers():
        search = AmbiguitySearch(ED, ED.model.universe(), OPTIONS.limits, 4)
        return [type(f).__name__ for f in search.find_all(same_script=False).values()]

    windowed = answers()
    monkeypatch.setattr(ambiguity, "WINDOWS", ())
    assert answers() == windowed
    assert "Ambiguity" in windowed and "Undetermined" not in windowed


@pytest.mark.exhaustive  # the ambiguity search at bound 3; the default suite runs it at bound 2 above
def test_the_cheaper_first_question_never_denies_a_pair_the_whole_game_has():
    # Without 603.2 an ability may or may not trigger, at moment 2 as at any other: a real pair exists there,
    # so the question asked of the last moments alone must not say "none", and the whole game's finds it.
    def never(g, t):
        yield Rule(False, False, "nothing")

    edition = _with("603.2", never)
    search = AmbiguitySearch(edition, edition.model.universe(), OPTIONS.limits, 3)
    assert not search._recently_none("what triggers", 2, True)
    found = search._moment(["what triggers"], 2, True)["what triggers"]
    assert isinstance(found, Ambiguity) and found.moment == 2


def _cadical_proofs(monkeypatch) -> list[set[str]]:
    """What CaDiCaL proves in the ambiguity searches that follow, moment by moment."""
    from rule603._internal import ambiguity

    proofs: list[set[str]] = []
    original = ambiguity.AmbiguitySearch._proved_none

    def proved_none(self, t, now):
        found = original(self, t, now)
        proofs.append(found)
        return found

    monkeypatch.setattr(ambiguity.AmbiguitySearch, "_proved_none", proved_none)
    return proofs


@pytest.mark.exhaustive  # the ambiguity search at bound 3
def test_cadicals_proof_that_a_moment_has_no_pair_never_denies_one_z3_finds(monkeypatch):
    # CaDiCaL only ever proves "no pair"; a pair is z3's to find.  Without 603.2 an ability may or may not trigger
    # at moment 2: CaDiCaL, on z3's clauses of that moment, must find no proof, and z3 finds the pair.
    from rule603._internal import sat

    def never(g, t):
        yield Rule(False, False, "nothing")

    answers = []
    original = sat.CnfSolver.unsatisfiable

    def unsatisfiable(self, *args, **kwargs):
        answers.append(original(self, *args, **kwargs))
        return answers[-1]

    edition = _with("603.2", never)
    search = AmbiguitySearch(edition, edition.model.universe(), OPTIONS.limits, 3, cadical=True)
    search._moment(["what triggers"], 1, True)  # z3's first check bit-blasts the solver: CaDiCaL's from now on
    monkeypatch.setattr("rule603._internal.ambiguity.WINDOWS", ())  # the question goes to the whole game
    monkeypatch.setattr(sat.CnfSolver, "unsatisfiable", unsatisfiable)
    found = search._moment(["what triggers"], 2, True)["what triggers"]
    assert isinstance(found, Ambiguity) and found.moment == 2
    assert answers == [False]


@pytest.mark.exhaustive  # about a minute: every behaviour at four moments, across scripts, with and without CaDiCaL
def test_the_ambiguity_search_answers_alike_with_and_without_cadical(monkeypatch):
    proofs = _cadical_proofs(monkeypatch)

    def answers(cadical: bool) -> list[str]:
        search = AmbiguitySearch(ED, ED.model.universe(), OPTIONS.limits, 4, cadical=cadical)
        return [type(f).__name__ for f in search.find_all(same_script=False).values()]

    alone = answers(False)
    assert not any(proofs)
    assert answers(True) == alone
    assert "Ambiguity" in alone and any(proofs)  # both kinds of answer, and CaDiCaL proved some


@pytest.mark.exhaustive  # about 8-16 s; the README test command stays within five minutes
def test_a_lesson_from_the_roomier_universe_serves_the_situation_it_was_learned_from():
    # The capacity lesson is built once per moment over placeholders and filled in each round: filled with the
    # roomier universe's continuation of a situation, it must hold in that situation (else the search would
    # propose it again) and leave no placeholder behind.
    search = DeadlockSearch(ED, ED.model.universe(), OPTIONS.limits)
    t = 1
    search.search.extend(t)
    search.judge.extend(t + 1)
    enc = search.search
    alone = enc.solver.fresh_literal("alone")
    for rule in search._rules(enc.g, t, axioms_only=True):
        enc.solver.add(enc.g.Implies(alone, rule))
    assert enc.solver.check(enc.assumptions(t, search.clauses) + [alone]) == smt.Verdict.SAT
    proposal = search._proposal(t)
    fits = search._fits_larger(t, proposal)
    assert callable(fits)  # (a situation the game rules alone go on from: the roomier universe's clauses too)
    lesson = search._served_larger(t, fits)
    assert not any(name.startswith("larger.") for name in smt.symbols(lesson))
    g = enc.g
    pin, learned = enc.solver.fresh_literal("pin"), enc.solver.fresh_literal("learned")
    enc.solver.add(g.Implies(pin, g.And(*[enc.lookup(*key) == v for key, v in proposal.values.items()])))
    enc.solver.add(g.Implies(learned, g.Not(lesson)))
    base = enc.assumptions(t, search.clauses) + [alone, pin]
    assert enc.solver.check(base) == smt.Verdict.SAT
    assert enc.solver.check(base + [learned]) == smt.Verdict.UNSAT  # the lesson rules the situation out


@pytest.mark.exhaustive  # the ambiguity search at bound 3; the default suite runs it at bound 2 above
def test_each_behaviour_keeps_the_first_moment_that_has_a_pair():
    # Without 603.2 an ability may or may not trigger at every moment: the pair reported is moment 1's, and asking
    # the behaviour again at moment 2 (which has one too) must not replace it.
    def never(g, t):
        yield Rule(False, False, "nothing")

    edition = _with("603.2", never)
    found = AmbiguitySearch(edition, edition.model.universe(), OPTIONS.limits, 3).find_all(["what triggers"])
    assert isinstance(found["what triggers"], Ambiguity) and found["what triggers"].moment == 1
    again = AmbiguitySearch(edition, edition.model.universe(), OPTIONS.limits, 3)
    assert isinstance(again._moment(["what triggers"], 2, True)["what triggers"], Ambiguity)


def test_the_contradiction_search_gives_up_after_the_refinements_asked_for_and_says_so():
    from rule603._internal.contradiction import Undecided
    from rule603.cli import _parser
    from rule603.commands.audit import audit_command

    found = DeadlockSearch(ED, ED.model.universe(), OPTIONS.limits, max_rounds=2).at(1)
    # Moment 1 of the current edition never ends within a few refinements (docs/audit.md): 2 is the budget.
    assert isinstance(found, Undecided) and found.reason.startswith("no answer after 2 refinements"), found
    args = _parser().parse_args("audit --all --refinements 7 --out reports --overwrite".split())
    assert args.refinements == 7 and "--refinements 7" in audit_command(args)
    default = _parser().parse_args("audit --all --out reports --overwrite".split())
    assert "--refinements" not in audit_command(default)
    assert main(["audit", "--refinements", "0"]) == 2
