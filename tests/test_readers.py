"""The graph readers' contracts beyond the W3C suites (tests/test_w3c_rdf.py): where a
syntax error is, what relative IRIs resolve against (DESIGN.md §6a), and what is not RDF 1.1."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from rdflib.term import BNode, Literal, URIRef

from ldids.cli import main
from ldids.errors import InputError
from ldids.rdf import io as rdfio

RELATIVE = {
    "turtle": b"<s> <http://x/p> <o> .\n",
    "trig": b"<g> { <s> <http://x/p> <o> . }\n",
    "xml": b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:x="http://x/">
  <rdf:Description rdf:about="s"><x:p rdf:resource="o"/></rdf:Description>
</rdf:RDF>
""",
    "json-ld": b'{"@id": "s", "http://x/p": {"@id": "o"}}\n',
}


@pytest.mark.parametrize(
    ("data", "fmt", "line", "column", "message"),
    [
        (b"<http://x/s> <http://x/p> <http://x/o> .\n<http://x/s> <http://x/p> <http://x/a b> .\n", "nt", 2, 27, "IRI"),
        (b'<http://x/s> <http://x/p> "x"@1en .\n', "nt", 1, 31, "language"),
        (b'<http://x/s> <http://x/p> "\\U00110000" .\n', "nquads", 1, 28, "unicode"),
        (b"@prefix x: <http://x/> .\nx:s x:p x:o ;\n    x:q <http://x/%zz> .\n", "turtle", 3, 9, "percent"),
        (b"<http://x/g> { <http://x/s> <http://x/p> . }\n", "trig", 1, 42, ""),
        # Columns count characters, as editors do, not bytes.
        (b'<http://x/s> <http://x/p> "\xc3\xa9\xc3\xa9" <http://x/a b> .\n', "nquads", 1, 32, "IRI"),
    ],
)
def test_a_syntax_error_says_where(data: bytes, fmt: str, line: int, column: int, message: str) -> None:
    with pytest.raises(InputError) as refused:
        rdfio.read_bytes(data, fmt, source="data")
    assert (refused.value.source, refused.value.line, refused.value.column) == ("data", line, column)
    assert message in refused.value.message
    assert not refused.value.message.startswith("syntax error: Parser error")  # said once, by InputError


@pytest.mark.parametrize("fmt", sorted(RELATIVE))
def test_relative_iris_without_a_base_are_errors_that_say_where(fmt: str) -> None:
    with pytest.raises(InputError) as refused:
        rdfio.read_bytes(RELATIVE[fmt], fmt, source="request body")
    assert refused.value.line is not None
    assert refused.value.column is not None


@pytest.mark.parametrize("fmt", sorted(RELATIVE))
def test_relative_iris_resolve_against_the_base_given(fmt: str) -> None:
    found = rdfio.read_bytes(RELATIVE[fmt], fmt, base="http://example.org/dir/doc")
    terms = {term for quad in found.quads for term in quad[:3]}
    assert {URIRef("http://example.org/dir/s"), URIRef("http://example.org/dir/o")} <= terms


@pytest.mark.parametrize("fmt", sorted(RELATIVE))
def test_a_file_is_its_own_base(fmt: str, tmp_path: Path) -> None:
    path = tmp_path / "a folder" / f"doc.{fmt}"
    path.parent.mkdir()
    path.write_bytes(RELATIVE[fmt])
    found = rdfio.read([str(path)], rdfio.resolve_format(fmt))
    terms = {term for quad in found.quads for term in quad[:3]}
    assert URIRef((path.parent / "s").as_uri()) in terms
    assert "%20" in (path.parent / "s").as_uri()


def test_standard_input_has_no_base(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RELATIVE["turtle"])))
    with pytest.raises(InputError) as refused:
        rdfio.read(["-"], rdfio.resolve_format("turtle"))
    assert (refused.value.source, refused.value.line, refused.value.column) == ("<stdin>", 1, 1)


def test_a_base_must_be_an_absolute_iri() -> None:
    with pytest.raises(InputError, match="base IRI"):
        rdfio.read_bytes(RELATIVE["turtle"], "turtle", base="dir/doc")


def test_the_command_line_takes_a_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.ttl"
    source.write_bytes(RELATIVE["turtle"])
    out = tmp_path / "out.nt"
    assert main(["normalize", str(source), "--base", "http://example.org/", "-o", str(out), "-q"], io.StringIO()) == 0
    assert out.read_text() == "<http://example.org/s> <http://x/p> <http://example.org/o> .\n"
    assert main(["normalize", str(source), "-o", str(out), "-q"], io.StringIO()) == 0
    assert f"<{(tmp_path / 's').as_uri()}>" in out.read_text()
    assert main(["normalize", str(source), "--base", "not absolute", "-o", str(out)], io.StringIO()) == 2
    assert "--base" in capsys.readouterr().err


def test_blank_nodes_of_two_files_are_two_nodes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.nt").write_bytes(b"_:b <http://x/p> <http://x/" + name.encode() + b"> .\n")
    found = rdfio.read([str(tmp_path / "a.nt"), str(tmp_path / "b.nt")])
    assert len({quad[0] for quad in found.quads}) == 2
    assert all(isinstance(quad[0], BNode) for quad in found.quads)


def test_literals_are_rdf_1_1_terms() -> None:
    data = (
        b"@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        b'<http://x/s> <http://x/p> "a", "b"^^xsd:string, "01"^^xsd:integer, "c"@EN-gb .\n'
    )
    objects = {quad[2] for quad in rdfio.read_bytes(data, "turtle").quads}
    xsd_integer = URIRef("http://www.w3.org/2001/XMLSchema#integer")
    # A simple literal is an xsd:string (RDF 1.1 §3.3); lexical forms are kept as written.
    integer = Literal("01", datatype=xsd_integer, normalize=False)
    assert objects == {Literal("a"), Literal("b"), integer, Literal("c", lang="en-gb")}


def test_json_ld_values_are_those_of_the_json_ld_algorithms() -> None:
    # JSON-LD 1.1 Processing Algorithms §8.6, object to RDF: a JSON number with a fraction is
    # an xsd:double in its canonical form, one without an xsd:integer. rdflib's reader gave
    # "1.5"^^xsd:double and "10.0"^^xsd:double; ldids reads JSON-LD with pyoxigraph's.
    xsd = "http://www.w3.org/2001/XMLSchema#"
    data = (
        b'{"@context": {"x": "http://x/"}, "@id": "x:s",'
        b' "x:p": [1.5, 10.0, 7, true, {"@value": "01", "@type": "http://www.w3.org/2001/XMLSchema#integer"}],'
        b' "x:q": {"@list": ["a"]}, "x:r": {"@value": "c", "@language": "EN-gb"}}'
    )
    quads = rdfio.read_bytes(data, "json-ld").quads
    values = {(str(o), str(o.datatype)) for _, p, o, _ in quads if p == URIRef("http://x/p") and isinstance(o, Literal)}
    assert values == {
        ("1.5E0", f"{xsd}double"),
        ("10", f"{xsd}integer"),
        ("7", f"{xsd}integer"),
        ("true", f"{xsd}boolean"),
        ("01", f"{xsd}integer"),  # a string: its lexical form, as written
    }
    assert Literal("c", lang="en-gb") in {quad[2] for quad in quads}  # tags in lower case, as the others read them
    assert len(quads) == 9  # the list: two statements of its one node
    # A @graph container's content is a named graph, the node that names it its value (§8.6).
    contained = b'{"@context": {"@version": 1.1, "g": {"@id": "http://x/g", "@container": "@graph"}},'
    contained += b' "@id": "http://x/a", "g": {"@id": "http://x/b", "http://x/p": "v"}}'
    (link,), (inside,) = (
        [quad for quad in rdfio.read_bytes(contained, "json-ld").quads if quad[1] == URIRef(f"http://x/{p}")]
        for p in ("g", "p")
    )
    assert isinstance(link[2], BNode)
    assert inside[3] == link[2]


@pytest.mark.parametrize(
    ("data", "fmt", "line", "column"),
    [
        (b"<http://x/s> <http://x/p> <<( <http://x/a> <http://x/b> <http://x/c> )>> .\n", "nt", 1, 27),
        (b'\n<http://x/s> <http://x/p> "x"@en--ltr .\n', "nt", 2, 30),
        (b"<http://x/s> <http://x/p> <http://x/o> ~ <http://x/r> .\n", "turtle", None, None),
    ],
)
def test_rdf_1_2_is_refused(data: bytes, fmt: str, line: int | None, column: int | None) -> None:
    """pyoxigraph reads RDF 1.2 (triple terms, base directions, reifiers); rdflib, and
    ldids with it, hold RDF 1.1 terms only."""
    with pytest.raises(InputError, match=r"RDF 1\.2") as refused:
        rdfio.read_bytes(data, fmt)
    assert (refused.value.line, refused.value.column) == (line, column)


def test_a_byte_order_mark_is_no_statement() -> None:
    found = rdfio.read_bytes(b"\xef\xbb\xbf<http://x/s> <http://x/p> <http://x/o> .\n", "turtle")
    assert len(found.quads) == 1


FOXML_DC = b"""<?xml version="1.0" encoding="UTF-8"?>
<foxml:digitalObject VERSION="1.1" PID="demo:1" xmlns:foxml="info:fedora/fedora-system:def/foxml#">
<foxml:datastream ID="DC" STATE="A" CONTROL_GROUP="X" VERSIONABLE="true">
<foxml:datastreamVersion ID="DC1.0" LABEL="Dublin Core" CREATED="2020-01-01T00:00:00.000Z" MIMETYPE="text/xml">
<foxml:xmlContent>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"
           xmlns:x="http://x/">
  <dc:title xml:lang="en">T</dc:title><x:extra>an element of another namespace</x:extra>
  <dc:creator><x:name>a nested element</x:name></dc:creator><dc:subject type="an attribute">S</dc:subject>
</oai_dc:dc>
</foxml:xmlContent></foxml:datastreamVersion></foxml:datastream>
</foxml:digitalObject>
"""


def test_a_foxml_dc_datastream_is_read_whole() -> None:
    # As OAI-PMH metadata is read (ldids.rdf.oai_formats): the FOXML reader kept the dc:
    # elements' own text only, and dropped the rest without a count.
    found = rdfio.read_bytes(FOXML_DC, "foxml")
    values = {str(o) for _, _, o, _ in found.quads if isinstance(o, Literal)}
    assert {"T", "an element of another namespace", "a nested element", "an attribute", "S"} <= values
    assert Literal("T", lang="en") in {quad[2] for quad in found.quads}
    assert found.skipped == {}


def test_another_datastreams_inline_xml_is_counted_not_dropped() -> None:
    mods = FOXML_DC.replace(b'ID="DC"', b'ID="BIBLIO_MODS"').replace(b'ID="DC1.0"', b'ID="BIBLIO_MODS.0"')
    found = rdfio.read_bytes(mods, "foxml")
    assert found.skipped == {"foxml-inline-xml": 1}
    assert not any(isinstance(o, Literal) and str(o) == "S" for _, _, o, _ in found.quads)
