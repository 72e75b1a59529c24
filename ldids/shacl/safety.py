"""Shapes never reach the network (DESIGN.md §7).

A shapes graph comes from a user, or from an HTTP client of the service. Run as SHACL
engines run it, it could make ldids fetch URLs: ``owl:imports`` (pyshacl follows them with
``do_owl_imports``; SHACL §3.3.1 has engines read the imported graphs), a SPARQL ``SERVICE``
in a SPARQL-based constraint, target, rule or function (SHACL §5, SHACL-AF §5, §6, §8),
``FROM``/``FROM NAMED``/``LOAD`` (rdflib's SPARQL engine loads the named graphs' IRIs),
``sh:shapesGraph`` (SHACL §3.1.1: where a data graph's shapes are) and SHACL-JS libraries
(``sh:jsLibraryURL``). :func:`check_shapes` refuses all of them with a
:class:`~ldids.errors.ShapesError` whose code says which; the command line lets a user allow
them (``--allow-network``), the service never does. :func:`check_location` refuses a shapes
graph named by a URL.

>>> from rdflib import Graph
>>> check_shapes(Graph().parse(data="<urn:x:s> <http://www.w3.org/2002/07/owl#imports> <http://ex.org/s> .",
...                            format="turtle"))
Traceback (most recent call last):
...
ldids.errors.ShapesError: <urn:x:s> owl:imports <http://ex.org/s>: shapes never reach the network [shapes.owl-imports]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rdflib import Graph
from rdflib.namespace import OWL, SH
from rdflib.term import Literal, Node, URIRef

from ldids.errors import ShapesError

__all__ = ["check_location", "check_shapes", "sparql_queries"]

#: The properties whose values are SPARQL text (SHACL §5.1, §6.2; SHACL-AF §5.2, §6.2, §8.1).
QUERY_PROPERTIES = (SH.select, SH.ask, SH.construct, SH.update)
_JS_LIBRARY_URL = SH.jsLibraryURL
#: SPARQL string literals (SPARQL 1.1 §19.8 [156]-[159]): removed before looking for keywords,
#: so that a pattern or a message that spells "SERVICE" is no call.
_STRINGS = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n\r]|\\.)*"'
    r"|'(?:[^'\\\n\r]|\\.)*'",
    re.DOTALL,
)
_COMMENTS = re.compile(r"#[^\n\r]*")
_IRIS = re.compile(r"<[^<>\"{}|^`\\\s]*>")
#: Keywords that make a SPARQL engine fetch an IRI: a federated query (SPARQL 1.1 Federated
#: Query §2), a dataset clause (SPARQL 1.1 §13.2, which rdflib loads), an update's LOAD.
_REACHING = re.compile(r"(?<![?$:\w])(SERVICE|FROM|LOAD)\b(?!:)", re.IGNORECASE)


def _name(node: Node) -> str:
    return node.n3() if isinstance(node, URIRef | Literal) else "a blank node"


def sparql_queries(graph: Graph) -> Iterator[tuple[Node, URIRef, str]]:
    """Every SPARQL text of a shapes graph: (the node holding it, its property, the text)."""
    for prop in QUERY_PROPERTIES:
        for holder, text in graph.subject_objects(prop):
            if isinstance(text, Literal):
                yield holder, prop, str(text)


def check_shapes(graph: Graph) -> None:
    """Raise :class:`ShapesError` if running ``graph`` as shapes could reach the network."""
    for subject, imported in graph.subject_objects(OWL.imports):
        raise ShapesError(
            "shapes.owl-imports", f"{_name(subject)} owl:imports {_name(imported)}: shapes never reach the network"
        )
    for subject, target in graph.subject_objects(SH.shapesGraph):
        raise ShapesError(
            "shapes.remote-graph",
            f"{_name(subject)} sh:shapesGraph {_name(target)}: shapes are given, never fetched",
        )
    for subject, url in graph.subject_objects(_JS_LIBRARY_URL):
        raise ShapesError("shapes.javascript", f"{_name(subject)} sh:jsLibraryURL {_name(url)}: no SHACL-JS is run")
    for holder, prop, text in sparql_queries(graph):
        code = _COMMENTS.sub(" ", _IRIS.sub("<>", _STRINGS.sub('""', text)))
        found = _REACHING.search(code)
        if found is not None:
            keyword = found.group(1).upper()
            raise ShapesError(
                f"shapes.sparql-{keyword.lower()}",
                f"{_name(holder)} {graph.namespace_manager.normalizeUri(prop)} uses {keyword}: "
                "shapes never reach the network",
            )


def check_location(location: str) -> None:
    """Raise :class:`ShapesError` if a shapes graph is named by a URL rather than a file."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", location) and not location.lower().startswith("file:"):
        raise ShapesError("shapes.remote-graph", f"{location}: shapes are read from files, never fetched")
