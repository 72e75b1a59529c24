"""``ldids serve``: the HTTP service (``ldids.service.app``) under uvicorn, an optional install."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path
from typing import TextIO

from ldids.cli.exit_code import EXIT_OK, UsageError

__all__ = ["serve"]


def serve(args: argparse.Namespace, out: TextIO) -> int:
    """Serve until stopped; without ``ldids[service]`` installed, a usage error saying what to install."""
    try:
        import uvicorn

        from ldids.service.app import Limits, create_app
    except ImportError as error:
        raise UsageError("serve needs the optional dependencies: pip install 'ldids[service]'") from error
    from ldids.passes.config import Config
    from ldids.service.store import IdentityStore

    _check_options(args)
    config = Config.from_toml(args.config) if args.config else Config()
    try:
        store = None if args.no_store else IdentityStore(args.store)
    except OSError as error:
        raise UsageError(f"--store: {args.store}: {error.strerror or error}") from error
    live = (args.sparql, args.sparql_update or args.sparql) if args.sparql else None
    limits = Limits(
        workers=args.workers,
        queue=args.queue,
        seconds=args.time_limit,
        memory=args.memory_limit * (1 << 20) if args.memory_limit else None,
    )
    token = None
    if args.token_file:
        try:
            token = Path(args.token_file).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise UsageError(f"--token-file: {error.strerror or error}") from error
        if not token:
            raise UsageError("--token-file holds no token")
    app = create_app(config, max_body=args.max_body, store=store, sparql=live, limits=limits, token=token)
    # The address is taken here, to say why it cannot be (uvicorn logs it and exits 3).
    try:
        with socket.create_server((args.host, args.port)) as listening:
            listening.set_inheritable(True)
            uvicorn.Server(uvicorn.Config(app)).run(sockets=[listening])
    except OSError as error:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from error
    return EXIT_OK


def _check_options(args: argparse.Namespace) -> None:
    """What the service cannot start with, said before it starts."""
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be 0 to 65535")
    for option, value, least in (
        ("--workers", args.workers, 1),
        ("--queue", args.queue, 0),
        ("--max-body", args.max_body, 1),
        ("--time-limit", args.time_limit, 0),
        ("--memory-limit", args.memory_limit, 0),
    ):
        if value is not None and value < least:
            raise UsageError(f"{option} must be at least {least}")
    if args.sparql_update and not args.sparql:
        raise UsageError("--sparql-update goes with --sparql (the store's query endpoint)")
