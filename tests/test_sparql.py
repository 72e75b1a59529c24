"""Normalizing a live store: against a real Oxigraph server, started and stopped here."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib.term import URIRef

from ldids.dumps.sparql import _Endpoint, _node, normalize_store
from ldids.ntriples import Quad
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import io as rdfio
from ldids.schemes._chars import is_plain_iri


def everything(base: str) -> set[Quad]:
    endpoint = _Endpoint(f"{base}/query", f"{base}/update", 30)
    rows = endpoint.bindings("SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }")
    return {
        (_node(row["s"]), _node(row["p"]), _node(row["o"]), _node(row["g"]) if "g" in row else None) for row in rows
    }


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


# -- What a store holds, against what the file path writes ---------------------------------------

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def _store_lines(base: str) -> set[str]:
    request = urllib.request.Request(f"{base}/store", headers={"Accept": "application/n-quads"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return {line for line in answer.read().decode().splitlines() if line}


def _file_path_lines(data: str, tmp_path: Path, config: str = "") -> set[str]:
    """The statements and links ``ldids normalize`` writes for the same N-Quads file."""
    source, settings = tmp_path / "data.nq", tmp_path / "ldids.toml"
    source.write_text(data, encoding="utf-8")
    settings.write_text(config, encoding="utf-8")
    written = subprocess.run(
        [
            sys.executable,
            "-m",
            "ldids",
            "normalize",
            "-q",
            "--config",
            str(settings),
            "-t",
            "nquads",
            "-o",
            "-",
            str(source),
        ],
        check=True,
        capture_output=True,
    ).stdout
    return {line for line in written.decode().splitlines() if line}


def _normalized_twice(base: str, config: Config) -> tuple[dict[str, Any], dict[str, Any]]:
    first = normalize_store(f"{base}/query", f"{base}/update", config, batch=2).summary().to_json()
    again = normalize_store(f"{base}/query", f"{base}/update", config).summary().to_json()
    return first, again


def test_literals_keep_their_lexical_forms_in_the_store(
    oxigraph_server: Callable[..., contextlib.AbstractContextManager[str]], tmp_path: Path
) -> None:
    """A rewrite deletes the statement as the store holds it: a literal made anew by rdflib
    (a date's time zone dropped, an xsd:token's white space collapsed, markup cut) named a
    statement the store did not hold, so nothing was deleted and a changed copy was added."""
    data = "".join(
        f'<info:fedora/demo%3a1> <http://ex.org/p{n}> "{lexical}"^^<{datatype}> .\n'
        for n, (lexical, datatype) in enumerate(
            [
                ("2020-01-01Z", f"{XSD}date"),
                (" a  b ", f"{XSD}token"),
                ("\\tx  y", f"{XSD}normalizedString"),
                ("<p>x</p>", f"{RDF}HTML"),
                ("<a>b</a><!-- c -->", f"{RDF}XMLLiteral"),
                ("01", f"{XSD}integer"),
                ("1.0e0", f"{XSD}double"),
            ]
        )
    )
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads") as base:
        # As the store holds them: Oxigraph keeps numbers by value ("01" is "1").
        held = "".join(f"{line}\n" for line in sorted(_store_lines(base)))
        first, again = _normalized_twice(base, Config())
        assert _store_lines(base) == _file_path_lines(held, tmp_path)
    assert first["statements"]["rewritten"] == 7
    assert again["statements"]["rewritten"] == 0
    assert again["run"]["updates"] == 0


def test_the_configured_pid_namespaces_are_looked_for_in_a_store(
    oxigraph_server: Callable[..., contextlib.AbstractContextManager[str]], tmp_path: Path
) -> None:
    """Bare PIDs of a configured namespace are taken anywhere (as on the file path): the
    store's query looked for the schemes' needles alone, and fetched none of them."""
    data = (
        '<demo:1> <http://ex.org/p> "x" .\n'
        '<http://ex.org/s> <http://ex.org/q> "demo%3a2" .\n'
        '<http://ex.org/s> <http://ex.org/p> "y" <demo:3> .\n'
        "<http://ex.org/s> <http://ex.org/p> <Demo:4> .\n"  # another namespace: PIDs are case-sensitive
    )
    config = 'pid-namespaces = ["demo"]\n'
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads") as base:
        first, _ = _normalized_twice(base, Config.from_mapping({"pid-namespaces": ["demo"]}))
        assert _store_lines(base) == _file_path_lines(data, tmp_path, config)
    assert first["statements"]["rewritten"] == 2  # a literal is a PID under a bare-PID predicate only


def test_a_rewrite_the_store_cannot_hold_leaves_the_statement_and_says_so(
    oxigraph_server: Callable[..., contextlib.AbstractContextManager[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rewrite whose link names an IRI no SPARQL parser takes (here a scheme of one's own
    would make <urn:x:\ue000>: U+E000 is private use, no IRI character outside a query) was
    sent as an update that matched nothing, and the run said it had rewritten the statement.
    It is left as it was, and counted (--strict exits 1). (The five schemes make no such IRI
    now: a handle holding U+E000 is no handle, its characters printable.)"""
    data = "<http://ex.org/s> <http://ex.org/p> <oai:arXiv.org:x> .\n"
    made = passes.links

    def odd_links(step: Any, config: Config) -> list[Quad]:
        return [(link[0], link[1], URIRef("urn:x:\ue000"), link[3]) for link in made(step, config)]

    monkeypatch.setattr(passes, "links", odd_links)  # the module the store's run calls
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads") as base:
        first, again = _normalized_twice(base, Config())
        assert _store_lines(base) == {data.strip()}
    assert first["statements"]["rewritten"] == 0
    assert first["links"] == 0
    assert first["run"]["updates"] == 0
    assert first["skipped"] == {"term-the-store-cannot-hold": 1} == again["skipped"]
    assert "urn:x:" in first["run"]["unwritable"][0]


def test_strict_exits_1_on_what_a_store_run_left(tmp_path: Path, oxigraph_server: Any) -> None:
    data = "<info:fedora/demo%3a1> <http://ex.org/q> <<( <http://ex.org/a> <http://ex.org/b> <http://ex.org/c> )>> .\n"
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads") as base:
        argv = ["normalize", "--strict", "--sparql", f"{base}/query", "--sparql-update", f"{base}/update"]
        strict = subprocess.run([sys.executable, "-m", "ldids", *argv], capture_output=True, text=True)
    assert strict.returncode == 1, strict.stderr


def test_rdf_1_2_terms_in_a_store_are_left_and_counted(
    oxigraph_server: Callable[..., contextlib.AbstractContextManager[str]], tmp_path: Path
) -> None:
    """A triple term and a literal with a base direction have no RDF 1.1 form: a statement
    holding one is left as it is and counted, never rewritten with the term made a string or
    its direction dropped."""
    data = (
        "<info:fedora/demo%3a1> <http://ex.org/q> <<( <http://ex.org/a> <http://ex.org/b> <http://ex.org/c> )>> .\n"
        '<info:fedora/demo%3a1> <http://ex.org/t> "x"@en--ltr .\n'
        '<info:fedora/demo%3a1> <http://ex.org/u> "y" .\n'
    )
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads") as base:
        before = _store_lines(base)
        first, _ = _normalized_twice(base, Config())
        after = _store_lines(base)
    assert first["skipped"] == {"rdf-1.2-term": 2}
    assert first["statements"]["rewritten"] == 1
    kept = {line for line in before if "<<(" in line or "--ltr" in line}
    assert len(kept) == 2
    assert kept <= after
    assert '<info:fedora/demo:1> <http://ex.org/u> "y" .' in after


def test_a_datatype_the_store_took_leniently_is_matched_by_a_pattern(
    oxigraph_server: Callable[..., contextlib.AbstractContextManager[str]], tmp_path: Path
) -> None:
    """A literal whose datatype is no IRI a parser takes (loaded leniently) cannot be named in
    a DATA block: the update failed, with the rest of its batch, on every run."""
    data = (
        '<info:fedora/demo%3a1> <http://ex.org/p> "x"^^<http://ex.org/my type> .\n'
        '<info:fedora/demo%3a2> <http://ex.org/p> "y" .\n'
    )
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads") as base:
        first, again = _normalized_twice(base, Config())
        held = _store_lines(base)
    assert first["statements"]["rewritten"] == 2
    assert again["run"]["updates"] == 0
    assert '<info:fedora/demo:1> <http://ex.org/p> "x"^^<http://ex.org/my type> .' in held
    assert '<info:fedora/demo:2> <http://ex.org/p> "y" .' in held


def test_a_store_whose_default_graph_is_the_union_of_its_graphs(
    oxigraph_server: Callable[..., contextlib.AbstractContextManager[str]], tmp_path: Path
) -> None:
    """Read as ``{ ?s ?p ?o } UNION { GRAPH ?g { ... } }``, such a store gives each statement
    of a named graph twice: it was counted twice and copied into the default graph."""
    data = (
        '<info:fedora/demo%3a1> <http://ex.org/p> "x" <http://ex.org/g> .\n'
        '<info:fedora/demo%3a2> <http://ex.org/p> "y" .\n'
    )
    with oxigraph_server(tmp_path / "store", data.encode(), "application/n-quads", "--union-default-graph") as base:
        first, again = _normalized_twice(base, Config())
        held = _store_lines(base)
    assert held == _file_path_lines(data, tmp_path)
    assert first["statements"]["in"] == 2
    assert first["statements"]["rewritten"] == 2
    assert again["run"]["updates"] == 0
