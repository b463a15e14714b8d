"""rule603: a constraint-based verifier for Comprehensive Rules 603, Handling Triggered Abilities.

The public API is what this module exports.  Write a property in your own file::

    from rule603 import prop
    from rule603.models import game

    @prop("my-claim", clauses=["603.2", "603.2c"])
    def my_claim(g, t):
        "An enters ability never triggers more often than creatures entered."
        ...

and run ``rule603 verify --property-file my_props.py``.
"""

from __future__ import annotations

from ._internal.catalogue import load_edition
from ._internal.conformance import Finding, TraceChecker, TraceResult
from ._internal.documents import write_atomically
from ._internal.registry import MODEL_BOUND, SLOTS, ClauseEncoding, NotModelled, Property, Rule, clause, exempt, prop
from ._internal.ruling import Ask
from ._internal.schema import ENV, RULE, Universe, VarSpec
from ._internal.trace import FORMAT as TRACE_FORMAT
from ._internal.trace import Trace, trace_to_json
from .errors import InvalidArgument, InvalidDefinition, Rule603Error, RuleTextError, TraceFormatError

__all__ = [
    "Ask",
    "ENV",
    "Finding",
    "RULE",
    "ClauseEncoding",
    "InvalidArgument",
    "InvalidDefinition",
    "MODEL_BOUND",
    "NotModelled",
    "Property",
    "Rule",
    "Rule603Error",
    "RuleTextError",
    "SLOTS",
    "TRACE_FORMAT",
    "Trace",
    "TraceChecker",
    "TraceResult",
    "TraceFormatError",
    "Universe",
    "VarSpec",
    "clause",
    "exempt",
    "load_edition",
    "prop",
    "trace_to_json",
    "write_atomically",
]
__version__ = "0.1.0"
