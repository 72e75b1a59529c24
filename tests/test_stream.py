"""Streamed N-Triples/N-Quads: the grammar, blocks, laws, errors, compression, workers."""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from ldids.dumps import run as dumps
from ldids.dumps.blocks import blocks, line_breaks
from ldids.dumps.grammar import diagnose, grammar
from ldids.dumps.pool import _Part, _Pool
from ldids.dumps.run import DumpSummary, normalize_dump
from ldids.dumps.serve import _read_range
from ldids.dumps.sorting import SortedUnique, difference
from ldids.dumps.stream import Settings, process_block, process_block_in
from ldids.errors import InputError
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import io as rdfio
from ldids.rdf.files import WriteBehind

FIXTURES = Path(__file__).parent / "fixtures" / "passes"


def timeless(summary: DumpSummary) -> dict[str, Any]:
    """A dump's summary document without its time, which no two runs share."""
    document = summary.to_json()
    document["run"] = {**document["run"], "seconds": 0}
    return document


@pytest.mark.parametrize(
    "line",
    [
        "<http://a> <http://b> <http://c> .",
        "<http://a><http://b><http://c>.",
        '_:b0 <http://b> "x" .',
        '<http://a> <http://b> "x"@en-GB .',
        '<http://a> <http://b> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        '<http://a> <http://b> "quote \\" tab \\t \\u00E9 \\U0001F600" .',
        "<http://a/\\u0020x> <http://b> _:x.y .",
        "<http://a> <http://b> <http://c> . # a comment",
        "\t<http://a>   <http://b> <http://c>\t.\t",
    ],
)
def test_statements(line: str) -> None:
    assert grammar().statement.fullmatch(line) is not None


@pytest.mark.parametrize(
    ("line", "column", "message"),
    [
        ("<http://a> <http://b> .", 23, "expected the object"),
        ('"x" <http://b> <http://c> .', 1, "expected the subject"),
        ("<http://a> _:p <http://c> .", 12, "expected the predicate"),
        ("<http://a> <http://b> <http://c>", 33, "expected '.'"),
        ("<http://a b> <http://b> <http://c> .", 1, "expected the subject"),
        ('<http://a> <http://b> "x\\q" .', 23, "expected the object"),
        ('<http://a> <http://b> "x" <http://g> .', 27, "three terms"),
    ],
)
def test_malformed_lines_say_where(line: str, column: int, message: str) -> None:
    assert grammar().statement.fullmatch(line) is None or "three terms" in message
    found_column, found_message = diagnose(line, quads=False)
    assert found_column == column
    assert message in found_message


def settings(**changes: object) -> Settings:
    return Settings(Config(**changes))  # type: ignore[arg-type]


def test_identifier_free_lines_pass_through_byte_for_byte() -> None:
    data = (
        b"<http://a>  <http://b>\t<http://c> .\n"
        b"# comment with no identifier\n"
        b"\n"
        b'_:x <http://b> "caf\\u00E9" . # trailing\r\n'
    )
    result = process_block(data, 1, settings())
    assert result.output == data.replace(b"\r\n", b"\r\n")
    assert (result.lines, result.written, result.statements) == (4, 4, 2)


def test_identifier_lines_are_rewritten_and_linked() -> None:
    data = b'<INFO:FEDORA/demo%3a1> <http://b> "oai:a.b:c" .\n<http://x> <http://b> <hdl:1765/1> .\n'
    result = process_block(data, 1, settings())
    assert result.output.decode().splitlines() == [
        '<info:fedora/demo:1> <http://b> "http://purl.org/poi/a.b/c" .',
        "<http://x> <http://b> <hdl:1765/1> .",
    ]
    assert sorted(result.links) == [
        "<http://purl.org/poi/a.b/c> <http://www.w3.org/2002/07/owl#sameAs> <oai:a.b:c> .",
        "<info:fedora/demo:1> <http://www.w3.org/2002/07/owl#sameAs> <INFO:FEDORA/demo%3a1> .",
    ]
    assert result.rewritten == {"info-fedora": 1, "oai": 1}


@pytest.mark.parametrize("pure_python", [False, True])
def test_output_into_one_buffer_block_after_block(pure_python: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A buffer handed in again and again holds each block's output whole, whether the
    next output is longer (the buffer grows) or shorter (what is left over is cut off)."""
    if pure_python:
        monkeypatch.setenv("LDIDS_PURE_PYTHON", "1")
    short = b"<http://a> <http://b> <http://c> .\n"
    rewritten = b'<INFO:FEDORA/demo%3a1> <http://b> "oai:a.b:c" .\n' * 300  # grows past len(input) * 17/16
    buffer = bytearray(b"left over from before" * 1000)
    for block in (short, rewritten, short, b"", rewritten):
        fresh = process_block(block, 1, settings())
        into = process_block(block, 1, settings(), into=buffer)
        assert into.output is buffer
        assert bytes(buffer) == fresh.output
        assert (into.lines, into.written, into.rewritten) == (fresh.lines, fresh.written, fresh.rewritten)
    assert bytes(buffer).count(b"<info:fedora/demo:1>") == 300


@pytest.mark.parametrize("pure_python", [False, True])
@pytest.mark.parametrize("room", [0, 1, 34, 35, 100, 18_599, 18_600, 20_000])
def test_output_into_a_slot_is_written_in_place_where_it_fits(
    pure_python: bool, room: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """process_block_in (a worker's slot of shared memory): an output that fits is written
    at the slot's start and comes as a view of it, the bytes after it untouched; one that
    does not comes in the result. The same bytes and counts as process_block either way."""
    if pure_python:
        monkeypatch.setenv("LDIDS_PURE_PYTHON", "1")
    short = b"<http://a> <http://b> <http://c> .\n"
    rewritten = b'<INFO:FEDORA/demo%3a1> <http://b> "oai:a.b:c" .\n' * 300  # grows past len(input) * 17/16
    line = b'<info:fedora/demo:1> <http://b> "http://purl.org/poi/a.b/c" .\n'
    lengths = {short: len(short), rewritten: 300 * len(line), b"": 0}
    for block, length in lengths.items():
        fresh = process_block(block, 1, settings())
        assert len(fresh.output) == length
        memory = bytearray(b"#" * (room + 8))
        with memoryview(memory) as whole, whole[:room] as slot:
            result, placed = process_block_in(block, 1, settings(), slot)
            assert (result.lines, result.written, result.rewritten) == (fresh.lines, fresh.written, fresh.rewritten)
            if length <= room:
                assert placed is not None
                assert bytes(placed) == fresh.output
                assert result.output == b""
                assert memory[:length] == fresh.output
                placed.release()
            else:
                assert placed is None
                assert result.output == fresh.output
        assert memory[room:] == b"#" * 8  # nothing written past the slot


def test_output_into_a_read_only_slot_is_refused() -> None:
    with pytest.raises((TypeError, BufferError)):
        process_block_in(b"<http://a> <http://b> <http://c> .\n", 1, settings(), memoryview(b"x" * 100))


@pytest.mark.parametrize("pure_python", [False, True])
def test_output_into_a_buffer_in_use_is_refused(pure_python: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if pure_python:
        monkeypatch.setenv("LDIDS_PURE_PYTHON", "1")
    buffer = bytearray()
    with memoryview(buffer), pytest.raises(BufferError):  # exported: it cannot change size
        process_block(b"<http://a> <http://b> <http://c> .\n", 1, settings(), into=buffer)


def test_graph_names_only_in_n_quads() -> None:
    data = b"<oai:a.b:c> <http://b> <http://c> <http://g> .\n"
    assert process_block(data, 7, settings()).bad[0].line == 7
    quads = process_block(data, 7, Settings(Config(), quads=True))
    assert quads.output == b"<http://purl.org/poi/a.b/c> <http://b> <http://c> <http://g> .\n"


@pytest.mark.parametrize("on_error", ["stop", "skip"])
def test_bad_lines(on_error: str) -> None:
    data = b"<http://a> <http://b> <http://c> .\n<http://a> oops\n<oai:a.b:c> <http://b> <http://c> .\n\xff\xfe\n"
    result = process_block(data, 10, Settings(Config(), on_error=on_error))  # type: ignore[arg-type]
    if on_error == "stop":
        assert [(bad.line, bad.column) for bad in result.bad] == [(11, 12)]
    else:
        assert [(bad.line, bad.message) for bad in result.bad] == [
            (11, "expected the predicate (an IRI)"),
            (13, "not UTF-8"),
        ]
        assert result.lines == result.written + len(result.bad)


def _breaks(data: bytes) -> int:
    """The line breaks of N-Triples §7 (EOL) in ``data``: LF, CR LF, a CR alone."""
    return len(re.findall(rb"\r\n|\r|\n", data))


@pytest.mark.parametrize(
    ("data", "end", "count"),
    [
        (b"", None, 0),
        (b"a .\n", None, 1),
        (b"a .\r\nb .\r\n", None, 2),
        (b"a .\rb .\rc .\n", None, 3),
        (b"a .\r\r\n\n", None, 3),  # a statement, then two blank lines
        (b"a .\rb .\n", 4, 1),
        (b"no break", None, 0),
    ],
)
def test_line_breaks(data: bytes, end: int | None, count: int) -> None:
    assert line_breaks(data, end) == count
    assert line_breaks(bytearray(data), end) == count


def test_blocks_number_lines_a_cr_ends() -> None:
    # Blocks are cut after an LF: lines that a CR alone ends sit between them.
    data = (b"<http://a> <http://b> <http://c> .\r" * 3 + b"<x> <y> <z> .\r\n" + b"<x> <y> <z> .\n") * 100
    cut = list(blocks(io.BytesIO(data), size=500))
    assert len(cut) > 3
    assert [first for _, first in cut] == [1 + sum(_breaks(block) for block, _ in cut[:i]) for i in range(len(cut))]
    assert cut[-1][1] + _breaks(cut[-1][0]) == 501


def test_blocks_cut_at_line_ends_and_count_lines() -> None:
    data = b"".join(f"<http://a/{i}> <http://b> <http://c> .\n".encode() for i in range(1000)) + b"<x> <y> <z> ."
    cut = list(blocks(io.BytesIO(data), size=1000))
    assert b"".join(block for block, _ in cut) == data + b"\n"
    assert all(block.endswith(b"\n") for block, _ in cut)
    assert [first for _, first in cut] == [1 + sum(_breaks(block) for block, _ in cut[:i]) for i in range(len(cut))]
    unnumbered = list(blocks(io.BytesIO(data), size=1000, numbered=False))
    assert [block for block, _ in unnumbered] == [block for block, _ in cut]
    assert {first for _, first in unnumbered} == {0}


def test_sorted_unique_spills_and_merges() -> None:
    collected = SortedUnique(run_size=10)
    assert not collected
    for start in range(0, 100, 7):
        collected.add_all(str(n % 37).zfill(3) for n in range(start, start + 20))
        assert collected  # lines held, in memory or spilled
    assert list(collected) == sorted({str(n % 37).zfill(3) for n in range(120)})
    assert not collected  # consumed
    assert list(difference(["a", "b", "c", "e"], ["b", "d", "e"])) == ["a", "c"]


@examples(max_examples=300, deadline=None)
@given(
    additions=st.lists(st.lists(st.text(st.characters(exclude_characters="\n\r"), max_size=6), max_size=12)),
    run_size=st.integers(1, 8),
)
def test_sorted_unique_is_sorted_set_whatever_the_runs(additions: list[list[str]], run_size: int) -> None:
    """Spilled in runs of any size and merged in batches, the lines come out as sorted(set()),
    in the order of the lines without their line breaks ("a" before "a\tb")."""
    collected = SortedUnique(run_size=run_size)
    for lines in additions:
        collected.add_all(lines)
    assert list(collected) == sorted({line for lines in additions for line in lines})


def test_sorted_unique_merges_runs_longer_than_a_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs read a few lines at a time merge the same."""
    from ldids.dumps import sorting

    merged = sorting._merged
    monkeypatch.setattr(sorting, "_compiled", None)  # the Python merge (tests/test_sorting.py: the compiled one)
    monkeypatch.setattr(sorting, "_merged", lambda runs: merged(runs, read=8))
    collected = SortedUnique(run_size=50)
    words = [f"{n * 7919 % 1000:03d}" for n in range(2000)] + ["a", "a\tb", "a\x00"]
    for start in range(0, len(words), 30):
        collected.add_all(words[start : start + 30])
    assert list(collected) == sorted(set(words))


# -- Whole dumps -----------------------------------------------------------------------------


def nt_of(case: str) -> bytes:
    quads = rdfio.read([str(next((FIXTURES / case).glob("before.*")))]).quads
    return rdfio.serialize(quads, rdfio.resolve_format("nquads"))


CASES = sorted(path.name for path in FIXTURES.iterdir())


@pytest.mark.parametrize("case", CASES)
def test_streamed_equals_graph_mode(case: str, tmp_path: Path) -> None:
    folder = FIXTURES / case
    config = Config.from_toml(folder / "config.toml") if (folder / "config.toml").exists() else Config()
    source = tmp_path / "in.nq"
    source.write_bytes(nt_of(case))
    out = tmp_path / "out.nq"
    normalize_dump([str(source)], str(out), Settings(config, quads=True))
    streamed = rdfio.read([str(out)]).quads
    result = passes.normalize(rdfio.read([str(source)]).quads, config)
    assert set(streamed) == set(rdfio.label_blank_nodes(result.quads + result.links))
    # Idempotent, byte for byte: the links are in the data now and are not added again.
    again = tmp_path / "again.nq"
    normalize_dump([str(out)], str(again), Settings(config, quads=True))
    assert again.read_bytes() == out.read_bytes()


def dump(tmp_path: Path, lines: int = 3000) -> Path:
    path = tmp_path / "dump.nt"
    with path.open("w") as out:
        for i in range(lines):
            kind = i % 5
            subject = [f"<info:fedora/demo%3a{i % 97}>", f"<http://example.org/{i}>", f"<oai:arXiv.org:{i % 53}>"][
                i % 3
            ]
            obj = [
                f'"hdl:1765/{i % 31}"',
                f"<http://hdl.handle.net/1765/{i % 29}>",
                '"plain"@en',
                f"_:b{i % 11}",
                "<http://x>",
            ][kind]
            out.write(f"{subject} <http://example.org/p{i % 4}> {obj} .\n")
    return path


def test_one_worker_and_two_give_the_same_bytes(tmp_path: Path) -> None:
    source = dump(tmp_path)
    outputs = []
    for workers in (1, 2, 3):  # this process alone; with one worker process; with two
        out = tmp_path / f"out{workers}.nt"
        walk = tmp_path / f"walk{workers}.csv"
        summary = normalize_dump(
            [str(source)],
            str(out),
            Settings(Config(), crosswalk=True),
            workers=workers,
            crosswalk=str(walk),
            block_size=4096,
        )
        outputs.append((out.read_bytes(), walk.read_bytes(), timeless(summary)))
    assert outputs[0] == outputs[1] == outputs[2]
    counts = outputs[0][2]
    assert counts["run"]["lines_in"] == counts["run"]["lines_out"] == 3000
    assert isinstance(counts["links"], int)
    assert counts["links"] > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_normalizing_a_normalized_dump_changes_nothing(workers: int, tmp_path: Path) -> None:
    """The second run finds every link already in the data, and writes none again."""
    source = dump(tmp_path)
    once, twice = tmp_path / "once.nt", tmp_path / "twice.nt"
    first = normalize_dump([str(source)], str(once), Settings(Config()), workers=workers, block_size=4096)
    second = normalize_dump([str(once)], str(twice), Settings(Config()), workers=workers, block_size=4096)
    assert first.links > 0
    assert second.links == 0
    assert twice.read_bytes() == once.read_bytes()


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here")
@pytest.mark.parametrize("workers", [1, 2])
def test_the_output_is_written_behind_in_order(workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each piece of advice covers the whole output written so far (pages still dirty at
    one are dropped by a later one), a step further each time, and the output is the same
    bytes as without."""
    source = dump(tmp_path)
    plain = tmp_path / "plain.nt"
    normalize_dump([str(source)], str(plain), Settings(Config()), workers=workers, block_size=4096)
    ranges: list[tuple[int, int]] = []
    fadvise = os.posix_fadvise

    def recorded(descriptor: int, offset: int, length: int, advice: int) -> None:
        assert advice == os.POSIX_FADV_DONTNEED
        ranges.append((offset, length))
        fadvise(descriptor, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", recorded)
    monkeypatch.setattr(WriteBehind, "STEP", 1000)
    behind = tmp_path / "behind.nt"
    normalize_dump([str(source)], str(behind), Settings(Config()), workers=workers, block_size=4096)
    assert behind.read_bytes() == plain.read_bytes()
    assert len(ranges) > 10
    assert all(offset == 0 for offset, _ in ranges)
    assert ranges[0][1] >= 1000
    assert all(after - before >= 1000 for (_, before), (_, after) in itertools.pairwise(ranges))
    assert ranges[-1][1] <= behind.stat().st_size


def test_a_file_system_that_refuses_the_advice_gets_the_output_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = dump(tmp_path)
    plain = tmp_path / "plain.nt"
    normalize_dump([str(source)], str(plain), Settings(Config()), block_size=4096)
    calls: list[int] = []

    def refused(descriptor: int, offset: int, length: int, advice: int) -> None:
        calls.append(offset)
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(os, "posix_fadvise", refused, raising=False)
    monkeypatch.setattr(WriteBehind, "STEP", 1000)
    out = tmp_path / "out.nt"
    normalize_dump([str(source)], str(out), Settings(Config()), block_size=4096)
    assert out.read_bytes() == plain.read_bytes()
    assert calls == [0]  # asked once, then no more


def test_nothing_is_written_behind_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(WriteBehind, "STEP", 1)
    reading, writing = os.pipe()
    with open(reading, "rb") as source, open(writing, "wb") as sink:
        behind = WriteBehind(sink)
        sink.write(b"x" * 100)
        sink.flush()
        behind.advance()  # a pipe has no pages to write out: no error either
        assert source.read(100) == b"x" * 100


def test_links_to_a_file_or_nowhere(tmp_path: Path) -> None:
    source = dump(tmp_path)
    normalize_dump([str(source)], str(tmp_path / "a.nt"), Settings(Config()), links=str(tmp_path / "links.nt"))
    normalize_dump([str(source)], str(tmp_path / "b.nt"), Settings(Config()), links=None)
    assert (tmp_path / "a.nt").read_bytes() == (tmp_path / "b.nt").read_bytes()
    assert all("owl#sameAs" in line for line in (tmp_path / "links.nt").read_text().splitlines())


@pytest.mark.parametrize(("suffix", "opener"), [(".gz", gzip.open), (".bz2", bz2.open)])
def test_compressed_in_and_out(suffix: str, opener: object, tmp_path: Path) -> None:
    source = dump(tmp_path, 500)
    plain = tmp_path / "plain.nt"
    normalize_dump([str(source)], str(plain), Settings(Config()))
    packed = tmp_path / f"dump.nt{suffix}"
    with opener(packed, "wb") as stream:  # type: ignore[operator]
        stream.write(source.read_bytes())
    out = tmp_path / f"out.nt{suffix}"
    normalize_dump([str(packed)], str(out), Settings(Config()))
    with opener(out, "rb") as stream:  # type: ignore[operator]
        assert stream.read() == plain.read_bytes()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bad_line_stops_the_run_and_leaves_no_output(workers: int, tmp_path: Path) -> None:
    source = dump(tmp_path, 100)
    with source.open("a") as out:
        out.write("<http://a> <http://b> \n")
    with pytest.raises(InputError) as caught:
        normalize_dump([str(source)], str(tmp_path / "out.nt"), Settings(Config()), block_size=512, workers=workers)
    assert (caught.value.line, caught.value.column) == (101, 23)
    assert str(caught.value).startswith(f"{source}:101:23: not an N-Triples statement: expected the object")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["dump.nt"]


@pytest.mark.parametrize("slot_size", [0, 64, 3000, 1 << 20])
def test_results_come_back_whole_through_slots_or_files(
    slot_size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers hand results over in shared memory where they fit (1 MiB: all do), in files
    where they do not (64 bytes: none do; 3000: outputs fit, and some of the rest may),
    or with no slots at all (0); the run writes the same bytes whichever way."""
    source = dump(tmp_path)
    expected = tmp_path / "alone.nt"
    normalize_dump([str(source)], str(expected), Settings(Config()), workers=1, block_size=2048)
    pool = _Pool.__init__

    def sized(self: _Pool, processes: int, settings_: Settings, **_: int) -> None:
        pool(self, processes, settings_, slot_size)

    monkeypatch.setattr(_Pool, "__init__", sized)
    in_files: list[bool] = []  # for each result a worker handed over: did it come by file?
    take = _Pool.take

    def recorded(self: _Pool, worker: int, number: int) -> Any:
        result = take(self, worker, number)
        in_files.append(isinstance(result[1], _Part))
        return result

    monkeypatch.setattr(_Pool, "take", recorded)
    out = tmp_path / "out.nt"
    normalize_dump([str(source)], str(out), Settings(Config()), workers=3, block_size=2048)
    assert out.read_bytes() == expected.read_bytes()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["alone.nt", "dump.nt", "out.nt"]
    assert in_files
    if slot_size in (0, 64):
        assert all(in_files)
    elif slot_size == 3000:
        # Which way each result goes depends on its size, and that on which process decided
        # its terms first (the decider reports their links): a race, so only the bytes tell.
        pass
    else:
        assert not any(in_files)


def test_spawned_workers_give_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where workers cannot fork (macOS, Windows) they are spawned: no table of decisions
    shared, results handed back in files. Spawned here on purpose (the pool forks only on
    Linux), the run writes what a forked pool writes."""
    source = dump(tmp_path)
    forked, spawned = tmp_path / "forked.nt", tmp_path / "spawned.nt"
    one = normalize_dump([str(source)], str(forked), Settings(Config()), workers=3, block_size=4096)
    monkeypatch.setattr(sys, "platform", "darwin")
    in_files: list[bool] = []
    take = _Pool.take

    def recorded(self: _Pool, worker: int, number: int) -> Any:
        assert self._processes[worker]._start_method == "spawn"  # type: ignore[attr-defined]
        result = take(self, worker, number)
        in_files.append(isinstance(result[1], _Part))
        return result

    monkeypatch.setattr(_Pool, "take", recorded)
    two = normalize_dump([str(source)], str(spawned), Settings(Config()), workers=3, block_size=4096)
    assert spawned.read_bytes() == forked.read_bytes()
    assert timeless(two) == timeless(one)
    assert in_files
    assert all(in_files)


def test_runs_in_threads_at_once_keep_to_their_own_buffers(tmp_path: Path) -> None:
    """Two runs on every core, started from two threads of one process, write what each
    writes alone: the buffers a process reads chunks into and writes outputs into are
    its thread's."""
    import concurrent.futures

    first = dump(tmp_path, 3000)
    second = tmp_path / "reversed.nt"
    second.write_text("".join(reversed(first.read_text().splitlines(keepends=True))))
    sources = [first, second]
    alone = []
    for index, source in enumerate(sources):
        normalize_dump([str(source)], str(tmp_path / f"alone{index}.nt"), Settings(Config()), block_size=2048)
        alone.append((tmp_path / f"alone{index}.nt").read_bytes())

    def run(index: int) -> bytes:
        out = tmp_path / f"together{index}.nt"
        normalize_dump([str(sources[index])], str(out), Settings(Config()), workers=2, block_size=2048)
        return out.read_bytes()

    for _ in range(3):
        with concurrent.futures.ThreadPoolExecutor(2) as threads:
            assert list(threads.map(run, [0, 1])) == alone


def test_idle_workers_end_when_their_pipes_close() -> None:
    """At the end of a run the workers end by themselves (exit 0), not by a signal: each
    closed the copies of the other pipes' ends that it was forked with."""
    pool = _Pool(3, Settings(Config()))
    pool.close()
    assert [process.exitcode for process in pool._processes] == [0, 0, 0]


def test_workers_of_two_pools_at_once_end_when_their_pipes_close() -> None:
    """Two runs at once in one process (two threads): the second pool's workers are forked
    with the first pool's pipes, and close them too; else the first pool's workers would
    wait for chunks until terminated."""
    first = _Pool(2, Settings(Config()))
    second = _Pool(2, Settings(Config()))
    first.close()
    second.close()
    assert [process.exitcode for process in first._processes + second._processes] == [0, 0, 0, 0]


def test_workers_end_however_soon_the_run_ends(tmp_path: Path) -> None:
    """A run that ends as soon as its workers start (an empty dump, an error at once)
    leaves no worker behind, even with a SIGTERM handler of Python's in the starting
    process, as the CLI has: a signal a worker gets before it sets its own was once
    dropped, and the run waited for that worker forever."""
    script = (
        "import signal, sys\n"
        "from ldids.dumps import stream\n"
        "from ldids.dumps.pool import _Pool\n"
        "from ldids.passes.config import Config\n"
        "signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))\n"
        "for _ in range(20):\n"
        "    pool = _Pool(2, stream.Settings(Config()))\n"
        "    for process in pool._processes:\n"
        "        process.terminate()\n"
        "    pool.close()\n"
        "    assert not any(process.is_alive() for process in pool._processes)\n"
        "print('ended')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "ended\n"), done.stderr
    empty = tmp_path / "empty.nt"
    empty.write_bytes(b"")
    for _ in range(5):
        command = [sys.executable, "-c", "from ldids.cli import run; run()", "normalize", str(empty)]
        command += ["-o", str(tmp_path / "out.nt"), "--workers", "3", "-q"]
        assert subprocess.run(command, timeout=60).returncode == 0
    assert (tmp_path / "out.nt").read_bytes() == b""


@pytest.mark.parametrize("how", ["fails", "dies"])
def test_a_worker_process_that_fails_or_dies_stops_the_run(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What goes wrong in a worker process stops the run with an error that says so, and
    leaves no output (the workers are forked: they run the function patched here)."""
    from ldids.dumps import serve

    def broken(chunk: Any, settings: Settings, slot: Any = None) -> Any:  # the coordinator takes no chunk
        if how == "dies":
            os._exit(3)
        raise OSError("No space left on device")

    monkeypatch.setattr(serve, "_run_chunk", broken)
    source = dump(tmp_path, 300)
    with pytest.raises(RuntimeError) as caught:
        normalize_dump([str(source)], str(tmp_path / "out.nt"), Settings(Config()), block_size=512, workers=2)
    said = "ended unexpectedly (exit code 3)" if how == "dies" else "failed: OSError: No space left on device"
    assert said in str(caught.value)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["dump.nt"]


@pytest.mark.parametrize(("workers", "block_size"), [(1, 1 << 21), (2, 1 << 21), (2, 8)])
def test_skipping_bad_lines_accounts_for_every_line(workers: int, block_size: int, tmp_path: Path) -> None:
    source = tmp_path / "dump.nt"
    source.write_bytes(
        b"<oai:a.b:1> <http://b> <http://c> .\nnot a statement\n<http://a> <http://b> <http://c>\n\xffx\n\n"
    )
    errors = tmp_path / "errors.tsv"
    summary = normalize_dump(
        [str(source)],
        str(tmp_path / "out.nt"),
        Settings(Config(), on_error="skip"),
        error_file=str(errors),
        workers=workers,
        block_size=block_size,
    )
    written = (tmp_path / "out.nt").read_text().splitlines()
    error_lines = errors.read_text().splitlines()
    assert summary.lines_in == 5 == summary.lines_out + len(error_lines)
    assert summary.bad_lines == 3
    assert [line.split("\t")[:2] for line in error_lines] == [[str(source), number] for number in ("2", "3", "4")]
    assert written[:2] == ["<http://purl.org/poi/a.b/1> <http://b> <http://c> .", ""]


def test_cli_streams_with_workers_and_summary(tmp_path: Path) -> None:
    source = dump(tmp_path, 400)
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", str(source), "-o", str(tmp_path / "o.nt"), "--workers", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "400 lines in, 400 out" in done.stderr
    assert "\r" not in done.stderr  # no progress bar when stderr is not a terminal


def test_cli_exit_2_on_a_malformed_dump(tmp_path: Path) -> None:
    source = tmp_path / "bad.nt"
    source.write_text("<http://a> <http://b> <http://c> .\n<http://a> <http://b> .\n")
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", str(source), "-o", str(tmp_path / "o.nt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert f"{source}:2:23: not an N-Triples statement: expected the object" in done.stderr
    assert not (tmp_path / "o.nt").exists()


LINKED = b"<http://ex/a> <http://ex/p> <info:fedora/demo%3a1> .\n"
LINK = "<info:fedora/demo:1> <http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo%3a1> ."


@pytest.mark.parametrize("pure_python", [False, True])
def test_links_are_listed_once_per_run(pure_python: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if pure_python:
        monkeypatch.setenv("LDIDS_PURE_PYTHON", "1")
    run = Settings(Config())
    assert process_block(LINKED, 1, run).links == [LINK]
    # Met again in the same run: remembered, not listed again (the run has it already).
    again = process_block(LINKED + LINKED, 2, run)
    assert again.links == []
    assert again.rewritten_statements == 2
    # Another run (a new Settings, equal in every other field) lists it afresh.
    assert process_block(LINKED, 1, Settings(Config())).links == [LINK]


def test_every_run_in_one_process_writes_its_links(tmp_path: Path) -> None:
    source = tmp_path / "in.nt"
    source.write_bytes(LINKED)
    settings_ = Settings(Config())
    for name in ("a.nt", "b.nt"):  # the same Settings object twice: still two runs
        normalize_dump([str(source)], str(tmp_path / name), settings_)
        assert LINK in (tmp_path / name).read_text().splitlines()


@examples(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    final_newline=st.booleans(),
    block_size=st.integers(1, 64),
)
def test_byte_ranges_share_out_every_line_once(lines: list[bytes], final_newline: bool, block_size: int) -> None:
    """The ranges the pool's tasks read (the lines that start in each) make up the file,
    read one after another into one buffer, as a worker reads them."""
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    buffer = bytearray()
    pieces = []
    with tempfile.NamedTemporaryFile() as file:
        file.write(data)
        file.flush()
        for start in range(0, len(data), block_size):
            with _read_range(file.name, start, min(start + block_size, len(data)), buffer) as piece:
                pieces.append(bytes(piece))
    assert b"".join(pieces) == data
    whole = [piece for piece in pieces if piece]
    assert all(piece.endswith(b"\n") for piece in whole[:-1])  # whole lines: only the file's end may lack one


@pytest.mark.parametrize("workers", [1, 2])
def test_problems_name_their_file_and_line(workers: int, tmp_path: Path) -> None:
    first, second = tmp_path / "first.nt", tmp_path / "second.nt"
    bad = "<info:fedora/demo:1/1bad> <http://b> <http://c> .\n"
    first.write_text("<http://a> <http://b> <http://c> .\n" * 3 + bad)
    second.write_text(bad + "<http://a> <http://b> <http://c> .\n")
    summary = normalize_dump(
        [str(first), str(second)], str(tmp_path / "out.nt"), Settings(Config()), workers=workers, block_size=64
    )
    assert [sample.split(": ")[0] for sample in summary.problem_samples] == [f"{first}:4", f"{second}:1"]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_error_file_names_the_file_of_each_line(workers: int, tmp_path: Path) -> None:
    """With several inputs a line number alone names no line: each row says its file first."""
    good = "<http://example.org/s> <http://example.org/p> <hdl:1765/1> .\n"
    first, second = tmp_path / "a.nt", tmp_path / "b.nt"
    first.write_text(good * 3 + "<http://example.org/s> <p> <o> .\n")
    second.write_text(good + "<http://example.org/s> <http://example.org/p> .\n" + good)
    errors = tmp_path / "errors.tsv"
    summary = normalize_dump(
        [str(first), str(second)],
        str(tmp_path / "out.nt"),
        Settings(Config(), on_error="skip"),
        workers=workers,
        error_file=str(errors),
    )
    rows = [row.split("\t")[:3] for row in errors.read_text().splitlines()]
    assert rows == [[str(first), "4", "24"], [str(second), "2", "47"]]
    assert summary.bad_lines == 2


@pytest.mark.parametrize("how", ["file", "stdin", "gzip"])
def test_every_way_in_gives_the_same_bytes_and_line_numbers(how: str, tmp_path: Path) -> None:
    """Blocks read by the tasks themselves (a plain file) or by the coordinating process
    (standard input, compressed files): same output, summary and absolute line numbers."""
    source = dump(tmp_path, 400)
    with source.open("a") as out:
        out.write("<http://a> <http://b> .\n<info:fedora/demo:1/1bad> <http://b> <http://c> .\n")
    config = Config(bare_pid_predicates=frozenset({"http://example.org/p0"}))
    expected = tmp_path / "expected.nt"
    one = normalize_dump(
        [str(source)], str(expected), Settings(config, on_error="skip"), error_file=str(tmp_path / "e1.tsv")
    )
    if how == "gzip":
        packed = tmp_path / "dump.nt.gz"
        packed.write_bytes(gzip.compress(source.read_bytes()))
        inputs = [str(packed)]
    else:
        inputs = [str(source) if how == "file" else "-"]
    got = tmp_path / "got.nt"
    stdin = sys.stdin
    try:
        if how == "stdin":
            sys.stdin = io.TextIOWrapper(io.BytesIO(source.read_bytes()))
        two = normalize_dump(
            inputs,
            str(got),
            Settings(config, on_error="skip"),
            workers=2,
            block_size=700,
            error_file=str(tmp_path / "e2.tsv"),
        )
    finally:
        sys.stdin = stdin
    assert got.read_bytes() == expected.read_bytes()
    name = {"file": str(source), "stdin": "<stdin>", "gzip": inputs[0]}[how]
    errors = (tmp_path / "e1.tsv").read_text()
    assert (tmp_path / "e2.tsv").read_text() == errors.replace(f"{source}\t", f"{name}\t")
    assert errors.startswith(f"{source}\t401\t23\t")
    assert [sample.replace(name, str(source)) for sample in two.problem_samples] == one.problem_samples
    assert one.problem_samples[-1].startswith(f"{source}:402: invalid info-fedora identifier")
    # The samples name where they were read from (compared above); everything else is the same.
    two.problem_samples = one.problem_samples
    assert timeless(two) == timeless(one)


def test_a_dump_of_ordinary_lines_imports_no_rdflib(tmp_path: Path) -> None:
    """rdflib costs ~0.2 s a start; a dump builds RDF terms only for the rare lines that
    need them (owl:sameAs, identity predicates, crosswalks, problem texts)."""
    source = dump(tmp_path, 200)
    script = (
        "import sys; from ldids.cli import main; "
        f"code = main(['normalize', {str(source)!r}, '-o', {str(tmp_path / 'out.nt')!r}, '-q', '--workers', '1']); "
        "print(code, sorted(name for name in sys.modules if name.split('.')[0] in ('rdflib', 'pyshacl')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "[]"]
    assert "owl#sameAs" in (tmp_path / "out.nt").read_text()  # it did rewrite and link


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_counts_the_bytes_read(workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int | None]] = []

    class Recorder:
        def __init__(self, enabled: bool) -> None:
            pass

        def update(self, lines: int, done: int, total: int | None, final: bool = False) -> None:
            if not final:
                seen.append((lines, done, total))

    monkeypatch.setattr(dumps, "_Progress", Recorder)
    source = dump(tmp_path, 300)
    normalize_dump([str(source)], str(tmp_path / "out.nt"), Settings(Config()), workers=workers, block_size=2048)
    size = source.stat().st_size
    assert len(seen) > 3
    assert [done for _, done, _ in seen] == sorted(done for _, done, _ in seen)
    assert seen[-1] == (300, size, size)


@examples(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=40),
    final_newline=st.booleans(),
    size=st.integers(1, 50),
    reads=st.integers(1, 7),
)
def test_blocks_give_back_every_line_once(lines: list[bytes], final_newline: bool, size: int, reads: int) -> None:
    """Whatever the block size (lines longer than it too) and however short the reads."""
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")

    class Trickle(io.BytesIO):
        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            return super().readinto(buffer[:reads])

    cut = list(blocks(Trickle(data), size=size))
    expected = data if not data or data.endswith(b"\n") else data + b"\n"
    assert b"".join(block for block, _ in cut) == expected
    assert all(block.endswith(b"\n") for block, _ in cut)
    assert [first for _, first in cut] == [1 + sum(_breaks(block) for block, _ in cut[:i]) for i in range(len(cut))]
    unnumbered = list(blocks(Trickle(data), size=size, numbered=False))
    assert [block for block, _ in unnumbered] == [block for block, _ in cut]
    assert all(first == 0 for _, first in unnumbered)


@pytest.mark.parametrize(("stop", "said"), [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")])
def test_a_stopped_run_leaves_nothing_behind(stop: signal.Signals, said: str, tmp_path: Path) -> None:
    """Interrupted (Ctrl-C reaches the whole process group) or terminated mid-run: exit
    128 + signal, no output or temporary file, no worker process left running."""
    parts_before = set(Path(tempfile.gettempdir()).glob("ldids-parts-*"))
    command = [sys.executable, "-c", "from ldids.cli import run; run()", "normalize", "-i", "nt", "-"]
    command += ["-o", str(tmp_path / "out.nt"), "--workers", "2", "-q"]
    data = dump(tmp_path, 2000).read_bytes()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True) as run:
        assert run.stdin is not None
        assert run.stderr is not None
        run.stdin.write(data)  # and standard input stays open: the run is under way
        run.stdin.flush()
        time.sleep(1.5)
        os.killpg(run.pid, stop)
        assert run.wait(timeout=30) == 128 + stop
        assert run.stderr.read().decode() == f"ldids: {said}\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["dump.nt"]
    assert set(Path(tempfile.gettempdir()).glob("ldids-parts-*")) == parts_before
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(run.pid, 0)  # no process of the group is left


@pytest.mark.parametrize("links", ["inline", "file"])
def test_workers_keep_their_links_and_hand_over_sorted_runs(
    links: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forked workers keep the links of their chunks and spill them as sorted runs (a
    handful of lines a run here), handed over at the end: the run writes what this process
    writes alone, links and crosswalk rows included."""
    from ldids.dumps import serve

    source = dump(tmp_path)
    monkeypatch.setattr(serve, "_WORKER_RUN", 7)
    handed: list[int] = []
    link_runs = _Pool.link_runs

    def counted(self: _Pool) -> Any:
        runs = link_runs(self)
        handed.append(len(runs))
        return runs

    monkeypatch.setattr(_Pool, "link_runs", counted)
    written = []
    for workers in (1, 3):
        out, walk = tmp_path / f"out{workers}.nt", tmp_path / f"walk{workers}.csv"
        where = "inline" if links == "inline" else str(tmp_path / f"links{workers}.nt")
        summary = normalize_dump(
            [str(source)],
            str(out),
            Settings(Config(), crosswalk=True),
            workers=workers,
            links=where,
            crosswalk=str(walk),
            block_size=4096,
        )
        extra = b"" if links == "inline" else Path(where).read_bytes()
        written.append((out.read_bytes(), extra, walk.read_bytes(), timeless(summary)))
    assert written[0] == written[1]
    assert written[0][3]["links"] > 7  # more than one run's worth
    assert len(handed) == 1
    assert handed[0] > 2  # both workers spilled runs


def test_runs_taken_from_one_collection_merge_into_another() -> None:
    lines = [f"<http://example.org/{i % 37}> <p> <o{i % 5}> ." for i in range(500)]
    mine, theirs = SortedUnique(run_size=20), SortedUnique(run_size=20)
    for start in range(0, 500, 50):
        (mine if start % 100 else theirs).add_all(lines[start : start + 50])
    theirs.add_all(["<http://example.org/last> <p> <o> ."])  # held, not spilled yet
    mine.adopt(theirs.take_runs())
    assert not theirs
    assert list(mine) == sorted(set(lines) | {"<http://example.org/last> <p> <o> ."})
