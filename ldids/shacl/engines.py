"""The whole-graph SHACL engines users' shapes run on, each giving its report as an rdflib graph.

Two engines, chosen by measurement (benchmarks/README.md, "Users' shapes"): ``shacl``, a
compiled (Rust) engine, the default; and ``pyshacl``, the reference the compiled engine is
held to by the W3C SHACL test suite (tests/test_w3c_shacl.py) and differential tests. pySHACL
over a pyoxigraph-backed rdflib store was measured too and was no faster: its time goes into
pySHACL's own Python, not into the store.

Both take one data graph and one shapes graph as rdflib graphs and return a
``sh:ValidationReport`` (SHACL §3.6) whose terms are those of the graphs given: a result
names the shapes graph's own blank nodes as source shapes and the data graph's as focus
nodes and values, whatever labels the engine used, so that a report is read the same way
whichever engine made it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox
from rdflib import BNode, Graph
from rdflib.namespace import OWL, SH
from rdflib.term import Node

from ldids.errors import InputError
from ldids.ntriples import exact_literal, term
from ldids.rdf.oxigraph import rdflib_term

__all__ = ["DEFAULT_ENGINE", "ENGINES", "INFERENCE", "Options", "Triple", "engine_for", "run"]

Triple = tuple[Node, Node, Node]

ENGINES = ("shacl", "pyshacl")
DEFAULT_ENGINE = "shacl"
#: The entailments both engines apply to a data graph before validating it (SHACL §1.5
#: leaves inference to the engine; pySHACL's "owlrl" has no compiled counterpart).
INFERENCE = ("none", "rdfs")


@dataclass(frozen=True, slots=True)
class Options:
    """How a graph is validated: ``inference`` one of :data:`INFERENCE`; at most
    ``max_results`` results wanted (an engine may stop early, so counts are then partial)."""

    inference: str = "none"
    max_results: int | None = None


def engine_for(shapes: Graph, engine: str) -> str:
    """``engine``, or pySHACL where the shapes call ldids' SPARQL functions
    (:mod:`ldids.shacl.functions`, as the README's shape does): the compiled engine has no
    extension functions. The functions' namespace in a query, or declared as a prefix
    (SHACL §5.2.1), says so."""
    from ldids.shacl.functions import CANONICAL
    from ldids.shacl.safety import sparql_queries

    namespace = CANONICAL.rsplit("#", 1)[0] + "#"
    declared = any(str(value) == namespace for value in shapes.objects(None, SH.namespace))
    if declared or any(namespace in text for _, _, text in sparql_queries(shapes)):
        return "pyshacl"
    return engine


def run(engine: str, data: Graph | Sequence[Triple], shapes: Graph, options: Options | None = None) -> Graph:
    """The ``sh:ValidationReport`` of ``data`` (a graph, or its statements) against ``shapes``
    by ``engine``."""
    options = options or Options()
    runners: dict[str, Callable[[Graph | Sequence[Triple], Graph, Options], Graph]] = {
        "shacl": _compiled,
        "pyshacl": _pyshacl,
    }
    if engine not in runners:
        raise ValueError(f"unknown SHACL engine {engine!r}: one of {', '.join(ENGINES)}")
    if options.inference not in INFERENCE:
        raise ValueError(f"unknown inference {options.inference!r}: one of {', '.join(INFERENCE)}")
    return runners[engine](data, shapes, options)


def _declarations_imported(shapes: Graph) -> Graph:
    """``shapes`` with the prefix declarations of the ontologies a ``sh:prefixes`` node
    imports copied onto it, where the shapes graph holds them (SHACL §5.2.1: a query gets the
    ``sh:declare`` of the node and of the ontologies it imports). pySHACL finds those only by
    following ``owl:imports``, which would fetch them; ldids never does (DESIGN.md §7)."""
    holders = set(shapes.objects(None, SH.prefixes))
    if not any((holder, OWL.imports, None) in shapes for holder in holders):
        return shapes
    copied = Graph()
    copied += shapes
    for holder in holders:
        reached, todo = {holder}, [holder]
        while todo:
            for imported in shapes.objects(todo.pop(), OWL.imports):
                if imported not in reached:
                    reached.add(imported)
                    todo.append(imported)
        for ontology in reached - {holder}:
            for declaration in shapes.objects(ontology, SH.declare):
                copied.add((holder, SH.declare, declaration))
    return copied


def _pyshacl(data: Graph | Sequence[Triple], shapes: Graph, options: Options) -> Graph:
    from pyshacl import validate

    if not isinstance(data, Graph):
        statements, data = data, Graph()
        for triple in statements:
            data.add(triple)
    _, report, _ = validate(
        data,
        shacl_graph=_declarations_imported(shapes),
        advanced=True,
        inference=options.inference,
        do_owl_imports=False,
        abort_on_first=options.max_results == 1,
    )
    if isinstance(report, Exception):  # pyshacl returns, not raises, a ValidationFailure
        raise report
    assert isinstance(report, Graph)
    return report


def _ntriples(graph: Iterable[Triple], blank_nodes: list[BNode]) -> str:
    """``graph`` as N-Triples, appending its distinct blank nodes to ``blank_nodes`` in order of
    first appearance (subject before object), the order in which the compiled engine numbers them."""
    # Each term's text once: predicates, classes and shared values recur on most lines. A blank
    # node enters the memo, and the order, when first seen.
    written: dict[Node, str] = {}
    lines = []
    for subject, predicate, object_ in graph:
        s = written.get(subject)
        if s is None:
            s = written[subject] = term(subject)
            if isinstance(subject, BNode):
                blank_nodes.append(subject)
        p = written.get(predicate)
        if p is None:
            p = written[predicate] = term(predicate)
        o = written.get(object_)
        if o is None:
            o = written[object_] = term(object_)
            if isinstance(object_, BNode):
                blank_nodes.append(object_)
        lines.append(f"{s} {p} {o} .\n")
    return "".join(lines)


#: The compiled engine's blank node labels: ``{graph}_b{n}``, graph 1 the shapes, 0 the data,
#: and n counting the distinct labels of each graph in the order it read them, the shapes'
#: first, then the data's (a label in both, as where a test's data and shapes are one file,
#: has a number in each).
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_ENGINE_LABEL = re.compile(r"([01])_b(\d+)")


def _compiled(data: Graph | Sequence[Triple], shapes: Graph, options: Options) -> Graph:
    import shacl

    blank_nodes: list[BNode] = []
    shapes_text = _ntriples(shapes, blank_nodes)
    data_text = _ntriples(data, blank_nodes)
    try:
        compiled = shacl.Shapes.from_text(shapes_text, format="ntriples")
        outcome = compiled.validate_text(
            data_text, format="ntriples", inference=options.inference, max_results=options.max_results
        )
    except ValueError as error:  # the engine's word for shapes it cannot compile
        raise InputError(f"the shapes could not be compiled: {error}") from error

    def ours(node: object) -> Node:
        if isinstance(node, ox.Literal) and node.datatype.value != _XSD_STRING and not node.language:
            # The data's own lexical form: rdflib would write "…Z" of an xsd:dateTime as "…+00:00".
            return exact_literal(node.value, datatype=node.datatype.value)
        term = rdflib_term(node)  # pyoxigraph keeps the engine's labels, which rdflib's parser renames
        if not isinstance(term, BNode):
            return term
        label = _ENGINE_LABEL.fullmatch(str(term))
        if label is None:
            return term  # the report's own nodes: results, paths
        index = int(label.group(2))
        # A label past those given is the engine's own: kept rather than guessed.
        return blank_nodes[index] if index < len(blank_nodes) else term

    report = Graph()
    for triple in ox.parse(outcome.serialize("ntriples").encode(), ox.RdfFormat.N_TRIPLES):
        report.add((ours(triple.subject), ours(triple.predicate), ours(triple.object)))
    return report
