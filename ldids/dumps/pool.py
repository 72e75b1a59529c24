"""The worker processes of a run on every core, as the coordinator sees them.

The coordinator (:mod:`ldids.dumps.run`) cuts the chunks, queues them with the workers and
writes their results in order; what a worker does with them is in :mod:`ldids.dumps.serve`.
A worker hands each result back in memory it shares with the coordinator, or in files.

On Linux those files have no name (O_TMPFILE): the process that writes one sends it to the
other as an open descriptor (SCM_RIGHTS, over the pipe they share), so a run killed by
SIGKILL leaves none behind. Elsewhere (spawned workers: macOS, Windows) they are named
files in a temporary folder of the pool's (``ldids-parts-*``), removed when it closes.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import pickle
import shutil
import sys
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, NoReturn

from ldids.dumps.placed import close_gaps, placeable
from ldids.dumps.serve import (
    DEPTH,
    SLOTS,
    UNPARSED,
    _Chunk,
    _Merge,
    _receive_file,
    _send_file,
    _serve,
    read_found,
)
from ldids.dumps.signals import held
from ldids.dumps.sorting import SortedUnique, split_point
from ldids.dumps.stream import BlockResult, BytesLike, Settings
from ldids.errors import PieceError
from ldids.rdf.files import scratch_file, scratch_folder

if TYPE_CHECKING:
    import mmap
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess


#: What the checks found in a batch of lines (:func:`ldids.dumps.validation.check_output`:
#: the statements, the rows, their digests), handed on with the lines before the batch.
Found = Callable[[tuple[int, list[Any], "list[int] | None"], int], None]


@dataclass
class _Upper:
    """The upper part of the links a worker merged (:meth:`_Pool.merge_upper`): the file it
    is in (None: the output, in place), its lines and bytes, and where it checked them, the
    statements it checked and the file of what it found
    (:func:`ldids.dumps.serve.read_found`)."""

    file: BinaryIO | None
    lines: int
    size: int
    checked: int = 0
    found: BinaryIO | None = None

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
        if self.found is not None:
            self.found.close()


@dataclass
class _Halves:
    """The links' sorted runs cut in two (:func:`_split_links`): the lower part, the runs'
    lines below ``key``, and the upper, the lines of each run from its offset in
    ``starts`` on; ``checked``: the worker checks the lines of its part."""

    key: bytes
    runs: list[IO[bytes]]
    starts: list[int]
    checked: bool


@dataclass
class _Part:
    """A result handed over in a file: its output is the file from ``start`` on, the rest
    of the result (pickled) before it. Closed, and its name removed if it has one, once
    the output is written."""

    file: BinaryIO
    start: int
    name: str = ""

    def close(self) -> None:
        self.file.close()
        if self.name:
            Path(self.name).unlink(missing_ok=True)


class _Pool:
    """Worker processes, each fed through a pipe of its own.

    Tasks are written to a worker's pipe ahead of time (it holds many), and a worker sends
    back one short line per task, in order, so neither side waits on the other. There is no
    thread here: a ProcessPoolExecutor feeds its workers from threads of this process, which
    wait for the GIL while this process writes outputs, and the workers idle.

    A forked worker hands each result over in a slot of memory it shares with this process
    (SLOTS of them, used in turn): the output, then the rest of the result pickled. This
    process writes the output from there and lets the slot go. Part files cost more: each
    is new pages for the kernel to take, fill, copy and free (a fifth of the CPU time the
    kernel spent on a 2-worker run). What does not fit its slot goes through an unnamed
    file sent over the pipe; everything a spawned worker does (no fork: macOS, Windows),
    through named files in the pool's folder. Lines this process read (standard input, a
    compressed file) go to a worker the same way: through the pipe, this process would
    wait until the worker took them.
    """

    DEPTH = DEPTH
    SLOTS = SLOTS

    def __init__(self, processes: int, settings: Settings, slot_size: int = 0) -> None:
        import mmap
        import multiprocessing  # here: a run with one worker starts without them (~10 ms)

        # Forked where that is safe, so workers share the table of decisions made before.
        context = (
            multiprocessing.get_context("fork") if sys.platform == "linux" else multiprocessing.get_context("spawn")
        )
        forked = context.get_start_method() == "fork"
        # Files are handed over as descriptors between forked processes (Linux, where a
        # worker reads one as /proc/self/fd/N); else by name.
        handing = forked and os.path.isdir("/proc/self/fd")
        self._folder = "" if handing else tempfile.mkdtemp(prefix="ldids-parts-", dir=scratch_folder())
        # Where files are handed over, a worker keeps the links of its chunks (sorted, in
        # runs it spills itself) and hands the runs over at the end (:meth:`link_runs`):
        # else this process would take, sort, spill and merge them all, on one core, while
        # it also cuts, writes and works on chunks (a third of its time at 2 workers and
        # real cardinality).
        self._keeps_links = handing
        self._checks_upper = False  # merge_upper asked for the merged lines checked
        self._merges_into = False  # and for them written into the output, in place
        self._slot_size = slot_size
        self._connections: list[Connection] = []
        self._processes: list[BaseProcess] = []
        self._slots: list[mmap.mmap | None] = []
        self._sent: list[int] = []
        self._done: list[int] = []
        self._taken: list[int] = []
        self._replies: list[deque[tuple[int, int] | _Part]] = []
        # What exists now is shared with the forked workers until written to: kept out of
        # the cycle collector's sight (gc.freeze), its passes do not copy those pages.
        gc.freeze()
        # A worker starts with Ctrl-C and SIGTERM held back until it has set its own way of
        # taking them (_quiet_worker; ldids.dumps.signals says why).
        try:
            with held():
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
                    process = context.Process(
                        target=_serve, args=(theirs, settings, ours, slots, self._keeps_links), daemon=True
                    )
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

    def _part(self, worker: int, number: int) -> str:
        """The name of the worker's task's files, in the pool's folder; "" where files are handed."""
        return os.path.join(self._folder, f"part-{worker}-{number}") if self._folder else ""

    def submit(self, worker: int, chunk: _Chunk) -> int:
        """Queues a chunk; its number among the worker's tasks (see :meth:`take`)."""
        number = self._sent[worker] + 1
        part = self._part(worker, number)
        handed: BinaryIO | None = None
        if (data := chunk.data) is not None:
            if part:
                Path(f"{part}.in").write_bytes(data)
                chunk = _Chunk(f"{part}.in", 0, len(data))
            else:
                handed = scratch_file()
                handed.write(data)
                handed.flush()
                chunk = _Chunk("", 0, len(data), handed=True)
        try:
            self._connections[worker].send((chunk, part))
            if handed is not None:
                _send_file(self._connections[worker], handed)
        except OSError:  # the pipe is broken: the worker is gone
            self._lost(worker)
        finally:
            if handed is not None:
                handed.close()  # the worker has its own descriptor on it
        self._sent[worker] = number
        return number

    def is_done(self, worker: int, number: int) -> bool:
        self._collect(worker)
        return self._done[worker] >= number

    def wait(self) -> None:
        """Waits until some worker has sent a line, and takes what they have sent."""
        from multiprocessing.connection import wait

        wait(self._connections)
        for worker in range(len(self._connections)):
            self._collect(worker)

    def take(self, worker: int, number: int) -> tuple[BlockResult, BytesLike | _Part]:
        """The result of the worker's task ``number`` (waiting for it), and its output: a
        view of the slot, which stays the task's until the view is released, or the file
        holding it (the caller's to close). A worker's tasks are taken in the order they
        were queued."""
        while self._done[worker] < number:
            self._receive(worker)
        reply = self._replies[worker].popleft()
        self._taken[worker] += 1
        assert self._taken[worker] == number, "a worker's results are taken in order"
        part = self._part(worker, number)
        if part:
            Path(f"{part}.in").unlink(missing_ok=True)
        slots = self._slots[worker]
        if isinstance(reply, _Part):
            reply.file.seek(0)
            result: BlockResult = pickle.load(reply.file)
            return result, reply
        assert slots is not None, "a result in a slot comes from a worker with slots"
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
        if reply == UNPARSED:
            raise PieceError("a piece of the document did not parse")
        if isinstance(reply, str):
            raise RuntimeError(f"a worker process failed: {reply}")
        number = self._done[worker] + 1
        if isinstance(reply, int):  # in a file, the output from this offset on
            part = self._part(worker, number)
            try:
                file = open(part, "rb") if part else os.fdopen(_receive_file(self._connections[worker]), "rb")  # noqa: SIM115
            except (EOFError, OSError):
                self._lost(worker)
            self._replies[worker].append(_Part(file, reply, part))
        else:
            self._replies[worker].append(reply)
        self._done[worker] = number

    def link_runs(self) -> list[BinaryIO]:
        """The links of the chunks the workers took, as sorted runs (for
        :meth:`ldids.dumps.sorting.SortedUnique.adopt`; the caller's to close): each worker
        spills what it holds and sends its runs. None where the links came back with each
        result. Asked once every result is taken: the workers are idle."""
        if not self._keeps_links:
            return []
        runs: list[BinaryIO] = []
        try:
            for worker, connection in enumerate(self._connections):
                assert self._taken[worker] == self._sent[worker], "every result is taken first"
                try:
                    connection.send((None, ""))
                    reply = connection.recv()
                except (EOFError, OSError):
                    self._lost(worker)
                if isinstance(reply, str):
                    raise RuntimeError(f"a worker process failed: {reply}")
                if not (isinstance(reply, tuple) and reply[0] == "runs"):
                    raise RuntimeError(f"a worker process answered {reply!r} for its links")
                for _ in range(reply[1]):
                    try:
                        runs.append(os.fdopen(_receive_file(connection), "rb"))
                    except (EOFError, OSError):
                        self._lost(worker)
        except BaseException:
            for run in runs:
                run.close()
            raise
        return runs

    @property
    def merges(self) -> bool:
        """Whether a worker can merge part of the links' runs (:meth:`merge_upper`): where
        files are handed over and the merge is compiled."""
        from ldids.dumps import sorting

        return self._keeps_links and sorting._compiled is not None

    def merge_upper(
        self,
        runs: list[IO[bytes]],
        starts: list[int],
        *,
        checked: bool = False,
        into: tuple[IO[bytes], int] | None = None,
    ) -> None:
        """Has the first worker merge the runs from ``starts`` on (a :class:`_Merge`), and
        check the lines it merges where ``checked``: into a file that comes with
        :meth:`merged_upper`, or ``into`` a plain file (the output) from a byte on. Asked
        once every result is taken."""
        connection = self._connections[0]
        self._checks_upper, self._merges_into = checked, into is not None
        try:
            connection.send((_Merge(starts, checked, None if into is None else into[1]), ""))
            for run in runs:
                _send_file(connection, run)
            if into is not None:
                _send_file(connection, into[0])
        except OSError:
            self._lost(0)

    def merged_upper(self) -> _Upper:
        """What the first worker merged the upper part into (waiting for it)."""
        connection = self._connections[0]
        try:
            reply = connection.recv()
        except (EOFError, OSError):
            self._lost(0)
        if isinstance(reply, str):
            raise RuntimeError(f"a worker process failed: {reply}")
        if not (isinstance(reply, tuple) and reply[0] == "merged"):
            raise RuntimeError(f"a worker process answered {reply!r} for its merge")
        _, lines, checked, size = reply
        upper = _Upper(None, lines, size, checked)
        if not self._merges_into:
            try:
                upper.file = os.fdopen(_receive_file(connection), "rb")
            except (EOFError, OSError):
                self._lost(0)
        if self._checks_upper:
            try:
                upper.found = os.fdopen(_receive_file(connection), "rb")
            except (EOFError, OSError):
                upper.close()
                self._lost(0)
        return upper

    def _lost(self, worker: int) -> NoReturn:
        process = self._processes[worker]
        process.join(timeout=5)
        raise RuntimeError(f"a worker process ended unexpectedly (exit code {process.exitcode})") from None

    def close(self) -> None:
        """Ends the workers. Idle ones end when their pipe closes; one still at work (after
        an error or Ctrl-C) is terminated, and killed if it has not ended a second later.
        The files of results not taken are closed, the pool's folder (if any) removed."""
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
        for replies in self._replies:
            for reply in replies:
                if isinstance(reply, _Part):
                    reply.close()
            replies.clear()
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)


# The coordinator's ends of the pipes of every pool open in this process.
_OPEN_ENDS: set[Connection] = set()


# Links' runs of fewer bytes than this are merged by this process alone.
_SPLIT_AT = 4 << 20

# The lower part's share of the links' bytes: this process merges it while it also writes
# it through its buffer, the worker merges the upper part and writes it in place. At 10M
# triples of real cardinality, 2 workers, the two end together at about 0.4 (the last
# result to the end of the run: 0.40 s at 0.4, 0.46-0.48 s at 0.5; single runs). Where
# both also check their lines (normalize --validate), a little less than half: the links'
# checks are the cheaper for their order (a text read on from where it parts from the last,
# ldids/dumps/_scan.c: run_product), and at 0.5 the worker was done first (the whole run at
# 0.44 and 0.42, 0.98x and 0.97x its wall time at 0.5: farm-bench, 7 pairs each).
_LOWER = 0.4
_LOWER_CHECKED = 0.44


def _split_links(found: SortedUnique, pool: _Pool | None, *, checked: bool = False) -> _Halves | None:
    """The links' sorted runs cut in two, for a worker to merge the upper part (and check
    its lines where ``checked``) while this process merges (and checks) and writes the
    lower (:func:`_write_halves`): else the merge and the write of every link (at 10M
    triples, 0.5 GB), and their checks, are the end of the run, on one core. None where
    this process merges them all (few links, or a pool that cannot merge)."""
    if pool is None or not pool.merges:
        return None
    runs = found.take_runs()
    size = sum(os.fstat(run.fileno()).st_size for run in runs)
    split = split_point(runs, lower=_LOWER_CHECKED if checked else _LOWER) if size >= _SPLIT_AT else None
    if split is None:
        found.adopt(runs)
        return None
    key, starts = split
    return _Halves(key, runs, starts, checked)


def _write_halves(
    sink: IO[bytes],
    plain: IO[bytes] | None,
    halves: _Halves,
    pool: _Pool | None,
    advance: Callable[[], None] | None = None,
    found: Found | None = None,
) -> int:
    """Writes the lower part of the links' runs merged here while the first worker merges
    the upper; their count. Where ``plain`` is a plain file the worker writes its part into
    it in place, after room for the lower part (:mod:`ldids.dumps.placed`); else into a
    file of its own, appended after the lower part (in the kernel where ``plain``, as
    :func:`_append_part`). ``advance`` is called every batch (the write behind of
    :mod:`ldids.dumps.run`). Where ``found`` (and the worker was asked to check its part),
    each batch of the lower part is checked here and what the checks find in either part
    is handed to it, the lower part's first, each with the lines of links before it."""
    from ldids.dumps import sorting

    assert pool is not None, "halves come from a pool"
    assert sorting._compiled is not None, "halves come from a pool that merges"
    if found is not None:
        from ldids.dumps.validation import check_output
    # The lower part is at most the bytes of the runs below the key (each line once).
    room, start = sum(halves.starts), 0
    into = placeable(plain)
    if plain is not None and into is not None:
        start = plain.tell()
        pool.merge_upper(halves.runs, halves.starts, checked=halves.checked, into=(plain, start + room))
    else:
        pool.merge_upper(halves.runs, halves.starts, checked=halves.checked)
    count = 0
    for data, lines in sorting._compiled.MergedRuns([run.fileno() for run in halves.runs], stop=halves.key):
        sink.write(data)
        if found is not None:
            found(check_output(data), count)
        if advance is not None:
            advance()
        count += lines
    upper = pool.merged_upper()
    try:
        if found is not None:
            assert upper.found is not None, "the worker was asked to check its half"
            found((upper.checked, [], None), count)
            for before, rows, digests in read_found(upper.found):
                found((0, rows, digests), count + before)
        if upper.file is not None:
            _append_part(_Part(upper.file, 0), sink, plain, advance)
        else:
            assert plain is not None, "merged in place into the output"
            assert into is not None, "merged in place into the output"
            plain.flush()
            end = close_gaps(into, start, [(room, plain.tell() - start), (upper.size, upper.size)])
            plain.seek(end)
            if advance is not None:
                advance()
    finally:
        upper.close()
    return count + upper.lines


# The most a sendfile of _append_part sends at once where it is told of its progress.
_SEND_STEP = 8 << 20


def _append_part(
    part: _Part, out: IO[bytes], plain: IO[bytes] | None, advance: Callable[[], None] | None = None
) -> None:
    """Append a result's output held in a file to the output: in the kernel (sendfile) if
    the output is a plain file or a pipe (``plain``), else through a buffer. The coordinator
    of a run on every core does this for the whole output, while its workers want all the
    CPU there is. ``advance`` is called every few MiB sent (the write behind)."""
    written = part.file
    sent = part.start
    if plain is not None:
        try:
            plain.flush()
            size = os.fstat(written.fileno()).st_size
            step = size if advance is None else _SEND_STEP
            while sent < size:
                count = os.sendfile(plain.fileno(), written.fileno(), sent, min(step, size - sent))
                if count == 0:
                    raise OSError(f"sendfile stopped at byte {sent} of {size}")
                sent += count
                if advance is not None:
                    advance()
            return
        except (OSError, io.UnsupportedOperation):
            # What was not sent goes through the buffer (what was would be written twice):
            # where sendfile cannot write, and to report an error writing the output by name.
            pass
    written.seek(sent)
    shutil.copyfileobj(written, out, 1 << 20)
