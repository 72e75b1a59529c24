"""``ldids:canonical(?x)``: the decision function (:func:`ldids.passes.decision.decide`) as a
SPARQL function, for SHACL-SPARQL constraints and for stores.

``ldids:canonical`` is ``https://w3id.org/ldids/vocab#canonical``. Given an IRI, or a literal
that may hold an identifier (plain, ``xsd:string``, ``xsd:anyURI``), written in a prefixed
form, it returns the canonical IRI that ``decide`` gives it (the term itself, as an IRI, when
it is canonical already). Anything else is an error, which SPARQL turns into an unbound
value (SPARQL 1.1 §17.2, §17.3): a term that is no identifier, an invalid identifier, a
language-tagged literal, a blank node. The function sees one term and no statement, so a bare
PID (``demo:1``, an identifier only under a bare-PID predicate, DESIGN.md §2) is none here.

Registering is explicit, never done at import (DESIGN.md §8): :func:`register_rdflib` adds it
to rdflib's SPARQL engine (and so to pyshacl's SHACL-SPARQL); pyoxigraph takes custom functions
per query, as :func:`oxigraph_functions` gives them.

>>> from rdflib import Graph
>>> register_rdflib()
>>> query = 'SELECT (<https://w3id.org/ldids/vocab#canonical>("oai:arXiv.org:hep-th/9901001") AS ?c) {}'
>>> str(next(iter(Graph().query(query)))[0])
'http://purl.org/poi/arXiv.org/hep-th/9901001'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ldids.passes.config import Config
from ldids.passes.decision import decide, is_identifier_literal

if TYPE_CHECKING:
    import pyoxigraph

__all__ = ["CANONICAL", "canonical_text", "oxigraph_functions", "register_rdflib"]

CANONICAL = "https://w3id.org/ldids/vocab#canonical"
_CONFIG = Config()


@lru_cache(maxsize=65536)
def canonical_text(text: str, is_literal: bool) -> str | None:
    """The canonical IRI of a term's text, as :func:`decide` gives it; None if it has none."""
    decision = decide(text, is_literal, None, None, _CONFIG)
    if decision is None or decision.action not in ("rewrite", "canonical"):
        return None
    return decision.canonical if decision.action == "rewrite" else text


def _rdflib_canonical(term: Any) -> Any:
    from rdflib.plugins.sparql.sparql import SPARQLError
    from rdflib.term import Literal, URIRef

    if isinstance(term, Literal):
        datatype = None if term.datatype is None else str(term.datatype)
        found = canonical_text(str(term), True) if is_identifier_literal(term.language, datatype) else None
    elif isinstance(term, URIRef):
        found = canonical_text(str(term), False)
    else:
        found = None
    if found is None:
        raise SPARQLError(f"ldids:canonical: no identifier: {term!r}")
    return URIRef(found)


def register_rdflib() -> None:
    """Make ``ldids:canonical`` known to rdflib's SPARQL engine (pyshacl's too); idempotent."""
    from rdflib.plugins.sparql import operators
    from rdflib.term import URIRef

    # rdflib evaluates the argument first: an error in it stays an error (SPARQL 1.1 §17.3).
    operators.register_custom_function(URIRef(CANONICAL), _rdflib_canonical, override=True)  # type: ignore[arg-type]


def _oxigraph_canonical(term: object) -> pyoxigraph.NamedNode | None:
    import pyoxigraph

    if isinstance(term, pyoxigraph.Literal):
        datatype = term.datatype.value
        # pyoxigraph gives plain literals their RDF 1.1 datatype xsd:string.
        found = canonical_text(term.value, True) if is_identifier_literal(term.language, datatype) else None
    elif isinstance(term, pyoxigraph.NamedNode):
        found = canonical_text(term.value, False)
    else:
        found = None
    return None if found is None else pyoxigraph.NamedNode(found)


def oxigraph_functions() -> dict[
    pyoxigraph.NamedNode,
    Callable[..., pyoxigraph.NamedNode | pyoxigraph.BlankNode | pyoxigraph.Literal | pyoxigraph.Triple | None],
]:
    """``custom_functions`` for :meth:`pyoxigraph.Store.query` that define ``ldids:canonical``
    (returning None is pyoxigraph's way of raising a SPARQL error)."""
    import pyoxigraph

    return {pyoxigraph.NamedNode(CANONICAL): _oxigraph_canonical}
