"""A run's crosswalk written and read back (CSV or N-Triples), and the statements a run
wrote read back with their blank nodes shared: what ``ldids undo`` needs."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from rdflib import RDF, Graph
from rdflib.term import BNode, Literal, Node, URIRef

from ldids.errors import InputError
from ldids.namespace import LDIDS
from ldids.ntriples import Quad, quad_line
from ldids.passes.graph import Crosswalk
from ldids.rdf.compression import plain_name
from ldids.rdf.files import Format, guess_format, resolve_format
from ldids.rdf.io import _load, _rdflib_quietly, read
from ldids.rdf.oxigraph import oxigraph_quads

__all__ = ["LineParser", "crosswalk_bytes", "read_crosswalk"]


def crosswalk_bytes(rows: Iterable[Crosswalk], path: str) -> bytes:
    """Crosswalk rows as CSV (``.csv``) or N-Triples (``.nt``), chosen by ``path`` (before
    any compression extension: ``changes.csv.gz``)."""
    name = plain_name(path).lower()
    if name.endswith(".csv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(Crosswalk.FIELDS)
        for row in rows:
            writer.writerow(row.values())
        return buffer.getvalue().encode("utf-8")
    if name.endswith(".nt"):
        lines: list[str] = []
        for index, row in enumerate(rows):
            node = BNode(f"r{index}")
            kind = LDIDS.Rewrite if row.kind == "rewrite" else LDIDS.Link
            statements: list[tuple[URIRef, Node]] = [
                (RDF.type, kind),
                (LDIDS.rewrittenStatement, Literal(row.rewritten)),
            ]
            if row.kind == "rewrite":
                statements += [
                    (LDIDS.scheme, Literal(row.scheme)),
                    (LDIDS.position, Literal(row.position)),
                    (LDIDS.originalForm, Literal(row.original)),
                    (LDIDS.canonicalForm, Literal(row.canonical)),
                    (LDIDS.statement, Literal(row.statement)),
                    (LDIDS.kept, Literal(row.kept)),
                ]
            lines.extend(quad_line((node, predicate, value, None)) for predicate, value in statements)
        return "".join(line + "\n" for line in lines).encode("utf-8")
    raise InputError("a crosswalk file ends in .csv or .nt", source=path)


def read_crosswalk(path: str) -> list[Crosswalk]:
    """Crosswalk rows back from a CSV or N-Triples crosswalk file."""
    data = _load(path)
    if plain_name(path).lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(data.decode("utf-8")))
        if tuple(reader.fieldnames or ()) != Crosswalk.FIELDS:
            raise InputError(
                f"not an ldids crosswalk: the columns must be {', '.join(Crosswalk.FIELDS)}", source=path, line=1
            )
        rows = []
        for record in reader:
            kind = record["kind"]
            if kind not in ("rewrite", "link"):
                raise InputError(f"unknown row kind {kind!r}", source=path, line=reader.line_num)
            rows.append(
                Crosswalk(
                    "rewrite" if kind == "rewrite" else "link",
                    record["scheme"],
                    record["position"],
                    record["original"],
                    record["canonical"],
                    record["statement"],
                    record["rewritten"],
                    record["kept"] == "true",
                )
            )
        return rows
    graph = Graph()
    with _rdflib_quietly():
        for s, p, o, _ in oxigraph_quads(data, resolve_format("nt"), path, None):
            graph.add((s, p, o))
    rows = []
    for node in sorted(
        set(graph.subjects(RDF.type, LDIDS.Rewrite)) | set(graph.subjects(RDF.type, LDIDS.Link)), key=str
    ):

        def text(predicate: URIRef, subject: Node = node) -> str:
            value = graph.value(subject, predicate)
            return "" if value is None else str(value)

        is_rewrite = (node, RDF.type, LDIDS.Rewrite) in graph
        rows.append(
            Crosswalk(
                "rewrite" if is_rewrite else "link",
                text(LDIDS.scheme),
                text(LDIDS.position),
                text(LDIDS.originalForm),
                text(LDIDS.canonicalForm),
                text(LDIDS.statement),
                text(LDIDS.rewrittenStatement),
                text(LDIDS.kept) == "true",
            )
        )
    return rows


class LineParser:
    """N-Quads lines to quads, blank node labels shared with :meth:`read_labeled` (undo)."""

    def __init__(self) -> None:
        self.blank_nodes: dict[str, BNode] = {}

    def quad(self, line: str) -> Quad:
        try:
            with _rdflib_quietly():
                found = list(oxigraph_quads(line.encode("utf-8"), resolve_format("nquads"), "", None, self.blank_nodes))
        except InputError as error:
            raise InputError(f"not an N-Quads statement: {line!r} ({error.message})") from error
        if len(found) != 1:
            raise InputError(f"not one N-Quads statement: {line!r}")
        return found[0]

    def read_labeled(self, path: str, fmt: Format | None = None) -> list[Quad]:
        """Statements of one file, keeping its blank node labels (N-Triples, N-Quads only)."""
        data = _load(path)
        chosen = fmt or guess_format(path, data)
        if chosen.name not in ("nt", "nquads"):
            return read([path], chosen).quads
        with _rdflib_quietly():
            return list(oxigraph_quads(data, chosen, path, None, self.blank_nodes))
