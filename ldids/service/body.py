"""Request bodies, read completely and within the service's limit (DESIGN §7: request sizes
are bounded; the service reads every body whole).

A body is the content after its ``Content-Encoding`` is undone (RFC 9110 §8.4): ``gzip``
(and ``x-gzip``), ``deflate`` (zlib, RFC 9110 §8.4.1.2) and ``identity``; any other coding is
415 (RFC 9110 §15.5.16). The limit applies to the bytes received and to the bytes they decode
to, so a small compressed body cannot grow past it. Past the limit the answer is 413
problem+json (RFC 9110 §15.5.14), never a body cut short: nothing is parsed until the last
byte has arrived.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import Request
from starlette.types import Message

from ldids.service.problem import ProblemError

__all__ = ["bounded_chunks", "limited_request", "read_body", "spool_body"]

_CODINGS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


async def read_body(request: Request, limit: int) -> bytes:
    """The whole decoded request body, refused with 413 as soon as it passes ``limit`` bytes."""
    return b"".join([chunk async for chunk in bounded_chunks(request, limit)])


async def spool_body(request: Request, limit: int, path: Path) -> int:
    """Write the whole decoded body to ``path``; returns its size. 413 past ``limit``."""
    size = 0
    with path.open("wb") as spool:
        async for chunk in bounded_chunks(request, limit):
            spool.write(chunk)
            size += len(chunk)
    return size


async def bounded_chunks(request: Request, limit: int) -> AsyncIterator[bytes]:
    """The body's chunks, decoded as its Content-Encoding says, refused with 413 past
    ``limit`` bytes (received or decoded; checked before reading when the length is declared)."""
    codings = _codings(request)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    received = decoded = 0
    decoders = [_Decoder(coding) for coding in reversed(codings)]  # the last applied is undone first
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise too_large(limit)
        for decoder in decoders:
            chunk = decoder.feed(chunk, limit - decoded)
        decoded += len(chunk)
        if decoded > limit:
            raise too_large(limit)
        if chunk:
            yield chunk
    for decoder in decoders:
        decoder.finish()


def limited_request(request: Request, limit: int) -> Request:
    """The same request, whose body is read through :func:`bounded_chunks`: for parsers
    that read the stream themselves (multipart forms), so that the whole form, not only
    each part, stays within ``limit``."""
    chunks = bounded_chunks(request, limit)

    async def receive() -> Message:
        try:
            chunk = await anext(chunks)
        except StopAsyncIteration:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.request", "body": chunk, "more_body": True}

    headers = [(k, v) for k, v in request.scope["headers"] if k.lower() not in (b"content-encoding", b"content-length")]
    return Request({**request.scope, "headers": headers}, receive)


def too_large(limit: int) -> ProblemError:
    return ProblemError(413, "ldids.too-large", "Request body too large", f"the limit is {limit} bytes", limit=limit)


def _codings(request: Request) -> list[str]:
    """The content codings applied, in order (RFC 9110 §8.4: a comma-separated list)."""
    header = request.headers.get("content-encoding") or ""
    codings = [part.strip().lower() for part in header.split(",") if part.strip()]
    codings = [coding for coding in codings if coding != "identity"]
    unknown = [coding for coding in codings if coding not in _CODINGS]
    if unknown or len(codings) > 2:
        raise ProblemError(
            415,
            "ldids.content-encoding",
            "Unsupported content coding",
            f"Content-Encoding {header!r}: ldids decodes gzip and deflate (at most two, in order) and identity",
        )
    return codings


class _Decoder:
    """One content coding undone incrementally; never yields more than asked at a time, so a
    compression bomb is stopped at the limit, not after it has been inflated."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._inflate = zlib.decompressobj(_CODINGS[coding])

    def feed(self, data: bytes, room: int) -> bytes:
        """What ``data`` decodes to, stopping once it is more than ``room`` bytes."""
        pieces: list[bytes] = []
        produced = 0
        while data and produced <= room:
            if self._inflate.eof:
                if self._coding == "deflate":
                    raise self._broken("data after the end of the compressed stream")
                # gzip allows several members one after another (RFC 1952 §2.2).
                self._inflate = zlib.decompressobj(_CODINGS[self._coding])
            try:
                piece = self._inflate.decompress(data, room - produced + 1)
            except zlib.error as error:
                raise self._broken(str(error)) from error
            pieces.append(piece)
            produced += len(piece)
            data = self._inflate.unused_data if self._inflate.eof else self._inflate.unconsumed_tail
        return b"".join(pieces)

    def finish(self) -> None:
        if not self._inflate.eof:
            raise self._broken("the compressed body ends before its end")

    def _broken(self, why: str) -> ProblemError:
        return ProblemError(400, "ldids.content-encoding", "Undecodable body", f"{self._coding}: {why}")
