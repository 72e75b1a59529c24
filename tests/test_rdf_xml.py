"""RDF/XML: the W3C RDF 1.1 XML Syntax test suite on every reader, and XML literals.

The suite is copied unchanged into ``tests/data/w3c-rdf-xml`` (tests/data/PROVENANCE.tsv):
ldids reads RDF/XML with one reader (:mod:`ldids.rdf.rdfxml`) on three paths, the whole graph
(:func:`ldids.rdf.io.read_bytes`), the streamed dump (:class:`NQuadsReader`) and a dump's
workers, a piece each (:mod:`ldids.dumps.pieces`, cut after every top-level element
here), and each test of the manifest runs on all three. An evaluation test's statements must be the expected
ones, compared as isomorphic graphs with lexical forms as written (rdflib's literal
normalization off: ``"<br></br>"^^rdf:XMLLiteral`` is not ``"<br/>"``); a negative syntax
test must be an InputError. The base IRI of a test is its ``mf:action`` IRI (the suite's
README, RFC 3986 §5.1.3).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from lxml import etree
from rdflib import Graph
from rdflib.compare import isomorphic
from rdflib.term import Literal, URIRef

from ldids.dumps import pieces
from ldids.dumps.pieces import piece_statements
from ldids.dumps.rdf_stream import NQuadsReader
from ldids.errors import InputError, PieceError
from ldids.rdf import io as rdfio
from ldids.rdf.rdfxml import canonical_content

SUITE = Path(__file__).parent / "data" / "w3c-rdf-xml"
BASE = "http://www.w3.org/2013/RDFXMLTests/"
MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XML_LITERAL = URIRef(RDF + "XMLLiteral")


@dataclass(frozen=True)
class Case:
    name: str
    negative: bool
    action: Path
    base: str
    result: Path | None


def _cases() -> list[Case]:
    by_subject: dict[str, dict[str, ox.NamedNode | ox.BlankNode | ox.Literal]] = {}
    manifest = ox.parse(path=str(SUITE / "manifest.ttl"), format=ox.RdfFormat.TURTLE, base_iri=BASE + "manifest.ttl")
    for quad in manifest:
        by_subject.setdefault(str(quad.subject), {})[quad.predicate.value] = quad.object
    node = str(by_subject[f"<{BASE}manifest.ttl>"][MF + "entries"])
    cases = []
    while node != f"<{RDF}nil>":
        test = by_subject[str(by_subject[node][RDF + "first"])]
        action = test[MF + "action"].value
        result = test.get(MF + "result")
        cases.append(
            Case(
                name=test[MF + "name"].value,
                negative=test[RDF + "type"].value.endswith("NegativeSyntax"),
                action=SUITE / action.removeprefix(BASE),
                base=action,
                result=None if result is None else SUITE / result.value.removeprefix(BASE),
            )
        )
        node = str(by_subject[node][RDF + "rest"])
    return cases


CASES = _cases()


def test_the_suite_is_whole() -> None:
    # RDF 1.1 XML Syntax tests as the W3C lists them: 122 evaluation, 40 negative syntax
    # (the manifest comments out seven tests of RDF 2004 that RDF 1.1 withdrew).
    assert (sum(not case.negative for case in CASES), sum(case.negative for case in CASES)) == (122, 40)


@pytest.fixture(autouse=True)
def lexical_forms_as_written() -> Iterator[None]:
    normalizing = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    yield
    rdflib.NORMALIZE_LITERALS = normalizing


def _graph_path(case: Case) -> Graph:
    graph = Graph()
    for s, p, o, _ in rdfio.read_bytes(case.action.read_bytes(), "xml", source=case.name, base=case.base).quads:
        graph.add((s, p, o))
    return graph


def _stream_path(case: Case) -> Graph:
    with case.action.open("rb") as source:
        lines = NQuadsReader(source, "xml", name=str(case.action), base=case.base).read()
    return Graph().parse(data=lines, format="nt")


def _pieces_path(case: Case) -> Graph:
    """Cut after every top-level element and read a piece at a time, as a run's workers read
    a large document (ldids.dumps.pieces); in step where it is not cut, as they do."""
    found = pieces.cut(str(case.action), "xml", case.base, 1, least=0)
    if found is None:
        return _stream_path(case)
    try:
        lines = b"".join(piece_statements(found.path, start, stop, found.frame) for start, stop, _, _ in found.ranges())
    except PieceError:
        raise found.error() from None
    return Graph().parse(data=lines, format="nt")


@pytest.mark.parametrize("read", [_graph_path, _stream_path, _pieces_path], ids=["graph", "stream", "pieces"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_w3c_rdf_xml(case: Case, read: object) -> None:
    assert callable(read)
    if case.negative:
        with pytest.raises(InputError):
            read(case)
        return
    assert case.result is not None
    expected = Graph().parse(data=case.result.read_bytes(), format="nt")
    got = read(case)
    assert isomorphic(got, expected), sorted(got.serialize(format="nt").splitlines())


def test_the_suite_is_read_in_pieces() -> None:
    """Most of it is cut: documents whose root is rdf:RDF, without rdf:ID or XML literals."""
    assert sum(pieces.cut(str(case.action), "xml", case.base, 1, least=0) is not None for case in CASES) >= 100


@pytest.mark.parametrize("case", [case for case in CASES if case.negative], ids=lambda case: case.name)
def test_a_negative_test_in_pieces_fails_as_in_step(case: Case) -> None:
    """The error is the whole document's, with its line and column, however it is cut."""
    with pytest.raises(InputError) as in_pieces:
        _pieces_path(case)
    with pytest.raises(InputError) as in_step:
        _stream_path(case)
    assert str(in_pieces.value) == str(in_step.value)


# -- XML literals: exclusive canonical XML of the content (RDF 1.1 XML Syntax §7.2.17) ------------

DOCUMENT = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/"
         xmlns:unused="http://unused.example/" xml:lang="fr">
  <rdf:Description rdf:about="http://example.org/s">
    <ex:p rdf:parseType="Literal">{}</ex:p>
  </rdf:Description>
</rdf:RDF>
"""

#: (content as written, its exclusive canonical form), each written out by hand from the
#: specifications: C14N 1.0 §2.3 (no empty-element tags, attributes sorted, text and attribute
#: escapes, comments and PIs kept) and Exclusive C14N §3 (only the namespaces an element or
#: its attributes use, no xml:lang inherited from outside the literal).
CANONICAL = [
    ("plain", "plain"),
    ("a &amp; b &gt; c &lt; d", "a &amp; b &gt; c &lt; d"),
    ("<br/>", "<br></br>"),
    ("<ex:b/>", '<ex:b xmlns:ex="http://example.org/"></ex:b>'),
    ('<b z="1" a="2"/>', '<b a="2" z="1"></b>'),
    ("<b a='x\"y'>t</b>", '<b a="x&quot;y">t</b>'),
    ('<b xmlns="http://x/"><c/></b>', '<b xmlns="http://x/"><c></c></b>'),
    ('<q:b xmlns:q="http://q/" xmlns:r="http://r/"/>', '<q:b xmlns:q="http://q/"></q:b>'),
    ("x<!-- a comment -->y", "x<!-- a comment -->y"),
    ("<?target some data?><?bare?>.", "<?target some data?><?bare?>."),
    ("<b>one</b> two <i>three</i>", "<b>one</b> two <i>three</i>"),
    ("<![CDATA[<raw> & ]]>", "&lt;raw&gt; &amp; "),
]


def _literals(data: bytes, read: str) -> list[Literal]:
    if read == "graph":
        quads = rdfio.read_bytes(data, "xml", source="doc.rdf", base="http://example.org/doc").quads
        return [o for _, _, o, _ in quads if isinstance(o, Literal)]
    lines = NQuadsReader(io.BytesIO(data), "xml", base="http://example.org/doc").read()
    return [o for _, _, o in Graph().parse(data=lines, format="nt") if isinstance(o, Literal)]


@pytest.mark.parametrize("read", ["graph", "stream"])
@pytest.mark.parametrize(("written", "canonical"), CANONICAL)
def test_parse_type_literal_is_exclusive_canonical_xml(written: str, canonical: str, read: str) -> None:
    (literal,) = _literals(DOCUMENT.format(written).encode(), read)
    assert (str(literal), literal.datatype, literal.language) == (canonical, XML_LITERAL, None)


@pytest.mark.parametrize("read", ["graph", "stream"])
@pytest.mark.parametrize("content", ["", "<!--only a comment-->", "<?only a-pi?>"])
def test_an_xml_literal_with_no_text_or_element_is_an_error_that_says_where(content: str, read: str) -> None:
    # pyoxigraph (0.5) refuses these valid literals ("No value found for rdf:XMLLiteral"):
    # the run stops there and says where, rather than dropping the statement.
    with pytest.raises(InputError, match="rdf:XMLLiteral") as raised:
        _literals(DOCUMENT.format(content).encode(), read)
    assert read == "stream" or raised.value.line == 5


@pytest.mark.parametrize(("written", "canonical"), [*CANONICAL, ("", ""), ("<!--c-->", "<!--c-->")])
def test_canonical_content(written: str, canonical: str) -> None:
    element = etree.fromstring(f'<w xmlns:ex="http://example.org/">{written}</w>')
    assert canonical_content(element) == canonical


@pytest.mark.parametrize("read", ["graph", "stream"])
def test_a_typed_xml_literal_keeps_its_text(read: str) -> None:
    # rdf:datatype names the datatype of text the document gives: the text is the lexical
    # form as written, canonical or not (RDF 1.1 XML Syntax §7.2.16).
    typed = f'<ex:q rdf:datatype="{RDF}XMLLiteral">&lt;br/&gt;</ex:q><ex:r rdf:parseType="Literal"><br/></ex:r>'
    data = DOCUMENT.replace('<ex:p rdf:parseType="Literal">{}</ex:p>', typed).encode()
    assert sorted(str(literal) for literal in _literals(data, read)) == ["<br/>", "<br></br>"]


@pytest.mark.parametrize("read", ["graph", "stream"])
def test_a_reified_xml_literal_is_canonical_twice(read: str) -> None:
    reified = '<ex:p rdf:ID="r" rdf:parseType="Literal"><br/></ex:p><ex:p rdf:parseType="Literal"><hr/></ex:p>'
    data = DOCUMENT.replace('<ex:p rdf:parseType="Literal">{}</ex:p>', reified).encode()
    got = sorted(str(literal) for literal in _literals(data, read))
    assert got == ["<br></br>", "<br></br>", "<hr></hr>"]


def test_xml_literals_in_many_pieces_stay_in_step() -> None:
    # More statements than the stream serializes at a time, literals among them: each keeps
    # its own content.
    body = "".join(
        f'<rdf:Description rdf:about="http://example.org/s{i}"><ex:n>{i}</ex:n>'
        f'<ex:p rdf:parseType="Literal"><i n="{i}"/></ex:p></rdf:Description>'
        for i in range(10_000)
    )
    data = DOCUMENT.replace('<rdf:Description rdf:about="http://example.org/s">', body + "<rdf:Description>")
    lines = NQuadsReader(io.BytesIO(data.format(".").encode()), "xml").read()
    graph = Graph().parse(data=lines, format="nt")
    for i in (0, 4095, 4096, 9999):
        subject = URIRef(f"http://example.org/s{i}")
        assert graph.value(subject, URIRef("http://example.org/p")) == Literal(f'<i n="{i}"></i>', datatype=XML_LITERAL)


@pytest.mark.parametrize("read", ["graph", "stream"])
@pytest.mark.parametrize("between", ["<!-- c -->", "<?pi x?>", "\n<!-- a -->\n<?pi?><!---->"])
@pytest.mark.parametrize("count", [2, 3_000])
def test_comments_between_elements_keep_the_xml_literals_in_step(between: str, count: int, read: str) -> None:
    # lxml holds the comments and processing instructions between top-level elements as
    # children of the root too: the literals' queue counts elements alone. Counted by
    # children, the last element's literals were looked for in the comment after it
    # (2: "the XML literals lxml and pyoxigraph read ... differ"), and an element dropped
    # from the tree before its literals were queued (3,000: 400 kB, many reads of lxml).
    body = "".join(
        f'<rdf:Description rdf:about="http://example.org/s{i}"><ex:p rdf:parseType="Literal"><i n="{i}"/>'
        f"</ex:p></rdf:Description>{between}"
        for i in range(count)
    )
    data = DOCUMENT.replace(DOCUMENT[DOCUMENT.index("  <rdf:Description") : DOCUMENT.index("</rdf:RDF>")], body)
    got = [str(literal) for literal in _literals(data.encode(), read)]
    assert sorted(got) == sorted(f'<i n="{i}"></i>' for i in range(count))


def test_xml_literals_of_a_top_level_element_longer_than_a_read() -> None:
    # One description of 20,000 XML literals (1 MB, lxml reads 64 KiB at a time): pyoxigraph
    # gives them while lxml is still inside the element.
    body = "".join(f'<ex:p rdf:parseType="Literal"><i n="{i}"/></ex:p><ex:n>{i}</ex:n>' for i in range(20_000))
    data = DOCUMENT.replace('<ex:p rdf:parseType="Literal">{}</ex:p>', body).encode()
    lines = NQuadsReader(io.BytesIO(data), "xml").read()
    got = [o for o in Graph().parse(data=lines, format="nt").objects() if isinstance(o, Literal)]
    assert sorted(str(o) for o in got if o.datatype == XML_LITERAL) == sorted(f'<i n="{i}"></i>' for i in range(20_000))


# -- Prefixes and errors ---------------------------------------------------------------------------


def test_the_documents_namespaces_are_its_prefixes() -> None:
    read = rdfio.read_bytes(DOCUMENT.format("x").encode(), "xml", source="doc.rdf")
    assert read.prefixes["ex"] == "http://example.org/"
    assert read.prefixes["unused"] == "http://unused.example/"


def _read_file(path: Path, read: str) -> None:
    if read == "graph":
        rdfio.read([str(path)])
        return
    with path.open("rb") as source:
        NQuadsReader(source, "xml", name=str(path)).read()


@pytest.mark.parametrize("read", ["graph", "stream"])
def test_an_rdf_xml_error_says_line_and_column(tmp_path: Path, read: str) -> None:
    # Well-formed XML, not RDF/XML: rdf:li as a node element (§7.2.5), in the start tag on
    # line 4 (columns 3 to 43): pyoxigraph fails once it has read the whole tag.
    path = tmp_path / "bad.rdf"
    path.write_text(DOCUMENT.replace("<rdf:Description", "<rdf:li", 1).replace("</rdf:Description>", "</rdf:li>"))
    with pytest.raises(InputError) as raised:
        _read_file(path, read)
    assert (raised.value.line, raised.value.column) == (4, 43)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_an_error_pyoxigraph_finds_is_on_its_line_whatever_ends_the_lines(end: str, tmp_path: Path) -> None:
    """pyoxigraph's RDF/XML parser says no place; ldids finds the line by feeding it the
    document a line at a time (rdfxml.locate), and a line ends at CR alone too (XML 1.0
    §2.11): a file of such lines was all line 1."""
    lines = [
        '<?xml version="1.0"?>',
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
        '<rdf:Description rdf:about="http://a/s1"/>',
        '<rdf:Description rdf:about="http://a/s 2"/>',
        "</rdf:RDF>",
    ]
    source = tmp_path / "cr.rdf"
    source.write_bytes(end.join(lines).encode() + end.encode())
    with pytest.raises(InputError) as caught:
        rdfio.read([str(source)])
    assert caught.value.line == 4


@pytest.mark.parametrize("out", [".nt", ".ttl"])
def test_a_bad_iri_is_placed_at_its_value_not_at_the_end_of_its_tag(
    out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyoxigraph's parser fails once the whole start tag is read: its end was the place
    given, lines after the value where the tag spans lines."""
    source = tmp_path / "a.rdf"
    source.write_text(
        '<?xml version="1.0"?>\n'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">\n'
        '<rdf:Description rdf:about="http://a/s1">\n'
        "  <ex:r\n"
        '     rdf:resource="http://a/b c"\n'
        '     ex:x="1"\n'
        "     />\n"
        "</rdf:Description>\n"
        "</rdf:RDF>\n"
    )
    from ldids.cli import main

    # The streamed path (N-Triples out) and the graph path (Turtle out).
    assert main(["normalize", "-q", str(source), "-o", str(tmp_path / f"out{out}")]) == 2
    assert "a.rdf:5:20: " in capsys.readouterr().err
