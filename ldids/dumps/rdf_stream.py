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
reliably. RDF/XML is untrusted XML (DESIGN.md §7), checked as :mod:`ldids.safexml` checks it:
a document that declares entities or names an external DTD is refused before pyoxigraph
reads it (pyoxigraph expands entities: a "billion laughs" file would stall it), and lxml
reads along with pyoxigraph to tell where a document is malformed (and that it is cut short,
which pyoxigraph accepts). RDF 1.2 triple terms and base directions have no N-Triples 1.1
form: the dump pipeline refuses their lines (ldids.dumps.run).
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ldids.errors import InputError
from ldids.rdf.files import InputStream

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer
    from pyoxigraph import QuadParser, RdfFormat

__all__ = ["PARSED_FORMATS", "NQuadsReader", "Parsed", "base_iri"]

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

    def __call__(self, path: str, source: InputStream) -> InputStream:
        """The lines of ``path``, read from ``source`` (the file's bytes, decompressed)."""
        fmt = self.formats.get(path)
        if fmt is None:
            return source
        return NQuadsReader(source, fmt, name=path, base=base_iri(path, self.base), rename_blank_nodes=self.several)


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
        self._fmt, self._name, self._base, self._rename = fmt, name, base, rename_blank_nodes
        self._shown = "<stdin>" if name == "-" else name
        read: InputStream | _CheckedXml = source
        if fmt == "xml":
            read = _CheckedXml(source, self._shown)
        self._quads = self._parse(read)
        self._pending = b""
        self._offset = 0

    def _parse(self, read: Any) -> QuadParser:
        import pyoxigraph

        return pyoxigraph.parse(
            input=read,
            format=_format(self._fmt),
            base_iri=self._base,
            rename_blank_nodes=self._rename,
        )

    def readable(self) -> bool:
        return True

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
        import pyoxigraph

        try:
            data = pyoxigraph.serialize(itertools.islice(self._quads, _PIECE), format=pyoxigraph.RdfFormat.N_QUADS)
        except SyntaxError as error:
            raise self._syntax_error(error) from None
        assert data is not None
        if b"\\" in data:
            data = _ESCAPE.sub(_unescape, data)
        return data

    def _syntax_error(self, error: SyntaxError) -> InputError:
        detail = _POSITION.sub("", str(error.msg or error))
        line, column = error.lineno, error.offset
        if line is None:  # pyoxigraph's RDF/XML parser says no position
            line, column = self._locate()
        if self._base is None and "No scheme found" in detail:  # a relative IRI
            detail += " (standard input has no base IRI for relative IRIs)"
        return InputError(f"syntax error: {detail}", source=self._shown, line=line, column=column)

    def _locate(self) -> tuple[int | None, int | None]:
        """Where the error is: the document read again, a line at a time, then the line the
        error came in a character at a time (a named file; standard input is gone)."""
        if self._name == "-":
            return None, None
        line = self._failing(_Trickle(None))
        if line is None:
            return None, None
        return line, self._failing(_Trickle(line))

    def _failing(self, trickle: _Trickle) -> int | None:
        """The line (or, trickling a line, the column) at which the parser fails."""
        from ldids.dumps.run import _open_input

        with ExitStack() as stack:
            try:
                source, _, _ = _open_input(self._name, stack)
            except InputError:
                return None
            trickle.source = source
            try:
                for _ in self._parse(trickle):
                    pass
            except SyntaxError:
                return trickle.column if trickle.slow_line is not None else trickle.line
        return None


class _Trickle:
    """A byte stream given to a parser a line at a time (and one line a character at a
    time), counting: the error comes when the line (character) that completes it is read."""

    def __init__(self, slow_line: int | None) -> None:
        self.source: InputStream | None = None
        self.slow_line = slow_line
        self.line = 0  # of the last line given, 1-based
        self.column = 0  # characters given of the slow line
        self._rest = b""

    def read(self, size: int = -1) -> bytes:
        assert self.source is not None
        if not self._rest:
            self._rest = self.source.readline()
            if not self._rest:
                return b""
            self.line += 1
        if self.line != self.slow_line:
            given, self._rest = self._rest, b""
            return given
        length = _utf8_length(self._rest[0])  # one character
        given, self._rest = self._rest[:length], self._rest[length:]
        self.column += 1
        return given


def _utf8_length(lead: int) -> int:
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


# -- RDF/XML: untrusted XML (DESIGN.md §7) -------------------------------------------------------


class _CheckedXml:
    """An RDF/XML document's bytes as pyoxigraph reads them, checked by lxml on the way: its
    prolog before pyoxigraph sees any of it, then every byte, 64 KiB at a time, before it is
    handed on (pyoxigraph asks for 2 KiB at a time; lxml would take longer over as many)."""

    def __init__(self, source: InputStream, shown: str) -> None:
        from lxml import etree

        self._source, self._shown = source, shown
        self._error = etree.XMLSyntaxError
        # The options of ldids.safexml: no DTD loaded, no entity expanded, nothing fetched.
        nothing = cast("etree.ParserTarget[None]", _Nothing())
        self._parser = etree.XMLParser(
            target=nothing, resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
        )
        self._checked = self._check(_prolog(source, shown))
        self._offset = 0
        self._ended = False

    def _check(self, data: bytes) -> bytes:
        try:
            if data:
                self._parser.feed(data)
            else:
                self._ended = True
                self._parser.close()
        except self._error as error:
            raise _malformed(error, self._shown) from None
        return data

    def read(self, size: int = -1) -> bytes:
        if self._offset == len(self._checked):
            if self._ended:
                return b""
            self._checked, self._offset = self._check(self._source.read(1 << 16)), 0
        end = len(self._checked) if size is None or size < 0 else self._offset + size
        data = self._checked[self._offset : end]
        self._offset += len(data)
        return data


class _Nothing:
    """An lxml parser target that keeps nothing: the parser checks the document and builds no
    tree (a target without start/end/data methods costs no Python call per element)."""

    def close(self) -> None:
        return None


def _malformed(error: Any, shown: str) -> InputError:
    line, column = error.position if error.position else (error.lineno, 0)
    return InputError(f"malformed XML: {error.msg}", source=shown, line=max(line, 1), column=max(column, 1))


_REFUSED_ENTITIES = "refused: the document declares XML entities (a DTD internal subset)"


def _prolog(source: InputStream, shown: str) -> bytes:
    """The document's first bytes, up to its root element's start at least, once ldids.safexml's
    checks pass: no entity declared, no external DTD named."""
    from lxml import etree

    from ldids.safexml import _declared_entity

    reader = etree.XMLPullParser(
        events=("start",), resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    head = bytearray()
    while True:
        piece = source.read(1 << 16)
        head += piece
        declared = _declared_entity(bytes(head))
        if declared is not None:
            line = head.count(b"\n", 0, declared) + 1
            column = declared - (head.rfind(b"\n", 0, declared) + 1) + 1
            raise InputError(_REFUSED_ENTITIES, source=shown, line=line, column=column)
        if not piece:  # no element: what is wrong is said as the document is read
            return bytes(head)
        try:
            reader.feed(piece)
        except etree.XMLSyntaxError as error:
            raise _malformed(error, shown) from None
        for _, root in reader.read_events():
            info = root.getroottree().docinfo
            dtd = info.internalDTD
            if dtd is not None and any(True for _ in dtd.iterentities()):
                raise InputError(_REFUSED_ENTITIES, source=shown, line=1, column=1)
            if info.system_url:
                raise InputError(
                    f"refused: the document names an external DTD ({info.system_url})", source=shown, line=1, column=1
                )
            return bytes(head)


def _format(name: str) -> RdfFormat:
    import pyoxigraph

    return getattr(pyoxigraph.RdfFormat, _OXIGRAPH_NAMES[name])  # type: ignore[no-any-return]
