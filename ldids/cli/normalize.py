"""``ldids normalize`` and its inverse, ``ldids undo``.

``normalize`` takes one of three paths: a live store (``--sparql``) is normalized in place,
N-Triples and N-Quads are streamed (on the worker pool or on Dask), anything else is read into
memory and run through the graph passes. ``undo`` reads that run's output and crosswalk back.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING, TextIO

from ldids.cli.exit_code import EXIT_INVALID, EXIT_OK, UsageError
from ldids.cli.report import report_dump, report_normalization, report_store
from ldids.errors import InputError

if TYPE_CHECKING:
    from ldids.dumps.run import DumpSummary
    from ldids.dumps.stream import Settings
    from ldids.ntriples import Quad
    from ldids.rdf.files import Format

__all__ = ["normalize", "undo"]


def _output_format(option: str | None, output: str, fallback: Format | None) -> Format:
    from ldids.rdf import files

    if option:
        return files.resolve_format(option)
    if output != "-":
        try:
            return files.guess_format(output)
        except InputError:
            pass
    return fallback if fallback is not None and fallback.writable else files.resolve_format("turtle")


def _input_format(option: str | None, inputs: list[str]) -> Format | None:
    """The input format named, or told by the first input's extension (for the default output format)."""
    from ldids.rdf import files

    if option:
        return files.resolve_format(option)
    try:
        return files.guess_format(inputs[0]) if inputs[0] != "-" else None
    except InputError:
        return None


_LINE_FORMATS = ("nt", "nquads")


def _streams(args: argparse.Namespace, inputs: list[str]) -> tuple[bool, bool]:
    """(stream this run?, as N-Quads?): line formats in and out, named or told by extensions."""
    from ldids.rdf import files

    try:
        named = [files.resolve_format(args.input_format)] * len(inputs) if args.input_format else None
        given = named or [files.guess_format(path) for path in inputs if path != "-"]
    except InputError:
        return False, False
    if len(given) != len(inputs) or not all(fmt.name in _LINE_FORMATS for fmt in given):
        return False, False
    quads_in = any(fmt.name == "nquads" for fmt in given)
    target = _output_format(args.output_format, args.output, given[0])
    if target.name not in _LINE_FORMATS or (quads_in and target.name == "nt"):
        return False, False
    return True, quads_in or target.name == "nquads"


def _normalize_dump(args: argparse.Namespace, inputs: list[str], quads: bool) -> int:
    from ldids.dumps.run import normalize_dump
    from ldids.dumps.stream import Settings
    from ldids.passes.config import Config

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    config = Config.from_toml(args.config) if args.config else Config()
    settings = Settings(config, quads=quads, on_error=args.on_error, crosswalk=args.crosswalk is not None)
    if args.dask:
        summary = _on_dask(args, inputs, settings)
        report_dump(args, summary)
        return EXIT_INVALID if args.strict and summary.problems else EXIT_OK
    links = None if args.no_links else (args.links or "inline")
    summary = normalize_dump(
        inputs,
        args.output,
        settings,
        workers=args.workers,
        links=links,
        crosswalk=args.crosswalk,
        error_file=args.error_file,
        progress=args.progress and not args.quiet,
    )
    report_dump(args, summary)
    return EXIT_INVALID if args.strict and summary.problems else EXIT_OK


def _on_dask(args: argparse.Namespace, inputs: list[str], settings: Settings) -> DumpSummary:
    try:
        from distributed import Client, LocalCluster

        from ldids.dumps.cluster import normalize_on_dask
    except ImportError as error:
        raise UsageError("--dask needs the optional dependencies: pip install 'ldids[dask]'") from error
    if "-" in inputs or args.output == "-":
        raise UsageError("--dask reads named files and writes a folder (-o DIR), not standard streams")
    if args.links:
        raise UsageError("with --dask the links go to OUTPUT/links.nt (or nowhere with --no-links)")
    options = {"links": not args.no_links, "crosswalk": args.crosswalk is not None, "error_file": args.error_file}
    if args.dask == "local":
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None)
        with cluster, Client(cluster) as client:
            return normalize_on_dask(inputs, args.output, settings, client=client, **options)
    with Client(args.dask) as client:
        return normalize_on_dask(inputs, args.output, settings, client=client, **options)


def _normalize_store(args: argparse.Namespace) -> int:
    from ldids.dumps.sparql import normalize_store
    from ldids.passes.config import Config

    if args.inputs:
        raise UsageError("--sparql normalizes the store itself: give no INPUT")
    config = Config.from_toml(args.config) if args.config else Config()
    summary = normalize_store(args.sparql, args.sparql_update, config)
    report_store(args, summary)
    return EXIT_INVALID if args.strict and summary.problems else EXIT_OK


def normalize(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids normalize``: a live store, a streamed dump, or a graph read into memory."""
    if args.sparql:
        return _normalize_store(args)
    if args.base is not None:
        import pyoxigraph

        try:
            pyoxigraph.NamedNode(args.base)
        except ValueError as error:
            raise UsageError(f"--base must be an absolute IRI: {error}") from error
    inputs = args.inputs or ["-"]
    streamed, quads = _streams(args, inputs)
    if streamed:
        return _normalize_dump(args, inputs, quads)  # imports no rdflib: dumps start fast
    from ldids.passes import graph as passes
    from ldids.passes.config import Config
    from ldids.rdf import io as rdfio

    config = Config.from_toml(args.config) if args.config else Config()
    data = rdfio.read(inputs, rdfio.resolve_format(args.input_format) if args.input_format else None, args.base)
    fmt = _output_format(args.output_format, args.output, _input_format(args.input_format, inputs))
    result = passes.normalize(data.quads, config)
    in_output = result.links if not (args.links or args.no_links) else []
    # Everything is serialized before anything is written: an error leaves no output.
    payloads = [(args.output, rdfio.serialize([*result.quads, *in_output], fmt))]
    if args.links:
        payloads.append((args.links, rdfio.serialize(result.links, _output_format(None, args.links, fmt))))
    if args.crosswalk:
        payloads.append((args.crosswalk, rdfio.crosswalk_bytes(passes.crosswalk(result), args.crosswalk)))
    with ExitStack() as outputs:  # renamed into place together at the end: one that fails leaves none
        for path, payload in payloads:
            outputs.enter_context(rdfio.atomic_output(path)).write(payload)
    if not args.quiet:
        report_normalization(result, data.notes, args.summary)
    return EXIT_INVALID if args.strict and result.findings else EXIT_OK


def undo(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids undo``: the statements before a normalization, from its output and its crosswalk."""
    from ldids.passes import graph as passes
    from ldids.rdf import io as rdfio

    rows = rdfio.read_crosswalk(args.crosswalk)
    lines = rdfio.LineParser()
    fmt = rdfio.resolve_format(args.input_format) if args.input_format else None
    quads: list[Quad] = []
    for path in args.inputs:
        quads.extend(lines.read_labeled(path, fmt))
    restored = passes.undo(quads, rows, lines.quad)
    given = _input_format(args.input_format, args.inputs)
    payload = rdfio.serialize(restored, _output_format(args.output_format, args.output, given))
    with rdfio.atomic_output(args.output) as stream:
        stream.write(payload)
    return EXIT_OK
