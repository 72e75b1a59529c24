"""A large Turtle or RDF/XML file parsed by the run's workers, a piece each, not by one process.

One process parsing a document in step (:class:`ldids.dumps.rdf_stream.NQuadsReader`) holds
back the workers that normalize its statements: on 2 cores the parse is as much CPU as the
normalization, and the coordinator that parses also writes every output. So a document is
cut where what follows depends only on what a few bytes can say, and each worker parses its
piece and normalizes the statements as it does a block of a dump:

- RDF/XML whose root is ``rdf:RDF``, after top-level node elements (:mod:`ldids.rdf.xmlcut`):
  a piece is the document's head (up to the root's start tag: namespaces, ``xml:base``,
  ``xml:lang``), its elements and the root's end tag, checked by lxml
  (:mod:`ldids.rdf.wellformed`) before pyoxigraph parses it;
- Turtle and TriG, after statements (:mod:`ldids.rdf.turtlecut`): a piece is the directives
  in force where it starts (``@base`` and ``@prefix``, as pyoxigraph read them from the first
  piece) and its statements; the prefixes and base a piece ends with must be those it
  started with, else a directive was missed and the run stops rather than read the next
  pieces in the wrong state. A TriG piece that starts or ends inside a graph block is
  wrapped in the block's label and braces; a piece that ends inside one must end with a
  statement in that block's graph, so every label a piece is given is one the piece before
  it was read in.

What the pieces give is what the document read in step gives: the same statements in the
same order (blank node labels kept as written name the same node in every piece; nodes the
document leaves unnamed get pyoxigraph's random labels in either case, made each piece's own,
for forked workers draw the same ones: :func:`_relabelled`). A piece that does not
parse stops the run with the error of the document read in step (:meth:`Pieces.error`), with
the document's line and column.

A document is read in step where cutting could change what it says or cost more than it saves
(:func:`cut`): standard input and compressed files (read once), files under :data:`CUT_FROM`
bytes, several inputs (whose blank node labels are renamed per document), a document
whose scan gives no cuts (see the two modules), a piece much larger than the others, no
compiled scanner (its Python reference is too slow to gain), and in RDF/XML, XML literals
(canonicalized from lxml's tree, :mod:`ldids.rdf.rdfxml`).
"""

from __future__ import annotations

import functools
import io
import itertools
import mmap
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from ldids.errors import InputError, PieceError
from ldids.rdf import common_shape, wellformed, xmlcut
from ldids.rdf.compression import compression_of

__all__ = ["CUT_FROM", "FORMATS", "Frame", "Pieces", "cut", "piece_statements", "read_in_c"]

#: Files smaller than this are parsed in step: cutting gains less than it costs.
CUT_FROM = 8 << 20
#: The formats (as ldids.dumps.rdf_stream names them) that are cut.
FORMATS = ("xml", "turtle", "trig")
#: Where the root's start tag of an RDF/XML document must end, at the latest, for it to be cut.
_HEAD = 1 << 20
#: A document with a piece larger than this many steps and than _LARGE bytes (one statement
#: or top-level element of megabytes: a worker would hold it, its document and its statements
#: at once) is read in step.
_LARGEST = 4
_LARGE = 8 << 20

_RDF_ROOT = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF"
#: pyoxigraph's name of each format.
_OXIGRAPH = {"xml": "RDF_XML", "turtle": "TURTLE", "trig": "TRIG"}

#: The prefixes (sorted) and base IRI a Turtle parser is in.
State = tuple[tuple[tuple[str, str], ...], str | None]


@dataclass(frozen=True)
class Frame:
    """What every piece of a cut document shares: its format, the head a piece after the first
    starts with and the end a piece before the last ends with (RDF/XML: the document's head
    and the root's end tag; Turtle: the directives in force at the first cut, and nothing),
    the base IRI it is parsed with, the file's size, and (Turtle) the state a piece must end
    in."""

    fmt: str
    head: bytes
    close: bytes
    base: str | None
    size: int
    state: State | None = None


@dataclass(frozen=True)
class Pieces:
    """The file ``path``, cut at ``cuts``, each in the graph block
    ``blocks`` names (its label as written; b"" the default graph's; None: none)."""

    path: str
    frame: Frame
    cuts: tuple[int, ...]
    blocks: tuple[bytes | None, ...]

    def ranges(self) -> Iterator[tuple[int, int, bytes | None, bytes | None]]:
        """The byte range of each piece, in order (the first from the file's start: its head
        is the document's own; the last to its end), and the graph block it starts and ends in."""
        edges = itertools.pairwise((0, *self.cuts, self.frame.size))
        ends = itertools.pairwise((None, *self.blocks, None))
        for (start, stop), (opens, closes) in zip(edges, ends, strict=True):
            yield start, stop, opens, closes

    def error(self) -> InputError:
        """The error of the document read in step, which a piece that did not parse stands
        for: the same message, line and column as a run that does not cut it."""
        from ldids.dumps.rdf_stream import NQuadsReader
        from ldids.rdf.files import open_input

        with (
            open_input(self.path) as (source, _, _),
            NQuadsReader(source, self.frame.fmt, name=self.path, base=self.frame.base) as lines,
        ):
            try:
                while lines.read(1 << 20):
                    pass
            except InputError as error:
                return error
        # Each piece is a document of its own; the whole, read in step, has no error. A
        # defect of the cutting, not of the input: said as such, and nothing is written.
        raise RuntimeError(f"{self.path}: a piece of the document did not parse, the whole document does")


def cut(path: str, fmt: str, base: str | None, step: int, least: int = CUT_FROM) -> Pieces | None:
    """The pieces of the ``fmt`` file ``path`` of about ``step`` bytes each, or None where it
    is read in step (see the module's docstring). ``least``: the smallest file cut."""
    from ldids.dumps.worker import _scan as scan

    if (
        fmt not in FORMATS
        or scan is None
        or os.environ.get("LDIDS_PURE_PYTHON")
        or path == "-"
        or compression_of(path) is not None
    ):
        return None
    try:
        with open(path, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size < max(least, 1):
                return None
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                found = _xml(data, scan, base, step) if fmt == "xml" else _turtle(data, scan, fmt, base, step)
    except OSError:  # said when the file is read in step
        return None
    if found is None:
        return None
    (head, close, state), cuts, blocks, start = found
    edges = (start, *cuts, status.st_size)  # an RDF/XML head, in the first piece, counts once
    if any(stop - begin > max(_LARGEST * step, _LARGE) for begin, stop in itertools.pairwise(edges)):
        return None
    return Pieces(path, Frame(fmt, head, close, base, status.st_size, state), tuple(cuts), tuple(blocks))


#: What a format's cutting finds: the frame's head, end and state; the cuts; the graph block
#: of each; where the first piece's own content starts.
_Found = tuple[tuple[bytes, bytes, State | None], list[int], list[bytes | None], int]


def _xml(data: mmap.mmap, scan: object, base: str | None, step: int) -> _Found | None:
    """The head and end of an RDF/XML document's pieces, its cuts, and where its content starts."""
    from ldids.rdf.rdfxml import says_literal

    if says_literal(data):  # type: ignore[arg-type]
        return None
    root = xmlcut.root_start(data[:_HEAD])  # a head past it: read in step
    if root is None:
        return None
    start, name = root
    head, close = data[:start], b"</" + name + b">"
    found = scan.xml_cuts(data, start, step)  # type: ignore[attr-defined]
    if found is None or not _rdf_root(head + close):
        return None
    return (head, close, None), found, [None] * len(found), start


def _turtle(data: mmap.mmap, scan: object, fmt: str, base: str | None, step: int) -> _Found | None:
    """The directives that start a Turtle or TriG document's pieces, its cuts and their blocks."""
    import pyoxigraph as ox

    found: list[tuple[int, int, int]] | None = scan.turtle_cuts(data, step, fmt == "trig")  # type: ignore[attr-defined]
    if not found:
        return None
    first, label_start, _ = found[0]
    closing = b"" if label_start < 0 else b"\n}\n"
    parser = ox.parse(data[:first] + closing, format=getattr(ox.RdfFormat, _OXIGRAPH[fmt]), base_iri=base)
    try:
        for _ in parser:
            pass
    except SyntaxError:  # said when the document is read in step
        return None
    state = _state(parser)
    prefixes, now = state
    head = "".join(
        ([f"@base <{now}> .\n"] if now is not None else []) + [f"@prefix {name}: <{iri}> .\n" for name, iri in prefixes]
    )
    cuts = [position for position, _, _ in found]
    blocks = [None if begin < 0 else data[begin:end] for _, begin, end in found]
    return (head.encode(), b"", state), cuts, blocks, 0


def _state(parser: object) -> State:
    prefixes: dict[str, str] = parser.prefixes  # type: ignore[attr-defined]
    return tuple(sorted(prefixes.items())), parser.base_iri  # type: ignore[attr-defined]


def _rdf_root(document: bytes) -> bool:
    """Whether the head's root element is ``rdf:RDF`` (its namespace resolved by lxml)."""
    from lxml import etree

    try:
        root = etree.fromstring(document, etree.XMLParser(**wellformed.OPTIONS))
    except etree.XMLSyntaxError:
        return False
    return str(root.tag) == _RDF_ROOT


def _document(path: str, start: int, stop: int, frame: Frame, opens: bytes | None, closes: bytes | None) -> bytes:
    """The piece of ``path`` in bytes [start, stop) as a document of its own: the frame's
    head before it (but the first), its graph block's label and braces around it (TriG), the
    root's end tag after it (RDF/XML, but the last)."""
    with open(path, "rb") as file:
        body = os.pread(file.fileno(), stop - start, start)
    if len(body) != stop - start:
        raise PieceError(f"{path}: the file changed while it was read")
    return b"".join(
        (
            frame.head if start > 0 else b"",
            b"" if opens is None else opens + b" {\n",
            body,
            b"" if closes is None else b"\n}\n",
            frame.close if stop < frame.size else b"",
        )
    )


def _in_c(document: bytes, start: int, frame: Frame) -> bytes | None:
    """The piece's statements read in C (:mod:`ldids.rdf.common_shape`), or None. A Turtle
    piece with a directive of its own declines (the first piece's are those the frame's
    state was read from), so one read in C ends in the state it started in."""
    if frame.fmt == "xml":
        return common_shape.rdf_xml(document)
    return common_shape.turtle(document, frame.fmt == "trig", len(frame.head) if start > 0 else len(document))


def read_in_c(pieces: Pieces) -> bool:
    """Whether the first piece of ``pieces`` is of the common shape the compiled readers take:
    where a run has one process, the pieces are worth reading in turn only then (else a
    document is parsed beside it, on a core it leaves free: ldids.dumps.parse_beside)."""
    start, stop, opens, closes = next(pieces.ranges())
    return _in_c(_document(pieces.path, start, stop, pieces.frame, opens, closes), start, pieces.frame) is not None


def piece_statements(
    path: str, start: int, stop: int, frame: Frame, opens: bytes | None = None, closes: bytes | None = None
) -> bytes:
    """The N-Quads lines of the piece of ``path`` in bytes [start, stop), as the document read
    in step writes them (:class:`ldids.dumps.rdf_stream.NQuadsReader`), the piece starting in
    the graph block ``opens`` and ending in ``closes`` (TriG; their labels). :class:`PieceError`
    if the piece does not parse (or, RDF/XML, is not well-formed XML; Turtle and TriG, ends in
    a state it did not start in, or in another graph than ``closes`` names)."""
    import pyoxigraph as ox

    from ldids.dumps.rdf_stream import as_written

    document = _document(path, start, stop, frame, opens, closes)
    if frame.fmt == "xml":
        try:
            wellformed.check(io.BytesIO(document))
        except wellformed.MalformedError as fault:
            raise PieceError(fault.message) from None
    # the common shape, read in C as pyoxigraph reads it: no label drawn, none to relabel; a
    # TriG piece must still end in the block the cuts said
    lines = _in_c(document, start, frame)
    if lines is not None and (closes is None or _last_graph(lines) == _graph_of(frame, closes)):
        return lines
    parser = ox.parse(document, format=getattr(ox.RdfFormat, _OXIGRAPH[frame.fmt]), base_iri=frame.base)
    try:
        data = ox.serialize(parser, format=ox.RdfFormat.N_QUADS)
    except SyntaxError as error:
        raise PieceError(str(error)) from None
    assert data is not None
    if frame.state is not None and _state(parser) != frame.state:
        raise PieceError(f"{path}: a directive in bytes {start} to {stop} that the cuts did not see")
    if closes is not None and _last_graph(data) != _graph_of(frame, closes):
        raise PieceError(f"{path}: bytes {start} to {stop} do not end in the graph block {closes!r}")
    if _DRAWN.search(data) is not None:
        data = _relabelled(data, document, start)
    return as_written(data)


# A blank node label pyoxigraph drew for a node the document leaves unnamed ([], a list,
# an rdf:Description without rdf:about): a random 128-bit number in hex. The workers are
# forked from one process, and draw the same numbers in the same order: two pieces read by
# two workers would give two nodes one label, which the document read in step never does.
# Where nothing like one is in a piece's statements (a search at memchr speed), nothing is
# done; where one may be (in a literal too), the terms are read (:func:`relabel_drawn`).
_DRAWN = re.compile(rb"_:[0-9a-f]{17,32} ")


# Where the document itself may write such a label: after "_:" (Turtle, TriG) or a quote
# (rdf:nodeID's value); more than that (any quoted hex) only keeps a label that no draw makes.
_WRITTEN = re.compile(rb"(?:_:|[\"'])([0-9a-f]{17,32})")


def _relabelled(lines: bytes, document: bytes, start: int) -> bytes:
    """The lines with each label pyoxigraph drew made the piece's own (the piece's first byte
    in hex after it); a label the document itself writes, in the piece, is kept. In C
    (``relabel_drawn`` in ``ldids/dumps/_scan.c``) where it was built: :func:`relabel_drawn`
    is its reference."""
    from ldids.dumps.worker import _scan as scan

    written = set(_WRITTEN.findall(document))
    suffix = b"p%x" % start
    if scan is None or os.environ.get("LDIDS_PURE_PYTHON"):
        return relabel_drawn(lines, suffix, written)
    return scan.relabel_drawn(lines, suffix, written)  # type: ignore[no-any-return]


def relabel_drawn(lines: bytes, suffix: bytes, written: set[bytes]) -> bytes:
    """Each blank node term of the N-Quads ``lines`` (as pyoxigraph writes them: every term
    followed by a space) whose label is 17 to 32 lowercase hex digits, and not in
    ``written``, with ``suffix`` after it. Terms are told apart (IRIs, literals with their
    escapes), so a literal's text is never changed."""
    out: list[bytes] = []
    copied = p = 0
    n = len(lines)
    while p < n:
        c = lines[p]
        if c == 0x3C:  # < : an IRI
            end = lines.find(b">", p)
            p = n if end < 0 else end + 1
        elif c == 0x22:  # " : a literal
            q = p + 1
            while q < n and lines[q] not in (0x22, 0x0A):
                q += 2 if lines[q] == 0x5C else 1
            p = q + 1
        elif c == 0x5F and lines[p + 1 : p + 2] == b":":  # _: a blank node
            q = p + 2
            while q < n and lines[q] not in (0x20, 0x0A):
                q += 1
            label = lines[p + 2 : q]
            if q < n and lines[q] == 0x20 and _HEX.fullmatch(label) and label not in written:
                out += (lines[copied:q], suffix)
                copied = q
            p = q
        else:
            p += 1
    out.append(lines[copied:])
    return b"".join(out)


_HEX = re.compile(rb"[0-9a-f]{17,32}")


def _last_graph(lines: bytes) -> object:
    """The graph of the last of some N-Quads lines (None: there is none)."""
    import pyoxigraph as ox

    last = lines[lines.rfind(b"\n", 0, len(lines) - 1) + 1 :]
    return next((quad.graph_name for quad in ox.parse(last, format=ox.RdfFormat.N_QUADS)), None)


@functools.lru_cache(maxsize=64)
def _graph_of(frame: Frame, label: bytes) -> object:
    """The graph a block labelled ``label`` names, read as the pieces read it."""
    import pyoxigraph as ox

    block = frame.head + label + b" { <urn:ldids:s> <urn:ldids:p> <urn:ldids:o> . }"
    return next(iter(ox.parse(block, format=ox.RdfFormat.TRIG, base_iri=frame.base))).graph_name
