"""``ldids validate -s``: users' shapes on each engine, the reports, pySHACL's options, exit codes.

Every engine must give pySHACL's results: the reports are compared with pySHACL's own report
graph, run here directly on the same files."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from pyshacl import validate as pyshacl_validate
from rdflib import BNode, Graph
from rdflib.namespace import RDF, SH

from ldids.cli import main

SHAPES = """\
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/ns#> .
ex:RecordShape a sh:NodeShape ;
    sh:targetClass ex:Record ;
    sh:property [ sh:path ex:identifier ; sh:minCount 1 ; sh:maxCount 1 ] ;
    sh:property [ sh:path ex:title ; sh:uniqueLang true ] ;
    sh:property [ sh:path ex:creator ; sh:class ex:Person ] ;
    sh:property [ sh:path [ sh:inversePath ex:partOf ] ; sh:qualifiedValueShape [ sh:class ex:Chapter ] ;
                  sh:qualifiedMinCount 1 ] ;
    sh:sparql [ sh:message "modified before created" ; sh:select \"\"\"
        PREFIX ex: <http://example.org/ns#>
        SELECT $this ?value WHERE { $this ex:created ?c ; ex:modified ?value . FILTER (?value < ?c) }\"\"\" ] .
"""

DATA = """\
@prefix ex: <http://example.org/ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:good a ex:Record ; ex:identifier "1" ; ex:title "A"@en, "B"@de ; ex:creator ex:ann .
ex:c1 a ex:Chapter ; ex:partOf ex:good .
ex:ann a ex:Person .
ex:bad a ex:Record ; ex:identifier "2", "3" ; ex:title "A"@en, "B"@en ; ex:creator ex:bob, [ ex:name "x" ] ;
    ex:created "2020-02-01T00:00:00Z"^^xsd:dateTime ; ex:modified "2020-01-01T00:00:00Z"^^xsd:dateTime .
ex:a1 a ex:Appendix ; ex:partOf ex:bad .
ex:none a ex:Record .
"""

ENGINES = ["auto", "pyshacl"]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "shapes.ttl").write_text(SHAPES)
    (tmp_path / "data.ttl").write_text(DATA)
    return tmp_path / "shapes.ttl", tmp_path / "data.ttl"


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["validate", *argv], out), out.getvalue()


def _keys(report: Graph) -> Counter[tuple[str, ...]]:
    """Each result by focus node, value, path, severity, component, and source shape (its IRI;
    blank nodes as such, as their labels are each parser's own). Blank node focus nodes and
    values likewise."""

    def shown(node: object) -> str:
        return "_:" if isinstance(node, BNode) else str(node)

    keys: Counter[tuple[str, ...]] = Counter()
    for result in report.subjects(RDF.type, SH.ValidationResult):
        path = report.value(result, SH.resultPath)
        inverse = None if path is None else report.value(path, SH.inversePath)
        keys[
            (
                shown(report.value(result, SH.focusNode)),
                shown(report.value(result, SH.value)),
                f"^{inverse}" if inverse is not None else shown(path),
                shown(report.value(result, SH.resultSeverity)),
                shown(report.value(result, SH.sourceConstraintComponent)),
                shown(report.value(result, SH.sourceShape)),
            )
        ] += 1
    return keys


def _pyshacl_report(shapes: Path, data: Path) -> Graph:
    conforms, report, _ = pyshacl_validate(
        Graph().parse(data), shacl_graph=Graph().parse(shapes), advanced=True, do_owl_imports=False
    )
    assert conforms is False
    assert isinstance(report, Graph)
    return report


@pytest.mark.parametrize("engine", ENGINES)
def test_turtle_report_is_pyshacls(files: tuple[Path, Path], engine: str) -> None:
    shapes, data = files
    code, text = _run("-s", str(shapes), str(data), "-f", "turtle", "--engine", engine)
    assert code == 1
    report = Graph().parse(data=text, format="turtle")
    (root,) = report.subjects(RDF.type, SH.ValidationReport)
    assert report.value(root, SH.conforms).toPython() is False  # type: ignore[union-attr]
    expected = _keys(_pyshacl_report(shapes, data))
    assert sum(expected.values()) == 8  # two maxCount/minCount, uniqueLang, two sh:class, qualified, SPARQL
    assert _keys(report) == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_json_and_text_reports_agree_between_engines(files: tuple[Path, Path], engine: str) -> None:
    shapes, data = files
    code, text = _run("-s", str(shapes), str(data), "-f", "json", "--engine", engine)
    assert code == 1
    document = json.loads(text)
    assert document["conforms"] is False
    assert document["violations"] == 8
    assert document["per_shape"] == {
        "http://example.org/ns#RecordShape": 1,  # the SPARQL constraint's results name the node shape
        "property shape of http://example.org/ns#creator": 2,
        "property shape of http://example.org/ns#identifier": 2,
        "property shape of http://example.org/ns#title": 1,
        "property shape of ^<http://example.org/ns#partOf>": 2,
    }
    code, text = _run("-s", str(shapes), str(data), "--engine", engine, "--all")
    lines = text.splitlines()
    assert lines[0] == "does not conform: 8 results"
    assert "       2  property shape of http://example.org/ns#identifier" in lines
    assert sum(1 for line in lines if line.startswith("Violation: ")) == 8


def test_engines_give_the_same_results(files: tuple[Path, Path]) -> None:
    shapes, data = files
    results = []
    for engine in ENGINES:
        _, text = _run("-s", str(shapes), str(data), "-f", "json", "--engine", engine, "--all")
        listed = json.loads(text)["results"]
        # A blank node's label is each engine's own: such values are left out.
        keys = [(r["focus"], r["path"] or "", r["shape"], r["component"], r["value"] or "") for r in listed]
        results.append(sorted(key for key in keys if key[4] == "" or key[4].startswith(("http", "2020"))))
    assert results[0] == results[1]
    assert len(results[0]) == 7


@pytest.mark.parametrize("engine", ENGINES)
def test_max_results_keeps_counting(files: tuple[Path, Path], engine: str) -> None:
    shapes, data = files
    _, text = _run("-s", str(shapes), str(data), "-f", "json", "--engine", engine, "--max-results", "2", "--all")
    document = json.loads(text)
    assert document["violations"] == 8
    assert len(document["results"]) == 2
    assert document["truncated"] is True


@pytest.mark.parametrize("engine", ENGINES)
def test_abort_stops_at_the_first_result(files: tuple[Path, Path], engine: str) -> None:
    shapes, data = files
    code, text = _run("-s", str(shapes), str(data), "-f", "json", "--engine", engine, "--abort", "--all")
    assert code == 1
    assert len(json.loads(text)["results"]) == 1


ONTOLOGY = """\
@prefix ex: <http://example.org/ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:teaches rdfs:domain ex:Teacher .
"""
TEACHERS = """\
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/ns#> .
ex:TeacherShape a sh:NodeShape ; sh:targetClass ex:Teacher ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_inference_and_ontology_graphs(tmp_path: Path, engine: str) -> None:
    (tmp_path / "shapes.ttl").write_text(TEACHERS)
    (tmp_path / "ontology.ttl").write_text(ONTOLOGY)
    (tmp_path / "data.ttl").write_text("<http://example.org/ns#ann> <http://example.org/ns#teaches> <urn:x:c> .\n")
    (tmp_path / "both.ttl").write_text(ONTOLOGY + "ex:ann ex:teaches <urn:x:c> .\n")
    shapes, data, ontology = (str(tmp_path / name) for name in ("shapes.ttl", "data.ttl", "ontology.ttl"))
    # Without inference ex:ann is no ex:Teacher, with RDFS (rdfs:domain, RDF Semantics §9.2.1) it is.
    assert _run("-s", shapes, str(tmp_path / "both.ttl"), "--engine", engine)[0] == 0
    code, text = _run("-s", shapes, str(tmp_path / "both.ttl"), "--engine", engine, "--inference", "rdfs")
    assert code == 1
    assert "http://example.org/ns#ann" in text
    # The ontology in a file of its own, as pyshacl's -e.
    assert _run("-s", shapes, data, "--engine", engine, "--inference", "rdfs")[0] == 0
    assert _run("-s", shapes, data, "-e", ontology, "--engine", engine, "--inference", "rdfs")[0] == 1


@pytest.mark.parametrize("value", ["rdfs", "owlrl", "both", "none"])
def test_pyshacls_dash_i_is_refused_clearly(
    files: tuple[Path, Path], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    shapes, data = files
    assert _run("-s", str(shapes), str(data), "-i", value)[0] == 2
    assert f"write --inference {value}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("shapes", "code"),
    [
        # Conforming data, shapes that find nothing wrong.
        (TEACHERS, 0),
        # Shapes that would reach the network: refused on every engine (DESIGN.md §7).
        (TEACHERS + "ex:TeacherShape <http://www.w3.org/2002/07/owl#imports> <http://example.org/more> .\n", 2),
        (
            '@prefix sh: <http://www.w3.org/ns/shacl#> .\n<urn:x:s> sh:targetNode <urn:x:a> ; sh:sparql [ sh:select """'
            'SELECT $this WHERE { SERVICE <http://example.org/sparql> { $this ?p ?o } }""" ] .\n',
            2,
        ),
        # SPARQL that does not parse: could not run.
        (
            '@prefix sh: <http://www.w3.org/ns/shacl#> .\n<urn:x:s> sh:targetNode <urn:x:a> ; sh:sparql [ sh:select """'
            'SELECT $this WHERE { $this ?p }""" ] .\n',
            2,
        ),
        # Shapes that are no Turtle.
        ("<urn:x:s> <urn:x:p> .\n", 2),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_exit_codes(tmp_path: Path, shapes: str, code: int, engine: str) -> None:
    (tmp_path / "shapes.ttl").write_text(shapes)
    (tmp_path / "data.ttl").write_text("<urn:x:a> <urn:x:p> <urn:x:b> .\n")
    assert _run("-s", str(tmp_path / "shapes.ttl"), str(tmp_path / "data.ttl"), "--engine", engine)[0] == code


@pytest.mark.parametrize(
    ("datatype", "earlier", "later", "found_by_compiled"),
    [
        ("dateTime", "2020-01-01T00:00:00Z", "2020-02-01T00:00:00Z", True),
        ("integer", "3", "5", True),
        # SPARQL 1.1 §17.3 orders xsd:dateTime, not xsd:date: comparing two xsd:date values is an
        # error, and the FILTER false, in the compiled engine; rdflib (so pySHACL) orders them as
        # an extension. --engine pyshacl gives that reading.
        ("date", "2020-01-01", "2020-02-01", False),
    ],
)
def test_sparql_ordering_of_values(
    files: tuple[Path, Path], datatype: str, earlier: str, later: str, found_by_compiled: bool
) -> None:
    shapes, data = files
    xsd = "http://www.w3.org/2001/XMLSchema#"
    data.write_text(
        "@prefix ex: <http://example.org/ns#> .\n"
        f'ex:r ex:created "{later}"^^<{xsd}{datatype}> ; ex:modified "{earlier}"^^<{xsd}{datatype}> .\n'
    )
    (shapes.parent / "one.ttl").write_text(SHAPES.replace("sh:targetClass ex:Record", "sh:targetNode ex:r"))
    found = {}
    for engine in ENGINES:
        _, text = _run("-s", str(shapes.parent / "one.ttl"), str(data), "-f", "json", "--engine", engine)
        found[engine] = "http://example.org/ns#RecordShape" in json.loads(text)["per_shape"]
    assert found == {"pyshacl": True, "auto": found_by_compiled}


def test_shipped_shapes_still_stream_beside_users_shapes(tmp_path: Path) -> None:
    # N-Triples with a non-canonical identifier: the shipped shapes find it as the data stream
    # by (a line number), the user's shapes find their own result whole-graph.
    (tmp_path / "shapes.ttl").write_text(TEACHERS)
    (tmp_path / "data.nt").write_text(
        f"<http://example.org/ns#ann> <{RDF.type}> <http://example.org/ns#Teacher> .\n"
        "<http://example.org/ns#ann> <urn:x:p> <info:fedora/demo%3a1> .\n"
    )
    code, text = _run("-s", str(tmp_path / "shapes.ttl"), str(tmp_path / "data.nt"), "-f", "json", "--all")
    assert code == 1
    results = json.loads(text)["results"]
    assert {(r["shape"], r["line"]) for r in results} >= {("property shape of http://example.org/ns#name", None)}
    assert any(r["line"] == 2 for r in results)  # streamed: the line of the statement
    pyshacl_code, pyshacl_text = _run(
        "-s", str(tmp_path / "shapes.ttl"), str(tmp_path / "data.nt"), "-f", "json", "--engine", "pyshacl"
    )
    assert pyshacl_code == 1
    assert json.loads(pyshacl_text)["per_shape"] == json.loads(text)["per_shape"]


def test_progress_only_when_asked(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    shapes, data = files
    _run("-s", str(shapes), str(data))
    assert capsys.readouterr().err == ""  # standard error is no terminal here
    _run("-s", str(shapes), str(data), "--progress")
    err = capsys.readouterr().err
    assert "validating " in err
    assert "on shacl" in err
    assert "8 results" in err


@pytest.mark.parametrize(("engine", "suffix"), [("stream", ".ttl"), ("pyshacl", ".ttl"), ("pyshacl", ".jsonld")])
def test_relative_iris_resolve_against_base(
    tmp_path: Path, engine: str, suffix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``validate --base`` is what its message advises for standard input (it had no such
    option); with it the statement about the resolved IRI is checked."""
    body = '<rel/x> <http://purl.org/dc/elements/1.1/identifier> "demo:1" .\n'
    if suffix == ".jsonld":
        body = '{"@id": "rel/x", "http://purl.org/dc/elements/1.1/identifier": "demo:1"}'
    fmt = "turtle" if suffix == ".ttl" else "json-ld"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(body.encode())))
    assert main(["validate", "--engine", engine, "-i", fmt, "-"]) == 2
    assert "(give one: --base IRI)" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(body.encode())))
    out = io.StringIO()
    assert (
        main(["validate", "--engine", engine, "-i", fmt, "--base", "http://example.org/", "-f", "json", "-"], out) == 0
    )
    assert main(["validate", "--base", "not absolute", "x.ttl"]) == 2


def test_an_anonymous_property_shape_is_named_alike_by_every_engine_and_run(tmp_path: Path) -> None:
    """A result of a property shape with no IRI (SameAsLink's) is named by its path, as the
    pySHACL engine and the service name it: the streamed engine named it by its blank node's
    label, another every run."""
    import subprocess
    import sys

    data = tmp_path / "data.nt"
    data.write_text('<http://e/s> <http://www.w3.org/2002/07/owl#sameAs> "lit" .\n')
    named = []
    for engine in ("stream", "stream", "pyshacl"):
        done = subprocess.run(
            [sys.executable, "-m", "ldids", "validate", "--engine", engine, "-f", "json", str(data)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 1, done.stderr
        report = json.loads(done.stdout)
        named.append(sorted({result["shape"] for result in report["results"]}))
    assert named[0] == named[1] == named[2] == ["property shape of http://www.w3.org/2002/07/owl#sameAs"]


def _results(data: Path, engine: str) -> list[tuple[object, ...]]:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "ldids", "validate", "--engine", engine, "-f", "json", "--all", str(data)],
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return sorted((r["focus"], r["path"], r["value"], r["shape"], r["component"]) for r in report["results"])


def test_white_space_beyond_xsd_is_read_alike_by_both_engines(tmp_path: Path) -> None:
    """The shipped patterns name the white space they mean ([ \\t\\n\\r], XSD's \\s) and the
    characters '.' takes ([^\\n\\r]): pySHACL reads \\s and '.' as Python's re does (all of
    Unicode's white space; CR), so the streamed engine, which reads them as XSD, and pySHACL
    gave other results for a handle holding U+00A0 or a CR."""
    texts = [
        "hdl:1765/a\\u00A0b",
        "hdl:1765/ab#x\\ry",
        "hdl:1765/a\\u2028b",
        "hdl:1765/a#b\\u3000",
        "hdl:1765/a\\u000Bb",
    ]
    data = tmp_path / "d.nt"
    data.write_text("".join(f'<http://ex.org/s> <http://ex.org/p> "{text}" .\n' for text in texts))
    streamed = _results(data, "stream")
    assert streamed == _results(data, "pyshacl")
    assert {focus for focus, *_ in streamed} == {"hdl:1765/ab#x\ry"}  # a CR: no handle, not canonical


def test_a_pattern_ends_at_the_very_end_of_the_text_as_xpath_says(tmp_path: Path) -> None:
    """sh:pattern is SPARQL's REGEX (SHACL §4.4.1), whose $ matches at the end of the text
    only (XPath F&O 3.1 §5.6.1): an identifier with a line break after it is not one. (pySHACL
    reads $ as Python's re, which also matches before a last line break: it differs here.)"""
    data = tmp_path / "d.nt"
    data.write_text('<http://ex.org/s> <http://ex.org/p> "info:fedora/demo:1\\n" .\n')
    shapes = {shape for _, _, _, shape, _ in _results(data, "stream")}
    assert shapes == {
        "https://w3id.org/ldids/shapes#InfoFedoraSyntax",
        "https://w3id.org/ldids/shapes#CanonicalIdentifier",
    }
