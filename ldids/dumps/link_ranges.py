"""The links of a run on Dask, merged a range of their sorted order at a time, a task each.

Each task of the run writes the links it found (and the owl:sameAs statements the data
holds already), sorted and each once, in a file of its own, with a sparse index: the first
line of every batch it wrote and where that batch starts. The links file is the merge of
those files, less the statements held already (:mod:`ldids.dumps.sorting`); merged in one
process it is the serial end of the run (1.5 s of 10M triples at real cardinality). Cut
into ranges of the sorted order (a line ``lower <= line < upper``), by boundaries chosen
among the indexes' lines, each range is merged by a task of its own from the same files,
read from where the range starts; the ranges' outputs, in order, are the links file.
"""

from __future__ import annotations

import bisect
import contextlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ldids.dumps.sorting import SortedUnique, _merged

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["Sorted", "boundaries", "merge_range", "new_links", "write_sorted"]

#: A sorted file's index: the first line of each batch written, and the batch's offset.
Index = list[tuple[bytes, int]]


@dataclass(frozen=True)
class Sorted:
    """A file of sorted lines, each once, and its index."""

    path: str
    index: Index


def write_sorted(lines: SortedUnique, path: Path) -> Sorted:
    """Write the lines (consumed) to ``path`` in UTF-8, and index them."""
    index: Index = []
    offset = 0
    with path.open("wb") as stream:
        for encoded, _ in lines.encoded():
            index.append((encoded[: encoded.index(b"\n")], offset))
            stream.write(encoded)
            offset += len(encoded)
    return Sorted(str(path), index)


def boundaries(files: Iterable[Sorted], pieces: int) -> list[bytes]:
    """At most ``pieces - 1`` lines that cut the files' lines into ranges of about as
    many batches each (their indexes are a sample of their lines)."""
    firsts = sorted({line for file in files for line, _ in file.index[1:]})
    cuts = {firsts[len(firsts) * piece // pieces] for piece in range(1, pieces)} if firsts else set()
    return sorted(cuts)


def _offset(stream: IO[bytes], index: Index, key: bytes | None, end: int) -> int:
    """Where the first line not below ``key`` starts (None: the file's end)."""
    if key is None:
        return end
    # The last batch whose first line is below the key holds the first line not below it,
    # or that line is the next batch's first.
    batch = bisect.bisect_left(index, (key, -1)) - 1
    if batch < 0:
        return 0
    stream.seek(index[batch][1])
    while True:
        start = stream.tell()
        line = stream.readline()
        if not line or line[:-1] >= key:
            return start


class _Slice(io.RawIOBase):
    """Bytes [start, stop) of a file, read as a file of their own."""

    def __init__(self, stream: IO[bytes], start: int, stop: int) -> None:
        stream.seek(start)
        self._stream, self._left = stream, stop - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        with memoryview(buffer) as view:
            count = self._stream.readinto(view[: min(len(view), self._left)]) or 0  # type: ignore[attr-defined]
        self._left -= count
        return count


def _slices(
    stack: contextlib.ExitStack, files: list[Sorted], lower: bytes | None, upper: bytes | None
) -> list[IO[bytes]]:
    slices: list[IO[bytes]] = []
    for file in files:
        stream = stack.enter_context(open(file.path, "rb"))  # noqa: SIM115 -- closed by the stack
        end = stream.seek(0, io.SEEK_END)
        start = 0 if lower is None else _offset(stream, file.index, lower, end)
        stop = _offset(stream, file.index, upper, end)
        if start < stop:
            slices.append(io.BufferedReader(_Slice(stream, start, stop), 1 << 16))
    return slices


def merge_range(found: list[Sorted], present: list[Sorted], lower: bytes | None, upper: bytes | None, out: str) -> int:
    """The new links in [lower, upper) (None: unbounded), written to ``out``; their count."""
    count = 0
    with contextlib.ExitStack() as stack:
        lines = new_links(_slices(stack, found, lower, upper), _slices(stack, present, lower, upper))
        with open(out, "wb") as stream:
            for batch in lines:
                stream.write(b"\n".join(batch) + b"\n")
                count += len(batch)
    return count


def new_links(found: list[IO[bytes]], present: list[IO[bytes]]) -> Iterator[list[bytes]]:
    """The lines of sorted files ``found``, merged, each once (UTF-8, in batches), less the
    lines of sorted files ``present`` (the links the data held already: a second run
    changes nothing)."""
    others = (line for batch in _merged(present) for line in batch)
    other = next(others, None)
    for batch in _merged(found):
        if not batch:
            continue
        # The statements held already up to the batch's last line, and those only.
        held = set()
        while other is not None and other <= batch[-1]:
            held.add(other)
            other = next(others, None)
        if held:
            batch = [line for line in batch if line not in held]
        if batch:
            yield batch
