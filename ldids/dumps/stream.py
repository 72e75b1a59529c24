"""N-Triples and N-Quads dumps as streams: constant memory, every core, the same passes.

A dump is cut into blocks of whole lines; :func:`process_block` turns one block into its
output and side results, and runs unchanged in this process, in worker processes, or on
Dask workers, so every way of running gives the same bytes.

Inside a block each line (ended by LF, CR LF or CR) is checked against the
N-Triples/N-Quads statement grammar (RDF 1.1 N-Triples §7, N-Quads §7), its IRIs against
RFC 3987 and its language tags against BCP 47: a line is a statement exactly when
pyoxigraph reads it as one (:mod:`ldids.dumps.grammar`). Most lines of a dump hold no identifier: a line in
which no identifier prefix occurs (in any ASCII case) is copied as it came. In the others,
each term that may be an identifier is decided on its text by the passes' own functions
(:mod:`ldids.passes.decision`), once per run and process, and the line is rewritten term by
term from the remembered decisions; an unchanged line is copied as it came. A statement
of an identity predicate (Fedora's OAI itemID) is too, and the link from its subject to its
object is read from its raw terms. Lines the passes must see whole (owl:sameAs statements,
or every line when a crosswalk is kept) go through :func:`ldids.passes.graph.rewrite_quad`
and :func:`ldids.passes.graph.links` on rdflib terms.

The per-line loop is compiled (``ldids/dumps/_scan.c``); the loop here in Python is its
reference, and tests/test_scan.py holds the two equal. The decisions a process remembers,
in :mod:`ldids.dumps.worker`; the settings of a run, in :mod:`ldids.dumps.settings`; the
grammar's regexes, and what they say of a bad line, in :mod:`ldids.dumps.grammar`; the
cutting of a dump into blocks, in :mod:`ldids.dumps.blocks`; the de-duplication of the
links and crosswalk rows of a run's blocks, in :mod:`ldids.dumps.sorting`.
"""

from __future__ import annotations

import gc
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ldids.dumps.grammar import _NOTHING, _UNDECODED, _why_bad, compact_literal, grammar, well_formed
from ldids.dumps.settings import Settings, new_run
from ldids.dumps.worker import _SAME_AS, COMPILED, _scan, _text_of, _Worker, _worker_for, shared_decisions
from ldids.errors import Problem
from ldids.ntriples import Quad, quad_line, term

if TYPE_CHECKING:
    from ldids.passes import graph as passes

# rdflib and the graph passes are imported where the rare lines that need RDF terms are
# handled (owl:sameAs statements, crosswalks, problem texts), not here: a dump
# of ordinary lines never builds a term, and never pays ~0.2 s to import them.


__all__ = [
    "COMPILED",
    "BadLine",
    "BlockResult",
    "Settings",
    "new_run",
    "process_block",
    "process_block_in",
    "shared_decisions",
]

# -- One block ---------------------------------------------------------------------------------


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
    #: With a crosswalk: the statements that could have been rewritten and were left as they
    #: were, written as a rewritten one is (a crosswalk row's ``kept``: the statement it
    #: became was in the input too).
    unchanged: list[str] = field(default_factory=list)
    problems: int = 0
    invalid: Counter[str] = field(default_factory=Counter)  # invalid identifiers, by scheme
    # (line number, what is wrong) of the first 20 invalid identifiers, in line order.
    problem_samples: list[tuple[int, str]] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    #: With ``Settings.validate``: the output's statements checked, and the rows of what the
    #: shipped shapes' checks found in them (ldids.dumps.validation), lines local to the output.
    checked: int = 0
    findings: list[tuple[Any, ...]] = field(default_factory=list)
    #: Their digests (ldids.dumps.validation._digests), or None where this process cannot
    #: make them as the coordinator would.
    digests: list[int] | None = None


#: What a block may be given as: bytes, or a view of a buffer the caller reads into again.
BytesLike = bytes | bytearray | memoryview


def process_block(
    data: BytesLike, first_line: int, settings: Settings, *, into: bytearray | None = None
) -> BlockResult:
    """Normalize one block of whole lines (any bytes-like object); ``first_line`` is the
    1-based number of its first.

    The output is a new bytes object, or, given ``into``, that bytearray (its contents
    replaced): a caller that writes each block's output before the next is made hands in
    one buffer again and again, rather than have megabytes of fresh memory taken per block
    (:func:`process_block_in` writes it into memory the caller holds).

    With ``on_error="stop"`` the first bad line ends the block (it is the only entry of
    ``bad``); with ``"skip"`` every bad line is listed and left out of the output.

    ``links`` holds the owl:sameAs links of the terms this process (thread) decided while
    processing the block: a term met again later in the same run (``settings.run``) is
    remembered, and its links are not listed again. The union over a run's blocks is
    every link the run calls for; a term forgotten and decided again lists them again.

    The per-line loop runs compiled (``ldids.dumps._scan``) where that extension was built, and
    in Python otherwise (or with ``LDIDS_PURE_PYTHON=1``): the same bytes either way.
    """
    return _process(data, first_line, settings, into)[0]


def process_block_in(
    data: BytesLike, first_line: int, settings: Settings, slot: memoryview
) -> tuple[BlockResult, memoryview | None]:
    """:func:`process_block` with the output written at the start of ``slot`` (writable
    memory: a worker's slot, shared with the coordinator, which writes the output from
    there) where it fits: the result (its ``output`` empty) and a view of the output in
    the slot, the caller's to release. Where it does not fit, the result with its output,
    and None."""
    return _process(data, first_line, settings, slot)


def _process(
    data: BytesLike, first_line: int, settings: Settings, into: bytearray | memoryview | None
) -> tuple[BlockResult, memoryview | None]:
    worker = _worker_for(settings)
    # The memo's entries are bytes and tuples of strings: nothing for the cycle collector
    # to find, but enough allocations to trigger it over and over (5% of a run).
    collecting = gc.isenabled()
    gc.disable()
    try:
        placed: memoryview | None = None
        if _scan is not None and not os.environ.get("LDIDS_PURE_PYTHON"):
            result, placed = _scanned(worker, data, first_line, into)
        else:
            result = _in_python(worker, data, first_line)
            if isinstance(into, memoryview):
                if len(result.output) <= len(into):
                    into[: len(result.output)] = result.output
                    placed, result.output = into[: len(result.output)], b""
            elif into is not None:
                into[:] = result.output
                result.output = into
        if settings.validate:
            from ldids.dumps.validation import check_output

            result.checked, result.findings, result.digests = check_output(result.output if placed is None else placed)
        return result, placed
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
    out: list[str] = []
    common_match, statement_match = grammar().common.fullmatch, grammar().statement.fullmatch
    is_candidate = worker.is_candidate
    quads = settings.quads
    for offset, (body, end) in enumerate(_lines(text)):
        result.lines += 1
        match = common_match(body)  # most lines: terms known good at a glance
        if match is None:
            match = statement_match(body)
            if match is not None and not well_formed(match):
                match = None  # a term RDF 1.1 does not allow
        if match is not None and undecodable and _UNDECODED.search(body, 0, _comment_start(match)) is not None:
            match = None  # not UTF-8 (but in a comment)
        if match is None or (match.group(4) is not None and not quads):
            if match is None and _NOTHING.fullmatch(body):
                out.append(body + end)
                continue
            _bad_line(result, first_line + offset, body, quads)
            if settings.on_error == "stop":
                break
            continue
        result.statements += 1
        if not is_candidate(body):
            out.append(body + end)
            continue
        new_line = _statement(worker, _pieces(match), first_line + offset, result)
        out.append(body + end if new_line is None else new_line + "\n")
    result.written = len(out)
    result.output = "".join(out).encode("utf-8", "surrogateescape")
    result.links.extend(worker.take_links())
    return result


_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n)?")


def _lines(text: str) -> list[tuple[str, str]]:
    """Each line and the line break that ends it: CR, LF or CR LF (N-Triples and N-Quads
    §7, EOL). A last line without one is written with LF."""
    if "\r" not in text:
        lines = text.split("\n")
        last = lines.pop()
        return [(line, "\n") for line in lines] + ([(last, "\n")] if last else [])
    return [(found.group(1), found.group(2) or "\n") for found in _LINE.finditer(text) if found.group()]


def _comment_start(match: re.Match[str]) -> int:
    """Where the comment after a statement starts (its end if there is none): what a comment
    holds need not even be UTF-8, as for pyoxigraph."""
    start = match.start(5)
    return match.end() if start < 0 else start


def _pieces(match: re.Match[str]) -> list[str | None]:
    """A statement's four raw terms (None: no graph name), its literal written compactly."""
    pieces: list[str | None] = list(match.group(1, 2, 3, 4))
    pieces[2] = compact_literal(match.group(3))
    return pieces


def _statement(worker: _Worker, pieces: list[str | None], number: int, result: BlockResult) -> str | None:
    """One statement in which an identifier may occur; its new line, or None if unchanged."""
    predicate = pieces[1]
    assert predicate is not None
    if predicate == _SAME_AS or worker.settings.crosswalk:
        return _whole_statement(worker, pieces, number, result)
    if predicate in worker.identity_predicates:
        return _identity_statement(worker, pieces, number, result)
    return _term_by_term(worker, pieces, number, result)


def _identity_statement(worker: _Worker, pieces: list[str | None], number: int, result: BlockResult) -> str | None:
    """A statement of an identity predicate (Fedora's OAI itemID): term by term like any
    other, then the link from subject to object it calls for (ldids.passes.graph.links),
    read from its raw terms as rewritten. No RDF term is built (the compiled loop does the
    same, ``ScanTables.identity``)."""
    new_line = _term_by_term(worker, pieces, number, result)
    subject, predicate, object_ = pieces[0], pieces[1], pieces[2]
    assert subject is not None
    assert predicate is not None
    assert object_ is not None
    link = worker.identity_link(subject, predicate, object_)
    if link is not None:
        result.links.append(link)
    return new_line


def _compiled(worker: _Worker, data: BytesLike, first_line: int, into: bytearray | None = None) -> BlockResult:
    """The per-line loop in C: Python runs only for terms never seen before (``decide``),
    for lines the passes must see whole (``slow``) and for malformed lines (``bad``)."""
    return _scanned(worker, data, first_line, into)[0]


def _scanned(
    worker: _Worker, data: BytesLike, first_line: int, into: bytearray | memoryview | None
) -> tuple[BlockResult, memoryview | None]:
    """:func:`_compiled`, its output in the result or, where it was written into the view
    ``into``, a view of it (the result's output empty)."""
    assert _scan is not None
    settings = worker.settings
    result = BlockResult()
    samples: list[tuple[int, str]] = []  # from slow(), and from the compiled loop

    def slow(index: int, body: bytes) -> bytes | None:
        text = body.decode("utf-8", "surrogateescape")  # a comment need not be UTF-8
        match = grammar().statement.fullmatch(text)
        assert match is not None  # the C grammar accepted it; tests/test_scan.py holds them equal
        before = len(result.problem_samples)
        new_line = _statement(worker, _pieces(match), first_line + index, result)
        samples.extend(result.problem_samples[before:])
        del result.problem_samples[before:]
        return None if new_line is None else new_line.encode("utf-8")

    def bad(index: int, body: bytes) -> None:
        _bad_line(result, first_line + index, body.decode("utf-8", "surrogateescape"), settings.quads)

    output, lines, written, statements, rewritten_statements, counts, invalid = _scan.scan_block(
        data, worker.tables, slow, bad, into
    )
    placed = output if isinstance(output, memoryview) else None
    result.output, result.lines, result.written = b"" if placed is not None else output, lines, written
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
    return result, placed


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
    """owl:sameAs lines, or any with a crosswalk to record: the passes on
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
        if settings.crosswalk:
            result.unchanged.append(_line(pieces))
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
