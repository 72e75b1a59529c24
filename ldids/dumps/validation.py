"""The shipped shapes (or any streamable ones) checked while a dump streams by.

N-Triples and N-Quads are read in blocks of whole lines, on 1..N processes, as
:mod:`ldids.dumps.run` reads them; each statement is handed to the checks
:func:`ldids.shacl.streamed.plan` derived from the shapes, and each result says the file and
line of the statement that gave it. Turtle, TriG and RDF/XML are parsed as they are read
and handed on as N-Quads lines (:mod:`ldids.dumps.rdf_stream`, as ``ldids normalize`` reads
them); their results say the file and no line, as pyoxigraph's parsers tell none per
statement. Memory stays bounded: a few blocks in flight, at most ``max_results`` results
kept (the first in the report's order; the count per shape goes on), and a bounded table of
the results seen, as SHACL reports a result once however many statements give it
(:mod:`ldids.dumps.results`).
"""

from __future__ import annotations

import bisect
import contextlib
import ctypes
import functools
import gc
import itertools
import multiprocessing
import os
import re
import signal
import sys
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from multiprocessing.pool import AsyncResult, Pool
from operator import itemgetter
from types import ModuleType
from typing import TYPE_CHECKING, cast

import pyoxigraph as ox
from rdflib import Graph
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.dumps.blocks import blocks, line_breaks
from ldids.dumps.pieces import Pieces
from ldids.dumps.rdf_stream import Parsed
from ldids.dumps.results import LEAST, Kept, Key, Seen
from ldids.dumps.signals import held, let_through
from ldids.errors import InputError, check_stop
from ldids.rdf.compression import compression_of
from ldids.rdf.files import open_input
from ldids.shacl.prefilter import Prefilter, prefilter
from ldids.shacl.streamed import MEMO_LIMIT, Finding, Plan, plan
from ldids.shacl.validate import Verdict, Violation
from ldids.shacl.value import Term, to_rdflib

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = ["Streamed", "check_output", "check_statements", "shipped_checks", "validate_dump"]

#: What a block may be given as.
BytesLike = bytes | bytearray | memoryview

_scan: ModuleType | None
try:
    from ldids.dumps import _scan
except ImportError:  # built without a C compiler: every statement is parsed
    _scan = None

_PLAN: Plan | None = None

# A finding as it crosses processes: (line, focus, path, value, shape, component, message,
# severity, graph), the focus, value and graph as N-Triples text: a string is pickled ten
# times faster than an rdflib or pyoxigraph term, and most results are counted, not listed.
_Row = tuple[int, str, "Node | None", str, Node, URIRef, str, URIRef, "str | None"]
_SHAPE = itemgetter(4)
_LINE = itemgetter(0)


def check_statements(
    checks: Plan, data: BytesLike, first_line: int, *, written: bool = False
) -> tuple[int, list[_Row]]:
    """The statements of a block of whole N-Triples/N-Quads lines, and what the checks found
    in them, each with its line.

    Compiled (``ldids/dumps/_scan.c``, ``select_lines``), the lines are first checked against
    the grammar and those the checks cannot select from are passed over
    (:mod:`ldids.shacl.prefilter`); the results of a group whose rules select a term as it
    is and test its text (the canonical-form and syntax shapes: ``_Group.rows``) are made
    there too, from the automata of each check, where the term is an IRI or a string or
    xsd:anyURI literal written without an escape; the other lines are parsed. In Python
    otherwise (or with ``LDIDS_PURE_PYTHON=1``), every statement is parsed and checked. The
    same results either way, the first line of each result in this process included.

    This is the per-block entry point: a process that writes N-Triples a block at a time (a
    normalize worker, on its own output) checks each block as it goes with the plan it was
    forked with (``checks = plan(shapes)`` once, before the workers start). What a process
    remembers (the keys its groups have seen, bounded) lives as long as ``checks``; results
    are rows ``(line, focus, path, value, shape, component, message, severity, graph)``
    with the terms as N-Triples text. A result given before in this process is seldom given
    again (the keys are remembered in bounded memos), never reliably: rows from one process
    or several are merged with a de-duplication, as ``validate_dump`` merges them (one
    digest per result).

    ``written``: the block is what ``ldids normalize`` wrote (:func:`check_output`), every
    statement of which passed the grammar already (its input lines in ``scan_block``, the
    terms it wrote in their place made by it): the compiled loop only tells their terms
    apart, and looks at a line with the whole grammar only if that fails."""
    count, rows, _ = _check(checks, data, first_line, written=written)
    return count, rows


#: What a block's check gives: its statements, its rows, and their digests (:func:`_digests`).
_Rows = tuple[int, list[_Row], "list[int] | None"]


def _check(
    checks: Plan,
    data: BytesLike,
    first_line: int,
    *,
    written: bool = False,
    hashed: bool = False,
    triples: bool = False,
) -> _Rows:
    """:func:`check_statements`, with the rows' digests where ``hashed`` (else None); ``triples``:
    the lines are N-Triples (a line with a graph term is no statement), else N-Quads."""
    if _scan is None or os.environ.get("LDIDS_PURE_PYTHON"):
        count, rows = _checked(checks, bytes(data), lambda: _statement_lines(data, first_line), triples=triples)
        return count, rows, _digests(rows) if hashed else None
    sieve, memo, classes = _selection(checks)
    statements, selected, indexes, masks, found, made = _scan.select_lines(
        data,
        sieve.groups,
        sieve.any_escape,
        memo,
        MEMO_LIMIT,
        classes,
        sieve.probes,
        sieve.written_class if sieve.tests else None,
        written,
        sieve.made,
        first_line,
        hashed,
        triples,
    )
    numbers = [first_line + index for index in indexes]

    def predicate(term: Term) -> None:
        if sieve.tests and len(classes) < MEMO_LIMIT:
            raw, found = sieve.predicate_class(term)
            classes[raw] = found

    # The selected lines end with an LF each (the last too: split gives one more, empty).
    count, rows = _checked(
        checks, selected, lambda: list(zip(numbers, selected.split(b"\n"), strict=False)), predicate, masks, triples
    )
    if count != len(numbers):
        # A line the grammar refused that the parser reads as no statement: line by line.
        rows = []
        for number, line in zip(numbers, selected.split(b"\n"), strict=False):
            rows += _checked(checks, line, lambda number=number, line=line: [(number, line)], triples=triples)[1]  # type: ignore[misc]
    # The rows select_lines made itself (_Group.rows) and their digests (Python makes those of
    # a focus that is an xsd:anyURI literal: rdflib's form of it), then those of the
    # statements parsed; in the order of the lines (a stable sort: the order within a line
    # tells no result from another).
    every = found + rows
    digests = None
    if hashed:
        digests = (
            [_digests([row])[0] if digest is None else digest for row, digest in zip(found, made, strict=True)]
            if None in made
            else made
        )
        digests += _digests(rows)
    if found and rows:
        order = sorted(range(len(every)), key=lambda index: every[index][0])
        every = [every[index] for index in order]
        digests = None if digests is None else [digests[index] for index in order]
    return statements, every, digests


#: Per plan (one or two in a process): what select_lines needs, the keys the groups saw and
#: the classes of the predicates seen.
_SELECTIONS: dict[int, tuple[Plan, Prefilter, dict[bytes, None], dict[bytes, bytes]]] = {}


def _selection(checks: Plan) -> tuple[Prefilter, dict[bytes, None], dict[bytes, bytes]]:
    found = _SELECTIONS.get(id(checks))
    if found is None or found[0] is not checks:
        found = _SELECTIONS[id(checks)] = (checks, prefilter(checks), {}, {})
    return found[1], found[2], found[3]


def _checked(
    checks: Plan,
    data: bytes,
    lines: Callable[[], list[tuple[int, bytes]]],
    new_predicate: Callable[[Term], None] | None = None,
    groups: list[int] | None = None,
    triples: bool = False,
) -> tuple[int, list[_Row]]:
    """The statements of ``data`` checked one by one; ``lines()`` numbers them (and gives
    each one's line), ``new_predicate`` is told of each predicate the first time it comes,
    and ``groups`` says, per statement, which groups check it (those with a new key in it:
    select_lines)."""
    found: list[tuple[int, Finding, str | None]] = []
    count = 0
    check = checks.check
    predicates: set[Term] = set()
    try:
        for count, quad in enumerate(ox.parse(data, ox.RdfFormat.N_TRIPLES if triples else ox.RdfFormat.N_QUADS), 1):
            if new_predicate is not None and quad.predicate not in predicates:
                predicates.add(quad.predicate)
                new_predicate(quad.predicate)
            mask = groups[count - 1] if groups is not None and count <= len(groups) else -1
            results = check((quad.subject, quad.predicate, quad.object), mask)
            if results:
                graph = quad.graph_name
                for result in results:
                    found.append((count, result, None if isinstance(graph, ox.DefaultGraph) else str(graph)))
    except SyntaxError as error:
        raise _not_a_statement(error, lines(), count, triples) from error
    if not found:
        return count, []
    # Line numbers only where something was found: most blocks have nothing to report.
    numbers = [number for number, _ in lines()]
    return count, [
        (
            numbers[index - 1],
            text,
            path,
            text if value is focus else str(value),
            shape,
            component,
            message,
            severity,
            graph,
        )
        for index, (focus, path, value, shape, component, message, severity), graph in found
        for text in (str(focus),)
    ]


def _statement_lines(data: BytesLike, first_line: int) -> list[tuple[int, bytes]]:
    """The line number and the line of each statement of a block (blank and comment lines
    hold none). A line ends at LF, CR LF or CR alone (N-Triples §7, EOL), and is numbered as
    select_lines and the blocks number it (:func:`ldids.dumps.blocks.line_breaks`)."""
    return [
        (first_line + i, line)
        for i, line in enumerate(_LINE_BREAK.split(bytes(data)))
        if line.strip()[:1] not in (b"", b"#")
    ]


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


def _not_a_statement(error: SyntaxError, lines: list[tuple[int, bytes]], count: int, triples: bool) -> InputError:
    """The error of the statement after the ``count`` the parser read: its line, and the
    column and reason ldids' grammar gives (as ``ldids normalize`` reports a bad line), not
    the parser's place in the lines it was given (a block, or the lines select_lines picked
    from it); the parser's words where the grammar finds nothing wrong."""
    from ldids.dumps.grammar import _why_bad

    syntax = "N-Triples" if triples else "N-Quads"
    if not lines:
        return InputError(f"not an {syntax} statement: {error}")
    line, text = lines[min(count, len(lines) - 1)]
    column, why = _why_bad(text.decode("utf-8", "surrogateescape"), not triples)
    if why == "not a statement":
        return InputError(f"not an {syntax} statement: {error}", line=line)
    return InputError(f"not an {syntax} statement: {why}", line=line, column=column)


#: What a block's check gives: its statements, its rows and their digests, its lines, and
#: each row's shape where rows the report turns away were left out (None in their place).
_Checked = tuple[int, "list[_Row | None]", "list[int] | None", int, "list[Node] | None"]


def _check_block(
    data: BytesLike, name: str = "", bar: Key | None = None, lines: int | None = None, triples: bool = False
) -> _Checked:
    """A block checked in a worker. The rows of the results that the report of the file
    ``name`` turns away once it holds what it lists (:attr:`Streamed.bar`, read when the task
    was given: it only comes down) do not cross the pipe: their digests and shapes count them.
    (Pickling every row of a dump with a result on every tenth line was a quarter of a
    worker's time.) ``lines``: the block's lines, where the caller counted them; ``triples``:
    they are N-Triples."""
    assert _PLAN is not None
    count, rows, made = _check(_PLAN, data, 1, hashed=_SAME_KEY, triples=triples)
    if lines is None:
        lines = line_breaks(bytes(data))
    if bar is None or made is None or not rows:  # spawned: the rows are hashed where added
        return count, cast("list[_Row | None]", rows), made, lines, None
    shapes = list(map(_SHAPE, rows))
    if bar == LEAST:
        return count, [None] * len(rows), made, lines, shapes
    # A row's line here is counted from the block's first: no greater than in the file, so
    # its key is no greater than there, and a row turned away here is turned away there. The
    # key's head (shape, file) is compared once a shape: its line and focus only where the
    # head is the bar's.
    head, tail = bar[:2], bar[2:]
    distinct = dict(zip(map(id, shapes), shapes, strict=True))
    side = {at: (head < key) - (key < head) for at, shape in distinct.items() for key in ((_shown(shape), name),)}
    # Where no shape comes before the bar's, a row past the bar's line is turned away: the
    # rows are in the order of their lines, and only those up to it are looked at.
    cut = len(rows) if min(side.values()) < 0 else bisect.bisect_right(rows, tail[0], key=_LINE)
    listed = [
        None if (after := side[id(row[4])]) > 0 or (after == 0 and (row[0], row[1]) >= tail) else row
        for row in itertools.islice(rows, cut)
    ]
    listed += itertools.repeat(None, len(rows) - cut)
    return count, listed, made, lines, shapes


def _check_range(
    path: str, start: int, stop: int, name: str = "", bar: Key | None = None, triples: bool = False
) -> _Checked:
    """The lines of ``path`` that start in bytes [start, stop) checked (ldids.dumps.serve
    reads a chunk of normalize's so): no block crosses a pipe, only the rows found."""
    from ldids.dumps.serve import _BUFFERS, _read_range

    buffer = _BUFFERS.chunk
    with _read_range(path, start, stop, buffer) as data:
        # Counted in the buffer the range was read into, from its start: not in a copy.
        return _check_block(data, name, bar, line_breaks(buffer, len(data)), triples)


#: Does ``hash()`` give what it gives in the process that adds the rows up? In that process,
#: and in the workers it forked (they have its key: the interpreter draws it once, at start);
#: not in a worker started afresh (spawned: macOS, Windows). Where it does, a row's digest
#: is made beside the row, on every core, not one after the other in the process that adds
#: them up (a dump of many results kept it busy while the workers waited); else that
#: process makes them (:meth:`Streamed.add`).
_SAME_KEY = True


def _digests(rows: Sequence[_Row]) -> list[int]:
    """What tells each result from another, as SHACL's results graph does, in 64 bits (the
    set of those seen is the largest store of a run: a tuple of its terms takes some 300):
    Python's hash of the tuple of the terms in N-Triples, with rdflib's form of a literal of
    a datatype rdflib gives one form of each value ("01" and "1" as xsd:integer are one
    node for pyshacl). Two results share a digest with a chance of about 2**-64 each pair
    remembered together (:class:`Seen`).

    ``hash()`` of a string is SipHash, keyed per process: a digest is the same in this
    process and in the workers it forked (:data:`_SAME_KEY`); a BLAKE2b digest (encoded first)
    took some five times as long, for the 64 bits kept. The shapes graph's terms of a row
    (path, shape, component: the same objects on every row of a rule) are written once a
    call, and a string keeps its hash: only the focus and value are hashed anew."""
    found: list[int] = []
    written: dict[tuple[int, int, int], tuple[str, str, str]] = {}
    for _, focus, path, value, shape, component, _, _, graph in rows:
        what = written.get((id(path), id(shape), id(component)))
        if what is None:  # the nodes live as long as the rows: their ids are theirs
            what = written[id(path), id(shape), id(component)] = (_n3(path), _n3(shape), _n3(component))
        canonical = _canonical(focus)
        value_text = canonical if value is focus else _canonical(value)
        found.append(hash((canonical, what[0], value_text, what[1], what[2], graph)))
    return found


def _start_worker(shapes: str) -> None:
    global _PLAN, _SAME_KEY
    # The pool ends its workers with SIGTERM once the run is over: a forked worker keeps
    # the command line's handler, which would say "terminated" for a run that was not.
    # Ctrl-C reaches every process of the group: the coordinator handles it (and ends its
    # workers), so a worker ignores it rather than print a traceback of its own.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    let_through()  # held back while the workers were started (ldids.dumps.signals)
    # Its rows and terms hold no cycles, but enough of them start the cycle collector, which
    # walks every object the worker has (as validate_dump's own loop, and for that reason).
    gc.disable()
    # A forked worker has the plan of the process that started it (planning again would
    # cost it the SPARQL parse of every target, some 0.2 s, before its first block).
    if _PLAN is None:
        # Its blank nodes (property shapes) as the process that started it has them: a
        # result names its shape, and one shape must not be two (_transferred).
        _SAME_KEY = False
        _PLAN = plan(Graph().parse(data=shapes, format="nt").de_skolemize())


@dataclass
class Streamed:
    """A streamed run's verdict, with what it could not check; :meth:`add` takes the results
    of each block in turn, :meth:`sort` lists those kept in the verdict."""

    verdict: Verdict
    statements: int = 0
    not_streamable: list[tuple[Node, str]] = field(default_factory=list)
    #: Results listed in the verdict at most, the first in the report's order (None: all);
    #: past it, only counted.
    max_results: int | None = None
    #: The results reported (:func:`_digests`), as SHACL reports a result once.
    seen: Seen = field(default_factory=Seen)
    _kept: Kept[tuple[_Row, str, int | None]] = field(init=False)

    def __post_init__(self) -> None:
        self._kept = Kept(self.max_results)

    def add(
        self,
        count: int,
        rows: Sequence[_Row | None],
        name: str,
        *,
        lines_before: int = 0,
        lines: bool = True,
        digests: list[int] | None = None,
        shapes: list[Node] | None = None,
    ) -> None:
        """The ``count`` statements of a block of the file ``name`` and what was found in them,
        their lines shifted by ``lines_before`` (or none said: ``lines`` false); their
        :func:`_digests` if the process that made them made those too, and each one's shape
        where the rows this run turns away were left out (None in their place)."""
        self.statements += count
        if not rows:
            return
        verdict = self.verdict
        of: Iterable[Node] | None = shapes
        if of is None:  # every row is here
            whole = cast("Sequence[_Row]", rows)
            digests, of = _digests(whole) if digests is None else digests, map(_SHAPE, whole)
        assert digests is not None, "the rows left out were hashed where they were made"
        flags = self.seen.insert(digests)
        if not flags.count(1):
            return
        verdict.conforms = False  # any result, of any severity (SHACL §3.6.1)
        new = list(itertools.compress(of, flags))
        # Counted by the identity of the shape's node (the rows of a block share it), in C.
        nodes = dict(zip(map(id, new), new, strict=True))
        for shape, number in Counter(map(id, new)).items():
            verdict.counts[_shown(nodes[shape])] += number
        if self._kept.limit != 0:
            offer = self._kept.offer
            # Each shape's name once a block (a block of millions of results has a few shapes).
            names = {key: _shown(node) for key, node in nodes.items()}
            bar = self._kept.bar
            if bar is not None:
                # A shape whose every row here comes after the bar (by the block's first line:
                # the rest come after it) has none listed: a dump of millions of results lists
                # its first ones from its first blocks, and only counts the others.
                first = min((row[0] for row in rows if row is not None), default=0) if lines else 0
                if all((shown, name, lines_before + first if lines else 0) > bar[:3] for shown in names.values()):
                    return
            for row in itertools.compress(rows, flags):
                if row is not None:
                    at = lines_before + row[0] if lines else None
                    shown = names.get(id(row[4]))
                    offer(_order(_shown(row[4]) if shown is None else shown, name, at, row[1]), (row, name, at))

    @property
    def bar(self) -> Key | None:
        """A result whose key (:func:`_order`) is as great as this or greater is not listed."""
        return self._kept.bar

    def results(self) -> Iterator[Violation]:
        """The results kept, by shape, file, line and focus, made one at a time: a report of
        millions is written as they are read back (:class:`ldids.dumps.results.Kept`)."""
        return (_violation(row, name, line) for row, name, line in self._kept.first())

    def sort(self) -> None:
        """The results kept, listed in the verdict (:meth:`results`, all at once)."""
        self.verdict.violations = list(self.results())
        self.close()

    def close(self) -> None:
        """Closes the files of the results kept on disk (:meth:`results` has none after)."""
        self._kept.close()


def _order(shape: str, name: str, line: int | None, focus: str) -> Key:
    return (shape, name, line or 0, focus)


def _violation(row: _Row, name: str, line: int | None) -> Violation:
    _, focus, path, value, shape, component, message, severity, _ = row
    node = _node(focus)
    return Violation(
        node,
        _shown(shape),
        message,
        str(severity).rsplit("#", 1)[-1],
        node if value == focus else _node(value),
        path=path,
        component=component,
        file=name,
        line=line,
    )


def shipped_checks(max_results: int | None = None) -> Streamed:
    """An empty run of the shipped shapes' checks, for ``ldids normalize --validate``: its
    workers check each block's output as they make it (:func:`check_output`), this process
    adds what they found (:meth:`Streamed.add`)."""
    global _PLAN
    # A plan of its own, made before the workers fork (they have it then): a plan remembers
    # the terms it has checked, and passes over them, as their results were given already.
    _PLAN = _shipped_plan()
    _selection(_PLAN)  # the automata packed once here, not again in every worker
    return Streamed(Verdict(True), not_streamable=_PLAN.not_streamable, max_results=max_results)


def check_output(data: BytesLike) -> _Rows:
    """The statements of a block of normalized output (whole N-Triples/N-Quads lines), what
    the shipped shapes' checks find in them, their lines numbered from 1, and their digests
    where this process makes them as the one that adds them up (else None)."""
    global _PLAN, _SAME_KEY
    if _PLAN is None:  # a worker started afresh, not forked
        _SAME_KEY = False
        _PLAN = _shipped_plan()
    return _check(_PLAN, data, 1, written=True, hashed=_SAME_KEY)


def _shipped_plan() -> Plan:
    """The plan of the shipped shapes, their blank nodes (property shapes) labelled as every
    process labels them (rdflib's canonical labels): a worker started afresh (spawned, not
    forked) plans them itself, and its results must name the shapes the process that adds
    them up names."""
    from rdflib.compare import to_canonical_graph

    from ldids.resources import shapes_graph

    return plan(to_canonical_graph(shapes_graph()))


def _transferred(shapes: Graph) -> str:
    """The shapes as a worker started afresh reads them back (:func:`_start_worker`): in
    N-Triples, each blank node written as the IRI rdflib makes of it (skolemized), and made
    the same blank node again there, so that its results name the shapes this process names."""
    return shapes.skolemize().serialize(format="nt")


def _tasks(
    path: str,
    name: str,
    stack: ExitStack,
    block_size: int,
    parsed: Parsed | None,
    pool: Pool | None,
    workers: _Workers | None,
    bar: Callable[[], Key | None],
    triples: bool = False,
) -> Iterator[object]:
    """Each block of ``path`` to check (in this process, without ``pool``: a call) or being
    checked by a worker: a plain N-Triples/N-Quads file is handed over as byte ranges, each
    worker reading the lines that start in its own (:func:`_check_range`); other input is
    read here and handed over in blocks. A result is :data:`_Checked`, the rows' lines
    counted from the block's first; a worker leaves out the rows the report of ``name``
    turns away by ``bar()`` as it is when the task is given. ``triples``: the file is
    N-Triples, not N-Quads."""
    if workers is not None and _ranged(path, parsed):
        size = os.path.getsize(path)
        for start in range(0, size, block_size):
            yield workers.submit(_check_range, path, start, min(start + block_size, size), name, bar(), triples)
        return
    stream, _, _ = stack.enter_context(open_input(path))
    if parsed is not None:
        lines = parsed(path, stream)
        assert not isinstance(lines, Pieces), "validation reads a document in step (Parsed.cut is off)"
        stream = lines
        stack.callback(stream.close)  # a parse or check in a process of its own ends with the run
    for data, _ in blocks(stream, block_size, numbered=False):
        # In this process, checked when taken, where its lines are known.
        if pool is None:
            yield functools.partial(_check_block, data, triples=triples)
        else:
            # A parsed document's results are listed with no line (_check_block keys them by theirs).
            wanted = None if parsed is not None and path in parsed.formats else bar()
            yield pool.apply_async(_check_block, (data, name, wanted, None, triples))


def _context() -> multiprocessing.context.ForkContext | multiprocessing.context.SpawnContext:
    """Workers are forked where they can be (they have this process's plan and hash key),
    else spawned (Windows: they plan again, :func:`_start_worker`)."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class _Failed:
    """What a worker sends back for a task that raised: the error, raised again here."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Workers:
    """Worker processes for a streamed validation, each fed through a pipe of its own and
    read in this process's one thread. A task goes to the worker with the fewest waiting, of
    those the next in turn (ties given to the first every time left it two tasks in three,
    and the other idle for a third of the run); a worker answers its tasks in the order they
    came, and they are taken in the order they were given, so the oldest task's answer is
    the next on its worker's pipe. (A
    ``multiprocessing.Pool`` hands tasks and results over in threads of this process, which
    then wait for the interpreter's lock while this one adds up: a fifth of a run's CPU.)
    Tasks are byte ranges of a file, a few bytes each: neither side waits to write."""

    def __init__(self, count: int, shapes: str) -> None:
        context = _context()
        self._connections: list[Connection] = []
        self._processes: list[BaseProcess] = []
        self._waiting: list[int] = []
        self._turn = 0
        for _ in range(count):
            here, there = context.Pipe()
            process = context.Process(target=_serve, args=(there, shapes), daemon=True)
            process.start()
            there.close()
            self._connections.append(here)
            self._processes.append(process)
            self._waiting.append(0)

    def submit(self, function: Callable[..., _Checked], *args: object) -> Callable[[], _Checked]:
        """Gives the task to a worker; what takes its result (in the order given)."""
        count = len(self._waiting)
        worker = min(range(self._turn, self._turn + count), key=lambda at: self._waiting[at % count]) % count
        self._turn = (worker + 1) % count
        # Counted before it is sent: a Ctrl-C raised once the bytes are written (Python runs
        # its handler between two steps of send) must not leave a busy worker counted idle.
        self._waiting[worker] += 1
        self._connections[worker].send((function, args))
        return functools.partial(self._take, worker)

    def _take(self, worker: int) -> _Checked:
        try:
            reply = self._connections[worker].recv()
        except (EOFError, OSError):
            raise RuntimeError("a validation worker ended before its task was done") from None
        self._waiting[worker] -= 1
        if isinstance(reply, _Failed):
            raise reply.error
        result: _Checked = reply
        return result

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.close(ended=kind is None)

    def close(self, *, ended: bool = True) -> None:
        """Ends the workers: told to, when the run ``ended`` with every result taken; else
        (an error, Ctrl-C, ``--abort``) stopped, since one may be writing a result no one
        will read, and would wait for that forever."""
        for connection, process, waiting in zip(self._connections, self._processes, self._waiting, strict=True):
            if waiting or not ended:
                process.terminate()
            else:
                # Told to end: a worker forked after another holds that one's end of its pipe
                # too, so closing it here would tell that one nothing.
                with contextlib.suppress(OSError):
                    connection.send(None)
            connection.close()
        for process in self._processes:
            process.join()


def _serve(connection: Connection, shapes: str) -> None:
    """A worker's loop: each task read from the pipe, run, and its result (or its error)
    written back, until the pipe is closed."""
    _start_worker(shapes)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        function, args = task
        try:
            result: object = function(*args)
        except Exception as error:  # raised again where the result is taken
            result = _Failed(error)
        try:
            connection.send(result)
        except (BrokenPipeError, OSError):
            return


def _ranged(path: str, parsed: Parsed | None) -> bool:
    return (
        path != "-"
        and (parsed is None or path not in parsed.formats)
        and compression_of(path) is None
        and os.path.isfile(path)
    )


def validate_dump(
    inputs: list[str],
    shapes: Graph,
    *,
    workers: int = 1,
    max_results: int | None = None,
    block_size: int = 1 << 20,
    parsed: Parsed | None = None,
    abort: bool = False,
    listed: bool = True,
    n_triples: Collection[str] = (),
) -> Streamed:
    """Check N-Triples/N-Quads files (``-``: standard input) against the streamable shapes of
    ``shapes``; those that are not streamable are listed in the result, not checked.

    ``parsed`` reads Turtle, TriG and RDF/XML inputs as ``ldids normalize`` reads them,
    statement by statement as they are parsed; the results of such an input name the file
    and no line: pyoxigraph's parsers tell none per statement, and
    the lines it hands on are no lines of the file. ``abort`` stops reading after the first
    block that gives a result (pySHACL's ``--abort``): the counts are then of what was read.
    The results kept are listed in the verdict, or with ``listed`` false left for
    :meth:`Streamed.results` to give one at a time. The inputs in ``n_triples`` are N-Triples
    (a line with a graph term is an error, as ``ldids normalize`` says), the others N-Quads."""
    global _PLAN
    _fixed_mmap_threshold()
    checks = plan(shapes)
    _PLAN = checks
    _selection(checks)  # the automata packed once here, not again in every worker
    run = Streamed(Verdict(True), not_streamable=checks.not_streamable, max_results=max_results)
    pool, team = None, None
    with ExitStack() as stack:
        if workers > 1:
            # Plain files are read by the workers, a byte range a task (_Workers); other input
            # is read here and handed over a block at a time (a Pool, which writes the blocks
            # to its workers from a thread of its own while this one reads their results).
            text = _transferred(shapes)
            # Signals held back until how the workers end is set up (ldids.dumps.signals): one
            # that came before would leave a worker waiting for its task forever.
            with held():
                if any(_ranged(path, parsed) for path in inputs):
                    team = stack.enter_context(_Workers(workers, text))
                if not all(_ranged(path, parsed) for path in inputs):
                    pool = _context().Pool(workers, _start_worker, (text,))
                    stack.callback(pool.terminate)
        if gc.isenabled():
            # The blocks' rows, terms and memo keys hold no cycles, yet each block makes enough
            # of them to start the cycle collector, which then walks every tracked object (the
            # memos, the plan): a few percent of the run for nothing (ldids.dumps.stream too).
            gc.disable()
            stack.callback(gc.enable)
        for path in inputs:
            name = "<stdin>" if path == "-" else path
            lines = parsed is None or path not in parsed.formats
            # In flight: each block's task (or, in one process, its result), by the lines
            # before it in the file (known once the blocks before it are taken).
            window: deque[object] = deque()
            lines_before = 0
            triples = path in n_triples
            for task in _tasks(path, name, stack, block_size, parsed, pool, team, lambda: run.bar, triples):
                check_stop()  # a Ctrl-C whose exception a finalizer dropped stops the run here
                window.append(task)
                while window and (len(window) > 2 * workers or workers == 1):
                    lines_before = _take(run, window.popleft(), name, lines, lines_before)
                if abort and not run.verdict.conforms:
                    break
            while window and not (abort and not run.verdict.conforms):
                lines_before = _take(run, window.popleft(), name, lines, lines_before)
            if abort and not run.verdict.conforms:
                break
    if listed:
        run.sort()
    return run


def _fixed_mmap_threshold() -> None:
    """glibc's malloc maps a large block (128 KiB and up) on its own and unmaps it when freed,
    but raises that threshold to the size of each such block freed (up to 32 MiB): once the
    tables of the results seen have grown (4 MiB), every 1 MiB block of the dump and its
    selected lines come from the heap, between small objects that live on, and the heap
    keeps growing (a 10M-triple run peaked 20 MiB higher). A threshold set fixes it
    (mallopt(3), M_MMAP_THRESHOLD); elsewhere than glibc, nothing is done."""
    global _THRESHOLD_SET
    if _THRESHOLD_SET or not sys.platform.startswith("linux"):
        return
    _THRESHOLD_SET = True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt(_M_MMAP_THRESHOLD, 128 * 1024)  # glibc's own default, kept from here on


_M_MMAP_THRESHOLD = -3  # <malloc.h>
_THRESHOLD_SET = False


def _take(run: Streamed, task: object, name: str, lines: bool, lines_before: int) -> int:
    """Adds a block's results to the run; the lines before the next block."""
    try:
        checked: _Checked = task.get() if isinstance(task, AsyncResult) else task()  # type: ignore[operator]
    except InputError as error:
        at = None if not lines or error.line is None else lines_before + error.line
        raise InputError(
            error.message,
            source=name,
            line=at,
            column=error.column if at is not None else None,
            advice=error.advice,
        ) from error
    count, rows, made, block_lines, shapes = checked
    run.add(count, rows, name, lines_before=lines_before, lines=lines, digests=made, shapes=shapes)
    return lines_before + block_lines


def _node(text: str) -> Node:
    """A term written in N-Triples as rdflib's (as pyshacl sees it: ldids.shacl.value)."""
    if text.startswith("<"):
        return URIRef(text[1:-1])  # pyoxigraph writes an IRI as it is: it has no escape to undo
    if text.startswith("_:"):
        return BNode(text[2:])
    if text.endswith('"') and "\\" not in text:
        return Literal(text[1:-1])  # a simple literal with no escape: its text as it is
    quad = next(iter(ox.parse(f"<urn:x> <urn:x> {text} .".encode(), ox.RdfFormat.N_TRIPLES)))
    return to_rdflib(quad.object)


def _canonical(text: str) -> str:
    if text.endswith(">") and text.startswith('"') and not text.endswith(_STRING):
        return _node(text).n3()
    return text


def _n3(node: Node | None) -> str:
    # Paths, shapes and components are the shapes graph's own nodes: few, each written once
    # per object (the rows of a block a worker sent share theirs). Looked up by identity:
    # rdflib's own hash and equality of a node are Python functions, a third of the time
    # of a run's results (a process that validates with many shapes graphs, or takes many
    # blocks, forgets them now and then; the entry holds its node, so no other takes its id).
    found = _N3.get(id(node))
    if found is None or found[0] is not node:
        if len(_N3) >= 4096:
            _N3.clear()
        found = _N3[id(node)] = (node, "-" if node is None else node.n3())
    return found[1]


_N3: dict[int, tuple[Node | None, str]] = {}


def _shown(shape: Node) -> str:
    """A shape's name, as the counts and results show it (Plan.name, by the plan of this
    process, which every process of a run names alike); by the identity of its node, as
    :func:`_n3`."""
    found = _SHOWN.get(id(shape))
    if found is None or found[0] is not shape:
        if len(_SHOWN) >= 4096:
            _SHOWN.clear()
        found = _SHOWN[id(shape)] = (shape, str(shape) if _PLAN is None else _PLAN.name(shape))
    return found[1]


_SHOWN: dict[int, tuple[Node, str]] = {}


_STRING = "^^<http://www.w3.org/2001/XMLSchema#string>"


def available_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
