"""Mutants of the reference engine: each one a bug that real engines have had with triggered abilities.

Every mutant is a subclass of :class:`~rule603.engines.reference.ReferenceGame` that changes
one decision, and names the clause of rule 603 the bug breaks.  The mutation study
(:func:`study`, ``rule603 mutants``) plays generated scenarios through the reference engine
and every mutant; a mutant is *killed* when ``rule603 check`` rejects its trace, and killed
*by the right clause* when that clause is among those broken at the first broken moment.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rule603 import InvalidArgument, Trace, TraceChecker
from rule603.models.game import (
    BATTLEFIELD,
    BECOMES_TAPPED,
    CREATURE_ENTERS,
    DEALT_DAMAGE,
)

from .reference import Moment, ReferenceGame, Triggering
from .scenario import Action, Scenario

# --- the bugs ------------------------------------------------------------------------------------


class DelayedNotRemoved(ReferenceGame):
    def _delayed_abilities_used_up(self, after: Moment) -> None:
        pass  # the delayed trigger stays registered after it fires


class ThisTurnLingers(ReferenceGame):
    def _this_turn_ends(self, before: Moment, after: Moment) -> None:
        pass  # "this turn" never ends


class DelayedBeforeCreation(ReferenceGame):
    def _why_it_does_not_trigger(self, a, before, after, tr) -> str:
        why = super()._why_it_does_not_trigger(a, before, after, tr)
        return "" if why == "603.7a" else why  # fires for an event of the batch that created it


class DelayedForEachEvent(ReferenceGame):
    def _triggering(self, a, before, after, action, found) -> Triggering:
        tr = super()._triggering(a, before, after, action, found)
        cls, i = self.ability_class(a)
        if cls == "delayed" and not self.scenario.delayed[i].duration and tr.base_triggers:
            tr.base_triggers = tr.triggers = tr.matches  # once per simultaneous event, not once
        return tr


class StateTriggerRetriggers(ReferenceGame):
    def _still_on_its_way(self, a, before, after) -> bool:
        return False  # triggers again while its instance is on the stack


class StateTriggerOnlyOnce(ReferenceGame):
    def _still_on_its_way(self, a, before, after) -> bool:
        # Never triggers again once it has triggered at all (even after the instance resolved).
        return any(m.abilities and m.abilities[a].triggers for m in self.moments)


class EntersBeforeEffects(ReferenceGame):
    def _characteristics(self, m: Moment) -> None:
        super()._characteristics(m)
        for c, card in enumerate(m.cards):
            if card.zone == BATTLEFIELD and card.since == m.t and m.t > 0:  # a newcomer: printed values, wrongly
                card.eff_creature = self.flag(c, "creature_card")
                for a in self.abilities_of(c):
                    m.printed[a].eff_ability = not self.said(a, "granted")


class NoLookBack(ReferenceGame):
    def looks_back(self, kind: int) -> bool:
        return False  # leaves-the-battlefield and the rest judged after the event


class IfNotRechecked(ReferenceGame):
    def _removed_instead(self, before: Moment, top, action: Action) -> bool:
        return action.targets_illegal  # the intervening 'if' is not checked again on resolution


class FailedIfResolves(ReferenceGame):
    def _top_of_stack(self, before: Moment, after: Moment, action: Action) -> None:
        super()._top_of_stack(before, after, action)
        if after.removed_now and not after.targets_illegal:  # removed for its false intervening 'if' ...
            after.removed_now, after.resolving, after.acts = False, before.stack[-1], False  # ... resolves instead


class IfNotAtTrigger(ReferenceGame):
    def _why_it_does_not_trigger(self, a, before, after, tr) -> str:
        why = super()._why_it_does_not_trigger(a, before, after, tr)
        return "" if why == "603.4" else why  # triggers whether or not the condition holds


class ApnapReversed(ReferenceGame):
    def _apnap_rank(self, m: Moment, player: int) -> int:
        return -super()._apnap_rank(m, player)  # the nonactive player's abilities go on the stack first


class TwoPartsIgnored(ReferenceGame):
    def _part(self, a: int) -> int:
        return 1  # "whenever an ability triggers" abilities mixed in with the others


class EntersTappedBecomesTapped(ReferenceGame):
    def _occurrences(self, a, kind, before, after, view, found) -> tuple[int, int]:
        n = super()._occurrences(a, kind, before, after, view, found)
        if kind == BECOMES_TAPPED and before is not None and self._exists(a, view):
            x = self.subject(a)
            if self._entered_battlefield(after, x) and after.cards[x].tapped:
                return 1, 1  # entering tapped counted as becoming tapped
        return n


class PreventedDamageTriggers(ReferenceGame):
    def _triggering(self, a, before, after, action, found) -> Triggering:
        tr = super()._triggering(a, before, after, action, found)
        if self.ability_kind(a) == DEALT_DAMAGE and tr.attempts > tr.matches and not tr.stopped_by:
            tr.base_triggers = tr.triggers = tr.attempts  # the damage was prevented, and it triggers anyway
        return tr


class HiddenObjectTriggers(ReferenceGame):
    def _never_visible(self, c, before, after, look_back) -> bool:
        return False  # an object nobody can see triggers


class ReflexiveUnrelatedAction(ReferenceGame):
    def _reflexive_occurrences(self, r: int, before: Moment | None, after: Moment) -> int:
        n = super()._reflexive_occurrences(r, before, after)
        resolving = after.resolving
        ability = self.scenario.reflexive[r]
        if (
            resolving is not None
            and resolving.code == self.ability_code(ability.created_by)
            and not ability.on_resolution
        ):
            n += after.actions_other  # the same action taken for other reasons counted too
        return n


class PayAnyPerPayment(ReferenceGame):
    def _triggering(self, a, before, after, action, found) -> Triggering:
        tr = super()._triggering(a, before, after, action, found)
        cls, i = self.ability_class(a)
        if cls == "reflexive" and self.scenario.reflexive[i].pay_any and tr.base_triggers:
            tr.base_triggers = tr.triggers = tr.matches  # "one or more times" triggering once per payment
        return tr


class DelayedControllerFromSource(ReferenceGame):
    def _controller(self, a: int, view: Moment, after: Moment) -> int:
        cls, i = self.ability_class(a)
        if cls == "delayed":
            return after.cards[self.scenario.delayed[i].source].controller  # its source's current controller
        return super()._controller(a, view, after)


class DoublerAppliesToDelayed(ReferenceGame):
    def _counts_additional(self, a: int, after: Moment) -> bool:
        cls, i = self.ability_class(a)
        if cls == "delayed" and self.d_kind[i] == CREATURE_ENTERS:
            return True  # "triggers an additional time" applied to a delayed ability
        return super()._counts_additional(a, after)


class DoublerAppliesToItself(ReferenceGame):
    def _additional_times(self, a: int, after: Moment) -> int:
        n = super()._additional_times(a, after)
        return 2 * n  # each additional instance is itself made to trigger again


class OnceEachInstance(ReferenceGame):
    def _does_what_it_says(self, before: Moment, top, action: Action) -> bool:
        printed = [replace(p, done_by=frozenset()) for p in before.printed]  # each instance takes the action
        return super()._does_what_it_says(replace(before, printed=printed), top, action)


class BatchingLost(ReferenceGame):
    def _one_event(self, a: int, occurrences: int) -> int:
        return occurrences  # "whenever one or more creatures die" triggers once per creature


class StateBasedActionsIgnored(ReferenceGame):
    def _state_based_actions(self, m: Moment) -> Action:
        return Action()  # lethal damage, Auras attached to nothing, players at 0 life: priority as if none


class TokenComesBack(ReferenceGame):
    def _comes_back(self, c: int) -> bool:
        return True  # a token exiled and returned at once (a flicker) comes back onto the battlefield


class LegendRuleIgnored(ReferenceGame):
    def _legend_groups(self, m: Moment, here: list[int]) -> list[list[int]]:
        return []  # two legendary permanents with the same name stay under one player's control


class OnceEachTurnIgnored(ReferenceGame):
    def _why_it_does_not_trigger(self, a, before, after, tr) -> str:
        why = super()._why_it_does_not_trigger(a, before, after, tr)
        return "" if why == "603.2i" else why  # "do this only once each turn" ignored


class TriggersAgainThisTurn(ReferenceGame):
    def _why_it_does_not_trigger(self, a, before, after, tr) -> str:
        why = super()._why_it_does_not_trigger(a, before, after, tr)
        return "" if why == "text.triggers_once_each_turn" else why  # it triggers again in a later batch


class DelayedAllOrNothing(ReferenceGame):
    def _does_what_it_says(self, before: Moment, top, action: Action):
        acts, affects = super()._does_what_it_says(before, top, action)
        cls, i = self.ability_class(top.code - 1)
        if cls == "delayed" and affects != frozenset(self.scenario.delayed[i].refers_to):
            # One of its objects is gone: it does nothing to the others either (what else it does, it still does).
            return self.scenario.delayed[i].other_effect, frozenset()
        return acts, affects


class DelayedFindsReturned(ReferenceGame):
    def _does_what_it_says(self, before: Moment, top, action: Action):
        cls, i = self.ability_class(top.code - 1)
        if cls != "delayed" or not self.scenario.delayed[i].refers_to:
            return super()._does_what_it_says(before, top, action)
        # Each object looked for by its card and zone only: one that left and came back is taken for the old one.
        objects = before.delayed[i].objects
        found = frozenset(c for c in objects if before.cards[c].zone == objects[c][1])
        return bool(found) or self.scenario.delayed[i].other_effect, found


class SourceFoundAnew(ReferenceGame):
    def _finds_its_source(self, before: Moment, a: int, top) -> bool:
        return True  # its source looked for by its card, wherever it is now: one that moved is taken for the old one


class EventObjectFoundAnew(ReferenceGame):
    def _finds_what_it_happened_to(self, before: Moment, a: int, top, c: int | None = None) -> bool:
        return True  # "exile it" exiles the card wherever it is now: one that moved again is taken for the old one


class IfAskedOfTheCard(ReferenceGame):
    @staticmethod
    def _if_false_of(m, a: int) -> frozenset[int]:
        return frozenset()  # "if that creature's power is greater than ~'s" taken as true of every creature


class OneObjectForAll(ReferenceGame):
    @staticmethod
    def _subjects(tr):
        return [tr.objects[0] if tr.objects else 0] * tr.triggers  # every instance about the first creature


class DelayedRestLost(ReferenceGame):
    def _does_what_it_says(self, before: Moment, top, action: Action):
        acts, affects = super()._does_what_it_says(before, top, action)
        cls, i = self.ability_class(top.code - 1)
        if cls == "delayed" and self.scenario.delayed[i].refers_to and not affects:
            return False, frozenset()  # none of its objects is found: "then draw a card" isn't done either
        return acts, affects


class ChoicesOfPrintedOnly(ReferenceGame):
    def _no_legal_choice(self, a: int, after: Moment) -> bool:
        # Only an object's printed ability is checked for a legal target: a delayed or reflexive one goes on the stack.
        return self.ability_class(a)[0] == "printed" and super()._no_legal_choice(a, after)


class WholeEffectFails(ReferenceGame):
    def _does_what_it_says(self, before: Moment, top, action: Action):
        acts, affects = super()._does_what_it_says(before, top, action)
        cls, a = self.ability_class(top.code - 1)
        zone_change = cls == "printed" and self.acts_on_its_own_object(a)
        lost = zone_change and not self._finds_its_object(before, self.card_of(a), top)
        return (False, frozenset()) if lost else (acts, affects)  # "draw two cards" fails with the creature gone


class AnotherIgnored(ReferenceGame):
    def subject_of(self, a: int) -> tuple[str, str, str]:
        relation, whose, token = super().subject_of(a)
        return ("any" if relation == "another" else relation), whose, token  # 'another creature' counts itself too


class ControllerInverted(ReferenceGame):
    def subject_of(self, a: int) -> tuple[str, str, str]:
        relation, whose, token = super().subject_of(a)
        flipped = {"you": "opponent", "opponent": "you"}.get(whose, whose)  # 'you control' read as an opponent's
        return relation, flipped, token


class SubtypeIgnored(ReferenceGame):
    def subtype_matches(self, a: int, c: int) -> bool:
        return True  # 'another Elf', 'an Island': any creature or land, whatever its subtypes


class SecondAbilityIgnored(ReferenceGame):
    def has_ability(self, m: Moment, a: int) -> bool:
        return a < self.n_cards and super().has_ability(m, a)  # one triggered ability per card: its first


class CardTypeIgnored(ReferenceGame):
    def card_type_matches(self, a: int, c: int) -> bool:
        return True  # 'whenever you cast a noncreature spell': any spell, whatever its card type


class LeaversAbilitiesStay(ReferenceGame):
    def _taken_along(self, obj, p: int) -> bool:
        spell = self.spell_card(obj.code)
        return spell is not None and super()._taken_along(obj, p)  # their spells leave, their abilities stay


class LeaversAbilitiesPutOnStack(ReferenceGame):
    @staticmethod
    def _still_in_game(m: Moment, player: int) -> bool:
        return True  # an ability of a player who has left goes on the stack all the same


# --- the catalogue -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    id: str
    bug: str  # the bug, as an engine author would describe it
    clauses: tuple[str, ...]  # the clause(s) of rule 603 the bug breaks
    engine: type[ReferenceGame]

    def run(self, scenario: Scenario) -> Trace:
        played = self.engine(scenario)
        for action in scenario.actions:
            played.apply(action)
        return played.trace()


MUTANTS: tuple[Mutant, ...] = (
    Mutant("delayed-not-removed", "a delayed trigger is not removed after it fires", ("603.7b",), DelayedNotRemoved),
    Mutant(
        "delayed-all-or-nothing",
        "a delayed ability that refers to several objects does nothing once one of them has left its zone",
        ("603.7c",),
        DelayedAllOrNothing,
    ),
    Mutant(
        "delayed-finds-returned",
        "a delayed ability affects an object that left its zone and came back (a new object, 400.7)",
        ("603.7c",),
        DelayedFindsReturned,
    ),
    Mutant("this-turn-lingers", "a 'this turn' delayed trigger still fires next turn", ("603.7b",), ThisTurnLingers),
    Mutant(
        "delayed-before-creation",
        "a delayed trigger fires for an event before it was created",
        ("603.7a",),
        DelayedBeforeCreation,
    ),
    Mutant(
        "delayed-each-event",
        "a delayed trigger without a duration fires once per simultaneous event",
        ("603.7b",),
        DelayedForEachEvent,
    ),
    Mutant(
        "state-retriggers-on-stack",
        "a state trigger retriggers while its instance is on the stack",
        ("603.8",),
        StateTriggerRetriggers,
    ),
    Mutant(
        "state-never-retriggers",
        "a state trigger never triggers again after its instance resolves",
        ("603.8",),
        StateTriggerOnlyOnce,
    ),
    Mutant(
        "enters-before-effects",
        "enters triggers are checked before continuous effects apply to the new permanent",
        ("603.6b",),
        EntersBeforeEffects,
    ),
    Mutant(
        "no-look-back",
        "leaves-the-battlefield (and other look-back) triggers judged after the event",
        ("603.10", "603.10a", "603.10b", "603.10c", "603.10d", "603.10e", "603.10f"),
        NoLookBack,
    ),
    Mutant("if-not-rechecked", "the intervening 'if' is not checked again on resolution", ("603.4",), IfNotRechecked),
    Mutant(
        "failed-if-resolves",
        "an ability whose intervening 'if' is false on resolution resolves doing nothing instead of being removed",
        ("603.4",),
        FailedIfResolves,
    ),
    Mutant(
        "if-not-at-trigger", "the intervening 'if' is not checked when the event happens", ("603.4",), IfNotAtTrigger
    ),
    Mutant("apnap-reversed", "APNAP order reversed", ("603.3b",), ApnapReversed),
    Mutant(
        "another-ignored",
        "'whenever another creature enters/dies' triggers for its own permanent too",
        # 113.3: what 'a creature card ... from anywhere' and 'a player casts a spell' mean; 603.2f: 'a land becomes
        # tapped'
        ("603.6a", "603.6c", "603.2f", "113.3"),
        AnotherIgnored,
    ),
    Mutant(
        "controller-inverted",
        "'a creature you control' read as one an opponent controls, and the other way round",
        ("603.6a", "603.6c", "603.2f", "113.3"),
        ControllerInverted,
    ),
    Mutant(
        "two-parts-ignored",
        "the two-part process of 603.3b ignored ('whenever an ability triggers' mixed in)",
        ("603.3b",),
        TwoPartsIgnored,
    ),
    Mutant(
        "enters-tapped-becomes-tapped",
        "'becomes tapped' fires for a permanent that enters tapped",
        ("603.2f",),
        EntersTappedBecomesTapped,
    ),
    Mutant(
        "prevented-damage-triggers", "prevented damage triggers 'is dealt damage'", ("603.2h",), PreventedDamageTriggers
    ),
    Mutant("hidden-object-triggers", "an object nobody can see triggers", ("603.2g",), HiddenObjectTriggers),
    Mutant(
        "reflexive-unrelated-action",
        "a reflexive trigger fires for the same action taken for another reason",
        ("603.12",),
        ReflexiveUnrelatedAction,
    ),
    Mutant(
        "pay-any-per-payment",
        "'when you pay one or more times' triggers once per payment",
        ("603.12a",),
        PayAnyPerPayment,
    ),
    Mutant(
        "delayed-controller-from-source",
        "a delayed trigger's controller taken from its source's current controller",
        # 603.2b: a delayed "at the beginning of your upkeep" then waits for the wrong player's upkeep; 113.3: a
        # delayed "when you lose control of" (a condition 113.3 defines) is judged for the wrong player; 603.8: a
        # delayed state trigger ("when you have no cards in hand") looks at the wrong player's hand
        ("603.3a", "603.7d", "603.7e", "603.7f", "603.7g", "603.2b", "113.3", "603.8"),
        DelayedControllerFromSource,
    ),
    Mutant(
        "doubler-applies-to-delayed",
        "an additional-trigger effect applies to delayed triggers",
        ("603.2e",),
        DoublerAppliesToDelayed,
    ),
    Mutant(
        "doubler-applies-to-itself",
        "an additional-trigger effect applies to the additional instances too",
        ("603.2d",),
        DoublerAppliesToItself,
    ),
    Mutant("once-each-turn-ignored", "'do this only once each turn' ignored", ("603.2i",), OnceEachTurnIgnored),
    Mutant(
        "source-found-anew",
        "'put a +1/+1 counter on this creature' puts it on the card that has died or left since it triggered",
        ("400.7",),
        SourceFoundAnew,
    ),
    Mutant(
        "event-object-found-anew",
        "'whenever another creature dies, exile it' exiles the card even after it has left the graveyard",
        ("400.7",),
        EventObjectFoundAnew,
    ),
    Mutant(
        "if-asked-of-the-card",
        "an intervening 'if' about the creature that died is not asked of each creature (taken as true of all)",
        ("603.4",),
        IfAskedOfTheCard,
    ),
    Mutant(
        "one-object-for-all",
        "'whenever another creature dies, return it' returns the same creature for each creature that died at once",
        ("405.1",),
        OneObjectForAll,
    ),
    Mutant(
        "delayed-rest-lost",
        "a delayed ability none of whose objects is found doesn't do the rest of its effect either ('then draw a"
        " card')",
        ("608.2",),
        DelayedRestLost,
    ),
    Mutant(
        "delayed-target-unchecked",
        "a delayed or reflexive ability that targets goes on the stack with no legal target",
        ("603.3d",),
        ChoicesOfPrintedOnly,
    ),
    Mutant(
        "whole-effect-fails",
        "an enters or leaves ability whose object is gone does nothing at all, also what it does elsewhere"
        " (Mulldrifter evoked draws nothing)",
        ("608.2",),
        WholeEffectFails,
    ),
    Mutant(
        "triggers-again-this-turn",
        "'This ability triggers only once each turn' triggers again in a later event of the same turn",
        ("text.triggers_once_each_turn",),
        TriggersAgainThisTurn,
    ),
    Mutant(
        "batching-lost",
        "'whenever one or more creatures die/enter' triggers once for each of them instead of once for the batch",
        ("603.6a", "603.6c", "603.2f", "113.3"),
        BatchingLost,
    ),
    Mutant(
        "subtype-ignored",
        "'whenever another Elf enters', 'an Island becomes tapped' count every creature or land, whatever its subtypes",
        ("603.6a", "603.6c", "603.2f", "113.3"),
        SubtypeIgnored,
    ),
    Mutant(
        "card-type-ignored",
        "'whenever you cast a noncreature spell' (a creature spell, an artifact spell) counts every spell",
        ("113.3",),  # what 'a player casts a spell' means
        CardTypeIgnored,
    ),
    Mutant(
        "second-ability-ignored",
        "only a card's first printed triggered ability triggers (an engine that keeps one per card)",
        # the clause or game rule that defines the ability's trigger event: enters (603.6a), leaves (603.6c), a
        # state (603.8), the beginning of a step (603.2b), becoming tapped (603.2f), the others (113.3)
        ("603.2", "603.2b", "603.2f", "603.6a", "603.6c", "603.8", "113.3"),
        SecondAbilityIgnored,
    ),
    Mutant(
        "once-each-instance",
        "every instance that triggered together takes the 'only once each turn' action",
        ("603.2i",),
        OnceEachInstance,
    ),
    Mutant(
        "state-based-actions-ignored",
        "a player receives priority with state-based actions still to perform",
        ("704.3",),
        StateBasedActionsIgnored,
    ),
    Mutant(
        "token-comes-back",
        "a token exiled and returned at once (flickered) comes back onto the battlefield",
        ("111.8",),
        TokenComesBack,
    ),
    Mutant(
        "leavers-abilities-stay",
        "a player who leaves the game leaves the triggered abilities they control on the stack",
        ("800.4a",),
        LeaversAbilitiesStay,
    ),
    Mutant(
        "leavers-abilities-put-on-stack",
        "a triggered ability controlled by a player who has left the game is put on the stack",
        ("800.4d",),
        LeaversAbilitiesPutOnStack,
    ),
    Mutant(
        "legend-rule-ignored",
        "two legendary permanents with the same name stay under one player's control: a player receives priority"
        " with the legend rule still to apply",
        ("704.3",),
        LegendRuleIgnored,
    ),
)


# --- the study -------------------------------------------------------------------------------------


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool = False
    scenarios: int = 0  # scenarios played until it was killed (or in all, if it survived)
    moment: int | None = None
    broken: tuple[str, ...] = ()  # the clauses broken at the first broken moment
    example: Scenario | None = None

    @property
    def right_clause(self) -> bool:
        return bool(set(self.broken) & set(self.mutant.clauses))

    @property
    def clause(self) -> str | None:
        """The clause that killed it: the expected one if it is among those broken, else the first broken."""
        if not self.broken:
            return None
        expected = [c for c in self.broken if c in self.mutant.clauses]
        return expected[0] if expected else self.broken[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.mutant.id,
            "bug": self.mutant.bug,
            "expected_clauses": list(self.mutant.clauses),
            "killed": self.killed,
            "clause": self.clause,
            "right_clause": self.right_clause,
            "broken_at_first_moment": list(self.broken),
            "moment": self.moment,
            "scenarios": self.scenarios,
            "example": repr(self.example) if self.example is not None else None,
        }


@dataclass
class Study:
    outcomes: list[Outcome]
    scenarios: int  # scenarios generated
    seconds: float = 0.0
    reference_violations: list[str] = field(default_factory=list)  # would mean the reference engine is wrong
    violations_at: list[int] = field(default_factory=list)  # the number of each of those scenarios, in the stream


def groups(mutants: Sequence[Mutant], n: int) -> list[list[Mutant]]:
    """``mutants`` dealt into at most ``n`` groups, one study each (``merged``): every group draws the scenarios
    again, so there are as few groups as there are processes to run them."""
    return [list(mutants[i::n]) for i in range(min(n, len(mutants)))]


def merged(parts: Sequence[Study], mutants: Sequence[Mutant], seconds: float) -> Study:
    """One study of all ``mutants`` from studies of disjoint groups of them, the same as one study of them all: each
    mutant meets the same scenarios in the same order whatever is studied beside it (the stream is derandomized and
    does not depend on what the scenarios show), so its outcome is the same; the whole study ends where its last
    group does, and the reference engine is checked on the scenarios where some mutant then alive differed."""
    by_id = {o.mutant.id: o for part in parts for o in part.outcomes}
    found = sorted({pair for part in parts for pair in zip(part.violations_at, part.reference_violations, strict=True)})
    return Study(
        [by_id[m.id] for m in mutants],
        max((part.scenarios for part in parts), default=0),
        seconds,
        [v for _, v in found],
        [n for n, _ in found],
    )


def study(
    max_scenarios: int = 10000,
    mutants: Sequence[Mutant] = MUTANTS,
    progress: Callable[[int, int], None] | None = None,
) -> Study:
    """Play generated scenarios through the reference engine and every mutant until all are killed."""
    from .reference import run
    from .strategies import each_scenario

    checker = TraceChecker("current")
    outcomes = [Outcome(m) for m in mutants]
    result = Study(outcomes, 0)
    started = time.perf_counter()

    def play(scenario: Scenario) -> bool:
        result.scenarios += 1
        reference = run(scenario)
        ref_check = None
        for outcome in outcomes:
            if outcome.killed:
                continue
            outcome.scenarios = result.scenarios
            try:
                trace = outcome.mutant.run(scenario)
            except InvalidArgument:
                continue  # the mutant refuses the script: no verdict from this scenario
            if trace.states == reference.states:
                continue  # the bug made no difference here
            if ref_check is None:
                ref_check = checker.check(reference)
                if not ref_check.conforms:
                    result.reference_violations.append(repr(scenario))
                    result.violations_at.append(result.scenarios)
            found = checker.check(trace)
            if found.conforms:
                continue
            outcome.killed = True
            outcome.moment = found.violations[0].moment
            outcome.broken = tuple(dict.fromkeys(v.clause for v in found.violations))
            outcome.example = scenario
        if progress:
            progress(result.scenarios, sum(o.killed for o in outcomes))
        return all(o.killed for o in outcomes)

    each_scenario(max_scenarios, play)
    result.seconds = time.perf_counter() - started
    return result
