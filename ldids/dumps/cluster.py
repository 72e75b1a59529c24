"""Dumps bigger than one machine, or split over many files, on Dask.

A plain file is cut into byte ranges, a few per worker; each task opens the file, reads
the lines that start in its range and runs them through
:func:`ldids.dumps.stream.process_block` a block at a time, as the single process does,
writing its output to a partition file of its own. No statement passes through the
client or between workers, and a task holds a block at a time, whatever its range. A
compressed file cannot be cut: a task decompresses it into the output folder first, and
the copy is cut like any other file (and removed at the end).

Each task also writes the links, owl:sameAs statements and crosswalk rows it found, sorted
and each once, to files beside its partition, and sends back only counts and bad lines.
``links.nt`` is merged from those files a range of the sorted order per worker, in a
second round of tasks (:mod:`ldids.dumps.link_ranges`); ``crosswalk.csv`` (a row for each
new link as it is written) by the client, in bounded memory.
Partitions are written into a temporary folder that becomes the output folder only when
every task has succeeded. Concatenating the partitions in order gives the statements the
single-process stream writes, byte for byte, and ``links.nt`` its links.

Without a ``distributed`` client the tasks run on Dask's local processes scheduler, on
worker processes forked from this one: a local run pays for no scheduler, nanny or worker
start-up of its own, and the workers share the run's table of decisions as the ones of
``ldids normalize --workers`` do.

Needs the optional dependency ``dask``, and ``distributed`` for a cluster (``pip install 'ldids[dask]'``).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from ldids.dumps.blocks import blocks
from ldids.dumps.link_ranges import Sorted, boundaries, merge_range, new_links, room, write_sorted
from ldids.dumps.placed import close_gaps
from ldids.dumps.run import DumpSummary, _bad_line, both, crosswalk_line, kept_rows, link_rows
from ldids.dumps.sorting import SortedUnique, _merged
from ldids.dumps.stream import BadLine, BlockResult, Settings, new_run, process_block, shared_decisions
from ldids.errors import InputError
from ldids.rdf.compression import compression_of
from ldids.rdf.files import WriteBehind

__all__ = ["normalize_on_dask"]

#: The block a task hands process_block at a time: the single process's (normalize_dump).
BLOCK_SIZE = 1 << 21
#: Tasks per worker where the size of the ranges is not given: enough that a worker
#: slowed down by other jobs leaves the rest to the others, few enough that the merge of
#: the links has few files to read.
TASKS_PER_WORKER = 4
#: The largest range a task is given where the size is not given: a task that fails is
#: done again whole.
LARGEST_RANGE = 256 << 20


@dataclass(frozen=True)
class _Task:
    """The lines of the plain file ``path`` that start in bytes [start, stop): lines of
    ``source`` (``path`` itself, or the compressed file ``path`` was decompressed from);
    ``index``: the partition's number."""

    index: int
    path: str
    source: str
    start: int
    stop: int


@dataclass
class _Partition:
    """What a task sends back: its counts and bad lines (line numbers local to its range);
    whether its range ends without a line break (only a file's last may); and the sorted
    files of links, owl:sameAs statements and crosswalk rows it wrote (``.KIND-NNNNN-NNNN``),
    by kind (none where it found none)."""

    index: int
    path: str
    result: BlockResult
    unterminated: bool = False
    sorted_files: dict[str, Sorted] = field(default_factory=dict)


class _Range:
    """The lines that start in bytes [start, stop) of a file, read as a stream (the last
    read to its end). ``ends_line``: whether the last byte read was a line break;
    ``exhausted``: whether a read found nothing more."""

    def __init__(self, raw: io.BufferedReader, start: int, stop: int) -> None:
        if start > 0:
            raw.seek(start - 1)
            raw.readline()  # the end of a line that began before start: the previous range's
        self._raw = raw
        self._left = max(0, stop - raw.tell())
        self._finishing = False
        self.ends_line = True
        self.exhausted = False

    def readinto(self, buffer: memoryview, /) -> int:
        if self._left > 0:
            count = self._raw.readinto(buffer[: min(len(buffer), self._left)]) or 0
            self._left = self._left - count if count else 0
        elif self._finishing:  # the range's last line began in it: read to its line break
            piece = self._raw.readline(len(buffer))
            count = len(piece)
            buffer[:count] = piece
        else:
            count = 0
        if count:
            self.ends_line = buffer[count - 1] == ord("\n")
            self._finishing = self._left == 0 and not self.ends_line
        else:
            self.exhausted = True
        return count


def _add(total: BlockResult, result: BlockResult) -> None:
    """Count a block's result (numbered within the task) into the task's."""
    total.lines += result.lines
    total.written += result.written
    total.statements += result.statements
    total.rewritten_statements += result.rewritten_statements
    total.rewritten.update(result.rewritten)
    total.left.update(result.left)
    total.invalid.update(result.invalid)
    total.problems += result.problems
    total.problem_samples.extend(result.problem_samples[: max(0, 20 - len(total.problem_samples))])
    total.bad.extend(result.bad)


def _run_task(task: _Task, settings: Settings, folder: str, suffix: str) -> _Partition:
    total = BlockResult(rewritten=Counter(), left=Counter(), invalid=Counter())
    found = {kind: SortedUnique() for kind in ("links", "same-as", "rows", "rewritten", "unchanged")}
    buffer = bytearray()
    with contextlib.ExitStack() as stack:
        raw = stack.enter_context(open(task.path, "rb"))
        compression = compression_of(task.path)
        if compression is not None:
            # Decompressed by the reader the stream uses: a file cut short or corrupt is an
            # InputError, as in the single process.
            raw = stack.enter_context(compression.reader(raw, task.path))
        source = _Range(raw, task.start, task.stop)
        out = stack.enter_context(Path(folder, f"part-{task.index:05d}{suffix}").open("wb"))
        behind = WriteBehind(out)  # a partition is output, written out as it grows, as the single process's
        first = 1
        # Numbered by the results' own count of lines (the per-line loop's), not counted
        # again over every byte as blocks() would (a fifth of a second at 10M statements).
        for data, _ in blocks(source, BLOCK_SIZE, numbered=False):
            result = process_block(data, first, settings, into=buffer)
            first += result.lines
            out.write(result.output)
            behind.advance()
            _add(total, result)
            found["links"].add_all(result.links)
            found["same-as"].add_all(result.same_as)
            found["rows"].add_all(crosswalk_line(row) for row in result.crosswalk)
            found["rewritten"].add_all(row.rewritten for row in result.crosswalk)
            found["unchanged"].add_all(result.unchanged)
            if result.bad and settings.on_error == "stop":
                break  # the run stops at its first bad line: what follows is not wanted
    wrote = {
        kind: write_sorted(lines, Path(folder, f".{kind}-{task.index:05d}")) for kind, lines in found.items() if lines
    }
    return _Partition(task.index, task.source, total, source.exhausted and not source.ends_line, wrote)


def _tasks(files: list[tuple[str, str]], workers: int, blocksize: int | None) -> list[_Task]:
    """The byte ranges of plain files, given as (path, source): ``blocksize`` bytes each,
    or sized for ``workers``; in input order."""
    sizes = [os.path.getsize(path) for path, _ in files]
    if blocksize is None:
        blocksize = min(LARGEST_RANGE, max(BLOCK_SIZE, math.ceil(sum(sizes) / (TASKS_PER_WORKER * workers))))
    tasks: list[_Task] = []
    for (path, source), size in zip(files, sizes, strict=True):
        for start in range(0, max(size, 1), blocksize):
            tasks.append(_Task(len(tasks), path, source, start, min(start + blocksize, size)))
    return tasks


def _decompress(path: str, target: str) -> str:
    """A compressed input, decompressed into ``target`` by the reader the stream uses: a
    file cut short or corrupt is an InputError, as in the single process."""
    compression = compression_of(path)
    assert compression is not None
    with open(path, "rb") as raw, compression.reader(raw, path) as reader, open(target, "wb") as out:
        shutil.copyfileobj(reader, out, 1 << 20)
    return target


def normalize_on_dask(
    inputs: list[str],
    output: str,
    settings: Settings,
    *,
    client: Any = None,
    workers: int | None = None,
    blocksize: int | None = None,
    links: bool = True,
    crosswalk: bool = False,
    error_file: str | None = None,
) -> DumpSummary:
    """Normalize N-Triples/N-Quads files into the folder ``output`` on Dask.

    ``output`` gets ``part-NNNNN.nt`` (``.nq`` for N-Quads) in input order, ``links.nt``
    (unless ``links`` is false) and ``crosswalk.csv`` (if ``crosswalk``). ``client`` is a
    ``distributed.Client``; without one, ``workers`` local processes run the tasks (Dask's
    processes scheduler; default: one per core). A task reads ``blocksize`` bytes of a
    plain file (default: a few ranges per worker). Bad lines raise InputError (file, line,
    column) and leave no output, unless ``settings.on_error`` is ``"skip"``: then they go
    to ``error_file`` (default ``output/errors.tsv``).
    """

    started = time.monotonic()
    target = Path(output)
    if target.exists():
        raise InputError("the output folder exists already; name a new one", source=output)
    for path in inputs:
        if not os.path.isfile(path):
            raise InputError("no such file", source=path)
    if client is not None:
        workers = max(1, sum(client.nthreads().values()))
    workers = workers or os.cpu_count() or 1
    settings = replace(settings, run=new_run())  # this call is a run of its own (Settings.run)
    suffix = ".nq" if settings.quads else ".nt"
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent if str(target.parent) else "."))
    try:
        os.chmod(folder, 0o777 & ~_umask())  # a folder as any other the user makes, not mkdtemp's 0700
        with _scheduler(client, settings, workers) as (run, settings):
            # A compressed file cannot be cut: it is decompressed first (a task each), and
            # the copy cut into ranges like any other file.
            packed = [(path, str(folder / f".plain-{n:05d}")) for n, path in enumerate(inputs) if compression_of(path)]
            plain = dict(zip([path for path, _ in packed], run(_decompress, packed), strict=True))
            tasks = _tasks([(plain.get(path, path), path) for path in inputs], workers, blocksize)
            partitions: list[_Partition] = run(_run_task, [(task, settings, str(folder), suffix) for task in tasks])
            summary = _combine(partitions, settings, folder, error_file)
            if crosswalk:
                _write_crosswalk(folder, partitions, summary, links)
            elif links:
                _write_links(run, folder, partitions, workers, summary, here=client is None)
        for leftover in folder.glob(".*-*"):
            leftover.unlink()
        folder.rename(target)
        summary.seconds = time.monotonic() - started
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return summary


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Runs a function over a list of arguments on Dask; the results, in order.
_Run = Callable[[Callable[..., Any], list[tuple[Any, ...]]], list[Any]]


@contextlib.contextmanager
def _scheduler(client: Any, settings: Settings, workers: int) -> Iterator[tuple[_Run, Settings]]:
    """How to run tasks, and the settings they run with: on the client's cluster, or on
    Dask's processes scheduler over ``workers`` processes forked from this one where that
    is safe (Linux): no interpreter to start and nothing to import per worker, and they
    share the run's table of decisions (made before they fork)."""
    import dask
    import dask.multiprocessing

    if client is not None:

        def on_cluster(function: Callable[..., Any], arguments: list[tuple[Any, ...]]) -> list[Any]:
            return list(client.compute([dask.delayed(function)(*each) for each in arguments], sync=True))

        yield on_cluster, settings
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with contextlib.ExitStack() as stack:
        if stack.enter_context(shared_decisions(settings)) and context.get_start_method() == "fork":
            # As normalize_dump shares it: the table takes the memory a process's own memo would.
            settings = replace(settings, identifier_cache=max(1_000, settings.identifier_cache // (2 * workers)))
        pool = stack.enter_context(ProcessPoolExecutor(workers, mp_context=context))

        def here(function: Callable[..., Any], arguments: list[tuple[Any, ...]]) -> list[Any]:
            delayed = [dask.delayed(function)(*each) for each in arguments]
            # One task at a time to a worker (Dask batches 6 by default): the tasks are few and
            # long. The scheduler named by its function, not "processes": a name makes Dask
            # import distributed to look for a client first (0.15 to 0.2 s of a 1 s run).
            return list(dask.compute(*delayed, scheduler=dask.multiprocessing.get, pool=pool, chunksize=1))

        yield here, settings


def _combine(partitions: list[_Partition], settings: Settings, folder: Path, error_file: str | None) -> DumpSummary:
    """The run's summary from the tasks' (line numbers made absolute), and its bad lines:
    raised, or written to the error file."""
    summary = DumpSummary()
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
        if result.bad and settings.on_error == "stop":
            bad = result.bad[0]
            raise InputError(
                f"not an N-{'Quads' if settings.quads else 'Triples'} statement: {bad.message}",
                source=partition.path,
                line=bad.line + offset,
                column=bad.column,
            )
        bad_lines.extend((partition.path, replace(bad, line=bad.line + offset)) for bad in result.bad)
        summary.add(result, offset, partition.path)  # line numbers made absolute, as in bad_lines
    if bad_lines:
        errors = Path(error_file) if error_file else folder / "errors.tsv"
        with errors.open("w", encoding="utf-8") as stream:
            stream.writelines(_bad_line(path, bad, 0) for path, bad in bad_lines)
        summary.bad_lines = len(bad_lines)
    return summary


def _sorted(partitions: list[_Partition], kind: str) -> list[Sorted]:
    return [partition.sorted_files[kind] for partition in partitions if kind in partition.sorted_files]


def _write_links(
    run: _Run, folder: Path, partitions: list[_Partition], workers: int, summary: DumpSummary, here: bool
) -> None:
    """``links.nt``: the links the tasks found, merged a range at a time by ``workers`` tasks
    (:mod:`ldids.dumps.link_ranges`). Where the tasks run ``here``, on this machine, each
    writes its range into the file in place (:mod:`ldids.dumps.placed`); on a cluster, into
    a file of its own, and the ranges' files are put together in order."""
    found, present = _sorted(partitions, "links"), _sorted(partitions, "same-as")
    cuts: list[bytes | None] = [None, *boundaries(found, workers), None]
    if here:
        rooms = [room(found, cuts[n], cuts[n + 1]) for n in range(len(cuts) - 1)]
        target = folder / "links.nt"
        with target.open("w+b") as out:
            starts = itertools.accumulate(rooms[:-1], initial=0)
            placed = [(found, present, cuts[n], cuts[n + 1], str(target), at) for n, at in enumerate(starts)]
            merged: list[tuple[int, int]] = run(merge_range, placed)
            summary.links = sum(count for count, _ in merged)
            close_gaps(out.fileno(), 0, [(space, size) for space, (_, size) in zip(rooms, merged, strict=True)])
        return
    ranges = [(found, present, cuts[n], cuts[n + 1], str(folder / f".range-{n:05d}")) for n in range(len(cuts) - 1)]
    summary.links = sum(count for count, _ in run(merge_range, ranges))
    # The first range becomes the file, and the others are appended (in the kernel where it can).
    pieces = [Path(piece) for *_, piece in ranges]
    pieces[0].rename(folder / "links.nt")
    with (folder / "links.nt").open("r+b") as out:
        for piece in pieces[1:]:
            with piece.open("rb") as stream:
                _append(stream, out)


def _append(stream: IO[bytes], out: IO[bytes]) -> None:
    """Append the file ``stream`` to the file ``out``."""
    end, size = out.seek(0, io.SEEK_END), os.fstat(stream.fileno()).st_size
    sent = 0
    with contextlib.suppress(AttributeError, OSError):  # no copy_file_range (not Linux), or not here
        while sent < size and (
            count := os.copy_file_range(stream.fileno(), out.fileno(), size - sent, sent, end + sent)
        ):
            sent += count
    stream.seek(sent)
    out.seek(end + sent)
    shutil.copyfileobj(stream, out, 1 << 20)  # what the kernel did not copy


def _write_crosswalk(folder: Path, partitions: list[_Partition], summary: DumpSummary, links: bool) -> None:
    """The crosswalk's rows (those of the statements, and one per new link), and the links,
    in this process: a link's row is made as the link is written."""
    with contextlib.ExitStack() as stack:
        opened: list[list[IO[bytes]]] = [
            [stack.enter_context(Path(path).open("rb")) for file in _sorted(partitions, kind) for path in file.paths]
            for kind in ("links", "same-as", "rows", "rewritten", "unchanged")
        ]
        found, present, found_rows, rewritten, unchanged = opened
        rows = SortedUnique()
        stack.callback(rows.close)
        for batch in _merged(found_rows):
            rows.add_all(line.decode("utf-8", "surrogatepass") for line in batch)
        kept = both(
            (line.decode("utf-8", "surrogatepass") for batch in _merged(rewritten) for line in batch),
            (line.decode("utf-8", "surrogatepass") for batch in _merged(unchanged) for line in batch),
        )
        lines = (line.decode("utf-8", "surrogatepass") for batch in new_links(found, present) for line in batch)
        stream = stack.enter_context((folder / "links.nt").open("w", encoding="utf-8")) if links else None
        for line in link_rows(lines, rows):
            if stream is not None:
                stream.write(line + "\n")
                summary.links += 1
    from ldids.passes.graph import Crosswalk  # here: it imports rdflib, which a run without a crosswalk does not need

    with (folder / "crosswalk.csv").open("w", encoding="utf-8") as out:
        out.write(",".join(Crosswalk.FIELDS) + "\n")
        for line in kept_rows(rows, kept):
            out.write(line + "\n")
            summary.crosswalk_rows += 1
