"""The readers and passes on data other projects wrote (../shared/realdata)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree
from rdflib import BNode, URIRef
from rdflib.namespace import DC, OWL

from ldids import safexml
from ldids.errors import InputError
from ldids.namespace import LDIDS
from ldids.ntriples import Quad
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import foxml, oaipmh
from ldids.rdf import io as rdfio
from ldids.shacl.validate import validate

REALDATA = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "realdata"
pytestmark = pytest.mark.shared


def foxml_files() -> list[Path]:
    found = []
    for path in sorted((REALDATA / "fcrepo").rglob("*.xml")) + sorted((REALDATA / "oaiprovider").rglob("*.xml")):
        try:
            root = safexml.parse(path.read_bytes())
        except InputError:
            continue
        if foxml.is_foxml(root):
            found.append(path)
    return found


FOXML = foxml_files()
OAI_PMH = sorted(
    path
    for path in (REALDATA / "pyoai").rglob("*.xml")
    # fake3, fake4: malformed on purpose; fake1/00006: pyoai's bare oai_dc record, no OAI-PMH.
    if path.parent.name not in ("fake3", "fake4") and path.name != "00006.xml"
) + sorted(path for path in (REALDATA / "sickle").rglob("*.xml") if path.name != "ListRecordsBroken.xml")


def test_the_real_files_are_there() -> None:
    assert len(FOXML) > 50
    assert len(OAI_PMH) > 20


def check_laws(quads: list[Quad], config: Config) -> passes.Result:
    result = passes.normalize(quads, config)
    out = result.quads + result.links
    # No statement lost: every input statement appears, rewritten or not; counts add up.
    present = set(result.quads)
    assert all(step.after in present for step in passes.rewrite(quads, config))
    assert result.quads_in == len(quads) == len(result.quads) + result.merged
    # Idempotent.
    again = passes.normalize(out, config)
    assert again.rewrites == []
    assert set(again.quads + again.links) == set(out)
    # Deterministic.
    fmt = rdfio.resolve_format("nquads")
    second = passes.normalize(quads, config)
    assert rdfio.serialize(out, fmt) == rdfio.serialize(second.quads + second.links, fmt)
    return result


@pytest.mark.parametrize("path", FOXML, ids=lambda p: p.name)
def test_fedora_objects(path: Path) -> None:
    quads = rdfio.read([str(path)], rdfio.resolve_format("foxml")).quads
    assert quads
    result = check_laws(quads, Config(bare_pid_predicates=frozenset({str(DC.identifier)})))
    # Fedora's vocabulary IRIs pass through unchanged, in every position.
    vocabulary = {node for quad in quads for node in quad if str(node).startswith("info:fedora/fedora-system:")}
    out_nodes = {node for quad in result.quads for node in quad}
    assert vocabulary <= out_nodes
    assert not any(str(r.original).startswith("info:fedora/fedora-system:") for r in result.rewrites)


@pytest.mark.parametrize("path", OAI_PMH, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_oai_pmh_responses(path: Path) -> None:
    check_laws(rdfio.read([str(path)], rdfio.resolve_format("oai-pmh")).quads, Config())


def test_oai_provider_links_the_fedora_object_to_its_poi() -> None:
    path = REALDATA / "oaiprovider" / "demo" / "demo_ItemOne.xml"
    result = passes.normalize(rdfio.read([str(path)]).quads, Config())
    links = set(result.links)
    poi = URIRef("http://purl.org/poi/example.org/item1")
    assert (URIRef("info:fedora/demo:ItemOne"), OWL.sameAs, poi, None) in links
    assert (poi, OWL.sameAs, URIRef("oai:example.org:item1"), None) in links


def test_dspace_resolver_urls_become_hdl_with_links() -> None:
    paths = [str(REALDATA / "pyoai" / "fake1" / name) for name in ("00004.xml", "00005.xml")]
    result = passes.normalize(rdfio.read(paths, rdfio.resolve_format("oai-pmh")).quads, Config())
    rewritten = [r for r in result.rewrites if str(r.original).startswith("http://hdl.handle.net/1765/")]
    assert len(rewritten) > 5
    for change in rewritten:
        number = str(change.original).rsplit("/", 1)[1]
        assert str(change.canonical) == f"hdl:1765/{number}"
        assert change.scheme == "handle"
        assert (URIRef(f"hdl:1765/{number}"), OWL.sameAs, URIRef(str(change.original)), None) in result.links
    assert not any("hdl.handle.net" in str(node) for quad in result.quads for node in quad)


def test_identify_description_is_read() -> None:
    path = REALDATA / "sickle" / "sample_data" / "Identify.xml"
    result = passes.normalize(rdfio.read([str(path)]).quads, Config())
    base = URIRef("http://test.example.com/oai")
    sample = URIRef("http://purl.org/poi/test.example.com/2342")  # the oai: sample, rewritten

    assert (base, LDIDS.sampleIdentifier, sample, None) in result.quads
    assert (sample, OWL.sameAs, URIRef("oai:test.example.com:2342"), None) in result.links


def test_a_header_without_identifier_is_skipped_with_a_note() -> None:
    found = rdfio.read([str(REALDATA / "sickle" / "sample_data" / "ListRecords4.xml")])
    assert any("line 8: a record header without an identifier was skipped" in note for note in found.notes)
    assert any(str(quad[0]) == "oai:test.example.com:1585322" for quad in found.quads)


def test_a_bare_oai_dc_document_is_not_an_oai_pmh_response() -> None:
    path = REALDATA / "pyoai" / "fake1" / "00006.xml"
    with pytest.raises(InputError, match="not an OAI-PMH response"):
        rdfio.read([str(path)], rdfio.resolve_format("oai-pmh"))


def test_error_responses_are_notes_not_failures() -> None:
    found = rdfio.read([str(REALDATA / "sickle" / "sample_data" / "noRecordsMatch.xml")])
    assert found.quads == []
    assert any("noRecordsMatch" in note for note in found.notes)


@pytest.mark.parametrize(
    ("relative", "line", "column"),
    [
        ("pyoai/fake3/00001.xml", 1, 1316),
        ("pyoai/fake4/00001.xml", 1, 295),
        ("sickle/sample_data/ListRecordsBroken.xml", 1, 1),
    ],
)
def test_malformed_responses_say_where(relative: str, line: int, column: int) -> None:
    with pytest.raises(InputError) as caught:
        oaipmh.read((REALDATA / relative).read_bytes(), relative)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert str(caught.value).startswith(f"{relative}:{line}:{column}: malformed XML")


def test_validation_before_and_after() -> None:
    path = REALDATA / "oaiprovider" / "demo" / "demo_ItemOne.xml"
    quads = rdfio.read([str(path)]).quads
    before = validate(quads)
    assert not before.conforms
    assert [str(v.focus) for v in before.violations] == ["oai:example.org:item1"]
    result = passes.normalize(quads, Config())
    assert validate(result.quads + result.links).conforms


XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


@pytest.mark.parametrize("path", FOXML, ids=lambda p: p.name)
def test_every_value_of_a_dc_datastream_is_in_a_statement(path: Path) -> None:
    """Each text and attribute value in the current DC version (read with lxml) is the lexical
    form of an object, as often as the XML holds it: nothing of it dropped."""
    found = rdfio.read([str(path)], rdfio.resolve_format("foxml"))
    objects = Counter(str(o) for _, _, o, _ in found.quads if not isinstance(o, BNode))
    expected: Counter[str] = Counter()
    root = etree.fromstring(path.read_bytes())
    f = "{info:fedora/fedora-system:def/foxml#}"
    for datastream in root.iterfind(f"{f}datastream[@ID='DC']"):
        versions = list(datastream.iterfind(f"{f}datastreamVersion"))
        current = max(reversed(versions), key=lambda version: version.get("CREATED") or "")
        for content in current.iterfind(f"{f}xmlContent"):
            for element in content.iter():
                if not isinstance(element.tag, str) or element is content:
                    continue
                if not len(element) and (element.text or "").strip() and element.getparent() is not content:
                    expected[(element.text or "").strip()] += 1
                for name, value in element.attrib.items():
                    if not name.startswith("{http://www.w3.org/2001/XMLSchema-instance}") and not name.endswith(
                        "}lang"
                    ):
                        expected[value] += 1
    assert not expected - objects
    assert set(found.skipped) <= {"foxml-inline-xml"}  # other datastreams: counted, not read
