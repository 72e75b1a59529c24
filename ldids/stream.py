"""N-Triples and N-Quads dumps as streams: constant memory, every core, the same passes.

A dump is cut into blocks of whole lines; :func:`process_block` turns one block into its
output and side results, and runs unchanged in this process, in a pool of worker
processes, or on Dask workers, so every way of running gives the same bytes.

Inside a block each line is checked against the N-Triples/N-Quads statement grammar
(RDF 1.1 N-Triples §7, N-Quads §7) with one regular expression. Most lines of a dump hold
no identifier: a line in which no identifier prefix occurs is written out exactly as it
came, without building a single RDF term. The other lines become quads of rdflib terms
(parsed terms are cached: dumps repeat the same IRIs very many times) and go through
:func:`ldids.passes.rewrite_quad` and :func:`ldids.passes.links`; a line whose statement
did not change is also written out as it came.
"""

from __future__ import annotations

import heapq
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO
from typing import Literal as Kind

from rdflib.term import BNode, Literal, Node, URIRef

from ldids import passes
from ldids.config import Config
from ldids.ntriples import Quad, quad_line, term

__all__ = [
    "BadLine",
    "BlockResult",
    "Settings",
    "SortedUnique",
    "blocks",
    "diagnose",
    "process_block",
]

# -- The statement grammar -------------------------------------------------------------------

_HEX4, _HEX8 = r"[0-9A-Fa-f]{4}", r"[0-9A-Fa-f]{8}"
_IRI = rf'<(?:[^\x00-\x20<>"{{}}|^`\\]|\\u{_HEX4}|\\U{_HEX8})*>'
_PN_START = (
    "A-Za-z0-9_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_REST = _PN_START + "\\-\u00b7\u0300-\u036f\u203f-\u2040"
_BNODE = rf"_:[{_PN_START}](?:[{_PN_REST}.]*[{_PN_REST}])?"
_STRING = rf'"(?:[^"\\\n\r]|\\[tbnrf"\'\\]|\\u{_HEX4}|\\U{_HEX8})*"'
_LITERAL = rf"{_STRING}(?:@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*|\^\^{_IRI})?"
_WS = r"[ \t]*"
STATEMENT = re.compile(
    rf"{_WS}({_IRI}|{_BNODE}){_WS}({_IRI}){_WS}({_IRI}|{_BNODE}|{_LITERAL}){_WS}(?:({_IRI}|{_BNODE}){_WS})?\.{_WS}(?:#.*)?"
)
_NOTHING = re.compile(r"[ \t]*(?:#.*)?")
_PIECES = (
    ("subject", re.compile(rf"{_WS}({_IRI}|{_BNODE})")),
    ("predicate", re.compile(rf"{_WS}({_IRI})")),
    ("object", re.compile(rf"{_WS}({_IRI}|{_BNODE}|{_LITERAL})")),
)
_EXPECTED = {"subject": "an IRI or blank node", "predicate": "an IRI", "object": "an IRI, blank node or literal"}
_GRAPH = re.compile(rf"{_WS}({_IRI}|{_BNODE})")
_END = re.compile(rf"{_WS}\.{_WS}(?:#.*)?$")

_UNDECODED = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)
_ESCAPE = re.compile(rf"\\(?:u({_HEX4})|U({_HEX8})|([tbnrf\"'\\]))")
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        return chr(int(code, 16)) if code else _ECHAR[match.group(3)]

    return _ESCAPE.sub(one, text)


def _parse_term(raw: str) -> Node:
    if raw[0] == "<":
        return URIRef(_unescape(raw[1:-1]))
    if raw[0] == "_":
        return BNode(raw[2:])
    close = raw.rindex('"')
    lexical = _unescape(raw[1:close])
    rest = raw[close + 1 :]
    if rest.startswith("@"):
        return Literal(lexical, lang=rest[1:])
    if rest.startswith("^^"):
        return Literal(lexical, datatype=URIRef(_unescape(rest[3:-1])))
    return Literal(lexical)


def diagnose(line: str, quads: bool) -> tuple[int, str]:
    """Where (1-based column) and why a line is not a statement."""
    position = 0
    for name, piece in _PIECES:
        found = piece.match(line, position)
        if found is None:
            column = position + len(line[position:]) - len(line[position:].lstrip(" \t")) + 1
            return column, f"expected the {name} ({_EXPECTED[name]})"
        position = found.end()
    graph = _GRAPH.match(line, position)
    if graph is not None:
        if not quads:
            return graph.start(1) + 1, "an N-Triples statement has three terms (use N-Quads for graph names)"
        position = graph.end()
    if _END.match(line, position) is None:
        column = position + len(line[position:]) - len(line[position:].lstrip(" \t")) + 1
        return column, "expected '.' to end the statement"
    return 1, "not a statement"


# -- One block ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What every block needs to know; picklable, sent to each worker once."""

    config: Config
    quads: bool = False  # N-Quads (graph names allowed)
    on_error: Kind["stop", "skip"] = "stop"
    crosswalk: bool = False
    term_cache: int = 100_000  # parsed terms kept per process (bounded: constant memory)
    identifier_cache: int = 100_000


@dataclass(frozen=True, slots=True)
class BadLine:
    line: int  # 1-based, in its file
    column: int
    message: str
    text: str


@dataclass
class BlockResult:
    """The output of one block and what the passes found in it."""

    output: bytes = b""
    lines: int = 0  # lines read
    written: int = 0  # lines written (statements, blanks and comments)
    statements: int = 0
    rewritten_statements: int = 0
    rewritten: Counter[str] = field(default_factory=Counter)
    links: list[str] = field(default_factory=list)
    crosswalk: list[passes.Crosswalk] = field(default_factory=list)
    problems: int = 0
    problem_samples: list[str] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)


class _Worker:
    """Per-process state: settings, the term caches, the candidate filter."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        config = settings.config
        self.identifiers = passes.TermCache(config, size=settings.identifier_cache)
        self.terms: dict[str, Node] = {}
        prefixes = ["info:fedora/", "oai:", "hdl:", r"purl\.org", r"hdl\.handle\.net"]
        prefixes += [re.escape(resolver.authority.split(":")[0]) for resolver in config.resolvers]
        # A line is a candidate if an identifier prefix occurs in it, or, with bare forms
        # configured, if it might hold one (a configured predicate, or any "ns: for a PID namespace).
        bare = [re.escape(f"<{predicate}>") for predicate in config.bare_pid_predicates | config.bare_handle_predicates]
        bare += [re.escape(f"{namespace}:") for namespace in config.pid_namespaces]
        bare += [re.escape(f"{namespace}%3") for namespace in config.pid_namespaces]
        identity = [re.escape(f"<{predicate}>") for predicate in config.identity_predicates]
        self.candidate = re.compile("|".join([f"(?i:{'|'.join(prefixes)})", *bare, *identity]))

    def term(self, raw: str) -> Node:
        node = self.terms.get(raw)
        if node is None:
            if len(self.terms) >= self.settings.term_cache:
                self.terms.clear()
            node = self.terms[raw] = _parse_term(raw)
        return node


_WORKER: _Worker | None = None


def _worker_for(settings: Settings) -> _Worker:
    global _WORKER
    if _WORKER is None or _WORKER.settings != settings:
        _WORKER = _Worker(settings)
    return _WORKER


def process_block(data: bytes, first_line: int, settings: Settings) -> BlockResult:
    """Normalize one block of whole lines; ``first_line`` is the 1-based number of its first.

    With ``on_error="stop"`` the first bad line ends the block (it is the only entry of
    ``bad``); with ``"skip"`` every bad line is listed and left out of the output.
    """
    worker = _worker_for(settings)
    config = settings.config
    result = BlockResult()
    undecodable = False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        if settings.on_error == "stop":
            number = first_line + data.count(b"\n", 0, error.start)
            column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
            excerpt = data[error.start : error.start + 20].decode("utf-8", "replace")
            result.bad.append(BadLine(number, column, "not UTF-8", excerpt))
            return result
        text = data.decode("utf-8", "surrogateescape")
        undecodable = True
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: list[str] = []
    statement_match = STATEMENT.fullmatch
    candidate = worker.candidate.search
    quads = settings.quads
    for offset, line in enumerate(lines):
        result.lines += 1
        body = line[:-1] if line.endswith("\r") else line
        match = statement_match(body)
        if match is None or (match.group(4) is not None and not quads) or (undecodable and _UNDECODED.search(body)):
            if match is None and _NOTHING.fullmatch(body):
                out.append(line)
                continue
            if match is not None and match.group(4) is not None:
                column, message = (
                    match.start(4) + 1,
                    "an N-Triples statement has three terms (use N-Quads for graph names)",
                )
            elif match is not None:
                column, message = 1, "not UTF-8"
            else:
                column, message = diagnose(body, quads)
            result.bad.append(
                BadLine(
                    first_line + offset,
                    column,
                    message,
                    body.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                )
            )
            if settings.on_error == "stop":
                break
            continue
        result.statements += 1
        if candidate(body) is None:
            out.append(line)
            continue
        s, p, o, g = match.group(1, 2, 3, 4)
        quad: Quad = (worker.term(s), worker.term(p), worker.term(o), None if g is None else worker.term(g))
        step = passes.rewrite_quad(quad, worker.identifiers)
        for finding in step.findings:
            result.problems += 1
            if len(result.problem_samples) < 20:
                code = finding.problems[0].code
                result.problem_samples.append(
                    f"line {first_line + offset}: invalid {finding.scheme} identifier {str(finding.term)!r} [{code}]"
                )
        for link in passes.links(step, config):
            line_of_link = quad_line(link)
            result.links.append(line_of_link)
            if settings.crosswalk:
                result.crosswalk.append(
                    passes.Crosswalk("link", "owl:sameAs", "", term(link[2]), term(link[0]), "", line_of_link)
                )
        if not step.rewrites:
            out.append(line)
            continue
        result.rewritten_statements += 1
        for change in step.rewrites:
            result.rewritten[change.scheme] += 1
            if settings.crosswalk:
                result.crosswalk.append(
                    passes.Crosswalk(
                        "rewrite",
                        change.scheme,
                        change.position,
                        term(change.original),
                        term(change.canonical),
                        quad_line(change.quad),
                        quad_line(change.rewritten),
                    )
                )
        out.append(quad_line(step.after))
    result.written = len(out)
    result.output = ("\n".join(out) + "\n").encode("utf-8", "surrogateescape") if out else b""
    return result


# -- Cutting a stream into blocks ----------------------------------------------------------------


def blocks(stream: IO[bytes], size: int = 1 << 22) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines (about ``size`` bytes) and the number of each block's first line."""
    line = 1
    rest = b""
    while True:
        chunk = stream.read(size)
        if not chunk:
            break
        data = rest + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            rest = data
            continue
        block, rest = data[: cut + 1], data[cut + 1 :]
        yield block, line
        line += block.count(b"\n")
    if rest:
        yield rest + b"\n", line


# -- De-duplicating links and crosswalk rows in bounded memory -----------------------------------


class SortedUnique:
    """Lines, de-duplicated and sorted, in bounded memory: sorted runs spill to temporary
    files and are merged at the end (an external sort, like ``sort -u``)."""

    def __init__(self, run_size: int = 200_000) -> None:
        self.run_size = run_size
        self._buffer: set[str] = set()
        self._runs: list[IO[str]] = []

    def add_all(self, lines: Iterable[str]) -> None:
        self._buffer.update(lines)
        if len(self._buffer) >= self.run_size:
            self._spill()

    def _spill(self) -> None:
        if not self._buffer:
            return
        # Closed in __iter__, after the merge: it must outlive this method.
        run = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n", prefix="ldids-run-")  # noqa: SIM115
        run.writelines(line + "\n" for line in sorted(self._buffer))
        run.seek(0)
        self._runs.append(run)
        self._buffer.clear()

    def __iter__(self) -> Iterator[str]:
        """Each distinct line once, in sorted order; consumes the collection."""
        if not self._runs:
            yield from sorted(self._buffer)
            self._buffer.clear()
            return
        self._spill()
        previous = None
        for line in heapq.merge(*(run for run in self._runs)):
            text = line.rstrip("\n")
            if text != previous:
                yield text
                previous = text
        for run in self._runs:
            run.close()
        self._runs.clear()
