"""The common shapes of RDF/XML, Turtle and TriG, read in C as pyoxigraph reads them.

Most dumps are written in one shape per syntax, the one serializers write: in RDF/XML, an
``rdf:RDF`` root of node elements naming their subjects, holding property elements with
``rdf:resource``, ``rdf:nodeID`` or text (``ldids/rdf/_rdfxml.c``); in Turtle and TriG,
directives, then statements of absolute IRIs, prefixed names, labelled blank nodes and
literals, in graph blocks for TriG (``ldids/rdf/_turtle.c``). A piece of a large document
(:mod:`ldids.dumps.pieces`) in that shape is read by these functions in a fraction of
pyoxigraph's time: they give pyoxigraph's statements, byte for byte, as N-Quads lines with
the literals as :func:`ldids.dumps.rdf_stream.as_written` writes them, or None for any other
shape (a relative IRI, ``xml:base``, ``[]``, a double, ...), and pyoxigraph reads the
piece and says what is wrong with it, if anything is. pyoxigraph is their reference:
``benchmarks/fuzz_rdfxml.py`` and ``benchmarks/fuzz_turtle.py`` hold them equal
(tests/test_rdfxml_fast.py, tests/test_turtle_fast.py).

Without the extensions built, or with ``LDIDS_PURE_PYTHON`` set, both answer None.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["rdf_xml", "turtle"]

_rdfxml: ModuleType | None
_turtle: ModuleType | None
try:
    from ldids.rdf import _rdfxml, _turtle
except ImportError:  # built without a C compiler: pyoxigraph reads every document
    _rdfxml = _turtle = None


def rdf_xml(document: bytes) -> bytes | None:
    """The N-Quads lines of the RDF/XML ``document``, which must be well-formed XML (the
    caller checks it: :mod:`ldids.rdf.wellformed`), or None."""
    if _rdfxml is None or os.environ.get("LDIDS_PURE_PYTHON"):
        return None
    lines: bytes | None = _rdfxml.nquads(document)
    return lines


def turtle(document: bytes, trig: bool, directives_before: int | None = None) -> bytes | None:
    """The N-Quads lines of the Turtle (``trig``: TriG) ``document``, or None. A document
    with a directive after its first statement, or starting at byte ``directives_before`` or
    later (a piece's own text, after the directives it was given), is declined: what is read
    ends in the state it started in, which a piece read by pyoxigraph is checked for."""
    if _turtle is None or os.environ.get("LDIDS_PURE_PYTHON"):
        return None
    before = len(document) if directives_before is None else directives_before
    lines: bytes | None = _turtle.nquads(document, trig, before)
    return lines
