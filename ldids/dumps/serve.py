"""What a worker process of a run on every core does (and any process with one chunk).

A chunk is a byte range of a plain file or a block read already (:class:`_Chunk`); the
process that takes it reads it and writes its output into buffers of its own thread
(:func:`_run_chunk`). A worker process (:func:`_serve`) takes chunks from its pipe and hands
each result back to the coordinator (:class:`ldids.dumps.pool._Pool`) in memory they share
(one of ``SLOTS`` slots, used in turn), or in a file sent over the pipe as an open
descriptor (:func:`_send_file`); it keeps the links of its chunks, in sorted runs it spills
itself, and hands the runs over at the end.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import socket
import threading
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from ldids.dumps.placed import PlacedWriter
from ldids.dumps.signals import let_through
from ldids.dumps.sorting import SortedUnique
from ldids.dumps.stream import BlockResult, BytesLike, Settings, process_block, process_block_in
from ldids.errors import PieceError
from ldids.rdf.files import scratch_file

if TYPE_CHECKING:
    import mmap
    from collections.abc import Iterator
    from multiprocessing.connection import Connection

    from ldids.dumps.pieces import Frame

DEPTH = 2  # chunks queued per worker at most
SLOTS = 2 * DEPTH  # results of a worker's handed over and not yet taken, at most


@dataclass(frozen=True)
class _Chunk:
    """What one task works on: the lines that start in bytes [start, stop) of a plain file,
    or (``data`` not None) the lines themselves, or (``frame`` not None) the statements of
    the piece in bytes [start, stop) of a Turtle, TriG or RDF/XML file, starting and ending
    in the graph blocks ``blocks`` names (:mod:`ldids.dumps.pieces`).
    ``handed``: the file is sent after the task, as a descriptor (:func:`_send_file`); the
    worker reads it as /proc/self/fd/N."""

    path: str
    start: int = 0
    stop: int = 0
    data: bytes | None = None
    handed: bool = False
    frame: Frame | None = None
    blocks: tuple[bytes | None, bytes | None] = (None, None)  # a piece's: the graph blocks it starts and ends in


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


def _run_chunk(
    chunk: _Chunk, settings: Settings, slot: memoryview | None = None
) -> tuple[BlockResult, memoryview | None]:
    """One chunk's lines through process_block (numbered from 1), the output in a buffer
    of this thread's (see :func:`_written`), or written at the start of ``slot`` where it
    fits there (:func:`ldids.dumps.stream.process_block_in`): then the view of it comes
    too, and :func:`_hand_over` copies no output."""
    with contextlib.ExitStack() as stack:
        data: BytesLike
        if chunk.frame is not None:
            from ldids.dumps.pieces import piece_statements

            data = piece_statements(chunk.path, chunk.start, chunk.stop, chunk.frame, *chunk.blocks)
        elif chunk.data is not None:
            data = chunk.data
        else:
            data = stack.enter_context(_read_range(chunk.path, chunk.start, chunk.stop, _BUFFERS.chunk))
        if slot is None:
            return process_block(data, 1, settings, into=_output_buffer()), None
        return process_block_in(data, 1, settings, slot)


def _send_file(connection: Connection, file: IO[bytes]) -> None:
    """Sends an open file to the process at the other end of ``connection`` (SCM_RIGHTS):
    after a message, which tells the other end to take it (:func:`_receive_file`)."""
    channel = socket.socket(fileno=connection.fileno())  # the pipe's own descriptor, no copy of it
    try:
        socket.send_fds(channel, [b"F"], [file.fileno()])
    finally:
        channel.detach()


def _receive_file(connection: Connection) -> int:
    """A descriptor on the file sent after the message just received (:func:`_send_file`)."""
    channel = socket.socket(fileno=connection.fileno())
    try:
        _, descriptors, _, _ = socket.recv_fds(channel, 1, 1)
    finally:
        channel.detach()
    if len(descriptors) != 1:
        raise EOFError("the other end is gone")
    return descriptors[0]


def _detached(result: BlockResult) -> tuple[BlockResult, BytesLike]:
    """The result without its output, and the output."""
    output, result.output = result.output, b""
    return result, output


# What a worker sends back for a task: (output length, rest length) when the result is in
# the task's slot; where the output starts when it is in a file (sent after the reply, or
# named by the task); or what went wrong (UNPARSED: a piece of a document did not parse).
_Reply = tuple[int, int] | int
UNPARSED = "unparsed"


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


def _hand_over(
    result: BlockResult, part: str, slot: memoryview | None, placed: memoryview | None = None
) -> tuple[_Reply, BinaryIO | None]:
    """Puts a worker's result where the coordinator takes it (see :class:`_Pool`): the
    reply, and the file to send after it, if any (the caller's to close). ``placed``: the
    output, written at the start of ``slot`` already (:func:`_run_chunk`); released here."""
    result, output = _detached(result)
    if placed is not None:
        output = placed
    result.links.sort()  # here, on this core: the coordinator merges sorted pieces (SortedUnique)
    try:
        if slot is not None and len(output) <= len(slot):
            if placed is None:
                slot[: len(output)] = output
            with slot[len(output) :] as free:
                rest = _SlotWriter(free)
                try:
                    pickle.dump(result, rest, protocol=pickle.HIGHEST_PROTOCOL)
                    return (len(output), rest.length), None
                except _SlotFullError:
                    pass  # in a file, then
        file = open(part, "w+b") if part else scratch_file()  # noqa: SIM115
        try:
            pickle.dump(result, file, protocol=pickle.HIGHEST_PROTOCOL)
            start = file.tell()
            file.write(output)
            file.flush()
        except BaseException:
            file.close()
            raise
        if part:
            file.close()
            return start, None
        return start, file
    finally:
        _written(output)


def _serve(
    connection: Connection,
    settings: Settings,
    ours: tuple[Connection, ...] = (),
    slots: mmap.mmap | None = None,
    keep_links: bool = False,
) -> None:
    """A worker process: chunks from ``connection``, until it closes; each result handed
    over (:func:`_hand_over`), then a line back (where it is, or what went wrong).
    ``ours``: the coordinator's ends of the pipes, copied into this process by the fork,
    closed here. ``slots``: the memory this worker shares with the coordinator.
    ``keep_links``: the links of the results are kept here, and sent as sorted runs when
    the coordinator asks (a task without a chunk; :meth:`_Pool.link_runs`)."""
    _quiet_worker()
    for end in ours:
        end.close()
    size = 0 if slots is None else len(slots) // SLOTS
    number = 0
    reply: _Reply | str
    file: BinaryIO | None
    links = SortedUnique(run_size=_WORKER_RUN) if keep_links else None
    while True:
        try:
            chunk, part = connection.recv()
            handed = _receive_file(connection) if isinstance(chunk, _Chunk) and chunk.handed else None
        except (EOFError, ConnectionError):  # closed, or reset with tasks unread: the run is over
            return
        if chunk is None:
            if not _hand_over_links(connection, links):
                return
            continue
        if isinstance(chunk, _Merge):
            if not _merge_part(connection, chunk):
                return
            continue
        if handed is not None:
            chunk = replace(chunk, path=f"/proc/self/fd/{handed}", handed=False)
        start = number % SLOTS * size
        number += 1
        try:
            with contextlib.ExitStack() as views:
                slot = None
                if slots is not None:
                    whole = views.enter_context(memoryview(slots))
                    slot = views.enter_context(whole[start : start + size])
                result, placed = _run_chunk(chunk, settings, slot)
                if links is not None:
                    links.add_all(result.links)
                    result.links = []
                reply, file = _hand_over(result, part, slot, placed)
        except PieceError:  # the coordinator finds the document's own error
            reply, file = UNPARSED, None
        except Exception as error:  # reported to the coordinator, which stops the run
            reply, file = f"{type(error).__name__}: {error}", None
        finally:
            if handed is not None:
                os.close(handed)
        try:
            connection.send(reply)
            if file is not None:
                _send_file(connection, file)
        except ConnectionError:  # the coordinator stopped the run (an error, a reader that left)
            return
        finally:
            if file is not None:
                file.close()


# The lines of links a worker holds before it spills them as a sorted run: ~8 MB of them,
# on top of what the worker holds anyway, for runs few enough to merge (at 10M triples of
# real cardinality, ~5M links: some 100 runs).
_WORKER_RUN = 50_000


def _hand_over_links(connection: Connection, links: SortedUnique | None) -> bool:
    """Sends the coordinator the links this worker kept, as sorted runs (after a line that
    says how many, or what went wrong); False if the coordinator is gone."""
    runs = []
    try:
        try:
            if links is None:
                raise RuntimeError("this worker keeps no links")
            runs = links.take_runs()
            for run in runs:
                run.flush()
            reply: tuple[str, int] | str = ("runs", len(runs))
        except Exception as error:  # reported to the coordinator, which stops the run
            reply, runs = f"{type(error).__name__}: {error}", []
        connection.send(reply)
        for run in runs:
            _send_file(connection, run)
    except ConnectionError:
        return False
    finally:
        for run in runs:
            run.close()
    return True


@dataclass(frozen=True)
class _Merge:
    """A task at the end of a run: the upper part of the sorted runs of links (sent after
    it, one descriptor each), from ``starts`` on (:func:`ldids.dumps.sorting.split_point`),
    merged into a file, while the coordinator merges and writes the lower part; ``checked``:
    and its lines checked as the run's output is (``normalize --validate``), as they are
    merged, the results kept in a second file. ``at`` not None: merged into the output
    itself (sent after the runs), from that byte on (:mod:`ldids.dumps.placed`)."""

    starts: list[int]
    checked: bool = False
    at: int | None = None


def _merge_part(connection: Connection, task: _Merge) -> bool:
    """Receives the runs (and the output, ``task.at``), merges their part, and sends back a
    line (the number of lines merged, of statements checked where ``task.checked``, and of
    bytes written; or what went wrong), the file merged into unless it is the output, and
    ``task.checked`` the file of what the checks found (:func:`read_found`); False if the
    coordinator is gone."""
    from ldids.dumps import _scan  # a merge is asked for only where it is compiled

    runs: list[int] = []
    files: list[BinaryIO] = []
    output: int | None = None
    try:
        try:
            runs = [_receive_file(connection) for _ in task.starts]
            merged: PlacedWriter | BinaryIO
            if task.at is not None:
                output = _receive_file(connection)
                merged = PlacedWriter(output, task.at)
            else:
                merged = scratch_file()
                files.append(merged)
            found = None
            if task.checked:
                from ldids.dumps.validation import check_output

                found = scratch_file()
                files.append(found)
            count = checked = size = 0
            for data, lines in _scan.MergedRuns(runs, starts=task.starts):
                merged.write(data)
                if found is not None:
                    statements, rows, digests = check_output(data)
                    checked += statements
                    if rows:  # most batches find nothing: only those that do are kept
                        pickle.dump((count, rows, digests), found, pickle.HIGHEST_PROTOCOL)
                count += lines
                size += len(data)
            for file in files:
                file.flush()
                file.seek(0)
            reply: tuple[str, int, int, int] | str = ("merged", count, checked, size)
        except Exception as error:  # reported to the coordinator, which stops the run
            reply = f"{type(error).__name__}: {error}"
            for file in files:
                file.close()
            files = []
        connection.send(reply)
        for file in files:
            _send_file(connection, file)
    except (EOFError, ConnectionError):
        return False
    finally:
        for run in runs:
            os.close(run)
        for file in files:
            file.close()
        if output is not None:
            os.close(output)
    return True


def read_found(file: IO[bytes]) -> Iterator[tuple[int, list[Any], list[int] | None]]:
    """What :func:`_merge_part` found in the batches it checked, one batch at a time: the
    lines merged before the batch, and what :func:`ldids.dumps.validation.check_output`
    found in it (its rows, and their digests)."""
    while True:
        try:
            yield pickle.load(file)
        except EOFError:
            return


def _quiet_worker() -> None:
    """Ctrl-C reaches every process of the group: the coordinator handles it (it stops
    the pool and removes what the run wrote), so a worker ignores it rather than print a
    traceback of its own; a worker that is terminated just ends. The signals held back
    while the worker started are let through now."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    let_through()
