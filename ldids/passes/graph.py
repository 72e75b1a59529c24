"""The graph passes: rewrite identifiers, link their forms, record every change.

A pass is a plain function over quads ``(s, p, o, g)`` (``g`` None for the default graph)
and composes with the others; the same functions run on an in-memory graph, on a streamed
dump, in the HTTP service and on distributed workers (DESIGN.md §3).

- :func:`rewrite` yields one :class:`Step` per quad: the quad before and after, the
  identifiers it rewrote and the invalid ones it found (reported, never rewritten).
- :func:`links` gives the ``owl:sameAs`` statements a step calls for: from each canonical
  IRI to the other forms that occurred, plus the configured cross-scheme links.
- :func:`crosswalk` turns steps and links into rows that audit and :func:`undo` a run.
- :func:`normalize` composes the three over a whole collection of quads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from typing import Literal as Kind

from rdflib.term import BNode, Literal, Node, URIRef

from ldids.errors import Problem
from ldids.ntriples import Quad, quad_line, term
from ldids.passes.config import Config
from ldids.passes.decision import (
    IDENTIFIER_DATATYPE_IRIS,
    SAME_AS_IRI,
    evict_oldest_half,
    fedora_object_of_poi,
    form_links,
    identify,
)

__all__ = [
    "IDENTIFIER_DATATYPE_IRIS",
    "Crosswalk",
    "Finding",
    "Result",
    "Rewrite",
    "Step",
    "TermCache",
    "crosswalk",
    "evict_oldest_half",
    "fedora_link",
    "fedora_object_of_poi",
    "form_link",
    "form_links",
    "identify",
    "identity_link",
    "links",
    "normalize",
    "relabel_blank_nodes",
    "rewrite",
    "rewrite_quad",
    "undo",
]

Position = Kind["subject", "predicate", "object", "graph"]
SAME_AS = URIRef(SAME_AS_IRI)
# Literals whose whole lexical form may be an identifier (DESIGN.md §2). Language-tagged
# literals are text in a language, not identifiers, and are left alone.
_IDENTIFIER_DATATYPES = frozenset({None, *(URIRef(iri) for iri in IDENTIFIER_DATATYPE_IRIS)})


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One identifier rewritten in one statement."""

    original: Node
    canonical: Node
    scheme: str
    position: Position
    quad: Quad  # the statement as it was
    rewritten: Quad  # the statement as it is now


@dataclass(frozen=True, slots=True)
class Finding:
    """An invalid identifier, left as it was and reported with its statement."""

    term: Node
    scheme: str
    position: Position
    problems: tuple[Problem, ...]
    quad: Quad


@dataclass(frozen=True, slots=True)
class Step:
    """What the rewrite pass did to one statement."""

    before: Quad
    after: Quad
    rewrites: tuple[Rewrite, ...] = ()
    findings: tuple[Finding, ...] = ()


# What is known about one term: None (no identifier), (scheme, the term in canonical form,
# or None if it already is), or (scheme, problems) for an invalid identifier.
_Known = tuple[str, Node | None] | tuple[str, tuple[Problem, ...]] | None


def key_is_literal(node: Node) -> bool:
    return type(node) is Literal or (type(node) is not URIRef and isinstance(node, Literal))


class TermCache:
    """Identifiers already looked at: dumps repeat the same IRIs very many times.

    Bounded: past ``size`` entries the older half is forgotten, so memory stays constant
    on a stream.
    """

    def __init__(self, config: Config, size: int = 500_000) -> None:
        self.config = config
        self.size = size
        self._known: dict[tuple[Node, str | None], _Known] = {}

    def look_up(self, node: Node, predicate: Node | None) -> _Known:
        config = self.config
        # Exact type tests first: rdflib's term classes are ABCs, and isinstance on them is
        # slow enough to matter on this, the passes' innermost call.
        kind = type(node)
        is_literal = kind is Literal or (kind is not URIRef and isinstance(node, Literal))
        if is_literal:
            literal: Literal = node  # type: ignore[assignment]
            if literal.language is not None or literal.datatype not in _IDENTIFIER_DATATYPES:
                return None
            key_predicate = str(predicate) if predicate is not None else None
            if key_predicate not in config.bare_pid_predicates and key_predicate not in config.bare_handle_predicates:
                key_predicate = None
        elif kind is URIRef or isinstance(node, URIRef):
            key_predicate = None
        else:
            return None
        key = (node, key_predicate)
        try:
            return self._known[key]
        except KeyError:
            pass
        known = self._identify(node, key_predicate)
        if len(self._known) >= self.size:
            evict_oldest_half(self._known)
        self._known[key] = known
        return known

    def _identify(self, node: Node, predicate: str | None) -> _Known:
        config = self.config
        is_literal = key_is_literal(node)
        found = identify(str(node), is_literal, predicate, config)
        if found is None or isinstance(found[1], tuple):
            return found
        scheme, canonical = found
        if is_literal and not config.literals_to_iris:
            return scheme, None if canonical is None else Literal(canonical, datatype=node.datatype)  # type: ignore[attr-defined]
        return scheme, None if canonical is None and not is_literal else URIRef(canonical or str(node))


def rewrite(quads: Iterable[Quad], config: Config, cache: TermCache | None = None) -> Iterator[Step]:
    """Rewrite every recognized identifier of every statement to its canonical form.

    IRIs stay IRIs; a literal keeps its datatype and gets the canonical form as its lexical
    form, or becomes an IRI if ``config.literals_to_iris``. Predicates are rewritten only
    if ``config.rewrite_predicates``. Objects of owl:sameAs are left as they are: a link
    names another form on purpose, and rewriting it would undo the link (and make a second
    run change what the first wrote).
    """
    known = cache if cache is not None else TermCache(config)
    for quad in quads:
        yield rewrite_quad(quad, known)


_POSITIONS: tuple[tuple[int, Position], ...] = ((0, "subject"), (2, "object"), (3, "graph"))
_WITH_PREDICATE: tuple[tuple[int, Position], ...] = (*_POSITIONS, (1, "predicate"))


def rewrite_quad(quad: Quad, cache: TermCache) -> Step:
    """:func:`rewrite` for one statement (streams call it line by line)."""
    config = cache.config
    after: list[Any] = list(quad)
    changes: list[tuple[Node, Node, str, Position]] = []
    findings: list[Finding] = []
    for index, position in _WITH_PREDICATE if config.rewrite_predicates else _POSITIONS:
        node = quad[index]
        if node is None or (index == 2 and quad[1] == SAME_AS):
            continue
        found = cache.look_up(node, quad[1] if index == 2 else None)
        if found is None:
            continue
        scheme, outcome = found
        if isinstance(outcome, tuple):
            findings.append(Finding(node, scheme, position, outcome, quad))
        elif outcome is not None:
            after[index] = outcome
            changes.append((node, outcome, scheme, position))
    if not changes:
        return Step(quad, quad, (), tuple(findings))
    rewritten: Quad = (after[0], after[1], after[2], after[3])
    rewrites = tuple(Rewrite(old, new, scheme, position, quad, rewritten) for old, new, scheme, position in changes)
    return Step(quad, rewritten, rewrites, tuple(findings))


def links(step: Step, config: Config) -> Iterator[Quad]:
    """The owl:sameAs statements one rewritten statement calls for (default graph).

    - from each canonical IRI to the original form, when that form is an IRI: an IRI, or a
      literal written in a prefixed form (a bare PID or handle is no IRI, and gets no link);
    - from a POI in a namespace served by Fedora (``config.fedora_oai_namespaces``) whose
      local part is a PID, to that object's info:fedora IRI;
    - from subject to object of a configured identity predicate (Fedora's OAI ``itemID``),
      when both are valid identifiers. Relation properties never make links.
    """
    for change in step.rewrites:
        link = form_link(change.original, change.canonical, config)
        if link is not None:
            yield link
    if config.fedora_oai_namespaces:
        for node in (step.after[0], step.after[2]):
            link = fedora_link(node, config)
            if link is not None:
                yield link
    link = identity_link(step.after, config)
    if link is not None:
        yield link


def form_link(original: Node, canonical: Node, config: Config) -> Quad | None:
    """owl:sameAs from a canonical IRI to the form it was rewritten from, if that form is an
    IRI (an IRI, or a literal in a prefixed form; a bare PID or handle is no IRI)."""
    text = str(original)
    if not form_links(text, isinstance(original, URIRef), str(canonical), config):
        return None
    return (canonical if isinstance(canonical, URIRef) else URIRef(str(canonical)), SAME_AS, URIRef(text), None)


def fedora_link(node: Node, config: Config) -> Quad | None:
    """owl:sameAs from a POI in a namespace served by Fedora to the object its PID names."""
    if not isinstance(node, URIRef | Literal):
        return None
    fedora = fedora_object_of_poi(str(node), config)
    return None if fedora is None else (URIRef(str(node)), SAME_AS, URIRef(fedora), None)


def identity_link(quad: Quad, config: Config) -> Quad | None:
    """owl:sameAs from subject to object of a configured identity predicate, both identifiers."""
    subject, predicate, object_, _ = quad
    if (
        str(predicate) in config.identity_predicates
        and isinstance(subject, URIRef)
        and isinstance(object_, URIRef | Literal)
        and str(subject) != str(object_)
        and _is_identifier(str(subject), config)
        and _is_identifier(str(object_), config)
    ):
        return (subject, SAME_AS, URIRef(str(object_)), None)
    return None


def _is_identifier(text: str, config: Config) -> bool:
    scheme = config.registry.detect(text, bare=False)
    return scheme is not None and not scheme.check(text)


@dataclass
class Result:
    """Everything one run of the passes produced."""

    quads: list[Quad]
    links: list[Quad]
    rewrites: list[Rewrite]
    findings: list[Finding]
    #: Rewritten statements that were also in the input unchanged (see :func:`undo`).
    kept: frozenset[Quad] = frozenset()
    quads_in: int = 0
    rewritten_per_scheme: Counter[str] = field(default_factory=Counter)

    @property
    def merged(self) -> int:
        """Input statements that became equal to another one once rewritten."""
        return self.quads_in - len(self.quads)

    def summary(self) -> dict[str, Any]:
        """Counts for people and machines."""
        return {
            "statements_in": self.quads_in,
            "statements_out": len(self.quads) + len(self.links),
            "statements_rewritten": len({r.quad for r in self.rewrites}),
            "statements_merged": self.merged,
            "identifiers_rewritten": dict(sorted(self.rewritten_per_scheme.items())),
            "links": len(self.links),
            "problems": len(self.findings),
        }


def normalize(quads: Iterable[Quad], config: Config | None = None) -> Result:
    """Run rewrite, link and record over a collection of statements.

    Statements keep their input order; two that become equal are kept once (RDF graphs
    are sets), which :attr:`Result.merged` counts. Links come sorted, once each.
    """
    settings = config or Config()
    out: dict[Quad, None] = {}
    unchanged: set[Quad] = set()
    found_links: set[Quad] = set()
    result = Result([], [], [], [])
    count = 0
    for step in rewrite(quads, settings):
        count += 1
        out[step.after] = None
        if step.rewrites:
            result.rewrites.extend(step.rewrites)
            for change in step.rewrites:
                result.rewritten_per_scheme[change.scheme] += 1
        else:
            unchanged.add(step.before)
        result.findings.extend(step.findings)
        found_links.update(links(step, settings))
    result.quads = list(out)
    result.links = sorted(found_links - out.keys(), key=quad_line)
    result.quads_in = count
    result.kept = frozenset(r.rewritten for r in result.rewrites if r.rewritten in unchanged)
    return result


# -- The crosswalk ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Crosswalk:
    """One row: a rewrite (original and canonical term, with both statements) or a link."""

    kind: Kind["rewrite", "link"]
    scheme: str
    position: str
    original: str  # N-Triples term
    canonical: str  # N-Triples term
    statement: str  # N-Quads line as it was ("" for a link)
    rewritten: str  # N-Quads line as it is now
    kept: bool = False  # the rewritten statement was also in the input unchanged

    FIELDS = ("kind", "scheme", "position", "original", "canonical", "statement", "rewritten", "kept")

    @classmethod
    def of_rewrite(cls, change: Rewrite, kept: bool = False, rewritten: str | None = None) -> Crosswalk:
        """The row of one rewrite (``rewritten``: the line as written, if not its N-Quads form)."""
        statement = quad_line(change.rewritten) if rewritten is None else rewritten
        return cls(
            "rewrite",
            change.scheme,
            change.position,
            term(change.original),
            term(change.canonical),
            quad_line(change.quad),
            statement,
            kept,
        )

    @classmethod
    def of_link(cls, link: Quad) -> Crosswalk:
        return cls("link", "owl:sameAs", "", term(link[2]), term(link[0]), "", quad_line(link))

    def values(self) -> list[str]:
        """The row's cells, in FIELDS order (CSV)."""
        return [
            self.kind,
            self.scheme,
            self.position,
            self.original,
            self.canonical,
            self.statement,
            self.rewritten,
            str(self.kept).lower(),
        ]


def crosswalk(result: Result) -> Iterator[Crosswalk]:
    """Every change of a run as crosswalk rows, rewrites in input order, then links."""
    for change in result.rewrites:
        yield Crosswalk.of_rewrite(change, change.rewritten in result.kept)
    for link in result.links:
        yield Crosswalk.of_link(link)


def undo(quads: Iterable[Quad], rows: Iterable[Crosswalk], parse_line: Any) -> list[Quad]:
    """The statements before normalization, from the statements after it and the crosswalk.

    ``parse_line`` turns an N-Quads line into a quad (blank nodes shared with ``quads``).
    Links are removed; each rewritten statement is replaced by the statements it came from,
    and kept where it was also in the input unchanged.
    """
    remove: set[Quad] = set()
    restore: dict[Quad, None] = {}
    keep: set[Quad] = set()
    for row in rows:
        rewritten = parse_line(row.rewritten)
        if row.kind == "link":
            remove.add(rewritten)
            continue
        remove.add(rewritten)
        restore[parse_line(row.statement)] = None
        if row.kept:
            keep.add(rewritten)
    before = [quad for quad in quads if quad not in remove or quad in keep]
    present = set(before)
    before.extend(quad for quad in restore if quad not in present)
    return before


def relabel_blank_nodes(quads: Iterable[Quad], labels: dict[BNode, BNode]) -> Iterator[Quad]:
    """Blank nodes renamed b0, b1, ... in order of first appearance: deterministic output."""

    def label(node: Node | None) -> Node | None:
        if isinstance(node, BNode):
            found = labels.get(node)
            if found is None:
                found = labels[node] = BNode(f"b{len(labels)}")
            return found
        return node

    for subject, predicate, object_, graph in quads:
        yield (label(subject), predicate, label(object_), label(graph))  # type: ignore[misc]
