"""Routes that normalize RDF: a request body (``/normalize``: Content-Type in, Accept out,
the summary in the ``Ldids-Summary`` header) and the live store the service is configured
with (``/store/normalize``)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.background import BackgroundTask

from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.errors import InputError
from ldids.passes import graph as passes
from ldids.rdf import io as rdfio
from ldids.service.body import bounded_chunks, read_body
from ldids.service.negotiation import DEFAULT_TYPE, LINE_FORMATS, accepted, content_format, rdf_offers
from ldids.service.problem import ProblemError, input_problem
from ldids.service.state import AppState, ServiceState

__all__ = ["router"]

router = APIRouter()


@router.post("/normalize", summary="Normalize RDF: Content-Type in, Accept out")
async def normalize(request: Request, state: AppState, links: bool = True) -> Response:
    source = content_format(request)
    media = accepted(request, rdf_offers(), source.media_types[0] if source.writable else DEFAULT_TYPE)
    target = rdfio.resolve_format(media)
    if source.name in LINE_FORMATS and target.name in LINE_FORMATS and not (source.quads and not target.quads):
        return await _line_formats(request, state, source, target, links)
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
    summary.skipped.update(found.skipped)
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


async def _line_formats(
    request: Request, state: ServiceState, source: rdfio.Format, target: rdfio.Format, links: bool
) -> Response:
    """N-Triples/N-Quads in and out: the body, read whole within the limit into a file, goes
    through the streamed dump path of ``ldids normalize`` (the same output, byte for byte,
    and the same summary); the answer starts once the run is done, so a bad line is a 400
    and the summary can go in the header."""
    folder = Path(tempfile.mkdtemp(prefix="ldids-request-"))
    try:
        body = folder / f"body.{'nq' if source.quads else 'nt'}"
        with body.open("wb") as spool:
            async for chunk in bounded_chunks(request, state.max_body):
                spool.write(chunk)
        output, found_links = folder / "out", folder / "links.nt"
        settings = Settings(state.config, quads=target.quads)
        try:
            summary = await run_in_threadpool(
                normalize_dump, [str(body)], str(output), settings, links=str(found_links)
            )
        except InputError as error:
            raise input_problem(error) from error  # its line and column; not the service's file name
        new_links = found_links.read_bytes()
        if state.store is not None:
            state.store.record_links(new_links.decode("utf-8").splitlines())
        if links:
            with output.open("ab") as written:
                written.write(new_links)
        document = summary.summary()
        document.run["problem_samples"] = [
            sample.replace(str(body), "request body", 1) for sample in document.run.get("problem_samples", [])
        ]
        headers = {"Ldids-Summary": json.dumps(document.to_json())}
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return FileResponse(
        output,
        media_type=target.media_types[0],
        headers=headers,
        background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True),
    )
