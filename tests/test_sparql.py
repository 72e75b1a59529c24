"""Normalizing a live store: against a real Oxigraph server, started and stopped here."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ldids import passes, rdfio
from ldids.config import Config
from ldids.ntriples import Quad
from ldids.sparql import _Endpoint, normalize_store

ROOT = Path(__file__).resolve().parents[1]
OXIGRAPH = shutil.which("oxigraph", path=str(Path(sys.executable).parent)) or shutil.which("oxigraph")
DATA = (
    (ROOT / "examples" / "fedora-export.ttl").read_bytes()
    + b"""
<oai:arXiv.org:g1> { <info:fedora/demo%3a7> <http://x/p> "hdl:1765/7" . }
"""
)


@pytest.fixture
def oxigraph(tmp_path: Path) -> Iterator[str]:
    assert OXIGRAPH is not None, "the oxigraph server is part of the test install (pip package oxigraph)"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [OXIGRAPH, "serve", "--location", str(tmp_path / "store"), "--bind", f"127.0.0.1:{port}"],
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
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        load = urllib.request.Request(
            f"{base}/store", data=DATA, headers={"Content-Type": "application/trig"}, method="POST"
        )
        urllib.request.urlopen(load, timeout=30).read()
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def everything(base: str) -> set[Quad]:
    endpoint = _Endpoint(f"{base}/query", f"{base}/update", 30)
    rows = endpoint.select("SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }")
    return {(row["s"], row["p"], row["o"], row.get("g")) for row in rows}


def expected() -> set[Quad]:
    result = passes.normalize(rdfio.read_bytes(DATA, "trig").quads, Config())
    return set(result.quads + result.links)


def test_the_store_ends_as_the_passes_say(oxigraph: str) -> None:
    summary = normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config(), batch=3)
    assert summary.updates >= 2
    assert everything(oxigraph) == expected()
    again = normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config())
    assert (again.terms_rewritten, again.updates) == (0, 0)


def test_an_interrupted_run_loses_nothing_and_a_rerun_finishes(oxigraph: str) -> None:
    original = everything(oxigraph)
    normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config(), batch=1, max_batches=2)
    partial = everything(oxigraph)
    # Every original statement is there, as it was or rewritten.
    cache = passes.TermCache(Config())
    for quad in original:
        assert quad in partial or passes.rewrite_quad(quad, cache).after in partial
    normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config(), batch=1)
    assert everything(oxigraph) == expected()


def test_cli_sparql(oxigraph: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ldids",
            "normalize",
            "--sparql",
            f"{oxigraph}/query",
            "--sparql-update",
            f"{oxigraph}/update",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"updates": 1' in done.stderr
    assert everything(oxigraph) == expected()


def test_unreachable_endpoint_is_an_input_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", "--sparql", f"http://127.0.0.1:{port}/query"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "cannot reach the SPARQL endpoint" in done.stderr
