"""What the graph passes decide about one term, on its text alone.

:mod:`ldids.passes.graph` works on rdflib terms; a streamed dump works on N-Triples text and
builds no RDF term for the lines it rewrites (nor imports rdflib to do so). Both decide
with these functions, so they decide alike.
"""

from __future__ import annotations

import itertools
from typing import Any

from ldids.errors import ParseError, Problem
from ldids.passes.config import Config
from ldids.schemes import pid as pid_module
from ldids.schemes import poi as poi_module
from ldids.schemes.scheme import Scheme

__all__ = [
    "IDENTIFIER_DATATYPE_IRIS",
    "SAME_AS_IRI",
    "bare_scheme",
    "evict_oldest_half",
    "fedora_object_of_poi",
    "form_links",
    "identify",
]

SAME_AS_IRI = "http://www.w3.org/2002/07/owl#sameAs"
#: Datatypes of literals whose whole lexical form may be an identifier (DESIGN.md §2):
#: xsd:string and xsd:anyURI. Language-tagged literals are text in a language, and other
#: datatypes are values of their own.
IDENTIFIER_DATATYPE_IRIS = frozenset(
    {"http://www.w3.org/2001/XMLSchema#string", "http://www.w3.org/2001/XMLSchema#anyURI"}
)


def evict_oldest_half(table: dict[Any, Any]) -> None:
    """Make room in a bounded cache: forget the older half (dicts keep insertion order),
    so the identifiers a dump is repeating right now stay known."""
    for key in list(itertools.islice(table, len(table) // 2)):
        del table[key]


def identify(
    text: str, is_literal: bool, predicate: str | None, config: Config
) -> tuple[str, str | None] | tuple[str, tuple[Problem, ...]] | None:
    """What one term's text is: None (no identifier), (scheme, its canonical form, or None if
    the text already is), or (scheme, problems) for an invalid identifier.

    ``predicate`` is the predicate of a literal object (bare forms are identifiers only
    under the configured predicates, DESIGN.md §2); the caller has ruled out
    language-tagged literals and datatypes other than xsd:string and xsd:anyURI.
    """
    scheme = config.registry.detect(text, bare=False) or bare_scheme(text, is_literal, predicate, config)
    if scheme is None:
        return None
    try:
        canonical = scheme.canonical(text)
    except ParseError as error:
        return scheme.name, tuple(error.problems)
    return scheme.name, None if canonical == text else canonical


def bare_scheme(text: str, is_literal: bool, predicate: str | None, config: Config) -> Scheme[Any] | None:
    """The scheme of a text written in no prefixed form, where configuration makes bare
    forms identifiers (DESIGN.md §2): a literal under a bare-form predicate, or a PID in
    one of the configured namespaces."""
    registry = config.registry
    if is_literal and predicate is not None:
        if predicate in config.bare_pid_predicates and pid_module.claims(text):
            return registry["fedora-pid"]
        if predicate in config.bare_handle_predicates:
            return registry["handle"]
    if config.pid_namespaces and pid_module.claims(text):
        namespace = text.split(":", 1)[0].split("%", 1)[0]
        if namespace in config.pid_namespaces:
            return registry["fedora-pid"]
    return None


def form_links(original: str, is_iri: bool, canonical: str, config: Config) -> bool:
    """:func:`form_link` on texts: does rewriting ``original`` to ``canonical`` call for a link?"""
    return original != canonical and (is_iri or config.registry.detect(original, bare=False) is not None)


def fedora_object_of_poi(text: str, config: Config) -> str | None:
    """The info:fedora IRI of the object a POI names, if the POI's namespace is served by
    Fedora (``config.fedora_oai_namespaces``) and its local part is a PID."""
    if not text.startswith(poi_module.POI_PREFIX):
        return None
    try:
        value = poi_module.parse(text)
    except ParseError:
        return None
    if value.namespace not in config.fedora_oai_namespaces or pid_module.check(value.local):
        return None
    return pid_module.parse(value.local).iri
