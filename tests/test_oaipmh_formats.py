"""OAI-PMH in every metadata format, and nothing dropped silently (DESIGN.md §6a).

The fixtures (tests/data/oai/, PROVENANCE.tsv) are real responses other projects recorded
(oai_dc, Identify, ListIdentifiers, ListSets) and small hand-written ones that follow each
format's published schema (qdc and oai_dcterms, DataCite kernel 4, oai_datacite around
kernel 3, MODS, OLAC, Europeana EDM as RDF/XML, and MARCXML as a format ldids has no rule
for). Expected values come from the XML, read here with lxml, never from ldids.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree
from rdflib import Graph
from rdflib.compare import isomorphic
from rdflib.namespace import DC, DCTERMS, RDF
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.namespace import LDIDS
from ldids.ntriples import Quad
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import io as rdfio
from ldids.rdf import oaipmh

DATA = Path(__file__).resolve().parent / "data"
OAI = DATA / "oai"
P = "{http://www.openarchives.org/OAI/2.0/}"  # OAI-PMH element names
OAI_NS = "http://www.openarchives.org/OAI/2.0/"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
KERNEL_3 = "http://datacite.org/schema/kernel-3"
KERNEL_4 = "http://datacite.org/schema/kernel-4"
OAI_DATACITE = "http://schema.datacite.org/oai/oai-1.0/"
MODS = "http://www.loc.gov/mods/v3"
OLAC = "http://www.language-archives.org/OLAC/1.1/"
MARC = "http://www.loc.gov/MARC21/slim"
PROVENANCE = "http://www.openarchives.org/OAI/2.0/provenance"
XLINK = "http://www.w3.org/1999/xlink"
#: The hand-written fixtures, one per format, and the real oai_dc ones.
FORMATS = ("qdc.xml", "datacite-kernel4.xml", "oai_datacite-kernel3.xml", "mods.xml", "olac.xml", "marcxml.xml")
OAI_DC = ("sickle-ListRecords.xml", "sickle-GetRecord.xml", "pyoai-fake1-00005.xml")
RESPONSES = sorted(path.name for path in OAI.glob("*.xml"))


def read(name: str) -> rdfio.Input:
    return rdfio.read([str(OAI / name)], rdfio.resolve_format("oai-pmh"))


def xml(name: str) -> etree._Element:
    return etree.fromstring((OAI / name).read_bytes())


def objects(quads: list[Quad], subject: Node | None = None, predicate: Node | None = None) -> list[Node]:
    return [o for s, p, o, _ in quads if (subject is None or s == subject) and (predicate is None or p == predicate)]


def nodes(quads: list[Quad], subject: Node | None, predicate: Node, **about: str | None) -> list[BNode]:
    """The blank nodes ``subject predicate [ ... ]`` whose statements include ``about``
    (predicate local name → lexical form; ``value`` for rdf:value)."""
    found = []
    for node in objects(quads, subject, predicate):
        if not isinstance(node, BNode):
            continue
        said = {(str(p).rsplit("#", 1)[-1].rsplit("/", 1)[-1], str(o)) for s, p, o, _ in quads if s == node}
        if all((name, value) in said for name, value in about.items()):
            found.append(node)
    return found


def record_of(element: etree._Element) -> URIRef:
    """The IRI of the record an element belongs to, read with lxml."""
    record = next(element.iterancestors(f"{P}record"))
    return URIRef(record.findtext(f"{P}header/{P}identifier", "").strip())


def predicate_of(element: etree._Element) -> URIRef:
    """An element's predicate where its namespace ends in "/" (DCMI): namespace + local name."""
    return URIRef(f"{etree.QName(element).namespace}{etree.QName(element).localname}")


def resolved(element: etree._Element, qname: str) -> URIRef:
    prefix, _, local = qname.partition(":")
    return URIRef(element.nsmap[prefix] + local)


# -- The fixtures --------------------------------------------------------------------------


def test_every_fixture_has_its_provenance() -> None:
    with (DATA / "PROVENANCE.tsv").open(newline="") as table:
        described = {row["file"]: row for row in csv.DictReader(table, delimiter="\t")}
    for name in RESPONSES:
        row = described[f"oai/{name}"]
        assert row["repository"].startswith("hand-written after http") or len(row["snapshot commit"]) == 40


# -- Headers, whatever the format -----------------------------------------------------------


@pytest.mark.parametrize("name", RESPONSES)
def test_headers_are_kept(name: str) -> None:
    quads = read(name).quads
    for header in xml(name).iter(f"{P}header"):
        subject = URIRef(header.findtext(f"{P}identifier", "").strip())
        assert [str(o) for o in objects(quads, subject, LDIDS.datestamp)] == [header.findtext(f"{P}datestamp")]
        specs = sorted((spec.text or "").strip() for spec in header.iterfind(f"{P}setSpec"))
        assert sorted(str(o) for o in objects(quads, subject, LDIDS.setSpec)) == specs
        deleted = objects(quads, subject, LDIDS.deleted)
        assert deleted == ([Literal(True)] if header.get("status") == "deleted" else [])


# -- Nothing in the metadata is lost ----------------------------------------------------------


@pytest.mark.parametrize("name", FORMATS + OAI_DC)
def test_every_value_in_the_metadata_is_in_a_statement(name: str) -> None:
    """Each element's text and each attribute's value (the schema location aside) is the
    lexical form of an object, as often as the XML holds it."""
    quads = read(name).quads
    found = Counter(str(o) for _, _, o, _ in quads if not isinstance(o, BNode))
    expected: Counter[str] = Counter()
    for container in xml(name).iter(f"{P}metadata", f"{P}about"):
        for element in container.iter():
            if not isinstance(element.tag, str) or element is container:
                continue  # comments
            if not len(element) and (element.text or "").strip():
                expected[(element.text or "").strip()] += 1
            for attribute, value in element.attrib.items():
                if attribute == f"{{{XSI}}}type":
                    expected[str(resolved(element, value))] += 1
                elif attribute not in (f"{{{XSI}}}schemaLocation", XML_LANG):
                    expected[value] += 1
    assert expected
    missing = expected - found
    assert not missing


@pytest.mark.parametrize("name", FORMATS + OAI_DC)
def test_records_of_every_format_read_without_skipping(name: str) -> None:
    found = read(name)
    records = xml(name).findall(f".//{P}metadata")
    assert records
    # Every record says something beyond its header.
    for metadata in records:
        subject = record_of(metadata)
        assert any(not str(p).startswith(str(LDIDS)) for s, p, _, _ in found.quads if s == subject)
    if name != "sickle-ListRecords.xml":  # it has stray text: test_stray_text_is_counted
        assert found.skipped == Counter()


# -- DCMI terms: qdc, oai_dcterms -------------------------------------------------------------


def test_dcmi_terms_are_statements_about_the_record() -> None:
    quads = read("qdc.xml").quads
    checked = 0
    for container in xml("qdc.xml").iterfind(f".//{P}metadata/*"):
        record = record_of(container)
        for element in container:
            predicate = predicate_of(element)
            assert str(predicate).startswith((str(DC), str(DCTERMS)))
            text = (element.text or "").strip()
            kind = element.get(f"{{{XSI}}}type")
            if kind is None:  # a literal, in its language
                assert Literal(text, lang=element.get(XML_LANG)) in objects(quads, record, predicate)
            else:  # a node: the value, and its encoding scheme as the IRI its QName names
                assert nodes(quads, record, predicate, value=text, type=str(resolved(element, kind)))
            checked += 1
    assert checked == 10 + 7
    # The empty dc:rights is the empty literal, not nothing.
    assert Literal("") in objects(quads, URIRef("oai:repository.example.org:1765/315"), DC.rights)
    # The containers (qdc:qualifieddc, oai_dcterms:dcterms) are no statements.
    assert not [p for _, p, _, _ in quads if "qualifieddc" in str(p) or "oai_dcterms" in str(p)]


# -- DataCite ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kernel"), [("datacite-kernel4.xml", KERNEL_4), ("oai_datacite-kernel3.xml", KERNEL_3)]
)
def test_datacite_identifiers_are_statements_with_their_type(name: str, kernel: str) -> None:
    quads = read(name).quads
    for local in ("identifier", "alternateIdentifier", "relatedIdentifier", "nameIdentifier", "funderIdentifier"):
        elements = list(xml(name).iter(f"{{{kernel}}}{local}"))
        statements = [q for q in quads if q[1] == URIRef(f"{kernel}#{local}")]
        assert len(statements) == len(elements), local
        for element in elements:
            kind = next(a for a in element.attrib if a.lower().endswith(("identifiertype", "identifierscheme")))
            parent = element.getparent()
            on_record = parent is not None and etree.QName(parent).localname in ("resource", f"{local}s")
            owner = record_of(element) if on_record else None  # else a creator's, a fundingReference's
            held = nodes(quads, owner, URIRef(f"{kernel}#{local}"), value=element.text, **{kind: element.get(kind)})
            assert len(held) == 1, (local, element.text)


def test_every_handle_in_datacite_is_in_the_output_and_normalized() -> None:
    for name in ("datacite-kernel4.xml", "oai_datacite-kernel3.xml"):
        quads = read(name).quads
        handles = [
            (element.text or "").strip()
            for element in xml(name).iter()
            if isinstance(element.tag, str) and ("Handle" in element.attrib.values() or "hdl" in (element.text or ""))
        ]
        assert len(handles) >= 3
        values = {str(o) for _, _, o, _ in quads}
        assert set(handles) <= values
        # The passes find them in the statements: resolver URLs become hdl: (a bare
        # 1765/315 looks like a fraction and stays, DESIGN.md §2).
        result = passes.normalize(quads, Config())
        after = {str(o) for _, _, o, _ in result.quads}
        for handle in handles:
            if handle.startswith("http://hdl.handle.net/"):
                assert handle not in after
                assert "hdl:" + handle.removeprefix("http://hdl.handle.net/") in after
            else:
                assert handle in after


def test_datacite_list_wrappers_and_the_oai_datacite_payload_are_containers() -> None:
    quads = read("oai_datacite-kernel3.xml").quads
    root = xml("oai_datacite-kernel3.xml")
    record = URIRef("oai:repository.example.org:1765/315")
    for wrapper, item in (("creators", "creator"), ("titles", "title"), ("rightsList", "rights"), ("sizes", "size")):
        assert not objects(quads, None, URIRef(f"{KERNEL_3}#{wrapper}"))
        assert len(objects(quads, record, URIRef(f"{KERNEL_3}#{item}"))) == len(
            list(root.iter(f"{{{KERNEL_3}}}{item}"))
        )
    for local in ("isReferenceQuality", "schemaVersion", "datacentreSymbol"):
        text = root.findtext(f".//{{{OAI_DATACITE}}}{local}")
        assert objects(quads, record, URIRef(OAI_DATACITE + local)) == [Literal(text)]
    assert not [p for _, p, _, _ in quads if str(p).endswith(("payload", "resource", "oai_datacite"))]
    # An untyped title with its language is a literal on the record.
    title = root.find(f".//{{{KERNEL_3}}}title")
    assert title is not None
    assert objects(quads, record, URIRef(f"{KERNEL_3}#title")) == [Literal(title.text, lang=title.get(XML_LANG))]


# -- MODS, OLAC ----------------------------------------------------------------------------


def test_mods_identifiers_links_and_nesting() -> None:
    quads = read("mods.xml").quads
    root = xml("mods.xml")
    record = URIRef("oai:repository.example.org:1765/315")
    mods = root.find(f".//{{{MODS}}}mods")
    top = [element for element in root.iter(f"{{{MODS}}}identifier") if element.getparent() is mods]
    assert len(top) == 3
    for element in top:
        held = nodes(quads, record, URIRef(f"{MODS}#identifier"), value=element.text, type=element.get("type"))
        assert len(held) == 1
    assert objects(quads, record, URIRef(f"{MODS}#version")) == [Literal("3.7")]
    related = nodes(quads, record, URIRef(f"{MODS}#relatedItem"), type="isReferencedBy")
    assert len(related) == 1
    assert objects(quads, related[0], URIRef(f"{XLINK}#href")) == [Literal("http://hdl.handle.net/1765/9")]
    (info,) = objects(quads, record, URIRef(f"{MODS}#recordInfo"))
    source = root.find(f".//{{{MODS}}}recordIdentifier")
    assert source is not None
    assert nodes(quads, info, URIRef(f"{MODS}#recordIdentifier"), value=source.text, source=source.get("source"))
    # Nesting kept: the host's ISSN hangs off the relatedItem, not off the record.
    (host,) = nodes(quads, record, URIRef(f"{MODS}#relatedItem"), type="host")
    assert nodes(quads, host, URIRef(f"{MODS}#identifier"), value="0000-0019", type="issn")


def test_olac_typed_elements_are_nodes_and_plain_ones_literals() -> None:
    quads = read("olac.xml").quads
    root = xml("olac.xml")
    record = URIRef("oai:archive.example.org:fry-wordlist")
    assert Literal("hdl:1765/1203") in objects(quads, record, DC.identifier)
    dcterms_uri = URIRef(str(DCTERMS) + "URI")
    assert nodes(quads, record, DC.identifier, value="http://hdl.handle.net/1765/1203", type=str(dcterms_uri))
    coded = [e for e in root.iter() if isinstance(e.tag, str) and e.get(f"{{{OLAC}}}code") is not None]
    assert len(coded) == len(objects(quads, None, URIRef(f"{OLAC}code"))) == 5
    for element in coded:
        predicate = predicate_of(element)
        kind = str(resolved(element, element.get(f"{{{XSI}}}type", "")))
        (node,) = nodes(quads, record, predicate, code=element.get(f"{{{OLAC}}}code", ""), type=kind)
        # An element with attributes and no text is a node without rdf:value.
        assert objects(quads, node, RDF.value) == ([Literal(element.text)] if element.text else [])


# -- RDF/XML inside a record ------------------------------------------------------------------


def test_embedded_rdf_xml_keeps_all_its_triples() -> None:
    quads = read("edm.xml").quads
    element = xml("edm.xml").find(f".//{P}metadata/{{{RDF}}}RDF")
    assert element is not None
    expected = Graph().parse(data=etree.tostring(element), format="xml")
    got = Graph()
    for s, p, o, _ in quads:
        if not str(p).startswith(str(LDIDS)):
            got.add((s, p, o))
    assert len(expected) == 17
    assert isomorphic(got, expected)


def test_relative_iris_in_embedded_rdf_xml_resolve_against_the_record() -> None:
    data = (
        f'<OAI-PMH xmlns="{OAI_NS}"><ListRecords><record><header><identifier>oai:a.example:x/1</identifier>'
        "<datestamp>2024-01-01</datestamp></header><metadata>"
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        '<rdf:Description rdf:about=""><dc:relation rdf:resource="#part"/><dc:source rdf:resource="y/2"/>'
        "</rdf:Description></rdf:RDF></metadata></record></ListRecords></OAI-PMH>"
    ).encode()
    quads = oaipmh.read(data).quads
    record = URIRef("oai:a.example:x/1")
    # RFC 3986 §5.2: "" is the base; "#part" its fragment; "y/2" merges with the path "a.example:x/1".
    assert objects(quads, record, DC.relation) == [URIRef("oai:a.example:x/1#part")]
    assert objects(quads, record, DC.source) == [URIRef("oai:a.example:x/y/2")]


# -- Formats ldids has no rule for: the generic mapping -----------------------------------------


def test_an_unknown_format_goes_through_the_generic_mapping_with_a_note() -> None:
    found = read("marcxml.xml")
    root = xml("marcxml.xml")
    record = URIRef("oai:repository.example.org:1765/315")
    assert found.skipped == Counter()
    assert any(f"1 record in {MARC} read by the generic element mapping" in note for note in found.notes)
    fields = list(root.iter(f"{{{MARC}}}datafield"))
    assert len(objects(found.quads, record, URIRef(f"{MARC}#datafield"))) == len(fields) == 4
    for field in fields:
        (node,) = nodes(found.quads, record, URIRef(f"{MARC}#datafield"), tag=field.get("tag", ""))
        for subfield in field:
            assert nodes(found.quads, node, URIRef(f"{MARC}#subfield"), value=subfield.text, code=subfield.get("code"))
    (leader,) = root.iter(f"{{{MARC}}}leader")
    assert objects(found.quads, record, URIRef(f"{MARC}#leader")) == [Literal(leader.text)]


def test_about_containers_are_statements_about_the_record() -> None:
    quads = read("marcxml.xml").quads
    record = URIRef("oai:repository.example.org:1765/315")
    (provenance,) = objects(quads, record, URIRef(f"{PROVENANCE}#provenance"))
    (origin,) = nodes(quads, provenance, URIRef(f"{PROVENANCE}#originDescription"), altered="true")
    assert objects(quads, origin, URIRef(f"{PROVENANCE}#identifier")) == [Literal("hdl:1765/315")]


def test_unqualified_elements_take_the_namespace_of_their_ancestor() -> None:
    data = (
        f'<OAI-PMH xmlns="{OAI_NS}"><GetRecord><record><header><identifier>oai:a.example:1</identifier>'
        '</header><metadata><x:rec xmlns:x="http://x.example/ns/"><title xmlns="">T</title>'
        '<y:item xmlns:y="http://y.example/v2" code="c">V</y:item></x:rec></metadata></record></GetRecord></OAI-PMH>'
    ).encode()
    quads = oaipmh.read(data).quads
    record = URIRef("oai:a.example:1")
    assert objects(quads, record, URIRef("http://x.example/ns/title")) == [Literal("T")]
    (item,) = objects(quads, record, URIRef("http://y.example/v2#item"))
    assert objects(quads, item, URIRef("http://y.example/v2#code")) == [Literal("c")]


# -- What is counted as skipped ------------------------------------------------------------------


def test_listed_sets_are_counted_as_skipped() -> None:
    found = read("sickle-ListSets.xml")
    sets = list(xml("sickle-ListSets.xml").iter(f"{P}set"))
    assert found.quads == []
    assert found.skipped == Counter({"unsupported-verb ListSets": len(sets)})
    assert len(sets) == 131


def test_stray_text_is_counted() -> None:
    # sickle's sample has "(?s)" between two dc: elements, inside the oai_dc container.
    found = read("sickle-ListRecords.xml")
    stray = [
        root
        for root in xml("sickle-ListRecords.xml").iterfind(f".//{P}metadata/*")
        if "".join([root.text or "", *(child.tail or "" for child in root)]).strip()
    ]
    assert found.skipped == Counter({"text-outside-elements": len(stray)})
    assert len(stray) == 1


def test_a_record_without_identifier_and_unknown_elements_are_counted() -> None:
    data = (
        f'<OAI-PMH xmlns="{OAI_NS}"><ListRecords><record><header status="deleted"/></record>'
        "<record><header><identifier>oai:a.example:1</identifier><bogus>x</bogus></header></record>"
        "<record><metadata/></record><resumptionToken/></ListRecords>"
        "<ListMetadataFormats><metadataFormat/><metadataFormat/></ListMetadataFormats></OAI-PMH>"
    ).encode()
    found = oaipmh.read(data, "h.xml")
    assert found.skipped == Counter(
        {"record-without-identifier": 2, "unknown-element bogus": 1, "unsupported-verb ListMetadataFormats": 2}
    )
    assert found.notes == [
        "line 1: a record header without an identifier was skipped",
        "line 1: a record header without an identifier was skipped",
    ]


def test_empty_metadata_bad_languages_and_unusable_namespaces_are_counted() -> None:
    data = (
        f'<OAI-PMH xmlns="{OAI_NS}"><ListRecords>'
        "<record><header><identifier>oai:a.example:1</identifier></header><metadata> </metadata></record>"
        '<record><header><identifier>oai:a.example:2</identifier></header><metadata><dc xmlns="http://x.example/">'
        '<title xml:lang="en_GB">Colour</title><r:x xmlns:r="relative">1</r:x></dc></metadata></record>'
        "</ListRecords></OAI-PMH>"
    ).encode()
    found = oaipmh.read(data)
    assert found.skipped == Counter({"empty-metadata": 1, "invalid-language-tag": 1, "namespace-not-an-iri": 1})
    # The literal is kept, without the language RDF cannot hold.
    assert objects(found.quads, URIRef("oai:a.example:2"), URIRef("http://x.example/title")) == [Literal("Colour")]


# -- Identify, ListIdentifiers ----------------------------------------------------------------


def test_identify_is_read_whole() -> None:
    quads = read("sickle-Identify.xml").quads
    identify = xml("sickle-Identify.xml").find(f"{P}Identify")
    assert identify is not None
    base = URIRef(identify.findtext(f"{P}baseURL", ""))
    for element in identify:
        if element.tag in (f"{P}baseURL", f"{P}description"):
            continue
        assert objects(quads, base, URIRef(OAI_NS + etree.QName(element).localname)) == [Literal(element.text)]
    assert objects(quads, base, LDIDS.repositoryIdentifier) == [Literal("test.example.com")]
    assert objects(quads, base, LDIDS.sampleIdentifier) == [URIRef("oai:test.example.com:2342")]
