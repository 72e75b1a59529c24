"""OAI-PMH metadata, in any format, read as RDF statements about the record (DESIGN.md §6a).

One mapping reads every format; a few rules adapt it to the formats that need them. What is
read and makes no statement is counted by kind in :attr:`Reading.skipped`, never dropped
silently. Identifiers in the metadata are not looked for here: the passes find them in the
statements made (one decision function, :mod:`ldids.passes.decision`).

**The element mapping.** The element a record's ``metadata`` holds (the format's root) is a
*container*: its attributes and child elements are statements about the record. Each
element within becomes one statement about the node of its parent:

- the predicate is the element's namespace name followed by its local name, with a ``#``
  between them when the namespace ends in none of ``/``, ``#``, ``:``: DCMI's elements and
  terms keep their own IRIs (``http://purl.org/dc/terms/abstract``), MODS gets
  ``http://www.loc.gov/mods/v3#identifier``. An unqualified element takes the namespace
  of its nearest qualified ancestor, as an XML Schema's unqualified local elements do;
- an element with text only is a literal: the text without leading and trailing white
  space (an empty element is the empty literal), in the language of the nearest
  ``xml:lang`` (attribute values have none);
- an element with attributes or child elements is a blank node: its text, if any, is its
  ``rdf:value``; each attribute is a statement (predicate built as for an element, an
  unqualified attribute taking its element's namespace; value a plain literal, except
  that an ``xsi:type`` QName whose prefix is declared is the IRI it stands for); each
  child element is a statement by these same rules;
- XML plumbing makes no statement: namespace declarations, ``xsi:schemaLocation``,
  ``xsi:noNamespaceSchemaLocation``, comments and processing instructions.

**Formats.**

- ``oai_dc``, DCMI terms (``qdc``, ``oai_dcterms``) and OLAC: the mapping as it stands gives
  DCMI's predicates, ``dc:identifier`` on the record itself; OLAC's typed elements are nodes,
  ``[ rdf:value "English" ; xsi:type olac:language ; olac:code "en" ]``.
- DataCite (kernel 3, 4 and any ``kernel-N``): the list wrappers (``creators``, ``titles``,
  ``alternateIdentifiers``, ...) are containers, so their items are statements about the
  record. ``<identifier identifierType="Handle">1765/315</identifier>`` becomes
  ``<record> datacite:identifier [ rdf:value "1765/315" ; datacite:identifierType "Handle" ]``:
  the value, with its type as a statement beside it. In the ``oai_datacite`` wrapper,
  ``payload`` and the ``resource`` in it are containers; ``schemaVersion``,
  ``datacentreSymbol`` and ``isReferenceQuality`` are statements about the record.
- MODS: the mapping as it stands (``<identifier type="hdl">`` is a node with its
  ``rdf:value`` and ``mods:type``); the ``mods`` elements of a ``modsCollection`` are containers.
- RDF/XML (an ``rdf:RDF`` element, as the root or anywhere within, e.g. Europeana EDM): read
  as RDF/XML, every triple kept, relative IRIs resolved against the record's IRI.
- Any other format: the mapping, and a note that names its namespace (:attr:`Reading.generic`).

Counted as skipped: ``empty-metadata`` (a ``metadata`` element with no element in it),
``text-outside-elements`` (text in a container, which has no node of its own to hold it),
``invalid-language-tag`` (an ``xml:lang`` RDF cannot hold: the literal is kept without it),
``namespace-not-an-iri`` (an element or attribute whose namespace is no absolute IRI, so
no predicate can be made of it: it is left out with its content).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree
from rdflib.namespace import RDF
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.ntriples import Quad
from ldids.rdf.oxigraph import embedded_rdf_xml
from ldids.rdf.reference import has_scheme
from ldids.schemes._chars import iri_forbidden

__all__ = ["Reading", "element", "elements", "format_of", "metadata", "own_text"]

_XSI = "http://www.w3.org/2001/XMLSchema-instance"
_XSI_TYPE = f"{{{_XSI}}}type"
_PLUMBING = frozenset({f"{{{_XSI}}}schemaLocation", f"{{{_XSI}}}noNamespaceSchemaLocation"})
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_RDF_RDF = f"{{{RDF}}}RDF"
_OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}dc"
_DCMI = frozenset({"http://purl.org/dc/elements/1.1/", "http://purl.org/dc/terms/"})
_MODS = "http://www.loc.gov/mods/v3"
_OLAC = "http://www.language-archives.org/OLAC/1.1/"
_DATACITE = re.compile(r"http://datacite\.org/schema/kernel-\d+(?:\.\d+)*")
_OAI_DATACITE = re.compile(r"http://schema\.datacite\.org/oai/oai-\d+(?:\.\d+)*/")
#: DataCite's list wrappers, kernel 3 and 4 (4.4 added relatedItems).
_DATACITE_LISTS = frozenset(
    {
        "creators", "titles", "subjects", "contributors", "dates", "alternateIdentifiers", "relatedIdentifiers",
        "sizes", "formats", "rightsList", "descriptions", "geoLocations", "fundingReferences", "relatedItems",
    }
)  # fmt: skip


@dataclass
class Reading:
    """What reading one file needs and learns besides statements: where it is, and counts."""

    source: str | None
    #: Elements (and text) read that made no statement, by kind.
    skipped: Counter[str] = field(default_factory=Counter)
    #: Records read by the generic mapping alone, by the namespace of their format.
    generic: Counter[str] = field(default_factory=Counter)
    #: Lines before the document being read (a file may hold several).
    line_offset: int = 0

    def line(self, element: etree._Element) -> int | None:
        """The line of ``element`` in the file."""
        return None if element.sourceline is None else element.sourceline + self.line_offset


def format_of(root: etree._Element) -> str | None:
    """The name of a metadata format ldids knows by its root element, or None.

    >>> format_of(etree.fromstring('<resource xmlns="http://datacite.org/schema/kernel-4"/>'))
    'datacite'
    """
    namespace = etree.QName(root).namespace or ""
    if root.tag == _OAI_DC:
        return "oai_dc"
    if root.tag == _RDF_RDF:
        return "rdf-xml"
    if _DATACITE.fullmatch(namespace) or _OAI_DATACITE.fullmatch(namespace):
        return "datacite"
    if namespace == _MODS:
        return "mods"
    if namespace == _OLAC:
        return "olac"
    children = elements(root)
    if children and all(etree.QName(child).namespace in _DCMI for child in children):
        return "dcterms"
    return None


def metadata(record: URIRef, container: etree._Element, reading: Reading) -> Iterator[Quad]:
    """The content of a record's ``metadata`` element as statements about ``record``."""
    roots = elements(container)
    if own_text(container):
        reading.skipped["text-outside-elements"] += 1
    if not roots:
        reading.skipped["empty-metadata"] += 1
        return
    for root in roots:
        if format_of(root) is None:
            reading.generic[etree.QName(root).namespace or ""] += 1
        if root.tag == _RDF_RDF:
            yield from _rdf_xml(record, root, reading)
        else:
            scope = _Scope(record, _namespace(container), _language(container))
            yield from _content(record, root, scope, reading, True)


def element(subject: URIRef, node: etree._Element, reading: Reading) -> Iterator[Quad]:
    """One element as a statement about ``subject`` (Identify descriptions, ``about``)."""
    if node.tag == _RDF_RDF:
        yield from _rdf_xml(subject, node, reading)
        return
    parent = node.getparent()
    scope = _Scope(subject, _namespace(parent) if parent is not None else "", _language(parent))
    yield from _element(subject, node, scope, reading)


@dataclass(frozen=True)
class _Scope:
    base: URIRef  # relative IRIs of embedded RDF/XML resolve against it
    namespace: str  # for unqualified names
    language: str | None


def _element(subject: Node, node: etree._Element, scope: _Scope, reading: Reading) -> Iterator[Quad]:
    predicate = _predicate(etree.QName(node), scope.namespace, reading)
    if predicate is None:
        return
    if not _data_attributes(node) and not elements(node):
        yield (subject, predicate, _literal(own_text(node), node.get(_XML_LANG, scope.language), reading), None)
        return
    value = BNode()
    yield (subject, predicate, value, None)
    yield from _content(value, node, scope, reading, False)


def _content(subject: Node, node: etree._Element, scope: _Scope, reading: Reading, container: bool) -> Iterator[Quad]:
    """The attributes, text and child elements of ``node`` as statements about ``subject``;
    ``scope`` is its parent's."""
    scope = _Scope(scope.base, etree.QName(node).namespace or scope.namespace, node.get(_XML_LANG, scope.language))
    for name, value in _data_attributes(node):
        predicate = _predicate(etree.QName(name), scope.namespace, reading)
        if predicate is not None:
            yield (subject, predicate, _attribute(node, name, value), None)
    text = own_text(node)
    if text and container:
        reading.skipped["text-outside-elements"] += 1
    elif text:
        yield (subject, RDF.value, _literal(text, scope.language, reading), None)
    for child in elements(node):
        if child.tag == _RDF_RDF:
            yield from _rdf_xml(scope.base, child, reading)
        elif _is_container(child, node):
            yield from _content(subject, child, scope, reading, True)
        else:
            yield from _element(subject, child, scope, reading)


def _is_container(node: etree._Element, parent: etree._Element) -> bool:
    """Elements whose content is about their parent's node: the formats' own wrappers."""
    name = etree.QName(node)
    namespace, local = name.namespace or "", name.localname
    if _DATACITE.fullmatch(namespace):
        if local in _DATACITE_LISTS:
            return not _data_attributes(node) and not own_text(node)
        return local == "resource" and etree.QName(parent).localname == "payload"
    if _OAI_DATACITE.fullmatch(namespace):
        return local == "payload"
    return namespace == _MODS and local == "mods" and parent.tag == f"{{{_MODS}}}modsCollection"


def _predicate(qualified: etree.QName, namespace: str, reading: Reading) -> URIRef | None:
    return _join(qualified.namespace or namespace, qualified.localname, reading)


def _join(namespace: str, local: str, reading: Reading | None) -> URIRef | None:
    if not has_scheme(namespace) or any(True for _ in iri_forbidden(namespace)):
        if reading is not None:
            reading.skipped["namespace-not-an-iri"] += 1
        return None
    return URIRef(namespace + local if namespace.endswith(("/", "#", ":")) else f"{namespace}#{local}")


def _attribute(node: etree._Element, name: str, value: str) -> Node:
    if name == _XSI_TYPE:
        prefix, _, local = value.strip().rpartition(":")
        namespace = node.nsmap.get(prefix or None)
        if namespace is not None and local:
            iri = _join(namespace, local, None)
            if iri is not None:
                return iri
    return Literal(value)


def _literal(text: str, language: str | None, reading: Reading) -> Literal:
    if language:
        try:
            return Literal(text, lang=language)
        except ValueError:
            reading.skipped["invalid-language-tag"] += 1
    return Literal(text)


def _rdf_xml(base: URIRef, node: etree._Element, reading: Reading) -> Iterator[Quad]:
    # Relative IRIs resolve against the record's IRI, as RFC 3986 §5 says.
    yield from embedded_rdf_xml(node, str(base), reading.source, "the RDF/XML in the record")


def elements(node: etree._Element | None) -> list[etree._Element]:
    """The child elements (not comments or processing instructions)."""
    return [] if node is None else [child for child in node if isinstance(child.tag, str)]


def _data_attributes(node: etree._Element) -> list[tuple[str, str]]:
    return [(name, value) for name, value in node.attrib.items() if name not in _PLUMBING and name != _XML_LANG]


def own_text(node: etree._Element) -> str:
    """The text directly in ``node`` (around its children, not within them), stripped."""
    return "".join([node.text or "", *(child.tail or "" for child in node)]).strip()


def _namespace(node: etree._Element | None) -> str:
    """The namespace unqualified names take at ``node``: its own, else its nearest qualified ancestor's."""
    while node is not None:
        namespace = etree.QName(node).namespace
        if namespace:
            return namespace
        node = node.getparent()
    return ""


def _language(node: etree._Element | None) -> str | None:
    """The ``xml:lang`` in force at ``node``."""
    while node is not None:
        language = node.get(_XML_LANG)
        if language is not None:
            return language
        node = node.getparent()
    return None
