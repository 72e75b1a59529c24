"""N-Triples, N-Quads, Turtle and TriG read by pyoxigraph, which conforms to the W3C RDF 1.1
test suites (tests/test_w3c_rdf.py) and validates IRIs (RFC 3987) and language tags
(BCP 47), its terms given to the passes as rdflib terms."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pyoxigraph as ox
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.errors import InputError
from ldids.ntriples import Quad
from ldids.rdf.files import Format

__all__ = ["OXIGRAPH_FORMATS", "check_base", "keep_prefixes", "oxigraph_quads"]

OXIGRAPH_FORMATS = {
    "nt": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS,
    "turtle": ox.RdfFormat.TURTLE,
    "trig": ox.RdfFormat.TRIG,
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
    """The statements of an N-Triples, N-Quads, Turtle or TriG document, as rdflib terms.

    Blank nodes get labels of their own per document (two files' ``_:b`` are two nodes),
    or, given ``blank_nodes``, the nodes that dictionary holds for their labels. A UTF-8 byte
    order mark is an encoding's signature, not data (RFC 3629 §6): it is passed over."""
    parser = ox.parse(
        data[len(_BOM) :] if data.startswith(_BOM) else data,
        OXIGRAPH_FORMATS[fmt.name],
        base_iri=base,
        rename_blank_nodes=blank_nodes is None,
    )
    converted = _Terms(data, source, blank_nodes)
    try:
        for quad in parser:
            name = quad.graph_name
            yield (
                converted.term(quad.subject),
                converted.term(quad.predicate),
                converted.term(quad.object),
                None if isinstance(name, ox.DefaultGraph) else converted.term(name),
            )
    except SyntaxError as error:
        message = _OX_WHERE.sub("", str(error.msg)) or "not RDF"
        raise InputError(f"syntax error: {message}", source=source, line=error.lineno, column=error.offset) from error
    if prefixes is not None:
        prefixes.update(parser.prefixes)  # the document's @prefix / PREFIX declarations, read whole


class _Terms:
    """pyoxigraph's terms as rdflib's. RDF 1.2's triple terms and base directions, which
    pyoxigraph reads, have no rdflib term (nor a place in ldids' RDF 1.1): refused."""

    def __init__(self, data: bytes, source: str, blank_nodes: dict[str, BNode] | None) -> None:
        self.data = data
        self.source = source
        self.blank_nodes = blank_nodes

    def term(self, node: object) -> Node:
        if isinstance(node, ox.NamedNode):
            return URIRef(node.value)
        if isinstance(node, ox.BlankNode):
            if self.blank_nodes is None:
                return BNode(node.value)
            return self.blank_nodes.setdefault(node.value, BNode())
        if isinstance(node, ox.Literal):
            if node.direction is not None:
                raise self.rdf_1_2("a literal with a base direction (@lang--dir)", rb"@[A-Za-z0-9-]*--(?:ltr|rtl)")
            if node.language:
                return Literal(node.value, lang=node.language)
            datatype = node.datatype.value
            # A simple literal is an xsd:string (RDF 1.1 §3.3); rdflib writes it without one.
            return Literal(node.value) if datatype == _XSD_STRING else Literal(node.value, datatype=URIRef(datatype))
        raise self.rdf_1_2("a triple term (<<( ... )>>, << ... >>)", rb"<<")

    def rdf_1_2(self, what: str, pattern: bytes) -> InputError:
        found = re.search(pattern, self.data)
        line = column = None
        if found is not None:
            before = self.data[: found.start()]
            line = before.count(b"\n") + 1
            column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        return InputError(
            f"RDF 1.2 is not read: {what} (ldids reads RDF 1.1)", source=self.source, line=line, column=column
        )
