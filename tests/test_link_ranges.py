"""The links merged a range at a time: the ranges, put together, are the whole merge."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ldids.dumps.link_ranges import Sorted, boundaries, merge_range, write_sorted
from ldids.dumps.sorting import SortedUnique

ALPHABET = ["a", "b", "c", "z", "\t", " ", "é", "€", "😀", "<", ">"]


def sorted_file(path: Path, lines: set[str], batch: int) -> Sorted:
    """``lines`` sorted in UTF-8, indexed every ``batch`` lines (as write_sorted indexes
    its batches, which hold 10,000 lines: too many for a small test)."""
    encoded = sorted(line.encode() for line in lines)
    index, offset = [], 0
    with path.open("wb") as out:
        for number, line in enumerate(encoded):
            if number % batch == 0:
                index.append((line, offset))
            out.write(line + b"\n")
            offset += len(line) + 1
    return Sorted(str(path), index)


def draw(rng: random.Random, count: int) -> set[str]:
    return {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))) for _ in range(count)}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("pieces", [1, 2, 3, 7])
def test_ranges_put_together_are_the_merge_less_the_present(tmp_path: Path, seed: int, pieces: int) -> None:
    rng = random.Random(seed)
    found_sets = [draw(rng, rng.randint(0, 300)) for _ in range(rng.randint(1, 5))]
    present_sets = [draw(rng, rng.randint(0, 200)) for _ in range(rng.randint(0, 3))]
    batch = rng.randint(1, 40)
    found = [sorted_file(tmp_path / f"found-{n}", lines, batch) for n, lines in enumerate(found_sets)]
    present = [sorted_file(tmp_path / f"present-{n}", lines, batch) for n, lines in enumerate(present_sets)]
    union, held = set().union(*found_sets), set().union(*present_sets)
    expected = b"".join(line + b"\n" for line in sorted(line.encode() for line in union - held))

    cuts: list[bytes | None] = [None, *boundaries(found, pieces), None]
    assert len(cuts) - 1 <= pieces
    written, count = b"", 0
    for n in range(len(cuts) - 1):
        out = tmp_path / f"range-{n}"
        count += merge_range(found, present, cuts[n], cuts[n + 1], str(out))
        written += out.read_bytes()
    assert written == expected
    assert count == len(union - held)
    if pieces > 1 and sum(len(file.index) for file in found) > 2 * pieces:
        assert len(cuts) > 2  # really cut


def test_write_sorted_indexes_each_batch(tmp_path: Path) -> None:
    lines = SortedUnique()
    lines.add_all(f"line {n:06d}" for n in range(25_000))
    written = write_sorted(lines, tmp_path / "lines")
    data = (tmp_path / "lines").read_bytes()
    assert data == b"".join(f"line {n:06d}\n".encode() for n in range(25_000))
    assert [line for line, _ in written.index] == [b"line 000000", b"line 010000", b"line 020000"]
    assert all(data[offset:].startswith(line + b"\n") for line, offset in written.index)


def test_a_line_below_the_cut_that_the_cut_begins_with(tmp_path: Path) -> None:
    """Lines are compared without their line breaks, as they were sorted: "a" is below
    "a\\t", though "a\\n" is not."""
    found = [sorted_file(tmp_path / "found", {"a", "a\t", "b"}, 1)]
    assert boundaries(found, 3) == [b"a\t", b"b"]
    pieces = []
    for n, (lower, upper) in enumerate([(None, b"a\t"), (b"a\t", b"b"), (b"b", None)]):
        merge_range(found, [], lower, upper, str(tmp_path / f"range-{n}"))
        pieces.append((tmp_path / f"range-{n}").read_bytes())
    assert pieces == [b"a\n", b"a\t\n", b"b\n"]
