"""The links of a run on Dask, merged a range of their sorted order at a time, a task each.

Each task of the run writes the links it found (and the owl:sameAs statements the data
holds already), sorted and each once, in files of its own of about :data:`CHUNK` bytes
each (a file's lines all below the next file's), with a sparse index: the first line of
every batch it wrote, and the file and offset where that batch starts. The links file is
the merge of those files, less the statements held already (:mod:`ldids.dumps.sorting`);
merged in one process it is the serial end of the run. Cut into ranges of the sorted order
(a line ``lower <= line < upper``), by boundaries chosen among the indexes' lines, each
range is merged by a task of its own from the same files; the ranges' outputs, in order,
are the links file. Where the tasks run on this machine, each range is written into the
links file itself, in the room its files' lines take (:func:`room`; :mod:`ldids.dumps.placed`):
putting the ranges' files together copied every range but the first once more, on one core
(0.37 s of a 5.7 s run at 10M triples).

A range is merged by the compiled merge of whole files (``MergedRuns``, which reads a file
from its start): it takes each task's files from the one that holds its lower bound to the
one that holds its upper bound, the first from the lower bound on (copied, at most a file's
size), and its output is cut at the upper bound. At 10M triples of real cardinality (4.9M
links in two ranges) the merge in Python took 1.0 to 1.1 CPU s a range, the compiled one
0.2 s (one run each, on a loaded machine).
"""

from __future__ import annotations

import bisect
import contextlib
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ldids.dumps import sorting
from ldids.dumps.placed import PlacedWriter
from ldids.dumps.sorting import SortedUnique, _merged
from ldids.rdf.files import scratch_file

__all__ = ["CHUNK", "INDEX_EVERY", "Sorted", "boundaries", "merge_range", "new_links", "room", "write_sorted"]

#: About how many bytes a sorted file holds before the next is begun: the most a range
#: copies of a task's files (the piece of the file its lower bound falls in), and few files
#: a range (a task's 70 MB of links at 10M triples in 5).
CHUNK = 16 << 20

#: About how many bytes of a sorted output a line of its index stands for: the grain of
#: the ranges' boundaries. The merged batches written are of 1 MiB, a sixth of a task's
#: links at 1M triples: cut only there, two ranges of 1M triples held 58% and 42%.
INDEX_EVERY = 128 << 10

#: A sorted output's index: the first line of each batch written, the number of the file
#: it is in and where in that file it starts (a file's first batch at 0).
Index = list[tuple[bytes, int, int]]


@dataclass(frozen=True)
class Sorted:
    """Sorted lines, each once, in files (a file's lines all below the next file's), the
    files' sizes, and their index."""

    paths: list[str]
    sizes: list[int]
    index: Index


def write_sorted(lines: SortedUnique, path: Path, chunk: int = CHUNK, every: int = INDEX_EVERY) -> Sorted:
    """Write the lines (consumed) in UTF-8 to ``path``-0000, ``path``-0001, ... a file
    begun whenever the last reached ``chunk`` bytes, and index them: the first line of
    each batch written, and the first after every ``every`` bytes of a batch."""
    index: Index = []
    paths: list[str] = []
    sizes: list[int] = []
    with contextlib.ExitStack() as stack:
        stream: IO[bytes] | None = None
        offset = 0
        for encoded, _ in lines.encoded():
            if stream is None or offset >= chunk:
                stack.close()
                paths.append(f"{path}-{len(paths):04d}")
                sizes.append(0)
                stream = stack.enter_context(open(paths[-1], "wb"))
                offset = 0
            at = 0
            while at < len(encoded):
                index.append((encoded[at : encoded.index(b"\n", at)], len(paths) - 1, offset + at))
                at = encoded.find(b"\n", at + every) + 1 or len(encoded)
            stream.write(encoded)
            offset += len(encoded)
            sizes[-1] = offset
    return Sorted(paths, sizes, index)


def boundaries(files: Iterable[Sorted], pieces: int) -> list[bytes]:
    """At most ``pieces - 1`` lines, among the indexes' lines, that cut the files' lines
    into ranges of about as many bytes each: below a line, a file holds about the bytes
    before the batch the line falls in and half of that batch."""
    tables = []
    for file in files:
        before = [0]  # the bytes of the files before each file
        for size in file.sizes:
            before.append(before[-1] + size)
        tables.append(
            ([line for line, *_ in file.index], [before[n] + offset for _, n, offset in file.index], before[-1])
        )
    if not tables:
        return []

    def below(key: bytes) -> float:
        total = 0.0
        for lines, positions, size in tables:
            after = bisect.bisect_left(lines, key)  # the first indexed line not below the key
            end = positions[after] if after < len(positions) else size
            exact = after == 0 or (after < len(lines) and lines[after] == key)
            total += end if exact else (positions[after - 1] + end) / 2
        return total

    keys = sorted({line for lines, *_ in tables for line in lines})
    whole = sum(size for *_, size in tables)
    cuts: list[bytes] = []
    for piece in range(1, pieces):
        # The first key with at least the piece's share below it, or the one before.
        low, high = 0, len(keys)
        while low < high:
            middle = (low + high) // 2
            if below(keys[middle]) < whole * piece / pieces:
                low = middle + 1
            else:
                high = middle
        share = whole * piece / pieces
        if low > 0 and (low == len(keys) or share - below(keys[low - 1]) < below(keys[low]) - share):
            low -= 1
        if low < len(keys) and keys[low] > (cuts[-1] if cuts else b"") and keys[low] > keys[0]:
            cuts.append(keys[low])
    return cuts


def _first_not_below(stream: IO[bytes], key: bytes) -> int:
    """Where, from the stream's position on, the first line not below ``key`` starts."""
    while True:
        start = stream.tell()
        line = stream.readline()
        if not line or line[:-1] >= key:
            return start


def _runs(stack: contextlib.ExitStack, file: Sorted, lower: bytes | None, upper: bytes | None) -> list[IO[bytes]]:
    """The files that hold ``file``'s lines in [lower, upper), whole but the first (from
    the lower bound on, copied); they may hold lines at or above ``upper`` too."""
    runs: list[IO[bytes]] = []
    first = 0
    if lower is not None:
        # The last indexed line below the bound is followed by the first line not below it
        # in its file, or that line is the next indexed line.
        batch = bisect.bisect_left(file.index, (lower, -1, -1)) - 1
        if batch >= 0:
            _, first, offset = file.index[batch]
            stream = stack.enter_context(open(file.paths[first], "rb"))  # noqa: SIM115 -- closed by the stack
            stream.seek(offset)
            start = _first_not_below(stream, lower)
            if start > 0:
                stream.seek(start)
                copy = stack.enter_context(scratch_file())
                shutil.copyfileobj(stream, copy, 1 << 20)
                copy.flush()  # the compiled merge reads it by its descriptor, the Python one from its start
                copy.seek(0)
                runs.append(copy)
                first += 1
    # The files whose first line is below the upper bound.
    last = len(file.paths)
    if upper is not None:
        below = bisect.bisect_left(file.index, (upper, -1, -1))
        last = file.index[below - 1][1] + 1 if below else 0
    for number in range(first, last):
        runs.append(stack.enter_context(open(file.paths[number], "rb")))  # noqa: SIM115 -- closed by the stack
    return runs


def _batches(runs: list[IO[bytes]], upper: bytes | None) -> Iterator[tuple[bytes, int]]:
    """The lines of sorted files merged, each once, below ``upper`` (None: all): batches
    of lines each ended by LF, and how many."""
    if sorting._compiled is not None:
        merged: Iterator[tuple[bytes, int]] = sorting._compiled.MergedRuns([run.fileno() for run in runs])
    else:
        merged = ((b"\n".join(batch) + b"\n", len(batch)) for batch in _merged(runs) if batch)
    for data, count in merged:
        if upper is not None and data[data.rfind(b"\n", 0, -1) + 1 : -1] >= upper:
            lines = data.split(b"\n")[:-1]
            below = bisect.bisect_left(lines, upper)
            if below:
                yield b"\n".join(lines[:below]) + b"\n", below
            return
        yield data, count


def merge_range(
    found: list[Sorted],
    present: list[Sorted],
    lower: bytes | None,
    upper: bytes | None,
    out: str,
    at: int | None = None,
) -> tuple[int, int]:
    """The new links in [lower, upper) (None: unbounded), written to the file ``out``, or
    (``at`` not None) into it in place from that byte on, the room :func:`room` gives
    (:mod:`ldids.dumps.placed`); their count and bytes."""
    count = 0
    with contextlib.ExitStack() as stack:
        links = _batches([run for file in found for run in _runs(stack, file, lower, upper)], upper)
        held = [run for file in present for run in _runs(stack, file, lower, upper)]
        descriptor = os.open(out, os.O_WRONLY | (os.O_CREAT | os.O_TRUNC if at is None else 0), 0o666)
        stack.callback(os.close, descriptor)
        stream = PlacedWriter(descriptor, at or 0)  # a range is output: written out as it grows
        if not held:  # written as merged, never split into lines
            for data, number in links:
                stream.write(data)
                count += number
            return count, stream.written
        for batch in _less((data.split(b"\n")[:-1] for data, _ in links), held, upper):
            stream.write(b"\n".join(batch) + b"\n")
            count += len(batch)
    return count, stream.written


def room(found: list[Sorted], lower: bytes | None, upper: bytes | None) -> int:
    """The bytes of the files' lines in [lower, upper): the most the range's merge writes."""
    return sum(
        (sum(file.sizes) if upper is None else _position(file, upper))
        - (0 if lower is None else _position(file, lower))
        for file in found
    )


def _position(file: Sorted, key: bytes) -> int:
    """Where the first line not below ``key`` is in the files put together."""
    batch = bisect.bisect_left(file.index, (key, -1, -1)) - 1
    if batch < 0:  # the first line is not below it
        return 0
    _, number, offset = file.index[batch]
    with open(file.paths[number], "rb") as stream:
        stream.seek(offset)
        return sum(file.sizes[:number]) + _first_not_below(stream, key)


def _less(batches: Iterator[list[bytes]], present: list[IO[bytes]], upper: bytes | None) -> Iterator[list[bytes]]:
    """The sorted batches of lines less the lines of sorted files ``present``."""
    others = (line for data, _ in _batches(present, upper) for line in data.split(b"\n")[:-1])
    other = next(others, None)
    for batch in batches:
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


def new_links(found: list[IO[bytes]], present: list[IO[bytes]]) -> Iterator[list[bytes]]:
    """The lines of sorted files ``found``, merged, each once (UTF-8, in batches), less the
    lines of sorted files ``present`` (the links the data held already: a second run
    changes nothing)."""
    return _less(_merged(found), present, None)
