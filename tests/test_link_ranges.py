"""The links merged a range at a time: the ranges, put together, are the whole merge."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ldids.dumps import sorting
from ldids.dumps.link_ranges import Sorted, boundaries, merge_range, room, write_sorted
from ldids.dumps.placed import close_gaps
from ldids.dumps.sorting import SortedUnique

ALPHABET = ["a", "b", "c", "z", "\t", " ", "é", "€", "😀", "<", ">"]


def sorted_file(path: Path, lines: set[str], batch: int, chunk: int = 1 << 30) -> Sorted:
    """``lines`` sorted in UTF-8, indexed every ``batch`` lines (as write_sorted indexes
    its batches, which hold 10,000 lines: too many for a small test), in files begun
    whenever the last holds ``chunk`` batches."""
    encoded = sorted(line.encode() for line in lines)
    index: list[tuple[bytes, int, int]] = []
    paths: list[str] = []
    sizes: list[int] = []
    offset = 0
    for number, line in enumerate(encoded):
        if number % batch == 0:
            if number % (batch * chunk) == 0:
                paths.append(f"{path}-{len(paths):04d}")
                sizes.append(0)
                Path(paths[-1]).write_bytes(b"")
                offset = 0
            index.append((line, len(paths) - 1, offset))
        with open(paths[-1], "ab") as out:
            out.write(line + b"\n")
        offset += len(line) + 1
        sizes[-1] = offset
    return Sorted(paths, sizes, index)


def draw(rng: random.Random, count: int) -> set[str]:
    return {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))) for _ in range(count)}


@pytest.fixture(params=["compiled", "python"])
def merge(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The compiled merge of the runs, or the Python one (LDIDS_PURE_PYTHON)."""
    if request.param == "python":
        monkeypatch.setattr(sorting, "_compiled", None)
    else:
        assert sorting._compiled is not None, "the extension was not built"
    return str(request.param)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("pieces", [1, 2, 3, 7])
@pytest.mark.parametrize("cut", ["indexed", "anywhere"])
@pytest.mark.parametrize("in_place", [False, True])
def test_ranges_put_together_are_the_merge_less_the_present(
    merge: str, tmp_path: Path, seed: int, pieces: int, cut: str, in_place: bool
) -> None:
    """Cut where boundaries() cuts (a batch's first line), or at any line, in the files or
    not: in the middle of a batch, of a file, before the first line or after the last.
    ``in_place``: each range written into one file, in the room its files' lines take (the
    lines in several files, and those present, leave gaps, closed at the end)."""
    rng = random.Random(seed)
    found_sets = [draw(rng, rng.randint(0, 300)) for _ in range(rng.randint(1, 5))]
    present_sets = [draw(rng, rng.randint(0, 200)) for _ in range(rng.randint(0, 3))]
    batch, chunk = rng.randint(1, 40), rng.randint(1, 4)
    found = [sorted_file(tmp_path / f"found-{n}", lines, batch, chunk) for n, lines in enumerate(found_sets)]
    present = [sorted_file(tmp_path / f"present-{n}", lines, batch, chunk) for n, lines in enumerate(present_sets)]
    union, held = set().union(*found_sets), set().union(*present_sets)
    expected = b"".join(line + b"\n" for line in sorted(line.encode() for line in union - held))

    if cut == "indexed":
        cuts: list[bytes | None] = [None, *boundaries(found, pieces), None]
        assert len(cuts) - 1 <= pieces
    else:
        cuts = [None, *sorted({line.encode() for line in draw(rng, pieces - 1)}), None]
    written, count = b"", 0
    if in_place:
        out = tmp_path / "links"
        with out.open("w+b") as stream:
            stream.write(b"\xff" * (1 << 16))  # what is not written over is not kept
            stream.flush()
            rooms = [room(found, cuts[n], cuts[n + 1]) for n in range(len(cuts) - 1)]
            parts, at = [], 0
            for n, space in enumerate(rooms):
                lines, size = merge_range(found, present, cuts[n], cuts[n + 1], str(out), at)
                assert size <= space
                parts.append((space, size))
                count += lines
                at += space
            assert sum(rooms) == sum(len(line.encode()) + 1 for lines in found_sets for line in lines)
            end = close_gaps(stream.fileno(), 0, parts)
        written = out.read_bytes()
        assert end == len(written)
    for n in range(len(cuts) - 1) if not in_place else ():
        out = tmp_path / f"range-{n}"
        lines, size = merge_range(found, present, cuts[n], cuts[n + 1], str(out))
        assert size == out.stat().st_size
        count += lines
        written += out.read_bytes()
    assert written == expected
    assert count == len(union - held)
    if cut == "indexed" and pieces > 1 and sum(len(file.index) for file in found) > 2 * pieces:
        assert len(cuts) > 2  # really cut


def test_write_sorted_indexes_each_batch_and_begins_files(tmp_path: Path) -> None:
    lines = SortedUnique()
    lines.add_all(f"line {n:06d}" for n in range(25_000))
    # Batches of 10,000 lines, 120,000 bytes; an index line after every 50,000 bytes of one.
    written = write_sorted(lines, tmp_path / "lines", chunk=150_000, every=50_000)
    assert written.paths == [str(tmp_path / "lines-0000"), str(tmp_path / "lines-0001")]
    files = [Path(path).read_bytes() for path in written.paths]
    assert files[0] == b"".join(f"line {n:06d}\n".encode() for n in range(20_000))
    assert files[1] == b"".join(f"line {n:06d}\n".encode() for n in range(20_000, 25_000))
    assert written.sizes == [240_000, 60_000]
    assert written.index == [
        (b"line 000000", 0, 0),
        (b"line 004167", 0, 50_004),  # the first line that starts after 50,000 bytes
        (b"line 008334", 0, 100_008),
        (b"line 010000", 0, 120_000),
        (b"line 014167", 0, 170_004),
        (b"line 018334", 0, 220_008),
        (b"line 020000", 1, 0),
        (b"line 024167", 1, 50_004),
    ]


def test_a_line_below_the_cut_that_the_cut_begins_with(tmp_path: Path) -> None:
    """Lines are compared without their line breaks, as they were sorted: "a" is below
    "a\\t", though "a\\n" is not."""
    found = [sorted_file(tmp_path / "found", {"a", "a\t", "b"}, 1)]
    pieces = []
    for n, (lower, upper) in enumerate([(None, b"a\t"), (b"a\t", b"b"), (b"b", None)]):
        merge_range(found, [], lower, upper, str(tmp_path / f"range-{n}"))
        pieces.append((tmp_path / f"range-{n}").read_bytes())
    assert pieces == [b"a\n", b"a\t\n", b"b\n"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("pieces", [2, 3, 5])
def test_boundaries_cut_about_as_many_bytes_each(tmp_path: Path, seed: int, pieces: int) -> None:
    """Each range holds the files' bytes over the pieces, give or take a batch a file; the
    files' lines of different lengths, and drawn from different parts of the order."""
    rng = random.Random(seed)
    sets = [{f"{rng.choice('abc')}{n:07d}" + "x" * rng.randint(0, 40) for n in rng.sample(range(10**6), 2000)}]
    sets += [{f"b{n:07d}" for n in rng.sample(range(10**6), 3000)} for _ in range(2)]
    batch = 25
    files = [sorted_file(tmp_path / f"f-{n}", lines, batch, chunk=7) for n, lines in enumerate(sets)]
    cuts = boundaries(files, pieces)
    assert len(cuts) == pieces - 1
    lines = [line.encode() for lines in sets for line in lines]
    whole = sum(len(line) + 1 for line in lines)
    slack = sum(max(len(line) + 1 for line in group) * batch for group in ([s.encode() for s in g] for g in sets))
    for lower, upper in zip([None, *cuts], [*cuts, None], strict=True):
        held = sum(
            len(line) + 1 for line in lines if (lower is None or line >= lower) and (upper is None or line < upper)
        )
        assert abs(held - whole / pieces) <= slack
