"""Loading property files by path, the way pytest's importlib mode loads test files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from ..errors import InvalidArgument
from .registry import Property, collect
from .usercode import CLAIM_SECONDS, OverTime, exception_text, time_limit


def load_property_file(path: str | Path, seconds: float = CLAIM_SECONDS) -> list[Property]:
    """The properties defined in a user's Python file.

    The module is registered in ``sys.modules`` under a name derived from its path
    before it runs (so dataclasses and pickling inside it work), then its
    :class:`Property` objects are collected in definition order.  Running it may take
    ``seconds`` at most: a file that loops is an error, not a hang.
    """
    file = Path(path)
    try:
        found = file.is_file()
    except OSError as e:  # a name longer than the system allows, say
        raise InvalidArgument(f"--property-file {path}: {e.strerror}.") from None
    if not found:
        raise InvalidArgument(f"--property-file {path}: no such file.")
    name = "rule603_user_properties." + "_".join(file.resolve().with_suffix("").parts[-3:]).replace("-", "_").replace(
        ".", "_"
    )
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise InvalidArgument(f"--property-file {path}: not a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with time_limit(seconds, f"importing property file '{path}'"):
            spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # the user's code may raise anything, even SystemExit: report it as their mistake
        del sys.modules[name]
        where = _user_line(e, file)
        what = (
            f"it ran for more than {seconds:g} s"
            if isinstance(e, OverTime)
            else f"{type(e).__name__}: {exception_text(e).rstrip('.')}"
        )
        raise InvalidArgument(
            f"Error while importing property file '{path}'{where}: {what}. "
            "Hint: the file must be importable Python that defines properties with @rule603.prop."
        ) from e
    props = collect(module, Property)
    if not props:
        raise InvalidArgument(
            f"--property-file {path}: defines no properties (decorate a function with @rule603.prop)."
        )
    return props


def _user_line(error: BaseException, file: Path) -> str:
    if isinstance(error, SyntaxError) and error.lineno:
        return f" (line {error.lineno})"
    tb = error.__traceback__
    line = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == file.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (line {line})" if line else ""
