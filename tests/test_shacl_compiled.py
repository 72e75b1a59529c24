"""The compiled forms of XPath regular expressions and SPARQL expressions mean what the
specs say (XSD 1.0 Part 2 Appendix F, F&O 3.1 §5.6, SPARQL 1.1 §17)."""

from __future__ import annotations

import re
import sys

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldids.shacl import pyregex
from ldids.shacl.algebra import parse_query
from ldids.shacl.branch import query_branches
from ldids.shacl.expression import (
    EvaluationError,
    UncompilableError,
    compile_expression,
    effective_boolean,
    kind,
    kind_variable,
)
from ldids.shacl.pyregex import UntranslatableError, replacer, to_python


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        # XPath's $ is the end of the string, not before a final line break.
        ("^a$", "a", True),
        ("^a$", "a\n", False),
        # XSD's . is neither LF nor CR.
        ("^a.b$", "a\rb", False),
        ("^a.b$", "a b", True),
        # XSD's \s is space, tab, LF and CR only: no-break space is \S.
        ("^\\s$", "\u00a0", False),
        ("^\\S$", "\u00a0", True),
        ("^[^/\\s]+$", "a\u2003b", True),
        ("^[\\s\\S]*$", "any\u00a0thing\n", True),
        # '&' and '|' in a class are characters.
        ("^[a&|]+$", "&|a", True),
    ],
)
def test_xpath_regex_in_python(pattern: str, text: str, matches: bool) -> None:
    assert (to_python(pattern).search(text) is not None) is matches


@pytest.mark.parametrize("pattern", ["\\p{L}", "\\i\\c*", "[a-z-[aeiou]]", "\\w"])
def test_what_is_not_translated_says_so(pattern: str) -> None:
    with pytest.raises(UntranslatableError):
        to_python(pattern)


def test_replacement_strings() -> None:
    assert to_python("^(a)(b)?c").sub(replacer("[$2$1\\$]"), "ac") == "[a$]"
    with pytest.raises(UntranslatableError):
        replacer("a$")


def _filter(text: str) -> object:
    algebra = parse_query(f"SELECT * WHERE {{ ?s ?p ?o FILTER ({text}) }}")
    return algebra["p"]["p"]["expr"]


@pytest.mark.parametrize(
    ("expression", "solution", "expected"),
    [
        # An error is overruled by true in ||, by false in && (SPARQL 1.1 §17.2).
        ("STR(?o) = 'x' || isIRI(?s)", {"s": ox.NamedNode("urn:s"), "o": ox.BlankNode("b")}, True),
        ("STR(?o) = 'x' && isLiteral(?s)", {"s": ox.NamedNode("urn:s"), "o": ox.BlankNode("b")}, False),
        ("LANG(?o) = '' && DATATYPE(?o) IN (<http://www.w3.org/2001/XMLSchema#string>)", {"o": ox.Literal("x")}, True),
        ("LANG(?o) = ''", {"o": ox.Literal("x", language="en")}, False),
        ("STRLEN(REPLACE(?o, '^([a-z]+)%3[aA]', '$1:')) <= 6", {"o": ox.Literal("demo%3A1")}, True),
        ("STRSTARTS(STR(?o), CONCAT('de', 'mo'))", {"o": ox.NamedNode("demo:1")}, True),
        ("IF(REGEX(?o, '^x'), 'y', '') != ''", {"o": ox.Literal("x1")}, True),
        ("!REGEX(?o, '^a$')", {"o": ox.Literal("a\n")}, True),
    ],
)
def test_compiled_expressions(expression: str, solution: dict[str, object], expected: bool) -> None:
    assert effective_boolean(compile_expression(_filter(expression))(solution)) is expected  # type: ignore[arg-type]


def test_errors_and_what_is_not_compiled() -> None:
    with pytest.raises(EvaluationError):
        compile_expression(_filter("STR(?o) = 'x'"))({"o": ox.BlankNode("b")})
    with pytest.raises(EvaluationError):  # unbound
        compile_expression(_filter("isIRI(?nothing)"))({})
    with pytest.raises(UncompilableError):
        compile_expression(_filter("?o + 1 = 2"))


_XSD = "http://www.w3.org/2001/XMLSchema#"
#: Terms of every kind, two of each kind with different texts.
_TERMS: list[ox.NamedNode | ox.BlankNode | ox.Literal] = [
    ox.NamedNode("urn:a"),
    ox.NamedNode("info:fedora/demo:1"),
    ox.BlankNode("b1"),
    ox.BlankNode("b2"),
    ox.Literal("x"),
    ox.Literal(""),
    ox.Literal("x", language="en"),
    ox.Literal("y", language="en"),
    ox.Literal("x", language="de"),
    ox.Literal("1", datatype=ox.NamedNode(_XSD + "integer")),
    ox.Literal("0", datatype=ox.NamedNode(_XSD + "integer")),
    ox.Literal("oai:a", datatype=ox.NamedNode(_XSD + "anyURI")),
    ox.Literal("true", datatype=ox.NamedNode(_XSD + "boolean")),
    ox.Literal("false", datatype=ox.NamedNode(_XSD + "boolean")),
]


@pytest.mark.parametrize(
    ("expression", "variable"),
    [
        # The shipped shapes' test of what may hold an identifier.
        (
            f"isIRI(?o) || (isLiteral(?o) && LANG(?o) = '' && DATATYPE(?o) IN (<{_XSD}string>, <{_XSD}anyURI>))",
            "o",
        ),
        ("!isBlank(?s)", "s"),
        ("LANG(?o) != 'en' || DATATYPE(?o) = <urn:t>", "o"),
        # The text of a term, or two variables, or a variable's value itself: not its kind.
        ("isIRI(?o) && STRLEN(STR(?o)) > 1", None),
        ("REGEX(STR(?o), '^a')", None),
        ("isIRI(?s) && isIRI(?o)", None),
        ("?o", None),
        ("?p != <urn:p>", None),
        ("DATATYPE(?o) IN (DATATYPE(?s))", None),
        ("DATATYPE(?o) = ?t", None),
        ("'a' = 'a'", None),
    ],
)
def test_kind_variable(expression: str, variable: str | None) -> None:
    parsed = _filter(expression)
    assert kind_variable(parsed) == variable
    if variable is None:
        return
    compiled = compile_expression(parsed)

    def value(term: object) -> bool | None:
        try:
            return effective_boolean(compiled({variable: term}))  # type: ignore[dict-item]
        except EvaluationError:
            return None

    # Terms of the same kind give the same value (or the same error): it may be remembered by kind.
    by_kind: dict[object, bool | None] = {}
    for term in _TERMS:
        assert by_kind.setdefault(kind(term), value(term)) == value(term), term
    assert len(set(by_kind.values())) > 1  # the table tells kinds apart


def test_white_space_beyond_xsd_is_all_looked_for() -> None:
    # pyregex looks for Python's white space below _SPACE_RANGE only, to start quicker.
    assert pyregex._more_space(sys.maxunicode + 1) == pyregex._MORE_SPACE
    assert "\u3000" in pyregex._MORE_SPACE  # IDEOGRAPHIC SPACE, the last of the BMP's


# -- A gate implied by a FILTER through its BINDs (ldids.shacl.branch._implied) ----------------

_IF_ONE = 'BIND (STR(?s) AS ?i) BIND (IF(REGEX(?i, "^a"), "x", "") AS ?v) FILTER (?v != "")'
_IF_TWO = 'BIND (STR(?s) AS ?i) BIND ("^b" AS ?r) BIND (IF(REGEX(?i, "^a"), ?i, IF(REGEX(?i, ?r), "y", "")) AS ?v)'


@pytest.mark.parametrize(
    ("where", "gate"),
    [
        (_IF_ONE, (0, "(^a)")),
        (_IF_TWO + ' FILTER (?v != "")', (0, "(^a)|(^b)")),
        # "" in the first branch: only the second test is required
        (
            'BIND (IF(REGEX(STR(?this), "^a"), "", IF(REGEX(STR(?this), "^c"), "z", "")) AS ?v) FILTER (?v != "")',
            (2, "(^c)"),
        ),
        # the else branch may be non-empty without any test: none required
        ('BIND (IF(REGEX(STR(?s), "^a"), "x", "y") AS ?v) FILTER (?v != "")', None),
        # flags, tests of two terms, a comparison other than != "": none derived
        ('BIND (IF(REGEX(STR(?s), "^a", "i"), "x", "") AS ?v) FILTER (?v != "")', None),
        ('BIND (IF(REGEX(STR(?s), "^a"), "x", IF(REGEX(STR(?this), "^b"), "y", "")) AS ?v) FILTER (?v != "")', None),
        ('BIND (IF(REGEX(STR(?s), "^a"), "x", "") AS ?v) FILTER (?v = "x")', None),
        # a REGEX conjunct of the FILTER itself is the gate, taken out of the FILTER
        ('FILTER (REGEX(STR(?this), "^d"))', (2, "^d")),
    ],
)
def test_implied_gates(where: str, gate: tuple[int, str] | None) -> None:
    (branch,) = query_branches(f"SELECT ?this WHERE {{ ?s <urn:p> ?this . {where} }}")
    assert branch.gate == gate


# -- Texts a FILTER excludes (ldids.shacl.branch._excluded) -------------------------------------


@pytest.mark.parametrize(
    ("where", "excluded"),
    [
        ('FILTER (!REGEX(STR(?this), "^a"))', [(2, "^a")]),
        # through BINDs, and of the subject too; each conjunct its own
        (
            'BIND (STR(?this) AS ?v) FILTER (?v != "" && !REGEX(?v, "^a") && !REGEX(STR(?s), "b"))',
            [(2, "^a"), (0, "b")],
        ),
        # the variable itself: REGEX of an IRI is an error, which excludes it too
        ('FILTER (!REGEX(?this, "^a"))', [(2, "^a")]),
        # flags, a pattern that is no constant, a REGEX under || or not negated: none
        ('FILTER (!REGEX(STR(?this), "^a", "i"))', []),
        ("BIND (STR(?s) AS ?r) FILTER (!REGEX(STR(?this), ?r))", []),
        ('FILTER (!REGEX(STR(?this), "^a") || isIRI(?this))', []),
        ('FILTER (isLiteral(?this) && !(!REGEX(STR(?this), "^a")))', []),
    ],
)
def test_excluded_texts(where: str, excluded: list[tuple[int, str]]) -> None:
    (branch,) = query_branches(f"SELECT ?this WHERE {{ ?s <urn:p> ?this . {where} }}")
    assert branch.excluded == excluded


@settings(max_examples=300, deadline=None)
@given(st.text("ab:/.", max_size=6), st.sampled_from(["iri", "string", "lang", "integer"]))
def test_an_excluded_text_selects_nothing(text: str, kind: str) -> None:
    # The shipped dc:identifier target's last conjunct, and its kind: wherever the exclusion
    # matches the focus node's text, the whole FILTER selects nothing.
    where = 'BIND (STR(?this) AS ?v) FILTER (STRLEN(?v) >= 0 && !REGEX(?v, "^(a:|b/)"))'
    (branch,) = query_branches(f"SELECT ?this WHERE {{ ?s <urn:p> ?this . {where} }}")
    ((_, regex),) = branch.excluded
    value: ox.NamedNode | ox.Literal
    if kind == "iri":
        value = ox.NamedNode(f"a:{text.replace(':', '').replace('/', '')}")
    elif kind == "lang":
        value = ox.Literal(text, language="en")
    elif kind == "integer":
        value = ox.Literal(text, datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
    else:
        value = ox.Literal(text)
    selected = branch.select((ox.NamedNode("urn:s"), ox.NamedNode("urn:p"), value))
    assert (selected is None) == (re.search(regex, value.value) is not None)


def test_an_implied_gate_is_necessary_and_the_filter_kept() -> None:
    (branch,) = query_branches(f'SELECT ?this WHERE {{ ?s <urn:p> ?this . {_IF_TWO} FILTER (?v != "") }}')
    assert branch.gate == (0, "(^a)|(^b)")
    value = ox.Literal("v")
    for subject, selected in (("a1", True), ("b1", True), ("c1", False)):
        assert (branch.select((ox.NamedNode(f"{subject}:x"), ox.NamedNode("urn:p"), value)) is not None) == selected
    # Kept: the FILTER says more than the gate (here, nothing more; in the shipped target the
    # namespace of the subject's PID must start the value).
    assert any(is_filter for is_filter, _, _ in branch.steps)
