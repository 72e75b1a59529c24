"""The ``ldids`` command line. I/O lives here; the core never imports it.

Exit codes (DESIGN.md §5): 0 success, 1 invalid identifiers or non-conforming data,
2 usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from ldids import __version__, handle, oai
from ldids.errors import InputError, LdidsError, ParseError, render_caret
from ldids.registry import PRECEDENCE, Inspection, Registry

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse exits with 2 on usage errors already; keep its message format."""


def _resolver(text: str) -> handle.Resolver:
    authority, _, segment = text.partition("/")
    if not authority:
        raise argparse.ArgumentTypeError(f"a resolver is HOST[:PORT][/SEGMENT], not {text!r}")
    return handle.Resolver(authority, segment or None)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ldids",
        description="Find persistent identifiers (Fedora PIDs, info:fedora URIs, OAI identifiers, POIs, handles) "
        "and normalize them.",
    )
    parser.add_argument("--version", action="version", version=f"ldids {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    inspect = commands.add_parser(
        "inspect",
        help="check identifiers and show scheme, normal form, canonical IRI and equivalents",
        description="Check identifiers and show their scheme, normal form, canonical IRI and equivalent IRIs. "
        "With no IDENTIFIER, read one per line from standard input (blank lines are skipped). "
        "Exit 0 if all are valid, 1 if any is invalid, 2 on usage errors.",
    )
    inspect.add_argument("identifiers", nargs="*", metavar="IDENTIFIER")
    inspect.add_argument("--json", action="store_true", help="one JSON object per identifier, one per line")
    inspect.add_argument("--scheme", choices=PRECEDENCE, help="check against this scheme instead of detecting one")
    inspect.add_argument(
        "--resolver",
        action="append",
        type=_resolver,
        default=[],
        metavar="HOST[:PORT][/SEGMENT]",
        help="also know this HTTP handle resolver (repeatable; hdl.handle.net is always known)",
    )

    mint = commands.add_parser(
        "mint",
        help="mint new CORDRA identifiers for a naming authority",
        description="Mint CORDRA identifiers (hdl:NA/<32 hex digits>) from random DCE UUIDs, or from a given UUID.",
    )
    mint.add_argument("naming_authority", metavar="NAMING_AUTHORITY", help="digit segments joined by '.', e.g. 100.102")
    mint.add_argument("-n", "--count", type=int, default=1, help="how many to mint (default 1)")
    mint.add_argument("--uuid", type=uuid.UUID, help="use this UUID instead of a random one")
    mint.add_argument(
        "--form",
        choices=("path", "host", "http"),
        default="path",
        help="URI encoding to print (default: path, hdl:NA/...)",
    )

    request = commands.add_parser(
        "oai-request",
        help="encode oai-identifiers for OAI-PMH requests",
        description="Print the OAI-PMH request encoding (identifier=...) of each oai-identifier, "
        "or a whole GET request URL with --base-url.",
    )
    request.add_argument("identifiers", nargs="+", metavar="OAI_IDENTIFIER")
    request.add_argument("--base-url", help="the repository's OAI-PMH base URL: print full request URLs")
    request.add_argument("--verb", default="GetRecord", help="OAI-PMH verb (default GetRecord)")
    request.add_argument("--metadata-prefix", default="oai_dc", help="metadataPrefix (default oai_dc)")

    description = commands.add_parser(
        "oai-description",
        help="read and check, or write, an Identify oai-identifier description block",
        description="With FILE (or - for standard input): read the oai-identifier description "
        "from an Identify response "
        "and check it. With --write NAMESPACE SAMPLE: print a description block.",
    )
    description.add_argument("file", nargs="?", metavar="FILE")
    description.add_argument("--write", nargs=2, metavar=("NAMESPACE", "SAMPLE_IDENTIFIER"))
    description.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def _lines(stream: TextIO) -> Iterator[str]:
    for line in stream:
        text = line.rstrip("\r\n")
        if text:
            yield text


def _print_inspection(result: Inspection, out: TextIO) -> None:
    if not result.valid:
        scheme = f"invalid {result.scheme} identifier" if result.scheme else "not a recognized identifier"
        out.write(f"{result.input}: {scheme}\n")
        for problem in result.problems:
            caret = render_caret(result.input, problem, indent="      ")
            out.write(f"  {caret}\n")
        return
    out.write(f"{result.input}\n")
    rows = [("scheme", result.scheme or "")]
    if result.profile:
        rows.append(("profile", result.profile))
    rows += [("normalized", result.normalized or ""), ("canonical", result.canonical or "")]
    rows += [("equivalent", iri) for iri in result.equivalents]
    for label, value in rows:
        out.write(f"  {label:<11} {value}\n")


def _inspect(args: argparse.Namespace, out: TextIO) -> int:
    registry = Registry.build((*handle.DEFAULT_RESOLVERS, *args.resolver))
    texts: Iterator[str] | list[str] = args.identifiers or _lines(sys.stdin)
    status = EXIT_OK
    for text in texts:
        result = registry.inspect(text, args.scheme)
        if not result.valid:
            status = EXIT_INVALID
        if args.json:
            out.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
        else:
            _print_inspection(result, out)
    return status


def _mint(args: argparse.Namespace, out: TextIO) -> int:
    if args.count < 1 or (args.uuid is not None and args.count != 1):
        raise _UsageError("--count must be at least 1, and exactly 1 with --uuid")
    for _ in range(args.count):
        out.write(handle.mint(args.naming_authority, args.uuid).in_form(args.form) + "\n")
    return EXIT_OK


def _oai_request(args: argparse.Namespace, out: TextIO) -> int:
    status = EXIT_OK
    for text in args.identifiers:
        try:
            if args.base_url:
                out.write(oai.request_url(args.base_url, text, args.verb, args.metadata_prefix or None) + "\n")
            else:
                out.write(oai.request_argument(text) + "\n")
        except ParseError as error:
            sys.stderr.write(f"ldids: {error}\n")
            status = EXIT_INVALID
    return status


def _oai_description(args: argparse.Namespace, out: TextIO) -> int:
    if args.write:
        if args.file:
            raise _UsageError("give either FILE or --write, not both")
        out.write(oai.description_xml(*args.write))
        return EXIT_OK
    if not args.file:
        raise _UsageError("give FILE (or -) to check, or --write NAMESPACE SAMPLE_IDENTIFIER")
    source = "<stdin>" if args.file == "-" else args.file
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as error:
        raise InputError(error.strerror or str(error), source=source) from error
    found = oai.read_description(data, source=source)
    problems = oai.check_description(found)
    if args.json:
        payload = {
            "repositoryIdentifier": found.repository_identifier,
            "sampleIdentifier": found.sample_identifier,
            "valid": not problems,
            "problems": [problem.to_json() for problem in problems],
        }
        out.write(json.dumps(payload) + "\n")
    else:
        out.write(
            f"repositoryIdentifier  {found.repository_identifier}\nsampleIdentifier      {found.sample_identifier}\n"
        )
        for problem in problems:
            out.write(f"  {problem.message} [{problem.code}]\n")
        out.write("valid\n" if not problems else "invalid\n")
    return EXIT_OK if not problems else EXIT_INVALID


class _UsageError(LdidsError):
    pass


_COMMANDS = {"inspect": _inspect, "mint": _mint, "oai-request": _oai_request, "oai-description": _oai_description}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    stream = out if out is not None else sys.stdout
    try:
        return _COMMANDS[args.command](args, stream)
    except _UsageError as error:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"ldids {args.command}: error: {error}\n")
        return EXIT_USAGE
    except InputError as error:
        sys.stderr.write(f"ldids: {error}\n")
        return EXIT_USAGE
    except ParseError as error:
        sys.stderr.write(f"ldids: {error}\n")
        return EXIT_INVALID
    except BrokenPipeError:
        # `ldids inspect ... | head`: the reader left; that is not an error of ours.
        sys.stderr.close()
        return EXIT_OK


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
