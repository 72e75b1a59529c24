"""Types of the compiled per-line loop (ldids/dumps/_scan.c)."""

from collections.abc import Callable
from typing import Any

class SharedDecisions:
    """Decisions shared by forked worker processes (Linux): a fixed-size table in shared memory."""

    def __init__(self, schemes: tuple[str, ...], entries: int) -> None: ...
    def add(self, key: bytes, value: Any, /) -> bool: ...
    def get(self, key: bytes, /) -> Any: ...
    def __len__(self) -> int: ...

class DecisionMemo:
    """One process's decisions by raw key (bytes); holding ``size`` entries, it forgets the older half."""

    size: int
    def __init__(self, size: int) -> None: ...
    def add(self, key: bytes, value: Any, /) -> None: ...
    def get(self, key: bytes, /) -> Any: ...
    def items(self) -> list[tuple[bytes, Any]]: ...
    def __len__(self) -> int: ...

class MergedRuns:
    """The lines of files of sorted lines (by descriptor, each line ended by LF), merged,
    each once, as (data, count) batches of about ``batch`` bytes: each file from its start
    or from ``starts[i]`` (the start of a line), to its end or to its first line not below
    ``stop``."""

    def __init__(
        self, fds: list[int], batch: int = ..., starts: list[int] | None = ..., stop: bytes | None = ...
    ) -> None: ...
    def __iter__(self) -> MergedRuns: ...
    def __next__(self) -> tuple[bytes, int]: ...

def product_sizes() -> list[int | None]:
    """The states of each product of automata made in this process (None: too many, run in lanes)."""

def set_products(on: bool, /) -> bool:
    """Whether select_lines runs the automata of a term as their product (else each in a lane); the setting before."""

def joined_unique(lines: list[str], start: int = 0, stop: int = ..., /) -> tuple[bytes, int]:
    """lines[start:stop] of sorted lines, each once (nor the line before start), in UTF-8, each ended by LF."""

def scan_block(
    data: bytes | bytearray | memoryview,
    tables: Any,
    slow: Callable[[int, bytes], bytes | None],
    bad: Callable[[int, bytes], None],
    into: bytearray | None = None,
    /,
) -> tuple[bytes | bytearray, int, int, int, int, dict[Any, int], list[tuple[int, Any]]]:
    """``tables``: an ldids.dumps.stream.ScanTables."""

def select_lines(
    data: bytes | bytearray | memoryview,
    groups: tuple[Any, ...],
    any_escape: bool,
    memo: dict[bytes, None],
    memo_size: int,
    classes: dict[bytes, bytes],
    probes: Any = None,
    learn: Callable[[bytes], bytes] | None = None,
    trusted: bool = False,
    /,
) -> tuple[int, bytes, list[int], list[int]]:
    """The lines of a block the streamed checks must see (ldids/shacl/prefilter.py); ``trusted``:
    the block is ldids normalize's output, its statements valid, their terms only told apart."""
