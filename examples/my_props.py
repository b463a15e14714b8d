"""Example user properties: run with

    rule603 verify --property-file examples/my_props.py --no-builtin

A property is a function ``claim(g, t)`` that must be true at every moment ``t``.
``g`` gives the trace's variables (``g.zone(t, c)``, ``g.triggers(t, a)``, ...; see
``rule603 properties`` and ``models/game.py``) and the logic operators (``g.And``,
``g.Or``, ``g.Not``, ``g.Implies``, ``g.If``, ``g.count``).  Use Python's ``==``,
``<=``, ``+`` on values; never ``and``/``or``/``not``/``if`` on them.
"""

from rule603 import prop
from rule603.models import game as m


@prop("enters-trigger-needs-an-entry", clauses=["603.6a"])
def enters_trigger_needs_an_entry(g, t):
    """A 'when this enters' ability never triggers in a batch where its permanent did not enter."""
    return g.And(
        *[
            g.Implies(g.And(g.kind(c) == m.ENTERS_SELF, g.Not(m.entered_battlefield(g, t, c))), g.triggers(t, c) == 0)
            for c in m.cards(g)
        ]
    )


@prop("upkeep-trigger-only-in-upkeep", clauses=["603.2b"])
def upkeep_only(g, t):
    """'At the beginning of your upkeep' never triggers outside an upkeep."""
    return g.And(
        *[
            g.Implies(g.And(g.kind(c) == m.YOUR_UPKEEP, g.step(t) != m.UPKEEP), g.triggers(t, c) == 0)
            for c in m.cards(g)
        ]
    )


@prop("dies-never-triggers-twice-per-creature", clauses=["603.2c"])
def too_strong(g, t):
    """Deliberately wrong: claims a 'dies' ability triggers at most once per batch for each instance of it the
    object has (113.2c); it triggers once per creature."""
    if t == 0:
        return True
    return g.And(
        *[g.Implies(g.kind(c) == m.CREATURE_DIES, g.triggers(t, c) <= g.instances(t - 1, c)) for c in m.cards(g)]
    )
