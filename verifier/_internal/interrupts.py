"""Ctrl-C that lands while a destructor runs (z3's, freeing a term) is the user's interrupt, not an error.

Raised inside ``__del__``, a KeyboardInterrupt can't leave it: Python prints it as an "Exception ignored" traceback,
drops it, and the command goes on.  So the SIGINT handler installed here doesn't raise while a destructor is on the
stack: it asks again a moment later, from another thread (``_thread.interrupt_main`` runs the handler anew), and
raises once the destructor has returned.  A KeyboardInterrupt that still reaches a destructor (raised by other
code) is handed on the same way by the unraisable hook.  ``rule603.cli.main`` installs both for the command's run;
every process rule603 starts with "spawn" installs them too (a forked one inherits them).
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

AGAIN_AFTER = 0.05  # seconds: the destructor has returned by then


def install() -> Callable[[], None]:
    """Install the handler and the hook; gives a function that puts back what they replaced."""
    hook, sys.unraisablehook = sys.unraisablehook, _interrupt_in_a_destructor
    handler = None
    # (only the main thread may set a handler; and an ignored Ctrl-C stays ignored: a job started in the background)
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        handler = signal.signal(signal.SIGINT, _on_interrupt)

    def restore() -> None:
        sys.unraisablehook = hook
        if handler is not None:
            signal.signal(signal.SIGINT, handler)

    return restore


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            _again_soon()
            return
        frame = frame.f_back
    raise KeyboardInterrupt


def _interrupt_in_a_destructor(unraisable: Any) -> None:
    if unraisable.exc_type is KeyboardInterrupt:
        _again_soon()
        return
    sys.__unraisablehook__(unraisable)


def _again_soon() -> None:
    timer = threading.Timer(AGAIN_AFTER, _thread.interrupt_main)
    timer.daemon = True
    timer.start()
