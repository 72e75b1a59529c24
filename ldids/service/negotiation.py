"""Content negotiation: the syntax a body is written in (``Content-Type``, else 415) and the
one an answer is written in (``Accept``, else 406). Formats come from :mod:`ldids.rdf.io`,
never from a table of our own."""

from __future__ import annotations

from fastapi import Request

from ldids.rdf import io as rdfio
from ldids.service.problem import ProblemError

__all__ = ["DEFAULT_TYPE", "LINE_FORMATS", "accepted", "content_format", "rdf_offers"]

#: What an answer is written in when the client takes anything and the input gives no lead.
DEFAULT_TYPE = "text/turtle"
#: Formats of one statement per line: what the service can normalize block by block.
LINE_FORMATS = ("nt", "nquads")
_WRITABLE = [f for f in rdfio.FORMATS if f.writable]


def content_format(request: Request) -> rdfio.Format:
    """The RDF syntax the request's Content-Type names; 415 if none or one ldids cannot read."""
    media = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if not media:
        raise ProblemError(
            415, "ldids.media-type", "Unsupported media type", "name the syntax of the body in Content-Type"
        )
    for fmt in rdfio.FORMATS:
        if media in fmt.media_types:
            return fmt
    known = ", ".join(t for f in rdfio.FORMATS for t in f.media_types)
    raise ProblemError(
        415, "ldids.media-type", "Unsupported media type", f"{media!r} is not a syntax ldids reads; known: {known}"
    )


def accepted(request: Request, offers: list[str], default: str) -> str:
    """The first offered media type the Accept header allows (by q, then order); a type it
    names with q=0 is never chosen, not even for a range that covers it (RFC 9110 §12.4.2:
    "not acceptable"; ``text/turtle;q=0, */*`` is anything but Turtle)."""
    header = request.headers.get("accept") or "*/*"
    ranges: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")):
        parts = [part.strip() for part in item.split(";")]
        quality = 1.0
        for parameter in parts[1:]:
            if parameter.startswith("q="):
                try:
                    quality = float(parameter[2:])
                except ValueError:
                    quality = 0.0
        ranges.append((-quality, position, parts[0].lower()))
    refused = {wanted for negative_quality, _, wanted in ranges if negative_quality >= 0 and "*" not in wanted}
    allowed = [offer for offer in offers if offer not in refused]
    for negative_quality, _, wanted in sorted(ranges):
        if negative_quality >= 0:
            continue
        if wanted in ("*/*", "*"):
            choice = default if default not in refused else next(iter(allowed), None)
            if choice is not None:
                return choice
        elif wanted.endswith("/*"):
            match = next((offer for offer in allowed if offer.startswith(wanted[:-1])), None)
            if match:
                return match
        elif wanted in allowed:
            return wanted
    raise ProblemError(406, "ldids.not-acceptable", "Not acceptable", f"available: {', '.join(offers)}")


def rdf_offers() -> list[str]:
    """The media types of every syntax ldids writes: each format's preferred one, then the
    others it is known by (``application/x-turtle``), which name it in Accept too."""
    preferred = [fmt.media_types[0] for fmt in _WRITABLE]
    return preferred + [media for fmt in _WRITABLE for media in fmt.media_types[1:] if media not in preferred]
