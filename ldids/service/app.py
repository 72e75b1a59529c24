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

The routes live in modules by concern: :mod:`~ldids.service.identifiers`,
:mod:`~ldids.service.normalize`, :mod:`~ldids.service.validate` and
:mod:`~ldids.service.documents`; what they are started with is a
:class:`~ldids.service.state.ServiceState` on ``app.state``.

Needs the optional dependencies of ``pip install 'ldids[service]'``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from ldids import __version__
from ldids.passes.config import Config
from ldids.service import documents, identifiers, normalize, validate
from ldids.service.pool import Limits, WorkerPool
from ldids.service.problem import (
    ProblemError,
    http_problem,
    problem_handler,
    server_problem,
    validation_problem,
)
from ldids.service.state import ServiceState
from ldids.service.store import IdentityStore

__all__ = ["DEFAULT_MAX_BODY", "Limits", "create_app"]

DEFAULT_MAX_BODY = 10 * 1024 * 1024
# In this order, routes are matched and listed in the OpenAPI document as they always were.
_ROUTERS = (identifiers.router, normalize.router, validate.router, documents.router)


def create_app(
    config: Config | None = None,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    store: IdentityStore | None = None,
    sparql: tuple[str, str] | None = None,
    limits: Limits | None = None,
    token: str | None = None,
) -> FastAPI:
    """The ASGI application; ``config`` as for the graph passes; ``store`` keeps what every
    normalization learned (``ldids serve`` opens one in its default place); ``sparql`` is the
    (query, update) endpoint pair of a live store that ``POST /store/normalize`` normalizes:
    the operator's configuration, never a URL taken from a request; ``limits`` bound the
    worker pool the CPU work runs in (:mod:`~ldids.service.pool`); ``token`` is what
    ``POST /store/normalize`` needs (none: it is refused)."""
    app = FastAPI(
        lifespan=_lifespan,
        docs_url=None,  # served by ldids.service.documents, from files it ships, not a CDN
        redoc_url=None,
        title="ldids",
        version=__version__,
        description="Find persistent identifiers (Fedora PIDs, info:fedora URIs, OAI identifiers, POIs, handles) "
        "in RDF and put them into canonical form.",
    )
    app.state.ldids = ServiceState(config or Config(), max_body, store, sparql, WorkerPool(limits or Limits()), token)
    app.exception_handler(ProblemError)(problem_handler)
    app.exception_handler(HTTPException)(http_problem)
    app.exception_handler(RequestValidationError)(validation_problem)
    app.exception_handler(Exception)(server_problem)
    for router in _ROUTERS:
        app.include_router(router)
    app.mount(documents.DOCS_ASSETS, documents.docs_assets(), name="docs-assets")
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    state: ServiceState = app.state.ldids
    state.pool.close()
    if state.store is not None:
        state.store.flush()  # everything on disk when the service stops
