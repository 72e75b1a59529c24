"""The identifier commands: ``inspect``, ``mint``, ``oai-request`` and ``oai-description``.

None of them reads RDF: they start without importing rdflib or pyshacl (``oai-description`` reads its
XML with lxml, imported when it does).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from ldids.cli.exit_code import EXIT_INVALID, EXIT_OK, UsageError
from ldids.errors import InputError, ParseError, render_caret
from ldids.schemes import handle, oai
from ldids.schemes.registry import Inspection, Registry

__all__ = ["inspect", "mint", "oai_description", "oai_request"]


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


def inspect(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids inspect``: check identifiers and show what each is."""
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


def mint(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids mint``: new CORDRA identifiers for a naming authority."""
    if args.count < 1 or (args.uuid is not None and args.count != 1):
        raise UsageError("--count must be at least 1, and exactly 1 with --uuid")
    for _ in range(args.count):
        out.write(handle.mint(args.naming_authority, args.uuid).in_form(args.form) + "\n")
    return EXIT_OK


def oai_request(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids oai-request``: the OAI-PMH request encoding of oai-identifiers."""
    status = EXIT_OK
    if not args.base_url and (args.verb or args.metadata_prefix):
        raise UsageError("--verb and --metadata-prefix make a whole request: give --base-url too")
    if args.base_url and (
        urllib.parse.urlsplit(args.base_url).scheme.lower() not in ("http", "https")
        or not urllib.parse.urlsplit(args.base_url).netloc
        or "?" in args.base_url
        or "#" in args.base_url
    ):
        # OAI-PMH §3.1.1: the base URL is an HTTP URL, to which the request's arguments are
        # added as its query.
        raise UsageError(f"--base-url {args.base_url!r} is no HTTP base URL (http://host/path, no query)")
    verb = args.verb or "GetRecord"
    prefix = (args.metadata_prefix or "oai_dc") if verb == "GetRecord" else None
    for text in args.identifiers:
        try:
            if args.base_url:
                out.write(oai.request_url(args.base_url, text, verb, prefix) + "\n")
            else:
                out.write(oai.request_argument(text) + "\n")
        except ParseError as error:
            sys.stderr.write(f"ldids: {error}\n")
            status = EXIT_INVALID
    return status


def oai_description(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids oai-description``: check the description block of an Identify response, or write one."""
    if args.write:
        if args.file:
            raise UsageError("give either FILE or --write, not both")
        out.write(oai.description_xml(*args.write))
        return EXIT_OK
    if not args.file:
        raise UsageError("give FILE (or -) to check, or --write NAMESPACE SAMPLE_IDENTIFIER")
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
