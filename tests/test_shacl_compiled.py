"""The compiled forms of XPath regular expressions and SPARQL expressions mean what the
specs say (XSD 1.0 Part 2 Appendix F, F&O 3.1 §5.6, SPARQL 1.1 §17)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from rdflib.plugins.sparql import prepareQuery

from ldids.shacl.expression import EvaluationError, UncompilableError, compile_expression, effective_boolean
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
    algebra = prepareQuery(f"SELECT * WHERE {{ ?s ?p ?o FILTER ({text}) }}").algebra
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
