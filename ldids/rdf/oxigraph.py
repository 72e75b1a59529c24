"""N-Triples, N-Quads, Turtle, TriG and RDF/XML read by pyoxigraph, which conforms to the W3C
RDF 1.1 test suites (tests/test_w3c_rdf.py, tests/test_rdf_xml.py) and validates IRIs
(RFC 3987) and language tags (BCP 47), its terms given to the passes as rdflib terms. RDF/XML
is read through :mod:`ldids.rdf.rdfxml`, which checks it as untrusted XML."""

from __future__ import annotations

import io
import mmap
import re
from collections.abc import Iterable, Iterator
from contextlib import nullcontext

import pyoxigraph as ox
from lxml import etree
from rdflib.term import BNode, Node, URIRef

from ldids.errors import InputError, place
from ldids.ntriples import Quad, exact_literal
from ldids.rdf import rdfxml
from ldids.rdf.files import Format
from ldids.rdf.formats import resolve_format

__all__ = ["OXIGRAPH_FORMATS", "check_base", "embedded_rdf_xml", "keep_prefixes", "oxigraph_quads", "rdflib_term"]

OXIGRAPH_FORMATS = {
    "nt": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS,
    "turtle": ox.RdfFormat.TURTLE,
    "trig": ox.RdfFormat.TRIG,
    "xml": ox.RdfFormat.RDF_XML,
    "json-ld": ox.RdfFormat.JSON_LD,
}
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_BOM = b"\xef\xbb\xbf"
# pyoxigraph says where in its message too: the message is what is left.
_OX_WHERE = re.compile(r"^Parser error at line \d+ (?:column \d+|between columns \d+ and \d+): |(?: \(line \d+\))+$")


def keep_prefixes(prefixes: dict[str, str], declared: Iterable[tuple[str, str]]) -> None:
    """Add the ``declared`` prefixes a name, and a namespace, not taken already."""
    for prefix, namespace in declared:
        if prefix not in prefixes and namespace not in prefixes.values():
            prefixes[prefix] = namespace


def check_base(base: str) -> None:
    try:
        ox.NamedNode(base)
    except ValueError as error:
        raise InputError(f"the base IRI {base!r} is not an absolute IRI: {error}") from error


def oxigraph_quads(
    data: bytes,
    fmt: Format,
    source: str,
    base: str | None,
    blank_nodes: dict[str, BNode] | None = None,
    prefixes: dict[str, str] | None = None,
) -> Iterator[Quad]:
    """The statements of an N-Triples, N-Quads, Turtle, TriG, RDF/XML or JSON-LD document,
    as rdflib terms.

    Blank nodes get labels of their own per document (two files' ``_:b`` are two nodes),
    or, given ``blank_nodes``, the nodes that dictionary holds for their labels. A UTF-8 byte
    order mark is an encoding's signature, not data (RFC 3629 §6): it is passed over."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    converted = _Terms(data, source, blank_nodes)
    if fmt.name == "xml":
        document = rdfxml.Document(
            io.BytesIO(data), source, base, rename_blank_nodes=blank_nodes is None, literals=rdfxml.says_literal(data)
        )
        pieces: Iterable[Iterable[ox.Quad]] = document.pieces(4096)
    else:
        parser = ox.parse(data, OXIGRAPH_FORMATS[fmt.name], base_iri=base, rename_blank_nodes=blank_nodes is None)
        pieces = (parser,)
    try:
        for piece in pieces:
            for quad in piece:
                name = quad.graph_name
                yield (
                    converted.term(quad.subject),
                    converted.term(quad.predicate),
                    converted.term(quad.object),
                    None if isinstance(name, ox.DefaultGraph) else converted.term(name),
                )
    except SyntaxError as error:
        message = _OX_WHERE.sub("", str(error.msg)) or "not RDF"
        line, column = error.lineno, error.offset
        if line is None and fmt.name == "xml":  # pyoxigraph's RDF/XML parser says no position
            line, column = rdfxml.locate(lambda: nullcontext(io.BytesIO(data)), base, message) or (None, None)
        advice = None
        if base is None and "No scheme found" in message:  # a relative IRI, and no base
            message += " (a relative IRI, and no base IRI to resolve it against)"
            advice = "base"
        raise InputError(f"syntax error: {message}", source=source, line=line, column=column, advice=advice) from error
    except MemoryError as error:  # pyoxigraph's parsers hold a token in a buffer of at most 16 MiB
        raise InputError(f"a term longer than the parser takes ({error})", source=source) from error
    if prefixes is not None:
        # The document's @prefix / PREFIX declarations (RDF/XML: its xmlns: declarations), read whole.
        prefixes.update(document.prefixes if fmt.name == "xml" else parser.prefixes)


def embedded_rdf_xml(element: etree._Element, base: str, source: str | None, what: str) -> list[Quad]:
    """The statements of RDF/XML held in a larger XML document (a FOXML datastream, an OAI-PMH
    record's metadata), read by the reader of RDF/XML files; relative IRIs resolve against
    ``base``. An error says where in ``source`` the RDF/XML is, and what it is."""
    return embedded_rdf_xml_bytes(etree.tostring(element), base, source, what, element.sourceline)


def embedded_rdf_xml_bytes(
    data: bytes, base: str, source: str | None, what: str, line: int | None, *, encoded: bool = False
) -> list[Quad]:
    """:func:`embedded_rdf_xml` of the document ``data`` that starts on ``line`` of
    ``source``; ``encoded``: ``data`` was decoded from the element on that line (base64),
    whose lines are none of the file's, so an error is placed at the element and says
    where in the decoded document it is."""
    try:
        return list(oxigraph_quads(data, resolve_format("xml"), source or "<data>", base))
    except InputError as error:
        if encoded:
            inside = ", ".join(
                f"{name} {value}" for name, value in (("line", error.line), ("column", error.column)) if value
            )
            said = f"{what} (decoded) is not valid RDF/XML{' at ' + inside + ' of it' if inside else ''}"
            raise InputError(f"{said}: {error.message}", source=source, line=line, advice=error.advice) from error
        # The line within the embedded document counts from the line it starts at.
        at = None if line is None else line + (error.line or 1) - 1
        raise InputError(
            f"{what} is not valid RDF/XML: {error.message}", source=source, line=at, advice=error.advice
        ) from error


def rdflib_term(node: object) -> Node:
    """A pyoxigraph IRI, blank node (by its label) or RDF 1.1 literal as rdflib's. A simple
    literal is an xsd:string (RDF 1.1 §3.3): rdflib writes it without one. RDF 1.2's triple
    terms and base directions have no rdflib term: ValueError, saying which."""
    if isinstance(node, ox.NamedNode):
        return URIRef(node.value)
    if isinstance(node, ox.BlankNode):
        return BNode(node.value)
    if isinstance(node, ox.Literal):
        if node.direction is not None:
            raise ValueError(_DIRECTION)
        if node.language:
            return exact_literal(node.value, language=node.language)
        datatype = node.datatype.value
        return exact_literal(node.value, datatype=None if datatype == _XSD_STRING else datatype)
    raise ValueError(_TRIPLE_TERM)


_DIRECTION = "a literal with a base direction (@lang--dir)"
_TRIPLE_TERM = "a triple term (<<( ... )>>, << ... >>)"


class _Terms:
    """pyoxigraph's terms as rdflib's. RDF 1.2's triple terms and base directions, which
    pyoxigraph reads, have no rdflib term (nor a place in ldids' RDF 1.1): refused."""

    def __init__(self, data: bytes, source: str, blank_nodes: dict[str, BNode] | None) -> None:
        self.data = data
        self.source = source
        self.blank_nodes = blank_nodes

    def term(self, node: object) -> Node:
        if isinstance(node, ox.BlankNode) and self.blank_nodes is not None:
            return self.blank_nodes.setdefault(node.value, BNode())
        try:
            return rdflib_term(node)
        except ValueError as error:
            line, column = locate_rdf_1_2(self.data, str(error) == _DIRECTION) or (None, None)
            raise InputError(
                f"RDF 1.2 is not read: {error} (ldids reads RDF 1.1)", source=self.source, line=line, column=column
            ) from None


# Where RDF 1.2 is written in Turtle, TriG or N-Triples text: a triple term's "<<", or a
# literal's base direction (@en--ltr), each outside the strings, IRIs and comments, which
# are passed over whole (a literal may hold "<<").
_PASSED_OVER = (
    rb'"""(?:[^"\\]|\\.|"(?!""))*"""'
    rb"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    rb'|"(?:[^"\\\r\n]|\\.)*"'
    rb"|'(?:[^'\\\r\n]|\\.)*'"
    rb"|#[^\r\n]*"
    rb"|<(?!<)[^<>\s]*>"
)
_TRIPLE_TERM_AT = re.compile(rb"(?:" + _PASSED_OVER + rb")|(?P<at><<)", re.S)
_DIRECTION_AT = re.compile(rb"(?:" + _PASSED_OVER + rb")|(?P<at>@[A-Za-z]+(?:-[A-Za-z0-9]+)*--(?:ltr|rtl))", re.S)


def locate_rdf_1_2(data: bytes | mmap.mmap, direction: bool) -> tuple[int, int] | None:
    """The line and column (1-based, in characters; a line ends at LF, CR LF or CR alone) of
    the first triple term, or with ``direction`` the first base direction, written in Turtle,
    TriG or N-Triples ``data``; None if none is written so (RDF/XML, JSON-LD)."""
    pattern = _DIRECTION_AT if direction else _TRIPLE_TERM_AT
    found = next((match.start("at") for match in pattern.finditer(data) if match.group("at")), None)
    if found is None:
        return None
    return place(data, found)
