"""The HTTP service (ASGI, FastAPI): the same core and passes as the command line.

- ``GET /inspect?id=...`` and ``POST /inspect`` (a JSON list): the objects of ``ldids inspect --json``;
- ``POST /normalize``: RDF in the syntax its ``Content-Type`` names, back in the one ``Accept``
  asks for; the summary in the ``Ldids-Summary`` header; ``?links=false`` leaves the links out;
- ``POST /validate``: the SHACL verdict as JSON, Turtle or text (``Accept``); shapes can be
  sent along as a multipart form (``data`` and ``shapes`` parts);
- ``GET /vocab`` and ``GET /shapes``: the shipped vocabulary and shapes, content-negotiated;
- ``GET /``: a page for people: paste identifiers or Turtle, see schemes, canonical forms,
  equivalents, problems with the offending characters marked, and the SHACL verdict;
- errors as RFC 9457 problem details with the CLI's codes: 400 with line and column for
  syntax errors, 413 over the body limit, 415 for an unsupported media type, 406 when no
  acceptable syntax can be written.

Nothing named in a request or in the data is ever fetched (the readers refuse it).
Needs the optional dependencies of ``pip install 'ldids[service]'``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from rdflib import Graph

from ldids import __version__
from ldids.dumps.blocks import BlockCutter
from ldids.dumps.sorting import SortedUnique, difference
from ldids.dumps.stream import Settings, process_block
from ldids.errors import InputError, LdidsError, ParseError
from ldids.ntriples import Quad
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import io as rdfio
from ldids.resources import shapes_graph, vocabulary_graph
from ldids.schemes.registry import PRECEDENCE, UnknownSchemeError
from ldids.service.store import IdentityStore

__all__ = ["DEFAULT_MAX_BODY", "create_app"]

DEFAULT_MAX_BODY = 10 * 1024 * 1024
PROBLEM = "application/problem+json"
_WRITABLE = [f for f in rdfio.FORMATS if f.writable]
_DEFAULT_TYPE = "text/turtle"
_LINE_FORMATS = ("nt", "nquads")


class ProblemError(Exception):
    """An error to answer with problem details (RFC 9457)."""

    def __init__(self, status: int, code: str, title: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.code, self.title, self.detail, self.extra = status, code, title, detail, extra


def _problem(problem: ProblemError) -> JSONResponse:
    body = {
        "type": f"https://w3id.org/ldids/problems#{problem.code}",
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
        "code": problem.code,
        **{key: value for key, value in problem.extra.items() if value is not None},
    }
    return JSONResponse(body, status_code=problem.status, media_type=PROBLEM)


def _input_problem(error: InputError) -> ProblemError:
    return ProblemError(400, "ldids.input", "Unreadable input", error.message, line=error.line, column=error.column)


async def _body(request: Request, limit: int) -> bytes:
    """The whole request body, refused with 413 as soon as it passes ``limit`` bytes."""
    return b"".join([chunk async for chunk in _bounded_chunks(request, limit)])


async def _bounded_chunks(request: Request, limit: int) -> AsyncIterator[bytes]:
    """The body's chunks, refused with 413 past ``limit`` bytes (checked before answering
    when the length is declared)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ProblemError(413, "ldids.too-large", "Request body too large", f"the limit is {limit} bytes", limit=limit)
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ProblemError(
                413, "ldids.too-large", "Request body too large", f"the limit is {limit} bytes", limit=limit
            )
        yield chunk


def _content_format(request: Request) -> rdfio.Format:
    media = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if not media:
        raise ProblemError(
            415, "ldids.media-type", "Unsupported media type", "name the syntax of the body in Content-Type"
        )
    for fmt in rdfio.FORMATS:
        if media in fmt.media_types:
            return fmt
    known = ", ".join(t for f in rdfio.FORMATS for t in f.media_types)
    raise ProblemError(
        415, "ldids.media-type", "Unsupported media type", f"{media!r} is not a syntax ldids reads; known: {known}"
    )


def _accepted(request: Request, offers: list[str], default: str) -> str:
    """The first offered media type the Accept header allows (by q, then order)."""
    header = request.headers.get("accept") or "*/*"
    ranges: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")):
        parts = [part.strip() for part in item.split(";")]
        quality = 1.0
        for parameter in parts[1:]:
            if parameter.startswith("q="):
                try:
                    quality = float(parameter[2:])
                except ValueError:
                    quality = 0.0
        ranges.append((-quality, position, parts[0].lower()))
    for negative_quality, _, wanted in sorted(ranges):
        if negative_quality >= 0:
            continue
        if wanted in ("*/*", "*"):
            return default
        if wanted.endswith("/*"):
            match = next((offer for offer in offers if offer.startswith(wanted[:-1])), None)
            if match:
                return match
        elif wanted in offers:
            return wanted
    raise ProblemError(406, "ldids.not-acceptable", "Not acceptable", f"available: {', '.join(offers)}")


def _rdf_offers() -> list[str]:
    return [fmt.media_types[0] for fmt in _WRITABLE]


def create_app(
    config: Config | None = None,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    store: IdentityStore | None = None,
    sparql: tuple[str, str] | None = None,
) -> FastAPI:
    """The ASGI application; ``config`` as for the graph passes; ``store`` keeps what every
    normalization learned (``ldids serve`` opens one in its default place); ``sparql`` is the
    (query, update) endpoint pair of a live store that ``POST /store/normalize`` normalizes:
    the operator's configuration, never a URL taken from a request."""
    settings = config or Config()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if store is not None:
            store.flush()  # everything on disk when the service stops

    app = FastAPI(
        lifespan=lifespan,
        title="ldids",
        version=__version__,
        description="Find persistent identifiers (Fedora PIDs, info:fedora URIs, OAI identifiers, POIs, handles) "
        "in RDF and put them into canonical form.",
    )

    @app.exception_handler(ProblemError)
    async def problem_handler(request: Request, problem: ProblemError) -> JSONResponse:
        return _problem(problem)

    # Inspecting takes microseconds: on the event loop, not a trip through the thread pool.
    @app.get("/inspect", summary="Inspect one identifier")
    async def inspect_one(
        identifier: str = Query(..., alias="id", description="the identifier"),
        scheme: str | None = Query(None, description=f"one of {', '.join(PRECEDENCE)}"),
    ) -> JSONResponse:
        try:
            return JSONResponse(settings.registry.inspect(identifier, scheme).to_json())
        except UnknownSchemeError as error:
            raise ProblemError(400, "ldids.unknown-scheme", "Unknown scheme", str(error)) from error

    @app.get("/known", summary="Identifiers known to be the same (from earlier normalizations)")
    async def known(identifier: str = Query(..., alias="id", description="the identifier")) -> JSONResponse:
        if store is None:
            raise ProblemError(404, "ldids.no-store", "No store", "this service keeps no store")
        try:
            return JSONResponse(store.known(identifier, settings))
        except (ParseError, ValueError) as error:
            raise ProblemError(400, "ldids.invalid-identifier", "Invalid identifier", str(error)) from error

    @app.post("/inspect", summary="Inspect a batch of identifiers (a JSON list of strings)")
    async def inspect_many(request: Request, scheme: str | None = None) -> JSONResponse:
        body = await _body(request, max_body)
        try:
            texts = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ProblemError(400, "ldids.json", "Invalid JSON", str(error)) from error
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            raise ProblemError(400, "ldids.json", "Invalid request", "the body must be a JSON list of strings")
        try:
            return JSONResponse([settings.registry.inspect(text, scheme).to_json() for text in texts])
        except UnknownSchemeError as error:
            raise ProblemError(400, "ldids.unknown-scheme", "Unknown scheme", str(error)) from error

    @app.post("/normalize", summary="Normalize RDF: Content-Type in, Accept out")
    async def normalize(request: Request, links: bool = True) -> Response:
        source = _content_format(request)
        media = _accepted(request, _rdf_offers(), source.media_types[0] if source.writable else _DEFAULT_TYPE)
        target = rdfio.resolve_format(media)
        if source.name in _LINE_FORMATS and target.name in _LINE_FORMATS and not (source.quads and not target.quads):
            return await _streamed(request, target, links)
        body = await _body(request, max_body)
        try:
            found = rdfio.read_bytes(body, source, "request body")
            result = passes.normalize(found.quads, settings)
            payload = rdfio.serialize(result.quads + (result.links if links else []), target)
        except InputError as error:
            raise _input_problem(error) from error
        if store is not None:
            store.record(result)
        summary = {**result.summary(), "notes": found.notes}
        return Response(payload, media_type=media, headers={"Ldids-Summary": json.dumps(summary)})

    async def _streamed(request: Request, target: rdfio.Format, links: bool) -> Response:
        """Line-format bodies, block by block through the stream's process_block, answered as
        they come; the links, de-duplicated, follow the statements. A malformed line ends the
        answer with an error: the first block is checked before the answer starts, so most
        bad input still gets a proper 400."""
        block_settings = Settings(settings, quads=target.quads)
        chunks = _bounded_chunks(request, max_body)

        async def blocks_of() -> AsyncIterator[tuple[bytes, int]]:
            cutter = BlockCutter()
            async for chunk in chunks:
                found = cutter.feed(chunk)
                if found is not None:
                    yield found
            last = cutter.end()
            if last is not None:
                yield last

        pending = blocks_of()
        first = await anext(pending, None)
        results = []
        if first is not None:
            result = process_block(first[0], first[1], block_settings)
            if result.bad:
                bad = result.bad[0]
                raise ProblemError(
                    400, "ldids.input", "Unreadable input", bad.message, line=bad.line, column=bad.column
                )
            results.append(result)

        async def answer() -> AsyncIterator[bytes]:
            found_links, present = SortedUnique(), SortedUnique()
            for result in results:
                found_links.add_all(result.links)
                present.add_all(result.same_as)
                yield bytes(result.output)  # the same object: an output is bytes unless put into a buffer
            async for block, first_line in pending:
                result = process_block(block, first_line, block_settings)
                if result.bad:
                    bad = result.bad[0]
                    yield f"# ldids: stopped at line {bad.line}, column {bad.column}: {bad.message}\n".encode()
                    return
                found_links.add_all(result.links)
                present.add_all(result.same_as)
                yield bytes(result.output)
            new_links = list(difference(found_links, present))
            if store is not None:
                store.record_links(new_links)
            if links:
                for line in new_links:
                    yield f"{line}\n".encode()

        return StreamingResponse(answer(), media_type=target.media_types[0])

    @app.post("/store/normalize", summary="Normalize the live store this service is configured with")
    async def normalize_live_store() -> JSONResponse:
        from fastapi.concurrency import run_in_threadpool

        from ldids.dumps.sparql import normalize_store

        if sparql is None:
            raise ProblemError(404, "ldids.no-live-store", "No live store", "this service was started without --sparql")
        try:
            summary = await run_in_threadpool(normalize_store, sparql[0], sparql[1], settings)
        except InputError as error:
            raise ProblemError(502, "ldids.service.store-unreachable", "Live store failed", error.message) from error
        return JSONResponse(summary.to_json())

    @app.post("/validate", summary="Validate RDF with the shipped SHACL shapes (and shapes sent along)")
    async def validate(request: Request) -> Response:
        from ldids.shacl.validate import validate as validate_data

        media = _accepted(request, ["application/json", "text/turtle", "text/plain"], "application/json")
        extra: list[Graph] = []
        content_type = (request.headers.get("content-type") or "").lower()
        try:
            if content_type.startswith("multipart/form-data"):
                # The form's uploaded parts are temporary files: closed when the block ends.
                async with request.form(max_part_size=max_body) as form:
                    data_part, shapes_part = form.get("data"), form.get("shapes")
                    if data_part is None or isinstance(data_part, str):
                        raise ProblemError(
                            400, "ldids.form", "Missing data", "send the data as a file part named 'data'"
                        )
                    data = await data_part.read()
                    fmt = rdfio.resolve_format(data_part.content_type or _DEFAULT_TYPE)
                    if shapes_part is not None and not isinstance(shapes_part, str):
                        shape_type = shapes_part.content_type or _DEFAULT_TYPE
                        extra.append(_graph(rdfio.read_bytes(await shapes_part.read(), shape_type, "shapes").quads))
            else:
                data = await _body(request, max_body)
                fmt = _content_format(request)
            found = rdfio.read_bytes(data, fmt, "request body")
            verdict = validate_data(found.quads, extra)
        except InputError as error:
            raise _input_problem(error) from error
        except LdidsError as error:
            raise ProblemError(400, "ldids.input", "Unreadable input", str(error)) from error
        if media == "text/turtle":
            return Response(verdict.report.serialize(format="turtle"), media_type=media)
        if media == "text/plain":
            lines = ["conforms" if verdict.conforms else f"does not conform: {len(verdict.violations)} results"]
            lines += [f"{v.severity}: {v.focus}: {v.message} [{v.shape}]" for v in verdict.violations]
            return PlainTextResponse("\n".join(lines) + "\n")
        return JSONResponse(verdict.to_json(limit=None))

    def _document(request: Request, graph_quads: list[Quad]) -> Response:
        media = _accepted(request, _rdf_offers(), _DEFAULT_TYPE)
        return Response(rdfio.serialize(graph_quads, rdfio.resolve_format(media)), media_type=media)

    @app.get("/", summary="A page for people", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse((resources.files("ldids.service") / "static" / "index.html").read_text(encoding="utf-8"))

    @app.get("/vocab", summary="The ldids vocabulary")
    def vocabulary(request: Request) -> Response:
        return _document(request, [(s, p, o, None) for s, p, o in vocabulary_graph()])

    @app.get("/shapes", summary="The SHACL shapes shipped with ldids")
    def shapes(request: Request) -> Response:
        return _document(request, [(s, p, o, None) for s, p, o in shapes_graph()])

    return app


def _graph(quads: list[Quad]) -> Graph:
    graph = Graph()
    for s, p, o, _ in quads:
        graph.add((s, p, o))
    return graph
