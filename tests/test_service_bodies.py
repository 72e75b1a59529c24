"""Every body read completely: what a real server answers to POST /normalize is, byte for
byte, what ``ldids normalize`` writes for the same file, from an empty body to 100 MiB, sent
with a length, chunked, or gzip-encoded; a body over the limit is 413, never cut short."""

from __future__ import annotations

import gzip
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from ldids.service.app import create_app

MiB = 1024 * 1024
BASE = "http://example.org/base/"
#: (format of the file the CLI reads, its extension, Content-Type) per syntax.
SYNTAX = {
    "nt": (".nt", "application/n-triples"),
    "nq": (".nq", "application/n-quads"),
    "ttl": (".ttl", "text/turtle"),
    "rdf": (".rdf", "application/rdf+xml"),
}
ACCEPT = {".nt": "application/n-triples", ".nq": "application/n-quads", ".ttl": "text/turtle"}


def statements(syntax: str, size: int) -> bytes:
    """About ``size`` bytes of ``syntax``, full of identifiers to rewrite and link, literals
    with escapes and non-ASCII characters, blank nodes, and (Turtle) relative IRIs."""
    if size == 0:
        return b""
    parts: list[str] = []
    if syntax == "ttl":
        parts.append("@prefix dc: <http://purl.org/dc/elements/1.1/> .\n@prefix x: <http://x/> .\n")
    if syntax == "rdf":
        parts.append(
            '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"'
            ' xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
        )
    written, i = 0, 0
    while written < size:
        if syntax == "ttl":
            part = (
                f'<info:fedora/demo%3a{i % 5000}> dc:identifier "oai:arXiv.org:hep-th/{i % 3000}" ;\n'
                f'  x:title "caf\\u00E9 {i}"@fr ; x:rel <item/{i % 13}> .\n'
                f"_:b{i % 11} x:q <hdl:100.102/{i % 97:032x}> .\n"
            )
        elif syntax == "rdf":
            about = f"info:fedora/demo%3a{i % 500}"
            part = f'<rdf:Description rdf:about="{about}"><dc:title>t{i}</dc:title></rdf:Description>\n'
        else:
            graph = f" <oai:arXiv.org:g{i % 3}>" if syntax == "nq" else ""
            part = (
                f"<info:fedora/demo%3a{i % 5000}> <http://purl.org/dc/elements/1.1/identifier> "
                f'"oai:arXiv.org:{i}"{graph} .\n'
                f"<http://x/s{i}> <http://x/p> <hdl:100.102/{i % 97:032x}>{graph} .\n"
                f'_:b{i % 11} <http://x/q> "caf\\u00E9 \\"{i}\\""@fr{graph} .\n'
            )
        parts.append(part)
        written += len(part)
        i += 1
    if syntax == "rdf":
        parts.append("</rdf:RDF>\n")
    return "".join(parts).encode()


def cli_normalize(source: Path, output: Path) -> bytes:
    """What the installed ``ldids normalize`` writes for ``source`` (formats from the names)."""
    script = Path(sys.executable).parent / "ldids"
    done = subprocess.run(
        [str(script), "normalize", str(source), "-o", str(output), "--base", BASE, "--quiet"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return output.read_bytes()


def chunked(body: bytes, size: int = 256 * 1024) -> Iterator[bytes]:
    """The body in pieces, sent without a Content-Length (Transfer-Encoding: chunked)."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


@pytest.fixture(scope="module")
def big_server(serve_ldids: Callable[..., AbstractContextManager[tuple[str, object]]]) -> Iterator[str]:
    with serve_ldids("--max-body", str(120 * MiB), "--no-store") as (base, _):
        yield base


def post(base: str, body: bytes, mode: str, content_type: str, accept: str) -> httpx2.Response:
    headers = {"Content-Type": content_type, "Accept": accept}
    content: bytes | Iterator[bytes] = body
    if mode == "chunked":
        content = chunked(body)
    elif mode == "gzip":
        content, headers["Content-Encoding"] = gzip.compress(body, compresslevel=1), "gzip"
    with httpx2.Client(timeout=300) as http:
        return http.post(f"{base}/normalize", params={"base": BASE}, content=content, headers=headers)


CASES = [
    # (syntax in, extension out, sizes): the streamed paths (lines and parsed), the graph path.
    ("nt", ".nt", [0, 200 * 1024, 3 * MiB]),
    ("nq", ".nq", [150 * 1024]),
    ("ttl", ".nt", [0, 200 * 1024, 2 * MiB]),
    ("ttl", ".ttl", [200 * 1024]),
    ("rdf", ".nt", [200 * 1024]),
]


@pytest.mark.parametrize(
    ("syntax", "out", "size", "mode"),
    [
        (syntax, out, size, mode)
        for syntax, out, sizes in CASES
        for size in sizes
        for mode in ("plain", "chunked", "gzip")
    ],
)
def test_normalize_is_the_cli_byte_for_byte(
    big_server: str, tmp_path: Path, syntax: str, out: str, size: int, mode: str
) -> None:
    extension, content_type = SYNTAX[syntax]
    body = statements(syntax, size)
    source = tmp_path / f"in{extension}"
    source.write_bytes(body)
    expected = cli_normalize(source, tmp_path / f"out{out}")
    answer = post(big_server, body, mode, content_type, ACCEPT[out])
    assert answer.status_code == 200, answer.text[:500]
    assert len(answer.content) == len(expected)
    assert answer.content == expected


def test_a_100_mib_body_chunked_is_the_cli_byte_for_byte(big_server: str, tmp_path: Path) -> None:
    body = statements("nt", 100 * MiB)
    source = tmp_path / "in.nt"
    source.write_bytes(body)
    expected = cli_normalize(source, tmp_path / "out.nt")
    answer = post(big_server, body, "chunked", "application/n-triples", "application/n-triples")
    assert answer.status_code == 200, answer.text[:500]
    assert answer.content.count(b"\n") == expected.count(b"\n") > 1_300_000
    assert answer.content == expected


def is_413(answer: httpx2.Response, limit: int) -> None:
    assert answer.status_code == 413
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["limit"] == limit


@pytest.mark.parametrize("mode", ["plain", "chunked", "gzip"])
def test_over_the_limit_on_a_real_server_is_413(server: str, mode: str) -> None:
    # The session's server keeps the default limit of `ldids serve`, 10 MiB.
    body = statements("nt", 10 * MiB + 1)
    answer = post(server, body, mode, "application/n-triples", "application/n-triples")
    is_413(answer, 10 * MiB)


@pytest.fixture(scope="module")
def small() -> Iterator[TestClient]:
    with TestClient(create_app(max_body=100_000)) as client:
        yield client


@pytest.mark.parametrize(("syntax", "path"), [("nt", "/normalize"), ("ttl", "/normalize"), ("ttl", "/validate")])
def test_bodies_just_past_the_limit_are_413_whole_ones_are_read(small: TestClient, syntax: str, path: str) -> None:
    body = statements(syntax, 200_000)
    cut = body[: body.rindex(b"> .\n", 0, 100_000) + 4]  # the last whole statement within the limit
    headers, query = {"Content-Type": SYNTAX[syntax][1]}, {"base": BASE}
    assert small.post(path, params=query, content=chunked(cut, 4096), headers=headers).status_code == 200
    is_413(small.post(path, params=query, content=chunked(body[:100_001], 4096), headers=headers), 100_000)


def test_a_compression_bomb_is_413_at_the_limit(small: TestClient) -> None:
    bomb = gzip.compress(b"#" * 50 * MiB)  # about 50 kB, 50 MiB when inflated
    headers = {"Content-Type": "application/n-triples", "Content-Encoding": "gzip"}
    is_413(small.post("/normalize", content=bomb, headers=headers), 100_000)


def test_deflate_and_several_gzip_members_are_decoded(small: TestClient) -> None:
    body = statements("nt", 20_000)
    plain = small.post("/normalize", content=body, headers={"Content-Type": "application/n-triples"})
    members = gzip.compress(body[:7000]) + gzip.compress(body[7000:])  # RFC 1952 §2.2
    for encoding, content in [("gzip", members), ("deflate", zlib.compress(body)), ("identity", body)]:
        headers = {"Content-Type": "application/n-triples", "Content-Encoding": encoding}
        assert small.post("/normalize", content=content, headers=headers).content == plain.content


@pytest.mark.parametrize(
    ("encoding", "content", "status"),
    [("br", b"x", 415), ("gzip", b"not gzip", 400), ("gzip", gzip.compress(b"<a:b> <c:d> <e:f> .\n")[:-6], 400)],
)
def test_bodies_that_do_not_decode_are_4xx(small: TestClient, encoding: str, content: bytes, status: int) -> None:
    headers = {"Content-Type": "application/n-triples", "Content-Encoding": encoding}
    answer = small.post("/normalize", content=content, headers=headers)
    assert (answer.status_code, answer.headers["content-type"]) == (status, "application/problem+json")


def test_a_multipart_form_over_the_limit_is_413(small: TestClient) -> None:
    data = statements("ttl", 60_000)
    shapes = b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n" + b"#" * 60_000 + b"\n"
    files = {"data": ("d.ttl", data, "text/turtle"), "shapes": ("s.ttl", shapes, "text/turtle")}
    is_413(small.post("/validate", files=files, params={"base": BASE}), 100_000)
    files = {"data": ("d.ttl", data, "text/turtle")}
    assert small.post("/validate", files=files, params={"base": BASE}).status_code == 200


@pytest.mark.parametrize(("syntax", "mode"), [("nt", "plain"), ("nt", "chunked"), ("ttl", "chunked")])
def test_a_fault_at_the_end_of_a_body_is_a_problem_and_a_200_says_its_length(
    server: str, syntax: str, mode: str
) -> None:
    # The service answers once the work is done (README, "Service"): a fault in the last line
    # of a 2 MiB body is a 4xx problem saying where, never a 200 cut short; and a 200 carries
    # its Content-Length, so a client that reads fewer bytes knows the answer is not whole.
    good = statements(syntax, 2 * MiB)
    content_type = SYNTAX[syntax][1]
    whole = post(server, good, mode, content_type, "application/n-triples")
    assert whole.status_code == 200
    assert "chunked" not in whole.headers.get("transfer-encoding", "")
    assert int(whole.headers["content-length"]) == len(whole.content) > 0
    bad = good + b"<http://example.org/s> <http://example.org/p> .\n"
    answer = post(server, bad, mode, content_type, "application/n-triples")
    assert 400 <= answer.status_code < 500
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["line"] == bad.count(b"\n")
