"""Every reader ldids ships against the W3C RDF 1.1 test suites (DESIGN.md §6a).

The suites (N-Triples, N-Quads, Turtle, TriG) are copied unchanged into
``../shared/w3c-rdf-tests`` (the LDIDS_SHARED setting, tests/conftest.py). Each test of a
suite's ``manifest.ttl`` runs against each reader of its syntax:

- ``graph``: :func:`ldids.rdf.io.read_bytes`, for all four syntaxes;
- ``stream-compiled`` and ``stream-python``: the streamed dump's per-line loop
  (:func:`ldids.dumps.stream.process_block`, compiled and in Python), for N-Triples and
  N-Quads;
- ``pieces``: a Turtle or TriG document cut after every statement and read a piece at a
  time, as a run's workers read a large one (:mod:`ldids.dumps.pieces`), or in step where
  it is not cut (:class:`ldids.dumps.rdf_stream.NQuadsReader`), as they do.

A positive syntax test must be read without an error, a negative one refused (the graph
reader raises InputError saying the line and column; the stream reports a bad line); an
evaluation test's statements must be the expected ones, as isomorphic datasets. The base
IRI of a test is its ``mf:action`` IRI under ``mf:assumedTestBase`` (the suites' README).
The stream also has its accepted lines' terms held equal to pyoxigraph's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib import Graph, Namespace
from rdflib.compare import isomorphic
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.dumps import pieces, stream, worker
from ldids.dumps.grammar import _parse_term, grammar
from ldids.dumps.pieces import piece_statements
from ldids.dumps.rdf_stream import NQuadsReader
from ldids.dumps.stream import Settings
from ldids.errors import InputError, PieceError
from ldids.ntriples import Quad
from ldids.passes.config import Config
from ldids.rdf import io as rdfio

SHARED = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared")
SUITES = SHARED / "w3c-rdf-tests"
pytestmark = pytest.mark.shared

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
RDFT = "http://www.w3.org/ns/rdftest#"
RDF_FIRST = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first"
RDF_REST = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

#: Suite folder -> (ldids format name, does the streamed dump read it?)
SYNTAXES = {
    "rdf-n-triples": ("nt", True),
    "rdf-n-quads": ("nquads", True),
    "rdf-turtle": ("turtle", False),
    "rdf-trig": ("trig", False),
}


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    kind: str  # "positive", "negative" or "eval"
    action: Path
    base: str  # the action's IRI
    result: Path | None


def _manifest(suite: str) -> list[Case]:
    """The tests of one suite, in the manifest's order."""
    folder = SUITES / suite
    base = f"https://w3c.github.io/rdf-tests/rdf/rdf11/{suite}/"
    triples = list(ox.parse(path=str(folder / "manifest.ttl"), format=ox.RdfFormat.TURTLE, base_iri=base))
    by_subject: dict[str, dict[str, ox.NamedNode | ox.BlankNode | ox.Literal]] = {}
    for quad in triples:
        by_subject.setdefault(str(quad.subject), {})[quad.predicate.value] = quad.object
    entries = by_subject[f"<{base}manifest.ttl>" if f"<{base}manifest.ttl>" in by_subject else f"<{base}>"]
    node = str(entries[MF + "entries"])
    cases = []
    while node != "<http://www.w3.org/1999/02/22-rdf-syntax-ns#nil>":
        test = by_subject[node][RDF_FIRST]
        node = str(by_subject[node][RDF_REST])
        fields = by_subject[str(test)]
        kind = str(fields[RDF_TYPE].value).removeprefix(RDFT)
        action = str(fields[MF + "action"].value)
        result = fields.get(MF + "result")
        cases.append(
            Case(
                suite,
                str(fields[MF + "name"].value),
                "negative" if "Negative" in kind else "eval" if kind.endswith("Eval") else "positive",
                folder / action.removeprefix(base),
                action,
                None if result is None else folder / str(result.value).removeprefix(base),
            )
        )
    return cases


def _cases() -> list[object]:
    if not SUITES.is_dir():
        return [pytest.param(None, "", id="suites-missing")]
    params: list[object] = []
    for suite, (_, streamed) in SYNTAXES.items():
        readers = ["graph", "stream-compiled", "stream-python"] if streamed else ["graph"]
        if suite in ("rdf-turtle", "rdf-trig"):
            readers.append("pieces")
        for case in _manifest(suite):
            params.extend(pytest.param(case, reader, id=f"{suite}/{reader}/{case.name}") for reader in readers)
    return params


def _require_suites() -> None:
    if not SUITES.is_dir():
        message = f"needs the W3C RDF test suites at {SUITES} (set LDIDS_SHARED to their folder)"
        if os.environ.get("LDIDS_REQUIRE_SHARED"):
            pytest.fail(f"{message}; LDIDS_REQUIRE_SHARED is set")
        pytest.skip(message)


# -- Comparing datasets -------------------------------------------------------------------------

_Q = Namespace("urn:x-ldids-test:quad#")


def _reified(quads: list[Quad]) -> Graph:
    """A dataset as one graph, each quad a blank node with its four terms: two datasets are
    isomorphic if and only if these graphs are (blank nodes shared across graphs included)."""
    graph = Graph()
    for s, p, o, g in {_quad(quad) for quad in quads}:
        node = BNode()
        graph.add((node, _Q.s, s))
        graph.add((node, _Q.p, p))
        graph.add((node, _Q.o, o))
        graph.add((node, _Q.g, _Q.default if g is None else g))
    return graph


XSD_STRING = URIRef("http://www.w3.org/2001/XMLSchema#string")


def _rdf11(term: Node | None) -> Node | None:
    """A term as RDF 1.1 has it: a simple literal is an xsd:string (rdflib tells them apart),
    a language tag's case is not part of it."""
    if isinstance(term, Literal) and term.datatype == XSD_STRING:
        return Literal(str(term))
    if isinstance(term, Literal) and term.language:  # language tags are case-insensitive (BCP47)
        return Literal(str(term), lang=term.language.lower())
    return term


def _quad(quad: Quad) -> Quad:
    return tuple(_rdf11(term) for term in quad)  # type: ignore[return-value]


def _ox_term(term: object) -> Node | None:
    """A pyoxigraph term as rdflib's (the expected side: a parser other than ldids')."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        return _rdf11(Literal(term.value, datatype=URIRef(term.datatype.value)))
    if isinstance(term, ox.DefaultGraph):
        return None
    raise AssertionError(f"not an RDF 1.1 term: {term!r}")


def _expected(path: Path, fmt: ox.RdfFormat) -> list[Quad]:
    """The expected statements of an evaluation test (N-Triples or N-Quads), as rdflib terms."""
    return _terms(ox.parse(path=str(path), format=fmt))


def _terms(quads: Iterable[ox.Quad]) -> list[Quad]:
    """pyoxigraph's statements as rdflib terms, lexical forms as written."""
    normalizing = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False  # lexical forms are compared as they are written
    try:
        return [
            (_ox_term(q.subject), _ox_term(q.predicate), _ox_term(q.object), _ox_term(q.graph_name))  # type: ignore[misc]
            for q in quads
        ]
    finally:
        rdflib.NORMALIZE_LITERALS = normalizing


# -- The readers ----------------------------------------------------------------------------------


def _graph(case: Case) -> None:
    fmt = SYNTAXES[case.suite][0]
    data = case.action.read_bytes()
    if case.kind == "negative":
        with pytest.raises(InputError) as refused:
            rdfio.read_bytes(data, fmt, source=case.action.name, base=case.base)
        assert refused.value.line is not None, f"no line in {refused.value}"
        assert refused.value.column is not None, f"no column in {refused.value}"
        return
    found = rdfio.read_bytes(data, fmt, source=case.action.name, base=case.base)
    if case.kind == "eval":
        assert case.result is not None
        result_format = ox.RdfFormat.N_QUADS if case.result.suffix == ".nq" else ox.RdfFormat.N_TRIPLES
        expected = _expected(case.result, result_format)
        assert isomorphic(_reified(found.quads), _reified(expected)), (
            f"read:\n{_lines(found.quads)}\nexpected:\n{_lines(expected)}"
        )


def _lines(quads: list[Quad]) -> str:
    from ldids.ntriples import quad_line

    return "\n".join(sorted(quad_line(q) for q in quads))


def _stream(case: Case, compiled: bool) -> None:
    if compiled and not stream.COMPILED:
        pytest.fail("ldids.dumps._scan was not built")
    quads = SYNTAXES[case.suite][0] == "nquads"
    settings = Settings(Config(), quads=quads, on_error="skip")
    data = case.action.read_bytes()
    loop = stream._compiled if compiled else stream._in_python
    result = loop(worker._Worker(settings), data, 1)
    if case.kind == "negative":
        assert result.bad, "a negative syntax test read without a bad line"
        return
    assert not result.bad, f"bad lines in a positive syntax test: {result.bad}"
    # The terms the stream wrote are pyoxigraph's (no identifier here: the output is the input).
    written: list[Quad] = []
    for line in bytes(result.output).decode("utf-8").split("\n"):
        match = grammar().statement.fullmatch(line)
        if match is None:
            continue  # blank or a comment
        s, p, o, g = match.group(1, 2, 3, 4)
        terms = (_parse_term(s), _parse_term(p), _parse_term(o), None if g is None else _parse_term(g))
        written.append(_quad(terms))
    expected = _expected(case.action, ox.RdfFormat.N_QUADS if quads else ox.RdfFormat.N_TRIPLES)
    assert sorted(map(repr, written)) == sorted(map(repr, expected))


def _in_pieces(case: Case) -> list[Quad]:
    fmt = SYNTAXES[case.suite][0]
    found = pieces.cut(str(case.action), fmt, case.base, 1, least=0)
    if found is None:
        with case.action.open("rb") as source:
            data = NQuadsReader(source, fmt, name=str(case.action), base=case.base).read()
    else:
        try:
            data = b"".join(
                piece_statements(found.path, start, stop, found.frame, opens, closes)
                for start, stop, opens, closes in found.ranges()
            )
        except PieceError:
            raise found.error() from None
    return _terms(ox.parse(data, format=ox.RdfFormat.N_QUADS))


def _pieces(case: Case) -> None:
    if case.kind == "negative":
        with pytest.raises(InputError) as refused:
            _in_pieces(case)
        assert refused.value.line is not None, f"no line in {refused.value}"
        return
    found = _in_pieces(case)
    if case.kind == "eval":
        assert case.result is not None
        result_format = ox.RdfFormat.N_QUADS if case.result.suffix == ".nq" else ox.RdfFormat.N_TRIPLES
        expected = _expected(case.result, result_format)
        assert isomorphic(_reified(found), _reified(expected)), f"read:\n{_lines(found)}\nexpected:\n{_lines(expected)}"


@pytest.mark.parametrize(("case", "reader"), _cases())
def test_w3c(case: Case | None, reader: str) -> None:
    _require_suites()
    assert case is not None
    if reader == "graph":
        _graph(case)
    elif reader == "pieces":
        _pieces(case)
    else:
        _stream(case, compiled=reader == "stream-compiled")


@pytest.mark.parametrize("suite", ["rdf-turtle", "rdf-trig"])
def test_the_suite_is_read_in_pieces(suite: str) -> None:
    """Much of it is cut: the pieces reader above is not the stream's in-step reader again."""
    _require_suites()
    fmt = SYNTAXES[suite][0]
    cases = [case for case in _manifest(suite) if case.kind != "negative"]
    cut = [case.name for case in cases if pieces.cut(str(case.action), fmt, case.base, 1, least=0)]
    assert len(cut) >= len(cases) // 3, cut
