"""The Dask path on a real distributed.LocalCluster: same bytes as the single process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import distributed
import pytest

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


@pytest.mark.parametrize("extension", [".gz", ".bz2", ".xz", ".zst"])
def test_compressed_inputs_are_read_whole(client: object, tmp_path: Path, extension: str) -> None:
    """A compressed file cannot be cut into byte ranges: each is one partition, decompressed."""
    plain, packed = compressed_dump(tmp_path, extension, 1500)
    expected = tmp_path / "single.nt"
    normalize_dump([str(plain)], str(expected), Settings(Config()), links=None)
    folder = tmp_path / "cluster"
    normalize_on_dask([str(packed)], str(folder), Settings(Config()), client=client, blocksize=4096, links=False)
    parts = sorted(folder.glob("part-*.nt"))
    assert b"".join(part.read_bytes() for part in parts) == expected.read_bytes()


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
