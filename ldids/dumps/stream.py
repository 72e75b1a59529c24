"""N-Triples and N-Quads dumps as streams: constant memory, every core, the same passes.

A dump is cut into blocks of whole lines; :func:`process_block` turns one block into its
output and side results, and runs unchanged in this process, in worker processes, or on
Dask workers, so every way of running gives the same bytes.

Inside a block each line is checked against the N-Triples/N-Quads statement grammar
(RDF 1.1 N-Triples §7, N-Quads §7). Most lines of a dump hold no identifier: a line in
which no identifier prefix occurs (in any ASCII case) is copied as it came. In the others,
each term that may be an identifier is decided on its text by the passes' own functions
(:mod:`ldids.passes.decision`), once per run and process, and the line is rewritten term by
term from the remembered decisions; an unchanged line is copied as it came. Lines the
passes must see whole (owl:sameAs and identity statements, or every line when a crosswalk
is kept) go through :func:`ldids.passes.graph.rewrite_quad` and :func:`ldids.passes.graph.links` on
rdflib terms.

The per-line loop is compiled (``ldids/dumps/_scan.c``); the loop here in Python is its
reference, and tests/test_scan.py holds the two equal. The grammar's regexes, and what
they say of a bad line, are in :mod:`ldids.dumps.grammar`; the cutting of a dump into
blocks, in :mod:`ldids.dumps.blocks`; the de-duplication of the links and crosswalk rows
of a run's blocks, in :mod:`ldids.dumps.sorting`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING
from typing import Literal as Kind

from ldids.dumps.grammar import _NOTHING, _UNDECODED, _parse_term, _unescape, _why_bad, grammar
from ldids.errors import Problem
from ldids.ntriples import Quad, iri, literal, quad_line, term
from ldids.passes import decision
from ldids.passes.config import Config
from ldids.passes.decision import evict_oldest_half

if TYPE_CHECKING:
    from rdflib.term import Node

    from ldids.dumps._scan import SharedDecisions
    from ldids.passes import graph as passes

# rdflib and the graph passes are imported where the rare lines that need RDF terms are
# handled (owl:sameAs and identity statements, crosswalks, problem texts), not here: a dump
# of ordinary lines never builds a term, and never pays ~0.2 s to import them.

_scan: ModuleType | None
try:
    from ldids.dumps import _scan
except ImportError:  # built without a C compiler: the per-line loop runs in Python
    _scan = None

#: Whether the per-line loop runs compiled (the ldids.dumps._scan extension was built).
COMPILED = _scan is not None

__all__ = [
    "COMPILED",
    "BadLine",
    "BlockResult",
    "Settings",
    "new_run",
    "process_block",
    "shared_decisions",
]

# -- One block ---------------------------------------------------------------------------------


def new_run() -> str:
    """A token naming one run (:attr:`Settings.run`)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Settings:
    """What every block needs to know; picklable, sent to each worker once."""

    config: Config
    quads: bool = False  # N-Quads (graph names allowed)
    on_error: Kind["stop", "skip"] = "stop"
    crosswalk: bool = False
    term_cache: int = 10_000  # parsed terms kept per process (bounded: constant memory)
    # Decisions kept per run, about 200 bytes each, shared out over the processes: a
    # dump's identifiers recur, and each one decided again costs ~8 us, as much as six
    # identifier-free lines. 200k keeps a run under 120 MiB (PSS) at 10M triples.
    identifier_cache: int = 200_000
    # One run: links are reported once per run and process (in the block where the process
    # first decides a term), so every run needs a worker of its own. A new Settings is a
    # new run; normalize_dump and normalize_on_dask give each call a token of its own.
    run: str = field(default_factory=new_run)


@dataclass(frozen=True, slots=True)
class BadLine:
    line: int  # 1-based, in its file
    column: int
    message: str
    text: str


@dataclass
class BlockResult:
    """The output of one block and what the passes found in it."""

    output: bytes | bytearray = b""
    lines: int = 0  # lines read
    written: int = 0  # lines written (statements, blanks and comments)
    statements: int = 0
    rewritten_statements: int = 0
    rewritten: Counter[str] = field(default_factory=Counter)
    #: Identifier-shaped terms left alone, by reason (decision.REASONS).
    left: Counter[str] = field(default_factory=Counter)
    links: list[str] = field(default_factory=list)
    same_as: list[str] = field(default_factory=list)  # owl:sameAs statements already in the data
    crosswalk: list[passes.Crosswalk] = field(default_factory=list)
    problems: int = 0
    invalid: Counter[str] = field(default_factory=Counter)  # invalid identifiers, by scheme
    # (line number, what is wrong) of the first 20 invalid identifiers, in line order.
    problem_samples: list[tuple[int, str]] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)


# What the Python loop's memo keeps of a decision on one raw term: (canonical raw term or
# None if unchanged, scheme, ("left", reason) or None, problems if invalid).
_Known = tuple["str | None", "str | tuple[str, str] | None", "tuple[Problem, ...] | None"]
# What the compiled loop keeps per key (ldids/dumps/_scan.c): None for no identifier; for a valid
# identifier rewritten, one byte (the scheme's index in _Worker.schemes) then the
# replacement, a single object as the commonest entry should be; (None, False, scheme) for
# one already canonical; (None, True, scheme, problems, the term's text) for an invalid one;
# (None, False, None, ("left", reason)) for one left alone.
_Value = (
    bytes
    | tuple[None, bool, str]
    | tuple[None, bool, None, tuple[str, str]]
    | tuple[None, bool, str, tuple[Problem, ...], str]
    | None
)
_SAME_AS = f"<{decision.SAME_AS_IRI}>"
_UNKNOWN = object()  # not yet looked up
#: What a block may be given as: bytes, or a view of a buffer the caller reads into again.
BytesLike = bytes | bytearray | memoryview


@dataclass(frozen=True)
class ScanTables:
    """What the compiled loop reads (``ldids/dumps/_scan.c``, ``scan_block``): per worker,
    built once from the settings and the registry's declarations."""

    quads: bool  # N-Quads: graph names allowed
    stop_on_error: bool  # the first bad line ends the block
    all_slow: bool  # every candidate line goes to Python whole (a crosswalk is kept)
    rewrite_predicates: bool
    memo: dict[bytes, _Value]  # key -> decision (filled by the loop)
    memo_size: int  # the most entries the memo takes before it forgets its older half
    decide: Callable[[str, str | None, bool, str | None], _Value]
    schemes: tuple[str, ...]  # indexed by a rewriting value's first byte
    shared: SharedDecisions | None  # decisions shared with the run's other processes
    folded: tuple[bytes, ...]  # prefilter needles, matched in any ASCII case
    exact: tuple[bytes, ...]  # needles matched as they are (configured PID namespaces)
    bare_predicates: tuple[bytes, ...]  # raw predicates whose literals may be bare forms
    slow_predicates: tuple[bytes, ...]  # raw predicates whose statements Python sees whole


class _Worker:
    """Per-process state: settings, the term caches, the candidate test."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        config = settings.config
        self._identifiers: passes.TermCache | None = None
        self.terms: dict[str, Node] = {}
        self.memo: dict[tuple[str, str | None, bool, str | None], _Known] = {}
        # Links of the terms decided since the last block ended (see Settings.run).
        self.new_links: list[str] = []
        # A line is a candidate if one of the schemes' prefilter needles occurs in it (in
        # any ASCII case, as the schemes' claims match: RFC 3986 §3.1), or, with bare forms
        # configured, if it might hold one.
        # A term may spell any character with a \u or \U escape (N-Triples §2.3, UCHAR), a
        # prefix's too: a line or term with one is a candidate, and its text is decided
        # unescaped. (Such lines are rare: identifiers are written out in real dumps.)
        self.folded = [*config.registry.prefilter, "\\u"]
        self.prefixes = re.compile("|".join(re.escape(p) for p in self.folded), re.IGNORECASE | re.ASCII)
        self.bare_predicates = {iri(p) for p in config.bare_pid_predicates | config.bare_handle_predicates}
        self.identity_predicates = {iri(p) for p in config.identity_predicates}
        self.exact_needles = sorted(
            {*self.bare_predicates, *(f"{ns}:" for ns in config.pid_namespaces)}
            | {f"{ns}%3" for ns in config.pid_namespaces}
        )
        self.exact = re.compile("|".join(re.escape(p) for p in self.exact_needles)) if self.exact_needles else None
        self.byte_memo: dict[bytes, _Value] = {}
        self.schemes = config.registry.names
        # The PID namespace each subject carries, for bare PIDs under bare-PID predicates.
        self._namespaces: dict[str, str | None] = {}
        self._left: dict[str, _Value] = {reason: (None, False, None, ("left", reason)) for reason in decision.REASONS}
        # The value of an identifier already canonical: one per scheme, shared by every key.
        self._unchanged: dict[str, _Value] = {name: (None, False, name) for name in self.schemes}
        self.shared = _SHARED.get(settings.run)
        self._scheme_byte = {name: bytes([index]) for index, name in enumerate(self.schemes)}
        # What the compiled loop matches, as bytes: folded and exact needles, bare-form
        # predicates, and the predicates whose statements the passes see whole.
        self.tables = ScanTables(
            quads=settings.quads,
            stop_on_error=settings.on_error == "stop",
            all_slow=settings.crosswalk,
            rewrite_predicates=config.rewrite_predicates,
            memo=self.byte_memo,
            memo_size=settings.identifier_cache,
            decide=self.decide,
            schemes=self.schemes,
            shared=self.shared,
            folded=_encoded(self.folded),
            exact=_encoded(self.exact_needles),
            bare_predicates=_encoded(sorted(self.bare_predicates)),
            slow_predicates=_encoded(sorted({_SAME_AS, *self.identity_predicates})),
        )
        # Read on decide's path, once for every new term: bound once here.
        self._literals_to_iris = config.literals_to_iris
        self._bare_pid_predicates = config.bare_pid_predicates
        self._config = config
        self._decide = decision.decide

    @property
    def identifiers(self) -> passes.TermCache:
        """The graph passes' cache of decisions on RDF terms (for whole statements)."""
        if self._identifiers is None:
            from ldids.passes import graph as passes

            self._identifiers = passes.TermCache(self.settings.config, size=self.settings.identifier_cache)
        return self._identifiers

    def is_candidate(self, line: str) -> bool:
        """Might this line (or raw term) hold an identifier? False means certainly not."""
        if self.prefixes.search(line) is not None:
            return True
        return self.exact is not None and self.exact.search(line) is not None

    def might_be_identifier(self, raw: str, predicate: str) -> bool:
        """The same test for one raw term (a literal under a bare-form predicate always is)."""
        return self.is_candidate(raw) or (raw[0] == '"' and self.is_bare_predicate(predicate))

    def term(self, raw: str) -> Node:
        node = self.terms.get(raw)
        if node is None:
            if len(self.terms) >= self.settings.term_cache:
                evict_oldest_half(self.terms)
            node = self.terms[raw] = _parse_term(raw)
        return node

    def is_bare_predicate(self, predicate: str) -> bool:
        """Is this raw predicate one under which literals may hold bare forms?"""
        if predicate in self.bare_predicates:
            return True
        # The same IRI written with \u escapes (N-Triples §2.3 allows them in any IRI).
        return "\\" in predicate and iri(_unescape(predicate[1:-1])) in self.bare_predicates

    def entry(self, raw: str, predicate: str, linkable: bool, subject: str) -> _Known:
        """What the passes do to one raw term (memoized): ``rewrite_quad`` and ``links``
        decide each term on its own, the predicate and subject counting only for literals
        under bare-form predicates."""
        relevant = predicate if raw[0] == '"' and self.is_bare_predicate(predicate) else None
        context = None if relevant is None else subject
        key = (raw, relevant, linkable, context)
        known = self.memo.get(key)
        if known is None:
            value = self.decide(raw, relevant, linkable, context)
            if value is None:
                known = (None, None, None)
            elif isinstance(value, bytes):
                known = (value[1:].decode(), self.schemes[value[0]], None)
            elif len(value) == 5:
                known = (None, value[2], value[3])  # invalid
            elif len(value) == 4:
                known = (None, value[3], None)  # left alone: ("left", reason) in place of a scheme
            else:
                known = (None, value[2], None)  # already canonical
            if len(self.memo) >= self.settings.identifier_cache:
                evict_oldest_half(self.memo)
            self.memo[key] = known
        return known

    def decide(self, raw: str, bare_predicate: str | None, linkable: bool, subject: str | None = None) -> _Value:
        """:func:`~ldids.passes.decision.decide` on one raw N-Triples term (``subject``: the
        raw subject, the context of a literal under a bare-form predicate), without
        building RDF terms, as a memo value of the compiled loop (:data:`_Value`); the
        links it calls for are added to :attr:`new_links`. It decides nothing itself.

        This runs once for every term a dump's memo does not hold: millions of times on a
        large dump."""
        first = raw[0]
        escaped = "\\" in raw
        datatype = None
        if first == "<":
            text, is_literal = _unescape(raw[1:-1]) if escaped else raw[1:-1], False
        elif first == '"':
            close = len(raw) - 1 if raw[-1] == '"' else raw.rindex('"')
            if close < len(raw) - 1:
                if raw[close + 1] == "@":
                    return None  # text in a language (decision.is_identifier_literal)
                datatype = _unescape(raw[close + 4 : -1])
                if datatype not in decision.IDENTIFIER_DATATYPE_IRIS:  # decision.is_identifier_literal
                    return None
            text, is_literal = _unescape(raw[1:close]) if escaped else raw[1:close], True
        else:
            return None  # a blank node
        if bare_predicate is None:
            found = self._decide(text, is_literal, None, None, self._config, linkable)
        else:
            predicate = _unescape(bare_predicate[1:-1])
            namespace = self.namespace_of(subject) if predicate in self._bare_pid_predicates else None
            found = self._decide(text, is_literal, predicate, namespace, self._config, linkable)
        if found is None:
            return None
        action, scheme, canonical_text, reason, problems, links = found
        if action == "leave":
            return self._left[reason]  # type: ignore[index]
        if action == "invalid":
            return (None, True, scheme, problems, _text_of(raw))  # type: ignore[return-value]
        becomes_iri = is_literal and self._literals_to_iris
        if canonical_text is None:  # already canonical
            if not links and not becomes_iri:
                return self._unchanged[scheme]  # type: ignore[index]  # written once, met often
            canonical_text = text
        canonical_iri = iri(canonical_text)
        for source, target in links:
            # The form it was written in: an IRI without escapes is already as iri() writes it.
            written = raw if target == text and first == "<" and not escaped else iri(target)
            self.new_links.append(
                f"{canonical_iri if source == canonical_text else iri(source)} {_SAME_AS} {written} ."
            )
        if action == "canonical" and not becomes_iri:
            return self._unchanged[scheme]  # type: ignore[index]
        new_raw = canonical_iri if becomes_iri or not is_literal else literal(canonical_text, None, datatype)
        return self._scheme_byte[scheme] + new_raw.encode()  # type: ignore[index]

    def namespace_of(self, subject: str | None) -> str | None:
        """The PID namespace a raw subject carries (decision.subject_namespace), remembered."""
        if subject is None or subject[0] != "<":
            return None
        namespaces = self._namespaces
        found = namespaces.get(subject, _UNKNOWN)
        if found is _UNKNOWN:
            if len(namespaces) >= self.settings.identifier_cache:
                evict_oldest_half(namespaces)
            found = namespaces[subject] = decision.subject_namespace(_unescape(subject[1:-1]), self._config)
        return found  # type: ignore[return-value]

    def take_links(self) -> list[str]:
        """The links of the terms decided since the last call."""
        links, self.new_links = self.new_links, []
        return links


def _encoded(texts: list[str]) -> tuple[bytes, ...]:
    return tuple(text.encode() for text in texts)


def _text_of(raw: str) -> str:
    """The text of a raw term: an IRI or a literal's lexical form (as str() of an rdflib term)."""
    return str(_parse_term(raw))


# One worker per thread (Dask runs several tasks in one process): a worker's memo and the
# links it has yet to report belong to the blocks its own thread processes.
_WORKERS = threading.local()

# Tables of decisions shared by a run's worker processes, by run (see shared_decisions).
_SHARED: dict[str, SharedDecisions] = {}


@contextlib.contextmanager
def shared_decisions(settings: Settings) -> Iterator[bool]:
    """While it lasts, processes forked from this one share the decisions of the run
    ``settings.run`` (a table of ``settings.identifier_cache`` entries in shared memory):
    a term one of them decided, the others find, rather than each deciding it again. The
    process that decides reports the term's links. Yields whether decisions are shared:
    only where the compiled loop runs and the workers fork (Linux)."""
    table = None
    if _scan is not None and not os.environ.get("LDIDS_PURE_PYTHON"):
        try:
            # The table's size is a bound on its memory: pages are taken as entries come.
            entries = max(1, min(settings.identifier_cache, 1 << 24))
            table = _scan.SharedDecisions(settings.config.registry.names, entries)
        except (NotImplementedError, OSError):  # not Linux, or no shared memory to be had
            table = None
    if table is not None:
        _SHARED[settings.run] = table
    try:
        yield table is not None
    finally:
        _SHARED.pop(settings.run, None)


def _worker_for(settings: Settings) -> _Worker:
    worker: _Worker | None = getattr(_WORKERS, "worker", None)
    if worker is None or worker.settings != settings:
        worker = _WORKERS.worker = _Worker(settings)
    return worker


def process_block(
    data: BytesLike, first_line: int, settings: Settings, *, into: bytearray | None = None
) -> BlockResult:
    """Normalize one block of whole lines (any bytes-like object); ``first_line`` is the
    1-based number of its first.

    The output is a new bytes object, or, given ``into``, that bytearray (its contents
    replaced): a caller that writes each block's output before the next is made hands in
    one buffer again and again, rather than have megabytes of fresh memory taken per block.

    With ``on_error="stop"`` the first bad line ends the block (it is the only entry of
    ``bad``); with ``"skip"`` every bad line is listed and left out of the output.

    ``links`` holds the owl:sameAs links of the terms this process (thread) decided while
    processing the block: a term met again later in the same run (``settings.run``) is
    remembered, and its links are not listed again. The union over a run's blocks is
    every link the run calls for; a term forgotten and decided again lists them again.

    The per-line loop runs compiled (``ldids.dumps._scan``) where that extension was built, and
    in Python otherwise (or with ``LDIDS_PURE_PYTHON=1``): the same bytes either way.
    """
    worker = _worker_for(settings)
    # The memo's entries are bytes and tuples of strings: nothing for the cycle collector
    # to find, but enough allocations to trigger it over and over (5% of a run).
    collecting = gc.isenabled()
    gc.disable()
    try:
        if _scan is not None and not os.environ.get("LDIDS_PURE_PYTHON"):
            return _compiled(worker, data, first_line, into)
        result = _in_python(worker, data, first_line)
        if into is not None:
            into[:] = result.output
            result.output = into
        return result
    finally:
        if collecting:
            gc.enable()


def _bad_line(result: BlockResult, number: int, body: str, quads: bool) -> None:
    column, message = _why_bad(body, quads)
    text = body.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    result.bad.append(BadLine(number, column, message, text))


def _in_python(worker: _Worker, data: BytesLike, first_line: int) -> BlockResult:
    """The reference implementation of the per-line loop."""
    settings = worker.settings
    result = BlockResult()
    undecodable = False
    try:
        text = str(data, "utf-8")  # data may be any bytes-like object (a worker's buffer)
    except UnicodeDecodeError:
        # Bytes that are not UTF-8 become lone surrogates, found line by line below, so
        # that bad lines are reported in order whatever is wrong with them.
        text = str(data, "utf-8", "surrogateescape")
        undecodable = True
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: list[str] = []
    statement_match = grammar().statement.fullmatch
    is_candidate = worker.is_candidate
    quads = settings.quads
    for offset, line in enumerate(lines):
        result.lines += 1
        body = line[:-1] if line.endswith("\r") else line
        not_utf8 = undecodable and _UNDECODED.search(body) is not None
        match = None if not_utf8 else statement_match(body)
        if match is None or (match.group(4) is not None and not quads):
            if match is None and not not_utf8 and _NOTHING.fullmatch(body):
                out.append(line)
                continue
            _bad_line(result, first_line + offset, body, quads)
            if settings.on_error == "stop":
                break
            continue
        result.statements += 1
        if not is_candidate(body):
            out.append(line)
            continue
        new_line = _statement(worker, list(match.group(1, 2, 3, 4)), first_line + offset, result)
        out.append(line if new_line is None else new_line)
    result.written = len(out)
    result.output = ("\n".join(out) + "\n").encode("utf-8", "surrogateescape") if out else b""
    result.links.extend(worker.take_links())
    return result


def _statement(worker: _Worker, pieces: list[str | None], number: int, result: BlockResult) -> str | None:
    """One statement in which an identifier may occur; its new line, or None if unchanged."""
    predicate = pieces[1]
    assert predicate is not None
    if predicate == _SAME_AS or predicate in worker.identity_predicates or worker.settings.crosswalk:
        return _whole_statement(worker, pieces, number, result)
    return _term_by_term(worker, pieces, number, result)


def _compiled(worker: _Worker, data: BytesLike, first_line: int, into: bytearray | None = None) -> BlockResult:
    """The per-line loop in C: Python runs only for terms never seen before (``decide``),
    for lines the passes must see whole (``slow``) and for malformed lines (``bad``)."""
    assert _scan is not None
    settings = worker.settings
    result = BlockResult()
    samples: list[tuple[int, str]] = []  # from slow(), and from the compiled loop

    def slow(index: int, body: bytes) -> bytes | None:
        text = body.decode("utf-8")
        match = grammar().statement.fullmatch(text)
        assert match is not None  # the C grammar accepted it; tests/test_scan.py holds them equal
        before = len(result.problem_samples)
        new_line = _statement(worker, list(match.group(1, 2, 3, 4)), first_line + index, result)
        samples.extend(result.problem_samples[before:])
        del result.problem_samples[before:]
        return None if new_line is None else new_line.encode("utf-8")

    def bad(index: int, body: bytes) -> None:
        _bad_line(result, first_line + index, body.decode("utf-8", "surrogateescape"), settings.quads)

    output, lines, written, statements, rewritten_statements, counts, invalid = _scan.scan_block(
        data, worker.tables, slow, bad, into
    )
    result.output, result.lines, result.written = output, lines, written
    result.statements += statements
    result.rewritten_statements += rewritten_statements
    for key, count in counts.items():
        if isinstance(key, tuple):  # ("left", reason)
            result.left[key[1]] += count
        else:
            result.rewritten[key] += count
    result.links.extend(worker.take_links())
    for index, (_, _, scheme, problems, text) in invalid:
        result.problems += 1
        result.invalid[scheme] += 1
        samples.append(_sample(first_line + index, scheme, text, problems))
    # Problems in line order, as the Python loop reports them (sorted is stable).
    samples.sort(key=lambda sample: sample[0])
    result.problem_samples = samples[:20]
    return result


def _line(pieces: list[str | None]) -> str:
    graph = pieces[3]
    return f"{pieces[0]} {pieces[1]} {pieces[2]}{'' if graph is None else ' ' + graph} ."


def _sample(number: int, scheme: str, text: str, problems: tuple[Problem, ...]) -> tuple[int, str]:
    return number, f"invalid {scheme} identifier {text!r} [{problems[0].code}]"


def _problem(result: BlockResult, number: int, scheme: str, text: str, problems: tuple[Problem, ...]) -> None:
    result.problems += 1
    result.invalid[scheme] += 1
    if len(result.problem_samples) < 20:
        result.problem_samples.append(_sample(number, scheme, text, problems))


def _term_by_term(worker: _Worker, pieces: list[str | None], number: int, result: BlockResult) -> str | None:
    """The common case, from memoized per-term decisions; None if the line is unchanged."""
    predicate = pieces[1]
    assert predicate is not None
    positions = (0, 1, 2, 3) if worker.settings.config.rewrite_predicates else (0, 2, 3)
    changed = False
    for index in positions:
        raw = pieces[index]
        if raw is None or not worker.might_be_identifier(raw, predicate):
            continue
        new_raw, scheme, problems = worker.entry(raw, predicate, index in (0, 2), pieces[0] or "")
        if scheme is None:
            continue
        if isinstance(scheme, tuple):  # left alone, for a reason
            result.left[scheme[1]] += 1
            continue
        if problems is not None:
            _problem(result, number, scheme, _text_of(raw), problems)
            continue
        if new_raw is not None:
            pieces[index] = new_raw
            result.rewritten[scheme] += 1
            changed = True
    if not changed:
        return None
    result.rewritten_statements += 1
    return _line(pieces)


def _whole_statement(worker: _Worker, pieces: list[str | None], number: int, result: BlockResult) -> str | None:
    """owl:sameAs and identity-predicate lines, or with a crosswalk to record: the passes on
    the whole statement. Unchanged terms keep their raw text, as on the common path."""
    from ldids.passes import graph as passes

    settings = worker.settings
    quad: Quad = tuple(None if raw is None else worker.term(raw) for raw in pieces)  # type: ignore[assignment]
    step = passes.rewrite_quad(quad, worker.identifiers)
    for finding in step.findings:
        _problem(result, number, finding.scheme, str(finding.term), finding.problems)
    result.left.update(step.left)
    if quad[1] == passes.SAME_AS and step.after[3] is None:
        result.same_as.append(quad_line(step.after))
    # A link's crosswalk row is made where it is written (dumps.run), once it is known
    # not to be in the data already.
    result.links.extend(quad_line(link) for link in passes.links(step, settings.config))
    if not step.rewrites:
        return None
    result.rewritten_statements += 1
    for index, (before, after) in enumerate(zip(step.before, step.after, strict=True)):
        if before is not after and after is not None:
            pieces[index] = term(after)
    new_line = _line(pieces)
    for change in step.rewrites:
        result.rewritten[change.scheme] += 1
        if settings.crosswalk:
            result.crosswalk.append(passes.Crosswalk.of_rewrite(change, rewritten=new_line))
    return new_line
