"""``ldids validate`` streams Turtle, TriG and RDF/XML as it streams N-Triples (issue "SHACL at
dump scale", point 2): the shipped shapes checked statement by statement as pyoxigraph parses
the document, with pySHACL's results over the whole graph, from a file or from standard input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph, URIRef

from ldids.cli import main

# A violation of every shipped shape, beside identifiers that conform, and a blank node.
DATA = """\
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix ex: <http://example.org/> .
<info:fedora/demo:1> dc:identifier "demo:a b", "demo:1" ;
    ex:p <info:fedora/demo:1/9bad>, <info:fedora/demo:1/DC>, <oai:bad>, <http://purl.org/poi/bad/x>,
         <http://purl.org/poi/arXiv.org/a>, "hdl:1765", <HDL://1765/315>, <hdl:1765/315>, "just text" ;
    owl:sameAs "a literal", <info:fedora/demo:1>, <oai:arXiv.org:demo:1> .
[] owl:sameAs <info:fedora/demo:1> ; ex:p <https://hdl.handle.net/1765/1> .
"""

GRAPH = URIRef("http://example.org/g")
SHAPES = "https://w3id.org/ldids/shapes#"
#: The IRIs and literals of DATA, and the SHACL and OWL IRIs of results: any other text in a
#: result is a blank node's label.
NAMED = {str(term) for triple in Graph().parse(data=DATA, format="turtle") for term in triple} | {
    "http://www.w3.org/2002/07/owl#sameAs"
}


def _run(*argv: str) -> tuple[int, dict[str, object]]:
    out = io.StringIO()
    code = main(["validate", "-f", "json", "--all", *argv], out)
    return code, json.loads(out.getvalue())


def _results(report: dict[str, object]) -> list[tuple[str, ...]]:
    """Each result's focus, path, value, shape and component, sorted; blank nodes (the focus
    node, or an anonymous property shape) as such, as their labels are each parser's own."""

    def shown(text: object) -> str:
        return "-" if text is None else str(text) if str(text) in NAMED or str(text).startswith(SHAPES) else "_:"

    rows = report["results"]
    assert isinstance(rows, list)
    return sorted(
        (shown(r["focus"]), shown(r["path"]), shown(r["value"]), shown(r["shape"]), str(r["component"])) for r in rows
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("formats")
    graph = Graph().parse(data=DATA, format="turtle")
    found = {}
    for suffix, fmt in (("ttl", "turtle"), ("nt", "nt"), ("rdf", "xml")):
        found[suffix] = folder / f"data.{suffix}"
        found[suffix].write_text(graph.serialize(format=fmt))
    # The same statements in one named graph: N-Triples lines are TriG statements too.
    lines = found["nt"].read_text().splitlines()
    found["trig"], found["nq"] = folder / "data.trig", folder / "data.nq"
    found["trig"].write_text("".join([f"<{GRAPH}> {{\n", *(f"{line}\n" for line in lines), "}\n"]))
    found["nq"].write_text("".join(f"{line[:-1]}<{GRAPH}> .\n" for line in lines))
    return found


@pytest.mark.parametrize("suffix", ["ttl", "rdf"])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_streamed_documents_give_pyshacls_results(files: dict[str, Path], suffix: str, workers: str) -> None:
    code, streamed = _run("-w", workers, str(files[suffix]))
    reference_code, reference = _run("--engine", "pyshacl", str(files[suffix]))
    assert code == reference_code == 1
    assert _results(streamed) == _results(reference)
    assert len(_results(streamed)) == 13  # every shape violated: the count taken from DATA by hand
    # The results say the file; no line: the parser tells none per statement.
    assert {(row["file"], row["line"]) for row in streamed["results"]} == {(str(files[suffix]), None)}  # type: ignore[attr-defined]


def test_n_triples_results_keep_their_lines(files: dict[str, Path]) -> None:
    _, streamed = _run(str(files["nt"]))
    _, turtle = _run(str(files["ttl"]))
    assert _results(streamed) == _results(turtle)
    lines = files["nt"].read_text().splitlines()
    for row in streamed["results"]:  # type: ignore[attr-defined]
        assert row["value"] in lines[row["line"] - 1]


def test_trig_streams_as_its_n_quads(files: dict[str, Path]) -> None:
    code, trig = _run(str(files["trig"]))
    nq_code, nquads = _run(str(files["nq"]))
    assert code == nq_code == 1
    assert _results(trig) == _results(nquads)
    assert len(_results(trig)) == 13


def test_standard_input_is_sniffed_and_streamed(files: dict[str, Path]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "validate", "-f", "json", "--all", "-"],
        input=files["ttl"].read_bytes(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    _, from_file = _run(str(files["ttl"]))
    assert _results(json.loads(done.stdout)) == _results(from_file)


def test_a_syntax_error_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text(DATA + "<info:fedora/demo:2> <http://example.org/p> .\n")
    assert main(["validate", str(bad)], io.StringIO()) == 2
    error = capsys.readouterr().err
    assert f"{bad}:9:45: syntax error" in error


def test_stream_engine_refuses_what_it_cannot_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.jsonld"
    data.write_text("[]")
    assert main(["validate", "--engine", "stream", str(data)], io.StringIO()) == 2
    assert "--engine stream reads N-Triples, N-Quads, Turtle, TriG and RDF/XML" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("pure", [False, True])
def test_a_graph_term_in_n_triples_is_the_error_normalize_says(
    workers: str, pure: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """N-Triples has no graph term (§7, [2]): ``validate`` of a .nt file with one says what
    ``normalize`` says of it (it read the lines as N-Quads, and said the file conforms); the
    same line in a .nq file is a statement."""
    if pure:
        monkeypatch.setenv("LDIDS_PURE_PYTHON", "1")
    lines = "<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n" * 3
    quad = "<info:fedora/demo:1> <http://a.example/p> <hdl:1765/1> <http://a.example/g> .\n"
    triples, quads = tmp_path / "data.nt", tmp_path / "data.nq"
    triples.write_text(lines + quad + lines)
    quads.write_text(lines + quad + lines)
    assert main(["normalize", str(triples), "-o", str(tmp_path / "out.nt")], io.StringIO()) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"{triples}:4:" in said
    assert main(["validate", "-w", workers, str(triples)], io.StringIO()) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == said
    assert main(["validate", "-w", workers, str(quads)], io.StringIO()) == 0
