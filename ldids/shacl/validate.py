"""SHACL validation with the shipped shapes plus the user's.

The shipped shapes run on pySHACL (their SPARQL calls ldids:canonical); users' shapes run on
the engine asked for (:mod:`ldids.shacl.engines`: the command line's default is the compiled
one). Whichever engine ran, a result is read the same way: shapes are named by their IRI, or
an anonymous property shape by its path in SPARQL syntax.

Unlike pyshacl's command line, the outcome keeps "does not conform" and "could not run"
apart (exit 1 and 2 in ``ldids validate``). Nothing named in the data or the shapes is
fetched: shapes that would reach the network are refused (:mod:`ldids.shacl.safety`) unless
the caller allows it, and owl:imports are never followed.

Each graph of the data is validated on its own, as SHACL sees one data graph (SHACL §1.5):
the default graph, then each named graph, and the results are put together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rdflib import BNode, Graph, Literal
from rdflib.namespace import RDF, SH
from rdflib.term import Node, URIRef

from ldids.ntriples import Quad
from ldids.resources import shapes_graph
from ldids.shacl.engines import Options, Triple, engine_for
from ldids.shacl.engines import run as run_engine
from ldids.shacl.safety import check_shapes

__all__ = ["Verdict", "Violation", "combine", "path_text", "shape_name", "validate"]


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

    @property
    def shape_is_iri(self) -> bool:
        """Whether :attr:`shape` is the shape's IRI, not a name made of its path (shape_name)."""
        return " " not in self.shape and ":" in self.shape

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
            graph.add((result, SH.sourceShape, URIRef(violation.shape) if violation.shape_is_iri else BNode()))
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


_PATH_FORMS = {SH.zeroOrMorePath: "*", SH.oneOrMorePath: "+", SH.zeroOrOnePath: "?"}


def path_text(graph: Graph, path: Node) -> str:
    """A SHACL path (SHACL §2.3.1) in SPARQL property path syntax, the bare IRI for a predicate
    path: what people recognize, the same whichever engine reported it.

    >>> from rdflib import URIRef
    >>> path_text(Graph(), URIRef("http://purl.org/dc/terms/identifier"))
    'http://purl.org/dc/terms/identifier'
    """
    return str(path) if isinstance(path, URIRef) else _path(graph, path)


def _path(graph: Graph, path: Node) -> str:
    if isinstance(path, URIRef):
        return path.n3()
    if (path, RDF.first, None) in graph:
        return "(" + "/".join(_path(graph, step) for step in graph.items(path)) + ")"
    inverse = graph.value(path, SH.inversePath)
    if inverse is not None:
        return "^" + _path(graph, inverse)
    alternatives = graph.value(path, SH.alternativePath)
    if alternatives is not None:
        return "(" + "|".join(_path(graph, step) for step in graph.items(alternatives)) + ")"
    for prop, mark in _PATH_FORMS.items():
        inner = graph.value(path, prop)
        if inner is not None:
            return f"({_path(graph, inner)}){mark}"
    return "[]"


def shape_name(shapes: Graph, shape: Node | None) -> str:
    """A shape as a report names it: its IRI, or an anonymous property shape by its path."""
    if isinstance(shape, URIRef):
        return str(shape)
    path = None if shape is None else shapes.value(shape, SH.path)
    return f"property shape of {path_text(shapes, path)}" if path is not None else "anonymous shape"


@dataclass(frozen=True, slots=True)
class _Run:
    """One engine's run over every graph of the data, with the shapes it is given."""

    engine: str
    shapes: Graph


def _runs(extra: Graph | None, engine: str, shipped: bool) -> list[_Run]:
    """The shipped shapes run on pySHACL, which calls ldids:canonical in their SPARQL (the
    compiled engine has no extension functions); users' shapes run on ``engine``, unless they
    call it too."""
    if extra is not None:
        engine = engine_for(extra, engine)
    if not shipped:
        return [] if extra is None else [_Run(engine, extra)]
    shapes = shapes_graph()
    if engine == "pyshacl" and extra is not None:
        shapes += extra
        return [_Run("pyshacl", shapes)]
    return [_Run("pyshacl", shapes)] + ([] if extra is None else [_Run(engine, extra)])


def validate(
    quads: Iterable[Quad],
    extra_shapes: Iterable[Graph] = (),
    *,
    allow_network: bool = False,
    engine: str = "pyshacl",
    shipped: bool = True,
    options: Options | None = None,
    ontology: Iterable[Graph] = (),
    progress: Callable[[str], None] | None = None,
) -> Verdict:
    """Validate statements against the shipped shapes (unless ``shipped`` is false) and
    ``extra_shapes``, the latter on ``engine`` (:data:`ldids.shacl.engines.ENGINES`).

    ``ontology`` graphs are added to each data graph before validating it, as pySHACL's
    ``ont_graph``; ``options`` say what inference to apply and how many results are wanted.
    Raises :class:`~ldids.errors.ShapesError` if a shapes graph would reach the network and
    ``allow_network`` is false (the service never sets it)."""
    from ldids.shacl.functions import register_rdflib

    options = options or Options()
    extra: Graph | None = None
    for graph in extra_shapes:
        if not allow_network:
            check_shapes(graph)
        extra = Graph() if extra is None else extra
        extra += graph
    register_rdflib()  # ldids:canonical, for SHACL-SPARQL constraints
    # Statements, not rdflib graphs: the compiled engine is handed text, and an rdflib graph of
    # a million statements costs more time and memory than the engine's own run.
    graphs: dict[Node | None, list[Triple]] = {}
    for s, p, o, g in quads:
        graphs.setdefault(g, []).append((s, p, o))
    added = [triple for graph in ontology for triple in graph]
    report = Graph()
    conforms = True
    names: dict[Node, str] = {}
    # A Dataset handed to pyshacl is validated graph by graph too, through rdflib's deprecated
    # Dataset.default_context: the graphs are handed over one by one instead.
    for one_run in _runs(extra, engine, shipped):
        for statements in (graphs or {None: []}).values():
            data = statements + added if added else statements
            if progress is not None:
                progress(f"validating {len(data):,} statements on {one_run.engine}")
            one_report = run_engine(one_run.engine, data, one_run.shapes, options)
            verdict = next(one_report.objects(None, SH.conforms), None)
            conforms = conforms and isinstance(verdict, Literal) and verdict.toPython() is True
            report += one_report
            for shape in set(one_report.objects(None, SH.sourceShape)):
                names[shape] = shape_name(one_run.shapes, shape)
    if len(set(report.subjects(RDF.type, SH.ValidationReport))) != 1:
        _one_report(report, conforms)
    violations = []
    for result in report.subjects(SH.focusNode, None):
        severity = report.value(result, SH.resultSeverity)
        source = report.value(result, SH.sourceShape)
        path = report.value(result, SH.resultPath)
        violations.append(
            Violation(
                focus=report.value(result, SH.focusNode),  # type: ignore[arg-type]
                shape=names.get(source, "anonymous shape") if source is not None else "anonymous shape",
                message=str(report.value(result, SH.resultMessage) or ""),
                severity=str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation",
                value=report.value(result, SH.value),
                path=None if path is None else Literal(path_text(report, path)) if isinstance(path, BNode) else path,
                component=report.value(result, SH.sourceConstraintComponent),
            )
        )
    violations.sort(key=lambda v: (v.shape, str(v.focus), str(v.path), str(v.value), v.message))
    return Verdict(bool(conforms), violations, report)


def combine(first: Verdict, second: Verdict) -> Verdict:
    """Two runs' verdicts as one: the shipped shapes streamed and the user's run whole-graph."""
    report = first.report_graph() + second.report_graph()
    conforms = first.conforms and second.conforms
    _one_report(report, conforms)
    violations = sorted(
        first.violations + second.violations, key=lambda v: (v.shape, str(v.focus), str(v.path), str(v.value))
    )
    return Verdict(conforms, violations, report, first.per_shape() + second.per_shape())


def _one_report(report: Graph, conforms: bool) -> None:
    """Merge the reports of several graphs and runs into one sh:ValidationReport (SHACL §3.6.1)."""
    reports = list(report.subjects(RDF.type, SH.ValidationReport))
    if not reports:
        reports = [BNode()]
        report.add((reports[0], RDF.type, SH.ValidationReport))
    keep = reports[0]
    for other in reports[1:]:
        for result in list(report.objects(other, SH.result)):
            report.add((keep, SH.result, result))
        report.remove((other, None, None))
    report.set((keep, SH.conforms, Literal(conforms)))
