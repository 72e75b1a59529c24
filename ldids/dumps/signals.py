"""Ctrl-C and SIGTERM held back while worker processes start.

A worker starts with the signals held back until it has set its own way of taking them:
else a signal that comes at once runs the handler it inherited from the process that
started it, and CPython drops it ("ignored due to race condition") when that handler has
been replaced by then, or the worker dies of it before its starter knows it is there to be
ended. The starter holds them back too until it has set up how its workers end.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["CAN_HOLD", "STOPS", "held", "let_through"]

STOPS = {signal.SIGINT, signal.SIGTERM}
CAN_HOLD = hasattr(signal, "pthread_sigmask")  # not on Windows


@contextmanager
def held() -> Iterator[None]:
    """:data:`STOPS` held back in this thread (and the processes it forks) inside the block."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS) if CAN_HOLD else None
    try:
        yield
    finally:
        if before is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def let_through() -> None:
    """In a worker whose handlers are set: the signals held back while it started, now."""
    if CAN_HOLD:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
