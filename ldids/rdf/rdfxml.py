"""RDF/XML, read by pyoxigraph as it streams by, with lxml reading every byte first.

One reader for both paths, the whole graph (:mod:`ldids.rdf.io`) and the streamed dump
(:mod:`ldids.dumps.rdf_stream`), so that they cannot differ. lxml does what pyoxigraph does
not:

- RDF/XML is untrusted XML (DESIGN.md §7): a document that declares entities or names an
  external DTD is refused before pyoxigraph reads any of it (pyoxigraph expands entities: a
  "billion laughs" file would stall it), as :mod:`ldids.safexml` refuses them;
- a malformed document, or one cut short (which pyoxigraph accepts), is an error with a line
  and a column;
- the lexical form of an ``rdf:parseType="Literal"`` property element's content is the
  exclusive canonical XML, with comments, of that content (RDF 1.1 XML Syntax §7.2.17 and
  §2.8; Exclusive XML Canonicalization 1.0). pyoxigraph writes it its own way: it drops
  comments, and on each top-level element repeats every namespace in scope, twice where the
  element declares one itself, which is not well-formed XML. lxml's canonical form replaces
  it (W3C RDF/XML test ``xml-canon-test001``: ``<br />`` is ``<br></br>``);
- the namespaces the document declares, which Turtle and TriG output keep as prefixes.

A literal whose datatype is given as ``rdf:datatype`` keeps its text as written: only content
RDF/XML itself makes into a literal is canonicalized. pyoxigraph's error messages say no
position: :func:`locate` reads the document again to find the line and column.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import IO, Any, Literal, cast
from urllib.parse import urljoin

import pyoxigraph as ox
from lxml import etree

from ldids.errors import InputError, offset_of, place
from ldids.rdf import wellformed
from ldids.rdf.files import InputStream

__all__ = ["Document", "canonical_content", "locate", "malformed", "says_literal", "well_formed"]

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_PARSE_TYPE = f"{{{_RDF}}}parseType"
_DATATYPE = f"{{{_RDF}}}datatype"
_ID = f"{{{_RDF}}}ID"
_XML_LITERAL = _RDF + "XMLLiteral"
#: What lxml is given at a time: pyoxigraph asks for 2 KiB at a time, lxml would take longer over as many.
_CHUNK = 1 << 16
_REFUSED_ENTITIES = "refused: the document declares XML entities (a DTD internal subset)"


class Document:
    """The statements of one RDF/XML document (``source``, named ``shown`` in errors), parsed
    as it is read: :meth:`pieces` gives them some thousands at a time. A syntax error is
    pyoxigraph's ``SyntaxError`` (see :func:`locate`) or lxml's, an :class:`InputError` with
    the line and column."""

    def __init__(
        self,
        source: InputStream,
        shown: str,
        base: str | None,
        *,
        rename_blank_nodes: bool,
        literals: bool = True,
        checked: bool = False,
        path: str | None = None,
    ) -> None:
        """``literals`` false says the document holds no XML literal (it does not say "Literal"
        anywhere, see :func:`says_literal`): lxml then only checks it, building no tree.
        ``checked`` says the caller checks the document is well-formed (:func:`well_formed`,
        in another process: :mod:`ldids.rdf.xmlcheck`) and it holds no XML literal: lxml
        then reads only its prolog, for entities, a DTD and the namespaces. ``path``, with
        ``checked``, names the plain file ``source`` reads, which pyoxigraph then reads itself."""
        self._checked = _CheckedXml(source, shown, base, literals, checked=checked)
        read: object = self._checked
        if checked and path is not None:
            # Nothing to see on the way: pyoxigraph reads the file from its start, in Rust,
            # with no Python call per read (3-5% of its time).
            self._quads = ox.parse(
                path=path, format=ox.RdfFormat.RDF_XML, base_iri=base, rename_blank_nodes=rename_blank_nodes
            )
            return
        if checked and source.seekable():
            source.seek(0)
            read = source
        self._quads = ox.parse(
            input=cast("IO[bytes]", read),
            format=ox.RdfFormat.RDF_XML,
            base_iri=base,
            rename_blank_nodes=rename_blank_nodes,
        )

    @property
    def prefixes(self) -> dict[str, str]:
        """The namespaces declared so far, by prefix (the first declaration of a prefix)."""
        return self._checked.prefixes

    def pieces(self, size: int) -> Iterator[Iterable[ox.Quad]]:
        """The statements, ``size`` at a time; a document that holds no XML literal gives them
        in one piece, as pyoxigraph parses them."""
        if self._checked.tree is None:
            yield self._quads
            return
        literals = self._checked.literals
        while True:
            # lxml has read past every statement of the piece, so their literals are queued.
            piece = list(itertools.islice(self._quads, size))
            if not piece:
                if literals.pending():
                    raise _out_of_step()
                return
            yield _canonicalized(piece, literals) if literals.pending() else piece


def _canonicalized(piece: list[ox.Quad], literals: _Literals) -> list[ox.Quad]:
    """The piece with each XML literal RDF/XML made given its canonical lexical form, in the
    order the document holds them (lxml queues them as pyoxigraph gives them: at the end of
    their property element)."""
    out = []
    for quad in piece:
        value = quad.object
        if isinstance(value, ox.Literal) and value.datatype.value == _XML_LITERAL:
            entry = literals.next()
            canonical, entry[1] = entry[0], entry[1] - 1
            if entry[1] == 0:
                literals.queue.popleft()
            if canonical is not None:
                literal = ox.Literal(canonical, datatype=ox.NamedNode(_XML_LITERAL))
                quad = ox.Quad(quad.subject, quad.predicate, literal, quad.graph_name)
        out.append(quad)
    return out


def _out_of_step() -> RuntimeError:
    # Never expected: were the two readers to disagree on a document's XML literals, no
    # statement is written rather than one with another literal's value.
    return RuntimeError("ldids: the XML literals lxml and pyoxigraph read from an RDF/XML document differ")


def canonical_content(element: etree._Element) -> str:
    """The content of ``element`` as exclusive canonical XML with comments (Exclusive XML
    Canonicalization 1.0, over C14N 1.0 §2.3): text escaped, each child element with the
    namespaces it uses and no others, comments and processing instructions as written."""
    parts = [_text(element.text)]
    for child in element:
        if isinstance(child, etree._Comment):
            parts.append(f"<!--{child.text or ''}-->")
        elif isinstance(child, etree._ProcessingInstruction):
            parts.append(f"<?{child.target}{' ' + child.text if child.text else ''}?>")
        else:
            parts.append(etree.tostring(child, method="c14n", exclusive=True, with_comments=True).decode("utf-8"))
        parts.append(_text(child.tail))
    return "".join(parts)


def _text(text: str | None) -> str:
    # C14N 1.0 §2.3, text nodes: & < > and carriage return as references.
    if not text:
        return ""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#xD;")


class _CheckedXml:
    """The document's bytes as pyoxigraph reads them, read by lxml on the way: its prolog
    before pyoxigraph sees any of it, then every byte, 64 KiB at a time, before it is handed
    on. lxml builds the tree in C, no Python call per element; after each piece, the
    top-level elements read whole give up their XML literals (:class:`_Literals`) and are
    dropped, so the tree lxml keeps is about one of them at a time."""

    def __init__(self, source: InputStream, shown: str, base: str | None, literals: bool, *, checked: bool) -> None:
        self._source, self._shown = source, shown
        head, root, self.prefixes = _prolog(source, shown)
        self.tree: etree.XMLPullParser | None = None
        self._parser: Any = None
        if checked:
            pass
        elif literals:
            # The one event asked for is the root's start, to hold the tree lxml builds.
            events: tuple[Literal["start"], ...] = ("start",) if root else ()
            self.tree = etree.XMLPullParser(events=events, tag=root, base_url=base, **wellformed.OPTIONS)
            self._parser = self.tree
        else:
            self._parser = wellformed.checker()
        self.literals = _Literals()
        self._ended = False
        self._checked = self._check(head)
        self._offset = 0

    def _check(self, data: bytes) -> bytes:
        if self._parser is None:
            self._ended = not data
            return data
        try:
            if data:
                self._parser.feed(data)
            else:
                self._ended = True
                self._parser.close()
                if self.tree is None:  # the fast check does not say namespace errors
                    wellformed.check_namespaces(cast("IO[bytes]", self._source))
        except etree.XMLSyntaxError as error:
            raise _malformed(error, self._shown) from None
        except wellformed.MalformedError as fault:
            raise malformed(fault, self._shown) from None
        if self.tree is not None:
            self.literals.see(data)
            if self.literals.root is None:
                for _, root in self.tree.read_events():
                    self.literals.root = root
                    break
            self.literals.collect(ended=self._ended)
        return data

    def read(self, size: int = -1) -> bytes:
        if self._offset == len(self._checked):
            if self._ended:
                return b""
            self._checked, self._offset = self._check(self._source.read(_CHUNK)), 0
        end = len(self._checked) if size is None or size < 0 else self._offset + size
        data = self._checked[self._offset : end]
        self._offset += len(data)
        return data


#: The property elements whose content RDF/XML makes an rdf:XMLLiteral (and a few it does not:
#: a datatype IRI with "XMLLiteral" in it is resolved and compared in Python), outside any XML
#: literal (whose content is not RDF/XML).
_LITERAL_ELEMENTS = (
    "descendant-or-self::*[(@rdf:parseType = 'Literal' or contains(@rdf:datatype, 'XMLLiteral'))"
    " and not(ancestor::*[@rdf:parseType = 'Literal'])]"
)
_READ_WHOLE = etree.XPath(f"*[position() < last()]/{_LITERAL_ELEMENTS}", namespaces={"rdf": _RDF})
_ALL = etree.XPath(f"*/{_LITERAL_ELEMENTS}", namespaces={"rdf": _RDF})
_IN = etree.XPath(_LITERAL_ELEMENTS, namespaces={"rdf": _RDF})


def _elements(root: etree._Element) -> list[etree._Element]:
    """The elements in ``root``: not the comments and processing instructions between them,
    which lxml counts as children too (and the XPaths above, ``*``, do not)."""
    return [child for child in root if isinstance(child.tag, str)]


class _Literals:
    """The XML literals of a document in the order pyoxigraph gives them (the order their
    property elements end, which is their document order: such elements do not nest), each
    ``[canonical lexical form or None (keep pyoxigraph's), times pyoxigraph gives it]``."""

    def __init__(self) -> None:
        self.root: etree._Element | None = None
        self.queue: deque[list[Any]] = deque()
        self._taken = 0  # literal elements of the last top-level element queued already
        # Whether the document so far says "Literal" (parseType="Literal", rdf:XMLLiteral): if
        # not, it has no XML literal, and the tree needs no search.
        self._seen = False
        self._tail = b""

    def see(self, data: bytes) -> None:
        if not self._seen:
            self._seen = b"Literal" in self._tail + data[:16] or b"Literal" in data
            self._tail = data[-16:]

    def pending(self) -> bool:
        """Whether pyoxigraph may have given XML literals not yet taken: any queued, or any in
        the top-level element lxml is still in."""
        if self.queue:
            return True
        last = self._last() if self._seen else None
        if last is None:
            return False
        return len(cast("list[etree._Element]", _IN(last))) > self._taken

    def collect(self, *, ended: bool) -> None:
        """Queue the literals of the top-level elements read whole (all, at the end), and drop them."""
        root = self.root
        if root is None or len(_elements(root)) < (1 if ended else 2):
            return
        if self._seen:
            found = cast("list[etree._Element]", (_ALL if ended else _READ_WHOLE)(root))
            for element in found[self._taken :]:
                self._queue(element)
            self._taken = 0
        last = self._last()
        del root[: len(root) if ended or last is None else root.index(last)]

    def next(self) -> list[Any]:
        """The next literal's entry. pyoxigraph can give a literal of the top-level element
        lxml is still in; lxml has read the literal's end (it reads ahead), so it is taken
        from there."""
        last = self._last()
        if not self.queue and last is not None:
            found = cast("list[etree._Element]", _IN(last))
            # All but the last found have ended (they do not nest: the last starts after their
            # end); the last may not have, unless it is the one pyoxigraph asks for.
            for element in found[self._taken : -1]:
                self._queue(element)
            self._taken = max(self._taken, len(found) - 1)
            while not self.queue and self._taken < len(found):
                self._queue(found[self._taken])
                self._taken += 1
        if not self.queue:
            raise _out_of_step()
        return self.queue[0]

    def _last(self) -> etree._Element | None:
        """The top-level element lxml is in, or read last."""
        elements = [] if self.root is None else _elements(self.root)
        return elements[-1] if elements else None

    def _queue(self, element: etree._Element) -> None:
        if element.get(_PARSE_TYPE) == "Literal":
            canonical: str | None = canonical_content(element)
        elif urljoin(element.base or "", element.get(_DATATYPE, "")) == _XML_LITERAL:
            canonical = None  # the text as written
        else:
            return  # another datatype: not an XML literal
        # rdf:ID on a property element reifies its statement: the literal is given twice,
        # as the object and as the rdf:object of the reification (RDF 1.1 XML Syntax §7.3).
        self.queue.append([canonical, 2 if element.get(_ID) is not None else 1])


def well_formed(source: InputStream, shown: str) -> None:
    """Read ``source`` to its end: an :class:`InputError` with the line and column if it is not
    well-formed XML, as :class:`Document` says when lxml reads in step (no tree is built)."""
    try:
        wellformed.check(cast("IO[bytes]", source))
    except wellformed.MalformedError as fault:
        raise malformed(fault, shown) from None


def says_literal(data: bytes) -> bool:
    """Whether a document may hold an XML literal: ``rdf:parseType="Literal"`` and the
    datatype ``rdf:XMLLiteral`` both say "Literal" (in UTF-8, ldids' only RDF/XML encoding
    that pyoxigraph reads)."""
    return data.find(b"Literal") >= 0


def malformed(fault: wellformed.MalformedError, shown: str) -> InputError:
    """The error of a document that is not well-formed XML, named ``shown``."""
    return InputError(fault.message, source=shown, line=fault.line, column=fault.column)


def _malformed(error: Any, shown: str) -> InputError:
    return malformed(wellformed.MalformedError.of(error), shown)


def _prolog(source: InputStream, shown: str) -> tuple[bytes, str | None, dict[str, str]]:
    """The document's first bytes, up to its root element's start at least, once ldids.safexml's
    checks pass (no entity declared, no external DTD named), the root's tag, and the
    namespaces the root declares, by prefix (kept as prefixes for Turtle and TriG output)."""
    from ldids.safexml import _declared_entity

    reader = etree.XMLPullParser(
        events=("start",), resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    head = bytearray()
    while True:
        piece = source.read(_CHUNK)
        head += piece
        declared = _declared_entity(bytes(head))
        if declared is not None:
            line = head.count(b"\n", 0, declared) + 1
            column = declared - (head.rfind(b"\n", 0, declared) + 1) + 1
            raise InputError(_REFUSED_ENTITIES, source=shown, line=line, column=column)
        if not piece:  # no element: what is wrong is said as the document is read
            return bytes(head), None, {}
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
            prefixes = {prefix: namespace for prefix, namespace in root.nsmap.items() if prefix}
            return bytes(head), str(root.tag), prefixes


# -- Where pyoxigraph's error is --------------------------------------------------------------

#: The document's bytes again, from the start.
Reopen = Callable[[], AbstractContextManager[InputStream]]


def locate(reopen: Reopen, base: str | None, message: str = "") -> tuple[int, int] | None:
    """The line and column at which pyoxigraph's RDF/XML parser fails (it says no position):
    the document (``reopen()``: its bytes from the start) read again a line at a time, then
    the line the error came in a character at a time. The parser fails once it has read the
    whole start tag or text that holds the fault: where its ``message`` quotes the faulty
    value (an IRI), the place is that value's, the last written before the failure."""
    line = _failing(reopen, base, _Trickle(None))
    if line is None:
        return None
    column = _failing(reopen, base, _Trickle(line)) or 1
    quoted = _QUOTED.search(message)
    if quoted is not None:
        found = _value_before(reopen, line, column, quoted.group(1))
        if found is not None:
            return found
    return line, column


# A value pyoxigraph's message quotes: "error while parsing IRI 'http://a/b c': ...".
_QUOTED = re.compile(r"'([^']{1,4096})'")


def _value_before(reopen: Reopen, line: int, column: int, value: str) -> tuple[int, int] | None:
    """Where ``value`` is last written (as it is, or as XML writes '&') before the place
    ``line``, ``column`` of the document, within the 64 KiB before it; None if not there."""
    try:
        with reopen() as source:
            data = source.read()
    except InputError:
        return None
    end = offset_of(data, line, column)
    for written in (value, value.replace("&", "&amp;")):
        at = data.rfind(written.encode("utf-8"), max(0, end - (1 << 16)), end)
        if at >= 0:
            return place(data, at)
    return None


def _failing(reopen: Reopen, base: str | None, trickle: _Trickle) -> int | None:
    """The line (or, trickling a line, the column) at which the parser fails."""
    try:
        with reopen() as source:
            trickle.source = source
            try:
                for _ in ox.parse(input=cast("IO[bytes]", trickle), format=ox.RdfFormat.RDF_XML, base_iri=base):
                    pass
            except SyntaxError:
                return trickle.column if trickle.slow_line is not None else trickle.line
    except InputError:  # the file is gone, or cannot be read again
        return None
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
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        if not self._rest:
            self._rest = self._next_line()
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

    def _next_line(self) -> bytes:
        """The source's next line with its end: LF, CR LF or CR alone (XML 1.0 §2.11), as
        the places of errors count lines."""
        assert self.source is not None
        while True:
            found = _LINE_END.search(self._buffer)
            # A CR last in what was read may be a CR LF's: read on.
            if found is not None and not (found.group() == b"\r" and found.end() == len(self._buffer)):
                line, self._buffer = self._buffer[: found.end()], self._buffer[found.end() :]
                return line
            more = self.source.read(1 << 16)
            if not more:
                line, self._buffer = self._buffer, b""
                return line
            self._buffer += more


_LINE_END = re.compile(rb"\r\n?|\n")


def _utf8_length(lead: int) -> int:
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
