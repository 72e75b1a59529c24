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
    # Decisions kept per run, about 200 bytes each, shared out over the processes. Dumps
    # are written record by record, so a term recurs within a few lines or after a long
    # time; measured on 1M-triple dumps (benchmarks/dump.py, 1 worker), 4k to 200k entries
    # gave the same time within 10% where few identifiers repeat, and where every record
    # has its own, a larger memo only cost more (2.55 CPU s and 141 MiB at 200k, 2.30 s and
    # 72 MiB at 16k: the IRIs most terms are, the compiled loop decides about as fast as
    # it looks them up). 32k keeps a process well under 100 MiB.
    identifier_cache: int = 32_768
    # One run: links are reported once per run and process (in the block where the process
    # first decides a term), so every run needs a worker of its own. A new Settings is a
    # new run; normalize_dump and normalize_on_dask give each call a token of its own.
    run: str = field(default_factory=new_run)
    # ``normalize --validate``: each block's output is checked against the shipped shapes
    # by the process that made it (ldids.dumps.validation.check_output), in the same pass.
    validate: bool = False
