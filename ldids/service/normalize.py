"""Routes that normalize RDF: a request body (``/normalize``: Content-Type in, Accept out,
the summary in the ``Ldids-Summary`` header) and the live store the service is configured
with (``/store/normalize``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ldids.dumps.blocks import BlockCutter
from ldids.dumps.sorting import SortedUnique, difference
from ldids.dumps.stream import BlockResult, Settings, process_block
from ldids.errors import InputError
from ldids.passes import graph as passes
from ldids.rdf import io as rdfio
from ldids.service.body import bounded_chunks, read_body
from ldids.service.negotiation import DEFAULT_TYPE, LINE_FORMATS, accepted, content_format, rdf_offers
from ldids.service.problem import ProblemError, input_problem
from ldids.service.state import AppState, ServiceState
from ldids.service.store import IdentityStore

__all__ = ["router"]

router = APIRouter()


@router.post("/normalize", summary="Normalize RDF: Content-Type in, Accept out")
async def normalize(request: Request, state: AppState, links: bool = True) -> Response:
    source = content_format(request)
    media = accepted(request, rdf_offers(), source.media_types[0] if source.writable else DEFAULT_TYPE)
    target = rdfio.resolve_format(media)
    if source.name in LINE_FORMATS and target.name in LINE_FORMATS and not (source.quads and not target.quads):
        return await _streamed(request, state, target, links)
    body = await read_body(request, state.max_body)
    try:
        found = rdfio.read_bytes(body, source, "request body")
        result = passes.normalize(found.quads, state.config)
        payload = rdfio.serialize(result.quads + (result.links if links else []), target)
    except InputError as error:
        raise input_problem(error) from error
    if state.store is not None:
        state.store.record(result)
    summary = result.summary()
    summary.run = {"notes": found.notes}
    return Response(payload, media_type=media, headers={"Ldids-Summary": json.dumps(summary.to_json())})


@router.post("/store/normalize", summary="Normalize the live store this service is configured with")
async def normalize_live_store(state: AppState) -> JSONResponse:
    from ldids.dumps.sparql import normalize_store

    if state.sparql is None:
        raise ProblemError(404, "ldids.no-live-store", "No live store", "this service was started without --sparql")
    query, update = state.sparql
    try:
        summary = await run_in_threadpool(normalize_store, query, update, state.config)
    except InputError as error:
        raise ProblemError(502, "ldids.service.store-unreachable", "Live store failed", error.message) from error
    return JSONResponse(summary.summary().to_json())


async def _streamed(request: Request, state: ServiceState, target: rdfio.Format, links: bool) -> Response:
    """Line-format bodies, block by block through the stream's process_block, answered as
    they come; the links, de-duplicated, follow the statements. A malformed line ends the
    answer with an error: the first block is checked before the answer starts, so most
    bad input still gets a proper 400."""
    settings = Settings(state.config, quads=target.quads)
    pending = _blocks(bounded_chunks(request, state.max_body))
    first = await anext(pending, None)
    results = []
    if first is not None:
        result = process_block(first[0], first[1], settings)
        if result.bad:
            bad = result.bad[0]
            raise ProblemError(400, "ldids.input", "Unreadable input", bad.message, line=bad.line, column=bad.column)
        results.append(result)
    answer = _answer(results, pending, settings, state.store, links)
    return StreamingResponse(answer, media_type=target.media_types[0])


async def _blocks(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[bytes, int]]:
    """The body's whole lines, a block per chunk that completes one, each with the number
    of its first line."""
    cutter = BlockCutter()
    async for chunk in chunks:
        found = cutter.feed(chunk)
        if found is not None:
            yield found
    last = cutter.end()
    if last is not None:
        yield last


async def _answer(
    checked: list[BlockResult],
    pending: AsyncIterator[tuple[bytes, int]],
    settings: Settings,
    store: IdentityStore | None,
    links: bool,
) -> AsyncIterator[bytes]:
    """The streamed answer: the blocks ``checked`` already, then the ``pending`` ones as they
    are processed, then the links found that the data did not state already."""
    found_links, present = SortedUnique(), SortedUnique()
    for result in checked:
        found_links.add_all(result.links)
        present.add_all(result.same_as)
        yield bytes(result.output)  # the same object: an output is bytes unless put into a buffer
    async for block, first_line in pending:
        result = process_block(block, first_line, settings)
        if result.bad:
            bad = result.bad[0]
            # The answer has begun (status 200): the error can only be told in the data.
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
