"""The ``ldids`` argument parser: every command, its options and its --help text."""

from __future__ import annotations

import argparse
import os
import uuid

from ldids import __version__
from ldids.schemes import handle
from ldids.schemes.registry import PRECEDENCE

__all__ = ["build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse exits with 2 on usage errors already; keep its message format."""


_BASE_HELP = (
    "resolve relative IRIs (Turtle, TriG, RDF/XML, JSON-LD) against IRI (default: each file's file: IRI; "
    "standard input has none, and a relative IRI in it is an error)"
)


def _resolver(text: str) -> handle.Resolver:
    from ldids.errors import InputError
    from ldids.passes.config import resolver

    authority, _, segment = text.partition("/")
    try:
        return resolver(authority, segment or None)
    except InputError as error:
        raise argparse.ArgumentTypeError(f"a resolver is HOST[:PORT][/SEGMENT]: {error.message}") from None


def build_parser() -> argparse.ArgumentParser:
    """Every command with its options; ``main`` runs the one named in ``args.command``."""
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
    request.add_argument(
        "--verb",
        choices=("GetRecord", "ListMetadataFormats"),
        help="OAI-PMH verb of a request about one identifier (default GetRecord; with --base-url)",
    )
    request.add_argument("--metadata-prefix", help="metadataPrefix of GetRecord (default oai_dc; with --base-url)")

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
    compressions = ".gz, .bz2, .xz, .zst"
    normalize = commands.add_parser(
        "normalize",
        help="rewrite identifiers in RDF to canonical form, link their forms, record a crosswalk",
        description="Rewrite every recognized identifier to its canonical IRI, add owl:sameAs links between the "
        "forms that name the same thing, and report invalid identifiers (never rewritten). Reads files or "
        f"standard input ({formats}; told by a file's extension, else by its first bytes), plain or compressed "
        f"({compressions}), and writes one file or standard output, in the format and compression the file's name "
        "says (out.ttl, out.nt.gz) or --output-format names. An output file appears only when it is complete: "
        "a run that fails or is killed leaves none. Prefixes the input declares are kept in Turtle, TriG and "
        "RDF/XML. "
        "A summary goes to standard error. "
        "Exit 0 on success (1 with --strict when invalid identifiers were found or input was skipped), "
        "2 on usage and input errors.",
    )
    normalize.add_argument("inputs", nargs="*", metavar="INPUT", help="input files, - for standard input (default)")
    normalize.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="FILE",
        help="output file, its name telling format and compression (out.nq.zst); - for standard output (default)",
    )
    normalize.add_argument(
        "-i",
        "--input-format",
        metavar="FORMAT",
        help="input format name or MIME type (default: from the extension, else the content)",
    )
    normalize.add_argument("--base", metavar="IRI", help=_BASE_HELP)
    normalize.add_argument(
        "-t",
        "--output-format",
        metavar="FORMAT",
        help="output format name or MIME type (default: from -o's name, else the input's, else turtle)",
    )
    normalize.add_argument("--config", help="TOML configuration (bare-PID predicates, Fedora OAI namespaces, ...)")
    where = normalize.add_mutually_exclusive_group()
    where.add_argument(
        "--links", metavar="FILE", help="write the owl:sameAs links to FILE (format and compression from its name)"
    )
    where.add_argument("--no-links", action="store_true", help="write no owl:sameAs links")
    normalize.add_argument(
        "--crosswalk",
        metavar="FILE",
        help="record every change in FILE (.csv or .nt, compressed as named: .csv.gz); see `ldids undo`",
    )
    normalize.add_argument(
        "--summary", choices=("text", "json"), default="text", help="summary format on standard error"
    )
    normalize.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if invalid identifiers were found, or a reader skipped anything (the summary's 'skipped')",
    )
    normalize.add_argument("-q", "--quiet", action="store_true", help="no summary, no problem list")
    normalize.add_argument(
        "--validate",
        action="store_true",
        help="check the streamed output against the shipped shapes as it is made, in the same pass (report on "
        "standard error; exit 1 if it does not conform)",
    )
    store = normalize.add_argument_group("live stores", "Normalize a triplestore in place, in atomic batches.")
    store.add_argument("--sparql", metavar="URL", help="the store's SPARQL 1.1 query endpoint")
    store.add_argument("--sparql-update", metavar="URL", help="its update endpoint (default: the query endpoint)")
    dumps = normalize.add_argument_group(
        "dumps",
        "N-Triples and N-Quads in and out (plain or compressed, files or standard input) are streamed in "
        "constant memory, in input order, with owl:sameAs links after the statements. So are Turtle, TriG and "
        "RDF/XML in, with N-Triples or N-Quads out: parsed as they are read, each statement written as often as "
        "it is stated (Turtle or TriG out reads the whole graph, to write it well). Their relative IRIs resolve "
        "against the file's file: URL; standard input has no base.",
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
        help="at a malformed line: stop with its position and exit 2 (default), or skip it into --error-file; "
        "a syntax error in Turtle, TriG or RDF/XML always stops",
    )
    dumps.add_argument(
        "--error-file",
        metavar="FILE",
        help="skipped lines, as FILE<TAB>LINE<TAB>COLUMN<TAB>MESSAGE<TAB>TEXT (default ldids-errors.tsv)",
    )
    dumps.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True, help="progress on a terminal")
    dumps.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="run on Dask: a distributed scheduler's address, or 'local' for Dask's processes scheduler on "
        "--workers processes here; "
        "-o names a new folder for part-NNNNN files, links.nt and, with --crosswalk (any name), crosswalk.csv",
    )

    validate = commands.add_parser(
        "validate",
        help="validate RDF with the shipped SHACL shapes (and yours)",
        description="Validate RDF against the SHACL shapes shipped with ldids and any --shapes files. "
        "Exit 0 if it conforms, 1 if it does not, 2 if validation could not run (unreadable data or shapes). "
        "The streamed checks' parsed queries and automata are cached in $XDG_CACHE_HOME/ldids (else ~/.cache/ldids; "
        "LDIDS_CACHE_DIR moves it, LDIDS_NO_CACHE=1 turns it off).",
    )
    validate.add_argument("inputs", nargs="+", metavar="DATA")
    validate.add_argument(
        "-i",
        "--input-format",
        help="input format name or MIME type (default: guessed); as in normalize, not pyshacl's -i: see --inference",
    )
    validate.add_argument("--base", metavar="IRI", help=_BASE_HELP)
    validate.add_argument(
        "-s", "--shapes", action="append", default=[], metavar="FILE", help="more shapes (repeatable), as pyshacl's -s"
    )
    validate.add_argument(
        "--allow-network",
        action="store_true",
        help="run shapes that use owl:imports, SERVICE, FROM or sh:shapesGraph (refused by default); "
        "nothing is fetched for them: an owl:imports is not followed",
    )
    validate.add_argument(
        "-f", "--format", choices=("text", "turtle", "json"), default="text", help="report format (default text)"
    )
    validate.add_argument(
        "-a", "--advanced", action="store_true", help="SHACL-AF features (always on: the shipped shapes use them)"
    )
    validate.add_argument(
        "--engine",
        choices=("auto", "stream", "pyshacl", "shacl"),
        default="auto",
        help="auto (default): the shipped shapes checked statement by statement as the data stream by "
        "(N-Triples, N-Quads, Turtle, TriG, RDF/XML; else on the whole graph), --shapes on the compiled engine "
        "(shacl), the fastest measured; "
        "stream: as auto, refusing other formats; shacl: as auto; pyshacl: every shape on pyshacl, the whole graph "
        "in memory (the reference)",
    )
    validate.add_argument(
        "--inference",
        choices=("none", "rdfs"),
        default="none",
        help="entailments added to the data before --shapes run (pyshacl's -i; default none)",
    )
    validate.add_argument(
        "-e",
        "--ont-graph",
        action="append",
        default=[],
        metavar="FILE",
        help="an ontology added to the data before --shapes run, as pyshacl's -e (repeatable)",
    )
    validate.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="what a whole-graph run is doing, on standard error (default: when it is a terminal)",
    )
    validate.add_argument(
        "-w",
        "--workers",
        type=int,
        default=1,
        help="processes that check a streamed run (default 1: this one; more: workers beside it, which adds up)",
    )
    validate.add_argument(
        "--max-results", type=int, metavar="N", help="keep at most N results in memory (counts go on)"
    )
    validate.add_argument("--abort", action="store_true", help="stop at the first result")
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
        "--workers",
        type=int,
        default=max(1, min(4, os.cpu_count() or 1)),
        help="worker processes (default: cores, 4 at most)",
    )
    serve.add_argument("--queue", type=int, default=16, help="requests waiting for a worker before 503 (default 16)")
    serve.add_argument("--time-limit", type=float, default=120.0, metavar="SECONDS", help="per request (default 120)")
    serve.add_argument(
        "--memory-limit",
        type=int,
        default=4096,
        metavar="MIB",
        help="per worker, address space (default 4096; 0: none)",
    )
    serve.add_argument(
        "--sparql", metavar="URL", help="a live store's SPARQL query endpoint, for POST /store/normalize"
    )
    serve.add_argument("--sparql-update", metavar="URL", help="its update endpoint (default: the query endpoint)")
    serve.add_argument(
        "--token-file", metavar="FILE", help="a file holding the token POST /store/normalize needs (Bearer)"
    )

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
    undo.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="FILE",
        help="output file, its name telling format and compression; - for standard output (default)",
    )
    undo.add_argument(
        "-t", "--output-format", metavar="FORMAT", help="output format (default: from -o's name, else the input's)"
    )
    return parser
