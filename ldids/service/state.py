"""What the service is started with, kept on ``app.state`` for the routes to ask for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ldids.passes.config import Config
from ldids.service.pool import WorkerPool
from ldids.service.store import IdentityStore

__all__ = ["AppState", "ServiceState", "service_state"]


@dataclass(frozen=True)
class ServiceState:
    """The operator's settings for one application (see :func:`ldids.service.app.create_app`)."""

    config: Config
    max_body: int  # bytes; larger request bodies are refused with 413
    store: IdentityStore | None  # what normalizations learned; None: /known answers 404
    sparql: tuple[str, str] | None  # (query, update) endpoints of the live store; never from a request
    pool: WorkerPool  # where parsing, normalizing, validating and batch inspection run
    token: str | None = None  # what writing to the live store needs (Authorization: Bearer)


# Async, so that FastAPI calls it on the event loop: a plain function would cost every
# request a trip through the thread pool, more than /inspect takes.
async def service_state(request: Request) -> ServiceState:
    """The state of the application answering ``request`` (set by create_app)."""
    state: ServiceState = request.app.state.ldids
    return state


#: A route's parameter annotated so: the application's ServiceState, not part of the OpenAPI.
AppState = Annotated[ServiceState, Depends(service_state)]
