"""Is a regular expression in the dialect every SHACL engine reads?

``sh:pattern`` and SPARQL ``REGEX``/``REPLACE`` take XPath regular expressions (SHACL §4.7.1,
SPARQL 1.1 §17.4.3.14), which are XML Schema's (XSD 1.0 Part 2, Appendix F) plus the
anchors ``^`` and ``$`` (XPath F&O 3.1 §5.6.1). Python's ``re`` accepts far more (look-around,
lazy quantifiers, back-references, ``(?:`` groups), and a Rust or Java engine refuses a shape
that uses it (DESIGN.md §6b). This is a recognizer of the portable dialect: the XSD grammar
with the two anchors, without XPath 3.1's own additions (reluctant quantifiers,
back-references, non-capturing groups), which XSD-based engines do not have.

>>> check("^[A-Za-z0-9.-]+:([A-Za-z0-9.~_-]|%[0-9A-Fa-f]{2})+$")
>>> check("a*?")
Traceback (most recent call last):
...
ldids.errors.ShapesError: at character 3: a lazy or possessive quantifier is no XSD regex [shapes.regex-dialect]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from rdflib import Graph
from rdflib.namespace import SH
from rdflib.term import URIRef, Variable

from ldids.errors import ShapesError

if TYPE_CHECKING:
    from rdflib.plugins.sparql.parserutils import CompValue

__all__ = ["check", "shape_patterns"]

#: Metacharacters outside a character class (XSD F.1 [10] NormalChar, plus XPath's ^ and $).
_META = set(".\\?*+{}()|[]^$")
#: Characters a single-character escape may name (XSD F [24] SingleCharEsc, plus XPath's \$).
_SINGLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"} | {c: c for c in "\\|.?*+(){}-[]^$"}
#: Multi-character escapes (XSD F [37] MultiCharEsc).
_MULTI_ESCAPES = set("sSiIcCdDwW")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def fail(self, message: str, at: int | None = None) -> ShapesError:
        return ShapesError("shapes.regex-dialect", f"at character {(self.at if at is None else at) + 1}: {message}")

    def peek(self) -> str | None:
        return self.text[self.at] if self.at < len(self.text) else None

    def take(self) -> str:
        char = self.peek()
        if char is None:
            raise self.fail("the expression ends too early")
        self.at += 1
        return char

    # regExp ::= branch ('|' branch)*
    def expression(self) -> None:
        self.branch()
        while self.peek() == "|":
            self.at += 1
            self.branch()

    # branch ::= piece*;  piece ::= atom quantifier?
    def branch(self) -> None:
        while (char := self.peek()) is not None and char not in "|)":
            self.atom()
            self.quantifier()

    def quantifier(self) -> None:
        char = self.peek()
        if char in ("?", "*", "+"):
            self.at += 1
        elif char == "{":
            self.at += 1
            self.quantity()
        else:
            return
        if self.peek() in ("?", "+"):
            raise self.fail("a lazy or possessive quantifier is no XSD regex")
        if self.peek() in ("*", "{"):
            raise self.fail("a quantifier of a quantifier")

    # quantity ::= n | n ',' | n ',' m  (XSD F [6]-[9]), then '}'
    def quantity(self) -> None:
        start = self.at
        low = self.digits()
        if low is None:
            raise self.fail("a quantity starts with a number", start)
        if self.peek() == ",":
            self.at += 1
            high = self.digits()
            if high is not None and high < low:
                raise self.fail(f"{{{low},{high}}}: the maximum is less than the minimum", start)
        if self.take() != "}":
            raise self.fail("a quantity ends with '}'", self.at - 1)

    def digits(self) -> int | None:
        start = self.at
        while (char := self.peek()) is not None and char in "0123456789":
            self.at += 1
        return int(self.text[start : self.at]) if self.at > start else None

    def atom(self) -> None:
        start = self.at
        char = self.take()
        if char == "(":
            if self.peek() == "?":
                raise self.fail("a group starting '(?' (look-around, non-capturing or flags) is no XSD regex", start)
            self.expression()
            if self.peek() != ")":
                raise self.fail("a group is not closed", start)
            self.at += 1
        elif char == "[":
            self.char_class()
        elif char == "\\":
            self.escape(in_class=False)
        elif char in "^$.":
            pass  # anchors (XPath F&O §5.6.1) and the wildcard
        elif char in _META:
            raise self.fail(f"'{char}' must be escaped here", start)

    def escape(self, in_class: bool) -> str | None:
        """An escape after its backslash; the character it names, or None for a class of them."""
        start = self.at - 1
        char = self.take()
        if char in _SINGLE_ESCAPES:
            return _SINGLE_ESCAPES[char]
        if char in _MULTI_ESCAPES:
            return None
        if char in "pP":
            if self.take() != "{":
                raise self.fail("\\p and \\P take a property in braces", start)
            end = self.text.find("}", self.at)
            if end < 0 or not self.text[self.at : end].replace("-", "").isalnum():
                raise self.fail("\\p{...} names a category or an Is-block", start)
            self.at = end + 1
            return None
        if char.isdigit():
            raise self.fail("a back-reference is no XSD regex", start)
        raise self.fail(f"'\\{char}' is no XSD escape" + (" in a class" if in_class else ""), start)

    # charClassExpr ::= '[' charGroup ']';  charGroup ::= ('^')? (charRange | charClassEsc)+ ('-' charClassExpr)?
    def char_class(self) -> None:
        start = self.at - 1
        if self.peek() == "^":
            self.at += 1
        count = 0
        while True:
            char = self.peek()
            if char is None:
                raise self.fail("a character class is not closed", start)
            if char == "]" and count:
                self.at += 1
                return
            if char == "-" and count and self.text[self.at + 1 : self.at + 2] == "[":
                self.at += 2  # subtraction (XSD F [14])
                self.char_class()
                if self.take() != "]":
                    raise self.fail("a subtraction ends its class", self.at - 1)
                return
            self.class_range(count == 0)
            count += 1

    def class_range(self, first: bool) -> None:
        at = self.at
        low = self.class_char()
        if self.peek() == "-" and self.text[self.at + 1 : self.at + 2] not in ("]", "["):
            self.at += 1
            high = self.class_char()
            if low is None or high is None:
                raise self.fail("a range goes from one character to another", at)
            if ord(high) < ord(low):
                raise self.fail(f"the range {low}-{high} is out of order", at)
        elif self.text[at] == "-" and not first and self.peek() != "]":
            raise self.fail("'-' stands for itself only first or last in a class", at)

    def class_char(self) -> str | None:
        char = self.take()
        if char == "\\":
            return self.escape(in_class=True)
        if char == "[":
            raise self.fail("'[' must be escaped in a class", self.at - 1)
        return char


def check(pattern: str) -> None:
    """Raise :class:`ShapesError` (``shapes.regex-dialect``, with the character) unless
    ``pattern`` is an XSD regular expression with XPath's anchors."""
    parser = _Parser(pattern)
    parser.expression()
    if parser.at != len(pattern):
        raise parser.fail("')' closes no group")


def shape_patterns(graph: Graph) -> Iterator[tuple[str, str]]:
    """Every regular expression of a shapes graph, with where it is: the values of
    ``sh:pattern``, and the patterns of ``REGEX`` and ``REPLACE`` in its SPARQL texts, given
    as a string or through a variable ``BIND``-ed to one."""
    from rdflib.plugins.sparql.parser import parseQuery

    from ldids.shacl.safety import sparql_queries

    for holder, pattern in graph.subject_objects(SH.pattern):
        yield f"{holder.n3() if isinstance(holder, URIRef) else 'a blank node'} sh:pattern", str(pattern)
    for holder, prop, text in sparql_queries(graph):
        where = f"{holder.n3() if isinstance(holder, URIRef) else 'a blank node'} {prop.n3()}"
        bound: dict[Variable, str] = {}
        calls: list[CompValue] = []
        _collect(parseQuery(text), bound, calls)
        for call in calls:
            leaf = _leaf(call["pattern"])
            if isinstance(leaf, Variable):
                if leaf not in bound:
                    raise ShapesError("shapes.regex-unknown", f"{where}: the pattern {leaf.n3()} is bound to no string")
                yield f"{where} {call.name}", bound[leaf]
            elif isinstance(leaf, str):
                yield f"{where} {call.name}", leaf


def _leaf(node: object) -> object:
    """What an expression is when it is one term: a string, a variable, or the expression."""
    from rdflib.plugins.sparql.parserutils import CompValue

    while isinstance(node, CompValue):
        if node.name == "literal":
            return str(node["string"])
        if set(node.keys()) != {"expr"}:
            return node
        node = node["expr"]
    return node


def _collect(node: object, bound: dict[Variable, str], calls: list[CompValue]) -> None:
    # Imported here: a streamed run reads no query with this parser (ldids.shacl.plan_cache).
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(node, CompValue):
        if node.name in ("Builtin_REGEX", "Builtin_REPLACE"):
            calls.append(node)
        if node.name == "Bind":
            leaf = _leaf(node["expr"])
            if isinstance(leaf, str):
                bound[node["var"]] = leaf
        for value in node.values():
            _collect(value, bound, calls)
    elif isinstance(node, list | tuple | ParseResults):
        for value in node:
            _collect(value, bound, calls)
