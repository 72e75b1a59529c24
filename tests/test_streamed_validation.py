"""Streamed validation of the shipped shapes gives pyshacl's results (DESIGN.md §6b).

Data are generated from tables of valid and invalid forms of every scheme, with violations
of every shipped shape injected; pyshacl validates the whole graph, the streamed checks each
statement as it comes; their results are held equal on (focus, path, value, shape,
component)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rdflib import Graph
from rdflib.namespace import RDF, SH
from rdflib.term import BNode, URIRef

from ldids.dumps.validation import validate_dump
from ldids.ntriples import quad_line
from ldids.resources import shapes_graph
from ldids.shacl.streamed import plan
from ldids.shacl.validate import Verdict, validate

SHAPES = "https://w3id.org/ldids/shapes#"
DC = "<http://purl.org/dc/elements/1.1/identifier>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
LONG = "A" * 60
#: Terms (N-Triples) valid and invalid for every scheme, canonical or not.
OBJECTS = [
    "<info:fedora/demo:1>",
    "<info:fedora/demo%3a1>",
    "<INFO:FEDORA/demo:1/DS1>",
    "<info:fedora/demo:1/9bad>",
    "<info:fedora/de~mo:1>",
    '"info:fedora/demo:2"',
    '"info:fedora/demo:2"@en',
    "<oai:arXiv.org:hep-th/9901001>",
    "<oai:bad>",
    '"oai:arXiv.org:a%2fb"',
    '"oai:x.org:ok"^^<http://www.w3.org/2001/XMLSchema#anyURI>',
    "<http://purl.org/poi/arXiv.org/a>",
    "<http://purl.org:443/poi/arXiv.org/a>",
    "<https://purl.org/poi/arXiv.org/b>",
    "<HTTP://PURL.ORG:80/poi/arXiv.org/c>",
    "<http://purl.org/poi/bad/x>",
    "<hdl:1765/315>",
    "<hdl:100.102/abcdefabcdefabcdefabcdefabcdefab>",
    "<hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAB>",
    "<HDL://1765/315>",
    "<https://hdl.handle.net/1765/315>",
    "<http://hdl.handle.net:8080/1765/315>",
    '"hdl:1765"',
    "<http://example.org/other>",
    '"just text"',
    '"42"^^<http://www.w3.org/2001/XMLSchema#integer>',
]
SUBJECTS = ["<info:fedora/demo:1>", "<info:fedora/other:2>", "<oai:arXiv.org:demo:3>", "<http://example.org/s>", "_:b1"]
BARE = [
    "demo:1",
    "demo%3a1",
    "demo:a b",
    f"demo:{LONG[:59]}",
    f"demo:{LONG}",
    f"demo%3A{LONG[:59]}",
    f"demo%3a{LONG}",
    "other:2",
    "demo:",
    "catkey:1",
]


def _dump(seed: int, count: int = 400) -> str:
    pick = random.Random(seed)
    lines = []
    for _ in range(count):
        subject = pick.choice(SUBJECTS)
        kind = pick.random()
        if kind < 0.25:
            lines.append(f'{subject} {DC} "{pick.choice(BARE)}" .')
        elif kind < 0.35:
            obj = pick.choice([*OBJECTS[:5], subject, '"a literal"'])
            lines.append(f"{subject} {SAME_AS} {obj} .")
        else:
            lines.append(f"{subject} <http://example.org/p> {pick.choice(OBJECTS)} .")
    return "\n".join(lines) + "\n"


def _key(violation: object, shapes: Graph) -> tuple[str, str, str, str, str]:
    shape = violation.shape  # type: ignore[attr-defined]
    if not shape.startswith(SHAPES):  # an anonymous property shape: named by its path
        shape = f"property {violation.path}"  # type: ignore[attr-defined]
    # Blank node labels are each parser's own: one blank node is in the data.
    focus, value = (_text(violation.focus), _text(violation.value))  # type: ignore[attr-defined]
    return (focus, str(violation.path), value, shape, str(violation.component))  # type: ignore[attr-defined]


def _text(node: object) -> str:
    return "_:b1" if isinstance(node, BNode) else str(node)


def _keys(verdict: Verdict) -> set[tuple[str, str, str, str, str]]:
    return {_key(v, shapes_graph()) for v in verdict.violations}


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("workers", [1, 2])
def test_streamed_results_equal_pyshacl(tmp_path: Path, seed: int, workers: int) -> None:
    text = _dump(seed)
    data = tmp_path / "d.nt"
    data.write_text(text)
    graph = Graph().parse(data=text, format="nt")
    expected = validate([(s, p, o, None) for s, p, o in graph])
    streamed = validate_dump([str(data)], shapes_graph(), workers=workers, block_size=4096)
    assert streamed.not_streamable == []
    assert _keys(streamed.verdict) == _keys(expected)
    # Violations of every shape were injected.
    shapes = {v[3] for v in _keys(expected)}
    named = {str(s) for s in shapes_graph().subjects(RDF.type, SH.NodeShape)}
    assert named <= shapes
    assert "property http://www.w3.org/2002/07/owl#sameAs" in shapes


def test_results_say_where() -> None:
    data = Path(__file__).parent / "data" / "streamed.nt"
    streamed = validate_dump([str(data)], shapes_graph())
    where = {(v.line, str(v.focus), v.shape.rsplit("#", 1)[-1]) for v in streamed.verdict.violations}
    assert where == {
        (4, "demo:a b", "FedoraPidSyntax"),
        (5, "oai:bad", "OaiIdentifierSyntax"),
        (5, "oai:bad", "CanonicalIdentifier"),
        (6, "hdl:1765/abcdefabcdefabcdefabcdefabcdefab", "CanonicalIdentifier"),
        (7, "info:fedora/demo:1", "SameAsLink"),
    }
    assert {v.file for v in streamed.verdict.violations} == {str(data)}
    assert streamed.statements == 6


def test_max_results_keeps_counting(tmp_path: Path) -> None:
    data = tmp_path / "d.nt"
    data.write_text("".join(f"<http://x/s> <http://x/p> <oai:bad{i}> .\n" for i in range(50)))
    streamed = validate_dump([str(data)], shapes_graph(), max_results=3)
    assert len(streamed.verdict.violations) == 3
    assert streamed.verdict.per_shape()[SHAPES + "OaiIdentifierSyntax"] == 50
    assert streamed.verdict.total == 100


def test_shapes_that_are_not_local_are_named() -> None:
    shapes = Graph().parse(
        data="""@prefix sh: <http://www.w3.org/ns/shacl#> .
        <urn:x:Counted> a sh:NodeShape ; sh:targetSubjectsOf <urn:x:p> ;
            sh:property [ sh:path <urn:x:q> ; sh:minCount 1 ] .
        <urn:x:Classy> a sh:NodeShape ; sh:targetClass <urn:x:C> ; sh:pattern "^a" .
        <urn:x:Local> a sh:NodeShape ; sh:targetObjectsOf <urn:x:p> ; sh:maxLength 3 .""",
        format="turtle",
    )
    checks = plan(shapes)
    assert [str(node) for node in checks.shapes] == ["urn:x:Local"]
    assert {str(node) for node, _ in checks.not_streamable} == {"urn:x:Counted", "urn:x:Classy"}
    assert all(reason for _, reason in checks.not_streamable)
    found = list(checks.findings((URIRef("urn:x:s"), URIRef("urn:x:p"), URIRef("urn:x:long"))))
    assert [(str(f[0]), str(f[4])) for f in found] == [("urn:x:long", str(SH.MaxLengthConstraintComponent))]


def test_the_quad_line_round_trip_is_what_is_validated() -> None:
    # The generated lines are N-Triples that rdflib and pyoxigraph both read.
    graph = Graph().parse(data=_dump(3, 50), format="nt")
    assert all(quad_line((s, p, o, None)) for s, p, o in graph)


def test_validate_and_normalize_validate_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ldids.cli import main

    data = Path(__file__).parent / "data" / "streamed.nt"
    assert main(["validate", str(data), "-w", "2"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "does not conform: 5 results"
    assert f"{data}:5: Violation: oai:bad: not a valid oai-identifier" in out
    clean = tmp_path / "clean.nt"
    clean.write_text("<info:fedora/demo:1> <http://x/p> <http://purl.org/poi/arXiv.org/a> .\n")
    assert main(["validate", str(clean)]) == 0
    output = tmp_path / "out.nt"
    assert main(["normalize", str(data), "-o", str(output), "-q", "--validate"]) == 1
    assert "not a valid oai-identifier" in capsys.readouterr().err
    assert main(["normalize", str(clean), "-o", str(output), "-q", "--validate"]) == 0


def test_named_graphs_give_no_deprecation_warning() -> None:
    # pytest turns warnings into errors (pyproject): rdflib's Dataset.default_context would fail this.
    graph = URIRef("urn:x:g")
    verdict = validate(
        [
            (URIRef("urn:x:s"), URIRef("urn:x:p"), URIRef("oai:bad"), graph),
            (URIRef("urn:x:s"), URIRef("urn:x:p"), URIRef("oai:bad2"), None),
        ]
    )
    assert {str(v.focus) for v in verdict.violations} == {"oai:bad", "oai:bad2"}
