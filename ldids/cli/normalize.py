"""``ldids normalize`` and its inverse, ``ldids undo``.

``normalize`` takes one of three paths: a live store (``--sparql``) is normalized in place,
N-Triples and N-Quads out are streamed (on the worker pool or on Dask; from Turtle, TriG and
RDF/XML too, parsed as they are read), anything else is read into memory and run through the
graph passes. ``undo`` reads that run's output and crosswalk back.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ldids.cli.exit_code import EXIT_INVALID, EXIT_OK, UsageError
from ldids.cli.report import report_dump, report_normalization, report_store

if TYPE_CHECKING:
    from ldids.dumps.run import DumpSummary
    from ldids.dumps.stream import Settings
    from ldids.ntriples import Quad
    from ldids.rdf.files import Format

__all__ = ["normalize", "undo"]


def _output_format(option: str | None, output: str, fallback: Format | None) -> Format:
    """The output format: named by --output-format, else by the output's name (after any
    compression extension), else the input's, else Turtle."""
    from ldids.rdf import files

    if option:
        return files.resolve_format(option)
    named = files.format_of_name(output) if output != "-" else None
    if named is not None:
        return named
    return fallback if fallback is not None and fallback.writable else files.resolve_format("turtle")


def check_base(base: str | None) -> None:
    """``--base`` is an absolute IRI, or a usage error."""
    if base is not None:
        import pyoxigraph

        try:
            pyoxigraph.NamedNode(base)
        except ValueError as error:
            raise UsageError(f"--base must be an absolute IRI: {error}") from error


def _check_distinct(args: argparse.Namespace, inputs: list[str]) -> None:
    """Each file a run writes is its own, and none is an input: two outputs of one name
    kept one of them, and an output named as an input replaced it (--error-file in.nt)."""
    seen: dict[Path, str] = {}
    for path in inputs:
        if path != "-":
            seen.setdefault(Path(path).resolve(), "an input")
    for option in ("output", "links", "crosswalk", "error_file"):
        name = getattr(args, option, None)
        if name in (None, "-"):
            continue
        where = Path(name).resolve()
        flag = "-o" if option == "output" else f"--{option.replace('_', '-')}"
        if where in seen:
            raise UsageError(f"{flag} {name} is also {seen[where]}: name a file of its own")
        seen[where] = flag


def _check_output_name(option: str, name: str, *, stem: str = "out") -> None:
    """An output named by a format's word (``-o nt``) is, most likely, a format meant as a
    file name: a usage error that says what to type instead. ``stem``: of the file names
    suggested; -o (stem ``out``) also has standard output to suggest."""
    from ldids.rdf import files

    fmt = files.format_named(name)
    if fmt is None:
        return
    said = f"{option} {name} names a file called {name!r}"
    mean = f"./{name} if that is the file you mean"
    if not fmt.writable:
        raise UsageError(f"{said}; {fmt.label} is read, not written: name a file like {stem}.ttl ({mean})")
    example = f"{stem}{fmt.extensions[0]}"
    if stem == "out":
        raise UsageError(
            f"{said}; to write {fmt.label} to standard output use --output-format {fmt.name}, "
            f"or name a file like {example} ({mean})"
        )
    raise UsageError(f"{said}; name a file like {example} ({mean})")


def _input_formats(option: str | None, inputs: list[str]) -> list[Format | None]:
    """Each input's format: named by --input-format, else by the file's extension (None if
    it has none ldids knows: its content tells when it is read), standard input by its first
    bytes (an error if they do not tell)."""
    from ldids.rdf import files

    if option:
        return [files.resolve_format(option)] * len(inputs)
    return [files.sniff_standard_input() if path == "-" else files.format_of_name(path) for path in inputs]


_LINE_FORMATS = ("nt", "nquads")


def _streams(args: argparse.Namespace, formats: list[Format | None]) -> list[Format] | None:
    """Each input's format if this run is streamed: N-Triples or N-Quads out (named, or told by
    the output's name) from N-Triples, N-Quads, Turtle, TriG or RDF/XML. Turtle or TriG out
    takes the graph path: it needs the whole graph to write it well."""
    from ldids.dumps.rdf_stream import PARSED_FORMATS

    given = [fmt for fmt in formats if fmt is not None and fmt.name in _LINE_FORMATS + PARSED_FORMATS]
    if len(given) != len(formats):
        return None
    csv = args.crosswalk is None or args.crosswalk.lower().endswith(".csv")
    if not csv and any(fmt.name in PARSED_FORMATS for fmt in given):
        return None  # a stream writes its crosswalk as CSV, the graph path as N-Triples too
    target = _output_format(args.output_format, args.output, given[0])
    if target.name not in _LINE_FORMATS or (any(fmt.quads for fmt in given) and target.name == "nt"):
        return None
    return given


def _normalize_dump(args: argparse.Namespace, inputs: list[str], formats: list[Format]) -> int:
    from ldids.dumps.run import normalize_dump
    from ldids.dumps.stream import Settings
    from ldids.passes.config import Config

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    config = Config.from_toml(args.config) if args.config else Config()
    target = _output_format(args.output_format, args.output, formats[0])
    quads = any(fmt.quads for fmt in formats) or target.name == "nquads"
    settings = Settings(config, quads=quads, on_error=args.on_error, crosswalk=args.crosswalk is not None)
    parsed = {path: fmt.name for path, fmt in zip(inputs, formats, strict=True) if fmt.name not in _LINE_FORMATS}
    if args.dask:
        if parsed:
            raise UsageError("--dask reads N-Triples and N-Quads files: Turtle, TriG and RDF/XML stream here")
        if getattr(args, "validate", False):
            raise UsageError("--validate checks a run here, not on Dask: run ldids validate on the parts it writes")
        summary = _on_dask(args, inputs, settings)
        report_dump(args, summary)
        return EXIT_INVALID if args.strict and (summary.problems or summary.bad_lines) else EXIT_OK
    links = None if args.no_links else (args.links or "inline")
    statements = None
    if parsed:
        from ldids.dumps.rdf_stream import Parsed

        # Relative IRIs resolve against --base where the command line has one, else against a
        # file's own URL; standard input has none.
        statements = Parsed(
            parsed, getattr(args, "base", None), several=len(inputs) > 1, workers=args.workers, cut=True
        )
    validation = None
    if getattr(args, "validate", False):
        from ldids.dumps.validation import shipped_checks

        validation = shipped_checks(max_results=20)  # the results the report lists; the counts go on
    summary = normalize_dump(
        inputs,
        args.output,
        settings,
        workers=args.workers,
        links=links,
        crosswalk=args.crosswalk,
        error_file=args.error_file,
        progress=args.progress and not args.quiet,
        statements=statements,
        validation=validation,
    )
    report_dump(args, summary)
    if validation is not None:
        # --validate: the output was checked against the shipped shapes as it was made, on
        # the processes that made it; the report goes to standard error.
        from ldids.cli.validate import write_report

        validation.sort()
        write_report(validation.verdict, "text", sys.stderr, 20, validation.not_streamable)
        if not validation.verdict.conforms or validation.not_streamable:
            return EXIT_INVALID
    return EXIT_INVALID if args.strict and (summary.problems or summary.bad_lines) else EXIT_OK


def _on_dask(args: argparse.Namespace, inputs: list[str], settings: Settings) -> DumpSummary:
    try:
        import dask  # noqa: F401 -- here, to say what is missing before anything is read

        from ldids.dumps.cluster import normalize_on_dask
    except ImportError as error:
        raise UsageError("--dask needs the optional dependencies: pip install 'ldids[dask]'") from error
    if "-" in inputs or args.output == "-":
        raise UsageError("--dask reads named files and writes a folder (-o DIR), not standard streams")
    if args.links:
        raise UsageError("with --dask the links go to OUTPUT/links.nt (or nowhere with --no-links)")
    options = {"links": not args.no_links, "crosswalk": args.crosswalk is not None, "error_file": args.error_file}
    if args.dask == "local":
        # Dask's processes scheduler on --workers processes forked here: a distributed
        # LocalCluster costs a scheduler, nannies and workers to start (about 1 s, and 50 MiB
        # a worker) and gives nothing a run on one machine needs.
        return normalize_on_dask(inputs, args.output, settings, workers=args.workers, **options)
    try:
        from distributed import Client
    except ImportError as error:
        raise UsageError("--dask needs the optional dependencies: pip install 'ldids[dask]'") from error
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
    return EXIT_INVALID if args.strict and (summary.problems or summary.counts.skipped) else EXIT_OK


def normalize(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids normalize``: a live store, a streamed dump, or a graph read into memory."""
    if args.sparql:
        return _normalize_store(args)
    check_base(args.base)
    inputs = args.inputs or ["-"]
    _check_output_name("-o", args.output)
    _check_distinct(args, inputs)
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.sparql_update:
        raise UsageError("--sparql-update goes with --sparql (the store's query endpoint)")
    if args.links:
        _check_output_name("--links", args.links, stem="links")
    formats = _input_formats(args.input_format, inputs)
    streamed = _streams(args, formats)
    if streamed is not None:
        return _normalize_dump(args, inputs, streamed)  # imports no rdflib: dumps start fast
    if getattr(args, "validate", False):
        raise UsageError("--validate checks a streamed output (N-Triples or N-Quads): use ldids validate")
    if getattr(args, "dask", None):  # the graph is read whole here: nothing would run on Dask
        raise UsageError("--dask reads N-Triples and N-Quads files and writes N-Triples or N-Quads parts")
    from ldids.passes import graph as passes
    from ldids.passes.config import Config
    from ldids.rdf import crosswalk as crosswalk_io
    from ldids.rdf import io as rdfio

    config = Config.from_toml(args.config) if args.config else Config()
    data = rdfio.read(inputs, rdfio.resolve_format(args.input_format) if args.input_format else None, args.base)
    fmt = _output_format(args.output_format, args.output, formats[0])
    result = passes.labelled(passes.normalize(data.quads, config))
    in_output = result.links if not (args.links or args.no_links) else []
    # Everything is serialized before anything is written: an error leaves no output. The
    # files are compressed as their names say (atomic_output).
    payloads = [(args.output, rdfio.serialize([*result.quads, *in_output], fmt, data.prefixes))]
    if args.links:
        links_format = _output_format(None, args.links, fmt)
        payloads.append((args.links, rdfio.serialize(result.links, links_format, data.prefixes)))
    if args.crosswalk:
        payloads.append((args.crosswalk, crosswalk_io.crosswalk_bytes(passes.crosswalk(result), args.crosswalk)))
    with ExitStack() as outputs:  # renamed into place together at the end: one that fails leaves none
        for path, payload in payloads:
            outputs.enter_context(rdfio.atomic_output(path)).write(payload)
    if not args.quiet:
        report_normalization(result, data.notes, args.summary, data.skipped, links_written=not args.no_links)
    # --strict: invalid identifiers, or anything a reader read and made no statement of.
    return EXIT_INVALID if args.strict and (result.findings or sum(data.skipped.values())) else EXIT_OK


def undo(args: argparse.Namespace, out: TextIO) -> int:
    """``ldids undo``: the statements before a normalization, from its output and its crosswalk."""
    from ldids.passes import graph as passes
    from ldids.rdf import crosswalk as crosswalk_io
    from ldids.rdf import io as rdfio

    _check_output_name("-o", args.output)
    given = _input_formats(args.input_format, args.inputs)[0]
    rows = crosswalk_io.read_crosswalk(args.crosswalk)
    lines = crosswalk_io.LineParser()
    fmt = rdfio.resolve_format(args.input_format) if args.input_format else None
    quads: list[Quad] = []
    for path in args.inputs:
        quads.extend(lines.read_labeled(path, fmt))
    # Labelled by content: the same output and crosswalk give the same bytes back.
    restored = rdfio.label_blank_nodes(passes.undo(quads, rows, lines.quad))
    payload = rdfio.serialize(restored, _output_format(args.output_format, args.output, given))
    with rdfio.atomic_output(args.output) as stream:
        stream.write(payload)
    return EXIT_OK
