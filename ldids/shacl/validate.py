"""SHACL validation with the shipped shapes plus the user's (pyshacl).

Unlike pyshacl's command line, the outcome keeps "does not conform" and "could not run"
apart (exit 1 and 2 in ``ldids validate``). Nothing named in the data is fetched:
owl:imports are not followed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pyshacl import validate as shacl_validate
from rdflib import Dataset, Graph
from rdflib.namespace import SH
from rdflib.term import Node, URIRef

from ldids.ntriples import Quad
from ldids.resources import shapes_graph

__all__ = ["Verdict", "Violation", "validate"]


@dataclass(frozen=True, slots=True)
class Violation:
    focus: Node
    shape: str
    message: str
    severity: str
    value: Node | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "focus": str(self.focus),
            "shape": self.shape,
            "message": self.message,
            "severity": self.severity,
            "value": None if self.value is None else str(self.value),
        }


@dataclass
class Verdict:
    conforms: bool
    violations: list[Violation] = field(default_factory=list)
    report: Graph = field(default_factory=Graph)

    def per_shape(self) -> Counter[str]:
        return Counter(v.shape for v in self.violations)

    def to_json(self, limit: int | None = 50) -> dict[str, Any]:
        listed = self.violations if limit is None else self.violations[:limit]
        return {
            "conforms": self.conforms,
            "violations": len(self.violations),
            "per_shape": dict(sorted(self.per_shape().items())),
            "results": [v.to_json() for v in listed],
            "truncated": len(listed) < len(self.violations),
        }


def _shape_name(report: Graph, result: Node) -> str:
    shape = report.value(result, SH.sourceShape)
    if isinstance(shape, URIRef):
        return str(shape)
    # An anonymous property shape: name it by its path, which people recognize.
    path = None if shape is None else report.value(shape, SH.path)
    return f"property shape of {path}" if path is not None else "anonymous shape"


def validate(quads: Iterable[Quad], extra_shapes: Iterable[Graph] = ()) -> Verdict:
    """Validate statements against the shipped shapes and ``extra_shapes``."""
    shapes = shapes_graph()
    for graph in extra_shapes:
        shapes += graph
    data = Dataset()
    for s, p, o, g in quads:
        (data.default_graph if g is None else data.graph(g)).add((s, p, o))  # type: ignore[arg-type]
    named = any(graph.identifier != data.default_graph.identifier for graph in data.graphs())
    target: Graph = data if named else data.default_graph
    conforms, report, _ = shacl_validate(
        target, shacl_graph=shapes, advanced=True, inference="none", do_owl_imports=False
    )
    if isinstance(report, Exception):  # pyshacl returns, not raises, a ValidationFailure
        raise report
    violations = []
    for result in sorted(report.subjects(SH.focusNode, None), key=str):
        severity = report.value(result, SH.resultSeverity)
        violations.append(
            Violation(
                focus=report.value(result, SH.focusNode),
                shape=_shape_name(report, result),
                message=str(report.value(result, SH.resultMessage) or ""),
                severity=str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation",
                value=report.value(result, SH.value),
            )
        )
    violations.sort(key=lambda v: (v.shape, str(v.focus), v.message))
    return Verdict(bool(conforms), violations, report)
