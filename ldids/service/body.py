"""Request bodies, read within the service's limit: 413 as soon as a body is known to be
larger (DESIGN §7: request sizes are bounded)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import Request

from ldids.service.problem import ProblemError

__all__ = ["bounded_chunks", "read_body"]


async def read_body(request: Request, limit: int) -> bytes:
    """The whole request body, refused with 413 as soon as it passes ``limit`` bytes."""
    return b"".join([chunk async for chunk in bounded_chunks(request, limit)])


async def bounded_chunks(request: Request, limit: int) -> AsyncIterator[bytes]:
    """The body's chunks, refused with 413 past ``limit`` bytes (checked before answering
    when the length is declared)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        yield chunk


def _too_large(limit: int) -> ProblemError:
    return ProblemError(413, "ldids.too-large", "Request body too large", f"the limit is {limit} bytes", limit=limit)
