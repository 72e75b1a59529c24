"""The compiled Turtle and TriG reader (ldids/rdf/_turtle.c) against pyoxigraph.

``nquads(document, trig)`` reads a Turtle (or TriG) document of a common subset and gives the
N-Quads lines pyoxigraph gives for it (no base IRI), rewritten as ldids writes literals
(``ldids.dumps.rdf_stream.as_written``), in the same order; or None ("let pyoxigraph read
it"). Nothing checks a document before it: it sees any bytes, and must never answer otherwise
than pyoxigraph, nor answer for a document pyoxigraph rejects. Generated documents check that
(benchmarks/fuzz_turtle.py, whose generator this runs at CI size); tables check that the fast
path does take the forms dumps are full of, and what it leaves to pyoxigraph.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import ModuleType

import pytest

_turtle: ModuleType | None
try:
    from ldids.rdf import _turtle
except ImportError:
    _turtle = None

# The test machines have a C compiler: a missing extension there is a build failure, not a
# reason to test less. A run under LDIDS_PURE_PYTHON tests the Python paths alone.
pytestmark = [
    pytest.mark.skipif(
        _turtle is None and os.environ.get("LDIDS_ALLOW_NO_EXTENSION") == "1",
        reason="ldids.rdf._turtle not built (allowed by LDIDS_ALLOW_NO_EXTENSION=1)",
    ),
    pytest.mark.skipif(
        bool(os.environ.get("LDIDS_PURE_PYTHON")), reason="LDIDS_PURE_PYTHON is set: the compiled path is off"
    ),
]

Reader = Callable[[bytes | memoryview, bool], "bytes | None"]


@pytest.fixture(scope="module")
def fuzz(benchmark_module: Callable[[str], ModuleType]) -> ModuleType:
    """benchmarks/fuzz_turtle.py: the document generator and the law."""
    return benchmark_module("fuzz_turtle")


@pytest.fixture(scope="module")
def nquads() -> Reader:
    assert _turtle is not None, "ldids.rdf._turtle was not built"
    found: Reader = _turtle.nquads
    return found


def test_the_extension_is_built() -> None:
    assert _turtle is not None, "ldids.rdf._turtle was not built"


# -- Generated documents ---------------------------------------------------------------------


def test_compiled_answers_are_pyoxigraph_answers(fuzz: ModuleType, nquads: Reader) -> None:
    """3,000 documents, each read as Turtle and as TriG: every answer is None or
    pyoxigraph's, and the fast path takes a good share of them (it is no dead code) while
    leaving others (it is no rubber stamp)."""
    tally = fuzz.run(7, 3000, nquads)
    assert tally.failures == [], "\n\n".join(tally.failures[:3])
    outcomes = tally.outcomes
    assert outcomes["fast-equal"] >= 0.3 * tally.total, outcomes
    assert outcomes["fallback"] > 0.03 * tally.total, outcomes
    # The generator reaches documents pyoxigraph rejects, too.
    assert outcomes["pyoxigraph-error-fallback"] > 0.1 * tally.total, outcomes
    # Each kind of document, in each format, reaches the fast path and the fallback.
    for kind, _ in fuzz.KINDS:
        for name in fuzz.FORMATS:
            assert tally.by_kind[kind, name, "fast-equal"] > 0, (kind, name, tally.by_kind)
            assert tally.by_kind[kind, name, "fallback"] > 0, (kind, name, tally.by_kind)


@pytest.mark.parametrize("trig", [False, True], ids=["turtle", "trig"])
def test_the_law_catches_a_wrong_answer(fuzz: ModuleType, trig: bool) -> None:
    """The checker itself: a different answer, an answer for a document pyoxigraph rejects,
    and an answer of the wrong type are caught, in either format."""
    good = b'<http://a.example/> <http://example.org/vocab#p> "x" .\n'
    rejected = b'<relative> <http://example.org/vocab#p> "x" .\n'
    right = fuzz.reference(good, trig)
    assert right is not None
    assert fuzz.reference(rejected, trig) is None
    assert fuzz.check(good, trig, lambda data, trig: right) == "fast-equal"
    assert fuzz.check(good, trig, lambda data, trig: None) == "fallback"
    assert fuzz.check(rejected, trig, lambda data, trig: None) == "pyoxigraph-error-fallback"
    with pytest.raises(AssertionError, match="differs from pyoxigraph"):
        fuzz.check(good, trig, lambda data, trig: right.replace(b'"x"', b'"y"'))
    with pytest.raises(AssertionError, match="pyoxigraph rejects"):
        fuzz.check(rejected, trig, lambda data, trig: b"")
    with pytest.raises(AssertionError, match="not bytes or None"):
        fuzz.check(good, trig, lambda data, trig: bytearray(right))
    # A TriG block is no Turtle.
    block = b"<http://g.example/> { " + good + b"}"
    assert fuzz.reference(block, False) is None
    assert fuzz.reference(block, True) is not None


# -- Tables ----------------------------------------------------------------------------------

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
HEADER = (
    f"@prefix xsd: <{XSD}> .\n@prefix dc: <http://purl.org/dc/elements/1.1/> .\n"
    "@prefix r: <http://example.org/resource/> .\n@prefix v: <http://example.org/vocab#> .\n"
)


def document(body: str, header: str = HEADER) -> bytes:
    """A document of pyoxigraph's serializer's style: its prefixes, then ``body``."""
    return f"{header}{body}\n".encode()


def lines(*statements: str) -> bytes:
    return "".join(f"{statement} .\n" for statement in statements).encode()


S = "<http://example.org/resource/42>"
P, Q, R = "<http://example.org/vocab#p>", "<http://example.org/vocab#q>", "<http://example.org/vocab#r>"
G = "<http://example.org/graph>"
TYPE = f"<{RDF}type>"
INTEGER, DECIMAL, BOOLEAN = f"^^<{XSD}integer>", f"^^<{XSD}decimal>", f"^^<{XSD}boolean>"

#: (document, read as TriG, the lines expected).
TAKEN = [
    pytest.param(
        document(
            "r:42 v:p _:b6168 ;\n\tv:q <hdl:100.102/612dd272d1371c17149d439536b3216f> ;\n"
            '\tv:r "Ein Titel 42"@de ;\n\tdc:identifier "demo%3a42" , "2001-01-26"^^xsd:date ;\n'
            "\tv:p 442182 ;\n\tv:q <INFO:FEDORA/demo:21621/DS%2d1> ."
        ),
        False,
        lines(
            f"{S} {P} _:b6168",
            f"{S} {Q} <hdl:100.102/612dd272d1371c17149d439536b3216f>",
            f'{S} {R} "Ein Titel 42"@de',
            f'{S} <http://purl.org/dc/elements/1.1/identifier> "demo%3a42"',
            f'{S} <http://purl.org/dc/elements/1.1/identifier> "2001-01-26"^^<{XSD}date>',
            f'{S} {P} "442182"{INTEGER}',
            f"{S} {Q} <INFO:FEDORA/demo:21621/DS%2d1>",
        ),
        id="pyoxigraph-style",
    ),
    pytest.param(
        document(
            f"{G} {{\nr:42 v:p r:1 ;\n\tv:q 1 .\n_:b1 a v:Thing }}\n"
            "{ r:42 v:r true }\nGRAPH _:g { r:42 v:p false . }\ngraph v:g{}\nr:42 v:q r:2 ."
        ),
        True,
        lines(
            f"{S} {P} <http://example.org/resource/1> {G}",
            f'{S} {Q} "1"{INTEGER} {G}',
            f"_:b1 {TYPE} <http://example.org/vocab#Thing> {G}",
            f'{S} {R} "true"{BOOLEAN}',
            f'{S} {P} "false"{BOOLEAN} _:g',
            f"{S} {Q} <http://example.org/resource/2>",
        ),
        id="trig-blocks",
    ),
    pytest.param(
        document("r:42 v:p +01 , -1.50 , .5 , 0 , -0.0 , 007 ;\n\tv:q 1."),
        False,
        lines(
            f'{S} {P} "+01"{INTEGER}',
            f'{S} {P} "-1.50"{DECIMAL}',
            f'{S} {P} ".5"{DECIMAL}',
            f'{S} {P} "0"{INTEGER}',
            f'{S} {P} "-0.0"{DECIMAL}',
            f'{S} {P} "007"{INTEGER}',
            f'{S} {Q} "1"{INTEGER}',
        ),
        id="numbers-as-written",
    ),
    pytest.param(
        document(
            'r:42 v:p "a\\tb\\nc\\rd\\"e\\\'f\\\\g\\bh\\fi" , \'j"k\' , "\\u0000\\u00e9\\U0001F600\\uFFFF" , '
            '"raw\tt\x01\x7f é \U0001f600 \u2028" .'
        ),
        False,
        lines(
            f'{S} {P} "a\tb\\nc\\rd\\"e\'f\\\\g\bh\fi"',
            f'{S} {P} "j\\"k"',
            f'{S} {P} "\x00é\U0001f600\uffff"',
            f'{S} {P} "raw\tt\x01\x7f é \U0001f600 \u2028"',
        ),
        id="string-escapes",
    ),
    pytest.param(
        document(
            'r:42 v:p "x"@EN-us , "y"@zh-Hant-TW , "z"@es-419 , "s"^^xsd:string , '
            f'"t"^^<{XSD}string> , "u"^^<http://example.org/dt#x> .'
        ),
        False,
        lines(
            f'{S} {P} "x"@en-us',
            f'{S} {P} "y"@zh-hant-tw',
            f'{S} {P} "z"@es-419',
            f'{S} {P} "s"',
            f'{S} {P} "t"',
            f'{S} {P} "u"^^<http://example.org/dt#x>',
        ),
        id="languages-and-datatypes",
    ),
    pytest.param(
        document(
            "r:a.b v:p-q r:1.5 ;;\n\tv:a:b: r:%41x , r: , r:_x ;\n\ta r:demo:1.",
            header="PREFIX r: <http://example.org/resource/>\nprefix v: <http://example.org/vocab#>\n",
        ),
        False,
        lines(
            "<http://example.org/resource/a.b> <http://example.org/vocab#p-q> <http://example.org/resource/1.5>",
            "<http://example.org/resource/a.b> <http://example.org/vocab#a:b:> <http://example.org/resource/%41x>",
            "<http://example.org/resource/a.b> <http://example.org/vocab#a:b:> <http://example.org/resource/>",
            "<http://example.org/resource/a.b> <http://example.org/vocab#a:b:> <http://example.org/resource/_x>",
            f"<http://example.org/resource/a.b> {TYPE} <http://example.org/resource/demo:1>",
        ),
        id="prefixed-names-and-sparql-directives",
    ),
    pytest.param(
        b"# a comment \xc3\xa9\r\n@prefix v: <http://example.org/vocab#> . # after\r\n"
        b"<http://a.example/s?a=1&b=2#x> v:p <oai:example.org:item1> ; # between\r\n"
        b"  v:q _:b1 . # end\r\n",
        False,
        lines(
            f"<http://a.example/s?a=1&b=2#x> {P} <oai:example.org:item1>",
            f"<http://a.example/s?a=1&b=2#x> {Q} _:b1",
        ),
        id="comments-and-crlf",
    ),
    pytest.param(b"", False, b"", id="empty"),
    pytest.param(document(""), True, b"", id="only-directives"),
    pytest.param(
        document('r:42 v:p """An abstract,\n\ton "two" lines\r\n\\u00e9"""@EN , ' + "'''it's ''this'' '''^^v:t ."),
        False,
        lines(
            f'{S} {P} "An abstract,\\n\ton \\"two\\" lines\\r\\n\u00e9"@en',
            f"{S} {P} \"it's ''this'' \"^^<http://example.org/vocab#t>",
        ),
        id="long-strings",
    ),
]


@pytest.mark.parametrize(("data", "trig", "expected"), TAKEN)
def test_the_fast_path_takes_the_common_forms(
    fuzz: ModuleType, nquads: Reader, data: bytes, trig: bool, expected: bytes
) -> None:
    assert fuzz.reference(data, trig) == expected
    assert nquads(data, trig) == expected
    assert fuzz.check(data, trig, nquads) == "fast-equal"
    if not trig:
        # A Turtle document is a TriG document of the default graph.
        assert fuzz.check(data, True, nquads) == "fast-equal"


def statement(obj: str) -> bytes:
    return document(f"r:42 v:p {obj} .")


#: (document, read as TriG).
DECLINED = [
    # pyoxigraph rejects these: the fast path must not answer.
    pytest.param(statement("<relative/x>"), False, id="relative-iri"),
    pytest.param(statement("undeclared:x"), False, id="undeclared-prefix"),
    pytest.param(statement('"x"@'), False, id="empty-language"),
    pytest.param(statement('"\\uD800"'), False, id="surrogate-escape"),
    pytest.param(statement('"\\U00110000"'), False, id="escape-past-unicode"),
    pytest.param(statement('"a?"').replace(b"a?", b"a\xff"), False, id="invalid-utf-8-in-string"),
    pytest.param(b"# \xff\n" + statement("1"), False, id="invalid-utf-8-in-comment"),
    # "1.e" starts a double (Turtle's DOUBLE, [0-9]+ '.' [0-9]* EXPONENT) that has no exponent.
    pytest.param(
        document("r:42 v:p 1.e:x v:q 2 .", header="@prefix e: <http://e.example/> .\n" + HEADER),
        False,
        id="number-then-e-prefixed-name",
    ),
    pytest.param(
        document("{ r:42 v:p 1.E:x v:q 2 }", header="PREFIX E: <http://e.example/>\n" + HEADER),
        True,
        id="number-then-capital-e-prefixed-name",
    ),
    pytest.param(document("{ r:42 v:p 1 }"), False, id="block-in-turtle"),
    pytest.param(document("GRAPH { r:42 v:p 1 }"), True, id="graph-without-label"),
    pytest.param(document("r:g { r:42 v:p 1 } ."), True, id="dot-after-block"),
    pytest.param(document("r:42 v:p 1"), False, id="no-final-dot"),
    pytest.param(statement("TRUE"), False, id="upper-case-boolean"),
    pytest.param(document("@PREFIX x: <http://x.example/> ."), False, id="upper-case-at-prefix"),
    # Outside the subset: pyoxigraph reads them.
    pytest.param(statement('"""a""""'), False, id="long-string-ended-by-four-quotes"),
    pytest.param(statement("1e5"), False, id="double"),
    pytest.param(statement("1.e5"), False, id="double-without-fraction"),
    pytest.param(statement("[ v:q 1 ]"), False, id="blank-node-property-list"),
    pytest.param(statement("( 1 2 )"), False, id="collection"),
    pytest.param(statement("<< r:a v:b r:c >>"), False, id="triple-term"),
    pytest.param(statement("r:é"), False, id="non-ascii-local-name"),
    pytest.param(statement("r:a\\~b"), False, id="escaped-local-name"),
    pytest.param(statement("<http://a.example/\\u0041>"), False, id="escaped-iri"),
    pytest.param(statement("<http://a.example/é>"), False, id="non-ascii-iri"),
    pytest.param(statement('"x"@de-CH-1996'), False, id="language-variant"),
    pytest.param(statement('"x"@en--ltr'), False, id="base-direction"),
    pytest.param(statement(f'"x"^^<{RDF}XMLLiteral>'), False, id="rdf-datatype"),
    pytest.param(b"\xef\xbb\xbf" + statement("1"), False, id="byte-order-mark"),
    pytest.param(
        document("r:42 v:p 1 .\n@prefix w: <http://w.example/> .\nw:x v:p 2 ."), False, id="directive-after-statement"
    ),
    pytest.param(document("@base <http://b.example/> .\n<x> v:p 1 ."), False, id="base-and-relative-iri"),
    pytest.param(document("r:g { r:h { r:42 v:p 1 } }"), True, id="nested-blocks"),
    pytest.param(statement("true."), False, id="boolean-then-dot"),
]


@pytest.mark.parametrize(("data", "trig"), DECLINED)
def test_what_the_fast_path_leaves_to_pyoxigraph(fuzz: ModuleType, nquads: Reader, data: bytes, trig: bool) -> None:
    assert nquads(data, trig) is None
    assert fuzz.check(data, trig, nquads) in {"fallback", "pyoxigraph-error-fallback"}


def test_a_large_document(fuzz: ModuleType, nquads: Reader) -> None:
    """Some megabytes, past every buffer's first size: the same lines, in either format."""
    body = "\n".join(
        f'r:{number} v:p "Ein Titel {number}"@de ;\n\tv:q <hdl:1765/{number}> ;\n'
        f'\tv:r "{"long text " * (number % 500)}" .'
        for number in range(3000)
    )
    data = document(body)
    expected = fuzz.reference(data, False)
    assert expected is not None
    assert expected.count(b"\n") == 9000
    assert nquads(data, False) == expected
    trig = document(f"v:g {{\n{body}\n}}")
    assert nquads(trig, True) == fuzz.reference(trig, True)


def test_answers_leak_no_references(nquads: Reader) -> None:
    taken = statement("1")
    declined = statement("[ v:q 1 ]")
    before = [sys.getrefcount(taken), sys.getrefcount(declined)]
    for _ in range(10_000):
        nquads(taken, False)
        nquads(declined, True)
    assert [sys.getrefcount(taken), sys.getrefcount(declined)] == before


@pytest.mark.skipif(sys.platform != "linux", reason="the guard page is made with Linux's mprotect")
def test_nothing_is_read_past_the_end(
    nquads: Reader, guard_page: Callable[[bytes], AbstractContextManager[memoryview]]
) -> None:
    """Every prefix of some documents, each ending where a page no one may read starts: a
    read of one byte past what the reader is given faults (it read past b"<?xml")."""
    for data in [
        b'@prefix v: <http://a.example/v#> .\nv:s v:p "x\\u00e9"@en , 1.5 , true ; a v:T .\n'
        b"<http://g.example/> { _:b v:p v:o }",
        b"PREFIX v: <http://a.example/v#>\nv:s v:p 'y' . # note",
    ]:
        for end in range(len(data) + 1):
            for trig in (False, True):
                with guard_page(data[:end]) as view:
                    nquads(view, trig)
