"""The shapes whose targets and constraints are local to one statement, checked statement by
statement as a dump streams by (DESIGN.md §6b).

The checks are derived from the shapes graph when a run starts; no pattern or target is
written here. :func:`plan` reads each node shape and decides whether it is *streamable*:

- its targets select focus nodes from one statement at a time: ``sh:targetSubjectsOf``,
  ``sh:targetObjectsOf``, or a SPARQL-based target (SHACL-AF §5.1) whose query is a union of
  single-triple patterns under FILTER and BIND, which is the union of what it selects from
  each statement alone;
- its constraints look at one value node at a time (:data:`_VALUE_LOCAL`, SHACL §4), with
  ``sh:or``/``sh:and``/``sh:not``/``sh:xone`` over shapes made of such constraints;
- its property shapes and SPARQL constraints (SHACL §5) see only the statement that made the
  focus node: a predicate path equal to a ``sh:targetSubjectsOf`` predicate, a query that is
  one triple pattern with ``$this`` as that predicate's subject.

Any other shape is not streamable and :class:`Plan` says which and why, so a caller reports
it (or runs it whole-graph); none is skipped silently. The FILTER and BIND expressions are
evaluated by rdflib's SPARQL evaluator, the one pyshacl evaluates the same targets with; a
regular expression that a FILTER requires of a variable's text is tried first, in Python, and
the answers are remembered per distinct term, in bounded memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rdflib import Graph
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.evalutils import _ebv, _eval
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import FrozenBindings, QueryContext, SPARQLError
from rdflib.term import BNode, Literal, Node, URIRef, Variable

from ldids.passes.decision import evict_oldest_half

__all__ = ["Finding", "Plan", "plan"]

#: (focus, path, value, shape, component, message, severity) of one result, as a shape says it.
Finding = tuple[Node, "Node | None", Node, Node, URIRef, str, URIRef]
Triple = tuple[Node, Node, Node]

_THIS = Variable("this")
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
_NODE_KINDS = {
    SH.IRI: (URIRef,),
    SH.BlankNode: (BNode,),
    SH.Literal: (Literal,),
    SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal),
    SH.IRIOrLiteral: (URIRef, Literal),
}
_FLAGS = {"i": re.IGNORECASE, "s": re.DOTALL, "m": re.MULTILINE, "x": re.VERBOSE}


class NotStreamableError(Exception):
    """A shape, or a part of one, that cannot be checked one statement at a time."""


# -- Value-local constraints ---------------------------------------------------------------

ValueCheck = Callable[[Node], bool]  # True: the value node conforms


def _value_checks(shapes: Graph, shape: Node) -> list[tuple[URIRef, ValueCheck]]:
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


def _conforms(shapes: Graph, shape: Node) -> ValueCheck:
    if any(True for _ in shapes.objects(shape, SH.property)) or any(True for _ in shapes.objects(shape, SH.sparql)):
        raise NotStreamableError("a shape in a logical constraint has property shapes or SPARQL")
    checks = [check for _, check in _value_checks(shapes, shape)]
    return lambda node: all(check(node) for check in checks)


def _value_check(shapes: Graph, shape: Node, prop: Node, parameter: Node) -> ValueCheck:
    # Each as SHACL §4 defines it; a blank node has no string, so fails the string-based ones.
    if prop == SH.pattern:
        flags = 0
        for letters in shapes.objects(shape, SH.flags):
            for letter in str(letters):
                flags |= _FLAGS.get(letter, 0)
        search = re.compile(str(parameter), flags).search
        return lambda node: not isinstance(node, BNode) and search(str(node)) is not None
    if prop in (SH.minLength, SH.maxLength):
        bound = int(parameter)  # type: ignore[call-overload]
        if prop == SH.minLength:
            return lambda node: not isinstance(node, BNode) and len(str(node)) >= bound
        return lambda node: not isinstance(node, BNode) and len(str(node)) <= bound
    if prop == SH.nodeKind:
        kinds = _NODE_KINDS[parameter]  # type: ignore[index]
        return lambda node: isinstance(node, kinds)
    if prop == SH.datatype:
        return lambda node: isinstance(node, Literal) and (node.datatype or _default_datatype(node)) == parameter
    if prop == SH["in"]:
        members = set(Collection(shapes, parameter))
        return lambda node: node in members
    members_checks = [_conforms(shapes, member) for member in Collection(shapes, parameter)]
    if prop == SH["or"]:
        return lambda node: any(check(node) for check in members_checks)
    if prop == SH["and"]:
        return lambda node: all(check(node) for check in members_checks)
    if prop == SH.xone:
        return lambda node: sum(check(node) for check in members_checks) == 1
    single = _conforms(shapes, parameter)  # sh:not
    return lambda node: not single(node)


def _default_datatype(node: Literal) -> URIRef:
    return RDF.langString if node.language else XSD.string


# -- Targets -------------------------------------------------------------------------------


@dataclass
class _Branch:
    """One single-triple pattern of a SPARQL query, with its FILTERs and BINDs in order."""

    pattern: Triple
    steps: list[tuple[str, Any, Variable | None]]
    #: Regular expressions a variable's text must match for any FILTER to hold.
    required: list[tuple[Variable, re.Pattern[str]]] = field(default_factory=list)
    uses: tuple[Variable, ...] = ()

    def match(self, triple: Triple) -> dict[Variable, Node] | None:
        bound: dict[Variable, Node] = {}
        for want, have in zip(self.pattern, triple, strict=True):
            if isinstance(want, Variable):
                if bound.setdefault(want, have) != have:
                    return None
            elif want != have:
                return None
        for variable, required in self.required:
            if required.search(str(bound[variable])) is None:
                return None
        return bound


def _branches(node: CompValue) -> list[_Branch]:
    name = node.name
    if name in ("SelectQuery", "Distinct", "Project"):
        return _branches(node["p"])
    if name == "Union":
        return _branches(node["p1"]) + _branches(node["p2"])
    if name in ("Filter", "Extend"):
        inner = _branches(node["p"])
        for branch in inner:
            branch.steps.append((name, node["expr"], node.get("var")))
        return inner
    if name == "BGP" and len(node["triples"]) == 1:
        return [_Branch(tuple(node["triples"][0]), [])]
    raise NotStreamableError(f"a SPARQL {name} is not one statement at a time")


def _variables(expr: object, into: set[Variable]) -> None:
    if isinstance(expr, Variable):
        into.add(expr)
    elif isinstance(expr, CompValue):
        for value in expr.values():
            _variables(value, into)
    elif isinstance(expr, list | tuple):
        for value in expr:
            _variables(value, into)


def _required(expr: object, bound_by_pattern: set[Variable]) -> Iterator[tuple[Variable, re.Pattern[str]]]:
    """REGEX(STR(?v), "const") conjuncts of a FILTER: necessary conditions, tried first."""
    if not isinstance(expr, CompValue):
        return
    if expr.name == "ConditionalAndExpression":
        for part in [expr["expr"], *(expr.get("other") or [])]:
            yield from _required(part, bound_by_pattern)
    elif expr.name == "Builtin_REGEX" and not expr.get("flags"):
        text, pattern = expr["text"], expr["pattern"]
        if (
            isinstance(pattern, Literal)
            and isinstance(text, CompValue)
            and text.name == "Builtin_STR"
            and isinstance(text["arg"], Variable)
            and text["arg"] in bound_by_pattern
        ):
            yield text["arg"], re.compile(str(pattern))


class _Selector:
    """The focus nodes one statement gives a target."""

    def __init__(self, branches: list[_Branch], focus: Variable) -> None:
        self.branches = branches
        self.focus = focus
        self.context = QueryContext(Graph())
        self.cache: dict[tuple[int, tuple[Node, ...]], Node | None] = {}
        for branch in branches:
            in_pattern = {term for term in branch.pattern if isinstance(term, Variable)}
            used: set[Variable] = {focus}
            for kind, expr, _ in branch.steps:
                _variables(expr, used)
                if kind == "Filter":
                    branch.required.extend(_required(expr, in_pattern))
            branch.uses = tuple(sorted(used & in_pattern))

    def select(self, triple: Triple) -> Iterator[Node]:
        for index, branch in enumerate(self.branches):
            bound = branch.match(triple)
            if bound is None:
                continue
            key = (index, tuple(bound[v] for v in branch.uses))
            found = self.cache.get(key, self)
            if found is self:
                found = self._evaluate(branch, bound)
                if len(self.cache) >= 100_000:
                    evict_oldest_half(self.cache)
                self.cache[key] = found
            if found is not None:
                yield found  # type: ignore[misc]

    def _evaluate(self, branch: _Branch, bound: dict[Variable, Node]) -> Node | None:
        solution = FrozenBindings(self.context, bound)
        for kind, expr, variable in branch.steps:
            if kind == "Filter":
                try:
                    if not _ebv(expr, solution):
                        return None
                except SPARQLError:
                    return None
            else:
                value = _eval(expr, solution)
                if not isinstance(value, SPARQLError):
                    solution = solution.merge({variable: value})  # type: ignore[dict-item]
        return solution.get(self.focus)


def _selectors(shapes: Graph, shape: Node) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for predicate in shapes.objects(shape, SH.targetSubjectsOf):
        found.append(("subjects", predicate))
    for predicate in shapes.objects(shape, SH.targetObjectsOf):
        found.append(("objects", predicate))
    for target in shapes.objects(shape, SH.target):
        if (target, RDF.type, SH.SPARQLTarget) not in shapes:
            raise NotStreamableError("a target of a custom target type")
        query = prepareQuery(str(shapes.value(target, SH.select)))
        found.append(("sparql", _Selector(_branches(query.algebra), _THIS)))
    if {SH.targetClass, SH.targetNode} & set(shapes.predicates(shape, None)) or (shape, RDF.type, RDFS.Class) in shapes:
        raise NotStreamableError("sh:targetClass and sh:targetNode need the whole graph")
    return found


# -- Shapes --------------------------------------------------------------------------------


@dataclass
class _Shape:
    node: Node
    message: str
    severity: URIRef
    targets: list[tuple[str, object]]
    checks: list[tuple[URIRef, ValueCheck]]
    #: (property shape, predicate, message, severity, its value checks)
    properties: list[tuple[Node, URIRef, str, URIRef, list[tuple[URIRef, ValueCheck]]]]
    #: (predicate, query branch, message): SPARQL constraints on the focus node's own statement.
    sparql: list[tuple[URIRef, _Selector, str]]

    def findings(self, triple: Triple) -> Iterator[Finding]:
        s, p, o = triple
        for kind, target in self.targets:
            if kind == "sparql":
                focuses: Iterator[Node] = target.select(triple)  # type: ignore[attr-defined]
            elif p == target:
                focuses = iter((s,) if kind == "subjects" else (o,))
            else:
                continue
            for focus in focuses:
                for component, check in self.checks:
                    if not check(focus):
                        yield focus, None, focus, self.node, component, self.message, self.severity
        # Property shapes and SPARQL constraints are streamable only on the predicate that
        # makes the subject a focus node (plan), so this statement is the one to look at.
        for shape, predicate, message, severity, checks in self.properties:
            if p == predicate:
                for component, check in checks:
                    if not check(o):
                        yield s, predicate, o, shape, component, message, severity
        for predicate, selector, message in self.sparql:
            if p == predicate:
                for _ in selector.select(triple):
                    yield s, None, s, self.node, SH.SPARQLConstraintComponent, message, self.severity


def _message(shapes: Graph, shape: Node, default: str = "") -> str:
    found = shapes.value(shape, SH.message)
    return default if found is None else str(found)


def _severity(shapes: Graph, shape: Node) -> URIRef:
    found = shapes.value(shape, SH.severity)
    return found if isinstance(found, URIRef) else SH.Violation


def _shape(shapes: Graph, node: Node) -> _Shape:
    targets = _selectors(shapes, node)
    subjects_of = {target for kind, target in targets if kind == "subjects"}
    message = _message(shapes, node)
    properties = []
    for prop in shapes.objects(node, SH.property):
        path = shapes.value(prop, SH.path)
        if not isinstance(path, URIRef) or path not in subjects_of or len(targets) != 1:
            raise NotStreamableError("a property shape whose values are not in the statement that makes the focus node")
        if any(True for _ in shapes.objects(prop, SH.property)) or any(True for _ in shapes.objects(prop, SH.sparql)):
            raise NotStreamableError("nested property shapes or SPARQL in a property shape")
        checks = _value_checks(shapes, prop)
        properties.append((prop, path, _message(shapes, prop, message), _severity(shapes, prop), checks))
    sparql = []
    for constraint in shapes.objects(node, SH.sparql):
        query = prepareQuery(str(shapes.value(constraint, SH.select)))
        branches = _branches(query.algebra)
        predicates = {branch.pattern[1] for branch in branches}
        one = next(iter(predicates)) if len(predicates) == 1 else None
        if one not in subjects_of or len(targets) != 1 or any(b.pattern[0] != _THIS for b in branches):
            raise NotStreamableError("a SPARQL constraint beyond the statement that makes the focus node")
        sparql.append((one, _Selector(branches, _THIS), _message(shapes, constraint, message)))
    return _Shape(node, message, _severity(shapes, node), targets, _value_checks(shapes, node), properties, sparql)  # type: ignore[arg-type]


@dataclass
class Plan:
    """What a shapes graph asks of each statement; the shapes it cannot ask it of, with why."""

    shapes: list[_Shape]
    not_streamable: list[tuple[Node, str]]

    def findings(self, triple: Triple) -> Iterator[Finding]:
        for shape in self.shapes:
            yield from shape.findings(triple)


def plan(shapes: Graph) -> Plan:
    """The streamed checks of every node shape that has targets (SHACL §2.1.3)."""
    streamable, not_streamable = [], []
    has_targets = {SH.targetSubjectsOf, SH.targetObjectsOf, SH.target, SH.targetClass, SH.targetNode}
    shape_nodes = sorted({s for p in has_targets for s in shapes.subjects(p, None)}, key=str)
    shape_nodes += sorted(
        (s for s in shapes.subjects(RDF.type, SH.NodeShape) if (s, RDF.type, RDFS.Class) in shapes), key=str
    )
    for node in shape_nodes:
        if shapes.value(node, SH.deactivated) == Literal(True):
            continue
        try:
            streamable.append(_shape(shapes, node))
        except NotStreamableError as why:
            not_streamable.append((node, str(why)))
    return Plan(streamable, not_streamable)
