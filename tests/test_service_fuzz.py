"""Bad input is a 4xx with problem details (RFC 9457), never a 5xx: 10,000 generated
malformed requests (seeded, so a failure can be replayed) to every route, through the
application in-process (and its real worker processes)."""

from __future__ import annotations

import gzip
import json
import random
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from ldids.service.app import Limits, create_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = (ROOT / "examples" / "fedora-export.ttl").read_bytes()
SEED = 20240917
COUNT = int(__import__("os").environ.get("FUZZ_COUNT", "10000"))
LIMIT = 64 * 1024

PATHS = ["/inspect", "/normalize", "/validate", "/known", "/vocab", "/shapes", "/", "/health", "/store/normalize"]
WORK = ["/inspect", "/normalize", "/validate"]
ALLOWED = {"/inspect": ["GET", "POST"], "/normalize": ["POST"], "/validate": ["POST"], "/store/normalize": ["POST"]}
METHODS = ["GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]
TYPES = [
    "text/turtle", "application/n-triples", "application/n-quads", "application/trig", "application/rdf+xml",
    "application/ld+json", "application/xml", "application/json", "multipart/form-data",
    "multipart/form-data; boundary=x", "text/turtle; charset=utf-16", "text/csv", "", "*/*", "text/", ";;;",
    "application/n-triples; q=0", "text/turtle\u00e9", "application/x-foxml", "application/oai-pmh+xml",
]  # fmt: skip
ACCEPTS = [
    "*/*", "text/turtle", "application/n-triples", "application/ld+json", "image/png", "text/*;q=abc", "",
    "application/json", "text/plain", ",,,", "*/*;q=0", "application/rdf+xml;q=0.5, text/turtle;q=0.9",
]  # fmt: skip
ENCODINGS = ["", "", "", "gzip", "deflate", "br", "gzip, gzip", "identity", "x-gzip", "compress", "gzip;q=1"]
SEEDS = [
    EXAMPLE,
    b'<info:fedora/demo%3a1> <http://purl.org/dc/elements/1.1/identifier> "oai:arXiv.org:1" .\n' * 5,
    b"<info:fedora/demo:1> <http://x/p> <hdl:1765/315> <oai:a.b:g> .\n",
    b'[{"@id": "info:fedora/demo:1", "http://x/p": "hdl:1765/1"}]',
    b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    b'<rdf:Description rdf:about="info:fedora/demo:1"/></rdf:RDF>',
    b'["demo:1", "oai:arXiv.org:hep-th/9901001", "hdl:100.102/f58fb49eb1f848f0a606e84cef294be5"]',
]
SHAPES = [
    b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://x/S> a sh:NodeShape ; sh:targetNode <http://x/a> ;"
    b" sh:property [ sh:path <http://x/p> ; sh:minCount 1 ] .\n",
    b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://x/S> a sh:NodeShape ; sh:targetNode <http://x/a> ;"
    b" sh:sparql [ sh:select 'SELECT $this WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }' ] .\n",
    b"@prefix owl: <http://www.w3.org/2002/07/owl#> .\n<http://x/s> owl:imports <http://127.0.0.1:9/s.ttl> .\n",
    b'@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://x/S> a sh:NodeShape ; sh:path 42 ; sh:minCount "x" .\n',
    b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://x/S> a sh:NodeShape ; sh:targetClass <http://x/C> ;"
    b' sh:property [ sh:path [ sh:alternativePath 1 ] ; sh:pattern "([" ] .\n',
    b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://x/S> sh:sparql [ sh:select 'SELECT $this {' ] ;"
    b" sh:targetNode <http://x/a> .\n",
]
ODD = ["\ud800", "\udfff", "\x00", "\ufeff", "é", "\u202e", "%", "%zz", "%ED%A0%80", "<", ">", '"', "\\", " ", "\n"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One of the ways a body goes wrong."""
    choice = rng.randrange(13)
    if choice == 0 or not data:
        return data[: rng.randrange(len(data) + 1)]  # cut short
    if choice == 1:
        spot = rng.randrange(len(data))
        return data[:spot] + bytes([rng.randrange(256)]) + data[spot + 1 :]  # one byte changed
    if choice == 2:
        spot = rng.randrange(len(data))
        return data[:spot] + rng.randbytes(rng.randrange(1, 40)) + data[spot:]  # noise inserted
    if choice == 3:
        return b"\xed\xa0\x80" + data  # an encoded lone surrogate: no UTF-8
    if choice == 4:
        return b"<http://x/" + b"a" * rng.randrange(1000, LIMIT - 100) + b">"  # a huge line
    if choice == 5:
        depth = rng.choice([100, 5_000, 30_000])
        return b"[" * depth + b"]" * rng.randrange(depth + 1)  # deep JSON
    if choice == 6:
        return json.dumps([rng.choice(ODD) * rng.randrange(1, 4) for _ in range(5)], ensure_ascii=True).encode()
    if choice == 7:
        return data.replace(b"<", b"<" + rng.choice(ODD).encode("utf-8", "surrogatepass"), 1)
    if choice == 8:
        return b"\xff\xfe" + data.decode("latin-1").encode("utf-16-le")  # another encoding
    if choice == 9:
        return data.replace(b"info:fedora/", b"../" * rng.randrange(1, 4), 1)  # relative IRIs
    if choice == 10:
        return rng.randbytes(rng.randrange(0, 2000))
    if choice == 11 and rng.random() < 0.2:
        return data * (LIMIT // len(data) + 1)  # past the limit
    return data


def encode(body: bytes, encoding: str, rng: random.Random) -> bytes:
    if encoding in ("gzip", "x-gzip") and rng.random() < 0.8:
        packed = gzip.compress(body)
        return packed if rng.random() < 0.8 else packed[: rng.randrange(len(packed))]
    if encoding == "deflate" and rng.random() < 0.8:
        return zlib.compress(body)
    return body


def request(rng: random.Random) -> dict[str, Any]:
    """One generated request: method, path, query, headers and body (or a multipart form)."""
    path = rng.choice([*PATHS, *WORK * 4, "/nope", "/inspect/x", "//normalize", "/%ff"])
    method = rng.choice(METHODS) if rng.random() < 0.15 else rng.choice(ALLOWED.get(path, ["GET"]))
    params: dict[str, str] = {}
    if rng.random() < 0.6:
        params["id"] = rng.choice(["demo:1", "", *ODD]) + rng.choice(["", "oai:a.b:c", "x" * rng.randrange(1, 3000)])
    if rng.random() < 0.2:
        params["scheme"] = rng.choice(["oai", "nope", "", "\x00"])
    if rng.random() < 0.2:
        params["base"] = rng.choice(["http://example.org/", "relative/", "", "http://[::1", "file:///etc/", "\ud800"])
    if rng.random() < 0.1:
        params["links"] = rng.choice(["false", "maybe", ""])
    headers = {"Content-Type": rng.choice(TYPES), "Accept": rng.choice(ACCEPTS)}
    encoding = rng.choice(ENCODINGS)
    if encoding:
        headers["Content-Encoding"] = encoding
    body = mutate(rng.choice(SEEDS), rng) if rng.random() < 0.85 else rng.choice(SEEDS)
    # Sent as bytes, as a client that encodes nothing for us would: lone surrogates included.
    query = "&".join(f"{k}={quote(v.encode('utf-8', 'surrogatepass'))}" for k, v in params.items())
    raw = {key: value.encode("utf-8") for key, value in headers.items()}
    spec: dict[str, Any] = {"method": method, "url": f"{path}?{query}" if query else path, "headers": raw}
    if path == "/validate" and rng.random() < 0.3:
        shapes = rng.choice(SHAPES)
        shapes = mutate(shapes, rng) if rng.random() < 0.4 else shapes
        part_type = rng.choice(["text/turtle", "text/turtle", "application/json", "nope/nope", ""])
        spec["files"] = {"data": ("d.ttl", body, "text/turtle"), "shapes": ("s.ttl", shapes, part_type)}
        del raw["Content-Type"]
        raw.pop("Content-Encoding", None)
    elif method not in ("GET", "HEAD", "OPTIONS") or rng.random() < 0.1:
        spec["content"] = encode(body, encoding, rng)
    return spec


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    limits = Limits(workers=2, queue=64, seconds=30)
    with TestClient(create_app(max_body=LIMIT, limits=limits), raise_server_exceptions=False) as connected:
        yield connected


def test_ten_thousand_malformed_requests_get_no_5xx(client: TestClient) -> None:
    rng = random.Random(SEED)
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    for number in range(COUNT):
        spec = request(rng)
        answer = client.request(**spec)
        statuses[answer.status_code] += 1
        if answer.status_code >= 500:
            failures.append(f"#{number} {spec['method']} {spec['url']} {spec['headers']}: {answer.text}")
        elif answer.status_code >= 400 and spec["method"] != "HEAD":
            assert answer.headers["content-type"] == "application/problem+json", (number, answer.text)
            problem = answer.json()
            assert {"type", "title", "status", "detail"} <= set(problem), problem
            assert problem["status"] == answer.status_code
    assert failures == [], failures[:5]
    # The generator reaches what it is for: refusals of many kinds and some answers.
    assert {200, 400, 404, 405, 406, 413, 415, 422} <= set(statuses), statuses
