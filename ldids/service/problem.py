"""Errors as problem details (RFC 9457): every refusal of the service, in one shape, with
the codes the command line uses."""

from __future__ import annotations

import logging
from http import HTTPStatus
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

from ldids.errors import InputError, WriteError

__all__ = [
    "PROBLEM",
    "ProblemError",
    "http_problem",
    "input_problem",
    "problem_handler",
    "problem_response",
    "server_problem",
    "validation_problem",
]

PROBLEM = "application/problem+json"
_log = logging.getLogger("ldids.service")


class ProblemError(Exception):
    """An error to answer with problem details (RFC 9457)."""

    def __init__(
        self, status: int, code: str, title: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(detail)
        self.status, self.code, self.title, self.detail, self.extra = status, code, title, detail, extra
        self.headers = headers or {}


def problem_response(problem: ProblemError) -> JSONResponse:
    """The problem+json answer; extra members that are None (a line unknown) are left out."""
    body = {
        "type": f"https://w3id.org/ldids/problems#{problem.code}",
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
        "code": problem.code,
        **{key: value for key, value in problem.extra.items() if value is not None},
    }
    return JSONResponse(body, status_code=problem.status, media_type=PROBLEM, headers=problem.headers)


async def problem_handler(request: Request, problem: ProblemError) -> JSONResponse:
    """The exception handler create_app registers for ProblemError."""
    return problem_response(problem)


#: An InputError's advice (ldids.errors.ADVICE) in a request's terms.
_ADVICE = {
    "base": "give one: ?base=IRI",
    "named-graphs": "ask for TriG, N-Quads or JSON-LD (Accept)",
    "output-format": "ask for Turtle, TriG, N-Triples, N-Quads or JSON-LD (Accept)",
    "line-format": "ask for N-Triples or N-Quads (Accept)",
}


def input_problem(error: InputError, folder: Path | None = None) -> ProblemError:
    """Unreadable input: 400, with the line and column the reader reported; the service's
    own files (in ``folder``) are not named to the client, the body is "request body". Input
    read that the format the request asked for cannot write: 406 (RFC 9110 §15.5.7: the
    answer has no representation of that type), saying which can."""
    detail = error.message
    if folder is not None:
        detail = detail.replace(str(folder / "body"), "request body").replace(str(folder), "request")
    if error.advice is not None:
        detail += f" ({_ADVICE[error.advice]})"
    if isinstance(error, WriteError):
        return ProblemError(406, "ldids.cannot-write", "Not acceptable", detail)
    return ProblemError(400, "ldids.input", "Unreadable input", detail, line=error.line, column=error.column)


async def http_problem(request: Request, error: Exception) -> JSONResponse:
    """Starlette's own refusals (404 no such route, 405 method not allowed, 400 a malformed
    multipart form) as problem details too (RFC 9457 §3)."""
    assert isinstance(error, HTTPException)
    code = {404: "ldids.not-found", 405: "ldids.method-not-allowed"}.get(error.status_code, "ldids.http")
    title = HTTPStatus(error.status_code).phrase if error.status_code in HTTPStatus._value2member_map_ else "Error"
    headers = dict(error.headers or {})
    problem = ProblemError(error.status_code, code, title, str(error.detail), headers)
    if error.status_code == 405 and "allow" not in {key.lower() for key in headers}:
        # RFC 9110 §15.5.6: a 405 lists the methods the resource has.
        methods = sorted({m for r in request.app.routes for m in getattr(r, "methods", ()) if _matches(r, request)})
        problem.headers["Allow"] = ", ".join(methods)
    return problem_response(problem)


def _matches(route: object, request: Request) -> bool:
    match = getattr(route, "matches", None)
    return match is not None and match(request.scope)[0] != Match.NONE


async def validation_problem(request: Request, error: Exception) -> JSONResponse:
    """A parameter missing or of the wrong type: 422 (RFC 9110 §15.5.21), naming each one."""
    assert isinstance(error, RequestValidationError)
    errors = [
        {"parameter": ".".join(str(part) for part in item.get("loc", ())), "message": str(item.get("msg", ""))}
        for item in error.errors()
    ]
    detail = "; ".join(f"{item['parameter']}: {item['message']}" for item in errors)
    return problem_response(ProblemError(422, "ldids.parameters", "Invalid parameters", detail, None, errors=errors))


async def server_problem(request: Request, error: Exception) -> JSONResponse:
    """A fault of the service itself: 500, still as problem details, saying nothing of its
    insides (the log has the traceback)."""
    _log.exception("unexpected error answering %s %s", request.method, request.url.path, exc_info=error)
    return problem_response(ProblemError(500, "ldids.internal", "Internal error", "the service failed; see its log"))
