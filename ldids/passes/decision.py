"""The one decision about a term: what the passes do with it, on its text and context alone.

Every path decides here: the graph passes (:mod:`ldids.passes.graph`, on rdflib terms),
streamed dumps (:mod:`ldids.dumps.stream`, on N-Triples text, and the compiled loop that
memoizes its answers), Dask workers, live stores and the service. Caches remember
decisions; nothing else decides.

A term in a position, with its context (the predicate of a literal object, the subject's
PID namespace), is one of (DESIGN.md §2, §3):

- nothing ldids knows (``None``): most terms;
- ``rewrite``: a valid identifier not in canonical form; ``canonical`` is its IRI text;
- ``canonical``: a valid identifier already in canonical form;
- ``leave``: shaped like an identifier but left alone, for a ``reason`` the run counts
  (a bare PID of a namespace that is not the subject's, ...);
- ``invalid``: an identifier with ``problems``, reported and never rewritten.

``links`` are the ``owl:sameAs`` statements (as pairs of IRI texts) the term calls for:
from its canonical IRI to the form it was written in, when that form is an IRI (a bare
PID or handle is none), and from a POI whose namespace a Fedora repository serves to the
object its PID names. Statement-level links (identity predicates) are the graph passes'.

>>> from ldids.passes.config import Config
>>> config = Config(bare_pid_predicates=frozenset({DC_IDENTIFIER}))
>>> decide("demo:1", True, DC_IDENTIFIER, "demo", config).action
'rewrite'
>>> decide("catkey:123", True, DC_IDENTIFIER, "demo", config).reason
'bare-pid-foreign-namespace'
>>> decide("urn:isbn:0451450523", True, DC_IDENTIFIER, "urn", config).reason
'bare-pid-uri-scheme'
"""

from __future__ import annotations

import itertools
from typing import Any, Literal, NamedTuple

from ldids.errors import ParseError, Problem
from ldids.passes.config import Config
from ldids.schemes import pid as pid_module
from ldids.schemes import poi as poi_module
from ldids.schemes.scheme import Scheme

__all__ = [
    "DC_IDENTIFIER",
    "IDENTIFIER_DATATYPE_IRIS",
    "REASONS",
    "SAME_AS_IRI",
    "Action",
    "Decision",
    "decide",
    "evict_oldest_half",
    "is_identifier_literal",
    "named_text",
    "subject_namespace",
]

SAME_AS_IRI = "http://www.w3.org/2002/07/owl#sameAs"
DC_IDENTIFIER = "http://purl.org/dc/elements/1.1/identifier"
#: Datatypes of literals whose whole lexical form may be an identifier (DESIGN.md §2):
#: xsd:string and xsd:anyURI. Language-tagged literals are text in a language, and other
#: datatypes are values of their own.
IDENTIFIER_DATATYPE_IRIS = frozenset(
    {"http://www.w3.org/2001/XMLSchema#string", "http://www.w3.org/2001/XMLSchema#anyURI"}
)

Action = Literal["rewrite", "canonical", "leave", "invalid"]

#: Why a term shaped like an identifier is left alone; each is counted in the summary.
REASONS: dict[str, str] = {
    "bare-pid-foreign-namespace": "a bare PID under a bare-PID predicate whose namespace is neither the "
    "subject's own PID namespace nor a configured pid-namespaces entry",
    "bare-pid-uri-scheme": "a bare-PID-shaped value whose 'namespace' is a URI scheme (urn:, doi:, http:, ...)",
    "bare-pid-percent-encoded": "another scheme's identifier percent-encoded (oai%3A..., hdl%3A...)",
}
_FOREIGN_REASON = {"uri-scheme": "bare-pid-uri-scheme", "percent-encoded": "bare-pid-percent-encoded"}


class Decision(NamedTuple):
    """What becomes of one term (see the module docstring). A named tuple: streamed dumps
    make one for every term they meet for the first time, millions on a large dump."""

    action: Action
    scheme: str | None = None
    #: The canonical IRI text (``rewrite``), or None.
    canonical: str | None = None
    #: Why the term is left alone (``leave``), one of :data:`REASONS`.
    reason: str | None = None
    problems: tuple[Problem, ...] = ()
    #: owl:sameAs links the term calls for, as (subject IRI, object IRI) texts.
    links: tuple[tuple[str, str], ...] = ()


_new = tuple.__new__
#: The decisions to leave a bare PID alone, one per reason: made once, given to every such term.
_LEAVE = {reason: Decision("leave", "fedora-pid", reason=reason) for reason in REASONS}


_XSD_TOKEN = "http://www.w3.org/2001/XMLSchema#token"
_XSD_NORMALIZED = "http://www.w3.org/2001/XMLSchema#normalizedString"
_BREAKS = str.maketrans("\t\n\r", "   ")


def named_text(lexical: str, datatype: str | None) -> str:
    """The text a term names (an IRI's, or a literal's of ``datatype``, as an identity
    predicate's object): an xsd:token's and an xsd:normalizedString's is their lexical form
    with its white space collapsed or replaced (XSD 1.1 Part 2 §3.4.3, §3.4.2: facet
    whiteSpace); the data keeps the lexical form as written."""
    if datatype not in (_XSD_TOKEN, _XSD_NORMALIZED):
        return lexical
    text = lexical.translate(_BREAKS)  # replace; collapse also joins the runs of spaces and trims
    return text if datatype == _XSD_NORMALIZED else " ".join(part for part in text.split(" ") if part)


def is_identifier_literal(language: str | None, datatype: str | None) -> bool:
    """Whether a literal with this language tag and datatype may hold an identifier."""
    return language is None and (datatype is None or datatype in IDENTIFIER_DATATYPE_IRIS)


def decide(
    text: str, is_literal: bool, predicate: str | None, namespace: str | None, config: Config, linkable: bool = True
) -> Decision | None:
    """The decision about a term whose text (IRI, or lexical form of an identifier literal)
    is ``text``.

    ``predicate`` is the predicate of a literal object (bare forms are identifiers only
    under the configured predicates), ``namespace`` the PID namespace the statement's
    subject carries (:func:`subject_namespace`); both only matter for bare forms.
    ``linkable``: the term is a subject or object (a POI of a Fedora-served namespace is
    linked to its object only there). The caller has ruled out literals
    :func:`is_identifier_literal` rejects.
    """
    scheme = config.registry.detect_prefixed(text)
    prefixed = scheme is not None
    if scheme is None:
        if (predicate is None or not is_literal) and not config.pid_namespaces:
            return None  # most terms of a dump: no prefixed form, and no context for a bare one
        found = _bare(text, is_literal, predicate, namespace, config)
        if found is None or isinstance(found, Decision):
            return found
        scheme = found
    try:
        canonical = scheme.canonical(text)
    except ParseError as error:
        return _new(Decision, ("invalid", scheme.name, None, None, tuple(error.problems), ()))
    changed = canonical != text
    links: tuple[tuple[str, str], ...] = ()
    # A link names the form the term was written in, so that form must be an IRI: an IRI,
    # or a literal in a prefixed form; a bare PID or handle is none (README, decisions).
    if changed and (prefixed or not is_literal):
        links = ((canonical, text),)
    if linkable and config.fedora_oai_namespaces:
        fedora = fedora_object_of_poi(canonical, config)
        if fedora is not None:
            links += ((canonical, fedora),)
    # Made as the tuple it is: the commonest call of a streamed dump's first pass over its
    # terms, where the named tuple's keyword-taking constructor costs a tenth of the time.
    if changed:
        return _new(Decision, ("rewrite", scheme.name, canonical, None, (), links))
    return _new(Decision, ("canonical", scheme.name, None, None, (), links))


def _bare(
    text: str, is_literal: bool, predicate: str | None, namespace: str | None, config: Config
) -> Scheme[Any] | Decision | None:
    """The scheme of a text written in no prefixed form, where the context makes bare forms
    identifiers (DESIGN.md §2), or the decision to leave it alone, or None."""
    registry = config.registry
    if is_literal and predicate is not None:
        if predicate in config.bare_pid_predicates and pid_module.claims(text):
            foreign = registry.foreign(text)
            if foreign is not None:
                return _LEAVE[_FOREIGN_REASON[foreign]]
            written = _namespace(text)
            if written == namespace or written in config.pid_namespaces:
                return registry["fedora-pid"]
            return _LEAVE["bare-pid-foreign-namespace"]
        if predicate in config.bare_handle_predicates:
            return registry["handle"]
        return None
    # An IRI written as a bare PID (<demo:1>) of a configured namespace: the configuration
    # says that namespace is Fedora's, and a URI scheme's name cannot be configured (Config).
    if (
        not is_literal
        and config.pid_namespaces
        and pid_module.claims(text)
        and _namespace(text) in config.pid_namespaces
        and registry.foreign(text) is None
    ):
        return registry["fedora-pid"]
    return None


def _namespace(text: str) -> str:
    """The namespace part of a bare-PID-shaped text (before ':' or an escaped '%3A')."""
    return text.split(":", 1)[0].split("%", 1)[0]


def subject_namespace(subject: str | None, config: Config) -> str | None:
    """The PID namespace a statement's subject carries (DESIGN.md §2): of an
    ``info:fedora/`` subject, or of the PID an OAI identifier's or POI's local part is.

    >>> from ldids.passes.config import Config
    >>> subject_namespace("info:fedora/uuid:5035a48a", Config()), subject_namespace("http://ex.org/a", Config())
    ('uuid', None)
    """
    if subject is None:
        return None
    scheme = config.registry.detect_prefixed(subject)
    return None if scheme is None else scheme.pid_namespace(subject)


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


def evict_oldest_half(table: dict[Any, Any]) -> None:
    """Make room in a bounded cache: forget the older half (dicts keep insertion order),
    so the identifiers a dump is repeating right now stay known."""
    for key in list(itertools.islice(table, len(table) // 2)):
        del table[key]
