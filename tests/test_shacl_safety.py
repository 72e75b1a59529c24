"""Shapes never reach the network (DESIGN.md §7), and ldids:canonical in SPARQL."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph
import pytest
from rdflib import Graph

from ldids.cli import main
from ldids.errors import ShapesError
from ldids.shacl.functions import oxigraph_functions, register_rdflib
from ldids.shacl.safety import check_location, check_shapes
from ldids.shacl.validate import validate

PREFIXES = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"


def _sparql_shape(where: str) -> str:
    return PREFIXES + (
        '<urn:x:S> a sh:NodeShape ; sh:targetNode <urn:x:n> ; sh:sparql [ sh:select """SELECT $this WHERE { '
        + where
        + ' }""" ] .'
    )


@pytest.mark.parametrize(
    ("shapes", "code"),
    [
        (PREFIXES + "<urn:x:s> owl:imports <http://example.org/more.ttl> .", "shapes.owl-imports"),
        (_sparql_shape("SERVICE <http://example.org/sparql> { $this ?p ?o }"), "shapes.sparql-service"),
        (_sparql_shape("service silent ?where { $this ?p ?o }"), "shapes.sparql-service"),
        (
            PREFIXES + '<urn:x:S> a sh:NodeShape ; sh:target [ a sh:SPARQLTarget ; sh:select """SELECT ?this '
            'FROM <http://example.org/g> WHERE { ?this ?p ?o }""" ] .',
            "shapes.sparql-from",
        ),
        (
            PREFIXES
            + '<urn:x:R> sh:construct """CONSTRUCT { ?s ?p ?o } WHERE { SERVICE <http://e/> { ?s ?p ?o } }""" .',
            "shapes.sparql-service",
        ),
        (PREFIXES + "<urn:x:d> sh:shapesGraph <http://example.org/shapes.ttl> .", "shapes.remote-graph"),
    ],
)
def test_shapes_that_reach_the_network_are_refused(shapes: str, code: str) -> None:
    graph = Graph().parse(data=shapes, format="turtle")
    with pytest.raises(ShapesError) as caught:
        check_shapes(graph)
    assert caught.value.code == code


@pytest.mark.parametrize(
    "where",
    [
        '$this ?p "SERVICE <http://example.org/>"',  # in a string
        "$this <http://example.org/SERVICE> ?from",  # in an IRI, and a variable named 'from'
        "$this ?p ?o # SERVICE <http://example.org/> in a comment",
    ],
)
def test_the_words_alone_are_no_call(where: str) -> None:
    check_shapes(Graph().parse(data=_sparql_shape(where), format="turtle"))


def test_a_remote_shapes_location_is_refused() -> None:
    with pytest.raises(ShapesError, match=r"\[shapes.remote-graph\]"):
        check_location("https://example.org/shapes.ttl")
    check_location("shapes.ttl")


def test_the_library_refuses_unless_allowed() -> None:
    graph = Graph().parse(data=PREFIXES + "<urn:x:s> owl:imports <http://example.org/x> .", format="turtle")
    with pytest.raises(ShapesError):
        validate([], [graph])
    assert validate([], [graph], allow_network=True).conforms  # owl:imports are still not followed


def test_the_command_line_exits_2_with_the_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.ttl"
    data.write_text("<http://x/s> <http://x/p> <http://x/o> .\n")
    shapes = tmp_path / "s.ttl"
    shapes.write_text(_sparql_shape("SERVICE <http://example.org/sparql> { $this ?p ?o }"))
    assert main(["validate", str(data), "-s", str(shapes)]) == 2
    assert "[shapes.sparql-service]" in capsys.readouterr().err
    assert main(["validate", str(data), "-s", "http://example.org/shapes.ttl"]) == 2
    assert "[shapes.remote-graph]" in capsys.readouterr().err


# -- ldids:canonical ------------------------------------------------------------------------

QUERY = """SELECT ?x ?c WHERE {
  VALUES ?x { "oai:arXiv.org:hep-th/9901001" <info:fedora/demo%3a1> <http://example.org/x> "oai:bad"
              "hdl:1765/1"@en <hdl:100.102/abcdefabcdefabcdefabcdefabcdefab> <hdl:1765/315> }
  BIND (<https://w3id.org/ldids/vocab#canonical>(?x) AS ?c) }"""
#: Written out by hand: what DESIGN.md §1 makes of each.
EXPECTED = {
    "oai:arXiv.org:hep-th/9901001": "http://purl.org/poi/arXiv.org/hep-th/9901001",
    "info:fedora/demo%3a1": "info:fedora/demo:1",
    "http://example.org/x": None,
    "oai:bad": None,
    "hdl:1765/1": None,
    "hdl:100.102/abcdefabcdefabcdefabcdefabcdefab": "hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAB",
    "hdl:1765/315": "hdl:1765/315",
}


def test_canonical_in_rdflib() -> None:
    register_rdflib()
    found = {str(row[0]): None if row[1] is None else str(row[1]) for row in Graph().query(QUERY)}  # type: ignore[index]
    assert found == EXPECTED


def test_canonical_in_pyoxigraph() -> None:
    rows = pyoxigraph.Store().query(QUERY, custom_functions=oxigraph_functions())
    found = {row["x"].value: None if row["c"] is None else row["c"].value for row in rows}  # type: ignore[union-attr]
    assert found == EXPECTED


README_SHAPE = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix dc: <http://purl.org/dc/elements/1.1/> .
<https://example.org/shapes#CanonicalIdentifiers> a sh:NodeShape ;
    sh:targetSubjectsOf dc:identifier ;
    sh:sparql [
        sh:message "dc:identifier {?value} is not canonical: {?canonical}" ;
        sh:select \"\"\"
            SELECT $this ?value ?canonical WHERE {
              $this <http://purl.org/dc/elements/1.1/identifier> ?value .
              BIND (<https://w3id.org/ldids/vocab#canonical>(?value) AS ?canonical)
              FILTER (BOUND(?canonical) && STR(?canonical) != STR(?value))
            }\"\"\" ] .
"""


def test_the_readme_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert README_SHAPE in (Path(__file__).resolve().parents[1] / "README.md").read_text()
    shapes = tmp_path / "canonical.ttl"
    shapes.write_text(README_SHAPE)
    data = tmp_path / "d.ttl"
    data.write_text(
        '<http://x/a> <http://purl.org/dc/elements/1.1/identifier> "oai:arXiv.org:a", "hdl:1765/315", "catkey:1" .\n'
    )
    assert main(["validate", str(data), "-s", str(shapes), "-f", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    # The shipped CanonicalIdentifier shape reports the literal too; the README's shape once.
    assert report["per_shape"]["https://example.org/shapes#CanonicalIdentifiers"] == 1
    ours = [r for r in report["results"] if r["shape"] == "https://example.org/shapes#CanonicalIdentifiers"]
    assert (ours[0]["focus"], ours[0]["value"]) == ("http://x/a", "oai:arXiv.org:a")
    assert ours[0]["message"] == "dc:identifier oai:arXiv.org:a is not canonical: http://purl.org/poi/arXiv.org/a"
