"""SPARQL expressions compiled once into Python functions over pyoxigraph terms.

A streamed check evaluates the FILTER and BIND expressions of the shapes' SPARQL targets on
every statement that may give a focus node: too often for rdflib's evaluator, which walks
the parsed expression at every call. :func:`compile_expression` turns rdflib's parsed form
(its algebra, so the query is read by the same parser pyshacl reads it with; as
:mod:`ldids.shacl.algebra` copies it) into a tree of closures, once. The functions compiled
are those of SPARQL 1.1 §17.4 that act on one solution's terms; anything else raises
:class:`UncompilableError` and the shape is checked by a whole-graph engine instead.

Values are pyoxigraph terms, with the literals expressions make kept as Python values:
``str`` a simple literal, ``int`` an ``xsd:integer``, ``bool`` an ``xsd:boolean``. An error
(SPARQL 1.1 §17.3: an unbound variable, a type error) raises :class:`EvaluationError`: a
FILTER then fails, a BIND leaves its variable unbound (§18.5).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import pyoxigraph as ox
from rdflib.term import Literal, URIRef, Variable

from ldids.shacl.algebra import Op
from ldids.shacl.pyregex import UntranslatableError, replacer, to_python

__all__ = [
    "EvaluationError",
    "Expression",
    "UncompilableError",
    "Value",
    "compile_conjunction",
    "compile_expression",
    "effective_boolean",
    "kind",
    "kind_variable",
    "others",
]

Value = ox.NamedNode | ox.BlankNode | ox.Literal | str | int | bool
Solution = dict[str, Value]
Expression = Callable[[Solution], Value]

_XSD = "http://www.w3.org/2001/XMLSchema#"
_STRING = ox.NamedNode(_XSD + "string")
_INTEGER = ox.NamedNode(_XSD + "integer")
_BOOLEAN = ox.NamedNode(_XSD + "boolean")
_LANG_STRING = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString")
_NUMERIC = {_XSD + name for name in ("integer", "int", "long", "short", "byte", "decimal", "nonNegativeInteger")}


class EvaluationError(Exception):
    """A SPARQL expression error (SPARQL 1.1 §17.3)."""


class UncompilableError(Exception):
    """A part of an expression that has no compiled form here."""


def others(expr: Op) -> list[object]:
    """The operands after the first of rdflib's && and || (none if it has one)."""
    return list(expr.get("other") or [])


def _fail(why: str) -> EvaluationError:
    return EvaluationError(why)


def constant(term: object) -> Value:
    """An rdflib term written in a query, as a value."""
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, Literal):
        datatype = str(term.datatype) if term.datatype else None
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if datatype in (None, _XSD + "string"):
            return str(term)
        if datatype == _XSD + "integer":
            return int(str(term))
        if datatype == _XSD + "boolean":
            return str(term) in ("true", "1")
        return ox.Literal(str(term), datatype=ox.NamedNode(str(datatype)))
    raise UncompilableError(f"the constant {term!r}")


def _string(value: Value) -> str:
    """The lexical form of a string literal (simple, xsd:string or language-tagged)."""
    if isinstance(value, str):
        return value
    if isinstance(value, ox.Literal) and value.datatype in (_STRING, _LANG_STRING):
        return value.value
    raise _fail("not a string literal")


def _number(value: Value) -> int | float:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, ox.Literal) and value.datatype.value in _NUMERIC:
        try:
            return int(value.value)
        except ValueError:
            return float(value.value)
    raise _fail("not a number")


def effective_boolean(value: Value) -> bool:
    """SPARQL 1.1 §17.2.2."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value != ""
    if isinstance(value, int):
        return value != 0
    if isinstance(value, ox.Literal):
        if value.datatype == _BOOLEAN:
            return value.value in ("true", "1")
        if value.datatype == _STRING:
            return value.value != ""
        if value.datatype.value in _NUMERIC:
            return _number(value) != 0
    raise _fail("no effective boolean value")


def _is_literal(value: Value) -> bool:
    return isinstance(value, ox.Literal | str | int)  # bool is an int


def _equal(left: Value, right: Value) -> bool:
    """RDFterm-equal, and the value comparisons of §17.3.1 for numbers and strings."""
    if _is_literal(left) and _is_literal(right):
        try:
            return _number(left) == _number(right)
        except EvaluationError:
            pass
        if isinstance(left, bool) or isinstance(right, bool):
            return left is right if isinstance(left, bool) and isinstance(right, bool) else False
        left_text = _plain(left)
        right_text = _plain(right)
        if left_text is not None and right_text is not None:
            return left_text == right_text
        if left == right:
            return True
        raise _fail("literals of unknown datatypes compared")
    return left == right


def _plain(value: Value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, ox.Literal) and value.datatype == _STRING:
        return value.value
    return None


_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _compare(op: str, left: Value, right: Value) -> bool:
    if op == "=":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    try:
        return bool(_ORDER[op](_number(left), _number(right)))
    except EvaluationError:
        left_text, right_text = _plain(left), _plain(right)
        if left_text is None or right_text is None:
            raise
        return bool(_ORDER[op](left_text, right_text))


def _datatype(value: Value) -> ox.NamedNode:
    if isinstance(value, bool):
        return _BOOLEAN
    if isinstance(value, str):
        return _STRING
    if isinstance(value, int):
        return _INTEGER
    if isinstance(value, ox.Literal):
        return value.datatype
    raise _fail("DATATYPE of a non-literal")


def _str(value: Value) -> str:
    if isinstance(value, ox.NamedNode | ox.Literal):
        return value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int):
        return str(value)
    raise _fail("STR of a blank node")


def _lang(value: Value) -> str:
    if isinstance(value, ox.Literal):
        return value.language or ""
    if _is_literal(value):
        return ""
    raise _fail("LANG of a non-literal")


def _regex(pattern: Value, flags: Value) -> Callable[[str], bool]:
    try:
        search = to_python(_string(pattern), _string(flags)).search
    except UntranslatableError as why:
        raise _fail(str(why)) from why
    return lambda text: search(text) is not None


def _replace(text: Value, pattern: Value, replacement: Value, flags: Value) -> str:
    try:
        compiled = to_python(_string(pattern), _string(flags))
        return compiled.sub(replacer(_string(replacement)), _string(text))
    except UntranslatableError as why:
        raise _fail(str(why)) from why


#: Functions of one solution's values (SPARQL 1.1 §17.4), by rdflib's name of each.
_FUNCTIONS: dict[str, tuple[tuple[str, ...], Callable[..., Value]]] = {
    "Builtin_isIRI": (("arg",), lambda v: isinstance(v, ox.NamedNode)),
    "Builtin_isBLANK": (("arg",), lambda v: isinstance(v, ox.BlankNode)),
    "Builtin_isLITERAL": (("arg",), _is_literal),
    "Builtin_STR": (("arg",), _str),
    "Builtin_LANG": (("arg",), _lang),
    "Builtin_DATATYPE": (("arg",), _datatype),
    "Builtin_STRLEN": (("arg",), lambda v: len(_string(v))),
    "Builtin_UCASE": (("arg",), lambda v: _string(v).upper()),
    "Builtin_LCASE": (("arg",), lambda v: _string(v).lower()),
    "Builtin_STRSTARTS": (("arg1", "arg2"), lambda a, b: _string(a).startswith(_string(b))),
    "Builtin_STRENDS": (("arg1", "arg2"), lambda a, b: _string(a).endswith(_string(b))),
    "Builtin_CONTAINS": (("arg1", "arg2"), lambda a, b: _string(b) in _string(a)),
    "Builtin_REGEX": (("text", "pattern", "flags"), lambda t, p, f: _regex(p, f)(_string(t))),
    "Builtin_REPLACE": (("arg", "pattern", "replacement", "flags"), _replace),
    "Builtin_sameTerm": (("arg1", "arg2"), lambda a, b: type(a) is type(b) and a == b),
}


def compile_expression(expr: object) -> Expression:
    """An expression of rdflib's SPARQL algebra as a function of a solution (variable name
    to value). Raises :class:`UncompilableError` for what it does not know."""
    if isinstance(expr, Variable):
        name = str(expr)

        def variable(solution: Solution) -> Value:
            try:
                return solution[name]
            except KeyError:
                raise _fail(f"?{name} is unbound") from None

        return variable
    if not isinstance(expr, Op):
        value = constant(expr)
        return lambda solution: value
    name = expr.name
    if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
        return _logical(name == "ConditionalAndExpression", [expr["expr"], *(others(expr))])
    if name == "UnaryNot":
        inner = compile_expression(expr["expr"])
        return lambda solution: not effective_boolean(inner(solution))
    if name == "RelationalExpression":
        return _relational(expr)
    if name == "Builtin_IF":
        test, then, otherwise = (compile_expression(expr[key]) for key in ("arg1", "arg2", "arg3"))
        return lambda s: then(s) if effective_boolean(test(s)) else otherwise(s)
    if name == "Builtin_CONCAT":
        parts = [compile_expression(arg) for arg in expr["arg"]]
        return lambda s: "".join(_string(part(s)) for part in parts)
    if name in ("Builtin_BOUND",):
        variable_name = str(expr["arg"])
        return lambda s: variable_name in s
    if name not in _FUNCTIONS:
        raise UncompilableError(f"the SPARQL function {name.removeprefix('Builtin_')}")
    keys, function = _FUNCTIONS[name]
    args = [compile_expression(expr[key]) if key in expr else _no_flags for key in keys]
    if len(args) == 1:
        (only,) = args
        return lambda s: function(only(s))
    return lambda s: function(*(arg(s) for arg in args))


def compile_conjunction(operands: list[object]) -> Expression:
    """``operands`` joined with && (true if there are none)."""
    return _logical(True, operands) if operands else (lambda solution: True)


def _no_flags(solution: Solution) -> Value:
    return ""


def _logical(conjunction: bool, operands: list[object]) -> Expression:
    """&& and || with SPARQL's errors (§17.2): an error is overruled by a false (&&) or a
    true (||) operand, else it is the result."""
    parts = [compile_expression(operand) for operand in operands]

    def evaluate(solution: Solution) -> Value:
        error: EvaluationError | None = None
        for part in parts:
            try:
                if effective_boolean(part(solution)) is not conjunction:
                    return not conjunction
            except EvaluationError as why:
                error = why
        if error is not None:
            raise error
        return conjunction

    return evaluate


def _relational(expr: Op) -> Expression:
    left = compile_expression(expr["expr"])
    op = expr["op"]
    if op in ("IN", "NOT IN"):
        members = [compile_expression(member) for member in expr["other"]]
        negated: bool = op == "NOT IN"

        def within(solution: Solution) -> Value:
            # SPARQL 1.1 §17.4.1.9: true on an equal member, an error if none is and one erred.
            value = left(solution)
            error: EvaluationError | None = None
            for member in members:
                try:
                    if _equal(value, member(solution)):
                        return not negated
                except EvaluationError as why:
                    error = why
            if error is not None:
                raise error
            return negated

        return within
    right = compile_expression(expr["other"])
    return lambda s: _compare(op, left(s), right(s))


# -- Tests of a term's kind ----------------------------------------------------------------

#: The functions whose value depends on a term's kind only: IRI, blank node, or a literal's
#: datatype and language tag (SPARQL 1.1 §17.4.2), never on its text.
_OF_KIND = {"Builtin_isIRI", "Builtin_isBLANK", "Builtin_isLITERAL", "Builtin_LANG", "Builtin_DATATYPE"}
#: What combines values without looking at a term (§17.4.1, §17.3).
_COMBINING = {"ConditionalAndExpression", "ConditionalOrExpression", "UnaryNot", "RelationalExpression"}


def kind_variable(expr: object) -> str | None:
    """The one variable ``expr`` depends on, if it looks only at that variable's kind
    (``isIRI(?v) || LANG(?v) = ""``, ``DATATYPE(?v) IN (...)``), so that its value is the same
    for every term of a kind (:func:`kind`); else None."""
    names: set[str] = set()

    def walk(node: object) -> bool:
        if isinstance(node, Variable):
            return False  # a variable's own value: its text counts
        if isinstance(node, list | tuple):
            return all(walk(item) for item in node)
        if not isinstance(node, Op):
            return True  # a constant
        if node.name in _OF_KIND:
            if not isinstance(node["arg"], Variable):
                return False
            names.add(str(node["arg"]))
            return True
        if node.name not in _COMBINING:
            return False
        # rdflib keeps the variables it saw under "_vars": not an operand.
        return all(walk(value) for key, value in node.items() if not key.startswith("_") and key != "op")

    return names.pop() if walk(expr) and len(names) == 1 else None


def kind(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> object:
    """What the functions of a term's kind see of it: its type, and a literal's datatype and
    language tag."""
    if isinstance(term, ox.Literal):
        return (term.datatype.value, term.language)
    return type(term)
