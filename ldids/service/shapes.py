"""Shapes sent to the service never reach the network (DESIGN §7): the one check the
service makes of a user's shapes graph before it is used, in one place.

Refused, whatever the shape they appear in (constraint, target or rule):
- SPARQL text (``sh:select``, ``sh:ask``, ``sh:construct``, ``sh:update``, SHACL-AF §5, §6
  and SHACL §5) that names a ``SERVICE`` (SPARQL 1.1 Federated Query), or a ``FROM`` /
  ``FROM NAMED`` dataset, or is an update that ``LOAD``s: each fetches a graph from elsewhere;
- ``owl:imports`` (SHACL §3.3.2 lets an engine follow them);
- a graph named to be read from elsewhere: ``sh:shapesGraph`` (SHACL §3.3.1), SHACL-JS
  libraries (``sh:jsLibrary``, ``sh:jsLibraryURL``).
"""

from __future__ import annotations

import re

from rdflib import Graph, Literal
from rdflib.namespace import OWL, SH

__all__ = ["UnsafeShapesError", "check_shapes"]

_SPARQL_TEXT = (SH.select, SH.ask, SH.construct, SH.update)
_REMOTE = (OWL.imports, SH.shapesGraph, SH.jsLibrary, SH.jsLibraryURL)
# Keywords as SPARQL 1.1 reads them: case-insensitive, whole words (§19.8 grammar).
# Conservative: the word inside a string or an IRI's last segment is refused too.
_FETCHING = re.compile(r"(?<![\w:?$/#])(SERVICE|FROM|LOAD)(?![\w:/#])", re.IGNORECASE)


class UnsafeShapesError(ValueError):
    """Shapes that would make the engine fetch something; 422 in the service."""


def check_shapes(graph: Graph) -> None:
    """Raise UnsafeShapesError if ``graph`` names anything the engine would fetch."""
    for predicate in _REMOTE:
        for subject, value in graph.subject_objects(predicate):
            raise UnsafeShapesError(
                f"{graph.qname(predicate)} {value} (of {subject}) would read a graph from elsewhere"
            )
    for predicate in _SPARQL_TEXT:
        for subject, query in graph.subject_objects(predicate):
            found = _FETCHING.search(str(query)) if isinstance(query, Literal) else None
            if found is not None:
                raise UnsafeShapesError(
                    f"the SPARQL of {subject} uses {found.group(1).upper()}, which reads from elsewhere: "
                    "the service runs no query that reaches another store"
                )
