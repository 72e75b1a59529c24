"""OAI-PMH 2.0 responses read as RDF statements (DESIGN.md §6a).

A file holds one response; or several, one after the other (``<OAI-PMH>…</OAI-PMH><OAI-PMH>…``,
each with or without an XML declaration: not one XML document, so it is split where each
document's root element ends, found by a scan of the markup that knows comments, CDATA
sections, processing instructions and quoted attribute values); or a document whose root
wraps responses (``<harvest><OAI-PMH>…</OAI-PMH>…</harvest>``). Malformed or truncated XML
is an error that gives the line and column in the file: never a partial success.

From each response (GetRecord, ListRecords, ListIdentifiers, Identify):

- each record header: its identifier as an IRI, with ``ldids:datestamp``, ``ldids:setSpec``
  and ``ldids:deleted``;
- each record's metadata, whatever its format, as statements about that IRI, and the
  content of each ``about`` element as a statement about it (:mod:`ldids.rdf.oai_formats`);
- Identify: ``ldids:repositoryIdentifier`` and ``ldids:sampleIdentifier`` of the base URL
  from the ``oai-identifier`` description (whose ``scheme`` and ``delimiter`` are the
  constants ``oai`` and ``:``); its other elements and descriptions as statements about
  the base URL by the element mapping of :mod:`ldids.rdf.oai_formats`.

The envelope (``responseDate``, ``request``, ``resumptionToken``) is protocol, not data: it
makes no statement and is not counted. Error responses (``noRecordsMatch``,
``idDoesNotExist``, ...) hold no statements; they are returned as notes, not raised: a
harvest that found nothing is not malformed input. Anything else read that makes no
statement is counted in :attr:`Response.skipped`, by kind (besides those of
:mod:`ldids.rdf.oai_formats`):

- ``record-without-identifier``: a record whose header has no identifier names nothing
  (a note gives its line; the other records are kept);
- ``unsupported-verb ListSets``, ``unsupported-verb ListMetadataFormats``: each set or
  format listed (the repository's structure, not records about anything);
- ``unknown-element NAME``: an element where OAI-PMH has none of that name;
- ``not-oai-pmh NAME``: an element of a wrapping document that is no response and holds none;
- ``identify-without-baseURL``: an Identify response, whose statements need its base URL.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree
from rdflib.namespace import XSD
from rdflib.term import Literal, URIRef

from ldids import safexml
from ldids.errors import InputError, offset_of, place
from ldids.namespace import LDIDS
from ldids.ntriples import Quad
from ldids.rdf import oai_formats
from ldids.rdf.oai_formats import Reading
from ldids.rdf.reference import has_scheme
from ldids.schemes._chars import iri_forbidden
from ldids.schemes.oai import DESCRIPTION_NAMESPACE

__all__ = ["OAI_PMH", "Response", "is_oai_pmh", "read"]

OAI_PMH = "http://www.openarchives.org/OAI/2.0/"
_O = f"{{{OAI_PMH}}}"
_D = f"{{{DESCRIPTION_NAMESPACE}}}"
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SECOND = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_ENVELOPE = frozenset({f"{_O}responseDate", f"{_O}request", f"{_O}resumptionToken"})
#: The verbs whose answers list records, and the element each record is: a whole record, or
#: its header alone (ListIdentifiers).
_RECORDS = {f"{_O}GetRecord": f"{_O}record", f"{_O}ListRecords": f"{_O}record", f"{_O}ListIdentifiers": f"{_O}header"}


@dataclass
class Response:
    """The statements of a file's responses, the OAI-PMH errors they reported, notes, and
    what was read and made no statement, counted by kind."""

    quads: list[Quad] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


def is_oai_pmh(root: etree._Element) -> bool:
    return root.tag == f"{_O}OAI-PMH"


def read(data: bytes, source: str | None = None) -> Response:
    """Read the OAI-PMH responses of one file; raises InputError if it is malformed or holds none."""
    response = Response()
    reading = Reading(source, response.skipped)
    for offset, root in _documents(data, source):
        reading.line_offset = offset
        found = _responses(root, reading)
        if not found:
            raise InputError(
                f"not an OAI-PMH response: the root element is {root.tag!r}", source=source, line=reading.line(root)
            )
        for element in found:
            response.quads.extend(_response(element, reading, response))
    for namespace, count in sorted(reading.generic.items()):
        plural = "record" if count == 1 else "records"
        response.notes.append(f"{count} {plural} in {namespace or 'no namespace'} read by the generic element mapping")
    return response


# -- Files of several responses --------------------------------------------------------------

# One piece of markup: comment, CDATA section, processing instruction (the XML declaration
# too), document type declaration, or tag (quoted attribute values may hold ">").
_MARKUP = re.compile(
    rb"<(?:!--.*?-->|!\[CDATA\[.*?\]\]>|\?.*?\?>|!DOCTYPE(?:[^\[>]|\[.*?\])*>"
    rb"|(/?)[^\s/>!?](?:[^>\"']|\"[^\"]*\"|'[^']*')*>)",
    re.S,
)
_DECLARATION = re.compile(rb"<\?xml\s")
_BOM = b"\xef\xbb\xbf"


def _documents(data: bytes, source: str | None) -> list[tuple[int, etree._Element]]:
    """The root element of each XML document in ``data``, with the lines before it."""
    try:
        return [(0, safexml.parse(data, source))]
    except InputError:
        starts = _starts(data)
        if len(starts) == 1:
            raise  # one document, malformed: its own error says where
    roots = []
    for start, end in zip(starts, [*starts[1:], len(data)], strict=True):
        before = place(data, start)[0] - 1
        try:
            roots.append((before, safexml.parse(data[start:end], source)))
        except InputError as error:
            raise _in_file(error, data, start) from error
    return roots


def _in_file(error: InputError, data: bytes, start: int) -> InputError:
    """An error of the document that starts at byte ``start`` of the file ``data``, at its
    place in the file (safexml's places count lines as XML does, and columns in characters:
    the document's first line shifts by the characters before it); the parser's message
    names lines of the document, shifted too."""
    if error.line is None:
        return InputError(error.message, source=error.source)
    document = data[start:]
    line, column = place(data, start + offset_of(document, error.line, error.column or 1))
    lines = line - error.line
    message = re.sub(r"\bline (\d+)", lambda found: f"line {int(found.group(1)) + lines}", error.message)
    message = re.sub(r", column \d+$", f", column {column}", message)
    return InputError(message, source=error.source, line=line, column=column)


def _starts(data: bytes) -> list[int]:
    """Offsets where the documents of ``data`` start: after a root element closed, at the
    next XML declaration, document type declaration or element. Where the markup cannot be
    scanned, the rest is left to the XML parser, which says what is wrong."""
    starts = [0]
    depth, closed, position = 0, False, 0
    while (opening := data.find(b"<", position)) >= 0:
        markup = _MARKUP.match(data, opening)
        if markup is None:
            break
        token = markup.group(0)
        is_tag = markup.group(1) is not None
        begins = (is_tag and not token.startswith(b"</")) or token.startswith(b"<!DOCTYPE")
        if depth == 0 and closed and (begins or _DECLARATION.match(token) is not None):
            starts.append(opening - 3 if data[opening - 3 : opening] == _BOM else opening)
            closed = False
        if is_tag and token.startswith(b"</"):
            depth -= 1
            if depth < 0:
                break
            closed = depth == 0
        elif is_tag and not token.endswith(b"/>"):
            depth += 1
        elif is_tag:
            closed = closed or depth == 0
        position = markup.end()
    return starts


def _responses(root: etree._Element, reading: Reading) -> list[etree._Element]:
    """The responses in a document: its root, or those a wrapping root holds."""
    if is_oai_pmh(root):
        return [root]
    if root.find(f".//{_O}OAI-PMH") is None:
        return []
    found: list[etree._Element] = []
    if oai_formats.own_text(root):
        reading.skipped["text-outside-elements"] += 1
    for child in oai_formats.elements(root):
        if is_oai_pmh(child):
            found.append(child)
        elif child.find(f".//{_O}OAI-PMH") is not None:
            found.extend(_responses(child, reading))
        else:
            reading.skipped[f"not-oai-pmh {etree.QName(child).localname}"] += 1
    return found


# -- One response ----------------------------------------------------------------------------


def _response(root: etree._Element, reading: Reading, response: Response) -> Iterator[Quad]:
    for child in oai_formats.elements(root):
        verb = etree.QName(child).localname
        if child.tag == f"{_O}error":
            response.errors.append(f"{child.get('code', 'unknown')}: {(child.text or '').strip()}".rstrip(": "))
        elif child.tag in _ENVELOPE:
            continue
        elif child.tag in _RECORDS:
            for item in oai_formats.elements(child):
                if item.tag == _RECORDS[child.tag]:
                    yield from _record(item, reading, response)
                elif item.tag not in _ENVELOPE:
                    _unknown(item, reading)
        elif child.tag == f"{_O}Identify":
            yield from _identify(child, reading)
        elif child.tag in (f"{_O}ListSets", f"{_O}ListMetadataFormats"):
            listed = sum(1 for item in oai_formats.elements(child) if item.tag not in _ENVELOPE)
            if listed:
                reading.skipped[f"unsupported-verb {verb}"] += listed
        else:
            _unknown(child, reading)


def _unknown(element: etree._Element, reading: Reading) -> None:
    reading.skipped[f"unknown-element {etree.QName(element).localname}"] += 1


def _iri(text: str, element: etree._Element, reading: Reading, what: str) -> URIRef:
    value = text.strip()
    if not has_scheme(value) or any(True for _ in iri_forbidden(value)):
        raise InputError(f"{what} is not an IRI: {value!r}", source=reading.source, line=reading.line(element))
    return URIRef(value)


def _record(record: etree._Element, reading: Reading, response: Response) -> Iterator[Quad]:
    """A ``record`` (or the bare ``header`` of ListIdentifiers) as statements."""
    header = record if record.tag == f"{_O}header" else record.find(f"{_O}header")
    identifier = None if header is None else header.find(f"{_O}identifier")
    if header is None or identifier is None:
        where = reading.line(header if header is not None else record)
        response.notes.append(f"line {where}: a record header without an identifier was skipped")
        reading.skipped["record-without-identifier"] += 1
        return
    subject = _iri(identifier.text or "", identifier, reading, "the header identifier")
    yield from _header(subject, header, identifier, reading)
    if record is header:
        return
    for child in oai_formats.elements(record):
        if child is header:
            continue
        if child.tag == f"{_O}metadata":
            yield from oai_formats.metadata(subject, child, reading)
        elif child.tag == f"{_O}about":
            if oai_formats.own_text(child):
                reading.skipped["text-outside-elements"] += 1
            for element in oai_formats.elements(child):
                yield from oai_formats.element(subject, element, reading)
        else:
            _unknown(child, reading)


def _header(subject: URIRef, header: etree._Element, identifier: etree._Element, reading: Reading) -> Iterator[Quad]:
    for child in oai_formats.elements(header):
        if child is identifier:
            continue
        text = (child.text or "").strip()
        if child.tag == f"{_O}datestamp" and text:
            datatype = XSD.date if _DAY.fullmatch(text) else XSD.dateTime if _SECOND.fullmatch(text) else None
            yield (subject, LDIDS.datestamp, Literal(text, datatype=datatype), None)
        elif child.tag == f"{_O}setSpec":
            yield (subject, LDIDS.setSpec, Literal(text), None)
        elif child.tag != f"{_O}datestamp":
            _unknown(child, reading)
    if header.get("status") == "deleted":
        yield (subject, LDIDS.deleted, Literal(True), None)


def _identify(identify: etree._Element, reading: Reading) -> Iterator[Quad]:
    base = identify.find(f"{_O}baseURL")
    if base is None:
        reading.skipped["identify-without-baseURL"] += 1
        return
    subject = _iri(base.text or "", base, reading, "the baseURL")
    for child in oai_formats.elements(identify):
        if child is base:
            continue
        if child.tag != f"{_O}description":
            yield from oai_formats.element(subject, child, reading)
            continue
        for block in oai_formats.elements(child):
            if block.tag == f"{_D}oai-identifier":
                yield from _oai_identifier(subject, block, reading)
            else:
                yield from oai_formats.element(subject, block, reading)


def _oai_identifier(subject: URIRef, description: etree._Element, reading: Reading) -> Iterator[Quad]:
    for child in oai_formats.elements(description):
        text = (child.text or "").strip()
        if child.tag == f"{_D}repositoryIdentifier" and text:
            yield (subject, LDIDS.repositoryIdentifier, Literal(text), None)
        elif child.tag == f"{_D}sampleIdentifier" and text:
            yield (subject, LDIDS.sampleIdentifier, _iri(text, child, reading, "the sampleIdentifier"), None)
        elif child.tag not in (f"{_D}scheme", f"{_D}delimiter", f"{_D}repositoryIdentifier", f"{_D}sampleIdentifier"):
            _unknown(child, reading)
