"""Parsing the JSON and TOML documents users give, with the parsers' own limits turned into located errors.

``json.loads`` and ``tomllib.loads`` stop at documents nested deeper than the interpreter's recursion
limit (``RecursionError``) and at integers longer than ``sys.get_int_max_str_digits()`` (``ValueError``);
both are properties of the input, not bugs, so each becomes a :class:`DocumentError` with the line where
the document goes wrong.  Every command that reads a document goes through :func:`parse_json` or
:func:`parse_toml`, and each caller turns the error into its own located error (a trace's JSON pointer, a
scenario file's line and field).

:func:`shown` is the ``repr`` for error messages about values taken from such documents: short, and safe
for values nested deeply or integers too long to print.
"""

from __future__ import annotations

import json
import os
import re
import reprlib
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
    import tomli as tomllib

#: Containers inside one another deeper than this are what :func:`parse_json` and :func:`parse_toml` report
#: when the parser gives up (where exactly it does depends on the stack; no real trace or scenario comes close).
DEEP = 100


#: No trace or scenario file comes near this; it keeps ``show /dev/zero`` from reading until memory runs out.
MAX_BYTES = 64 * 2**20


class DocumentError(ValueError):
    """A document that cannot be read: ``message``, and the ``line`` where (``None`` when none can be named).

    ``str()`` says both; an error that puts the line in front of its own message (``file:line: ...``) takes
    ``message`` alone.  Where the parser's own words already name the line, ``message`` keeps them."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        named = line is None or f"line {line}" in message
        super().__init__(message if named else f"{message} (line {line})")


def read_capped(path: str | Path) -> bytes:
    """A file's bytes, at most :data:`MAX_BYTES` (``/dev/zero`` or a huge file is a :class:`DocumentError`, not a
    process that reads until memory runs out).  ``OSError`` is the caller's to name."""
    with Path(path).open("rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise DocumentError(f"larger than {MAX_BYTES // 2**20} MiB, far more than any document rule603 reads")
    return data


def read_document(path: str | Path) -> str:
    """A document's text, as ``Path.read_text(encoding="utf-8")`` reads it (universal newlines), but at most
    :data:`MAX_BYTES`: larger is a :class:`DocumentError`.  ``OSError`` and ``UnicodeDecodeError`` are the
    caller's to name."""
    return read_capped(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def parse_json(text: str) -> Any:
    """The value of a JSON document; :class:`DocumentError` for anything that is not one json reads."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DocumentError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}", e.lineno) from None
    except RecursionError:
        raise _too_deep(text, "arrays or objects", quotes='"', comment="") from None
    except ValueError as e:  # Python refuses to convert an integer of thousands of digits
        raise _too_long(text, e) from None


def parse_toml(text: str) -> dict[str, Any]:
    """The table of a TOML document; :class:`DocumentError` for anything tomllib cannot read."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = re.search(r"line (\d+)", str(e))
        raise DocumentError(f"not TOML: {e}", int(found.group(1)) if found else None) from None
    except RecursionError:
        raise _too_deep(text, "arrays or tables", quotes="\"'", comment="#") from None
    except ValueError as e:
        raise _too_long(text, e) from None


def _too_deep(text: str, what: str, *, quotes: str, comment: str) -> DocumentError:
    """Where the nesting first goes past :data:`DEEP` levels (strings and comments skipped), for the message."""
    depth, line, quote, escaped, in_comment = 0, 1, "", False, False
    for char in text:
        if char == "\n":
            line += 1
            in_comment = False
        elif in_comment:
            continue
        elif quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in quotes:
            quote = char
        elif comment and char == comment:
            in_comment = True
        elif char in "[{":
            depth += 1
            if depth > DEEP:
                break
        elif char in "]}":
            depth -= 1
    else:
        # Not found: the parser gave up at a shallower depth than DEEP; no line rather than a wrong one.
        return DocumentError(f"nested too deeply: {what} hundreds of levels inside one another")
    return DocumentError(f"nested too deeply: {what} more than {DEEP} levels inside one another", line)


def _too_long(text: str, error: ValueError) -> DocumentError:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    found = re.search(rf"\d[\d_]{{{limit},}}", text) if limit else None  # TOML may group digits with _
    if found is None:  # some other value the parser could not convert
        return DocumentError(f"a value cannot be read: {_one_line(str(error))}")
    line = text.count("\n", 0, found.start()) + 1
    digits = len(found.group().replace("_", ""))
    return DocumentError(f"a number of {digits} digits; numbers here have a few digits at most", line)


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Short(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = 60
        self.maxother = 60
        self.maxlong = 40

    def repr_int(self, x: int, level: int) -> str:
        # repr() itself refuses integers of more than sys.get_int_max_str_digits() digits.
        if x.bit_length() > 128:
            return f"<a number of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return repr(x)


_SHORT = _Short()


def clipped(text: str, limit: int = 200) -> str:
    """A user's string (an option's value, a path) as given, cut short when it is very long."""
    return text if len(text) <= limit else f"{text[: limit // 2]}\u2026[{len(text)} characters]\u2026{text[-10:]}"


def shown(value: Any) -> str:
    """``repr(value)`` for a one-line message: shortened, and safe however deep or long the value is."""
    try:
        return _SHORT.repr(value)
    except (ValueError, RecursionError):  # pragma: no cover - reprlib bounds both; a guard for exotic values
        return f"<a {type(value).__name__}>"


def write_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: into a new file beside it, then renamed over it.

    An interrupted or failed write leaves what was at ``path`` byte for byte as it was.  A path that is no regular
    file (``/dev/null``, a pipe) is written directly: renaming over it would replace the device, not write to it.
    A new file gets the permissions the umask gives; a replaced one keeps its own.  Raises ``OSError`` as
    ``Path.write_text`` does."""
    target = Path(path)
    if target.exists() and not target.is_file():
        target.write_text(text, encoding="utf-8", errors="backslashreplace")
        return
    partial = target.with_name(f".{target.name[:100]}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    try:
        with open(partial, "x", encoding="utf-8", errors="backslashreplace") as out:  # "x": never someone's file
            out.write(text)
        if target.exists():
            os.chmod(partial, stat.S_IMODE(target.stat().st_mode))
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
