"""Terms and value-local constraints (SHACL §4) as plain Python over pyoxigraph's terms.

The constraints of a shape that look at one value node at a time, compiled from the shapes
graph into functions of a term: ``sh:pattern`` as a Python regular expression
(:mod:`ldids.shacl.pyregex`), the others as direct tests. Used by :mod:`ldids.shacl.streamed`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import pyoxigraph as ox
from rdflib import Graph
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.rdf.oxigraph import rdflib_term
from ldids.shacl.expression import Value
from ldids.shacl.pyregex import UntranslatableError, to_python

__all__ = [
    "NotStreamableError",
    "Term",
    "Triple",
    "ValueCheck",
    "as_term",
    "from_rdflib",
    "holding",
    "kinds_of",
    "pattern_of",
    "to_rdflib",
    "value_checks",
]

Term = ox.NamedNode | ox.BlankNode | ox.Literal
Triple = tuple[Term, Term, Term]

_VALUE_LOCAL = {
    SH.pattern: "PatternConstraintComponent",
    SH.minLength: "MinLengthConstraintComponent",
    SH.maxLength: "MaxLengthConstraintComponent",
    SH.nodeKind: "NodeKindConstraintComponent",
    SH.datatype: "DatatypeConstraintComponent",
    SH["in"]: "InConstraintComponent",
    SH["or"]: "OrConstraintComponent",
    SH["and"]: "AndConstraintComponent",
    SH["not"]: "NotConstraintComponent",
    SH.xone: "XoneConstraintComponent",
}
#: What a shape may hold besides its constraints: description, targets, and parameters of a
#: constraint given with another one (SHACL §2.1, §3.6.2, §4.7.1).
_NO_CONSTRAINT = {
    RDF.type,
    SH.message,
    SH.severity,
    SH.name,
    SH.description,
    SH.order,
    SH.group,
    SH.deactivated,
    SH.flags,
    SH.targetSubjectsOf,
    SH.targetObjectsOf,
    SH.target,
    SH.property,
    SH.sparql,
    SH.path,
    SH.prefixes,
    SH.declare,
}
_NODE_KINDS: dict[Node, tuple[type, ...]] = {
    SH.IRI: (ox.NamedNode,),
    SH.BlankNode: (ox.BlankNode,),
    SH.Literal: (ox.Literal,),
    SH.BlankNodeOrIRI: (ox.BlankNode, ox.NamedNode),
    SH.BlankNodeOrLiteral: (ox.BlankNode, ox.Literal),
    SH.IRIOrLiteral: (ox.NamedNode, ox.Literal),
}
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


class NotStreamableError(Exception):
    """A shape, or a part of one, that cannot be checked one statement at a time."""


def to_rdflib(term: Term) -> Node:
    """A pyoxigraph term as rdflib reads it from N-Triples (what pyshacl is given), by the
    readers' own conversion (ldids.rdf.oxigraph)."""
    try:
        return rdflib_term(term)
    except ValueError as error:
        raise NotStreamableError(f"RDF 1.2 is not validated: {error}") from None


def from_rdflib(node: Node) -> Term:
    if isinstance(node, URIRef):
        return ox.NamedNode(str(node))
    if isinstance(node, BNode):
        return ox.BlankNode(str(node))
    if isinstance(node, Literal):
        if node.language:
            return ox.Literal(str(node), language=node.language)
        return ox.Literal(str(node), datatype=ox.NamedNode(str(node.datatype or _XSD_STRING)))
    raise NotStreamableError(f"{node!r} is no RDF term")


def as_term(value: Value) -> Term:
    if isinstance(value, ox.NamedNode | ox.BlankNode | ox.Literal):
        return value
    if isinstance(value, bool):
        return ox.Literal(
            "true" if value else "false", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#boolean")
        )
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
    return ox.Literal(value)


# -- Value-local constraints ---------------------------------------------------------------

ValueCheck = Callable[[Term], bool]  # True: the value node conforms


def value_checks(shapes: Graph, shape: Node) -> list[tuple[URIRef, ValueCheck]]:
    """The value-local constraints of ``shape``, each with its component (SHACL §4)."""
    checks: list[tuple[URIRef, ValueCheck]] = []
    custom = {path for parameter in shapes.objects(None, SH.parameter) for path in shapes.objects(parameter, SH.path)}
    for prop in set(shapes.predicates(shape, None)):
        # Only SHACL's own parameters, and those of components the shapes graph declares, are
        # constraints (SHACL §2.1, §6); rdfs:comment and the like are not.
        if prop in _NO_CONSTRAINT or (not str(prop).startswith(str(SH)) and prop not in custom):
            continue
        if not isinstance(prop, URIRef) or prop not in _VALUE_LOCAL:
            raise NotStreamableError(f"{shapes.namespace_manager.normalizeUri(str(prop))} is not local to one value")
        component = URIRef(str(SH) + _VALUE_LOCAL[prop])
        for parameter in shapes.objects(shape, prop):
            checks.append((component, _value_check(shapes, shape, prop, parameter)))
    return checks


def pattern_of(check: ValueCheck) -> re.Pattern[str] | None:
    """The regular expression a check of ``sh:pattern`` searches a node's text with; None for
    any other check."""
    return getattr(check, "regex", None)


def kinds_of(check: ValueCheck) -> tuple[type, ...] | None:
    """The kinds of term a check of ``sh:nodeKind`` takes; None for any other check."""
    return getattr(check, "kinds", None)


#: One way for checks to hold on a term: its text's length in code points within (least,
#: greatest), and every one of the regular expressions finding a match in it.
Holding = tuple[int, int, tuple[re.Pattern[str], ...]]
#: Past this many ways, :func:`holding` gives up (an sh:or of sh:ors multiplies them).
_HOLDING_LIMIT = 16


def holding(checks: list[ValueCheck]) -> list[Holding] | None:
    """The ways for all ``checks`` to hold on a term that is no blank node, one of which holds
    when they do and none when they do not, by its text alone, when they are made of
    ``sh:pattern``, ``sh:minLength``, ``sh:maxLength`` and ``sh:or`` of shapes made of
    those (SHACL §4.4.1, §4.4.2, §4.4.3, §4.6.2); None for any other check.

    >>> check = _value_check(Graph(), BNode(), SH.maxLength, Literal(3))
    >>> holding([check])
    [(0, 3, ())]
    """
    ways: list[Holding] = [(0, sys.maxsize, ())]
    for check in checks:
        regex, bounds = pattern_of(check), getattr(check, "bounds", None)
        members: list[list[ValueCheck]] | None = getattr(check, "members", None)
        if regex is not None:
            options: list[Holding] = [(0, sys.maxsize, (regex,))]
        elif bounds is not None:
            options = [(*bounds, ())]
        elif members is not None:
            options = []
            for member in members:
                found = holding(member)
                if found is None:
                    return None
                options += found
        else:
            return None
        ways = [
            (max(least, other_least), min(most, other_most), (*regexes, *other))
            for least, most, regexes in ways
            for other_least, other_most, other in options
            if max(least, other_least) <= min(most, other_most)
        ]
        if len(ways) > _HOLDING_LIMIT:
            return None
    return ways


def _conforms(shapes: Graph, shape: Node) -> ValueCheck:
    if any(True for _ in shapes.objects(shape, SH.property)) or any(True for _ in shapes.objects(shape, SH.sparql)):
        raise NotStreamableError("a shape in a logical constraint has property shapes or SPARQL")
    checks = [check for _, check in value_checks(shapes, shape)]
    conforms = lambda node: all(check(node) for check in checks)  # noqa: E731
    conforms.checks = checks  # type: ignore[attr-defined]  # what holding reads
    return conforms


def _value_check(shapes: Graph, shape: Node, prop: Node, parameter: Node) -> ValueCheck:
    # Each as SHACL §4 defines it; a blank node has no string, so fails the string-based ones.
    if prop == SH.pattern:
        flags = "".join(str(letters) for letters in shapes.objects(shape, SH.flags))
        try:
            search = to_python(str(parameter), flags).search
        except UntranslatableError as why:
            raise NotStreamableError(f"sh:pattern {str(parameter)!r}: {why} has no Python form") from why
        pattern = lambda node: not isinstance(node, ox.BlankNode) and search(node.value) is not None  # noqa: E731
        pattern.regex = search.__self__  # type: ignore[attr-defined]  # what pattern_of gives
        return pattern
    if prop in (SH.minLength, SH.maxLength):
        bound = int(parameter)  # type: ignore[call-overload]
        if prop == SH.minLength:
            length = lambda node: not isinstance(node, ox.BlankNode) and len(node.value) >= bound  # noqa: E731
            length.bounds = (bound, sys.maxsize)  # type: ignore[attr-defined]  # what holding reads
        else:
            length = lambda node: not isinstance(node, ox.BlankNode) and len(node.value) <= bound  # noqa: E731
            length.bounds = (0, bound)  # type: ignore[attr-defined]
        return length
    if prop == SH.nodeKind:
        kinds = _NODE_KINDS[parameter]
        node_kind = lambda node: isinstance(node, kinds)  # noqa: E731
        node_kind.kinds = kinds  # type: ignore[attr-defined]  # what kinds_of gives
        return node_kind
    if prop == SH.datatype:
        datatype = from_rdflib(parameter)
        return lambda node: isinstance(node, ox.Literal) and node.datatype == datatype
    if prop == SH["in"]:
        members = {from_rdflib(member) for member in Collection(shapes, parameter)}
        return lambda node: node in members
    members_checks = [_conforms(shapes, member) for member in Collection(shapes, parameter)]
    if prop == SH["or"]:
        any_of = lambda node: any(check(node) for check in members_checks)  # noqa: E731
        any_of.members = [member.checks for member in members_checks]  # type: ignore[attr-defined]
        return any_of
    if prop == SH["and"]:
        return lambda node: all(check(node) for check in members_checks)
    if prop == SH.xone:
        return lambda node: sum(check(node) for check in members_checks) == 1
    single = _conforms(shapes, parameter)  # sh:not
    return lambda node: not single(node)
