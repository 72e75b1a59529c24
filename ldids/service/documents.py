"""Routes for what ldids ships: the page for people, the vocabulary and the SHACL shapes,
each RDF document in the syntax the client accepts."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ldids.ntriples import Quad
from ldids.rdf import io as rdfio
from ldids.resources import shapes_graph, vocabulary_graph
from ldids.service.negotiation import DEFAULT_TYPE, accepted, rdf_offers

__all__ = ["router"]

router = APIRouter()


@router.get("/", summary="A page for people", response_class=HTMLResponse, include_in_schema=False)
def page() -> HTMLResponse:
    return HTMLResponse((resources.files("ldids.service") / "static" / "index.html").read_text(encoding="utf-8"))


# Async and trivial: it answers on the event loop, so it says whether the loop is free.
@router.get("/health", summary="Whether the service answers")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/vocab", summary="The ldids vocabulary")
def vocabulary(request: Request) -> Response:
    return _document(request, [(s, p, o, None) for s, p, o in vocabulary_graph()])


@router.get("/shapes", summary="The SHACL shapes shipped with ldids")
def shapes(request: Request) -> Response:
    return _document(request, [(s, p, o, None) for s, p, o in shapes_graph()])


def _document(request: Request, graph_quads: list[Quad]) -> Response:
    media = accepted(request, rdf_offers(), DEFAULT_TYPE)
    return Response(rdfio.serialize(graph_quads, rdfio.resolve_format(media)), media_type=media)
