"""The compiled joins and merge of sorted runs (ldids/dumps/_scan.c: ``joined_unique``,
``MergedRuns``) against their Python reference in ldids.dumps.sorting: the same bytes and
counts for the same lines, however they are cut into runs and batches."""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from ldids.dumps import sorting
from ldids.dumps.sorting import SortedUnique

compiled = sorting._compiled
pytestmark = pytest.mark.skipif(compiled is None, reason="the C extension was not built, or LDIDS_PURE_PYTHON is set")

# Lines as links are, and the characters that test an order: a tab and NUL below the line
# break, non-ASCII letters, a lone surrogate (a \uD800 escape in a dump: written as its
# three bytes, ordered by its code point).
LINE = st.text(
    st.one_of(st.characters(exclude_characters="\n\r"), st.sampled_from(["\t", "\x00", "\ud800", "\udfff", "é"])),
    max_size=8,
)


def written(additions: list[list[str]], run_size: int, python: bool) -> list[bytes]:
    with pytest.MonkeyPatch.context() as patch:
        if python:
            patch.setattr(sorting, "_compiled", None)
        collected = SortedUnique(run_size=run_size)
        for lines in additions:
            collected.add_all(lines)
        batches = list(collected.encoded())
    assert all(data.count(b"\n") == count for data, count in batches)
    return [line + b"\n" for data, _ in batches for line in data.split(b"\n")[:-1]]


@examples(max_examples=300, deadline=None)
@given(additions=st.lists(st.lists(LINE, max_size=12), max_size=12), run_size=st.integers(1, 40))
def test_compiled_runs_write_what_the_python_runs_write(additions: list[list[str]], run_size: int) -> None:
    python = written(additions, run_size, True)
    assert written(additions, run_size, False) == python
    everything = sorted({line for lines in additions for line in lines})
    assert python == [line.encode("utf-8", "surrogatepass") + b"\n" for line in everything]


@pytest.mark.parametrize(
    ("lines", "start", "stop", "expected"),
    [
        (["a", "a", "b"], 0, 3, (b"a\nb\n", 2)),
        (["a", "a", "b"], 1, 3, (b"b\n", 1)),  # "a" was written with the slice before
        (["a", "b", "b"], 2, 9, (b"", 0)),
        (["a", "b"], 2, 2, (b"", 0)),
        (["", "", "x"], 0, 3, (b"\nx\n", 2)),
        (["\ud800", "\ud800"], 0, 2, (b"\xed\xa0\x80\n", 1)),
        (["é", "é", "ê"], 0, 3, ("é\nê\n".encode(), 2)),
    ],
)
def test_joined_unique_slices(lines: list[str], start: int, stop: int, expected: tuple[bytes, int]) -> None:
    assert compiled is not None
    assert compiled.joined_unique(lines, start, stop) == expected


def test_merge_of_runs_with_lines_longer_than_a_read_and_small_batches() -> None:
    assert compiled is not None
    long = "x" * 200_000  # more than a run's buffer (64 KiB) holds: the buffer grows
    runs = [sorted({f"{n * 7919 % 1000:03d}" for n in range(k, 2000, 3)} | {long, "a", "a\tb"}) for k in range(3)]
    files = []
    for lines in runs:
        file = tempfile.TemporaryFile("w+b")  # noqa: SIM115
        file.write("".join(line + "\n" for line in lines).encode())
        file.flush()
        files.append(file)
    try:
        batches = list(compiled.MergedRuns([file.fileno() for file in files], batch=100))
    finally:
        for file in files:
            file.close()
    expected = sorted(set().union(*runs), key=str.encode)
    assert b"".join(data for data, _ in batches) == "".join(line + "\n" for line in expected).encode()
    assert sum(count for _, count in batches) == len(expected)
    assert len(batches) > 10  # about 100 bytes a batch


def test_merge_of_no_runs_and_of_empty_runs() -> None:
    assert compiled is not None
    assert list(compiled.MergedRuns([])) == []
    with tempfile.TemporaryFile("w+b") as empty:
        assert list(compiled.MergedRuns([empty.fileno(), empty.fileno()])) == []
    with pytest.raises(TypeError):
        compiled.MergedRuns(["not a file"])
