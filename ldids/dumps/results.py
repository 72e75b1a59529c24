"""What a streamed validation remembers of its results, in memory that does not grow with the dump.

A streamed run meets results one block at a time and may meet one result many times: a
focus node that is a term anywhere is the focus of each statement the term is in, and SHACL
reports a result once (§3.6.1: the results graph is a set). Two stores, each bounded:

- :class:`Seen`, the digests of the results met lately, 8 bytes each in open-addressed tables
  (a ``set`` of 16-byte ``bytes`` takes about 100 bytes an entry: 1M results were 90 MiB);
- :class:`Kept`, the results a report will list: the first ``limit`` in the report's order,
  whatever order the blocks give them in, so that a report of the first 20 lists what the
  full report's first 20 are; a report of all of them (``--all``, a Turtle report) has them
  sorted in runs on disk, merged as it is written.
"""

from __future__ import annotations

import heapq
import itertools
import os
import pickle
from array import array
from collections.abc import Iterator
from operator import itemgetter
from types import ModuleType
from typing import Any, BinaryIO, Generic, TypeVar

from ldids.rdf.files import scratch_file

_scan: ModuleType | None
try:
    from ldids.dumps import _scan
except ImportError:  # built without a C compiler
    _scan = None

__all__ = ["GENERATION", "SPILL", "Kept", "Seen"]

#: Results a generation of :class:`Seen` remembers: two generations of tables of 2**20 slots,
#: 16 MiB at most; the last 524,288 results met, at least, are remembered.
GENERATION = 1 << 19

#: Results held in memory at most by :class:`Kept` before a sorted run of them is written out.
SPILL = 20_000
#: Runs on disk at most (open files): past it, they are merged into one.
MAX_RUNS = 64
_PICKLED = 1_000  # results pickled at a time: a run is read back as many at a time

_MASK = (1 << 64) - 1
_EMPTY = 0  # a slot never used; a digest of 0 is stored as 1 (it only merges two of 2**64)


class Seen:
    """The digests of the results met lately: ``add`` answers whether one is new.

    The last ``generation`` digests at least, and up to twice as many, are remembered: when
    the young table holds ``generation``, it becomes the old one and the one before is
    forgotten. A result met again after more than that many others is reported again (and
    counted twice): dumps hold a record's statements together, and a term given again far
    away is rare, but memory must not grow with the dump (10M triples can give 5M results).

    A table is an ``array`` of 64-bit slots (8 bytes a digest, where a ``set`` of ``bytes``
    took about 100), open-addressed with linear probing and grown at half full. Two results
    share a digest with a chance of 2**-64 each pair remembered together: about one in 3·10^7
    for a million, the result then reported once, not twice."""

    def __init__(self, generation: int = GENERATION) -> None:
        self.generation = generation
        self._young = _table(1024)
        self._old: array[int] | None = None
        self._count = 0

    def __len__(self) -> int:
        """The digests remembered."""
        return self._count + (0 if self._old is None else self.generation)

    def add(self, digest: bytes) -> bool:
        """Whether ``digest`` (its first 8 bytes) is new; it is remembered."""
        return self.add_hash(int.from_bytes(digest[:8], "little"))

    def add_hash(self, digest: int) -> bool:
        """Whether a 64-bit ``digest`` (its low 64 bits: ``hash()`` too) is new."""
        value = (digest & _MASK) or 1
        old = self._old
        if old is not None and old[_slot(old, value)] == value:
            return False
        young = self._young
        index = _slot(young, value)
        if young[index] == value:
            return False
        young[index] = value
        self._added(1)
        return True

    def _added(self, count: int) -> None:
        """``count`` digests more in the young table: it becomes the old one once it holds
        a generation, and grows at half full."""
        self._count += count
        if self._count >= self.generation:
            self._turn()
        elif 2 * self._count > len(self._young):
            self._young = _grown(self._young)

    def _turn(self) -> None:
        # The table forgotten, as large as the young one grows, is the next young one: no
        # table is allocated after the first generation, and none grows while a full old
        # one is held (which took 4 MiB more, for a while, at each generation).
        forgotten = self._old
        if forgotten is None or len(forgotten) != len(self._young):
            forgotten = _table(len(self._young))
        else:
            _clear(forgotten)
        self._old, self._young, self._count = self._young, forgotten, 0

    def insert(self, digests: list[int]) -> bytearray:
        """:meth:`add_hash` of each digest in turn: 1 where it was new, 0 where not. Compiled
        (``seen_insert`` in ``ldids/dumps/_scan.c``) where it was built, a call a block of
        results; :meth:`add_hash` is its reference (``LDIDS_PURE_PYTHON=1``)."""
        new = bytearray(len(digests))
        if _scan is None or os.environ.get("LDIDS_PURE_PYTHON"):
            for index, digest in enumerate(digests):
                new[index] = self.add_hash(digest)
            return new
        done = 0
        while done < len(digests):
            # As many as may go in before _added would turn the tables or grow the young one.
            room = min(self.generation - self._count, len(self._young) // 2 + 1 - self._count)
            done, added = _scan.seen_insert(self._young, self._old, digests, done, room, new)
            self._added(added)
        return new


def _table(size: int) -> array[int]:
    return array("Q", bytes(8 * size))


_ZEROS = bytes(1 << 16)


def _clear(table: array[int]) -> None:
    """Every slot of ``table`` emptied, a few pages at a time (a table of zeros as large
    would take as much memory again)."""
    slots = memoryview(table).cast("B")
    for start in range(0, len(slots), len(_ZEROS)):
        end = min(start + len(_ZEROS), len(slots))
        slots[start:end] = _ZEROS[: end - start]


def _slot(table: array[int], value: int) -> int:
    """Where ``value`` is in ``table``, or the empty slot where it would go."""
    mask = len(table) - 1
    index = value & mask
    while (found := table[index]) != _EMPTY and found != value:
        index = (index + 1) & mask
    return index


def _grown(old: array[int]) -> array[int]:
    slots = _table(2 * len(old))
    if _scan is not None and not os.environ.get("LDIDS_PURE_PYTHON"):
        # In C, as insert adds them (each value takes the slot _slot gives it, in the same
        # order): the first generation's table grows ten times, and the digests it holds were
        # a Python loop. A few at a time: a list of them all took 20 MiB at the last growth.
        for start in range(0, len(old), _GROWN_STEP):
            values = [value for value in old[start : start + _GROWN_STEP] if value != _EMPTY]
            _scan.seen_insert(slots, None, values, 0, len(values), bytearray(len(values)))
        return slots
    for value in old:
        if value != _EMPTY:
            slots[_slot(slots, value)] = value
    return slots


_GROWN_STEP = 1 << 15


Item = TypeVar("Item")
#: A result's place in a report: shape, file, line, focus (as written in N-Triples).
Key = tuple[str, str, int, str]

#: A key no other comes before (lines are counted from 1, or 0 where none is said).
LEAST: Key = ("", "", -1, "")


class Kept(Generic[Item]):
    """The first ``limit`` items by their keys (all of them with None), as a stable sort of
    every item offered would give them, in bounded memory: at most ``2 * limit`` and some
    are held where that is under ``spill``; past ``spill``, sorted runs of items go to
    scratch files and :meth:`first` merges them.

    A stable sort keeps items of equal keys in the order they were offered, and so do the
    trimming and the merge (earlier runs first): the items kept come before those offered
    after them."""

    def __init__(self, limit: int | None, spill: int | None = None) -> None:
        self.limit = limit
        spill = SPILL if spill is None else spill
        self._items: list[tuple[Key, Item]] = []
        self._runs: list[BinaryIO] = []
        self._bar: Key | None = None
        trimmed = None if limit is None else 2 * limit + 256
        self._bound = spill if trimmed is None else min(trimmed, spill)

    @property
    def bar(self) -> Key | None:
        """An item offered with a key as great as this or greater is turned away (None: no
        item is yet). It only comes down: one read before is as safe to turn items away by."""
        return LEAST if self.limit == 0 else self._bar

    def offer(self, key: Key, item: Item) -> None:
        if self.limit == 0 or (self._bar is not None and key >= self._bar):
            return
        self._items.append((key, item))
        if len(self._items) >= self._bound:
            self._sort()  # and trimmed to the limit: a run holds no more
            if len(self._items) >= self._bound // 2:
                self._spill()

    def _sort(self) -> None:
        self._items.sort(key=itemgetter(0))
        if self.limit is not None:
            del self._items[self.limit :]
            if self._items and len(self._items) == self.limit and not self._runs:
                # The last of the first ``limit``: an item offered after it with a key as
                # great or greater comes after it in a stable sort, and is never among them.
                self._bar = self._items[-1][0]

    def _spill(self) -> None:
        self._runs.append(_written(iter(self._items)))
        self._items = []
        if len(self._runs) >= MAX_RUNS:
            runs = self._runs
            merged = heapq.merge(*(_read(run) for run in runs), key=itemgetter(0))
            self._runs = [_written(itertools.islice(merged, self.limit))]
            for run in runs:
                run.close()

    def first(self) -> Iterator[Item]:
        """The items kept, in their keys' order (again from the start at each call)."""
        self._sort()
        runs = [_read(run) for run in self._runs]
        merged = heapq.merge(*runs, iter(self._items), key=itemgetter(0)) if runs else iter(self._items)
        return (item for _, item in itertools.islice(merged, self.limit))

    def close(self) -> None:
        """Closes the runs on disk and forgets them: :meth:`first` gives the rest after."""
        for run in self._runs:
            run.close()
        self._runs = []


def _written(items: Iterator[tuple[Key, Any]]) -> BinaryIO:
    run = scratch_file()
    while chunk := list(itertools.islice(items, _PICKLED)):
        pickle.dump(chunk, run, protocol=pickle.HIGHEST_PROTOCOL)
    return run


def _read(run: BinaryIO) -> Iterator[tuple[Key, Any]]:
    run.seek(0)
    while True:
        try:
            chunk = pickle.load(run)
        except EOFError:
            return
        position = run.tell()
        yield from chunk
        run.seek(position)  # another reader of the same run may have moved it
