"""Routes for what ldids ships: the page for people, the vocabulary and the SHACL shapes,
each RDF document in the syntax the client accepts."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from ldids.ntriples import Quad
from ldids.rdf import io as rdfio
from ldids.resources import shapes_graph, vocabulary_graph
from ldids.service.negotiation import DEFAULT_TYPE, accepted, rdf_offers

__all__ = ["DOCS_ASSETS", "docs_assets", "router"]

router = APIRouter()


#: Where the documentation pages' scripts, styles and icon are served from: the files of the
#: fastapi-offline package (Swagger UI and ReDoc bundles, MIT), never a CDN, so /docs and
#: /redoc work on a machine without a network (DESIGN §7: nothing is fetched from elsewhere).
DOCS_ASSETS = "/docs-assets"


def docs_assets() -> StaticFiles:
    """The static files /docs and /redoc load, from the installed fastapi-offline package."""
    return StaticFiles(directory=str(resources.files("fastapi_offline") / "static"))


#: The pages may load only what the service serves (CSP Level 3): ReDoc's bundle names a
#: logo on its maker's server, which a browser then does not fetch.
_SAME_ORIGIN = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"
}


def _confined(page: HTMLResponse) -> HTMLResponse:
    page.headers.update(_SAME_ORIGIN)
    return page


@router.get("/docs", include_in_schema=False)
def swagger_ui(request: Request) -> HTMLResponse:
    return _confined(
        get_swagger_ui_html(
            openapi_url=_openapi_url(request),
            title="ldids API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )
    )


@router.get("/redoc", include_in_schema=False)
def redoc(request: Request) -> HTMLResponse:
    return _confined(
        get_redoc_html(
            openapi_url=_openapi_url(request),
            title="ldids API",
            redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )
    )


def _openapi_url(request: Request) -> str:
    return str(request.scope.get("root_path", "")) + (request.app.openapi_url or "/openapi.json")


@router.get("/", summary="A page for people", response_class=HTMLResponse, include_in_schema=False)
def page() -> HTMLResponse:
    page = HTMLResponse((resources.files("ldids.service") / "static" / "index.html").read_text(encoding="utf-8"))
    return _confined(page)


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
