"""No network, no server paths: shapes and data sent to the service never make it connect
anywhere (a listening socket on 127.0.0.1 sees no connection), and relative IRIs resolve
against the request's ``base`` or are an error, never against the server's files."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from ldids.service.app import create_app

DATA = b"<http://x/a> <http://x/p> <http://x/b> .\n"
SH = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A socket listening on 127.0.0.1 that nothing may connect to."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.settimeout(0.5)
        yield sock


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as connected:
        yield connected


def shapes_reaching(url: str) -> list[str]:
    """Shapes that would read from ``url``: in a constraint, a target, a rule, imports."""
    select = f"SELECT $this WHERE {{ SERVICE <{url}> {{ $this ?p ?o }} }}"
    return [
        # A SPARQL-based constraint (SHACL §5).
        f"<http://x/S> a sh:NodeShape ; sh:targetNode <http://x/a> ; sh:sparql [ sh:select '''{select}''' ] .",
        # A SPARQL-based target (SHACL-AF §5.1), the keyword in lower case.
        f"<http://x/S> a sh:NodeShape ; sh:target [ a sh:SPARQLTarget ; sh:select '''{select.lower()}''' ] ;"
        " sh:property [ sh:path <http://x/p> ; sh:minCount 1 ] .",
        # A SPARQL rule (SHACL-AF §8.3).
        "<http://x/S> a sh:NodeShape ; sh:targetNode <http://x/a> ; sh:rule [ a sh:SPARQLRule ;"
        f" sh:construct '''CONSTRUCT {{ $this <http://x/q> ?o }} WHERE {{ SERVICE <{url}> {{ $this ?p ?o }} }}''' ] .",
        # A dataset named in the query.
        f"<http://x/S> a sh:NodeShape ; sh:targetNode <http://x/a> ; sh:sparql [ sh:select"
        f" '''SELECT $this FROM <{url}> WHERE {{ $this ?p ?o }}''' ] .",
        # Imports (SHACL §3.3.2) and a shapes graph named elsewhere (§3.3.1).
        f"<http://x/shapes> owl:imports <{url}shapes.ttl> .",
        f"<http://x/data> sh:shapesGraph <{url}shapes.ttl> .",
    ]


@pytest.mark.parametrize("index", range(6))
def test_shapes_that_reach_elsewhere_are_422_and_connect_nowhere(
    client: TestClient, listener: socket.socket, index: int
) -> None:
    host, port = listener.getsockname()
    shapes = SH + shapes_reaching(f"http://{host}:{port}/")[index]
    files = {"data": ("d.nt", DATA, "application/n-triples"), "shapes": ("s.ttl", shapes.encode(), "text/turtle")}
    answer = client.post("/validate", files=files)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "ldids.unsafe-shapes"
    with pytest.raises(TimeoutError):
        listener.accept()


def test_data_naming_remote_documents_connects_nowhere(client: TestClient, listener: socket.socket) -> None:
    host, port = listener.getsockname()
    url = f"http://{host}:{port}/"
    jsonld = f'{{"@context": "{url}context.jsonld", "@id": "http://x/a", "p": "v"}}'.encode()
    xml = (
        f'<?xml version="1.0"?><!DOCTYPE r SYSTEM "{url}r.dtd"><rdf:RDF '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>'
    ).encode()
    imports = f"<http://x/a> <http://www.w3.org/2002/07/owl#imports> <{url}more.ttl> .\n".encode()
    for body, media in [(jsonld, "application/ld+json"), (xml, "application/rdf+xml")]:
        for path in ("/normalize", "/validate"):
            answer = client.post(path, content=body, headers={"Content-Type": media})
            assert answer.status_code == 400, answer.text
    assert (
        client.post("/validate", content=imports, headers={"Content-Type": "application/n-triples"}).status_code == 200
    )
    with pytest.raises(TimeoutError):
        listener.accept()


@pytest.mark.parametrize("path", ["/normalize", "/validate"])
def test_relative_iris_resolve_against_base_or_are_400(client: TestClient, path: str) -> None:
    turtle = b"<item/1> <http://purl.org/dc/elements/1.1/identifier> <../x> .\n"
    accept = "application/n-triples" if path == "/normalize" else "application/json"
    headers = {"Content-Type": "text/turtle", "Accept": accept}
    refused = client.post(path, content=turtle, headers=headers)
    assert refused.status_code == 400
    assert "/tmp" not in refused.text
    assert "ldids-request" not in refused.text
    assert refused.json()["line"] == 1
    resolved = client.post(path, params={"base": "http://example.org/a/b"}, content=turtle, headers=headers)
    assert resolved.status_code == 200
    if path == "/normalize":
        assert resolved.text.startswith("<http://example.org/a/item/1> ")
        assert "<http://example.org/x>" in resolved.text
    bad = client.post(path, params={"base": "relative/"}, content=turtle, headers=headers)
    assert (bad.status_code, bad.json()["code"]) == (400, "ldids.base")
