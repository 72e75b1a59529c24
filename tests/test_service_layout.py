"""The service's routes, written out: clients generate code from the OpenAPI operations, so
moving a route between modules must not add, drop or rename one."""

from __future__ import annotations

import httpx2
from fastapi.testclient import TestClient

from ldids.passes.config import Config
from ldids.service.app import create_app

#: (method, path, operationId) as /openapi.json lists them, in its order (the order /docs shows).
OPERATIONS = [
    ("GET", "/inspect", "inspect_one_inspect_get"),
    ("POST", "/inspect", "inspect_many_inspect_post"),
    ("GET", "/known", "known_known_get"),
    ("POST", "/normalize", "normalize_normalize_post"),
    ("POST", "/store/normalize", "normalize_live_store_store_normalize_post"),
    ("POST", "/validate", "validate_validate_post"),
    ("GET", "/health", "health_health_get"),
    ("GET", "/vocab", "vocabulary_vocab_get"),
    ("GET", "/shapes", "shapes_shapes_get"),
]

#: Every route the application answers, the page for people (left out of the schema) included.
ROUTES = [
    ("GET", "/inspect"),
    ("GET", "/known"),
    ("POST", "/inspect"),
    ("POST", "/normalize"),
    ("POST", "/store/normalize"),
    ("POST", "/validate"),
    ("GET", "/"),
    ("GET", "/health"),
    ("GET", "/vocab"),
    ("GET", "/shapes"),
]


def app_args() -> tuple[Config, int]:
    """The configuration and body limit tests/test_service.py builds its app with."""
    return Config(bare_pid_predicates=frozenset({"http://purl.org/dc/elements/1.1/identifier"})), 200_000


def test_openapi_operations_are_unchanged() -> None:
    config, max_body = app_args()
    paths = create_app(config, max_body=max_body).openapi()["paths"]
    found = [
        (method.upper(), path, operation["operationId"])
        for path, item in paths.items()
        for method, operation in item.items()
    ]
    assert found == OPERATIONS


def routed(answer: httpx2.Response) -> bool:
    """Whether a route took the request: no route answers 405, or 404 with the problem code
    ``ldids.not-found`` (a route's own 404, such as /known's without a store, has its own)."""
    missing = answer.status_code == 404 and answer.json()["code"] == "ldids.not-found"
    return answer.status_code != 405 and not missing


def test_every_route_answers() -> None:
    # Asked over HTTP, not read from app.routes: how FastAPI keeps included routers there is
    # its own business and has changed between releases.
    config, max_body = app_args()
    with TestClient(create_app(config, max_body=max_body)) as client:
        assert [(method, path) for method, path in ROUTES if not routed(client.request(method, path))] == []
        assert not routed(client.request("DELETE", "/inspect"))
        assert not routed(client.request("GET", "/store"))
