"""OAI-PMH 2.0 responses read as RDF statements.

- each record header (GetRecord, ListRecords, ListIdentifiers): its identifier as an IRI,
  with ``ldids:datestamp``, ``ldids:setSpec`` and ``ldids:deleted``;
- each record's ``oai_dc`` metadata as Dublin Core statements about that IRI;
- the Identify ``oai-identifier`` description: ``ldids:repositoryIdentifier`` and
  ``ldids:sampleIdentifier`` of the repository's base URL.

Error responses (``noRecordsMatch``, ``idDoesNotExist``, ...) hold no statements; they are
returned as notes, not raised: a harvest that found nothing is not malformed input. So is a
record header without an identifier (it names nothing, so no statement can be made of it):
it is skipped with a note that gives its line, and the other records are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree
from rdflib.namespace import XSD
from rdflib.term import Literal, URIRef

from ldids import safexml
from ldids.errors import InputError
from ldids.namespace import LDIDS
from ldids.ntriples import Quad
from ldids.rdf.foxml import dublin_core
from ldids.schemes._chars import iri_forbidden
from ldids.schemes.oai import DESCRIPTION_NAMESPACE

__all__ = ["OAI_PMH", "Response", "is_oai_pmh", "read"]

OAI_PMH = "http://www.openarchives.org/OAI/2.0/"
_O = f"{{{OAI_PMH}}}"
_OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}dc"
_D = f"{{{DESCRIPTION_NAMESPACE}}}"
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SECOND = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


@dataclass
class Response:
    """The statements of one response, the OAI-PMH errors it reported, and what was skipped."""

    quads: list[Quad] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def is_oai_pmh(root: etree._Element) -> bool:
    return root.tag == f"{_O}OAI-PMH"


def read(data: bytes, source: str | None = None) -> Response:
    """Read one OAI-PMH response; raises InputError if it is malformed or not OAI-PMH."""
    root = safexml.parse(data, source)
    if not is_oai_pmh(root):
        raise InputError(
            f"not an OAI-PMH response: the root element is {root.tag!r}", source=source, line=root.sourceline
        )
    response = Response()
    for error in root.iterfind(f"{_O}error"):
        response.errors.append(f"{error.get('code', 'unknown')}: {(error.text or '').strip()}".rstrip(": "))
    for header in root.iter(f"{_O}header"):
        if header.find(f"{_O}identifier") is None:
            response.skipped.append(f"line {header.sourceline}: a record header without an identifier was skipped")
            continue
        response.quads.extend(_record(header, source))
    for identify in root.iterfind(f"{_O}Identify"):
        response.quads.extend(_identify(identify, source))
    return response


def _iri(text: str, element: etree._Element, source: str | None, what: str) -> URIRef:
    value = text.strip()
    if not value or any(True for _ in iri_forbidden(value)):
        raise InputError(f"{what} is not an IRI: {value!r}", source=source, line=element.sourceline)
    return URIRef(value)


def _record(header: etree._Element, source: str | None) -> Iterator[Quad]:
    identifier = header.find(f"{_O}identifier")
    assert identifier is not None  # read() skips headers without one
    subject = _iri(identifier.text or "", identifier, source, "the header identifier")
    datestamp = (header.findtext(f"{_O}datestamp") or "").strip()
    if datestamp:
        datatype = XSD.date if _DAY.fullmatch(datestamp) else XSD.dateTime if _SECOND.fullmatch(datestamp) else None
        yield (subject, LDIDS.datestamp, Literal(datestamp, datatype=datatype), None)
    for spec in header.iterfind(f"{_O}setSpec"):
        yield (subject, LDIDS.setSpec, Literal((spec.text or "").strip()), None)
    if header.get("status") == "deleted":
        yield (subject, LDIDS.deleted, Literal(True), None)
    record = header.getparent()
    if record is not None and record.tag == f"{_O}record":
        dc = record.find(f"{_O}metadata/{_OAI_DC}")
        if dc is not None:
            yield from dublin_core(subject, dc)


def _identify(identify: etree._Element, source: str | None) -> Iterator[Quad]:
    base = identify.find(f"{_O}baseURL")
    if base is None:
        return
    subject = _iri(base.text or "", base, source, "the baseURL")
    for description in identify.iterfind(f"{_O}description/{_D}oai-identifier"):
        repository = (description.findtext(f"{_D}repositoryIdentifier") or "").strip()
        sample = description.find(f"{_D}sampleIdentifier")
        if repository:
            yield (subject, LDIDS.repositoryIdentifier, Literal(repository), None)
        if sample is not None and (sample.text or "").strip():
            yield (
                subject,
                LDIDS.sampleIdentifier,
                _iri(sample.text or "", sample, source, "the sampleIdentifier"),
                None,
            )
