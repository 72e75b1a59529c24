"""Errors as problem details (RFC 9457): every refusal of the service, in one shape, with
the codes the command line uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from ldids.errors import InputError

__all__ = ["PROBLEM", "ProblemError", "input_problem", "problem_handler", "problem_response"]

PROBLEM = "application/problem+json"


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


def input_problem(error: InputError, folder: Path | None = None) -> ProblemError:
    """Unreadable input: 400, with the line and column the reader reported; the service's
    own files (in ``folder``) are not named to the client, the body is "request body"."""
    detail = error.message
    if folder is not None:
        detail = detail.replace(str(folder / "body"), "request body").replace(str(folder), "request")
    return ProblemError(400, "ldids.input", "Unreadable input", detail, line=error.line, column=error.column)
