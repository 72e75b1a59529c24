"""Load the HTTP service from another process: a mixed load at the concurrency its pool allows.

Starts ``ldids serve`` (with a fresh store, recording every normalization) on a free port
of 127.0.0.1, then runs clients for ``--seconds`` (default 60), each looping over a mix:
inspect one identifier (GET), inspect a batch of 20 (POST), normalize Turtle and N-Triples
(POST), validate (POST) and ask the store for an identifier's links (GET /known). By
default there are as many clients as the pool takes (workers plus queue): more would be
answered 503 by design. Every answer is compared with what is expected of it (normalize:
the bytes ``ldids normalize`` writes for the same file; validate: the verdict of a request
made before the load; inspect: the library's own answer; /known: the links the
normalizations recorded), so a lost triple counts as an error, as does any 5xx.
Reports requests/s, p50/p99 latency per endpoint, the server's peak memory (RSS of the
process and its workers, sampled from /proc), then stops the server. Loopback only.

    python benchmarks/load.py [--seconds S] [--workers N] [--queue N] [--clients N]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
IDENTIFIERS = [
    "demo%3a1", "info:fedora/demo:1/DS1", "oai:arXiv.org:hep-th/9901001", "https://purl.org/poi/a.b/c",
    "hdl:100.102/f58fb49eb1f848f0a606e84cef294be5", "http://hdl.handle.net/1765/315", "oai:wibble.org:ab%3ccd",
]  # fmt: skip
#: 2,000 statements, each about a PID written with an escaped colon: one rewrite and one link each.
NTRIPLES = "".join(f'<info:fedora/load%3a{i}> <http://x/p> "v" .\n' for i in range(2000)).encode()
#: The share of each request in the mix (the rest of the roll is GET /inspect).
MIX = [("POST /normalize ttl", 0.10), ("POST /normalize nt", 0.05), ("POST /validate", 0.05),
       ("POST /inspect", 0.20), ("GET /known", 0.15)]  # fmt: skip


def rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    except (FileNotFoundError, StopIteration):
        return 0


def tree_rss_kib(pid: int) -> int:
    """The RSS of a process and all its descendants (the server and its worker processes)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        total += rss_kib(current)
        try:
            with open(f"/proc/{current}/task/{current}/children") as children:
                pending += [int(child) for child in children.read().split()]
        except FileNotFoundError:
            pass
    return total


def expected_normalize(script: str, data: bytes, fmt: str) -> bytes:
    """What ``ldids normalize`` writes for ``data`` as N-Triples (the service must match it)."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / f"in.{fmt}"
        source.write_bytes(data)
        command = [script, "normalize", "-q", "-i", fmt, "-t", "nt", "-o", f"{folder}/out.nt", str(source)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return (Path(folder) / "out.nt").read_bytes()


def links_of(ntriples: bytes) -> list[tuple[str, str]]:
    marker = " <http://www.w3.org/2002/07/owl#sameAs> "
    return [
        (line.split(marker)[0][1:-1], line.split(marker)[1][1:-3])
        for line in ntriples.decode().splitlines()
        if marker in line
    ]


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> int:
    from ldids.passes.config import Config

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=None, help="the server's (default: its own default)")
    parser.add_argument("--queue", type=int, default=16, help="the server's queue (default 16)")
    parser.add_argument("--clients", type=int, default=None, help="default: workers plus queue, what the pool takes")
    args = parser.parse_args()
    from ldids.service.pool import Limits

    workers = args.workers or Limits().workers
    clients = args.clients or workers + args.queue
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
    turtle = (ROOT / "examples" / "fedora-export.ttl").read_bytes()
    expected = {
        "POST /normalize ttl": expected_normalize(script, turtle, "ttl"),
        "POST /normalize nt": expected_normalize(script, NTRIPLES, "nt"),
    }
    links = links_of(expected["POST /normalize ttl"]) + links_of(expected["POST /normalize nt"])[:50]
    registry = Config().registry
    inspected = {text: registry.inspect(text).to_json() for text in IDENTIFIERS}
    store = tempfile.mkdtemp(prefix="ldids-load-store-")
    command = [script, "serve", "--port", str(port), "--store", store, "--workers", str(workers)]
    server = subprocess.Popen(
        [*command, "--queue", str(args.queue)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    latencies: dict[str, list[float]] = {kind: [] for kind in ["GET /inspect", *(kind for kind, _ in MIX)]}
    errors: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx2.get(base + "/health", timeout=1)
                break
            except httpx2.HTTPError:
                time.sleep(0.1)
        with httpx2.Client(base_url=base, timeout=60) as http:
            # Before the load: the links /known must answer with, and the verdict to compare.
            for kind, body, media in [("POST /normalize ttl", turtle, "text/turtle"),
                                      ("POST /normalize nt", NTRIPLES, "application/n-triples")]:  # fmt: skip
                headers = {"Content-Type": media, "Accept": "application/n-triples"}
                assert http.post("/normalize", content=body, headers=headers).content == expected[kind], kind
            verdict = http.post("/validate", content=turtle, headers={"Content-Type": "text/turtle"}).json()
        lock = threading.Lock()
        stop = time.monotonic() + args.seconds

        def check(kind: str, answer: httpx2.Response, detail: object) -> str | None:
            """Why ``answer`` is not what ``kind`` should give, or None."""
            if answer.status_code != 200:
                return f"HTTP {answer.status_code}"
            if kind.startswith("POST /normalize"):
                return None if answer.content == expected[kind] else "output differs from ldids normalize"
            if kind == "POST /validate":
                return None if answer.json() == verdict else "verdict differs"
            if kind == "GET /known":
                assert isinstance(detail, tuple)
                return None if detail[1] in answer.json()["same_as"] else f"link lost: {detail}"
            wanted = [inspected[text] for text in detail] if isinstance(detail, list) else inspected[str(detail)]
            return None if answer.json() == wanted else "inspect differs"

        def request(http: httpx2.Client, rng: random.Random) -> tuple[str, Callable[[], httpx2.Response], object]:
            roll, kind = rng.random(), "GET /inspect"
            for name, share in MIX:
                if roll < share:
                    kind = name
                    break
                roll -= share
            nt = {"Accept": "application/n-triples"}
            if kind == "POST /normalize ttl":
                return (
                    kind,
                    lambda: http.post("/normalize", content=turtle, headers={"Content-Type": "text/turtle", **nt}),
                    None,
                )
            if kind == "POST /normalize nt":
                media = {"Content-Type": "application/n-triples", **nt}
                return kind, lambda: http.post("/normalize", content=NTRIPLES, headers=media), None
            if kind == "POST /validate":
                return (
                    kind,
                    lambda: http.post("/validate", content=turtle, headers={"Content-Type": "text/turtle"}),
                    None,
                )
            if kind == "GET /known":
                link = rng.choice(links)
                return kind, lambda: http.get("/known", params={"id": link[0]}), link
            if kind == "POST /inspect":
                batch = [rng.choice(IDENTIFIERS) for _ in range(20)]
                return kind, lambda: http.post("/inspect", content=json.dumps(batch)), batch
            one = rng.choice(IDENTIFIERS)
            return kind, lambda: http.get("/inspect", params={"id": one}), one

        def client(seed: int) -> None:
            rng = random.Random(seed)
            with httpx2.Client(base_url=base, timeout=60) as http:
                while time.monotonic() < stop:
                    kind, send, detail = request(http, rng)
                    started = time.perf_counter()
                    try:
                        answer = send()
                        elapsed = time.perf_counter() - started
                        problem = check(kind, answer, detail)
                    except httpx2.HTTPError as error:
                        elapsed, problem = 0.0, repr(error)
                    with lock:
                        if problem is None:
                            latencies[kind].append(elapsed)
                        else:
                            errors.append(f"{kind}: {problem}")

        threads = [threading.Thread(target=client, args=(seed,)) for seed in range(clients)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        peak = 0
        while any(thread.is_alive() for thread in threads):
            peak = max(peak, tree_rss_kib(server.pid))
            time.sleep(0.2)
        wall = time.monotonic() - began
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(store, ignore_errors=True)
    total = sum(len(values) for values in latencies.values())
    print(
        f"{clients} clients, {workers} workers, queue {args.queue}, {wall:.1f} s, {total} requests answered as expected"
    )
    print(f"{total / wall:,.1f} requests/s; errors (5xx, lost or wrong output, transport): {len(errors)}")
    everything = sorted(value for values in latencies.values() for value in values)
    for label, values in [("all", everything), *latencies.items()]:
        if values:
            ordered = sorted(values)
            p50, p99 = percentile(ordered, 0.5), percentile(ordered, 0.99)
            print(f"  {label:20} n={len(values):>7}  {len(values) / wall:7.1f}/s  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
    print(f"server peak RSS (process and workers): {peak / 1024:.0f} MiB")
    inspect_p99 = percentile(sorted(latencies["GET /inspect"]), 0.99) if latencies["GET /inspect"] else float("inf")
    print(
        f"p99 of GET /inspect under load: {inspect_p99:.1f} ms ({'under' if inspect_p99 < 100 else 'NOT under'} 100 ms)"
    )
    for error in errors[:5]:
        print(f"  error: {error}")
    return 1 if errors or inspect_p99 >= 100 else 0


if __name__ == "__main__":
    sys.exit(main())
