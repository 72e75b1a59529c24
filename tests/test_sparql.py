"""Normalizing a live store: against a real Oxigraph server, started and stopped here."""

from __future__ import annotations

import socket
import subprocess
import sys

import pyoxigraph
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldids.dumps.sparql import _Endpoint, normalize_store
from ldids.ntriples import Quad
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import io as rdfio
from ldids.schemes._chars import is_plain_iri


def everything(base: str) -> set[Quad]:
    endpoint = _Endpoint(f"{base}/query", f"{base}/update", 30)
    rows = endpoint.select("SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }")
    return {(row["s"], row["p"], row["o"], row.get("g")) for row in rows}


def expected(data: bytes) -> set[Quad]:
    result = passes.normalize(rdfio.read_bytes(data, "trig").quads, Config())
    return set(result.quads + result.links)


def test_the_store_ends_as_the_passes_say(oxigraph: str, live_store_data: bytes) -> None:
    summary = normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config(), batch=3)
    assert summary.updates >= 2
    assert everything(oxigraph) == expected(live_store_data)
    again = normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config())
    assert (again.counts.statements_rewritten, again.updates) == (0, 0)


def test_an_interrupted_run_loses_nothing_and_a_rerun_finishes(oxigraph: str, live_store_data: bytes) -> None:
    original = everything(oxigraph)
    normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config(), batch=1, max_batches=2)
    partial = everything(oxigraph)
    # Every original statement is there, as it was or rewritten.
    cache = passes.TermCache(Config())
    for quad in original:
        assert quad in partial or passes.rewrite_quad(quad, cache).after in partial
    normalize_store(f"{oxigraph}/query", f"{oxigraph}/update", Config(), batch=1)
    assert everything(oxigraph) == expected(live_store_data)


def test_cli_sparql(oxigraph: str, live_store_data: bytes) -> None:
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
    assert "; 1 update\n" in done.stderr
    assert everything(oxigraph) == expected(live_store_data)


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


def test_the_service_normalizes_its_configured_store(oxigraph: str, live_store_data: bytes) -> None:
    from fastapi.testclient import TestClient

    from ldids.service.app import create_app

    endpoints = (f"{oxigraph}/query", f"{oxigraph}/update")
    before = everything(oxigraph)
    with TestClient(create_app(sparql=endpoints, token="s3cret")) as client:
        for headers in ({}, {"Authorization": "Bearer s3cre"}, {"Authorization": "Basic s3cret"}):
            refused = client.post("/store/normalize", headers=headers)
            assert (refused.status_code, refused.headers["www-authenticate"]) == (401, 'Bearer realm="ldids"')
        assert everything(oxigraph) == before
        bearer = {"Authorization": "Bearer s3cret"}
        dry = client.post("/store/normalize", params={"dry_run": "true"}, headers=bearer).json()
        assert (dry["dry_run"], dry["run"]["updates"]) == (True, 0)
        assert dry["run"]["changes_left"] >= 1  # what would change
        assert dry["statements"]["rewritten"] >= 1
        assert everything(oxigraph) == before  # and nothing did
        answer = client.post("/store/normalize", headers=bearer)
        assert answer.status_code == 200
        assert answer.json()["run"]["updates"] >= 1
        assert answer.json()["statements"] == dry["statements"]
    assert everything(oxigraph) == expected(live_store_data)
    with TestClient(create_app(sparql=endpoints)) as client:  # no token configured: no writing
        assert client.post("/store/normalize", headers=bearer).status_code == 403
    with TestClient(create_app()) as client:
        assert client.post("/store/normalize").status_code == 404


# -- Which IRIs a SPARQL DATA block may name (the rest are matched by a pattern) -------------

PLAIN = [
    ("info:fedora/demo:1", True),
    ("http://a:80/x?y#z", True),
    ("http://user@h:12/", True),
    ("http://x/?\ue000", True),  # iprivate, in a query only
    ("urn:x:\ue000", False),
    ("info:fedora/demo:1/bad%zz", False),
    ("hdl:1765/a b", False),
    ("http://a:b/", False),
    ("http://a/x#y#z", False),
    ("http://ex.org/a%2", False),
    ("http://[::1]/", False),  # an IRI, of a shape left out: matched by a pattern
    ("relative/path", False),
]


@pytest.mark.parametrize(("text", "plain"), PLAIN)
def test_plain_iris(text: str, plain: bool) -> None:
    assert is_plain_iri(text) is plain


@settings(max_examples=3000, deadline=None)
@given(
    st.tuples(
        st.sampled_from(["", "a:", "http://", "info:fedora/"]),
        st.text(alphabet=st.sampled_from(list("ab:/?#%@[]09 .-_~\ue000\u00e9\ufffe<>\\")), max_size=20),
    ).map("".join)
)
def test_a_plain_iri_is_one_the_store_takes(text: str) -> None:
    """Oxigraph's IRI parser (RFC 3987) is the reference: what ldids writes in a DATA
    block, it takes."""
    if is_plain_iri(text):
        pyoxigraph.NamedNode(text)
