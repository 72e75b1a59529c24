"""What a streamed validation remembers of its results, in memory that does not grow with the dump.

A streamed run meets results one block at a time and may meet one result many times: a
focus node that is a term anywhere is the focus of each statement the term is in, and SHACL
reports a result once (§3.6.1: the results graph is a set). Two stores, each bounded:

- :class:`Seen`, the digests of the results reported so far, 8 bytes each in an open-addressed
  table (a ``set`` of 16-byte ``bytes`` takes about 100 bytes an entry: 1M results were 90 MiB);
- :class:`Kept`, the results a report will list: the first ``limit`` in the report's order,
  whatever order the blocks give them in, so that a report of the first 20 lists what the
  full report's first 20 are.
"""

from __future__ import annotations

from array import array
from operator import itemgetter
from typing import Generic, TypeVar

__all__ = ["SEEN_LIMIT", "Kept", "Seen"]

#: Results remembered to report each once (32 MiB of table at most); past this many, a result
#: met again may be reported again, and the counts say so by counting it twice.
SEEN_LIMIT = 2_000_000

_EMPTY = 0  # a slot never used; a digest of 0 is stored as 1 (it only merges two of 2**64)


class Seen:
    """A set of 64-bit digests in one ``array`` of slots, linear probing, grown at half full.

    Two results share a digest with a chance of 2**-64 each pair: about one in ten million
    for the two million results of a 10M-triple dump, the result then reported once, not
    twice. ``add`` answers whether the digest was new."""

    def __init__(self, limit: int = SEEN_LIMIT) -> None:
        self.limit = limit
        self._slots = array("Q", bytes(8 * 1024))
        self._mask = len(self._slots) - 1
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, digest: bytes) -> bool:
        value = int.from_bytes(digest[:8], "little") or 1
        slots, mask = self._slots, self._mask
        index = value & mask
        while True:
            found = slots[index]
            if found == value:
                return False
            if found == _EMPTY:
                break
            index = (index + 1) & mask
        if self._count >= self.limit:
            return True  # new, and not remembered: the table is as large as it may grow
        slots[index] = value
        self._count += 1
        if 2 * self._count > len(slots):
            self._grow()
        return True

    def _grow(self) -> None:
        old = self._slots
        slots = self._slots = array("Q", bytes(16 * len(old)))
        mask = self._mask = len(slots) - 1
        for value in old:
            if value != _EMPTY:
                index = value & mask
                while slots[index] != _EMPTY:
                    index = (index + 1) & mask
                slots[index] = value


Item = TypeVar("Item")
#: A result's place in a report: shape, file, line, focus (as written in N-Triples).
Key = tuple[str, str, int, str]


class Kept(Generic[Item]):
    """The first ``limit`` items by their keys (all of them with None), as a sort of every
    item offered would give them; in memory, at most ``2 * limit`` and some.

    A stable sort keeps items of equal keys in the order they were offered, and so does the
    trimming: the items kept come before those offered after them."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._items: list[tuple[Key, Item]] = []

    def offer(self, key: Key, item: Item) -> None:
        if self.limit == 0:
            return
        self._items.append((key, item))
        if self.limit is not None and len(self._items) >= 2 * self.limit + 256:
            self._trim()

    def _trim(self) -> None:
        self._items.sort(key=itemgetter(0))
        if self.limit is not None:
            del self._items[self.limit :]

    def first(self) -> list[Item]:
        """The items kept, in their keys' order."""
        self._trim()
        return [item for _, item in self._items]
