"""The CPU work of the service's routes, as plain functions over files in a request's folder:
what runs in the worker pool (:mod:`ldids.service.pool`), never on the event loop.

Each takes and returns only what pickles (paths, names, the configuration, JSON-ready
values), so that a worker process can run it; outputs are written to files, which the route
answers with, rather than sent back through a pipe.

:func:`normalize` does what ``ldids normalize`` does with the same input, output format and
base: the streamed dump path (:func:`ldids.dumps.run.normalize_dump`) for N-Triples or
N-Quads out of N-Triples, N-Quads, Turtle, TriG or RDF/XML, the graph passes otherwise; so the
bytes are the command line's, byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ldids.errors import InputError
from ldids.passes.config import Config
from ldids.rdf.files import InputStream

__all__ = ["NormalizeJob", "Normalized", "ShapesError", "ValidateJob", "inspect", "normalize", "streamed", "validate"]

_LINE_FORMATS = ("nt", "nquads")


@dataclass(frozen=True)
class NormalizeJob:
    """A body spooled to ``folder/body`` in format ``source``, to be written as ``target``."""

    folder: str
    source: str  # a format name of ldids.rdf.formats
    target: str
    links: bool  # the owl:sameAs links after the statements (the command line's default)
    base: str | None  # relative IRIs resolve against it; None: they are errors
    config: Config


@dataclass
class Normalized:
    """Where the answer is (``folder/out``), its summary, and what the store keeps: the
    links (``folder/links.nt``) and, from the graph path, (canonical, as written) pairs."""

    summary: dict[str, Any]
    originals: list[tuple[str, str]] = field(default_factory=list)


def streamed(source: str, target: str) -> bool:
    """Whether ``ldids normalize`` streams this pair of formats (as its ``_streams`` decides):
    N-Triples or N-Quads out, from a format read as a stream, and no named graphs dropped."""
    from ldids.dumps.rdf_stream import PARSED_FORMATS
    from ldids.rdf.files import resolve_format

    if source not in _LINE_FORMATS + PARSED_FORMATS or target not in _LINE_FORMATS:
        return False
    return not (resolve_format(source).quads and target == "nt")


def normalize(job: NormalizeJob) -> Normalized:
    """Normalize ``folder/body`` into ``folder/out``; raises InputError for bad input."""
    folder = Path(job.folder)
    try:
        if streamed(job.source, job.target):
            return _normalize_stream(job, folder)
        return _normalize_graph(job, folder)
    except RecursionError:  # a reader's own recursion (JSON-LD, RDF/XML nesting)
        raise _too_deep() from None


def _too_deep() -> InputError:
    return InputError("the document nests too deeply to be read", source="request body")


def _normalize_stream(job: NormalizeJob, folder: Path) -> Normalized:
    from ldids.dumps.run import normalize_dump
    from ldids.dumps.stream import Settings
    from ldids.rdf.files import resolve_format

    body, output, links = folder / "body", folder / "out", folder / "links.nt"
    quads = resolve_format(job.source).quads or resolve_format(job.target).quads
    reader = None if job.source in _LINE_FORMATS else _Reader(job.source, job.base)
    summary = normalize_dump(
        [str(body)], str(output), Settings(job.config, quads=quads), links=str(links), statements=reader
    )
    if job.links:
        with output.open("ab") as written, links.open("rb") as found:
            while piece := found.read(1 << 20):
                written.write(piece)
    document = summary.summary()
    if not job.links:
        document.links = 0  # found, and not written (?links=false), as --no-links counts them
    document.run["problem_samples"] = [
        sample.replace(str(body), "request body", 1) for sample in document.run.get("problem_samples", [])
    ]
    return Normalized(document.to_json())


@dataclass(frozen=True)
class _Reader:
    """The statements of a Turtle, TriG or RDF/XML body, parsed as they are read, against the
    request's base only: never against the path the service spooled the body to."""

    fmt: str
    base: str | None

    def __call__(self, path: str, source: InputStream) -> InputStream:
        from ldids.dumps.rdf_stream import NQuadsReader

        return NQuadsReader(source, self.fmt, name=path, base=self.base)


def _normalize_graph(job: NormalizeJob, folder: Path) -> Normalized:
    from ldids.ntriples import quad_line
    from ldids.passes import graph as passes
    from ldids.rdf import io as rdfio

    found = rdfio.read_bytes((folder / "body").read_bytes(), job.source, "request body", job.base)
    result = passes.labelled(passes.normalize(found.quads, job.config))
    target = rdfio.resolve_format(job.target)
    payload = rdfio.serialize(result.quads + (result.links if job.links else []), target, found.prefixes)
    (folder / "out").write_bytes(payload)
    (folder / "links.nt").write_text("".join(quad_line(link) + "\n" for link in result.links), encoding="utf-8")
    summary = result.document(found.notes, found.skipped, links_written=job.links)
    originals = [(str(change.canonical), str(change.original)) for change in result.rewrites]
    return Normalized(summary.to_json(), originals)


def inspect(body: bytes, scheme: str | None, config: Config) -> list[dict[str, Any]]:
    """The ``ldids inspect --json`` objects of a JSON list of identifiers; raises ValueError
    (with a message for the client) if the body is not one."""
    try:
        texts = json.loads(body)
    except RecursionError as error:
        raise ValueError("the JSON nests too deeply") from error
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise ValueError("the body must be a JSON list of strings")
    for position, text in enumerate(texts):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate escape: no character (RFC 8259 §8.2)
            raise ValueError(f"item {position} holds a lone surrogate, which is no character") from error
    return [config.registry.inspect(text, scheme).to_json() for text in texts]


class ShapesError(ValueError):
    """Shapes sent along that the SHACL engine cannot use; 422 in the service."""


@dataclass(frozen=True)
class ValidateJob:
    """Data spooled to ``folder/body`` (format ``source``), shapes sent along, if any, to
    ``folder/shapes`` (format ``shapes``); the verdict is written to ``folder/out`` as ``media``."""

    folder: str
    source: str
    shapes: str | None
    base: str | None
    media: str  # application/json, text/turtle or text/plain


def validate(job: ValidateJob) -> None:
    """Validate with the shipped shapes and those sent along; raises InputError for bad input."""
    from pyparsing import ParseBaseException
    from pyshacl.errors import ReportableRuntimeError
    from rdflib import Graph

    from ldids.rdf import io as rdfio
    from ldids.shacl.safety import check_shapes
    from ldids.shacl.validate import validate as validate_data

    folder = Path(job.folder)
    extra: list[Graph] = []
    if job.shapes is not None:
        graph = Graph()
        try:
            shapes = rdfio.read_bytes((folder / "shapes").read_bytes(), job.shapes, "shapes", job.base)
        except InputError as error:  # the shapes part, not the data, cannot be read
            where = ":".join(str(part) for part in (error.line, error.column) if part is not None)
            raise ShapesError(f"the shapes cannot be read{' at ' + where if where else ''}: {error.message}") from None
        for s, p, o, _ in shapes.quads:
            graph.add((s, p, o))
        check_shapes(graph)
        extra.append(graph)
    try:
        found = rdfio.read_bytes((folder / "body").read_bytes(), job.source, "request body", job.base)
    except RecursionError:
        raise _too_deep() from None
    try:
        verdict = validate_data(found.quads, extra)
    except ReportableRuntimeError as error:  # the shapes sent along cannot be used
        if not extra:
            raise
        raise ShapesError(f"the shapes cannot be used: {error.message}") from None
    except ParseBaseException as error:  # SPARQL in the shapes sent along that does not parse
        if not extra:
            raise
        raise ShapesError(f"SPARQL in the shapes does not parse: {error}") from None
    out = folder / "out"
    if job.media == "text/turtle":
        from ldids.rdf.io import graph_turtle

        out.write_bytes(graph_turtle(verdict.report))
    elif job.media == "text/plain":
        lines = ["conforms" if verdict.conforms else f"does not conform: {len(verdict.violations)} results"]
        lines += [f"{v.severity}: {v.focus}: {v.message} [{v.shape}]" for v in verdict.violations]
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        out.write_text(json.dumps(verdict.to_json(limit=None)), encoding="utf-8")
