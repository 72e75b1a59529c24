"""The vocabulary and shapes: shipped inside the installed package, and in sync."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from rdflib import Graph
from rdflib.namespace import OWL, RDF, RDFS, SH
from rdflib.term import URIRef

from ldids.namespace import LDIDS, NAMESPACE_IRI
from ldids.resources import shapes_file, shapes_graph, vocabulary_file, vocabulary_graph

ROOT = Path(__file__).resolve().parents[1]


def test_loaded_from_the_installed_package() -> None:
    # Not the checkout fallback: the packages ldids.shapes and ldids.vocab exist.
    assert (resources.files("ldids.shapes") / "ldids.ttl").is_file()
    assert (resources.files("ldids.vocab") / "ldids.ttl").is_file()
    assert shapes_file().read_bytes() == (ROOT / "shapes" / "ldids.ttl").read_bytes()
    assert vocabulary_file().read_bytes() == (ROOT / "vocab" / "ldids.ttl").read_bytes()


def defined_terms(graph: Graph) -> set[str]:
    kinds = (RDFS.Class, RDF.Property)
    return {
        str(subject)[len(NAMESPACE_IRI) :]
        for kind in kinds
        for subject in graph.subjects(RDF.type, kind)
        if str(subject).startswith(NAMESPACE_IRI)
    }


def test_python_namespace_matches_the_turtle() -> None:
    annotated = set(LDIDS.__annotations__)
    assert annotated == defined_terms(vocabulary_graph())


def test_every_term_has_a_label_and_a_comment() -> None:
    graph = vocabulary_graph()
    for name in defined_terms(graph):
        term = URIRef(NAMESPACE_IRI + name)
        assert getattr(LDIDS, name) == term
        assert graph.value(term, RDFS.label) is not None, name
        assert graph.value(term, RDFS.comment) is not None, name
    assert (URIRef(NAMESPACE_IRI), RDF.type, OWL.Ontology) in graph


def test_shapes_name_every_scheme_and_the_two_checks() -> None:
    graph = shapes_graph()
    shapes = {str(s).rsplit("#", 1)[1] for s in graph.subjects(RDF.type, SH.NodeShape)}
    assert shapes == {
        "InfoFedoraSyntax",
        "FedoraPidSyntax",
        "OaiIdentifierSyntax",
        "PoiSyntax",
        "HandleSyntax",
        "CanonicalIdentifier",
        "SameAsLink",
    }
