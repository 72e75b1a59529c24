"""The ``ldids`` command line. I/O lives here; the core never imports it.

Exit codes (DESIGN.md §5): 0 success, 1 invalid identifiers or non-conforming data,
2 usage, input or output errors.

:mod:`ldids.cli.parser` declares the commands and their options; one module per kind of work runs
them: :mod:`~ldids.cli.identifier` (``inspect``, ``mint``, ``oai-request``, ``oai-description``),
:mod:`~ldids.cli.normalize` (``normalize`` and its inverse ``undo``; what ``normalize`` tells on standard
error is in :mod:`~ldids.cli.report`), :mod:`~ldids.cli.validate` and :mod:`~ldids.cli.serve`.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from ldids.cli import identifier, normalize, serve, validate
from ldids.cli.exit_code import EXIT_INVALID, EXIT_USAGE, UsageError
from ldids.cli.parser import build_parser
from ldids.errors import InputError, ParseError, stop

__all__ = ["main", "run"]

# The graph commands import rdflib, pyshacl and lxml when they run: `ldids inspect` and
# `ldids mint` start without paying for them.

_COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "inspect": identifier.inspect,
    "mint": identifier.mint,
    "oai-request": identifier.oai_request,
    "oai-description": identifier.oai_description,
    "normalize": normalize.normalize,
    "validate": validate.validate,
    "undo": normalize.undo,
    "serve": serve.serve,
}


#: An InputError's advice (ldids.errors.ADVICE) in the command line's terms.
_ADVICE = {
    "base": "give one: --base IRI",
    "named-graphs": "write TriG, N-Quads or JSON-LD: -t trig, nquads or json-ld",
    "output-format": "write Turtle, TriG, N-Triples, N-Quads or JSON-LD (-t)",
    "line-format": "write N-Triples or N-Quads: -t nt or nquads",
}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    stream = out if out is not None else sys.stdout
    try:
        code = _COMMANDS[args.command](args, stream)
        stream.flush()  # a full disk shows here, reported as any output error, not at exit
        return code
    except UsageError as error:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"ldids {args.command}: error: {error}\n")
        return EXIT_USAGE
    except InputError as error:
        advice = "" if error.advice is None else f" ({_ADVICE[error.advice]})"
        sys.stderr.write(f"ldids: {error}{advice}\n")
        return EXIT_USAGE
    except ParseError as error:
        sys.stderr.write(f"ldids: {error}\n")
        return EXIT_INVALID
    except MemoryError:
        # An input that needs more memory than there is (a line of gigabytes, decompressed
        # from a few megabytes): said, not a traceback; nothing is left (outputs are renamed
        # into place only once written whole).
        sys.stderr.write(f"ldids {args.command}: out of memory: the input needs more than this machine gives\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # `ldids inspect ... | head`: the reader left; that is not an error of ours to report.
        # The output is cut short, though: exit as cat and grep do, by SIGPIPE to a shell.
        sys.stderr.close()
        return 128 + signal.SIGPIPE


def run() -> None:
    """Console-script entry point."""
    # Terminated, a run cleans up as an interrupted one does: the temporary files go, the
    # worker processes stop, and no partial output is left (exit 128 + signal number).
    signal.signal(signal.SIGTERM, _terminated)
    signal.signal(signal.SIGINT, _interrupted)
    from ldids.rdf import RDFLIB_TERMS, not_a_cast_failure
    from ldids.rdf.files import standard_output

    sys.stdout = standard_output()  # its write errors name it, as those of output files do
    RDFLIB_TERMS.addFilter(not_a_cast_failure)  # pyshacl's graphs too: no traceback for data
    try:
        code = main()
    except KeyboardInterrupt:
        sys.stderr.write("ldids: interrupted\n")
        code = 128 + signal.SIGINT
    sys.exit(code)


def _terminated(signum: int, frame: object) -> None:
    sys.stderr.write("ldids: terminated\n")
    stop(SystemExit(128 + signum))


def _interrupted(signum: int, frame: object) -> None:
    stop(KeyboardInterrupt())
