"""Types of the compiled per-line loop (ldids/dumps/_scan.c)."""

from collections.abc import Callable
from typing import Any

class SharedDecisions:
    """Decisions shared by forked worker processes (Linux): a fixed-size table in shared memory."""

    def __init__(self, schemes: tuple[str, ...], entries: int) -> None: ...
    def add(self, key: bytes, value: Any, /) -> bool: ...
    def get(self, key: bytes, /) -> Any: ...
    def __len__(self) -> int: ...

def scan_block(
    data: bytes | bytearray | memoryview,
    quads: bool,
    stop_on_error: bool,
    memo: dict[bytes, Any],
    decide: Callable[[str, str | None, bool], Any],
    memo_size: int,
    schemes: tuple[str, ...],
    shared: SharedDecisions | None,
    folded: tuple[bytes, ...],
    exact: tuple[bytes, ...],
    bare_predicates: tuple[bytes, ...],
    slow_predicates: tuple[bytes, ...],
    slow: Callable[[int, bytes], bytes | None],
    bad: Callable[[int, bytes], None],
    all_slow: bool,
    rewrite_predicates: bool,
    into: bytearray | None = None,
    /,
) -> tuple[bytes | bytearray, int, int, int, int, dict[str, int], list[tuple[int, Any]]]: ...
