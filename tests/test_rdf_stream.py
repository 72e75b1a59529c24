"""Turtle, TriG and RDF/XML streamed (ldids.dumps.rdf_stream) against the graph path.

Every document is normalized twice: read whole into the graph passes (the reference), and
parsed as it is read into the dump pipeline, with 1 and 2 workers. The outputs must hold the
same statements and links, compared as sets of N-Quads lines with blank nodes labelled by
content, ``"x"^^xsd:string`` written ``"x"`` and language tags in lower case (one term each
in RDF 1.1, which the graph path keeps as written and pyoxigraph does not); the summaries
must count the same identifiers rewritten per scheme, invalid and left alone. The documents:
the passes' fixtures (Turtle, TriG, and each Turtle one written as RDF/XML), the corpus of
tests/test_paths.py, and documents written here with blank nodes, named graphs, every scheme,
relative IRIs against a base, UCHAR escapes, language tags and datatypes.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyoxigraph
import pytest
from rdflib.namespace import XSD
from rdflib.term import Literal, Node

from ldids.cli import main
from ldids.dumps.rdf_stream import NQuadsReader, Parsed, base_iri
from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.errors import InputError
from ldids.ntriples import Quad, literal, quad_line
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.passes.decision import DC_IDENTIFIER
from ldids.passes.summary import Summary
from ldids.rdf import io as rdfio

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures" / "passes"
DATA = TESTS / "data"
BLOCK = 512  # bytes per block: a document is cut into many
W3C = Path(os.environ.get("LDIDS_SHARED") or TESTS.parents[1] / "shared") / "w3c-rdf-tests"

# -- Documents written here ---------------------------------------------------------------------

PREFIXES = """\
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix ex: <http://example.org/vocab#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rel: <info:fedora/fedora-system:def/relations-external#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""

#: Turtle with every scheme in canonical and other forms, invalid identifiers, bare PIDs,
#: blank nodes (labelled, [] and collections), relative IRIs against @base, UCHAR and
#: character escapes, language tags and datatypes. No two statements become one.
TURTLE = (
    PREFIXES
    + r"""@base <http://example.org/base/> .

<INFO:FEDORA/demo%3a10> dc:identifier "demo:10", "archive:77", "demo:bad id", "doi:10.1000/182" ;
    rel:isMemberOfCollection <info:fedora/demo%3AColl1> ;
    ex:handle <http://hdl.handle.net/1765/315>, <hdl:1765/316>, "hdl:1765/317" ;
    ex:cordra <hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5> ;
    ex:oai <oai:arXiv.org:hep-th/9901001>, "oai:arXiv.org:hep-th/9901002"^^xsd:anyURI ;
    ex:poi <https://PURL.ORG/poi/arXiv.org/hep-th/9901003> ;
    ex:invalid <oai:wibble:1>, "info:fedora/demo:" ;
    ex:string "hdl:1765/318"^^xsd:string ;
    ex:text "oai:arXiv.org:hep-th/9901009"@EN-gb, "Ein Titel"@de ;
    ex:number 42, 4.2, "01"^^xsd:integer, true ;
    ex:date "2001-01-01"^^xsd:date .

<item/1> ex:relative <../other/2>, <#fragment> ;
    ex:escaped <info:fedora/demo\u003A20>, "demo\u003a21", "HDL\u003A1765/22" ;
    ex:emoji "smile \U0001F600 and \u00e9" ;
    ex:controls "tab\there\u0001 \b\f bell\u0007 del\u007F", "quote \" backslash \\ \\t", "line\nbreak\r" ;
    ex:long '''one
two "quoted" three''' ;
    owl:sameAs <info:fedora/demo%3A23> .

_:thing ex:see <oai:arXiv.org:hep-th/9901004> ; dc:identifier "demo:24" .
<info:fedora/demo:25> ex:has _:thing, [ ex:id <info:fedora/demo%3a26> ; ex:nested [ ex:id <hdl:1765/27> ] ] .
<info:fedora/demo:28> ex:list ( <oai:arXiv.org:hep-th/9901005> "two" ( <hdl:1765/29> ) _:thing ) .
[] ex:anonymous <https://purl.org/poi/arXiv.org/hep-th/9901006> .
"""
)

#: TriG: the default graph, named graphs (an identifier, a blank node, GRAPH), relative names.
TRIG = (
    PREFIXES
    + r"""@base <http://example.org/base/> .

<info:fedora/demo%3a30> ex:p "x" ; dc:identifier "demo:30" .
<oai:arXiv.org:g1> { <info:fedora/demo%3a31> ex:p <hdl:1765/32> . _:b ex:q "demo:31" . }
GRAPH _:g { <info:fedora/demo:33> ex:p [ ex:id <oai:arXiv.org:hep-th/9901010> ] . }
<graph/relative> { <item/3> ex:p <https://PURL.ORG/poi/arXiv.org/hep-th/9901011>, "tab\tand \u0002" . }
{ <info:fedora/demo:34> owl:sameAs <info:fedora/demo%3A34> . }
"""
)

#: RDF/XML: xml:base, nodeID, parseType Resource and Collection, containers, property
#: attributes, xml:lang, datatypes, typed nodes.
RDF_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- A comment <with markup> before the root element. -->
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:ex="http://example.org/vocab#"
         xmlns:rel="info:fedora/fedora-system:def/relations-external#"
         xml:base="http://example.org/base/">
  <rdf:Description rdf:about="INFO:FEDORA/demo%3a40" ex:attribute="demo:40">
    <dc:identifier>demo:40</dc:identifier>
    <dc:identifier>demo:bad id</dc:identifier>
    <rel:isMemberOf rdf:resource="info:fedora/demo%3AColl2"/>
    <ex:handle rdf:resource="http://hdl.handle.net/1765/41"/>
    <ex:text xml:lang="EN-us">oai:arXiv.org:hep-th/9901012</ex:text>
    <ex:typed rdf:datatype="http://www.w3.org/2001/XMLSchema#anyURI">hdl:1765/42</ex:typed>
    <ex:number rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">0042</ex:number>
    <ex:controls>tab\there &amp; &lt;there&gt; "quoted"</ex:controls>
    <ex:node rdf:nodeID="n1"/>
    <ex:resource rdf:parseType="Resource">
      <ex:id rdf:resource="oai:arXiv.org:hep-th/9901013"/>
    </ex:resource>
    <ex:list rdf:parseType="Collection">
      <rdf:Description rdf:about="hdl:1765/43"/>
      <rdf:Description rdf:about="relative/44"/>
    </ex:list>
    <ex:bag><rdf:Bag><rdf:li rdf:resource="oai:arXiv.org:hep-th/9901014"/><rdf:li>two</rdf:li></rdf:Bag></ex:bag>
  </rdf:Description>
  <rdf:Description rdf:nodeID="n1">
    <dc:identifier>demo:45</dc:identifier>
    <ex:see rdf:resource="https://PURL.ORG/poi/arXiv.org/hep-th/9901015"/>
  </rdf:Description>
  <ex:Thing rdf:about="item/46">
    <ex:poi rdf:resource="http://purl.org/poi/arXiv.org/hep-th/9901016"/>
  </ex:Thing>
</rdf:RDF>
"""


BAD_ESCAPE = "<info:fedora/demo:1/bad%zz>"


def config_of(folder: Path | None = None) -> Config:
    if folder is not None and (folder / "config.toml").exists():
        return Config.from_toml(folder / "config.toml")
    if folder is not None:
        return Config()
    return Config(bare_pid_predicates=frozenset({DC_IDENTIFIER}), pid_namespaces=frozenset({"archive"}))


def rdf_xml_of(turtle: Path, target: Path) -> Path:
    """A Turtle document written as RDF/XML (by pyoxigraph)."""
    quads = pyoxigraph.parse(path=turtle, format=pyoxigraph.RdfFormat.TURTLE)
    pyoxigraph.serialize(quads, target, format=pyoxigraph.RdfFormat.RDF_XML)
    return target


def documents() -> list[tuple[str, str, Path | None]]:
    """(case, format, fixture folder or None for a document written here)."""
    found: list[tuple[str, str, Path | None]] = []
    for folder in sorted(FIXTURES.iterdir()):
        before = next(folder.glob("before.*"))
        fmt = "trig" if before.suffix == ".trig" else "turtle"
        found.append((folder.name, fmt, folder))
        if fmt == "turtle":
            found.append((f"{folder.name}-as-rdf-xml", "xml", folder))
    found += [("written-turtle", "turtle", None), ("written-trig", "trig", None), ("written-rdf-xml", "xml", None)]
    found.append(("identifiers-trig", "trig", DATA / "paths"))
    return found


def materialize(case: str, fmt: str, folder: Path | None, work: Path) -> tuple[Path, Config]:
    """The document's file, and the configuration it is normalized with."""
    if case == "identifiers-trig":
        # But its IRI with a bad percent-escape, which pyoxigraph refuses (see
        # test_an_iri_pyoxigraph_refuses_stops_the_run) and rdflib reads.
        text = (DATA / "paths" / "identifiers.trig").read_text(encoding="utf-8")
        path = work / "identifiers.trig"
        path.write_text("".join(line for line in text.splitlines(True) if BAD_ESCAPE not in line), encoding="utf-8")
        return path, config_of()
    if folder is None:
        text = {"turtle": TURTLE, "trig": TRIG, "xml": RDF_XML}[fmt]
        path = work / f"document.{ {'turtle': 'ttl', 'trig': 'trig', 'xml': 'rdf'}[fmt] }"
        path.write_text(text, encoding="utf-8")
        return path, config_of()
    before = next(folder.glob("before.*"))
    if fmt == "xml":
        return rdf_xml_of(before, work / "before.rdf"), config_of(folder)
    return before, config_of(folder)


# -- Made comparable ---------------------------------------------------------------------------


def _plain(node: Node | None) -> Node | None:
    """One form for each RDF 1.1 term: ``"x"^^xsd:string`` as ``"x"``, language tags in lower case."""
    if isinstance(node, Literal) and node.datatype == XSD.string:
        return Literal(str(node))
    if isinstance(node, Literal) and node.language:
        return Literal(str(node), lang=node.language.lower())
    return node


def comparable(quads: list[Quad]) -> list[str]:
    plain: list[Quad] = [(_plain(s), p, _plain(o), g) for s, p, o, g in quads]  # type: ignore[misc]
    return [quad_line(quad) for quad in rdfio.label_blank_nodes(plain)]


def counts(summary: Summary) -> dict[str, Counter[str]]:
    return {"rewritten": summary.rewritten, "invalid": summary.invalid, "left": summary.left}


def by_graph_path(path: Path, fmt: str, config: Config) -> tuple[list[str], Summary]:
    result = passes.normalize(rdfio.read([str(path)], rdfio.resolve_format(fmt)).quads, config)
    return comparable(result.quads + result.links), result.summary()


def stream(source: Path, fmt: str, output: Path) -> Summary:
    """``source`` streamed into ``output`` as the command line streams it (one worker)."""
    summary = normalize_dump([str(source)], str(output), Settings(Config()), statements=Parsed({str(source): fmt}))
    return summary.summary()


def streamed(path: Path, fmt: str, config: Config, workers: int, work: Path) -> tuple[list[str], Summary, bytes]:
    output = work / f"streamed-{workers}.nq"
    summary = normalize_dump(
        [str(path)],
        str(output),
        Settings(config, quads=True),
        workers=workers,
        block_size=BLOCK,
        statements=Parsed({str(path): fmt}),
    )
    data = output.read_bytes()
    return comparable(rdfio.read_bytes(data, "nquads").quads), summary.summary(), data


# -- The streamed path gives what the graph path gives --------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(("case", "fmt", "folder"), [pytest.param(*doc, id=doc[0]) for doc in documents()])
def test_as_the_graph_path(case: str, fmt: str, folder: Path | None, workers: int, tmp_path: Path) -> None:
    path, config = materialize(case, fmt, folder, tmp_path)
    expected, expected_summary = by_graph_path(path, fmt, config)
    found, found_summary, data = streamed(path, fmt, config, workers, tmp_path)
    assert (sorted(set(expected) - set(found)), sorted(set(found) - set(expected))) == ([], [])
    assert counts(found_summary) == counts(expected_summary)
    assert found_summary.links == expected_summary.links
    # A graph is a set: the stream writes each statement as often as the document states it.
    read, written = expected_summary.statements_in, expected_summary.statements_out
    assert read is not None
    assert written is not None
    assert found_summary.statements_in == read
    assert data.count(b"\n") == read + expected_summary.links
    assert found_summary.statements_out == written + expected_summary.statements_merged


def test_the_written_documents_have_every_case(tmp_path: Path) -> None:
    for fmt in ("turtle", "trig", "xml"):
        path, config = materialize(f"written-{fmt}", fmt, None, tmp_path)
        _, summary = by_graph_path(path, fmt, config)
        assert set(summary.rewritten) >= {"info-fedora", "oai", "poi", "fedora-pid"}
        if fmt != "trig":
            assert "handle" in summary.rewritten
            assert summary.invalid
    path, config = materialize("written-turtle", "turtle", None, tmp_path)
    statements = by_graph_path(path, "turtle", config)[0]
    assert any("<http://example.org/other/2>" in line for line in statements)  # resolved against @base
    assert any('"tab\there\x01 \x08\x0c bell\x07 del\x7f"' in line for line in statements)


def test_one_and_two_workers_write_the_same_bytes(tmp_path: Path) -> None:
    """Without [] or collections, whose labels pyoxigraph draws at random."""
    path = tmp_path / "labelled.ttl"
    path.write_text(PREFIXES + "".join(f'<info:fedora/demo%3a{n}> ex:p _:b{n % 7}, "demo:{n}" .\n' for n in range(300)))
    outputs = [streamed(path, "turtle", Config(), workers, tmp_path)[2] for workers in (1, 2)]
    assert outputs[0] == outputs[1]
    lines = outputs[0].decode().splitlines()
    # Document order, links after the 600 statements.
    assert lines[0] == "<info:fedora/demo:0> <http://example.org/vocab#p> _:b0 ."
    assert lines[600].endswith("<http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo%3a0> .")


# -- Terms as ldids writes them ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "tab\there",
        "\x00\x01\x08\x0b\x0c\x1f\x7f",
        'quote " and \\ and \\t',
        "line\nbreak\r",
        "\ufffe\uffff é 😀",
        "\\u0041",
    ],
)
def test_literals_are_written_as_ldids_writes_them(text: str) -> None:
    document = f"<http://a/s> <http://a/p> {literal(text)} .\n".encode()
    reader = NQuadsReader(io.BytesIO(document), "turtle")
    assert reader.read().decode() == f"<http://a/s> <http://a/p> {literal(text)} .\n"


def test_base_iri_of_a_file_and_of_standard_input(tmp_path: Path) -> None:
    assert base_iri(str(tmp_path / "a b.ttl")) == (tmp_path / "a b.ttl").as_uri()
    assert base_iri("-") is None
    assert base_iri("-", "http://example.org/") == "http://example.org/"
    assert base_iri("x.ttl", "http://example.org/") == "http://example.org/"


def test_relative_iris_resolve_against_the_file(tmp_path: Path) -> None:
    path = tmp_path / "relative.ttl"
    path.write_text("<item> <http://a/p> <../other#x> .\n")
    output = tmp_path / "out.nt"
    stream(path, "turtle", output)
    folder = tmp_path.as_uri()
    assert output.read_text() == f"<{folder}/item> <http://a/p> <{tmp_path.parent.as_uri()}/other#x> .\n"


def test_several_documents_keep_their_blank_nodes_apart(tmp_path: Path) -> None:
    paths = [tmp_path / "one.ttl", tmp_path / "two.ttl"]
    for path in paths:
        path.write_text("_:b <http://a/p> <http://a/o> .\n")
    output = tmp_path / "out.nt"
    formats = {str(path): "turtle" for path in paths}
    normalize_dump([str(p) for p in paths], str(output), Settings(Config()), statements=Parsed(formats, several=True))
    subjects = {line.split()[0] for line in output.read_text().splitlines()}
    assert len(subjects) == 2


# -- Errors say where, and leave nothing behind ---------------------------------------------------


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args, io.StringIO())
    return code, capsys.readouterr().err


def position(text: str, marker: str, offset: int = 0) -> str:
    """``:LINE:COLUMN:`` of ``marker`` in ``text`` (plus ``offset`` characters)."""
    at = text.index(marker) + offset
    return f":{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}:"


BAD_TURTLE = "<http://a/s> <http://a/p> <http://a/o> .\n<http://a/s> <http://a/p> .\n"
BAD_TRIG = "<http://a/g> { <http://a/s> <http://a/p> <http://a/b c> . }\n"
BAD_IRI = RDF_XML.replace('rdf:about="item/46"', 'rdf:about="http://a/ b"')
CUT = RDF_XML[: RDF_XML.index("  <ex:Thing")]
MISMATCHED = RDF_XML.replace("</ex:Thing>", "</ex:Other>")


@pytest.mark.parametrize(
    ("name", "text", "where", "message"),
    [
        ("bad.ttl", BAD_TURTLE, position(BAD_TURTLE, "<http://a/p> .", 13), "syntax error"),
        ("bad.trig", BAD_TRIG, position(BAD_TRIG, "<http://a/b c>"), "syntax error: Invalid IRI code point ' '"),
        # pyoxigraph says no position: found again where the value its message quotes is
        ("bad.rdf", BAD_IRI, position(BAD_IRI, "http://a/ b"), "syntax error: error while parsing IRI"),
        ("cut.rdf", CUT, f":{CUT.count(chr(10)) + 1}:1:", "malformed XML: Premature end of data"),
        ("tags.rdf", MISMATCHED, position(MISMATCHED, "</ex:Other>", 11), "malformed XML: Opening and ending tag"),
    ],
)
def test_a_syntax_error_says_where_and_leaves_no_output(
    name: str, text: str, where: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, output = tmp_path / name, tmp_path / "out.nq"
    source.write_text(text)
    output.write_text("before\n")
    code, err = run(["normalize", str(source), "-o", str(output), "--workers", "2"], capsys)
    assert code == 2
    assert f"ldids: {source}{where} {message}" in err
    assert output.read_text() == "before\n"


def test_an_iri_pyoxigraph_refuses_stops_the_run(tmp_path: Path) -> None:
    """pyoxigraph checks IRIs (RFC 3987); rdflib reads one with a bad percent-escape."""
    source = tmp_path / "bad.trig"
    text = (
        "@prefix ex: <http://example.org/vocab#> .\n"
        "<info:fedora/demo%3aGraph> {\n"
        '    <info:fedora/demo:20> ex:title "fine" .\n'
        f'    {BAD_ESCAPE} ex:broken "an IRI with a bad percent-escape" .\n'
        "}\n"
    )
    source.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        stream(source, "trig", tmp_path / "o.nq")
    assert f":{raised.value.line}:{raised.value.column}:" == position(text, BAD_ESCAPE)
    assert "Invalid IRI percent encoding '%zz'" in raised.value.message


def test_an_rdf_xml_error_pyoxigraph_places_nowhere_is_found_again(tmp_path: Path) -> None:
    source = tmp_path / "bad.rdf"
    lines = RDF_XML.splitlines()
    lines.insert(30, '  <rdf:Description rdf:about="http://a/ b"/>')
    source.write_text("\n".join(lines))
    with pytest.raises(InputError) as raised:
        stream(source, "xml", tmp_path / "o.nt")
    assert (raised.value.line, raised.value.column) == (31, 31)  # the value's place, not the tag's end
    assert "Invalid IRI code point" in raised.value.message


def test_standard_input_has_no_base(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"<http://a/s> <http://a/p> <http://a/o> .\n<relative> <http://a/p> <http://a/o> .\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, err = run(["normalize", "-i", "turtle", "-t", "nt", "-q"], capsys)
    assert code == 2
    assert "<stdin>:2:1: syntax error" in err
    assert "no base IRI" in err


@pytest.mark.parametrize(
    "obj",
    [
        "<<( <http://a/s> <http://a/p> <http://a/o> )>>",  # a triple term
        "<< <http://a/s> <http://a/p> <http://a/o> >>",  # a reified triple: a triple term in the statement made
        '"text"@en--ltr',  # a base direction
    ],
)
@pytest.mark.parametrize("workers", [1, 2])
def test_rdf12_has_no_n_triples_form(obj: str, workers: int, tmp_path: Path) -> None:
    source = tmp_path / "rdf12.ttl"
    source.write_text(f"<http://a/s> <http://a/p> <http://a/o> .\n<http://a/s> <http://a/p> {obj} .\n")
    settings, statements = Settings(Config(), on_error="skip"), Parsed({str(source): "turtle"})
    with pytest.raises(InputError, match=r"no N-Triples 1\.1 form \(RDF 1\.2\?\): .* (?:<<\( |\"text\"@en--ltr)"):
        normalize_dump([str(source)], str(tmp_path / "o.nt"), settings, workers=workers, statements=statements)
    assert not (tmp_path / "o.nt").exists()


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
 <!ENTITY a "lollollollollollollollollollollollollollollollollollollollollollollollollollol">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"> <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"> <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"> <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">
  <rdf:Description rdf:about="http://example.org/s"><ex:p>&g;</ex:p></rdf:Description>
</rdf:RDF>
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BILLION_LAUGHS, "declares XML entities"),
        # An element's start in a comment before the DTD: lxml refuses the expansion.
        (BILLION_LAUGHS.replace("<!DOCTYPE", "<!-- <b> -->\n<!DOCTYPE"), "entity amplification"),
        (
            '<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF SYSTEM "file:///etc/passwd">\n'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>\n',
            "external DTD",
        ),
    ],
)
def test_untrusted_rdf_xml_is_refused_at_once(text: str, message: str, tmp_path: Path) -> None:
    source = tmp_path / "laughs.rdf"
    source.write_text(text)
    started = time.monotonic()
    with pytest.raises(InputError, match=message):
        stream(source, "xml", tmp_path / "o.nt")
    assert time.monotonic() - started < 5
    assert not (tmp_path / "o.nt").exists()


# -- The command line --------------------------------------------------------------------------


def test_the_command_line_streams_turtle_to_n_triples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, output = tmp_path / "in.ttl.gz", tmp_path / "out.nt"
    # The same statement twice: the stream writes both (the graph path would merge them).
    source.write_bytes(gzip.compress((PREFIXES + "<oai:a.b:c> ex:p <http://x/o> .\n" * 2).encode()))
    code, err = run(["normalize", str(source), "-o", str(output), "--workers", "2", "--summary", "json"], capsys)
    assert code == 0
    assert output.read_text().splitlines() == [
        "<http://purl.org/poi/a.b/c> <http://example.org/vocab#p> <http://x/o> .",
        "<http://purl.org/poi/a.b/c> <http://example.org/vocab#p> <http://x/o> .",
        "<http://purl.org/poi/a.b/c> <http://www.w3.org/2002/07/owl#sameAs> <oai:a.b:c> .",
    ]
    assert '"lines_in": 2' in err  # the dump's summary: lines of N-Triples


def test_problems_are_placed_by_statement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.ttl"
    source.write_text("@prefix ex: <http://x/> .\n\nex:a ex:p <http://x/o> .\nex:b ex:p <oai:wibble:1> .\n")
    code, err = run(["normalize", str(source), "-o", str(tmp_path / "out.nt")], capsys)
    assert code == 0
    # The second statement, on the file's fourth line: a stream of statements knows no lines.
    assert f"ldids: {source}, statement 2: invalid oai identifier 'oai:wibble:1'" in err


@pytest.mark.parametrize(
    ("options", "streamed"),
    [
        (["-o", "{tmp}/out.nt"], True),
        (["-o", "{tmp}/out.nq"], True),
        (["-t", "nt", "-o", "{tmp}/out"], True),
        (["-o", "{tmp}/out.ttl"], False),  # Turtle out needs the whole graph, to write it well
        (["-o", "{tmp}/out.trig"], False),
        (["-o", "{tmp}/out.nt", "--crosswalk", "{tmp}/walk.nt"], False),  # a stream's crosswalk is CSV
        (["-o", "{tmp}/out.nt", "--crosswalk", "{tmp}/walk.csv"], True),
    ],
)
def test_which_path_a_run_takes(
    options: list[str], streamed: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.ttl"
    source.write_text(PREFIXES + "<oai:a.b:c> ex:p <http://x/o> .\n")
    code, err = run(["normalize", str(source), *(option.format(tmp=tmp_path) for option in options)], capsys)
    assert code == 0
    assert ("lines in" in err) == streamed  # the dump's summary counts lines


def test_trig_with_named_graphs_to_n_triples_is_refused_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.trig"
    source.write_text("<http://a/g> { <http://a/s> <http://a/p> <http://a/o> . }\n")
    code, err = run(["normalize", str(source), "-o", str(tmp_path / "out.nt")], capsys)
    assert code == 2
    assert "named graphs" in err


def test_dask_takes_line_formats_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.ttl"
    source.write_text("<http://a/s> <http://a/p> <http://a/o> .\n")
    code, err = run(["normalize", str(source), "-o", str(tmp_path / "out"), "-t", "nt", "--dask", "local"], capsys)
    assert code == 2
    assert "--dask reads N-Triples and N-Quads" in err


def test_a_process_reads_turtle_from_standard_input() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", "-i", "turtle", "-t", "nt", "-q"],
        input=(PREFIXES + "<oai:a.b:c> ex:p [ ex:q 'x'@EN ] .\n").encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 3
    assert lines[0].endswith('<http://example.org/vocab#q> "x"@en .')


def test_a_streamed_crosswalk_undoes_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.ttl"
    # Not "01"^^xsd:integer: `ldids undo` writes it "1", whatever the input's format.
    source.write_text(TURTLE.replace('"01"^^xsd:integer', '"1"^^xsd:integer'))
    out, walk, back = tmp_path / "out.nt", tmp_path / "walk.csv", tmp_path / "back.nt"
    args = ["normalize", str(source), "-o", str(out), "--crosswalk", str(walk), "--workers", "2", "-q"]
    assert run(args, capsys)[0] == 0
    assert run(["undo", str(out), "--crosswalk", str(walk), "-o", str(back)], capsys)[0] == 0
    before = rdfio.read([str(source)]).quads
    assert set(comparable(rdfio.read([str(back)]).quads)) == set(comparable(before))


def test_xml_literals(tmp_path: Path) -> None:
    path = tmp_path / "xml-literal.rdf"
    path.write_text(
        RDF_XML.replace(
            '<ex:Thing rdf:about="item/46">',
            '<ex:Thing rdf:about="item/46"><ex:xml rdf:parseType="Literal"><b xmlns="http://x/">x</b></ex:xml>'
            '<ex:xml rdf:ID="r" rdf:parseType="Literal">a<!--c--><ex:e/></ex:xml>',
        )
    )
    expected = by_graph_path(path, "xml", Config())[0]
    got = streamed(path, "xml", Config(), 1, tmp_path)[0]
    assert set(got) == set(expected)
    literals = {line.split(" ", 2)[2] for line in got if "XMLLiteral" in line}
    assert literals == {
        '"<b xmlns=\\"http://x/\\">x</b>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .',
        '"a<!--c--><ex:e xmlns:ex=\\"http://example.org/vocab#\\"></ex:e>"'
        "^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .",
    }


# -- The W3C RDF 1.1 Turtle and TriG test suites (DESIGN.md §6a) ---------------------------------

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
RDFT = "http://www.w3.org/ns/rdftest#"


def w3c_tests() -> list[tuple[str, str, str, Path, Path | None]]:
    """(suite, test, kind, action, result) of every test the manifests list."""
    from rdflib import Graph, URIRef
    from rdflib.collection import Collection
    from rdflib.namespace import RDF

    found: list[tuple[str, str, str, Path, Path | None]] = []
    for suite in ("rdf-turtle", "rdf-trig"):
        manifest = W3C / suite / "manifest.ttl"
        if not manifest.exists():
            continue
        graph = Graph().parse(manifest, publicID=f"https://w3c.github.io/rdf-tests/rdf/rdf11/{suite}/manifest.ttl")
        (listed,) = graph.objects(None, URIRef(MF + "entries"))
        for test in Collection(graph, listed):
            kind = str(graph.value(test, RDF.type)).removeprefix(RDFT)
            action = graph.value(test, URIRef(MF + "action"))
            result = graph.value(test, URIRef(MF + "result"))
            name = str(test).rpartition("#")[2]
            files = [None if iri is None else W3C / suite / str(iri).rpartition("/")[2] for iri in (action, result)]
            assert files[0] is not None
            found.append((suite, name, kind, files[0], files[1]))
    return found


def canonical_dataset(path: Path) -> set[str]:
    """The statements of an N-Quads file, blank nodes named by canonicalization (isomorphic
    datasets give the same set); read by pyoxigraph, which reads every blank node label the
    suites use (rdflib does not)."""
    dataset = pyoxigraph.Dataset(pyoxigraph.parse(path=path, format=pyoxigraph.RdfFormat.N_QUADS))
    dataset.canonicalize(pyoxigraph.CanonicalizationAlgorithm.UNSTABLE)
    return {str(quad) for quad in dataset}


@pytest.mark.shared
@pytest.mark.parametrize(
    ("suite", "test", "kind", "action", "result"),
    [pytest.param(*case, id=f"{case[0]}/{case[1]}") for case in w3c_tests()],
)
def test_w3c(suite: str, test: str, kind: str, action: Path, result: Path | None, tmp_path: Path) -> None:
    fmt = "trig" if suite == "rdf-trig" else "turtle"
    base = f"https://w3c.github.io/rdf-tests/rdf/rdf11/{suite}/{action.name}"
    output = tmp_path / "out.nq"
    settings = Settings(Config(), quads=True)

    def read() -> None:
        normalize_dump([str(action)], str(output), settings, links=None, statements=Parsed({str(action): fmt}, base))

    if "Negative" in kind:
        with pytest.raises(InputError):
            read()
        return
    read()
    if kind.endswith("Eval"):
        assert result is not None
        assert canonical_dataset(output) == canonical_dataset(result)


RDF_1_2 = [
    # A literal before it holds what looks like one: the place is the term's, not the text's.
    ('ex:s ex:p "a << b" .\nex:s2 ex:p <<( ex:a ex:b ex:c )>> .\n', (3, 12)),
    ('ex:s ex:p """x @en--ltr\n y""" . # <<\nex:s2 ex:p "x"@en--rtl .\n', (4, 15)),
    ("ex:s ex:p 'x' . # <<\rex:s2 ex:p <<( ex:a ex:b ex:c )>> .\r", (3, 12)),  # lines end at CR
]


@pytest.mark.parametrize(("body", "where"), RDF_1_2)
@pytest.mark.parametrize(("out", "workers"), [(".ttl", "1"), (".nt", "1"), (".nt", "2")])
def test_rdf_1_2_is_refused_where_it_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, where: tuple[int, int], out: str, workers: str
) -> None:
    """The graph path looked for "<<" anywhere (a literal's text too); the streamed path,
    whose statements are pyoxigraph's and no lines of the file, said no place at all."""
    source = tmp_path / "in.ttl"
    source.write_bytes(f"@prefix ex: <http://example.org/> .\n{body}".encode())
    code = main(["normalize", "-q", "--workers", workers, str(source), "-o", str(tmp_path / f"out{out}")])
    assert code == 2
    assert f"in.ttl:{where[0]}:{where[1]}: " in capsys.readouterr().err
