"""Running the stream over files, every core and the terminal (I/O, outside the core).

With one worker this process reads blocks of whole lines and processes them in turn. With
more, ``workers - 1`` worker processes (forked, fed through pipes) and this process share
the chunks: a chunk is a byte range of a plain file (the lines that start in it) or, from
standard input or a compressed file, a block this process read. A worker hands a chunk's
output and the rest of its result back in memory it shares with this process (in files
when that cannot be); this process takes a chunk itself whenever each worker has two
queued, and otherwise coordinates. Results are taken in input order and their outputs
written, with a bounded number of chunks in flight, so memory and the temporary disk
space stay bounded whatever the input size. Line numbers come back local to their chunk
and are made absolute here. Each process writes its blocks' outputs into buffers it
keeps, and the output file is written out to disk as it grows (:class:`_WriteBehind`).

Links and crosswalk rows are de-duplicated across blocks in bounded memory and written at
the end (links after the statements when they go into the output). Every output is
written to a temporary file and renamed into place only if the whole run succeeds.
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import gc
import gzip
import io
import itertools
import os
import pickle
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO, NoReturn, Protocol, cast

from ldids.dumps.stream import (
    BadLine,
    BlockResult,
    BytesLike,
    Settings,
    SortedUnique,
    blocks,
    difference,
    new_run,
    process_block,
    shared_decisions,
)
from ldids.errors import InputError
from ldids.rdf.files import atomic_output

if TYPE_CHECKING:
    import mmap
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from ldids.passes.graph import Crosswalk

__all__ = ["DumpSummary", "crosswalk_line", "normalize_dump"]


@dataclass
class DumpSummary:
    lines_in: int = 0
    lines_out: int = 0  # statements, blank and comment lines written
    statements: int = 0
    rewritten_statements: int = 0
    rewritten: Counter[str] = field(default_factory=Counter)
    links: int = 0
    crosswalk_rows: int = 0
    problems: int = 0
    problem_samples: list[str] = field(default_factory=list)
    bad_lines: int = 0
    seconds: float = 0.0

    def add(self, result: BlockResult, lines_before: int = 0, source: str = "-") -> None:
        """Count one block of the file ``source`` in (``-``: standard input); its line
        numbers are shifted by ``lines_before``."""
        self.lines_in += result.lines
        self.lines_out += result.written
        self.statements += result.statements
        self.rewritten_statements += result.rewritten_statements
        self.rewritten.update(result.rewritten)
        self.problems += result.problems
        for line, what in result.problem_samples[: max(0, 20 - len(self.problem_samples))]:
            name = "<stdin>" if source == "-" else source
            self.problem_samples.append(f"{name}:{line + lines_before}: {what}")

    def to_json(self) -> dict[str, object]:
        return {
            "lines_in": self.lines_in,
            "lines_out": self.lines_out,
            "bad_lines": self.bad_lines,
            "statements": self.statements,
            "statements_rewritten": self.rewritten_statements,
            "identifiers_rewritten": dict(sorted(self.rewritten.items())),
            "links": self.links,
            "crosswalk_rows": self.crosswalk_rows,
            "problems": self.problems,
            "seconds": round(self.seconds, 3),
        }


def _open_input(path: str, stack: ExitStack) -> tuple[io.BufferedIOBase, BinaryIO, int | None]:
    """(decompressed stream, raw stream for progress, raw size if known), closed by ``stack``."""
    if path == "-":
        return cast(io.BufferedIOBase, sys.stdin.buffer), sys.stdin.buffer, None  # a BufferedReader
    try:
        raw = stack.enter_context(open(path, "rb"))  # noqa: SIM115
    except OSError as error:
        raise InputError(error.strerror or str(error), source=path) from error
    size = os.fstat(raw.fileno()).st_size
    lowered = path.lower()
    if lowered.endswith(".gz"):
        return stack.enter_context(gzip.GzipFile(fileobj=raw)), raw, size
    if lowered.endswith(".bz2"):
        return stack.enter_context(bz2.BZ2File(raw)), raw, size
    return raw, raw, size


class _Sink(Protocol):
    def write(self, data: BytesLike, /) -> int: ...
    def close(self) -> None: ...


def _compressed(stream: IO[bytes], path: str) -> _Sink:
    """``stream`` compressing what is written to it, by the extension of ``path``.

    gzip's header gets no time stamp (mtime=0): the same data gives the same bytes."""
    lowered = path.lower()
    if lowered.endswith(".gz"):
        return gzip.GzipFile(fileobj=stream, mode="wb", compresslevel=6, mtime=0)
    if lowered.endswith(".bz2"):
        return bz2.BZ2File(stream, mode="wb")
    return stream


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
        text = f"\r{lines:,} lines  {done / 1e6:,.1f} MB read  {rate:,.0f} lines/s"
        if total:
            fraction = min(done / total, 1.0)
            eta = elapsed * (1 - fraction) / fraction if fraction > 0 else 0
            text += f"  {fraction:6.1%}  ETA {eta:,.0f} s"
        sys.stderr.write(text + ("\n" if final else ""))
        sys.stderr.flush()


@dataclass(frozen=True)
class _Chunk:
    """What one task works on: the lines that start in bytes [start, stop) of a plain file,
    or (``data`` not None) the lines themselves."""

    path: str
    start: int = 0
    stop: int = 0
    data: bytes | None = None


def _read_range(path: str, start: int, stop: int, buffer: bytearray) -> memoryview:
    """The lines of ``path`` whose first byte lies in [start, stop), read into ``buffer``
    (grown as needed; a worker reuses one, rather than fault in fresh pages per chunk)."""
    with open(path, "rb") as stream:
        if start > 0:
            stream.seek(start - 1)
            stream.readline()  # the end of a line that began before start: the previous range's
        begin = stream.tell()
        if begin >= stop:
            return memoryview(b"")
        wanted = stop - begin
        _make_room(buffer, wanted)
        view = memoryview(buffer)
        length = 0
        while length < wanted and (count := stream.readinto(view[length:wanted])):
            length += count
        if length == 0 or buffer[length - 1] == ord("\n"):
            return view[:length]
        # The last line began in range: it is this range's.
        rest = stream.readline()
        view.release()
        _make_room(buffer, length + len(rest))
        buffer[length : length + len(rest)] = rest
        return memoryview(buffer)[: length + len(rest)]


def _make_room(buffer: bytearray, size: int) -> None:
    if len(buffer) < size:
        buffer.extend(bytes(size - len(buffer)))


class _Buffers(threading.local):
    """What a thread reads chunks into and writes outputs into, reused rather than fresh
    megabytes per block. A thread's own: runs in two threads at once must not share them."""

    def __init__(self) -> None:
        self.chunk = bytearray()
        # Outputs written already, whose buffers the next blocks write into (process_block's
        # into): as many as there were blocks waiting to be written at once.
        self.spare: list[bytearray] = []


_BUFFERS = _Buffers()


def _output_buffer() -> bytearray:
    return _BUFFERS.spare.pop() if _BUFFERS.spare else bytearray()


def _written(output: BytesLike) -> None:
    """``output`` is written: a buffer of this thread's takes another block's next, a view
    of a worker's slot lets the slot go."""
    if isinstance(output, bytearray):
        _BUFFERS.spare.append(output)
    elif isinstance(output, memoryview):
        output.release()


def _run_chunk(chunk: _Chunk, settings: Settings) -> BlockResult:
    """One chunk's lines through process_block (numbered from 1), the output in a buffer
    of this thread's (see :func:`_written`)."""
    if chunk.data is not None:
        return process_block(chunk.data, 1, settings, into=_output_buffer())
    with _read_range(chunk.path, chunk.start, chunk.stop, _BUFFERS.chunk) as data:
        return process_block(data, 1, settings, into=_output_buffer())


def _detached(result: BlockResult) -> tuple[BlockResult, BytesLike]:
    """The result without its output, and the output."""
    output, result.output = result.output, b""
    return result, output


def _chunks(
    path: str, source: io.BufferedIOBase, size: int | None, seekable: bool, block_size: int
) -> Iterator[_Chunk]:
    if seekable and size is not None:
        for start in range(0, size, block_size):
            yield _Chunk(path, start, min(start + block_size, size))
        return
    for data, _ in blocks(source, block_size):
        yield _Chunk(path, data=data)


class _Pool:
    """Worker processes, each fed through a pipe of its own.

    Tasks are written to a worker's pipe ahead of time (it holds many), and a worker sends
    back one short line per task, in order, so neither side waits on the other. There is no
    thread here: a ProcessPoolExecutor feeds its workers from threads of this process, which
    wait for the GIL while this process works on a chunk of its own, and the workers idle.

    A forked worker hands each result over in a slot of memory it shares with this process
    (SLOTS of them, used in turn): the output, then the rest of the result pickled. This
    process writes the output from there and lets the slot go. Part files cost more: each
    is new pages for the kernel to take, fill, copy and free (a fifth of the CPU time the
    kernel spent on a 2-worker run). What does not fit its slot, and everything a spawned
    worker does (no fork: macOS, Windows), goes through files in the run's directory.
    """

    DEPTH = 2  # chunks queued per worker before this process takes one itself
    SLOTS = 2 * DEPTH  # results of a worker's handed over and not yet taken, at most

    def __init__(self, processes: int, settings: Settings, slot_size: int = 0) -> None:
        import mmap
        import multiprocessing  # here: a run with one worker starts without them (~10 ms)

        # Forked where that is safe, so workers share the table of decisions made before.
        context = (
            multiprocessing.get_context("fork") if sys.platform == "linux" else multiprocessing.get_context("spawn")
        )
        forked = context.get_start_method() == "fork"
        self._slot_size = slot_size
        self._connections: list[Connection] = []
        self._processes: list[BaseProcess] = []
        self._slots: list[mmap.mmap | None] = []
        self._sent: list[int] = []
        self._done: list[int] = []
        self._taken: list[int] = []
        self._replies: list[deque[_Reply]] = []
        # What exists now is shared with the forked workers until written to: kept out of
        # the cycle collector's sight (gc.freeze), its passes do not copy those pages.
        gc.freeze()
        # A worker starts with Ctrl-C and SIGTERM held back until it has set its own way of
        # taking them (_quiet_worker). Otherwise a signal that comes at once runs the
        # handler inherited from this process, and CPython drops it ("ignored due to race
        # condition") when that handler has been replaced by then: the worker lives on.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS) if _CAN_HOLD else None
        try:
            for _ in range(processes):
                mine, theirs = context.Pipe()
                # A forked worker closes its copies of this process's ends of the pipes,
                # its own and every other open one (this pool's, and another's in a run in
                # another thread): else a pipe would stay open when this process closes it,
                # and its worker would wait for a chunk forever.
                _OPEN_ENDS.add(mine)
                ours = tuple(_OPEN_ENDS) if forked else ()
                # Anonymous memory is shared with a child that is forked (MAP_SHARED).
                slots = mmap.mmap(-1, self.SLOTS * slot_size) if forked and slot_size > 0 else None
                process = context.Process(target=_serve, args=(theirs, settings, ours, slots), daemon=True)
                process.start()
                theirs.close()
                self._connections.append(mine)
                self._processes.append(process)
                self._slots.append(slots)
                self._sent.append(0)
                self._done.append(0)
                self._taken.append(0)
                self._replies.append(deque())
        finally:
            gc.unfreeze()
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def free_worker(self) -> int | None:
        """The worker with the fewest unfinished chunks, if it has fewer than DEPTH and a
        slot free for one more."""
        for worker in range(len(self._connections)):
            self._collect(worker)
        free = [
            worker
            for worker in range(len(self._connections))
            if self._sent[worker] - self._done[worker] < self.DEPTH
            and self._sent[worker] - self._taken[worker] < self.SLOTS
        ]
        return min(free, key=lambda worker: self._sent[worker] - self._done[worker], default=None)

    def submit(self, worker: int, chunk: _Chunk, part: str) -> int:
        """Queues a chunk; its number among the worker's tasks (see :meth:`take`)."""
        try:
            self._connections[worker].send((chunk, part))
        except OSError:  # the pipe is broken: the worker is gone
            self._lost(worker)
        self._sent[worker] += 1
        return self._sent[worker]

    def is_done(self, worker: int, number: int) -> bool:
        self._collect(worker)
        return self._done[worker] >= number

    def take(self, worker: int, number: int, part: str) -> tuple[BlockResult, BytesLike | Path]:
        """The result of the worker's task ``number`` (waiting for it), and its output: a
        view of the slot, which stays the task's until the view is released, or the part
        file. A worker's tasks are taken in the order they were queued."""
        while self._done[worker] < number:
            self._receive(worker)
        reply = self._replies[worker].popleft()
        self._taken[worker] += 1
        assert self._taken[worker] == number, "a worker's results are taken in order"
        slots = self._slots[worker]
        if reply is None or slots is None:
            with open(f"{part}.result", "rb") as rest:
                result: BlockResult = pickle.load(rest)
            os.unlink(f"{part}.result")
            return result, Path(part)
        length, rest_length = reply
        start = (number - 1) % self.SLOTS * self._slot_size
        with memoryview(slots) as whole:
            with whole[start + length : start + length + rest_length] as rest_view:
                result = pickle.loads(rest_view)
            return result, whole[start : start + length]

    def _collect(self, worker: int) -> None:
        """Takes the lines the worker has sent, without waiting for more."""
        while self._connections[worker].poll():
            self._receive(worker)

    def _receive(self, worker: int) -> None:
        try:
            reply = self._connections[worker].recv()
        except (EOFError, OSError):  # closed, or reset with tasks unread: the worker is gone
            self._lost(worker)
        if isinstance(reply, str):
            raise RuntimeError(f"a worker process failed: {reply}")
        self._replies[worker].append(reply)
        self._done[worker] += 1

    def _lost(self, worker: int) -> NoReturn:
        process = self._processes[worker]
        process.join(timeout=5)
        raise RuntimeError(f"a worker process ended unexpectedly (exit code {process.exitcode})") from None

    def close(self) -> None:
        """Ends the workers. Idle ones end when their pipe closes; one still at work (after
        an error or Ctrl-C) is terminated, and killed if it has not ended a second later.
        What a worker wrote is in the run's temporary directory, removed with it."""
        for connection in self._connections:
            connection.close()
            _OPEN_ENDS.discard(connection)
        for process in self._processes:
            process.join(timeout=0.2)
        for process in self._processes:
            if process.is_alive():
                process.terminate()
        for process in self._processes:
            process.join(timeout=1)
            if process.is_alive():
                process.kill()
                process.join()
        for slots in self._slots:
            # A view still held (a run stopped by an error) keeps its memory until it goes.
            with contextlib.suppress(BufferError):
                if slots is not None:
                    slots.close()


# The coordinator's ends of the pipes of every pool open in this process.
_OPEN_ENDS: set[Connection] = set()


# What a worker sends back for a task: None when the result is in files, (output length,
# rest length) when it is in the task's slot, or what went wrong.
_Reply = tuple[int, int] | None


class _SlotFullError(Exception):
    """What a worker hands over does not fit its slot."""


class _SlotWriter:
    """The free part of a slot as a file for pickle.dump."""

    def __init__(self, view: memoryview) -> None:
        self.view = view
        self.length = 0

    def write(self, data: BytesLike) -> int:
        end = self.length + len(data)
        if end > len(self.view):
            raise _SlotFullError
        self.view[self.length : end] = data
        self.length = end
        return len(data)


def _hand_over(result: BlockResult, part: str, slot: memoryview | None) -> _Reply:
    """Puts a worker's result where the coordinator takes it (see :class:`_Pool`)."""
    result, output = _detached(result)
    result.links.sort()  # here, on this core: the coordinator merges sorted pieces (SortedUnique)
    try:
        if slot is not None and len(output) <= len(slot):
            slot[: len(output)] = output
            with slot[len(output) :] as free:
                rest = _SlotWriter(free)
                try:
                    pickle.dump(result, rest, protocol=pickle.HIGHEST_PROTOCOL)
                    return len(output), rest.length
                except _SlotFullError:
                    pass  # in files, then
        Path(part).write_bytes(output)
        with open(f"{part}.result", "wb") as file:
            pickle.dump(result, file, protocol=pickle.HIGHEST_PROTOCOL)
        return None
    finally:
        _written(output)


def _serve(
    connection: Connection, settings: Settings, ours: tuple[Connection, ...] = (), slots: mmap.mmap | None = None
) -> None:
    """A worker process: chunks from ``connection``, until it closes; each result handed
    over (:func:`_hand_over`), then a line back (where it is, or what went wrong).
    ``ours``: the coordinator's ends of the pipes, copied into this process by the fork,
    closed here. ``slots``: the memory this worker shares with the coordinator."""
    _quiet_worker()
    for end in ours:
        end.close()
    size = 0 if slots is None else len(slots) // _Pool.SLOTS
    number = 0
    reply: _Reply | str
    while True:
        try:
            chunk, part = connection.recv()
        except (EOFError, ConnectionError):  # closed, or reset with tasks unread: the run is over
            return
        start = number % _Pool.SLOTS * size
        number += 1
        try:
            if slots is None:
                reply = _hand_over(_run_chunk(chunk, settings), part, None)
            else:
                with memoryview(slots) as whole, whole[start : start + size] as slot:
                    reply = _hand_over(_run_chunk(chunk, settings), part, slot)
        except Exception as error:  # reported to the coordinator, which stops the run
            reply = f"{type(error).__name__}: {error}"
        try:
            connection.send(reply)
        except ConnectionError:  # the coordinator stopped the run (an error, a reader that left)
            return


# A chunk in flight: done here (its result), or queued with a worker (worker, number); its
# part file's name; where in the file it ends.
_Task = tuple["BlockResult | tuple[int, int]", str, "int | None"]


def _results(
    path: str,
    source: io.BufferedIOBase,
    size: int | None,
    settings: Settings,
    pool: _Pool | None,
    parts: str,
    workers: int,
    block_size: int,
) -> Iterator[tuple[BlockResult, BytesLike | Path, int | None]]:
    """Each block's result in input order, with its output (in memory, or the part file
    holding it) and where in the file the block ends (None: where ``source`` is). Line
    numbers are local to the block. The output is the caller's to write, and to hand to
    :func:`_written`, before the next result comes."""
    if pool is None:
        for data, _ in blocks(source, block_size):
            yield *_detached(process_block(data, 1, settings, into=_output_buffer())), None
        return
    seekable = path != "-" and not path.lower().endswith((".gz", ".bz2")) and os.path.isfile(path)
    window: deque[_Task] = deque()
    for index, chunk in enumerate(_chunks(path, source, size, seekable, block_size)):
        end = chunk.stop if seekable else None
        part = os.path.join(parts, f"part-{index}")
        worker = pool.free_worker()
        if worker is not None:
            if chunk.data is not None:
                # Lines read here (standard input, a compressed file) go to the worker in a
                # file: through the pipe, this process would wait until the worker took them.
                Path(f"{part}.in").write_bytes(chunk.data)
                chunk = _Chunk(f"{part}.in", 0, len(chunk.data))
            window.append(((worker, pool.submit(worker, chunk, part)), part, end))
        else:  # every worker has enough to do: this process takes the chunk
            window.append((_run_chunk(chunk, settings), part, end))
        # Results wait here for the oldest to finish: a bounded number of them.
        while window and (len(window) > 4 * workers or _finished(pool, window[0][0])):
            yield _take(pool, window)
    while window:
        yield _take(pool, window)


def _finished(pool: _Pool, task: BlockResult | tuple[int, int]) -> bool:
    return isinstance(task, BlockResult) or pool.is_done(*task)


def _take(pool: _Pool, window: deque[_Task]) -> tuple[BlockResult, BytesLike | Path, int | None]:
    """The oldest result of the window (waiting for it if it is still being worked on)."""
    task, part, end = window.popleft()
    if isinstance(task, BlockResult):
        return *_detached(task), end
    result, output = pool.take(*task, part)
    Path(f"{part}.in").unlink(missing_ok=True)
    return result, output, end


_STOPS = {signal.SIGINT, signal.SIGTERM}
_CAN_HOLD = hasattr(signal, "pthread_sigmask")  # not on Windows


def _quiet_worker() -> None:
    """Ctrl-C reaches every process of the group: the coordinator handles it (it stops
    the pool and removes what the run wrote), so a worker ignores it rather than print a
    traceback of its own; a worker that is terminated just ends. The signals held back
    while the worker started are let through now."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _CAN_HOLD:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


class _WriteBehind:
    """Has the kernel start writing a growing output file to disk every few MiB.

    Left to itself, the kernel keeps a dump's output in memory until it must write it:
    ext4 writes a file out when it is renamed over another one, so a run would end with
    all of it written at once, its workers idle (0.05-0.1 s per 100 MB here). Written
    behind, the output goes to disk while the run works, and the written pages leave the
    page cache, as a streamed dump's output should (POSIX_FADV_DONTNEED; on Linux it
    starts the write-back of dirty pages and drops the pages already written back)."""

    STEP = 8 << 20

    def __init__(self, stream: IO[bytes]) -> None:
        self._descriptor: int | None = None
        self._done = 0
        try:
            descriptor = stream.fileno()
            if hasattr(os, "posix_fadvise") and stat.S_ISREG(os.fstat(descriptor).st_mode):
                self._descriptor = descriptor
        except (OSError, ValueError):  # no descriptor (io.UnsupportedOperation is both): nothing to do
            pass

    def advance(self) -> None:
        if self._descriptor is None:
            return
        end = os.lseek(self._descriptor, 0, os.SEEK_CUR)
        if end - self._done >= self.STEP:
            try:
                os.posix_fadvise(self._descriptor, self._done, end - self._done, os.POSIX_FADV_DONTNEED)
            except OSError:  # advice a file system does not take: the output is written all the same
                self._descriptor = None
            self._done = end


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
) -> DumpSummary:
    """Normalize N-Triples/N-Quads files (``-``: standard input) into ``output``.

    ``links`` is ``"inline"`` (after the statements), a file name, or None (no links).
    Raises InputError at the first bad line unless ``settings.on_error == "skip"``, in
    which case bad lines go to ``error_file`` as ``LINE<TAB>COLUMN<TAB>MESSAGE<TAB>TEXT``.
    """
    if crosswalk is not None and not crosswalk.lower().endswith(".csv"):
        raise InputError("a streamed crosswalk is written as CSV: name it FILE.csv", source=crosswalk)
    summary = DumpSummary()
    started = time.monotonic()
    found_links, found_rows, present = SortedUnique(), SortedUnique(), SortedUnique()
    meter = _Progress(progress)
    settings = replace(settings, run=new_run())  # this call is a run of its own (Settings.run)
    with ExitStack() as stack:
        stack.callback(_BUFFERS.spare.clear)  # the memory is the caller's again
        pool = None
        parts = ""
        if workers > 1:
            parts = stack.enter_context(tempfile.TemporaryDirectory(prefix="ldids-parts-"))
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
            pool = _Pool(workers - 1, settings, slot_size=2 * block_size + (1 << 20))
            stack.callback(pool.close)
        target = stack.enter_context(atomic_output(output))
        out = _compressed(target, output)
        behind = _WriteBehind(target)
        errors: IO[bytes] | None = None
        for path in inputs:
            name = "<stdin>" if path == "-" else path
            lines_before = 0  # in this file, before the block
            with ExitStack() as files:
                source, raw, size = _open_input(path, files)
                for result, data, end in _results(path, source, size, settings, pool, parts, workers, block_size):
                    summary.add(result, lines_before, path)
                    if result.bad:
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
                        errors.write("".join(_bad_line(bad, lines_before) for bad in result.bad).encode("utf-8"))
                        summary.bad_lines += len(result.bad)
                    if isinstance(data, Path):
                        _append_part(data, out, target if out is target else None)
                        data.unlink()
                    else:
                        out.write(data)
                        _written(data)
                    behind.advance()
                    lines_before += result.lines
                    found_links.add_all(result.links)
                    present.add_all(result.same_as)
                    found_rows.add_all(crosswalk_line(row) for row in result.crosswalk)
                    if size is not None:
                        meter.update(summary.lines_in, raw.tell() if end is None else end, size)
                    else:
                        meter.update(summary.lines_in, 0, None)
        # A link already in the data is not written again: a second run changes nothing.
        new_links = difference(found_links, present) if present else iter(found_links)
        if links == "inline":
            summary.links = _write_lines(out, new_links)
        elif links is not None:
            # Renamed into place with the output (and the crosswalk) when the stack closes:
            # an error until then leaves none of them.
            stream = stack.enter_context(atomic_output(links))
            linked = _compressed(stream, links)
            summary.links = _write_lines(linked, new_links)
            if linked is not stream:
                linked.close()
        if crosswalk is not None:
            from ldids.passes.graph import Crosswalk

            stream = stack.enter_context(atomic_output(crosswalk))
            stream.write((",".join(Crosswalk.FIELDS) + "\n").encode())
            for line in found_rows:
                stream.write(f"{line}\n".encode())
                summary.crosswalk_rows += 1
        if out is not target:
            out.close()
    summary.seconds = time.monotonic() - started
    meter.update(summary.lines_in, 0, None, final=True)
    return summary


def _append_part(part: Path, out: _Sink, plain: IO[bytes] | None) -> None:
    """Append a part file to the output: in the kernel (sendfile) if the output is a plain
    file or a pipe (``plain``), else through a buffer. The coordinator of a run on every
    core does this for the whole output, while its workers want all the CPU there is."""
    with open(part, "rb") as written:
        if plain is not None:
            sent = 0
            try:
                plain.flush()
                size = os.fstat(written.fileno()).st_size
                while sent < size:
                    count = os.sendfile(plain.fileno(), written.fileno(), sent, size - sent)
                    if count == 0:
                        raise OSError(f"sendfile stopped at byte {sent} of {size}")
                    sent += count
                return
            except (OSError, io.UnsupportedOperation):
                # What was not sent goes through the buffer (what was would be written twice):
                # where sendfile cannot write, and to report an error writing the output by name.
                written.seek(sent)
        shutil.copyfileobj(written, out, 1 << 20)


def _write_lines(sink: _Sink, lines: Iterator[str], batch: int = 10_000) -> int:
    """Write lines in batches (one write per line costs more than making the line); their count."""
    count = 0
    while chunk := list(itertools.islice(lines, batch)):
        sink.write(("\n".join(chunk) + "\n").encode())
        count += len(chunk)
    return count


def _bad_line(bad: BadLine, lines_before: int) -> str:
    text = bad.text.replace("\t", "\\t")
    return f"{lines_before + bad.line}\t{bad.column}\t{bad.message}\t{text}\n"
