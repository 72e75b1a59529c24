"""The HTTP API, through an HTTP client: in-process (httpx2 over ASGI) and a real server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from ldids.passes.config import Config
from ldids.service.app import create_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = (ROOT / "examples" / "fedora-export.ttl").read_bytes()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    config = Config(bare_pid_predicates=frozenset({"http://purl.org/dc/elements/1.1/identifier"}))
    with TestClient(create_app(config, max_body=200_000)) as connected:
        yield connected


def test_inspect_one_is_the_cli_json(client: TestClient) -> None:
    answer = client.get("/inspect", params={"id": "oai:arXiv.org:hep-th/9901001"})
    assert answer.status_code == 200
    assert answer.json() == {
        "input": "oai:arXiv.org:hep-th/9901001",
        "valid": True,
        "scheme": "oai",
        "profile": None,
        "normalized": "oai:arXiv.org:hep-th/9901001",
        "canonical": "http://purl.org/poi/arXiv.org/hep-th/9901001",
        "equivalents": ["oai:arXiv.org:hep-th/9901001"],
        "problems": [],
    }


def test_inspect_batch_keeps_order_and_reports_problems(client: TestClient) -> None:
    answer = client.post("/inspect", json=["demo%3a1", "oai:wibble.org:ab%3ccd"])
    first, second = answer.json()
    assert (first["canonical"], second["valid"]) == ("info:fedora/demo:1", False)
    assert second["problems"][0] == {
        "code": "oai.lowercase-hex",
        "message": "escapes must use upper-case hex digits (%3C, not %3c)",
        "start": 17,
        "end": 20,
    }


@pytest.mark.parametrize(
    ("accept", "marker"),
    [
        ("text/turtle", "@prefix"),
        ("application/n-triples", "<info:fedora/demo:1> <http://purl.org/dc/elements/1.1/identifier>"),
        ("application/n-quads", "<info:fedora/demo:1>"),
        ("application/trig", "<info:fedora/demo:1>"),
        ("application/rdf+xml", "<rdf:RDF"),
        ("application/ld+json", '"@id": "info:fedora/demo:1"'),
    ],
)
def test_normalize_content_negotiation(client: TestClient, accept: str, marker: str) -> None:
    answer = client.post("/normalize", content=EXAMPLE, headers={"Content-Type": "text/turtle", "Accept": accept})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith(accept)
    assert marker in answer.text
    summary = json.loads(answer.headers["ldids-summary"])
    assert (summary["statements"]["in"], summary["links"]) == (11, 7)


def test_normalize_without_links(client: TestClient) -> None:
    answer = client.post(
        "/normalize",
        params={"links": "false"},
        content=EXAMPLE,
        headers={"Content-Type": "text/turtle", "Accept": "application/n-triples"},
    )
    assert "owl#sameAs" not in answer.text


def problem(answer: httpx2.Response, status: int, code: str) -> dict[str, object]:
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/problem+json"
    body: dict[str, object] = answer.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"https://w3id.org/ldids/problems#{code}"
    return body


def test_syntax_errors_are_400_with_line_and_column(client: TestClient) -> None:
    answer = client.post(
        "/normalize", content=b"<http://a> <http://b> .\n", headers={"Content-Type": "application/n-triples"}
    )
    body = problem(answer, 400, "ldids.input")
    assert (body["line"], body["column"]) == (1, 23)  # streamed N-Triples: the exact column
    turtle = client.post(
        "/normalize", content=b"@prefix a: <http://a/> .\na:b a:c .\n", headers={"Content-Type": "text/turtle"}
    )
    assert problem(turtle, 400, "ldids.input")["line"] == 2


def test_n_triples_bodies_are_normalized_like_the_cli(tmp_path: Path) -> None:
    from ldids.dumps.run import normalize_dump
    from ldids.dumps.stream import Settings

    lines = [f"<info:fedora/demo%3a{i % 500}> <http://x/p{i % 7}> <oai:arXiv.org:{i % 300}> .\n" for i in range(20000)]
    body = "".join(lines).encode()  # about 1.3 MB: many chunks, several blocks
    with TestClient(create_app(max_body=10_000_000)) as big:
        headers = {"Content-Type": "application/n-triples", "Accept": "application/n-triples"}
        answer = big.post("/normalize", content=body, headers=headers)
    assert answer.status_code == 200
    source, out = tmp_path / "in.nt", tmp_path / "out.nt"
    source.write_bytes(body)
    summary = normalize_dump([str(source)], str(out), Settings(Config()))
    assert answer.content == out.read_bytes()
    sent = json.loads(answer.headers["Ldids-Summary"])
    expected = summary.to_json()
    assert {key: sent[key] for key in expected if key != "run"} == {k: v for k, v in expected.items() if k != "run"}


def test_a_line_body_over_the_limit_without_a_length_is_413_with_nothing_written() -> None:
    line = b"<info:fedora/demo:1> <http://x/p> <oai:arXiv.org:1> .\n"

    def chunks() -> Iterator[bytes]:  # sent chunked: no Content-Length to refuse it early
        for _ in range(300):
            yield line * 20

    with TestClient(create_app(max_body=100_000)) as small:
        answer = small.post("/normalize", content=chunks(), headers={"Content-Type": "application/n-triples"})
    assert problem(answer, 413, "ldids.too-large")["limit"] == 100_000


def test_a_bad_line_deep_in_a_line_body_is_400_with_its_line() -> None:
    good = b"<info:fedora/demo:1> <http://x/p> <oai:arXiv.org:1> .\n"
    body = good * 30_000 + b"<info:fedora/demo:2> <http://x/p> .\n" + good
    with TestClient(create_app(max_body=10_000_000)) as big:
        answer = big.post("/normalize", content=body, headers={"Content-Type": "application/n-triples"})
    body_json = problem(answer, 400, "ldids.input")
    assert body_json["line"] == 30_001
    assert "ldids-request" not in answer.text  # the service's own files are not named


def test_unsupported_media_type_is_415(client: TestClient) -> None:
    problem(client.post("/normalize", content=b"x", headers={"Content-Type": "text/csv"}), 415, "ldids.media-type")


def test_unacceptable_accept_is_406(client: TestClient) -> None:
    answer = client.post("/normalize", content=EXAMPLE, headers={"Content-Type": "text/turtle", "Accept": "image/png"})
    problem(answer, 406, "ldids.not-acceptable")


@pytest.mark.parametrize(
    ("body", "content_type", "accept", "said"),
    [
        (b"<http://e/s> <http://e/0/1> <http://e/o> .\n", "application/n-triples", "application/rdf+xml", "XML name"),
        (b'<http://e/s> <http://e/p> "a\\u0001b" .\n', "application/n-triples", "application/rdf+xml", "U+0001"),
        (b'<http://e/g> { <http://e/s> <http://e/p> "x" . }\n', "application/trig", "text/turtle", "named graphs"),
        (b'<http://e/g> { <http://e/s> <http://e/p> "x" . }\n', "application/trig", "application/n-triples", "named"),
    ],
)
def test_data_the_format_asked_for_cannot_write_is_406(
    client: TestClient, body: bytes, content_type: str, accept: str, said: str
) -> None:
    """The body was read; what fails is the representation asked for, which the answer has
    none of (RFC 9110 §15.5.7): 406, saying which to ask for, not a 400 about the input with
    the command line's -t."""
    answer = client.post("/normalize", content=body, headers={"Content-Type": content_type, "Accept": accept})
    detail = str(problem(answer, 406, "ldids.cannot-write")["detail"])
    assert said in detail
    assert "(Accept)" in detail
    assert "-t" not in detail


@pytest.mark.parametrize("content_type", ["text/turtle", "application/ld+json"])
def test_a_relative_iri_without_a_base_says_to_send_one(client: TestClient, content_type: str) -> None:
    body = b'<rel/x> <http://e/p> "v" .\n' if content_type == "text/turtle" else b'{"@id": "rel/x", "http://e/p": "v"}'
    for accept in ("text/turtle", "application/n-triples"):
        answer = client.post("/normalize", content=body, headers={"Content-Type": content_type, "Accept": accept})
        detail = str(problem(answer, 400, "ldids.input")["detail"])
        assert "?base=IRI" in detail
        assert "--base" not in detail
        assert "standard input" not in detail
    based = client.post("/normalize?base=http://e/", content=body, headers={"Content-Type": content_type})
    assert based.status_code == 200


def test_shapes_sent_along_that_do_not_parse_are_422(client: TestClient) -> None:
    answer = client.post(
        "/validate", files={"data": ("d.ttl", EXAMPLE, "text/turtle"), "shapes": ("s.ttl", b"oops <", "text/turtle")}
    )
    assert "the shapes cannot be read at 1:" in str(problem(answer, 422, "ldids.shapes")["detail"])


def test_bodies_over_the_limit_are_413(client: TestClient) -> None:
    answer = client.post("/normalize", content=b" " * 200_001, headers={"Content-Type": "text/turtle"})
    assert problem(answer, 413, "ldids.too-large")["limit"] == 200_000


def test_entity_declarations_are_refused(client: TestClient) -> None:
    laughs = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><r/>'
    answer = client.post("/normalize", content=laughs, headers={"Content-Type": "application/rdf+xml"})
    assert "refused" in str(problem(answer, 400, "ldids.input")["detail"])


def test_validate(client: TestClient) -> None:
    answer = client.post("/validate", content=EXAMPLE, headers={"Content-Type": "text/turtle"})
    verdict = answer.json()
    assert verdict["conforms"] is False
    assert "INFO:FEDORA/demo%3a1" in {result["focus"] for result in verdict["results"]}
    normalized = client.post("/normalize", content=EXAMPLE, headers={"Content-Type": "text/turtle"}).content
    assert (
        client.post("/validate", content=normalized, headers={"Content-Type": "text/turtle"}).json()["conforms"] is True
    )
    text = client.post("/validate", content=EXAMPLE, headers={"Content-Type": "text/turtle", "Accept": "text/plain"})
    assert text.text.startswith("does not conform")
    report = client.post("/validate", content=EXAMPLE, headers={"Content-Type": "text/turtle", "Accept": "text/turtle"})
    assert "sh:ValidationReport" in report.text


def test_validate_with_shapes_sent_along(client: TestClient) -> None:
    normalized = client.post("/normalize", content=EXAMPLE, headers={"Content-Type": "text/turtle"}).content
    shapes = (
        b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        b"<http://x/NeedsTitle> a sh:NodeShape ; sh:targetSubjectsOf <http://www.openarchives.org/OAI/2.0/itemID> ;\n"
        b"  sh:property [ sh:path <http://purl.org/dc/elements/1.1/title> ; sh:minCount 1 ] .\n"
    )
    answer = client.post(
        "/validate", files={"data": ("d.ttl", normalized, "text/turtle"), "shapes": ("s.ttl", shapes, "text/turtle")}
    )
    verdict = answer.json()
    assert verdict["conforms"] is False
    assert verdict["results"][0]["focus"] == "info:fedora/demo:1"


@pytest.mark.parametrize(("path", "marker"), [("/vocab", "FedoraPid"), ("/shapes", "CanonicalIdentifier")])
def test_vocabulary_and_shapes_with_conneg(client: TestClient, path: str, marker: str) -> None:
    turtle = client.get(path)
    assert turtle.headers["content-type"].startswith("text/turtle")
    assert marker in turtle.text
    assert client.get(path, headers={"Accept": "application/ld+json"}).text.lstrip().startswith("[")


def test_openapi_description(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/inspect", "/normalize", "/validate", "/vocab", "/shapes"} <= set(paths)


def test_against_a_running_server(server: str) -> None:
    with httpx2.Client(base_url=server, timeout=30) as http:
        assert http.get("/inspect", params={"id": "hdl:1765/315"}).json()["canonical"] == "hdl:1765/315"
        answer = http.post(
            "/normalize", content=EXAMPLE, headers={"Content-Type": "text/turtle", "Accept": "application/n-triples"}
        )
        assert answer.status_code == 200
        assert "<info:fedora/demo:1>" in answer.text


SUMMARY_BODY = (
    b"<http://e/s> <http://e/p> <oai:arXiv.org:ab%3ccd> .\n"  # invalid: a lower-case escape
    b"<http://e/s> <http://e/p> <info:fedora/demo%3a1> .\n"
)


def _without_seconds(document: dict[str, object]) -> dict[str, object]:
    run = dict(document.get("run") or {})  # type: ignore[call-overload]
    run.pop("seconds", None)
    samples = [json.dumps(sample).replace("<stdin>", "request body") for sample in run.get("problem_samples", [])]
    return {**document, "run": {**run, "problem_samples": samples}}


@pytest.mark.parametrize("target", ["text/turtle", "application/n-triples"])
@pytest.mark.parametrize("links", [True, False])
def test_the_summary_header_is_the_clis_summary(
    client: TestClient, target: str, links: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The header is what ``--summary json`` prints for the same body: the invalid
    identifiers' samples on every path (the graph path's header had none), and the links
    counted where they were written (``?links=false`` counted those it left out)."""
    import io

    from ldids.cli import main

    answer = client.post(
        "/normalize",
        params={"links": str(links).lower()},
        content=SUMMARY_BODY,
        headers={"Content-Type": "application/n-triples", "Accept": target},
    )
    assert answer.status_code == 200
    header = json.loads(answer.headers["Ldids-Summary"])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(SUMMARY_BODY)))
    fmt = "turtle" if target == "text/turtle" else "nt"
    argv = ["normalize", "-i", "nt", "-t", fmt, "--summary", "json", "-o", "-", "-"]
    assert main(argv + ([] if links else ["--no-links"]), io.StringIO()) == 0
    printed = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert _without_seconds(header) == _without_seconds(printed)
    assert len(header["run"]["problem_samples"]) == 1
    assert header["links"] == (1 if links else 0)


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/n-triples;q=0, */*;q=0.5", "text/turtle"),
        ("text/turtle;q=0, */*", "application/n-triples"),
        ("text/turtle;q=0, text/*;q=0.9, application/*;q=0.5", "application/n-triples"),
        ("application/x-turtle", "application/x-turtle"),
    ],
)
def test_accept_refuses_what_it_gives_q_0(client: TestClient, accept: str, content_type: str) -> None:
    """q=0 means not acceptable (RFC 9110 §12.4.2), even where */* would cover it; a type a
    format is also known by names it."""
    body = b"<http://e/s> <http://e/p> <oai:arXiv.org:x> .\n"
    source = "application/n-triples" if content_type == "text/turtle" else "text/turtle"
    answer = client.post("/normalize", content=body, headers={"Content-Type": source, "Accept": accept})
    assert answer.status_code == 200
    assert answer.headers["content-type"].split(";")[0] == content_type
