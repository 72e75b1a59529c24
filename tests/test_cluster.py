"""The Dask path on a real distributed.LocalCluster: same bytes as the single process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import distributed
import pytest

from ldids.dumps import cluster, placed
from ldids.dumps.cluster import normalize_on_dask
from ldids.dumps.run import DumpSummary, normalize_dump
from ldids.dumps.stream import Settings
from ldids.errors import InputError
from ldids.passes.config import Config


def timeless(summary: DumpSummary) -> dict[str, Any]:
    """A dump's summary document without its time, which no two runs share."""
    document = summary.to_json()
    document["run"] = {**document["run"], "seconds": 0}
    return document


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, distributed.Client(cluster) as connected:
        yield connected


def write_dump(path: Path, start: int, lines: int) -> None:
    with path.open("w") as out:
        for i in range(start, start + lines):
            subject = [f"<info:fedora/demo%3a{i % 97}>", f"<http://example.org/{i}>", f"<oai:arXiv.org:{i % 53}>"][
                i % 3
            ]
            obj = [f'"hdl:1765/{i % 31}"', f"<http://hdl.handle.net/1765/{i % 29}>", '"plain"@en', f"_:b{i % 11}"][
                i % 4
            ]
            out.write(f"{subject} <http://example.org/p{i % 4}> {obj} .\n")


def compressed_dump(folder: Path, extension: str, lines: int) -> tuple[Path, Path]:
    """A dump of ``lines`` lines (``a.nt``) and its copy compressed as ``extension`` names."""
    from ldids.rdf.compression import compression_of

    plain = folder / "a.nt"
    write_dump(plain, 0, lines)
    packed = folder / f"a.nt{extension}"
    found = compression_of(str(packed))
    assert found is not None
    with packed.open("wb") as raw:
        out = found.writer(raw)
        out.write(plain.read_bytes())
        out.close()
    return plain, packed


def test_same_output_as_one_process(client: object, tmp_path: Path) -> None:
    first, second = tmp_path / "a.nt", tmp_path / "b.nt"
    write_dump(first, 0, 2000)
    write_dump(second, 2000, 1500)
    with second.open("a") as out:  # an invalid identifier, reported with its line number in the file
        out.write("<info:fedora/demo:1/1bad> <http://example.org/p> <http://example.org/o> .\n")
    settings = Settings(Config(), crosswalk=True)
    single = tmp_path / "single.nt"
    links, walk = tmp_path / "links.nt", tmp_path / "walk.csv"
    expected = normalize_dump([str(first), str(second)], str(single), settings, links=str(links), crosswalk=str(walk))

    folder = tmp_path / "cluster"
    summary = normalize_on_dask(
        [str(first), str(second)], str(folder), settings, client=client, blocksize=8192, crosswalk=True
    )
    parts = sorted(folder.glob("part-*.nt"))
    assert len(parts) > 4  # really cut into many partitions
    assert b"".join(part.read_bytes() for part in parts) == single.read_bytes()
    assert (folder / "links.nt").read_bytes() == links.read_bytes()
    assert (folder / "crosswalk.csv").read_bytes() == walk.read_bytes()
    assert timeless(summary) == timeless(expected)
    assert summary.problem_samples == expected.problem_samples
    assert expected.problem_samples[0].startswith(f"{second}:1501: invalid info-fedora identifier")


def test_bad_line_numbers_are_global_and_nothing_is_left(client: object, tmp_path: Path) -> None:
    source = tmp_path / "a.nt"
    write_dump(source, 0, 1000)
    with source.open("a") as out:
        out.write("<http://a> <http://b> .\n")
    folder = tmp_path / "out"
    with pytest.raises(InputError) as caught:
        normalize_on_dask([str(source)], str(folder), Settings(Config()), client=client, blocksize=4096)
    assert (caught.value.line, caught.value.column) == (1001, 23)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.nt"]


@pytest.mark.parametrize("breaks", [("\r", "\r", "\n"), ("\r\n",)])
def test_bad_line_numbers_count_every_line_break(
    tmp_path: Path, breaks: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CR alone ends a line too (N-Triples §7, EOL): the tasks number lines as one process
    does, across the blocks of a task (small here; the local processes are forked after)."""
    monkeypatch.setattr(cluster, "BLOCK_SIZE", 1024)
    source = tmp_path / "a.nt"
    line = "<http://example.org/s> <http://example.org/p> <hdl:1765/1> ."
    lines = "".join(line + breaks[n % len(breaks)] for n in range(1000))
    source.write_bytes((lines + "<http://a> <http://b> .\n").encode())
    alone = tmp_path / "alone.nt"
    with pytest.raises(InputError) as one:
        normalize_dump([str(source)], str(alone), Settings(Config()), workers=1, block_size=4096)
    with pytest.raises(InputError) as caught:
        normalize_on_dask([str(source)], str(tmp_path / "out"), Settings(Config()), workers=2, blocksize=32768)
    assert (one.value.line, one.value.column) == (1001, 23)
    assert (caught.value.line, caught.value.column) == (1001, 23)


def test_skipped_lines_go_to_the_error_file(client: object, tmp_path: Path) -> None:
    source = tmp_path / "a.nt"
    write_dump(source, 0, 600)
    with source.open("a") as out:
        out.write("oops\n")
    write_dump(tmp_path / "tail.nt", 600, 10)
    with source.open("a") as out:
        out.write((tmp_path / "tail.nt").read_text())
    folder = tmp_path / "out"
    summary = normalize_on_dask(
        [str(source)], str(folder), Settings(Config(), on_error="skip"), client=client, blocksize=4096
    )
    errors = (folder / "errors.tsv").read_text().splitlines()
    assert [line.split("\t")[1] for line in errors] == ["601"]
    assert summary.lines_in == 611 == summary.lines_out + len(errors)


def test_cli_on_a_local_cluster(tmp_path: Path) -> None:
    import subprocess
    import sys

    source = tmp_path / "a.nt"
    write_dump(source, 0, 300)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ldids",
            "normalize",
            str(source),
            "--dask",
            "local",
            "--workers",
            "2",
            "-o",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "300 lines in, 300 out" in done.stderr
    assert (tmp_path / "out" / "part-00000.nt").exists()
    assert (tmp_path / "out" / "links.nt").exists()


@pytest.mark.parametrize("name", ["in.ttl", "in.jsonld"])
def test_dask_on_a_graph_read_whole_is_a_usage_error(tmp_path: Path, name: str) -> None:
    """The graph path ran without Dask, and said nothing of it: a Turtle file written where
    the folder of parts was asked for, a scheduler named and never contacted."""
    import subprocess
    import sys

    source = tmp_path / name
    source.write_text(
        "<http://ex.org/s> <http://ex.org/p> <oai:arXiv.org:x> .\n"
        if name.endswith(".ttl")
        else '{"@id": "http://ex.org/s", "http://ex.org/p": {"@id": "oai:arXiv.org:x"}}'
    )
    argv = ["normalize", str(source), "--dask", "tcp://127.0.0.1:1", "-o", str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-m", "ldids", *argv], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "--dask reads N-Triples and N-Quads" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("extension", [".gz", ".bz2", ".xz", ".zst"])
def test_compressed_inputs_are_cut_once_decompressed(client: object, tmp_path: Path, extension: str) -> None:
    """A compressed file cannot be cut into byte ranges: it is decompressed first, then cut."""
    plain, packed = compressed_dump(tmp_path, extension, 1500)
    expected = tmp_path / "single.nt"
    normalize_dump([str(plain)], str(expected), Settings(Config()), links=None)
    folder = tmp_path / "cluster"
    normalize_on_dask([str(packed)], str(folder), Settings(Config()), client=client, blocksize=4096, links=False)
    parts = sorted(folder.glob("part-*.nt"))
    assert len(parts) > 4
    assert b"".join(part.read_bytes() for part in parts) == expected.read_bytes()
    assert sorted(path.name for path in folder.iterdir() if not path.name.startswith("part-")) == []


@pytest.mark.parametrize("on_error", ["stop", "skip"])
def test_a_dump_cut_inside_a_line_is_an_error(
    client: object, tmp_path: Path, on_error: Literal["stop", "skip"]
) -> None:
    source = tmp_path / "a.nt"
    write_dump(source, 0, 1000)
    with source.open("a") as out:
        out.write('<http://example.org/s> <http://example.org/p> "cut')
    folder = tmp_path / "out"
    settings = Settings(Config(), on_error=on_error)
    with pytest.raises(InputError, match="cut short") as caught:
        normalize_on_dask([str(source)], str(folder), settings, client=client, blocksize=4096)
    assert caught.value.line == 1001
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.nt"]


def test_a_last_line_without_a_line_break_is_read(client: object, tmp_path: Path) -> None:
    source = tmp_path / "a.nt"
    write_dump(source, 0, 1000)
    with source.open("a") as out:
        out.write("<http://example.org/s> <http://example.org/p> <http://example.org/o> .")
    summary = normalize_on_dask([str(source)], str(tmp_path / "out"), Settings(Config()), client=client, blocksize=4096)
    assert summary.lines_in == summary.lines_out == 1001


@pytest.mark.parametrize("extension", [".gz", ".bz2", ".xz", ".zst"])
@pytest.mark.parametrize("on_error", ["stop", "skip"])
def test_a_compressed_file_cut_short_is_an_error(
    client: object, tmp_path: Path, extension: str, on_error: Literal["stop", "skip"]
) -> None:
    _, packed = compressed_dump(tmp_path, extension, 3000)
    packed.write_bytes(packed.read_bytes()[: packed.stat().st_size // 2])
    folder = tmp_path / "out"
    with pytest.raises(InputError, match="cannot decompress"):
        normalize_on_dask([str(packed)], str(folder), Settings(Config(), on_error=on_error), client=client)
    assert not folder.exists()


# -- The same bytes as one process, on both schedulers ------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def benchmark_dump(kind: str, path: Path, triples: int) -> None:
    """benchmarks/dump.py's dumps: identifiers that recur, or each in one record only."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import dump
    finally:
        sys.path.pop(0)
    if kind == "few-distinct":
        dump.generate(path, triples)
    else:
        dump.generate_distinct(path, triples)


def as_quads(source: Path, target: Path) -> None:
    """The statements of ``source`` in named graphs (one in three in the default graph)."""
    with source.open() as lines, target.open("w") as out:
        for number, line in enumerate(lines):
            graph = f" <http://example.org/graph/{number % 5}>" if number % 3 else ""
            out.write(f"{line.rstrip()[:-2]}{graph} .\n")


def single_run(inputs: list[Path], settings: Settings, folder: Path) -> tuple[bytes, bytes, bytes, DumpSummary]:
    """What one process writes (statements, links, bad lines), and its summary: the reference."""
    folder.mkdir()
    output, links, errors = folder / "out", folder / "links.nt", folder / "errors.tsv"
    summary = normalize_dump(
        [str(path) for path in inputs], str(output), settings, links=str(links), error_file=str(errors)
    )
    return output.read_bytes(), links.read_bytes(), errors.read_bytes() if errors.exists() else b"", summary


@pytest.fixture(params=["distributed", "processes"])
def scheduler(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A distributed client, or None: the local processes scheduler, whose forked workers
    take the blocks of their ranges 1 KiB at a time (many blocks a task)."""
    if request.param == "distributed":
        return request.getfixturevalue("client")
    monkeypatch.setattr(cluster, "BLOCK_SIZE", 1024)
    return None


@pytest.mark.parametrize(
    ("kind", "quads", "packed", "on_error", "same_as"),
    [
        ("few-distinct", False, False, "stop", False),
        ("distinct", False, False, "stop", False),
        ("few-distinct", True, False, "stop", False),
        ("distinct", True, False, "stop", True),
        ("distinct", False, True, "stop", False),
        ("few-distinct", False, False, "skip", False),
        ("distinct", False, False, "skip", True),
    ],
)
def test_same_bytes_as_one_process(
    scheduler: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    kind: str,
    quads: bool,
    packed: bool,
    on_error: Literal["stop", "skip"],
    same_as: bool,
) -> None:
    """Statements, links, summary and bad lines of a Dask run are those of one process,
    on dumps where identifiers recur or are each in one record, N-Triples or N-Quads, plain
    or gzip, with bad lines skipped, and with some of the links in the data already."""
    import gzip

    source = tmp_path / "dump.nt"
    benchmark_dump(kind, source, 3000)
    config = Config(bare_pid_predicates=frozenset({"http://purl.org/dc/elements/1.1/identifier"}))
    settings = Settings(config, quads=quads, on_error=on_error)
    if same_as:  # a third of the links the data calls for, in the data already, among its statements
        _, links, _, _ = single_run([source], settings, tmp_path / "first")
        held = links.splitlines(keepends=True)[::3]
        assert len(held) > 50
        lines = source.read_bytes().splitlines(keepends=True)
        for number, link in enumerate(held):
            lines.insert(number * 7, link)
        source.write_bytes(b"".join(lines))
    if quads:
        source, plain = tmp_path / "dump.nq", source
        as_quads(plain, source)
    if on_error == "skip":
        lines = source.read_bytes().splitlines(keepends=True)
        for number in (5, 777, 1500, len(lines) - 1):
            lines.insert(number, b"<http://example.org/s> <http://example.org/p> .\n")
        source.write_bytes(b"".join(lines))
    if packed:
        source, plain = source.with_suffix(".nt.gz"), source
        source.write_bytes(gzip.compress(plain.read_bytes()))
    statements, links, errors, expected = single_run([source], settings, tmp_path / "single")
    closed: list[list[tuple[int, int]]] = []
    if scheduler is None:  # the links merged in three ranges (a real run cuts them where it has 10,000s)
        sample = links.splitlines()
        monkeypatch.setattr(cluster, "boundaries", lambda *_: [sample[len(sample) // 3], sample[len(sample) // 2]])
        close_gaps = placed.close_gaps

        def closing(descriptor: int, base: int, parts: list[tuple[int, int]]) -> int:
            closed.append(parts)
            return close_gaps(descriptor, base, parts)

        monkeypatch.setattr(cluster, "close_gaps", closing)

    folder = tmp_path / "dask"
    summary = normalize_on_dask([str(source)], str(folder), settings, client=scheduler, workers=2, blocksize=20_000)
    parts = sorted(folder.glob(f"part-*.{'nq' if quads else 'nt'}"))
    assert len(parts) > 4  # really cut into many ranges
    assert b"".join(part.read_bytes() for part in parts) == statements
    assert (folder / "links.nt").read_bytes() == links
    assert len(links) > 1000
    if scheduler is None:  # each range written into links.nt in place; the links held already leave gaps
        assert len(closed) == 1
        assert len(closed[0]) == 3
        assert any(room > written for room, written in closed[0]) or not same_as
    assert timeless(summary) == timeless(expected)
    assert summary.problem_samples == expected.problem_samples
    if on_error == "skip":  # the same lines, each after the file it is in
        written = (folder / "errors.tsv").read_text().splitlines()
        assert written == errors.decode().splitlines()
        assert len(written) == 4
    else:
        assert not (folder / "errors.tsv").exists()


def test_a_local_run_imports_neither_distributed_nor_rdflib(tmp_path: Path) -> None:
    """The start-up of a local run: distributed (imported by Dask when a scheduler is named
    by a string, to look for a client) and rdflib (only a crosswalk needs it) cost a 1M
    run a fifth of its time; the output is still the one process's."""
    import subprocess
    import sys

    source = tmp_path / "a.nt"
    benchmark_dump("distinct", source, 2000)
    program = (
        "import sys\n"
        "from ldids.dumps.cluster import normalize_on_dask\n"
        "from ldids.dumps.stream import Settings\n"
        "from ldids.passes.config import Config\n"
        f"normalize_on_dask([{str(source)!r}], {str(tmp_path / 'out')!r}, Settings(Config()), workers=2)\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & {'distributed', 'rdflib', 'dask'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['dask']"]
    statements, links, _, _ = single_run([source], Settings(Config()), tmp_path / "single")
    parts = sorted((tmp_path / "out").glob("part-*.nt"))
    assert b"".join(part.read_bytes() for part in parts) == statements
    assert (tmp_path / "out" / "links.nt").read_bytes() == links


def test_partitions_and_links_are_written_behind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A task's partition and a range of links are output, written out and dropped from the
    page cache as they grow, as the single process does with its output (WriteBehind): the
    advice is recorded by the forked workers into a file, as they cannot hand it back."""
    import os

    from ldids.rdf.files import WriteBehind

    source = tmp_path / "dump.nt"
    benchmark_dump("distinct", source, 3000)
    settings = Settings(Config())
    statements, links, _, _ = single_run([source], settings, tmp_path / "single")
    log = tmp_path / "advice.log"
    fadvise = os.posix_fadvise

    def recorded(descriptor: int, offset: int, length: int, advice: int) -> None:
        with log.open("a") as out:
            out.write(f"{Path(os.readlink(f'/proc/self/fd/{descriptor}')).name} {offset} {length} {advice}\n")
        fadvise(descriptor, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", recorded)
    monkeypatch.setattr(WriteBehind, "STEP", 1000)
    folder = tmp_path / "dask"
    normalize_on_dask([str(source)], str(folder), settings, workers=2, blocksize=20_000)
    parts = sorted(folder.glob("part-*.nt"))
    assert b"".join(part.read_bytes() for part in parts) == statements
    assert (folder / "links.nt").read_bytes() == links
    advice: dict[tuple[str, int], list[int]] = {}
    for line in log.read_text().splitlines():
        name, offset, length, kind = line.split()
        assert int(kind) == os.POSIX_FADV_DONTNEED
        assert int(offset) == 0 or name == "links.nt"  # a range of links, in place from where it starts
        advice.setdefault((name, int(offset)), []).append(int(length))
    assert {part.name for part in parts} <= {name for name, _ in advice}  # every partition
    assert len([name for name, _ in advice if name == "links.nt"]) == 2  # and both ranges of links
    for where, lengths in advice.items():
        assert lengths == sorted(lengths), where
        assert lengths[0] >= 1000, where


@pytest.mark.parametrize("how", [["--workers", "1"], ["--workers", "2"], ["--dask", "local", "--workers", "2"]])
def test_undo_keeps_a_statement_that_was_canonical_already(tmp_path: Path, how: list[str]) -> None:
    """A streamed crosswalk said ``kept`` false always: undo then dropped a statement the
    input held canonical already, beside a non-canonical one that became it."""
    import subprocess
    import sys

    import pyoxigraph as ox

    lines = []
    for i in range(3000):
        lines.append(f"<http://example.org/s{i}> <http://example.org/p> <oai:arXiv.org:hep-th/{i % 700}> .")
        if i % 3 == 0:  # also there in its canonical form
            lines.append(
                f"<http://example.org/s{i}> <http://example.org/p> <http://purl.org/poi/arXiv.org/hep-th/{i % 700}> ."
            )
        if i % 5 == 0:
            lines.append(f"<http://example.org/s{i}> <http://example.org/q> <info:fedora/demo:{i}> .")
    source = tmp_path / "in.nt"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / ("out" if "--dask" in how else "out.nt")
    walk = tmp_path / "walk.csv"
    normalize = ["normalize", "-q", str(source), "-o", str(out), *how]
    normalize += [] if "--dask" in how else ["--crosswalk", str(walk)]
    if "--dask" in how:
        normalize.append("--crosswalk")
        normalize.append(str(out / "crosswalk.csv"))
    done = subprocess.run([sys.executable, "-m", "ldids", *normalize], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    outputs = sorted(str(path) for path in out.glob("*.nt")) if "--dask" in how else [str(out)]
    walked = out / "crosswalk.csv" if "--dask" in how else walk
    assert sum(line.endswith(",true") for line in walked.read_text().splitlines()) == 1000
    back = tmp_path / "back.nt"
    undo = ["undo", *outputs, "--crosswalk", str(walked), "-o", str(back)]
    done = subprocess.run([sys.executable, "-m", "ldids", *undo], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr

    def read(path: Path) -> set[str]:
        return {str(quad) for quad in ox.parse(path=str(path), format=ox.RdfFormat.N_TRIPLES)}

    assert read(back) == read(source)
