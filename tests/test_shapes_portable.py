"""The shipped shapes are portable (DESIGN.md §6b): every regular expression in them is an
XSD/XPath one, and they load and give the same results in pyshacl and in a compiled
engine (the ``shacl`` package, in Rust, which refuses Python-only regexes)."""

from __future__ import annotations

import re

import pytest
import shacl
from hypothesis import given, settings
from hypothesis import strategies as st
from pyshacl import validate as pyshacl_validate
from rdflib import Graph
from rdflib.namespace import SH

from ldids.errors import ShapesError
from ldids.resources import shapes_file, shapes_graph
from ldids.shacl.xsd_regex import check, shape_patterns

PATTERNS = list(shape_patterns(shapes_graph()))


def test_the_patterns_are_found() -> None:
    # Seven sh:pattern values (one per syntax shape, two for the PID's alternatives, the
    # canonical one) and the REGEX/REPLACE calls of the SPARQL targets.
    assert sum(where.endswith("sh:pattern") for where, _ in PATTERNS) == 7
    assert sum("REGEX" in where or "REPLACE" in where for where, _ in PATTERNS) >= 10


@pytest.mark.parametrize(("where", "pattern"), PATTERNS, ids=[where for where, _ in PATTERNS])
def test_every_pattern_is_an_xsd_regex(where: str, pattern: str) -> None:
    check(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        "^abc$",
        "a|b|",
        "[a-z-]",
        "[-a]",
        "[^\\s\\S]",
        "[a-z-[aeiou]]",
        "\\p{L}\\P{IsBasicLatin}",
        "x{2}y{2,}z{2,3}",
        "\\i\\c*",
        "[\\^\\-\\[\\]]",
        "%[0-9A-F]{2}",
        "[$()*+.?{}|]",
    ],
)
def test_xsd_regexes_are_accepted(pattern: str) -> None:
    check(pattern)


@pytest.mark.parametrize(
    ("pattern", "at"),
    [
        ("a(?=b)", 2),  # look-ahead
        ("a(?!b)", 2),
        ("(?<=a)b", 1),  # look-behind
        ("(?:ab)+", 1),  # non-capturing group
        ("(?i)ab", 1),  # inline flags
        ("a*?", 3),  # lazy quantifiers
        ("a+?", 3),
        ("a{2,3}?", 7),
        ("(a)\\1", 4),  # back-reference
        ("a**", 3),
        ("a{3,2}", 3),
        ("[z-a]", 2),
        ("\\Z", 1),  # Python's end of string
        ("\\b", 1),  # word boundary
        ("a)", 2),
        ("(a", 1),
        ("[a", 1),
        ("a{", 3),
        ("[a[b]", 3),
        ("{2}", 1),
    ],
)
def test_other_dialects_are_refused_with_where(pattern: str, at: int) -> None:
    with pytest.raises(ShapesError, match=f"^at character {at}: ") as caught:
        check(pattern)
    assert caught.value.code == "shapes.regex-dialect"


# -- The CanonicalIdentifier pattern, rewritten without look-ahead --------------------------
#
# The handle part used to be written with look-aheads, as: not a CORDRA-shaped handle (digit
# segments, '/', exactly 32 hex digits) with a lower-case hex digit. Python's re still reads
# that form: the new one must accept exactly what it did.

OLD_HANDLE = re.compile(
    r"^hdl:(?![0-9]+(\.[0-9]+)*/(?=[0-9A-Fa-f]{32}([?#]|$))[0-9A-F]*[a-f])[^/?#:]+/[^?#]+(\?[^#]*)?(#.*)?\Z"
)
CANONICAL = next(p for where, p in PATTERNS if where.startswith("<https://w3id.org/ldids/shapes#CanonicalIdentifier>"))
NEW = re.compile(CANONICAL.replace("$", "\\Z").replace("+\\Z,", "+$,"))


def _handles() -> st.SearchStrategy[str]:
    digits = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,2}){0,2}", fullmatch=True)
    odd = st.text(alphabet="0123456789.aZ-", min_size=1, max_size=6)
    hexes = st.text(alphabet="0123456789abcdefABCDEF", min_size=30, max_size=34)
    local = st.one_of(hexes, st.text(alphabet="0123456789abcdefABG-/ ", min_size=1, max_size=40))
    tail = st.sampled_from(["", "?a=b", "#f", "?x#y"])
    return st.builds(lambda na, lo, t: f"hdl:{na}/{lo}{t}", st.one_of(digits, odd), local, tail)


@given(_handles())
@settings(max_examples=3000, deadline=None)
def test_the_canonical_handle_pattern_accepts_what_the_look_ahead_did(text: str) -> None:
    assert (NEW.match(text) is not None) == (OLD_HANDLE.match(text) is not None), text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAB", True),
        ("hdl:100.102/abcdefabcdefabcdefabcdefabcdefab", False),
        ("hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAb", False),
        ("hdl:100.102/abcdefabcdefabcdefabcdefabcdefa", True),  # 31: a generic handle, case kept
        ("hdl:100.102/abcdefabcdefabcdefabcdefabcdefabc", True),  # 33
        ("hdl:1765/abc", True),
        ("hdl:x.102/abcdefabcdefabcdefabcdefabcdefab", True),  # no digit-segment authority
        ("hdl:100..2/abcdefabcdefabcdefabcdefabcdefab", True),
    ],
)
def test_canonical_handles(text: str, canonical: bool) -> None:
    assert (NEW.match(text) is not None) is canonical


# -- Both engines read the shapes and agree -----------------------------------------------

LONG = "A" * 60
DATA = f"""
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<info:fedora/demo:1> dc:identifier "demo:1", "demo%3a1", "demo:a b",
    "demo:{LONG[:59]}", "demo:{LONG}", "demo%3A{LONG[:59]}", "demo%3a{LONG}" ;
  <http://x/p> <http://purl.org:443/poi/arXiv.org/a>, <https://purl.org:443/poi/arXiv.org/b>,
    <http://purl.org:080/poi/arXiv.org/c>, <https://PURL.org:80/poi/arXiv.org/d>, <oai:bad>,
    <hdl:1765/abcdefabcdefabcdefabcdefabcdefab>, <hdl:100.102/abcdefabcdefabcdefabcdefabcdefab> ;
  owl:sameAs <info:fedora/demo:1> .
"""
#: (focus, shape, component) written out by hand.
EXPECTED = {
    ("demo:a b", "FedoraPidSyntax", "OrConstraintComponent"),
    # 64 characters are a PID, 65 too many; written with '%3A', 66 are 64 normalized, 67 too many.
    ("demo:" + LONG, "FedoraPidSyntax", "OrConstraintComponent"),
    ("demo%3a" + LONG, "FedoraPidSyntax", "OrConstraintComponent"),
    ("http://purl.org:443/poi/arXiv.org/a", "PoiSyntax", "PatternConstraintComponent"),
    ("https://PURL.org:80/poi/arXiv.org/d", "PoiSyntax", "PatternConstraintComponent"),
    *(
        (poi, "CanonicalIdentifier", "PatternConstraintComponent")
        for poi in (
            "http://purl.org:443/poi/arXiv.org/a",
            "https://purl.org:443/poi/arXiv.org/b",
            "http://purl.org:080/poi/arXiv.org/c",
            "https://PURL.org:80/poi/arXiv.org/d",
        )
    ),
    ("oai:bad", "OaiIdentifierSyntax", "PatternConstraintComponent"),
    ("oai:bad", "CanonicalIdentifier", "PatternConstraintComponent"),
    *(
        (cordra, "CanonicalIdentifier", "PatternConstraintComponent")
        for cordra in ("hdl:1765/abcdefabcdefabcdefabcdefabcdefab", "hdl:100.102/abcdefabcdefabcdefabcdefabcdefab")
    ),
    ("info:fedora/demo:1", "SameAsLink", "SPARQLConstraintComponent"),
}


def _short(iri: str) -> str:
    return iri.strip("<>").rsplit("#", 1)[-1]


def test_pyshacl_reads_the_shapes() -> None:
    data = Graph().parse(data=DATA, format="turtle")
    conforms, report, _ = pyshacl_validate(data, shacl_graph=shapes_graph(), advanced=True)
    found = {
        (
            str(report.value(r, SH.focusNode)),
            _short(str(report.value(r, SH.sourceShape))),
            _short(str(report.value(r, SH.sourceConstraintComponent))),
        )
        for r in report.subjects(SH.focusNode, None)
    }
    assert not conforms
    assert found == EXPECTED


def test_the_compiled_engine_reads_the_shapes() -> None:
    shapes = shacl.Shapes.from_turtle(shapes_file().read_text())
    report = shapes.validate_turtle(DATA)
    found = {
        (r.focus_node.strip("<>").removeprefix('"').removesuffix('"'), _short(r.source_shape or ""), r.component)
        for r in report.results
    }
    assert not report.conforms
    assert found == EXPECTED


def test_the_compiled_engine_refuses_what_python_alone_reads() -> None:
    # Why the dialect matters: the look-ahead the canonical pattern used to have.
    with pytest.raises(ValueError, match="look-around"):
        shacl.Shapes.from_turtle(
            '<urn:x:s> a <http://www.w3.org/ns/shacl#NodeShape> ; <http://www.w3.org/ns/shacl#pattern> "^(?!a)" .'
        )
