"""Errors cross process boundaries whole: the service's and Dask's workers raise them."""

from __future__ import annotations

import pickle

import pytest

from ldids.errors import InputError, OutputError, ShapesError


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (InputError("bad line", source="dump.nt", line=3, column=7), "dump.nt:3:7: bad line"),
        (InputError("no place"), "no place"),
        (
            OutputError("cannot write: No space left on device", source="out.nt"),
            "out.nt: cannot write: No space left on device",
        ),
        (
            ShapesError("shapes.owl-imports", "owl:imports: shapes never reach the network"),
            "owl:imports: shapes never reach the network [shapes.owl-imports]",
        ),
    ],
)
def test_an_error_pickled_is_the_same_error(error: InputError, text: str) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error)
    assert str(back) == str(error) == text
    assert (back.source, back.line, back.column, back.message) == (
        error.source,
        error.line,
        error.column,
        error.message,
    )
    assert getattr(back, "code", None) == getattr(error, "code", None)
