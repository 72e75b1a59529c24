"""A stop signal whose exception CPython drops (its handler ran inside a finalizer) still stops
a run: at the next block, with nothing written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ldids import errors
from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.dumps.validation import validate_dump
from ldids.passes.config import Config
from ldids.resources import shapes_graph


class _Finalized:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __del__(self) -> None:
        errors.stop(self.error)  # as the command line's handlers do


@pytest.fixture
def stopped() -> Iterator[None]:
    errors._STOPS.clear()
    yield
    errors._STOPS.clear()


def _data(path: Path) -> str:
    path.write_text("".join(f"<info:fedora/demo:{i}> <http://x/p> <hdl:1765/{i}> .\n" for i in range(500)))
    return str(path)


@pytest.mark.usefixtures("stopped")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(143)])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_dropped_stop_stops_normalize(tmp_path: Path, error: BaseException, workers: int) -> None:
    data = _data(tmp_path / "d.nt")
    normalize_dump([data], str(tmp_path / "a.nt"), Settings(Config()), workers=workers)  # runs, not stopped
    _Finalized(error)  # dropped: "Exception ignored in ..."
    with pytest.raises(type(error)):
        normalize_dump([data], str(tmp_path / "b.nt"), Settings(Config()), workers=workers)
    assert (tmp_path / "a.nt").exists()
    assert not (tmp_path / "b.nt").exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.nt", "d.nt"]


@pytest.mark.usefixtures("stopped")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_dropped_stop_stops_validate(tmp_path: Path) -> None:
    data = _data(tmp_path / "d.nt")
    assert validate_dump([data], shapes_graph()).statements == 500
    _Finalized(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        validate_dump([data], shapes_graph())
