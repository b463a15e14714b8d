"""Every error rule603 raises on purpose descends from :class:`Rule603Error`.

User mistakes (bad files, unknown ids, impossible bounds) are errors of this tree;
the command line turns them into one line on stderr and exit status 2.
"""

from __future__ import annotations


class Rule603Error(Exception):
    """Root of the errors rule603 raises deliberately."""

    __module__ = "rule603"


class InvalidArgument(Rule603Error, TypeError):
    """A caller passed a value the API cannot accept (`name=repr` in the message)."""

    __module__ = "rule603"


class InvalidDefinition(Rule603Error):
    """A clause or property is defined wrongly (duplicate id, unknown clause, ...)."""

    __module__ = "rule603"


class RuleTextError(Rule603Error):
    """The rule text file could not be parsed; names the file and line."""

    __module__ = "rule603"

    def __init__(self, filename: str, line: int, message: str) -> None:
        self.filename = filename
        self.line = line
        self.message = message
        super().__init__(f"{filename}:{line}: {message}")


class TraceFormatError(Rule603Error):
    """A JSON trace does not have the documented shape; names the JSON pointer."""

    __module__ = "rule603"

    def __init__(self, source: str, pointer: str, message: str) -> None:
        self.source = source
        self.pointer = pointer
        self.message = message
        super().__init__(f"{source}: at {pointer or '/'}: {message}")
