"""FOXML 1.1 (Fedora 3 object exports) read as RDF statements.

For one ``foxml:digitalObject``:

- the object as ``info:fedora/PID`` with each object property (``NAME`` → ``VALUE``);
- each datastream ``info:fedora/PID/DSID``: ``view:disseminates`` from the object, and of
  its current version (the latest CREATED; the last listed on ties) the MIME type, label
  and creation date;
- the current DC datastream's content as statements about the object, by the mapping that
  reads OAI-PMH metadata (:mod:`ldids.rdf.oai_formats`): its ``dc:`` elements, and any
  other element, attribute or nested element in it too, nothing dropped without a count;
- the RDF/XML of the current RELS-EXT and RELS-INT versions, inline or base64-encoded.

Another datastream's inline XML is not read: each such current version is counted in the
summary's ``skipped`` (``foxml-inline-xml``).

The PID is written into the IRI as it stands: normalizing it is the rewrite pass's work,
which records it in the crosswalk.
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Iterator

from lxml import etree
from rdflib.term import Literal, URIRef

from ldids import safexml
from ldids.errors import InputError
from ldids.ntriples import Quad
from ldids.rdf import oai_formats
from ldids.rdf.oxigraph import embedded_rdf_xml, embedded_rdf_xml_bytes

__all__ = ["FOXML", "is_foxml", "read"]

FOXML = "info:fedora/fedora-system:def/foxml#"
_F = f"{{{FOXML}}}"
_VIEW = "info:fedora/fedora-system:def/view#"
_MODEL = "info:fedora/fedora-system:def/model#"
_RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF"


def is_foxml(root: etree._Element) -> bool:
    return root.tag == f"{_F}digitalObject"


def read(data: bytes, source: str | None = None, skipped: Counter[str] | None = None) -> Iterator[Quad]:
    """The statements of one FOXML document; raises InputError if it is not one. What the
    DC datastream holds and makes no statement is counted by kind in ``skipped``."""
    reading = oai_formats.Reading(source, Counter() if skipped is None else skipped)
    root = safexml.parse(data, source)
    if not is_foxml(root):
        raise InputError(f"not FOXML: the root element is {root.tag!r}", source=source, line=root.sourceline)
    pid = (root.get("PID") or "").strip()
    if not pid:
        raise InputError("the digitalObject has no PID", source=source, line=root.sourceline)
    subject = URIRef(f"info:fedora/{pid}")
    for prop in root.iterfind(f"{_F}objectProperties/{_F}property"):
        yield from _property(subject, prop, source)
    for prop in root.iterfind(f"{_F}objectProperties/{_F}extproperty"):
        yield from _property(subject, prop, source)
    for datastream in root.iterfind(f"{_F}datastream"):
        yield from _datastream(subject, pid, datastream, reading)


def _property(subject: URIRef, prop: etree._Element, source: str | None) -> Iterator[Quad]:
    name, value = prop.get("NAME"), prop.get("VALUE")
    if not name or value is None:
        raise InputError("an object property needs NAME and VALUE", source=source, line=prop.sourceline)
    yield (subject, URIRef(name), Literal(value), None)


def _current(datastream: etree._Element) -> etree._Element | None:
    versions = list(datastream.iterfind(f"{_F}datastreamVersion"))
    if not versions:
        return None
    # ISO 8601 timestamps of one export compare as strings; stable max keeps the last on ties.
    return max(reversed(versions), key=lambda version: version.get("CREATED") or "")


def _datastream(subject: URIRef, pid: str, datastream: etree._Element, reading: oai_formats.Reading) -> Iterator[Quad]:
    source = reading.source
    identifier = datastream.get("ID")
    if not identifier:
        raise InputError("a datastream has no ID", source=source, line=datastream.sourceline)
    node = URIRef(f"info:fedora/{pid}/{identifier}")
    yield (subject, URIRef(f"{_VIEW}disseminates"), node, None)
    version = _current(datastream)
    if version is None:
        return
    for attribute, predicate in (
        ("MIMETYPE", f"{_VIEW}mimeType"),
        ("LABEL", f"{_MODEL}label"),
        ("CREATED", f"{_MODEL}createdDate"),
    ):
        value = version.get(attribute)
        if value:
            yield (node, URIRef(predicate), Literal(value), None)
    content = version.find(f"{_F}xmlContent")
    if identifier == "DC" and content is not None:
        yield from oai_formats.metadata(subject, content, reading)
    elif identifier in ("RELS-EXT", "RELS-INT"):
        yield from _relations(subject, version, source)
    elif content is not None and len(content):
        # Another datastream's inline XML (MODS, say): not read, so counted, not dropped.
        reading.skipped["foxml-inline-xml"] += 1


def _relations(subject: URIRef, version: etree._Element, source: str | None) -> Iterator[Quad]:
    rdf = version.find(f"{_F}xmlContent/{_RDF}")
    if rdf is not None:
        yield from embedded_rdf_xml(rdf, str(subject), source, "the RELS datastream")
        return
    binary = version.find(f"{_F}binaryContent")
    if binary is None:
        return  # managed or external content: nothing inline to read
    try:
        payload = base64.b64decode("".join((binary.text or "").split()), validate=True)
    except binascii.Error as error:
        raise InputError(f"binaryContent is not base64: {error}", source=source, line=binary.sourceline) from error
    # The decoded RDF/XML is untrusted XML too: the RDF/XML reader checks it as it checks files.
    yield from embedded_rdf_xml_bytes(
        payload, str(subject), source, "the RELS datastream", binary.sourceline, encoded=True
    )
