"""Running the user's own code (importing a property file, evaluating a claim): a wall-clock limit, and
their exceptions described on one line.

The solver's timeout does not cover them: a claim is Python, called once per moment to build the formula
(and again on concrete traces to check it), before any solver call.  A claim that loops would hang the run,
so each call gets its own limit.  The limit is a ``SIGALRM`` timer, which interrupts Python code (not a
single long call into C); where there is none (Windows, or a thread other than the main one) the code runs
without a limit.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Seconds for one call of a claim, or the import of one property file.  The slowest built-in claim takes
#: about 0.3 s at the largest bound and universe; a claim that needs more than this is looping.
CLAIM_SECONDS = 10.0
_AGAIN = 0.1  # code that swallows the interruption is interrupted again this often ...
_TRIES = 20  # ... this many times, after which it is stuck

#: What to do with code that swallows every interruption (``except BaseException: pass`` in a loop): it can
#: only be left by ending the process.  The command line sets this to say why on one line and exit; a
#: program using the API has no such way out, and the code goes on being interrupted.
on_stuck: Callable[[str], None] | None = None


class OverTime(BaseException):
    """Raised into user code whose time is up.

    A BaseException, so that the user's ``except Exception`` does not swallow it.
    """


@contextmanager
def time_limit(seconds: float, what: str = "the code") -> Iterator[None]:
    """Run the block under a limit of ``seconds``: past it, :class:`OverTime` is raised inside it, again and
    again; if it is still running after that, :data:`on_stuck` is called with a sentence about ``what``."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    armed = True
    tries = 0

    def interrupt(signum: int, frame: object) -> None:
        nonlocal tries
        if not armed:
            return
        tries += 1
        if tries > _TRIES and on_stuck is not None:
            on_stuck(f"{what} ran for more than {seconds:g} s and does not stop when interrupted")
        signal.setitimer(signal.ITIMER_REAL, _AGAIN)
        raise OverTime

    previous = signal.signal(signal.SIGALRM, interrupt)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        # Disarmed first: a signal between here and the timer's cancellation must not raise into our own code.
        try:
            armed = False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer:  # an enclosing timer (not ours) goes on with what was left of it
                signal.setitimer(signal.ITIMER_REAL, outer)


def exception_text(error: BaseException) -> str:
    """An exception's text on one line, bounded: a user's exception may carry anything."""
    try:
        text = " ".join(str(error).split())
    except Exception:  # noqa: BLE001 - its __str__ is the user's code too
        return "(its message cannot be shown)"
    return text if len(text) <= 200 else text[:199] + "\u2026"
