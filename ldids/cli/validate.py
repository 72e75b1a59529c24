"""``ldids validate``: RDF against the shipped SHACL shapes and any others given."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from ldids.cli.exit_code import EXIT_INVALID, EXIT_OK
from ldids.errors import InputError

__all__ = ["validate"]


def validate(args: argparse.Namespace, out: TextIO) -> int:
    """Exit 0 if the data conforms, 1 if it does not; unreadable data or shapes end it with 2."""
    from ldids.rdf import io as rdfio
    from ldids.shacl.validate import validate as validate_data

    fmt = rdfio.resolve_format(args.input_format) if args.input_format else None
    data = rdfio.read(args.inputs, fmt)
    extra = [rdfio.read_graph(path) for path in args.shapes]
    try:
        verdict = validate_data(data.quads, extra)
    except Exception as error:  # pyshacl fails in many ways on broken shapes
        raise InputError(f"validation could not run: {error}") from error
    limit = None if args.all else max(args.limit, 0)
    if args.format == "turtle":
        out.write(verdict.report.serialize(format="turtle"))
    elif args.format == "json":
        out.write(json.dumps(verdict.to_json(limit)) + "\n")
    else:
        out.write("conforms\n" if verdict.conforms else f"does not conform: {len(verdict.violations)} results\n")
        for shape, count in sorted(verdict.per_shape().items()):
            out.write(f"  {count:>6}  {shape}\n")
        listed = verdict.violations if limit is None else verdict.violations[:limit]
        for violation in listed:
            out.write(f"{violation.severity}: {violation.focus}: {violation.message} [{violation.shape}]\n")
        if len(listed) < len(verdict.violations):
            out.write(
                f"... {len(verdict.violations) - len(listed)} more (--all, or --format turtle for the full report)\n"
            )
    return EXIT_OK if verdict.conforms else EXIT_INVALID
