"""Routes that normalize RDF: a request body (``/normalize``: Content-Type in, Accept out,
the summary in the ``Ldids-Summary`` header) and the live store the service is configured
with (``/store/normalize``)."""

from __future__ import annotations

import hmac
import json
import shutil
import tempfile
from functools import partial
from pathlib import Path

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.background import BackgroundTask

from ldids.errors import InputError
from ldids.rdf import io as rdfio
from ldids.service import jobs
from ldids.service.body import spool_body
from ldids.service.negotiation import DEFAULT_TYPE, accepted, content_format, rdf_offers
from ldids.service.problem import ProblemError, input_problem
from ldids.service.state import AppState

__all__ = ["BASE_DESCRIPTION", "checked_base", "router"]

router = APIRouter()

BASE_DESCRIPTION = (
    "the absolute IRI relative IRIs in the body resolve against (as ldids normalize --base); "
    "without it a relative IRI is an error: a request body has no place of its own"
)


def checked_base(base: str | None) -> str | None:
    """The ``base`` parameter if it is an absolute IRI (RFC 3987), else 400."""
    if base is not None:
        import pyoxigraph

        try:
            pyoxigraph.NamedNode(base)
        except ValueError as error:  # UnicodeError (a lone surrogate) is one too
            raise ProblemError(
                400, "ldids.base", "Invalid base IRI", f"base must be an absolute IRI: {error}"
            ) from None
    return base


@router.post("/normalize", summary="Normalize RDF: Content-Type in, Accept out")
async def normalize(
    request: Request,
    state: AppState,
    links: bool = True,
    base: str | None = Query(None, description=BASE_DESCRIPTION),
) -> Response:
    """The answer is what ``ldids normalize -i SOURCE -t TARGET [--base B] [--no-links]``
    writes for the same body: the body is read whole (spooled to a file) before anything is
    parsed, then normalized by the command line's own path for that pair of formats."""
    base = checked_base(base)
    source = content_format(request)
    media = accepted(request, rdf_offers(), source.media_types[0] if source.writable else DEFAULT_TYPE)
    target = rdfio.resolve_format(media)
    folder = Path(tempfile.mkdtemp(prefix="ldids-request-"))
    try:
        await spool_body(request, state.max_body, folder / "body")
        job = jobs.NormalizeJob(str(folder), source.name, target.name, links, base, state.config)
        try:
            done = await state.pool.run(jobs.normalize, job)
        except InputError as error:
            raise input_problem(error, folder) from error
        if state.store is not None:
            await run_in_threadpool(_record, state.store, folder, done)
        headers = {"Ldids-Summary": json.dumps(done.summary)}
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder_answer(folder, media, headers)


def _record(store: object, folder: Path, done: jobs.Normalized) -> None:
    from ldids.service.store import IdentityStore

    assert isinstance(store, IdentityStore)
    with (folder / "links.nt").open(encoding="utf-8") as lines:
        store.record_links(line.rstrip("\n") for line in lines)
    store.record_originals(done.originals)


@router.post("/store/normalize", summary="Normalize the live store this service is configured with")
async def normalize_live_store(
    request: Request,
    state: AppState,
    dry_run: bool = Query(False, description="report what would change (run.changes_left) and change nothing"),
) -> JSONResponse:
    """Writes to the operator's store: only with its token (``Authorization: Bearer``)."""
    from ldids.dumps.sparql import normalize_store

    if state.sparql is None:
        raise ProblemError(404, "ldids.no-live-store", "No live store", "this service was started without --sparql")
    _authorize(request, state.token)
    query, update = state.sparql
    try:
        # No update is sent past max_batches: 0 makes the run a dry one, its summary complete.
        summary = await run_in_threadpool(
            partial(normalize_store, query, update, state.config, max_batches=0 if dry_run else None)
        )
    except InputError as error:
        raise ProblemError(502, "ldids.service.store-unreachable", "Live store failed", error.message) from error
    document = summary.summary().to_json()
    document["dry_run"] = dry_run
    return JSONResponse(document)


def _authorize(request: Request, token: str | None) -> None:
    """The request's bearer token (RFC 6750 §2.1), compared in constant time with the
    configured one (so its length and prefix cannot be timed); 401 without it, 403 when the
    service has none: then it writes to no store."""
    if token is None:
        raise ProblemError(
            403, "ldids.no-token", "Writing refused", "this service was started without --token-file: it writes nowhere"
        )
    scheme, _, given = (request.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise ProblemError(
            401,
            "ldids.unauthorized",
            "Token needed",
            "send the service's token as Authorization: Bearer TOKEN",
            {"WWW-Authenticate": 'Bearer realm="ldids"'},
        )


def folder_answer(folder: Path, media: str, headers: dict[str, str] | None = None) -> FileResponse:
    """The job's output (``folder/out``) as the answer; the folder is removed once it is sent."""
    return FileResponse(
        folder / "out",
        media_type=media,
        headers=headers,
        background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True),
    )
