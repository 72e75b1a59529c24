"""A store that lasts: the links a real ``ldids serve`` reported in its answers are in its
store after a restart, and after ``kill -9`` while requests were in flight; and the
server's memory stays flat while the store grows (the store is on disk, not in memory)."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx2
import pyoxigraph
import pytest

Serve = Callable[..., AbstractContextManager[tuple[str, subprocess.Popen[bytes]]]]
SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
NT = {"Content-Type": "application/n-triples", "Accept": "application/n-triples"}
# Turtle out of Turtle takes the graph path, which also records the forms as written.
TURTLE = {"Content-Type": "text/turtle", "Accept": "text/turtle"}


def batch(start: int, count: int) -> bytes:
    """``count`` statements, each about a distinct Fedora PID written with an escaped colon:
    every one is rewritten and gives one owl:sameAs link (canonical to as written)."""
    return "".join(f'<info:fedora/t%3a{i}> <http://x/p> "v" .\n' for i in range(start, start + count)).encode()


def reported(answer: httpx2.Response) -> set[tuple[str, str]]:
    """The owl:sameAs links in an answer of /normalize (N-Triples or Turtle)."""
    assert answer.status_code == 200, answer.text
    media = pyoxigraph.RdfFormat.from_media_type(answer.headers["content-type"].split(";")[0])
    assert media is not None
    return {
        (triple.subject.value, triple.object.value)
        for triple in pyoxigraph.parse(answer.content, media)
        if triple.predicate.value == SAME_AS
    }


def missing(base: str, links: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The links that /known of a running server does not know."""
    lost = []
    with httpx2.Client(base_url=base, timeout=30) as http:
        for canonical, written in sorted(links):
            answer = http.get("/known", params={"id": canonical})
            assert answer.status_code == 200, answer.text
            if written not in answer.json()["same_as"]:
                lost.append((canonical, written))
    return lost


def test_links_survive_a_restart(tmp_path: Path, serve_ldids: Serve) -> None:
    store = str(tmp_path / "store")
    links: set[tuple[str, str]] = set()
    with serve_ldids("--store", store, "--workers", "1") as (base, process), httpx2.Client(timeout=60) as http:
        links |= reported(http.post(f"{base}/normalize", content=batch(0, 300), headers=NT))
        links |= reported(http.post(f"{base}/normalize", content=batch(300, 300), headers=TURTLE))
        process.terminate()  # a clean stop (uvicorn ends with the signal's exit status)
        process.wait(timeout=30)
    assert len(links) == 600
    with serve_ldids("--store", store, "--workers", "1") as (base, _):
        assert missing(base, links) == []
        # The graph path also kept each rewrite's form as written.
        answer = httpx2.get(f"{base}/known", params={"id": "info:fedora/t:450"}, timeout=30)
        assert answer.json()["written_as"] == ["info:fedora/t%3a450"]


def _load_until_killed(base: str, process: subprocess.Popen[bytes], start: int, answers: int) -> set[tuple[str, str]]:
    """Clients post batches at the server until ``answers`` responses have come back, then
    the server is killed with SIGKILL while the others are still in flight; the links of
    every complete response (those are the ones the service promised to keep)."""
    links: set[tuple[str, str]] = set()
    lock = threading.Lock()
    enough = threading.Event()
    counter = iter(range(start, start + 10_000_000, 50))

    def client(headers: dict[str, str]) -> None:
        with httpx2.Client(base_url=base, timeout=60) as http:
            while not enough.is_set():
                with lock:
                    first = next(counter)
                try:
                    answer = http.post("/normalize", content=batch(first, 50), headers=headers)
                    found = reported(answer)
                except (httpx2.HTTPError, SyntaxError):  # cut off by the kill: promised nothing
                    return
                with lock:
                    links.update(found)
                    done = len(links) // 50
                if done >= answers:
                    enough.set()

    threads = [threading.Thread(target=client, args=(headers,)) for headers in (NT, NT, TURTLE, TURTLE)]
    for thread in threads:
        thread.start()
    assert enough.wait(timeout=300), "the server answered too few requests"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    for thread in threads:
        thread.join(timeout=60)
    with lock:
        return set(links)


def test_links_survive_kill_9(tmp_path: Path, serve_ldids: Serve) -> None:
    """Twice, so that a store recovered after a kill is itself recovered after the next."""
    store = str(tmp_path / "store")
    links: set[tuple[str, str]] = set()
    for round_ in range(2):
        with serve_ldids("--store", store, "--workers", "2") as (base, process):
            links |= _load_until_killed(base, process, round_ * 1_000_000, answers=20)
            assert process.returncode == -signal.SIGKILL
    assert len(links) >= 2 * 20 * 50
    # The store opens cleanly after the kill (no lock left behind, nothing to repair by
    # hand) and knows every link it had reported.
    with serve_ldids("--store", store, "--workers", "1") as (base, _):
        assert missing(base, links) == []


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


@pytest.fixture
def recording(tmp_path: Path, serve_ldids: Serve) -> Iterator[tuple[httpx2.Client, int]]:
    with (
        serve_ldids("--store", str(tmp_path / "store"), "--workers", "1") as (base, process),
        httpx2.Client(base_url=base, timeout=120) as http,
    ):
        yield http, process.pid


def test_memory_stays_flat_as_the_store_grows(recording: tuple[httpx2.Client, int]) -> None:
    """The server process holds the store; its workers hold none. Kept in memory, 200,000
    links took about 190 MiB more than 1,000 did (about 1 KiB a link, in the store's write
    buffers); on disk, the growth is bounded by those buffers whatever the store holds."""
    http, pid = recording
    size = 20_000
    # The first requests pay for what stays: imports, the worker, the allocator's arenas.
    for start in range(0, 2 * size, size):
        assert len(reported(http.post("/normalize", content=batch(start, size), headers=NT))) == size
    settled = rss_mib(pid)
    peak = settled
    for start in range(2 * size, 10 * size, size):
        assert len(reported(http.post("/normalize", content=batch(start, size), headers=NT))) == size
        peak = max(peak, rss_mib(pid))
    known = http.get("/known", params={"id": f"info:fedora/t:{10 * size - 1}"}).json()
    assert known["same_as"] == [f"info:fedora/t%3a{10 * size - 1}"]
    # 160,000 more links: kept in memory they would take about 160 MiB.
    assert peak - settled < 48, f"{settled:.0f} MiB after 40,000 links, {peak:.0f} MiB at most after 200,000"
