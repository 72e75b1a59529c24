"""Lines sorted and de-duplicated in bounded memory (an external sort, like ``sort -u``).

A run finds its links and crosswalk rows block by block, many of them many times over;
they are written once each, in sorted order, and the links already in the data left out
(:func:`difference`), whatever the size of the dump.
"""

from __future__ import annotations

import bisect
import itertools
import os
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import IO

from ldids.rdf.files import scratch_file

__all__ = ["SortedUnique", "difference", "split_point"]

# The joins and the merge of the runs, compiled (ldids/dumps/_scan.c: joined_unique,
# MergedRuns), where the extension was built; the Python below is their reference
# (tests/test_sorting.py holds the two equal) and runs with LDIDS_PURE_PYTHON set.
_compiled: ModuleType | None
try:
    from ldids.dumps import _scan as _compiled
except ImportError:
    _compiled = None
if os.environ.get("LDIDS_PURE_PYTHON") or not hasattr(_compiled, "MergedRuns"):
    _compiled = None


class SortedUnique:
    """Lines, de-duplicated and sorted, in bounded memory: sorted runs spill to temporary
    files and are merged at the end (an external sort, like ``sort -u``).

    Each batch added is kept sorted as a piece; the pieces are merged when a run spills
    or the lines are read. Merging pieces sorted already takes a third of the comparisons
    of sorting the lines afresh (timsort merges the pieces it finds), and a batch can be
    sorted where it was made: a worker process sorts the links of its chunk, so what is
    left to do once the dump is read, on one core, is the merge."""

    # A run of 40k link lines holds ~7 MB as str objects, the most this collection holds in
    # memory. Smaller runs are more files and more ways in the merge, which is compiled
    # (MergedRuns: a heap of the runs), so they cost little: 1M triples of real cardinality
    # (0.49M links), runs of 40k lines against 100k took the same CPU time within the
    # noise, and 12 MiB less at the peak of one process (61 MiB against 74).
    def __init__(self, run_size: int = 40_000) -> None:
        self.run_size = run_size
        self._pieces: list[list[str]] = []
        self._held = 0  # lines in the pieces, copies included
        self._runs: list[IO[bytes]] = []

    def __bool__(self) -> bool:
        return bool(self._pieces or self._runs)

    def add_all(self, lines: Iterable[str]) -> None:
        piece = sorted(lines)  # linear for lines sorted already
        if piece:
            self._pieces.append(piece)
            self._held += len(piece)
            if self._held >= self.run_size:
                self._spill()

    def take_runs(self) -> list[IO[bytes]]:
        """The lines as sorted runs in files (what is held spilled), the caller's to close
        or to hand to another collection's :meth:`adopt`; this collection is left empty."""
        self._spill()
        runs, self._runs = self._runs, []
        return runs

    def adopt(self, runs: Iterable[IO[bytes]]) -> None:
        """Takes files of sorted lines, each line once and ended by LF, in UTF-8 (another
        collection's :meth:`take_runs`, perhaps another process's): merged with the rest
        when read, and closed then."""
        for run in runs:
            run.seek(0)
            self._runs.append(run)

    def close(self) -> None:
        """Lets go of the runs not read (a run stopped before its end)."""
        for run in self._runs:
            run.close()
        self._runs.clear()

    def _take_pieces(self) -> Iterator[tuple[bytes, int]]:
        """The lines held in memory, sorted, each once, in UTF-8 and ended by LF, some
        thousands a piece (a bounded copy at a time), and how many; the pieces are let go."""
        merged = sorted(itertools.chain.from_iterable(self._pieces))
        self._pieces.clear()
        self._held = 0
        if _compiled is not None:
            for start in range(0, len(merged), 10_000):
                yield _compiled.joined_unique(merged, start, start + 10_000)
            return
        lines = [line for line, _ in itertools.groupby(merged)]
        for start in range(0, len(lines), 10_000):
            piece = lines[start : start + 10_000]
            yield _encoded(piece), len(piece)

    def _spill(self) -> None:
        if not self._pieces:
            return
        # Closed in __iter__, after the merge: it must outlive this method. Written as
        # UTF-8 bytes, read back as bytes: their order is the order of the code points (a
        # lone surrogate, a \uD800 escape in a dump, written as its three bytes too).
        # In the temporary folder, named nowhere (scratch_file): a run killed leaves nothing.
        run = scratch_file()
        for encoded, _ in self._take_pieces():
            run.write(encoded)
        run.seek(0)
        self._runs.append(run)

    def __iter__(self) -> Iterator[str]:
        """Each distinct line once, in sorted order; consumes the collection."""
        for batch, _ in self.encoded():
            yield from batch.decode("utf-8", "surrogatepass").split("\n")[:-1]

    def encoded(self) -> Iterator[tuple[bytes, int]]:
        """The lines of :meth:`__iter__` in UTF-8, each ended by LF, some thousands a
        piece, and how many: what a writer writes, never decoded and encoded again."""
        if not self._runs:
            yield from (piece for piece in self._take_pieces() if piece[1])
            return
        self._spill()
        try:
            if _compiled is not None:
                for run in self._runs:
                    run.flush()  # read from the file, by its descriptor
                yield from _compiled.MergedRuns([run.fileno() for run in self._runs])
                return
            for batch in _merged(self._runs):
                if batch:
                    yield b"\n".join(batch) + b"\n", len(batch)
        finally:
            self.close()


def split_point(runs: list[IO[bytes]], samples: int = 16, lower: float = 0.5) -> tuple[bytes, list[int]] | None:
    """A line that cuts the lines of sorted runs (files, each line ended by LF, each once)
    into two parts, the lower about ``lower`` of their bytes, and where each run's lines
    from it on start: the lower part is merged with ``MergedRuns(fds, stop=line)``, the
    upper with ``MergedRuns(fds, starts=offsets)``, each in a process of its own, and a line
    in several runs falls in one part. None if the runs hold no two distinct lines (each
    run's last line is among the samples, and its first)."""
    weighted: list[tuple[bytes, int]] = []
    for run in runs:
        size = os.fstat(run.fileno()).st_size
        if size == 0:
            continue
        for index in range(samples):
            line = _line_at(run.fileno(), size * index // samples, size)[1]
            if line is not None:
                weighted.append((line, size // samples + 1))
        weighted.append((_last_line(run.fileno(), size), 1))
    if not weighted:
        return None
    weighted.sort()
    part, seen, key = sum(weight for _, weight in weighted) * lower, 0, weighted[-1][0]
    for line, weight in weighted:
        seen += weight
        if seen >= part:
            key = line
            break
    if key == weighted[0][0]:  # nothing below it: the lower half would be empty
        key = next((line for line, _ in weighted if line > key), b"")
        if not key:
            return None
    return key, [_first_at_least(run.fileno(), key) for run in runs]


def _line_at(fd: int, position: int, size: int) -> tuple[int, bytes | None]:
    """The first line of a file that starts at ``position`` or after it: where it starts, and
    the line without its LF (None: the file ends first)."""
    start = position
    if position > 0:  # the line that holds the byte before position ends first
        while True:
            data = os.pread(fd, 4096, start - 1)
            if not data:
                return size, None
            cut = data.find(b"\n")
            if cut >= 0:
                start += cut
                break
            start += len(data)
    line = b""
    while start + len(line) < size:
        data = os.pread(fd, 4096, start + len(line))
        cut = data.find(b"\n")
        if cut >= 0:
            return start, line + data[:cut]
        line += data
    return size, None


def _last_line(fd: int, size: int) -> bytes:
    """The last line of a file of lines each ended by LF (``size`` > 0), without its LF."""
    start = size - 1
    while start > 0:
        read = min(4096, start)
        cut = os.pread(fd, read, start - read).rfind(b"\n")
        if cut >= 0:
            start += cut + 1 - read
            break
        start -= read
    return os.pread(fd, size - 1 - start, start)


def _first_at_least(fd: int, key: bytes) -> int:
    """Where the first line not below ``key`` starts in a file of sorted lines (its size if none)."""
    size = os.fstat(fd).st_size
    low, high = 0, size  # the answer is the start of the first line at a position in [low, high]
    while low < high:
        middle = (low + high) // 2
        start, line = _line_at(fd, middle, size)
        if line is None or line >= key:
            high = middle
        else:
            low = start + len(line) + 1
    return _line_at(fd, low, size)[0]


def _encoded(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass") if lines else b""


def _merged(runs: list[IO[bytes]], read: int = 1 << 16) -> Iterator[list[bytes]]:
    """The lines of sorted files (each line ending in a line break), merged, each once, in
    sorted batches (without their line breaks).

    Lines are compared without their line breaks, as they were sorted: with them, "a\tb"
    would come before "a" ("\t" is below "\n"). Merged in batches rather than a line at a
    time through a heap: every buffered line up to the smallest of the runs' last buffered
    lines comes before any line not yet read, so those are sorted together, which for
    pieces sorted already is a merge, done in C (timsort)."""
    readers = [_Lines(run, read) for run in runs]
    pending = [(reader, lines) for reader in readers if (lines := reader.next())]
    while pending:
        bound = min(lines[-1] for _, lines in pending)
        batch: list[bytes] = []
        refilled = []
        for reader, lines in pending:
            cut = bisect.bisect_right(lines, bound)
            batch += lines[:cut]
            rest = lines[cut:] or reader.next()
            if rest:
                refilled.append((reader, rest))
        pending = refilled
        # Every line left, read or not, is above the bound (a run holds each line once):
        # a line in several runs is in one batch, its copies side by side once sorted,
        # and kept once (a dict keeps the first of equal keys, in order).
        batch.sort()
        yield list(dict.fromkeys(batch))


class _Lines:
    """The lines of a file, without their line breaks, some at a time (about ``read`` bytes)."""

    def __init__(self, file: IO[bytes], read: int) -> None:
        self.file, self.read, self.rest = file, read, b""

    def next(self) -> list[bytes]:
        """The next lines (none: the file is read to its end)."""
        while True:
            data = self.file.read(self.read)
            if not data:
                return []  # a run ends with a line break: nothing is left over
            lines = (self.rest + data).split(b"\n")
            self.rest = lines.pop()
            if lines:
                return lines


def difference(left: Iterable[str], right: Iterable[str]) -> Iterator[str]:
    """Lines of sorted ``left`` that are not in sorted ``right``, in one merging pass."""
    others = iter(right)
    other = next(others, None)
    for line in left:
        while other is not None and other < line:
            other = next(others, None)
        if line != other:
            yield line
