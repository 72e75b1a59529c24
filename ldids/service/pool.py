"""The worker pool: where the service's CPU work runs, off the event loop (DESIGN §7).

Parsing, normalizing and validating hold the GIL, so threads would take turns with the event
loop: the work runs in worker processes instead, each doing one job at a time, so a large
/validate keeps no /health or /inspect waiting. The pool is bounded twice: ``workers``
processes, and ``queue`` requests waiting for one; a request beyond both is answered at once
with 503 and ``Retry-After`` (RFC 9110 §15.6.4, §10.2.3) instead of piling up.

A job is bounded in time (``seconds``: past it the worker is killed and replaced) and in
memory (``memory`` bytes of address space, ``RLIMIT_AS``, set in the worker: past it the job
fails, or the worker dies, and is replaced). Both answer 413: the content is more than the
service is configured to process (RFC 9110 §15.5.14), which the client can act on by
sending less; they are not faults of the server.

Workers are started with ``spawn`` (a fresh interpreter; forking a process that runs an
event loop and threads is unsafe), on first use, and stopped with the application.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from ldids.service.problem import ProblemError

__all__ = ["Limits", "WorkerPool"]

T = TypeVar("T")
_SPAWN = multiprocessing.get_context("spawn")


@dataclass(frozen=True)
class Limits:
    """How much the service takes on: worker processes, requests waiting for one, and each
    job's time (seconds) and memory (bytes of address space; None: unbounded)."""

    workers: int = max(1, min(4, os.cpu_count() or 1))
    queue: int = 16
    seconds: float = 120.0
    memory: int | None = 4 << 30


class _TimeLimitError(Exception):
    pass


class _WorkerDiedError(Exception):
    pass


class _Worker:
    def __init__(self, memory: int | None) -> None:
        self.connection, theirs = _SPAWN.Pipe()
        self.process: BaseProcess = _SPAWN.Process(target=_serve, args=(theirs, memory), daemon=True)
        self.process.start()
        theirs.close()

    def call(self, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
        """Run ``function(*args)`` in this worker; its result, or its exception raised here."""
        try:
            self.connection.send((function, args))
            if not self.connection.poll(seconds):
                raise _TimeLimitError
            outcome, value = self.connection.recv()
        except (EOFError, OSError) as error:
            raise _WorkerDiedError from error
        if outcome == "error":
            raise value
        return value

    def stop(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.connection.close()


def _serve(connection: Connection, memory: int | None) -> None:
    """A worker's loop: run each job sent, send back its result or its exception."""
    if memory is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    import ldids.service.jobs  # noqa: F401  (the jobs' own imports are paid here, not by a request)

    while True:
        try:
            function, args = connection.recv()
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", function(*args))
        except BaseException as error:  # the route decides what it means; the worker goes on
            reply = ("error", error)
        try:
            connection.send(reply)
        except Exception as error:  # a result or an exception that does not pickle
            connection.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))


class WorkerPool:
    """Worker processes running jobs (functions of :mod:`ldids.service.jobs`) for the routes."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._admitted = 0
        self._idle: asyncio.Queue[_Worker] | None = None
        self._workers: list[_Worker] = []
        self._threads = ThreadPoolExecutor(limits.workers, thread_name_prefix="ldids-pool")
        self._lock = threading.Lock()

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker process: 503 if the pool and its queue are full, 413
        past the time or memory limit; the function's own exceptions are raised here."""
        if self._admitted >= self.limits.workers + self.limits.queue:
            raise ProblemError(
                503,
                "ldids.busy",
                "Service busy",
                f"all {self.limits.workers} workers are busy and {self.limits.queue} requests wait; try again later",
                headers={"Retry-After": "1"},
            )
        self._admitted += 1
        try:
            idle = await self._start()
            worker = await idle.get()
            loop = asyncio.get_running_loop()
            # The call goes on in its thread if the request is cancelled (the client left); the
            # thread gives the worker back (or a new one) when it is done, never before.
            future = loop.run_in_executor(self._threads, self._call, loop, idle, worker, function, args)
            return await asyncio.shield(future)
        finally:
            self._admitted -= 1

    def _call(
        self,
        loop: asyncio.AbstractEventLoop,
        idle: asyncio.Queue[_Worker],
        worker: _Worker,
        function: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> Any:
        keep = worker
        try:
            return worker.call(function, args, self.limits.seconds)
        except _TimeLimitError:
            keep = self._replace(worker)
            raise ProblemError(
                413,
                "ldids.time-limit",
                "Takes too long",
                f"the work took more than the limit, {self.limits.seconds:g} s",
            ) from None
        except (_WorkerDiedError, MemoryError):
            keep = self._replace(worker)
            raise ProblemError(
                413,
                "ldids.memory-limit",
                "Takes too much memory",
                f"the work needed more than the limit of {self.limits.memory} bytes",
            ) from None
        finally:
            loop.call_soon_threadsafe(idle.put_nowait, keep)

    def _replace(self, worker: _Worker) -> _Worker:
        worker.stop()
        fresh = _Worker(self.limits.memory)
        with self._lock:
            self._workers = [fresh if w is worker else w for w in self._workers]
        return fresh

    async def _start(self) -> asyncio.Queue[_Worker]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            loop = asyncio.get_running_loop()
            for _ in range(self.limits.workers):
                worker = await loop.run_in_executor(self._threads, _Worker, self.limits.memory)
                with self._lock:
                    self._workers.append(worker)
                self._idle.put_nowait(worker)
        return self._idle

    def close(self) -> None:
        """Stop every worker (when the application stops)."""
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.stop()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._idle = None
