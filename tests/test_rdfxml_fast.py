"""The compiled RDF/XML reader (ldids/rdf/_rdfxml.c) against pyoxigraph.

``nquads(document)`` reads a well-formed RDF/XML document of a common subset and gives the
N-Quads lines pyoxigraph gives for it, rewritten as ldids writes literals
(``ldids.dumps.rdf_stream.as_written``), in the same order; or None ("let pyoxigraph read
it"). It must never answer otherwise than pyoxigraph, nor answer for a document pyoxigraph
rejects. Generated documents check that (benchmarks/fuzz_rdfxml.py, whose generator this
runs at CI size); tables check that the fast path does take the forms dumps are full of,
and what it leaves to pyoxigraph.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import ModuleType

import pytest

_rdfxml: ModuleType | None
try:
    from ldids.rdf import _rdfxml
except ImportError:
    _rdfxml = None

# The test machines have a C compiler: a missing extension there is a build failure, not a
# reason to test less. A run under LDIDS_PURE_PYTHON tests the Python paths alone.
pytestmark = [
    pytest.mark.skipif(
        _rdfxml is None and os.environ.get("LDIDS_ALLOW_NO_EXTENSION") == "1",
        reason="ldids.rdf._rdfxml not built (allowed by LDIDS_ALLOW_NO_EXTENSION=1)",
    ),
    pytest.mark.skipif(
        bool(os.environ.get("LDIDS_PURE_PYTHON")), reason="LDIDS_PURE_PYTHON is set: the compiled path is off"
    ),
]

Reader = Callable[[bytes | memoryview], "bytes | None"]


@pytest.fixture(scope="module")
def fuzz(benchmark_module: Callable[[str], ModuleType]) -> ModuleType:
    """benchmarks/fuzz_rdfxml.py: the document generator and the law."""
    return benchmark_module("fuzz_rdfxml")


@pytest.fixture(scope="module")
def nquads() -> Reader:
    assert _rdfxml is not None, "ldids.rdf._rdfxml was not built"
    found: Reader = _rdfxml.nquads
    return found


def test_the_extension_is_built() -> None:
    assert _rdfxml is not None, "ldids.rdf._rdfxml was not built"


# -- Generated documents ---------------------------------------------------------------------


def test_compiled_answers_are_pyoxigraph_answers(fuzz: ModuleType, nquads: Reader) -> None:
    """3,000 documents: every answer is None or pyoxigraph's, and the fast path takes a good
    share of them (it is no dead code) while leaving others (it is no rubber stamp)."""
    tally = fuzz.run(7, 3000, nquads)
    assert tally.failures == [], "\n\n".join(tally.failures[:3])
    outcomes = tally.outcomes
    assert outcomes["fast-equal"] >= 0.3 * tally.total, outcomes
    assert outcomes["fallback"] > 0.1 * tally.total, outcomes
    # The generator reaches documents pyoxigraph rejects, and malformed ones, too.
    assert outcomes["pyoxigraph-error-fallback"] > 0.05 * tally.total, outcomes
    assert outcomes["malformed"] > 0, outcomes


def test_the_law_catches_a_wrong_answer(fuzz: ModuleType) -> None:
    """The checker itself: a different answer, an answer for a document pyoxigraph rejects,
    and an answer of the wrong type are caught; malformed documents are not asked about."""
    good = document('<rdf:Description rdf:about="http://a.example/"><v:p>x</v:p></rdf:Description>')
    rejected = document('<rdf:Description rdf:about="relative"><v:p>x</v:p></rdf:Description>')
    right = fuzz.reference(good)
    assert right is not None
    assert fuzz.reference(rejected) is None
    assert fuzz.check(good, lambda data: right) == "fast-equal"
    assert fuzz.check(good, lambda data: None) == "fallback"
    assert fuzz.check(rejected, lambda data: None) == "pyoxigraph-error-fallback"
    with pytest.raises(AssertionError, match="differs from pyoxigraph"):
        fuzz.check(good, lambda data: right.replace(b'"x"', b'"y"'))
    with pytest.raises(AssertionError, match="pyoxigraph rejects"):
        fuzz.check(rejected, lambda data: b"")
    with pytest.raises(AssertionError, match="not bytes or None"):
        fuzz.check(good, lambda data: bytearray(right))

    def never(data: bytes) -> bytes | None:
        raise RuntimeError("a malformed document reached the fast path")

    assert fuzz.check(good[:-12], never) == "malformed"


# -- Tables ----------------------------------------------------------------------------------

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
NAMESPACES = f'xmlns:rdf="{RDF}" xmlns:v="http://example.org/vocab#"'


def document(body: str, root: str = "", declaration: str = '<?xml version="1.0" encoding="UTF-8"?>\n') -> bytes:
    """An rdf:RDF document around ``body``, in the style pyoxigraph's serializer writes."""
    return f"{declaration}<rdf:RDF {NAMESPACES}{root}>\n{body}\n</rdf:RDF>\n".encode()


def lines(*statements: str) -> bytes:
    return "".join(f"{statement} .\n" for statement in statements).encode()


S = "<http://a.example/>"
P, Q, R = "<http://example.org/vocab#p>", "<http://example.org/vocab#q>", "<http://example.org/vocab#r>"
TYPE = f"<{RDF}type>"

TAKEN = [
    pytest.param(
        document(
            '\t<rdf:Description rdf:about="http://example.org/resource/42">\n'
            '\t\t<v:p rdf:resource="hdl:1765/9594"/>\n'
            '\t\t<v:q xml:lang="de">Ein Titel</v:q>\n'
            f'\t\t<v:r rdf:datatype="{XSD}integer">442182</v:r>\n'
            '\t\t<v:p rdf:nodeID="b1"/>\n'
            "\t\t<v:q>A title</v:q>\n"
            "\t</rdf:Description>"
        ),
        lines(
            f"<http://example.org/resource/42> {P} <hdl:1765/9594>",
            f'<http://example.org/resource/42> {Q} "Ein Titel"@de',
            f'<http://example.org/resource/42> {R} "442182"^^<{XSD}integer>',
            f"<http://example.org/resource/42> {P} _:b1",
            f'<http://example.org/resource/42> {Q} "A title"',
        ),
        id="description",
    ),
    pytest.param(
        document('<v:Record rdf:about="info:fedora/demo:1"><v:p>x</v:p></v:Record>\n<v:Thing rdf:nodeID="b2"/>'),
        lines(
            f"<info:fedora/demo:1> {TYPE} <http://example.org/vocab#Record>",
            f'<info:fedora/demo:1> {P} "x"',
            f"_:b2 {TYPE} <http://example.org/vocab#Thing>",
        ),
        id="typed-node",
    ),
    pytest.param(
        # rdf:li counts from 1 in each node element, and other properties do not count.
        document(
            '<rdf:Description rdf:about="http://a.example/"><rdf:li>one</rdf:li>'
            '<rdf:li rdf:resource="oai:example.org:item1"/><v:p>x</v:p><rdf:li rdf:nodeID="b3"/></rdf:Description>\n'
            '<v:List rdf:about="http://a.example/l"><rdf:li>again one</rdf:li></v:List>'
        ),
        lines(
            f'{S} <{RDF}_1> "one"',
            f"{S} <{RDF}_2> <oai:example.org:item1>",
            f'{S} {P} "x"',
            f"{S} <{RDF}_3> _:b3",
            f"<http://a.example/l> {TYPE} <http://example.org/vocab#List>",
            f'<http://a.example/l> <{RDF}_1> "again one"',
        ),
        id="rdf-li",
    ),
    pytest.param(
        document('<rdf:Description rdf:about="http://a.example/"><v:p>a&#13;b&#xD;</v:p></rdf:Description>'),
        lines(f'{S} {P} "a\\rb\\r"'),
        id="cr-reference",
    ),
    pytest.param(
        document(
            '<rdf:Description rdf:about="http://a.example/">'
            '<v:p xml:lang="EN-us">x</v:p><v:q xml:lang="zh-Hant-TW">y</v:q></rdf:Description>'
        ),
        lines(f'{S} {P} "x"@en-us', f'{S} {Q} "y"@zh-hant-tw'),
        id="language-case",
    ),
    pytest.param(
        document(
            '<rdf:Description rdf:about="http://a.example/1"><v:p>root</v:p></rdf:Description>\n'
            '<rdf:Description rdf:about="http://a.example/2" xml:lang="fr"><v:p>node</v:p>'
            '<v:q xml:lang="nl-BE">property</v:q><v:r rdf:resource="http://a.example/3"/></rdf:Description>\n'
            '<rdf:Description rdf:about="http://a.example/4"><v:p>root again</v:p></rdf:Description>',
            root=' xml:lang="DE"',
        ),
        lines(
            f'<http://a.example/1> {P} "root"@de',
            f'<http://a.example/2> {P} "node"@fr',
            f'<http://a.example/2> {Q} "property"@nl-be',
            f"<http://a.example/2> {R} <http://a.example/3>",
            f'<http://a.example/4> {P} "root again"@de',
        ),
        id="language-in-scope",
    ),
    pytest.param(
        # A datatype wins over the language in scope; xsd:string is a simple literal.
        document(
            '<rdf:Description rdf:about="http://a.example/" xml:lang="en">'
            f'<v:p rdf:datatype="{XSD}date">2001-01-26</v:p><v:q rdf:datatype="{XSD}string">s</v:q>'
            f'<v:r xml:lang="de" rdf:datatype="http://example.org/dt#x">t</v:r></rdf:Description>'
        ),
        lines(f'{S} {P} "2001-01-26"^^<{XSD}date>', f'{S} {Q} "s"', f'{S} {R} "t"^^<http://example.org/dt#x>'),
        id="datatype-in-language-scope",
    ),
    pytest.param(
        document(
            '<rdf:Description rdf:about="http://a.example/"><v:p/><v:q></v:q><v:r xml:lang="en"/>'
            f'<v:p rdf:datatype="{XSD}string"></v:p></rdf:Description>'
        ),
        lines(f'{S} {P} ""', f'{S} {Q} ""', f'{S} {R} ""@en', f'{S} {P} ""'),
        id="empty-property",
    ),
    pytest.param(
        document(
            '<rdf:Description rdf:nodeID="b6168"><v:p rdf:nodeID="b19677"/></rdf:Description>\n'
            '<rdf:Description rdf:nodeID="b19677"><v:p rdf:nodeID="b6168"></v:p></rdf:Description>'
        ),
        lines(f"_:b6168 {P} _:b19677", f"_:b19677 {P} _:b6168"),
        id="node-ids",
    ),
    pytest.param(
        document(
            '<rdf:Description rdf:about="http://a.example/s?a=1&amp;b=2#x">'
            "<v:p>&lt;&gt;&amp;&quot;&apos; \"q\" 'a' back\\slash \\t &#x1F600;&#128512; &#127;&#x85; \U0001f600"
            " tab\there\nnewline</v:p></rdf:Description>"
        ),
        (
            f"<http://a.example/s?a=1&b=2#x> {P} "
            '"<>&\\"\' \\"q\\" \'a\' back\\\\slash \\\\t \U0001f600\U0001f600 \x7f\x85 \U0001f600'
            ' tab\there\\nnewline" .\n'
        ).encode(),
        id="escapes",
    ),
    pytest.param(
        b"<rdf:RDF xmlns:rdf='" + RDF.encode() + b"' xmlns='http://example.org/vocab#'>\n"
        b"<rdf:Description\n\trdf:about = 'http://a.example/&apos;x&apos;' >\n<p\n/>\n"
        b"<q rdf:resource='http://a.example/q'></q >\n</rdf:Description >\n"
        b'<Thing rdf:about="http://a.example/t"/>\n</rdf:RDF>',
        lines(
            f"<http://a.example/'x'> {P} \"\"",
            f"<http://a.example/'x'> {Q} <http://a.example/q>",
            f"<http://a.example/t> {TYPE} <http://example.org/vocab#Thing>",
        ),
        id="default-namespace-quotes-and-spacing",
    ),
    pytest.param(
        # Comments between elements are no part of the graph; inside text they are declined.
        b"<!-- before -->\n"
        + document(
            '<!-- a - b --><rdf:Description rdf:about="http://a.example/"><!-- <v:p>no</v:p> -->\n'
            "<v:p>x</v:p><!-- -> --><!----></rdf:Description><!-- &amp; -->",
            declaration="",
        )
        + b"<!-- after -->\n",
        lines(f'{S} {P} "x"'),
        id="comments-between-elements",
    ),
    pytest.param(
        document('<rdf:Description rdf:about="http://a.example/"/>', declaration=""),
        b"",
        id="no-declaration-no-statement",
    ),
]


@pytest.mark.parametrize(("data", "expected"), TAKEN)
def test_the_fast_path_takes_the_common_forms(fuzz: ModuleType, nquads: Reader, data: bytes, expected: bytes) -> None:
    assert fuzz.well_formed(data)
    assert fuzz.reference(data) == expected
    assert nquads(data) == expected
    assert fuzz.check(data, nquads) == "fast-equal"


def described(properties: str, about: str = "http://a.example/") -> bytes:
    return document(f'<rdf:Description rdf:about="{about}">{properties}</rdf:Description>')


DECLINED = [
    # pyoxigraph rejects these: the fast path must not answer.
    pytest.param(described('<v:p rdf:resource="relative/x"/>'), id="relative-iri"),
    pytest.param(described("<v:p>x</v:p>", about="#x"), id="relative-subject"),
    pytest.param(described('<v:p xml:lang="">x</v:p>'), id="empty-language"),
    pytest.param(described('<v:p rdf:resource="http://a.example/" rdf:nodeID="b1"/>'), id="resource-and-node-id"),
    pytest.param(
        document('<rdf:Description rdf:about="http://a.example/" rdf:nodeID="b1"><v:p>x</v:p></rdf:Description>'),
        id="about-and-node-id",
    ),
    pytest.param(described('<v:p rdf:resource="http://a.example/">text</v:p>'), id="resource-and-text"),
    # Outside the subset: pyoxigraph reads them.
    pytest.param(
        document('<rdf:Description rdf:about="x"><v:p>y</v:p></rdf:Description>', root=' xml:base="http://b.example/"'),
        id="xml-base",
    ),
    pytest.param(described("<v:p>a\rb</v:p>"), id="cr-in-text"),
    pytest.param(described("<v:p>a\r\nb</v:p>"), id="crlf-in-text"),
    pytest.param(described("<v:p>a</v:p>").replace(b"\n", b"\r\n"), id="crlf-line-ends"),
    pytest.param(described("<v:p>a<!-- note -->b</v:p>"), id="comment-in-text"),
    pytest.param(described("<v:p><![CDATA[a <b>]]></v:p>"), id="cdata"),
    pytest.param(described('<v:p rdf:parseType="Resource"><v:q>x</v:q></v:p>'), id="parse-type-resource"),
    pytest.param(described('<v:p rdf:parseType="Literal"><b>x</b></v:p>'), id="parse-type-literal"),
    pytest.param(document('<rdf:Description rdf:ID="x"><v:p>y</v:p></rdf:Description>'), id="rdf-id"),
    pytest.param(described('<v:p rdf:ID="s">y</v:p>'), id="rdf-id-reification"),
    pytest.param(described('<v:p xml:lang="i-klingon">x</v:p>'), id="grandfathered-language"),
    pytest.param(described('<v:p xml:lang="de-CH-1996">x</v:p>'), id="language-variant"),
    pytest.param(
        document('<rdf:Description rdf:about="http://a.example/" v:p="x"/>'),
        id="property-attribute",
    ),
    pytest.param(
        described('<v:p><rdf:Description rdf:about="http://a.example/n"><v:q>x</v:q></rdf:Description></v:p>'),
        id="nested-node",
    ),
    pytest.param(document("<rdf:Description><v:p>x</v:p></rdf:Description>"), id="anonymous-node"),
    pytest.param(
        document(
            '<rdf:Description rdf:about="http://a.example/"><v:p>x</v:p></rdf:Description>',
            declaration='<?xml version="1.0" encoding="ISO-8859-1"?>\n',
        ),
        id="latin-1",
    ),
    pytest.param(b"\xef\xbb\xbf" + described("<v:p>x</v:p>"), id="byte-order-mark"),
    pytest.param(
        b'<!DOCTYPE rdf:RDF [<!ENTITY ex "http://a.example/">]>\n'
        + described("<v:p>&ex;</v:p>", about="&ex;x").split(b"\n", 1)[1],
        id="doctype-entity",
    ),
    pytest.param(described('<v:p rdf:resource="http://a.example/a b"/>'), id="space-in-iri"),
    pytest.param(described('<v:p rdf:resource="http://a.example/\u00e9"/>'), id="non-ascii-iri"),
    pytest.param(described('<v:p rdf:resource="http://[::1]/"/>'), id="ip-literal"),
    pytest.param(described(f'<v:p rdf:datatype="{RDF}XMLLiteral">x</v:p>'), id="rdf-datatype"),
    pytest.param(document('<rdf:li rdf:about="http://a.example/"/>'), id="rdf-li-node"),
    pytest.param(described('<rdf:Description rdf:resource="http://a.example/"/>'), id="description-property"),
    pytest.param(described('<v:p xmlns:w="http://w.example/">x</v:p>'), id="namespace-on-property"),
]


@pytest.mark.parametrize("data", DECLINED)
def test_what_the_fast_path_leaves_to_pyoxigraph(fuzz: ModuleType, nquads: Reader, data: bytes) -> None:
    assert fuzz.well_formed(data)
    assert nquads(data) is None
    assert fuzz.check(data, nquads) in {"fallback", "pyoxigraph-error-fallback"}


def test_what_namespaces_in_xml_refuses_is_refused_before_the_reader(fuzz: ModuleType, nquads: Reader) -> None:
    """The prefix ``xml`` bound elsewhere (Namespaces in XML 1.0 §3): pyoxigraph refuses it,
    the reader declines it, and the well-formedness check refuses it before either reads it."""
    data = document(
        '<rdf:Description rdf:about="http://a.example/"><v:p>x</v:p></rdf:Description>',
        root=' xmlns:xml="http://x.example/"',
    )
    assert nquads(data) is None
    assert not fuzz.well_formed(data)
    assert fuzz.check(data, nquads) == "malformed"


def test_a_large_document(fuzz: ModuleType, nquads: Reader) -> None:
    """Some megabytes, past every buffer's first size: the same lines."""
    nodes = "\n".join(
        f'\t<rdf:Description rdf:about="http://example.org/resource/{number}">\n'
        f'\t\t<v:p xml:lang="de">Ein Titel {number}</v:p>\n'
        f'\t\t<v:q rdf:resource="hdl:1765/{number}"/>\n'
        f"\t\t<v:r>{'long text ' * (number % 500)}</v:r>\n"
        "\t</rdf:Description>"
        for number in range(3000)
    )
    data = document(nodes)
    expected = fuzz.reference(data)
    assert expected is not None
    assert expected.count(b"\n") == 9000
    assert nquads(data) == expected


def test_answers_leak_no_references(nquads: Reader) -> None:
    taken = described("<v:p>x</v:p>")
    declined = described("<!-- c --><v:p>x</v:p>")
    before = [sys.getrefcount(taken), sys.getrefcount(declined)]
    for _ in range(10_000):
        nquads(taken)
        nquads(declined)
    assert [sys.getrefcount(taken), sys.getrefcount(declined)] == before


@pytest.mark.skipif(sys.platform != "linux", reason="the guard page is made with Linux's mprotect")
def test_nothing_is_read_past_the_end(
    nquads: Reader, guard_page: Callable[[bytes], AbstractContextManager[memoryview]]
) -> None:
    """Every prefix of some documents, each ending where a page no one may read starts: a
    read of one byte past what the reader is given faults (it read past b"<?xml")."""
    for data in [
        document('<rdf:Description rdf:about="http://a.example/"><v:p xml:lang="en">x &amp; y</v:p></rdf:Description>'),
        b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
    ]:
        for end in range(len(data) + 1):
            with guard_page(data[:end]) as view:
                nquads(view)
