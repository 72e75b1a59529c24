"""The route that validates RDF with the shipped SHACL shapes, and shapes sent along: the
verdict as JSON, Turtle or text (``Accept``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from rdflib import Graph

from ldids.errors import InputError, LdidsError
from ldids.ntriples import Quad
from ldids.rdf import io as rdfio
from ldids.service.body import read_body
from ldids.service.negotiation import DEFAULT_TYPE, accepted, content_format
from ldids.service.problem import ProblemError, input_problem
from ldids.service.state import AppState

if TYPE_CHECKING:
    from ldids.shacl.validate import Verdict

__all__ = ["router"]

router = APIRouter()

_VERDICT_TYPES = ["application/json", "text/turtle", "text/plain"]


@router.post("/validate", summary="Validate RDF with the shipped SHACL shapes (and shapes sent along)")
async def validate(request: Request, state: AppState) -> Response:
    # pyshacl is loaded on the first validation, not when the service starts.
    from ldids.shacl.validate import validate as validate_data

    media = accepted(request, _VERDICT_TYPES, "application/json")
    extra: list[Graph] = []
    content_type = (request.headers.get("content-type") or "").lower()
    try:
        if content_type.startswith("multipart/form-data"):
            data, fmt = await _form_parts(request, state.max_body, extra)
        else:
            data = await read_body(request, state.max_body)
            fmt = content_format(request)
        found = rdfio.read_bytes(data, fmt, "request body")
        verdict = validate_data(found.quads, extra)
    except InputError as error:
        raise input_problem(error) from error
    except LdidsError as error:
        raise ProblemError(400, "ldids.input", "Unreadable input", str(error)) from error
    return _verdict_response(verdict, media)


async def _form_parts(request: Request, max_body: int, extra: list[Graph]) -> tuple[bytes, rdfio.Format]:
    """The ``data`` part of a multipart form and its syntax; the ``shapes`` part, if sent, is
    read and added to ``extra``."""
    # The form's uploaded parts are temporary files: closed when the block ends.
    async with request.form(max_part_size=max_body) as form:
        data_part, shapes_part = form.get("data"), form.get("shapes")
        if data_part is None or isinstance(data_part, str):
            raise ProblemError(400, "ldids.form", "Missing data", "send the data as a file part named 'data'")
        data = await data_part.read()
        fmt = rdfio.resolve_format(data_part.content_type or DEFAULT_TYPE)
        if shapes_part is not None and not isinstance(shapes_part, str):
            shape_type = shapes_part.content_type or DEFAULT_TYPE
            extra.append(_graph(rdfio.read_bytes(await shapes_part.read(), shape_type, "shapes").quads))
    return data, fmt


def _verdict_response(verdict: Verdict, media: str) -> Response:
    """The verdict in the negotiated ``media`` type (one of _VERDICT_TYPES)."""
    if media == "text/turtle":
        return Response(verdict.report.serialize(format="turtle"), media_type=media)
    if media == "text/plain":
        lines = ["conforms" if verdict.conforms else f"does not conform: {len(verdict.violations)} results"]
        lines += [f"{v.severity}: {v.focus}: {v.message} [{v.shape}]" for v in verdict.violations]
        return PlainTextResponse("\n".join(lines) + "\n")
    return JSONResponse(verdict.to_json(limit=None))


def _graph(quads: list[Quad]) -> Graph:
    graph = Graph()
    for s, p, o, _ in quads:
        graph.add((s, p, o))
    return graph
