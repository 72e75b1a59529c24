"""Routes about identifiers one by one: what one is (``/inspect``, the objects of ``ldids
inspect --json``) and what it is known to be the same as (``/known``, from the store)."""

from __future__ import annotations

import json

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from ldids.errors import ParseError
from ldids.schemes.registry import PRECEDENCE, UnknownSchemeError
from ldids.service import jobs
from ldids.service.body import read_body
from ldids.service.problem import ProblemError
from ldids.service.state import AppState

__all__ = ["router"]

router = APIRouter()


# Inspecting takes microseconds: on the event loop, not a trip through the thread pool.
@router.get("/inspect", summary="Inspect one identifier")
async def inspect_one(
    state: AppState,
    identifier: str = Query(..., alias="id", description="the identifier"),
    scheme: str | None = Query(None, description=f"one of {', '.join(PRECEDENCE)}"),
) -> JSONResponse:
    try:
        return JSONResponse(state.config.registry.inspect(identifier, scheme).to_json())
    except UnknownSchemeError as error:
        raise ProblemError(400, "ldids.unknown-scheme", "Unknown scheme", str(error)) from error


@router.get("/known", summary="Identifiers known to be the same (from earlier normalizations)")
async def known(
    state: AppState, identifier: str = Query(..., alias="id", description="the identifier")
) -> JSONResponse:
    if state.store is None:
        raise ProblemError(404, "ldids.no-store", "No store", "this service keeps no store")
    try:
        return JSONResponse(state.store.known(identifier, state.config))
    except (ParseError, ValueError) as error:
        raise ProblemError(400, "ldids.invalid-identifier", "Invalid identifier", str(error)) from error


@router.post("/inspect", summary="Inspect a batch of identifiers (a JSON list of strings)")
async def inspect_many(request: Request, state: AppState, scheme: str | None = None) -> JSONResponse:
    body = await read_body(request, state.max_body)
    try:
        found = await state.pool.run(jobs.inspect, body, scheme, state.config)
    except UnknownSchemeError as error:
        raise ProblemError(400, "ldids.unknown-scheme", "Unknown scheme", str(error)) from error
    except ValueError as error:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ProblemError(400, "ldids.json", "Invalid JSON", str(error), None, **_position(error)) from error
    return JSONResponse(found)


def _position(error: ValueError) -> dict[str, int]:
    """Where a JSON error is (1-based line and column, as json.JSONDecodeError counts)."""
    if isinstance(error, json.JSONDecodeError):
        return {"line": error.lineno, "column": error.colno}
    return {}
