"""The ldids vocabulary as a typed Python namespace.

Kept in sync with ``vocab/ldids.ttl`` by ``tests/test_vocab.py``: every term defined there
is an attribute here and nothing else is.
"""

from __future__ import annotations

from rdflib.namespace import DefinedNamespace, Namespace
from rdflib.term import URIRef

__all__ = ["LDIDS", "NAMESPACE_IRI"]

NAMESPACE_IRI = "https://w3id.org/ldids/vocab#"


class LDIDS(DefinedNamespace):
    """Terms of ``https://w3id.org/ldids/vocab#``."""

    _NS = Namespace(NAMESPACE_IRI)
    _fail = True

    # Classes
    Identifier: URIRef
    FedoraPid: URIRef
    InfoFedoraUri: URIRef
    OaiIdentifier: URIRef
    Poi: URIRef
    Handle: URIRef
    CordraIdentifier: URIRef
    Rewrite: URIRef
    Link: URIRef
    # Properties of identifiers
    scheme: URIRef
    namespace: URIRef
    localPart: URIRef
    namingAuthority: URIRef
    originalForm: URIRef
    canonicalForm: URIRef
    # The crosswalk
    position: URIRef
    termKind: URIRef
    statement: URIRef
    rewrittenStatement: URIRef
    kept: URIRef
    # OAI-PMH
    datestamp: URIRef
    setSpec: URIRef
    deleted: URIRef
    repositoryIdentifier: URIRef
    sampleIdentifier: URIRef
