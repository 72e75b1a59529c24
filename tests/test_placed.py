"""Parts of a sorted output written in place by several processes (ldids.dumps.placed): the
gaps a shorter part leaves are closed, and the file is what writing the parts one after
another makes."""

from __future__ import annotations

import io
import os
import random
from pathlib import Path

import pytest

from ldids.dumps import placed
from ldids.rdf.files import WriteBehind


@pytest.mark.parametrize(
    "parts",
    [
        [],
        [(0, 0)],
        [(10, 10)],
        [(10, 4)],
        [(10, 0), (5, 5)],
        [(10, 10), (7, 7), (3, 3)],
        [(10, 3), (7, 7), (3, 1)],
        [(3, 1), (3000, 2999), (1, 0), (5000, 5000)],
        [(5 << 20, (5 << 20) - 17), (3 << 20, 3 << 20)],  # moved a piece at a time, over itself
    ],
)
def test_the_parts_follow_each_other_once_the_gaps_are_closed(parts: list[tuple[int, int]], tmp_path: Path) -> None:
    head = b"statements before the links\n"
    rng = random.Random(len(parts))
    written = [rng.randbytes(size) for _, size in parts]
    with open(tmp_path / "out", "w+b") as out:
        out.write(head)
        offset = len(head)
        for (room, _), data in zip(parts, written, strict=True):
            out.seek(offset)
            out.write(data + b"\xff" * (room - len(data)))  # what is left of a room is not data
            offset += room
        out.flush()
        end = placed.close_gaps(out.fileno(), len(head), parts)
        out.seek(0)
        assert out.read() == head + b"".join(written)
    assert end == len(head) + sum(len(data) for data in written)


def test_a_part_longer_than_its_room_is_an_error(tmp_path: Path) -> None:
    with open(tmp_path / "out", "w+b") as out:
        out.write(b"x" * 20)
        out.flush()
        with pytest.raises(RuntimeError, match="11 bytes was written into room for 10"):
            placed.close_gaps(out.fileno(), 0, [(10, 11)])


def test_a_part_written_in_place_is_written_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(WriteBehind, "STEP", 5)
    advised: list[tuple[int, int]] = []
    advise = os.posix_fadvise

    def counted(descriptor: int, offset: int, length: int, advice: int) -> None:
        advised.append((offset, length))
        advise(descriptor, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", counted)
    with open(tmp_path / "out", "w+b") as out:
        out.write(b"0123456789")
        out.flush()
        writer = placed.PlacedWriter(out.fileno(), 4)
        for batch in (b"ab", b"cdef", memoryview(b"ghijkl"), b""):
            writer.write(batch)
        assert writer.written == 12
        out.seek(0)
        assert out.read() == b"0123abcdefghijkl"
    assert advised == [(4, 6), (4, 12)]  # from the part's first byte to what was written


def test_where_parts_can_be_written_in_place(tmp_path: Path) -> None:
    with open(tmp_path / "plain", "w+b") as plain:
        assert placed.placeable(plain) == plain.fileno()
    with open(tmp_path / "written", "wb") as written:  # a gap is closed by reading after it
        assert placed.placeable(written) is None
    with open(tmp_path / "appended", "a+b") as appended:  # Linux's pwrite would append
        assert placed.placeable(appended) is None
    reading, writing = os.pipe()
    with os.fdopen(reading, "rb") as out, os.fdopen(writing, "wb") as into:
        assert placed.placeable(into) is None
        assert placed.placeable(out) is None
    assert placed.placeable(io.BytesIO()) is None
    assert placed.placeable(None) is None
