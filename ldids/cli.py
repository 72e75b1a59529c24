"""The ``ldids`` command line. I/O lives here; the core never imports it.

Exit codes (DESIGN.md §5): 0 success, 1 invalid identifiers or non-conforming data,
2 usage, input or output errors.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ldids import __version__
from ldids.errors import InputError, LdidsError, ParseError, render_caret
from ldids.schemes import handle, oai
from ldids.schemes.registry import PRECEDENCE, Inspection, Registry

if TYPE_CHECKING:
    from ldids.dumps.run import DumpSummary
    from ldids.dumps.stream import Settings
    from ldids.ntriples import Quad
    from ldids.passes.graph import Finding, Result
    from ldids.rdf.files import Format

# The graph commands import rdflib, pyshacl and lxml when they run: `ldids inspect` and
# `ldids mint` start without paying for them.

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

    formats = "turtle, nt, nquads, trig, xml, json-ld, foxml, oai-pmh"
    normalize = commands.add_parser(
        "normalize",
        help="rewrite identifiers in RDF to canonical form, link their forms, record a crosswalk",
        description="Rewrite every recognized identifier to its canonical IRI, add owl:sameAs links between the "
        "forms that name the same thing, and report invalid identifiers (never rewritten). Reads files or "
        f"standard input ({formats}; guessed from extensions or content, .gz/.bz2 too), writes one file or "
        "standard output; files are written to a temporary file and renamed into place. A summary goes to "
        "standard error. Exit 0 on success (1 with --strict when invalid identifiers were found), 2 on input errors.",
    )
    normalize.add_argument("inputs", nargs="*", metavar="INPUT", help="input files, - for standard input (default)")
    normalize.add_argument("-o", "--output", default="-", help="output file, - for standard output (default)")
    normalize.add_argument("-i", "--input-format", help="input format name or MIME type (default: guessed)")
    normalize.add_argument(
        "-t", "--output-format", help="output format (default: from -o, else the input's, else turtle)"
    )
    normalize.add_argument("--config", help="TOML configuration (bare-PID predicates, Fedora OAI namespaces, ...)")
    where = normalize.add_mutually_exclusive_group()
    where.add_argument("--links", metavar="FILE", help="write the owl:sameAs links to FILE instead of the output")
    where.add_argument("--no-links", action="store_true", help="write no owl:sameAs links")
    normalize.add_argument(
        "--crosswalk", metavar="FILE", help="record every change in FILE (.csv or .nt); see `ldids undo`"
    )
    normalize.add_argument(
        "--summary", choices=("text", "json"), default="text", help="summary format on standard error"
    )
    normalize.add_argument("--strict", action="store_true", help="exit 1 if invalid identifiers were found")
    normalize.add_argument("-q", "--quiet", action="store_true", help="no summary, no problem list")
    store = normalize.add_argument_group("live stores", "Normalize a triplestore in place, in atomic batches.")
    store.add_argument("--sparql", metavar="URL", help="the store's SPARQL 1.1 query endpoint")
    store.add_argument("--sparql-update", metavar="URL", help="its update endpoint (default: the query endpoint)")
    dumps = normalize.add_argument_group(
        "dumps",
        "N-Triples and N-Quads in and out (plain, .gz, .bz2, or - with -i) are streamed in constant memory, "
        "in input order, with owl:sameAs links after the statements.",
    )
    dumps.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes to use (default: all cores, here %(default)s)",
    )
    dumps.add_argument(
        "--on-error",
        choices=("stop", "skip"),
        default="stop",
        help="at a malformed line: stop with its position and exit 2 (default), or skip it into --error-file",
    )
    dumps.add_argument(
        "--error-file",
        metavar="FILE",
        help="skipped lines, as LINE<TAB>COLUMN<TAB>MESSAGE<TAB>TEXT (default ldids-errors.tsv)",
    )
    dumps.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True, help="progress on a terminal")
    dumps.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="run on a Dask cluster (a scheduler address, or 'local' for a cluster of --workers processes here); "
        "-o names a new folder for part-NNNNN files, links.nt and, with --crosswalk (any name), crosswalk.csv",
    )

    validate = commands.add_parser(
        "validate",
        help="validate RDF with the shipped SHACL shapes (and yours)",
        description="Validate RDF against the SHACL shapes shipped with ldids and any --shapes files. "
        "Exit 0 if it conforms, 1 if it does not, 2 if validation could not run (unreadable data or shapes).",
    )
    validate.add_argument("inputs", nargs="+", metavar="DATA")
    validate.add_argument("-i", "--input-format", help="input format name or MIME type (default: guessed)")
    validate.add_argument("--shapes", action="append", default=[], metavar="FILE", help="more shapes (repeatable)")
    validate.add_argument("--format", choices=("text", "turtle", "json"), default="text", help="report format")
    validate.add_argument("--limit", type=int, default=20, help="results listed in text and JSON (default 20)")
    validate.add_argument("--all", action="store_true", help="list every result")

    serve = commands.add_parser(
        "serve",
        help="run the HTTP service",
        description="Serve the HTTP API (inspect, normalize, validate, vocabulary, shapes; OpenAPI docs at /docs). "
        "Needs pip install 'ldids[service]'.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--config", help="TOML configuration of the graph passes")
    serve.add_argument(
        "--max-body", type=int, default=10 * 1024 * 1024, help="largest request body in bytes (413 beyond)"
    )
    serve.add_argument(
        "--store", metavar="DIR", help="where links and crosswalks are kept (default $XDG_DATA_HOME/ldids/store)"
    )
    serve.add_argument("--no-store", action="store_true", help="keep nothing between requests")
    serve.add_argument(
        "--sparql", metavar="URL", help="a live store's SPARQL query endpoint, for POST /store/normalize"
    )
    serve.add_argument("--sparql-update", metavar="URL", help="its update endpoint (default: the query endpoint)")

    undo = commands.add_parser(
        "undo",
        help="undo a normalization from its crosswalk",
        description="Restore the statements before `ldids normalize` from its output and its --crosswalk: links are "
        "removed and every rewritten statement is replaced by the one it came from. Exact for N-Triples and "
        "N-Quads output (their blank node labels are kept).",
    )
    undo.add_argument("inputs", nargs="+", metavar="DATA", help="the normalized data (links included or not)")
    undo.add_argument("--crosswalk", required=True, metavar="FILE", help="the crosswalk of that run (.csv or .nt)")
    undo.add_argument("-i", "--input-format", help="input format (default: guessed)")
    undo.add_argument("-o", "--output", default="-", help="output file, - for standard output (default)")
    undo.add_argument("-t", "--output-format", help="output format (default: from -o, else the input's)")
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
        raise _UsageError("--workers must be at least 1")
    config = Config.from_toml(args.config) if args.config else Config()
    settings = Settings(config, quads=quads, on_error=args.on_error, crosswalk=args.crosswalk is not None)
    if args.dask:
        summary = _on_dask(args, inputs, settings)
        _report_dump(args, summary)
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
    _report_dump(args, summary)
    return EXIT_INVALID if args.strict and summary.problems else EXIT_OK


def _on_dask(args: argparse.Namespace, inputs: list[str], settings: Settings) -> DumpSummary:
    try:
        from distributed import Client, LocalCluster

        from ldids.dumps.cluster import normalize_on_dask
    except ImportError as error:
        raise _UsageError("--dask needs the optional dependencies: pip install 'ldids[dask]'") from error
    if "-" in inputs or args.output == "-":
        raise _UsageError("--dask reads named files and writes a folder (-o DIR), not standard streams")
    if args.links:
        raise _UsageError("with --dask the links go to OUTPUT/links.nt (or nowhere with --no-links)")
    options = {"links": not args.no_links, "crosswalk": args.crosswalk is not None, "error_file": args.error_file}
    if args.dask == "local":
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None)
        with cluster, Client(cluster) as client:
            return normalize_on_dask(inputs, args.output, settings, client=client, **options)
    with Client(args.dask) as client:
        return normalize_on_dask(inputs, args.output, settings, client=client, **options)


def _report_dump(args: argparse.Namespace, summary: DumpSummary) -> None:
    if not args.quiet:
        if args.summary == "json":
            sys.stderr.write(json.dumps(summary.to_json()) + "\n")
        else:
            skipped = (
                f", {summary.bad_lines} bad lines skipped into {args.error_file or 'ldids-errors.tsv'}"
                if summary.bad_lines
                else ""
            )
            sys.stderr.write(
                f"ldids: {summary.summary().text()}; {summary.lines_in} lines in, {summary.lines_out} out{skipped} "
                f"({summary.seconds:.1f} s, {args.workers} worker{'s' if args.workers != 1 else ''})\n"
            )
            for sample in summary.problem_samples:
                sys.stderr.write(f"ldids: {sample}\n")


def _normalize_store(args: argparse.Namespace) -> int:
    from ldids.dumps.sparql import normalize_store
    from ldids.passes.config import Config

    if args.inputs:
        raise _UsageError("--sparql normalizes the store itself: give no INPUT")
    config = Config.from_toml(args.config) if args.config else Config()
    summary = normalize_store(args.sparql, args.sparql_update, config)
    if not args.quiet:
        report = summary.summary()
        plural = "" if summary.updates == 1 else "s"
        text = f"ldids: {report.text()}; {summary.updates} update{plural}"
        sys.stderr.write((json.dumps(report.to_json()) if args.summary == "json" else text) + "\n")
    return EXIT_INVALID if args.strict and summary.problems else EXIT_OK


def _normalize(args: argparse.Namespace, out: TextIO) -> int:
    if args.sparql:
        return _normalize_store(args)
    inputs = args.inputs or ["-"]
    streamed, quads = _streams(args, inputs)
    if streamed:
        return _normalize_dump(args, inputs, quads)  # imports no rdflib: dumps start fast
    from ldids.passes import graph as passes
    from ldids.passes.config import Config
    from ldids.rdf import io as rdfio

    config = Config.from_toml(args.config) if args.config else Config()
    data = rdfio.read(inputs, rdfio.resolve_format(args.input_format) if args.input_format else None)
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
        _report_normalization(result, data.notes, args.summary)
    return EXIT_INVALID if args.strict and result.findings else EXIT_OK


_PROBLEMS_SHOWN = 20


def _report_normalization(result: Result, notes: list[str], style: str) -> None:
    from ldids.ntriples import quad_line

    summary = result.summary()
    if style == "json":
        summary.run = {"notes": notes, "problem_samples": [_finding_json(f) for f in result.findings[:_PROBLEMS_SHOWN]]}
        sys.stderr.write(json.dumps(summary.to_json()) + "\n")
        return
    sys.stderr.write(f"ldids: {summary.text()}\n")
    for note in notes:
        sys.stderr.write(f"ldids: note: {note}\n")
    for finding in result.findings[:_PROBLEMS_SHOWN]:
        problem = finding.problems[0]
        sys.stderr.write(
            f"ldids: invalid {finding.scheme} identifier in {finding.position} of {quad_line(finding.quad)}\n"
            f"  {render_caret(str(finding.term), problem, indent='      ')}\n"
        )
    hidden = len(result.findings) - _PROBLEMS_SHOWN
    if hidden > 0:
        sys.stderr.write(f"ldids: ... and {hidden} more invalid identifiers (--summary json lists them by count)\n")


def _finding_json(finding: Finding) -> dict[str, object]:
    from ldids.ntriples import quad_line

    return {
        "term": str(finding.term),
        "scheme": finding.scheme,
        "position": finding.position,
        "statement": quad_line(finding.quad),
        "problems": [p.to_json() for p in finding.problems],
    }


def _validate(args: argparse.Namespace, out: TextIO) -> int:
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


def _undo(args: argparse.Namespace, out: TextIO) -> int:
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


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    try:
        import uvicorn

        from ldids.service.app import create_app
    except ImportError as error:
        raise _UsageError("serve needs the optional dependencies: pip install 'ldids[service]'") from error
    from ldids.passes.config import Config
    from ldids.service.store import IdentityStore

    config = Config.from_toml(args.config) if args.config else Config()
    store = None if args.no_store else IdentityStore(args.store)
    live = (args.sparql, args.sparql_update or args.sparql) if args.sparql else None
    app = create_app(config, max_body=args.max_body, store=store, sparql=live)
    uvicorn.run(app, host=args.host, port=args.port)
    return EXIT_OK


_COMMANDS = {
    "inspect": _inspect,
    "mint": _mint,
    "oai-request": _oai_request,
    "oai-description": _oai_description,
    "normalize": _normalize,
    "validate": _validate,
    "undo": _undo,
    "serve": _serve,
}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    stream = out if out is not None else sys.stdout
    try:
        code = _COMMANDS[args.command](args, stream)
        stream.flush()  # a full disk shows here, reported as any output error, not at exit
        return code
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
        # `ldids inspect ... | head`: the reader left; that is not an error of ours to report.
        # The output is cut short, though: exit as cat and grep do, by SIGPIPE to a shell.
        sys.stderr.close()
        return 128 + signal.SIGPIPE


def run() -> None:
    """Console-script entry point."""
    # Terminated, a run cleans up as an interrupted one does: the temporary files go, the
    # worker processes stop, and no partial output is left (exit 128 + signal number).
    signal.signal(signal.SIGTERM, _terminated)
    from ldids.rdf.files import standard_output

    sys.stdout = standard_output()  # its write errors name it, as those of output files do
    try:
        code = main()
    except KeyboardInterrupt:
        sys.stderr.write("ldids: interrupted\n")
        code = 128 + signal.SIGINT
    sys.exit(code)


def _terminated(signum: int, frame: object) -> None:
    sys.stderr.write("ldids: terminated\n")
    raise SystemExit(128 + signum)
