"""Load the HTTP service from another process: many concurrent clients, for a bounded time.

Starts ``ldids serve`` (with a fresh store, recording every normalization) on a free port
of 127.0.0.1, then runs ``--clients`` threads for
``--seconds`` (default 32 clients, 60 s), each looping over a mix of requests: inspect one
identifier (GET), inspect a batch of 20 (POST), normalize a small Turtle document (POST).
Reports requests/s, latency percentiles, errors (must be 0) and the server's peak memory
(RSS, sampled from /proc), then stops the server. Only loopback traffic, bounded in time.

    python benchmarks/load.py [--clients N] [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
IDENTIFIERS = [
    "demo%3a1", "info:fedora/demo:1/DS1", "oai:arXiv.org:hep-th/9901001", "https://purl.org/poi/a.b/c",
    "hdl:100.102/f58fb49eb1f848f0a606e84cef294be5", "http://hdl.handle.net/1765/315", "oai:wibble.org:ab%3ccd",
]  # fmt: skip


def rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    except (FileNotFoundError, StopIteration):
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
    store = tempfile.mkdtemp(prefix="ldids-load-store-")
    command = [script, "serve", "--port", str(port), "--store", store]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx2.get(base + "/inspect", params={"id": "demo:1"}, timeout=1)
                break
            except httpx2.HTTPError:
                time.sleep(0.1)
        turtle = (ROOT / "examples" / "fedora-export.ttl").read_bytes()
        latencies: dict[str, list[float]] = {"GET /inspect": [], "POST /inspect": [], "POST /normalize": []}
        errors: list[str] = []
        lock = threading.Lock()
        stop = time.monotonic() + args.seconds

        def client(seed: int) -> None:
            rng = random.Random(seed)
            with httpx2.Client(base_url=base, timeout=30) as http:
                while time.monotonic() < stop:
                    roll = rng.random()
                    started = time.perf_counter()
                    try:
                        if roll < 0.5:
                            kind, answer = "GET /inspect", http.get("/inspect", params={"id": rng.choice(IDENTIFIERS)})
                        elif roll < 0.8:
                            batch = [rng.choice(IDENTIFIERS) for _ in range(20)]
                            kind, answer = "POST /inspect", http.post("/inspect", json=batch)
                        else:
                            headers = {"Content-Type": "text/turtle", "Accept": "application/n-triples"}
                            kind, answer = "POST /normalize", http.post("/normalize", content=turtle, headers=headers)
                        ok = answer.status_code == 200
                    except httpx2.HTTPError as error:
                        kind, ok = "error", False
                        with lock:
                            errors.append(repr(error))
                    elapsed = time.perf_counter() - started
                    with lock:
                        if ok:
                            latencies[kind].append(elapsed)
                        elif kind != "error":
                            errors.append(f"{kind}: HTTP {answer.status_code}")

        threads = [threading.Thread(target=client, args=(seed,)) for seed in range(args.clients)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        peak = 0
        while any(thread.is_alive() for thread in threads):
            peak = max(peak, rss_kib(server.pid))
            time.sleep(0.2)
        wall = time.monotonic() - began
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(store, ignore_errors=True)
    total = sum(len(values) for values in latencies.values())
    print(
        f"{args.clients} clients, {wall:.1f} s, {total} requests, {total / wall:,.0f} requests/s, errors: {len(errors)}"
    )
    everything = sorted(value for values in latencies.values() for value in values)
    for label, values in [("all", everything), *latencies.items()]:
        if values:
            ordered = sorted(values)
            p50, p90, p99 = (ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 for q in (0.5, 0.9, 0.99))
            mean = statistics.fmean(ordered) * 1000
            times = f"p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  p99 {p99:7.1f} ms  mean {mean:7.1f} ms"
            print(f"  {label:16} n={len(values):>7}  {times}")
    print(f"server peak RSS: {peak / 1024:.0f} MiB")
    for error in errors[:5]:
        print(f"  error: {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
