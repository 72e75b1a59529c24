"""``ldids serve``: the HTTP service (``ldids.service.app``) under uvicorn, an optional install."""

from __future__ import annotations

import argparse
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

    config = Config.from_toml(args.config) if args.config else Config()
    store = None if args.no_store else IdentityStore(args.store)
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
    uvicorn.run(app, host=args.host, port=args.port)
    return EXIT_OK
