"""Running the stream over files, every core and the terminal (I/O, outside the core).

With one worker this process reads blocks of whole lines and processes them in turn. With
more, ``workers`` worker processes (forked, fed through pipes) take the chunks and this
process coordinates: a chunk is a byte range of a plain file (the lines that start in it)
or, from standard input or a compressed file, a block this process read. A worker hands a
chunk's output and the rest of its result back in memory it shares with this process (in
files without a name when that cannot be). Results are taken in input order and their
outputs written, with a bounded number of chunks in flight, so memory and the temporary
disk space stay bounded whatever the input size. Line numbers come back local to their chunk
and are made absolute here. Each process writes its blocks' outputs into buffers it
keeps, and the output file is written out to disk as it grows (:class:`WriteBehind`).
The worker processes are in :mod:`ldids.dumps.pool`, what any process does with a chunk in
:mod:`ldids.dumps.serve`.

Links and crosswalk rows are de-duplicated across blocks in bounded memory and written at
the end (links after the statements when they go into the output). Every output is
compressed as its name says and written to a file without a name, named only if the
whole run succeeds (:func:`ldids.rdf.files.atomic_output`).
"""

from __future__ import annotations

import csv
import io
import itertools
import mmap
import os
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Protocol

from ldids.dumps.blocks import Readable, blocks
from ldids.dumps.parse_beside import Beside
from ldids.dumps.pieces import Pieces
from ldids.dumps.pool import Found, _append_part, _Part, _Pool, _split_links, _write_halves
from ldids.dumps.serve import _BUFFERS, _Chunk, _detached, _output_buffer, _run_chunk, _written
from ldids.dumps.sorting import SortedUnique, difference
from ldids.dumps.stream import (
    BadLine,
    BlockResult,
    BytesLike,
    Settings,
    new_run,
    process_block,
    shared_decisions,
)
from ldids.errors import InputError, PieceError, check_stop
from ldids.passes.summary import Summary
from ldids.rdf.compression import compression_of, plain_name
from ldids.rdf.files import InputStream, WriteBehind, atomic_output, open_input

if TYPE_CHECKING:
    from ldids.dumps.validation import Streamed
    from ldids.passes.graph import Crosswalk

__all__ = ["DumpSummary", "crosswalk_line", "link_rows", "normalize_dump"]


@dataclass
class DumpSummary:
    lines_in: int = 0
    lines_out: int = 0  # statements, blank and comment lines written
    statements: int = 0
    rewritten_statements: int = 0
    rewritten: Counter[str] = field(default_factory=Counter)
    invalid: Counter[str] = field(default_factory=Counter)
    left: Counter[str] = field(default_factory=Counter)
    links: int = 0
    crosswalk_rows: int = 0
    problems: int = 0
    problem_samples: list[str] = field(default_factory=list)
    bad_lines: int = 0
    seconds: float = 0.0

    def add(self, result: BlockResult, lines_before: int = 0, source: str = "-", parsed: bool = False) -> None:
        """Count one block of the file ``source`` in (``-``: standard input); its line
        numbers are shifted by ``lines_before``. A ``parsed`` file's lines are its statements
        (ldids.dumps.rdf_stream), numbered as such: they are no lines of the file."""
        self.lines_in += result.lines
        self.lines_out += result.written
        self.statements += result.statements
        self.rewritten_statements += result.rewritten_statements
        self.rewritten.update(result.rewritten)
        self.invalid.update(result.invalid)
        self.left.update(result.left)
        self.problems += result.problems
        for line, what in result.problem_samples[: max(0, 20 - len(self.problem_samples))]:
            name = "<stdin>" if source == "-" else source
            where = f"{name}, statement {line + lines_before}" if parsed else f"{name}:{line + lines_before}"
            self.problem_samples.append(f"{where}: {what}")

    def summary(self) -> Summary:
        """The one summary (ldids.passes.summary): a stream writes every statement it reads,
        and merges none; lines, rows, seconds and problem samples are this path's own."""
        return Summary(
            statements_in=self.statements,
            statements_out=self.statements,
            statements_rewritten=self.rewritten_statements,
            links=self.links,
            rewritten=Counter(self.rewritten),
            invalid=Counter(self.invalid),
            left=Counter(self.left),
            bad_lines=self.bad_lines,
            run={
                "lines_in": self.lines_in,
                "lines_out": self.lines_out,
                "crosswalk_rows": self.crosswalk_rows,
                "seconds": round(self.seconds, 3),
                "problem_samples": list(self.problem_samples),
            },
        )

    def to_json(self) -> dict[str, Any]:
        return self.summary().to_json()


class _Input:
    """An input as blocks() reads it (decompressed by open_input, whose streams report a
    compressed file cut short or corrupt by name), remembering whether it ends a line at its
    end; a plain file that cannot be read is an InputError naming it too."""

    def __init__(self, stream: InputStream, name: str) -> None:
        self._stream = stream
        self._name = name
        self.last = b"\n"  # the last byte read (an empty input ends no line: it has none)

    def readinto(self, buffer: memoryview, /) -> int | None:
        try:
            count = self._stream.readinto(buffer)
        except OSError as error:
            raise InputError(f"cannot read: {error.strerror or error}", source=self._name) from error
        if count:
            self.last = bytes(buffer[count - 1 : count])
        return count


def _last_byte(path: str, raw: BinaryIO, size: int | None, read: _Input) -> bytes:
    """The last byte of an input: of the file itself when the workers read it (a plain file
    in chunks), else of what was read."""
    if size and path != "-" and compression_of(path) is None and os.path.isfile(path):
        return os.pread(raw.fileno(), 1, size - 1)
    return read.last


def _open_input(path: str, stack: ExitStack) -> tuple[InputStream, BinaryIO, int | None]:
    """(decompressed stream, raw stream for progress, raw size if known), closed by ``stack``:
    decompressed as the name says (.gz, .bz2, .xz, .zst), standard input as its first bytes say."""
    return stack.enter_context(open_input(path))


class _Sink(Protocol):
    def write(self, data: BytesLike, /) -> int: ...


class _Progress:
    """A one-line progress report on a terminal; silent when piped or in CI."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty() and not os.environ.get("CI")
        self.started = time.monotonic()
        self.shown = 0.0

    def update(self, lines: int, done: int, total: int | None, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not final and now - self.shown < 0.5):
            return
        self.shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = lines / elapsed
        # Bytes read are said where this process reads them (not standard input, nor a file
        # parsed in a process of its own).
        read = f"  {done / 1e6:,.1f} MB read" if done or total else ""
        text = f"\r{lines:,} lines{read}  {rate:,.0f} lines/s"
        if total:
            fraction = min(done / total, 1.0)
            eta = elapsed * (1 - fraction) / fraction if fraction > 0 else 0
            text += f"  {fraction:6.1%}  ETA {eta:,.0f} s"
        sys.stderr.write(text + ("\n" if final else ""))
        sys.stderr.flush()


def _chunks(path: str, source: Readable, size: int | None, seekable: bool, block_size: int) -> Iterator[_Chunk]:
    if seekable and size is not None:
        for start in range(0, size, block_size):
            yield _Chunk(path, start, min(start + block_size, size))
        return
    for data, _ in blocks(source, block_size, numbered=False):  # numbered by their results
        yield _Chunk(path, data=data)


# A chunk in flight: the worker it is queued with and its number there; where in the file
# it ends.
_Task = tuple[tuple[int, int], "int | None"]


def _results(
    path: str,
    source: Readable | Pieces,
    size: int | None,
    settings: Settings,
    pool: _Pool | None,
    workers: int,
    block_size: int,
) -> Iterator[tuple[BlockResult, BytesLike | _Part, int | None]]:
    """Each block's result in input order, with its output (in memory, or the file holding
    it) and where in the file the block ends (None: where ``source`` is). Line numbers are
    local to the block. The output is the caller's to write, and to hand to
    :func:`_written` (or close), before the next result comes."""
    if isinstance(source, Pieces):
        chunks = (
            _Chunk(source.path, start, stop, frame=source.frame, blocks=(opens, closes))
            for start, stop, opens, closes in source.ranges()
        )
        try:
            if pool is None:  # one process: each piece read and normalized in turn
                for chunk in chunks:
                    yield *_detached(_run_chunk(chunk, settings)[0]), chunk.stop
            else:
                yield from _pooled(chunks, pool, workers)
        except PieceError:
            raise source.error() from None
        return
    if pool is None:
        for data, _ in blocks(source, block_size, numbered=False):  # numbered by their results
            yield *_detached(process_block(data, 1, settings, into=_output_buffer())), None
        return
    seekable = path != "-" and compression_of(path) is None and os.path.isfile(path)
    yield from _pooled(_chunks(path, source, size, seekable, block_size), pool, workers)


def _pooled(
    chunks: Iterator[_Chunk], pool: _Pool, workers: int
) -> Iterator[tuple[BlockResult, BytesLike | _Part, int | None]]:
    """The results of ``chunks`` from the workers of ``pool``, in order (see :func:`_results`)."""
    window: deque[_Task] = deque()
    for chunk in chunks:
        end = chunk.stop if chunk.data is None else None
        # Every chunk goes to a worker; while each has enough to do, this process writes the
        # results that are done. It takes no chunk itself: with every output to write (at
        # 10M triples, 1.6 GB: seconds of the kernel's time, more when the disk holds writes
        # back), it would keep its chunk's lines waiting and its workers idle; as a process
        # of its own beside them, the kernel shares the cores out.
        while (worker := pool.free_worker()) is None:
            # The oldest result if it is done, else whichever comes first: a worker whose
            # chunks are done gets the next one then, rather than wait for the oldest.
            if pool.is_done(*window[0][0]):
                yield _take(pool, window)
            else:
                pool.wait()
        window.append(((worker, pool.submit(worker, chunk)), end))
        # Results wait here for the oldest to finish: a bounded number of them.
        while window and (len(window) > 4 * workers or pool.is_done(*window[0][0])):
            yield _take(pool, window)
    while window:
        yield _take(pool, window)


def _take(pool: _Pool, window: deque[_Task]) -> tuple[BlockResult, BytesLike | _Part, int | None]:
    """The oldest result of the window (waiting for it if it is still being worked on)."""
    task, end = window.popleft()
    result, output = pool.take(*task)
    return result, output, end


def link_rows(lines: Iterator[str], rows: SortedUnique, batch: int = 10_000) -> Iterator[str]:
    """The new links, passed through as they are written, each also added to the crosswalk
    ``rows``: a link the data held already is in neither."""
    from ldids.passes.graph import Crosswalk

    while chunk := list(itertools.islice(lines, batch)):
        rows.add_all(crosswalk_line(Crosswalk.of_link_line(line)) for line in chunk)
        yield from chunk


def both(first: Iterable[str], second: Iterable[str]) -> set[str]:
    """The lines in both sorted collections (SortedUnique's order), by merging them."""
    found: set[str] = set()
    others = iter(second)
    other = next(others, None)
    for line in first:
        while other is not None and other < line:
            other = next(others, None)
        if other is None:
            break
        if other == line:
            found.add(line)
    return found


def kept_rows(rows: Iterable[str], kept: set[str]) -> Iterator[str]:
    """The crosswalk's rows (CSV lines), each rewrite's ``kept`` true where the statement it
    became was in the input unchanged (``kept``): undo then keeps that statement. A stream
    does not gather its statements, so this is told from the candidate statements left as
    they were (BlockResult.unchanged), not from a graph."""
    for line in rows:
        if kept and line.startswith("rewrite,"):
            (row,) = csv.reader([line])
            if row[6] in kept:
                row[7] = "true"
                buffer = io.StringIO()
                csv.writer(buffer, lineterminator="").writerow(row)
                line = buffer.getvalue()
        yield line


def crosswalk_line(row: Crosswalk) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(row.values())
    return buffer.getvalue()


def normalize_dump(
    inputs: list[str],
    output: str,
    settings: Settings,
    *,
    workers: int = 1,
    links: str | None = "inline",
    crosswalk: str | None = None,
    error_file: str | None = None,
    progress: bool = False,
    block_size: int = 1 << 21,
    statements: Callable[[str, InputStream], InputStream | Pieces] | None = None,
    validation: Streamed | None = None,
) -> DumpSummary:
    """Normalize N-Triples/N-Quads files (``-``: standard input) into ``output``.

    ``links`` is ``"inline"`` (after the statements), a file name, or None (no links).
    ``statements`` reads other formats: given an input's path and its (decompressed) bytes,
    it returns its statements as N-Triples/N-Quads lines (:class:`ldids.dumps.rdf_stream.Parsed`),
    or the bytes themselves.
    ``validation`` (:func:`ldids.dumps.validation.shipped_checks`) has the output checked
    against the shipped shapes as it is made, each block by the process that makes it, the
    links by this one: its results name the output (or links) file and line.
    Raises InputError at the first bad line unless ``settings.on_error == "skip"``, in
    which case bad lines go to ``error_file`` as ``FILE<TAB>LINE<TAB>COLUMN<TAB>MESSAGE<TAB>TEXT``
    (as the Dask path writes them: with several inputs, a line number alone names no line).
    An input cut short is an InputError whatever ``on_error`` says: a compressed file that
    ends before its end, or a last line that has no line break and is not a statement.
    """
    if crosswalk is not None and not plain_name(crosswalk).lower().endswith(".csv"):
        raise InputError("a streamed crosswalk is written as CSV: name it FILE.csv (or .csv.gz, ...)", source=crosswalk)
    summary = DumpSummary()
    started = time.monotonic()
    found_links, found_rows, present = SortedUnique(), SortedUnique(), SortedUnique()
    rewritten, unchanged = SortedUnique(), SortedUnique()  # for the crosswalk's kept
    meter = _Progress(progress)
    # This call is a run of its own (Settings.run).
    settings = replace(settings, run=new_run(), validate=validation is not None)
    shown = "<stdout>" if output == "-" else output
    with ExitStack() as stack:
        stack.callback(_BUFFERS.spare.clear)  # the memory is the caller's again
        for collection in (found_links, found_rows, present, rewritten, unchanged):  # their runs, if the run stops
            stack.callback(collection.close)
        pool = None
        if workers > 1:
            # This process and the workers share one table of the run's decisions (made
            # before they fork), so a term is decided once, not once per process; what it
            # cannot take (it is full, or the identifier is invalid) each process remembers
            # itself, in what memory is left: the peak stays under 150 MiB (PSS) at 2 cores
            # and 10M triples (135 MiB measured). Without a shared table (no fork, no
            # compiled loop) the memory is shared out over the processes.
            shared = stack.enter_context(shared_decisions(settings))
            settings = replace(
                settings, identifier_cache=max(1_000, settings.identifier_cache // (2 * workers if shared else workers))
            )
            # A slot holds a block's output (a block grows by a few percent, more when most
            # of it is rewritten) and the rest of its result; what does not fit goes by file.
            pool = _Pool(workers, settings, slot_size=2 * block_size + (1 << 20))
            stack.callback(pool.close)
        out = stack.enter_context(atomic_output(output))  # compressed as its name says
        plain = out if compression_of(output) is None else None
        behind = WriteBehind(out)
        errors: IO[bytes] | None = None
        for path in inputs:
            name = "<stdin>" if path == "-" else path
            lines_before = 0  # in this file, before the block
            last_bad = (0, 0)  # the line and column of the last bad line in this file
            with ExitStack() as files:
                opened, raw, size = _open_input(path, files)
                source = _Input(opened, name)
                lines = source if statements is None else statements(path, opened)
                # Lines made while they are read are cut into blocks as they come, not read by range.
                ranges = size if lines is source else None
                for result, data, end in _results(path, lines, ranges, settings, pool, workers, block_size):
                    check_stop()  # a Ctrl-C whose exception a finalizer dropped stops the run here
                    if validation is not None:
                        validation.add(
                            result.checked,
                            result.findings,
                            shown,
                            lines_before=summary.lines_out,
                            digests=result.digests,
                        )
                    summary.add(result, lines_before, path, parsed=lines is not source)
                    if result.bad and lines is not source:  # parsed well, and written as no line can be
                        at = _rdf_1_2_in(path, result.bad[0].text)
                        raise InputError(
                            f"a statement with no N-Triples 1.1 form (RDF 1.2?): {result.bad[0].text}",
                            source=name,
                            line=None if at is None else at[0],
                            column=None if at is None else at[1],
                        )
                    if result.bad:
                        last_bad = (lines_before + result.bad[-1].line, result.bad[-1].column)
                        if settings.on_error == "stop":
                            bad = result.bad[0]
                            raise InputError(
                                f"not an N-{'Quads' if settings.quads else 'Triples'} statement: {bad.message}",
                                source=name,
                                line=lines_before + bad.line,
                                column=bad.column,
                            )
                        if errors is None:
                            errors = stack.enter_context(atomic_output(error_file or "ldids-errors.tsv"))
                        errors.write("".join(_bad_line(name, bad, lines_before) for bad in result.bad).encode("utf-8"))
                        summary.bad_lines += len(result.bad)
                    if isinstance(data, _Part):
                        try:
                            _append_part(data, out, plain)
                        finally:
                            data.close()
                    else:
                        out.write(data)
                        _written(data)
                    behind.advance()
                    lines_before += result.lines
                    found_links.add_all(result.links)
                    present.add_all(result.same_as)
                    found_rows.add_all(crosswalk_line(row) for row in result.crosswalk)
                    rewritten.add_all(row.rewritten for row in result.crosswalk)
                    unchanged.add_all(result.unchanged)
                    if size is not None and not isinstance(lines, Beside):  # else this process reads no byte of it
                        meter.update(summary.lines_in, raw.tell() if end is None else end, size)
                    else:
                        meter.update(summary.lines_in, 0, None)
                if (
                    lines is source
                    and last_bad[0] == lines_before > 0
                    and _last_byte(path, raw, size, source) not in b"\r\n"
                ):
                    raise InputError(
                        "the input ends inside a statement, without a line break: is it cut short?",
                        source=name,
                        line=last_bad[0],
                        column=last_bad[1],
                    )
        if pool is not None and (links is not None or crosswalk is not None):
            found_links.adopt(pool.link_runs())  # the links of the chunks the workers took
        halves = None
        if pool is not None and links is not None and crosswalk is None and not present:
            halves = _split_links(found_links, pool, checked=validation is not None)
            if halves is not None:
                for run in halves.runs:
                    stack.callback(run.close)
        # A link already in the data is not written again: a second run changes nothing.
        new_links: Iterator[str] | SortedUnique = difference(found_links, present) if present else found_links
        if crosswalk is not None:
            new_links = link_rows(iter(new_links), found_rows)
            if links is None:
                deque(new_links, maxlen=0)  # rows for the links, none written
        # The links are written behind too: else they are all in the page cache, dirty, when
        # the output is renamed into place, and ext4 writes them out then (a rename over a
        # file: auto_da_alloc), while the run waits.
        if links == "inline":
            found = _finding(validation, shown, summary.lines_out)
            if halves is not None:
                summary.links = _write_halves(out, plain, halves, pool, behind.advance, found)
            else:
                summary.links = _write_lines(out, new_links, found, behind)
        elif links is not None:
            # Renamed into place with the output (and the crosswalk) when the stack closes:
            # an error until then leaves none of them.
            sink = stack.enter_context(atomic_output(links))
            sink_behind = WriteBehind(sink)
            found = _finding(validation, links, 0)
            if halves is not None:
                sink_plain = sink if compression_of(links) is None else None
                summary.links = _write_halves(sink, sink_plain, halves, pool, sink_behind.advance, found)
            else:
                summary.links = _write_lines(sink, new_links, found, sink_behind)
        if crosswalk is not None:
            from ldids.passes.graph import Crosswalk

            stream = stack.enter_context(atomic_output(crosswalk))
            stream.write((",".join(Crosswalk.FIELDS) + "\n").encode())
            for line in kept_rows(found_rows, both(rewritten, unchanged)):
                stream.write(f"{line}\n".encode())
                summary.crosswalk_rows += 1
    summary.seconds = time.monotonic() - started
    meter.update(summary.lines_in, 0, None, final=True)
    return summary


def _write_lines(
    sink: _Sink, lines: Iterator[str] | SortedUnique, found: Found | None = None, behind: WriteBehind | None = None
) -> int:
    """Write lines in batches (one write per line costs more than making the line), each
    batch checked where ``found`` takes what the checks find, with the lines before it;
    their count."""
    if found is not None:
        from ldids.dumps.validation import check_output
    count = 0
    batches = lines.encoded() if isinstance(lines, SortedUnique) else _encoded(lines)
    for encoded, lines_in_it in batches:
        sink.write(encoded)
        if found is not None:
            found(check_output(encoded), count)
        if behind is not None:
            behind.advance()
        count += lines_in_it
    return count


def _encoded(lines: Iterator[str], batch: int = 10_000) -> Iterator[tuple[bytes, int]]:
    while chunk := list(itertools.islice(lines, batch)):
        yield ("\n".join(chunk) + "\n").encode(), len(chunk)


def _finding(validation: Streamed | None, name: str, lines_before: int) -> Found | None:
    """What adds the results found in the links written to ``name`` after its first
    ``lines_before`` lines to ``validation`` (None: nothing is checked)."""
    if validation is None:
        return None

    def found(made: tuple[int, list[Any], list[int] | None], before: int) -> None:
        count, rows, digests = made
        validation.add(count, rows, name, lines_before=lines_before + before, digests=digests)

    return found


def _rdf_1_2_in(path: str, statement: str) -> tuple[int, int] | None:
    """Where the file ``path`` (a plain one: read again) writes what ``statement``, as
    pyoxigraph wrote it, holds of RDF 1.2 (a triple term, else a base direction): the
    statement handed on is no line of the file."""
    if path == "-" or compression_of(path) is not None or not os.path.isfile(path) or not os.path.getsize(path):
        return None
    from ldids.rdf.oxigraph import locate_rdf_1_2

    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return locate_rdf_1_2(data, "<<" not in statement)


def _bad_line(name: str, bad: BadLine, lines_before: int) -> str:
    text = bad.text.replace("\t", "\\t")
    return f"{name}\t{lines_before + bad.line}\t{bad.column}\t{bad.message}\t{text}\n"
