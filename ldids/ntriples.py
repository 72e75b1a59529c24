"""N-Triples / N-Quads terms and lines, written exactly (RDF 1.1 N-Triples §2.3, §8).

rdflib's ``Term.n3()`` may write Turtle-only syntax (long quotes, prefixed datatypes); the
crosswalk and the line-based outputs need N-Triples, so it is written here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rdflib.term import Literal, Node

__all__ = ["Quad", "exact_literal", "iri", "literal", "quad_line", "term"]

#: (subject, predicate, object, graph); graph None is the default graph.
Quad = tuple["Node", "Node", "Node", "Node | None"]

_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}


# IRIREF excludes controls, space and <>"{}|^`\ : they are UCHAR-escaped (N-Triples §2.3).
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_STRING_UNSAFE = re.compile(r'[\\"\n\r]')


def iri(value: str) -> str:
    """An IRI in N-Triples syntax."""
    if _IRI_UNSAFE.search(value) is not None:
        value = _IRI_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04X}", value)
    return f"<{value}>"


def literal(lexical: str, language: str | None = None, datatype: str | None = None) -> str:
    """A literal in N-Triples syntax."""
    if _STRING_UNSAFE.search(lexical) is not None:
        lexical = _STRING_UNSAFE.sub(lambda match: _STRING_ESCAPES[match.group()], lexical)
    if language:
        return f'"{lexical}"@{language}'
    # An explicit ^^xsd:string is kept: rdflib tells the two apart, and so must a round trip.
    if datatype is not None:
        return f'"{lexical}"^^{iri(datatype)}'
    return f'"{lexical}"'


def exact_literal(
    lexical: str, language: str | None = None, datatype: str | None = None, kind: type[Literal] | None = None
) -> Literal:
    """An rdflib literal (of class ``kind``) whose lexical form is ``lexical`` exactly.

    Lexical forms are data. rdflib's constructor makes others of some: of any datatype it knows
    unless told not to (``normalize=False``: "01"^^xsd:integer would be "1"), and of
    xsd:normalizedString and xsd:token whatever it is told (rdflib 7, ``Literal.__new__``: " a  b "
    as "a b"). Every literal ldids makes of data is made here."""
    from rdflib.term import Literal, URIRef

    made = (kind or Literal)(
        lexical, lang=language or None, datatype=None if datatype is None else URIRef(datatype), normalize=False
    )
    if str.__str__(made) != lexical:
        exact = str.__new__(type(made), lexical)
        exact._language, exact._datatype = made._language, made._datatype
        exact._value, exact._ill_typed = made._value, made._ill_typed
        made = exact
    return made


def term(node: Node) -> str:
    """One term in N-Triples syntax.

    >>> from rdflib.term import Literal
    >>> term(Literal("a\\"b", lang="en"))
    '"a\\\\"b"@en'
    """
    # Imported here: writing N-Triples text (iri, literal) needs no rdflib, and a streamed
    # dump that never builds an RDF term never pays for importing it.
    from rdflib.term import BNode, Literal, URIRef

    if isinstance(node, URIRef):
        return iri(str(node))
    if isinstance(node, BNode):
        return f"_:{node}"
    if isinstance(node, Literal):
        return literal(str(node), node.language, None if node.datatype is None else str(node.datatype))
    raise TypeError(f"not an RDF term: {node!r}")


def quad_line(quad: Quad) -> str:
    """One N-Quads line (an N-Triples line for the default graph), without the newline."""
    subject, predicate, object_, graph = quad
    tail = "" if graph is None else f" {term(graph)}"
    return f"{term(subject)} {term(predicate)} {term(object_)}{tail} ."
