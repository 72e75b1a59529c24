"""What every block of a streamed dump needs to know (:class:`Settings`), and the token
that makes a run a run of its own (:func:`new_run`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Literal as Kind

from ldids.passes.config import Config

__all__ = ["Settings", "new_run"]


def new_run() -> str:
    """A token naming one run (:attr:`Settings.run`)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Settings:
    """What every block needs to know; picklable, sent to each worker once."""

    config: Config
    quads: bool = False  # N-Quads (graph names allowed)
    on_error: Kind["stop", "skip"] = "stop"
    crosswalk: bool = False
    term_cache: int = 10_000  # parsed terms kept per process (bounded: constant memory)
    # Decisions kept per run, about 200 bytes each, shared out over the processes: a
    # dump's identifiers recur, and each one decided again costs ~8 us, as much as six
    # identifier-free lines. 200k keeps a run under 120 MiB (PSS) at 10M triples.
    identifier_cache: int = 200_000
    # One run: links are reported once per run and process (in the block where the process
    # first decides a term), so every run needs a worker of its own. A new Settings is a
    # new run; normalize_dump and normalize_on_dask give each call a token of its own.
    run: str = field(default_factory=new_run)
