"""The links' sorted runs merged in two halves, one by a worker (ldids.dumps.pool._split_links):
the halves put together are the one merge, and a run writes what one process writes."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from ldids.dumps import placed, pool, sorting
from ldids.dumps.run import normalize_dump
from ldids.dumps.sorting import split_point
from ldids.dumps.stream import Settings
from ldids.passes.config import Config

compiled = sorting._compiled
pytestmark = pytest.mark.skipif(compiled is None, reason="the halves are merged by the compiled MergedRuns")

# Lines as link lines are: ASCII mostly, some UTF-8, some the start of another.
_LINES = st.lists(
    st.text(alphabet=st.sampled_from("ab<>:/ é\u00ff\u4e00"), min_size=0, max_size=8).map(
        lambda text: text.encode("utf-8")
    ),
    max_size=40,
)


def _runs(contents: list[list[bytes]]) -> list[IO[bytes]]:
    runs: list[IO[bytes]] = []
    for lines in contents:
        run = tempfile.TemporaryFile()  # noqa: SIM115 (the caller closes them)
        run.write(b"".join(line + b"\n" for line in sorted(set(lines))))
        run.flush()
        runs.append(run)
    return runs


def _merged(runs: list[IO[bytes]], **how: Any) -> bytes:
    assert compiled is not None
    return b"".join(data for data, _ in compiled.MergedRuns([run.fileno() for run in runs], **how))


@given(
    st.lists(_LINES, min_size=1, max_size=6),
    st.integers(min_value=1, max_value=20),
    st.floats(min_value=0.0, max_value=1.0),
)
@examples(max_examples=300, deadline=None)
def test_the_halves_are_the_merge(contents: list[list[bytes]], samples: int, share: float) -> None:
    runs = _runs(contents)
    try:
        distinct = sorted({line for lines in contents for line in lines})
        whole = b"".join(line + b"\n" for line in distinct)
        assert _merged(runs) == whole
        split = split_point(runs, samples, share)
        if split is None:
            assert len(distinct) < 2
            return
        key, starts = split
        lower, upper = _merged(runs, stop=key), _merged(runs, starts=starts)
        assert lower + upper == whole
        assert lower
        assert upper.startswith(key + b"\n")
    finally:
        for run in runs:
            run.close()


def test_merged_runs_refuses_what_is_no_part() -> None:
    assert compiled is not None
    runs = _runs([[b"a", b"b"]])
    try:
        descriptors = [runs[0].fileno()]
        with pytest.raises(ValueError, match="one for each file"):
            compiled.MergedRuns(descriptors, starts=[0, 0])
        with pytest.raises(ValueError, match="not negative"):
            compiled.MergedRuns(descriptors, starts=[-1])
        with pytest.raises(TypeError, match="stop: bytes"):
            compiled.MergedRuns(descriptors, stop="b")
        assert list(compiled.MergedRuns(descriptors, starts=[2])) == [(b"b\n", 1)]
        assert list(compiled.MergedRuns(descriptors, starts=[4])) == []
        assert list(compiled.MergedRuns(descriptors, stop=b"a")) == []
        assert list(compiled.MergedRuns(descriptors, stop=b"b")) == [(b"a\n", 1)]
    finally:
        runs[0].close()


def _dump(path: Path, records: int) -> Path:
    with path.open("w") as out:
        for i in range(records):
            out.write(f'<info:fedora/demo%3a{i}> <http://purl.org/dc/elements/1.1/title> "{i}" .\n')
            out.write(f"<http://example.org/{i}> <http://example.org/p> <http://hdl.handle.net/1765/{i}> .\n")
            out.write(f"<INFO:FEDORA/demo:{i % 50}> <http://example.org/p> <oai:arXiv.org:{i % 70}> .\n")
    return path


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="forked workers that hand files over (Linux)")
@pytest.mark.parametrize("links", ["inline", "links.nt", "links.nt.gz"])
@pytest.mark.parametrize("twice", [False, True])
def test_a_run_with_its_links_merged_in_halves_writes_what_one_process_writes(
    links: str, twice: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``twice``: every link of the largest run is in a second run too (as where one link is
    found by two processes), and each part is shorter than the runs it merges."""
    source = _dump(tmp_path / "dump.nt", 3000)

    def run(workers: int) -> tuple[bytes, bytes]:
        out = tmp_path / f"out{workers}.nt"
        where = "inline" if links == "inline" else str(tmp_path / f"{workers}-{links}")
        summary = normalize_dump(
            [str(source)], str(out), Settings(Config()), workers=workers, links=where, block_size=4096
        )
        written = b"" if links == "inline" else Path(where).read_bytes()
        if links.endswith(".gz"):
            written = gzip.decompress(written)
        assert summary.links == (out.read_bytes() + written).count(b"owl#sameAs")
        return out.read_bytes(), written

    alone = run(1)
    assert alone[0].count(b"owl#sameAs") + alone[1].count(b"owl#sameAs") > 3000
    monkeypatch.setattr(pool, "_SPLIT_AT", 0)
    halves: list[int] = []
    merged_upper = pool._Pool.merged_upper

    def counted(self: pool._Pool) -> Any:
        upper = merged_upper(self)
        halves.append(upper.lines)
        return upper

    monkeypatch.setattr(pool._Pool, "merged_upper", counted)
    closed: list[list[tuple[int, int]]] = []
    close_gaps = placed.close_gaps

    def closing(descriptor: int, base: int, parts: list[tuple[int, int]]) -> int:
        closed.append(parts)
        return close_gaps(descriptor, base, parts)

    monkeypatch.setattr(pool, "close_gaps", closing)
    if twice:
        take_runs = sorting.SortedUnique.take_runs

        def copied(self: sorting.SortedUnique) -> list[IO[bytes]]:
            runs = take_runs(self)
            if runs:
                largest = max(runs, key=lambda run: os.fstat(run.fileno()).st_size)
                largest.seek(0)
                copy = tempfile.TemporaryFile()  # noqa: SIM115 (adopted, and closed, by the run)
                copy.write(largest.read())
                runs.append(copy)
            return runs

        monkeypatch.setattr(sorting.SortedUnique, "take_runs", copied)
    for workers in (2, 3):
        assert run(workers) == alone
    assert len(halves) == 2
    assert all(lines > 0 for lines in halves)
    # Into a plain file the worker writes its part in place (ldids.dumps.placed), after room
    # for the lower part: the same links in several runs leave a gap, closed at the end.
    assert len(closed) == (0 if links.endswith(".gz") else 2)
    gaps = [room > written for (room, written), _ in closed]
    assert any(gaps) == (twice and not links.endswith(".gz"))


@pytest.mark.parametrize(("start", "size", "step"), [(0, 0, 7), (0, 10, 7), (3, 10, 7), (0, 14, 7), (5, 1000, 64)])
def test_a_part_sent_in_steps_is_the_part_sent_at_once(
    start: int, size: int, step: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """_append_part told of its progress (the write behind) sends at most a step at a time
    and tells after each: the output is the same bytes as one sendfile makes."""
    monkeypatch.setattr(pool, "_SEND_STEP", step)
    data = bytes(range(256)) * 4
    data = data[:size]
    outputs = []
    for advance in (None, "counted"):
        calls: list[int] = []
        with tempfile.TemporaryFile() as held, open(tmp_path / f"{advance}.out", "w+b") as out:
            held.write(data)
            held.flush()
            out.write(b"before|")
            out.flush()
            counter = None if advance is None else (lambda out=out, calls=calls: calls.append(out.tell()))
            pool._append_part(pool._Part(held, start), out, out, counter)
            out.write(b"|after")
            out.flush()
            out.seek(0)
            outputs.append(out.read())
        if advance is not None:
            sent = max(0, size - start)
            assert len(calls) == -(-sent // step)  # one a step, the last perhaps short
            assert calls == [len(b"before|") + min(sent, step * (n + 1)) for n in range(len(calls))]
    assert outputs[0] == outputs[1] == b"before|" + data[start:] + b"|after"
