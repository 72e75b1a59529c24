"""``ldids validate``: RDF against the shipped SHACL shapes and any others given.

The shipped shapes, over N-Triples, N-Quads, Turtle, TriG and RDF/XML, are checked as the
data stream by (:mod:`ldids.dumps.validation`), over other formats run whole-graph; users' shapes
(``-s``) run whole-graph on the compiled engine, the fastest measured that gives pySHACL's
results (:mod:`ldids.shacl.engines`); ``--engine pyshacl`` runs every shape on pySHACL.
Exit 0 conforms, 1 does not, 2 could not run (DESIGN.md §5).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TextIO

from ldids.cli.exit_code import EXIT_INVALID, EXIT_OK, UsageError
from ldids.cli.normalize import check_base
from ldids.errors import InputError, LdidsError

if TYPE_CHECKING:
    from rdflib.term import Node

    from ldids.dumps.rdf_stream import Parsed
    from ldids.shacl.validate import Verdict, Violation

__all__ = ["validate", "write_report"]

_LINE_FORMATS = ("nt", "nquads")


#: pySHACL's values of -i (its inference option), which ldids spells --inference: -i is the
#: input format here, as in ``ldids normalize``.
_PYSHACL_INFERENCE = ("none", "rdfs", "owlrl", "both")


def _streamed(args: argparse.Namespace) -> tuple[Parsed, frozenset[str]] | None:
    """How the inputs are read if the shipped shapes are checked as the data stream by: every
    input N-Triples, N-Quads, Turtle, TriG or RDF/XML, by ``-i``, by its name, or (standard
    input) by its first bytes; None if one is not, and the whole graph is read. With the
    inputs that are N-Triples (a graph term is an error there, as ``ldids normalize`` says)."""
    from ldids.dumps.rdf_stream import PARSED_FORMATS, Parsed
    from ldids.rdf import files

    if args.engine == "pyshacl":
        return None
    formats: list[files.Format | None]
    if args.input_format:
        formats = [files.resolve_format(args.input_format)] * len(args.inputs)
    else:
        formats = [files.sniff_standard_input() if path == "-" else files.format_of_name(path) for path in args.inputs]
    names = [None if fmt is None else fmt.name for fmt in formats]
    if all(name in _LINE_FORMATS + PARSED_FORMATS for name in names):
        parsed = {path: name for path, name in zip(args.inputs, names, strict=True) if name in PARSED_FORMATS}
        n_triples = frozenset(path for path, name in zip(args.inputs, names, strict=True) if name == "nt")
        return Parsed(parsed, args.base, several=len(args.inputs) > 1, workers=args.workers), n_triples
    if args.engine == "stream":
        raise UsageError("--engine stream reads N-Triples, N-Quads, Turtle, TriG and RDF/XML")
    return None


def _check_options(args: argparse.Namespace) -> None:
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.max_results is not None and args.max_results < 0:
        raise UsageError("--max-results must be 0 or more")
    if args.limit < 0:
        raise UsageError("--limit must be 0 or more")
    if args.input_format in _PYSHACL_INFERENCE:
        raise UsageError(
            f"-i is the input format (as in ldids normalize); for pyshacl's -i {args.input_format}, "
            f"write --inference {args.input_format}"
        )
    if (args.inference != "none" or args.ont_graph) and not args.shapes:
        raise UsageError("--inference and --ont-graph apply to --shapes, and none were given")


class _Progress:
    """What a whole-graph run is doing, on standard error: on a terminal, or when asked."""

    def __init__(self, wanted: bool | None) -> None:
        self.on = sys.stderr.isatty() if wanted is None else wanted
        self.started = time.monotonic()

    def __call__(self, message: str) -> None:
        if self.on:
            sys.stderr.write(f"ldids: {time.monotonic() - self.started:6.1f} s  {message}\n")
            sys.stderr.flush()


def validate(args: argparse.Namespace, out: TextIO) -> int:
    """Exit 0 if the data conforms, 1 if it does not; unreadable data or shapes end it with 2."""
    from ldids.shacl.engines import DEFAULT_ENGINE, Options
    from ldids.shacl.safety import check_location

    _check_options(args)
    check_base(args.base)
    max_results = 1 if args.abort else args.max_results
    progress = _Progress(args.progress)
    for path in args.shapes:
        if not args.allow_network:
            check_location(path)
    streamed = _streamed(args)
    not_streamable: list[tuple[Node, str]] = []
    verdict: Verdict | None = None
    if streamed is not None:
        from ldids.dumps.validation import validate_dump
        from ldids.resources import shapes_graph

        progress("checking the shipped shapes as the data stream by")
        run = validate_dump(
            args.inputs,
            shapes_graph(),
            workers=args.workers,
            max_results=_listed(args, max_results),
            parsed=streamed[0],
            n_triples=streamed[1],
            abort=args.abort,
            listed=bool(args.shapes),  # alone, its results are written as they are read back
        )
        verdict, not_streamable = run.verdict, run.not_streamable
        if not args.shapes:
            progress(f"{verdict.total:,} results")
            try:
                write_report(verdict, args.format, out, _limit(args), not_streamable, run.results())
            finally:
                run.close()
            return EXIT_OK if verdict.conforms and not not_streamable else EXIT_INVALID
    if streamed is None or args.shapes:
        from ldids.rdf import io as rdfio
        from ldids.shacl.validate import combine
        from ldids.shacl.validate import validate as validate_data

        progress(f"reading {', '.join(args.inputs)}")
        fmt = rdfio.resolve_format(args.input_format) if args.input_format else None
        data = rdfio.read(args.inputs, fmt, args.base)
        extra = [rdfio.read_graph(path) for path in args.shapes]
        ontology = [rdfio.read_graph(path) for path in args.ont_graph]
        try:
            whole = validate_data(
                data.quads,
                extra,
                allow_network=args.allow_network,
                engine="pyshacl" if args.engine == "pyshacl" else DEFAULT_ENGINE,
                shipped=streamed is None,
                # The engine may stop at the first result; --max-results only limits what is
                # kept, as counts go on.
                options=Options(inference=args.inference, max_results=1 if args.abort else None),
                ontology=ontology,
                progress=progress,
            )
        except LdidsError:
            raise
        except Exception as error:  # the engines fail in many ways on broken shapes
            raise InputError(f"validation could not run: {error}") from error
        if max_results is not None:
            whole.counts = whole.per_shape()
            del whole.violations[max_results:]
        verdict = whole if verdict is None else combine(verdict, whole)
        if max_results is not None:
            del verdict.violations[max_results:]
    assert verdict is not None
    progress(f"{verdict.total:,} results")
    write_report(verdict, args.format, out, _limit(args), not_streamable)
    return EXIT_OK if verdict.conforms and not not_streamable else EXIT_INVALID


def _limit(args: argparse.Namespace) -> int | None:
    return None if args.all else max(int(args.limit), 0)


def _listed(args: argparse.Namespace, max_results: int | None) -> int | None:
    """The results a streamed run keeps: those the report lists (the first --limit of text
    and JSON without --all) and no more than --max-results; the counts go on past them."""
    wanted: int | None = None if args.all or args.format == "turtle" else max(int(args.limit), 0)
    if wanted is None or max_results is None:
        return max_results if wanted is None else wanted
    return min(wanted, max_results)


def write_report(
    verdict: Verdict,
    fmt: str,
    out: TextIO,
    limit: int | None,
    not_streamable: list[tuple[Node, str]] = (),  # type: ignore[assignment]
    results: Iterable[Violation] | None = None,
) -> None:
    """The verdict as text (grouped by shape, with counts), JSON, or a sh:ValidationReport in
    Turtle; its results are ``results`` where given (a streamed run's, written as they are
    read back, however many), else the verdict's own."""
    if fmt == "turtle" and results is None:
        from ldids.rdf.io import graph_turtle

        out.write(graph_turtle(verdict.report_graph()).decode("utf-8"))
        return
    every = iter(verdict.violations if results is None else results)
    if fmt == "turtle":
        _write_turtle(verdict.conforms, every, out)
        return
    listed = every if limit is None else itertools.islice(every, limit)
    count = 0
    if fmt == "json":
        # As json.dumps writes {"conforms", "violations", "per_shape", "results", "truncated",
        # "not_streamable"}, one result at a time.
        head = {
            "conforms": verdict.conforms,
            "violations": verdict.total,
            "per_shape": dict(sorted(verdict.per_shape().items())),
        }
        out.write(json.dumps(head)[:-1] + ', "results": [')
        # A thousand at a time: one call of the encoder a result was most of the writing.
        while chunk := [v.to_json() for v in itertools.islice(listed, 1000)]:
            out.write((", " if count else "") + json.dumps(chunk)[1:-1])
            count += len(chunk)
        reasons = [{"shape": str(shape), "reason": reason} for shape, reason in not_streamable]
        out.write(f'], "truncated": {json.dumps(count < verdict.total)}, "not_streamable": {json.dumps(reasons)}}}\n')
        return
    out.write("conforms\n" if verdict.conforms else f"does not conform: {verdict.total} results\n")
    for shape, number in sorted(verdict.per_shape().items()):
        out.write(f"  {number:>6}  {shape}\n")
    for node, reason in not_streamable:
        out.write(f"not checked (not streamable): {node}: {reason}\n")
    for v in listed:
        count += 1
        where = f"{v.file}:{v.line}: " if v.line is not None else ""
        component = f" {str(v.component).rsplit('#', 1)[-1]}" if v.component is not None else ""
        path = f" path {v.path}" if v.path is not None else ""
        value = f" value {v.value}" if v.value is not None and v.value != v.focus else ""
        message = f" {v.message}" if v.message else ""  # the compiled engine writes none of its own
        out.write(f"{where}{v.severity}: {v.focus}:{message} [{v.shape}]{component}{path}{value}\n")
    if count < verdict.total:
        out.write(f"... {verdict.total - count} more (--all, or --format turtle for the full report)\n")


def _write_turtle(conforms: bool, results: Iterator[Violation], out: TextIO) -> None:
    """A sh:ValidationReport (SHACL §3.6) in Turtle, the graph :meth:`Verdict.report_graph`
    makes, written a result at a time: the report is one blank node with a list of results,
    so that no label of the report's own can be one of the data's blank nodes."""
    from rdflib.term import BNode, Literal

    def term(node: Node) -> str:
        return "[]" if isinstance(node, BNode) else node.n3()

    out.write("@prefix sh: <http://www.w3.org/ns/shacl#> .\n\n")
    out.write(f"[] a sh:ValidationReport ;\n    sh:conforms {str(conforms).lower()}")
    separator = " ;\n    sh:result"
    for v in results:
        fields = [
            "a sh:ValidationResult",
            f"sh:focusNode {v.focus.n3()}",
            f"sh:resultSeverity sh:{v.severity}",
            f"sh:sourceShape {f'<{v.shape}>' if v.shape_is_iri else '[]'}",
        ]
        fields += [
            f"{name} {term(node)}"
            for name, node in (
                ("sh:resultPath", v.path),
                ("sh:value", v.value),
                ("sh:sourceConstraintComponent", v.component),
            )
            if node is not None
        ]
        if v.message:
            fields.append(f"sh:resultMessage {Literal(v.message).n3()}")
        out.write(f"{separator} [\n        " + " ;\n        ".join(fields) + "\n    ]")
        separator = ","
    out.write(" .\n")
