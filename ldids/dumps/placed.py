"""Parts of a sorted output written by several processes at once, each in its place.

The links of a run are the merge of sorted runs, cut into parts by key (the lower part, the
upper part; Dask's ranges), each merged by a process of its own. Written to files of their
own and then appended one after another, the parts are copied once more at the end of the
run, on one core (at 10M triples, 0.2 to 0.4 s of a 5 s run). Where the output is a plain
file, each part is written into it in place instead: a part merges lines of the runs, each
once, so it is at most as long as the bytes of the runs it reads, and it is written at the
offset those lengths give (:class:`PlacedWriter`). A line in several runs (or left out:
already in the data) makes a part shorter than its room; only then are the parts after it
moved down to close the gap (:func:`close_gaps`), which copies what the append copied.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import stat
from typing import IO

from ldids.rdf.files import WriteBehind

__all__ = ["PlacedWriter", "close_gaps", "placeable"]

#: How much a gap is closed by at a time.
_MOVE = 1 << 20


def placeable(stream: IO[bytes] | None) -> int | None:
    """The descriptor of ``stream`` where other processes can write parts into it in place:
    a plain file, open to read (a gap is closed by reading what is after it) and to write
    at any offset (not opened to append, where Linux's pwrite appends whatever the offset);
    else None (a pipe, a device, standard output as a shell opens it)."""
    if stream is None:
        return None
    try:
        descriptor = stream.fileno()
        if not stream.seekable() or not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        flags = fcntl.fcntl(descriptor, fcntl.F_GETFL)
        if flags & os.O_ACCMODE != os.O_RDWR or flags & os.O_APPEND:
            return None
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    return descriptor


class PlacedWriter:
    """Writes a part into the file ``descriptor`` from byte ``start`` on, one batch after
    another, and has the kernel write it to disk behind it, as :class:`WriteBehind` does
    for an output written in turn (the pages written are dropped from the page cache)."""

    def __init__(self, descriptor: int, start: int) -> None:
        self._descriptor, self._start = descriptor, start
        self.written = self._done = 0

    def write(self, data: bytes | memoryview) -> None:
        view = memoryview(data)
        while view:
            count = os.pwrite(self._descriptor, view, self._start + self.written)
            view = view[count:]
            self.written += count
        if self.written - self._done >= WriteBehind.STEP:
            # advice a file system does not take: the part is written all the same
            with contextlib.suppress(OSError):
                os.posix_fadvise(self._descriptor, self._start, self.written, os.POSIX_FADV_DONTNEED)
            self._done = self.written


def close_gaps(descriptor: int, base: int, parts: list[tuple[int, int]]) -> int:
    """Moves parts written in place down so that they follow each other from byte ``base``
    on, and ends the file after the last: ``parts`` are (room, written), in order, the
    first written at ``base``, each next one at the end of the room of the one before (a
    part's written bytes fit its room). The end of the file: ``base`` and every part's
    written bytes."""
    source = target = base
    for room, written in parts:
        if written > room:
            raise RuntimeError(f"a part of {written} bytes was written into room for {room}")
        if source != target:
            _move_down(descriptor, source, target, written)
        source += room
        target += written
    if source != target:
        os.ftruncate(descriptor, target)
    return target


def _move_down(descriptor: int, source: int, target: int, size: int) -> None:
    """Copies ``size`` bytes from ``source`` to ``target`` (below it) in the same file, from
    the first byte on: a piece read is written where it goes only after every byte it
    overwrites that is still to be moved has been read."""
    moved = 0
    while moved < size:
        data = os.pread(descriptor, min(_MOVE, size - moved), source + moved)
        if not data:
            raise OSError(f"the file ended at byte {source + moved} while a part was moved")
        view = memoryview(data)
        while view:
            count = os.pwrite(descriptor, view, target + moved)
            view = view[count:]
            moved += count
