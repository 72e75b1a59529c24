"""The embedded store of links and crosswalks, and the service's /known."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.rdf import io as rdfio
from ldids.service.app import create_app
from ldids.service.store import IdentityStore, default_location

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = (ROOT / "examples" / "fedora-export.ttl").read_bytes()


def test_known_identifiers_persist(tmp_path: Path) -> None:
    store = IdentityStore(tmp_path / "store")
    result = passes.normalize(rdfio.read_bytes(EXAMPLE, "turtle").quads, Config())
    assert store.record(result) == len(result.links) + len(result.rewrites)
    del store
    reopened = IdentityStore(tmp_path / "store")
    known = reopened.known("oai:example.org:item1")
    assert known["canonical"] == "http://purl.org/poi/example.org/item1"
    # The oai form links to the POI, Fedora's itemID links the object to it, and the object
    # to the form it was written in: owl:sameAs is followed both ways, transitively.
    assert known["same_as"] == ["INFO:FEDORA/demo%3a1", "info:fedora/demo:1", "oai:example.org:item1"]
    assert known["written_as"] == ["oai:example.org:item1"]
    assert reopened.known("INFO:FEDORA/demo%3a1")["written_as"] == ["INFO:FEDORA/demo%3a1"]
    assert reopened.known("hdl:1765/999") == {"canonical": "hdl:1765/999", "same_as": [], "written_as": []}


def test_default_location_follows_xdg(monkeypatch: object, tmp_path: Path) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_location() == tmp_path / "ldids" / "store"


def test_service_records_and_answers(tmp_path: Path) -> None:
    with TestClient(create_app(store=IdentityStore(tmp_path / "store"))) as client:
        assert client.get("/known", params={"id": "demo:1"}).json()["same_as"] == []
        client.post("/normalize", content=EXAMPLE, headers={"Content-Type": "text/turtle"})
        answer = client.get("/known", params={"id": "demo:1"}).json()
        assert answer["canonical"] == "info:fedora/demo:1"
        assert "INFO:FEDORA/demo%3a1" in answer["same_as"]
        assert "http://purl.org/poi/example.org/item1" in answer["same_as"]
        problem = client.get("/known", params={"id": "not an identifier"})
        assert (problem.status_code, problem.json()["code"]) == (400, "ldids.invalid-identifier")


def test_service_without_a_store(tmp_path: Path) -> None:
    with TestClient(create_app()) as client:
        assert client.get("/known", params={"id": "demo:1"}).status_code == 404
