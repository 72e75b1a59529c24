"""SHACL validation with the shipped shapes plus the user's (pyshacl).

Unlike pyshacl's command line, the outcome keeps "does not conform" and "could not run"
apart (exit 1 and 2 in ``ldids validate``). Nothing named in the data or the shapes is
fetched: shapes that would reach the network are refused (:mod:`ldids.shacl.safety`) unless
the caller allows it, and owl:imports are never followed.

Each graph of the data is validated on its own, as SHACL sees one data graph (SHACL §1.5):
the default graph, then each named graph, and the results are put together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pyshacl import validate as shacl_validate
from rdflib import BNode, Graph, Literal
from rdflib.namespace import RDF, SH
from rdflib.term import Node, URIRef

from ldids.ntriples import Quad
from ldids.resources import shapes_graph
from ldids.shacl.safety import check_shapes

__all__ = ["Verdict", "Violation", "validate"]


@dataclass(frozen=True, slots=True)
class Violation:
    """One validation result (SHACL §3.6.2): focus node, path, value, shape, component and
    severity, and where the statement that gave it is, when that is known (streamed runs)."""

    focus: Node
    shape: str
    message: str
    severity: str
    value: Node | None = None
    path: Node | None = None
    component: Node | None = None
    file: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "focus": str(self.focus),
            "path": None if self.path is None else str(self.path),
            "value": None if self.value is None else str(self.value),
            "shape": self.shape,
            "component": None if self.component is None else str(self.component),
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
        }


@dataclass
class Verdict:
    """The results, of which ``violations`` may keep only the first ``max_results``;
    ``counts`` has them all, per shape."""

    conforms: bool
    violations: list[Violation] = field(default_factory=list)
    report: Graph = field(default_factory=Graph)
    counts: Counter[str] = field(default_factory=Counter)

    def per_shape(self) -> Counter[str]:
        return self.counts if self.counts else Counter(v.shape for v in self.violations)

    @property
    def total(self) -> int:
        return sum(self.per_shape().values())

    def to_json(self, limit: int | None = 50) -> dict[str, Any]:
        listed = self.violations if limit is None else self.violations[:limit]
        return {
            "conforms": self.conforms,
            "violations": self.total,
            "per_shape": dict(sorted(self.per_shape().items())),
            "results": [v.to_json() for v in listed],
            "truncated": len(listed) < self.total,
        }

    def report_graph(self) -> Graph:
        """The results as a ``sh:ValidationReport`` (SHACL §3.6): the engine's own, or one
        made from the results kept."""
        if len(self.report):
            return self.report
        graph = Graph()
        graph.bind("sh", SH)
        report = BNode()
        graph.add((report, RDF.type, SH.ValidationReport))
        graph.add((report, SH.conforms, Literal(self.conforms)))
        for violation in self.violations:
            result = BNode()
            graph.add((report, SH.result, result))
            graph.add((result, RDF.type, SH.ValidationResult))
            graph.add((result, SH.focusNode, violation.focus))
            graph.add((result, SH.resultSeverity, SH[violation.severity]))
            graph.add((result, SH.sourceShape, URIRef(violation.shape) if "://" in violation.shape else BNode()))
            for prop, value in (
                (SH.resultPath, violation.path),
                (SH.value, violation.value),
                (SH.sourceConstraintComponent, violation.component),
            ):
                if value is not None:
                    graph.add((result, prop, value))
            if violation.message:
                graph.add((result, SH.resultMessage, Literal(violation.message)))
        return graph


def _shape_name(report: Graph, result: Node) -> str:
    shape = report.value(result, SH.sourceShape)
    if isinstance(shape, URIRef):
        return str(shape)
    # An anonymous property shape: name it by its path, which people recognize.
    path = None if shape is None else report.value(shape, SH.path)
    return f"property shape of {path}" if path is not None else "anonymous shape"


def validate(quads: Iterable[Quad], extra_shapes: Iterable[Graph] = (), *, allow_network: bool = False) -> Verdict:
    """Validate statements against the shipped shapes and ``extra_shapes``.

    Raises :class:`~ldids.errors.ShapesError` if a shapes graph would reach the network and
    ``allow_network`` is false (the service never sets it)."""
    from ldids.shacl.functions import register_rdflib

    shapes = shapes_graph()
    for graph in extra_shapes:
        if not allow_network:
            check_shapes(graph)
        shapes += graph
    register_rdflib()  # ldids:canonical, for SHACL-SPARQL constraints
    graphs: dict[Node | None, Graph] = {}
    for s, p, o, g in quads:
        if g not in graphs:
            graphs[g] = Graph(identifier=g) if isinstance(g, URIRef | BNode) else Graph()
        graphs[g].add((s, p, o))
    report = Graph()
    conforms = True
    # A Dataset handed to pyshacl is validated graph by graph too, through rdflib's deprecated
    # Dataset.default_context: the graphs are handed over one by one instead.
    for data in graphs.values() or [Graph()]:
        one_conforms, one_report, _ = shacl_validate(
            data, shacl_graph=shapes, advanced=True, inference="none", do_owl_imports=False
        )
        if isinstance(one_report, Exception):  # pyshacl returns, not raises, a ValidationFailure
            raise one_report
        conforms = conforms and bool(one_conforms)
        report += one_report
    if len(graphs) > 1:
        _one_report(report, conforms)
    violations = []
    for result in sorted(report.subjects(SH.focusNode, None), key=str):
        severity = report.value(result, SH.resultSeverity)
        violations.append(
            Violation(
                focus=report.value(result, SH.focusNode),  # type: ignore[arg-type]
                shape=_shape_name(report, result),
                message=str(report.value(result, SH.resultMessage) or ""),
                severity=str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation",
                value=report.value(result, SH.value),
                path=report.value(result, SH.resultPath),
                component=report.value(result, SH.sourceConstraintComponent),
            )
        )
    violations.sort(key=lambda v: (v.shape, str(v.focus), v.message))
    return Verdict(bool(conforms), violations, report)


def _one_report(report: Graph, conforms: bool) -> None:
    """Merge the reports of several graphs into one sh:ValidationReport (SHACL §3.6.1)."""
    reports = list(report.subjects(RDF.type, SH.ValidationReport))
    keep = reports[0]
    for other in reports[1:]:
        for result in list(report.objects(other, SH.result)):
            report.add((keep, SH.result, result))
        report.remove((other, None, None))
    report.set((keep, SH.conforms, Literal(conforms)))
