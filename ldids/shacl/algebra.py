"""The algebra of the shapes' SPARQL queries as plain data, for :mod:`ldids.shacl.branch` and
:mod:`ldids.shacl.expression` to compile.

A query is read by rdflib's parser (``prepareQuery``: the parser pyshacl reads it with), and
its algebra copied into :class:`Op` trees of rdflib terms, lists and strings. The copy can be
written as JSON and read back (:func:`to_plain`, :func:`from_plain`), which is what the cache
of derived plans keeps (:mod:`ldids.shacl.plan_cache`): a run whose queries are in the cache
imports neither rdflib's SPARQL parser nor pyparsing, and parses nothing.
"""

from __future__ import annotations

from typing import Any

from rdflib.term import BNode, Literal, URIRef, Variable

from ldids.ntriples import exact_literal

__all__ = ["Op", "PlainError", "from_plain", "parse_query", "to_plain"]


class PlainError(ValueError):
    """A value that has no plain form here, or a plain form that is none of :func:`to_plain`'s."""


class Op(dict[str, Any]):
    """An operator of rdflib's SPARQL algebra (``Filter``, ``Builtin_REGEX``,
    ``RelationalExpression``...): its name and its operands by name.

    rdflib's ``CompValue`` gives the name itself for an operand it does not have, and the
    compiled checks read a missing operand as it does (a constant they do not compile), so an
    :class:`Op` does too. Two are equal when their names and operands are (``CompValue`` left
    the name out, so ``isIRI(?v)`` was equal to ``isBLANK(?v)``)."""

    __slots__ = ("name",)

    def __init__(self, name: str, operands: dict[str, Any] | None = None) -> None:
        super().__init__(operands or {})
        self.name = name

    def __missing__(self, key: str) -> str:
        return key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Op) and self.name == other.name and dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {dict.__repr__(self)})"


def parse_query(text: str) -> Op:
    """The algebra of a SPARQL query, as rdflib's parser reads it (its syntax errors raised)."""
    from rdflib.plugins.sparql import prepareQuery

    found = _copied(prepareQuery(text).algebra)
    assert isinstance(found, Op)
    return found


def _copied(value: object) -> object:
    """rdflib's algebra as :class:`Op` trees. The sets of variables rdflib notes under keys
    that start with ``_`` are left out: no operand, and nothing here reads them."""
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(value, CompValue):
        return Op(value.name, {key: _copied(item) for key, item in value.items() if not key.startswith("_")})
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copied(item) for item in value)
    if type(value).__name__ == "ParseResults":
        return [_copied(item) for item in value]  # type: ignore[attr-defined]
    return value


def to_plain(value: object) -> Any:
    """An algebra as JSON's values: each term, operator, list and tuple a list that starts
    with what it is. Raises :class:`PlainError` for a value of another type."""
    if value is None or type(value) is str:
        return value
    if isinstance(value, Op):
        return ["op", value.name, {key: to_plain(item) for key, item in value.items()}]
    if isinstance(value, Variable):
        return ["var", str(value)]
    if isinstance(value, URIRef):
        return ["iri", str(value)]
    if isinstance(value, BNode):
        return ["bnode", str(value)]
    if isinstance(value, Literal):
        return ["lit", str(value), value.language, None if value.datatype is None else str(value.datatype)]
    if isinstance(value, list):
        return ["list", [to_plain(item) for item in value]]
    if isinstance(value, tuple):
        return ["tuple", [to_plain(item) for item in value]]
    raise PlainError(f"no plain form for {type(value).__name__}")


def from_plain(plain: Any) -> Any:
    """What :func:`to_plain` made; raises :class:`PlainError` on anything else."""
    if plain is None or type(plain) is str:
        return plain
    if not isinstance(plain, list) or not plain or not isinstance(plain[0], str):
        raise PlainError("not an algebra")
    tag, rest = plain[0], plain[1:]
    try:
        if tag == "op":
            name, operands = rest
            if not isinstance(name, str) or not isinstance(operands, dict):
                raise PlainError("not an operator")
            return Op(name, {str(key): from_plain(item) for key, item in operands.items()})
        if tag in ("list", "tuple"):
            (items,) = rest
            if not isinstance(items, list):
                raise PlainError("not a list")
            copied = [from_plain(item) for item in items]
            return copied if tag == "list" else tuple(copied)
        if tag == "lit":
            lexical, language, datatype = rest
            if not all(part is None or isinstance(part, str) for part in (language, datatype)):
                raise PlainError("not a literal")
            return exact_literal(_text(lexical), language=language, datatype=datatype)
        (text,) = rest
        term = {"var": Variable, "iri": URIRef, "bnode": BNode}.get(tag)
    except (TypeError, ValueError) as error:  # a list of the wrong length
        raise PlainError(f"not an algebra: {error}") from error
    if term is None:
        raise PlainError(f"no such kind of value: {tag!r}")
    return term(_text(text))


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise PlainError("not a string")
    return value
