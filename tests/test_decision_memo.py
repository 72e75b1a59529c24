"""The compiled loop's memo of decisions (``DecisionMemo`` in ldids/dumps/_scan.c) against
the bounded dict it replaced: the same keys held, with the same values, after any sequence
of additions and look-ups (ldids.passes.decision.evict_oldest_half forgets the older half
of a full memo)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldids.dumps import worker
from ldids.passes.decision import evict_oldest_half

pytestmark = pytest.mark.skipif(not worker.COMPILED, reason="the C extension was not built")

# Keys as the loop makes them: terms, "\0" + a term, predicate + subject + literal; some
# longer than the loop's room on the stack, some sharing a long prefix.
KEYS = st.one_of(
    st.binary(max_size=12),
    st.builds(lambda n: b"<info:fedora/demo:%d>" % n, st.integers(0, 40)),
    st.builds(lambda n: b"\0" * n, st.integers(0, 3)),
    st.builds(lambda b, n: b * n, st.binary(min_size=1, max_size=3), st.integers(300, 700)),
)


def _reference_add(table: dict[bytes, Any], size: int, key: bytes, value: Any) -> None:
    if len(table) >= size:
        evict_oldest_half(table)
    table[key] = value


@given(st.integers(1, 9), st.lists(st.tuples(KEYS, st.booleans()), max_size=200))
def test_memo_holds_what_the_bounded_dict_holds(size: int, steps: list[tuple[bytes, bool]]) -> None:
    assert worker._scan is not None
    memo = worker._scan.DecisionMemo(size)
    reference: dict[bytes, Any] = {}
    for number, (key, add) in enumerate(steps):
        if add and key not in reference:  # the loop adds a key only after missing it
            value = (None, False, f"scheme {number}")
            _reference_add(reference, size, key, value)
            memo.add(key, value)
        expected = reference.get(key)
        if expected is None:
            with pytest.raises(KeyError):
                memo.get(key)
        else:
            assert memo.get(key) is expected
        assert len(memo) == len(reference)
    assert memo.items() == list(reference.items())
    assert memo.size == size


@pytest.mark.parametrize(
    ("size", "keys", "held"),
    [
        # full at 4: the 5th key makes it forget the first two
        (4, [b"a", b"b", b"c", b"d", b"e"], [b"c", b"d", b"e"]),
        (4, [b"a", b"b", b"c", b"d", b"e", b"f", b"g"], [b"e", b"f", b"g"]),
        # half of one is none: a memo of 1 holds 2, then forgets 1 before each new key
        (1, [b"a", b"b"], [b"a", b"b"]),
        (1, [b"a", b"b", b"c"], [b"b", b"c"]),
        (3, [b"", b"\0", b"\0\0", b"x"], [b"\0", b"\0\0", b"x"]),
    ],
)
def test_memo_forgets_the_older_half(size: int, keys: list[bytes], held: list[bytes]) -> None:
    assert worker._scan is not None
    memo = worker._scan.DecisionMemo(size)
    for key in keys:
        memo.add(key, key.hex())
    assert [key for key, _ in memo.items()] == held
    assert all(memo.get(key) == key.hex() for key in held)


def test_memo_refuses_a_key_it_holds_and_bad_sizes() -> None:
    assert worker._scan is not None
    memo = worker._scan.DecisionMemo(2)
    memo.add(b"k", 1)
    with pytest.raises(KeyError):
        memo.add(b"k", 2)
    assert memo.get(b"k") == 1
    for size in (0, -1, 1 << 31):
        with pytest.raises(ValueError, match="size"):
            worker._scan.DecisionMemo(size)
