"""``ldids validate``: RDF against the shipped SHACL shapes and any others given.

The shipped shapes alone, over N-Triples/N-Quads, are checked as the data stream by
(:mod:`ldids.dumps.validation`); other shapes, or other formats, are run whole-graph by
pyshacl. Exit 0 conforms, 1 does not, 2 could not run (DESIGN.md §5).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

from ldids.cli.exit_code import EXIT_INVALID, EXIT_OK, UsageError
from ldids.errors import InputError, LdidsError

if TYPE_CHECKING:
    from rdflib.term import Node

    from ldids.shacl.validate import Verdict

__all__ = ["validate", "write_report"]

_LINE_FORMATS = ("nt", "nquads")


def _streamable(args: argparse.Namespace) -> bool:
    from ldids.rdf import files

    if args.engine == "pyshacl" or args.shapes:
        return False
    formats: list[files.Format | None]
    if args.input_format:
        formats = [files.resolve_format(args.input_format)] * len(args.inputs)
    else:
        formats = [None if path == "-" else files.format_of_name(path) for path in args.inputs]
    line_based = all(fmt is not None and fmt.name in _LINE_FORMATS for fmt in formats)
    if args.engine == "stream" and not line_based:
        raise UsageError("--engine stream reads N-Triples and N-Quads")
    return line_based


def validate(args: argparse.Namespace, out: TextIO) -> int:
    """Exit 0 if the data conforms, 1 if it does not; unreadable data or shapes end it with 2."""
    from ldids.shacl.safety import check_location

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    max_results = 1 if args.abort else args.max_results
    if args.engine == "stream" and args.shapes:
        raise UsageError("--engine stream checks the shipped shapes; --shapes run whole-graph")
    not_streamable: list[tuple[Node, str]] = []
    if _streamable(args):
        from ldids.dumps.validation import validate_dump
        from ldids.resources import shapes_graph

        run = validate_dump(args.inputs, shapes_graph(), workers=args.workers, max_results=max_results)
        verdict, not_streamable = run.verdict, run.not_streamable
    else:
        from ldids.rdf import io as rdfio
        from ldids.shacl.validate import validate as validate_data

        fmt = rdfio.resolve_format(args.input_format) if args.input_format else None
        data = rdfio.read(args.inputs, fmt)
        for path in args.shapes:
            if not args.allow_network:
                check_location(path)
        extra = [rdfio.read_graph(path) for path in args.shapes]
        try:
            verdict = validate_data(data.quads, extra, allow_network=args.allow_network)
        except LdidsError:
            raise
        except Exception as error:  # pyshacl fails in many ways on broken shapes
            raise InputError(f"validation could not run: {error}") from error
        if max_results is not None:
            verdict.counts = verdict.per_shape()
            del verdict.violations[max_results:]
    write_report(verdict, args.format, out, None if args.all else max(args.limit, 0), not_streamable)
    return EXIT_OK if verdict.conforms and not not_streamable else EXIT_INVALID


def write_report(
    verdict: Verdict,
    fmt: str,
    out: TextIO,
    limit: int | None,
    not_streamable: list[tuple[Node, str]] = (),  # type: ignore[assignment]
) -> None:
    """The verdict as text (grouped by shape, with counts), JSON, or a sh:ValidationReport in Turtle."""
    if fmt == "turtle":
        out.write(verdict.report_graph().serialize(format="turtle"))
        return
    if fmt == "json":
        document = verdict.to_json(limit)
        document["not_streamable"] = [{"shape": str(shape), "reason": reason} for shape, reason in not_streamable]
        out.write(json.dumps(document) + "\n")
        return
    out.write("conforms\n" if verdict.conforms else f"does not conform: {verdict.total} results\n")
    for shape, count in sorted(verdict.per_shape().items()):
        out.write(f"  {count:>6}  {shape}\n")
    for node, reason in not_streamable:
        out.write(f"not checked (not streamable): {node}: {reason}\n")
    listed = verdict.violations if limit is None else verdict.violations[:limit]
    for v in listed:
        where = f"{v.file}:{v.line}: " if v.line is not None else ""
        component = f" {str(v.component).rsplit('#', 1)[-1]}" if v.component is not None else ""
        path = f" path {v.path}" if v.path is not None else ""
        value = f" value {v.value}" if v.value is not None and v.value != v.focus else ""
        out.write(f"{where}{v.severity}: {v.focus}: {v.message} [{v.shape}]{component}{path}{value}\n")
    if len(listed) < verdict.total:
        out.write(f"... {verdict.total - len(listed)} more (--all, or --format turtle for the full report)\n")
