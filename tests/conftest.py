"""Shared fixtures: a real ldids HTTP server and a real Oxigraph server on 127.0.0.1, both
stopped after the tests; the streamed checks on their compiled path against the reference;
and the one setting for the corpora other projects wrote.

Tests marked ``shared`` read ``../shared`` beside the repository (or wherever
``LDIDS_SHARED`` says): without it they skip, saying why, so that a fresh clone passes on
its own; with ``LDIDS_REQUIRE_SHARED=1`` (as .ci/run sets) a missing corpus fails them."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LDIDS_SHARED") or ROOT.parent / "shared")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "shared: reads the corpora in ../shared (the LDIDS_SHARED setting)")
    # The cache of derived plans (ldids.shacl.plan_cache) of the tests' own, not the user's;
    # the processes they start read it too.
    os.environ["LDIDS_CACHE_DIR"] = _CACHE
    os.environ.pop("LDIDS_NO_CACHE", None)
    # `python -m ldids` and `python -c ...` started from the repository run the ldids that is
    # installed, as a user's do, not the source tree in the folder they start in: in a fresh
    # clone that has no compiled extension (pip builds it into site-packages), so CI's
    # commands took the pure-Python path (LDIDS_PURE_PYTHON chooses that one where a test means it).
    os.environ["PYTHONSAFEPATH"] = "1"


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)


_CACHE = tempfile.mkdtemp(prefix="ldids-cache-")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("shared") is not None and not (SHARED / "realdata").is_dir():
        message = f"needs the shared corpora at {SHARED} (set LDIDS_SHARED to their folder)"
        if os.environ.get("LDIDS_REQUIRE_SHARED"):
            pytest.fail(f"{message}; LDIDS_REQUIRE_SHARED is set")
        pytest.skip(message)


def load_benchmark(name: str) -> ModuleType:
    """The module ``benchmarks/<name>.py`` (a script, not part of the package), imported with
    its folder on ``sys.path`` for as long as the import takes: it and the modules it imports
    from beside it (``fuzz_common``) load as they do when it runs as a script."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


@pytest.fixture(scope="session")
def benchmark_module() -> Callable[[str], ModuleType]:
    """:func:`load_benchmark`: a module of benchmarks/ (a fuzzer's generator and law), by name."""
    return load_benchmark


@contextlib.contextmanager
def before_a_guard_page(data: bytes) -> Iterator[memoryview]:
    """``data`` as the last bytes before a page no process may read (Linux): a compiled reader
    that reads one byte past the end of what it is given faults, where past the end of a
    ``bytes`` it would read the NUL every bytes object ends with, unseen."""
    import ctypes
    import mmap

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    page = mmap.PAGESIZE
    pages = len(data) // page + 1
    region = mmap.mmap(-1, (pages + 1) * page)
    first = ctypes.c_char.from_buffer(region)
    guard = ctypes.addressof(first) + pages * page
    del first  # no export of the region left: it can be closed
    assert libc.mprotect(guard, page, 0) == 0  # PROT_NONE
    start = pages * page - len(data)
    region[start : pages * page] = data
    view = memoryview(region)[start : pages * page]
    try:
        yield view
    finally:
        view.release()
        region.close()


@pytest.fixture(scope="session")
def guard_page() -> Callable[[bytes], contextlib.AbstractContextManager[memoryview]]:
    """:func:`before_a_guard_page`: bytes that end where a page no one may read starts."""
    return before_a_guard_page


OXIGRAPH = shutil.which("oxigraph", path=str(Path(sys.executable).parent)) or shutil.which("oxigraph")
#: The example export plus a named graph: what the live-store tests load into Oxigraph.
DATA = (
    (ROOT / "examples" / "fedora-export.ttl").read_bytes()
    + b"""
<oai:arXiv.org:g1> { <info:fedora/demo%3a7> <http://x/p> "hdl:1765/7" . }
"""
)


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The base URL of a running ``ldids serve`` (uvicorn in a thread, on a free port)."""
    import uvicorn

    from ldids.service.app import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    running = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running.started, "the server did not start"
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextlib.contextmanager
def ldids_serve(*options: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``ldids serve OPTIONS`` (the installed console script, under uvicorn) on a free port of
    127.0.0.1: its base URL and process, once it answers /health; stopped afterwards (if the
    test has not stopped it itself)."""
    script = shutil.which("ldids", path=str(Path(sys.executable).parent))
    assert script is not None, "the ldids console script is part of the install"
    port = free_port()
    # A file, not a pipe: a pipe nobody reads could fill and stop the server; closed below.
    errors = tempfile.TemporaryFile()  # noqa: SIM115
    process = subprocess.Popen([script, "serve", "--port", str(port), *options], stderr=errors)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/health", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None:
                    errors.seek(0)
                    raise AssertionError(errors.read().decode(errors="replace")) from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield base, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        errors.close()


@contextlib.contextmanager
def running_oxigraph(location: Path, data: bytes, media_type: str, *options: str) -> Iterator[str]:
    """An ``oxigraph serve`` on a free port of 127.0.0.1, holding ``data`` (loaded
    leniently, as a store takes a stranger's dump), with the server's ``options``; its base
    URL; stopped afterwards."""
    assert OXIGRAPH is not None, "the oxigraph server is part of the test install (pip package oxigraph)"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [OXIGRAPH, "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/query?query=ASK%7B%7D", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        load = urllib.request.Request(
            f"{base}/store?lenient", data=data, headers={"Content-Type": media_type}, method="POST"
        )
        urllib.request.urlopen(load, timeout=30).read()
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def oxigraph(tmp_path: Path) -> Iterator[str]:
    with running_oxigraph(tmp_path / "store", DATA, "application/trig") as base:
        yield base


@pytest.fixture(scope="session")
def oxigraph_server() -> Callable[..., contextlib.AbstractContextManager[str]]:
    """:func:`running_oxigraph`, for tests that start one where they need it."""
    return running_oxigraph


@pytest.fixture
def live_store_data() -> bytes:
    """What the oxigraph fixture loads: the example export plus a named graph."""
    return DATA


@pytest.fixture(scope="session")
def serve_ldids() -> Callable[..., contextlib.AbstractContextManager[tuple[str, subprocess.Popen[bytes]]]]:
    """:func:`ldids_serve`, for tests that start a server process of their own."""
    return ldids_serve


#: Each result (without its line) with the first line that gives it.
FirstLines = dict[tuple[object, ...], int]


@pytest.fixture
def selections(monkeypatch: pytest.MonkeyPatch) -> Callable[..., tuple[Any, FirstLines, FirstLines]]:
    """``check_statements`` over blocks on the compiled path and on the pure-Python reference
    (``LDIDS_PURE_PYTHON=1``), each with a plan of its own (of the shipped shapes, or of the
    shapes graph given), the blocks' statement counts
    asserted equal: the compiled plan, and each path's results with their first lines (a
    plan passes over the keys it saw, so a result may come again on one path, not the other)."""
    from ldids.dumps import validation
    from ldids.resources import shapes_graph
    from ldids.shacl.streamed import plan

    def first_lines(rows: list[tuple[object, ...]]) -> FirstLines:
        first: FirstLines = {}
        for line, *result in rows:
            key = tuple(result)
            first[key] = min(first.get(key, line), line)  # type: ignore[call-overload]
        return first

    def run(blocks: Iterable[bytes], shapes: Any = None) -> tuple[Any, FirstLines, FirstLines]:
        shapes = shapes_graph() if shapes is None else shapes  # one graph: a property shape is a blank node of it
        compiled, reference = plan(shapes), plan(shapes)
        rows: list[tuple[object, ...]] = []
        expected: list[tuple[object, ...]] = []
        first = 1
        for block in blocks:
            count, found = validation.check_statements(compiled, block, first)
            rows += found
            with monkeypatch.context() as patch:
                patch.setenv("LDIDS_PURE_PYTHON", "1")
                every, found = validation.check_statements(reference, block, first)
                expected += found
            assert count == every
            first += block.count(b"\n")
        return compiled, first_lines(rows), first_lines(expected)

    return run
