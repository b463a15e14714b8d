"""Write the example traces of this folder (run: python examples/traces/generate.py).

- ``board-wipe.json``: the reference engine plays rule 603.10a's example: a "whenever a
  creature dies" creature dies in a board wipe with another creature; it triggers twice.
- ``delayed-fires-twice.json``: an engine bug (the mutant ``delayed-each-event``): a delayed
  "whenever a creature dies" without a duration triggers once per creature in a board wipe.
- ``apnap-reversed.json``: an engine bug (the mutant ``apnap-reversed``): two players' enters
  abilities go on the stack nonactive player first.
- ``blood-artist-text.json``: the board wipe again, its cards described by their printed text
  (``#meta.oracle``) instead of the constants the text decides.
"""

from __future__ import annotations

import json
from pathlib import Path

from rule603 import trace_to_json
from rule603.engines.mutants import MUTANTS
from rule603.engines.reference import run
from rule603.engines.scenario import Action, Card, DelayedAbility, Scenario
from rule603.models.printed import DECIDED

HERE = Path(__file__).parent
CREATURE = ("creature_card",)

BOARD_WIPE = Scenario(
    cards=(
        Card(zone="battlefield", trigger="creature_dies", flags=CREATURE),
        Card(zone="battlefield", flags=CREATURE),
    ),
    actions=(Action(destroy=(0, 1)),),
    description="603.10a: a dies-trigger creature dies with another; it triggers for both",
)
DELAYED_BOARD_WIPE = Scenario(
    cards=(
        Card(zone="battlefield", flags=CREATURE),
        Card(zone="battlefield", flags=CREATURE),
        Card(zone="battlefield"),
    ),
    delayed=(DelayedAbility(trigger="creature_dies", cause="action", source=2, refers_to=2),),
    actions=(Action(create_delayed=(0,)), Action(destroy=(0, 1))),
    description="603.7b: a delayed ability without a duration triggers once, for one of the simultaneous events",
)
BOTH_ENTER = Scenario(
    cards=(
        Card(zone="hand", trigger="enters_self", flags=CREATURE, owner=0),
        Card(zone="hand", trigger="enters_self", flags=CREATURE, owner=1),
    ),
    actions=(Action(put_onto_battlefield=(0, 1)),),
    description="603.3b: both players' enters abilities, active player's first (they end up lowest)",
)


def examples() -> dict[str, dict]:
    mutant = {m.id: m for m in MUTANTS}
    return {
        "board-wipe.json": trace_to_json(run(BOARD_WIPE), {"scenario": BOARD_WIPE.description}),
        "delayed-fires-twice.json": trace_to_json(
            mutant["delayed-each-event"].run(DELAYED_BOARD_WIPE),
            {"scenario": DELAYED_BOARD_WIPE.description, "engine": "mutant delayed-each-event"},
        ),
        "apnap-reversed.json": trace_to_json(
            mutant["apnap-reversed"].run(BOTH_ENTER),
            {"scenario": BOTH_ENTER.description, "engine": "mutant apnap-reversed"},
        ),
        "blood-artist-text.json": _by_text(
            trace_to_json(run(BOARD_WIPE), {"scenario": BOARD_WIPE.description}),
            {"card": ["Blood Artist", "Grizzly Bears"]},
            ["Whenever Blood Artist or another creature dies, target player loses 1 life and you gain 1 life.", None],
        ),
    }


def _by_text(document: dict, names: dict, texts: list) -> dict:
    """``document`` with its cards' printed texts instead of the constants they decide."""
    document["#meta"].update(names=names, oracle=texts)
    document["constants"] = {k: v for k, v in document["constants"].items() if k not in DECIDED}
    return document


def render(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    for name, data in examples().items():
        (HERE / name).write_text(render(data), encoding="utf-8")
        print(f"wrote {HERE / name}")
