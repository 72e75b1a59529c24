"""Normalizing a live triplestore in place, through SPARQL 1.1 Query and Update.

1. One query counts the statements, one fetches every statement the passes could have
   something to say about: a subject, object or graph name containing one of the
   registry's prefilter needles (derived from the schemes' declarations, as the streamed
   dump's), or a literal under a configured bare-form predicate. The needles are a
   superset of the identifiers; the one decision (:func:`ldids.passes.graph.rewrite_quad`
   and :func:`ldids.passes.graph.links`) tells them apart, as on every other path.
2. The changes go in batches, ONE update request each: ``DELETE DATA`` the statements as
   they were, ``INSERT DATA`` them as they are now with the links their rewrite calls for.
   A SPARQL Update request is applied atomically by the store, so an interrupted run loses
   no statement and no link, and running again finishes the work (canonical terms are not
   touched twice). ``DELETE DATA`` cannot name a blank node (SPARQL 1.1 Update §3.1.2),
   nor an IRI the store took leniently that is none: a statement with one is rewritten
   by ``DELETE/INSERT ... WHERE`` with a variable in its place. Where a blank node stands
   that changes every statement of that shape alike, as the passes would (a blank node
   carries no PID namespace, so its statements are decided alike).
3. The summary is the one summary document (ldids.passes.summary), counted as the graph
   passes count it; what only a live store knows (updates, statements fetched) is under
   ``run``.

The endpoint URLs are the operator's configuration, never taken from data or requests.
Uses only the standard library's HTTP client.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rdflib.term import BNode, Literal, Node, URIRef

from ldids.errors import InputError
from ldids.ntriples import Quad, exact_literal, iri, literal, quad_line, term
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.passes.summary import Summary
from ldids.schemes._chars import is_plain_iri

__all__ = ["StoreSummary", "normalize_store"]

_ALL = "{ ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } }"
#: The same where the store's default graph is the union of its named graphs (an option of
#: many stores: SPARQL 1.1 Query §13 leaves it to them): the default graph's own statements
#: are those no named graph holds.
_ALL_OF_A_UNION = "{ ?s ?p ?o FILTER NOT EXISTS { GRAPH ?h { ?s ?p ?o } } } UNION { GRAPH ?g { ?s ?p ?o } }"
#: Characters with a meaning in an XPath regular expression (XPath Functions §5.6.1).
_REGEX_SPECIAL = frozenset("\\|.-^?*+{}()[]$")


def _xpath_regex(needles: Iterable[str]) -> str:
    """An XPath regular expression matching any of ``needles``, as a SPARQL string's content."""
    escaped = ("".join("\\" + c if c in _REGEX_SPECIAL else c for c in needle) for needle in sorted(needles))
    return "|".join(escaped).replace("\\", "\\\\").replace('"', '\\"')


def _statements_query(config: Config, everything: str = _ALL) -> str:
    """Every statement holding a term the passes may decide something about: one of the
    registry's needles in any ASCII case, or a configured PID namespace's as written."""
    pattern = _xpath_regex(config.registry.prefilter)
    tests = [
        f'(!isBlank(?s) && REGEX(STR(?s), "{pattern}", "i"))',
        f'(!isBlank(?o) && REGEX(STR(?o), "{pattern}", "i"))',
        f'(isIRI(?g) && REGEX(STR(?g), "{pattern}", "i"))',
    ]
    if config.namespace_needles:
        exact = _xpath_regex(config.namespace_needles)
        tests += [
            f'(!isBlank(?s) && REGEX(STR(?s), "{exact}"))',
            f'(!isBlank(?o) && REGEX(STR(?o), "{exact}"))',
            f'(isIRI(?g) && REGEX(STR(?g), "{exact}"))',
        ]
    bare = sorted(config.bare_pid_predicates | config.bare_handle_predicates)
    if bare:
        tests.append(f"(isLiteral(?o) && ?p IN ({', '.join(iri(name) for name in bare)}))")
    if config.rewrite_predicates:
        tests.append(f'REGEX(STR(?p), "{pattern}", "i")')
    return f"SELECT ?s ?p ?o ?g WHERE {{\n  {everything}\n  FILTER ({' || '.join(tests)})\n}}"


@dataclass
class StoreSummary:
    """What a run on a live store did: the one summary, and the updates it sent."""

    counts: Summary = field(default_factory=Summary)
    statements_found: int = 0  # fetched to be decided
    updates: int = 0  # update requests sent
    changes_left: int = 0  # changes not sent (max_batches), which a later run makes
    #: Statements left as they were because their rewrite writes a term the store cannot
    #: hold (an IRI no SPARQL parser takes), with that term.
    unwritable: list[str] = field(default_factory=list)

    @property
    def problems(self) -> int:
        return self.counts.problems

    def summary(self) -> Summary:
        """The one summary document, with this path's own figures under ``run``."""
        document = Summary()
        document.add(self.counts)
        document.run = {
            "statements_found": self.statements_found,
            "updates": self.updates,
            "changes_left": self.changes_left,
        }
        if self.unwritable:
            document.run["unwritable"] = self.unwritable[:20]
        return document


class _Endpoint:
    def __init__(self, query_url: str, update_url: str, timeout: float) -> None:
        self.query_url, self.update_url, self.timeout = query_url, update_url, timeout

    def _send(self, url: str, body: bytes, content_type: str, accept: str | None = None) -> bytes:
        headers = {"Content-Type": content_type}
        if accept:
            headers["Accept"] = accept
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data: bytes = response.read()
                return data
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:500]
            raise InputError(f"the SPARQL endpoint answered {error.code}: {detail}", source=url) from error
        except urllib.error.URLError as error:
            raise InputError(f"cannot reach the SPARQL endpoint: {error.reason}", source=url) from error

    def _results(self, query: str) -> Any:
        answer = self._send(
            self.query_url, query.encode(), "application/sparql-query", "application/sparql-results+json"
        )
        return json.loads(answer)

    def bindings(self, query: str) -> list[dict[str, dict[str, Any]]]:
        found: list[dict[str, dict[str, Any]]] = self._results(query)["results"]["bindings"]
        return found

    def ask(self, query: str) -> bool:
        return bool(self._results(query)["boolean"])

    def everything(self) -> str:
        """The pattern of every statement once: where a named graph's statements are all in
        the default graph too, the store's default graph is taken for their union (read as
        such, each would be fetched, rewritten and counted twice, and copied into the default
        graph). A store that holds each in both as well is read the same way: its default
        graph's copies are then left as they are."""
        named = self.ask("ASK { GRAPH ?g { ?s ?p ?o } }")
        if named and not self.ask("ASK { GRAPH ?g { ?s ?p ?o } FILTER NOT EXISTS { ?s ?p ?o } }"):
            return _ALL_OF_A_UNION
        return _ALL

    def count(self, everything: str) -> int:
        (row,) = self.bindings(f"SELECT (COUNT(*) AS ?n) WHERE {{ {everything} }}")
        return int(row["n"]["value"])

    def update(self, text: str) -> None:
        self._send(self.update_url, text.encode("utf-8"), "application/sparql-update")


class _UnsupportedTermError(ValueError):
    """A term RDF 1.1 has no room for (SPARQL 1.2 results: a triple term, a literal with a
    base direction): ldids cannot rewrite a statement holding one, nor write it back."""


#: The keys of an RDF 1.1 term in SPARQL 1.1 Query Results JSON (§3.2.2).
_RDF_1_1_KEYS = frozenset({"type", "value", "xml:lang", "datatype"})


def _node(value: dict[str, Any]) -> Node:
    """The term a binding names, its lexical form kept exactly (exact_literal): a rewrite
    deletes the statement as the store holds it, so a literal made anew ("2020-01-01Z" as
    "2020-01-01", " a  b "^^xsd:token as "a b") would delete nothing and add a changed copy."""
    kind = value["type"]
    if not value.keys() <= _RDF_1_1_KEYS or not isinstance(value["value"], str):
        raise _UnsupportedTermError(kind)
    if kind == "uri":
        return URIRef(value["value"])
    if kind == "bnode":
        return BNode(value["value"])
    if kind not in ("literal", "typed-literal"):  # typed-literal: the 2008 results format's
        raise _UnsupportedTermError(kind)
    return exact_literal(value["value"], language=value.get("xml:lang"), datatype=value.get("datatype"))


# -- The updates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Change:
    """One statement replaced (``before`` None: only added), with the links it calls for."""

    before: Quad | None
    after: tuple[Quad, ...]


def _data_block(quads: Iterable[Quad]) -> str:
    """Statements as the body of INSERT DATA / DELETE DATA (GRAPH blocks for named graphs)."""
    default: list[str] = []
    named: dict[str, list[str]] = {}
    for s, p, o, g in quads:
        line = f"{term(s)} {term(p)} {term(o)} ."
        if g is None:
            default.append(line)
        else:
            named.setdefault(term(g), []).append(line)
    parts = default + [f"GRAPH {name} {{ {' '.join(lines)} }}" for name, lines in sorted(named.items())]
    return "\n".join(parts)


def _named(node: Node) -> bool:
    """Whether SPARQL can name ``node`` in a DATA block: not a blank node (SPARQL 1.1
    Update §3.1.1), and an IRI its parser takes, or a literal whose datatype is one; a store
    loaded leniently may hold IRIs that are none (an invalid identifier among them), which a
    pattern then matches by text."""
    if isinstance(node, Literal):
        return node.datatype is None or is_plain_iri(str(node.datatype))
    return not isinstance(node, BNode) and (not isinstance(node, URIRef) or is_plain_iri(str(node)))


class _Pattern:
    """Statements written as patterns, each node SPARQL cannot name a variable."""

    def __init__(self) -> None:
        self.names: dict[Node, str] = {}
        self.tests: list[str] = []

    def node(self, node: Node) -> str:
        if _named(node):
            return term(node)
        if node not in self.names:
            name = self.names[node] = f"?v{len(self.names)}"
            if isinstance(node, BNode):
                test = f"isBlank({name})"
            elif isinstance(node, Literal):
                test = (
                    f"(isLiteral({name}) && STR({name}) = {literal(str(node))}"
                    f" && STR(DATATYPE({name})) = {literal(str(node.datatype))})"
                )
            else:
                test = f"(isIRI({name}) && STR({name}) = {literal(str(node))})"
            self.tests.append(test)
        return self.names[node]

    def statement(self, quad: Quad) -> str:
        s, p, o, g = quad
        triple = f"{self.node(s)} {self.node(p)} {self.node(o)} ."
        return triple if g is None else f"GRAPH {self.node(g)} {{ {triple} }}"


def _by_pattern(change: _Change) -> str:
    """The operation replacing a statement SPARQL cannot name. Where a blank node stands,
    every statement of its shape is replaced alike."""
    assert change.before is not None
    pattern = _Pattern()
    old = pattern.statement(change.before)
    new = " ".join(pattern.statement(quad) for quad in change.after)
    return f"DELETE {{ {old} }} INSERT {{ {new} }} WHERE {{ {old} FILTER ({' && '.join(pattern.tests)}) }}"


def _request(changes: list[_Change]) -> str:
    """One update request making ``changes``: applied atomically by the store."""
    plain = [change for change in changes if _plain(change)]
    deleted = [change.before for change in plain if change.before is not None]
    inserted = list(dict.fromkeys(quad for change in plain for quad in change.after))
    operations = []
    if deleted:
        operations.append(f"DELETE DATA {{\n{_data_block(deleted)}\n}}")
    if inserted:
        operations.append(f"INSERT DATA {{\n{_data_block(inserted)}\n}}")
    operations.extend(dict.fromkeys(_by_pattern(change) for change in changes if not _plain(change)))
    return " ;\n".join(operations)


def _unwritable(change: _Change) -> Node | None:
    """A term no update can write for ``change``, or None: a term SPARQL cannot name is
    matched in the store by a pattern (_Pattern), so one that only the statements to insert
    hold (a link to an IRI no parser takes, made of a literal's text) cannot be written."""
    before = set() if change.before is None else set(change.before)
    for quad in change.after:
        for node in quad:
            if node is not None and node not in before and not _named(node):
                return node
    return None


def _plain(change: _Change) -> bool:
    return all(node is None or _named(node) for quad in (change.before, *change.after) if quad for node in quad)


def _batches(changes: list[_Change], size: int) -> Iterator[list[_Change]]:
    for start in range(0, len(changes), size):
        yield changes[start : start + size]


# -- The run ------------------------------------------------------------------------------------


def normalize_store(
    query_url: str,
    update_url: str | None = None,
    config: Config | None = None,
    *,
    batch: int = 200,
    max_batches: int | None = None,
    timeout: float = 60.0,
) -> StoreSummary:
    """Normalize the store behind a SPARQL endpoint in place; see the module text.

    ``update_url`` defaults to ``query_url``; ``batch`` is the number of statements changed
    per update request; ``max_batches`` stops early (as an interruption would), leaving a
    consistent store that a later run finishes.
    """
    settings = config or Config()
    endpoint = _Endpoint(query_url, update_url or query_url, timeout)
    run = StoreSummary()
    counts = run.counts
    everything = endpoint.everything()
    statements_in = endpoint.count(everything)
    found: dict[Quad, None] = {}
    for row in endpoint.bindings(_statements_query(settings, everything)):
        try:
            quad = (_node(row["s"]), _node(row["p"]), _node(row["o"]), _node(row["g"]) if "g" in row else None)
        except _UnsupportedTermError:
            counts.skipped["rdf-1.2-term"] += 1  # left as it is, counted: --strict exits 1
            continue
        found[quad] = None
    run.statements_found = len(found)
    cache = passes.TermCache(settings)
    changes: list[_Change] = []
    afters: set[Quad] = set()
    linked: dict[Quad, None] = {}
    present = set(found)
    for quad in sorted(found, key=quad_line):
        step = passes.rewrite_quad(quad, cache)
        counts.invalid.update(finding.scheme for finding in step.findings)
        counts.left.update(step.left)
        links = [link for link in passes.links(step, settings) if link not in linked]
        to_add = tuple(link for link in links if link not in present)
        change = _Change(quad, (step.after, *to_add)) if step.rewrites else _Change(None, to_add) if to_add else None
        unwritable = None if change is None else _unwritable(change)
        if unwritable is not None:
            # Left as it is, and counted: a rewrite without its link would lose the form the
            # store held, and the update that tried would match nothing (yet say it did).
            counts.skipped["term-the-store-cannot-hold"] += 1
            run.unwritable.append(f"{quad_line(quad)} (its rewrite writes {term(unwritable)})")
            afters.add(quad)
            continue
        afters.add(step.after)
        linked.update(dict.fromkeys(links))
        if step.rewrites:
            counts.statements_rewritten += 1
            counts.rewritten.update(rewrite.scheme for rewrite in step.rewrites)
        if change is not None:
            changes.append(change)
    # Statements that became equal to another are one in the store, as in a graph. Every
    # statement a rewritten one (or a link) can become equal to holds a canonical term, and
    # so was fetched: the merged ones and the links already there are known from `found`.
    counts.statements_in = statements_in
    counts.statements_merged = len(found) - len(afters)
    counts.statements_out = statements_in - counts.statements_merged
    counts.links = len(linked.keys() - afters)
    for chosen in _batches(changes, batch):
        if max_batches is not None and run.updates >= max_batches:
            run.changes_left += len(chosen)
            continue
        endpoint.update(_request(chosen))
        run.updates += 1
    return run
