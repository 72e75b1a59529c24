"""The route that validates RDF with the shipped SHACL shapes, and shapes sent along: the
verdict as JSON, Turtle or text (``Accept``)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.datastructures import UploadFile

from ldids.errors import InputError, LdidsError, ShapesError
from ldids.rdf import io as rdfio
from ldids.service import jobs
from ldids.service.body import limited_request, spool_body
from ldids.service.negotiation import DEFAULT_TYPE, accepted, content_format
from ldids.service.normalize import BASE_DESCRIPTION, checked_base, folder_answer
from ldids.service.problem import ProblemError, input_problem
from ldids.service.state import AppState

__all__ = ["router"]

router = APIRouter()

_VERDICT_TYPES = ["application/json", "text/turtle", "text/plain"]


@router.post("/validate", summary="Validate RDF with the shipped SHACL shapes (and shapes sent along)")
async def validate(
    request: Request, state: AppState, base: str | None = Query(None, description=BASE_DESCRIPTION)
) -> Response:
    base = checked_base(base)
    media = accepted(request, _VERDICT_TYPES, "application/json")
    content_type = (request.headers.get("content-type") or "").lower()
    folder = Path(tempfile.mkdtemp(prefix="ldids-request-"))
    try:
        if content_type.startswith("multipart/form-data"):
            source, shapes = await _form_parts(request, state.max_body, folder)
        else:
            source, shapes = content_format(request).name, None
            await spool_body(request, state.max_body, folder / "body")
        try:
            await state.pool.run(jobs.validate, jobs.ValidateJob(str(folder), source, shapes, base, media))
        except ShapesError as error:  # the check of ldids.shacl.safety: the service never allows them
            raise ProblemError(422, "ldids.unsafe-shapes", "Shapes that reach elsewhere", str(error)) from error
        except InputError as error:
            raise input_problem(error, folder) from error
        except jobs.ShapesError as error:
            raise ProblemError(422, "ldids.shapes", "Unusable shapes", str(error)) from error
        except LdidsError as error:
            raise ProblemError(400, "ldids.input", "Unreadable input", str(error)) from error
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder_answer(folder, media)


async def _form_parts(request: Request, max_body: int, folder: Path) -> tuple[str, str | None]:
    """The ``data`` part of a multipart form, written to ``folder/body``, and the ``shapes``
    part, if sent, to ``folder/shapes``; their formats. The whole form is read within the limit."""
    # The form's uploaded parts are temporary files: closed when the block ends.
    async with limited_request(request, max_body).form(max_files=2, max_fields=8, max_part_size=max_body) as form:
        data_part, shapes_part = form.get("data"), form.get("shapes")
        if not isinstance(data_part, UploadFile):
            raise ProblemError(400, "ldids.form", "Missing data", "send the data as a file part named 'data'")
        source = _part_format(data_part)
        await _copy(data_part, folder / "body")
        shapes = None
        if isinstance(shapes_part, UploadFile):
            shapes = _part_format(shapes_part)
            await _copy(shapes_part, folder / "shapes")
    return source, shapes


def _part_format(part: UploadFile) -> str:
    try:
        return rdfio.resolve_format(part.content_type or DEFAULT_TYPE).name
    except LdidsError as error:
        raise ProblemError(415, "ldids.media-type", "Unsupported media type", str(error)) from error


async def _copy(part: UploadFile, path: Path) -> None:
    with path.open("wb") as spool:
        while piece := await part.read(1 << 20):
            spool.write(piece)
