"""A large RDF/XML file parsed by the run's workers, a piece each, rather than by one process.

One process parsing a document in step (:class:`ldids.dumps.rdf_stream.NQuadsReader`) holds
back the workers that normalize its statements: on 2 cores the parse is as much CPU as the
normalization, and the coordinator that parses also writes every output. An RDF/XML
document whose root is ``rdf:RDF`` is a list of node elements that each depend only on what
the root's start tag says (:mod:`ldids.rdf.xmlcut`), so it is cut at top-level elements,
about a megabyte apart, and each worker parses its piece (the document's head, the piece's
elements, the root's end tag) and normalizes its statements as it does a block of a dump.

What the pieces give is what the document read in step gives: the same statements in the
same order (blank nodes of ``rdf:nodeID`` keep their labels; those the document leaves
unnamed get pyoxigraph's random ones in either case), each piece's XML checked by lxml
before pyoxigraph parses it (:mod:`ldids.rdf.wellformed`), so the whole document is checked
once, as in step. A piece that does not parse stops the run; the error it reports is the
one the document read in step gives (:meth:`Pieces.error`), with the document's line and
column, for nothing about a piece's own positions is the document's.

A document is read in step where cutting could change what it says or cost more than it
saves (:func:`cut`): standard input and compressed files (read once), files under
:data:`CUT_FROM` bytes, several inputs (whose blank node labels are renamed per document),
XML literals (canonicalized from lxml's tree, :mod:`ldids.rdf.rdfxml`), ``ID`` attributes
(unique per document), a DOCTYPE, a root that is not ``rdf:RDF``, one top-level element
much larger than a piece, or no compiled scanner (its Python reference is too slow to gain).
"""

from __future__ import annotations

import io
import itertools
import mmap
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from ldids.errors import InputError, PieceError
from ldids.rdf import wellformed, xmlcut
from ldids.rdf.compression import compression_of

__all__ = ["CUT_FROM", "Frame", "Pieces", "cut", "piece_statements"]

#: Files smaller than this are parsed in step: cutting gains less than it costs.
CUT_FROM = 8 << 20
#: Where the root's start tag must end, at the latest, for the document to be cut.
_HEAD = 1 << 20
#: A document with a piece larger than this many steps and than _LARGE bytes (a top-level
#: element of megabytes: a worker would hold it, its document and its statements at once) is
#: read in step.
_LARGEST = 4
_LARGE = 8 << 20

_RDF_ROOT = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF"


@dataclass(frozen=True)
class Frame:
    """What a piece of a cut document is wrapped in: the document's head (up to the root's
    start tag, included), the root's end tag, and the base IRI the document is parsed with."""

    head: bytes
    close: bytes
    base: str | None
    size: int  # the file's size: the last piece runs to it, and has the end tag of its own


@dataclass(frozen=True)
class Pieces:
    """The RDF/XML file ``path`` (named ``shown`` in errors), cut at ``cuts``."""

    path: str
    shown: str
    frame: Frame
    cuts: tuple[int, ...]

    def ranges(self) -> Iterator[tuple[int, int]]:
        """The byte range of each piece, in order: the first from the file's start (its
        head is the document's own), the last to its end (its end tag too)."""
        starts = (0, *self.cuts)
        stops = (*self.cuts, self.frame.size)
        yield from zip(starts, stops, strict=True)

    def error(self) -> InputError:
        """The error of the document read in step, which a piece that did not parse stands
        for: the same message, line and column as a run that does not cut it."""
        from ldids.dumps.rdf_stream import NQuadsReader
        from ldids.rdf.files import open_input

        with (
            open_input(self.path) as (source, _, _),
            NQuadsReader(source, "xml", name=self.path, base=self.frame.base) as lines,
        ):
            try:
                while lines.read(1 << 20):
                    pass
            except InputError as error:
                return error
        # Each piece is a document of its own; the whole, read in step, has no error. A
        # defect of the cutting, not of the input: said as such, and nothing is written.
        raise RuntimeError(f"{self.shown}: a piece of the document did not parse, the whole document does")


def cut(path: str, base: str | None, step: int, least: int = CUT_FROM) -> Pieces | None:
    """The pieces of the RDF/XML file ``path`` of about ``step`` bytes each, or None where it
    is read in step (see the module's docstring). ``least``: the smallest file cut."""
    from ldids.dumps.worker import _scan as scan
    from ldids.rdf.rdfxml import says_literal

    if scan is None or os.environ.get("LDIDS_PURE_PYTHON") or path == "-" or compression_of(path) is not None:
        return None
    try:
        with open(path, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size < max(least, 1):
                return None
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                if says_literal(data):  # type: ignore[arg-type]
                    return None
                root = xmlcut.root_start(data[:_HEAD])  # a head past it: read in step
                if root is None:
                    return None
                start, name = root
                head = data[:start]
                close = b"</" + name + b">"
                found = scan.xml_cuts(data, start, step)
    except OSError:  # said when the file is read in step
        return None
    if found is None or not _rdf_root(head + close):
        return None
    edges = (start, *found, status.st_size)  # the head, in the first piece, counts once
    if any(stop - begin > max(_LARGEST * step, _LARGE) for begin, stop in itertools.pairwise(edges)):
        return None
    return Pieces(path, path, Frame(head, close, base, status.st_size), tuple(found))


def _rdf_root(document: bytes) -> bool:
    """Whether the head's root element is ``rdf:RDF`` (its namespace resolved by lxml)."""
    from lxml import etree

    try:
        root = etree.fromstring(document, etree.XMLParser(**wellformed.OPTIONS))
    except etree.XMLSyntaxError:
        return False
    return str(root.tag) == _RDF_ROOT


def piece_statements(path: str, start: int, stop: int, frame: Frame) -> bytes:
    """The N-Quads lines of the piece of ``path`` in bytes [start, stop), as the document read
    in step writes them (:class:`ldids.dumps.rdf_stream.NQuadsReader`). :class:`PieceError`
    if the piece is not well-formed XML or does not parse."""
    import pyoxigraph as ox

    from ldids.dumps.rdf_stream import as_written

    with open(path, "rb") as file:
        body = os.pread(file.fileno(), stop - start, start)
    if len(body) != stop - start:
        raise PieceError(f"{path}: the file changed while it was read")
    document = b"".join((frame.head if start > 0 else b"", body, frame.close if stop < frame.size else b""))
    try:
        wellformed.check(io.BytesIO(document))
    except wellformed.MalformedError as fault:
        raise PieceError(fault.message) from None
    try:
        data = ox.serialize(
            ox.parse(document, format=ox.RdfFormat.RDF_XML, base_iri=frame.base), format=ox.RdfFormat.N_QUADS
        )
    except SyntaxError as error:
        raise PieceError(str(error)) from None
    assert data is not None
    return as_written(data)
