"""Normalizing a live triplestore in place, through SPARQL 1.1 Query and Update.

1. One query finds the identifier-looking terms of the store (IRIs and literals starting
   with an identifier prefix, in any position but predicate).
2. Terms that need rewriting are taken in batches; for each batch, one query fetches the
   statements holding them, the same passes as everywhere (:func:`ldids.passes.graph.rewrite_quad`
   and :func:`ldids.passes.graph.links`) compute the new statements and links, and ONE update
   request replaces them (``DELETE DATA`` then ``INSERT DATA``): a SPARQL Update request is
   applied atomically by the store, so an interrupted run loses no statement, and running
   again finishes the work (already canonical terms are not touched twice). ``DELETE DATA``
   cannot name blank nodes: statements with one are left as they are and counted.

The endpoint URLs are the operator's configuration, never taken from data or requests.
Uses only the standard library's HTTP client.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from rdflib.term import BNode, Literal, Node, URIRef

from ldids.errors import InputError
from ldids.ntriples import Quad, term
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.passes.summary import Summary

__all__ = ["StoreSummary", "normalize_store"]


def _candidates(config: Config) -> str:
    """The query for every term written in a prefixed form of a registered scheme, in any
    case (the registry's prefix pattern, derived from the schemes' declarations)."""
    pattern = config.registry.prefix_pattern.replace("\\", "\\\\")  # a SPARQL string: "\\." is "\."
    return (
        "SELECT DISTINCT ?t WHERE {\n"
        "  { ?t ?p ?o } UNION { ?s ?p ?t } UNION { GRAPH ?g { ?t ?p2 ?o2 } } UNION { GRAPH ?g2 { ?s2 ?p3 ?t } }\n"
        f'  FILTER ((isIRI(?t) || isLiteral(?t)) && REGEX(STR(?t), "{pattern}", "i"))\n'
        "}"
    )


@dataclass
class StoreSummary:
    terms_found: int = 0
    terms_rewritten: int = 0
    statements_rewritten: int = 0
    links: int = 0
    updates: int = 0
    problems: int = 0
    blank_node_statements: int = 0  # holding a term to rewrite, left as they are
    rewritten: Counter[str] = field(default_factory=Counter)

    def summary(self) -> Summary:
        """The one summary (ldids.passes.summary). A live store is not read whole, so the
        statements in and out are not known (null); terms and updates are this path's own."""
        return Summary(
            statements_in=None,
            statements_out=None,
            statements_rewritten=self.statements_rewritten,
            links=self.links,
            rewritten=Counter(self.rewritten),
            run=self.to_json(),
        )

    def to_json(self) -> dict[str, object]:
        return {
            "terms_found": self.terms_found,
            "terms_rewritten": self.terms_rewritten,
            "statements_rewritten": self.statements_rewritten,
            "identifiers_rewritten": dict(sorted(self.rewritten.items())),
            "links": self.links,
            "updates": self.updates,
            "problems": self.problems,
            "blank_node_statements_left": self.blank_node_statements,
        }


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

    def select(self, query: str) -> list[dict[str, Node]]:
        answer = self._send(
            self.query_url, query.encode(), "application/sparql-query", "application/sparql-results+json"
        )
        rows = []
        for binding in json.loads(answer)["results"]["bindings"]:
            rows.append({name: _node(value) for name, value in binding.items()})
        return rows

    def update(self, text: str) -> None:
        self._send(self.update_url, text.encode("utf-8"), "application/sparql-update")


def _node(value: dict[str, str]) -> Node:
    kind = value["type"]
    if kind == "uri":
        return URIRef(value["value"])
    if kind == "bnode":
        return BNode(value["value"])
    if "xml:lang" in value:
        return Literal(value["value"], lang=value["xml:lang"])
    return Literal(value["value"], datatype=URIRef(value["datatype"]) if "datatype" in value else None)


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

    ``update_url`` defaults to ``query_url``; ``max_batches`` stops early (as an interruption
    would), leaving a consistent store that a later run finishes.
    """
    settings = config or Config()
    endpoint = _Endpoint(query_url, update_url or query_url, timeout)
    summary = StoreSummary()
    cache = passes.TermCache(settings)
    terms = [row["t"] for row in endpoint.select(_candidates(settings))]
    summary.terms_found = len(terms)
    # Terms whose rewrite does not depend on a predicate can be told apart here; literals
    # under configured bare-form predicates are decided statement by statement below.
    pending = []
    for node in sorted(terms, key=term):
        known = cache.look_up(node, None)
        if known is not None and known.term is not None:
            pending.append(node)
        elif known is not None and known.decision.action == "invalid":
            summary.problems += 1
    rewritten_terms: set[Node] = set()
    for start in range(0, len(pending), batch):
        if max_batches is not None and summary.updates >= max_batches:
            break
        chosen = pending[start : start + batch]
        values = " ".join(term(node) for node in chosen)
        # The term is bound into each pattern, so the store answers from its indexes.
        rows = endpoint.select(
            f"""SELECT DISTINCT ?s ?p ?o ?g WHERE {{
              VALUES ?t {{ {values} }}
              {{ ?t ?p ?o BIND (?t AS ?s) }} UNION {{ ?s ?p ?t BIND (?t AS ?o) }}
              UNION {{ GRAPH ?g {{ ?t ?p ?o }} BIND (?t AS ?s) }} UNION {{ GRAPH ?g {{ ?s ?p ?t }} BIND (?t AS ?o) }}
              UNION {{ GRAPH ?t {{ ?s ?p ?o }} BIND (?t AS ?g) }}
            }}"""
        )
        before: dict[Quad, None] = {}
        after: dict[Quad, None] = {}
        found_links: dict[Quad, None] = {}
        for row in rows:
            quad: Quad = (row["s"], row["p"], row["o"], row.get("g"))
            if any(isinstance(node, BNode) for node in quad):
                # DELETE DATA cannot name a blank node: such a statement stays, and is counted.
                summary.blank_node_statements += 1
                continue
            step = passes.rewrite_quad(quad, cache)
            for link in passes.links(step, settings):
                found_links[link] = None
            if step.rewrites:
                before[quad] = None
                after[step.after] = None
                for change in step.rewrites:
                    summary.rewritten[change.scheme] += 1
                    rewritten_terms.add(change.original)
        if not before:
            continue
        inserted = list(after) + [link for link in found_links if link not in after]
        endpoint.update(f"DELETE DATA {{\n{_data_block(before)}\n}} ;\nINSERT DATA {{\n{_data_block(inserted)}\n}}")
        summary.updates += 1
        summary.statements_rewritten += len(before)
        summary.links += len(found_links)
    summary.terms_rewritten = len(rewritten_terms)
    return summary
