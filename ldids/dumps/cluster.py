"""Dumps bigger than one machine, or split over many files, on a Dask cluster.

The same :func:`ldids.dumps.stream.process_block` is mapped over the blocks Dask cuts from the
input files (at line ends). Each task writes its own partition file, so statements never
pass through the client; the client gets counts, links and crosswalk rows back,
de-duplicates them in bounded memory, and writes ``links.nt`` and ``crosswalk.csv``.
Partitions are written into a temporary folder that becomes the output folder only when
every task has succeeded. Concatenating the partitions in order gives the statements the
single-process stream writes, byte for byte.

Needs the optional dependencies ``dask`` and ``distributed`` (``pip install 'ldids[dask]'``).
"""

from __future__ import annotations

import collections
import io
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ldids.dumps.run import DumpSummary, crosswalk_line, link_rows
from ldids.dumps.sorting import SortedUnique, difference
from ldids.dumps.stream import BadLine, BlockResult, Settings, new_run, process_block
from ldids.errors import InputError
from ldids.passes.graph import Crosswalk
from ldids.rdf.compression import compression_of

__all__ = ["normalize_on_dask"]


@dataclass(frozen=True)
class _Partition:
    """What a task sends back: everything but the statements, which it wrote itself; and
    whether its block ends without a line break (only a file's last block may)."""

    index: int
    path: str
    result: BlockResult
    unterminated: bool = False


def _run_partition(data: bytes, index: int, path: str, settings: Settings, folder: str, suffix: str) -> _Partition:
    compression = compression_of(path)
    if compression is not None:
        # Decompressed here, by the reader the stream uses: a file cut short or corrupt is an
        # InputError (Dask's own decompression would give what it could read, and no error).
        with compression.reader(io.BytesIO(data), path) as reader:
            data = reader.read()
    unterminated = bool(data) and not data.endswith(b"\n")
    if unterminated:
        data += b"\n"
    result = process_block(data, 1, settings)  # line numbers local to the block, fixed by the client
    Path(folder, f"part-{index:05d}{suffix}").write_bytes(result.output)
    return _Partition(index, path, replace(result, output=b""), unterminated)


def normalize_on_dask(
    inputs: list[str],
    output: str,
    settings: Settings,
    *,
    client: Any = None,
    blocksize: int | str = "64 MiB",
    links: bool = True,
    crosswalk: bool = False,
    error_file: str | None = None,
) -> DumpSummary:
    """Normalize N-Triples/N-Quads files into the folder ``output`` on a Dask cluster.

    ``output`` gets ``part-NNNNN.nt`` (``.nq`` for N-Quads) in input order, ``links.nt``
    (unless ``links`` is false) and ``crosswalk.csv`` (if ``crosswalk``). ``client`` is a
    ``distributed.Client``; without one, Dask's default scheduler runs the tasks. Bad lines
    raise InputError (file, line, column) and leave no output, unless ``settings.on_error``
    is ``"skip"``: then they go to ``error_file`` (default ``output/errors.tsv``).
    """
    import dask
    from dask.bytes import read_bytes

    target = Path(output)
    if target.exists():
        raise InputError("the output folder exists already; name a new one", source=output)
    compressed = any(compression_of(path) is not None for path in inputs)
    # Compressed files cannot be cut: one block per file, decompressed by the task.
    _, per_file, paths = read_bytes(
        inputs,
        delimiter=b"\n",
        blocksize=None if compressed else blocksize,
        compression=None,
        include_path=True,
        sample=False,
    )
    settings = replace(settings, run=new_run())  # this call is a run of its own (Settings.run)
    suffix = ".nq" if settings.quads else ".nt"
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent if str(target.parent) else "."))
    try:
        tasks = []
        index = 0
        for path, blocks in zip(paths, per_file, strict=True):
            for block in blocks:
                tasks.append(dask.delayed(_run_partition)(block, index, path, settings, str(folder), suffix))
                index += 1
        partitions: list[_Partition] = list(
            client.compute(tasks, sync=True) if client is not None else dask.compute(*tasks)
        )
        summary = _combine(partitions, settings, folder, links, crosswalk, error_file)
        folder.rename(target)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return summary


def _combine(
    partitions: list[_Partition], settings: Settings, folder: Path, links: bool, crosswalk: bool, error_file: str | None
) -> DumpSummary:
    summary = DumpSummary()
    found_links, found_rows, present = SortedUnique(), SortedUnique(), SortedUnique()
    bad_lines: list[tuple[str, BadLine]] = []
    lines_before: dict[str, int] = {}
    for partition in sorted(partitions, key=lambda p: p.index):
        result = partition.result
        offset = lines_before.get(partition.path, 0)
        lines_before[partition.path] = offset + result.lines
        last_bad = result.bad[-1] if result.bad else None
        if partition.unterminated and last_bad is not None and last_bad.line == result.lines:
            # As the stream says it (ldids.dumps.run), whatever on_error says: a last line
            # that is no statement and has no line break is a file cut short.
            raise InputError(
                "the input ends inside a statement, without a line break: is it cut short?",
                source=partition.path,
                line=last_bad.line + offset,
                column=last_bad.column,
            )
        bad_lines.extend((partition.path, replace(bad, line=bad.line + offset)) for bad in result.bad)
        summary.add(result, offset, partition.path)  # line numbers made absolute, as in bad_lines
        found_links.add_all(result.links)
        present.add_all(result.same_as)
        found_rows.add_all(crosswalk_line(row) for row in result.crosswalk)
    if bad_lines and settings.on_error == "stop":
        path, bad = bad_lines[0]
        raise InputError(
            f"not an N-{'Quads' if settings.quads else 'Triples'} statement: {bad.message}",
            source=path,
            line=bad.line,
            column=bad.column,
        )
    if bad_lines:
        errors = Path(error_file) if error_file else folder / "errors.tsv"
        with errors.open("w", encoding="utf-8") as stream:
            for path, bad in bad_lines:
                text = bad.text.replace("\t", "\\t")
                stream.write(f"{path}\t{bad.line}\t{bad.column}\t{bad.message}\t{text}\n")
        summary.bad_lines = len(bad_lines)
    new_links = difference(found_links, present)
    if crosswalk:
        new_links = link_rows(new_links, found_rows)
    if links:
        with (folder / "links.nt").open("w", encoding="utf-8") as stream:
            for line in new_links:
                stream.write(line + "\n")
                summary.links += 1
    elif crosswalk:
        collections.deque(new_links, maxlen=0)  # rows for the links, none written
    if crosswalk:
        with (folder / "crosswalk.csv").open("w", encoding="utf-8") as stream:
            stream.write(",".join(Crosswalk.FIELDS) + "\n")
            for line in found_rows:
                stream.write(line + "\n")
                summary.crosswalk_rows += 1
    return summary
