"""Turtle, TriG and RDF/XML streamed: parsed as they are read, handed on as N-Quads lines.

pyoxigraph's parsers read a document a few kilobytes at a time and give out its statements
as they are parsed. :class:`NQuadsReader` writes them, some thousands at a time, as the
N-Quads lines (N-Triples lines for the default graph) that :func:`ldids.dumps.run.normalize_dump`
reads from any dump: the same blocks, workers, summary, links, crosswalk and error handling,
in the memory of a few blocks whatever the size of the document (DESIGN.md §6).

The statements are those the graph path (:mod:`ldids.rdf.io`) reads from the same document,
written as :mod:`ldids.ntriples` writes terms (the escapes of ``literal``: pyoxigraph writes a
tab as ``\\t`` and other controls as ``\\uXXXX``, ldids writes them as they are). They differ
from the graph path's output where RDF 1.1 says two forms are one term, and in what a stream
cannot do:

- ``"x"^^xsd:string`` is written ``"x"`` (RDF 1.1 Concepts §3.3: a simple literal *is* an
  xsd:string), and language tags in lower case (§3.3: they compare case-insensitively);
- statements come in document order, each as often as the document states it (a graph is a
  set: the graph path merges repeated statements and sorts them);
- blank nodes keep the document's labels, and ``[]`` and collections get pyoxigraph's labels,
  drawn at random: the same document gives isomorphic output, not the same bytes. With
  several inputs every label is new (labels are local to a document, Turtle §2.6): pyoxigraph
  then keeps a table of a document's labels while it reads it, memory that grows with them.

Relative IRIs resolve against ``base`` (a file's ``file:`` URL, or ``--base``); with none
(standard input), a relative IRI is an error. A syntax error stops the run with the file,
line and column (InputError), whatever ``--on-error`` says: past it, nothing can be read
reliably. RDF/XML is read by :mod:`ldids.rdf.rdfxml`, the graph path's reader too: untrusted
XML checked by lxml as it goes, its XML literals canonical. RDF 1.2 triple terms and base
directions have no N-Triples 1.1 form: the dump pipeline refuses their lines (ldids.dumps.run).
"""

from __future__ import annotations

import io
import itertools
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

import pyoxigraph
from pyoxigraph import Quad, RdfFormat

from ldids.dumps import parse_beside, pieces
from ldids.dumps.pieces import CUT_FROM, Pieces
from ldids.errors import InputError
from ldids.rdf import rdfxml, xmlcheck
from ldids.rdf.compression import compression_of
from ldids.rdf.files import InputStream, open_input

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["PARSED_FORMATS", "NQuadsReader", "Parsed", "as_written", "base_iri"]

#: The formats (as :mod:`ldids.rdf.files` names them) read here, and pyoxigraph's name of each.
_OXIGRAPH_NAMES = {"turtle": "TURTLE", "trig": "TRIG", "xml": "RDF_XML"}
PARSED_FORMATS: tuple[str, ...] = tuple(_OXIGRAPH_NAMES)

#: Statements serialized at a time: a few hundred kilobytes of lines.
_PIECE = 4096

# pyoxigraph's literal escapes that ldids.ntriples.literal does not write: \t, \b, \f and
# \uXXXX (controls, U+FFFE, U+FFFF). An escaped backslash is matched so that the "\t" of "\\t"
# is not taken for an escape; \n, \r and \" stay as they are, as literal() writes them.
_ESCAPE = re.compile(rb"\\(?:([tbf])|u([0-9A-F]{4})|U([0-9A-F]{8})|\\)")
_ECHARS = {b"t": b"\t", b"b": b"\b", b"f": b"\f"}
# pyoxigraph's message starts with the position, which InputError says in its own way.
_POSITION = re.compile(r"^Parser error at line \d+ (?:between columns \d+ and \d+|column \d+): ")


def as_written(data: bytes) -> bytes:
    """pyoxigraph's N-Quads lines with literals escaped as ldids.ntriples writes them."""
    return _ESCAPE.sub(_unescape, data) if b"\\" in data else data


def _unescape(match: re.Match[bytes]) -> bytes:
    echar, short, long = match.groups()
    if echar is not None:
        return _ECHARS[echar]
    code = short or long
    return match.group() if code is None else chr(int(code, 16)).encode("utf-8")


def base_iri(path: str, base: str | None = None) -> str | None:
    """The IRI relative IRIs in ``path`` resolve against: ``base`` if given, else the file's
    ``file:`` URL; standard input (``-``) has none (DESIGN.md §6a).

    >>> base_iri("/data/dump.ttl")
    'file:///data/dump.ttl'
    >>> base_iri("-") is None
    True
    """
    if base is not None:
        return base
    return None if path == "-" else Path(path).absolute().as_uri()


@dataclass(frozen=True)
class Parsed:
    """How :func:`~ldids.dumps.run.normalize_dump` reads Turtle, TriG and RDF/XML inputs (its
    ``statements``): the format of each by its path (``-``: standard input; an input not named
    is read as the N-Triples or N-Quads it is), the base IRI given on the command line if any,
    and whether the run has several inputs (each document's blank nodes are then its own)."""

    formats: Mapping[str, str]
    base: str | None = None
    several: bool = False
    #: The run's worker processes (a large file is parsed beside them if they leave a core).
    workers: int = 1
    #: Whether a large Turtle or RDF/XML file may be cut into pieces that the workers parse
    #: (a run of ``normalize_dump``, ldids.dumps.pieces; on 1 worker, where its first piece is
    #: of the shape read in C, ldids.rdf.common_shape), of about
    #: ``piece`` bytes each (their N-Triples fit a worker's slot: Turtle's are some three
    #: times longer), from files of ``cut_from`` bytes on.
    cut: bool = False
    piece: int = 1 << 19
    cut_from: int = CUT_FROM

    def __call__(self, path: str, source: InputStream) -> InputStream | Pieces:
        """The lines of ``path``, read from ``source`` (the file's bytes, decompressed), or
        the pieces its lines are parsed from by the workers."""
        fmt = self.formats.get(path)
        if fmt is None:
            return source
        base = base_iri(path, self.base)
        if self.cut and not self.several:
            cut = pieces.cut(path, fmt, base, self.piece, self.cut_from)
            # one process reads the pieces in turn: worth it where they are read in C
            if cut is not None and (self.workers > 1 or pieces.read_in_c(cut)):
                return cut
        if parse_beside.worth_it(path, self.workers):  # the same lines, parsed on a core left free
            return parse_beside.Beside(path, fmt, path, base=base, rename_blank_nodes=self.several)
        return NQuadsReader(source, fmt, name=path, base=base, rename_blank_nodes=self.several)


class NQuadsReader(io.BufferedIOBase):
    """A Turtle, TriG or RDF/XML document (``source``) read as N-Quads lines, parsed as they
    are read. ``name`` is the input's path (``-``: standard input), for errors, and for the
    second reading that finds where an RDF/XML error is (pyoxigraph does not say)."""

    def __init__(
        self,
        source: InputStream,
        fmt: str,
        *,
        name: str = "-",
        base: str | None = None,
        rename_blank_nodes: bool = False,
    ) -> None:
        super().__init__()
        self._name, self._base = name, base
        self._shown = "<stdin>" if name == "-" else name
        self._pieces: Iterator[Iterable[Quad]]
        self._quads: Iterator[Quad] = iter(())
        self._check: xmlcheck.Check | None = None
        if fmt == "xml":
            literals, size = _looked_through(name)
            beside = not literals and size >= xmlcheck.SEPARATE_FROM
            document = rdfxml.Document(
                source,
                self._shown,
                base,
                rename_blank_nodes=rename_blank_nodes,
                literals=literals,
                checked=beside,
                path=name if beside else None,
            )
            if beside:  # once the prolog has passed (no entity, no DTD)
                self._check = xmlcheck.Check(name, self._shown)
            self._pieces = document.pieces(_PIECE)
        else:
            read = cast("IO[bytes]", source)
            parsed = pyoxigraph.parse(
                input=read, format=_format(fmt), base_iri=base, rename_blank_nodes=rename_blank_nodes
            )
            self._pieces = iter((parsed,))
        self._pending = b""
        self._offset = 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if self._check is not None:
            self._check.stop()
            self._check = None
        super().close()

    def _verdict(self) -> InputError | None:
        """What the check of the document beside its parse found (None: well-formed, or
        checked in step)."""
        if self._check is None:
            return None
        check, self._check = self._check, None
        return check.verdict()

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        with memoryview(buffer) as view, view.cast("B") as target:
            filled = 0
            while filled < len(target):
                if self._offset == len(self._pending):
                    self._pending, self._offset = self._piece(), 0
                    if not self._pending:
                        break
                count = min(len(target) - filled, len(self._pending) - self._offset)
                target[filled : filled + count] = self._pending[self._offset : self._offset + count]
                filled += count
                self._offset += count
            return filled

    def read(self, size: int | None = -1, /) -> bytes:
        if size is None or size < 0:
            return b"".join(iter(lambda: bytes(self.read(1 << 20)), b""))
        buffer = bytearray(size)
        return bytes(buffer[: self.readinto(buffer)])

    def _piece(self) -> bytes:
        """The next statements as lines; empty at the end of the document."""
        try:
            data = self._serialized()
        except SyntaxError as error:
            # lxml, reading in step, would have said first where the XML is malformed.
            raise (self._verdict() or self._syntax_error(error)) from None
        if not data:
            # The last statement is given only once the document is known to be XML.
            malformed = self._verdict()
            if malformed is not None:
                raise malformed
            return b""
        return as_written(data)

    def _serialized(self) -> bytes:
        """Some thousands of statements, serialized as they are parsed (a list of them would
        cost more than their serialization); empty at the end."""
        while True:
            data = pyoxigraph.serialize(itertools.islice(self._quads, _PIECE), format=pyoxigraph.RdfFormat.N_QUADS)
            assert data is not None
            if data:
                return data
            piece = next(self._pieces, None)
            if piece is None:
                return b""
            self._quads = iter(piece)

    def _syntax_error(self, error: SyntaxError) -> InputError:
        detail = _POSITION.sub("", str(error.msg or error))
        line, column = error.lineno, error.offset
        if line is None and self._name != "-":  # pyoxigraph's RDF/XML parser says no position
            found = rdfxml.locate(lambda: _decompressed(self._name), self._base, detail)
            line, column = found if found is not None else (None, None)
        advice = None
        if self._base is None and "No scheme found" in detail:  # a relative IRI, and no base
            detail += " (a relative IRI, and no base IRI to resolve it against)"
            advice = "base"
        return InputError(f"syntax error: {detail}", source=self._shown, line=line, column=column, advice=advice)


def _looked_through(name: str) -> tuple[bool, int]:
    """Whether the RDF/XML file ``name`` may hold XML literals, and its size if it is a plain
    file that can be read again (else 0). A plain file is looked through (a megabyte at a
    time, at the speed of memchr: a fraction of what building lxml's tree of it would cost);
    standard input and compressed files can be read once only, and may."""
    if name == "-" or compression_of(name) is not None:
        return True, 0
    try:
        with open(name, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode):
                return True, 0
            tail = b""
            while piece := file.read(1 << 20):
                if rdfxml.says_literal(tail + piece[:16]) or rdfxml.says_literal(piece):
                    return True, status.st_size
                tail = piece[-16:]
            return False, status.st_size
    except OSError:  # said when the file is read for its statements
        return True, 0


@contextmanager
def _decompressed(path: str) -> Iterator[InputStream]:
    with open_input(path) as (source, _, _):
        yield source


def _format(name: str) -> RdfFormat:
    return getattr(RdfFormat, _OXIGRAPH_NAMES[name])  # type: ignore[no-any-return]
