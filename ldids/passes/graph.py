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

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from typing import Literal as Kind

from rdflib.term import BNode, Literal, Node, URIRef

from ldids.errors import Problem
from ldids.ntriples import Quad, exact_literal, quad_line, term
from ldids.passes.config import Config
from ldids.passes.decision import (
    SAME_AS_IRI,
    Decision,
    decide,
    evict_oldest_half,
    is_identifier_literal,
    named_text,
    subject_namespace,
)
from ldids.passes.summary import Summary

__all__ = [
    "Crosswalk",
    "Finding",
    "Known",
    "Result",
    "Rewrite",
    "Step",
    "TermCache",
    "blank_node_labels",
    "crosswalk",
    "identity_link",
    "labelled",
    "links",
    "normalize",
    "relabel_blank_nodes",
    "relabel_quads",
    "rewrite",
    "rewrite_quad",
    "undo",
]

Position = Kind["subject", "predicate", "object", "graph"]
SAME_AS = URIRef(SAME_AS_IRI)


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

    def to_json(self) -> dict[str, object]:
        """One of the summary's ``run.problem_samples``."""
        return {
            "term": str(self.term),
            "scheme": self.scheme,
            "position": self.position,
            "statement": quad_line(self.quad),
            "problems": [problem.to_json() for problem in self.problems],
        }


@dataclass(frozen=True, slots=True)
class Step:
    """What the rewrite pass did to one statement."""

    before: Quad
    after: Quad
    rewrites: tuple[Rewrite, ...] = ()
    findings: tuple[Finding, ...] = ()
    #: Why each identifier-shaped term left alone was left (decision.REASONS).
    left: tuple[str, ...] = ()
    #: The owl:sameAs statements its terms call for (decision.Decision.links).
    links: tuple[Quad, ...] = ()


@dataclass(frozen=True, slots=True)
class Known:
    """A decision about one term, with the term to write instead (None: unchanged)."""

    decision: Decision
    term: Node | None
    links: tuple[Quad, ...]


class TermCache:
    """Decisions already taken: dumps repeat the same IRIs very many times. It remembers
    what :func:`~ldids.passes.decision.decide` answered, and decides nothing itself.

    Bounded: past ``size`` entries the older half is forgotten, so memory stays constant
    on a stream.
    """

    def __init__(self, config: Config, size: int = 500_000) -> None:
        self.config = config
        self.size = size
        self._known: dict[tuple[Node, str | None, str | None, bool], Known | None] = {}
        self._namespaces: dict[Node, str | None] = {}

    def look_up(
        self, node: Node, predicate: Node | None, subject: Node | None = None, linkable: bool = True
    ) -> Known | None:
        """The decision about ``node`` (an object's ``predicate`` and the statement's
        ``subject`` are its context; ``linkable``: a subject or object)."""
        config = self.config
        # Exact type tests first: rdflib's term classes are ABCs, and isinstance on them is
        # slow enough to matter on this, the passes' innermost call.
        kind = type(node)
        is_literal = kind is Literal or (kind is not URIRef and isinstance(node, Literal))
        namespace = None
        if is_literal:
            literal: Literal = node  # type: ignore[assignment]
            datatype = None if literal.datatype is None else str(literal.datatype)
            if not is_identifier_literal(literal.language, datatype):
                return None
            key_predicate = str(predicate) if predicate is not None else None
            if key_predicate in config.bare_pid_predicates:
                namespace = self.namespace_of(subject)
            elif key_predicate not in config.bare_handle_predicates:
                key_predicate = None
        elif kind is URIRef or isinstance(node, URIRef):
            key_predicate = None
        else:
            return None
        key = (node, key_predicate, namespace, linkable)
        try:
            return self._known[key]
        except KeyError:
            pass
        known = self._decide(node, is_literal, key_predicate, namespace, linkable)
        if len(self._known) >= self.size:
            evict_oldest_half(self._known)
        self._known[key] = known
        return known

    def namespace_of(self, subject: Node | None) -> str | None:
        """The PID namespace a subject carries (decision.subject_namespace), remembered."""
        if not isinstance(subject, URIRef):
            return None
        try:
            return self._namespaces[subject]
        except KeyError:
            pass
        if len(self._namespaces) >= self.size:
            evict_oldest_half(self._namespaces)
        found = self._namespaces[subject] = subject_namespace(str(subject), self.config)
        return found

    def _decide(
        self, node: Node, is_literal: bool, predicate: str | None, namespace: str | None, linkable: bool
    ) -> Known | None:
        config = self.config
        decision = decide(str(node), is_literal, predicate, namespace, config, linkable)
        if decision is None:
            return None
        links = tuple((URIRef(subject), SAME_AS, URIRef(object_), None) for subject, object_ in decision.links)
        written: Node | None = None
        if decision.action == "rewrite" or (decision.action == "canonical" and is_literal and config.literals_to_iris):
            canonical = decision.canonical or str(node)
            if is_literal and not config.literals_to_iris:
                datatype = node.datatype  # type: ignore[attr-defined]
                written = exact_literal(canonical, datatype=None if datatype is None else str(datatype))
            else:
                written = URIRef(canonical)
        return Known(decision, written, links)


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
    left: list[str] = []
    links: list[Quad] = []
    for index, position in _WITH_PREDICATE if config.rewrite_predicates else _POSITIONS:
        node = quad[index]
        if node is None or (index == 2 and quad[1] == SAME_AS):
            continue
        known = cache.look_up(node, quad[1] if index == 2 else None, quad[0], index in (0, 2))
        if known is None:
            continue
        decision = known.decision
        links.extend(known.links)
        if decision.action == "invalid":
            findings.append(Finding(node, decision.scheme or "", position, decision.problems, quad))
        elif decision.action == "leave":
            left.append(decision.reason or "")
        elif known.term is not None:
            after[index] = known.term
            changes.append((node, known.term, decision.scheme or "", position))
    if not changes:
        return Step(quad, quad, (), tuple(findings), tuple(left), tuple(links))
    rewritten: Quad = (after[0], after[1], after[2], after[3])
    rewrites = tuple(Rewrite(old, new, scheme, position, quad, rewritten) for old, new, scheme, position in changes)
    return Step(quad, rewritten, rewrites, tuple(findings), tuple(left), tuple(links))


def links(step: Step, config: Config) -> Iterator[Quad]:
    """The owl:sameAs statements one rewritten statement calls for (default graph).

    - those its terms call for (:attr:`Step.links`, from the one decision): from each
      canonical IRI to the original form, when that form is an IRI (an IRI, or a literal
      written in a prefixed form; a bare PID or handle is no IRI, and gets no link); from
      a POI in a namespace served by Fedora (``config.fedora_oai_namespaces``) whose local
      part is a PID, to that object's info:fedora IRI;
    - from subject to object of a configured identity predicate (Fedora's OAI ``itemID``),
      when both are valid identifiers. Relation properties never make links.
    """
    yield from step.links
    link = identity_link(step.after, config)
    if link is not None:
        yield link


def identity_link(quad: Quad, config: Config) -> Quad | None:
    """owl:sameAs from subject to object of a configured identity predicate, both identifiers."""
    subject, predicate, object_, _ = quad
    if (
        str(predicate) in config.identity_predicates
        and isinstance(subject, URIRef)
        and isinstance(object_, URIRef | Literal)
        and str(subject) != (target := _named_text(object_))
        and _is_identifier(str(subject), config)
        and _is_identifier(target, config)
    ):
        return (subject, SAME_AS, URIRef(target), None)
    return None


def _named_text(node: Node) -> str:
    datatype = getattr(node, "datatype", None)
    return named_text(str(node), None if datatype is None else str(datatype))


def _is_identifier(text: str, config: Config) -> bool:
    scheme = config.registry.detect(text, bare=False)
    return scheme is not None and not scheme.check(text)


#: The invalid identifiers a summary shows (the rest are counted).
PROBLEM_SAMPLES = 20


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
    #: Identifier-shaped terms left alone, by reason.
    left: Counter[str] = field(default_factory=Counter)

    @property
    def merged(self) -> int:
        """Input statements that became equal to another one once rewritten."""
        return self.quads_in - len(self.quads)

    def summary(self) -> Summary:
        """Counts for people and machines: the one summary (ldids.passes.summary)."""
        return Summary(
            statements_in=self.quads_in,
            statements_out=len(self.quads),
            statements_rewritten=len({r.quad for r in self.rewrites}),
            statements_merged=self.merged,
            links=len(self.links),
            rewritten=Counter(self.rewritten_per_scheme),
            invalid=Counter(finding.scheme for finding in self.findings),
            left=Counter(self.left),
        )

    def document(
        self, notes: Iterable[str] = (), skipped: Mapping[str, int] | None = None, *, links_written: bool = True
    ) -> Summary:
        """The summary every way of normalizing a graph reports (the command line's, the
        service's): with the readers' notes and what they skipped, the first invalid
        identifiers (``run.problem_samples``), and the links counted where they were written."""
        summary = self.summary()
        if not links_written:
            summary.links = 0
        summary.skipped.update(skipped or {})
        samples = [finding.to_json() for finding in self.findings[:PROBLEM_SAMPLES]]
        summary.run = {"notes": list(notes), "problem_samples": samples}
        return summary


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
        result.left.update(step.left)
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

    @classmethod
    def of_link_line(cls, line: str) -> Crosswalk:
        """The row of a link written as ``quad_line`` writes it: ``<s> <owl:sameAs> <o> .``
        (IRIs, which hold no space)."""
        subject, _, rest = line.partition(" ")
        object_ = rest.partition(" ")[2].removesuffix(" .")
        return cls("link", "owl:sameAs", "", object_, subject, "", line)

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
    and kept where it was also in the input unchanged. A row whose rewritten statement is
    not among ``quads`` restores nothing: the statements given are what is undone (a part
    of an output, or another file, with the crosswalk of the whole).
    """
    quads = list(quads)
    given = set(quads)
    remove: set[Quad] = set()
    restore: dict[Quad, None] = {}
    keep: set[Quad] = set()
    for row in rows:
        rewritten = parse_line(row.rewritten)
        if row.kind == "link":
            remove.add(rewritten)
            continue
        if rewritten not in given:
            continue
        remove.add(rewritten)
        restore[parse_line(row.statement)] = None
        if row.kept:
            keep.add(rewritten)
    before = [quad for quad in quads if quad not in remove or quad in keep]
    present = set(before)
    before.extend(quad for quad in restore if quad not in present)
    return before


def blank_node_labels(quads: Iterable[Quad]) -> dict[BNode, BNode]:
    """Labels ``b0, b1, ...`` for the blank nodes of ``quads``, by their content: the same
    statements give the same labels, whatever labels they came with.

    Labels come from colour refinement: each blank node's colour is a hash of the
    statements it stands in, with other blank nodes by their colour, repeated until the
    colours stop splitting, for at most REFINEMENT_ROUNDS rounds: a chain (an RDF list of
    like values, nested ``[ ]``) splits one node a round, so refining it to the end took time
    square in its length (a list of 4,000 zeros, minutes). Blank nodes still alike are
    ordered as the statements first name them, which the same document does alike.
    """
    occurrences: dict[BNode, list[Quad]] = {}
    for quad in quads:
        for node in quad:
            if isinstance(node, BNode):
                occurrences.setdefault(node, []).append(quad)
    if not occurrences:
        return {}
    colour = dict.fromkeys(occurrences, "")

    def shown(node: Node | None, focus: BNode) -> str:
        if node is None:
            return ""
        if isinstance(node, BNode):
            return "*" if node == focus else f"_:{colour[node]}"
        return term(node)

    for _ in range(min(len(occurrences) + 1, REFINEMENT_ROUNDS)):
        refined = {
            node: hashlib.sha256(
                "\n".join([colour[node], *sorted(" ".join(shown(n, node) for n in quad) for quad in found)]).encode()
            ).hexdigest()
            for node, found in occurrences.items()
        }
        stable = len(set(refined.values())) == len(set(colour.values()))
        colour = refined
        if stable:
            break
    first = {node: index for index, node in enumerate(occurrences)}  # in the order the statements name them
    order = sorted(occurrences, key=lambda node: (colour[node], first[node]))
    return {node: BNode(f"b{index}") for index, node in enumerate(order)}


#: Rounds of colour refinement at most (blank_node_labels): nodes 16 statements apart are
#: told apart, and the time stays linear in the statements.
REFINEMENT_ROUNDS = 16


def relabel_quads(quads: Iterable[Quad], labels: Mapping[BNode, BNode]) -> list[Quad]:
    """``quads`` with each blank node of ``labels`` renamed."""

    def relabel(node: Node | None) -> Node | None:
        return labels.get(node, node) if isinstance(node, BNode) else node

    return [(relabel(s), p, relabel(o), relabel(g)) for s, p, o, g in quads]  # type: ignore[misc]


def labelled(result: Result) -> Result:
    """``result`` with its blank nodes labelled by the content of its output (its statements
    and links), as every writer writes them, in its crosswalk too: read back, the output is
    labelled alike, so a second run writes the same bytes (labels given when the input was
    read follow the input's content, which the rewrites changed)."""
    labels = blank_node_labels([*result.quads, *result.links])
    if not labels:
        return result

    def quad(q: Quad) -> Quad:
        return relabel_quads([q], labels)[0]

    return replace(
        result,
        quads=relabel_quads(result.quads, labels),
        links=relabel_quads(result.links, labels),
        rewrites=[replace(r, quad=quad(r.quad), rewritten=quad(r.rewritten)) for r in result.rewrites],
        findings=[replace(f, quad=quad(f.quad)) for f in result.findings],
        kept=frozenset(quad(q) for q in result.kept),
    )


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
